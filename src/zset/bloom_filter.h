// BloomFilter: a set of key hashes (Hash64 of the key's bytes) that answers
// "may contain" with no false negatives and about 2% false positives: 10
// bits a key and 3 probes, placed by double hashing (probe p of hash h is
// bit (h + p * ((h >> 32) | 1)) mod the bit count). Batches keep one over
// their keys, so that a point lookup skips the batches that cannot hold its
// key without searching them (or, on storage, reading a block).
//
// Encoding (in a file batch's index): u64 word count W, then W u64 words of
// bits, little-endian; bit i is bit (i % 64) of word i / 64.
//
// Thread safety: immutable once built; Add() only while building.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace sluice {

class BloomFilter {
 public:
  static constexpr uint64_t kBitsPerKey = 10;
  static constexpr int kProbes = 3;

  BloomFilter() = default;
  // An empty filter sized for `keys` keys.
  explicit BloomFilter(uint64_t keys)
      : words_(std::max<uint64_t>(1, (keys * kBitsPerKey + 63) / 64)) {}

  void Add(uint64_t hash) {
    const uint64_t bits = words_.size() * 64, step = (hash >> 32) | 1;
    for (uint64_t p = 0, at = hash; p < kProbes; ++p, at += step) {
      words_[(at % bits) / 64] |= uint64_t{1} << (at % 64);
    }
  }
  // False only if no key with this hash was added. An empty (default)
  // filter knows nothing, so it answers true.
  bool MayContain(uint64_t hash) const {
    if (words_.empty()) return true;
    const uint64_t bits = words_.size() * 64, step = (hash >> 32) | 1;
    for (uint64_t p = 0, at = hash; p < kProbes; ++p, at += step) {
      if ((words_[(at % bits) / 64] & (uint64_t{1} << (at % 64))) == 0) return false;
    }
    return true;
  }
  bool empty() const { return words_.empty(); }
  uint64_t byte_size() const { return words_.size() * sizeof(uint64_t); }

  void EncodeTo(std::string* out) const;
  // Reads a filter from the front of `in` and advances it; Corruption if
  // `in` is too short.
  static Result<BloomFilter> DecodeFrom(std::string_view* in);

 private:
  std::vector<uint64_t> words_;
};

}  // namespace sluice
