#include "sql/needed_columns.h"

#include <set>

namespace sluice::sql {
namespace {

// Marks the columns of a row that `e` reads, shifted by `-from`, among
// [from, from + used->size()).
void MarkRead(const Expr& e, size_t from, std::vector<bool>* used) {
  if (e.kind == ExprKind::kColumn && e.column >= 0) {
    const size_t c = static_cast<size_t>(e.column);
    if (c >= from && c - from < used->size()) (*used)[c - from] = true;
  }
  for (const ExprPtr& a : e.args) MarkRead(*a, from, used);
}

void MarkRead(const ExprPtr& e, size_t from, std::vector<bool>* used) {
  if (e) MarkRead(*e, from, used);
}

// A reader that passes its input's columns on as its own first ones: the
// input needs those its own readers need.
void PassOn(const std::vector<bool>& want, std::vector<bool>* in) {
  for (size_t i = 0; i < want.size() && i < in->size(); ++i) {
    if (want[i]) (*in)[i] = true;
  }
}

// Appends the nodes below `n` (and `n`) in post-order: every node after all
// the nodes it reads.
void PostOrder(const PlanNode* n, std::set<const PlanNode*>* seen,
               std::vector<const PlanNode*>* out) {
  if (n == nullptr || !seen->insert(n).second) return;
  for (const PlanPtr& in : n->inputs) PostOrder(in.get(), seen, out);
  PostOrder(n->domain.get(), seen, out);
  PostOrder(n->working.get(), seen, out);
  out->push_back(n);
}

}  // namespace

NeededColumns::NeededColumns(const std::vector<PlanPtr>& roots) {
  std::set<const PlanNode*> seen;
  std::vector<const PlanNode*> order;
  for (const PlanPtr& r : roots) PostOrder(r.get(), &seen, &order);
  for (const PlanNode* n : order) needed_[n].assign(n->columns.size(), false);
  for (const PlanPtr& r : roots) needed_[r.get()].assign(r->columns.size(), true);
  auto all = [&](const PlanPtr& in) {
    if (in) needed_[in.get()].assign(in->columns.size(), true);
  };
  // Readers before the nodes they read: a node's needs are complete when it
  // is reached.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const PlanNode& n = **it;
    const std::vector<bool>& want = needed_[&n];
    switch (n.kind) {
      case PlanKind::kFilter: {
        std::vector<bool>& in = needed_[n.inputs[0].get()];
        PassOn(want, &in);
        MarkRead(n.predicate, 0, &in);
        break;
      }
      case PlanKind::kProject:
        for (const ExprPtr& e : n.exprs) MarkRead(e, 0, &needed_[n.inputs[0].get()]);
        break;
      case PlanKind::kJoin: {
        std::vector<bool>& l = needed_[n.inputs[0].get()];
        std::vector<bool>& r = needed_[n.inputs[1].get()];
        const size_t lw = l.size();
        for (size_t i = 0; i < want.size(); ++i) {
          if (!want[i]) continue;
          if (i < lw) {
            l[i] = true;
          } else if (i - lw < r.size()) {
            r[i - lw] = true;
          }
        }
        for (const ExprPtr& e : n.left_keys) MarkRead(e, 0, &l);
        for (const ExprPtr& e : n.right_keys) MarkRead(e, 0, &r);
        MarkRead(n.predicate, 0, &l);
        MarkRead(n.predicate, lw, &r);
        break;
      }
      case PlanKind::kSeries: {
        // The input's columns pass through; the functions' arguments read it.
        std::vector<bool>& in = needed_[n.inputs[0].get()];
        PassOn(want, &in);
        for (const ExprPtr& e : n.exprs) MarkRead(e, 0, &in);
        break;
      }
      case PlanKind::kAggregate: {
        std::vector<bool>& in = needed_[n.inputs[0].get()];
        for (const ExprPtr& e : n.group_keys) MarkRead(e, 0, &in);
        for (const AggCall& a : n.aggs) {
          MarkRead(a.arg, 0, &in);
          MarkRead(a.arg2, 0, &in);
          MarkRead(a.filter, 0, &in);
        }
        all(n.domain);
        break;
      }
      default:
        for (const PlanPtr& in : n.inputs) all(in);
        all(n.domain);
        all(n.working);
        break;
    }
  }
}

std::vector<bool> NeededColumns::Of(const PlanNode& n) const {
  auto it = needed_.find(&n);
  if (it == needed_.end()) return std::vector<bool>(n.columns.size(), true);
  return it->second;
}

}  // namespace sluice::sql
