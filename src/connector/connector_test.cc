#include "connector/connector.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "connector/nexmark.h"
#include "zset/batch_builder.h"

namespace sluice::connector {
namespace {

BatchPtr Rows(int n) {
  BatchBuilder b;
  for (int i = 0; i < n; ++i) b.Push(std::string(1, static_cast<char>('a' + i)), 1);
  return *b.Finish();
}

OutputChunk Chunk(uint64_t step, int rows) {
  OutputChunk c;
  c.step = step;
  c.batches = {Rows(rows)};
  return c;
}

TEST(OutputQueueTest, WithoutBackpressureASlowConsumerIsCutOff) {
  OutputQueue q(5, /*backpressure=*/false);
  EXPECT_TRUE(q.Put(Chunk(1, 3)));
  EXPECT_TRUE(q.Put(Chunk(2, 2)));
  EXPECT_FALSE(q.Put(Chunk(3, 1)));  // 6 > 5
  EXPECT_TRUE(q.closed());
  EXPECT_EQ(q.error().code(), StatusCode::kOverflow);
  OutputChunk out;
  EXPECT_EQ(q.Pop(&out, std::chrono::milliseconds(10)), OutputQueue::PopResult::kClosed);
}

TEST(OutputQueueTest, WithBackpressurePutWaitsForTheConsumer) {
  OutputQueue q(5, /*backpressure=*/true);
  EXPECT_TRUE(q.Put(Chunk(1, 4)));
  std::atomic<bool> put{false};
  std::thread producer([&] {
    EXPECT_TRUE(q.Put(Chunk(2, 4)));
    put = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(put);
  OutputChunk out;
  ASSERT_EQ(q.Pop(&out, std::chrono::milliseconds(1000)), OutputQueue::PopResult::kChunk);
  EXPECT_EQ(out.step, 1u);
  producer.join();
  EXPECT_TRUE(put);
  ASSERT_EQ(q.Pop(&out, std::chrono::milliseconds(1000)), OutputQueue::PopResult::kChunk);
  EXPECT_EQ(out.step, 2u);
  EXPECT_EQ(q.Pop(&out, std::chrono::milliseconds(10)), OutputQueue::PopResult::kTimeout);
  // A chunk larger than the limit still passes an empty queue.
  EXPECT_TRUE(q.Put(Chunk(3, 9)));
  q.Close();
  ASSERT_EQ(q.Pop(&out, std::chrono::milliseconds(10)), OutputQueue::PopResult::kChunk);
  EXPECT_EQ(q.Pop(&out, std::chrono::milliseconds(10)), OutputQueue::PopResult::kClosed);
}

TEST(ConnectorSpecTest, FieldsAndErrorsNameWhatIsWrong) {
  auto ok = ParseConnectors("t", true, R"([{"name": "in", "paused": true,
      "transport": {"name": "file_input", "config": {"path": "x.csv", "follow": true}},
      "format": {"name": "csv", "config": {"delimiter": ";"}}, "max_queued_records": 10}])",
                            "/data");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  ASSERT_EQ(ok->size(), 1u);
  EXPECT_EQ((*ok)[0].name, "in");
  EXPECT_TRUE((*ok)[0].paused);
  EXPECT_EQ((*ok)[0].format.delimiter, ';');
  EXPECT_EQ((*ok)[0].max_queued_records, 10u);
  EXPECT_NE((*ok)[0].transport_config.find("/data/x.csv"), std::string::npos);
  auto err = [](bool table, const char* json) {
    auto r = ParseConnectors("t", table, json);
    EXPECT_FALSE(r.ok()) << json;
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_NE(err(false, R"([{"transport": {"name": "delta_table_output", "config": {"uri": "x",
      "vacuum_retention_hours": -1}}}])")
                .find("\"vacuum_retention_hours\" must be a non-negative number of hours"),
            std::string::npos);
  EXPECT_NE(err(true, R"([{"transport": {"name": "kafka_input"}}])")
                .find("unknown transport \"kafka_input\""),
            std::string::npos);
  EXPECT_NE(err(true, R"([{"transport": {"name": "null_output"}}])").find("is an output"),
            std::string::npos);
  EXPECT_NE(err(false, R"([{"transport": {"name": "null_output"}, "colour": 1}])")
                .find("unknown field \"colour\""),
            std::string::npos);
  EXPECT_NE(err(true, R"([{"transport": {"name": "file_input", "config": {}}}])")
                .find("needs the setting \"path\""),
            std::string::npos);
  EXPECT_NE(err(true, R"([{"transport": {"name": "file_input", "config": {"path": "a", "x": 1}}}])")
                .find("unknown setting \"x\""),
            std::string::npos);
  EXPECT_NE(err(false, R"([{"transport": {"name": "null_output"}, "format": {"name": "xml"}}])")
                .find("unknown format \"xml\""),
            std::string::npos);
  EXPECT_NE(err(false, R"([{"name": "a", "transport": {"name": "null_output"}},
                           {"name": "a", "transport": {"name": "null_output"}}])")
                .find("two connectors"),
            std::string::npos);
}

