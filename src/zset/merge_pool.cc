#include "zset/merge_pool.h"

#include <algorithm>

namespace sluice {

MergePool::MergePool(int threads) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

MergePool::~MergePool() {
  {
    MutexLock l(&mu_);
    stop_ = true;
  }
  cv_.SignalAll();
  for (auto& t : threads_) t.join();
}

void MergePool::Submit(std::function<void()> task, uint64_t cost) {
  {
    MutexLock l(&mu_);
    tasks_.push(Task{cost, seq_++, std::move(task)});
  }
  cv_.Signal();
}

void MergePool::Run() {
  while (true) {
    std::function<void()> task;
    {
      MutexLock l(&mu_);
      while (!stop_ && tasks_.empty()) cv_.Wait(&mu_);
      if (tasks_.empty()) return;
      // top() is const: move out through a cast, then pop the moved-from task.
      task = std::move(const_cast<Task&>(tasks_.top()).run);
      tasks_.pop();
    }
    task();
  }
}

MergePool& MergePool::Default() {
  // Never destroyed: merges may still run while static objects are torn down.
  static MergePool* pool =
      new MergePool(std::max(2, static_cast<int>(std::thread::hardware_concurrency()) / 2));
  return *pool;
}

}  // namespace sluice
