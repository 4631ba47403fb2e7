// The arithmetic of aggregate functions, shared by the GROUP BY aggregate and
// the rolling (range window) aggregate: the accumulator of the linear
// functions, how a row's field adds to it, and how a result is rendered as
// an encoded field.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "types/sql_type.h"
#include "types/value.h"
#include "zset/batch.h"

namespace sluice {

class BigDecimal;

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
  // PostgreSQL's statistics of one column (integers and decimals: NUMERIC;
  // floats: double precision). VARIANCE is VAR_SAMP, STDDEV is STDDEV_SAMP.
  kVarPop,
  kVarSamp,
  kStddevPop,
  kStddevSamp,
  // Of pairs (Y, X) of doubles where neither is NULL; `column` is Y and
  // `column2` is X, as in regr_slope(Y, X).
  kCovarPop,
  kCovarSamp,
  kCorr,
  kRegrCount,  // BIGINT NOT NULL, 0 over no rows
  kRegrSxx,
  kRegrSyy,
  kRegrSxy,
  kRegrAvgX,
  kRegrAvgY,
  kRegrR2,
  kRegrSlope,
  kRegrIntercept,
};

// COUNT, SUM and AVG of the DISTINCT values are the plain ones over values
// counted once.
bool IsDistinctAgg(AggKind kind);
AggKind BaseKind(AggKind kind);
// COUNT(*), COUNT, COUNT(DISTINCT) and REGR_COUNT: BIGINT NOT NULL, 0 over
// no rows.
bool IsCount(AggKind kind);
// The variance, covariance and regression families (kVarPop...).
bool IsStatistical(AggKind kind);
// The statistics of pairs (kCovarPop...): they read `column2` too.
bool IsPairStatistic(AggKind kind);

struct AggSpec {
  AggKind kind;
  int column = -1;  // into the value schema; unused for COUNT(*)
  // STRING_AGG and ARRAY_AGG: values in the column's order (descending if
  // `desc`), each once if `distinct`; STRING_AGG's separator.
  bool desc = false;
  bool distinct = false;
  std::string separator;
  int filter_column = -1;  // ARRAY_AGG ... FILTER: a BOOLEAN column; only TRUE rows count
  // STRING_AGG, ARRAY_AGG ordered by another expression than the value: the
  // column is ROW(order key, value), so the values come in the key's order
  // (ties by value); only the value is aggregated.
  bool keyed_order = false;
  int column2 = -1;        // IsPairStatistic: X
};

// Result types, as PostgreSQL gives them where it can: COUNT -> BIGINT NOT
// NULL; SUM of SMALLINT or INTEGER -> BIGINT (an out-of-range sum is an
// error), of BIGINT -> NUMERIC, of DECIMAL(p,s) -> DECIMAL(38,s) (a sum of
// more digits is an error when it is written; p > 38: NUMERIC), of NUMERIC
// -> NUMERIC (the largest scale of the values summed), of REAL -> REAL, of
// DOUBLE -> DOUBLE; AVG of floats -> DOUBLE, of integers and decimals ->
// NUMERIC (AvgNumeric); MIN and MAX -> the column's type; the variance
// family of integers and decimals -> NUMERIC (PostgreSQL's
// numeric_stddev_internal), of floats -> DOUBLE; the pair statistics ->
// DOUBLE. All but the counts are nullable (NULL when no non-NULL input).
Result<SqlType> AggOutputType(const AggSpec& spec, const Schema& val_schema);

// An exact sum of doubles: Shewchuk's nonoverlapping expansion, components
// in increasing magnitude, no zeros. Adding and subtracting a double is exact,
// so deletes undo inserts to the last bit.
struct ExactSum {
  std::vector<double> parts;
  void Add(double x);
  // Adds the exact product a * b.
  void AddProduct(double a, double b);
  // The sum rounded to a double-double (hi + lo).
  void Round(double* hi, double* lo) const;
};

