#include "zset/batch.h"

#include "zset/cursor.h"

namespace sluice {
namespace {

// Galloping lower bound over indices [from, n) of a sorted sequence.
template <typename Get>
size_t GallopLowerBound(size_t from, size_t n, std::string_view target, Get get) {
  if (from >= n || !(get(from) < target)) return from;
  size_t lo = from, step = 1;  // invariant: get(lo) < target
  while (lo + step < n && get(lo + step) < target) {
    lo += step;
    step *= 2;
  }
  size_t hi = std::min(lo + step, n);  // get(hi) >= target, or hi == n
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (get(mid) < target) {
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
         sizeof(uint64_t) * (key_off_.size() + key_vals_.size() + val_off_.size()) +
         sizeof(Weight) * weights_.size();
}

size_t MemBatch::LowerBoundKey(std::string_view target, size_t from) const {
  return GallopLowerBound(from, key_count(), target, [this](size_t i) { return key(i); });
}

size_t MemBatch::LowerBoundVal(size_t i, std::string_view target, size_t from) const {
  return GallopLowerBound(from, vals_end(i), target, [this](size_t j) { return val(j); });
}

const std::shared_ptr<const MemBatch>& MemBatch::Empty() {
  static const std::shared_ptr<const MemBatch> kEmpty = std::make_shared<const MemBatch>();
  return kEmpty;
}

}  // namespace sluice
