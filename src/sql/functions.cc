#include "sql/functions.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "sql/datetime.h"

namespace sluice::sql {
namespace {

// Numeric ranks: the wider of two operands wins.
int Rank(const SqlType& t) {
  switch (t.id()) {
    case TypeId::kTinyInt:
      return 1;
    case TypeId::kSmallInt:
      return 2;
    case TypeId::kInteger:
      return 3;
    case TypeId::kBigInt:
      return 4;
    case TypeId::kDecimal:
      return 5;
    case TypeId::kReal:
      return 6;
    case TypeId::kDouble:
      return 7;
    default:
      return 0;
  }
}

Status IntOutOfRange(const SqlType& t) {
  switch (t.id()) {
    case TypeId::kSmallInt:
      return Status::Overflow("smallint out of range");
    case TypeId::kInteger:
      return Status::Overflow("integer out of range");
    default:
      return Status::Overflow("bigint out of range");
  }
}

Status CheckInt(const SqlType& t, int128 v, Value* out) {
  int128 lo = INT64_MIN, hi = INT64_MAX;
  if (t.id() == TypeId::kInteger) lo = INT32_MIN, hi = INT32_MAX;
  if (t.id() == TypeId::kSmallInt) lo = INT16_MIN, hi = INT16_MAX;
  if (t.id() == TypeId::kTinyInt) lo = INT8_MIN, hi = INT8_MAX;
  if (v < lo || v > hi) return IntOutOfRange(t);
  *out = Value::Int(static_cast<int64_t>(v));
  return Status::OK();
}

Status DivisionByZero() { return Status::InvalidArgument("division by zero"); }

// ---- integers: computed in 128 bits, then range-checked for the type.
Status AddInt(const SqlType& t, const Value* a, size_t, Value* out) {
  return CheckInt(t, static_cast<int128>(a[0].int_value()) + a[1].int_value(), out);
}
Status SubInt(const SqlType& t, const Value* a, size_t, Value* out) {
  return CheckInt(t, static_cast<int128>(a[0].int_value()) - a[1].int_value(), out);
}
Status MulInt(const SqlType& t, const Value* a, size_t, Value* out) {
  return CheckInt(t, static_cast<int128>(a[0].int_value()) * a[1].int_value(), out);
}
Status DivInt(const SqlType& t, const Value* a, size_t, Value* out) {
  if (a[1].int_value() == 0) return DivisionByZero();
  return CheckInt(t, static_cast<int128>(a[0].int_value()) / a[1].int_value(), out);
}
Status ModInt(const SqlType& t, const Value* a, size_t, Value* out) {
  if (a[1].int_value() == 0) return DivisionByZero();
  return CheckInt(t, static_cast<int128>(a[0].int_value()) % a[1].int_value(), out);
}
Status NegInt(const SqlType& t, const Value* a, size_t, Value* out) {
  return CheckInt(t, -static_cast<int128>(a[0].int_value()), out);
}
Status AbsInt(const SqlType& t, const Value* a, size_t, Value* out) {
  int128 v = a[0].int_value();
  return CheckInt(t, v < 0 ? -v : v, out);
}

// ---- floating point.
Status CheckDouble(const SqlType& t, double d, bool inputs_finite, Value* out) {
  if (std::isinf(d) && inputs_finite) return Status::Overflow("value out of range: overflow");
  if (t.id() == TypeId::kReal) d = static_cast<float>(d);
  *out = Value::Double(d);
  return Status::OK();
}
bool Finite2(const Value* a) {
  return std::isfinite(a[0].double_value()) && std::isfinite(a[1].double_value());
}
Status AddDouble(const SqlType& t, const Value* a, size_t, Value* out) {
  return CheckDouble(t, a[0].double_value() + a[1].double_value(), Finite2(a), out);
}
Status SubDouble(const SqlType& t, const Value* a, size_t, Value* out) {
  return CheckDouble(t, a[0].double_value() - a[1].double_value(), Finite2(a), out);
}
Status MulDouble(const SqlType& t, const Value* a, size_t, Value* out) {
  return CheckDouble(t, a[0].double_value() * a[1].double_value(), Finite2(a), out);
}
Status DivDouble(const SqlType& t, const Value* a, size_t, Value* out) {
  if (a[1].double_value() == 0) return DivisionByZero();
  return CheckDouble(t, a[0].double_value() / a[1].double_value(), Finite2(a), out);
}
Status NegDouble(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Double(-a[0].double_value());
  return Status::OK();
}
Status AbsDouble(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Double(std::fabs(a[0].double_value()));
  return Status::OK();
}

// ---- decimals: unscaled 128-bit integers; each value carries its scale.
Status DecOverflow() { return Status::Overflow("numeric field overflow"); }

bool Align(const Value& x, int scale, int128* out) {
  int d = scale - x.decimal_scale();
  int128 u = x.decimal_unscaled();
  if (d >= 0) return !__builtin_mul_overflow(u, Pow10(d), out);
  int128 f = Pow10(-d), q = u / f, r = u % f;
  if (r * 2 >= f) ++q;
  if (r * 2 <= -f) --q;
  *out = q;
  return true;
}

Status FinishDec(const SqlType& t, int128 u, int scale, Value* out) {
  int128 v;
  Value tmp = Value::Decimal(u, scale);
  if (!Align(tmp, t.scale(), &v) || v >= Pow10(38) || v <= -Pow10(38)) return DecOverflow();
  *out = Value::Decimal(v, t.scale());
  return Status::OK();
}

Status AddDec(const SqlType& t, const Value* a, size_t, Value* out) {
  int s = std::max(a[0].decimal_scale(), a[1].decimal_scale());
  int128 x, y, r;
  if (!Align(a[0], s, &x) || !Align(a[1], s, &y) || __builtin_add_overflow(x, y, &r))
    return DecOverflow();
  return FinishDec(t, r, s, out);
}
Status SubDec(const SqlType& t, const Value* a, size_t, Value* out) {
  int s = std::max(a[0].decimal_scale(), a[1].decimal_scale());
  int128 x, y, r;
  if (!Align(a[0], s, &x) || !Align(a[1], s, &y) || __builtin_sub_overflow(x, y, &r))
    return DecOverflow();
  return FinishDec(t, r, s, out);
}
Status MulDec(const SqlType& t, const Value* a, size_t, Value* out) {
  int128 r;
  if (__builtin_mul_overflow(a[0].decimal_unscaled(), a[1].decimal_unscaled(), &r))
    return DecOverflow();
  return FinishDec(t, r, a[0].decimal_scale() + a[1].decimal_scale(), out);
}
Status DivDec(const SqlType& t, const Value* a, size_t, Value* out) {
  if (a[1].decimal_unscaled() == 0) return DivisionByZero();
  // x / y at scale t.scale(): (x * 10^(ts + sy - sx + 1)) / y, then round.
  int shift = t.scale() + a[1].decimal_scale() - a[0].decimal_scale() + 1;
  int128 x = a[0].decimal_unscaled(), y = a[1].decimal_unscaled();
  if (shift >= 0) {
    if (__builtin_mul_overflow(x, Pow10(shift), &x)) return DecOverflow();
  } else {
    x /= Pow10(-shift);
  }
  int128 q = x / y;  // at scale t.scale() + 1
  int128 r = q % 10;
  q /= 10;
  if (r >= 5) ++q;
  if (r <= -5) --q;
  *out = Value::Decimal(q, t.scale());
  if (q >= Pow10(38) || q <= -Pow10(38)) return DecOverflow();
  return Status::OK();
}
Status ModDec(const SqlType& t, const Value* a, size_t, Value* out) {
  int s = std::max(a[0].decimal_scale(), a[1].decimal_scale());
  int128 x, y;
  if (!Align(a[0], s, &x) || !Align(a[1], s, &y)) return DecOverflow();
  if (y == 0) return DivisionByZero();
  return FinishDec(t, x % y, s, out);
}
Status NegDec(const SqlType& t, const Value* a, size_t, Value* out) {
  return FinishDec(t, -a[0].decimal_unscaled(), a[0].decimal_scale(), out);
}
Status AbsDec(const SqlType& t, const Value* a, size_t, Value* out) {
  int128 u = a[0].decimal_unscaled();
  return FinishDec(t, u < 0 ? -u : u, a[0].decimal_scale(), out);
}

// ---- comparisons (operands already cast to one type).
Status Eq(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(CompareValues(a[0], a[1]) == 0);
  return Status::OK();
}
Status Ne(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(CompareValues(a[0], a[1]) != 0);
  return Status::OK();
}
Status Lt(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(CompareValues(a[0], a[1]) < 0);
  return Status::OK();
}
Status Le(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(CompareValues(a[0], a[1]) <= 0);
  return Status::OK();
}
Status Gt(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(CompareValues(a[0], a[1]) > 0);
  return Status::OK();
}
Status Ge(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(CompareValues(a[0], a[1]) >= 0);
  return Status::OK();
}

// ---- strings.
Status Concat(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::String(a[0].string_value() + a[1].string_value());
  return Status::OK();
}

// SQL LIKE with % and _, and backslash as the escape character.
bool Like(std::string_view s, std::string_view p, bool fold) {
  auto eq = [fold](char x, char y) {
    return fold ? std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y))
                : x == y;
  };
  size_t si = 0, pi = 0, star_p = std::string_view::npos, star_s = 0;
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == '%') {
      star_p = ++pi;
      star_s = si;
    } else if (pi < p.size() && p[pi] == '\\' && pi + 1 < p.size() && eq(s[si], p[pi + 1])) {
      pi += 2;
      ++si;
    } else if (pi < p.size() && p[pi] != '\\' && (p[pi] == '_' || eq(s[si], p[pi]))) {
      ++pi;
      ++si;
    } else if (star_p != std::string_view::npos) {
      pi = star_p;
      si = ++star_s;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '%') ++pi;
  return pi == p.size();
}
Status LikeFn(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(Like(a[0].string_value(), a[1].string_value(), false));
  return Status::OK();
}
Status NotLikeFn(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(!Like(a[0].string_value(), a[1].string_value(), false));
  return Status::OK();
}
Status ILikeFn(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(Like(a[0].string_value(), a[1].string_value(), true));
  return Status::OK();
}
Status NotILikeFn(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(!Like(a[0].string_value(), a[1].string_value(), true));
  return Status::OK();
}
Status Lower(const SqlType&, const Value* a, size_t, Value* out) {
  std::string s = a[0].string_value();
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  *out = Value::String(std::move(s));
  return Status::OK();
}
Status Upper(const SqlType&, const Value* a, size_t, Value* out) {
  std::string s = a[0].string_value();
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  *out = Value::String(std::move(s));
  return Status::OK();
}
Status CharLength(const SqlType&, const Value* a, size_t, Value* out) {
  int64_t n = 0;
  for (char c : a[0].string_value()) n += (static_cast<uint8_t>(c) & 0xC0) != 0x80;
  *out = Value::Int(n);
  return Status::OK();
}

