// Batch: an immutable indexed Z-set, the unit of data that streams carry and
// spines store. It maps key -> (value -> weight); a plain Z-set of rows uses
// the row as key and the empty string as value.
//
// Invariants of every batch:
//  1. Keys are strictly increasing in byte order; each key has at least one
//     value, and a key's values are strictly increasing in byte order.
//  2. Every weight is non-zero (the batch is consolidated).
//
// And of a MemBatch:
//  3. Every key begins with the first key_skip() bytes of key 0 (the bytes
//     all its keys share), and key_prefix(i) is BytePrefix of key i after
//     them.
//
// Keys and values are encoded rows (types/row_codec.h), so byte order is
// value order. A batch lives in memory (MemBatch) or in a file on storage
// (FileBatch); both are read through Cursor. Batches are shared as
// BatchPtr = std::shared_ptr<const Batch>: a snapshot of an integral is a
// list of pointers and copies nothing.
//
// Thread safety: immutable, so any number of threads may read one batch.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "zset/bloom_filter.h"

namespace sluice {

using Weight = int64_t;
class Cursor;

// The first 8 bytes of `s` as a big-endian integer, zero-padded. Where two
// strings' prefixes differ, they compare as their prefixes do (a
// normalized-key prefix), so most comparisons of keys end with one integer
// comparison, without reading the keys' bytes.
inline uint64_t BytePrefix(std::string_view s) {
  uint64_t v = 0;
  std::memcpy(&v, s.data(), s.size() < 8 ? s.size() : 8);
  return __builtin_bswap64(v);
}
// BytePrefix of `s` after its first `skip` bytes (0 if it has no more).
inline uint64_t BytePrefixAfter(std::string_view s, size_t skip) {
  return skip < s.size() ? BytePrefix(s.substr(skip)) : 0;
}
// The number of leading bytes `a` and `b` share.
inline size_t SharedPrefixLength(std::string_view a, std::string_view b) {
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  size_t i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

class Batch {
 public:
  virtual ~Batch() = default;
  virtual std::unique_ptr<Cursor> NewCursor() const = 0;
  // Number of (key, value) pairs.
  virtual uint64_t len() const = 0;
  virtual uint64_t key_count() const = 0;
  // Bytes of row data and index, in memory or on storage.
  virtual uint64_t byte_size() const = 0;
  virtual bool on_storage() const { return false; }
  // Bytes the batch holds in memory: all of it for a batch in memory; its
  // index and Bloom filter for one on storage. Counted against the budget.
  virtual uint64_t memory_bytes() const { return byte_size(); }
  // Whether the key whose Hash64 is `hash` may be in this batch (false: it
  // is not), from a Bloom filter of its keys where the batch has one. For
  // point lookups that would otherwise search every batch of a spine.
  virtual bool MayContainKey(uint64_t /*hash*/) const { return true; }
  bool empty() const { return len() == 0; }
};

using BatchPtr = std::shared_ptr<const Batch>;

// A batch held in memory, column-wise: all key bytes in one arena, all value
// bytes in another, and offset arrays into them. No per-row allocation.
class MemBatch final : public Batch {
 public:
  MemBatch() = default;

  std::unique_ptr<Cursor> NewCursor() const override;
  uint64_t len() const override { return weights_.size(); }
  uint64_t key_count() const override { return key_off_.size() - 1; }
  uint64_t byte_size() const override;
  // Bytes of all keys, and of all values, one after the other.
  uint64_t key_bytes() const { return key_data_.size(); }
  uint64_t val_bytes() const { return val_data_.size(); }

  std::string_view key(size_t i) const {
    return std::string_view(key_data_.data() + key_off_[i], key_off_[i + 1] - key_off_[i]);
  }
  // The bytes every key begins with, skipped by key_prefix (invariant 3):
  // keys that share their first bytes (a nullable BIGINT's tag and high
  // zero bytes, say) still differ in their prefixes, so a search compares
  // integers to its last step instead of calling memcmp for the last
  // hundreds of keys.
  size_t key_skip() const { return key_skip_; }
  uint64_t key_prefix(size_t i) const { return key_prefix_[i]; }
  // Key i's values are those with index in [vals_begin(i), vals_end(i)).
  size_t vals_begin(size_t i) const { return key_vals_[i]; }
  size_t vals_end(size_t i) const { return key_vals_[i + 1]; }
  std::string_view val(size_t j) const {
    return std::string_view(val_data_.data() + val_off_[j], val_off_[j + 1] - val_off_[j]);
  }
  Weight weight(size_t j) const { return weights_[j]; }

  // First key index >= `key`, searching [from, key_count()) by galloping
  // then binary search, so that sorted probes cost O(log distance). Keys
  // are compared by their prefixes first (key_prefix_), so a step of the
  // search mostly reads one array, not the offsets and the key bytes; a
  // key outside the bytes all keys share is placed without a search.
  size_t LowerBoundKey(std::string_view key, size_t from = 0) const;
  // First value index >= `val` among key i's values, starting at `from`.
  size_t LowerBoundVal(size_t i, std::string_view val, size_t from) const;
  // From a Bloom filter of the keys built on the first call.
  bool MayContainKey(uint64_t hash) const override;

  static const std::shared_ptr<const MemBatch>& Empty();

 private:
  friend class OrderedBuilder;
  friend Result<std::shared_ptr<const MemBatch>> DecodeBatch(std::string_view);

  std::string key_data_;
  std::vector<uint64_t> key_off_{0};
  std::vector<uint64_t> key_prefix_;  // of each key after key_skip_ bytes, for searches
  size_t key_skip_ = 0;
  std::vector<uint64_t> key_vals_{0};
  std::string val_data_;
  std::vector<uint64_t> val_off_{0};
  std::vector<Weight> weights_;
  mutable std::once_flag bloom_once_;
  mutable BloomFilter bloom_;  // set by MayContainKey's first call
};

using MemBatchPtr = std::shared_ptr<const MemBatch>;

}  // namespace sluice
