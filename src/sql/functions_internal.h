// Families of scalar functions, each resolved on its own; ResolveFunction
// (functions.h) asks each in turn.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sql/functions.h"
#include "types/big_decimal.h"

namespace sluice::sql {

// The few most recently used results of a costly step from a key (a
// compiled regular expression, a parsed path), for a thread to keep:
// Find moves a hit to the front; Add puts a new one there and forgets the
// least recently used when full.
template <typename Key, typename V, size_t kSize = 8>
class RecentlyUsed {
 public:
  V* Find(const Key& key) {
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].first == key) {
        std::rotate(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(i),
                    entries_.begin() + static_cast<std::ptrdiff_t>(i + 1));
        return &entries_[0].second;
      }
    }
    return nullptr;
  }
  V* Add(Key key, V value) {
    if (entries_.size() == kSize) entries_.pop_back();
    entries_.insert(entries_.begin(), {std::move(key), std::move(value)});
    return &entries_[0].second;
  }

 private:
  std::vector<std::pair<Key, V>> entries_;
};

// Fills `r` with function `fn`, called `name`, of `result` type, that takes
// `arg_types`; returns true, so that a resolver can `return Resolve(...)`.
inline bool Resolve(ResolvedFn* r, ScalarFn fn, const char* name, SqlType result,
                    std::vector<SqlType> arg_types) {
  r->fn = fn;
  r->name = name;
  r->result = std::move(result);
  r->arg_types = std::move(arg_types);
  return true;
}

// PostgreSQL's result would have more digits than an int128 holds.
inline Status DecOverflow() {
  return Status::Unimplemented("numeric results of more than 38 digits are not supported yet");
}
// Of a decimal: whether it is NaN; +1 for Infinity, -1 for -Infinity, 0
// otherwise; the sign of a finite one.
inline bool IsNaN(const Value& v) { return v.decimal_special() == DecimalSpecial::kNaN; }
inline int InfSign(const Value& v) {
  return v.decimal_special() == DecimalSpecial::kPosInf   ? 1
         : v.decimal_special() == DecimalSpecial::kNegInf ? -1
                                                          : 0;
}
inline int FiniteSign(const Value& v) {
  if (v.decimal_wide() != nullptr) return v.decimal_wide()->sign();
  return v.decimal_unscaled() > 0 ? 1 : v.decimal_unscaled() < 0 ? -1 : 0;
}

// Rescales the decimal `*u` at `*scale` up to `to` digits after the point
// when it has fewer and the result fits 38 digits (round(1.5, 3) and
// trunc(1.5, 3) are 1.500, as in PostgreSQL).
inline void WidenDecimalScale(int to, int128* u, int* scale) {
  if (to <= *scale) return;
  bool overflow = false;
  const int128 v = RescaleDecimal(*u, *scale, to, &overflow);
  if (!overflow && v < Pow10(kMaxDecimalDigits) && v > -Pow10(kMaxDecimalDigits)) {
    *u = v;
    *scale = to;
  }
}

// round(v, to) or trunc(v, to) of a finite decimal in arbitrary precision,
// PostgreSQL's numeric_round and numeric_trunc: `to` may be negative (then
// the result has scale 0), and is clamped as there.
Status RoundOrTruncBig(const Value& v, int64_t to, bool trunc, Value* out);

// PostgreSQL's checks on a float result `d` of type `t` (float.h's
// float8_mul and kin), into `out`: an infinity from finite inputs
// overflows, and a zero that the inputs could not give exactly
// (`nonzero_expected`) underflows. A REAL is rounded to float first, so its
// own range decides.
Status CheckDouble(const SqlType& t, double d, bool inputs_finite, bool nonzero_expected,
                   Value* out);

// Appends code point `cp` (at most 0x10FFFF) to `out` in UTF-8.
void AppendUtf8(uint32_t cp, std::string* out);

// Each returns true and fills `r` if it has `name` for `args`.
bool ResolveDateTime(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r);
bool ResolveTextAndMath(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r);
bool ResolveArray(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r);
bool ResolveString(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r);
// The set-returning functions of strings (see ResolveSetFunction).
bool ResolveStringSet(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r);
// The set-returning functions over arrays (generate_subscripts), as arrays.
bool ResolveArraySet(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r);
bool ResolveMath(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r);
// sqrt, exp, ln, log and power of NUMERIC values (functions_numeric.cc).
bool ResolveNumeric(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r);
// bytea's functions, and unistr() (functions_bytea.cc).
bool ResolveBytea(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r);
// JSON and JSONB: ->, ->>, #>, #>>, @>, <@, ?, ?|, ?&, ||, and the json*
// and jsonb* functions (functions_json.cc).
bool ResolveJson(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r);
// The set-returning ones (jsonb_array_elements, ..._text, jsonb_object_keys):
// the array of their rows.
bool ResolveJsonSet(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r);
// to_char, to_number, to_date, to_timestamp (functions_format.cc).
bool ResolveFormat(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r);
// The functions of pg_catalog that catalog queries call (functions_catalog.cc).
bool ResolveCatalog(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r);
// point's functions and operators (point(x, y), <->, ~=, + and -) and
// oidvector's comparisons (functions_pg_kinds.cc).
bool ResolvePgKinds(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r);

}  // namespace sluice::sql