// ---- more string functions (PostgreSQL semantics, positions in characters).
size_t Utf8Offset(const std::string& s, int64_t chars) {
  size_t i = 0;
  for (int64_t n = 0; i < s.size() && n < chars; ++n) {
    ++i;
    while (i < s.size() && (static_cast<uint8_t>(s[i]) & 0xC0) == 0x80) ++i;
  }
  return i;
}
Status Substr(const SqlType&, const Value* a, size_t n, Value* out) {
  const std::string& s = a[0].string_value();
  int64_t start = a[1].int_value();  // 1-based, may be < 1
  int64_t end = INT64_MAX;
  if (n == 3) {
    if (a[2].int_value() < 0)
      return Status::InvalidArgument("negative substring length not allowed");
    end = start + a[2].int_value();
  }
  int64_t from = std::max<int64_t>(start, 1);
  if (end <= from) {
    *out = Value::String("");
    return Status::OK();
  }
  size_t b = Utf8Offset(s, from - 1);
  size_t e = end == INT64_MAX ? s.size() : Utf8Offset(s, end - 1);
  *out = Value::String(s.substr(b, e > b ? e - b : 0));
  return Status::OK();
}
Status TrimBoth(const SqlType&, const Value* a, size_t, Value* out) {
  const std::string& s = a[0].string_value();
  size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  *out = Value::String(b == std::string::npos ? "" : s.substr(b, e - b + 1));
  return Status::OK();
}
Status Replace(const SqlType&, const Value* a, size_t, Value* out) {
  std::string s = a[0].string_value();
  const std::string& from = a[1].string_value();
  const std::string& to = a[2].string_value();
  if (!from.empty()) {
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) {
      s.replace(p, from.size(), to);
    }
  }
  *out = Value::String(std::move(s));
  return Status::OK();
}
Status Position(const SqlType&, const Value* a, size_t, Value* out) {
  // position(substring IN string): args are (string, substring) as parsed.
  const std::string& s = a[0].string_value();
  size_t p = s.find(a[1].string_value());
  if (p == std::string::npos) {
    *out = Value::Int(0);
  } else {
    int64_t chars = 0;
    for (size_t i = 0; i < p; ++i) chars += (static_cast<uint8_t>(s[i]) & 0xC0) != 0x80;
    *out = Value::Int(chars + 1);
  }
  return Status::OK();
}

