#include "zset/block_cache.h"

#include <gtest/gtest.h>

#include <thread>

#include "zset/test_util.h"

namespace sluice {
namespace {

MemBatchPtr Block(int keys) {
  Model m;
  for (int i = 0; i < keys; ++i) AddTo(&m, "key" + std::to_string(i), "v", 1);
  return FromModel(m);
}

TEST(BlockCacheTest, HitsMissesAndStats) {
  BlockCache cache(1 << 20);
  const uint64_t f = BlockCache::NewFileId();
  EXPECT_NE(f, BlockCache::NewFileId());
  EXPECT_EQ(cache.Lookup(f, 0), nullptr);
  MemBatchPtr b = Block(10);
  cache.Insert(f, 0, b);
  EXPECT_EQ(cache.Lookup(f, 0), b);
  EXPECT_EQ(cache.Lookup(f, 1), nullptr);
  BlockCache::Stats s = cache.GetStats();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 2u);
  EXPECT_DOUBLE_EQ(s.hit_rate, 1.0 / 3);
  EXPECT_EQ(s.blocks, 1u);
  EXPECT_EQ(s.bytes, b->byte_size());
  EXPECT_EQ(s.capacity_bytes, 1u << 20);
}

TEST(BlockCacheTest, StaysWithinCapacityAndKeepsBlocksThatAreHit) {
  // Blocks of one file land on all shards; a capacity of 16 shards x 3
  // blocks.
  const uint64_t per_block = Block(20)->byte_size();
  BlockCache cache(16 * 3 * per_block);
  const uint64_t f = BlockCache::NewFileId();
  for (uint64_t i = 0; i < 1000; ++i) {
    cache.Insert(f, i, Block(20));
    ASSERT_LE(cache.GetStats().bytes, cache.capacity());
  }
  BlockCache::Stats s = cache.GetStats();
  EXPECT_GT(s.evictions, 0u);
  EXPECT_LE(s.blocks, 48u);
  EXPECT_GE(s.blocks, 16u);
  // A block that is used stays while newer ones push others out.
  BlockCache small(16 * 2 * per_block);
  const uint64_t g = BlockCache::NewFileId();
  small.Insert(g, 0, Block(20));
  for (uint64_t i = 1; i < 500; ++i) {
    ASSERT_NE(small.Lookup(g, 0), nullptr) << i;
    small.Insert(g, i, Block(20));
  }
}

// Sorted sweeps over four times the blocks the cache holds, as a change's
// sorted keys make: plain LRU would hit nothing (each sweep evicts what the
// next one needs first); the cache hits about a quarter of the time.
TEST(BlockCacheTest, SortedSweepsOverMoreThanTheCapacityStillHit) {
  const uint64_t per_block = Block(20)->byte_size();
  BlockCache cache(16 * 8 * per_block);  // 128 blocks
  const uint64_t f = BlockCache::NewFileId();
  const uint64_t blocks = 512;
  for (int sweep = 0; sweep < 20; ++sweep) {
    for (uint64_t b = 0; b < blocks; ++b) {
      if (cache.Lookup(f, b) == nullptr) cache.Insert(f, b, Block(20));
    }
  }
  const BlockCache::Stats s = cache.GetStats();
  EXPECT_GT(s.hit_rate, 0.15) << s.hits << " of " << s.hits + s.misses;
}

TEST(BlockCacheTest, BlockLargerThanAShardIsNotKept) {
  MemBatchPtr big = Block(1000);
  BlockCache cache(big->byte_size());  // a shard holds a sixteenth
  const uint64_t f = BlockCache::NewFileId();
  cache.Insert(f, 0, big);
  EXPECT_EQ(cache.Lookup(f, 0), nullptr);
  EXPECT_EQ(cache.GetStats().bytes, 0u);
}

TEST(BlockCacheTest, EraseFileDropsOnlyItsBlocks) {
  BlockCache cache(1 << 20);
  const uint64_t f = BlockCache::NewFileId(), g = BlockCache::NewFileId();
  for (uint64_t i = 0; i < 5; ++i) {
    cache.Insert(f, i, Block(3));
    cache.Insert(g, i, Block(3));
  }
  cache.EraseFile(f, 5);
  for (uint64_t i = 0; i < 5; ++i) {
    EXPECT_EQ(cache.Lookup(f, i), nullptr);
    EXPECT_NE(cache.Lookup(g, i), nullptr);
  }
  EXPECT_EQ(cache.GetStats().blocks, 5u);
}

TEST(BlockCacheTest, ConcurrentUseKeepsTheBound) {
  MemBatchPtr b = Block(5);
  BlockCache cache(16 * 4 * b->byte_size());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache, t] {
      const uint64_t f = BlockCache::NewFileId();
      for (uint64_t i = 0; i < 2000; ++i) {
        if (cache.Lookup(f, i % 50) == nullptr) cache.Insert(f, i % 50, Block(5));
      }
      (void)t;
    });
  }
  for (auto& th : threads) th.join();
  BlockCache::Stats s = cache.GetStats();
  EXPECT_LE(s.bytes, s.capacity_bytes);
  EXPECT_EQ(s.hits + s.misses, 8000u);
}

}  // namespace
}  // namespace sluice
