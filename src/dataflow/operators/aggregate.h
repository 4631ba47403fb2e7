#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "dataflow/circuit.h"
#include "dataflow/operators/aggregator.h"
#include "types/sql_type.h"
#include "zset/spine.h"

namespace sluice {

// Aggregate (GROUP BY): the input is indexed by group key, its values are rows
// of `val_schema`. The output is a Z-set of rows: the group key's fields
// followed by one field per aggregate (types: AggOutputType), one row per
// non-empty group.
//
// Given a change `a` to A, it emits agg(A + a) - agg(A), touching only the
// groups in the support of a: for each such group g it emits -old(g) if g
// existed and +new(g) if g still exists (a group whose rows are all deleted
// disappears). Work per group does not grow with the group's size:
//  - COUNT, SUM, AVG and the statistics (VAR_POP, REGR_SLOPE, ...: exact
//    sums of powers and products, see aggregator.h) keep a per-group accumulator (an integral of
//    states: key g, value the state's bytes) and add the change to it;
//  - COUNT, SUM and AVG (DISTINCT x) keep the integral of (g, x)
//    multiplicities and add or remove a value when its multiplicity crosses
//    zero;
//  - MIN and MAX keep the integral of (g, x) ordered by x (inverted for MAX),
//    and read the group's first value with a non-zero weight, so deleting
//    the row that held the MIN yields the next one.
//
// Over an insert-only input (`insert_only`: every weight it will ever see is
// positive, as the planner proves for append-only tables and what keeps
// them so), MIN and MAX keep only the group's current value in its state
// instead of the (g, x) integral: a value that is not the MIN now can never
// become it, since nothing is deleted. A group whose calls are all MIN, MAX,
// COUNT, SUM, AVG or the statistics then keeps O(1) state. A negative
// weight reaching such an operator is a bug of the planner: Eval() fails
// (Status::Internal) rather than give a wrong MIN.
//
// REQUIRES: the input is sharded by group key (Aggregate() adds the exchange).
class AggregateOp final : public Operator {
 public:
  AggregateOp(Stream* in, Schema val_schema, std::vector<AggSpec> aggs, const SpineOptions& opts,
              bool insert_only = false);
  Status Eval() override;
  // The insert-only variant keeps other state: its own name, so that a
  // checkpoint of one is never loaded into the other.
  const char* name() const override { return insert_only_ ? "aggregate_insert_only" : "aggregate"; }
  bool has_state() const override { return true; }
  Status SaveState(StateWriter& w) const override;
  Status LoadState(StateReader& r) override;
  // Forgets groups for which `retain` returns false (groups behind a
  // waterline, which no later change can touch), as merges reach them.
  void SetRetain(const std::function<bool(std::string_view group)>& retain);

 private:
  struct State;
  // Adds `w` copies of a row's (split) fields to a statistic's accumulator.
  Status AddStatistic(const AggSpec& a, const std::vector<std::string_view>& fields, Weight w,
                      LinearAcc* acc) const;
  Status Render(std::string_view group, const State& st, std::vector<std::unique_ptr<Cursor>>& idx,
                std::string* out) const;
  // The field of aggregate i that MIN, MAX and the ordered aggregates index:
  // the row's field in its nullable form (inverted for MAX and DESC), or
  // *keep = false if the row does not count for it (a NULL, or FILTER).
  Status IndexedField(size_t i, const std::vector<std::string_view>& fields, std::string* field,
                      bool* keep) const;
  // Whether aggregate i keeps its value in the group's state (insert-only
  // MIN and MAX).
  bool KeepsExtreme(size_t i) const { return extreme_[i]; }

  Stream* in_;
  Schema val_schema_;
  std::vector<AggSpec> aggs_;
  Spine states_;
  // Per aggregate: the (group, field) integral for MIN, MAX and COUNT
  // DISTINCT; null for the linear ones.
  std::vector<std::unique_ptr<Spine>> index_;
  // Per aggregate: whether its column is a NUMERIC of dynamic scale.
  std::vector<bool> numeric_;
  bool insert_only_;
  // Per aggregate: an insert-only MIN or MAX, whose value is in the state.
  std::vector<bool> extreme_;
};

// Adds an exchange (with more than one worker) and an aggregate; with
// `retain`, the aggregate forgets the groups it rejects (SetRetain). With
// `insert_only`, the input must never carry a negative weight (see
// AggregateOp).
Stream* Aggregate(Circuit& c, Stream* in, Schema val_schema, std::vector<AggSpec> aggs,
                  std::function<bool(std::string_view group)> retain = nullptr,
                  bool insert_only = false);

}  // namespace sluice