// ---- more math on doubles.
Status CheckFinite(double d, Value* out) {
  if (std::isnan(d))
    return Status::InvalidArgument("cannot take the root or logarithm of a negative number");
  *out = Value::Double(d);
  return Status::OK();
}
Status Sqrt(const SqlType&, const Value* a, size_t, Value* out) {
  if (a[0].double_value() < 0)
    return Status::InvalidArgument("cannot take square root of a negative number");
  *out = Value::Double(std::sqrt(a[0].double_value()));
  return Status::OK();
}
Status Power(const SqlType&, const Value* a, size_t, Value* out) {
  double x = a[0].double_value(), y = a[1].double_value();
  if (x == 0 && y < 0)
    return Status::InvalidArgument("zero raised to a negative power is undefined");
  if (x < 0 && std::floor(y) != y) {
    return Status::InvalidArgument(
        "a negative number raised to a non-integer power yields a complex result");
  }
  double r = std::pow(x, y);
  if (std::isinf(r) && std::isfinite(x) && std::isfinite(y))
    return Status::Overflow("value out of range: overflow");
  *out = Value::Double(r);
  return Status::OK();
}
Status Ln(const SqlType&, const Value* a, size_t, Value* out) {
  if (a[0].double_value() == 0) return Status::InvalidArgument("cannot take logarithm of zero");
  if (a[0].double_value() < 0)
    return Status::InvalidArgument("cannot take logarithm of a negative number");
  return CheckFinite(std::log(a[0].double_value()), out);
}
Status Exp(const SqlType&, const Value* a, size_t, Value* out) {
  double r = std::exp(a[0].double_value());
  if (std::isinf(r) && std::isfinite(a[0].double_value()))
    return Status::Overflow("value out of range: overflow");
  *out = Value::Double(r);
  return Status::OK();
}
Status FloorD(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Double(std::floor(a[0].double_value()));
  return Status::OK();
}
Status CeilD(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Double(std::ceil(a[0].double_value()));
  return Status::OK();
}
Status RoundD(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Double(std::nearbyint(a[0].double_value()));  // half to even, as rint()
  return Status::OK();
}
Status SignD(const SqlType&, const Value* a, size_t, Value* out) {
  double d = a[0].double_value();
  *out = Value::Double(d > 0 ? 1 : d < 0 ? -1 : 0);
  return Status::OK();
}

