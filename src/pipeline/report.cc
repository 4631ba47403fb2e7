#include "pipeline/report.h"

#include <algorithm>

namespace sluice::pipeline {
namespace {

void AddOptional(std::optional<uint64_t>* into, const std::optional<uint64_t>& from) {
  if (from) *into = into->value_or(0) + *from;
}

}  // namespace

void PipelineStats::Add(const PipelineStats& part, int host) {
  GlobalStats& g = global;
  const GlobalStats& p = part.global;
  g.processed_records += p.processed_records;
  g.buffered_records += p.buffered_records;
  g.rss_bytes += p.rss_bytes;
  g.storage_bytes += p.storage_bytes;
  g.eval_errors += p.eval_errors;
  g.spill_failures += p.spill_failures;
  if (p.last_spill_failure) g.last_spill_failure = p.last_spill_failure;
  AddOptional(&g.memory_budget_bytes, p.memory_budget_bytes);
  AddOptional(&g.spine_memory_bytes, p.spine_memory_bytes);
  for (const std::string& s : p.eval_error_samples) {
    if (g.eval_error_samples.size() < 10) g.eval_error_samples.push_back(s);
  }
  for (const InputStats& in : part.inputs) {
    if (in.transport != "http_input") {
      inputs.push_back(in);
      inputs.back().host = host;
      continue;
    }
    // A table's HTTP ingress may reach any host: one entry over all.
    auto it = std::find_if(inputs.begin(), inputs.end(),
                           [&](const InputStats& e) { return e.name == in.name; });
    if (it == inputs.end()) {
      inputs.push_back(in);
      continue;
    }
    it->records += in.records;
    it->bytes += in.bytes;
    AddOptional(&it->requests, in.requests);
    it->parse_errors += in.parse_errors;
    it->transport_errors += in.transport_errors;
  }
  for (const OutputStats& out : part.outputs) {
    outputs.push_back(out);
    outputs.back().host = host;
  }
}

}  // namespace sluice::pipeline
