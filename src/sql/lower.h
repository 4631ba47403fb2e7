// Lowering: a logical plan (plan.h) becomes streams and operators of one
// worker's circuit. Every plan node's stream is a Z-set of rows encoded with
// the node's column types; scalar expressions run inside map and filter
// operators over decoded rows.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "dataflow/circuit.h"
#include "dataflow/clock.h"
#include "dataflow/operators/filter.h"
#include "dataflow/operators/map.h"
#include "dataflow/operators/top_k.h"
#include "dataflow/waterline.h"
#include "sql/needed_columns.h"
#include "sql/plan.h"

namespace sluice::sql {

// Errors raised while evaluating expressions on a row (division by zero,
// overflow, a bad cast). Where PostgreSQL would fail the statement, a view
// cannot stop: the row is dropped, and the error is counted here with the
// first few messages, which name the row.
//
// Also counted here, per table: deletes of rows that a table without a
// primary key did not hold (ClampOp), which changed nothing.
//
// Thread safety: Add() is called from every worker; `mu_` guards all.
class EvalErrors {
 public:
  void Add(const Status& s);
  int64_t count() const;
  std::vector<std::string> samples() const;

  void AddIgnoredDeletes(const std::string& table, int64_t n);
  // Since the pipeline started, per table (only those with some).
  std::map<std::string, uint64_t> ignored_deletes() const;

  // The steps of each recursive query ("<view>.<query>") since the
  // pipeline started: how many kept it up to date and how many computed it
  // from scratch, with the iterations of the last step and of all.
  struct Recursion {
    uint64_t incremental_steps = 0;
    uint64_t from_scratch_steps = 0;
    uint64_t last_iterations = 0;
    uint64_t iterations = 0;
  };
  void AddRecursionStep(const std::string& query, bool from_scratch, int64_t iterations);
  std::map<std::string, Recursion> recursions() const;

 private:
  static constexpr size_t kMaxSamples = 10;
  mutable Mutex mu_;
  int64_t count_ GUARDED_BY(mu_) = 0;
  std::vector<std::string> samples_ GUARDED_BY(mu_);
  std::map<std::string, uint64_t> ignored_deletes_ GUARDED_BY(mu_);
  std::map<std::string, Recursion> recursions_ GUARDED_BY(mu_);
};

// Whether the failed `s` is a row's evaluation error that `errors` counted,
// so that the caller drops the row; if not, the caller returns `s`, the
// step's failure.
bool CountedRowError(const Status& s, EvalErrors* errors);

// The waterlines of a program's tables: per table with a LATENESS column,
// that column and its waterline.
using TableWaterlines = std::map<std::string, std::pair<int, WaterlinePtr>>;

class Lowering {
 public:
  // `scan` returns the stream of a table's changes (creating its input).
  // Evaluation errors go to `errors` (which must outlive the circuit). With
  // `waterlines`, operators whose state lies behind a waterline forget it
  // (aggregates grouped by a bounded column, joins on one).
  // With `clock`, views may have temporal filters (reading NOW()).
  Lowering(Circuit& circuit, std::function<Stream*(const std::string&)> scan, EvalErrors* errors,
           const TableWaterlines* waterlines = nullptr, StepClockPtr clock = nullptr)
      : c_(circuit),
        scan_(std::move(scan)),
        errors_(errors),
        waterlines_(waterlines),
        clock_(std::move(clock)) {}

  // The stream of `plan`; a node shared by several plans is lowered once.
  Result<Stream*> Lower(const PlanPtr& plan);

  // The tables whose changes are only inserts (append_only: the ingest
  // refuses deletes). REQUIRES: called before Lower().
  void SetInsertOnlyTables(std::set<std::string> tables) {
    insert_only_tables_ = std::move(tables);
  }
  // Mixed into every random() draw of the plans lowered from now on (a
  // view's, so that two views draw differently; a query's instant, so that
  // two ad hoc queries do).
  void SetDrawSeed(uint64_t seed) { draw_seed_ = seed; }
  // The limits of the recursive queries of the plans lowered from now on
  // (a view's WITH options).
  void SetRecursionLimits(const RecursionLimits& limits) { recursion_limits_ = limits; }
  // Every plan that Lower() will be asked for, so that joins carry only the
  // columns their readers need (NeededColumns); without it, joins carry
  // whole rows. REQUIRES: called before Lower().
  void SetPlans(const std::vector<PlanPtr>& plans) { needed_ = NeededColumns(plans); }
  // Whether `n`'s stream is insert-only: every weight it will ever carry is
  // positive, so that MIN, MAX and top-k over it may keep only their current
  // best rows. True for a scan of an insert-only table, VALUES, and filters,
  // projections, flat maps (tumbling and hopping windows, LATERAL series),
  // UNION ALL, DISTINCT and inner joins (including those that forget rows
  // under a time range, which emit no retraction) of insert-only inputs.
  // False for anything that may retract a row it emitted: aggregates, outer
  // joins, set differences, top-k, window functions, temporal filters,
  // recursion.
  bool InsertOnly(const PlanNode& n);