// ---- decimals: round/floor/ceil at a scale.
Status RoundDec(const SqlType& t, const Value* a, size_t n, Value* out) {
  int to = n == 2 ? static_cast<int>(std::clamp<int64_t>(a[1].int_value(), -37, 37)) : 0;
  int from = a[0].decimal_scale();
  int128 u = a[0].decimal_unscaled();
  if (to < from) {
    int128 f = Pow10(from - std::max(to, 0)), q = u / f, r = u % f;
    if (r * 2 >= f) ++q;
    if (r * 2 <= -f) --q;
    u = q;
    from = std::max(to, 0);
    if (to < 0) {
      int128 g = Pow10(-to), q2 = u / g, r2 = u % g;
      if (r2 * 2 >= g) ++q2;
      if (r2 * 2 <= -g) --q2;
      u = q2 * g;
    }
  }
  (void)t;
  *out = Value::Decimal(u, from);
  return Status::OK();
}
Status FloorCeilDec(bool ceil, const Value& v, Value* out) {
  int128 f = Pow10(v.decimal_scale()), u = v.decimal_unscaled(), q = u / f, r = u % f;
  if (r != 0 && ((r > 0) == ceil)) q += ceil ? 1 : -1;
  *out = Value::Decimal(q, 0);
  return Status::OK();
}
Status FloorDec(const SqlType&, const Value* a, size_t, Value* out) {
  return FloorCeilDec(false, a[0], out);
}
Status CeilDec(const SqlType&, const Value* a, size_t, Value* out) {
  return FloorCeilDec(true, a[0], out);
}
Status SignDec(const SqlType&, const Value* a, size_t, Value* out) {
  int128 u = a[0].decimal_unscaled();
  *out = Value::Decimal(u > 0 ? 1 : u < 0 ? -1 : 0, 0);
  return Status::OK();
}
Status SignInt(const SqlType&, const Value* a, size_t, Value* out) {
  int64_t v = a[0].int_value();
  *out = Value::Int(v > 0 ? 1 : v < 0 ? -1 : 0);
  return Status::OK();
}
Status Identity(const SqlType&, const Value* a, size_t, Value* out) {
  *out = a[0];
  return Status::OK();
}

