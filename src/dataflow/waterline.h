// Waterlines: how far behind the newest row a table's rows may still come.
//
// A table column declared with LATENESS L promises that every change to the
// table has a value of that column of at least max(values seen) - L. The
// controller computes that bound, the table's waterline, after each step,
// drops input rows behind it, and publishes it here; operators downstream
// read it to forget state that no later change can touch (Spine::SetRetain).
//
// A ColumnBound carries a waterline through the circuit: a lower bound on one
// column of every row a stream will still carry, as the smallest of terms
// `waterline + offset` (a window's start lies up to its size before the
// timestamp; a join's key comes from either side).
//
// Thread safety: a Waterline is advanced by the controller between steps and
// read by workers and merge threads at any time (an atomic).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "types/sql_type.h"

namespace sluice {

class Waterline {
 public:
  // Before any row was seen: nothing is behind.
  static constexpr int64_t kNone = std::numeric_limits<int64_t>::min();

  int64_t value() const { return value_.load(std::memory_order_acquire); }
  // Moves the waterline up to `v` (never down).
  void Advance(int64_t v) {
    int64_t cur = value_.load(std::memory_order_relaxed);
    while (v > cur && !value_.compare_exchange_weak(cur, v, std::memory_order_release)) {
    }
  }

 private:
  std::atomic<int64_t> value_{kNone};
};

using WaterlinePtr = std::shared_ptr<const Waterline>;

struct ColumnBound {
  std::vector<std::pair<WaterlinePtr, int64_t>> terms;  // waterline, offset

  bool empty() const { return terms.empty(); }
  // The bound now: the smallest term, or Waterline::kNone if any term's
  // waterline is not known yet.
  int64_t Value() const;
  // The same bound, moved by `offset` (saturating).
  ColumnBound Shifted(int64_t offset) const;
  // The smaller of two bounds (a row that comes from either).
  static ColumnBound Min(const ColumnBound& a, const ColumnBound& b);
};

// A retain function (Spine::SetRetain) for keys of `key_schema`: keeps a key
// unless its field `column` (an integer, DATE, TIME or TIMESTAMP field) is
// non-NULL and below `bound`, or is NULL and `keep_null` is false (once the
// bound is known: for rows that a comparison with that field must pass). A
// key that does not split (a join's marker for NULL keys) is kept.
std::function<bool(std::string_view key)> RetainAtOrAfter(Schema key_schema, int column,
                                                          ColumnBound bound, bool keep_null = true);

// Whether a type's values order as the int64 that ReadInt gives.
bool HasIntegerOrder(const SqlType& type);

}  // namespace sluice