 private:
  Result<Stream*> LowerNode(const PlanNode& n);
  Result<Stream*> LowerTemporalFilter(const PlanNode& n);
  // What an inner join's sides may forget when a filter over it bounds one
  // side's column by the other's (`b.ts BETWEEN a.ts AND a.expires`): the
  // rows that no later row of the other side can pass the filter with.
  struct JoinRangeRetain {
    std::function<bool(std::string_view key, std::string_view val)> a, b;
  };
  // Empty unless `join` is an inner join, the predicates of the filters
  // over it have conjuncts `x op y + constant` (op among <, <=, >, >=; x
  // and y columns of either side) and the side of y has a bound on y
  // (Bounds).
  JoinRangeRetain JoinRangeRetains(const PlanNode& join, const std::vector<const Expr*>& filters);
  // `in` (the stream of filter.inputs[0]) through the predicate of `filter`.
  Stream* Filtered(Stream* in, const PlanNode& filter);
  Result<Stream*> LowerJoin(const PlanNode& n, JoinRangeRetain range = {});
  Result<Stream*> LowerSeries(const PlanNode& n);
  Result<Stream*> LowerSeriesInStep(const PlanNode& n);
  Result<Stream*> LowerDraw(const PlanNode& n);
  Result<Stream*> LowerAggregate(const PlanNode& n);
  Result<Stream*> LowerTopK(const PlanNode& n);
  Result<Stream*> LowerRank(const PlanNode& n);
  Result<Stream*> LowerOver(const PlanNode& n);
  Result<Stream*> LowerRecursive(const PlanNode& n);
  // `in` indexed by `partition`, its values the sort key of `order_exprs`
  // (byte order is the wanted order) followed by the row.
  Stream* InSortOrder(Stream* in, const Schema& schema, const std::vector<ExprPtr>& partition,
                      const std::vector<ExprPtr>& order_exprs, const std::vector<SortKey>& order);
  Result<Stream*> LowerRolling(const PlanNode& n);
  // The first rows of each partition in `order` (a top-k per partition),
  // each row followed by its number or rank when `spec` asks for one.
  Stream* SortedTopK(Stream* in, const Schema& schema, std::vector<ExprPtr> partition,
                     std::vector<ExprPtr> order_exprs, std::vector<SortKey> order, TopKSpec spec);
  // A stream that drops every row (LIMIT 0).
  Stream* NoRows(Stream* in);
  Result<Stream*> LowerSetOp(const PlanNode& n, JoinType type);
  Result<Stream*> LowerSetOpAll(const PlanNode& n);
  // `s` with its rows encoded as `to` instead of `from` (same values; the
  // nullability of columns may differ).
  Result<Stream*> Reencode(Stream* s, const Schema& from, const Schema& to);
  // The aggregate `agg` plus a default row for every row of `dom` (whose
  // columns are the first group keys) that has no group.
  Result<Stream*> AddDefaults(const PlanNode& n, Stream* agg, Stream* dom,
                              const Schema& dom_schema);
  // A map or filter whose function evaluates SQL expressions: an evaluation
  // error drops the row and goes to errors_; other errors fail the step.
  Stream* EvalMap(Stream* in, MapFn fn);
  Stream* EvalFilter(Stream* in, FilterFn fn);

  // Per column of `n`, a lower bound on that column in every row its stream
  // will still carry (empty: none known). Propagated through filters,
  // projections of columns, windows, unions, DISTINCT, the keys of joins,
  // the group keys of aggregates and the partition keys of a top-k per
  // partition; other operators give none.
  const std::vector<ColumnBound>& Bounds(const PlanNode& n);

  Circuit& c_;
  std::function<Stream*(const std::string&)> scan_;
  EvalErrors* errors_;
  const TableWaterlines* waterlines_;
  StepClockPtr clock_;
  std::map<const PlanNode*, Stream*> memo_;
  std::map<const PlanNode*, std::vector<ColumnBound>> bounds_;
  std::set<std::string> insert_only_tables_;
  std::map<const PlanNode*, bool> insert_only_;
  NeededColumns needed_;
  uint64_t draw_seed_ = 0;
  RecursionLimits recursion_limits_;
};

}  // namespace sluice::sql