// ---- dates, timestamps, intervals.
Status TsPlusInterval(const SqlType&, const Value* a, size_t, Value* out) {
  int64_t r;
  if (!AddInterval(a[0].int_value(), a[1].interval_value(), +1, &r)) {
    return Status::Overflow("timestamp out of range");
  }
  *out = Value::Int(r);
  return Status::OK();
}
Status TsMinusInterval(const SqlType&, const Value* a, size_t, Value* out) {
  int64_t r;
  if (!AddInterval(a[0].int_value(), a[1].interval_value(), -1, &r)) {
    return Status::Overflow("timestamp out of range");
  }
  *out = Value::Int(r);
  return Status::OK();
}
Status IntervalPlusTs(const SqlType& t, const Value* a, size_t n, Value* out) {
  Value swapped[2] = {a[1], a[0]};
  return TsPlusInterval(t, swapped, n, out);
}
Status TsMinusTs(const SqlType&, const Value* a, size_t, Value* out) {
  // PostgreSQL: whole days, and the rest as time.
  int64_t d = a[0].int_value() - a[1].int_value();
  int64_t days = d / kMicrosPerDay;
  *out = Value::MakeInterval(0, static_cast<int32_t>(days), d - days * kMicrosPerDay);
  return Status::OK();
}
Status DatePlusInt(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Int(a[0].int_value() + a[1].int_value());
  return Status::OK();
}
Status DateMinusInt(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Int(a[0].int_value() - a[1].int_value());
  return Status::OK();
}
Status DateMinusDate(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Int(a[0].int_value() - a[1].int_value());
  return Status::OK();
}
Status IntervalAdd(const SqlType&, const Value* a, size_t, Value* out) {
  const Interval& x = a[0].interval_value();
  const Interval& y = a[1].interval_value();
  *out = Value::MakeInterval(x.months + y.months, x.days + y.days, x.micros + y.micros);
  return Status::OK();
}
Status IntervalSub(const SqlType&, const Value* a, size_t, Value* out) {
  const Interval& x = a[0].interval_value();
  const Interval& y = a[1].interval_value();
  *out = Value::MakeInterval(x.months - y.months, x.days - y.days, x.micros - y.micros);
  return Status::OK();
}
// date_bin(stride, source, origin): the start of the stride-long bin that
// holds source, counting bins from origin (tumbling windows).
Status DateBin(const SqlType&, const Value* a, size_t, Value* out) {
  const Interval& iv = a[0].interval_value();
  if (iv.months != 0) {
    return Status::InvalidArgument(
        "timestamps cannot be binned into intervals containing months or years");
  }
  int64_t stride = iv.days * kMicrosPerDay + iv.micros;
  if (stride <= 0) return Status::InvalidArgument("stride must be greater than zero");
  int64_t diff = a[1].int_value() - a[2].int_value();
  int64_t bins = diff / stride - (diff % stride < 0);
  *out = Value::Int(a[2].int_value() + bins * stride);
  return Status::OK();
}
Status DateTrunc(const SqlType&, const Value* a, size_t, Value* out) {
  std::string unit = a[0].string_value();
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  int64_t ts = a[1].int_value();
  int64_t days = ts / kMicrosPerDay - (ts % kMicrosPerDay < 0);
  int64_t clock = ts - days * kMicrosPerDay;
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  int64_t r;
  if (unit == "year") {
    r = DaysFromCivil(y, 1, 1) * kMicrosPerDay;
  } else if (unit == "quarter") {
    r = DaysFromCivil(y, (m - 1) / 3 * 3 + 1, 1) * kMicrosPerDay;
  } else if (unit == "month") {
    r = DaysFromCivil(y, m, 1) * kMicrosPerDay;
  } else if (unit == "week") {
    int64_t dow = ((days + 3) % 7 + 7) % 7;  // 0 = Monday
    r = (days - dow) * kMicrosPerDay;
  } else if (unit == "day") {
    r = days * kMicrosPerDay;
  } else if (unit == "hour" || unit == "minute" || unit == "second" || unit == "milliseconds" ||
             unit == "millisecond") {
    int64_t q = unit == "hour"     ? 3600000000LL
                : unit == "minute" ? 60000000LL
                : unit == "second" ? 1000000
                                   : 1000;
    r = days * kMicrosPerDay + clock / q * q;
  } else {
    return Status::InvalidArgument("unit \"" + unit + "\" not recognized for type timestamp");
  }
  *out = Value::Int(r);
  return Status::OK();
}
Status Extract(const SqlType&, const Value* a, size_t, Value* out) {
  std::string field = a[0].string_value();
  for (char& c : field) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  int64_t ts = a[1].int_value();
  int64_t days = ts / kMicrosPerDay - (ts % kMicrosPerDay < 0);
  int64_t clock = ts - days * kMicrosPerDay;
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  int128 v;  // at scale 6
  if (field == "year") {
    v = static_cast<int128>(y) * 1000000;
  } else if (field == "month") {
    v = static_cast<int128>(m) * 1000000;
  } else if (field == "day") {
    v = static_cast<int128>(d) * 1000000;
  } else if (field == "hour") {
    v = static_cast<int128>(clock / 3600000000LL) * 1000000;
  } else if (field == "minute") {
    v = static_cast<int128>(clock / 60000000 % 60) * 1000000;
  } else if (field == "second") {
    v = clock % 60000000;
  } else if (field == "dow") {
    v = static_cast<int128>(((days + 4) % 7 + 7) % 7) * 1000000;  // 0 = Sunday
  } else if (field == "doy") {
    v = static_cast<int128>(days - DaysFromCivil(y, 1, 1) + 1) * 1000000;
  } else if (field == "epoch") {
    v = ts;
  } else if (field == "quarter") {
    v = static_cast<int128>((m - 1) / 3 + 1) * 1000000;
  } else {
    return Status::InvalidArgument("unit \"" + field + "\" not recognized for type timestamp");
  }
  *out = Value::Decimal(v, 6);
  return Status::OK();
}

SqlType Text() { return SqlType::Varchar(); }
SqlType Bool() { return SqlType::Boolean(); }

Status NoOperator(std::string_view name, const std::vector<SqlType>& args) {
  std::string msg;
  bool is_op = !name.empty() && !std::isalpha(static_cast<unsigned char>(name[0]));
  if (is_op) {
    msg = "operator does not exist: ";
    if (args.size() == 1) {
      msg += std::string(name) + " " + PgTypeName(args[0]);
    } else {
      msg += PgTypeName(args[0]) + " " + std::string(name) + " " + PgTypeName(args[1]);
    }
  } else {
    msg = "function " + std::string(name) + "(";
    for (size_t i = 0; i < args.size(); ++i) msg += (i ? ", " : "") + PgTypeName(args[i]);
    msg += ") does not exist";
  }
  return Status::InvalidArgument(msg);
}

}  // namespace

