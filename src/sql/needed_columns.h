// NeededColumns: which columns of each plan node's rows some reader of the
// node may look at, over every node that a set of plans (a program's views,
// an ad hoc query) reaches.
//
// Lowering asks it at a join, whose sides would otherwise carry whole rows
// into the join's integrals and out again as wide pairs, though most queries
// read a few of their columns (Nexmark's q4 reads 6 of the 17 of auction and
// bid); and at a set-returning function, each of whose rows would otherwise
// copy its input row (unnest() of a 10^4-element array, the array 10^4
// times). Both write a stand-in for the columns that no reader needs (NULL,
// or the type's zero), so their integrals and output hold only the bytes
// that matter.
//
// A column is needed by a reader if the reader passes it on to a column
// that is needed in turn, or evaluates any expression that reads it,
// whether that expression's result is needed or not: an expression that
// fails drops its row (EvalErrors), so it must see the values it always saw.
// Readers this does not know column by column (all but filters,
// projections, joins, set-returning functions and aggregates) need every
// column of their inputs, and the roots need all of theirs. Rows of a node
// that differ only in columns no reader needs may then become one row with
// the sum of their weights; every reader sees the same answer from that,
// since it reads none of the columns they differ in.
//
// Thread safety: immutable once built; any number of threads may read it.
#pragma once

#include <map>
#include <vector>

#include "sql/plan.h"

namespace sluice::sql {

class NeededColumns {
 public:
  NeededColumns() = default;
  // Over every node reachable from `roots` (inputs, an aggregate's domain,
  // a recursive query's working table).
  explicit NeededColumns(const std::vector<PlanPtr>& roots);

  // Per column of `n`: whether a reader of `n` may read it. All true for a
  // node that the roots do not reach.
  std::vector<bool> Of(const PlanNode& n) const;

 private:
  std::map<const PlanNode*, std::vector<bool>> needed_;
};

}  // namespace sluice::sql
