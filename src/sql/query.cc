#include "sql/query.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <set>

#include "dataflow/operators/input.h"
#include "dataflow/operators/output.h"
#include "runtime/runtime.h"
#include "types/row_codec.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice::sql {

Result<QueryRuntime> StartQuery(const BoundQuery& q, int workers, EvalErrors* errors, int hosts,
                                std::set<std::string> insert_only_tables, StepClockPtr clock) {
  QueryRuntime out;
  // random() in an ad hoc query draws from the instant it runs; every host
  // of a cluster draws with the same seed.
  const uint64_t draw_seed =
      std::random_device{}() ^
      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
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
        errors, nullptr, clock);
    lower.SetInsertOnlyTables(insert_only_tables);
    lower.SetPlans({q.plan});
    lower.SetDrawSeed(draw_seed);
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

namespace {

// Calls `fn` once for every node of `plan` (a DAG: a node may have many
// readers), with the nodes it reads (its inputs and its domain).
void VisitPlan(const PlanPtr& plan,
               const std::function<void(const PlanNode&, const std::vector<const PlanNode*>&)>& fn) {
  std::set<const PlanNode*> seen;
  std::vector<const PlanNode*> todo = {plan.get()};
  std::vector<const PlanNode*> children;
  while (!todo.empty()) {
    const PlanNode* n = todo.back();
    todo.pop_back();
    if (n == nullptr || !seen.insert(n).second) continue;
    children.clear();
    for (const PlanPtr& in : n->inputs) children.push_back(in.get());
    if (n->domain) children.push_back(n->domain.get());
    fn(*n, children);
    todo.insert(todo.end(), children.begin(), children.end());
  }
}

bool ReadsNoColumn(const Expr& e) {
  if (e.kind == ExprKind::kColumn) return false;
  for (const ExprPtr& a : e.args) {
    if (!ReadsNoColumn(*a)) return false;
  }
  return true;
}

}  // namespace

std::map<std::string, std::string> ScanPrefixes(const PlanPtr& plan) {
  // How many nodes read each node, which node reads it (when one does), and
  // how many scans each relation has.
  std::map<const PlanNode*, int> readers;
  std::map<const PlanNode*, const PlanNode*> reader;
  std::map<std::string, int> scans;
  std::vector<const PlanNode*> scan_nodes;
  VisitPlan(plan, [&](const PlanNode& n, const std::vector<const PlanNode*>& children) {
    if (n.kind == PlanKind::kScan) {
      ++scans[n.table];
      scan_nodes.push_back(&n);
    }
    for (const PlanNode* c : children) {
      ++readers[c];
      reader[c] = &n;
    }
  });
  std::map<std::string, std::string> out;
  for (const PlanNode* scan : scan_nodes) {
    if (scans[scan->table] != 1 || readers[scan] != 1) continue;
    // The conjuncts of the filters stacked on the scan (the binder makes a
    // filter of each), up to a node that more than one reads.
    std::vector<const Expr*> conjuncts;
    for (const PlanNode* n = reader[scan]; n != nullptr && n->kind == PlanKind::kFilter;
         n = readers[n] == 1 ? reader[n] : nullptr) {
      if (n->predicate != nullptr) conjuncts.push_back(n->predicate.get());
    }
    std::map<int, const Expr*> equal;  // column = constant
    while (!conjuncts.empty()) {
      const Expr* e = conjuncts.back();
      conjuncts.pop_back();
      if (e->kind == ExprKind::kAnd) {
        for (const ExprPtr& a : e->args) conjuncts.push_back(a.get());
        continue;
      }
      if (e->kind != ExprKind::kCall || std::string_view(e->fn_name) != "=" || e->args.size() != 2) continue;
      for (int side = 0; side < 2; ++side) {
        const Expr& col = *e->args[static_cast<size_t>(side)];
        const Expr& value = *e->args[static_cast<size_t>(1 - side)];
        if (col.kind == ExprKind::kColumn && ReadsNoColumn(value)) equal[col.column] = &value;
      }
    }
    std::string prefix;
    for (int c = 0; equal.count(c) && static_cast<size_t>(c) < scan->columns.size(); ++c) {
      const SqlType& type = scan->columns[static_cast<size_t>(c)].type;
      const Expr& value = *equal[c];
      if (value.type.WithNullable(true) != type.WithNullable(true)) break;
      Value v;
      if (!Eval(value, Row{}, &v).ok() || v.is_null()) break;
      if (!EncodeValue(type, v, &prefix).ok()) break;
    }
    if (!prefix.empty()) out[scan->table] = std::move(prefix);
  }
  return out;
}

