#include "pipeline/config.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace sluice::pipeline {

Result<PipelineConfig> PipelineConfig::Parse(std::string_view text) {
  using Json = nlohmann::json;
  PipelineConfig c;
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::parse_error& e) {
    // Where: the line and column of the byte the parser stopped at.
    size_t line = 1, column = 1;
    for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string what = e.what();
    const size_t colon = what.rfind(": ");
    if (colon != std::string::npos) what = what.substr(colon + 2);
    return Status::InvalidArgument("runtime config: not valid JSON at line " +
                                   std::to_string(line) + ", column " + std::to_string(column) +
                                   ": " + what);
  }
  if (!j.is_object()) return Status::InvalidArgument("runtime config: expected a JSON object");
  auto bad = [](const std::string& key, const char* what) {
    return Status::InvalidArgument("runtime config: \"" + key + "\" must be " + what);
  };
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    const Json& v = it.value();
    if (k == "workers") {
      if (!v.is_number_unsigned() || v.get<uint64_t>() == 0 || v.get<uint64_t>() > 1024) {
        return bad(k, "an integer from 1 to 1024");
      }
      c.workers = v.get<int>();
    } else if (k == "storage") {
      if (!v.is_string() && !v.is_null()) return bad(k, "a directory path");
      c.storage = v.is_string() ? v.get<std::string>() : "";
    } else if (k == "memory_budget_mb") {
      if (!v.is_number_unsigned()) return bad(k, "a non-negative integer");
      c.memory_budget_mb = v.get<uint64_t>();
    } else if (k == "min_batch_size_records" || k == "max_buffering_delay_usecs") {
      if (!v.is_number_unsigned()) return bad(k, "a non-negative integer");
      (k == "min_batch_size_records" ? c.min_batch_size_records : c.max_buffering_delay_usecs) =
          v.get<uint64_t>();
    } else if (k == "clock_resolution_usecs") {
      if (!v.is_number_unsigned() || v.get<uint64_t>() == 0) return bad(k, "a positive integer");
      c.clock_resolution_usecs = v.get<uint64_t>();
    } else if (k == "fault_tolerance") {
      if (!v.is_object() && !v.is_null()) return bad(k, "an object");
      if (v.is_object()) {
        for (auto f = v.begin(); f != v.end(); ++f) {
          if (f.key() == "model") {
            if (!f->is_string() ||
                (*f != "none" && *f != "at_least_once" && *f != "exactly_once")) {
              return bad("fault_tolerance.model",
                         "\"none\", \"at_least_once\" or \"exactly_once\"");
            }
          } else if (f.key() == "checkpoint_interval_secs") {
            if (!f->is_number_unsigned()) {
              return bad("fault_tolerance.checkpoint_interval_secs", "a non-negative integer");
            }
          } else {
            return Status::InvalidArgument("runtime config: unknown key \"fault_tolerance." +
                                           f.key() + "\"");
          }
        }
        c.fault_tolerance = v.dump();
      }
    } else if (k == "bootstrap_policy") {
      if (!v.is_string() || (v != "await_approval" && v != "allow")) {
        return bad(k, "\"await_approval\" or \"allow\"");
      }
      c.bootstrap_policy = v.get<std::string>();
    } else if (k == "dev_tweaks") {
      if (!v.is_object()) return bad(k, "an object");
      for (auto f = v.begin(); f != v.end(); ++f) {
        const std::string key = "dev_tweaks." + f.key();
        if (f.key() == "view_integrals") {
          if (!f->is_string() || (*f != "auto" && *f != "one_host" && *f != "all_hosts")) {
            return bad(key, "\"auto\", \"one_host\" or \"all_hosts\"");
          }
          c.view_integrals = f->get<std::string>();
        } else if (f.key() == "lease_idle_timeout_ms" || f.key() == "lease_touch_interval_ms") {
          if (!f->is_number_unsigned() || f->get<uint64_t>() == 0) {
            return bad(key, "a positive integer");
          }
          (f.key() == "lease_idle_timeout_ms" ? c.lease_idle_timeout_ms
                                              : c.lease_touch_interval_ms) = f->get<uint64_t>();
        } else {
          return Status::InvalidArgument(
              "runtime config: unknown key \"" + key +
              "\" (known: view_integrals, lease_idle_timeout_ms, lease_touch_interval_ms)");
        }
      }
      c.dev_tweaks = v.dump();
    } else {
      return Status::InvalidArgument(
          "runtime config: unknown key \"" + k +
          "\" (known: workers, storage, memory_budget_mb, min_batch_size_records, "
          "max_buffering_delay_usecs, clock_resolution_usecs, fault_tolerance, "
          "bootstrap_policy, dev_tweaks)");
    }
  }
  return c;
}

int64_t PipelineConfig::StepClockNow() const {
  const int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  return now - now % static_cast<int64_t>(clock_resolution_usecs);
}

std::string PipelineConfig::ToJson() const {
  using Json = nlohmann::json;
  Json j = {{"workers", workers},
            {"storage", storage},
            {"memory_budget_mb", memory_budget_mb},
            {"min_batch_size_records", min_batch_size_records},
            {"max_buffering_delay_usecs", max_buffering_delay_usecs},
            {"clock_resolution_usecs", clock_resolution_usecs},
            {"bootstrap_policy", bootstrap_policy}};
  if (!fault_tolerance.empty()) j["fault_tolerance"] = Json::parse(fault_tolerance);
  if (!dev_tweaks.empty()) j["dev_tweaks"] = Json::parse(dev_tweaks);
  return j.dump();
}

Status PipelineConfig::MergeDevTweaks(std::string_view text) {
  using Json = nlohmann::json;
  Json add = Json::parse(text, nullptr, false);
  if (add.is_discarded() || !add.is_object()) {
    return Status::InvalidArgument("dev_tweaks: expected a JSON object, not \"" +
                                   std::string(text.substr(0, 60)) + "\"");
  }
  Json all = Json::parse(ToJson());
  for (auto it = add.begin(); it != add.end(); ++it) all["dev_tweaks"][it.key()] = *it;
  SLUICE_ASSIGN_OR_RETURN(PipelineConfig merged, Parse(all.dump()));
  *this = std::move(merged);
  return Status::OK();
}

}  // namespace sluice::pipeline
