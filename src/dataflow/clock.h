// The step clock: the value of NOW() in the step being evaluated, in
// microseconds since 1970-01-01 00:00:00 UTC (a TIMESTAMP's encoding).
//
// The controller sets it before each step (from the wall clock, rounded down
// to the pipeline's clock resolution; from the journal when a step is
// replayed; from the coordinator on many hosts), never moving it back, so
// every worker of every host sees one value per step and a replayed step sees
// the value it had. Views read it only through temporal filters
// (operators/temporal_filter.h).
//
// Thread safety: set by the controller between steps, read by workers during
// a step (an atomic).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace sluice {

class StepClock {
 public:
  int64_t now() const { return now_.load(std::memory_order_acquire); }
  // Moves the clock to `micros`, or leaves it if that is earlier.
  void Advance(int64_t micros) {
    int64_t cur = now_.load(std::memory_order_relaxed);
    while (micros > cur && !now_.compare_exchange_weak(cur, micros, std::memory_order_release)) {
    }
  }

 private:
  std::atomic<int64_t> now_{0};
};

using StepClockPtr = std::shared_ptr<const StepClock>;

}  // namespace sluice