// The statistics of doubles: exact weighted sums of X, Y, X², Y², XY over
// finite values, and weighted counts of the non-finite ones (NaN, +Inf,
// -Inf), which make the sums they enter NaN or infinite as in PostgreSQL.
struct FloatMoments {
  ExactSum sx, sy, sxx, syy, sxy;
  int64_t bad_x[3] = {0, 0, 0}, bad_y[3] = {0, 0, 0};
};

// The accumulator of COUNT(*), COUNT, COUNT(DISTINCT) (count only), SUM and
// AVG: weighted count of non-NULL inputs and their weighted sum, as a 128-bit
// integer (integers, decimals at the column's scale) or a double. A decimal
// sum of 38 digits or more lives in `wide` instead (isum is then 0), and
// returns to `isum` when it fits again, so that equal sums have one form. The
// statistics also keep the sum of squares of integers and decimals (`isum2`,
// unscaled) or the exact moments of doubles (`moments`); when the sum or the
// sum of squares reaches 38 digits, both live in `wide` and `wide2` (isum
// and isum2 are then 0), exact, until both fit again.
struct LinearAcc {
  int64_t count = 0;
  int128 isum = 0;
  double dsum = 0;
  int128 isum2 = 0;
  std::shared_ptr<const BigDecimal> wide;
  std::shared_ptr<const BigDecimal> wide2;  // the statistics' sum of squares
  FloatMoments moments;
  // DECIMAL: weighted counts of NaN, Infinity and -Infinity, which `count`
  // includes and `isum` does not (PostgreSQL's numeric accumulators keep
  // the same counts).
  // INTERVAL: specials[0] and [1] are the sums of the months and the days,
  // `isum` of the microseconds (AccAddInterval).
  int64_t specials[3] = {0, 0, 0};
  bool HasSpecials() const { return specials[0] != 0 || specials[1] != 0 || specials[2] != 0; }
  // NUMERIC of dynamic scale: the weighted count of the values of each
  // scale. `isum` is kept at the largest scale present (Scale()) and `isum2`
  // at twice it, as PostgreSQL's sum has the largest of its terms' scales.
  int64_t scale_counts[kMaxDecimalDigits + 1] = {};
  // The largest scale with values; -1 if none.
  int Scale() const;
};

// SUM and AVG of INTERVAL, as PostgreSQL's: months, days and microseconds
// summed apart (an out-of-range sum is an error), the average the sum
// divided as interval / count divides.
Status AccAddInterval(const Interval& v, Weight w, LinearAcc* acc);
Result<Value> IntervalSum(const LinearAcc& acc);
Result<Value> IntervalAvg(const LinearAcc& acc);

// The statistics of NUMERIC: adds `w` copies of the finite `v` to acc->isum
// and its square to acc->isum2, at the scale of the values present; not
// counted in acc->count. (SUM and AVG: AddDecimal.)
Status AddNumericSquares(const Value& v, Weight w, LinearAcc* acc);
// A NUMERIC accumulator's scale counts (EncodeScales: a byte n, then n
// pairs of a scale byte and an 8-byte count, by scale).
void EncodeScales(const LinearAcc& acc, std::string* out);
Status DecodeScales(std::string_view* in, LinearAcc* acc);

// AVG of integers and decimals, as PostgreSQL's numeric_avg: the sum
// (unscaled, at `scale`) over the count at NumericDivScale's scale.
Result<Value> AvgNumeric(int128 sum, int scale, int64_t count);

