#include "sql/query.h"

#include <algorithm>
#include <map>
#include <set>

#include "dataflow/operators/input.h"
#include "dataflow/operators/output.h"
#include "runtime/runtime.h"
#include "types/row_codec.h"
#include "zset/cursor.h"

namespace sluice::sql {

Result<QueryRuntime> StartQuery(const BoundQuery& q, int workers, EvalErrors* errors, int hosts) {
  QueryRuntime out;
  auto build = [&](Circuit& c) {
    std::map<std::string, Stream*> inputs;
    Lowering lower(
        c,
        [&](const std::string& table) {
          auto it = inputs.find(table);
          if (it != inputs.end()) return it->second;
          out.scanned.insert(table);
          return inputs[table] = AddInput(c, table);
        },
        errors);
    SLUICE_ASSIGN_OR_RETURN(Stream * s, lower.Lower(q.plan));
    AddOutput(c, s, "query");
    return Status::OK();
  };
  if (hosts > 1) {
    SLUICE_ASSIGN_OR_RETURN(
        out.cluster,
        LoopbackCluster::Start(hosts, workers, [&](int, Circuit& c) { return build(c); }));
    return out;
  }
  RuntimeOptions opts;
  opts.workers = workers;
  SLUICE_ASSIGN_OR_RETURN(out.runtime, Runtime::Start(opts, build));
  return out;
}

Status QueryRuntime::Push(const std::string& name, const BatchPtr& batch) {
  return cluster ? cluster->Push(name, batch) : runtime->Push(name, batch);
}

Status QueryRuntime::Step() { return cluster ? cluster->Step() : runtime->Step(); }

Result<BatchPtr> QueryRuntime::Output(const std::string& name) const {
  return cluster ? cluster->Output(name) : runtime->Output(name);
}

Result<std::vector<Row>> RowsOf(const BoundQuery& q, const Batch& result) {
  std::vector<Row> rows;
  const Schema schema = q.plan->schema();
  for (auto c = result.NewCursor(); c->KeyValid(); c->StepKey()) {
    Weight w = c->weight();
    if (w < 0) return Status::Internal("the query's result holds a row with negative multiplicity");
    SLUICE_ASSIGN_OR_RETURN(Row r, DecodeRow(schema, c->key()));
    for (Weight i = 0; i < w; ++i) rows.push_back(r);
  }
  return rows;
}

Result<std::vector<Row>> EvaluateOnce(const BoundQuery& q, const ContentsFn& contents,
                                      int workers) {
  EvalErrors errors;
  SLUICE_ASSIGN_OR_RETURN(QueryRuntime qr, StartQuery(q, workers, &errors));
  for (const std::string& name : qr.scanned) {
    SLUICE_ASSIGN_OR_RETURN(std::vector<BatchPtr> batches, contents(name));
    for (const BatchPtr& b : batches) SLUICE_RETURN_IF_ERROR(qr.runtime->Push(name, b));
  }
  SLUICE_RETURN_IF_ERROR(qr.runtime->Step());
  if (errors.count() > 0) return Status::InvalidArgument(errors.samples()[0]);
  SLUICE_ASSIGN_OR_RETURN(BatchPtr out, qr.runtime->Output("query"));
  return RowsOf(q, *out);
}

void SortForPresentation(const BoundQuery& q, std::vector<Row>* rows) {
  std::stable_sort(rows->begin(), rows->end(), [&](const Row& a, const Row& b) {
    for (const SortKey& k : q.order) {
      const Value& x = a[static_cast<size_t>(k.column)];
      const Value& y = b[static_cast<size_t>(k.column)];
      if (x.is_null() || y.is_null()) {
        if (x.is_null() == y.is_null()) continue;
        return x.is_null() == k.nulls_first;
      }
      int c = CompareValues(x, y);
      if (c != 0) return k.desc ? c > 0 : c < 0;
    }
    return false;
  });
}

std::vector<std::string> ScannedRelations(const PlanPtr& plan) {
  std::set<std::string> out;
  std::set<const PlanNode*> seen;
  std::vector<const PlanNode*> todo = {plan.get()};
  while (!todo.empty()) {
    const PlanNode* n = todo.back();
    todo.pop_back();
    if (n == nullptr || !seen.insert(n).second) continue;
    if (n->kind == PlanKind::kScan) out.insert(n->table);
    for (const PlanPtr& in : n->inputs) todo.push_back(in.get());
    if (n->domain) todo.push_back(n->domain.get());
  }
  return {out.begin(), out.end()};
}

}  // namespace sluice::sql
