// The transcendental functions of NUMERIC values: sqrt, exp, ln, log and
// power, each at PostgreSQL's result scale (numeric.c: at least 16
// significant digits, and no fewer digits after the point than an argument
// has), with PostgreSQL's NaN and infinity rules and errors.
//
// Results of up to 30 significant digits are computed in 128-bit floating
// point (about 33 significant digits) and rounded half away from zero at
// the result's scale; larger ones, and arguments beyond the int128 form, in
// arbitrary precision (big_decimal_math.h) to the exact rounded value, as
// PostgreSQL computes them. sqrt is exact.
#include <quadmath.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "sql/functions_internal.h"
#include "types/big_decimal_math.h"

namespace sluice::sql {
namespace {

using f128 = __float128;
using u128 = unsigned __int128;

Status LogOfZero() { return Status::InvalidArgument("cannot take logarithm of zero"); }
Status LogOfNegative() {
  return Status::InvalidArgument("cannot take logarithm of a negative number");
}

// The most significant digits a result computed in 128-bit floating point
// has; beyond, arbitrary precision.
constexpr int kMaxFloatDigits = 30;

bool Wide(const Value& v) { return v.decimal_wide() != nullptr; }
BigDecimal Big(const Value& v) { return BigDecimal::FromValue(v); }

// A BigDecimal result, or PostgreSQL's overflow error.
Status FromBig(const BigDecimal& b, Value* out) {
  if (!BigDecimalInFormat(b)) return Status::Overflow("value overflows numeric format");
  *out = b.ToValue();
  return Status::OK();
}

bool IsPosInf(const Value& v) { return InfSign(v) > 0; }
bool IsNegInf(const Value& v) { return InfSign(v) < 0; }
// -1, 0 or 1 (of a special: NaN 0).
int SignOf(const Value& v) { return v.decimal_is_special() ? InfSign(v) : FiniteSign(v); }
bool IsOne(const Value& v) {
  if (!v.decimal_is_special() && Wide(v)) {
    return BigDecimal::Compare(*v.decimal_wide(), BigDecimal::FromInt128(1, 0)) == 0;
  }
  return !v.decimal_is_special() && v.decimal_unscaled() == Pow10(v.decimal_scale());
}
bool IsMinusOne(const Value& v) {
  if (!v.decimal_is_special() && Wide(v)) {
    return BigDecimal::Compare(*v.decimal_wide(), BigDecimal::FromInt128(-1, 0)) == 0;
  }
  return !v.decimal_is_special() && v.decimal_unscaled() == -Pow10(v.decimal_scale());
}
bool IsIntegral(const Value& v) {
  if (!v.decimal_is_special() && Wide(v)) {
    return BigDecimal::Compare(v.decimal_wide()->Trunc(0), *v.decimal_wide()) == 0;
  }
  return !v.decimal_is_special() && v.decimal_unscaled() % Pow10(v.decimal_scale()) == 0;
}

f128 ToF128(const Value& v) {
  if (Wide(v)) return strtoflt128(v.decimal_wide()->ToString().c_str(), nullptr);
  return static_cast<f128>(v.decimal_unscaled()) / powq(10, v.decimal_scale());
}

// `r` rounded half away from zero at `scale` digits after the point.
Status FromF128(f128 r, int scale, Value* out) {
  if (isnanq(r) || isinfq(r) || scale > kMaxDecimalDigits) return DecOverflow();
  const f128 q = roundq(r * powq(10, scale));
  if (fabsq(q) >= powq(10, kMaxDecimalDigits)) return DecOverflow();
  *out = Value::Decimal(static_cast<int128>(q), scale);
  return Status::OK();
}

// The decimal weight of ln of a value whose leading base-10000 digits are
// `h` (away from 1: PostgreSQL's estimate_ln_dweight).
int LnDweightOfHead(const NumericHead& h) {
  int digits = h.d0;
  int dweight = h.weight * 4;
  if (h.more) {
    digits = digits * 10000 + h.d1;
    dweight -= 4;
  }
  const double ln = std::log(static_cast<double>(digits)) + dweight * 2.302585092994046;
  return static_cast<int>(std::log10(std::fabs(ln)));
}

// PostgreSQL's estimate_ln_dweight of a value in arbitrary precision.
int EstimateLnDweightBig(const BigDecimal& b) {
  if (b.sign() <= 0) return 0;
  const BigDecimal one = BigDecimal::FromInt128(1, 0);
  if (BigDecimal::Compare(b, BigDecimal::FromInt128(9, 1)) >= 0 &&
      BigDecimal::Compare(b, BigDecimal::FromInt128(11, 1)) <= 0) {
    const BigDecimal x = BigDecimal::Sub(b, one);
    if (x.is_zero()) return 0;
    const NumericHead h = NumericHeadOf(x.Digits(), x.scale());
    return h.weight * 4 + static_cast<int>(std::log10(h.d0));
  }
  const NumericHead h = NumericHeadOf(b.Digits(), b.scale());
  return LnDweightOfHead(h);
}

// PostgreSQL's estimate_ln_dweight: the decimal weight of ln(v), v > 0.
int EstimateLnDweight(const Value& v) {
  if (Wide(v)) return EstimateLnDweightBig(*v.decimal_wide());
  const int128 u = v.decimal_unscaled();
  const int s = v.decimal_scale();
  if (u <= 0) return 0;
  // 0.9 <= v <= 1.1: ln(1 + x) ~ x.
  const int128 one = Pow10(s);
  const int128 tenth = s > 0 ? Pow10(s - 1) : 0;
  if (s > 0 && u >= one - tenth && u <= one + tenth) {
    const int128 x = u - one;
    if (x == 0) return 0;
    const NumericHead h = NumericHeadOf(x, s);
    return h.weight * 4 + static_cast<int>(std::log10(h.d0));
  }
  if (s == 0 && u == 1) return 0;
  const NumericHead h = NumericHeadOf(u, s);
  return LnDweightOfHead(h);
}

int ClampScale(int rscale) { return std::clamp(rscale, 0, 1000); }

// sqrt, exactly: PostgreSQL's numeric_sqrt.
Status SqrtDec(const SqlType&, const Value* a, size_t, Value* out) {
  const Value& v = a[0];
  if (IsNaN(v) || IsPosInf(v)) {
    *out = v;
    return Status::OK();
  }
  if (IsNegInf(v) || v.decimal_unscaled() < 0) {
    return Status::InvalidArgument("cannot take square root of a negative number");
  }
  const int s = v.decimal_scale();
  if (const BigDecimal* w = v.decimal_wide()) {
    if (w->negative())
      return Status::InvalidArgument("cannot take square root of a negative number");
    const std::string digits = w->is_zero() ? "0" : w->Digits();
    const int weight = NumericHeadOf(digits, s).weight;
    const int scale = ClampScale(std::max(16 - ((weight + 1) * 4 / 2 - 1), s));
    *out = w->Sqrt(scale).ToValue();
    return Status::OK();
  }
  const int128 u = v.decimal_unscaled();
  const int weight = NumericHeadOf(u, s).weight;
  const int sweight = (weight + 1) * 4 / 2 - 1;
  const int scale = ClampScale(std::max(16 - sweight, s));
  auto big = [&] {
    *out = BigDecimal::FromInt128(u, s).Sqrt(scale).ToValue();
    return Status::OK();
  };
  if (scale > kMaxDecimalDigits) return big();
  // The root of u * 10^(2 * (scale + 1) - s), at scale + 1, then rounded.
  const int shift = 2 * (scale + 1) - s;
  u128 wide = static_cast<u128>(u);
  for (int i = 0; i < shift; ++i) {
    if (wide > std::numeric_limits<u128>::max() / 100) return big();
    wide *= 10;
  }
  u128 r = static_cast<u128>(std::sqrt(static_cast<long double>(wide)));
  while (r > 0 && r * r > wide) --r;
  while ((r + 1) * (r + 1) <= wide) ++r;
  u128 q = r / 10;
  if (r % 10 >= 5) ++q;
  if (q >= static_cast<u128>(Pow10(kMaxDecimalDigits))) return big();
  *out = Value::Decimal(static_cast<int128>(q), scale);
  return Status::OK();
}

// exp: PostgreSQL's numeric_exp.
Status ExpDec(const SqlType&, const Value* a, size_t, Value* out) {
  const Value& v = a[0];
  if (IsNegInf(v)) {
    *out = Value::Decimal(0, 0);
    return Status::OK();
  }
  if (v.decimal_is_special()) {
    *out = v;
    return Status::OK();
  }
  const f128 x = ToF128(v);
  double val = static_cast<double>(x) * 0.434294481903252;
  val = std::clamp(val, -2000.0, 2000.0);
  const int rscale = ClampScale(std::max(16 - static_cast<int>(val), v.decimal_scale()));
  if (Wide(v) || rscale + std::max(0, static_cast<int>(val)) > kMaxFloatDigits ||
      rscale > kMaxDecimalDigits) {
    // PostgreSQL's exp_var: beyond |x| of 6000 the result overflows (or
    // is zero).
    if (fabsq(x) >= 6000) {
      if (x > 0) return Status::Overflow("value overflows numeric format");
      *out = BigDecimal().Widen(rscale).ToValue();
      return Status::OK();
    }
    return FromBig(BigExp(Big(v), rscale), out);
  }
  return FromF128(expq(x), rscale, out);
}

// ln: PostgreSQL's numeric_ln.
Status LnDec(const SqlType&, const Value* a, size_t, Value* out) {
  const Value& v = a[0];
  if (IsNegInf(v)) return LogOfNegative();
  if (v.decimal_is_special()) {
    *out = v;
    return Status::OK();
  }
  if (FiniteSign(v) == 0) return LogOfZero();
  if (FiniteSign(v) < 0) return LogOfNegative();
  const int dweight = EstimateLnDweight(v);
  const int rscale = ClampScale(std::max(16 - dweight, v.decimal_scale()));
  if (Wide(v) || rscale + std::max(0, dweight + 1) > kMaxFloatDigits ||
      rscale > kMaxDecimalDigits) {
    return FromBig(BigLn(Big(v), rscale), out);
  }
  return FromF128(logq(ToF128(v)), rscale, out);
}

// log(b, x): PostgreSQL's numeric_log.
Status LogOf(const Value& b, const Value& x, Value* out) {
  if (b.decimal_is_special() || x.decimal_is_special()) {
    if (IsNaN(b) || IsNaN(x)) {
      *out = Value::DecimalNaN();
      return Status::OK();
    }
    if (SignOf(b) < 0 || SignOf(x) < 0) return LogOfNegative();
    if (SignOf(b) == 0 || SignOf(x) == 0) return LogOfZero();
    if (IsPosInf(b)) {
      *out = IsPosInf(x) ? Value::DecimalNaN() : Value::Decimal(0, 0);
      return Status::OK();
    }
    *out = Value::DecimalInf(false);
    return Status::OK();
  }
  if (SignOf(b) < 0 || SignOf(x) < 0) return LogOfNegative();
  if (SignOf(b) == 0 || SignOf(x) == 0) return LogOfZero();
  if (IsOne(b)) return Status::InvalidArgument("division by zero");
  const int ln_b = EstimateLnDweight(b), ln_x = EstimateLnDweight(x);
  const int dweight = ln_x - ln_b;
  const int rscale = ClampScale(std::max({16 - dweight, b.decimal_scale(), x.decimal_scale()}));
  if (Wide(b) || Wide(x) || rscale + std::max(0, dweight + 1) > kMaxFloatDigits ||
      rscale > kMaxDecimalDigits) {
    // ln(x) / ln(b), each with more significant digits than the result
    // (PostgreSQL's log_var, with more guard digits).
    const int sb = std::max(0, rscale + dweight - ln_b + 12);
    const int sx = std::max(0, rscale + dweight - ln_x + 12);
    return FromBig(BigDecimal::Div(BigLn(Big(x), sx), BigLn(Big(b), sb), rscale), out);
  }
  return FromF128(logq(ToF128(x)) / logq(ToF128(b)), rscale, out);
}
Status LogBaseDec(const SqlType&, const Value* a, size_t, Value* out) {
  return LogOf(a[0], a[1], out);
}
Status Log10Dec(const SqlType&, const Value* a, size_t, Value* out) {
  return LogOf(Value::Decimal(10, 0), a[0], out);
}

// Whether the integral `e` is odd.
bool IsOdd(const Value& e) {
  if (Wide(e)) return !BigDecimal::Mod(*e.decimal_wide(), BigDecimal::FromInt128(2, 0)).is_zero();
  return e.decimal_unscaled() / Pow10(e.decimal_scale()) % 2 != 0;
}

// power(b, e) of NaN and the infinities: PostgreSQL's numeric_power.
// Returns true if it decided (*out or *st set).
bool SpecialPower(const Value& b, const Value& e, Value* out, Status* st) {
  if (!b.decimal_is_special() && !e.decimal_is_special()) return false;
  if (IsNaN(b)) {
    *out = !e.decimal_is_special() && SignOf(e) == 0 ? Value::Decimal(1, 0) : Value::DecimalNaN();
    return true;
  }
  if (IsNaN(e)) {
    *out = IsOne(b) ? Value::Decimal(1, 0) : Value::DecimalNaN();
    return true;
  }
  const int sb = SignOf(b), se = SignOf(e);
  if (sb == 0 && se < 0) {
    *st = Status::InvalidArgument("zero raised to a negative power is undefined");
    return true;
  }
  if (sb < 0 && !e.decimal_is_special() && !IsIntegral(e)) {
    *st = Status::InvalidArgument(
        "a negative number raised to a non-integer power yields a complex result");
    return true;
  }
  if (IsOne(b) || se == 0) {
    *out = Value::Decimal(1, 0);
    return true;
  }
  if (sb == 0 && se > 0) {
    *out = Value::Decimal(0, 0);
    return true;
  }
  if (e.decimal_is_special()) {  // an infinite exponent
    if (IsMinusOne(b)) {
      *out = Value::Decimal(1, 0);
      return true;
    }
    const bool abs_gt_one = b.decimal_is_special() || ToF128(b) > 1 || ToF128(b) < -1;
    *out = abs_gt_one == (se > 0) ? Value::DecimalInf(false) : Value::Decimal(0, 0);
    return true;
  }
  if (IsPosInf(b)) {
    *out = se > 0 ? Value::DecimalInf(false) : Value::Decimal(0, 0);
    return true;
  }
  // -Infinity to a finite integral power: zero if negative, else an
  // infinity whose sign is the power's parity.
  if (se < 0) {
    *out = Value::Decimal(0, 0);
    return true;
  }
  *out = Value::DecimalInf(IsOdd(e));
  return true;
}

// b^n at `rscale` in arbitrary precision (power_var_int), with its
// overflow test. REQUIRES: b != 0.
Status PowerInt(const Value& b, int64_t n, int rscale, Value* out) {
  const BigDecimal base = Big(b);
  const double f = static_cast<double>(n) * BigLog10(base);
  if (f > 3 * 32767 * 4) return Status::Overflow("value overflows numeric format");
  return FromBig(BigPowInt(base, n, rscale), out);
}

// power: PostgreSQL's power_var, its scale and its errors.
Status PowerDec(const SqlType&, const Value* a, size_t, Value* out) {
  const Value& b = a[0];
  const Value& e = a[1];
  Status st;
  if (SpecialPower(b, e, out, &st)) return st;
  const int sb = SignOf(b), se = SignOf(e);
  if (sb == 0 && se < 0)
    return Status::InvalidArgument("zero raised to a negative power is undefined");
  if (sb < 0 && !IsIntegral(e)) {
    return Status::InvalidArgument(
        "a negative number raised to a non-integer power yields a complex result");
  }
  const f128 fb = ToF128(b), fe = ToF128(e);
  if (IsIntegral(e) && fe >= static_cast<f128>(-2147483648.0) && fe <= 2147483647) {
    // An integral power (power_var_int): 16 digits after the point, or the
    // base's.
    const int rscale = ClampScale(std::max(16, b.decimal_scale()));
    const int128 n =
        Wide(e) ? static_cast<int128>(fe) : e.decimal_unscaled() / Pow10(e.decimal_scale());
    if (n == 0) {  // 0 ^ 0 is 1, as in PostgreSQL (and SQL:2003)
      *out = BigDecimal::FromInt128(1, 0).Widen(rscale).ToValue();
      return Status::OK();
    }
    if (sb != 0 && (Wide(b) || rscale > kMaxDecimalDigits)) {
      return PowerInt(b, static_cast<int64_t>(n), rscale, out);
    }
    if (sb == 0) {
      *out = BigDecimal().Widen(rscale).ToValue();
      return Status::OK();
    }
    // Exactly, while |b|^|n| fits in 128 bits.
    const int128 k = n < 0 ? -n : n;
    if (k <= 64 && rscale <= kMaxDecimalDigits) {
      int128 p = 1;
      bool fits = true;
      for (int128 i = 0; i < k && fits; ++i) {
        fits = !__builtin_mul_overflow(p, b.decimal_unscaled(), &p);
      }
      const int ps = static_cast<int>(k) * b.decimal_scale();
      int128 r = 0;
      bool ok = false;
      if (fits && n >= 0 && ps <= 2 * kMaxDecimalDigits) {
        bool overflow = false;
        r = RescaleDecimal(p, ps, rscale, &overflow);
        ok = !overflow && r < Pow10(kMaxDecimalDigits) && r > -Pow10(kMaxDecimalDigits);
      } else if (fits && n < 0 && ps <= kMaxDecimalDigits) {
        ok = DivideDecimal(1, 0, p, ps, rscale, &r);
      }
      if (ok) {
        *out = Value::Decimal(r, rscale);
        return Status::OK();
      }
    }
    return PowerInt(b, static_cast<int64_t>(n), rscale, out);
  }
  // Any other power: exp(e * ln(|b|)), with the scale PostgreSQL picks from
  // the result's size. Zero to a positive non-integral power is zero at 16
  // digits.
  if (sb == 0) {
    *out = BigDecimal().Widen(16).ToValue();
    return Status::OK();
  }
  const f128 ln = logq(fabsq(fb)) * fe;
  double val = static_cast<double>(ln);
  if (std::fabs(val) > 2000 * 3.01) {
    if (val > 0) return Status::Overflow("value overflows numeric format");
    *out = BigDecimal().Widen(1000).ToValue();  // PostgreSQL: zero at its largest scale
    return Status::OK();
  }
  val *= 0.434294481903252;
  const int rscale =
      ClampScale(std::max({16 - static_cast<int>(val), b.decimal_scale(), e.decimal_scale()}));
  if (Wide(b) || Wide(e) || rscale + std::max(0, static_cast<int>(val)) > kMaxFloatDigits ||
      rscale > kMaxDecimalDigits) {
    // exp(e * ln(|b|)), the product exact to the result's significant
    // digits and more (PostgreSQL's power_var).
    const int sig = std::max(0, rscale + static_cast<int>(val));
    // (e itself may be beyond a double's range.)
    const double log_e = std::max(0.0, BigLog10(Big(e)));
    const int ln_scale = sig + 12 + static_cast<int>(log_e) + 1;
    const BigDecimal t = BigDecimal::Mul(BigLn(Big(b).Abs(), ln_scale), Big(e)).Round(sig + 12);
    BigDecimal r = BigExp(t, rscale);
    if (sb < 0 && IsOdd(e)) r = r.Negated();
    return FromBig(r, out);
  }
  f128 r = expq(ln);
  if (sb < 0 && fmodq(fe, 2) != 0) r = -r;
  return FromF128(r, rscale, out);
}

}  // namespace

bool ResolveNumeric(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r) {
  const auto is_dec = [](const SqlType& t) { return t.id() == TypeId::kDecimal; };
  const auto exact = [](const SqlType& t) { return t.IsInteger() || t.id() == TypeId::kDecimal; };
  const SqlType n = SqlType::Numeric();
  auto resolve = [&](ScalarFn fn, const char* as, std::vector<SqlType> types) {
    Resolve(r, fn, as, n, std::move(types));
    r->numeric_specials = true;
    return true;
  };
  if (args.size() == 1 && is_dec(args[0])) {
    // Of a NUMERIC; of an integer, PostgreSQL picks the double precision
    // forms (its preferred numeric type).
    if (name == "sqrt") return resolve(SqrtDec, "sqrt", {n});
    if (name == "exp") return resolve(ExpDec, "exp", {n});
    if (name == "ln") return resolve(LnDec, "ln", {n});
    if (name == "log" || name == "log10") return resolve(Log10Dec, "log", {n});
  }
  if (args.size() == 2 && exact(args[0]) && exact(args[1])) {
    // log(b, x) has only a numeric form; power's is chosen beside a NUMERIC.
    if (name == "log") return resolve(LogBaseDec, "log", {n, n});
    if ((name == "power" || name == "pow" || name == "^") && (is_dec(args[0]) || is_dec(args[1]))) {
      return resolve(PowerDec, "power", {n, n});
    }
  }
  return false;
}

}  // namespace sluice::sql
