#include "pipeline/output_endpoints.h"

#include <gtest/gtest.h>

#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice::pipeline {
namespace {

using namespace std::chrono_literals;

BatchPtr Rows(std::vector<std::pair<std::string, Weight>> rows) {
  BatchBuilder b;
  for (const auto& [r, w] : rows) b.Push(r, w);
  return *b.Finish();
}

// The rows of some batches, summed.
std::map<std::string, Weight> Sum(const std::vector<BatchPtr>& batches) {
  std::map<std::string, Weight> out;
  auto c = NewCursorOver(batches);
  for (; c->KeyValid(); c->StepKey()) out[std::string(c->key())] += c->weight();
  for (auto it = out.begin(); it != out.end();) it = it->second == 0 ? out.erase(it) : ++it;
  return out;
}

// A connector that keeps what it is handed.
class Keeper : public connector::OutputConnector {
 public:
  explicit Keeper(std::vector<connector::OutputChunk>* seen) : seen_(seen) {}
  Status Start(std::shared_ptr<connector::OutputQueue> q) override {
    q_ = std::move(q);
    return Status::OK();
  }
  void Stop() override { Drain(); }
  void Drain() {
    connector::OutputChunk c;
    while (q_ && q_->Pop(&c, 1ms) == connector::OutputQueue::PopResult::kChunk) {
      seen_->push_back(c);
      q_->Done();
    }
  }

 private:
  std::vector<connector::OutputChunk>* seen_;
  std::shared_ptr<connector::OutputQueue> q_;
};

// Only what an integral, a connector or a stream reads needs the workers'
// parts summed; a stream that comes while a step goes without its
// relation's sum starts after that step rather than miss its change.
TEST(OutputEndpointsTest, OutputsNobodyReadsAreNotSummedAndLateStreamsStartAfter) {
  OutputEndpoints out({"m"}, {}, {}, {});
  EXPECT_EQ(out.ReadOutputs(1, {"m", "v", "w"}), (std::set<std::string>{"m"}));
  ASSERT_TRUE(out.Deliver(1, {{"m", Rows({{"a", 1}})}}).ok());
  EXPECT_EQ(out.ReadOutputs(2, {"m", "v", "w"}), (std::set<std::string>{"m"}));
  // Between the question and the delivery of step 2: v's sum is not made.
  auto late = out.Subscribe("v", /*snapshot=*/false, /*follow=*/true, true, 1000, nullptr);
  ASSERT_TRUE(late.ok());
  EXPECT_EQ(late->snapshot_step, 2u);
  // Even were a part of v's change handed over at step 2, the stream that
  // came after the question would not take it.
  ASSERT_TRUE(out.Deliver(2, {{"m", Rows({{"b", 1}})}, {"v", Rows({{"y", 1}})}}).ok());
  // From step 3 on, v is read.
  EXPECT_EQ(out.ReadOutputs(3, {"m", "v", "w"}), (std::set<std::string>{"m", "v"}));
  auto next = out.Subscribe("v", /*snapshot=*/false, /*follow=*/true, true, 1000, nullptr);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->snapshot_step, 2u);  // v is summed at step 3: it gets that step
  ASSERT_TRUE(out.Deliver(3, {{"m", Rows({{"c", 1}})}, {"v", Rows({{"x", 1}})}}).ok());
  for (auto* sub : {&*late, &*next}) {
    std::vector<uint64_t> steps;
    connector::OutputChunk c;
    while (sub->queue->Pop(&c, 1ms) == connector::OutputQueue::PopResult::kChunk) {
      steps.push_back(c.step);
      EXPECT_EQ(Sum(c.batches), (std::map<std::string, Weight>{{"x", 1}}));
      sub->queue->Done();
    }
    EXPECT_EQ(steps, (std::vector<uint64_t>{3}));
  }
}

