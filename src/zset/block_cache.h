// BlockCache: decoded blocks of file batches, kept in memory so that a seek
// into a batch on storage does not read and decode its block again. One
// cache is shared by every spine of a pipeline (MergeOptions::block_cache),
// so the blocks that the pipeline's changes touch most stay, whichever
// integral they belong to; its capacity is a share of the memory budget.
//
// A block is named by its file batch's id (NewFileId(), unique in the
// process) and its index in the file. Entries are evicted least recently
// used first, as in LevelDB's LRUCache, once their bytes (each block's
// MemBatch::byte_size) pass the capacity; but a new block goes in with
// bimodal insertion (BIP: Qureshi et al., "Adaptive insertion policies for
// high performance caching", ISCA 2007): at the least recently used end,
// except every kMruInsertEvery-th, which goes in at the most recently used
// end. A change's keys are sorted, so its seeks sweep each file from its
// first block to its last; under plain LRU a sweep over more blocks than
// the cache holds evicts exactly the blocks the next sweep needs first, and
// nothing is ever hit. With BIP the blocks held stay until they are hit
// (which moves them to the most recently used end) or slowly age out, so
// uniform random keys hit about capacity / blocks of the time, and hot
// blocks stay. A block that a cursor still reads
// stays alive through its shared pointer after eviction; the cache only
// stops counting it. A file batch erases its blocks when it is dropped.
//
// Invariants, per shard:
//  1. `lru` and `map` hold the same entries; `lru` is ordered from the most
//     recently used to the least.
//  2. `bytes` is the sum of the entries' charges and, after every Insert,
//     at most the shard's capacity (an entry larger than the capacity is
//     not kept at all).
//
// Thread safety: every method may be called from any thread. The entries
// are split over kShards shards by a hash of their name, each under its own
// mutex, so that workers and merge threads rarely wait for each other; the
// counters are atomic.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <unordered_map>

#include "base/mutex.h"
#include "zset/batch.h"

namespace sluice {

class BlockCache {
 public:
  struct Stats {
    uint64_t capacity_bytes = 0;
    uint64_t bytes = 0;  // of the blocks held now
    uint64_t blocks = 0;
    uint64_t hits = 0, misses = 0, evictions = 0;
    double hit_rate = 0;  // hits / (hits + misses); 0 before any lookup
  };

  // For a pipeline with storage but no memory budget.
  static constexpr uint64_t kDefaultCapacity = uint64_t{64} << 20;

  explicit BlockCache(uint64_t capacity_bytes);
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  // A fresh id for a file batch's blocks.
  static uint64_t NewFileId();

  // The block, if it is held (and it becomes the most recently used); a
  // lookup counts as a hit or a miss.
  MemBatchPtr Lookup(uint64_t file, uint64_t block);
  // Holds `data` as the block, evicting the least recently used blocks to
  // stay within the capacity. Replaces a block already held under the name.
  void Insert(uint64_t file, uint64_t block, MemBatchPtr data);
  // Drops blocks [0, count) of `file`, which nobody will ask for again.
  void EraseFile(uint64_t file, uint64_t count);

  Stats GetStats() const;
  uint64_t capacity() const { return capacity_; }

 private:
  static constexpr size_t kShards = 16;
  static constexpr uint64_t kMruInsertEvery = 32;
  struct Name {
    uint64_t file, block;
    bool operator==(const Name& o) const { return file == o.file && block == o.block; }
  };
  struct NameHash {
    size_t operator()(const Name& n) const;
  };
  struct Entry {
    Name name;
    MemBatchPtr data;
    uint64_t charge;
  };
  struct Shard {
    mutable Mutex mu;
    std::list<Entry> lru GUARDED_BY(mu);  // most recently used first
    std::unordered_map<Name, std::list<Entry>::iterator, NameHash> map GUARDED_BY(mu);
    uint64_t bytes GUARDED_BY(mu) = 0;
    uint64_t inserts GUARDED_BY(mu) = 0;
  };
  Shard& ShardOf(const Name& n) { return shards_[NameHash()(n) % kShards]; }
  // Drops the entry `it` points to.
  static void EraseLocked(Shard& s, std::list<Entry>::iterator it) REQUIRES(s.mu);

  const uint64_t capacity_;
  const uint64_t shard_capacity_;
  std::array<Shard, kShards> shards_;
  std::atomic<uint64_t> hits_{0}, misses_{0}, evictions_{0};
};

}  // namespace sluice
