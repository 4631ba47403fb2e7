#include "sql/draws.h"

#include <algorithm>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "sql/parser.h"

namespace sluice::sql {

ExprPtr ReplaceDraws(const ExprPtr& e, const std::function<ExprPtr(const Expr& draw)>& f) {
  if (e == nullptr) return e;
  if (e->kind == ExprKind::kDraw) return f(*e);
  std::vector<ExprPtr> args;
  bool changed = false;
  for (const ExprPtr& a : e->args) {
    args.push_back(ReplaceDraws(a, f));
    changed = changed || args.back() != a;
  }
  if (!changed) return e;
  auto copy = std::make_shared<Expr>(*e);
  copy->args = std::move(args);
  return copy;
}

namespace {

Status FreshDraw(const SqlType&, const Value*, size_t, Value* out) {
  thread_local std::mt19937_64 rng(std::random_device{}());
  *out = Value::Double(static_cast<double>(rng() >> 11) * 0x1.0p-53);
  return Status::OK();
}

}  // namespace

ExprPtr FreshDraws(const ExprPtr& e) {
  return ReplaceDraws(
      e, [](const Expr& d) { return MakeCall(FreshDraw, "random", d.type, {}, /*strict=*/false); });
}

namespace {

void CollectSites(const ExprPtr& e, std::vector<int>* sites) {
  if (e == nullptr) return;
  if (e->kind == ExprKind::kDraw) {
    if (std::find(sites->begin(), sites->end(), e->column) == sites->end()) {
      sites->push_back(e->column);
    }
    return;
  }
  for (const ExprPtr& a : e->args) CollectSites(a, sites);
}

// Calls `f` on every expression slot of `n` that is evaluated over a row of
// input 0 (so a draw in it can be lifted below `n`); `other` on the rest.
void ForEachSlot(PlanNode& n, const std::function<void(ExprPtr&)>& f,
                 const std::function<void(ExprPtr&)>& other) {
  auto all = [&](std::vector<ExprPtr>& v, const std::function<void(ExprPtr&)>& g) {
    for (ExprPtr& e : v) g(e);
  };
  auto agg = [&](AggCall& a, const std::function<void(ExprPtr&)>& g) {
    g(a.arg);
    g(a.filter);
    g(a.arg2);
  };
  switch (n.kind) {
    case PlanKind::kProject:
    case PlanKind::kSeries:
      all(n.exprs, f);
      break;
    case PlanKind::kFilter:
      f(n.predicate);
      break;
    case PlanKind::kAggregate:
      all(n.group_keys, f);
      for (AggCall& a : n.aggs) agg(a, f);
      break;
    case PlanKind::kRank:
      all(n.partition, f);
      all(n.order_exprs, f);
      break;
    case PlanKind::kOver:
      all(n.partition, f);
      all(n.order_exprs, f);
      all(n.tie_exprs, f);
      for (WindowCall& w : n.window_calls) {
        all(w.args, f);
        f(w.filter);
        other(w.frame.start_expr);
        other(w.frame.end_expr);
      }
      break;
    case PlanKind::kRolling:
      all(n.partition, f);
      all(n.order_exprs, f);
      agg(n.rolling, f);
      break;
    case PlanKind::kTemporalFilter:
      for (TimeBound& b : n.time_bounds) f(b.at);
      break;
    default:
      other(n.predicate);
      all(n.exprs, other);
      all(n.left_keys, other);
      all(n.right_keys, other);
      all(n.group_keys, other);
      for (AggCall& a : n.aggs) agg(a, other);
      all(n.partition, other);
      all(n.order_exprs, other);
      break;
  }
}

// Whether `n`'s columns start with its input's, passed through.
bool PassesInput(PlanKind k) {
  switch (k) {
    case PlanKind::kFilter:
    case PlanKind::kSeries:
    case PlanKind::kRank:
    case PlanKind::kOver:
    case PlanKind::kRolling:
    case PlanKind::kTemporalFilter:
      return true;
    default:
      return false;
  }
}

class Lifter {
 public:
  explicit Lifter(std::string_view sql) : sql_(sql) {}

