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
//    sums of powers and products, see aggregator.h) keep a per-group accumulator (an integral of states:
//    key g, value the state's bytes) and add the change to it;
//  - COUNT, SUM and AVG (DISTINCT x) keep the integral of (g, x)
//    multiplicities and add or remove a value when its multiplicity crosses
//    zero;
//  - MIN and MAX keep the integral of (g, x) ordered by x (inverted for MAX),
//    and read the group's first value with a non-zero weight, so deleting
//    the row that held the MIN yields the next one.
//
// REQUIRES: the input is sharded by group key (Aggregate() adds the exchange).
class AggregateOp final : public Operator {
 public:
  AggregateOp(Stream* in, Schema val_schema, std::vector<AggSpec> aggs, const SpineOptions& opts);
  Status Eval() override;
  const char* name() const override { return "aggregate"; }
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

  Stream* in_;
  Schema val_schema_;
  std::vector<AggSpec> aggs_;
  Spine states_;
  // Per aggregate: the (group, field) integral for MIN, MAX and COUNT
  // DISTINCT; null for the linear ones.
  std::vector<std::unique_ptr<Spine>> index_;
  // Per aggregate: whether its column is a NUMERIC of dynamic scale.
  std::vector<bool> numeric_;
};

// Adds an exchange (with more than one worker) and an aggregate; with
// `retain`, the aggregate forgets the groups it rejects (SetRetain).
Stream* Aggregate(Circuit& c, Stream* in, Schema val_schema, std::vector<AggSpec> aggs,
                  std::function<bool(std::string_view group)> retain = nullptr);

}  // namespace sluice
