// Running a query once, over given contents of the relations it reads (ad
// hoc queries over snapshots, and the sqllogictest runner's bulk check), and
// presenting its rows in the order of its ORDER BY.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "runtime/loopback_cluster.h"
#include "runtime/runtime.h"
#include "sql/lower.h"
#include "sql/plan.h"
#include "zset/batch.h"

namespace sluice::sql {

// The contents of a relation that the query scans.
using ContentsFn = std::function<Result<std::vector<BatchPtr>>(const std::string& relation)>;

// A runtime whose circuit computes `q`: an input per relation it scans
// (named after it) and the output "query". Evaluation errors go to `errors`,
// which must outlive the runtime. With `hosts` > 1, the runtimes of that
// many hosts joined by TCP (LoopbackCluster), driven as one.
struct QueryRuntime {
  std::unique_ptr<Runtime> runtime;          // one host
  std::unique_ptr<LoopbackCluster> cluster;  // many
  std::set<std::string> scanned;

  Status Push(const std::string& name, const BatchPtr& batch);
  Status Step();
  Result<BatchPtr> Output(const std::string& name) const;
};
// `insert_only_tables`: the tables whose changes are only inserts
// (Lowering::SetInsertOnlyTables). `clock`: the step clock, for a query
// that reads it (ReadsStepClock).
Result<QueryRuntime> StartQuery(const BoundQuery& q, int workers, EvalErrors* errors, int hosts = 1,
                                std::set<std::string> insert_only_tables = {},
                                StepClockPtr clock = nullptr);

// The rows of a query's result (all columns), each repeated by its
// multiplicity; a negative one is an internal error.
Result<std::vector<Row>> RowsOf(const BoundQuery& q, const Batch& result);

// Evaluates `q` in one step over the contents; returns its rows (all
// columns, hidden ORDER BY keys included), each repeated by its
// multiplicity. An evaluation error fails the query, as in PostgreSQL.
Result<std::vector<Row>> EvaluateOnce(const BoundQuery& q, const ContentsFn& contents,
                                      int workers = 1, StepClockPtr clock = nullptr);

// Moves the select-list items of an ad hoc query that call nextval() or its
// kin (and read no column) out of its plan, into q->deferred, when nothing
// above them but a top-k reads them.
void DeferVolatileItems(BoundQuery* q);
// Computes q.deferred into `rows`, which are in the query's order.
Status ComputeDeferred(const BoundQuery& q, std::vector<Row>* rows);

// Sorts rows by the query's outermost ORDER BY (stable; NULLs as the keys
// say).
void SortForPresentation(const BoundQuery& q, std::vector<Row>* rows);

// The relations that `plan` scans.
std::vector<std::string> ScannedRelations(const PlanPtr& plan);

// Whether `plan` reads the step clock (NOW() in a view): its output may
// change as the clock moves.
bool ReadsStepClock(const PlanPtr& plan);

// For each relation that `plan` reads only through a filter that compares
// its leading columns with constants (`id = 5`, `a = 1 AND b = 'x'`): the
// encoded prefix every row the filter keeps starts with. EvaluateOnce seeks
// to it instead of reading the whole relation.
std::map<std::string, std::string> ScanPrefixes(const PlanPtr& plan);

}  // namespace sluice::sql