  Result<PlanPtr> Lift(const PlanPtr& p) {
    if (p == nullptr) return p;
    auto it = done_.find(p.get());
    if (it != done_.end()) return it->second;
    SLUICE_ASSIGN_OR_RETURN(PlanPtr out, LiftNode(p));
    done_[p.get()] = out;
    return out;
  }

 private:
  Status Unsupported(int site, std::string_view what) {
    return SqlUnsupported(sql_, Json{{"location", site}}, what);
  }

  Result<PlanPtr> LiftNode(const PlanPtr& p) {
    auto n = std::make_shared<PlanNode>(*p);
    bool changed = false;
    const bool recursive = p->kind == PlanKind::kRecursive;
    recursive_depth_ += recursive;
    for (PlanPtr& in : n->inputs) {
      auto lifted = Lift(in);
      if (!lifted.ok()) {
        recursive_depth_ -= recursive;
        return lifted.status();
      }
      changed = changed || *lifted != in;
      in = *lifted;
    }
    recursive_depth_ -= recursive;
    SLUICE_ASSIGN_OR_RETURN(PlanPtr domain, Lift(n->domain));
    changed = changed || domain != n->domain;
    n->domain = domain;

    std::vector<int> sites, stuck;
    ForEachSlot(
        *n, [&](ExprPtr& e) { CollectSites(e, &sites); },
        [&](ExprPtr& e) { CollectSites(e, &stuck); });
    if (!stuck.empty()) {
      return Unsupported(stuck[0], p->kind == PlanKind::kJoin ? "random() in a join's condition"
                                                              : "random() in this part of a query");
    }
    if (sites.empty()) return changed ? PlanPtr(n) : p;
    if (recursive_depth_ > 0) return Unsupported(sites[0], "random() inside WITH RECURSIVE");

    auto draw = std::make_shared<PlanNode>();
    draw->kind = PlanKind::kDraw;
    draw->inputs = {n->inputs[0]};
    draw->columns = n->inputs[0]->columns;
    const int width = static_cast<int>(draw->columns.size());
    for (size_t i = 0; i < sites.size(); ++i) {
      draw->columns.push_back({"random", SqlType::Double(false)});
    }
    draw->draw_sites = sites;
    const int k = static_cast<int>(sites.size());
    auto read = [&](const Expr& d) -> ExprPtr {
      const auto at = std::find(sites.begin(), sites.end(), d.column) - sites.begin();
      return MakeColumn(width + static_cast<int>(at), d.type);
    };
    ForEachSlot(
        *n, [&](ExprPtr& e) { e = ReplaceDraws(e, read); }, [](ExprPtr&) {});
    n->inputs[0] = draw;
    if (!PassesInput(n->kind)) return PlanPtr(n);
    // The node passes the drawn columns through after its input's: a
    // projection drops them again.
    std::vector<Column> cols = draw->columns;
    cols.insert(cols.end(), p->columns.begin() + width, p->columns.end());
    n->columns = cols;
    auto drop = std::make_shared<PlanNode>();
    drop->kind = PlanKind::kProject;
    drop->inputs = {n};
    drop->columns = p->columns;
    for (int i = 0; i < static_cast<int>(cols.size()); ++i) {
      if (i >= width && i < width + k) continue;
      drop->exprs.push_back(MakeColumn(i, cols[static_cast<size_t>(i)].type));
    }
    return PlanPtr(drop);
  }

  std::string_view sql_;
  std::map<const PlanNode*, PlanPtr> done_;
  int recursive_depth_ = 0;
};

bool HasDrawsIn(const PlanPtr& p, std::map<const PlanNode*, bool>* seen) {
  if (p == nullptr) return false;
  auto it = seen->find(p.get());
  if (it != seen->end()) return it->second;
  bool has = p->kind == PlanKind::kDraw || HasDrawsIn(p->domain, seen);
  for (const PlanPtr& in : p->inputs) has = has || HasDrawsIn(in, seen);
  return (*seen)[p.get()] = has;
}

}  // namespace

Result<PlanPtr> LiftDraws(const PlanPtr& plan, std::string_view sql) {
  return Lifter(sql).Lift(plan);
}

bool HasDraws(const PlanPtr& plan) {
  std::map<const PlanNode*, bool> seen;
  return HasDrawsIn(plan, &seen);
}

}  // namespace sluice::sql
