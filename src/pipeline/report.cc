#include "pipeline/report.h"

#include <algorithm>
#include <cstdio>

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
  AddOptional(&g.exchange_bytes_sent, p.exchange_bytes_sent);
  for (const auto& [table, n] : p.ignored_deletes) g.ignored_deletes[table] += n;
  for (const auto& [phase, n] : p.step_phase_usecs) g.step_phase_usecs[phase] += n;
  for (const auto& [op, n] : p.operator_usecs) g.operator_usecs[op] += n;
  for (const auto& [table, n] : p.late_rows) g.late_rows[table] += n;
  for (const auto& [table, w] : p.waterlines) g.waterlines[table] = w;
  // A recursive query runs on one worker of one host: the others add 0.
  for (const auto& [query, r] : p.recursive_queries) {
    RecursionStats& into = g.recursive_queries[query];
    into.incremental_steps += r.incremental_steps;
    into.from_scratch_steps += r.from_scratch_steps;
    into.last_iterations = std::max(into.last_iterations, r.last_iterations);
    into.iterations += r.iterations;
  }
  if (p.step_clock) g.step_clock = p.step_clock;  // one value on every host
  g.spill_failures += p.spill_failures;
  if (p.last_spill_failure) g.last_spill_failure = p.last_spill_failure;
  AddOptional(&g.memory_budget_bytes, p.memory_budget_bytes);
  AddOptional(&g.spine_memory_bytes, p.spine_memory_bytes);
  if (p.block_cache) {
    BlockCacheStats& c = g.block_cache ? *g.block_cache : g.block_cache.emplace();
    c.capacity_bytes += p.block_cache->capacity_bytes;
    c.bytes += p.block_cache->bytes;
    c.blocks += p.block_cache->blocks;
    c.hits += p.block_cache->hits;
    c.misses += p.block_cache->misses;
    c.evictions += p.block_cache->evictions;
    c.hit_rate = c.hits + c.misses == 0
                     ? 0
                     : static_cast<double>(c.hits) / static_cast<double>(c.hits + c.misses);
  }
  if (!hosts) hosts.emplace();
  hosts->push_back({host, p.processed_records, p.buffered_records, p.rss_bytes, p.storage_bytes,
                    p.exchange_bytes_sent});
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

namespace {

uint64_t RecordsOut(const PipelineStats& s) {
  uint64_t n = 0;
  for (const OutputStats& o : s.outputs) n += o.records.value_or(0);
  return n;
}

}  // namespace

void IgnoredDeletesLog::RecordTotals(uint64_t step, const std::map<std::string, uint64_t>& totals) {
  std::map<std::string, uint64_t> grew;
  {
    MutexLock l(&mu_);
    for (const auto& [table, n] : totals) {
      uint64_t& seen = totals_[table];
      if (n > seen) grew[table] = n - seen;
      seen = n;
    }
  }
  Record(step, grew);
}

void IgnoredDeletesLog::Record(uint64_t step, const std::map<std::string, uint64_t>& counts) {
  MutexLock l(&mu_);
  last_ = counts;
  recorded_ = std::max(recorded_, step);
  recorded_cv_.SignalAll();
  if (counts.empty()) return;
  std::map<std::string, uint64_t>& at = steps_[step];
  for (const auto& [table, n] : counts) at[table] += n;
  while (!steps_.empty() && steps_.begin()->first + kSteps < step) steps_.erase(steps_.begin());
}

void IgnoredDeletesLog::WaitRecorded(uint64_t step, std::chrono::milliseconds timeout) const {
  const auto until = std::chrono::steady_clock::now() + timeout;
  MutexLock l(&mu_);
  while (recorded_ < step && std::chrono::steady_clock::now() < until) {
    recorded_cv_.WaitUntil(&mu_, until);
  }
}

std::map<std::string, uint64_t> IgnoredDeletesLog::Last() const {
  MutexLock l(&mu_);
  return last_;
}

std::map<std::string, uint64_t> IgnoredDeletesLog::Sum(uint64_t from, uint64_t to) const {
  MutexLock l(&mu_);
  std::map<std::string, uint64_t> sum;
  for (auto it = steps_.lower_bound(from); it != steps_.end() && it->first <= to; ++it) {
    for (const auto& [table, n] : it->second) sum[table] += n;
  }
  return sum;
}

std::string ProgressLine(const PipelineStats& before, const PipelineStats& now, double secs) {
  const double in =
      static_cast<double>(now.global.processed_records -
                          std::min(now.global.processed_records, before.global.processed_records));
  const uint64_t out_now = RecordsOut(now), out_before = RecordsOut(before);
  const double out = static_cast<double>(out_now - std::min(out_now, out_before));
  char line[256];
  std::snprintf(line, sizeof line,
                "step %llu (+%llu), %.0f records in/s, %.0f out/s, %llu buffered, memory %.0f "
                "MiB, storage %.0f MiB",
                static_cast<unsigned long long>(now.global.step),
                static_cast<unsigned long long>(now.global.step -
                                                std::min(now.global.step, before.global.step)),
                secs > 0 ? in / secs : 0.0, secs > 0 ? out / secs : 0.0,
                static_cast<unsigned long long>(now.global.buffered_records),
                static_cast<double>(now.global.rss_bytes) / (1 << 20),
                static_cast<double>(now.global.storage_bytes) / (1 << 20));
  return line;
}

}  // namespace sluice::pipeline
