#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "base/hash.h"
#include "zset/batch_codec.h"
#include "zset/merge.h"
#include "zset/test_util.h"

namespace sluice {
namespace {

std::string RandKey(std::mt19937_64& rng, int range) {
  return "k" + std::to_string(rng() % static_cast<uint64_t>(range));
}

TEST(BatchTest, BuilderConsolidatesAgainstModel) {
  std::mt19937_64 rng(1);
  for (int round = 0; round < 50; ++round) {
    BatchBuilder b;
    Model model;
    int n = static_cast<int>(rng() % 500);
    for (int i = 0; i < n; ++i) {
      std::string k = RandKey(rng, 20), v = RandKey(rng, 5);
      Weight w = static_cast<Weight>(rng() % 5) - 2;
      b.Push(k, v, w);
      AddTo(&model, k, v, w);
    }
    auto batch = b.Finish();
    ASSERT_TRUE(batch.ok());
    EXPECT_EQ(ReadAll(**batch), model);
    // Invariants: sorted, no zero weights, every key has a value.
    const MemBatch& mb = **batch;
    for (size_t i = 0; i < mb.key_count(); ++i) {
      ASSERT_LT(mb.vals_begin(i), mb.vals_end(i));
      if (i > 0) {
        ASSERT_LT(mb.key(i - 1), mb.key(i));
      }
      for (size_t j = mb.vals_begin(i); j < mb.vals_end(i); ++j) ASSERT_NE(mb.weight(j), 0);
    }
  }
}

// Pairs pushed as sorted runs (what a projection that keeps its input's
// leading columns emits), in order, in reverse, and shuffled, all agree
// with the model. Keys share long prefixes and differ in length, so that
// comparisons go past the 8-byte prefix.
TEST(BatchTest, BuilderSortsRunsAgainstModel) {
  std::mt19937_64 rng(7);
  for (int runs : {1, 2, 3, 5, 17, 31, 32, 33, 100}) {
    for (int round = 0; round < 5; ++round) {
      std::vector<std::tuple<std::string, std::string, Weight>> pairs;
      for (int r = 0; r < runs; ++r) {
        std::vector<std::tuple<std::string, std::string, Weight>> run;
        const int n = static_cast<int>(rng() % 200);
        for (int i = 0; i < n; ++i) {
          std::string k = "prefix-" + std::string(rng() % 3, 'x') + RandKey(rng, 50);
          run.emplace_back(k, RandKey(rng, 4), static_cast<Weight>(rng() % 5) - 2);
        }
        std::sort(run.begin(), run.end());
        pairs.insert(pairs.end(), run.begin(), run.end());
      }
      std::vector<std::vector<std::tuple<std::string, std::string, Weight>>> orders = {pairs};
      orders.emplace_back(pairs.rbegin(), pairs.rend());
      orders.push_back(pairs);
      std::shuffle(orders.back().begin(), orders.back().end(), rng);
      for (const auto& order : orders) {
        BatchBuilder b;
        Model model;
        for (const auto& [k, v, w] : order) {
          b.Push(k, v, w);
          AddTo(&model, k, v, w);
        }
        auto batch = b.Finish();
        ASSERT_TRUE(batch.ok());
        ASSERT_EQ(ReadAll(**batch), model) << runs << " runs";
      }
    }
  }
}

TEST(BatchTest, CursorSeeks) {
  BatchBuilder b;
  for (int i = 0; i < 1000; i += 2) {
    char k[16];
    std::snprintf(k, sizeof k, "%06d", i);
    for (int v = 0; v < 5; ++v) b.Push(k, std::to_string(v * 2), 1);
  }
  auto batch = *b.Finish();
  auto c = batch->NewCursor();
  c->SeekKey("000101");
  ASSERT_TRUE(c->KeyValid());
  EXPECT_EQ(c->key(), "000102");
  c->SeekVal("3");
  ASSERT_TRUE(c->ValValid());
  EXPECT_EQ(c->val(), "4");
  c->SeekKey("000050");  // backward seeks do not move
  EXPECT_EQ(c->key(), "000102");
  c->SeekKey("000998");
  EXPECT_EQ(c->key(), "000998");
  c->SeekKey("000999");
  EXPECT_FALSE(c->KeyValid());
  c->RewindKeys();
  EXPECT_EQ(c->key(), "000000");
}

// Keys that tie on their 8-byte prefixes, are shorter than 8 bytes, or end
// in zero bytes (which the zero-padded prefix cannot tell from nothing):
// LowerBoundKey must agree with a plain search of the sorted keys from
// every starting point.
TEST(BatchTest, LowerBoundKeyAgreesWithByteOrder) {
  std::mt19937_64 rng(19);
  const std::string alphabet("\x00\x01\x7f\x80\xff", 5);
  std::set<std::string> keys;
  while (keys.size() < 400) {
    std::string k(rng() % 12, '\0');
    for (char& c : k) c = alphabet[rng() % alphabet.size()];
    keys.insert(k);
  }
  BatchBuilder b;
  for (const std::string& k : keys) b.Push(k, "", 1);
  auto batch = *b.Finish();
  const std::vector<std::string> sorted(keys.begin(), keys.end());
  ASSERT_EQ(batch->key_count(), sorted.size());
  for (int probe = 0; probe < 2000; ++probe) {
    std::string t(rng() % 12, '\0');
    for (char& c : t) c = alphabet[rng() % alphabet.size()];
    const size_t want = static_cast<size_t>(
        std::lower_bound(sorted.begin(), sorted.end(), t) - sorted.begin());
    const size_t from = rng() % (want + 1);
    ASSERT_EQ(batch->LowerBoundKey(t, from), want) << "probe " << probe;
  }
}

// Keys that share their first bytes: the search skips them (key_skip), and
// must still agree with std::lower_bound whichever way the batch was built
// (sorted in a builder, pushed in order, merged from two batches that share
// different bytes, decoded), at any size, for targets that share the bytes,
// stop inside them, or leave them below or above.
TEST(BatchTest, LowerBoundKeyAfterSharedBytesAgreesWithStdLowerBound) {
  std::mt19937_64 rng(1919);
  const std::string alphabet("\x00\x01\x7f\x80\xff", 5);
  auto random_bytes = [&](size_t n) {
    std::string s(n, '\0');
    for (char& c : s) c = alphabet[rng() % alphabet.size()];
    return s;
  };
  for (int round = 0; round < 200; ++round) {
    const std::string shared = random_bytes(rng() % 14);
    const size_t n = round < 4 ? static_cast<size_t>(round) : rng() % 300;
    std::set<std::string> keys;
    while (keys.size() < n) keys.insert(shared + random_bytes(rng() % 12));
    // Two parts for the merge, split by a byte of each key.
    std::set<std::string> low, high;
    for (const std::string& k : keys) {
      (k.size() > shared.size() + 1 && k[shared.size()] == '\x00' ? low : high).insert(k);
    }
    const std::vector<std::string> sorted(keys.begin(), keys.end());

    std::vector<MemBatchPtr> batches;
    BatchBuilder sorted_builder;
    for (const std::string& k : keys) sorted_builder.Push(k, "v", 1);
    batches.push_back(*sorted_builder.Finish());
    OrderedBuilder ordered;
    for (const std::string& k : keys) ASSERT_TRUE(ordered.Push(k, "v", 1).ok());
    batches.push_back(ordered.Finish());
    Model lm, hm;
    for (const std::string& k : low) AddTo(&lm, k, "v", 1);
    for (const std::string& k : high) AddTo(&hm, k, "v", 1);
    auto merged = MergeBatches({FromModel(lm), FromModel(hm)}, MergeOptions{});
    ASSERT_TRUE(merged.ok());
    batches.push_back(std::dynamic_pointer_cast<const MemBatch>(*merged));
    std::string chunk;
    EncodeBatch(*batches[0], &chunk);
    batches.push_back(*DecodeBatch(chunk));

    for (size_t bi = 0; bi < batches.size(); ++bi) {
      const MemBatch& batch = *batches[bi];
      ASSERT_EQ(batch.key_count(), sorted.size()) << "round " << round << " batch " << bi;
      if (n >= 2) {
        EXPECT_GE(batch.key_skip(), shared.size()) << "round " << round;
      }
      for (size_t i = 0; i < batch.key_count(); ++i) {
        ASSERT_EQ(batch.key(i), sorted[i]);
        ASSERT_EQ(batch.key(i).substr(0, batch.key_skip()),
                  batch.key(0).substr(0, batch.key_skip()));
        ASSERT_EQ(batch.key_prefix(i), BytePrefixAfter(batch.key(i), batch.key_skip()));
      }
      for (int probe = 0; probe < 300; ++probe) {
        std::string t;
        switch (probe % 4) {
          case 0:  // a key of the batch
            t = sorted.empty() ? shared : sorted[rng() % sorted.size()];
            break;
          case 1:  // between keys
            t = shared + random_bytes(rng() % 12);
            break;
          case 2:  // stops inside the shared bytes
            t = shared.substr(0, rng() % (shared.size() + 1));
            break;
          default:  // leaves them, below or above
            t = shared + random_bytes(rng() % 12);
            if (!t.empty()) t[rng() % t.size()] = alphabet[rng() % alphabet.size()];
        }
        const size_t want =
            static_cast<size_t>(std::lower_bound(sorted.begin(), sorted.end(), t) - sorted.begin());
        ASSERT_EQ(batch.LowerBoundKey(t), want) << "round " << round << " batch " << bi;
        const size_t from = rng() % (want + 1);
        ASSERT_EQ(batch.LowerBoundKey(t, from), want) << "round " << round << " batch " << bi;
        auto c = batch.NewCursor();
        c->SeekKey(t);
        ASSERT_EQ(c->KeyValid(), want < sorted.size());
        if (want < sorted.size()) {
          ASSERT_EQ(c->key(), sorted[want]);
        }
      }
    }
  }
}

// No false negatives, and about the false positives the comment promises.
TEST(BatchTest, BloomFilterHasNoFalseNegatives) {
  BatchBuilder b;
  for (int i = 0; i < 20000; ++i) b.Push("key" + std::to_string(i), "", 1);
  auto batch = *b.Finish();
  for (int i = 0; i < 20000; ++i) {
    ASSERT_TRUE(batch->MayContainKey(Hash64("key" + std::to_string(i)))) << i;
  }
  int positives = 0;
  for (int i = 0; i < 20000; ++i) {
    positives += batch->MayContainKey(Hash64("other" + std::to_string(i))) ? 1 : 0;
  }
  EXPECT_LT(positives, 20000 * 4 / 100);
}

TEST(BatchTest, WeightOverflowIsAnError) {
  BatchBuilder b;
  b.Push("k", "v", std::numeric_limits<Weight>::max());
  b.Push("k", "v", 1);
  auto r = b.Finish();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOverflow);

