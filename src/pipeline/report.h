// What a pipeline reports about itself: the figures of /stats, the state of
// /status and the list of /checkpoints. A controller fills them for its
// host; the coordinator asks every host for its own (coordination.h) and
// merges them field by field (PipelineStats::Add). src/server/render.cc
// turns them into the API's JSON; the keys are the names in Fields().
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/mutex.h"

namespace sluice::pipeline {

// The cache of decoded blocks of state on storage (zset/block_cache.h).
struct BlockCacheStats {
  uint64_t capacity_bytes = 0;
  uint64_t bytes = 0;  // of the blocks held now
  uint64_t blocks = 0;
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t evictions = 0;
  double hit_rate = 0;  // hits / (hits + misses)

  template <class V>
  void Fields(V& v) {
    v("capacity_bytes", capacity_bytes);
    v("bytes", bytes);
    v("blocks", blocks);
    v("hits", hits);
    v("misses", misses);
    v("evictions", evictions);
    v("hit_rate", hit_rate);
  }
};

// A recursive query's steps (sql::EvalErrors::Recursion).
struct RecursionStats {
  uint64_t incremental_steps = 0;   // kept up to date from the change
  uint64_t from_scratch_steps = 0;  // computed from scratch
  uint64_t last_iterations = 0;     // of the last step
  uint64_t iterations = 0;          // of every step

  template <class V>
  void Fields(V& v) {
    v("incremental_steps", incremental_steps);
    v("from_scratch_steps", from_scratch_steps);
    v("last_iterations", last_iterations);
    v("iterations", iterations);
  }
};

struct GlobalStats {
  std::string state;
  uint64_t step = 0;
  uint64_t processed_records = 0;
  uint64_t step_msecs = 0;  // running steps and handing their outputs over
  uint64_t step_usecs = 0;  // the same, in microseconds (a step often takes less than 1 ms)
  uint64_t buffered_records = 0;
  bool transaction = false;
  uint64_t uptime_msecs = 0;
  uint64_t rss_bytes = 0;
  uint64_t storage_bytes = 0;
  uint64_t spill_failures = 0;
  std::optional<std::string> last_spill_failure;
  std::optional<uint64_t> memory_budget_bytes;
  std::optional<uint64_t> spine_memory_bytes;
  std::optional<BlockCacheStats> block_cache;  // with storage
  uint64_t workers = 0;
  uint64_t eval_errors = 0;
  std::vector<std::string> eval_error_samples;
  // Views that failed alone, and those that read them: why.
  std::map<std::string, std::string> failed_views;
  // Per table without a primary key: deletes that found no row to delete.
  std::map<std::string, uint64_t> ignored_deletes;
  // Per table with a LATENESS column: rows dropped because they came behind
  // its waterline, and the waterline (once known), as a value of the column.
  std::map<std::string, uint64_t> late_rows;
  std::map<std::string, std::string> waterlines;
  // Per recursive query of a view ("<view>.<query>"), once it ran.
  std::map<std::string, RecursionStats> recursive_queries;
  // When a view reads NOW(): the step clock in the last step, as a
  // TIMESTAMP (UTC).
  std::optional<std::string> step_clock;
  std::optional<uint64_t> exchange_bytes_sent;  // on many hosts: to other hosts
  std::optional<uint64_t> hosts;                // on many hosts
  // Steps by how long they took: the count in each bucket of
  // StepLoop::kLatencyBounds, then those longer.
  std::vector<uint64_t> step_latency_counts;
  // Where steps spent their time since the start, by phase (StepPhases).
  std::map<std::string, uint64_t> step_phase_usecs;
  // Per operator of the circuit, "<owner>/<ordinal> <name>" ("view:q4/3
  // join"): microseconds spent evaluating it since the start, summed over
  // workers (and hosts). An exchange's time includes waiting for the other
  // workers' parts; merges of integrals in the background are not counted.
  std::map<std::string, uint64_t> operator_usecs;

