// Incrementality: the cost of one step that applies a 1,000-row change to
//   SELECT c.segment, SUM(o.amount)
//   FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.segment
// with base tables of 10^4, 10^5 and 10^6 orders (and a tenth as many
// customers). Cost must follow the change, not the size of the tables: the
// printed ratios compare each size with 10^4.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "base/allocator.h"
#include "bench/bench_util.h"
#include "dataflow/operators/aggregate.h"
#include "dataflow/operators/index.h"
#include "dataflow/operators/input.h"
#include "dataflow/operators/join.h"
#include "dataflow/operators/output.h"
#include "runtime/runtime.h"
#include "types/row_codec.h"
#include "zset/batch_builder.h"

namespace sluice {
namespace {

// orders(id BIGINT NOT NULL, customer BIGINT NOT NULL, amount BIGINT NOT NULL)
const Schema kOrders = {SqlType::BigInt(false), SqlType::BigInt(false), SqlType::BigInt(false)};
// customers(id BIGINT NOT NULL, segment BIGINT NOT NULL)
const Schema kCustomers = {SqlType::BigInt(false), SqlType::BigInt(false)};
constexpr int kSegments = 100;
constexpr int kChange = 1000;

std::string Row(const std::vector<int64_t>& v) {
  std::string out;
  for (int64_t x : v) AppendInt64(x, false, &out);
  return out;
}

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

Status Build(Circuit& c) {
  Stream* orders = Index(c, AddInput(c, "orders"), kOrders, {1}, {2});
  Stream* customers = Index(c, AddInput(c, "customers"), kCustomers, {0}, {1});
  JoinSpec spec;
  spec.matched = [](std::string_view, std::string_view amount, std::string_view segment,
                    std::string* k, std::string* v) {
    k->assign(segment);
    v->assign(amount);
    return Status::OK();
  };
  Stream* joined = Join(c, orders, customers, std::move(spec));
  AddOutput(c, Aggregate(c, joined, {SqlType::BigInt(false)}, {{AggKind::kSum, 0}}), "out");
  return Status::OK();
}

void BM_JoinGroupBySumStep(benchmark::State& state) {
  const int64_t n = state.range(0);
  const int64_t customers = n / 10;
  RuntimeOptions opts;
  opts.workers = static_cast<int>(state.range(1));
  auto rt = Runtime::Start(opts, Build);
  if (!rt.ok()) {
    state.SkipWithError(rt.status().ToString().c_str());
    return;
  }
  // Order i's row is a function of i, so a later step can retract it.
  auto order_row = [customers](int64_t id) {
    uint64_t h = SplitMix64(static_cast<uint64_t>(id));
    return Row({id, static_cast<int64_t>(h % static_cast<uint64_t>(customers)),
                static_cast<int64_t>((h >> 32) % 1000)});
  };
  // The base tables, loaded in one step (not timed).
  {
    BatchBuilder c, o;
    for (int64_t i = 0; i < customers; ++i) c.Push(Row({i, i % kSegments}), 1);
    for (int64_t i = 0; i < n; ++i) o.Push(order_row(i), 1);
    if (!(*rt)->Push("customers", *c.Finish()).ok() || !(*rt)->Push("orders", *o.Finish()).ok() ||
        !(*rt)->Step().ok()) {
      state.SkipWithError("loading the base tables failed");
      return;
    }
  }
  // Each change deletes the 500 oldest live orders and inserts 500 new ones,
  // so the base size stays n.
  int64_t oldest = 0, next = n;
  for (auto _ : state) {
    state.PauseTiming();
    BatchBuilder change;
    for (int i = 0; i < kChange / 2; ++i, ++oldest) {
      change.Push(order_row(oldest), -1);
    }
    for (int i = 0; i < kChange / 2; ++i, ++next) change.Push(order_row(next), 1);
    auto batch = change.Finish();
    state.ResumeTiming();
    Status s = (*rt)->Push("orders", *batch);
    if (s.ok()) s = (*rt)->Step();
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize((*rt)->Output("out"));
  }
  state.counters["rows_changed_per_s"] = benchmark::Counter(
      static_cast<double>(kChange), benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(BM_JoinGroupBySumStep)
    ->ArgNames({"base", "workers"})
    ->Args({10000, 1})
    ->Args({100000, 1})
    ->Args({1000000, 1})
    ->Args({10000, 2})
    ->Args({1000000, 2})
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(2.0)
    ->UseRealTime();

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) {
  sluice::TuneAllocatorAtStart(argv);  // as `sluice run` does
  const std::string b = "BM_JoinGroupBySumStep/base:";
  return sluice::bench::RunWithRatios(argc, argv,
                                      {{b + "100000/workers:1/min_time:2.000/real_time",
                                        b + "10000/workers:1/min_time:2.000/real_time"},
                                       {b + "1000000/workers:1/min_time:2.000/real_time",
                                        b + "10000/workers:1/min_time:2.000/real_time"},
                                       {b + "1000000/workers:2/min_time:2.000/real_time",
                                        b + "10000/workers:2/min_time:2.000/real_time"}});
}
