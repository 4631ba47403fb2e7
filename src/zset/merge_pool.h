// MergePool: the background threads that merge spine batches, so that merging
// stays off the step's critical path.
//
// Thread safety: Submit() may be called from any thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sluice {

class MergePool {
 public:
  explicit MergePool(int threads);
  ~MergePool();  // finishes queued tasks, then joins
  MergePool(const MergePool&) = delete;
  MergePool& operator=(const MergePool&) = delete;

  void Submit(std::function<void()> task);

  // The process-wide pool: max(1, hardware threads / 2) threads.
  static MergePool& Default();

 private:
  void Run();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;  // GUARDED_BY(mu_)
  bool stop_ = false;                        // GUARDED_BY(mu_)
  std::vector<std::thread> threads_;
};

}  // namespace sluice
