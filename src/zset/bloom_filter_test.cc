#include "zset/bloom_filter.h"

#include <gtest/gtest.h>

#include <random>

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
    // 10 bits a key and 3 probes: about 1.7% in theory.
    EXPECT_LT(positives, 3000) << n;
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
}

}  // namespace
}  // namespace sluice