// Adds `w` copies of the decimal `v` (finite or special, of any width) to
// the SUM or AVG accumulator of a column of type `col` (a DECIMAL or
// NUMERIC); counted in acc->count by the caller.
Status AddDecimal(const SqlType& col, const Value& v, Weight w, LinearAcc* acc);
// The SUM of a decimal column's accumulator, as a Value of its scale (the
// column's, or for NUMERIC the largest of its values'). REQUIRES: acc.count > 0.
Value DecimalSum(const SqlType& col, const LinearAcc& acc);
// The AVG of an integer or decimal column's accumulator (PostgreSQL's
// numeric_avg). REQUIRES: acc.count > 0.
Result<Value> DecimalAvg(const SqlType& col, const LinearAcc& acc);
// The wide sums of accumulators, in bytes: for each, a 4-byte length and
// the sum's text (0 for a sum in isum), then for a statistic's, ';' and the
// text of its sum of squares.
void EncodeWideSums(const std::vector<LinearAcc>& accs, std::string* out);
Status DecodeWideSums(std::string_view* in, std::vector<LinearAcc>* accs);

// Adds weight `w` of the special numeric `v` to acc->specials.
// REQUIRES: v.decimal_is_special().
Status AddDecimalSpecial(const Value& v, Weight w, LinearAcc* acc);
// The SUM (and AVG) of values among which are specials: NaN if any is NaN
// or both infinities are there, else the infinity there.
// REQUIRES: acc.HasSpecials().
Value SpecialSum(const LinearAcc& acc);

// PostgreSQL's own accumulation of the statistics of doubles (Youngs and
// Cramer: N, the sums Sx, Sy and the running sums of squared deviations Sxx,
// Syy, Sxy), row by row in a given order, and its final functions. A window
// uses it, since there PostgreSQL's order is the window's; its roundings then
// match PostgreSQL's to the last bit. It has no inverse: a frame whose start
// moves is accumulated again.
struct YoungsCramer {
  double n = 0, sx = 0, sxx = 0, sy = 0, syy = 0, sxy = 0;
  int64_t count = 0;  // REGR_COUNT
  // The variance family: one variable, in sx and sxx.
  Status Add(double v);
  // The pairs.
  Status Add(double y, double x);
  // The result of `kind` (REQUIRES: IsStatistical; of doubles).
  Value Result(AggKind kind) const;
};

// Adds `w` copies of a statistic's input: `y` (the only argument of the
// variance family) and, for pairs, `x`. Rows with a NULL are skipped.
Status StatsAdd(const AggSpec& spec, const SqlType& ytype, const Value& y, const Value& x, Weight w,
                LinearAcc* acc);
// A statistic's result, of type AggOutputType (`col` is Y's type).
Result<Value> StatsResult(const AggSpec& spec, const SqlType& col, const LinearAcc& acc);
// The statistics' part of an accumulator's state, in bytes (after the fixed
// fields): isum2 (16 bytes), the six non-finite counts (8 bytes each), then
// each ExactSum as a count (4 bytes) and its doubles (8 bytes each).
void EncodeStats(const LinearAcc& acc, std::string* out);
Status DecodeStats(std::string_view* in, LinearAcc* acc);

// Adds `w` copies of `field` (the encoded field, with its null tag) to `acc`.
Status AccAdd(const AggSpec& spec, const SqlType& col, std::string_view field, Weight w,
              LinearAcc* acc);
// Appends the encoded result of a linear aggregate.
Status RenderLinear(const AggSpec& spec, const SqlType& col, const LinearAcc& acc,
                    std::string* out);
// Appends `field` (a field of `col`) as a field of col.WithNullable(true).
void AppendAsNullable(const SqlType& col, std::string_view field, std::string* out);

bool IsLinear(AggKind kind);

// The result of STRING_AGG or ARRAY_AGG (`spec.kind`) over `values`, the
// aggregated values of type `vt` in their order (STRING_AGG's without its
// NULLs): NULL if there are none; else the array (of arrays: each a
// sub-array, as PostgreSQL's array_agg gives them) or the strings joined by
// the separator. `out_type` is AggOutputType's.
Result<Value> CollectedResult(const AggSpec& spec, const SqlType& out_type, const SqlType& vt,
                              std::vector<Value> values);

}  // namespace sluice
