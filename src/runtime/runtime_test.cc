#include "runtime/runtime.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>

#include "dataflow/operators/exchange.h"
#include "dataflow/operators/input.h"
#include "dataflow/operators/map.h"
#include "dataflow/operators/output.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {
namespace {

TEST(RuntimeTest, ExchangeShardsByKey) {
  RuntimeOptions opts;
  opts.workers = 4;
  std::vector<Stream*> exchanged(4);
  std::vector<int> worker_of(4);
  auto rt = Runtime::Start(opts, [&](Circuit& c) {
    Stream* ex = Exchange(c, AddInput(c, "in"));
    exchanged[static_cast<size_t>(c.context().worker)] = ex;
    AddOutput(c, ex, "out");
    return Status::OK();
  });
  ASSERT_TRUE(rt.ok());
  // Push rows with a key that is not the shard key (by re-keying with a map
  // before pushing, rows start on the "wrong" workers).
  BatchBuilder b;
  for (int i = 0; i < 1000; ++i) b.Push("key" + std::to_string(i), "v", 1);
  ASSERT_TRUE((*rt)->Push("in", *b.Finish()).ok());
  ASSERT_TRUE((*rt)->Step().ok());
  auto out = (*rt)->Output("out");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)->len(), 1000u);
  for (int w = 0; w < 4; ++w) {
    auto c = exchanged[static_cast<size_t>(w)]->value()->NewCursor();
    for (; c->KeyValid(); c->StepKey()) EXPECT_EQ(WorkerForKey(c->key(), 4), w);
  }
}

TEST(RuntimeTest, FailingWorkerAbortsStepWithoutHanging) {
  RuntimeOptions opts;
  opts.workers = 3;
  auto rt = Runtime::Start(opts, [&](Circuit& c) {
    int me = c.context().worker;
    Stream* m = Map(c, AddInput(c, "in"),
                    [me](std::string_view k, std::string_view v, std::string* ok, std::string* ov) {
                      if (me == 1)
                        return Status::InvalidArgument("division by zero in row " + std::string(k));
                      *ok = k;
                      *ov = v;
                      return Status::OK();
                    });
    // Other workers wait in this exchange for worker 1, which fails first.
    AddOutput(c, Exchange(c, m), "out");
    return Status::OK();
  });
  ASSERT_TRUE(rt.ok());
  BatchBuilder b;
  for (int i = 0; i < 100; ++i) b.Push("k" + std::to_string(i), "", 1);
  ASSERT_TRUE((*rt)->Push("in", *b.Finish()).ok());
  Status s = (*rt)->Step();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("division by zero"), std::string::npos);
  EXPECT_NE(s.message().find("worker 1"), std::string::npos) << s.message();
}

// An owner that fails alone: the failing worker's operator gives nothing
// from then on, the step (and its exchange) completes on every worker, the
// other owner's output is whole; once skipped, no worker evaluates it.
TEST(RuntimeTest, AnOwnerThatFailsAloneLeavesTheStepWhole) {
  RuntimeOptions opts;
  opts.workers = 3;
  std::atomic<int> evaluated{0};
  auto rt = Runtime::Start(opts, [&](Circuit& c) {
    Stream* in = AddInput(c, "in");
    c.SetOwner("healthy");
    AddOutput(c, Exchange(c, in), "healthy");
    c.SetOwner("fragile", /*fails_alone=*/true);
    Stream* m =
        Map(c, in,
            [&evaluated](std::string_view k, std::string_view v, std::string* ok, std::string* ov) {
              ++evaluated;
              if (k == "k7") return Status::InvalidArgument("division by zero");
              *ok = k;
              *ov = v;
              return Status::OK();
            });
    AddOutput(c, Exchange(c, m), "fragile");
    return Status::OK();
  });
  ASSERT_TRUE(rt.ok());
  auto push = [&](int from, int to) {
    BatchBuilder b;
    for (int i = from; i < to; ++i) b.Push("k" + std::to_string(i), "", 1);
    return (*rt)->Push("in", *b.Finish());
  };
  ASSERT_TRUE(push(0, 100).ok());
  ASSERT_TRUE((*rt)->Step().ok());
  EXPECT_EQ((*(*rt)->Output("healthy"))->len(), 100u);
  std::map<std::string, Status> failed = (*rt)->TakeFailedOwners();
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_NE(failed["fragile"].message().find("division by zero"), std::string::npos);
  const std::string where = "step 1, worker " + std::to_string(WorkerForKey("k7", 3));
  EXPECT_NE(failed["fragile"].message().find(where), std::string::npos)
      << failed["fragile"].message();
  EXPECT_TRUE((*rt)->TakeFailedOwners().empty());
  (*rt)->SkipOwner("fragile");
  evaluated = 0;
  ASSERT_TRUE(push(100, 200).ok());
  ASSERT_TRUE((*rt)->Step().ok());
  EXPECT_EQ((*(*rt)->Output("healthy"))->len(), 100u);
  EXPECT_EQ((*(*rt)->Output("fragile"))->len(), 0u);
  EXPECT_EQ(evaluated.load(), 0);
}

