// Array functions: subscripts, cardinality, array_length, array_to_string,
// array_position and the containment operators @>, <@ and &&, with
// PostgreSQL's one-based, NULL-when-absent rules.
#include <algorithm>
#include <cmath>
#include <functional>

#include "sql/datetime.h"
#include "sql/functions_internal.h"

namespace sluice::sql {
namespace {

// The lower bound of dimension d (counted from 0) of a non-empty array.
int64_t LowerBound(const Value& a, size_t d) {
  const std::vector<int32_t>& lower = a.lower_bounds();
  return d < lower.size() ? lower[d] : 1;
}

// a[i]: NULL when i is out of range, as in PostgreSQL.
Status Subscript(const SqlType&, const Value* a, size_t, Value* out) {
  const std::vector<Value>& items = a[0].list();
  int64_t i = a[1].int_value();
  *out = i >= 1 && static_cast<uint64_t>(i) <= items.size() ? items[static_cast<size_t>(i - 1)]
                                                            : Value::Null();
  return Status::OK();
}

// a[i][j]...: of an array whose type holds sub-arrays, one subscript per
// dimension; NULL when one is out of range or the subscripts are not as
// many as the array's dimensions, as in PostgreSQL.
Status SubscriptDims(const SqlType&, const Value* a, size_t n, Value* out) {
  const Value* v = &a[0];
  for (size_t k = 1; k < n; ++k) {
    if (v->kind() != Value::Kind::kList || a[k].is_null()) {
      *out = Value::Null();
      return Status::OK();
    }
    // Relative to the dimension's lower bound.
    const int64_t i = a[k].int_value() - LowerBound(a[0], k - 1) + 1;
    if (i < 1 || static_cast<uint64_t>(i) > v->list().size()) {
      *out = Value::Null();
      return Status::OK();
    }
    v = &v->list()[static_cast<size_t>(i - 1)];
  }
  *out = v->kind() == Value::Kind::kList ? Value::Null() : *v;
  return Status::OK();
}

// a[l1:u1][l2:u2]... (array_slice(a, omitted, l1, u1, l2, u2, ...)): the
// elements of the array within the bounds, as an array whose subscripts
// start at 1; empty when no element is. Bit 2k of `omitted` says that lower
// bound k was left out (a[:u]), bit 2k + 1 that upper bound k was (the
// array's own bound stands). Dimensions without bounds are taken whole;
// more bounds than dimensions give an empty array, as in PostgreSQL.
Status ArraySlice(const SqlType& type, const Value* a, size_t n, Value* out) {
  const Value& v = a[0];
  const int64_t omitted = a[1].int_value();
  const size_t k = (n - 2) / 2;
  std::vector<int64_t> dims = ArrayDims(v);
  if (!ArrayHoldsSubArrays(type) && dims.size() > 1) dims.resize(1);
  if (dims.empty() || k > dims.size()) {
    *out = Value::List({});
    return Status::OK();
  }
  std::vector<std::pair<size_t, size_t>> range;  // [first, last) per dimension, from 0
  for (size_t d = 0; d < k; ++d) {
    const int64_t lb = LowerBound(v, d), ub = lb + dims[d] - 1;
    int64_t lo = (omitted >> (2 * d)) & 1 ? lb : a[2 + 2 * d].int_value();
    int64_t hi = (omitted >> (2 * d + 1)) & 1 ? ub : a[3 + 2 * d].int_value();
    lo = std::max(lo, lb);
    hi = std::min(hi, ub);
    if (lo > hi) {
      *out = Value::List({});
      return Status::OK();
    }
    range.emplace_back(static_cast<size_t>(lo - lb), static_cast<size_t>(hi - lb + 1));
  }
  std::function<Value(const Value&, size_t)> take = [&](const Value& x, size_t d) -> Value {
    if (d == range.size()) return x;
    std::vector<Value> items;
    for (size_t i = range[d].first; i < range[d].second; ++i)
      items.push_back(take(x.list()[i], d + 1));
    return Value::List(std::move(items));
  };
  *out = take(v, 0);
  return Status::OK();
}

// The lengths and lower bounds of an array (none for NULL or empty), for
// assignments.
struct ArrayShape {
  std::vector<int64_t> dims;
  std::vector<int64_t> lower;
};
// The shape of `a`, of array type `type`: an array of arrays or rows has
// one dimension, whatever its elements hold.
ArrayShape ShapeOf(const Value& a, const SqlType& type) {
  ArrayShape s;
  if (a.is_null()) return s;
  s.dims = ArrayDims(a);
  if (!ArrayHoldsSubArrays(type) && !s.dims.empty()) s.dims.resize(1);
  for (size_t d = 0; d < s.dims.size(); ++d) s.lower.push_back(LowerBound(a, d));
  return s;
}

// Every element of `v` in row-major order.
void Elements(const Value& v, size_t depth, size_t dims, std::vector<Value>* out) {
  if (depth == dims) {
    out->push_back(v);
    return;
  }
  for (const Value& x : v.list()) Elements(x, depth + 1, dims, out);
}

// An array of the given shape, its elements from `next` in row-major order.
Value Build(const ArrayShape& s, size_t d, const std::function<Value()>& next) {
  if (d == s.dims.size()) return next();
  std::vector<Value> items;
  for (int64_t i = 0; i < s.dims[d]; ++i) items.push_back(Build(s, d + 1, next));
  return Value::List(std::move(items));
}

Value WithBounds(const Value& v, const std::vector<int64_t>& lower) {
  return Value::BoundedList(v.list(), std::vector<int32_t>(lower.begin(), lower.end()));
}

Status NullSubscript() {
  return Status::InvalidArgument("array subscript in assignment must not be null");
}

// sluice_array_assign(p, v, i) of a point: `UPDATE ... SET p[i] = v`, as
// PostgreSQL assigns an element of a fixed-length array: a NULL point stays
// NULL, a NULL value changes nothing, and only [0] and [1] exist.
Status PointAssign(const SqlType&, const Value* a, size_t n, Value* out) {
  if (n != 3) return Status::InvalidArgument("wrong number of array subscripts");
  if (a[2].is_null()) return NullSubscript();
  const int64_t i = a[2].int_value();
  if (i < 0 || i > 1) return Status::InvalidArgument("array subscript out of range");
  if (a[0].is_null() || a[1].is_null()) {
    *out = a[0];
    return Status::OK();
  }
  std::vector<Value> xy = a[0].list();
  xy[static_cast<size_t>(i)] = a[1];
  *out = Value::BoundedList(std::move(xy), {0});
  return Status::OK();
}

// sluice_array_assign(a, v, i1, ..., ik): `UPDATE ... SET a[i1]...[ik] =
// v`, as PostgreSQL assigns an element: a NULL or empty array becomes one
// of that element (its lower bounds the subscripts); a one-dimensional
// array grows to take a subscript outside it, NULLs filling the gap; one
// of more dimensions takes only subscripts inside it.
Status ArrayAssign(const SqlType& type, const Value* a, size_t n, Value* out) {
  std::vector<int64_t> at;
  for (size_t k = 2; k < n; ++k) {
    if (a[k].is_null()) return NullSubscript();
    at.push_back(a[k].int_value());
  }
  const size_t k = at.size();
  const ArrayShape s = ShapeOf(a[0], type);
  if (s.dims.empty()) {
    ArrayShape one{std::vector<int64_t>(k, 1), at};
    *out = WithBounds(Build(one, 0, [&] { return a[1]; }), at);
    return Status::OK();
  }
  if (s.dims.size() != k) return Status::InvalidArgument("wrong number of array subscripts");
  if (k == 1) {
    std::vector<Value> items = a[0].list();
    int64_t lb = s.lower[0];
    const int64_t i = at[0];
    if (i < lb) {
      items.insert(items.begin(), static_cast<size_t>(lb - i), Value::Null());
      lb = i;
    } else if (i >= lb + static_cast<int64_t>(items.size())) {
      items.resize(static_cast<size_t>(i - lb + 1), Value::Null());
    }
    items[static_cast<size_t>(i - lb)] = a[1];
    *out = WithBounds(Value::List(std::move(items)), {lb});
    return Status::OK();
  }
  for (size_t d = 0; d < k; ++d) {
    if (at[d] < s.lower[d] || at[d] >= s.lower[d] + s.dims[d])
      return Status::InvalidArgument("array subscript out of range");
  }
  std::function<Value(const Value&, size_t)> put = [&](const Value& x, size_t d) -> Value {
    if (d == k) return a[1];
    std::vector<Value> items = x.list();
    const size_t i = static_cast<size_t>(at[d] - s.lower[d]);
    items[i] = put(items[i], d + 1);
    return Value::List(std::move(items));
  };
  *out = WithBounds(put(a[0], 0), s.lower);
  return Status::OK();
}

// sluice_array_assign_slice(a, v, omitted, l1, u1, ...): `UPDATE ... SET
// a[l1:u1]... = v`, as PostgreSQL assigns a slice: v's elements in order
// fill it (v must have enough); bit 2k of `omitted` says lower bound k was
// left out (the array's own stands), bit 2k + 1 upper bound k. A NULL v
// leaves the array as it was; a NULL or empty array needs every bound; a
// one-dimensional array grows to take the slice, NULLs filling a gap.
Status ArrayAssignSlice(const SqlType& type, const Value* a, size_t n, Value* out) {
  if (a[1].is_null()) {
    *out = a[0];
    return Status::OK();
  }
  const int64_t omitted = a[2].int_value();
  const size_t k = (n - 3) / 2;
  const ArrayShape s = ShapeOf(a[0], type);
  std::vector<int64_t> lo(k), hi(k);
  for (size_t d = 0; d < k; ++d) {
    const bool no_lo = (omitted >> (2 * d)) & 1, no_hi = (omitted >> (2 * d + 1)) & 1;
    if ((!no_lo && a[3 + 2 * d].is_null()) || (!no_hi && a[4 + 2 * d].is_null()))
      return NullSubscript();
    if (s.dims.empty() && (no_lo || no_hi)) {
      return Status::InvalidArgument(
          "array slice subscript must provide both boundaries (when assigning to a slice of an "
          "empty array value, slice boundaries must be fully specified)");
    }
    lo[d] = no_lo ? (d < s.lower.size() ? s.lower[d] : 1) : a[3 + 2 * d].int_value();
    hi[d] = no_hi ? (d < s.dims.size() ? s.lower[d] + s.dims[d] - 1 : 0) : a[4 + 2 * d].int_value();
    if (hi[d] < lo[d])
      return Status::InvalidArgument("upper bound cannot be less than lower bound");
  }
  std::vector<Value> source;
  const ArrayShape vs = ShapeOf(a[1], type);
  if (!vs.dims.empty()) Elements(a[1], 0, vs.dims.size(), &source);
  size_t next = 0;
  auto take = [&]() -> Value { return source[next++]; };
  auto too_small = [&](int64_t need) {
    return need > static_cast<int64_t>(source.size())
               ? Status::InvalidArgument("source array too small")
               : Status::OK();
  };
  if (s.dims.empty()) {
    ArrayShape fresh;
    int64_t need = 1;
    for (size_t d = 0; d < k; ++d) {
      fresh.dims.push_back(hi[d] - lo[d] + 1);
      fresh.lower.push_back(lo[d]);
      need *= fresh.dims.back();
    }
    SLUICE_RETURN_IF_ERROR(too_small(need));
    *out = WithBounds(Build(fresh, 0, take), fresh.lower);
    return Status::OK();
  }
  if (k > s.dims.size()) return Status::InvalidArgument("wrong number of array subscripts");
  if (s.dims.size() == 1) {
    std::vector<Value> items = a[0].list();
    int64_t lb = s.lower[0];
    if (lo[0] < lb) {
      items.insert(items.begin(), static_cast<size_t>(lb - lo[0]), Value::Null());
      lb = lo[0];
    }
    if (hi[0] >= lb + static_cast<int64_t>(items.size()))
      items.resize(static_cast<size_t>(hi[0] - lb + 1), Value::Null());
    SLUICE_RETURN_IF_ERROR(too_small(hi[0] - lo[0] + 1));
    for (int64_t i = lo[0]; i <= hi[0]; ++i) items[static_cast<size_t>(i - lb)] = take();
    *out = WithBounds(Value::List(std::move(items)), {lb});
    return Status::OK();
  }
  int64_t need = 1;
  for (size_t d = 0; d < s.dims.size(); ++d) {
    if (d >= k) {
      lo.push_back(s.lower[d]);
      hi.push_back(s.lower[d] + s.dims[d] - 1);
    }
    if (lo[d] < s.lower[d] || hi[d] >= s.lower[d] + s.dims[d])
      return Status::InvalidArgument("array subscript out of range");
    need *= hi[d] - lo[d] + 1;
  }
  SLUICE_RETURN_IF_ERROR(too_small(need));
  std::function<Value(const Value&, size_t)> put = [&](const Value& x, size_t d) -> Value {
    if (d == s.dims.size()) return take();
    std::vector<Value> items = x.list();
    for (int64_t i = lo[d]; i <= hi[d]; ++i) {
      const size_t j = static_cast<size_t>(i - s.lower[d]);
      items[j] = put(items[j], d + 1);
    }
    return Value::List(std::move(items));
  };
  *out = WithBounds(put(a[0], 0), s.lower);
  return Status::OK();
}

// array_fill(x, dims [, lower]): an array of the given lengths (and lower
// bounds), every element x.
Status ArrayFill(const SqlType&, const Value* a, size_t n, Value* out) {
  if (a[1].is_null() || (n == 3 && a[2].is_null())) {
    return Status::InvalidArgument("dimension array or low bound array cannot be null");
  }
  std::vector<int64_t> dims;
  for (const Value& d : a[1].list()) {
    if (d.is_null() || d.kind() != Value::Kind::kInt) {
      return Status::InvalidArgument("dimension values cannot be null");
    }
    dims.push_back(d.int_value());
  }
  std::vector<int32_t> lower;
  if (n == 3) {
    for (const Value& b : a[2].list()) {
      if (b.is_null() || b.kind() != Value::Kind::kInt) {
        return Status::InvalidArgument("dimension values cannot be null");
      }
      lower.push_back(static_cast<int32_t>(b.int_value()));
    }
    if (lower.size() != dims.size()) {
      return Status::InvalidArgument("wrong number of array subscripts");
    }
  }
  if (dims.size() > 6) {
    return Status::InvalidArgument("number of array dimensions (" + std::to_string(dims.size()) +
                                   ") exceeds the maximum allowed (6)");
  }
  int64_t total = dims.empty() ? 0 : 1;
  for (int64_t d : dims) {
    if (d < 0) return Status::InvalidArgument("array size exceeds the maximum allowed (134217727)");
    total *= d;
    if (total > 134217727) {
      return Status::InvalidArgument("array size exceeds the maximum allowed (134217727)");
    }
  }
  if (total == 0) {
    *out = Value::List({});
    return Status::OK();
  }
  const ArrayShape shape{dims, std::vector<int64_t>(lower.begin(), lower.end())};
  *out = WithBounds(Build(shape, 0, [&] { return a[0]; }), shape.lower);
  return Status::OK();
}

// trim_array(a, n): a without its last n items (of its first dimension).
Status TrimArray(const SqlType&, const Value* a, size_t, Value* out) {
  const std::vector<Value>& items = a[0].list();
  const int64_t n = a[1].int_value();
  if (n < 0 || n > static_cast<int64_t>(items.size())) {
    return Status::InvalidArgument("number of elements to trim must be between 0 and " +
                                   std::to_string(items.size()));
  }
  *out = Value::List(std::vector<Value>(items.begin(), items.end() - n));
  return Status::OK();
}

// width_bucket(x, thresholds): how many of the sorted thresholds are at
// most x, by PostgreSQL's binary search (so an unsorted array gives its
// answer too).
Status WidthBucketArray(const SqlType&, const Value* a, size_t, Value* out) {
  const std::vector<Value>& t = a[1].list();
  if (ArrayDims(a[1]).size() > 1) {
    return Status::InvalidArgument("thresholds must be one-dimensional array");
  }
  for (const Value& x : t) {
    if (x.is_null()) return Status::InvalidArgument("thresholds array must not contain NULLs");
  }
  size_t left = 0, right = t.size();
  while (left < right) {
    const size_t mid = (left + right) / 2;
    if (CompareValues(a[0], t[mid]) < 0) {
      right = mid;
    } else {
      left = mid + 1;
    }
  }
  *out = Value::Int(static_cast<int64_t>(left));
  return Status::OK();
}

// The lengths of the dimensions of `a`. An array whose elements are rows
// or arrays (kSubArrays false) has one dimension, though each of its
// elements is a list too: array_dims(array_agg(t)) of a table t is [1:n].
template <bool kSubArrays>
std::vector<int64_t> DimsOf(const Value& a) {
  std::vector<int64_t> dims = ArrayDims(a);
  if (!kSubArrays && dims.size() > 1) dims.resize(1);
  return dims;
}

// cardinality(a): the number of elements, of all dimensions.
template <bool kSubArrays>
Status Cardinality(const SqlType&, const Value* a, size_t, Value* out) {
  const std::vector<int64_t> dims = DimsOf<kSubArrays>(a[0]);
  int64_t n = dims.empty() ? 0 : 1;
  for (int64_t d : dims) n *= d;
  *out = Value::Int(n);
  return Status::OK();
}

// PostgreSQL's transition functions of the float statistics aggregates,
// which it lets a query call: the state is {N, Sx, Sxx} (float8_accum,
// float8_combine) or {N, Sx, Sxx, Sy, Syy, Sxy} (float8_regr_*), updated by
// Youngs and Cramer's method, as PostgreSQL's float.c does, so that the
// same state gives the same digits.
Result<std::vector<double>> Float8State(const Value& v, size_t n, const char* fn) {
  const std::vector<int64_t> dims = ArrayDims(v);
  std::vector<double> out;
  if (dims.size() == 1 && static_cast<size_t>(dims[0]) == n) {
    for (const Value& x : v.list()) {
      if (x.is_null()) break;
      out.push_back(x.double_value());
    }
  }
  if (out.size() != n) {
    return Status::InvalidArgument(std::string(fn) + ": expected " + std::to_string(n) +
                                   "-element float8 array");
  }
  return out;
}

Value Float8Array(const std::vector<double>& s) {
  std::vector<Value> items;
  for (double x : s) items.push_back(Value::Double(x));
  return Value::List(std::move(items));
}

Status Float8Overflow() { return Status::Overflow("value out of range: overflow"); }

Status Float8Accum(const SqlType&, const Value* a, size_t, Value* out) {
  SLUICE_ASSIGN_OR_RETURN(std::vector<double> t, Float8State(a[0], 3, "float8_accum"));
  const double x = a[1].double_value();
  const double n0 = t[0], sx0 = t[1];
  double n = n0 + 1.0, sx = sx0 + x, sxx = t[2];
  if (n0 > 0.0) {
    const double tmp = x * n - sx;
    sxx += tmp * tmp / (n * n0);
    if (std::isinf(sx) || std::isinf(sxx)) {
      if (!std::isinf(sx0) && !std::isinf(x)) return Float8Overflow();
      sxx = std::nan("");
    }
  } else if (std::isnan(x) || std::isinf(x)) {
    sxx = std::nan("");
  }
  *out = Float8Array({n, sx, sxx});
  return Status::OK();
}

Status Float8Combine(const SqlType&, const Value* a, size_t, Value* out) {
  SLUICE_ASSIGN_OR_RETURN(std::vector<double> p, Float8State(a[0], 3, "float8_combine"));
  SLUICE_ASSIGN_OR_RETURN(std::vector<double> q, Float8State(a[1], 3, "float8_combine"));
  if (p[0] == 0.0 || q[0] == 0.0) {
    *out = Float8Array(p[0] == 0.0 ? q : p);
    return Status::OK();
  }
  const double n = p[0] + q[0];
  const double sx = p[1] + q[1];
  if (std::isinf(sx) && !std::isinf(p[1]) && !std::isinf(q[1])) return Float8Overflow();
  const double tmp = p[1] / p[0] - q[1] / q[0];
  const double sxx = p[2] + q[2] + p[0] * q[0] * tmp * tmp / n;
  if (std::isinf(sxx) && !std::isinf(p[2]) && !std::isinf(q[2])) return Float8Overflow();
  *out = Float8Array({n, sx, sxx});
  return Status::OK();
}

Status Float8RegrAccum(const SqlType&, const Value* a, size_t, Value* out) {
  SLUICE_ASSIGN_OR_RETURN(std::vector<double> t, Float8State(a[0], 6, "float8_regr_accum"));
  const double y = a[1].double_value(), x = a[2].double_value();
  const double n0 = t[0];
  double n = n0 + 1.0, sx = t[1] + x, sxx = t[2], sy = t[3] + y, syy = t[4], sxy = t[5];
  if (n0 > 0.0) {
    const double tx = x * n - sx, ty = y * n - sy, scale = 1.0 / (n * n0);
    sxx += tx * tx * scale;
    syy += ty * ty * scale;
    sxy += tx * ty * scale;
    if (std::isinf(sx) || std::isinf(sxx) || std::isinf(sy) || std::isinf(syy) || std::isinf(sxy)) {
      if (((std::isinf(sx) || std::isinf(sxx)) && !std::isinf(t[1]) && !std::isinf(x)) ||
          ((std::isinf(sy) || std::isinf(syy)) && !std::isinf(t[3]) && !std::isinf(y)) ||
          (std::isinf(sxy) && !std::isinf(t[1]) && !std::isinf(x) && !std::isinf(t[3]) &&
           !std::isinf(y))) {
        return Float8Overflow();
      }
      if (std::isinf(sxx)) sxx = std::nan("");
      if (std::isinf(syy)) syy = std::nan("");
      if (std::isinf(sxy)) sxy = std::nan("");
    }
  } else {
    if (std::isnan(x) || std::isinf(x)) sxx = sxy = std::nan("");
    if (std::isnan(y) || std::isinf(y)) syy = sxy = std::nan("");
  }
  *out = Float8Array({n, sx, sxx, sy, syy, sxy});
  return Status::OK();
}

Status Float8RegrCombine(const SqlType&, const Value* a, size_t, Value* out) {
  SLUICE_ASSIGN_OR_RETURN(std::vector<double> p, Float8State(a[0], 6, "float8_regr_combine"));
  SLUICE_ASSIGN_OR_RETURN(std::vector<double> q, Float8State(a[1], 6, "float8_regr_combine"));
  if (p[0] == 0.0 || q[0] == 0.0) {
    *out = Float8Array(p[0] == 0.0 ? q : p);
    return Status::OK();
  }
  const double n = p[0] + q[0];
  const double sx = p[1] + q[1];
  const double t1 = p[1] / p[0] - q[1] / q[0];
  const double sxx = p[2] + q[2] + p[0] * q[0] * t1 * t1 / n;
  const double sy = p[3] + q[3];
  const double t2 = p[3] / p[0] - q[3] / q[0];
  const double syy = p[4] + q[4] + p[0] * q[0] * t2 * t2 / n;
  const double sxy = p[5] + q[5] + p[0] * q[0] * t1 * t2 / n;
  if ((std::isinf(sx) && !std::isinf(p[1]) && !std::isinf(q[1])) ||
      (std::isinf(sxx) && !std::isinf(p[2]) && !std::isinf(q[2])) ||
      (std::isinf(sy) && !std::isinf(p[3]) && !std::isinf(q[3])) ||
      (std::isinf(syy) && !std::isinf(p[4]) && !std::isinf(q[4])) ||
      (std::isinf(sxy) && !std::isinf(p[5]) && !std::isinf(q[5]))) {
    return Float8Overflow();
  }
  *out = Float8Array({n, sx, sxx, sy, syy, sxy});
  return Status::OK();
}

// mode()'s last step, over the group's values in their ORDER BY (NULLs
// left out): the value of the longest run of equal values, the first such
// run on ties, as PostgreSQL's mode_final; NULL over none.
Status ArrayMode(const SqlType&, const Value* a, size_t, Value* out) {
  const auto& items = a[0].list();
  *out = Value::Null();
  size_t best = 0;
  for (size_t i = 0; i < items.size();) {
    size_t j = i + 1;
    while (j < items.size() && CompareValues(items[j], items[i]) == 0) ++j;
    if (j - i > best) {
      best = j - i;
      *out = items[i];
    }
    i = j;
  }
  return Status::OK();
}

// array_upper(a, d): the last subscript of dimension d, NULL for an empty
// array or a dimension it does not have.
template <bool kSubArrays>
Status ArrayUpper(const SqlType&, const Value* a, size_t, Value* out) {
  const std::vector<int64_t> dims = DimsOf<kSubArrays>(a[0]);
  const int64_t d = a[1].int_value();
  *out = d >= 1 && d <= static_cast<int64_t>(dims.size())
             ? Value::Int(LowerBound(a[0], static_cast<size_t>(d - 1)) +
                          dims[static_cast<size_t>(d - 1)] - 1)
             : Value::Null();
  return Status::OK();
}

// generate_subscripts(a, d [, reverse]): the subscripts of dimension d,
// first to last (last to first if reverse), as an array for unnest; none
// for a dimension the array does not have.
template <bool kSubArrays>
Status GenerateSubscripts(const SqlType&, const Value* a, size_t n, Value* out) {
  const std::vector<int64_t> dims = DimsOf<kSubArrays>(a[0]);
  const int64_t d = a[1].int_value();
  std::vector<Value> subscripts;
  if (d >= 1 && d <= static_cast<int64_t>(dims.size())) {
    const int64_t lo = LowerBound(a[0], static_cast<size_t>(d - 1));
    const int64_t len = dims[static_cast<size_t>(d - 1)];
    const bool reverse = n > 2 && !a[2].is_null() && a[2].bool_value();
    for (int64_t i = 0; i < len; ++i)
      subscripts.push_back(Value::Int(reverse ? lo + len - 1 - i : lo + i));
  }
  *out = Value::List(std::move(subscripts));
  return Status::OK();
}

constexpr size_t kMaxSeriesRows = 10000000;

Status TooManySeriesRows() {
  return Status::InvalidArgument("generate_series() of more than 10000000 rows");
}

// generate_series(start, stop [, step]) of NUMERIC, for a call over columns:
// its rows as an array. As PostgreSQL's, the first value has the start's
// scale and the others the larger of the start's and the step's.
Status NumericSeries(const SqlType&, const Value* a, size_t n, Value* out) {
  for (size_t i = 0; i < n; ++i) {
    if (a[i].decimal_is_special()) {
      return Status::InvalidArgument(a[i].decimal_special() == DecimalSpecial::kNaN
                                         ? "generate_series of numeric NaN is not allowed"
                                         : "generate_series of numeric infinity is not allowed");
    }
    if (a[i].decimal_wide() != nullptr) {
      return Status::Unimplemented(
          "generate_series of numeric values of more than 38 digits is not supported yet");
    }
  }
  const int start_scale = a[0].decimal_scale();
  const int scale = std::max(start_scale, n == 3 ? a[2].decimal_scale() : 0);
  auto at = [&](const Value& v, int128* u) {
    return !__builtin_mul_overflow(v.decimal_unscaled(), Pow10(scale - v.decimal_scale()), u);
  };
  int128 cur, stop, step = Pow10(scale);
  if (!at(a[0], &cur) || !at(a[1], &stop) || (n == 3 && !at(a[2], &step))) {
    return Status::Unimplemented(
        "generate_series of numeric values of more than 38 digits is not supported yet");
  }
  if (step == 0) return Status::InvalidArgument("step size cannot equal zero");
  std::vector<Value> rows;
  for (bool first = true; step > 0 ? cur <= stop : cur >= stop; first = false) {
    if (rows.size() >= kMaxSeriesRows) return TooManySeriesRows();
    rows.push_back(first && start_scale < scale
                       ? Value::Decimal(cur / Pow10(scale - start_scale), start_scale)
                       : Value::Decimal(cur, scale));
    if (__builtin_add_overflow(cur, step, &cur)) break;
  }
  *out = Value::List(std::move(rows));
  return Status::OK();
}

// generate_series(start, stop, step) of TIMESTAMP by an INTERVAL, for a call
// over columns: each row the previous one plus the step, as PostgreSQL adds.
Status TimestampSeries(const SqlType&, const Value* a, size_t, Value* out) {
  const Interval& step = a[2].interval_value();
  if (step.months == 0 && step.days == 0 && step.micros == 0)
    return Status::InvalidArgument("step size cannot equal zero");
  const bool up = step.months > 0 || step.days > 0 || step.micros > 0;
  const int64_t stop = a[1].int_value();
  std::vector<Value> rows;
  for (int64_t cur = a[0].int_value(); up ? cur <= stop : cur >= stop;) {
    if (rows.size() >= kMaxSeriesRows) return TooManySeriesRows();
    rows.push_back(Value::Int(cur));
    if (!AddInterval(cur, step, 1, &cur)) break;
  }
  *out = Value::List(std::move(rows));
  return Status::OK();
}

// array_length(a, d): the length of dimension d, NULL for an empty array
// or a dimension it does not have.
template <bool kSubArrays>
Status ArrayLength(const SqlType&, const Value* a, size_t, Value* out) {
  const std::vector<int64_t> dims = DimsOf<kSubArrays>(a[0]);
  const int64_t d = a[1].int_value();
  *out = d >= 1 && d <= static_cast<int64_t>(dims.size())
             ? Value::Int(dims[static_cast<size_t>(d - 1)])
             : Value::Null();
  return Status::OK();
}

// array_lower(a, d): the first subscript of dimension d.
template <bool kSubArrays>
Status ArrayLower(const SqlType&, const Value* a, size_t, Value* out) {
  const int64_t d = a[1].int_value();
  *out = d >= 1 && d <= static_cast<int64_t>(DimsOf<kSubArrays>(a[0]).size())
             ? Value::Int(LowerBound(a[0], static_cast<size_t>(d - 1)))
             : Value::Null();
  return Status::OK();
}

// array_ndims(a): NULL for an empty array.
template <bool kSubArrays>
Status ArrayNdims(const SqlType&, const Value* a, size_t, Value* out) {
  const size_t n = DimsOf<kSubArrays>(a[0]).size();
  *out = n == 0 ? Value::Null() : Value::Int(static_cast<int64_t>(n));
  return Status::OK();
}

// array_dims(a): "[1:2][1:3]", NULL for an empty array.
template <bool kSubArrays>
Status ArrayDimsText(const SqlType&, const Value* a, size_t, Value* out) {
  const std::vector<int64_t> dims = DimsOf<kSubArrays>(a[0]);
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t lo = LowerBound(a[0], i);
    s += "[" + std::to_string(lo) + ":" + std::to_string(lo + dims[i] - 1) + "]";
  }
  *out = dims.empty() ? Value::Null() : Value::String(std::move(s));
  return Status::OK();
}

void Flatten(const Value& v, std::vector<const Value*>* out);

// IS NOT DISTINCT FROM, of two values of one type.
bool NotDistinct(const Value& x, const Value& y) {
  if (x.is_null() || y.is_null()) return x.is_null() && y.is_null();
  return CompareValues(x, y) == 0;
}

// Of an array whose type holds sub-arrays (kFlat: the type's elements are
// no rows or arrays, whose lists are no dimensions).
template <bool kFlat>
Status OneDimension(const Value& a, const char* what) {
  if (kFlat && ArrayDims(a).size() > 1) {
    return Status::InvalidArgument(std::string(what) + " multidimensional arrays is not supported");
  }
  return Status::OK();
}

// array_remove(a, x): a without the elements not distinct from x.
template <bool kFlat>
Status ArrayRemove(const SqlType&, const Value* a, size_t, Value* out) {
  if (a[0].is_null()) {
    *out = Value::Null();
    return Status::OK();
  }
  SLUICE_RETURN_IF_ERROR(OneDimension<kFlat>(a[0], "removing elements from"));
  std::vector<Value> items;
  for (const Value& x : a[0].list()) {
    if (!NotDistinct(x, a[1])) items.push_back(x);
  }
  *out = Value::List(std::move(items));
  return Status::OK();
}

// array_replace(a, x, y): a with y for each element not distinct from x.
Value Replace(const Value& v, const Value& x, const Value& y) {
  if (v.kind() != Value::Kind::kList) return NotDistinct(v, x) ? y : v;
  std::vector<Value> items;
  for (const Value& e : v.list()) items.push_back(Replace(e, x, y));
  return Value::List(std::move(items));
}
Status ArrayReplace(const SqlType&, const Value* a, size_t, Value* out) {
  *out = a[0].is_null() ? Value::Null() : Replace(a[0], a[1], a[2]);
  return Status::OK();
}

// array_positions(a, x): the one-based positions of the elements not
// distinct from x.
template <bool kFlat>
Status ArrayPositions(const SqlType&, const Value* a, size_t, Value* out) {
  if (a[0].is_null()) {
    *out = Value::Null();
    return Status::OK();
  }
  SLUICE_RETURN_IF_ERROR(OneDimension<kFlat>(a[0], "searching for elements in"));
  std::vector<Value> at;
  const std::vector<Value>& items = a[0].list();
  for (size_t i = 0; i < items.size(); ++i) {
    if (NotDistinct(items[i], a[1])) {
      at.push_back(Value::Int(static_cast<int64_t>(i) + LowerBound(a[0], 0)));
    }
  }
  *out = Value::List(std::move(at));
  return Status::OK();
}

// array_to_string(a, sep [, null text]): the elements' text (of every
// dimension), joined; NULLs are left out, or written as the null text.
Status ArrayToString(const SqlType&, const Value* a, size_t n, Value* out) {
  if (a[0].is_null() || a[1].is_null()) {
    *out = Value::Null();
    return Status::OK();
  }
  std::vector<const Value*> items;
  Flatten(a[0], &items);
  const bool show_null = n == 3 && !a[2].is_null();
  std::string s;
  bool first = true;
  for (const Value* x : items) {
    if (x->is_null() && !show_null) continue;
    if (!first) s += a[1].string_value();
    first = false;
    s += x->is_null() ? a[2].string_value() : x->string_value();
  }
  *out = Value::String(std::move(s));
  return Status::OK();
}

// array_position(a, x): the first one-based position of x, or NULL.
// array_position(a, x [, start]): the first subscript, from start on, of
// an element not distinct from x (NULL finds NULL), or NULL.
template <bool kFlat>
Status ArrayPosition(const SqlType&, const Value* a, size_t n, Value* out) {
  if (a[0].is_null()) {
    *out = Value::Null();
    return Status::OK();
  }
  if (n == 3 && a[2].is_null()) return Status::InvalidArgument("initial position must not be null");
  SLUICE_RETURN_IF_ERROR(OneDimension<kFlat>(a[0], "searching for elements in"));
  const std::vector<Value>& items = a[0].list();
  const int64_t lb = LowerBound(a[0], 0);
  const int64_t from = n == 3 ? std::max<int64_t>(a[2].int_value() - lb, 0) : 0;
  for (size_t i = static_cast<size_t>(from); i < items.size(); ++i) {
    if (NotDistinct(items[i], a[1])) {
      *out = Value::Int(static_cast<int64_t>(i) + lb);
      return Status::OK();
    }
  }
  *out = Value::Null();
  return Status::OK();
}

// Every element of a multidimensional array, in order.
void Flatten(const Value& v, std::vector<const Value*>* out) {
  for (const Value& x : v.list()) {
    if (!x.is_null() && x.kind() == Value::Kind::kList) {
      Flatten(x, out);
    } else {
      out->push_back(&x);
    }
  }
}

// Whether every element of b equals an element of a (a NULL element
// equals nothing), as PostgreSQL's a @> b; array dimensions are ignored.
bool Contains(const Value& a, const Value& b) {
  std::vector<const Value*> as, bs;
  Flatten(a, &as);
  Flatten(b, &bs);
  for (const Value* y : bs) {
    if (y->is_null()) return false;
    bool found = false;
    for (const Value* x : as) {
      if (!x->is_null() && CompareValues(*x, *y) == 0) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

Status ArrayContains(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(Contains(a[0], a[1]));
  return Status::OK();
}

Status ArrayContainedBy(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(Contains(a[1], a[0]));
  return Status::OK();
}

// a && b: an element (not NULL) in both.
Status ArrayOverlaps(const SqlType&, const Value* a, size_t, Value* out) {
  std::vector<const Value*> as, bs;
  Flatten(a[0], &as);
  Flatten(a[1], &bs);
  for (const Value* x : as) {
    if (x->is_null()) continue;
    for (const Value* y : bs) {
      if (!y->is_null() && CompareValues(*x, *y) == 0) {
        *out = Value::Bool(true);
        return Status::OK();
      }
    }
  }
  *out = Value::Bool(false);
  return Status::OK();
}

Status OneDimensionOrEmpty(const SqlType& type, const Value& a) {
  if (ArrayHoldsSubArrays(type) && !a.is_null() && ArrayDims(a).size() > 1) {
    return Status::InvalidArgument("argument must be empty or one-dimensional array");
  }
  return Status::OK();
}

// a || b (array_cat): the elements of both; a NULL side adds none, as in
// PostgreSQL (NULL only if both are).
Status ArrayCat(const SqlType& type, const Value* a, size_t, Value* out) {
  if (a[0].is_null() && a[1].is_null()) {
    *out = Value::Null();
    return Status::OK();
  }
  if (!ArrayHoldsSubArrays(type)) {  // arrays of rows: the rows of both
    std::vector<Value> items;
    for (int i = 0; i < 2; ++i) {
      if (!a[i].is_null()) items.insert(items.end(), a[i].list().begin(), a[i].list().end());
    }
    *out = Value::List(std::move(items));
    return Status::OK();
  }
  // Of arrays of N and N - 1 dimensions, the smaller is one more item of
  // the larger, first or last, whose lower bounds the result keeps; of as
  // many dimensions, the items of both follow each other, with the first's
  // bounds. The dimensions below must match in lengths and bounds. An empty
  // (or NULL) side adds nothing.
  const size_t d0 = a[0].is_null() ? 0 : ArrayDims(a[0]).size();
  const size_t d1 = a[1].is_null() ? 0 : ArrayDims(a[1]).size();
  if (d0 == 0 || d1 == 0) {
    *out = d0 == 0 && !a[1].is_null() ? a[1] : a[0];
    return Status::OK();
  }
  auto bounds = [](const Value& v, size_t n) {
    std::vector<int32_t> b(n, 1);
    for (size_t i = 0; i < n && i < v.lower_bounds().size(); ++i) b[i] = v.lower_bounds()[i];
    return b;
  };
  const std::vector<int32_t> l0 = bounds(a[0], d0), l1 = bounds(a[1], d1);
  const Status incompatible = Status::InvalidArgument("cannot concatenate incompatible arrays");
  std::vector<Value> items;
  std::vector<int32_t> lower;
  if (d0 == d1 + 1) {
    if (!std::equal(l1.begin(), l1.end(), l0.begin() + 1)) return incompatible;
    items = a[0].list();
    items.push_back(Value::List(a[1].list()));
    lower = l0;
  } else if (d1 == d0 + 1) {
    if (!std::equal(l0.begin(), l0.end(), l1.begin() + 1)) return incompatible;
    items.push_back(Value::List(a[0].list()));
    items.insert(items.end(), a[1].list().begin(), a[1].list().end());
    lower = l1;
  } else if (d0 == d1) {
    if (!std::equal(l0.begin() + 1, l0.end(), l1.begin() + 1)) return incompatible;
    items = a[0].list();
    items.insert(items.end(), a[1].list().begin(), a[1].list().end());
    lower = l0;
  } else {
    return incompatible;
  }
  Value v = Value::BoundedList(std::move(items), std::move(lower));
  if (!IsRectangular(v)) return incompatible;
  *out = std::move(v);
  return Status::OK();
}

// x || a (array_prepend): x before a's elements; NULL x is an element too.
Status ArrayPrepend(const SqlType& type, const Value* a, size_t, Value* out) {
  SLUICE_RETURN_IF_ERROR(OneDimensionOrEmpty(type, a[1]));
  std::vector<Value> items{a[0]};
  if (!a[1].is_null()) items.insert(items.end(), a[1].list().begin(), a[1].list().end());
  // The first subscript stays: x takes it, as in PostgreSQL.
  *out = Value::BoundedList(std::move(items),
                            a[1].is_null() ? std::vector<int32_t>() : a[1].lower_bounds());
  return Status::OK();
}

// a || x (array_append): x after a's elements; NULL x is an element too.
Status ArrayAppend(const SqlType& type, const Value* a, size_t, Value* out) {
  SLUICE_RETURN_IF_ERROR(OneDimensionOrEmpty(type, a[0]));
  std::vector<Value> items;
  if (!a[0].is_null()) items = a[0].list();
  items.push_back(a[1]);
  *out = Value::BoundedList(std::move(items),
                            a[0].is_null() ? std::vector<int32_t>() : a[0].lower_bounds());
  return Status::OK();
}

// x = ANY (a), as any=(a, x): true if a holds x, else NULL if a holds a
// NULL, else false (SQL's three-valued logic, as PostgreSQL's).
Status ArrayHolds(const SqlType&, const Value* a, size_t, Value* out) {
  bool null = false;
  // The elements of every dimension, when x is no list itself (a row, or
  // an array in an array of arrays).
  std::vector<const Value*> items;
  if (a[1].kind() == Value::Kind::kList) {
    for (const Value& x : a[0].list()) items.push_back(&x);
  } else {
    Flatten(a[0], &items);
  }
  for (const Value* x : items) {
    const Value& item = *x;
    if (item.is_null()) {
      null = true;
    } else if (CompareValues(item, a[1]) == 0) {
      *out = Value::Bool(true);
      return Status::OK();
    }
  }
  *out = null ? Value::Null() : Value::Bool(false);
  return Status::OK();
}

// Array type `array` (of any dimensions) with innermost element type `t`.
SqlType WithInnermost(const SqlType& array, const SqlType& t) {
  if (array.id() != TypeId::kArray) return t;
  return SqlType::Array(WithInnermost(array.children()[0], t));
}

}  // namespace

bool ResolveArraySet(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r) {
  if (name == "generate_series" && (args.size() == 2 || args.size() == 3)) {
    auto decimal = [&](const SqlType& t) { return t.IsInteger() || t.id() == TypeId::kDecimal; };
    auto time = [&](const SqlType& t) {
      return t.id() == TypeId::kTimestamp || t.id() == TypeId::kDate || t.IsString();
    };
    if (std::all_of(args.begin(), args.end(), decimal)) {
      const std::vector<SqlType> types(args.size(), SqlType::Numeric());
      return Resolve(r, NumericSeries, "generate_series", SqlType::Array(SqlType::Numeric(false)),
                     types);
    }
    if (args.size() == 3 && time(args[0]) && time(args[1]) &&
        (args[2].id() == TypeId::kInterval || args[2].IsString()) &&
        !(args[0].IsString() && args[1].IsString())) {
      return Resolve(r, TimestampSeries, "generate_series",
                     SqlType::Array(SqlType::Timestamp(false)),
                     {SqlType::Timestamp(), SqlType::Timestamp(), SqlType::Interval()});
    }
    return false;
  }
  if (name != "generate_subscripts" || args.size() < 2 || args.size() > 3 ||
      args[0].id() != TypeId::kArray || !args[1].IsInteger() ||
      (args.size() == 3 && args[2].id() != TypeId::kBoolean)) {
    return false;
  }
  r->fn = ArrayHoldsSubArrays(args[0]) ? GenerateSubscripts<true> : GenerateSubscripts<false>;
  r->name = "generate_subscripts";
  r->result = SqlType::Array(SqlType::Integer(false));
  r->arg_types = {args[0], SqlType::BigInt()};
  if (args.size() == 3) r->arg_types.push_back(SqlType::Boolean());
  return true;
}

bool ResolveArray(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r) {
  if (name == "array_fill" && (args.size() == 2 || args.size() == 3) &&
      args[0].id() != TypeId::kArray && args[0].id() != TypeId::kRow &&
      args[0].id() != TypeId::kVariant) {
    const SqlType ints = SqlType::Array(SqlType::Integer());
    for (size_t i = 1; i < args.size(); ++i) {
      // Integer arrays, or their text ('{2,3}', an untyped constant).
      if (args[i].IsString()) continue;
      if (args[i].id() != TypeId::kArray || !args[i].children()[0].IsInteger()) return false;
    }
    std::vector<SqlType> types{args[0].WithNullable(true), ints};
    if (args.size() == 3) types.push_back(ints);
    Resolve(r, ArrayFill, "array_fill", SqlType::Array(args[0].WithNullable(true), false), types);
    r->strict = false;  // a NULL element fills the array; NULL lengths are an error
    return true;
  }
  if ((name == "||" || name == "array_prepend") && args.size() == 2 &&
      args[0].id() != TypeId::kArray &&
      (ArrayHoldsSubArrays(args[1]) ||
       (args[0].id() == TypeId::kRow && args[1].id() == TypeId::kArray &&
        args[1].children()[0].id() == TypeId::kRow))) {
    auto t = CommonType(args[0], args[1].children()[0]);
    if (!t.ok()) return false;
    const SqlType a = SqlType::Array(t->WithNullable(true));
    Resolve(r, ArrayPrepend, "array_prepend", a, {*t, a});
    r->strict = false;
    return true;
  }
  if ((name == "array_positions" || name == "array_position") && args.size() >= 2 &&
      args[0].IsString() && args[1].id() != TypeId::kArray) {
    // array_positions(NULL, 10): an untyped constant is the array of the
    // element's type, as PostgreSQL resolves it.
    std::vector<SqlType> as = args;
    as[0] = SqlType::Array(args[1].WithNullable(true));
    return ResolveArray(name, as, r);
  }
  if (name == "width_bucket" && args.size() == 2 && args[0].id() != TypeId::kArray &&
      (ArrayHoldsSubArrays(args[1]) || args[1].IsString())) {
    // width_bucket(x, '{1,5}'): an untyped constant is an array of x's type.
    auto t =
        args[1].IsString() ? Result<SqlType>(args[0]) : CommonType(args[0], args[1].children()[0]);
    if (!t.ok()) return false;
    return Resolve(r, WidthBucketArray, "width_bucket", SqlType::Integer(),
                   {t->WithNullable(true), SqlType::Array(t->WithNullable(true))});
  }
  if (args.empty() || args[0].id() != TypeId::kArray) return false;
  if (args[0].IsPgArrayKind()) {
    // int2vector, oidvector and point subscripted from 0; a vector is
    // otherwise the array of its elements (PostgreSQL casts it to one),
    // a point no array at all.
    if (name == "[]" && args.size() == 2 && args[1].IsInteger()) {
      Resolve(r, SubscriptDims, "[]", args[0].children()[0].WithNullable(true),
              {args[0].WithNullable(true), SqlType::BigInt()});
      r->strict = false;  // a NULL subscript picks nothing
      return true;
    }
    if (args[0].pg_kind() == PgKind::kPoint && name == "sluice_array_assign" && args.size() >= 3 &&
        (IsNumeric(args[1]) || args[1].IsString())) {
      std::vector<SqlType> types{args[0].WithNullable(true), SqlType::Double()};
      for (size_t i = 2; i < args.size(); ++i) {
        if (!args[i].IsInteger()) return false;
        types.push_back(SqlType::BigInt());
      }
      Resolve(r, PointAssign, "array assignment", args[0].WithNullable(true), types);
      r->strict = false;
      return true;
    }
    if (args[0].pg_kind() == PgKind::kPoint) return false;
    std::vector<SqlType> plain = args;
    plain[0] = SqlType::Array(args[0].children()[0]);
    return ResolveArray(name, plain, r);
  }
  const SqlType elem = args[0].children()[0];
  const SqlType doubles = SqlType::Array(SqlType::Double());
  auto number = [&](size_t i) {
    return i < args.size() && (IsNumeric(args[i]) || args[i].IsString());
  };
  if (name == "float8_accum" && args.size() == 2 && number(1))
    return Resolve(r, Float8Accum, "float8_accum", doubles, {doubles, SqlType::Double()});
  if (name == "float8_regr_accum" && args.size() == 3 && number(1) && number(2)) {
    return Resolve(r, Float8RegrAccum, "float8_regr_accum", doubles,
                   {doubles, SqlType::Double(), SqlType::Double()});
  }
  if ((name == "float8_combine" || name == "float8_regr_combine") && args.size() == 2 &&
      args[1].id() == TypeId::kArray) {
    return Resolve(r, name == "float8_combine" ? Float8Combine : Float8RegrCombine,
                   name == "float8_combine" ? "float8_combine" : "float8_regr_combine", doubles,
                   {doubles, doubles});
  }
  if (name == "trim_array" && args.size() == 2 && args[1].IsInteger()) {
    return Resolve(r, TrimArray, "trim_array", args[0].WithNullable(true),
                   {args[0].WithNullable(true), SqlType::BigInt()});
  }
  const SqlType array = args[0].WithNullable(true);
  // `head`, then a BIGINT for each argument from `from` on (subscripts and
  // bounds); false if one of them is not an integer.
  auto subscripts = [&](size_t from, std::vector<SqlType>* head) {
    for (size_t i = from; i < args.size(); ++i) {
      if (!args[i].IsInteger()) return false;
      head->push_back(SqlType::BigInt());
    }
    return true;
  };
  if (name == "[]" && args.size() >= 2 && ArrayHoldsSubArrays(array)) {
    std::vector<SqlType> types{array};
    if (!subscripts(1, &types)) return false;
    Resolve(r, SubscriptDims, "[]", elem.WithNullable(true), types);
    r->strict = false;  // a NULL subscript picks nothing
    return true;
  }
  if (name == "[:]" && args.size() >= 4 && args.size() % 2 == 0 &&
      (args.size() == 4 || ArrayHoldsSubArrays(array))) {
    std::vector<SqlType> types{array};
    if (!subscripts(1, &types)) return false;
    return Resolve(r, ArraySlice, "array_slice", array, types);
  }
  if (name == "[]" && args.size() == 2 && args[1].IsInteger()) {
    r->fn = Subscript;
    r->name = "[]";
    r->result = elem.WithNullable(true);
    r->arg_types = {array, SqlType::BigInt()};
    return true;
  }
  if (name == "sluice_array_assign" && args.size() >= 3) {
    std::vector<SqlType> types{array, args[1].WithNullable(true)};
    if (!subscripts(2, &types)) return false;
    Resolve(r, ArrayAssign, "array assignment", array, types);
    r->strict = false;
    return true;
  }
  if (name == "sluice_array_assign_slice" && args.size() >= 5 && args.size() % 2 == 1) {
    std::vector<SqlType> types{array, array};
    if (!subscripts(2, &types)) return false;
    Resolve(r, ArrayAssignSlice, "array slice assignment", array, types);
    r->strict = false;
    return true;
  }
  if (name == "sluice_array_mode" && args.size() == 1) {
    r->fn = ArrayMode;
    r->name = "mode";
    r->result = elem.WithNullable(true);
    r->arg_types = {array};
    return true;
  }
  if (name == "cardinality" && args.size() == 1) {
    r->fn = ArrayHoldsSubArrays(array) ? Cardinality<true> : Cardinality<false>;
    r->name = "cardinality";
    r->result = SqlType::Integer();
    r->arg_types = {array};
    return true;
  }
  if (name == "array_length" && args.size() == 2 && args[1].IsInteger()) {
    r->fn = ArrayHoldsSubArrays(array) ? ArrayLength<true> : ArrayLength<false>;
    r->name = "array_length";
    r->result = SqlType::Integer();
    r->arg_types = {array, SqlType::BigInt()};
    return true;
  }
  if (name == "array_upper" && args.size() == 2 && args[1].IsInteger())
    return Resolve(r, ArrayHoldsSubArrays(array) ? ArrayUpper<true> : ArrayUpper<false>,
                   "array_upper", SqlType::Integer(), {array, SqlType::BigInt()});
  if (name == "array_lower" && args.size() == 2 && args[1].IsInteger())
    return Resolve(r, ArrayHoldsSubArrays(array) ? ArrayLower<true> : ArrayLower<false>,
                   "array_lower", SqlType::Integer(), {array, SqlType::BigInt()});
  if (name == "array_ndims" && args.size() == 1)
    return Resolve(r, ArrayHoldsSubArrays(array) ? ArrayNdims<true> : ArrayNdims<false>,
                   "array_ndims", SqlType::Integer(), {array});
  if (name == "array_dims" && args.size() == 1)
    return Resolve(r, ArrayHoldsSubArrays(array) ? ArrayDimsText<true> : ArrayDimsText<false>,
                   "array_dims", SqlType::Varchar(), {array});
  // The separator and NULL text are text (a NULL constant among them too).
  auto scalar = [](const SqlType& t) {
    return t.id() != TypeId::kArray && t.id() != TypeId::kRow && t.id() != TypeId::kMap;
  };
  if (name == "array_to_string" && (args.size() == 2 || args.size() == 3) && scalar(args[1]) &&
      (args.size() == 2 || scalar(args[2]))) {
    // Elements become text first, as PostgreSQL prints them.
    Resolve(r, ArrayToString, "array_to_string", SqlType::Varchar(),
            std::vector<SqlType>(args.size(), SqlType::Varchar()));
    r->arg_types[0] = WithInnermost(args[0], SqlType::Varchar());
    r->strict = false;  // a NULL null text is none
    return true;
  }
  if (name == "||" && args.size() == 2) {
    const bool both = args[1].id() == TypeId::kArray;
    auto t = CommonType(elem, both ? args[1].children()[0] : args[1]);
    if (!t.ok()) return false;
    const SqlType a = SqlType::Array(t->WithNullable(true));
    r->fn = both ? ArrayCat : ArrayAppend;
    r->name = both ? "array_cat" : "array_append";
    r->result = a;
    r->arg_types = {a, both ? a : *t};
    r->strict = false;
    return true;
  }
  if (name == "any=" && args.size() == 2) {
    auto t = CommonType(elem, args[1]);
    if (!t.ok()) return false;
    r->fn = ArrayHolds;
    r->name = "= ANY";
    r->result = SqlType::Boolean();
    r->arg_types = {SqlType::Array(*t), *t};
    return true;
  }
  if ((name == "@>" || name == "<@" || name == "&&") && args.size() == 2 &&
      args[1].id() == TypeId::kArray) {
    // The innermost element types, in common (arrays of any dimensions).
    const SqlType* x = &args[0];
    const SqlType* y = &args[1];
    while (x->id() == TypeId::kArray) x = &x->children()[0];
    while (y->id() == TypeId::kArray) y = &y->children()[0];
    // As PostgreSQL's anyarray operators: one element type on both sides.
    if (x->WithNullable(true) != y->WithNullable(true)) return false;
    const SqlType* t = x;
    r->fn = name == "@>" ? ArrayContains : name == "<@" ? ArrayContainedBy : ArrayOverlaps;
    r->name = name == "@>" ? "@>" : name == "<@" ? "<@" : "&&";
    r->result = SqlType::Boolean();
    auto rewrap = [&](const SqlType& array) {
      int depth = 0;
      for (const SqlType* e = &array; e->id() == TypeId::kArray; e = &e->children()[0]) ++depth;
      SqlType out = *t;
      for (int i = 0; i < depth; ++i) out = SqlType::Array(out);
      return out;
    };
    r->arg_types = {rewrap(args[0]), rewrap(args[1])};
    return true;
  }
  if ((name == "array_remove" || name == "array_positions") && args.size() == 2) {
    auto t = CommonType(elem, args[1]);
    if (!t.ok()) return false;
    const bool remove = name == "array_remove";
    const bool flat = ArrayHoldsSubArrays(array);
    Resolve(r,
            remove ? (flat ? ArrayRemove<true> : ArrayRemove<false>)
                   : (flat ? ArrayPositions<true> : ArrayPositions<false>),
            remove ? "array_remove" : "array_positions",
            remove ? WithInnermost(args[0], *t) : SqlType::Array(SqlType::Integer()),
            {WithInnermost(args[0], *t), *t});
    r->strict = false;  // NULL is an element to look for
    return true;
  }
  if (name == "array_replace" && args.size() == 3) {
    const SqlType* inner = &args[0];
    while (inner->id() == TypeId::kArray) inner = &inner->children()[0];
    auto t = CommonType(*inner, args[1]);
    if (!t.ok()) return false;
    auto u = CommonType(*t, args[2]);
    if (!u.ok()) return false;
    Resolve(r, ArrayReplace, "array_replace", WithInnermost(args[0], *u),
            {WithInnermost(args[0], *u), *u, *u});
    r->strict = false;
    return true;
  }
  if (name == "array_position" && (args.size() == 2 || (args.size() == 3 && args[2].IsInteger()))) {
    auto t = CommonType(elem, args[1]);
    if (!t.ok()) return false;
    std::vector<SqlType> types{SqlType::Array(*t), *t};
    if (args.size() == 3) types.push_back(SqlType::Integer());
    Resolve(r, ArrayHoldsSubArrays(array) ? ArrayPosition<true> : ArrayPosition<false>,
            "array_position", SqlType::Integer(), types);
    r->strict = false;  // NULL is an element to look for
    return true;
  }
  if ((name == "array_append" || name == "array_prepend" || name == "array_cat") &&
      args.size() == 2) {
    // The functions behind ||, by their names.
    const bool cat = name == "array_cat";
    const bool prepend = name == "array_prepend";
    if (cat != (args[1].id() == TypeId::kArray)) return false;
    if (prepend) return false;  // its array is the second argument (above)
    if (!ResolveArray("||", args, r)) return false;
    r->name = cat ? "array_cat" : "array_append";
    return true;
  }
  return false;
}

}  // namespace sluice::sql
