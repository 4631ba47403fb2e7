// The functions and operators of the PostgreSQL types kept as arrays
// (PgKind): point's, as PostgreSQL's geo_ops.c has them: point(x, y), the
// distance <->, same-as ~= (within 1e-6), and + and - (coordinate by
// coordinate); point has no order and no = (PostgreSQL's answer to those is
// "operator does not exist"). And oidvector's comparisons, which order by
// length first (int2vector compares as the array it is). And money's
// arithmetic, as PostgreSQL's cash.c: money + and - money, money * and /
// a number (an integer divides truncating, a float or numeric rounds to the
// cent), money / money (a double), comparisons of money.
#include <cmath>
#include <string_view>
#include <vector>

#include "sql/functions_internal.h"
#include "sql/pg_kinds.h"

namespace sluice::sql {
namespace {

double X(const Value& p) { return p.list()[0].double_value(); }
double Y(const Value& p) { return p.list()[1].double_value(); }

Status MakePointFn(const SqlType&, const Value* a, size_t, Value* out) {
  *out = MakePoint(a[0].double_value(), a[1].double_value());
  return Status::OK();
}

Status DistanceFn(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Double(PointDistance(a[0], a[1]));
  return Status::OK();
}

Status SameFn(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(PointsSame(a[0], a[1]));
  return Status::OK();
}

// float8_pl and float8_mi: an infinite result of finite operands is an
// overflow.
Status Coordinates(double x, double y, bool finite_in, Value* out) {
  if (finite_in && (std::isinf(x) || std::isinf(y))) {
    return Status::Overflow("value out of range: overflow");
  }
  *out = MakePoint(x, y);
  return Status::OK();
}

Status AddFn(const SqlType&, const Value* a, size_t, Value* out) {
  const bool finite = std::isfinite(X(a[0])) && std::isfinite(X(a[1])) && std::isfinite(Y(a[0])) &&
                      std::isfinite(Y(a[1]));
  return Coordinates(X(a[0]) + X(a[1]), Y(a[0]) + Y(a[1]), finite, out);
}

Status SubFn(const SqlType&, const Value* a, size_t, Value* out) {
  const bool finite = std::isfinite(X(a[0])) && std::isfinite(X(a[1])) && std::isfinite(Y(a[0])) &&
                      std::isfinite(Y(a[1]));
  return Coordinates(X(a[0]) - X(a[1]), Y(a[0]) - Y(a[1]), finite, out);
}

// oidvector's order (btoidvectorcmp): the shorter first, then element by
// element.
int CompareOidVectors(const Value& a, const Value& b) {
  const std::vector<Value>& x = a.list();
  const std::vector<Value>& y = b.list();
  if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i].int_value() != y[i].int_value()) return x[i].int_value() < y[i].int_value() ? -1 : 1;
  }
  return 0;
}

template <bool (*kTest)(int)>
Status OidVectorCmpFn(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(kTest(CompareOidVectors(a[0], a[1])));
  return Status::OK();
}

// ARRAY[...]::int2vector and ::oidvector: the array's elements (already
// of the vector's element type) with subscripts from 0; an empty array, a
// NULL element or a sub-array is not a vector.
template <PgKind kKind>
Status ArrayToVectorFn(const SqlType&, const Value* a, size_t, Value* out) {
  const std::vector<Value>& items = a[0].list();
  bool valid = !items.empty();
  for (const Value& x : items) valid = valid && x.kind() == Value::Kind::kInt;
  if (!valid) {
    return Status::InvalidArgument(kKind == PgKind::kInt2Vector ? "array is not a valid int2vector"
                                                                : "array is not a valid oidvector");
  }
  *out = Value::BoundedList(items, {0});
  return Status::OK();
}

Status MoneyOutOfRange() { return Status::Overflow("money out of range"); }

Status MoneyAddFn(const SqlType&, const Value* a, size_t, Value* out) {
  int64_t c;
  if (__builtin_add_overflow(a[0].int_value(), a[1].int_value(), &c)) return MoneyOutOfRange();
  *out = Value::Int(c);
  return Status::OK();
}