Result<std::vector<Row>> EvaluateOnce(const BoundQuery& q, const ContentsFn& contents, int workers,
                                      StepClockPtr clock) {
  EvalErrors errors;
  SLUICE_ASSIGN_OR_RETURN(QueryRuntime qr, StartQuery(q, workers, &errors, 1, {}, clock));
  // A relation read through an equality on its leading columns gives only
  // the rows that start with them: a seek in each batch (the encoding is
  // order-preserving), not a scan, so that a point query costs what it
  // finds.
  const std::map<std::string, std::string> prefixes = ScanPrefixes(q.plan);
  for (const std::string& name : qr.scanned) {
    SLUICE_ASSIGN_OR_RETURN(std::vector<BatchPtr> batches, contents(name));
    auto prefix = prefixes.find(name);
    if (prefix != prefixes.end()) {
      BatchBuilder found;
      for (const BatchPtr& b : batches) {
        auto c = NewCursorOver({b});
        for (c->SeekKey(prefix->second); c->KeyValid(); c->StepKey()) {
          if (c->key().substr(0, prefix->second.size()) != prefix->second) break;
          for (; c->ValValid(); c->StepVal()) found.Push(c->key(), c->val(), c->weight());
        }
        SLUICE_RETURN_IF_ERROR(c->status());
      }
      SLUICE_ASSIGN_OR_RETURN(MemBatchPtr rows, found.Finish());
      batches = {rows};
    }
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

namespace {

bool ReadsColumns(const Expr& e) {
  if (e.kind == ExprKind::kColumn) return true;
  for (const ExprPtr& a : e.args) {
    if (ReadsColumns(*a)) return true;
  }
  return false;
}

}  // namespace

void DeferVolatileItems(BoundQuery* q) {
  PlanPtr top = q->plan;
  const PlanNode* topk = nullptr;
  if (top->kind == PlanKind::kTopK) {
    topk = top.get();
    top = top->inputs[0];
  }
  if (top->kind != PlanKind::kProject) return;
  auto ordered_by = [&](size_t c) {
    for (const SortKey& k : q->order) {
      if (static_cast<size_t>(k.column) == c) return true;
    }
    if (topk != nullptr) {
      for (const SortKey& k : topk->order) {
        if (static_cast<size_t>(k.column) == c) return true;
      }
    }
    return false;
  };
  std::shared_ptr<PlanNode> project;
  for (size_t c = 0; c < q->visible && c < top->exprs.size(); ++c) {
    const ExprPtr& e = top->exprs[c];
    if (!ContainsVolatile(*e) || ReadsColumns(*e) || ordered_by(c)) continue;
    if (project == nullptr) project = std::make_shared<PlanNode>(*top);
    q->deferred.emplace_back(c, e);
    project->exprs[c] = MakeLiteral(Value::Null(), e->type.WithNullable(true));
    project->columns[c].type = project->columns[c].type.WithNullable(true);
  }
  if (project == nullptr) return;
  if (topk == nullptr) {
    q->plan = project;
  } else {
    auto k = std::make_shared<PlanNode>(*topk);
    k->inputs[0] = project;
    k->columns = project->columns;
    q->plan = k;
  }
}

Status ComputeDeferred(const BoundQuery& q, std::vector<Row>* rows) {
  for (Row& row : *rows) {
    for (const auto& [c, e] : q.deferred) SLUICE_RETURN_IF_ERROR(Eval(*e, Row{}, &row[c]));
  }
  return Status::OK();
}

std::vector<std::string> ScannedRelations(const PlanPtr& plan) {
  std::set<std::string> out;
  VisitPlan(plan, [&](const PlanNode& n, const std::vector<const PlanNode*>&) {
    if (n.kind == PlanKind::kScan) out.insert(n.table);
  });
  return {out.begin(), out.end()};
}

bool ReadsStepClock(const PlanPtr& plan) {
  bool reads = false;
  VisitPlan(plan, [&](const PlanNode& n, const std::vector<const PlanNode*>&) {
    reads = reads || n.kind == PlanKind::kTemporalFilter || n.kind == PlanKind::kClock;
  });
  return reads;
}

}  // namespace sluice::sql
