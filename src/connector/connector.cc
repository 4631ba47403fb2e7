#include "connector/connector.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <thread>

#include "connector/delta.h"
#include "connector/delta_input.h"
#include "connector/file.h"
#include "connector/nexmark.h"

namespace sluice::connector {
namespace {

using Json = nlohmann::json;

struct TransportInfo {
  const char* name;
  bool input;
  std::vector<std::string> settings;  // allowed keys of transport.config
  std::vector<std::string> required;
};

const std::vector<TransportInfo>& Transports() {
  static const std::vector<TransportInfo> kTransports = {
      {"file_input", true, {"path", "follow"}, {"path"}},
      {"http_input", true, {}, {}},
      {"nexmark", true, {"events", "rate", "table", "threads", "seed", "stream"}, {}},
      {"delta_table_input",
       true,
       {"uri", "mode", "version", "timestamp", "filter", "poll_interval_ms"},
       {"uri"}},
      {"file_output", false, {"path"}, {"path"}},
      {"null_output", false, {}, {}},
      {"http_output", false, {}, {}},
      {"delta_table_output",
       false,
       {"uri", "mode", "update_mode", "index", "compact_min_files", "vacuum_retention_hours",
        "target_file_size_bytes", "threads", "compression", "part_wait_secs"},
       {"uri"}},
  };
  return kTransports;
}

}  // namespace

bool SupportsDistributed(const std::string& transport) {
  return transport == "null_output" || transport == "delta_table_output";
}

Result<std::vector<ConnectorSpec>> ParseConnectors(const std::string& relation, bool is_table,
                                                   std::string_view json,
                                                   const std::string& base_dir) {
  std::vector<ConnectorSpec> out;
  if (json.empty()) return out;
  const std::string what = std::string(is_table ? "table " : "view ") + relation;
  Json list = Json::parse(json, nullptr, false);
  if (list.is_discarded() || !list.is_array()) {
    return Status::InvalidArgument("connectors of " + what + ": expected a JSON array");
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& c = list[i];
    ConnectorSpec spec;
    spec.relation = relation;
    spec.input = is_table;
    spec.name = relation + "." + std::to_string(i);
    auto fail = [&](const std::string& msg) {
      return Status::InvalidArgument("connector \"" + spec.name + "\" of " + what + ": " + msg);
    };
    if (!c.is_object()) return fail("expected a JSON object");
    if (c.contains("name")) {
      if (!c["name"].is_string()) return fail("\"name\" must be a string");
      spec.name = c["name"].get<std::string>();
    }
    bool have_transport = false;
    for (auto it = c.begin(); it != c.end(); ++it) {
      const std::string& k = it.key();
      const Json& v = it.value();
      if (k == "name") continue;
      if (k == "transport") {
        if (!v.is_object() || !v.contains("name") || !v["name"].is_string()) {
          return fail("\"transport\" must be an object with a \"name\"");
        }
        for (auto f = v.begin(); f != v.end(); ++f) {
          if (f.key() != "name" && f.key() != "config") {
            return fail("unknown field \"" + f.key() + "\" in \"transport\"");
          }
        }
        spec.transport = v["name"].get<std::string>();
        const TransportInfo* info = nullptr;
        std::string names;
        for (const TransportInfo& t : Transports()) {
          names += (names.empty() ? "" : ", ") + std::string(t.name);
          if (spec.transport == t.name) info = &t;
        }
        if (info == nullptr) {
          return fail("unknown transport \"" + spec.transport + "\" (known: " + names + ")");
        }
        if (info->input != is_table) {
          return fail("transport \"" + spec.transport + "\" is an " +
                      (info->input ? "input; a view takes output" : "output; a table takes input") +
                      " transports");
        }
        Json config = v.value("config", Json::object());
        if (!config.is_object()) return fail("\"transport.config\" must be an object");
        for (auto f = config.begin(); f != config.end(); ++f) {
          if (std::find(info->settings.begin(), info->settings.end(), f.key()) ==
              info->settings.end()) {
            return fail("unknown setting \"" + f.key() + "\" of transport " + spec.transport);
          }
        }
        for (const std::string& r : info->required) {
          if (!config.contains(r)) {
            return fail("transport " + spec.transport + " needs the setting \"" + r + "\"");
          }
        }
        if (config.contains("path")) {
          if (!config["path"].is_string() || config["path"].get<std::string>().empty()) {
            return fail("\"path\" must be a file name");
          }
          std::string path = config["path"].get<std::string>();
          if (path[0] != '/' && !base_dir.empty()) config["path"] = base_dir + "/" + path;
        }
        if (config.contains("follow") && !config["follow"].is_boolean()) {
          return fail("\"follow\" must be a boolean");
        }
        if (config.contains("uri")) {
          if (!config["uri"].is_string() || config["uri"].get<std::string>().empty()) {
            return fail("\"uri\" must be a directory");
          }
          std::string uri = config["uri"].get<std::string>();
          if (uri.rfind("file://", 0) == 0) uri = uri.substr(7);
          if (uri.find("://") != std::string::npos) {
            return fail("\"uri\" " + uri + ": only local directories are supported so far");
          }
          if (uri[0] != '/' && !base_dir.empty()) uri = base_dir + "/" + uri;
          config["uri"] = uri;
        }
        auto one_of = [&](const char* key, std::vector<std::string> allowed) -> Status {
          if (!config.contains(key)) return Status::OK();
          if (config[key].is_string() &&
              std::find(allowed.begin(), allowed.end(), config[key].get<std::string>()) !=
                  allowed.end()) {
            return Status::OK();
          }
          std::string list;
          for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
          return fail("\"" + std::string(key) + "\" must be one of " + list);
        };
        if (spec.transport == "delta_table_input") {
          SLUICE_RETURN_IF_ERROR(one_of("mode", {"snapshot", "follow", "snapshot_and_follow"}));
          if (config.contains("version") && !config["version"].is_number_unsigned()) {
            return fail("\"version\" must be a non-negative integer");
          }
          if (config.contains("timestamp") && !config["timestamp"].is_string() &&
              !config["timestamp"].is_number_integer()) {
            return fail("\"timestamp\" must be a timestamp (text) or milliseconds since the epoch");
          }
          if (config.contains("version") && config.contains("timestamp")) {
            return fail("\"version\" and \"timestamp\" are two start points: give one");
          }
          if (config.contains("filter") && !config["filter"].is_string()) {
            return fail("\"filter\" must be a SQL condition (text)");
          }
          if (config.contains("poll_interval_ms") &&
              (!config["poll_interval_ms"].is_number_unsigned() ||
               config["poll_interval_ms"].get<uint64_t>() == 0)) {
            return fail("\"poll_interval_ms\" must be a positive integer");
          }
        } else {
          SLUICE_RETURN_IF_ERROR(one_of("mode", {"append", "truncate", "error_if_exists"}));
        }
        SLUICE_RETURN_IF_ERROR(one_of("table", {"person", "auction", "bid"}));
        for (const char* key : {"events", "seed"}) {
          if (config.contains(key) && !config[key].is_number_unsigned()) {
            return fail("\"" + std::string(key) + "\" must be a non-negative integer");
          }
        }
        if (config.contains("rate") &&
            (!config["rate"].is_number() || config["rate"].get<double>() <= 0)) {
          return fail("\"rate\" must be a positive number (events per second)");
        }
        SLUICE_RETURN_IF_ERROR(one_of("update_mode", {"cdc", "merge"}));
        if (config.contains("compact_min_files") && !config["compact_min_files"].is_number_unsigned()) {
          return fail("\"compact_min_files\" must be a non-negative integer (0: never compact)");
        }
        if (config.contains("vacuum_retention_hours") &&
            (!config["vacuum_retention_hours"].is_number() ||
             config["vacuum_retention_hours"].get<double>() < 0)) {
          return fail(
              "\"vacuum_retention_hours\" must be a non-negative number of hours (how long files "
              "a commit removed stay for readers of older versions)");
        }
        if (config.contains("index") && (!config["index"].is_string() ||
                                         config["index"].get<std::string>().empty())) {
          return fail("\"index\" must be the name of an index on the view");
        }
        SLUICE_RETURN_IF_ERROR(one_of("compression", {"zstd", "snappy", "none"}));
        for (const char* key : {"target_file_size_bytes", "threads", "part_wait_secs"}) {
          if (config.contains(key) &&
              (!config[key].is_number_unsigned() || config[key].get<uint64_t>() == 0 ||
               (std::string(key) == "threads" && config[key].get<uint64_t>() > 256))) {
            return fail("\"" + std::string(key) + "\" must be a positive integer" +
                        (std::string(key) == "threads" ? " up to 256" : ""));
          }
        }
        spec.transport_config = config.dump();
        have_transport = true;
      } else if (k == "format") {
        if (!v.is_object() || !v.contains("name") || !v["name"].is_string()) {
          return fail("\"format\" must be an object with a \"name\"");
        }
        for (auto f = v.begin(); f != v.end(); ++f) {
          if (f.key() != "name" && f.key() != "config") {
            return fail("unknown field \"" + f.key() + "\" in \"format\"");
          }
        }
        auto fo = format::ParseFormatOptions(v["name"].get<std::string>(),
                                             v.contains("config") ? v["config"].dump() : "");
        if (!fo.ok()) return fail(fo.status().message());
        spec.format = *fo;
      } else if (k == "paused" || k == "send_snapshot" || k == "distributed") {
        if (!v.is_boolean()) return fail("\"" + k + "\" must be a boolean");
        (k == "paused"          ? spec.paused
         : k == "send_snapshot" ? spec.send_snapshot
                                : spec.distributed) = v.get<bool>();
      } else if (k == "max_queued_records" || k == "max_batch_size") {
        if (!v.is_number_unsigned() || v.get<uint64_t>() == 0) {
          return fail("\"" + k + "\" must be a positive integer");
        }
        (k == "max_queued_records" ? spec.max_queued_records : spec.max_batch_size) =
            v.get<uint64_t>();
      } else {
        return fail("unknown field \"" + k +
                    "\" (known: name, transport, format, paused, send_snapshot, distributed, "
                    "max_queued_records, max_batch_size)");
      }
    }
    if (!have_transport) return fail("\"transport\" is missing");
    if (spec.send_snapshot && is_table) return fail("\"send_snapshot\" is for output connectors");
    if (spec.distributed && is_table) return fail("\"distributed\" is for output connectors");
    for (const ConnectorSpec& o : out) {
      if (o.name == spec.name) return fail("two connectors have this name");
    }
    out.push_back(std::move(spec));
  }
  return out;
}

void ConnectorStats::SetError(std::string message) {
  MutexLock l(&mu_);
  last_error_ = std::move(message);
  const auto now = std::chrono::steady_clock::now();
  if (now - logged_ < std::chrono::seconds(1)) {
    ++unlogged_;
    return;
  }
  std::string more;
  if (unlogged_ > 0) more = " (and " + std::to_string(unlogged_) + " more errors before it)";
  std::fprintf(stderr, "sluice: connector %s: %s%s\n", name_.empty() ? "?" : name_.c_str(),
               last_error_.c_str(), more.c_str());
  logged_ = now;
  unlogged_ = 0;
}

void ConnectorStats::set_name(std::string name) {
  MutexLock l(&mu_);
  name_ = std::move(name);
}

std::string ConnectorStats::last_error() const {
  MutexLock l(&mu_);
  return last_error_;
}

void ConnectorStats::ClearError() {
  MutexLock l(&mu_);
  last_error_.clear();
}

uint64_t OutputChunk::records() const {
  uint64_t n = 0;
  for (const BatchPtr& b : batches) n += b->len();
  return n;
}

bool OutputQueue::Put(OutputChunk chunk) {
  const uint64_t n = chunk.records();
  std::shared_ptr<const std::function<void()>> listener;
  bool put = false;
  {
    MutexLock l(&mu_);
    if (closed_) return false;
    listener = listener_;
    if (records_ > 0 && records_ + n > max_records_ && !backpressure_) {
      closed_ = true;
      error_ = Status::Overflow(
          "the consumer fell behind by more than " + std::to_string(max_records_) +
          " records and was disconnected (ask with backpressure=true to slow the pipeline "
          "down instead)");
      chunks_.clear();
      records_ = 0;
      cv_.SignalAll();
    } else {
      while (!closed_ && records_ != 0 && records_ + n > max_records_) cv_.Wait(&mu_);
      if (closed_) return false;
      records_ += n;
      chunks_.push_back(std::move(chunk));
      cv_.SignalAll();
      put = true;
    }
  }
  if (listener) (*listener)();
  return put;
}

void OutputQueue::SetListener(std::function<void()> listener) {
  MutexLock l(&mu_);
  listener_ =
      listener ? std::make_shared<const std::function<void()>>(std::move(listener)) : nullptr;
}

OutputQueue::PopResult OutputQueue::Pop(OutputChunk* out, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  MutexLock l(&mu_);
  while (!closed_ && chunks_.empty()) {
    if (!cv_.WaitUntil(&mu_, deadline) && std::chrono::steady_clock::now() >= deadline) {
      if (closed_ || !chunks_.empty()) break;
      return PopResult::kTimeout;
    }
  }
  if (chunks_.empty()) return PopResult::kClosed;
  *out = std::move(chunks_.front());
  chunks_.pop_front();
  records_ -= out->records();
  in_flight_ = true;
  cv_.SignalAll();
  return PopResult::kChunk;
}

void OutputQueue::Done() {
  MutexLock l(&mu_);
  in_flight_ = false;
}

bool OutputQueue::Idle() const {
  MutexLock l(&mu_);
  return chunks_.empty() && !in_flight_;
}

void OutputQueue::Close(Status error) {
  std::shared_ptr<const std::function<void()>> listener;
  {
    MutexLock l(&mu_);
    if (!closed_ && !error.ok()) error_ = std::move(error);
    closed_ = true;
    cv_.SignalAll();
    listener = listener_;
  }
  if (listener) (*listener)();
}

Status OutputQueue::error() const {
  MutexLock l(&mu_);
  return error_;
}

bool OutputQueue::closed() const {
  MutexLock l(&mu_);
  return closed_;
}

uint64_t OutputQueue::queued_records() const {
  MutexLock l(&mu_);
  return records_;
}

size_t OutputQueue::queued_chunks() const {
  MutexLock l(&mu_);
  return chunks_.size();
}

Result<std::unique_ptr<InputConnector>> MakeInputConnector(const ConnectorSpec& spec,
                                                           const format::Relation& rel) {
  if (spec.transport == "file_input") return MakeFileInput(spec, rel);
  if (spec.transport == "nexmark") return MakeNexmarkInput(spec, rel);
  if (spec.transport == "delta_table_input") return MakeDeltaInput(spec, rel);
  return std::unique_ptr<InputConnector>();  // http_input: the API's /ingress
}

void DrainQueue(OutputQueue& q, ConnectorStats& stats,
                const std::function<Status(const OutputChunk&)>& write) {
  for (;;) {
    OutputChunk chunk;
    auto r = q.Pop(&chunk, std::chrono::milliseconds(1000));
    if (r == OutputQueue::PopResult::kClosed) return;
    if (r == OutputQueue::PopResult::kTimeout) continue;
    // A paused connector holds on to its chunk and leaves its queue to
    // fill, which holds the pipeline's steps back: nothing is dropped. (At
    // shutdown it writes what it holds.)
    while (stats.paused && !q.closed()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    Status s = write(chunk);
    q.Done();
    if (!s.ok()) {
      ++stats.transport_errors;
      stats.SetError(s.ToString());
    }
  }
}

Status WaitDrained(const OutputQueue& q, const ConnectorStats& stats, const std::string& name,
                   std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (!q.Idle()) {
    if (stats.paused || std::chrono::steady_clock::now() >= until) {
      return Status::Aborted("output connector \"" + name + "\" has not written out " +
                             (stats.paused ? "its changes: it is paused" : "its changes in time"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return Status::OK();
}

Result<std::unique_ptr<OutputConnector>> MakeOutputConnector(const ConnectorSpec& spec,
                                                             const format::Relation& rel) {
  if (spec.transport == "file_output") return MakeFileOutput(spec, rel);
  if (spec.transport == "null_output") return MakeNullOutput(spec);
  if (spec.transport == "delta_table_output") return MakeDeltaOutput(spec, rel);
  return std::unique_ptr<OutputConnector>();  // http_output: the API's /egress
}

}  // namespace sluice::connector
