#include "dataflow/operators/aggregator.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "types/big_decimal.h"
#include "types/row_codec.h"

namespace sluice {
namespace {

enum class Arith { kInt, kDecimal, kFloat, kOther };

Arith ArithOf(const SqlType& t) {
  if (t.IsInteger()) return Arith::kInt;
  if (t.id() == TypeId::kDecimal) return Arith::kDecimal;
  if (t.id() == TypeId::kReal || t.id() == TypeId::kDouble) return Arith::kFloat;
  return Arith::kOther;
}

// The scale of a decimal column's sum: the column's, or for NUMERIC the
// largest of its values' (0 over none).
int SumScale(const SqlType& col, const LinearAcc& acc) {
  return col.dynamic_scale() ? std::max(acc.Scale(), 0) : col.scale();
}

// The statistics keep int128 sums of squares; values beyond them are
// refused (not wrongly summed).
Status WideSumUnsupported() {
  return Status::Unimplemented(
      "the statistics of numeric values of more than 38 digits are not supported yet");
}

// Whether an unscaled sum fits a narrow decimal Value (at most 38 digits).
bool NarrowFits(int128 x) { return x < Pow10(kMaxDecimalDigits) && x > -Pow10(kMaxDecimalDigits); }

BigDecimal SumOf(const LinearAcc& acc, int scale) {
  return acc.wide ? *acc.wide : BigDecimal::FromInt128(acc.isum, scale);
}

// Stores `sum` at `scale` (whose digits beyond it are zeros) in isum if it
// fits, else in wide.
void SetSum(const BigDecimal& sum, int scale, LinearAcc* acc) {
  BigDecimal at = sum.Round(scale);
  int128 u;
  if (at.ToInt128(&u)) {
    acc->isum = u;
    acc->wide.reset();
  } else {
    acc->isum = 0;
    acc->wide = std::make_shared<const BigDecimal>(std::move(at));
  }
}

// Adds `w` copies of the finite decimal `v` to the sum kept at `scale`
// (REQUIRES: v's scale is at most `scale`).
void AddScaled(const Value& v, Weight w, int scale, LinearAcc* acc) {
  if (!acc->wide && v.decimal_wide() == nullptr) {
    int128 u, term, sum;
    if (!__builtin_mul_overflow(v.decimal_unscaled(), Pow10(scale - v.decimal_scale()), &u) &&
        !__builtin_mul_overflow(u, static_cast<int128>(w), &term) &&
        !__builtin_add_overflow(acc->isum, term, &sum) && NarrowFits(sum)) {
      acc->isum = sum;
      return;
    }
  }
  const BigDecimal term =
      BigDecimal::Mul(BigDecimal::FromValue(v), BigDecimal::FromInt128(static_cast<int128>(w), 0));
  SetSum(BigDecimal::Add(SumOf(*acc, scale), term), scale, acc);
}

// NUMERIC of dynamic scale: sums are kept at the largest scale of the
// values present (LinearAcc::scale_counts).
Status AddNumericSum(const Value& v, Weight w, LinearAcc* acc) {
  const int s = v.decimal_scale();
  if (s < 0 || s > kMaxDecimalDigits) {
    return Status::Unimplemented(
        "SUM and AVG of numeric values with more than 38 digits after the point are not "
        "supported yet");
  }
  const int cur = acc->Scale();
  const int top = std::max(cur, s);
  if (cur >= 0 && top > cur) SetSum(SumOf(*acc, cur), top, acc);
  AddScaled(v, w, top, acc);
  if (__builtin_add_overflow(acc->scale_counts[s], w, &acc->scale_counts[s])) {
    return Status::Overflow("count overflow in aggregate");
  }
  // A delete may leave a smaller largest scale: the sum's digits beyond it
  // are zeros.
  const int now = std::max(acc->Scale(), 0);
  if (now < top) SetSum(SumOf(*acc, top), now, acc);
  return Status::OK();
}

}  // namespace

bool IsLinear(AggKind kind) {
  return kind != AggKind::kMin && kind != AggKind::kMax && kind != AggKind::kStringAgg &&
         kind != AggKind::kArrayAgg;
}

bool IsDistinctAgg(AggKind kind) {
  return kind == AggKind::kCountDistinct || kind == AggKind::kSumDistinct ||
         kind == AggKind::kAvgDistinct;
}

bool IsCount(AggKind kind) {
  return kind == AggKind::kCountStar || BaseKind(kind) == AggKind::kCount ||
         kind == AggKind::kRegrCount;
}

bool IsStatistical(AggKind kind) {
  return kind >= AggKind::kVarPop && kind <= AggKind::kRegrIntercept;
}

bool IsPairStatistic(AggKind kind) {
  return kind >= AggKind::kCovarPop && kind <= AggKind::kRegrIntercept;
}

AggKind BaseKind(AggKind kind) {
  switch (kind) {
    case AggKind::kCountDistinct:
      return AggKind::kCount;
    case AggKind::kSumDistinct:
      return AggKind::kSum;
    case AggKind::kAvgDistinct:
      return AggKind::kAvg;
    default:
      return kind;
  }
}

Result<SqlType> AggOutputType(const AggSpec& distinct_spec, const Schema& val_schema) {
  AggSpec spec{BaseKind(distinct_spec.kind), distinct_spec.column};
  if (spec.kind == AggKind::kCountStar) return SqlType::BigInt(false);
  if (spec.column < 0 || static_cast<size_t>(spec.column) >= val_schema.size()) {
    return Status::InvalidArgument("aggregate column " + std::to_string(spec.column) +
                                   " is not in " + SchemaToString(val_schema));
  }
  const SqlType& column = val_schema[static_cast<size_t>(spec.column)];
  // Ordered by another key: the aggregated value is the row's second field.
  const SqlType& col =
      distinct_spec.keyed_order && column.children().size() == 2 ? column.children()[1] : column;
  if (IsPairStatistic(spec.kind)) {
    if (distinct_spec.column2 < 0 || static_cast<size_t>(distinct_spec.column2) >= val_schema.size())
      return Status::InvalidArgument("a statistic of pairs needs two columns");
    const SqlType& x = val_schema[static_cast<size_t>(distinct_spec.column2)];
    if (ArithOf(col) != Arith::kFloat || ArithOf(x) != Arith::kFloat) {
      return Status::InvalidArgument("a statistic of pairs of " + col.ToString() + " and " +
                                     x.ToString() + " (it takes double precision)");
    }
    return spec.kind == AggKind::kRegrCount ? SqlType::BigInt(false) : SqlType::Double();
  }
  if (IsStatistical(spec.kind)) {
    switch (ArithOf(col)) {
      case Arith::kInt:
      case Arith::kDecimal:
        return SqlType::Numeric();
      case Arith::kFloat:
        return SqlType::Double();
      case Arith::kOther:
        break;
    }
    return Status::InvalidArgument("a variance or standard deviation of a non-numeric column " +
                                   col.ToString());
  }
  switch (spec.kind) {
    case AggKind::kCountStar:
    case AggKind::kCount:
    case AggKind::kCountDistinct:
      return SqlType::BigInt(false);
    case AggKind::kMin:
    case AggKind::kMax:
      return col.WithNullable(true);
    case AggKind::kStringAgg:  // text, or bytea of bytea
      return col.id() == TypeId::kVarbinary || col.id() == TypeId::kBinary ? SqlType::Varbinary()
                                                                            : SqlType::Varchar();
    case AggKind::kArrayAgg:
      // Of arrays: one more dimension of the same array type, as in
      // PostgreSQL (ArrayHoldsSubArrays).
      if (ArrayHoldsSubArrays(col)) return col.WithNullable(true);
      return SqlType::Array(col.WithNullable(true));
    case AggKind::kSumDistinct:
    case AggKind::kAvgDistinct:  // BaseKind() above maps these away
    case AggKind::kSum:
    case AggKind::kAvg:
      if (col.id() == TypeId::kInterval) return SqlType::Interval();
      if (col.pg_kind() == PgKind::kMoney) {  // money sums to money and has no average
        if (spec.kind == AggKind::kSum) return col.WithNullable(true);
        return Status::InvalidArgument("function avg(money) does not exist");
      }
      switch (ArithOf(col)) {
        case Arith::kInt:
          return spec.kind == AggKind::kSum && col.id() != TypeId::kBigInt ? SqlType::BigInt()
                                                                           : SqlType::Numeric();
        case Arith::kDecimal:
          // A column of more than 38 digits sums to NUMERIC (of its scale).
          return spec.kind == AggKind::kSum && !col.dynamic_scale() &&
                         col.precision() <= kMaxDecimalDigits
                     ? SqlType::Decimal(38, col.scale())
                     : SqlType::Numeric();
        case Arith::kFloat:
          // SUM of REAL is REAL in PostgreSQL; AVG is double precision.
          return spec.kind == AggKind::kSum && col.id() == TypeId::kReal ? SqlType::Real()
                                                                         : SqlType::Double();
        case Arith::kOther:
          break;
      }
      return Status::InvalidArgument((spec.kind == AggKind::kSum ? "SUM" : "AVG") +
                                     std::string(" of a non-numeric column ") + col.ToString());
    default:  // the statistics, above
      break;
  }
  return Status::Internal("unknown aggregate");
}

Status AccAdd(const AggSpec& distinct_spec, const SqlType& col, std::string_view field, Weight w,
              LinearAcc* acc) {
  const AggSpec spec{BaseKind(distinct_spec.kind), distinct_spec.column};
  auto add_count = [&]() -> Status {
    if (__builtin_add_overflow(acc->count, w, &acc->count)) {
      return Status::Overflow("count overflow in aggregate");
    }
    return Status::OK();
  };
  if (spec.kind == AggKind::kCountStar) return add_count();
  if (FieldIsNull(col, field)) return Status::OK();
  if (spec.kind == AggKind::kCount) return add_count();
  SLUICE_RETURN_IF_ERROR(add_count());
  std::string_view in = field;
  if (col.id() == TypeId::kInterval) {
    Value v;
    SLUICE_RETURN_IF_ERROR(DecodeValue(col, &in, &v));
    return AccAddInterval(v.interval_value(), w, acc);
  }
  switch (ArithOf(col)) {
    case Arith::kInt: {
      int64_t v = 0;
      ReadInt(col.id(), col.nullable(), &in, &v);
      int128 term = static_cast<int128>(v) * w;  // |v|, |w| < 2^63: cannot overflow
      if (__builtin_add_overflow(acc->isum, term, &acc->isum)) {
        return Status::Overflow("sum overflow in aggregate");
      }
      return Status::OK();
    }
    case Arith::kDecimal: {
      Value v;
      SLUICE_RETURN_IF_ERROR(DecodeValue(col, &in, &v));
      return AddDecimal(col, v, w, acc);
    }
    case Arith::kFloat: {
      Value v;
      SLUICE_RETURN_IF_ERROR(DecodeValue(col, &in, &v));
      acc->dsum += v.double_value() * static_cast<double>(w);
      return Status::OK();
    }
    case Arith::kOther:
      break;
  }
  return Status::InvalidArgument("SUM or AVG of a non-numeric column " + col.ToString());
}

Status RenderLinear(const AggSpec& distinct_spec, const SqlType& col, const LinearAcc& acc,
                    std::string* out) {
  const AggSpec spec{BaseKind(distinct_spec.kind), distinct_spec.column};
  if (IsCount(spec.kind)) {
    AppendInt64(acc.count, false, out);
    return Status::OK();
  }
  if (IsStatistical(spec.kind)) {
    SLUICE_ASSIGN_OR_RETURN(Value v, StatsResult(distinct_spec, col, acc));
    if (v.is_null()) {
      AppendNull(out);
      return Status::OK();
    }
    if (ArithOf(col) == Arith::kFloat) return EncodeValue(SqlType::Double(), v, out);
    AggSpec own{spec.kind, 0};
    SLUICE_ASSIGN_OR_RETURN(SqlType type, AggOutputType(own, {col}));
    return EncodeValue(type, v, out);
  }
  if (acc.count == 0) {
    AppendNull(out);
    return Status::OK();
  }
  AggSpec own = spec;
  own.column = 0;  // `col` alone is the schema here
  SLUICE_ASSIGN_OR_RETURN(SqlType type, AggOutputType(own, {col}));
  if (col.id() == TypeId::kInterval) {
    SLUICE_ASSIGN_OR_RETURN(Value v,
                            spec.kind == AggKind::kSum ? IntervalSum(acc) : IntervalAvg(acc));
    return EncodeValue(type, v, out);
  }
  Arith a = ArithOf(col);
  if (spec.kind == AggKind::kSum) {
    if (col.pg_kind() == PgKind::kMoney) {
      if (acc.isum > INT64_MAX || acc.isum < INT64_MIN)
        return Status::Overflow("money out of range");
      AppendInt64(static_cast<int64_t>(acc.isum), true, out);
      return Status::OK();
    }
    if (a == Arith::kInt && col.id() == TypeId::kBigInt) {
      return EncodeValue(type, BigDecimal::FromInt128(acc.isum, 0).ToValue(), out);
    }
    if (a == Arith::kInt) {
      if (acc.isum > INT64_MAX || acc.isum < INT64_MIN) {
        return Status::Overflow("bigint out of range in SUM");
      }
      AppendInt64(static_cast<int64_t>(acc.isum), true, out);
      return Status::OK();
    }
    if (a == Arith::kDecimal) return EncodeValue(type, DecimalSum(col, acc), out);
    return EncodeValue(type, Value::Double(acc.dsum), out);
  }
  // AVG
  if (a == Arith::kFloat) {
    return EncodeValue(type, Value::Double(acc.dsum / static_cast<double>(acc.count)), out);
  }
  SLUICE_ASSIGN_OR_RETURN(Value avg, DecimalAvg(col, acc));
  return EncodeValue(type, avg, out);
}

Status AccAddInterval(const Interval& v, Weight w, LinearAcc* acc) {
  const int128 micros = static_cast<int128>(v.micros) * w;
  int64_t months = 0, days = 0;
  if (__builtin_mul_overflow(static_cast<int64_t>(v.months), static_cast<int64_t>(w), &months) ||
      __builtin_mul_overflow(static_cast<int64_t>(v.days), static_cast<int64_t>(w), &days) ||
      __builtin_add_overflow(acc->specials[0], months, &acc->specials[0]) ||
      __builtin_add_overflow(acc->specials[1], days, &acc->specials[1]) ||
      __builtin_add_overflow(acc->isum, micros, &acc->isum)) {
    return Status::Overflow("interval out of range in SUM");
  }
  return Status::OK();
}

Result<Value> IntervalSum(const LinearAcc& acc) {
  const int64_t months = acc.specials[0], days = acc.specials[1];
  if (months != static_cast<int32_t>(months) || days != static_cast<int32_t>(days) ||
      acc.isum > INT64_MAX || acc.isum < INT64_MIN) {
    return Status::Overflow("interval out of range");
  }
  return Value::MakeInterval(static_cast<int32_t>(months), static_cast<int32_t>(days),
                             static_cast<int64_t>(acc.isum));
}

Result<Value> IntervalAvg(const LinearAcc& acc) {
  SLUICE_ASSIGN_OR_RETURN(Value sum, IntervalSum(acc));
  Value out;
  SLUICE_RETURN_IF_ERROR(
      ScaleInterval(sum.interval_value(), static_cast<double>(acc.count), /*divide=*/true, &out));
  return out;
}

Status AddDecimal(const SqlType& col, const Value& v, Weight w, LinearAcc* acc) {
  if (v.decimal_is_special()) return AddDecimalSpecial(v, w, acc);
  if (col.dynamic_scale()) return AddNumericSum(v, w, acc);
  if (v.decimal_scale() > col.scale()) {  // as a cast to the column's type rounds it
    AddScaled(BigDecimal::FromValue(v).Round(col.scale()).ToValue(), w, col.scale(), acc);
    return Status::OK();
  }
  AddScaled(v, w, col.scale(), acc);
  return Status::OK();
}

Value DecimalSum(const SqlType& col, const LinearAcc& acc) {
  if (acc.HasSpecials()) return SpecialSum(acc);
  if (acc.wide) return acc.wide->ToValue();
  return Value::Decimal(acc.isum, SumScale(col, acc));
}

Result<Value> DecimalAvg(const SqlType& col, const LinearAcc& acc) {
  if (col.id() == TypeId::kDecimal && acc.HasSpecials()) return SpecialSum(acc);
  const int scale = col.IsInteger() ? 0 : SumScale(col, acc);
  if (!acc.wide) return AvgNumeric(acc.isum, scale, acc.count);
  const BigDecimal n = BigDecimal::FromInt128(acc.count, 0);
  return BigDecimal::Div(*acc.wide, n, BigDecimal::DivScale(*acc.wide, n)).ToValue();
}

void EncodeWideSums(const std::vector<LinearAcc>& accs, std::string* out) {
  for (const LinearAcc& a : accs) {
    std::string text = a.wide ? a.wide->ToString() : std::string();
    if (a.wide2) text += ";" + a.wide2->ToString();
    const uint32_t n = static_cast<uint32_t>(text.size());
    out->append(reinterpret_cast<const char*>(&n), 4);
    out->append(text);
  }
}

Status DecodeWideSums(std::string_view* in, std::vector<LinearAcc>* accs) {
  auto bad = [] { return Status::Corruption("the wide sums of an aggregate are truncated"); };
  for (LinearAcc& a : *accs) {
    uint32_t n;
    if (in->size() < 4) return bad();
    std::memcpy(&n, in->data(), 4);
    in->remove_prefix(4);
    if (in->size() < n) return bad();
    if (n > 0) {
      std::string_view text = in->substr(0, n);
      const size_t semi = text.find(';');
      BigDecimal b;
      if (!BigDecimal::Parse(text.substr(0, semi), &b)) return bad();
      a.wide = std::make_shared<const BigDecimal>(std::move(b));
      if (semi != std::string_view::npos) {
        BigDecimal b2;
        if (!BigDecimal::Parse(text.substr(semi + 1), &b2)) return bad();
        a.wide2 = std::make_shared<const BigDecimal>(std::move(b2));
      }
    }
    in->remove_prefix(n);
  }
  return Status::OK();
}

int LinearAcc::Scale() const {
  for (int s = kMaxDecimalDigits; s >= 0; --s) {
    if (scale_counts[s] != 0) return s;
  }
  return -1;
}

Status AddNumericSquares(const Value& v, Weight w, LinearAcc* acc) {
  if (v.decimal_wide() != nullptr) return WideSumUnsupported();
  const int s = v.decimal_scale();
  if (s < 0 || s > kMaxDecimalDigits) return Status::Overflow("numeric scale out of range");
  auto overflow = [] { return Status::Overflow("numeric field overflow in aggregate"); };
  const int cur = acc->Scale();
  const int top = std::max(cur, s);
  // Bring the sums up to the new largest scale.
  if (cur >= 0 && top > cur) {
    if (__builtin_mul_overflow(acc->isum, Pow10(top - cur), &acc->isum)) return overflow();
    if (2 * (top - cur) > 38 ||
        __builtin_mul_overflow(acc->isum2, Pow10(2 * (top - cur)), &acc->isum2)) {
      return overflow();
    }
  }
  int128 u, term, sq;
  if (__builtin_mul_overflow(v.decimal_unscaled(), Pow10(top - s), &u) ||
      __builtin_mul_overflow(u, static_cast<int128>(w), &term) ||
      __builtin_add_overflow(acc->isum, term, &acc->isum)) {
    return overflow();
  }
  if (__builtin_mul_overflow(u, u, &sq) ||
      __builtin_mul_overflow(sq, static_cast<int128>(w), &sq) ||
      __builtin_add_overflow(acc->isum2, sq, &acc->isum2)) {
    return overflow();
  }
  if (__builtin_add_overflow(acc->scale_counts[s], w, &acc->scale_counts[s])) return overflow();
  // A delete may leave a smaller largest scale: the sums' digits beyond it
  // are zeros.
  const int now = acc->Scale();
  if (now < top) {
    const int drop = top - std::max(now, 0);
    acc->isum /= Pow10(drop);
    acc->isum2 = 2 * drop > 38 ? 0 : acc->isum2 / Pow10(2 * drop);
  }
  return Status::OK();
}

void EncodeScales(const LinearAcc& acc, std::string* out) {
  uint8_t n = 0;
  for (int64_t c : acc.scale_counts) n = static_cast<uint8_t>(n + (c != 0));
  out->push_back(static_cast<char>(n));
  for (int s = 0; s <= kMaxDecimalDigits; ++s) {
    if (acc.scale_counts[s] == 0) continue;
    out->push_back(static_cast<char>(s));
    out->append(reinterpret_cast<const char*>(&acc.scale_counts[s]), 8);
  }
}

Status DecodeScales(std::string_view* in, LinearAcc* acc) {
  auto bad = [] { return Status::Corruption("the scales of a NUMERIC sum are truncated"); };
  if (in->empty()) return bad();
  const size_t n = static_cast<uint8_t>((*in)[0]);
  in->remove_prefix(1);
  if (in->size() < 9 * n) return bad();
  for (size_t i = 0; i < n; ++i) {
    const size_t s = static_cast<uint8_t>((*in)[0]);
    if (s > static_cast<size_t>(kMaxDecimalDigits)) return bad();
    std::memcpy(&acc->scale_counts[s], in->data() + 1, 8);
    in->remove_prefix(9);
  }
  return Status::OK();
}

Result<Value> AvgNumeric(int128 sum, int scale, int64_t count) {
  if (count == 0) return Value::Null();
  const int to = NumericDivScale(sum, scale, count, 0);
  int128 q;
  if (!DivideDecimal(sum, scale, count, 0, to, &q)) {
    return BigDecimal::Div(BigDecimal::FromInt128(sum, scale), BigDecimal::FromInt128(count, 0), to)
        .ToValue();
  }
  return Value::Decimal(q, to);
}

Status AddDecimalSpecial(const Value& v, Weight w, LinearAcc* acc) {
  int i = v.decimal_special() == DecimalSpecial::kNaN      ? 0
          : v.decimal_special() == DecimalSpecial::kPosInf ? 1
                                                           : 2;
  if (__builtin_add_overflow(acc->specials[i], w, &acc->specials[i])) {
    return Status::Overflow("count overflow in aggregate");
  }
  return Status::OK();
}

Value SpecialSum(const LinearAcc& acc) {
  if (acc.specials[0] != 0 || (acc.specials[1] != 0 && acc.specials[2] != 0)) {
    return Value::DecimalNaN();
  }
  return Value::DecimalInf(acc.specials[1] == 0);
}

void AppendAsNullable(const SqlType& col, std::string_view field, std::string* out) {
  if (!col.nullable()) out->push_back(0x01);
  out->append(field);
}

// ---- The statistics ----

namespace {

// An unsigned 256-bit integer, little-endian 64-bit limbs: just enough for
// the exact numerator of a NUMERIC variance and its square root.
struct U256 {
  uint64_t w[4] = {0, 0, 0, 0};

