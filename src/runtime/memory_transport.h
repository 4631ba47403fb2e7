#pragma once

#include <deque>
#include <map>
#include <vector>

#include "base/mutex.h"
#include "dataflow/transport.h"

namespace sluice {

// MemoryTransport: the exchange between the worker threads of one host. A
// batch is handed over as a pointer; nothing is copied or encoded.
//
// Each (exchange id, receiver) has one FIFO per sender, so a fast worker may
// send its next round before a slow one has received this one.
//
// Thread safety: `mu_` guards the mailboxes and the abort status.
class MemoryTransport final : public Transport {
 public:
  explicit MemoryTransport(int workers) : workers_(workers) {}

  Status Send(int id, int from, int to, BatchPtr batch) override;
  Status Receive(int id, int to, std::vector<BatchPtr>* out) override;
  void Abort(const Status& status) override;
  // Clears the abort status and every mailbox, for the next step after a
  // failed one.
  void Reset();

 private:
  struct Mailbox {
    std::vector<std::deque<BatchPtr>> from;  // per sender
  };
  Mailbox& BoxLocked(int id, int to) REQUIRES(mu_);

  const int workers_;
  Mutex mu_;
  CondVar cv_;
  std::map<std::pair<int, int>, Mailbox> boxes_ GUARDED_BY(mu_);
  Status aborted_ GUARDED_BY(mu_);
};

}  // namespace sluice
