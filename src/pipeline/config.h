// The runtime configuration of a pipeline (`sluice run --config FILE`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace sluice::pipeline {

struct PipelineConfig {
  int workers = 1;
  // Where spines spill large batches (and, later, checkpoints go); empty
  // keeps everything in memory.
  std::string storage;
  // With storage: the bytes that spines may keep in memory (0: no limit but
  // the per-batch spill threshold). Over it, batches move to storage.
  uint64_t memory_budget_mb = 0;
  // A step starts once this many records are queued, or once the oldest
  // queued record has waited max_buffering_delay_usecs, whichever is first.
  uint64_t min_batch_size_records = 0;
  uint64_t max_buffering_delay_usecs = 0;
  // The step clock (NOW() in views' temporal filters) moves in steps of
  // this many microseconds, and a pipeline whose views read it takes a
  // step at least this often, so that rows enter and leave those views
  // without new input.
  uint64_t clock_resolution_usecs = 1000000;
  // The wall clock in microseconds since 1970, rounded down to
  // clock_resolution_usecs: what the step clock is set to at a step's start.
  int64_t StepClockNow() const;
  // {"model": "none"|"at_least_once"|"exactly_once",
  //  "checkpoint_interval_secs": N}; kept as JSON text.
  std::string fault_tolerance;
  // dev_tweaks, a JSON object of settings for experiments and tests:
  //   "view_integrals": "auto" | "one_host" | "all_hosts": on many hosts,
  //     where the integrals of materialized relations live (auto: the
  //     layout the checkpoint records, all_hosts for a new pipeline)
  //   "lease_idle_timeout_ms": a host drops a lease untouched this long
  //     (default one hour)
  //   "lease_touch_interval_ms": a snapshot's reader touches its leases
  //     this often (default one minute)
  std::string dev_tweaks;
  std::string view_integrals = "auto";
  uint64_t lease_idle_timeout_ms = 3600000;
  uint64_t lease_touch_interval_ms = 60000;
  // A restart whose program changed views or tables: "await_approval" waits
  // for POST /approve before rebuilding them, "allow" goes ahead.
  std::string bootstrap_policy = "await_approval";

  // Parses the JSON text of a config file. An unknown key is an error that
  // names it, as is a value of the wrong type.
  static Result<PipelineConfig> Parse(std::string_view json);
  // The JSON text that Parse() reads back as this config.
  std::string ToJson() const;
  // Adds the keys of `json` (an object, as the dev_tweaks of a config) to
  // dev_tweaks, checked as Parse checks them.
  Status MergeDevTweaks(std::string_view json);
};

}  // namespace sluice::pipeline
