// The logical plan: what a query computes, as a tree of relational operators
// over typed columns. The binder builds it; lower.h turns it into a circuit.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dataflow/operators/aggregator.h"
#include "dataflow/operators/join.h"
#include "dataflow/operators/top_k.h"
#include "dataflow/operators/window.h"
#include "sql/expr.h"

namespace sluice::sql {

// How far a view's recursive queries (WITH RECURSIVE) may go before their
// evaluation is an error: rounds of the iteration, rows of the result and
// MiB of those rows. WITH (max_recursion_iterations = n, ...) on the view.
struct RecursionLimits {
  int64_t iterations = 100000;
  int64_t rows = 10000000;
  int64_t mb = 256;
};

struct Column {
  std::string name;
  SqlType type;
};

struct AggCall {
  AggKind kind = AggKind::kCountStar;
  ExprPtr arg;  // over the aggregate's input; null for COUNT(*)
  SqlType type;
  bool desc = false;      // STRING_AGG, ARRAY_AGG: ORDER BY the value DESC
  bool distinct = false;  // STRING_AGG, ARRAY_AGG: each value once
  std::string separator;  // STRING_AGG
  ExprPtr filter;         // ARRAY_AGG ... FILTER (WHERE filter): NULLs count, so not a CASE
  ExprPtr arg2;           // IsPairStatistic: X (`arg` is Y)
  bool keyed_order = false;  // STRING_AGG, ARRAY_AGG: `arg` is ROW(order key, value)
};

struct SortKey {
  int column = 0;  // into the node's columns
  bool desc = false;
  bool nulls_first = false;  // PostgreSQL: NULLS FIRST is the default for DESC
};

enum class PlanKind {
  kScan,       // a table
  kValues,     // constant rows
  kClock,      // the one row {NOW()}: the step clock, one TIMESTAMP column
  kFilter,     // rows of input 0 satisfying `predicate`
  kProject,    // `exprs` over input 0
  kJoin,       // inputs 0 and 1 on left_keys = right_keys, then `predicate`
  kAggregate,  // group_keys, then aggs, over input 0
  kDistinct,
  kUnionAll,        // all inputs, same columns
  kExcept,          // distinct rows of input 0 not in input 1
  kIntersect,       // distinct rows of input 0 also in input 1
  kRolling,         // input 0 plus agg over the rows of its partition whose
                    // order key lies in [key - range, key]
  kExceptAll,       // each row max(A - B, 0) times
  kIntersectAll,    // each row min(A, B) times
  kTopK,            // the first `limit` rows after `offset` in `order`
  kRank,            // input 0 plus ROW_NUMBER() OVER (PARTITION BY partition ORDER BY
                    // order_exprs), keeping rows numbered up to `limit`
  kWindow,          // input 0 plus (window_start, window_end), once per
                    // tumbling or hopping window that holds its time column
  kOver,            // input 0 plus window_calls OVER (PARTITION BY partition
                    // ORDER BY order_exprs), computed per whole partition
  kRecursive,       // WITH RECURSIVE `table`: input 0 (the non-recursive term)
                    // UNION [ALL] input 1 (the recursive term, reading `working`)
                    // until no new row comes
  kWorkingTable,    // the rows of a recursive query's previous iteration
  kTemporalFilter,  // the rows of input 0 while the step clock (NOW()) passes
                    // every one of `time_bounds`
  kSeries,          // input 0 plus one column: a row per value of a set-returning
                    // function (`series`) of `exprs` over the input row (a
                    // LATERAL generate_series or unnest)
  kDraw,            // input 0 plus one DOUBLE column per site of `draw_sites`:
                    // random() at that call site, drawn once per copy of a row
                    // when it arrives and kept until it leaves (draws.h)
};

// The set-returning functions that kSeries computes per row.
enum class SeriesFn { kGenerateSeries, kUnnest };

// A window function's frame, as PostgreSQL's frame clause says it.
struct WindowFrame {
  enum class Unit { kRows, kRange, kGroups };
  enum class Bound {
    kUnboundedPreceding,
    kPreceding,
    kCurrentRow,
    kFollowing,
    kUnboundedFollowing
  };
  enum class Exclude { kNoOthers, kCurrentRow, kGroup, kTies };
  Unit unit = Unit::kRange;
  Bound start = Bound::kUnboundedPreceding, end = Bound::kCurrentRow;
  // ROWS and GROUPS: counts; RANGE: a distance in the order key's unit
  // (microseconds for timestamps and times, days for dates).
  long double start_offset = 0, end_offset = 0;
  // RANGE over a date or timestamp: the months of an interval offset,
  // added on the calendar (PostgreSQL's timestamp + interval) before the
  // rest of it, which is in the offsets above.
  int32_t start_months = 0, end_months = 0;
  // ROWS and GROUPS: an offset of subqueries, over the row (the subqueries'
  // answers joined to every row, so it is the same in every row); set, it
  // stands for the constant offset above.
  ExprPtr start_expr, end_expr;
  Exclude exclude = Exclude::kNoOthers;
};

enum class WindowFnKind {
  kRowNumber,
  kRank,
  kDenseRank,
  kPercentRank,
  kCumeDist,
  kNtile,
  kLag,
  kLead,
  kFirstValue,
  kLastValue,
  kNthValue,
  kAggregate,
};

struct WindowCall {
  WindowFnKind kind = WindowFnKind::kRowNumber;
  AggKind agg = AggKind::kCountStar;  // kAggregate
  std::vector<ExprPtr> args;          // over input 0's row
  SqlType type;
  WindowFrame frame;
  ExprPtr filter;         // kAggregate ... FILTER (WHERE filter): only its TRUE rows count
  std::string separator;  // STRING_AGG
  // Applied to the aggregate's value (column 0 of a one-column row), as
  // JSON_AGG(x) is JSON_ARRAY_OF_ELEMENTS(ARRAY_AGG(TO_JSON(x))); `type` is
  // its type.
  ExprPtr finish;
};

// A temporal filter's condition on NOW(): `at`, a TIMESTAMP over the row, is
// a lower bound (NOW() >= at, or > at if not `inclusive`) or an upper one
// (NOW() <= at, or < at). A NULL `at` passes no row.
struct TimeBound {
  ExprPtr at;
  bool lower = false;
  bool inclusive = true;
};

struct PlanNode;
using PlanPtr = std::shared_ptr<const PlanNode>;

struct PlanNode {
  PlanKind kind = PlanKind::kValues;
  std::vector<Column> columns;
  std::vector<PlanPtr> inputs;

