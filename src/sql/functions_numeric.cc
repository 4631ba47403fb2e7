// The transcendental functions of NUMERIC values: sqrt, exp, ln, log and
// power, each at PostgreSQL's result scale (numeric.c: at least 16
// significant digits, and no fewer digits after the point than an argument
// has), with PostgreSQL's NaN and infinity rules and errors.
//
// PostgreSQL computes them to that scale exactly; here sqrt is exact (an
// integer square root) and the others are computed in 128-bit floating point
// (about 33 significant digits) and rounded half away from zero at the
// result's scale, so a result of more than about 32 significant digits can
// differ in its last ones. Results of more than 38 digits, or with more than
// 38 after the point, are refused as not supported yet.
#include <quadmath.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "sql/functions_internal.h"

namespace sluice::sql {
namespace {

using f128 = __float128;
using u128 = unsigned __int128;

Status LogOfZero() { return Status::InvalidArgument("cannot take logarithm of zero"); }
Status LogOfNegative() {
  return Status::InvalidArgument("cannot take logarithm of a negative number");
}

bool IsPosInf(const Value& v) { return InfSign(v) > 0; }
bool IsNegInf(const Value& v) { return InfSign(v) < 0; }
// -1, 0 or 1 (of a special: NaN 0).
int SignOf(const Value& v) { return v.decimal_is_special() ? InfSign(v) : FiniteSign(v); }
bool IsOne(const Value& v) {
  return !v.decimal_is_special() && v.decimal_unscaled() == Pow10(v.decimal_scale());
}
bool IsMinusOne(const Value& v) {
  return !v.decimal_is_special() && v.decimal_unscaled() == -Pow10(v.decimal_scale());
}
bool IsIntegral(const Value& v) {
  return !v.decimal_is_special() && v.decimal_unscaled() % Pow10(v.decimal_scale()) == 0;
}

f128 ToF128(const Value& v) {
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

// PostgreSQL's estimate_ln_dweight: the decimal weight of ln(v), v > 0.
int EstimateLnDweight(const Value& v) {
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
  int digits = h.d0;
  int dweight = h.weight * 4;
  if (h.more) {
    digits = digits * 10000 + h.d1;
    dweight -= 4;
  }
  const double ln = std::log(static_cast<double>(digits)) + dweight * 2.302585092994046;
  return static_cast<int>(std::log10(std::fabs(ln)));
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
  const int128 u = v.decimal_unscaled();
  const int s = v.decimal_scale();
  const int weight = NumericHeadOf(u, s).weight;
  const int sweight = (weight + 1) * 4 / 2 - 1;
  const int scale = ClampScale(std::max(16 - sweight, s));
  if (scale > kMaxDecimalDigits) return DecOverflow();
  // The root of u * 10^(2 * (scale + 1) - s), at scale + 1, then rounded.
  const int shift = 2 * (scale + 1) - s;
  u128 big = static_cast<u128>(u);
  for (int i = 0; i < shift; ++i) {
    if (big > std::numeric_limits<u128>::max() / 10) return DecOverflow();
    big *= 10;
  }
  u128 r = static_cast<u128>(std::sqrt(static_cast<long double>(big)));
  while (r > 0 && r * r > big) --r;
  while ((r + 1) * (r + 1) <= big) ++r;
  u128 q = r / 10;
  if (r % 10 >= 5) ++q;
  if (q >= static_cast<u128>(Pow10(kMaxDecimalDigits))) return DecOverflow();
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
  if (v.decimal_unscaled() == 0) return LogOfZero();
  if (v.decimal_unscaled() < 0) return LogOfNegative();
  const int rscale = ClampScale(std::max(16 - EstimateLnDweight(v), v.decimal_scale()));
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
  const int dweight = EstimateLnDweight(x) - EstimateLnDweight(b);
  const int rscale = ClampScale(std::max({16 - dweight, b.decimal_scale(), x.decimal_scale()}));
  return FromF128(logq(ToF128(x)) / logq(ToF128(b)), rscale, out);
}
Status LogBaseDec(const SqlType&, const Value* a, size_t, Value* out) {
  return LogOf(a[0], a[1], out);
}
Status Log10Dec(const SqlType&, const Value* a, size_t, Value* out) {
  return LogOf(Value::Decimal(10, 0), a[0], out);
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
  const int128 n = e.decimal_unscaled() / Pow10(e.decimal_scale());
  *out = Value::DecimalInf(n % 2 != 0);
  return true;
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
  if (IsIntegral(e) && fabsq(fe) <= 2147483647) {
    // An integral power (power_var_int): 16 digits after the point, or the
    // base's.
    const int rscale = ClampScale(std::max(16, b.decimal_scale()));
    const int128 n = e.decimal_unscaled() / Pow10(e.decimal_scale());
    if (sb == 0) {
      *out = Value::Decimal(0, std::min(rscale, kMaxDecimalDigits));
      return rscale > kMaxDecimalDigits ? DecOverflow() : Status::OK();
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
    const f128 r = powq(fb, fe);
    if (isinfq(r)) return Status::Overflow("value overflows numeric format");
    return FromF128(r, rscale, out);
  }
  // Any other power: exp(e * ln(|b|)), with the scale PostgreSQL picks from
  // the result's size.
  const f128 ln = logq(fabsq(fb)) * fe;
  double val = static_cast<double>(ln);
  if (std::fabs(val) > 1000 * 3.01) {
    if (val > 0) return Status::Overflow("value overflows numeric format");
    return DecOverflow();  // PostgreSQL: zero at 1000 digits after the point
  }
  val *= 0.434294481903252;
  const int rscale =
      ClampScale(std::max({16 - static_cast<int>(val), b.decimal_scale(), e.decimal_scale()}));
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
