// The functions and operators of the PostgreSQL types kept as arrays
// (PgKind): point's, as PostgreSQL's geo_ops.c has them: point(x, y), the
// distance <->, same-as ~= (within 1e-6), and + and - (coordinate by
// coordinate); point has no order and no = (PostgreSQL's answer to those is
// "operator does not exist"). And oidvector's comparisons, which order by
// length first (int2vector compares as the array it is).
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
