#include "zset/bloom_filter.h"

#include <gtest/gtest.h>

#include <random>

#include "base/bytes.h"
#include "base/hash.h"

namespace sluice {
namespace {

TEST(BloomFilterTest, NoFalseNegativesAndFewFalsePositives) {
  std::mt19937_64 rng(3);
  for (uint64_t n : {0, 1, 7, 1000, 100000}) {
    BloomFilter f(n);
    std::vector<uint64_t> in;
    for (uint64_t i = 0; i < n; ++i) {
      in.push_back(Hash64("key-" + std::to_string(rng())));
      f.Add(in.back());
    }
    for (uint64_t h : in) ASSERT_TRUE(f.MayContain(h)) << n;
    if (n < 1000) continue;
    int positives = 0;
    for (int i = 0; i < 100000; ++i)
      positives += f.MayContain(Hash64("other-" + std::to_string(i)));
    // 10 bits a key, 4 probes in one 512-bit block: about 1.5% (a
    // classic filter's 1.2%, plus what uneven blocks add).
    EXPECT_LT(positives, 2500) << n;
    EXPECT_GT(positives, 0) << n;
  }
}

TEST(BloomFilterTest, EmptyFilterKnowsNothing) {
  BloomFilter unknown;
  EXPECT_TRUE(unknown.MayContain(42));
  BloomFilter none(0);  // sized, with no key added: rules every key out
  EXPECT_FALSE(none.MayContain(42));
}

TEST(BloomFilterTest, RoundTripsAndRejectsTruncation) {
  BloomFilter f(500);
  for (int i = 0; i < 500; ++i) f.Add(Hash64(std::to_string(i)));
  std::string bytes;
  f.EncodeTo(&bytes);
  bytes += "tail";
  std::string_view in = bytes;
  auto g = BloomFilter::DecodeFrom(&in);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(in, "tail");
  for (int i = 0; i < 500; ++i) EXPECT_TRUE(g->MayContain(Hash64(std::to_string(i))));
  for (size_t cut : {size_t{0}, size_t{7}, size_t{8}, bytes.size() - 12}) {
    std::string_view torn(bytes.data(), cut);
    EXPECT_FALSE(BloomFilter::DecodeFrom(&torn).ok()) << cut;
  }
  // A block count that is not whole is corrupt, not read past.
  std::string odd;
  PutFixed64(&odd, BloomFilter::kBlockedTag | 3);
  odd.append(24, '\xff');
  std::string_view odd_in = odd;
  EXPECT_FALSE(BloomFilter::DecodeFrom(&odd_in).ok());
}

TEST(BloomFilterTest, ClassicFilterOfAnOlderFileDecodesAsKnowingNothing) {
  // u64 word count, then the words, with no tag: what files held before
  // filters were blocked. Its bits mean nothing to the blocked layout.
  std::string bytes;
  PutFixed64(&bytes, 2);
  PutFixed64(&bytes, 0);
  PutFixed64(&bytes, 0);
  bytes += "tail";
  std::string_view in = bytes;
  auto f = BloomFilter::DecodeFrom(&in);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(in, "tail");
  EXPECT_TRUE(f->empty());
  EXPECT_TRUE(f->MayContain(Hash64("anything")));
}

TEST(BloomFilterTest, SpreadsKeysOverAllBlocks) {
  // Every block gets some of 100,000 keys (block choice uses the hash's
  // high bits: a bug there would leave blocks empty and others full).
  BloomFilter f(100000);
  const uint64_t blocks = f.byte_size() / 64;
  for (int i = 0; i < 100000; ++i) f.Add(Hash64("key-" + std::to_string(i)));
  std::string bytes;
  f.EncodeTo(&bytes);
  uint64_t empty_blocks = 0;
  for (uint64_t b = 0; b < blocks; ++b) {
    bool any = false;
    for (uint64_t w = 0; w < 8; ++w) any |= GetFixed64(bytes.data() + 8 + 64 * b + 8 * w) != 0;
    empty_blocks += any ? 0 : 1;
  }
  EXPECT_EQ(empty_blocks, 0u);
}

}  // namespace
}  // namespace sluice