  OrderedBuilder x, y;
  ASSERT_TRUE(x.Push("k", "", std::numeric_limits<Weight>::max()).ok());
  ASSERT_TRUE(y.Push("k", "", 5).ok());
  auto merged = MergeBatches({x.Finish(), y.Finish()}, {});
  EXPECT_EQ(merged.status().code(), StatusCode::kOverflow);
}

TEST(BatchTest, MergedCursorSumsAndCancels) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 30; ++round) {
    std::vector<BatchPtr> batches;
    Model model;
    int nb = 1 + static_cast<int>(rng() % 6);
    for (int i = 0; i < nb; ++i) {
      BatchBuilder b;
      for (int j = 0; j < 100; ++j) {
        std::string k = RandKey(rng, 30), v = RandKey(rng, 3);
        Weight w = (rng() % 2) ? 1 : -1;
        b.Push(k, v, w);
        AddTo(&model, k, v, w);
      }
      batches.push_back(*b.Finish());
    }
    auto c = NewCursorOver(batches);
    EXPECT_EQ(ReadAll(*c), model);
    auto merged = MergeBatches(batches, {});
    ASSERT_TRUE(merged.ok());
    EXPECT_EQ(ReadAll(**merged), model);
    // Seeking the merged cursor to every model key finds it.
    auto s = NewCursorOver(batches);
    for (const auto& [kv, w] : model) {
      s->SeekKey(kv.first);
      ASSERT_TRUE(s->KeyValid());
      ASSERT_EQ(s->key(), kv.first);
      s->SeekVal(kv.second);
      ASSERT_TRUE(s->ValValid());
      ASSERT_EQ(s->val(), kv.second);
      ASSERT_EQ(s->weight(), w);
    }
  }
}