Status MoneySubFn(const SqlType&, const Value* a, size_t, Value* out) {
  int64_t c;
  if (__builtin_sub_overflow(a[0].int_value(), a[1].int_value(), &c)) return MoneyOutOfRange();
  *out = Value::Int(c);
  return Status::OK();
}

// money * integer; `kMoneyFirst`: which argument is the money.
template <bool kMoneyFirst>
Status MoneyMulIntFn(const SqlType&, const Value* a, size_t, Value* out) {
  int64_t c;
  if (__builtin_mul_overflow(a[kMoneyFirst ? 0 : 1].int_value(), a[kMoneyFirst ? 1 : 0].int_value(),
                             &c)) {
    return MoneyOutOfRange();
  }
  *out = Value::Int(c);
  return Status::OK();
}

// Cents from a double, rounded to the nearest (half to even, as rint).
Status MoneyFromDouble(double cents, Value* out) {
  const double r = std::nearbyint(cents);
  if (std::isnan(r) || r < -9223372036854775808.0 || r >= 9223372036854775808.0) {
    return MoneyOutOfRange();
  }
  *out = Value::Int(static_cast<int64_t>(r));
  return Status::OK();
}

template <bool kMoneyFirst>
Status MoneyMulFloatFn(const SqlType&, const Value* a, size_t, Value* out) {
  return MoneyFromDouble(static_cast<double>(a[kMoneyFirst ? 0 : 1].int_value()) *
                             a[kMoneyFirst ? 1 : 0].double_value(),
                         out);
}

Status MoneyDivIntFn(const SqlType&, const Value* a, size_t, Value* out) {
  const int64_t d = a[1].int_value();
  if (d == 0) return Status::InvalidArgument("division by zero");
  if (d == -1 && a[0].int_value() == INT64_MIN) return MoneyOutOfRange();
  *out = Value::Int(a[0].int_value() / d);  // truncating, as PostgreSQL's cash_div_int8
  return Status::OK();
}

Status MoneyDivFloatFn(const SqlType&, const Value* a, size_t, Value* out) {
  if (a[1].double_value() == 0.0) return Status::InvalidArgument("division by zero");
  return MoneyFromDouble(static_cast<double>(a[0].int_value()) / a[1].double_value(), out);
}

Status MoneyDivMoneyFn(const SqlType&, const Value* a, size_t, Value* out) {
  if (a[1].int_value() == 0) return Status::InvalidArgument("division by zero");
  *out =
      Value::Double(static_cast<double>(a[0].int_value()) / static_cast<double>(a[1].int_value()));
  return Status::OK();
}

int CompareMoney(const Value& a, const Value& b) {
  return a.int_value() < b.int_value() ? -1 : a.int_value() > b.int_value() ? 1 : 0;
}

template <bool (*kTest)(int)>
Status MoneyCmpFn(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(kTest(CompareMoney(a[0], a[1])));
  return Status::OK();
}

bool IsEq(int c) { return c == 0; }
bool IsNe(int c) { return c != 0; }
bool IsLt(int c) { return c < 0; }
bool IsLe(int c) { return c <= 0; }
bool IsGt(int c) { return c > 0; }
bool IsGe(int c) { return c >= 0; }

}  // namespace