bool IsNumeric(const SqlType& t) { return Rank(t) > 0; }

std::string PgTypeName(const SqlType& t) {
  switch (t.id()) {
    case TypeId::kBoolean:
      return "boolean";
    case TypeId::kTinyInt:
      return "tinyint";
    case TypeId::kSmallInt:
      return "smallint";
    case TypeId::kInteger:
      return "integer";
    case TypeId::kBigInt:
      return "bigint";
    case TypeId::kDecimal:
      return "numeric";
    case TypeId::kReal:
      return "real";
    case TypeId::kDouble:
      return "double precision";
    case TypeId::kChar:
      return "character";
    case TypeId::kVarchar:
      return t.length() < 0 ? "text" : "character varying";
    case TypeId::kBinary:
    case TypeId::kVarbinary:
      return "bytea";
    case TypeId::kDate:
      return "date";
    case TypeId::kTime:
      return "time without time zone";
    case TypeId::kTimestamp:
      return "timestamp without time zone";
    case TypeId::kInterval:
      return "interval";
    default:
      return t.ToString();
  }
}

Result<SqlType> CommonType(const SqlType& a, const SqlType& b) {
  if (IsNumeric(a) && IsNumeric(b)) {
    const SqlType& w = Rank(a) >= Rank(b) ? a : b;
    if (w.id() == TypeId::kReal && (Rank(a) == 5 || Rank(b) == 5 || Rank(a) == 4 || Rank(b) == 4)) {
      return SqlType::Double();
    }
    if (w.id() == TypeId::kDecimal) {
      int s = std::max(a.id() == TypeId::kDecimal ? a.scale() : 0,
                       b.id() == TypeId::kDecimal ? b.scale() : 0);
      return SqlType::Decimal(38, s);
    }
    return w.WithNullable(true);
  }
  if (a.IsString() && b.IsString()) return Text();
  auto is_dt = [](const SqlType& t) {
    return t.id() == TypeId::kDate || t.id() == TypeId::kTimestamp;
  };
  if (is_dt(a) && is_dt(b) && a.id() != b.id()) return SqlType::Timestamp();
  if (a.id() == b.id()) return a.WithNullable(true);
  return Status::InvalidArgument("types " + PgTypeName(a) + " and " + PgTypeName(b) +
                                 " cannot be matched");
}

