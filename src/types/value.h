// Value: one decoded SQL value, for building rows and for reading them back.
// The engine moves rows in their encoded form (row_codec.h); Values appear at
// the edges (input parsing, expression evaluation, tests).
//
// Which representation a type uses:
//   BOOLEAN                        kBool
//   TINYINT..BIGINT, DATE (days),
//   TIME and TIMESTAMP (micros)    kInt
//   DECIMAL                        kDecimal (unscaled 128-bit integer, scale;
//                                  a shared BigDecimal for values beyond
//                                  that; or NaN, Infinity, -Infinity)
//   REAL, DOUBLE                   kDouble
//   CHAR, VARCHAR, BINARY, ...     kString (bytes)
//   INTERVAL                       kInterval
//   ARRAY, ROW                     kList (an array may carry lower bounds:
//                                  lower_bounds())
//   MAP                            kMap
//   VARIANT                        any kind; kJsonNull is the JSON null inside
//                                  it, kNull the SQL NULL
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/status.h"

namespace sluice {

using int128 = __int128;
class BigDecimal;  // big_decimal.h

struct Interval {
  int32_t months = 0;
  int32_t days = 0;
  int64_t micros = 0;
  bool operator==(const Interval&) const = default;
};

// PostgreSQL's numeric has three values besides the finite ones. In its
// order -Infinity < every finite value < Infinity < NaN, and NaN = NaN.
enum class DecimalSpecial : uint8_t { kFinite, kNaN, kPosInf, kNegInf };

class Value {
 public:
  enum class Kind : uint8_t {
    kNull,
    kBool,
    kInt,
    kDecimal,
    kDouble,
    kString,
    kInterval,
    kList,
    kMap,
    kJsonNull
  };

  Value() = default;  // SQL NULL
  static Value Null() { return Value(); }
  static Value JsonNull() { return Value(JsonNullTag{}); }
  static Value Bool(bool b) { return Value(b); }
  static Value Int(int64_t i) { return Value(i); }
  static Value Decimal(int128 unscaled, int scale) { return Value(DecimalRep{unscaled, scale}); }
  // PostgreSQL's special numerics. They carry scale 0 and unscaled 0; code
  // that reads unscaled values checks decimal_special() first.
  static Value DecimalSpecialValue(DecimalSpecial s) {
    return Value(DecimalRep{0, 0, s});
  }
  // A finite decimal that does not fit the int128 form: more than 38
  // digits, or a scale above 38. Its unscaled() reads 0; code that reads
  // unscaled values checks decimal_wide() first. BigDecimal::ToValue()
  // picks the form.
  static Value WideDecimal(std::shared_ptr<const BigDecimal> wide, int scale) {
    return Value(DecimalRep{0, scale, DecimalSpecial::kFinite, std::move(wide)});
  }
  static Value DecimalNaN() { return DecimalSpecialValue(DecimalSpecial::kNaN); }
  static Value DecimalInf(bool negative) {
    return DecimalSpecialValue(negative ? DecimalSpecial::kNegInf : DecimalSpecial::kPosInf);
  }
  static Value Double(double d) { return Value(d); }
  static Value String(std::string s) { return Value(std::move(s)); }
  static Value MakeInterval(int32_t months, int32_t days, int64_t micros) {
    return Value(Interval{months, days, micros});
  }
  static Value List(std::vector<Value> items) { return Value(std::move(items)); }
  // An array whose subscripts start at `lower` (one bound per dimension,
  // outermost first) rather than at 1, as PostgreSQL's '[0:1]={1,2}'. With
  // every bound 1 (or none), List(items): one form per value.
  static Value BoundedList(std::vector<Value> items, std::vector<int32_t> lower);
  static Value Map(std::vector<Value> keys, std::vector<Value> values) {
    return Value(MapRep{std::move(keys), std::move(values)});
  }

  Kind kind() const {
    const size_t i = v_.index();
    return i == kBoundedIndex ? Kind::kList : static_cast<Kind>(i);
  }
  bool is_null() const { return kind() == Kind::kNull; }

  // REQUIRES: the matching kind.
  bool bool_value() const { return std::get<bool>(v_); }
  int64_t int_value() const { return std::get<int64_t>(v_); }
  int128 decimal_unscaled() const { return std::get<DecimalRep>(v_).unscaled; }
  int decimal_scale() const { return std::get<DecimalRep>(v_).scale; }
  DecimalSpecial decimal_special() const { return std::get<DecimalRep>(v_).special; }
  bool decimal_is_special() const { return decimal_special() != DecimalSpecial::kFinite; }
  // The value of a wide decimal; null for the int128 form and specials.
  const BigDecimal* decimal_wide() const { return std::get<DecimalRep>(v_).wide.get(); }
  double double_value() const { return std::get<double>(v_); }
  const std::string& string_value() const { return std::get<std::string>(v_); }
  const Interval& interval_value() const { return std::get<Interval>(v_); }
  const std::vector<Value>& list() const {
    if (const auto* b = std::get_if<BoundedRep>(&v_)) return b->items;
    return std::get<std::vector<Value>>(v_);
  }
  // Of a list: its lower bounds, outermost dimension first; empty when they
  // are all 1 (the sub-arrays of a multidimensional array carry none).
  const std::vector<int32_t>& lower_bounds() const;
  const std::vector<Value>& map_keys() const { return std::get<MapRep>(v_).keys; }
  const std::vector<Value>& map_values() const { return std::get<MapRep>(v_).values; }

