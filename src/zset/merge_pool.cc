#include "zset/merge_pool.h"

#include <algorithm>

namespace sluice {

MergePool::MergePool(int threads) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

MergePool::~MergePool() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void MergePool::Submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> l(mu_);
    tasks_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void MergePool::Run() {
  while (true) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [this] { return stop_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

MergePool& MergePool::Default() {
  // Never destroyed: merges may still run while static objects are torn down.
  static MergePool* pool =
      new MergePool(std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / 2));
  return *pool;
}

}  // namespace sluice
