// The step loop that the controller (a pipeline on one host) and the
// coordinator (on many) share, with the state it decides by: the
// pipeline's state and failure, the step counter, the open transaction and
// the checkpoints asked for, taken and failed.
//
// At every step boundary the loop, in this order: ends if the pipeline is
// stopping or failed; takes the checkpoint asked for (or the periodic one
// that is due); runs a step if a commit is asked for, or, while running,
// if its driver says that input is due (or, with set_step_at_start, no
// step has run yet); otherwise waits until woken (by
// Wake(), or a control call) or until the input or the next periodic
// checkpoint is due.
//
// The loop runs on a thread of the owner's (Run). Steps can also run
// outside it, between BeginStep and EndStep: a replay at start, or a host's
// step that its coordinator drives.
//
// Thread safety: every method may be called from any thread; mu_ guards
// the state. The driver's hooks run without mu_, except InputDue, which
// runs with it held and may take the driver's own locks (lock order: mu_,
// then the driver's), never call back into the loop.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "pipeline/api.h"

namespace sluice::pipeline {

struct TransactionState {
  bool open = false;              // between /start_transaction and its commit
  bool commit_requested = false;  // the next step commits it
  uint64_t commit_step = 0;       // the step of the last commit
};

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
  // The JSON of /checkpoint_status.
  std::string StatusText() const;
};

class StepLoop {
 public:
  using Clock = std::chrono::steady_clock;

  struct StepPlan {
    uint64_t step = 0;
    bool commit = false;          // commits the open transaction
    bool in_transaction = false;  // runs inside one (outputs held until the commit)
    // The step clock (NOW()) for the step, in microseconds since 1970: 0
    // when the driver reads it; the journal's value when a step is replayed,
    // the coordinator's on many hosts.
    int64_t clock = 0;
  };

  class Driver {
   public:
    virtual ~Driver() = default;
    // When queued input is due for the step after `last_step`: a time not
    // after now means now; max() means none is queued. REQUIRES: the loop's
    // mutex held.
    virtual Clock::time_point InputDue(uint64_t last_step) = 0;
    // Runs step plan.step. An error fails the pipeline (through Fail).
    virtual Status RunStep(const StepPlan& plan) = 0;
    // Takes checkpoint `seq` at this step boundary. An error is reported
    // in /checkpoint_status; the pipeline goes on.
    virtual Status TakeCheckpoint(uint64_t seq) = 0;
    // The pipeline failed with `s` (already recorded): end what depends on
    // it (streams, say).
    virtual void Failed(const Status& s) = 0;
    // Every kProgressInterval while steps run: a progress line for the
    // log.
    virtual void Progress() {}
  };
  static constexpr std::chrono::seconds kProgressInterval{10};

  // `what` names the pipeline in log lines ("sluice", "sluice coordinator").
  explicit StepLoop(std::string what);

  // Runs the loop on the calling thread until the pipeline stops or fails.
  void Run(Driver* driver) EXCLUDES(mu_);

  // ---- state
  PipelineState state() const EXCLUDES(mu_);
  Status failure() const EXCLUDES(mu_);
  bool stopping() const EXCLUDES(mu_);  // stopping or failed
  uint64_t step() const EXCLUDES(mu_);
  bool stepping() const EXCLUDES(mu_);
  uint64_t step_usecs() const EXCLUDES(mu_);
  // How long steps took: the number in each bucket of kLatencyBounds (the
  // last: longer than every bound).
  static constexpr double kLatencyBounds[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                              0.25,  0.5,    1,     2.5,  5,     10,   30};
  std::vector<uint64_t> step_latency_counts() const EXCLUDES(mu_);
  bool in_transaction() const EXCLUDES(mu_);
  // The state at start (kRunning or kAwaitingApproval) and the step a
  // restart resumes at. Before the loop runs.
  void Reset(PipelineState state, uint64_t step) EXCLUDES(mu_);
  // Leaves kAwaitingApproval for kRunning.
  void Approved() EXCLUDES(mu_);
  void Pause() EXCLUDES(mu_);
  void Resume() EXCLUDES(mu_);
  // Stopping: the loop ends at the next boundary; waiters wake. Idempotent;
  // a failed pipeline stays failed.
  void SetStopping() EXCLUDES(mu_);
  // Records the failure (the first one wins; "pipeline failed at <time>: "
  // before it), logs it, wakes everyone. Returns false if the pipeline had
  // already failed or was stopping (then nothing changes).
  bool Fail(const Status& s) EXCLUDES(mu_);
  // What a failure's message ends with: how to resume (called without
  // this loop's lock held). Set before the loop runs.
  void set_failure_advice(std::function<std::string()> advice) { advice_ = std::move(advice); }
  // Input arrived (or anything else the driver's InputDue depends on
  // changed).
  void Wake() EXCLUDES(mu_);
  // Waits until no step runs and at least `min_step` steps have run, or the
  // pipeline stops, or `timeout` passes.
  void WaitForBoundary(uint64_t min_step, std::chrono::milliseconds timeout) EXCLUDES(mu_);

