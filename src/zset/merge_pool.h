// MergePool: the background threads that merge spine batches, so that merging
// stays off the step's critical path. Cheaper tasks run first: a long merge of
// two large batches must not hold up the small merges that keep a spine's
// batch count low (and with it the cost of every lookup), so there are at
// least two threads and the queue is ordered by cost.
//
// Thread safety: Submit() may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <thread>
#include <vector>

#include "base/mutex.h"

namespace sluice {

class MergePool {
 public:
  explicit MergePool(int threads);
  ~MergePool();  // finishes queued tasks, then joins
  MergePool(const MergePool&) = delete;
  MergePool& operator=(const MergePool&) = delete;

  // `cost` orders the queue (lowest first), e.g. the rows a merge reads.
  void Submit(std::function<void()> task, uint64_t cost = 0);

  // The process-wide pool: max(2, hardware threads / 2) threads.
  static MergePool& Default();

 private:
  void Run();

  Mutex mu_;
  CondVar cv_;
  struct Task {
    uint64_t cost;
    uint64_t seq;  // FIFO among equal costs
    std::function<void()> run;
    bool operator>(const Task& o) const { return cost != o.cost ? cost > o.cost : seq > o.seq; }
  };
  std::priority_queue<Task, std::vector<Task>, std::greater<Task>> tasks_ GUARDED_BY(mu_);
  uint64_t seq_ GUARDED_BY(mu_) = 0;
  bool stop_ GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace sluice