// Takes one table's changes, each after `delay`, and records how many chunks
// of events the table's generator has handed over.
class ChunkCountingSink final : public InputSink {
 public:
  ChunkCountingSink(std::atomic<uint64_t>* chunks, std::chrono::milliseconds delay,
                    std::function<void()> after = nullptr)
      : chunks_(chunks), delay_(delay), after_(std::move(after)) {}
  bool Enqueue(format::ChangeBuffer, std::string position) override {
    std::this_thread::sleep_for(delay_);
    *chunks_ = nlohmann::json::parse(position)["next_chunk"][0].get<uint64_t>();
    if (after_) after_();
    return true;
  }
  bool stopping() const override { return false; }

 private:
  std::atomic<uint64_t>* const chunks_;
  const std::chrono::milliseconds delay_;
  const std::function<void()> after_;
};

// Auctions are 3 events in 50 and bids 46: alone, the auctions' generator
// runs ahead of a slow bids' table in event time; in one stream it waits.
TEST(NexmarkTest, TablesOfOneStreamAdvanceTogether) {
  const Schema auction = {SqlType::BigInt(),    SqlType::Varchar(), SqlType::Varchar(),
                          SqlType::BigInt(),    SqlType::BigInt(),  SqlType::Timestamp(),
                          SqlType::Timestamp(), SqlType::BigInt(),  SqlType::BigInt(),
                          SqlType::Varchar()};
  const Schema bid = {SqlType::BigInt(),  SqlType::BigInt(),  SqlType::BigInt(),
                      SqlType::Varchar(), SqlType::Varchar(), SqlType::Timestamp(),
                      SqlType::Varchar()};
  const format::Relation auctions{"auction",
                                  {"id", "item_name", "description", "initial_bid", "reserve",
                                   "date_time", "expires", "seller", "category", "extra"},
                                  auction};
  const format::Relation bids{
      "bid", {"auction", "bidder", "price", "channel", "url", "date_time", "extra"}, bid};
  constexpr uint64_t kChunks = 30;
  for (bool one_stream : {false, true}) {
    ConnectorSpec spec;
    spec.transport = "nexmark";
    spec.transport_config = std::string(R"({"events": )") + std::to_string(kChunks * 10000) +
                            R"(, "threads": 1)" +
                            (one_stream ? R"(, "stream": "connector_test"})" : "}");
    auto a = MakeNexmarkInput(spec, auctions);
    auto b = MakeNexmarkInput(spec, bids);
    ASSERT_TRUE(a.ok() && b.ok());
    std::atomic<uint64_t> a_chunks{0}, b_chunks{0}, lead{0};
    ChunkCountingSink a_sink(&a_chunks, std::chrono::milliseconds(0), [&] {
      const uint64_t ahead = a_chunks - std::min<uint64_t>(a_chunks, b_chunks);
      if (ahead > lead) lead = ahead;
    });
    ChunkCountingSink b_sink(&b_chunks, std::chrono::milliseconds(5));
    ASSERT_TRUE((*a)->Start(&a_sink).ok());
    ASSERT_TRUE((*b)->Start(&b_sink).ok());
    for (int i = 0; i < 1000 && (a_chunks < kChunks || b_chunks < kChunks); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    (*a)->Stop();
    (*b)->Stop();
    EXPECT_EQ(a_chunks, kChunks);
    EXPECT_EQ(b_chunks, kChunks);
    if (one_stream) {
      EXPECT_LE(lead, 3u);  // 2 chunks ahead of the slowest, and the one made
    } else {
      EXPECT_GT(lead, 10u);
    }
  }
}

}  // namespace
}  // namespace sluice::connector