  std::string table;                      // kScan
  std::vector<Row> rows;                  // kValues
  ExprPtr predicate;                      // kFilter; kJoin (residual, over both sides)
  std::vector<ExprPtr> exprs;             // kProject
  JoinType join_type = JoinType::kInner;  // kJoin
  std::vector<ExprPtr> left_keys, right_keys;
  bool null_safe = false;           // kJoin: NULL keys match NULL keys
  PlanPtr domain;                   // kAggregate: every row of it (its
                                    // columns are the first group keys) gets
                                    // a row, with COUNT 0 and NULL aggregates
  std::vector<ExprPtr> group_keys;  // kAggregate
  std::vector<AggCall> aggs;
  bool global = false;                        // kAggregate without GROUP BY: one row even if empty
  std::vector<SortKey> order;                 // kTopK; kRank (directions)
  int64_t limit = -1, offset = 0;             // kTopK; kRank (-1 until a filter on it sets it)
  std::vector<ExprPtr> partition;             // kRank
  std::vector<ExprPtr> order_exprs;           // kRank; kRolling (one, the order key)
  int64_t range = 0;                          // kRolling, in the order key's unit
  RankKind rank_kind = RankKind::kRowNumber;  // kRank
  AggCall rolling;                            // kRolling
  WindowSpec window;                          // kWindow
  std::vector<WindowCall> window_calls;       // kOver (with partition, order_exprs, order)
  // kOver: the order of rows with equal order keys, which are still peers
  // (the ORDER BY of the subquery the rows come from, as PostgreSQL's plan
  // keeps it when the window's order is its start).
  std::vector<ExprPtr> tie_exprs;
  std::vector<SortKey> tie_order;
  PlanPtr working;                            // kRecursive: its kWorkingTable
  bool set_union = false;                     // kRecursive: UNION, not UNION ALL
  std::string runaway_error;                  // kRecursive: the error if its recursion does not end
  SeriesFn series = SeriesFn::kGenerateSeries;  // kSeries (with exprs)
  bool ordinality = false;  // kSeries: a BIGINT column after the value, its place (1, 2, ...)
  // kSeries of several functions in lockstep (a select list's): each one's
  // kind and how many of `exprs` are its arguments, in order; a column each,
  // as many rows as the longest gives, the others' columns NULL past their end.
  std::vector<std::pair<SeriesFn, size_t>> zip;
  std::vector<TimeBound> time_bounds;           // kTemporalFilter
  std::vector<int> draw_sites;                  // kDraw: positions of random() in the text

  Schema schema() const {
    Schema s;
    for (const Column& c : columns) s.push_back(c.type);
    return s;
  }
};

// A compiled query: its plan, plus how to present it (the ORDER BY of the
// outermost SELECT and how many leading columns are visible; the rest are
// ORDER BY keys that the select list does not show).
struct BoundQuery {
  PlanPtr plan;
  std::vector<SortKey> order;
  size_t visible = 0;
  // Ad hoc queries: visible select-list items that call nextval() or its
  // kin and read no column, by column. The plan gives them NULL; they are
  // computed after the rows are sorted and limited, row after row in the
  // query's order, as PostgreSQL computes them (ComputeDeferred).
  std::vector<std::pair<size_t, ExprPtr>> deferred;
};

}  // namespace sluice::sql
