// Runtime: the workers of one host. Each worker is a thread with its own
// replica of the circuit and its shard of every integral; the exchange
// operators move rows between them through a MemoryTransport.
//
// Worker numbers are global (DESIGN.md section 4): with H hosts of W workers,
// host h owns workers [h*W, (h+1)*W). Circuits see only WorkerContext, so a
// TCP transport between hosts can take the memory transport's place without
// any operator changing.
//
// A step: the caller pushes input batches (split over the workers by the
// hash of their keys, the same hash the exchange uses), calls Step(), every
// worker evaluates its circuit once, and the caller reads outputs (summed
// over workers). A failed step fails the runtime: its integrals may be half
// updated, so later steps return the same error; a pipeline restarts from its
// last checkpoint.
//
// Thread safety: Push(), Step() and Output() are called by one controlling
// thread. `mu_` guards the step handshake with the workers.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "dataflow/circuit.h"

namespace sluice {

struct RuntimeOptions {
  int workers = 1;  // worker threads on this host
  SpineOptions spine;
  // Many hosts: this host's index among `hosts`, each with `workers`
  // workers, and the exchange between them (TcpTransport), which must
  // outlive the runtime. One host: null, and the runtime makes its own
  // MemoryTransport.
  int host = 0;
  int hosts = 1;
  Transport* transport = nullptr;
};

// Builds one worker's circuit; called once per worker, in worker order.
using BuildFn = std::function<Status(Circuit&)>;

class Runtime {
 public:
  static Result<std::unique_ptr<Runtime>> Start(RuntimeOptions options, const BuildFn& build);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Adds `batch` to input `name` for the next step, split over the workers
  // by key. With many hosts, every row must belong to this host's workers.
  Status Push(const std::string& name, const BatchPtr& batch);
  // Adds `batch` to input `name` of one worker (a global worker number, of
  // this host): the caller has split its rows by WorkerForKey (exchange.h)
  // over all workers of all hosts, as Push() would have.
  Status PushToWorker(const std::string& name, int worker, const BatchPtr& batch);
  // Runs one step on every worker.
  Status Step();
  // The owners that failed alone in the last step (Circuit::SetOwner), each
  // with its first error, named by step and worker.
  std::map<std::string, Status> TakeFailedOwners();
  // From the next step on, no worker evaluates the operators of `owner`.
  void SkipOwner(const std::string& owner);
  // Output `name`'s change in the last step, summed over this host's workers
  // (with many hosts, this host's part).
  Result<BatchPtr> Output(const std::string& name) const;

  // Checkpoints, between steps: SaveState writes every worker's operator
  // state into `dir` (which must exist) and returns its manifest (JSON
  // text); LoadState reads it into a runtime just started from the same
  // program with as many workers, which then goes on from the saved step.
  // With `select`, only the operators of the owners it accepts are read
  // (Circuit::LoadState).
  Result<std::string> SaveState(const std::string& dir) const;
  Status LoadState(const std::string& dir, std::string_view manifest,
                   const Circuit::OwnerFilter& select = nullptr);
  // Every worker's operators of the owners `select` accepts replay their
  // integrals in the next step (Circuit::Replay); returns how many will.
  size_t Replay(const Circuit::OwnerFilter& select);
  // Numbers the next step `steps + 1` (a runtime that takes over from a
  // checkpoint at step `steps`).
  void set_steps(uint64_t steps) { steps_ = steps; }

  int workers() const { return options_.workers; }
  // Each worker's operators' times (Circuit::Timed): safe to read from any
  // thread, and beyond the runtime's life.
  const std::vector<std::shared_ptr<const OperatorTimes>>& operator_times() const {
    return operator_times_;
  }
  uint64_t steps() const { return steps_; }

 private:
  explicit Runtime(RuntimeOptions options);
  void WorkerLoop(int w);

  const RuntimeOptions options_;
  std::unique_ptr<Transport> owned_transport_;  // one host: a MemoryTransport
  Transport* transport_ = nullptr;
  std::vector<std::unique_ptr<Circuit>> circuits_;
  std::vector<std::shared_ptr<const OperatorTimes>> operator_times_;  // set at Start
  std::vector<std::thread> threads_;
  uint64_t steps_ = 0;
  Status failed_;
  std::map<std::string, Status> failed_owners_;  // of the last step

  Mutex mu_;
  CondVar start_cv_, done_cv_;
  uint64_t target_ GUARDED_BY(mu_) = 0;  // steps requested
  int done_ GUARDED_BY(mu_) = 0;         // workers done with target_
  bool stop_ GUARDED_BY(mu_) = false;
  std::vector<Status> results_ GUARDED_BY(mu_);  // per worker, of target_
};

}  // namespace sluice
