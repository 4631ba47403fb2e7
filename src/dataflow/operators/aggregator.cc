#include "dataflow/operators/aggregator.h"

#include <algorithm>

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
  return kind == AggKind::kCountStar || BaseKind(kind) == AggKind::kCount;
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
  const SqlType& col = val_schema[static_cast<size_t>(spec.column)];
  switch (spec.kind) {
    case AggKind::kCountStar:
    case AggKind::kCount:
    case AggKind::kCountDistinct:
      return SqlType::BigInt(false);
    case AggKind::kMin:
    case AggKind::kMax:
      return col.WithNullable(true);
    case AggKind::kStringAgg:
      return SqlType::Varchar();
    case AggKind::kArrayAgg:
      return SqlType::Array(col.WithNullable(true));
    case AggKind::kSumDistinct:
    case AggKind::kAvgDistinct:  // BaseKind() above maps these away
    case AggKind::kSum:
    case AggKind::kAvg:
      switch (ArithOf(col)) {
        case Arith::kInt:
          return spec.kind == AggKind::kSum ? SqlType::BigInt() : SqlType::Decimal(38, kAvgScale);
        case Arith::kDecimal:
          return SqlType::Decimal(
              38, spec.kind == AggKind::kSum ? col.scale() : std::max(col.scale(), kAvgScale));
        case Arith::kFloat:
          // SUM of REAL is REAL in PostgreSQL; AVG is double precision.
          return spec.kind == AggKind::kSum && col.id() == TypeId::kReal ? SqlType::Real()
                                                                         : SqlType::Double();
        case Arith::kOther:
          break;
      }
      return Status::InvalidArgument((spec.kind == AggKind::kSum ? "SUM" : "AVG") +
                                     std::string(" of a non-numeric column ") + col.ToString());
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
      int128 term;
      if (__builtin_mul_overflow(v.decimal_unscaled(), static_cast<int128>(w), &term) ||
          __builtin_add_overflow(acc->isum, term, &acc->isum)) {
        return Status::Overflow("numeric field overflow in aggregate");
      }
      return Status::OK();
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
  if (acc.count == 0) {
    AppendNull(out);
    return Status::OK();
  }
  AggSpec own = spec;
  own.column = 0;  // `col` alone is the schema here
  SLUICE_ASSIGN_OR_RETURN(SqlType type, AggOutputType(own, {col}));
  Arith a = ArithOf(col);
  if (spec.kind == AggKind::kSum) {
    if (a == Arith::kInt) {
      if (acc.isum > INT64_MAX || acc.isum < INT64_MIN) {
        return Status::Overflow("bigint out of range in SUM");
      }
      AppendInt64(static_cast<int64_t>(acc.isum), true, out);
      return Status::OK();
    }
    if (a == Arith::kDecimal) return EncodeValue(type, Value::Decimal(acc.isum, col.scale()), out);
    return EncodeValue(type, Value::Double(acc.dsum), out);
  }
  // AVG
  if (a == Arith::kFloat) {
    return EncodeValue(type, Value::Double(acc.dsum / static_cast<double>(acc.count)), out);
  }
  // Integers and decimals: the quotient at the result's scale, rounded half
  // away from zero (at fewer digits if the sum is too large for them).
  SLUICE_ASSIGN_OR_RETURN(
      Value avg, AvgDecimal(acc.isum, a == Arith::kInt ? 0 : col.scale(), acc.count, type.scale()));
  return EncodeValue(type, avg, out);
}

Result<Value> AvgDecimal(int128 sum, int scale, int64_t count, int to_scale) {
  if (count == 0) return Value::Null();
  int s = std::max(to_scale, scale);
  int128 x = 0;
  while (s > scale && __builtin_mul_overflow(sum, Pow10(s - scale), &x)) --s;
  if (s == scale) x = sum;
  int128 q = x / count, r = x % count;
  if (2 * (r < 0 ? -r : r) >= count) q += x < 0 ? -1 : 1;
  return Value::Decimal(q, s);
}

void AppendAsNullable(const SqlType& col, std::string_view field, std::string* out) {
  if (!col.nullable()) out->push_back(0x01);
  out->append(field);
}

}  // namespace sluice
