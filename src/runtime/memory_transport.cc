#include "runtime/memory_transport.h"

namespace sluice {

MemoryTransport::Mailbox& MemoryTransport::BoxLocked(int id, int to) {
  Mailbox& box = boxes_[{id, to}];
  if (box.from.empty()) box.from.resize(static_cast<size_t>(workers_));
  return box;
}

Status MemoryTransport::Send(int id, int from, int to, BatchPtr batch) {
  {
    MutexLock l(&mu_);
    if (!aborted_.ok()) return aborted_;
    BoxLocked(id, to).from[static_cast<size_t>(from)].push_back(std::move(batch));
  }
  cv_.SignalAll();
  return Status::OK();
}

Status MemoryTransport::Receive(int id, int to, std::vector<BatchPtr>* out) {
  MutexLock l(&mu_);
  Mailbox& box = BoxLocked(id, to);
  for (;;) {
    if (!aborted_.ok()) break;
    bool ready = true;
    for (const auto& q : box.from) ready = ready && !q.empty();
    if (ready) break;
    cv_.Wait(&mu_);
  }
  if (!aborted_.ok()) return aborted_;
  out->clear();
  for (auto& q : box.from) {
    out->push_back(std::move(q.front()));
    q.pop_front();
  }
  return Status::OK();
}

void MemoryTransport::Abort(const Status& status) {
  {
    MutexLock l(&mu_);
    if (aborted_.ok()) aborted_ = Status::Aborted("step aborted: " + status.ToString());
  }
  cv_.SignalAll();
}

void MemoryTransport::Reset() {
  MutexLock l(&mu_);
  boxes_.clear();
  aborted_ = Status::OK();
}

}  // namespace sluice