  static U256 From(unsigned __int128 v) {
    U256 r;
    r.w[0] = static_cast<uint64_t>(v);
    r.w[1] = static_cast<uint64_t>(v >> 64);
    return r;
  }
  static U256 Mul(unsigned __int128 a, unsigned __int128 b) {
    const uint64_t x[2] = {static_cast<uint64_t>(a), static_cast<uint64_t>(a >> 64)};
    const uint64_t y[2] = {static_cast<uint64_t>(b), static_cast<uint64_t>(b >> 64)};
    U256 r;
    for (int i = 0; i < 2; ++i) {
      unsigned __int128 carry = 0;
      for (int j = 0; j < 2; ++j) {
        unsigned __int128 t = static_cast<unsigned __int128>(x[i]) * y[j] + r.w[i + j] + carry;
        r.w[i + j] = static_cast<uint64_t>(t);
        carry = t >> 64;
      }
      r.w[i + 2] = static_cast<uint64_t>(carry);
    }
    return r;
  }
  // False on overflow.
  bool MulSmall(uint64_t m) {
    unsigned __int128 carry = 0;
    for (uint64_t& limb : w) {
      unsigned __int128 t = static_cast<unsigned __int128>(limb) * m + carry;
      limb = static_cast<uint64_t>(t);
      carry = t >> 64;
    }
    return carry == 0;
  }
  int Compare(const U256& o) const {
    for (int i = 3; i >= 0; --i) {
      if (w[i] != o.w[i]) return w[i] < o.w[i] ? -1 : 1;
    }
    return 0;
  }
  // REQUIRES: *this >= o.
  void Sub(const U256& o) {
    uint64_t borrow = 0;
    for (int i = 0; i < 4; ++i) {
      uint64_t a = w[i], b = o.w[i];
      uint64_t d = a - b - borrow;
      borrow = (a < b || (a == b && borrow)) ? 1 : 0;
      w[i] = d;
    }
  }
  void Add(const U256& o) {
    unsigned __int128 carry = 0;
    for (int i = 0; i < 4; ++i) {
      unsigned __int128 t = static_cast<unsigned __int128>(w[i]) + o.w[i] + carry;
      w[i] = static_cast<uint64_t>(t);
      carry = t >> 64;
    }
  }
  bool Bit(int i) const { return (w[i / 64] >> (i % 64)) & 1; }
  bool FitsIn127() const { return w[2] == 0 && w[3] == 0 && (w[1] >> 63) == 0; }
  unsigned __int128 Low() const {
    return (static_cast<unsigned __int128>(w[1]) << 64) | w[0];
  }
  // The quotient by `d` (REQUIRES: 0 < d < 2^127), the remainder in `*rem`.
  U256 DivMod(unsigned __int128 d, unsigned __int128* rem) const {
    U256 q;
    unsigned __int128 r = 0;
    for (int i = 255; i >= 0; --i) {
      r = (r << 1) | (Bit(i) ? 1 : 0);
      if (r >= d) {
        r -= d;
        q.w[i / 64] |= uint64_t{1} << (i % 64);
      }
    }
    *rem = r;
    return q;
  }
  bool IsZero() const { return (w[0] | w[1] | w[2] | w[3]) == 0; }
  // The decimal digits, without leading zeros ("0" for zero).
  std::string Digits() const {
    constexpr uint64_t kChunk = 1000000000000000000ULL;  // 10^18
    std::string out;
    U256 v = *this;
    while (!v.IsZero()) {
      unsigned __int128 rem = 0;
      v = v.DivMod(kChunk, &rem);
      std::string part = std::to_string(static_cast<uint64_t>(rem));
      if (!v.IsZero()) part.insert(0, 18 - part.size(), '0');
      out.insert(0, part);
    }
    return out.empty() ? "0" : out;
  }
  // floor(sqrt(*this)).
  unsigned __int128 Sqrt() const {
    unsigned __int128 r = 0;
    for (int i = 127; i >= 0; --i) {
      unsigned __int128 c = r | (static_cast<unsigned __int128>(1) << i);
      if (Mul(c, c).Compare(*this) <= 0) r = c;
    }
    return r;
  }
};

void TwoSum(double a, double b, double* s, double* e) {
  *s = a + b;
  double bb = *s - a;
  *e = (a - (*s - bb)) + (b - bb);
}

Status StatsOverflow() {
  return Status::Overflow(
      "value out of range in a variance or standard deviation: the sum of squares exceeds "
      "38 digits");
}

// A finite double whose square (times a weight or a count) stays finite;
// PostgreSQL's running sums overflow near there too.
bool Squarable(double v) { return !std::isfinite(v) || std::fabs(v) < 1e150; }

Status FloatOverflow() { return Status::Overflow("value out of range: overflow"); }

// Index of a non-finite double among FloatMoments' counts.
int BadIndex(double v) { return std::isnan(v) ? 0 : v > 0 ? 1 : 2; }

void AddFloat(double v, Weight w, ExactSum* s1, ExactSum* s2, int64_t* bad) {
  if (!std::isfinite(v)) {
    bad[BadIndex(v)] += w;
    return;
  }
  const double dw = static_cast<double>(w);
  s1->AddProduct(v, dw);
  double p = v * v, e = std::fma(v, v, -p);
  s2->AddProduct(p, dw);
  s2->AddProduct(e, dw);
}

bool AnyBad(const int64_t* bad) { return bad[0] != 0 || bad[1] != 0 || bad[2] != 0; }

// The sum of one variable: infinite or NaN if a non-finite value is in it.
double SumOf(const ExactSum& s, const int64_t* bad) {
  if (bad[0] != 0 || (bad[1] != 0 && bad[2] != 0)) return std::nan("");
  if (bad[1] != 0) return HUGE_VAL;
  if (bad[2] != 0) return -HUGE_VAL;
  double hi, lo;
  s.Round(&hi, &lo);
  return hi + lo;
}

// (N * sab - sa * sb) / N, the sum of the products of deviations from the
// means, from exact sums: exact up to the final roundings.
double CoMoment(double n, const ExactSum& sa, const ExactSum& sb, const ExactSum& sab) {
  ExactSum c;
  for (double p : sab.parts) c.AddProduct(p, n);
  for (double a : sa.parts) {
    for (double b : sb.parts) c.AddProduct(-a, b);
  }
  double hi, lo;
  c.Round(&hi, &lo);
  double q = hi / n;
  double r = std::fma(-q, n, hi);  // hi - q * n, exactly
  return q + (r + lo) / n;
}

}  // namespace

void ExactSum::Add(double x) {
  if (x == 0) return;
  // Shewchuk's GROW-EXPANSION with zero elimination, in place: the j-th
  // component written never passes the i-th read.
  size_t j = 0;
  double q = x;
  for (size_t i = 0; i < parts.size(); ++i) {
    double s, e;
    TwoSum(q, parts[i], &s, &e);
    if (e != 0) parts[j++] = e;
    q = s;
  }
  parts.resize(j);
  if (q != 0) parts.push_back(q);
}

void ExactSum::AddProduct(double a, double b) {
  double p = a * b;
  Add(std::fma(a, b, -p));
  Add(p);
}

namespace {

// The sum of an expansion correctly rounded to a double (half to even), as
// Python's math.fsum finishes: a function of the exact value alone, whatever
// its components.
double RoundedSum(const std::vector<double>& parts) {
  if (parts.empty()) return 0;
  size_t n = parts.size() - 1;
  double hi = parts[n], lo = 0;
  while (n > 0) {
    const double x = hi, y = parts[--n];
    hi = x + y;
    lo = y - (hi - x);
    if (lo != 0) break;
  }
  if (n > 0 && ((lo < 0 && parts[n - 1] < 0) || (lo > 0 && parts[n - 1] > 0))) {
    const double y = lo * 2, x = hi + y;
    if (y == x - hi) hi = x;
  }
  return hi;
}

}  // namespace

void ExactSum::Round(double* hi, double* lo) const {
  *hi = RoundedSum(parts);
  ExactSum rest = *this;
  rest.Add(-*hi);
  *lo = RoundedSum(rest.parts);
}

namespace {

bool Below38Digits(int128 x) { return NarrowFits(x); }

// The statistics of integers and decimals in int128s: `w` copies of the
// finite `y` and of its square added to acc->isum and acc->isum2.
Status AddSquaresNarrow(const SqlType& ytype, const Value& y, Weight w, LinearAcc* acc) {
  if (y.kind() == Value::Kind::kDecimal && ytype.dynamic_scale()) {
    return AddNumericSquares(y, w, acc);
  }
  int128 u = 0;
  if (y.kind() == Value::Kind::kDecimal) {
    if (y.decimal_wide() != nullptr) return WideSumUnsupported();
    bool overflow = false;
    u = RescaleDecimal(y.decimal_unscaled(), y.decimal_scale(), ytype.scale(), &overflow);
    if (overflow) return Status::Overflow("numeric field overflow");
  } else {
    u = y.int_value();
  }
  int128 t, sq;
  if (__builtin_mul_overflow(u, static_cast<int128>(w), &t) ||
      __builtin_add_overflow(acc->isum, t, &acc->isum) || __builtin_mul_overflow(u, u, &sq) ||
      __builtin_mul_overflow(sq, static_cast<int128>(w), &sq) ||
      __builtin_add_overflow(acc->isum2, sq, &acc->isum2)) {
    return StatsOverflow();
  }
  return Status::OK();
}

// The same, exact, in BigDecimals: the sum at the values' scale (the
// column's, or NUMERIC's largest present; 0 for integers) and the sum of
// squares at twice it. Kept as int128s again when both fit.
Status AddSquaresWide(const SqlType& ytype, const Value& y, Weight w, LinearAcc* acc) {
  const bool decimal = y.kind() == Value::Kind::kDecimal;
  const bool dynamic = decimal && ytype.dynamic_scale();
  const int before = dynamic ? std::max(acc->Scale(), 0) : decimal ? ytype.scale() : 0;
  BigDecimal sum = acc->wide2 ? *acc->wide : BigDecimal::FromInt128(acc->isum, before);
  BigDecimal sum2 = acc->wide2 ? *acc->wide2 : BigDecimal::FromInt128(acc->isum2, 2 * before);
  BigDecimal v = decimal ? BigDecimal::FromValue(y) : BigDecimal::FromInt128(y.int_value(), 0);
  if (dynamic) {
    const int s = y.decimal_scale();
    if (s < 0 || s > kMaxDecimalDigits) {
      return Status::Unimplemented(
          "the statistics of numeric values with more than 38 digits after the point are not "
          "supported yet");
    }
    if (__builtin_add_overflow(acc->scale_counts[s], w, &acc->scale_counts[s])) {
      return Status::Overflow("numeric field overflow in aggregate");
    }
  } else if (decimal) {
    v = v.Round(ytype.scale());  // as the column's type holds it
  }
  const BigDecimal weight = BigDecimal::FromInt128(static_cast<int128>(w), 0);
  sum = BigDecimal::Add(sum, BigDecimal::Mul(v, weight));
  sum2 = BigDecimal::Add(sum2, BigDecimal::Mul(BigDecimal::Mul(v, v), weight));
  // A delete may leave a smaller largest scale: the digits beyond it are
  // zeros.
  const int after = dynamic ? std::max(acc->Scale(), 0) : before;
  sum = sum.Round(after);
  sum2 = sum2.Round(2 * after);
  int128 a, b;
  if (sum.ToInt128(&a) && sum2.ToInt128(&b)) {
    acc->isum = a;
    acc->isum2 = b;
    acc->wide.reset();
    acc->wide2.reset();
  } else {
    acc->isum = acc->isum2 = 0;
    acc->wide = std::make_shared<const BigDecimal>(std::move(sum));
    acc->wide2 = std::make_shared<const BigDecimal>(std::move(sum2));
  }
  return Status::OK();
}

// Either way, one form for one state: int128s while both sums have fewer
// than 38 digits, else BigDecimals.
Status AddSquares(const SqlType& ytype, const Value& y, Weight w, LinearAcc* acc) {
  if (!acc->wide2) {
    const int128 isum = acc->isum, isum2 = acc->isum2;
    int64_t counts[kMaxDecimalDigits + 1];
    std::memcpy(counts, acc->scale_counts, sizeof(counts));
    const Status s = AddSquaresNarrow(ytype, y, w, acc);
    if (s.ok() && Below38Digits(acc->isum) && Below38Digits(acc->isum2)) return Status::OK();
    if (!s.ok() && s.code() != StatusCode::kOverflow && s.code() != StatusCode::kUnimplemented) {
      return s;
    }
    acc->isum = isum;
    acc->isum2 = isum2;
    std::memcpy(acc->scale_counts, counts, sizeof(counts));
  }
  return AddSquaresWide(ytype, y, w, acc);
}

// The variance (or with `sqrt` the standard deviation) of numbers at
// `in_scale` from their count and exact sums, as numeric_stddev_internal:
// (N * sum(X²) - sum(X)²) / (N * (N - 1)) (or N²) at select_div_scale's
// scale, rounded half away from zero, its square root at the same scale.
Result<Value> WideStatsResult(int64_t count, const BigDecimal& sum, const BigDecimal& sum2,
                              int in_scale, bool samp, bool sqrt) {
  const BigDecimal n = BigDecimal::FromInt128(count, 0);
  const BigDecimal sx = sum.Round(in_scale);  // num at twice the input's scale
  const BigDecimal num =
      BigDecimal::Sub(BigDecimal::Mul(n, sum2.Round(2 * in_scale)), BigDecimal::Mul(sx, sx));
  if (num.sign() <= 0) return Value::Decimal(0, 0);
  const BigDecimal den = BigDecimal::Mul(n, samp ? BigDecimal::FromInt128(count - 1, 0) : n);
  const int scale = BigDecimal::DivScale(num, den);
  if (scale > kMaxDecimalDigits) {
    return Status::Unimplemented(
        "a variance or standard deviation with more than 38 digits after the point is not "
        "supported yet");
  }
  BigDecimal q = BigDecimal::Div(num, den, scale);
  if (sqrt) q = q.Sqrt(scale);
  return q.ToValue();
}

}  // namespace

Status StatsAdd(const AggSpec& spec, const SqlType& ytype, const Value& y, const Value& x, Weight w,
                LinearAcc* acc) {
  if (y.is_null()) return Status::OK();
  if (IsPairStatistic(spec.kind)) {
    if (x.is_null()) return Status::OK();
    const double vy = y.double_value(), vx = x.double_value();
    if (!Squarable(vx) || !Squarable(vy)) return FloatOverflow();
    if (__builtin_add_overflow(acc->count, w, &acc->count)) {
      return Status::Overflow("count overflow in aggregate");
    }
    FloatMoments& m = acc->moments;
    AddFloat(vy, w, &m.sy, &m.syy, m.bad_y);
    AddFloat(vx, w, &m.sx, &m.sxx, m.bad_x);
    if (std::isfinite(vx) && std::isfinite(vy)) {
      const double p = vx * vy, e = std::fma(vx, vy, -p), dw = static_cast<double>(w);
      m.sxy.AddProduct(p, dw);
      m.sxy.AddProduct(e, dw);
    }
    return Status::OK();
  }
  if (__builtin_add_overflow(acc->count, w, &acc->count)) {
    return Status::Overflow("count overflow in aggregate");
  }
  switch (ArithOf(ytype)) {
    case Arith::kInt:
    case Arith::kDecimal:
      if (y.kind() == Value::Kind::kDecimal && y.decimal_is_special()) {
        return AddDecimalSpecial(y, w, acc);
      }
      return AddSquares(ytype, y, w, acc);
    case Arith::kFloat:
      if (!Squarable(y.double_value())) return FloatOverflow();
      AddFloat(y.double_value(), w, &acc->moments.sx, &acc->moments.sxx, acc->moments.bad_x);
      return Status::OK();
    case Arith::kOther:
      break;
  }
  return Status::InvalidArgument("a variance of a non-numeric column " + ytype.ToString());
}

Result<Value> StatsResult(const AggSpec& spec, const SqlType& col, const LinearAcc& acc) {
  const int64_t count = acc.count;
  const AggKind k = spec.kind;
  if (k == AggKind::kRegrCount) return Value::Int(count);
  const bool samp = k == AggKind::kVarSamp || k == AggKind::kStddevSamp;
  const bool sqrt = k == AggKind::kStddevPop || k == AggKind::kStddevSamp;
  if (!IsPairStatistic(k) && ArithOf(col) != Arith::kFloat) {
    // PostgreSQL's numeric_stddev_internal: (N * sum(X²) - sum(X)²) divided
    // by N * (N - 1) or N², rounded half away from zero at the result's
    // scale; the standard deviation is the square root of that, rounded
    // again.
    // Any NaN or infinity makes every statistic NaN, as in PostgreSQL,
    // except a sample's of one value, which is NULL like any other.
    if (count <= (samp ? 1 : 0)) return Value::Null();
    if (acc.HasSpecials()) return Value::DecimalNaN();
    const int in_scale = ArithOf(col) == Arith::kInt ? 0 : SumScale(col, acc);
    if (acc.wide2) return WideStatsResult(count, *acc.wide, *acc.wide2, in_scale, samp, sqrt);
    // Past 256 bits or 38 digits on the way: the same, in BigDecimals.
    auto wide = [&] {
      return WideStatsResult(count, BigDecimal::FromInt128(acc.isum, in_scale),
                             BigDecimal::FromInt128(acc.isum2, 2 * in_scale), in_scale, samp, sqrt);
    };
    const auto n = static_cast<unsigned __int128>(count);
    const auto abs = [](int128 v) {
      return v < 0 ? static_cast<unsigned __int128>(0) - static_cast<unsigned __int128>(v)
                   : static_cast<unsigned __int128>(v);
    };
    if (acc.isum2 < 0) return Status::Internal("a negative sum of squares");
    U256 num = U256::Mul(n, static_cast<unsigned __int128>(acc.isum2));
    U256 sq = U256::Mul(abs(acc.isum), abs(acc.isum));
    if (num.Compare(sq) <= 0) return Value::Decimal(0, 0);
    num.Sub(sq);
    const unsigned __int128 den = n * (samp ? n - 1 : n);
    // PostgreSQL's scale of num / den (num at twice the input's scale).
    const int scale = NumericDivScale(num.Digits(), 2 * in_scale, U256::From(den).Digits(), 0);
    if (scale > kMaxDecimalDigits) return wide();
    // The variance at `scale`: num * 10^(scale - 2 * in_scale) / den.
    for (int i = 2 * in_scale; i < scale; ++i) {
      if (!num.MulSmall(10)) return wide();
    }
    unsigned __int128 rem = 0;
    U256 q = num.DivMod(den, &rem);
    if (rem >= den - rem) q.Add(U256::From(1));  // q < 2^255: no carry out
    if (sqrt) {
      // sqrt(q / 10^scale) at `scale`: round(sqrt(q * 10^scale)).
      for (int i = 0; i < scale; ++i) {
        if (!q.MulSmall(10)) return wide();
      }
      unsigned __int128 r = q.Sqrt();
      // Round up when q > r² + r, i.e. sqrt(q) >= r + 1/2.
      U256 half = U256::Mul(r, r);
      half.Add(U256::From(r));
      if (q.Compare(half) > 0) ++r;
      q = U256::From(r);
    }
    if (!q.FitsIn127()) return wide();
    return Value::Decimal(static_cast<int128>(q.Low()), scale);
  }
  // Doubles: PostgreSQL's final functions over N, Sx, Sy and the sums of
  // squared deviations Sxx, Syy, Sxy, here from exact sums.
  const FloatMoments& m = acc.moments;
  YoungsCramer yc;
  yc.count = count;
  if (count < 1) return yc.Result(k);
  yc.n = static_cast<double>(count);
  const double n = yc.n;
  if (IsPairStatistic(k)) {
    yc.sy = SumOf(m.sy, m.bad_y);
    yc.syy = AnyBad(m.bad_y) ? std::nan("") : CoMoment(n, m.sy, m.sy, m.syy);
    yc.sxy = AnyBad(m.bad_x) || AnyBad(m.bad_y) ? std::nan("") : CoMoment(n, m.sx, m.sy, m.sxy);
  }
  yc.sx = SumOf(m.sx, m.bad_x);
  yc.sxx = AnyBad(m.bad_x) ? std::nan("") : CoMoment(n, m.sx, m.sx, m.sxx);
  return yc.Result(k);
}

Status YoungsCramer::Add(double v) {
  // float8_accum
  const double n0 = n, sx0 = sx;
  n += 1.0;
  sx += v;
  ++count;
  if (n0 > 0.0) {
    const double tmp = v * n - sx;
    sxx += tmp * tmp / (n * n0);
    if (std::isinf(sx) || std::isinf(sxx)) {
      if (!std::isinf(sx0) && !std::isinf(v)) {
        return Status::Overflow("value out of range: overflow");
      }
      sxx = std::nan("");
    }
  } else if (!std::isfinite(v)) {
    sxx = std::nan("");
  }
  return Status::OK();
}

Status YoungsCramer::Add(double y, double x) {
  // float8_regr_accum
  const double n0 = n, sx0 = sx, sy0 = sy;
  n += 1.0;
  sx += x;
  sy += y;
  ++count;
  if (n0 > 0.0) {
    const double tx = x * n - sx, ty = y * n - sy, scale = 1.0 / (n * n0);
    sxx += tx * tx * scale;
    syy += ty * ty * scale;
    sxy += tx * ty * scale;
    if (std::isinf(sx) || std::isinf(sxx) || std::isinf(sy) || std::isinf(syy) ||
        std::isinf(sxy)) {
      if (((std::isinf(sx) || std::isinf(sxx)) && !std::isinf(sx0) && !std::isinf(x)) ||
          ((std::isinf(sy) || std::isinf(syy)) && !std::isinf(sy0) && !std::isinf(y)) ||
          (std::isinf(sxy) && !std::isinf(sx0) && !std::isinf(x) && !std::isinf(sy0) &&
           !std::isinf(y))) {
        return Status::Overflow("value out of range: overflow");
      }
      if (std::isinf(sxx)) sxx = std::nan("");
      if (std::isinf(syy)) syy = std::nan("");
      if (std::isinf(sxy)) sxy = std::nan("");
    }
  } else {
    if (!std::isfinite(x)) sxx = sxy = std::nan("");
    if (!std::isfinite(y)) syy = sxy = std::nan("");
  }
  return Status::OK();
}

Value YoungsCramer::Result(AggKind k) const {
  if (k == AggKind::kRegrCount) return Value::Int(count);
  if (n < 1.0) return Value::Null();
  switch (k) {
    case AggKind::kVarPop:
      return Value::Double(sxx / n);
    case AggKind::kStddevPop:
      return Value::Double(std::sqrt(sxx / n));
    case AggKind::kVarSamp:
      if (n <= 1.0) return Value::Null();
      return Value::Double(sxx / (n - 1.0));
    case AggKind::kStddevSamp:
      if (n <= 1.0) return Value::Null();
      return Value::Double(std::sqrt(sxx / (n - 1.0)));
    case AggKind::kCovarPop:
      return Value::Double(sxy / n);
    case AggKind::kCovarSamp:
      if (n < 2.0) return Value::Null();
      return Value::Double(sxy / (n - 1.0));
    case AggKind::kCorr:
      if (sxx == 0 || syy == 0) return Value::Null();  // a horizontal or vertical line
      return Value::Double(sxy / std::sqrt(sxx * syy));
    case AggKind::kRegrSxx:
      return Value::Double(sxx);
    case AggKind::kRegrSyy:
      return Value::Double(syy);
    case AggKind::kRegrSxy:
      return Value::Double(sxy);
    case AggKind::kRegrAvgX:
      return Value::Double(sx / n);
    case AggKind::kRegrAvgY:
      return Value::Double(sy / n);
    case AggKind::kRegrR2:
      if (sxx == 0) return Value::Null();        // a vertical line
      if (syy == 0) return Value::Double(1.0);  // a horizontal line
      return Value::Double((sxy * sxy) / (sxx * syy));
    case AggKind::kRegrSlope:
      if (sxx == 0) return Value::Null();
      return Value::Double(sxy / sxx);
    case AggKind::kRegrIntercept:
      if (sxx == 0) return Value::Null();
      return Value::Double((sy - sx * sxy / sxx) / n);
    default:
      break;
  }
  return Value::Null();
}

void EncodeStats(const LinearAcc& acc, std::string* out) {
  out->append(reinterpret_cast<const char*>(&acc.isum2), 16);
  const FloatMoments& m = acc.moments;
  for (int i = 0; i < 3; ++i) out->append(reinterpret_cast<const char*>(&m.bad_x[i]), 8);
  for (int i = 0; i < 3; ++i) out->append(reinterpret_cast<const char*>(&m.bad_y[i]), 8);
  for (const ExactSum* s : {&m.sx, &m.sy, &m.sxx, &m.syy, &m.sxy}) {
    uint32_t n = static_cast<uint32_t>(s->parts.size());
    out->append(reinterpret_cast<const char*>(&n), 4);
    out->append(reinterpret_cast<const char*>(s->parts.data()), 8 * s->parts.size());
  }
}

Status DecodeStats(std::string_view* in, LinearAcc* acc) {
  auto take = [&](void* to, size_t n) {
    if (in->size() < n) return false;
    std::memcpy(to, in->data(), n);
    in->remove_prefix(n);
    return true;
  };
  FloatMoments& m = acc->moments;
  bool ok = take(&acc->isum2, 16);
  for (int i = 0; i < 3 && ok; ++i) ok = take(&m.bad_x[i], 8);
  for (int i = 0; i < 3 && ok; ++i) ok = take(&m.bad_y[i], 8);
  for (ExactSum* s : {&m.sx, &m.sy, &m.sxx, &m.syy, &m.sxy}) {
    uint32_t n = 0;
    if (!ok || !take(&n, 4) || in->size() < 8 * static_cast<size_t>(n)) {
      ok = false;
      break;
    }
    s->parts.resize(n);
    ok = take(s->parts.data(), 8 * static_cast<size_t>(n));
  }
  if (!ok) return Status::Corruption("the state of a statistic is truncated");
  return Status::OK();
}

Result<Value> CollectedResult(const AggSpec& spec, const SqlType& out_type, const SqlType& vt,
                              std::vector<Value> values) {
  if (values.empty()) return Value::Null();
  if (spec.kind == AggKind::kArrayAgg) {
    // Of arrays (ArrayHoldsSubArrays): each is a sub-array, and the lower
    // bounds of the first that has some are the result's below its first
    // dimension, as PostgreSQL's array_agg gives them.
    std::vector<int32_t> lower;
    if (ArrayHoldsSubArrays(out_type) && vt.id() == TypeId::kArray) {
      for (Value& x : values) {
        if (x.is_null() || x.lower_bounds().empty()) continue;
        if (lower.empty()) {
          lower.push_back(1);
          lower.insert(lower.end(), x.lower_bounds().begin(), x.lower_bounds().end());
        }
        x = Value::List(std::vector<Value>(x.list()));
      }
    }
    return Value::BoundedList(std::move(values), std::move(lower));
  }
  std::string joined;
  for (size_t k = 0; k < values.size(); ++k) {
    if (k > 0) joined += spec.separator;
    joined += values[k].string_value();
  }
  return Value::String(std::move(joined));
}

}  // namespace sluice