// Each worker's operators are timed, known by owner and ordinal: a map that
// sleeps 2 ms per row has at least that much time on the worker that holds
// the row, and a skipped owner's operators add nothing.
TEST(RuntimeTest, OperatorsAreTimedByOwner) {
  RuntimeOptions opts;
  opts.workers = 2;
  auto rt = Runtime::Start(opts, [&](Circuit& c) {
    Stream* in = AddInput(c, "in");
    c.SetOwner("slow");
    Stream* m = Map(c, Exchange(c, in),
                    [](std::string_view k, std::string_view v, std::string* ok, std::string* ov) {
                      std::this_thread::sleep_for(std::chrono::milliseconds(2));
                      *ok = k;
                      *ov = v;
                      return Status::OK();
                    });
    AddOutput(c, m, "slow");
    return Status::OK();
  });
  ASSERT_TRUE(rt.ok());
  const auto& times = (*rt)->operator_times();
  ASSERT_EQ(times.size(), 2u);
  // The input is "" (no owner yet); then slow/0 exchange, slow/1 map, slow/2 output.
  ASSERT_EQ(times[0]->ops.size(), 4u);
  EXPECT_EQ(times[0]->ops[0].key, "/0");
  EXPECT_EQ(times[0]->ops[2].key, "slow/1");
  EXPECT_EQ(times[0]->ops[2].name, "map");
  auto push = [&] {
    BatchBuilder b;
    for (int i = 0; i < 10; ++i) b.Push("k" + std::to_string(i), "", 1);
    return (*rt)->Push("in", *b.Finish());
  };
  ASSERT_TRUE(push().ok());
  ASSERT_TRUE((*rt)->Step().ok());
  uint64_t rows = 0;
  for (int w = 0; w < 2; ++w) {
    const uint64_t map_nanos = times[w]->nanos[2].load();
    // The rows this worker mapped, each 2 ms at least.
    uint64_t mine = 0;
    for (int i = 0; i < 10; ++i) mine += WorkerForKey("k" + std::to_string(i), 2) == w;
    EXPECT_GE(map_nanos, mine * 2000000u) << "worker " << w;
    rows += mine;
  }
  EXPECT_EQ(rows, 10u);
  const uint64_t before = times[0]->nanos[2].load() + times[1]->nanos[2].load();
  (*rt)->SkipOwner("slow");
  ASSERT_TRUE(push().ok());
  ASSERT_TRUE((*rt)->Step().ok());
  EXPECT_EQ(times[0]->nanos[2].load() + times[1]->nanos[2].load(), before);
}

TEST(RuntimeTest, UnknownInputIsAnError) {
  auto rt = Runtime::Start({}, [](Circuit& c) {
    AddInput(c, "in");
    return Status::OK();
  });
  ASSERT_TRUE(rt.ok());
  EXPECT_EQ((*rt)->Push("nope", MemBatch::Empty()).code(), StatusCode::kNotFound);
  EXPECT_FALSE(Runtime::Start(RuntimeOptions{0, {}}, [](Circuit&) { return Status::OK(); }).ok());
}

}  // namespace
}  // namespace sluice
