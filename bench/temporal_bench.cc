// Temporal filters: the cost of a step in which the clock moves by a second
// and 1,000 rows of a `ts > NOW() - ...` view leave it (and 1,000 new ones
// come in), over 10^4, 10^5 and 10^6 rows in the view. The filter reads
// only the rows whose instant the clock passed, so its cost should follow
// the rows that move, not the view's size: the first printed ratios compare
// each size with 10^4. The last compares it, at 10^6, with reading every
// row's span again at each tick (what a view would cost that treated NOW()
// as an input joined with every row).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "base/allocator.h"
#include "bench/bench_util.h"
#include "dataflow/operators/input.h"
#include "dataflow/operators/output.h"
#include "dataflow/operators/temporal_filter.h"
#include "runtime/runtime.h"
#include "types/row_codec.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"
#include "zset/spine.h"

namespace sluice {
namespace {

constexpr int kMoved = 1000;                // rows that leave (and come) per tick
constexpr int64_t kTick = 1000000;          // the clock's step: a second
constexpr int64_t kApart = kTick / kMoved;  // rows' ends this far apart

// Row i: its id, then the instant it leaves (8 bytes, big-endian).
std::string RowOf(int64_t i) {
  std::string out;
  AppendInt64(i, false, &out);
  AppendInt64(i * kApart, false, &out);
  return out;
}

Status SpanOf(std::string_view key, std::string_view, TimeSpan* span) {
  uint64_t u = 0;
  for (size_t b = 8; b < 16; ++b) u = (u << 8) | static_cast<uint8_t>(key[b]);
  span->until = static_cast<int64_t>(u ^ (uint64_t{1} << 63));
  return Status::OK();
}

void BM_TemporalFilterTick(benchmark::State& state) {
  const int64_t n = state.range(0);
  auto clock = std::make_shared<StepClock>();
  auto rt = Runtime::Start({}, [&](Circuit& c) {
    AddOutput(c, TemporalFilter(c, AddInput(c, "t"), clock, SpanOf), "out");
    return Status::OK();
  });
  if (!rt.ok()) {
    state.SkipWithError(rt.status().ToString().c_str());
    return;
  }
  {  // n rows, all in the view, loaded in one step (not timed)
    BatchBuilder b;
    for (int64_t i = 0; i < n; ++i) b.Push(RowOf(i), 1);
    if (!(*rt)->Push("t", *b.Finish()).ok() || !(*rt)->Step().ok()) {
      state.SkipWithError("loading failed");
      return;
    }
  }
  int64_t now = 0, next = n;
  for (auto _ : state) {
    state.PauseTiming();
    BatchBuilder change;
    for (int i = 0; i < kMoved; ++i, ++next) change.Push(RowOf(next), 1);
    auto batch = change.Finish();
    now += kTick;
    clock->Advance(now);
    state.ResumeTiming();
    Status s = (*rt)->Push("t", *batch);
    if (s.ok()) s = (*rt)->Step();
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize((*rt)->Output("out"));
  }
}

// Every row's span read again at each tick: a scan of the whole integral.
void BM_EveryRowEachTick(benchmark::State& state) {
  const int64_t n = state.range(0);
  Spine rows{SpineOptions{}};
  {
    BatchBuilder b;
    for (int64_t i = 0; i < n; ++i) b.Push(RowOf(i), 1);
    auto batch = b.Finish();
    if (!batch.ok() || !rows.Insert(*batch).ok()) {
      state.SkipWithError("loading failed");
      return;
    }
  }
  int64_t now = 0;
  for (auto _ : state) {
    now += kTick;
    BatchBuilder in;
    auto c = rows.NewCursor();
    for (; c->KeyValid(); c->StepKey()) {
      TimeSpan span;
      if (!SpanOf(c->key(), {}, &span).ok()) return;
      if (now < span.until) in.Push(c->key(), 1);
    }
    benchmark::DoNotOptimize(in.Finish());
  }
}

BENCHMARK(BM_TemporalFilterTick)
    ->ArgNames({"rows"})
    ->Arg(10000)
    ->Arg(100000)
    ->Arg(1000000)
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(1.0)
    ->UseRealTime();
BENCHMARK(BM_EveryRowEachTick)
    ->ArgNames({"rows"})
    ->Arg(1000000)
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(1.0)
    ->UseRealTime();

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) {
  sluice::TuneAllocatorAtStart(argv);  // as `sluice run` does
  const std::string t = "BM_TemporalFilterTick/rows:";
  const std::string suffix = "/min_time:1.000/real_time";
  return sluice::bench::RunWithRatios(
      argc, argv,
      {{t + "100000" + suffix, t + "10000" + suffix},
       {t + "1000000" + suffix, t + "10000" + suffix},
       {"BM_EveryRowEachTick/rows:1000000" + suffix, t + "1000000" + suffix}});
}
