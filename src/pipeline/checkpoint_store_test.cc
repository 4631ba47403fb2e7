#include "pipeline/checkpoint_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "dataflow/state.h"
#include "zset/batch_builder.h"

namespace sluice::pipeline {
namespace {

class CheckpointStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-ckpt-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Checkpoint `seq` with one batch file of `rows` rows, named in its body.
  void Write(CheckpointStore& store, uint64_t seq, int rows = 1000) {
    auto tmp = store.Begin(seq);
    ASSERT_TRUE(tmp.ok()) << tmp.status().ToString();
    StateWriter w(*tmp, "m");
    w.BeginOp("v", "integral");
    BatchBuilder b;
    for (int i = 0; i < rows; ++i) b.Push("row" + std::to_string(i), 1);
    ASSERT_TRUE(w.PutBatch(*b.Finish()).ok());
    ASSERT_TRUE(store
                    .Commit(seq, "{\"step\": " + std::to_string(seq * 10) +
                                     ", \"integrals\": " + w.Manifest() + "}")
                    .ok());
  }
  std::string dir_;
};

TEST_F(CheckpointStoreTest, WrittenCheckpointsListReadAndValidate) {
  CheckpointStore store(dir_ + "/checkpoints");
  EXPECT_TRUE(store.List().empty());
  Write(store, 1);
  Write(store, 2);
  EXPECT_EQ(store.List(), (std::vector<uint64_t>{2, 1}));
  auto body = store.ReadBody(2);
  ASSERT_TRUE(body.ok()) << body.status().ToString();
  EXPECT_NE(body->find("\"step\":20"), std::string::npos) << *body;
  EXPECT_TRUE(store.Validate(2).ok());
  auto info = store.Info();
  ASSERT_EQ(info.size(), 2u);
  EXPECT_EQ(info[0].checkpoint_sequence_number, 2u);
  EXPECT_EQ(info[0].step, 20u);
  EXPECT_GT(info[0].size_bytes, 1000u);
  store.DropBefore(2);
  EXPECT_EQ(store.List(), (std::vector<uint64_t>{2}));
  Write(store, 3);
  store.DropAfter(2);
  EXPECT_EQ(store.List(), (std::vector<uint64_t>{2}));
}

// One being written, or abandoned, is not a checkpoint.
TEST_F(CheckpointStoreTest, UnfinishedCheckpointsAreNotListed) {
  CheckpointStore store(dir_ + "/checkpoints");
  ASSERT_TRUE(store.Begin(5).ok());
  EXPECT_TRUE(store.List().empty());
  store.Abandon(5);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/checkpoints/.tmp-0000000005"));
}

// A flipped byte in the manifest or in a batch file, a missing file or a
// torn manifest fails validation, naming what; a damaged checkpoint can be
// set aside.
TEST_F(CheckpointStoreTest, DamageIsFoundAndSetAside) {
  CheckpointStore store(dir_ + "/checkpoints");
  auto flip = [](const std::string& path, std::streamoff at) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(at);
    char c = 0;
    f.get(c);
    f.seekp(at);
    f.put(static_cast<char>(c ^ 0x20));
  };
  Write(store, 1);
  flip(store.Dir(1) + "/pipeline.json", 12);
  EXPECT_EQ(store.Validate(1).code(), StatusCode::kCorruption) << store.Validate(1).ToString();

  Write(store, 2, 20000);
  std::string batch;
  for (const auto& e : std::filesystem::directory_iterator(store.Dir(2))) {
    if (e.path().extension() == ".batch") batch = e.path().string();
  }
  ASSERT_FALSE(batch.empty());
  flip(batch, 100);
  Status s = store.Validate(2);
  EXPECT_FALSE(s.ok());

  Write(store, 3);
  for (const auto& e : std::filesystem::directory_iterator(store.Dir(3))) {
    if (e.path().extension() == ".batch") std::filesystem::remove(e.path());
  }
  EXPECT_FALSE(store.Validate(3).ok());

  Write(store, 4);
  std::filesystem::resize_file(store.Dir(4) + "/pipeline.json", 20);
  EXPECT_NE(store.Validate(4).message().find("torn"), std::string::npos);

  store.SetAside(4, Status::Corruption("torn"));
  EXPECT_EQ(store.List(), (std::vector<uint64_t>{3, 2, 1}));
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/checkpoints/.corrupt-0000000004"));
}

}  // namespace
}  // namespace sluice::pipeline
