// BigDecimal: an arbitrary-precision decimal, sign * magnitude * 10^-scale,
// for the NUMERIC values that do not fit Value's 128-bit unscaled integer
// (more than 38 digits, or more than 38 after the point). Values that fit
// stay int128s (value.h): this type is the slow path, and holds the digits
// on the heap.
//
// Arithmetic follows PostgreSQL's numeric.c: sums and products are exact,
// quotients are rounded half away from zero at a requested scale.
//
// Thread safety: a value is immutable once built (Value shares it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "types/value.h"

namespace sluice {

class BigDecimal {
 public:
  BigDecimal() = default;  // 0 at scale 0

  static BigDecimal FromInt128(int128 unscaled, int scale);
  // A finite decimal Value, narrow or wide. REQUIRES: not special.
  static BigDecimal FromValue(const Value& v);
  // The value of decimal digits `digits` (ASCII, no sign) at `scale`.
  static BigDecimal FromDigits(bool negative, std::string_view digits, int scale);
  // Decimal text "[+-]digits[.digits][e[+-]digits]" at its own scale (the
  // digits after the point less the exponent, at least 0). False if it is
  // not such text or its exponent is absurd.
  static bool Parse(std::string_view text, BigDecimal* out);

  bool negative() const { return neg_; }
  bool is_zero() const { return mag_.empty(); }
  int sign() const { return mag_.empty() ? 0 : neg_ ? -1 : 1; }
  int scale() const { return scale_; }
  // Decimal digits of the magnitude, most significant first ("" for 0).
  std::string Digits() const;
  // How many decimal digits the magnitude has (0 for 0).
  int DigitCount() const;
  // True and sets *out if the unscaled magnitude is below 10^38.
  bool ToInt128(int128* out) const;
  // PostgreSQL's text: "-12.50".
  std::string ToString() const;
  double ToDouble() const;

  // The decimal as a Value: an int128 one if it fits (at most 38 digits and
  // a scale of at most 38), else a wide one.
  Value ToValue() const;

  BigDecimal Negated() const;
  BigDecimal Abs() const;
  // Rounded half away from zero (or truncated) to `scale` digits after the
  // point; a negative scale rounds left of the point (to scale 0).
  BigDecimal Round(int scale) const;
  BigDecimal Trunc(int scale) const;
  // The same value at a larger scale. REQUIRES: scale >= this->scale().
  BigDecimal Widen(int scale) const;
  // Without the zeros that end the fraction.
  BigDecimal StripTrailingZeros() const;

  static int Compare(const BigDecimal& a, const BigDecimal& b);
  static BigDecimal Add(const BigDecimal& a, const BigDecimal& b);
  static BigDecimal Sub(const BigDecimal& a, const BigDecimal& b);
  // Exact: its scale is the sum of the scales.
  static BigDecimal Mul(const BigDecimal& a, const BigDecimal& b);
  // a / b at `scale`, rounded half away from zero (or truncated).
  // REQUIRES: b != 0.
  static BigDecimal Div(const BigDecimal& a, const BigDecimal& b, int scale, bool round = true);
  // a - trunc(a / b) * b, at the larger scale. REQUIRES: b != 0.
  static BigDecimal Mod(const BigDecimal& a, const BigDecimal& b);
  // The square root at `scale`, rounded half away from zero.
  // REQUIRES: not negative.
  BigDecimal Sqrt(int scale) const;
  // PostgreSQL's scale of a / b (select_div_scale).
  static int DivScale(const BigDecimal& a, const BigDecimal& b);

  // The decimal exponent of the first significant digit: the value is
  // 0.d1d2... * 10^Exponent(). REQUIRES: not 0.
  int Exponent() const { return DigitCount() - scale_; }

 private:
  using Limbs = std::vector<uint32_t>;  // base 10^9, least significant first
  static constexpr uint32_t kBase = 1000000000;

  void Normalize();
  BigDecimal ToScale(int scale, bool round) const;
  static Limbs MulPow10(const Limbs& m, int k);
  static int CmpMag(const Limbs& a, const Limbs& b);
  static Limbs AddMag(const Limbs& a, const Limbs& b);
  static Limbs SubMag(const Limbs& a, const Limbs& b);  // REQUIRES: a >= b
  static Limbs MulMag(const Limbs& a, const Limbs& b);
  static void DivMag(const Limbs& a, const Limbs& b, Limbs* q, Limbs* r);
  static BigDecimal AddSigned(const BigDecimal& a, const BigDecimal& b, bool negate_b);

  bool neg_ = false;
  Limbs mag_;  // no most significant zero limbs; empty for 0
  int scale_ = 0;
};

// The largest number of digits before the point and after it that a
// NUMERIC value has in PostgreSQL (its NUMERIC_WEIGHT_MAX and
// NUMERIC_DSCALE_MAX); larger results are "value overflows numeric format".
constexpr int kMaxNumericIntegerDigits = 131072;
constexpr int kMaxNumericScale = 16383;

// Whether `b` lies within PostgreSQL's numeric format.
bool BigDecimalInFormat(const BigDecimal& b);

}  // namespace sluice
