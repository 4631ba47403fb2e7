#include "sql/functions.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <limits>
#include <string>

#include "base/suggest.h"
#include "sql/functions_internal.h"
#include "types/big_decimal.h"

namespace sluice::sql {

namespace {
#include "sql/pg_names.inc"
}  // namespace

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
      return t.pg_kind() == PgKind::kMoney ? 0 : 4;  // money is no number to SQL
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

}  // namespace

// ---- floating point.
Status CheckDouble(const SqlType& t, double d, bool inputs_finite, bool nonzero_expected,
                   Value* out) {
  if (t.id() == TypeId::kReal) d = static_cast<float>(d);
  if (std::isinf(d) && inputs_finite) return Status::Overflow("value out of range: overflow");
  if (d == 0 && nonzero_expected) return Status::Overflow("value out of range: underflow");
  *out = Value::Double(d);
  return Status::OK();
}

namespace {

bool Finite2(const Value* a) {
  return std::isfinite(a[0].double_value()) && std::isfinite(a[1].double_value());
}
Status AddDouble(const SqlType& t, const Value* a, size_t, Value* out) {
  return CheckDouble(t, a[0].double_value() + a[1].double_value(), Finite2(a), false, out);
}
Status SubDouble(const SqlType& t, const Value* a, size_t, Value* out) {
  return CheckDouble(t, a[0].double_value() - a[1].double_value(), Finite2(a), false, out);
}
Status MulDouble(const SqlType& t, const Value* a, size_t, Value* out) {
  double x = a[0].double_value(), y = a[1].double_value();
  return CheckDouble(t, x * y, Finite2(a), x != 0 && y != 0, out);
}
Status DivDouble(const SqlType& t, const Value* a, size_t, Value* out) {
  double x = a[0].double_value(), y = a[1].double_value();
  // NaN / 0 is NaN, as PostgreSQL has it.
  if (y == 0 && !std::isnan(x)) return DivisionByZero();
  return CheckDouble(t, x / y, Finite2(a), x != 0 && !std::isinf(y), out);
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

// A result of arbitrary precision: rounded to the type's scale if it has
// one, in the int128 form if it fits.
Status FinishBig(const SqlType& t, BigDecimal b, Value* out) {
  if (!t.dynamic_scale()) b = b.Round(t.scale());
  if (b.scale() > kMaxNumericScale) b = b.Round(kMaxNumericScale);
  if (!BigDecimalInFormat(b)) return Status::Overflow("value overflows numeric format");
  *out = b.ToValue();
  return Status::OK();
}

bool AnyWide(const Value* a, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (a[i].decimal_wide() != nullptr) return true;
  }
  return false;
}

// The arbitrary-precision paths of the operators, apart from their int128
// paths so that those stay small.
enum class BigOp { kAdd, kSub, kMul, kMod, kNeg, kAbs, kSame };
[[gnu::noinline]] Status BigArith(BigOp op, const SqlType& t, const Value* a, Value* out) {
  const BigDecimal x = BigDecimal::FromValue(a[0]);
  switch (op) {
    case BigOp::kAdd:
      return FinishBig(t, BigDecimal::Add(x, BigDecimal::FromValue(a[1])), out);
    case BigOp::kSub:
      return FinishBig(t, BigDecimal::Sub(x, BigDecimal::FromValue(a[1])), out);
    case BigOp::kMul:
      return FinishBig(t, BigDecimal::Mul(x, BigDecimal::FromValue(a[1])), out);
    case BigOp::kMod:
      return FinishBig(t, BigDecimal::Mod(x, BigDecimal::FromValue(a[1])), out);
    case BigOp::kNeg:
      return FinishBig(t, x.Negated(), out);
    case BigOp::kAbs:
      return FinishBig(t, x.Abs(), out);
    case BigOp::kSame:
      break;
  }
  return FinishBig(t, x, out);
}
[[gnu::noinline]] Status FinishInt128Big(const SqlType& t, int128 u, int scale, Value* out) {
  return FinishBig(t, BigDecimal::FromInt128(u, scale), out);
}
[[gnu::noinline]] Status DivBig(const SqlType& t, const Value* a, Value* out) {
  const BigDecimal x = BigDecimal::FromValue(a[0]), y = BigDecimal::FromValue(a[1]);
  const int scale = t.dynamic_scale() ? BigDecimal::DivScale(x, y) : t.scale();
  return FinishBig(t, BigDecimal::Div(x, y, scale), out);
}

Status FinishDec(const SqlType& t, int128 u, int scale, Value* out) {
  if (t.dynamic_scale()) {
    if (u >= Pow10(38) || u <= -Pow10(38) || scale > kMaxDecimalDigits) {
      return FinishInt128Big(t, u, scale, out);
    }
    *out = Value::Decimal(u, scale);
    return Status::OK();
  }
  int128 v;
  Value tmp = Value::Decimal(u, scale);
  if (scale > kMaxDecimalDigits || t.scale() > kMaxDecimalDigits || !Align(tmp, t.scale(), &v) ||
      v >= Pow10(38) || v <= -Pow10(38)) {
    return FinishInt128Big(t, u, scale, out);
  }
  *out = Value::Decimal(v, t.scale());
  return Status::OK();
}

Status Extreme(int sign, const Value* a, size_t n, Value* out) {
  *out = Value::Null();
  for (size_t i = 0; i < n; ++i) {
    if (a[i].is_null()) continue;
    if (out->is_null() || CompareValues(a[i], *out) * sign > 0) *out = a[i];
  }
  return Status::OK();
}
Status Greatest(const SqlType&, const Value* a, size_t n, Value* out) {
  return Extreme(1, a, n, out);
}
Status Least(const SqlType&, const Value* a, size_t n, Value* out) {
  return Extreme(-1, a, n, out);
}

// PostgreSQL's arithmetic of the special numerics. Each returns true and
// sets *out (or *st) if an operand is special; false leaves the finite case
// to its caller.
Value InfOfSign(int sign) { return Value::DecimalInf(sign < 0); }

bool SpecialAddSub(const Value& x, const Value& y, bool sub, Value* out) {
  if (!x.decimal_is_special() && !y.decimal_is_special()) return false;
  int ix = InfSign(x), iy = sub ? -InfSign(y) : InfSign(y);
  if (IsNaN(x) || IsNaN(y) || (ix != 0 && iy != 0 && ix != iy)) {
    *out = Value::DecimalNaN();
  } else {
    *out = InfOfSign(ix != 0 ? ix : iy);
  }
  return true;
}

Status AddDec(const SqlType& t, const Value* a, size_t, Value* out) {
  if (SpecialAddSub(a[0], a[1], false, out)) return Status::OK();
  int s = std::max(a[0].decimal_scale(), a[1].decimal_scale());
  int128 x, y, r;
  if (AnyWide(a, 2) || !Align(a[0], s, &x) || !Align(a[1], s, &y) ||
      __builtin_add_overflow(x, y, &r)) {
    return BigArith(BigOp::kAdd, t, a, out);
  }
  return FinishDec(t, r, s, out);
}
Status SubDec(const SqlType& t, const Value* a, size_t, Value* out) {
  if (SpecialAddSub(a[0], a[1], true, out)) return Status::OK();
  int s = std::max(a[0].decimal_scale(), a[1].decimal_scale());
  int128 x, y, r;
  if (AnyWide(a, 2) || !Align(a[0], s, &x) || !Align(a[1], s, &y) ||
      __builtin_sub_overflow(x, y, &r)) {
    return BigArith(BigOp::kSub, t, a, out);
  }
  return FinishDec(t, r, s, out);
}
Status MulDec(const SqlType& t, const Value* a, size_t, Value* out) {
  if (a[0].decimal_is_special() || a[1].decimal_is_special()) {
    // Infinity times zero is NaN; otherwise the signs multiply.
    int sx = a[0].decimal_is_special() ? InfSign(a[0]) : FiniteSign(a[0]);
    int sy = a[1].decimal_is_special() ? InfSign(a[1]) : FiniteSign(a[1]);
    *out = IsNaN(a[0]) || IsNaN(a[1]) || sx * sy == 0 ? Value::DecimalNaN() : InfOfSign(sx * sy);
    return Status::OK();
  }
  int128 r;
  if (AnyWide(a, 2) ||
      __builtin_mul_overflow(a[0].decimal_unscaled(), a[1].decimal_unscaled(), &r)) {
    return BigArith(BigOp::kMul, t, a, out);
  }
  return FinishDec(t, r, a[0].decimal_scale() + a[1].decimal_scale(), out);
}
Status DivDec(const SqlType& t, const Value* a, size_t, Value* out) {
  if (a[0].decimal_is_special() || a[1].decimal_is_special()) {
    if (IsNaN(a[0]) || IsNaN(a[1])) {
      *out = Value::DecimalNaN();
    } else if (InfSign(a[0]) != 0) {
      // Infinity over infinity is NaN, over zero an error, else infinite.
      if (a[1].decimal_is_special()) {
        *out = Value::DecimalNaN();
      } else if (FiniteSign(a[1]) == 0) {
        return DivisionByZero();
      } else {
        *out = InfOfSign(InfSign(a[0]) * FiniteSign(a[1]));
      }
    } else {
      *out = Value::Decimal(0, t.dynamic_scale() ? 0 : t.scale());  // finite over infinite
    }
    return Status::OK();
  }
  if (FiniteSign(a[1]) == 0) return DivisionByZero();
  if (!AnyWide(a, 2)) {
    const int128 x = a[0].decimal_unscaled(), y = a[1].decimal_unscaled();
    const int sx = a[0].decimal_scale(), sy = a[1].decimal_scale();
    const int scale = t.dynamic_scale() ? NumericDivScale(x, sx, y, sy) : t.scale();
    int128 q;
    if (scale <= kMaxDecimalDigits && DivideDecimal(x, sx, y, sy, scale, &q)) {
      *out = Value::Decimal(q, scale);
      return Status::OK();
    }
  }
  return DivBig(t, a, out);
}
Status ModDec(const SqlType& t, const Value* a, size_t, Value* out) {
  if (a[0].decimal_is_special() || a[1].decimal_is_special()) {
    if (IsNaN(a[0]) || IsNaN(a[1])) {
      *out = Value::DecimalNaN();
    } else if (InfSign(a[0]) != 0) {
      if (!a[1].decimal_is_special() && FiniteSign(a[1]) == 0) return DivisionByZero();
      *out = Value::DecimalNaN();
    } else {
      return BigArith(BigOp::kSame, t, a, out);  // x % inf = x
    }
    return Status::OK();
  }
  if (FiniteSign(a[1]) == 0) return DivisionByZero();
  int s = std::max(a[0].decimal_scale(), a[1].decimal_scale());
  int128 x, y;
  if (AnyWide(a, 2) || !Align(a[0], s, &x) || !Align(a[1], s, &y)) {
    return BigArith(BigOp::kMod, t, a, out);
  }
  return FinishDec(t, x % y, s, out);
}
Status NegDec(const SqlType& t, const Value* a, size_t, Value* out) {
  if (a[0].decimal_is_special()) {
    *out = IsNaN(a[0]) ? a[0] : InfOfSign(-InfSign(a[0]));
    return Status::OK();
  }
  if (AnyWide(a, 1)) return BigArith(BigOp::kNeg, t, a, out);
  return FinishDec(t, -a[0].decimal_unscaled(), a[0].decimal_scale(), out);
}
Status AbsDec(const SqlType& t, const Value* a, size_t, Value* out) {
  if (a[0].decimal_is_special()) {
    *out = IsNaN(a[0]) ? a[0] : InfOfSign(1);
    return Status::OK();
  }
  if (AnyWide(a, 1)) return BigArith(BigOp::kAbs, t, a, out);
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
  // PostgreSQL's names (as information_schema gives them), except that a
  // TINYINT and an array say what they are.
  switch (t.id()) {
    case TypeId::kTinyInt:
      return "tinyint";
    case TypeId::kArray:
      if (t.IsPgArrayKind()) return PostgresDataType(t);
      return PgTypeName(t.children()[0]) + "[]";
    case TypeId::kRow:
      return "record";
    case TypeId::kMap:
    case TypeId::kVariant:
      return t.ToString();
    default:
      return PostgresDataType(t);
  }
}

Result<SqlType> CommonType(const SqlType& a, const SqlType& b) {
  if (a.pg_kind() == PgKind::kMoney || b.pg_kind() == PgKind::kMoney) {
    if (a.pg_kind() == b.pg_kind()) return a.WithNullable(true);
    return Status::InvalidArgument("types " + PgTypeName(a) + " and " + PgTypeName(b) +
                                   " cannot be matched");
  }
  if (a.IsPgArrayKind() || b.IsPgArrayKind()) {
    // int2vector, oidvector and point meet only themselves; a vector with
    // another array is that array (PostgreSQL casts it implicitly).
    if (a.pg_kind() == b.pg_kind()) return a.WithNullable(true);
    if (a.pg_kind() != PgKind::kPoint && b.pg_kind() != PgKind::kPoint && a.id() == b.id()) {
      const SqlType& plain = a.IsPgArrayKind() ? b : a;
      if (plain.IsSqlArray()) return CommonType(SqlType::Array(a.children()[0]), plain);
    }
    return Status::InvalidArgument("types " + PgTypeName(a) + " and " + PgTypeName(b) +
                                   " cannot be matched");
  }
  if (a.is_json() || b.is_json()) {
    if (a.is_json() && b.is_json() && a.is_jsonb() == b.is_jsonb()) return a.WithNullable(true);
    return Status::InvalidArgument("types " + PgTypeName(a) + " and " + PgTypeName(b) +
                                   " cannot be matched");
  }
  if (IsNumeric(a) && IsNumeric(b)) {
    const SqlType& w = Rank(a) >= Rank(b) ? a : b;
    if (w.id() == TypeId::kReal && (Rank(a) == 5 || Rank(b) == 5 || Rank(a) == 4 || Rank(b) == 4)) {
      return SqlType::Double();
    }
    if (w.id() == TypeId::kDecimal) {
      // PostgreSQL's numeric keeps each value's scale: 1.1 and 2 together
      // are 1.1 and 2, not 2.0. Two decimals of one scale stay static.
      if (a.id() == TypeId::kDecimal && b.id() == TypeId::kDecimal && a.scale() == b.scale()) {
        return a.dynamic_scale() ? SqlType::Numeric() : SqlType::Decimal(38, a.scale());
      }
      return SqlType::Numeric();
    }
    return w.WithNullable(true);
  }
  if (a.IsString() && b.IsString()) {
    // CHAR(n) with CHAR(n) stays CHAR(n), its values printed padded.
    if (a.id() == TypeId::kChar && b.id() == TypeId::kChar && a.length() == b.length()) {
      return a.WithNullable(true);
    }
    return Text();
  }
  auto is_dt = [](const SqlType& t) {
    return t.id() == TypeId::kDate || t.id() == TypeId::kTimestamp;
  };
  // A timestamp with a timestamp with time zone is the latter, as in
  // PostgreSQL (where it is the preferred type of its category).
  if (is_dt(a) && is_dt(b) && (a.id() != b.id() || a.with_time_zone() != b.with_time_zone())) {
    return a.with_time_zone() || b.with_time_zone() ? SqlType::TimestampTz() : SqlType::Timestamp();
  }
  // A time with a time with time zone is the latter (the time in the
  // session's zone, UTC), as in PostgreSQL.
  if (a.id() == TypeId::kTime && b.id() == TypeId::kTime &&
      a.with_time_zone() != b.with_time_zone()) {
    return SqlType::TimeTz();
  }
  if (a.id() == TypeId::kArray && b.id() == TypeId::kArray) {
    auto e = CommonType(a.children()[0], b.children()[0]);
    if (!e.ok()) {
      return Status::InvalidArgument("types " + PgTypeName(a) + " and " + PgTypeName(b) +
                                     " cannot be matched");
    }
    return SqlType::Array(*e);
  }
  if (a.id() == TypeId::kRow && b.id() == TypeId::kRow) {
    // Two anonymous rows of as many fields: field by field.
    if (a.children().size() != b.children().size()) {
      return Status::InvalidArgument("types " + PgTypeName(a) + " and " + PgTypeName(b) +
                                     " cannot be matched");
    }
    std::vector<SqlType> fields;
    for (size_t i = 0; i < a.children().size(); ++i) {
      SLUICE_ASSIGN_OR_RETURN(SqlType f, CommonType(a.children()[i], b.children()[i]));
      fields.push_back(f.WithNullable(true));
    }
    return SqlType::Row(a.field_names(), std::move(fields));
  }
  if (a.id() == b.id()) return a.WithNullable(true);
  return Status::InvalidArgument("types " + PgTypeName(a) + " and " + PgTypeName(b) +
                                 " cannot be matched");
}

Result<ResolvedFn> ResolveSetFunction(std::string_view name, const std::vector<SqlType>& args) {
  ResolvedFn r;
  if (ResolveStringSet(name, args, &r) || ResolveJsonSet(name, args, &r) ||
      ResolveArraySet(name, args, &r)) {
    return r;
  }
  return NoOperator(name, args);
}

namespace {
Result<ResolvedFn> ResolveAny(std::string_view name, const std::vector<SqlType>& args);
}  // namespace

Result<ResolvedFn> ResolveFunction(std::string_view name, const std::vector<SqlType>& args) {
  auto any = ResolveAny(name, args);
  if (!any.ok()) {
    // A name nobody has is likely a typo: the nearest name that takes these
    // arguments.
    const bool is_function = !name.empty() && std::isalpha(static_cast<unsigned char>(name[0]));
    if (!is_function || IsPostgresFunction(name) ||
        any.status().message().find("does not exist") == std::string::npos) {
      return any.status();
    }
    std::vector<std::string> near;
    for (std::string_view c : kPostgresFunctions) {
      if (EditDistance(c, name) <= std::max<size_t>(1, name.size() / 3) &&
          ResolveAny(c, args).ok()) {
        near.emplace_back(c);
      }
    }
    return Status::InvalidArgument(any.status().message() + DidYouMean(name, near));
  }
  ResolvedFn r = std::move(any).value();
  // The functions whose every overload that takes a DECIMAL knows NaN and
  // the infinities (or only passes values on); the others refuse them at
  // run time rather than read a special value as a number.
  static const std::string_view kKnowSpecials[] = {
      "+",        "-",      "*",         "/",         "%",         "mod",
      "abs",      "@",      "=",         "<>",        "!=",        "<",
      "<=",       ">",      ">=",        "sign",      "ceil",      "ceiling",
      "floor",    "round",  "trunc",     "scale",     "min_scale", "trim_scale",
      "div",      "concat", "concat_ws", "pg_typeof", "num_nulls", "num_nonnulls",
      "greatest", "least",  "coalesce",  "nullif",    "to_char",   "gcd",
      "lcm",
  };
  for (std::string_view k : kKnowSpecials) {
    if (name == k) r.numeric_specials = true;
  }
  return r;
}

namespace {
Result<ResolvedFn> ResolveAny(std::string_view name, const std::vector<SqlType>& args) {
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
      // PostgreSQL's scale of a quotient depends on the operands' values
      // (NumericDivScale), and an unconstrained NUMERIC's on each value's.
      // Operands of more than 38 digits give PostgreSQL's unconstrained
      // result too: its exact scale, not one capped for int128s.
      auto wide = [](const SqlType& a) {
        return a.id() == TypeId::kDecimal && a.precision() > kMaxDecimalDigits;
      };
      const bool dynamic = is_div || args[0].dynamic_scale() || args[1].dynamic_scale() ||
                           wide(args[0]) || wide(args[1]);
      r.result = dynamic ? SqlType::Numeric() : SqlType::Decimal(38, s);
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
  if (ResolvePgKinds(name, args, &r) || ResolveNumeric(name, args, &r) ||
      ResolveBytea(name, args, &r) || ResolveDateTime(name, args, &r) ||
      ResolveTextAndMath(name, args, &r) || ResolveArray(name, args, &r) ||
      ResolveString(name, args, &r) || ResolveMath(name, args, &r) ||
      ResolveFormat(name, args, &r) || ResolveCatalog(name, args, &r) ||
      ResolveJson(name, args, &r)) {
    return r;
  }
  if ((name == "greatest" || name == "least") && !args.empty()) {
    // GREATEST and LEAST skip NULLs (NULL only if every argument is).
    SqlType t = args[0];
    for (size_t i = 1; i < args.size(); ++i) {
      auto c = CommonType(t, args[i]);
      if (!c.ok()) return NoOperator(name, args);
      t = *c;
    }
    r.name = name == "greatest" ? "greatest" : "least";
    r.fn = name == "greatest" ? Greatest : Least;
    r.result = t.WithNullable(true);
    r.arg_types.assign(args.size(), t);
    r.strict = false;
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
    // json has no comparisons (jsonb's are of its canonical text), point
    // none but ~=.
    if (!t.ok() || (t->is_json() && !t->is_jsonb()) || t->pg_kind() == PgKind::kPoint) {
      return NoOperator(name, args);
    }
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
  if (IsPostgresFunction(name)) {
    std::string msg = "function " + std::string(name) + "(";
    for (size_t i = 0; i < args.size(); ++i) msg += (i ? ", " : "") + PgTypeName(args[i]);
    return Status::Unimplemented(msg + ") is not supported yet");
  }
  return NoOperator(name, args);
}
}  // namespace

bool IsPostgresFunction(std::string_view name) {
  return std::binary_search(std::begin(kPostgresFunctions), std::end(kPostgresFunctions), name);
}

bool IsPostgresType(std::string_view name) {
  return std::binary_search(std::begin(kPostgresTypes), std::end(kPostgresTypes), name);
}

bool IsPostgresRelation(std::string_view name) {
  if (name.substr(0, 11) == "pg_catalog.") name.remove_prefix(11);
  return std::binary_search(std::begin(kPostgresRelations), std::end(kPostgresRelations), name);
}

}  // namespace sluice::sql
