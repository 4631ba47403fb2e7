#include "connector/connector.h"

#include <gtest/gtest.h>

#include <thread>

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

}  // namespace
}  // namespace sluice::connector
