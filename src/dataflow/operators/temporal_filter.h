#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string_view>

#include "dataflow/circuit.h"
#include "dataflow/clock.h"
#include "zset/spine.h"

namespace sluice {

// The instants at which a row is in a temporal filter's output: from `from`
// (inclusive) to `until` (exclusive), in the step clock's microseconds.
struct TimeSpan {
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  static constexpr int64_t kAlways = std::numeric_limits<int64_t>::min();
  int64_t from = kAlways;
  int64_t until = kNever;
};

// Sets `*span` for one (key, value) pair: a row whose condition is NULL gets
// an empty span (from >= until).
using TimeSpanFn =
    std::function<Status(std::string_view key, std::string_view val, TimeSpan* span)>;

// TemporalFilter: the rows of its input's integral whose span holds the step
// clock's value now (a WHERE clause comparing a row's time with NOW(): `ts >
// NOW() - INTERVAL '1 hour'` keeps a row until an hour after its ts).
//
// Its output changes when its input does and when the clock moves: a row
// enters when the clock reaches its `from` and leaves when the clock reaches
// its `until`. It keeps only the rows still waiting for one of these two
// instants, in one spine ordered by that instant, so a step reads only the
// rows whose instant the clock passed since the last step, and a row that
// will never leave (no `until`) is not kept once it entered. Input rows of
// any age may come and go: a delete finds its row under the same instant its
// insert was filed at, since both are computed from the row and the clock.
//
// The clock must not move back. Per worker; the input needs no exchange.
class TemporalFilterOp final : public Operator {
 public:
  TemporalFilterOp(Stream* in, StepClockPtr clock, TimeSpanFn span, const SpineOptions& opts)
      : in_(in), clock_(std::move(clock)), span_(std::move(span)), waiting_(opts) {}
  Status Eval() override;
  const char* name() const override { return "temporal_filter"; }
  bool has_state() const override { return true; }
  Status SaveState(StateWriter& w) const override;
  Status LoadState(StateReader& r) override;

 private:
  Stream* in_;
  StepClockPtr clock_;
  TimeSpanFn span_;
  // Key: the instant (8 bytes, ordered), whether the row waits to enter
  // (0) or to leave (1), then the input's key; value: the input's value.
  Spine waiting_;
  // The clock of the last step: every row still waiting has a later
  // instant, so a step seeks past the rows taken before (which cancel out
  // only when a merge reaches them) instead of stepping over them.
  int64_t done_ = TimeSpan::kAlways;
};

Stream* TemporalFilter(Circuit& c, Stream* in, StepClockPtr clock, TimeSpanFn span);

}  // namespace sluice
