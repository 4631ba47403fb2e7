// Value: one decoded SQL value, for building rows and for reading them back.
// The engine moves rows in their encoded form (row_codec.h); Values appear at
// the edges (input parsing, expression evaluation, tests).
//
// Which representation a type uses:
//   BOOLEAN                        kBool
//   TINYINT..BIGINT, DATE (days),
//   TIME and TIMESTAMP (micros)    kInt
//   DECIMAL                        kDecimal (unscaled 128-bit integer, scale)
//   REAL, DOUBLE                   kDouble
//   CHAR, VARCHAR, BINARY, ...     kString (bytes)
//   INTERVAL                       kInterval
//   ARRAY, ROW                     kList
//   MAP                            kMap
//   VARIANT                        any kind; kJsonNull is the JSON null inside
//                                  it, kNull the SQL NULL
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace sluice {

using int128 = __int128;

struct Interval {
  int32_t months = 0;
  int32_t days = 0;
  int64_t micros = 0;
  bool operator==(const Interval&) const = default;
};

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
  static Value Double(double d) { return Value(d); }
  static Value String(std::string s) { return Value(std::move(s)); }
  static Value MakeInterval(int32_t months, int32_t days, int64_t micros) {
    return Value(Interval{months, days, micros});
  }
  static Value List(std::vector<Value> items) { return Value(std::move(items)); }
  static Value Map(std::vector<Value> keys, std::vector<Value> values) {
    return Value(MapRep{std::move(keys), std::move(values)});
  }

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  bool is_null() const { return kind() == Kind::kNull; }

  // REQUIRES: the matching kind.
  bool bool_value() const { return std::get<bool>(v_); }
  int64_t int_value() const { return std::get<int64_t>(v_); }
  int128 decimal_unscaled() const { return std::get<DecimalRep>(v_).unscaled; }
  int decimal_scale() const { return std::get<DecimalRep>(v_).scale; }
  double double_value() const { return std::get<double>(v_); }
  const std::string& string_value() const { return std::get<std::string>(v_); }
  const Interval& interval_value() const { return std::get<Interval>(v_); }
  const std::vector<Value>& list() const { return std::get<std::vector<Value>>(v_); }
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
  };
  struct MapRep {
    std::vector<Value> keys;
    std::vector<Value> values;
  };
  struct JsonNullTag {};
  using Rep = std::variant<std::monostate, bool, int64_t, DecimalRep, double, std::string, Interval,
                           std::vector<Value>, MapRep, JsonNullTag>;
  template <typename T>
  explicit Value(T v) : v_(std::move(v)) {}

  Rep v_;
};

// 10^n for 0 <= n <= 38.
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

// Parses decimal text "[+-]digits[.digits][e[+-]digits]" (nothing around
// it) to an unscaled value at `scale`. False if it is not such text or does
// not fit in 38 digits.
bool ParseDecimal(std::string_view s, int scale, int128* out);

// Decimal text of a 128-bit integer scaled by 10^-scale, e.g. "-12.50".
std::string DecimalToString(int128 unscaled, int scale);

}  // namespace sluice