// A stream that starts with the integral at step S gets every change from
// S+1 on: together they sum to the relation, step by step.
TEST(OutputEndpointsTest, SnapshotThenChangesWithoutGapOrOverlap) {
  OutputEndpoints out({"v"}, {}, {}, {});
  ASSERT_TRUE(out.Deliver(1, {{"v", Rows({{"a", 1}, {"b", 1}})}}).ok());
  ASSERT_TRUE(out.Deliver(2, {{"v", Rows({{"a", -1}, {"c", 2}})}}).ok());
  auto sub = out.Subscribe("v", /*snapshot=*/true, /*follow=*/true, true, 1000, nullptr);
  ASSERT_TRUE(sub.ok());
  EXPECT_EQ(sub->snapshot_step, 2u);
  ASSERT_TRUE(out.Deliver(3, {{"v", Rows({{"b", -1}})}, {"w", Rows({{"x", 1}})}}).ok());
  ASSERT_TRUE(out.Deliver(4, {{"v", Rows({{"d", 1}})}}).ok());
  std::vector<BatchPtr> seen;
  std::vector<uint64_t> steps;
  connector::OutputChunk c;
  while (sub->queue->Pop(&c, 1ms) == connector::OutputQueue::PopResult::kChunk) {
    steps.push_back(c.step);
    seen.insert(seen.end(), c.batches.begin(), c.batches.end());
    if (steps.size() == 1) {
      EXPECT_EQ(c.kind, connector::OutputChunk::Kind::kSnapshot);
    }
    sub->queue->Done();
  }
  EXPECT_EQ(steps, (std::vector<uint64_t>{2, 3, 4}));
  uint64_t at = 0;
  auto snap = out.Snapshots({"v"}, &at);
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(at, 4u);
  EXPECT_EQ(Sum(seen), Sum((*snap)["v"]));
  EXPECT_EQ(Sum(seen), (std::map<std::string, Weight>{{"c", 2}, {"d", 1}}));
  // Snapshots: an error for what is not materialized, nothing for what
  // another host holds.
  EXPECT_FALSE(out.Snapshots({"w"}, &at).ok());
  OutputEndpoints part({"v"}, {"w"}, {}, {});
  auto elsewhere = part.Snapshots({"w"}, &at);
  ASSERT_TRUE(elsewhere.ok());
  EXPECT_TRUE((*elsewhere)["w"].empty());
}

// A stream without backpressure whose client falls behind is cut off and
// dropped; one that left is dropped at the next step.
TEST(OutputEndpointsTest, StreamsThatFallBehindAreCutOff) {
  OutputEndpoints out({}, {}, {}, {});
  auto slow = out.Subscribe("v", false, true, /*backpressure=*/false, 2, nullptr);
  auto gone = out.Subscribe("v", false, true, false, 100, nullptr);
  ASSERT_TRUE(slow.ok() && gone.ok());
  EXPECT_EQ(out.Stats().size(), 2u);
  gone->queue->Close();
  for (int step = 1; step <= 3; ++step) {
    ASSERT_TRUE(out.Deliver(step, {{"v", Rows({{"r" + std::to_string(step), 1}})}}).ok());
  }
  EXPECT_EQ(slow->queue->error().code(), StatusCode::kOverflow);
  EXPECT_TRUE(out.Stats().empty());
}

// A send_snapshot connector "sink" on v that keeps what it gets in `seen`.
Keeper* AddSnapshotSink(OutputEndpoints& out, std::vector<connector::OutputChunk>* seen) {
  auto keeper = std::make_unique<Keeper>(seen);
  Keeper* k = keeper.get();
  connector::ConnectorSpec spec;
  spec.name = "sink";
  spec.relation = "v";
  spec.send_snapshot = true;
  out.AddConnector(spec, std::move(keeper));
  return k;
}

// A send_snapshot connector gets the relation first, once; a reset sends a
// reset and the snapshot again; progress and pause go by name.
TEST(OutputEndpointsTest, ConnectorsSnapshotsAndReset) {
  OutputEndpoints out({"v"}, {}, {}, {});
  ASSERT_TRUE(out.Deliver(1, {{"v", Rows({{"a", 1}})}}).ok());
  std::vector<connector::OutputChunk> seen;
  Keeper* k = AddSnapshotSink(out, &seen);
  ASSERT_TRUE(out.Launch(nullptr).ok());
  ASSERT_TRUE(out.Deliver(2, {{"v", Rows({{"b", 1}})}}).ok());
  ASSERT_TRUE(out.Reset("sink", nullptr).ok());
  k->Drain();
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].kind, connector::OutputChunk::Kind::kSnapshot);
  EXPECT_EQ(seen[0].step, 1u);
  EXPECT_EQ(seen[1].step, 2u);
  EXPECT_EQ(seen[2].kind, connector::OutputChunk::Kind::kReset);
  EXPECT_EQ(seen[3].kind, connector::OutputChunk::Kind::kSnapshot);
  EXPECT_EQ(Sum(seen[3].batches), (std::map<std::string, Weight>{{"a", 1}, {"b", 1}}));
  EXPECT_EQ(out.Reset("nope", nullptr).code(), StatusCode::kNotFound);
  ASSERT_TRUE(out.SetPaused("sink", true).ok());
  EXPECT_EQ(out.Stats()[0].paused, true);
  ASSERT_TRUE(out.SetPaused("sink", false).ok());
  auto progress = out.ConnectorProgress(1s);
  ASSERT_TRUE(progress.ok()) << progress.status().ToString();
  EXPECT_TRUE((*progress)["sink"].snapshot_sent);
  out.Stop();
}