  // ---- steps outside the loop
  // Marks a step as running: an error if the pipeline is stopping or
  // failed (with why), or if plan.step does not follow the last step.
  Status BeginStep(const StepPlan& plan) EXCLUDES(mu_);
  // The step ended: counts its time; with `s` OK it is the last step (and a
  // commit ends the transaction); an error is left to the caller to fail.
  void EndStep(const StepPlan& plan, const Status& s, Clock::duration took) EXCLUDES(mu_);
  // Sets the step counter (a step that ran without Begin/EndStep: the
  // rebuild of a changed program).
  void set_step(uint64_t step) EXCLUDES(mu_);

  // ---- transactions
  Status StartTransaction() EXCLUDES(mu_);
  // Asks the loop to commit and waits until a step did; returns that step.
  Result<uint64_t> CommitTransaction() EXCLUDES(mu_);

  // While running, a step at least once per `interval` after the last one
  // began, input or not (a view reads the step clock, which then moves);
  // zero (the default): steps only for input and commits.
  void set_step_interval(std::chrono::microseconds interval) EXCLUDES(mu_);
  // While running, step 1 runs as soon as it may, input or not: a
  // pipeline's views then hold their answer over empty tables (a count of
  // 0, a constant's row) before any input comes. Off by default.
  void set_step_at_start(bool on) EXCLUDES(mu_);

  // ---- checkpoints
  void set_checkpoint_interval(std::chrono::seconds interval) EXCLUDES(mu_);
  // Asks for a checkpoint at the next boundary; returns its number.
  Result<uint64_t> RequestCheckpoint() EXCLUDES(mu_);
  // Waits until checkpoint `seq` is written or failed; its error if it
  // failed.
  Status WaitCheckpoint(uint64_t seq, std::chrono::milliseconds timeout) EXCLUDES(mu_);
  // A checkpoint taken outside the loop (a host's part): `seq` is the last
  // taken, and, if `s` is OK, the last written, at `step`.
  void CheckpointTaken(uint64_t seq, const Status& s, uint64_t step) EXCLUDES(mu_);
  // A restart from checkpoint `seq` (of step `step`).
  void Restored(uint64_t seq, uint64_t step) EXCLUDES(mu_);
  // The next checkpoint gets a number above `seq` (and one asked for stays
  // asked for).
  void NumberCheckpointsAfter(uint64_t seq) EXCLUDES(mu_);
  // Asks for checkpoint seq (a changed program's first one).
  void RequestCheckpointNumber(uint64_t seq) EXCLUDES(mu_);
  std::string CheckpointStatusText() const EXCLUDES(mu_);
  uint64_t last_checkpoint() const EXCLUDES(mu_);  // the last written

 private:
  void Finished(uint64_t seq, const Status& s) REQUIRES(mu_);

  const std::string what_;
  mutable Mutex mu_;
  // Wakes the loop: input, control calls, stop.
  CondVar wake_;
  // A step or checkpoint ended, or the state changed.
  mutable CondVar done_;
  PipelineState state_ GUARDED_BY(mu_) = PipelineState::kRunning;
  Status failure_ GUARDED_BY(mu_);
  uint64_t step_ GUARDED_BY(mu_) = 0;
  bool stepping_ GUARDED_BY(mu_) = false;
  uint64_t step_usecs_ GUARDED_BY(mu_) = 0;
  std::function<std::string()> advice_;
  std::vector<uint64_t> latency_counts_ GUARDED_BY(mu_) =
      std::vector<uint64_t>(std::size(kLatencyBounds) + 1);
  TransactionState txn_ GUARDED_BY(mu_);
  CheckpointProgress ckpt_ GUARDED_BY(mu_);
  std::chrono::microseconds step_interval_ GUARDED_BY(mu_){0};
  bool step_at_start_ GUARDED_BY(mu_) = false;
  Clock::time_point last_began_ GUARDED_BY(mu_) = Clock::now();  // of the last step
};

}  // namespace sluice::pipeline
