#include "zset/file_batch.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "base/bytes.h"
#include "base/hash.h"
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

  Model Write(const std::string& path, int keys, uint64_t block_bytes, uint64_t expected_keys = 0) {
    Model model;
    auto w = FileBatchWriter::Create(path, block_bytes, expected_keys);
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

TEST_F(FileBatchTest, BloomFilterHasNoFalseNegatives) {
  // Sized from an expected key count, and built from the keys at the end.
  for (uint64_t expected : {uint64_t{0}, uint64_t{6000}}) {
    std::string path = dir_ + "/bloom" + std::to_string(expected) + ".bf";
    Model model = Write(path, 5000, 4096, expected);
    auto f = FileBatch::Open(path, false);
    ASSERT_TRUE(f.ok());
    EXPECT_TRUE((*f)->has_filter());
    for (const auto& [kv, w] : model) ASSERT_TRUE((*f)->MayContainKey(Hash64(kv.first)));
    int positives = 0;
    for (int i = 0; i < 15000; i += 3) {  // keys between the file's keys
      char k[16];
      std::snprintf(k, sizeof k, "%08d", i + 1);
      positives += (*f)->MayContainKey(Hash64(k));
    }
    EXPECT_LT(positives, 250) << expected;
  }
}

// A file as written before batch files had a Bloom filter: the same with
// the filter cut from the end of the index.
std::string WithoutFilter(const std::string& bytes) {
  const size_t t = bytes.size() - 40;
  const uint64_t index_off = GetFixed64(bytes.data() + t);
  std::string_view index(bytes.data() + index_off, t - index_off);
  const uint64_t n = GetFixed64(index.data());
  size_t end = 8;
  for (uint64_t i = 0; i < n; ++i) end += 36 + GetFixed32(index.data() + end + 32);
  std::string out = bytes.substr(0, index_off);
  out.append(index.substr(0, end));
  PutFixed64(&out, index_off);
  PutFixed64(&out, end);
  PutFixed64(&out, Checksum64(index.data(), end));
  out.append(bytes, t + 24, 16);  // pairs, magic
  return out;
}

TEST_F(FileBatchTest, OpensFilesWithoutAFilter) {
  std::string path = dir_ + "/new.bf";
  Model model = Write(path, 3000, 4096);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::ofstream(dir_ + "/old.bf", std::ios::binary) << WithoutFilter(bytes);
  auto f = FileBatch::Open(dir_ + "/old.bf", false);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_FALSE((*f)->has_filter());
  EXPECT_TRUE((*f)->MayContainKey(Hash64("absent")));
  EXPECT_EQ(ReadAll(**f), model);
}

TEST_F(FileBatchTest, SeeksAreTheSameWithAndWithoutACache) {
  std::string path = dir_ + "/cached.bf";
  Write(path, 20000, 2048);
  auto plain = FileBatch::Open(path, false);
  // Room for a few blocks only, so that seeks evict and read again.
  auto cache = std::make_shared<BlockCache>(16 * 3 * 4096);
  auto cached = FileBatch::Open(path, false, cache);
  ASSERT_TRUE(plain.ok() && cached.ok());
  std::mt19937_64 rng(11);
  for (int round = 0; round < 20; ++round) {
    auto a = (*plain)->NewCursor(), b = (*cached)->NewCursor();
    // Sorted probes, as a change's keys are.
    std::vector<int> probes;
    for (int i = 0; i < 300; ++i) probes.push_back(static_cast<int>(rng() % 61000));
    std::sort(probes.begin(), probes.end());
    for (int p : probes) {
      char k[16];
      std::snprintf(k, sizeof k, "%08d", p);
      a->SeekKey(k);
      b->SeekKey(k);
      ASSERT_EQ(a->KeyValid(), b->KeyValid()) << k;
      if (!a->KeyValid()) break;
      ASSERT_EQ(a->key(), b->key());
      for (; a->ValValid(); a->StepVal(), b->StepVal()) {
        ASSERT_TRUE(b->ValValid());
        ASSERT_EQ(a->val(), b->val());
        ASSERT_EQ(a->weight(), b->weight());
      }
      ASSERT_FALSE(b->ValValid());
    }
    ASSERT_TRUE(b->status().ok());
  }
  // A scan reads past the cache.
  const BlockCache::Stats before = cache->GetStats();
  EXPECT_EQ(ReadAll(**cached), ReadAll(**plain));
  EXPECT_EQ(cache->GetStats().misses + cache->GetStats().hits, before.misses + before.hits + 1);
  BlockCache::Stats s = cache->GetStats();
  EXPECT_GT(s.hits, 0u);
  EXPECT_GT(s.misses, 0u);
  EXPECT_GT(s.evictions, 0u);
  EXPECT_LE(s.bytes, s.capacity_bytes);
  // The file's blocks leave the cache with it.
  cached->reset();
  EXPECT_EQ(cache->GetStats().blocks, 0u);
}

// SeekKeyPresent on a sum of batches in memory and on storage gives what
// the model says, whether or not steps and seeks come in between.
TEST_F(FileBatchTest, SeekKeyPresentOnMergedCursorMatchesModel) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 10; ++round) {
    Model total;
    std::vector<BatchPtr> batches;
    for (int b = 0; b < 4; ++b) {
      Model m;
      for (int i = 0; i < 3000; ++i) {
        char k[16];
        std::snprintf(k, sizeof k, "%06d", static_cast<int>(rng() % 20000));
        const Weight w = rng() % 2 ? 1 : -1;
        AddTo(&m, k, "v" + std::to_string(rng() % 3), w);
      }
      for (const auto& [kv, w] : m) AddTo(&total, kv.first, kv.second, w);
      if (b % 2 == 0) {
        batches.push_back(FromModel(m));
        continue;
      }
      const std::string path = dir_ + "/m" + std::to_string(round) + "_" + std::to_string(b);
      auto w = FileBatchWriter::Create(path, 1024);
      for (const auto& [kv, wt] : m) ASSERT_TRUE((*w)->Push(kv.first, kv.second, wt).ok());
      auto f = (*w)->Finish(true, std::make_shared<BlockCache>(1 << 20));
      ASSERT_TRUE(f.ok());
      batches.push_back(*f);
    }
    auto c = NewCursorOver(batches);
    int k = 0;
    while (k < 20000) {
      char key[16];
      std::snprintf(key, sizeof key, "%06d", k);
      const auto lo = total.lower_bound({key, ""});
      const bool present = lo != total.end() && lo->first.first == key;
      ASSERT_EQ(c->SeekKeyPresent(key, Hash64(key)), present) << key;
      if (present) {
        Model got, want;
        for (c->RewindVals(); c->ValValid(); c->StepVal())
          AddTo(&got, key, std::string(c->val()), c->weight());
        for (auto it = lo; it != total.end() && it->first.first == key; ++it) {
          AddTo(&want, key, it->first.second, it->second);
        }
        ASSERT_EQ(got, want) << key;
        if (rng() % 4 == 0) {
          // A step after a point lookup goes to the next key of the sum.
          c->StepKey();
          auto next = total.upper_bound({key, "\xff"});
          ASSERT_EQ(c->KeyValid(), next != total.end());
          if (next == total.end()) break;
          ASSERT_EQ(c->key(), next->first.first);
          k = std::stoi(next->first.first) + 1;
          continue;
        }
      }
      k += 1 + static_cast<int>(rng() % 40);
    }
    ASSERT_TRUE(c->status().ok());
  }
}

}  // namespace
}  // namespace sluice
