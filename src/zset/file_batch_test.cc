#include "zset/file_batch.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "storage/file.h"
#include "zset/test_util.h"

namespace sluice {
namespace {

class FileBatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/file_batch_test_" + std::to_string(::getpid());
    ASSERT_TRUE(CreateDirs(dir_).ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Model Write(const std::string& path, int keys, uint64_t block_bytes) {
    Model model;
    auto w = FileBatchWriter::Create(path, block_bytes);
    EXPECT_TRUE(w.ok());
    for (int i = 0; i < keys; ++i) {
      char k[16];
      std::snprintf(k, sizeof k, "%08d", i * 3);
      for (int v = 0; v < 1 + i % 4; ++v) {
        std::string val = "value-" + std::to_string(v);
        EXPECT_TRUE((*w)->Push(k, val, i + v + 1).ok());
        AddTo(&model, k, val, i + v + 1);
      }
    }
    auto f = (*w)->Finish(/*remove_on_drop=*/false);
    EXPECT_TRUE(f.ok()) << f.status().ToString();
    return model;
  }

  std::string dir_;
};

TEST_F(FileBatchTest, ReadsBackThroughCursor) {
  std::string path = dir_ + "/a.bf";
  Model model = Write(path, 5000, 4096);
  auto f = FileBatch::Open(path, false);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_GT((*f)->block_count(), 10u);
  EXPECT_EQ((*f)->key_count(), 5000u);
  auto c = (*f)->NewCursor();
  EXPECT_EQ(ReadAll(*c), model);
  EXPECT_TRUE(c->status().ok());
  // Seeks across blocks, including to keys that fall between blocks.
  auto s = (*f)->NewCursor();
  for (int i = 0; i < 15000; i += 97) {
    char k[16];
    std::snprintf(k, sizeof k, "%08d", i);
    s->SeekKey(k);
    int expect = (i + 2) / 3 * 3;
    if (expect >= 15000) {
      EXPECT_FALSE(s->KeyValid());
      break;
    }
    ASSERT_TRUE(s->KeyValid()) << i;
    char e[16];
    std::snprintf(e, sizeof e, "%08d", expect);
    EXPECT_EQ(s->key(), e);
  }
}

TEST_F(FileBatchTest, TornAndCorruptFilesAreErrors) {
  std::string path = dir_ + "/b.bf";
  Write(path, 2000, 4096);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto write = [&](const std::string& p, const std::string& data) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << data;
  };
  // Torn: every truncation fails to open.
  for (size_t len : {size_t{0}, size_t{17}, bytes.size() / 2, bytes.size() - 1}) {
    write(dir_ + "/torn.bf", bytes.substr(0, len));
    auto f = FileBatch::Open(dir_ + "/torn.bf", false);
    ASSERT_FALSE(f.ok()) << len;
    EXPECT_EQ(f.status().code(), StatusCode::kCorruption);
    EXPECT_NE(f.status().message().find("torn.bf"), std::string::npos);
  }
  // A flipped byte inside a data block opens, but reading reports corruption
  // through the cursor's status instead of returning wrong rows.
  std::string bad = bytes;
  bad[100] ^= 0x40;
  write(dir_ + "/bad.bf", bad);
  auto f = FileBatch::Open(dir_ + "/bad.bf", false);
  ASSERT_TRUE(f.ok());
  auto c = (*f)->NewCursor();
  ReadAll(*c);
  EXPECT_EQ(c->status().code(), StatusCode::kCorruption);
  EXPECT_NE(c->status().message().find("checksum"), std::string::npos) << c->status().message();
  // A flipped byte in the index is caught at open.
  bad = bytes;
  bad[bytes.size() - 60] ^= 0x01;
  write(dir_ + "/bad2.bf", bad);
  EXPECT_EQ(FileBatch::Open(dir_ + "/bad2.bf", false).status().code(), StatusCode::kCorruption);
}

TEST_F(FileBatchTest, SpillFileIsRemovedWithItsBatch) {
  std::string path = dir_ + "/c.bf";
  {
    auto w = FileBatchWriter::Create(path);
    ASSERT_TRUE((*w)->Push("a", "", 1).ok());
    auto f = (*w)->Finish(/*remove_on_drop=*/true);
    ASSERT_TRUE(f.ok());
    EXPECT_TRUE(FileExists(path));
  }
  EXPECT_FALSE(FileExists(path));
}

}  // namespace
}  // namespace sluice
