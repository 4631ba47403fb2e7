// BloomFilter: a set of key hashes (Hash64 of the key's bytes) that answers
// "may contain" with no false negatives and about 1.5% false positives, at
// 10 bits a key. It is blocked (Putze, Sanders and Singler, "Cache-, Hash-
// and Space-Efficient Bloom Filters", 2007): a hash picks one 512-bit
// block, a cache line, and sets or tests 4 bits inside it, so a lookup
// reads one cache line and divides nothing. (The classic filter it
// replaces read 3 lines and took 3 remainders a lookup, a tenth of a
// change's time in the upsert's point lookups.) Batches keep one over
// their keys, so that a point lookup skips the batches that cannot hold
// its key without searching them (or, on storage, reading a block).
//
// Placement of hash h among B blocks: block (h * B) >> 64 (the high half
// of the 128-bit product, so every bit of h counts); bit p (p = 0..3) of
// the block is (h >> 9p) mod 512; bit i of a block is bit (i % 64) of its
// word i / 64.
//
// Encoding (in a file batch's index): u64 kBlockedTag | W, W a multiple of
// 8, then W u64 words of bits, little-endian, block b in words 8b..8b+7.
// Files written before the filter was blocked hold u64 W (no tag) and the
// classic filter's words: their filter decodes as empty, which knows
// nothing (every lookup reads the batch), so they still read correctly.
//
// Thread safety: immutable once built; Add() only while building.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace sluice {

class BloomFilter {
 public:
  static constexpr uint64_t kBitsPerKey = 10;
  static constexpr int kProbes = 4;
  static constexpr uint64_t kBlockWords = 8;  // 512 bits, one cache line
  static constexpr uint64_t kBlockedTag = uint64_t{1} << 63;

  BloomFilter() = default;
  // An empty filter sized for `keys` keys.
  explicit BloomFilter(uint64_t keys);
  BloomFilter(BloomFilter&&) = default;
  BloomFilter& operator=(BloomFilter&&) = default;

  void Add(uint64_t hash) {
    uint64_t* block = Block(hash);
    for (int p = 0; p < kProbes; ++p) {
      const uint64_t bit = (hash >> (9 * p)) & 511;
      block[bit / 64] |= uint64_t{1} << (bit % 64);
    }
  }
  // False only if no key with this hash was added. An empty (default)
  // filter knows nothing, so it answers true.
  bool MayContain(uint64_t hash) const {
    if (blocks_ == 0) return true;
    const uint64_t* block = Block(hash);
    uint64_t all = 1;
    for (int p = 0; p < kProbes; ++p) {
      const uint64_t bit = (hash >> (9 * p)) & 511;
      all &= block[bit / 64] >> (bit % 64);
    }
    return all & 1;
  }
  bool empty() const { return blocks_ == 0; }
  uint64_t byte_size() const { return blocks_ * kBlockWords * sizeof(uint64_t); }

  void EncodeTo(std::string* out) const;
  // Reads a filter from the front of `in` and advances it; Corruption if
  // `in` is too short.
  static Result<BloomFilter> DecodeFrom(std::string_view* in);

 private:
  struct Free {
    void operator()(uint64_t* p) const { std::free(p); }
  };
  // `blocks` zeroed blocks, aligned to a cache line.
  void Allocate(uint64_t blocks);
  uint64_t* Block(uint64_t hash) const {
    const uint64_t b =
        static_cast<uint64_t>((static_cast<unsigned __int128>(hash) * blocks_) >> 64);
    return words_.get() + b * kBlockWords;
  }

  uint64_t blocks_ = 0;
  std::unique_ptr<uint64_t[], Free> words_;
};

}  // namespace sluice