// A spread relation's snapshot is assembled by the caller: meanwhile the
// changes of later steps wait aside, then follow it in order; a checkpoint
// taken before it is done does not count it as sent; a failed one leaves
// the connector unhealthy and fed nothing until reset.
TEST(OutputEndpointsTest, SpreadSnapshotsHoldTheChangesAfterThem) {
  OutputEndpoints out({"v"}, {}, {"v"}, {});
  ASSERT_TRUE(out.Deliver(1, {{"v\x1fshare", Rows({{"a", 1}})}}).ok());
  std::vector<connector::OutputChunk> seen;
  Keeper* k = AddSnapshotSink(out, &seen);
  OutputEndpoints::SnapshotStarts starts;
  ASSERT_TRUE(out.Launch(&starts).ok());
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].step, 1u);
  EXPECT_EQ(Sum(starts[0].own), (std::map<std::string, Weight>{{"a", 1}}));
  // Steps go on; their changes wait.
  ASSERT_TRUE(out.Deliver(2, {{"v", Rows({{"b", 1}})}, {"v\x1fshare", Rows({{"b", 1}})}}).ok());
  ASSERT_TRUE(out.Deliver(3, {{"v", Rows({{"c", 1}})}, {"v\x1fshare", Rows({{"c", 1}})}}).ok());
  k->Drain();
  EXPECT_TRUE(seen.empty());
  auto progress = out.ConnectorProgress(std::chrono::seconds(1));
  ASSERT_TRUE(progress.ok());
  EXPECT_FALSE((*progress)["sink"].snapshot_sent);
  EXPECT_EQ(out.Reset("sink", &starts).code(), StatusCode::kInvalidArgument);
  // The assembler hands the snapshot over, then it is done.
  connector::OutputChunk snapshot;
  snapshot.kind = connector::OutputChunk::Kind::kSnapshot;
  snapshot.step = 1;
  snapshot.batches = starts[0].own;
  ASSERT_TRUE(starts[0].queue->Put(snapshot));
  out.FinishSnapshot(starts[0], Status::OK());
  ASSERT_TRUE(out.Deliver(4, {{"v", Rows({{"d", 1}})}, {"v\x1fshare", Rows({{"d", 1}})}}).ok());
  k->Drain();
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].kind, connector::OutputChunk::Kind::kSnapshot);
  EXPECT_EQ(seen[1].step, 2u);
  EXPECT_EQ(seen[2].step, 3u);
  EXPECT_EQ(seen[3].step, 4u);
  progress = out.ConnectorProgress(std::chrono::seconds(1));
  EXPECT_TRUE((*progress)["sink"].snapshot_sent);
  // Reset: a snapshot again, which fails.
  starts.clear();
  ASSERT_TRUE(out.Reset("sink", &starts).ok());
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].step, 4u);
  out.FinishSnapshot(starts[0], Status::IOError("host 2 went away"));
  EXPECT_EQ(out.Stats()[0].health, "Unhealthy");
  EXPECT_NE(out.Stats()[0].last_error->find("host 2 went away"), std::string::npos);
  seen.clear();
  ASSERT_TRUE(out.Deliver(5, {{"v", Rows({{"e", 1}})}, {"v\x1fshare", Rows({{"e", 1}})}}).ok());
  k->Drain();
  ASSERT_EQ(seen.size(), 1u);  // the reset only
  EXPECT_EQ(seen[0].kind, connector::OutputChunk::Kind::kReset);
  out.Stop();
}

}  // namespace
}  // namespace sluice::pipeline