  template <class V>
  void Fields(V& v) {
    v("state", state);
    v("step", step);
    v("processed_records", processed_records);
    v("step_msecs", step_msecs);
    v("step_usecs", step_usecs);
    v("buffered_records", buffered_records);
    v("transaction", transaction);
    v("uptime_msecs", uptime_msecs);
    v("rss_bytes", rss_bytes);
    v("storage_bytes", storage_bytes);
    v("spill_failures", spill_failures);
    v("last_spill_failure", last_spill_failure);
    v("memory_budget_bytes", memory_budget_bytes);
    v("spine_memory_bytes", spine_memory_bytes);
    v("block_cache", block_cache);
    v("workers", workers);
    v("eval_errors", eval_errors);
    v("eval_error_samples", eval_error_samples);
    v("failed_views", failed_views);
    v("hosts", hosts);
    v("step_latency_counts", step_latency_counts);
    v("step_phase_usecs", step_phase_usecs);
    v("operator_usecs", operator_usecs);
    v("ignored_deletes", ignored_deletes);
    v("late_rows", late_rows);
    v("waterlines", waterlines);
    v("recursive_queries", recursive_queries);
    v("step_clock", step_clock);
    v("exchange_bytes_sent", exchange_bytes_sent);
  }
};

// Where a pipeline's steps spend their time, summed over every step since
// the start, so that a change's cost can be split between the engine and
// the plumbing around it (bench/run ivm reads it):
//   queued       from the oldest queued record's arrival to its step's start
//   journal      writing the step's record to the input journal
//   split        taking the queued input and splitting it over the workers
//   circuit      the workers' step, and reading its outputs
//   transaction  summing a transaction's held outputs at its commit
//   deliver      handing the outputs to integrals, connectors and streams
// Each phase is measured with two reads of the steady clock.
//
// Thread safety: Add() is called by the thread that runs steps; Usecs()
// from any (relaxed atomics: figures, not synchronization).
class StepPhases {
 public:
  enum Phase { kQueued, kJournal, kSplit, kCircuit, kTransaction, kDeliver, kCount };
  void Add(Phase p, std::chrono::steady_clock::duration d) {
    nanos_[p].fetch_add(static_cast<uint64_t>(
                            std::chrono::duration_cast<std::chrono::nanoseconds>(d).count()),
                        std::memory_order_relaxed);
  }
  // By phase name, in microseconds.
  std::map<std::string, uint64_t> Usecs() const {
    static const char* const kNames[] = {"queued",  "journal",     "split",
                                         "circuit", "transaction", "deliver"};
    std::map<std::string, uint64_t> out;
    for (int p = 0; p < kCount; ++p) out[kNames[p]] = nanos_[p].load(std::memory_order_relaxed) / 1000;
    return out;
  }

 private:
  std::atomic<uint64_t> nanos_[kCount] = {};
};

// Deletes that found no row to delete (in a table without a primary key),
// per step and table, for the completion of the requests those steps took:
// the steps that had any, of the last kSteps.
//
// Thread safety: `mu_` guards all.
class IgnoredDeletesLog {
 public:
  // Records step `step`'s counts, given the totals so far (per table, since
  // the start): the step's are what grew since the last call.
  void RecordTotals(uint64_t step, const std::map<std::string, uint64_t>& totals) EXCLUDES(mu_);
  // Records step `step`'s own counts.
  void Record(uint64_t step, const std::map<std::string, uint64_t>& counts) EXCLUDES(mu_);
  // The counts of the last recorded step (what grew at it).
  std::map<std::string, uint64_t> Last() const EXCLUDES(mu_);
  // Summed over steps `from` to `to`.
  std::map<std::string, uint64_t> Sum(uint64_t from, uint64_t to) const EXCLUDES(mu_);
  // Waits (up to `timeout`) until step `step` is recorded: a host may say a
  // request is complete before the coordinator has every host's answer.
  void WaitRecorded(uint64_t step, std::chrono::milliseconds timeout) const EXCLUDES(mu_);

 private:
  static constexpr uint64_t kSteps = 100000;
  mutable Mutex mu_;
  std::map<std::string, uint64_t> totals_ GUARDED_BY(mu_);
  std::map<std::string, uint64_t> last_ GUARDED_BY(mu_);
  std::map<uint64_t, std::map<std::string, uint64_t>> steps_ GUARDED_BY(mu_);
  uint64_t recorded_ GUARDED_BY(mu_) = 0;  // the last step recorded
  mutable CondVar recorded_cv_;
};

// An input connector, or a table's HTTP ingress (transport "http_input",
// named "<table>.http").
struct InputStats {
  std::string name;
  std::string table;
  std::string transport;
  uint64_t records = 0;
  uint64_t bytes = 0;
  std::optional<uint64_t> requests;  // HTTP ingress
  uint64_t parse_errors = 0;
  uint64_t transport_errors = 0;
  std::optional<uint64_t> queued_records;  // connectors
  std::optional<bool> end_of_input;
  std::optional<bool> paused;
  std::string health;  // "Healthy" or "Unhealthy"
  std::optional<std::string> last_error;
  std::optional<int> host;  // on many hosts, where a connector runs

  template <class V>
  void Fields(V& v) {
    v("name", name);
    v("table", table);
    v("transport", transport);
    v("records", records);
    v("bytes", bytes);
    v("requests", requests);
    v("parse_errors", parse_errors);
    v("transport_errors", transport_errors);
    v("queued_records", queued_records);
    v("end_of_input", end_of_input);
    v("paused", paused);
    v("health", health);
    v("last_error", last_error);
    v("host", host);
  }
};

// An output connector, or an HTTP egress stream (named "egress.<id>"; the
// connector's figures are left out).
struct OutputStats {
  std::string name;
  std::string view;
  std::string transport;
  uint64_t queued_records = 0;
  std::optional<uint64_t> records;
  std::optional<uint64_t> bytes;
  std::optional<uint64_t> transport_errors;
  std::optional<bool> paused;
  std::optional<std::string> health;
  std::optional<std::string> last_error;
  std::optional<int> host;

