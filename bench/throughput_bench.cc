// Throughput of the data path, each as a ratio to std::sort of the same rows
// (a yardstick for the memory-bound limit on this machine):
//  - building 10^7 rows into batches and merging them into a spine;
//  - moving 10^7 rows through a 2-worker exchange.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "base/allocator.h"
#include "bench/bench_util.h"
#include "dataflow/operators/exchange.h"
#include "dataflow/operators/input.h"
#include "dataflow/operators/output.h"
#include "runtime/runtime.h"
#include "types/row_codec.h"
#include "zset/batch_builder.h"
#include "zset/spine.h"

namespace sluice {
namespace {

constexpr int64_t kRows = 10'000'000;
constexpr int64_t kBatchRows = 100'000;

// 10^7 rows (id BIGINT NOT NULL, value BIGINT NOT NULL) in random order, in
// one arena: 16 bytes each.
struct Rows {
  std::string arena;
  std::vector<std::string_view> rows;
  Rows() {
    std::mt19937_64 rng(7);
    arena.reserve(static_cast<size_t>(kRows) * 16);
    for (int64_t i = 0; i < kRows; ++i) {
      AppendInt64(static_cast<int64_t>(rng() >> 1), false, &arena);
      AppendInt64(i, false, &arena);
    }
    for (int64_t i = 0; i < kRows; ++i) rows.emplace_back(arena.data() + 16 * i, 16);
  }
};

const Rows& TestRows() {
  static const Rows* rows = new Rows();
  return *rows;
}

void BM_StdSort(benchmark::State& state) {
  const Rows& in = TestRows();
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<std::string_view> v = in.rows;
    state.ResumeTiming();
    std::sort(v.begin(), v.end());
    benchmark::DoNotOptimize(v.data());
  }
  state.SetItemsProcessed(state.iterations() * kRows);
}

void BM_SpineBuildAndMerge(benchmark::State& state) {
  const Rows& in = TestRows();
  for (auto _ : state) {
    SpineOptions opts;
    Spine spine(opts);
    for (int64_t start = 0; start < kRows; start += kBatchRows) {
      BatchBuilder b;
      b.Reserve(static_cast<size_t>(kBatchRows), static_cast<size_t>(kBatchRows) * 16);
      for (int64_t i = start; i < start + kBatchRows; ++i)
        b.Push(in.rows[static_cast<size_t>(i)], 1);
      auto batch = b.Finish();
      if (!batch.ok() || !spine.Insert(*batch).ok()) {
        state.SkipWithError("insert failed");
        return;
      }
    }
    // Down to one batch: the whole integral sorted and consolidated.
    auto all = spine.Consolidated();
    if (!all.ok() || (*all)->len() != static_cast<uint64_t>(kRows)) {
      state.SkipWithError("merge failed");
      return;
    }
  }
  state.SetItemsProcessed(state.iterations() * kRows);
}

void BM_Exchange2Workers(benchmark::State& state) {
  const Rows& in = TestRows();
  RuntimeOptions opts;
  opts.workers = 2;
  auto rt = Runtime::Start(opts, [](Circuit& c) {
    AddOutput(c, Exchange(c, AddInput(c, "in")), "out");
    return Status::OK();
  });
  // The input, pre-built as sorted batches that start on the "wrong" worker
  // half of the time: every row is hashed, half of them move.
  std::vector<BatchPtr> batches;
  for (int64_t start = 0; start < kRows; start += kBatchRows) {
    BatchBuilder b;
    for (int64_t i = start; i < start + kBatchRows; ++i) b.Push(in.rows[static_cast<size_t>(i)], 1);
    batches.push_back(*b.Finish());
  }
  for (auto _ : state) {
    uint64_t moved = 0;
    for (const BatchPtr& b : batches) {
      Status s = (*rt)->Push("in", b);
      if (s.ok()) s = (*rt)->Step();
      if (!s.ok()) {
        state.SkipWithError(s.ToString().c_str());
        return;
      }
      moved += (*(*rt)->Output("out"))->len();
    }
    if (moved != static_cast<uint64_t>(kRows)) state.SkipWithError("rows lost in the exchange");
  }
  state.SetItemsProcessed(state.iterations() * kRows);
}

BENCHMARK(BM_StdSort)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_SpineBuildAndMerge)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_Exchange2Workers)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) {
  sluice::TuneAllocatorAtStart(argv);  // as `sluice run` does
  return sluice::bench::RunWithRatios(
      argc, argv,
      {{"BM_SpineBuildAndMerge/iterations:3/real_time", "BM_StdSort/iterations:3/real_time"},
       {"BM_Exchange2Workers/iterations:3/real_time", "BM_StdSort/iterations:3/real_time"}});
}
