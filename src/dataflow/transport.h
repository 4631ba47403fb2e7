// Transport: how the exchange operator moves batches between workers. The
// runtime supplies one: in memory between the threads of a host, and (later)
// over TCP between hosts. Operators never know which.
//
// Every worker takes part in every exchange of every step, in the same order,
// so an exchange is named by its id in the circuit and the rounds of one id
// are delivered in order.
//
// Thread safety: all methods may be called from any worker thread at once.
#pragma once

#include <vector>

#include "base/status.h"
#include "zset/batch.h"

namespace sluice {

class Transport {
 public:
  virtual ~Transport() = default;

  // Sends `batch` from worker `from` to worker `to` in exchange `id`.
  virtual Status Send(int id, int from, int to, BatchPtr batch) = 0;
  // Waits for this round's batch from every worker to worker `to` in
  // exchange `id`; `out` gets them in worker order. Returns the abort status
  // if the step was aborted.
  virtual Status Receive(int id, int to, std::vector<BatchPtr>* out) = 0;
  // Fails the current step: every waiting and later Receive returns `status`.
  virtual void Abort(const Status& status) = 0;
  // Bytes sent to other hosts so far (0 for a transport within a process).
  virtual uint64_t bytes_sent() const { return 0; }
};

}  // namespace sluice
