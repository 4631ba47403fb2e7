#include "zset/batch.h"

#include <algorithm>

#include "base/hash.h"
#include "zset/cursor.h"

namespace sluice {
namespace {

// Galloping lower bound over indices [from, n) of a sorted sequence, where
// less(i) says whether element i is below the target.
template <typename Less>
size_t GallopLowerBound(size_t from, size_t n, Less less) {
  if (from >= n || !less(from)) return from;
  size_t lo = from, step = 1;  // invariant: less(lo)
  while (lo + step < n && less(lo + step)) {
    lo += step;
    step *= 2;
  }
  size_t hi = std::min(lo + step, n);  // !less(hi), or hi == n
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (less(mid)) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return hi;
}

}  // namespace

std::unique_ptr<Cursor> MemBatch::NewCursor() const { return std::make_unique<MemCursor>(*this); }

uint64_t MemBatch::byte_size() const {
  return key_data_.size() + val_data_.size() +
         sizeof(uint64_t) *
             (key_off_.size() + key_prefix_.size() + key_vals_.size() + val_off_.size()) +
         sizeof(Weight) * weights_.size();
}

bool MemBatch::MayContainKey(uint64_t hash) const {
  std::call_once(bloom_once_, [this] {
    BloomFilter f(key_count());
    for (size_t i = 0; i < key_count(); ++i) f.Add(Hash64(key(i)));
    bloom_ = std::move(f);
  });
  return bloom_.MayContain(hash);
}

size_t MemBatch::LowerBoundKey(std::string_view target, size_t from) const {
  const size_t n = key_count();
  if (from >= n) return from;
  if (key_skip_ > 0) {
    // Every key begins with these bytes: a target that does not is below
    // or above them all. Up to 8 of them compare as integers, without a
    // call to memcmp (most seeks of a merged cursor move no input, so
    // this check is most of their cost); a target shorter than the shared
    // bytes that passes, zero-padded, is placed right by the search below.
    if (key_skip_ <= 8) {
      const uint64_t mask = ~uint64_t{0} << (64 - 8 * key_skip_);
      const uint64_t t = BytePrefix(target) & mask, shared = BytePrefix(key(0)) & mask;
      if (t != shared) return t < shared ? from : n;
    } else {
      const int c = target.substr(0, key_skip_).compare(key(0).substr(0, key_skip_));
      if (c != 0) return c < 0 ? from : n;
    }
  }
  const uint64_t prefix = BytePrefixAfter(target, key_skip_);
  const uint64_t* prefixes = key_prefix_.data();
  return GallopLowerBound(from, n, [&](size_t i) {
    return prefixes[i] != prefix ? prefixes[i] < prefix : key(i) < target;
  });
}

size_t MemBatch::LowerBoundVal(size_t i, std::string_view target, size_t from) const {
  return GallopLowerBound(from, vals_end(i), [&](size_t j) { return val(j) < target; });
}

const std::shared_ptr<const MemBatch>& MemBatch::Empty() {
  static const std::shared_ptr<const MemBatch> kEmpty = std::make_shared<const MemBatch>();
  return kEmpty;
}

}  // namespace sluice
