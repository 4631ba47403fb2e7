// Volatile calls in a plan. random() gives every row its own value, so it
// cannot be an ordinary expression of a map or filter: an incremental view
// must retract, when a row leaves, exactly the value it emitted when the row
// came. LiftDraws moves every call out of the expressions that hold it into
// a kDraw node just below them, which keeps each row's draws (the draw
// operator, dataflow/operators/draw.h); the expressions read its columns.
#pragma once

#include <functional>
#include <string_view>

#include "base/status.h"
#include "sql/plan.h"

namespace sluice::sql {

// `e` with every draw replaced by `f(draw)`; `e` itself if it holds none.
ExprPtr ReplaceDraws(const ExprPtr& e, const std::function<ExprPtr(const Expr& draw)>& f);

// `e` with every draw replaced by a call that draws anew each time it is
// evaluated (from a generator seeded by the system's entropy): for what is
// evaluated once and never retracted, such as INSERT's values and UPDATE's
// SET expressions.
ExprPtr FreshDraws(const ExprPtr& e);

// `plan` with the draws of every node's expressions lifted into a kDraw
// node below it: a projection, filter, aggregate, window function, ranking,
// set-returning function or temporal filter over input I becomes the same
// node over draw(I), whose columns are I's and then one per call site; the
// draws become reads of those columns, and nodes that pass their input's
// columns through drop the drawn ones again. Nodes shared by several
// parents stay shared. Draws where no row exists to keep them (a join's
// condition, inside WITH RECURSIVE) are errors that point at the call in
// `sql`.
Result<PlanPtr> LiftDraws(const PlanPtr& plan, std::string_view sql);

// Whether `plan` holds a draw node.
bool HasDraws(const PlanPtr& plan);

}  // namespace sluice::sql
