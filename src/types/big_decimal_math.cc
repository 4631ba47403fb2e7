#include "types/big_decimal_math.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

namespace sluice {
namespace {

BigDecimal Int(int64_t i) { return BigDecimal::FromInt128(i, 0); }

// `v` rounded to `sig` significant digits, never left of the point.
BigDecimal RoundSig(const BigDecimal& v, int sig) {
  const int drop = v.DigitCount() - sig;
  if (drop <= 0) return v;
  const int to = std::max(0, v.scale() - drop);
  return to < v.scale() ? v.Round(to) : v;
}

// ln(v) at `scale` for v within about [0.1, 10]: halved by square roots
// into [0.95, 1.05], then 2 * atanh((v - 1) / (v + 1)) as a series, and
// doubled back.
BigDecimal LnNearOne(const BigDecimal& x, int scale) {
  const BigDecimal one = Int(1);
  const double lnx = BigLog10(x) * 2.302585092994046;
  int n = 0;
  while (std::fabs(lnx) / std::ldexp(1.0, n) > 0.05) ++n;
  // Each halving doubles the error of what follows: 0.302 digits each.
  const int work = scale + (n * 302) / 1000 + 12;
  BigDecimal v = x;
  for (int i = 0; i < n; ++i) {
    const int e = v.Exponent();
    v = v.Sqrt(work + std::max(0, -e) + 2);
  }
  const BigDecimal z = BigDecimal::Div(BigDecimal::Sub(v, one), BigDecimal::Add(v, one), work);
  const BigDecimal z2 = BigDecimal::Mul(z, z).Round(work);
  BigDecimal sum = z, power = z;
  for (int k = 3;; k += 2) {
    power = BigDecimal::Mul(power, z2).Round(work);
    const BigDecimal t = BigDecimal::Div(power, Int(k), work);
    if (t.is_zero()) break;
    sum = BigDecimal::Add(sum, t);
  }
  return BigDecimal::Mul(sum, Int(int64_t{1} << (n + 1))).Round(scale);
}

}  // namespace

double BigLog10(const BigDecimal& x) {
  const std::string d = x.Digits();
  const std::string lead = "0." + d.substr(0, 17);
  return std::log10(std::strtod(lead.c_str(), nullptr)) + x.Exponent();
}

BigDecimal BigExp(const BigDecimal& x, int scale) {
  const BigDecimal one = Int(1);
  if (x.is_zero()) return one.Widen(scale);
  const double xd = x.ToDouble();
  const double dw = xd * 0.4342944819032518;  // log10 of the result
  if (dw < -scale - 2) return BigDecimal().Widen(scale);
  // Significant digits of the result, and guard digits.
  const int sig = std::max(1, scale + static_cast<int>(std::ceil(dw)) + 1) + 10;
  // e^|x| = (e^(|x| / 2^k))^(2^k) with |x| / 2^k < 0.01.
  const double ad = std::fabs(xd);
  int k = 0;
  while (ad / std::ldexp(1.0, k) >= 0.01) ++k;
  const int work = sig + (k * 302) / 1000 + 10;
  BigDecimal y = x.Abs();
  if (k > 0) y = BigDecimal::Div(y, Int(int64_t{1} << k), work + 2);
  BigDecimal sum = one, term = one;
  for (int n = 1;; ++n) {
    term = BigDecimal::Div(BigDecimal::Mul(term, y), Int(n), work + 2);
    if (term.is_zero()) break;
    sum = BigDecimal::Add(sum, term);
  }
  for (int i = 0; i < k; ++i) sum = RoundSig(BigDecimal::Mul(sum, sum), work);
  if (!x.negative()) return sum.Round(scale);
  return BigDecimal::Div(one, sum, scale);
}

BigDecimal BigLn(const BigDecimal& x, int scale) {
  // x = m * 10^e with m in [0.1, 1): ln x = ln m + e * ln 10.
  const int e = x.Exponent();
  if (e >= -1 && e <= 1) return LnNearOne(x, scale);
  const std::string digits = x.Digits();
  const BigDecimal m = BigDecimal::FromDigits(false, digits, static_cast<int>(digits.size()));
  const int extra = static_cast<int>(std::to_string(std::abs(e)).size()) + 2;
  const BigDecimal ln10 = LnNearOne(Int(10), scale + extra + 4);
  const BigDecimal lnm = LnNearOne(m, scale + 4);
  return BigDecimal::Add(lnm, BigDecimal::Mul(ln10, Int(e))).Round(scale);
}

BigDecimal BigPowInt(const BigDecimal& b, int64_t n, int scale) {
  const BigDecimal one = Int(1);
  if (n == 0) return one.Widen(scale);
  if (b.is_zero()) return BigDecimal().Widen(scale);
  const uint64_t m = n < 0 ? -static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  const double f = static_cast<double>(n) * BigLog10(b);  // log10 of |result|
  if (f + 1 < -scale) return BigDecimal().Widen(scale);
  // Exactly while the power stays small; else at enough significant digits
  // (the squarings lose about log10(m) of them).
  const bool exact = static_cast<double>(b.DigitCount()) * static_cast<double>(m) <= 4000;
  const int sig = std::max(1, scale + static_cast<int>(std::ceil(f)) + 1) +
                  static_cast<int>(std::log10(static_cast<double>(m))) + 12;
  auto keep = [&](const BigDecimal& v) { return exact ? v : RoundSig(v, sig); };
  BigDecimal result = one, base = b;
  for (uint64_t bits = m;;) {
    if (bits & 1) result = keep(BigDecimal::Mul(result, base));
    bits >>= 1;
    if (bits == 0) break;
    base = keep(BigDecimal::Mul(base, base));
  }
  if (n > 0) return result.Round(scale);
  return BigDecimal::Div(one, result, scale);
}

}  // namespace sluice