Result<ResolvedFn> ResolveFunction(std::string_view name, const std::vector<SqlType>& args) {
  ResolvedFn r;
  r.name = "";
  auto arith = [&](ScalarFn i, ScalarFn d, ScalarFn n, const char* nm, bool is_div,
                   bool is_mul) -> Result<ResolvedFn> {
    if (args.size() != 2 || !IsNumeric(args[0]) || !IsNumeric(args[1])) {
      return NoOperator(name, args);
    }
    SLUICE_ASSIGN_OR_RETURN(SqlType t, CommonType(args[0], args[1]));
    r.name = nm;
    r.arg_types = {t, t};
    if (t.IsInteger()) {
      r.fn = i;
      r.result = t;
    } else if (t.id() == TypeId::kDecimal) {
      if (n == nullptr) return NoOperator(name, args);
      r.fn = n;
      int s1 = args[0].id() == TypeId::kDecimal ? args[0].scale() : 0;
      int s2 = args[1].id() == TypeId::kDecimal ? args[1].scale() : 0;
      int s = is_div   ? std::min(32, std::max({s1, s2, 16}))
              : is_mul ? std::min(32, s1 + s2)
                       : std::max(s1, s2);
      r.result = SqlType::Decimal(38, s);
      // Decimal operands keep their own scales.
      r.arg_types = {args[0].id() == TypeId::kDecimal ? args[0] : SqlType::Decimal(38, 0),
                     args[1].id() == TypeId::kDecimal ? args[1] : SqlType::Decimal(38, 0)};
    } else {
      if (d == nullptr) return NoOperator(name, args);
      r.fn = d;
      r.result = t;
    }
    return r;
  };
  if ((name == "+" || name == "-") && args.size() == 2) {
    const TypeId x = args[0].id(), y = args[1].id();
    const bool plus = name == "+";
    auto dt = [&](ScalarFn fn, SqlType a0, SqlType a1, SqlType res) {
      r.fn = fn;
      r.name = plus ? "+" : "-";
      r.arg_types = {a0, a1};
      r.result = res;
      return r;
    };
    const SqlType ts = SqlType::Timestamp(), iv = SqlType::Interval(), date = SqlType::Date();
    if ((x == TypeId::kTimestamp || x == TypeId::kDate) && y == TypeId::kInterval) {
      return dt(plus ? TsPlusInterval : TsMinusInterval, ts, iv, ts);
    }
    if (plus && x == TypeId::kInterval && (y == TypeId::kTimestamp || y == TypeId::kDate)) {
      return dt(IntervalPlusTs, iv, ts, ts);
    }
    if (!plus && x == TypeId::kTimestamp && y == TypeId::kTimestamp)
      return dt(TsMinusTs, ts, ts, iv);
    if (x == TypeId::kDate && args[1].IsInteger()) {
      return dt(plus ? DatePlusInt : DateMinusInt, date, SqlType::Integer(), date);
    }
    if (!plus && x == TypeId::kDate && y == TypeId::kDate)
      return dt(DateMinusDate, date, date, SqlType::Integer());
    if (x == TypeId::kInterval && y == TypeId::kInterval)
      return dt(plus ? IntervalAdd : IntervalSub, iv, iv, iv);
  }
  if (name == "date_bin" && args.size() == 3 && args[0].id() == TypeId::kInterval) {
    r.fn = DateBin;
    r.name = "date_bin";
    r.arg_types = {SqlType::Interval(), SqlType::Timestamp(), SqlType::Timestamp()};
    r.result = SqlType::Timestamp();
    return r;
  }
  if (name == "date_trunc" && args.size() == 2 && args[0].IsString() &&
      (args[1].id() == TypeId::kTimestamp || args[1].id() == TypeId::kDate)) {
    r.fn = DateTrunc;
    r.name = "date_trunc";
    r.arg_types = {Text(), SqlType::Timestamp()};
    r.result = SqlType::Timestamp();
    return r;
  }
  if ((name == "extract" || name == "date_part") && args.size() == 2 && args[0].IsString() &&
      (args[1].id() == TypeId::kTimestamp || args[1].id() == TypeId::kDate)) {
    r.fn = Extract;
    r.name = "extract";
    r.arg_types = {Text(), SqlType::Timestamp()};
    r.result = SqlType::Decimal(38, 6);
    return r;
  }
  if (name == "+" && args.size() == 2) return arith(AddInt, AddDouble, AddDec, "+", false, false);
  if (name == "-" && args.size() == 2) return arith(SubInt, SubDouble, SubDec, "-", false, false);
  if (name == "*") return arith(MulInt, MulDouble, MulDec, "*", false, true);
  if (name == "/") return arith(DivInt, DivDouble, DivDec, "/", true, false);
  if (name == "%" || name == "mod") return arith(ModInt, nullptr, ModDec, "%", false, false);
  if (name == "+" && args.size() == 1 && args[0].IsString()) {
    // Unary plus is the identity on text too. PostgreSQL has no such
    // operator; other engines accept it, and it can do no harm.
    r.arg_types = {args[0]};
    r.result = args[0].WithNullable(true);
    r.name = "+";
    r.fn = [](const SqlType&, const Value* a, size_t, Value* out) {
      *out = a[0];
      return Status::OK();
    };
    return r;
  }
  if ((name == "-" || name == "+" || name == "abs" || name == "@") && args.size() == 1) {
    const SqlType& t = args[0];
    if (!IsNumeric(t)) return NoOperator(name, args);
    r.arg_types = {t};
    r.result = t.WithNullable(true);
    bool neg = name == "-";
    if (name == "+") {
      r.fn = [](const SqlType&, const Value* a, size_t, Value* out) {
        *out = a[0];
        return Status::OK();
      };
      r.name = "+";
      return r;
    }
    r.name = neg ? "-" : "abs";
    r.fn = t.IsInteger()                ? (neg ? NegInt : AbsInt)
           : t.id() == TypeId::kDecimal ? (neg ? NegDec : AbsDec)
                                        : (neg ? NegDouble : AbsDouble);
    return r;
  }
  struct Cmp {
    const char* name;
    ScalarFn fn;
  };
  static const Cmp kCmps[] = {{"=", Eq},  {"<>", Ne}, {"!=", Ne}, {"<", Lt},
                              {"<=", Le}, {">", Gt},  {">=", Ge}};
  for (const Cmp& c : kCmps) {
    if (name != c.name) continue;
    if (args.size() != 2) return NoOperator(name, args);
    auto t = CommonType(args[0], args[1]);
    if (!t.ok()) return NoOperator(name, args);
    r.fn = c.fn;
    r.name = c.name;
    r.result = Bool();
    r.arg_types = {*t, *t};
    return r;
  }
  if (name == "||" && args.size() == 2) {
    if (!args[0].IsString() && !args[1].IsString()) return NoOperator(name, args);
    r.fn = Concat;
    r.name = "||";
    r.result = Text();
    r.arg_types = {Text(), Text()};
    return r;
  }
  struct StrFn {
    const char* name;
    ScalarFn fn;
    size_t nargs;
  };
  static const StrFn kLikes[] = {
      {"~~", LikeFn, 2}, {"!~~", NotLikeFn, 2}, {"~~*", ILikeFn, 2}, {"!~~*", NotILikeFn, 2}};
  for (const StrFn& f : kLikes) {
    if (name != f.name) continue;
    if (args.size() != 2 || !args[0].IsString() || !args[1].IsString())
      return NoOperator(name, args);
    r.fn = f.fn;
    r.name = f.name;
    r.result = Bool();
    r.arg_types = {Text(), Text()};
    return r;
  }
  if ((name == "lower" || name == "upper") && args.size() == 1 && args[0].IsString()) {
    r.fn = name == "lower" ? Lower : Upper;
    r.name = name == "lower" ? "lower" : "upper";
    r.result = Text();
    r.arg_types = {Text()};
    return r;
  }
  if ((name == "length" || name == "char_length" || name == "character_length") &&
      args.size() == 1 && args[0].IsString()) {
    r.fn = CharLength;
    r.name = "char_length";
    r.result = SqlType::Integer();
    r.arg_types = {Text()};
    return r;
  }
  // Strings.
  auto all_text = [&](size_t from, size_t to) {
    for (size_t i = from; i < to && i < args.size(); ++i) {
      if (!args[i].IsString()) return false;
    }
    return true;
  };
  if ((name == "substr" || name == "substring") && (args.size() == 2 || args.size() == 3) &&
      args[0].IsString() && args[1].IsInteger() && (args.size() == 2 || args[2].IsInteger())) {
    r.fn = Substr;
    r.name = "substr";
    r.result = Text();
    r.arg_types = {Text(), SqlType::BigInt()};
    if (args.size() == 3) r.arg_types.push_back(SqlType::BigInt());
    return r;
  }
  if ((name == "btrim" || name == "trim") && args.size() == 1 && args[0].IsString()) {
    r.fn = TrimBoth;
    r.name = "btrim";
    r.result = Text();
    r.arg_types = {Text()};
    return r;
  }
  if (name == "replace" && args.size() == 3 && all_text(0, 3)) {
    r.fn = Replace;
    r.name = "replace";
    r.result = Text();
    r.arg_types = {Text(), Text(), Text()};
    return r;
  }
  if ((name == "position" || name == "strpos") && args.size() == 2 && all_text(0, 2)) {
    r.fn = Position;
    r.name = "strpos";
    r.result = SqlType::Integer();
    r.arg_types = {Text(), Text()};
    return r;
  }
  // Math: doubles, and exact versions for integers and decimals.
  auto num1 = args.size() == 1 && IsNumeric(args[0]);
  if (num1 && (name == "sqrt" || name == "ln" || name == "exp")) {
    r.fn = name == "sqrt" ? Sqrt : name == "ln" ? Ln : Exp;
    r.name = name == "sqrt" ? "sqrt" : name == "ln" ? "ln" : "exp";
    r.result = SqlType::Double();
    r.arg_types = {SqlType::Double()};
    return r;
  }
  if ((name == "power" || name == "pow") && args.size() == 2 && IsNumeric(args[0]) &&
      IsNumeric(args[1])) {
    r.fn = Power;
    r.name = "power";
    r.result = SqlType::Double();
    r.arg_types = {SqlType::Double(), SqlType::Double()};
    return r;
  }
  if (num1 && (name == "floor" || name == "ceil" || name == "ceiling" || name == "round" ||
               name == "sign" || name == "trunc")) {
    const SqlType& t = args[0];
    r.arg_types = {t};
    r.name = name == "ceiling" ? "ceil"
             : name == "floor" ? "floor"
             : name == "ceil"  ? "ceil"
             : name == "round" ? "round"
             : name == "sign"  ? "sign"
                               : "trunc";
    if (t.IsInteger()) {
      r.fn = name == "sign" ? SignInt : Identity;
      r.result = t.WithNullable(true);
    } else if (t.id() == TypeId::kDecimal) {
      r.fn = name == "sign"                          ? SignDec
             : name == "round"                       ? RoundDec
             : (name == "ceil" || name == "ceiling") ? CeilDec
             : name == "floor"                       ? FloorDec
                                                     : nullptr;
      if (r.fn == nullptr) return NoOperator(name, args);
      r.result = SqlType::Decimal(38, 0);
    } else {
      r.fn = name == "sign"                          ? SignD
             : name == "round"                       ? RoundD
             : (name == "ceil" || name == "ceiling") ? CeilD
             : name == "floor"                       ? FloorD
                                                     : nullptr;
      if (r.fn == nullptr) return NoOperator(name, args);
      r.result = SqlType::Double();
      r.arg_types = {SqlType::Double()};
    }
    return r;
  }
  if (name == "round" && args.size() == 2 && IsNumeric(args[0]) && args[1].IsInteger()) {
    int scale = 38;  // the result keeps the digits the value has (at most)
    r.fn = RoundDec;
    r.name = "round";
    r.arg_types = {args[0].id() == TypeId::kDecimal
                       ? args[0]
                       : SqlType::Decimal(38, args[0].IsInteger() ? 0 : 16),
                   SqlType::Integer()};
    r.result = SqlType::Decimal(38, std::min(scale, 16));
    return r;
  }
  return NoOperator(name, args);
}

}  // namespace sluice::sql
