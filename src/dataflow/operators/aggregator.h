// The arithmetic of aggregate functions, shared by the GROUP BY aggregate and
// the rolling (range window) aggregate: the accumulator of the linear
// functions, how a row's field adds to it, and how a result is rendered as
// an encoded field.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "types/sql_type.h"
#include "types/value.h"
#include "zset/batch.h"

namespace sluice {

enum class AggKind {
  kCountStar,
  kCount,
  kCountDistinct,
  kSum,
  kAvg,
  kMin,
  kMax,
  kSumDistinct,
  kAvgDistinct,
  kStringAgg,  // the group's non-NULL strings joined by `separator`, in order
  kArrayAgg,   // the group's values (NULLs too) as an array, in order
};

// COUNT, SUM and AVG of the DISTINCT values are the plain ones over values
// counted once.
bool IsDistinctAgg(AggKind kind);
AggKind BaseKind(AggKind kind);
// COUNT(*), COUNT and COUNT(DISTINCT): BIGINT NOT NULL, 0 over no rows.
bool IsCount(AggKind kind);

struct AggSpec {
  AggKind kind;
  int column = -1;  // into the value schema; unused for COUNT(*)
  // STRING_AGG and ARRAY_AGG: values in the column's order (descending if
  // `desc`); STRING_AGG's separator.
  bool desc = false;
  std::string separator;
  int filter_column = -1;  // ARRAY_AGG ... FILTER: a BOOLEAN column; only TRUE rows count
};

// Result types, as PostgreSQL gives them where it can: COUNT -> BIGINT NOT
// NULL; SUM of an integer type -> BIGINT (an out-of-range sum is an error),
// of DECIMAL(p,s) -> DECIMAL(38,s), of REAL -> REAL, of DOUBLE -> DOUBLE; AVG of floats
// -> DOUBLE, of integers and DECIMAL(p,s) -> DECIMAL(38, max(s, 16)) rounded
// half away from zero; MIN and MAX -> the column's type. All but COUNT are nullable
// (NULL when no non-NULL input).
Result<SqlType> AggOutputType(const AggSpec& spec, const Schema& val_schema);

// AVG of integers and decimals has at least this many digits after the point,
// as PostgreSQL's numeric division gives for averages of moderate size.
constexpr int kAvgScale = 16;

// The average of `count` values summing to `sum` (unscaled, at `scale`), at
// `to_scale` digits (fewer if the sum is too large), rounded half away from
// zero.
Result<Value> AvgDecimal(int128 sum, int scale, int64_t count, int to_scale);

// The accumulator of COUNT(*), COUNT, COUNT(DISTINCT) (count only), SUM and
// AVG: weighted count of non-NULL inputs and their weighted sum, as a 128-bit
// integer (integers, decimals at the column's scale) or a double.
struct LinearAcc {
  int64_t count = 0;
  int128 isum = 0;
  double dsum = 0;
};

// Adds `w` copies of `field` (the encoded field, with its null tag) to `acc`.
Status AccAdd(const AggSpec& spec, const SqlType& col, std::string_view field, Weight w,
              LinearAcc* acc);
// Appends the encoded result of a linear aggregate.
Status RenderLinear(const AggSpec& spec, const SqlType& col, const LinearAcc& acc,
                    std::string* out);
// Appends `field` (a field of `col`) as a field of col.WithNullable(true).
void AppendAsNullable(const SqlType& col, std::string_view field, std::string* out);

bool IsLinear(AggKind kind);

}  // namespace sluice
