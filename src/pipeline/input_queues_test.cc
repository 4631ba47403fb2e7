#include "pipeline/input_queues.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "dataflow/operators/exchange.h"
#include "zset/cursor.h"

namespace sluice::pipeline {
namespace {

using namespace std::chrono_literals;

std::shared_ptr<const format::ChangeBuffer> Changes(int from, int n) {
  auto c = std::make_shared<format::ChangeBuffer>();
  for (int i = from; i < from + n; ++i) {
    c->Add(format::ChangeKind::kInsert, "k" + std::to_string(i), "row" + std::to_string(i));
  }
  return c;
}

size_t Count(const InputQueues::StepInput& in) {
  size_t n = 0;
  for (const auto& [table, ranges] : in) {
    for (const auto& r : ranges) n += r.to - r.from;
  }
  return n;
}

class InputQueuesTest : public ::testing::Test {
 protected:
  InputQueuesTest()
      : q_({{"t", false}, {"k", true}}, {{"in", "t", /*max_batch*/ 10, /*max_queued*/ 20}},
           [this] { ++wakes_; }) {}
  InputQueues q_;
  std::atomic<int> wakes_{0};
};

// Tokens complete in order, with the step that took them; durable once a
// checkpoint holds them.
TEST_F(InputQueuesTest, TokensCompleteWithTheirStep) {
  EXPECT_EQ(*q_.Ingest("t", Changes(0, 2), false, 10), 1u);
  EXPECT_EQ(*q_.Ingest("t", Changes(2, 2), false, 10), 2u);
  EXPECT_EQ(wakes_, 2);
  EXPECT_EQ(q_.buffered(), 4u);
  uint64_t last = 0;
  auto in = q_.Take(&last);
  EXPECT_EQ(last, 2u);
  EXPECT_EQ(Count(in), 4u);
  EXPECT_EQ(*q_.Ingest("t", Changes(4, 1), false, 10), 3u);
  EXPECT_FALSE(q_.CompletionOf(1, 0)->complete);
  q_.Completed(last, 7);
  auto c = q_.CompletionOf(2, 8);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->complete);
  EXPECT_FALSE(c->durable);
  EXPECT_EQ(c->step, 7u);
  EXPECT_FALSE(q_.CompletionOf(3, 8)->complete);
  EXPECT_EQ(q_.CompletionOf(3, 8)->step, 8u);
  q_.Durable(2);
  EXPECT_TRUE(q_.CompletionOf(1, 8)->durable);
  EXPECT_EQ(q_.CompletionOf(4, 8).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(q_.Ingest("nope", Changes(0, 1), false, 1).status().code(), StatusCode::kNotFound);
}

// A connector gives a step at most max_batch_size changes; an HTTP request
// is taken whole.
// Tokens are reserved in blocks; after a restart they go on after the last
// block, and those given before it (after the checkpoint's) are lost, or,
// replayed from a journal, complete with the first step after the replay.
TEST_F(InputQueuesTest, TokensGoOnAfterARestart) {
  std::vector<uint64_t> reserved;
  auto reserve = [&](uint64_t upto) {
    reserved.push_back(upto);
    return Status::OK();
  };
  ASSERT_TRUE(q_.ResumeTokens(0, false, reserve).ok());
  EXPECT_EQ(*q_.Ingest("t", Changes(0, 1), false, 10), 1u);
  EXPECT_EQ(*q_.Ingest("t", Changes(1, 1), false, 10), 2u);
  EXPECT_EQ(reserved, (std::vector<uint64_t>{InputQueues::kTokenBlock}));
  // A restart from a checkpoint that held token 1, with tokens reserved up
  // to the block: 2 .. block were given (or not) and are lost.
  InputQueues lost({{"t", false}}, {}, [] {});
  InputQueues empty({{"t", false}}, {}, [] {});
  InputQueues::Saved saved = *empty.Save(0);
  saved.next_token = 2;
  ASSERT_TRUE(lost.Restore(saved, false, {}).ok());
  ASSERT_TRUE(lost.ResumeTokens(InputQueues::kTokenBlock, false, reserve).ok());
  EXPECT_TRUE(lost.CompletionOf(1, 0)->complete);
  EXPECT_TRUE(lost.CompletionOf(2, 0)->lost);
  const uint64_t next = *lost.Ingest("t", Changes(0, 1), false, 10);
  EXPECT_EQ(next, InputQueues::kTokenBlock + 1);
  EXPECT_EQ(reserved.back(), 2 * InputQueues::kTokenBlock);
  EXPECT_FALSE(lost.CompletionOf(next, 0)->lost);
  // With a journal: token 2 is in progress until a step after the replay.
  InputQueues replayed({{"t", false}}, {}, [] {});
  ASSERT_TRUE(replayed.Restore(saved, false, {}).ok());
  ASSERT_TRUE(replayed.ResumeTokens(InputQueues::kTokenBlock, true, reserve).ok());
  uint64_t last = 0;
  ASSERT_TRUE(replayed.TakeRecorded(1, {}, &last).ok());
  EXPECT_EQ(last, 1u);
  replayed.Completed(last, 1);
  EXPECT_FALSE(replayed.CompletionOf(2, 1)->complete);
  EXPECT_FALSE(replayed.CompletionOf(2, 1)->lost);
  replayed.Take(&last);
  EXPECT_EQ(last, InputQueues::kTokenBlock);
  replayed.Completed(last, 2);
  EXPECT_TRUE(replayed.CompletionOf(2, 2)->complete);
  // A failed reservation refuses the request, and gives no token.
  InputQueues full({{"t", false}}, {}, [] {});
  ASSERT_TRUE(
      full.ResumeTokens(0, false, [](uint64_t) { return Status::IOError("disk full"); }).ok());
  EXPECT_FALSE(full.Ingest("t", Changes(0, 1), false, 10).ok());
}

TEST_F(InputQueuesTest, ConnectorBatchesAreCappedRequestsAreWhole) {
  ASSERT_TRUE(q_.Enqueue(0, Changes(0, 15), "{\"p\":15}").ok());
  ASSERT_TRUE(q_.Ingest("t", Changes(100, 30), false, 1).ok());
  uint64_t last = 0;
  EXPECT_EQ(Count(q_.Take(&last)), 40u);  // 10 of the connector's, all 30 of the request
  EXPECT_EQ(q_.queued(0), 5u);
  EXPECT_EQ(Count(q_.Take(&last)), 5u);
  EXPECT_EQ(q_.buffered(), 0u);
  EXPECT_EQ(q_.processed(), 45u);
  EXPECT_EQ(q_.position(0), "{\"p\":15}");
}

// A connector whose queue is full waits until a step takes from it; one
// that is paused, or a held gate, waits too; a closed gate refuses with
// its reason and wakes every waiter.
TEST_F(InputQueuesTest, BackpressureAndTheGate) {
  ASSERT_TRUE(q_.Enqueue(0, Changes(0, 20), "").ok());
  std::atomic<bool> queued{false};
  std::thread producer([&] {
    EXPECT_TRUE(q_.Enqueue(0, Changes(20, 5), "").ok());
    queued = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(queued);
  uint64_t last = 0;
  q_.Take(&last);  // 10 of 20 leave: 10 + 5 fit
  producer.join();
  EXPECT_TRUE(queued);

  q_.SetGate(InputQueues::Gate::kHeld);
  EXPECT_TRUE(q_.Ingest("t", Changes(0, 1), /*force=*/true, 1).ok());
  std::atomic<bool> ingested{false};
  std::thread client([&] {
    auto t = q_.Ingest("t", Changes(1, 1), false, 1);
    EXPECT_EQ(t.status().code(), StatusCode::kAborted);
    ingested = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(ingested);
  q_.SetGate(InputQueues::Gate::kClosed, Status::Aborted("the pipeline is stopping"));
  client.join();
  EXPECT_EQ(q_.Enqueue(0, Changes(0, 1), "").code(), StatusCode::kAborted);
  q_.SetGate(InputQueues::Gate::kOpen);  // closed stays closed
  EXPECT_FALSE(q_.Ingest("t", Changes(0, 1), true, 1).ok());
}

TEST_F(InputQueuesTest, DueByCountOrDelay) {
  EXPECT_EQ(q_.DueAt(5, 1000ms), InputQueues::Clock::time_point::max());
  ASSERT_TRUE(q_.Ingest("t", Changes(0, 2), false, 1).ok());
  const auto due = q_.DueAt(5, 1000ms);
  EXPECT_GT(due, InputQueues::Clock::now() + 900ms);
  EXPECT_LE(q_.DueAt(2, 1000ms), InputQueues::Clock::now());
  auto r = q_.WaitDue(5, 30ms, 1000ms);
  EXPECT_TRUE(r.due);
  EXPECT_EQ(r.buffered, 2u);
}

// What a checkpoint saves of the queues comes back: the changes not yet
// taken, with their segment ids, the positions and the counters; torn
// bytes are an error.
TEST_F(InputQueuesTest, SaveAndRestore) {
  ASSERT_TRUE(q_.Enqueue(0, Changes(0, 15), "{\"p\":1}").ok());
  uint64_t last = 0;
  q_.Take(&last);  // ten of the fifteen
  ASSERT_TRUE(q_.Ingest("k", Changes(50, 3), false, 1).ok());
  ASSERT_TRUE(q_.Ingest("t", Changes(60, 2), false, 1).ok());
  auto saved = q_.Save(0);
  ASSERT_TRUE(saved.ok());
  InputQueues back({{"t", false}, {"k", true}}, {{"in", "t", 10, 20}}, [] {});
  ASSERT_TRUE(back.Restore(*saved, false, {}).ok());
  EXPECT_EQ(back.buffered(), 10u);
  EXPECT_EQ(back.queued(0), 5u);
  EXPECT_EQ(back.position(0), "{\"p\":1}");
  EXPECT_EQ(back.last_token(), 2u);
  uint64_t back_last = 0;
  auto in = back.Take(&back_last);
  ASSERT_EQ(in["t"].size(), 2u);
  EXPECT_EQ(in["t"][0].segment, 1u);
  // What was left of it, at the offsets it had: the journal's steps after
  // the checkpoint name them.
  EXPECT_EQ(in["t"][0].from, 10u);
  EXPECT_EQ(in["t"][0].to, 15u);
  EXPECT_EQ(in["t"][0].changes->payload(in["t"][0].from), "row10");
  EXPECT_EQ(in["t"][1].segment, 3u);
  ASSERT_EQ(in["k"].size(), 1u);
  EXPECT_EQ(in["k"][0].segment, 2u);
  EXPECT_EQ(*back.Ingest("t", Changes(0, 1), false, 1), 3u);

  InputQueues::Saved torn = *saved;
  torn.queues.resize(torn.queues.size() - 3);
  InputQueues again({{"t", false}, {"k", true}}, {{"in", "t", 10, 20}}, [] {});
  EXPECT_EQ(again.Restore(torn, false, {}).code(), StatusCode::kCorruption);
  // A changed program: a table that went is dropped; changes queued for a
  // changed table refuse the restore.
  InputQueues fewer({{"t", false}}, {{"in", "t", 10, 20}}, [] {});
  EXPECT_EQ(fewer.Restore(*saved, false, {}).code(), StatusCode::kCorruption);
  ASSERT_TRUE(fewer.Restore(*saved, true, {}).ok());
  InputQueues changed({{"t", false}, {"k", true}}, {{"in", "t", 10, 20}}, [] {});
  EXPECT_EQ(changed.Restore(*saved, true, {"t"}).code(), StatusCode::kInvalidArgument);
}

// Each row goes to the worker the exchange would send it to; rows of a
// keyed table become upsert commands numbered over the hosts.
TEST_F(InputQueuesTest, SplitFollowsTheExchange) {
  ASSERT_TRUE(q_.Ingest("t", Changes(0, 50), false, 1).ok());
  ASSERT_TRUE(q_.Ingest("k", Changes(0, 50), false, 1).ok());
  uint64_t last = 0;
  auto in = q_.Take(&last);
  uint64_t seq = 0;
  auto parts = q_.Split(in, 3, /*hosts=*/2, /*host=*/1, &seq);
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  EXPECT_EQ(seq, 50u);  // one command per keyed change
  for (const auto& [table, batches] : *parts) {
    ASSERT_EQ(batches.size(), 3u);
    uint64_t rows = 0;
    for (size_t w = 0; w < 3; ++w) {
      auto c = NewCursorOver({batches[w]});
      for (; c->KeyValid(); c->StepKey()) {
        ++rows;
        EXPECT_EQ(WorkerForKey(c->key(), 3), static_cast<int>(w)) << table;
      }
    }
    EXPECT_EQ(rows, 50u) << table;
  }
}

}  // namespace
}  // namespace sluice::pipeline
