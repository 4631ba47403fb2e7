// Text and math functions, with PostgreSQL's semantics and errors.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sql/functions_internal.h"
#include "sql/plpgsql.h"

namespace sluice::sql {
namespace {

SqlType Text() { return SqlType::Varchar(); }

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
// sluice_raise_error(message, NULL::t): the error `message`, where it is
// evaluated (a plpgsql function's RAISE EXCEPTION, sql/plpgsql.h).
Status RaiseError(const SqlType&, const Value* a, size_t, Value*) {
  return Status::InvalidArgument(a[0].is_null() ? std::string() : a[0].string_value());
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
// split_part(string, delimiter, n): the n-th field (from 1; from the end if
// negative), or '' if there is none; PostgreSQL's errors for n = 0.
Status SplitPart(const SqlType&, const Value* a, size_t, Value* out) {
  const std::string& s = a[0].string_value();
  const std::string& d = a[1].string_value();
  const int64_t n = a[2].int_value();
  if (n == 0) return Status::InvalidArgument("field position must not be zero");
  std::vector<std::string_view> fields;
  if (d.empty()) {
    fields.push_back(s);
  } else {
    size_t at = 0;
    for (size_t p; (p = s.find(d, at)) != std::string::npos; at = p + d.size()) {
      fields.push_back(std::string_view(s).substr(at, p - at));
    }
    fields.push_back(std::string_view(s).substr(at));
  }
  const int64_t count = static_cast<int64_t>(fields.size());
  const int64_t i = n > 0 ? n - 1 : count + n;
  *out = Value::String(i >= 0 && i < count ? std::string(fields[static_cast<size_t>(i)]) : "");
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
Status Power(const SqlType& t, const Value* a, size_t, Value* out) {
  double x = a[0].double_value(), y = a[1].double_value();
  // NaN's rules before the others' (PostgreSQL's, and POSIX's pow()):
  // anything to the power 0 and 1 to any power are 1, else NaN wins.
  if (std::isnan(x) || std::isnan(y)) {
    *out = Value::Double(y == 0 || x == 1 ? 1.0 : std::nan(""));
    return Status::OK();
  }
  if (x == 0 && y < 0)
    return Status::InvalidArgument("zero raised to a negative power is undefined");
  if (x < 0 && std::floor(y) != y) {
    return Status::InvalidArgument(
        "a negative number raised to a non-integer power yields a complex result");
  }
  const bool finite = std::isfinite(x) && std::isfinite(y);
  return CheckDouble(t, std::pow(x, y), finite, finite && x != 0, out);
}
Status Ln(const SqlType&, const Value* a, size_t, Value* out) {
  if (a[0].double_value() == 0) return Status::InvalidArgument("cannot take logarithm of zero");
  if (a[0].double_value() < 0)
    return Status::InvalidArgument("cannot take logarithm of a negative number");
  return CheckFinite(std::log(a[0].double_value()), out);
}
Status Exp(const SqlType& t, const Value* a, size_t, Value* out) {
  const bool finite = std::isfinite(a[0].double_value());
  return CheckDouble(t, std::exp(a[0].double_value()), finite, finite, out);
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
}  // namespace

Status RoundOrTruncBig(const Value& v, int64_t to64, bool trunc, Value* out) {
  // PostgreSQL's limits: one digit beyond the most before the point (a
  // rounding up may reach it), and the most after it.
  const int to =
      static_cast<int>(std::clamp<int64_t>(to64, -kMaxNumericIntegerDigits - 1, kMaxNumericScale));
  BigDecimal b = BigDecimal::FromValue(v);
  if (to >= 0) {
    b = trunc ? b.Trunc(to) : b.Round(to);
  } else {
    const BigDecimal unit =
        BigDecimal::FromDigits(false, "1" + std::string(static_cast<size_t>(-to), '0'), 0);
    b = BigDecimal::Mul(BigDecimal::Div(b, unit, 0, /*round=*/!trunc), unit);
  }
  if (!BigDecimalInFormat(b)) return Status::Overflow("value overflows numeric format");
  *out = b.ToValue();
  return Status::OK();
}

namespace {
// round, trunc, ceil and floor of NaN and the infinities are themselves.
Status RoundDec(const SqlType& t, const Value* a, size_t n, Value* out) {
  if (a[0].decimal_is_special()) {
    *out = a[0];
    return Status::OK();
  }
  const int64_t to64 = n == 2 ? a[1].int_value() : 0;
  if (a[0].decimal_wide() != nullptr || to64 > 37 || to64 < -37) {
    return RoundOrTruncBig(a[0], to64, /*trunc=*/false, out);
  }
  int to = static_cast<int>(to64);
  int from = a[0].decimal_scale();
  int128 u = a[0].decimal_unscaled();
  WidenDecimalScale(to, &u, &from);
  if (to > from) return RoundOrTruncBig(a[0], to64, /*trunc=*/false, out);
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
  if (v.decimal_is_special()) {
    *out = v;
    return Status::OK();
  }
  if (const BigDecimal* w = v.decimal_wide()) {
    BigDecimal q = w->Trunc(0);
    if (BigDecimal::Compare(q, *w) != 0 && (w->sign() > 0) == ceil) {
      q = BigDecimal::Add(q, BigDecimal::FromInt128(ceil ? 1 : -1, 0));
    }
    *out = q.ToValue();
    return Status::OK();
  }
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
  switch (a[0].decimal_special()) {
    case DecimalSpecial::kNaN:
      *out = a[0];
      return Status::OK();
    case DecimalSpecial::kPosInf:
      *out = Value::Decimal(1, 0);
      return Status::OK();
    case DecimalSpecial::kNegInf:
      *out = Value::Decimal(-1, 0);
      return Status::OK();
    case DecimalSpecial::kFinite:
      break;
  }
  *out = Value::Decimal(FiniteSign(a[0]), 0);
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

}  // namespace

// bool_and's and bool_or's transition functions, strict as PostgreSQL's.
Status BoolAndState(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(a[0].bool_value() && a[1].bool_value());
  return Status::OK();
}
Status BoolOrState(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(a[0].bool_value() || a[1].bool_value());
  return Status::OK();
}

bool ResolveTextAndMath(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r) {
  // (An untyped NULL comes as text.)
  auto boolean = [](const SqlType& t) { return t.id() == TypeId::kBoolean || t.IsString(); };
  if ((name == "booland_statefunc" || name == "boolor_statefunc") && args.size() == 2 &&
      boolean(args[0]) && boolean(args[1])) {
    const bool both = name == "booland_statefunc";
    return Resolve(r, both ? BoolAndState : BoolOrState,
                   both ? "booland_statefunc" : "boolor_statefunc", SqlType::Boolean(),
                   {SqlType::Boolean(), SqlType::Boolean()});
  }
  // Strings.
  auto all_text = [&](size_t from, size_t to) {
    for (size_t i = from; i < to && i < args.size(); ++i) {
      if (!args[i].IsString()) return false;
    }
    return true;
  };
  if (name == kRaiseErrorFunction && args.size() == 2 && args[0].IsString()) {
    Resolve(r, RaiseError, kRaiseErrorFunction, args[1], {Text(), args[1]});
    r->strict = false;
    return true;
  }
  if ((name == "substr" || name == "substring") && (args.size() == 2 || args.size() == 3) &&
      args[0].IsString() && args[1].IsInteger() && (args.size() == 2 || args[2].IsInteger())) {
    r->fn = Substr;
    r->name = "substr";
    r->result = Text();
    r->arg_types = {Text(), SqlType::BigInt()};
    if (args.size() == 3) r->arg_types.push_back(SqlType::BigInt());
    return true;
  }
  if ((name == "btrim" || name == "trim") && args.size() == 1 && args[0].IsString()) {
    r->fn = TrimBoth;
    r->name = "btrim";
    r->result = Text();
    r->arg_types = {Text()};
    return true;
  }
  if (name == "replace" && args.size() == 3 && all_text(0, 3)) {
    r->fn = Replace;
    r->name = "replace";
    r->result = Text();
    r->arg_types = {Text(), Text(), Text()};
    return true;
  }
  if (name == "split_part" && args.size() == 3 && all_text(0, 2) && args[2].IsInteger()) {
    r->fn = SplitPart;
    r->name = "split_part";
    r->result = Text();
    r->arg_types = {Text(), Text(), SqlType::Integer()};
    return true;
  }
  if ((name == "position" || name == "strpos") && args.size() == 2 && all_text(0, 2)) {
    r->fn = Position;
    r->name = "strpos";
    r->result = SqlType::Integer();
    r->arg_types = {Text(), Text()};
    return true;
  }
  // Math: doubles, and exact versions for integers and decimals.
  auto num1 = args.size() == 1 && IsNumeric(args[0]);
  if (num1 && (name == "sqrt" || name == "ln" || name == "exp")) {
    r->fn = name == "sqrt" ? Sqrt : name == "ln" ? Ln : Exp;
    r->name = name == "sqrt" ? "sqrt" : name == "ln" ? "ln" : "exp";
    r->result = SqlType::Double();
    r->arg_types = {SqlType::Double()};
    return true;
  }
  if ((name == "power" || name == "pow") && args.size() == 2 && IsNumeric(args[0]) &&
      IsNumeric(args[1])) {
    r->fn = Power;
    r->name = "power";
    r->result = SqlType::Double();
    r->arg_types = {SqlType::Double(), SqlType::Double()};
    return true;
  }
  if (num1 && (name == "floor" || name == "ceil" || name == "ceiling" || name == "round" ||
               name == "sign" || name == "trunc")) {
    const SqlType& t = args[0];
    r->arg_types = {t};
    r->name = name == "ceiling" ? "ceil"
              : name == "floor" ? "floor"
              : name == "ceil"  ? "ceil"
              : name == "round" ? "round"
              : name == "sign"  ? "sign"
                                : "trunc";
    if (t.IsInteger()) {
      r->fn = name == "sign" ? SignInt : Identity;
      r->result = t.WithNullable(true);
    } else if (t.id() == TypeId::kDecimal) {
      r->fn = name == "sign"                          ? SignDec
              : name == "round"                       ? RoundDec
              : (name == "ceil" || name == "ceiling") ? CeilDec
              : name == "floor"                       ? FloorDec
                                                      : nullptr;
      if (r->fn == nullptr) return false;
      // Of values that may exceed 38 digits, PostgreSQL's unconstrained
      // numeric.
      r->result = t.dynamic_scale() || t.precision() > kMaxDecimalDigits ? SqlType::Numeric()
                                                                         : SqlType::Decimal(38, 0);
    } else {
      r->fn = name == "sign"                          ? SignD
              : name == "round"                       ? RoundD
              : (name == "ceil" || name == "ceiling") ? CeilD
              : name == "floor"                       ? FloorD
                                                      : nullptr;
      if (r->fn == nullptr) return false;
      r->result = SqlType::Double();
      r->arg_types = {SqlType::Double()};
    }
    return true;
  }
  if (name == "round" && args.size() == 2 && IsNumeric(args[0]) && args[1].IsInteger()) {
    int scale = 38;  // the result keeps the digits the value has (at most)
    r->fn = RoundDec;
    r->name = "round";
    (void)scale;
    r->arg_types = {args[0].id() == TypeId::kDecimal
                        ? args[0]
                        : SqlType::Decimal(38, args[0].IsInteger() ? 0 : 16),
                    SqlType::Integer()};
    // n digits after the point, n known only when it runs.
    r->result = SqlType::Numeric();
    return true;
  }
  return false;
}

}  // namespace sluice::sql