  // Structural equality (doubles compare by bits after -0.0 and NaN are
  // normalized, as the row encoding does).
  bool operator==(const Value& other) const;

  // A readable form for messages and tests.
  std::string ToString() const;

 private:
  struct DecimalRep {
    int128 unscaled;
    int scale;
    DecimalSpecial special = DecimalSpecial::kFinite;
    std::shared_ptr<const BigDecimal> wide = nullptr;  // null unless it does not fit
  };
  struct MapRep {
    std::vector<Value> keys;
    std::vector<Value> values;
  };
  struct JsonNullTag {};
  struct BoundedRep {
    std::vector<Value> items;
    std::vector<int32_t> lower;
  };
  // Kind::kList too; after every alternative that is its own kind.
  using Rep = std::variant<std::monostate, bool, int64_t, DecimalRep, double, std::string, Interval,
                           std::vector<Value>, MapRep, JsonNullTag, BoundedRep>;
  static constexpr size_t kBoundedIndex = 10;
  template <typename T>
  explicit Value(T v) : v_(std::move(v)) {}

  Rep v_;
};

// The most digits a DECIMAL value has in the int128 form; larger ones are
// wide (BigDecimal). A type may declare up to 1000 digits, as PostgreSQL's
// numeric does.
constexpr int kMaxDecimalDigits = 38;
// The most digits a DECIMAL type may declare.
constexpr int kMaxDecimalPrecision = 1000;

// 10^n for 0 <= n <= 38 (the powers that fit in an int128).
inline int128 Pow10(int n) {
  static const auto kPowers = [] {
    std::array<int128, 39> p{};
    p[0] = 1;
    for (size_t i = 1; i < p.size(); ++i) p[i] = p[i - 1] * 10;
    return p;
  }();
  return kPowers[static_cast<size_t>(n)];
}

// Rounds unscaled `u` at scale `from` to scale `to`, half away from zero;
// sets *overflow if the result does not fit.
int128 RescaleDecimal(int128 u, int from, int to, bool* overflow);

// A numeric's head in PostgreSQL's base-10000 layout, from the decimal
// digits of its magnitude (no leading zeros) and its scale: |v| = d0 *
// 10000^weight + d1 * 10000^(weight - 1) + (less); `more` if any digit lies
// below d0's group. Zero: all 0.
struct NumericHead {
  int weight = 0;
  int d0 = 0, d1 = 0;
  bool more = false;
};
NumericHead NumericHeadOf(std::string_view digits, int scale);
NumericHead NumericHeadOf(int128 u, int scale);

// PostgreSQL's scale of the quotient x / y of numerics (select_div_scale
// in its numeric.c): at least 16 significant digits, and no fewer digits
// after the point than either operand has: 70.0 / 70 is
// 1.00000000000000000000, 1 / 3 is 0.33333333333333333333, 16900 / 1 is
// 16900.000000000000. REQUIRES: x and y finite.
int NumericDivScale(int128 x, int sx, int128 y, int sy);
// The same of magnitudes given by their decimal digits (no leading zeros).
int NumericDivScale(std::string_view x_digits, int sx, std::string_view y_digits, int sy);

// x (at scale sx) / y (at sy) at `scale`, rounded half away from zero.
// False if y is 0 or the quotient does not fit 38 digits.
bool DivideDecimal(int128 x, int sx, int128 y, int sy, int scale, int128* out);

// A decimal without the zeros that end its fraction (1.500 is 1.5): the one
// form of its value whatever its scale. Specials are themselves.
Value DecimalWithoutTrailingZeros(const Value& v);

// Parses decimal text "[+-]digits[.digits][e[+-]digits]" (nothing around
// it) to an unscaled value at `scale`. False if it is not such text or does
// not fit in 38 digits.
bool ParseDecimal(std::string_view s, int scale, int128* out);

// The display scale PostgreSQL gives decimal text: the digits after the
// point less the exponent, at least 0 ('1.50' 2, '1.5e1' 0, '1e-3' 3).
// REQUIRES: IsDecimalText(s).
int DecimalTextScale(std::string_view s);

// Whether `s` is decimal text as ParseDecimal reads it, whatever its size
// (ParseDecimal also fails on text whose value does not fit).
bool IsDecimalText(std::string_view s);

// Decimal text of a 128-bit integer scaled by 10^-scale, e.g. "-12.50".
std::string DecimalToString(int128 unscaled, int scale);

// PostgreSQL's spellings of the special numerics, read case-insensitively
// with optional surrounding spaces and sign: "NaN", "Infinity", "inf",
// "+inf", "-Infinity", "-inf". True and sets *out if `s` is one of them.
bool ParseDecimalSpecial(std::string_view s, DecimalSpecial* out);

// "NaN", "Infinity" or "-Infinity". REQUIRES: s != kFinite.
const char* DecimalSpecialName(DecimalSpecial s);

// Compares two decimals of which at least one is special, in PostgreSQL's
// order (-Infinity < finite < Infinity < NaN, NaN = NaN): -1, 0 or 1.
int CompareDecimalSpecials(const Value& a, const Value& b);

// PostgreSQL's text of a decimal value, special or finite.
std::string DecimalValueToString(const Value& v);

// interval * factor (or / factor, `divide`) as PostgreSQL computes it: the
// whole months and days scaled, their fractions carried down (a month is 30
// days, a day 86400 s, each rounded to the microsecond), the time scaled
// and rounded to the microsecond. "interval out of range" past int32 months
// or days or int64 microseconds.
Status ScaleInterval(const Interval& x, double factor, bool divide, Value* out);

}  // namespace sluice
