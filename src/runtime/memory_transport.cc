#include "runtime/memory_transport.h"

namespace sluice {

MemoryTransport::Mailbox& MemoryTransport::BoxLocked(int id, int to) {
  Mailbox& box = boxes_[{id, to}];
  if (box.from.empty()) box.from.resize(static_cast<size_t>(workers_));
  return box;
}

Status MemoryTransport::Send(int id, int from, int to, BatchPtr batch) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!aborted_.ok()) return aborted_;
    BoxLocked(id, to).from[static_cast<size_t>(from)].push_back(std::move(batch));
  }
  cv_.notify_all();
  return Status::OK();
}

Status MemoryTransport::Receive(int id, int to, std::vector<BatchPtr>* out) {
  std::unique_lock<std::mutex> l(mu_);
  Mailbox& box = BoxLocked(id, to);
  auto ready = [&] {
    if (!aborted_.ok()) return true;
    for (const auto& q : box.from) {
      if (q.empty()) return false;
    }
    return true;
  };
  cv_.wait(l, ready);
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
    std::lock_guard<std::mutex> l(mu_);
    if (aborted_.ok()) aborted_ = Status::Aborted("step aborted: " + status.ToString());
  }
  cv_.notify_all();
}

void MemoryTransport::Reset() {
  std::lock_guard<std::mutex> l(mu_);
  boxes_.clear();
  aborted_ = Status::OK();
}

}  // namespace sluice