bool ResolvePgKinds(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r) {
  const size_t n = args.size();
  const SqlType point = SqlType::Point();
  // A point, or text read as one (an untyped constant beside a point).
  auto point_at = [&](size_t i) {
    return i < n && (args[i].pg_kind() == PgKind::kPoint || args[i].IsString());
  };
  auto is_point = [&](size_t i) { return i < n && args[i].pg_kind() == PgKind::kPoint; };
  auto oidvector_at = [&](size_t i) {
    return i < n && (args[i].pg_kind() == PgKind::kOidVector || args[i].IsString());
  };
  if (n == 2 &&
      (args[0].pg_kind() == PgKind::kOidVector || args[1].pg_kind() == PgKind::kOidVector) &&
      oidvector_at(0) && oidvector_at(1)) {
    struct Cmp {
      const char* name;
      ScalarFn fn;
    };
    static const Cmp kCmps[] = {{"=", OidVectorCmpFn<IsEq>},  {"<>", OidVectorCmpFn<IsNe>},
                                {"!=", OidVectorCmpFn<IsNe>}, {"<", OidVectorCmpFn<IsLt>},
                                {"<=", OidVectorCmpFn<IsLe>}, {">", OidVectorCmpFn<IsGt>},
                                {">=", OidVectorCmpFn<IsGe>}};
    const SqlType v = SqlType::OidVector();
    for (const Cmp& c : kCmps) {
      if (name == c.name) return Resolve(r, c.fn, c.name, SqlType::Boolean(), {v, v});
    }
  }
  auto is_money = [&](size_t i) { return i < n && args[i].pg_kind() == PgKind::kMoney; };
  auto money_at = [&](size_t i) { return is_money(i) || (i < n && args[i].IsString()); };
  if (n == 2 && (is_money(0) || is_money(1))) {
    const SqlType money = SqlType::Money();
    if (money_at(0) && money_at(1)) {
      struct Cmp {
        const char* name;
        ScalarFn fn;
      };
      static const Cmp kCmps[] = {{"=", MoneyCmpFn<IsEq>},  {"<>", MoneyCmpFn<IsNe>},
                                  {"!=", MoneyCmpFn<IsNe>}, {"<", MoneyCmpFn<IsLt>},
                                  {"<=", MoneyCmpFn<IsLe>}, {">", MoneyCmpFn<IsGt>},
                                  {">=", MoneyCmpFn<IsGe>}};
      for (const Cmp& c : kCmps) {
        if (name == c.name) return Resolve(r, c.fn, c.name, SqlType::Boolean(), {money, money});
      }
      if (name == "+") return Resolve(r, MoneyAddFn, "+", money, {money, money});
      if (name == "-") return Resolve(r, MoneySubFn, "-", money, {money, money});
      if (name == "/") return Resolve(r, MoneyDivMoneyFn, "/", SqlType::Double(), {money, money});
      return false;
    }
    const size_t other = is_money(0) ? 1 : 0;
    const bool integer = args[other].IsInteger();
    const bool number = integer || IsNumeric(args[other]);
    const SqlType by = integer ? SqlType::BigInt() : SqlType::Double();
    if (name == "*" && number) {
      const bool first = other == 1;
      ScalarFn fn = integer ? (first ? MoneyMulIntFn<true> : MoneyMulIntFn<false>)
                            : (first ? MoneyMulFloatFn<true> : MoneyMulFloatFn<false>);
      return Resolve(r, fn, "*", money,
                     first ? std::vector<SqlType>{money, by} : std::vector<SqlType>{by, money});
    }
    if (name == "/" && number && other == 1) {
      return Resolve(r, integer ? MoneyDivIntFn : MoneyDivFloatFn, "/", money, {money, by});
    }
    return false;
  }
  if ((name == "array to int2vector" || name == "array to oidvector") && n == 1 &&
      args[0].IsSqlArray()) {
    const bool oid = name == "array to oidvector";
    const SqlType v = oid ? SqlType::OidVector() : SqlType::Int2Vector();
    return Resolve(
        r, oid ? ArrayToVectorFn<PgKind::kOidVector> : ArrayToVectorFn<PgKind::kInt2Vector>,
        oid ? "array to oidvector" : "array to int2vector", v, {SqlType::Array(v.children()[0])});
  }
  if (name == "point" && n == 2 && IsNumeric(args[0]) && IsNumeric(args[1])) {
    return Resolve(r, MakePointFn, "point", point, {SqlType::Double(), SqlType::Double()});
  }
  if (n != 2 || !(is_point(0) || is_point(1)) || !point_at(0) || !point_at(1)) return false;
  if (name == "<->") return Resolve(r, DistanceFn, "<->", SqlType::Double(), {point, point});
  if (name == "~=") return Resolve(r, SameFn, "~=", SqlType::Boolean(), {point, point});
  if (name == "+") return Resolve(r, AddFn, "+", point, {point, point});
  if (name == "-") return Resolve(r, SubFn, "-", point, {point, point});
  return false;
}

}  // namespace sluice::sql
