// What the step loops of the controller (one host) and the coordinator
// (many) share: opening and committing a transaction, and the checkpoint
// status they report. Each owner keeps the fields under its own mutex and
// passes them in.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>

#include "base/status.h"
#include "pipeline/api.h"

namespace sluice::pipeline {

struct TransactionState {
  bool open = false;              // between /start_transaction and its commit
  bool commit_requested = false;  // the next step commits it
  uint64_t commit_step = 0;       // the step of the last commit
};

// REQUIRES: the owner's mutex held.
Status StartTransaction(PipelineState state, const Status& failure, TransactionState* t);
// Asks the step loop (woken through `wake`) to commit, and waits on `done`
// until a step did; returns that step. `l` holds the owner's mutex.
Result<uint64_t> CommitTransaction(std::unique_lock<std::mutex>& l, const PipelineState& state,
                                   const Status& failure, TransactionState* t,
                                   std::condition_variable& wake, std::condition_variable& done);

// Checkpoints asked for, taken and failed, and when the next periodic one
// is due.
struct CheckpointProgress {
  uint64_t requested = 0;                              // the last sequence number asked for
  uint64_t taken = 0;                                  // the last written or failed
  uint64_t ok = 0;                                     // the last written (on many hosts: complete)
  uint64_t step = 0;                                   // ok's step
  std::pair<uint64_t, Status> error{0, Status::OK()};  // the last failure
  std::chrono::seconds interval{0};                    // periodic ones; 0: on request only
  std::chrono::steady_clock::time_point last_time = std::chrono::steady_clock::now();

  // With an interval: asks for one if it is due and something changed
  // since the last (`step` is the last step run); returns when the next is
  // due (max without an interval).
  std::chrono::steady_clock::time_point Schedule(uint64_t step);
  bool pending() const { return requested > taken; }
  // Checkpoint `seq` was written (or failed with `s`).
  void Taken(uint64_t seq, const Status& s);
  // The JSON of /checkpoint_status.
  std::string StatusText() const;
};

}  // namespace sluice::pipeline