  template <class V>
  void Fields(V& v) {
    v("name", name);
    v("view", view);
    v("transport", transport);
    v("queued_records", queued_records);
    v("records", records);
    v("bytes", bytes);
    v("transport_errors", transport_errors);
    v("paused", paused);
    v("health", health);
    v("last_error", last_error);
    v("host", host);
  }
};

// One host of many, as the coordinator's /stats lists it: its own share of
// the global figures.
struct HostStats {
  int host = 0;
  uint64_t processed_records = 0;
  uint64_t buffered_records = 0;
  uint64_t rss_bytes = 0;
  uint64_t storage_bytes = 0;
  std::optional<uint64_t> exchange_bytes_sent;

  template <class V>
  void Fields(V& v) {
    v("host", host);
    v("processed_records", processed_records);
    v("buffered_records", buffered_records);
    v("rss_bytes", rss_bytes);
    v("storage_bytes", storage_bytes);
    v("exchange_bytes_sent", exchange_bytes_sent);
  }
};

struct PipelineStats {
  GlobalStats global;
  std::vector<InputStats> inputs;
  std::vector<OutputStats> outputs;
  std::optional<std::vector<HostStats>> hosts;  // on many hosts: each host's share, by Add

  // Merges the figures of one host of many (`host`) into these: counts
  // add up, a table's HTTP ingress is one entry over all hosts, each
  // connector keeps its own entry, marked with its host, and `hosts` gets
  // the host's own figures.
  void Add(const PipelineStats& part, int host);

  template <class V>
  void Fields(V& v) {
    v("global", global);
    v("inputs", inputs);
    v("outputs", outputs);
    v("hosts", hosts);
  }
};

// A relation that a restart with a changed program rebuilds or keeps.
struct ProgramChangeEntry {
  std::string name;
  std::string kind;    // "table" or "view"
  std::string change;  // "added", "changed", "removed", "materialized"
  std::string reason;

  template <class V>
  void Fields(V& v) {
    v("name", name);
    v("kind", kind);
    v("change", change);
    v("reason", reason);
  }
};

struct ProgramChanges {
  uint64_t checkpoint_step = 0;
  std::vector<ProgramChangeEntry> relations;
  std::string status;  // "awaiting_approval", "approved", "applied"
  std::optional<uint64_t> step;

  template <class V>
  void Fields(V& v) {
    v("checkpoint_step", checkpoint_step);
    v("relations", relations);
    v("status", status);
    v("step", step);
  }
};

// The log's progress line over the `secs` seconds from `before` to `now`:
// steps, records in and out per second, memory, storage.
std::string ProgressLine(const PipelineStats& before, const PipelineStats& now, double secs);

// One host of many, as the coordinator's /status lists it.
struct HostState {
  int host = 0;
  std::string address;
  std::string state;  // the host's pipeline state, or "Unreachable"
  std::optional<uint64_t> step;
  std::optional<std::string> error;

  template <class V>
  void Fields(V& v) {
    v("host", host);
    v("address", address);
    v("state", state);
    v("step", step);
    v("error", error);
  }
};

struct PipelineStatus {
  std::string state;
  std::string pipeline_id;
  uint64_t step = 0;
  bool transaction = false;
  std::optional<std::string> error;
  std::optional<ProgramChanges> program_changes;
  std::optional<std::vector<HostState>> hosts;
  // On many hosts: where the integrals of materialized relations are
  // ("one_host" or "all_hosts").
  std::optional<std::string> layout;

  template <class V>
  void Fields(V& v) {
    v("state", state);
    v("pipeline_id", pipeline_id);
    v("step", step);
    v("transaction", transaction);
    v("error", error);
    v("program_changes", program_changes);
    v("hosts", hosts);
    v("layout", layout);
  }
};

// One checkpoint on storage (on many hosts: its parts summed).
struct CheckpointInfo {
  uint64_t checkpoint_sequence_number = 0;
  std::optional<uint64_t> step;
  uint64_t size_bytes = 0;
  std::optional<uint64_t> hosts;
  std::optional<std::string> error;  // a part that does not read back

  template <class V>
  void Fields(V& v) {
    v("checkpoint_sequence_number", checkpoint_sequence_number);
    v("step", step);
    v("size_bytes", size_bytes);
    v("hosts", hosts);
    v("error", error);
  }
};

}  // namespace sluice::pipeline
