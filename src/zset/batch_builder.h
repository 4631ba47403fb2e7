// Builders of MemBatch.
//
// OrderedBuilder takes (key, value, weight) in sorted order and consolidates
// as it goes: equal pairs are summed and a pair whose weight sums to zero is
// dropped. It is what merges, filters and file blocks use.
//
// BatchBuilder takes pairs in any order, then sorts and consolidates them in
// Finish(). It is what maps, joins and inputs use.
//
// Weights are 64-bit; a sum that overflows is an Overflow error naming the
// row, never a wrapped weight.
//
// Thread safety: a builder is used by one thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "zset/batch.h"

namespace sluice {

class OrderedBuilder {
 public:
  OrderedBuilder() : batch_(std::make_shared<MemBatch>()) {}

  // REQUIRES: (key, val) >= the previous pair pushed.
  Status Push(std::string_view key, std::string_view val, Weight w);
  // Appends key `k` of `src` with all its values, copying them in bulk.
  // REQUIRES: src.key(k) > the last key pushed.
  void AppendKey(const MemBatch& src, size_t k);
  void Reserve(size_t keys, size_t vals, size_t key_bytes, size_t val_bytes);
  // A promise that every key pushed lies in [lo, hi], so that keys'
  // prefixes are taken after the bytes lo and hi share as they come
  // (MemBatch::key_skip); without it, Finish() takes them again.
  void ExpectKeysWithin(std::string_view lo, std::string_view hi);
  uint64_t len() const { return batch_->len(); }
  uint64_t byte_size() const { return batch_->byte_size(); }
  // The key pushed last, if any value of it is still in the batch.
  bool has_key() const { return batch_->key_count() > 0; }
  std::string_view last_key() const { return batch_->key(batch_->key_count() - 1); }

  // Returns the batch and leaves the builder empty.
  MemBatchPtr Finish();

 private:
  std::shared_ptr<MemBatch> batch_;
  size_t skip_ = 0;  // bytes every key pushed begins with (promised)
};

class BatchBuilder {
 public:
  void Push(std::string_view key, std::string_view val, Weight w);
  // Pushes a row of a plain Z-set (empty value).
  void Push(std::string_view row, Weight w) { Push(row, std::string_view(), w); }
  size_t pending() const { return entries_.size(); }
  void Reserve(size_t entries, size_t bytes) {
    entries_.reserve(entries);
    arena_.reserve(bytes);
  }

  // Sorts, consolidates, and returns the batch; the builder is left empty.
  Result<MemBatchPtr> Finish();

 private:
  struct Entry {
    // The key's first 8 bytes, big-endian and zero-padded: most comparisons
    // end here without touching the arena (a normalized-key prefix).
    uint64_t prefix;
    uint64_t key_off;
    uint64_t val_off;
    uint32_t key_len;
    uint32_t val_len;
    Weight w;
  };
  std::string arena_;
  std::vector<Entry> entries_;
  uint64_t key_bytes_ = 0, val_bytes_ = 0;
};

}  // namespace sluice