TEST(BatchCodecTest, RoundTripAndCorruption) {
  BatchBuilder b;
  for (int i = 0; i < 300; ++i)
    b.Push("key" + std::to_string(i % 37), std::string(i % 7, 'v'), i - 150);
  auto batch = *b.Finish();
  std::string chunk;
  EncodeBatch(*batch, &chunk);
  auto back = DecodeBatch(chunk);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(ReadAll(**back), ReadAll(*batch));

  std::string empty_chunk;
  EncodeBatch(*MemBatch::Empty(), &empty_chunk);
  auto empty = DecodeBatch(empty_chunk);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE((*empty)->empty());

  // Any flipped byte and any truncation is caught.
  std::mt19937_64 rng(3);
  for (int i = 0; i < 200; ++i) {
    std::string bad = chunk;
    bad[rng() % bad.size()] ^= static_cast<char>(1 + rng() % 255);
    EXPECT_FALSE(DecodeBatch(bad).ok());
  }
  // Every byte of the header, which the checksum does not cover, too.
  for (size_t at = 0; at < 56; ++at) {
    std::string bad = chunk;
    bad[at] ^= 0x01;
    EXPECT_FALSE(DecodeBatch(bad).ok()) << "byte " << at;
  }
  for (size_t len : {size_t{0}, size_t{10}, chunk.size() / 2, chunk.size() - 1}) {
    auto r = DecodeBatch(std::string_view(chunk).substr(0, len));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  }
}

// A chunk written by one process is read back by another, from the bytes
// alone.
TEST(BatchCodecTest, AnotherProcessReadsTheChunk) {
  BatchBuilder b;
  Model model;
  for (int i = 0; i < 5000; ++i) {
    std::string k = "key" + std::to_string(i % 911), v = std::to_string(i % 13);
    b.Push(k, v, 1);
    AddTo(&model, k, v, 1);
  }
  std::string chunk;
  EncodeBatch(**b.Finish(), &chunk);
  std::string path = ::testing::TempDir() + "/chunk_" + std::to_string(::getpid());
  {
    std::ofstream out(path, std::ios::binary);
    out << chunk;
  }
  chunk.clear();
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    auto back = DecodeBatch(bytes);
    ::_exit(back.ok() && ReadAll(**back) == model ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace sluice
