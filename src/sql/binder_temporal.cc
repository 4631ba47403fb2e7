// NOW() and the temporal filters that read it (plan.h, kTemporalFilter).
//
// In an ad hoc query NOW() is the time of the query, a constant. In a view
// it is the step clock (dataflow/clock.h), which a view may read only in a
// WHERE conjunct that compares it with a row's time: `ts > NOW() - INTERVAL
// '1 hour'`, `ts <= NOW()`, `NOW() - ts < INTERVAL '5 minutes'`. Each such
// conjunct becomes a bound on the instants at which the row is in the view,
// so the view changes as the clock moves without reading any row twice.
#include "sql/binder_internal.h"

namespace sluice::sql::binding {
namespace {

// The step clock is read by the temporal filter, never evaluated in place.
Status StepClockOnly(const SqlType&, const Value*, size_t, Value*) {
  return Status::Internal("NOW() in a view is read only by its temporal filter");
}

constexpr const char* kWhereNowMayBe =
    "In a view, NOW() is the step clock, and it may appear only in a WHERE conjunct that "
    "compares it with a row's time: ts > NOW() - INTERVAL '1 hour', ts <= NOW(), "
    "NOW() - ts < INTERVAL '5 minutes'.";

bool IsNow(const Expr& e) { return e.kind == ExprKind::kCall && e.fn == StepClockOnly; }

bool ContainsNow(const Expr& e) {
  if (IsNow(e)) return true;
  return std::any_of(e.args.begin(), e.args.end(),
                     [](const ExprPtr& a) { return ContainsNow(*a); });
}

// A constant INTERVAL (a literal, or a cast of one): its value.
bool ConstantInterval(const Expr& e, Interval* out) {
  if (e.type.id() != TypeId::kInterval || ContainsNow(e)) return false;
  std::vector<int> cols;
  CollectColumns(e, &cols);
  if (!cols.empty()) return false;
  Value v;
  if (!Eval(e, Row(), &v).ok() || v.is_null()) return false;
  *out = v.interval_value();
  return true;
}

// `e` as NOW() + offset (offset zero for NOW() itself).
bool AsNowPlus(const Expr& e, Interval* offset) {
  *offset = Interval{};
  if (IsNow(e)) return true;
  if (e.kind != ExprKind::kCall || e.args.size() != 2) return false;
  const std::string_view op = e.fn_name;
  if (op != "+" && op != "-") return false;
  if (IsNow(*e.args[0]) && ConstantInterval(*e.args[1], offset)) {
    if (op == "-") *offset = Interval{-offset->months, -offset->days, -offset->micros};
    return true;
  }
  return op == "+" && IsNow(*e.args[1]) && ConstantInterval(*e.args[0], offset);
}

// The comparison `b op a` for `a op b`.
std::string_view Flipped(std::string_view op) {
  if (op == "<") return ">";
  if (op == "<=") return ">=";
  if (op == ">") return "<";
  if (op == ">=") return "<=";
  return op;
}

}  // namespace

bool Binder::IsStepClock(const Expr& e) { return IsNow(e); }

Result<ExprPtr> Binder::BindNow(const Json& node) {
  if (catalog_.now()) return MakeLiteral(Value::Int(*catalog_.now()), SqlType::Timestamp(false));
  if (!now_in_where_)
    return SqlUnsupported(sql_, node, "NOW() outside a WHERE clause", kWhereNowMayBe);
  ExprPtr e = MakeCall(StepClockOnly, "now", SqlType::Timestamp(false), {});
  now_at_[e.get()] = Location(node);
  return e;
}

Status Binder::TakeTemporalConjuncts(std::vector<ExprPtr>* conjuncts,
                                     std::vector<TimeBound>* bounds) {
  std::vector<ExprPtr> rest;
  for (const ExprPtr& c : *conjuncts) {
    if (!ContainsNow(*c)) {
      rest.push_back(c);
      continue;
    }
    // Where to point: the conjunct's first NOW().
    int at = -1;
    std::function<void(const Expr&)> find = [&](const Expr& e) {
      if (at >= 0) return;
      if (IsNow(e)) {
        auto it = now_at_.find(&e);
        at = it == now_at_.end() ? -1 : it->second;
        return;
      }
      for (const ExprPtr& a : e.args) find(*a);
    };
    find(*c);
    const Json where{{"location", at}};
    std::string_view op = c->kind == ExprKind::kCall ? c->fn_name : "";
    if (c->args.size() != 2 || (op != "<" && op != "<=" && op != ">" && op != ">=" && op != "=")) {
      return SqlUnsupported(sql_, where, "This use of NOW()", kWhereNowMayBe);
    }
    // As `row op NOW() + offset`, the row's side free of NOW().
    ExprPtr row;
    Interval offset;
    const Expr& l = *c->args[0];
    const Expr& r = *c->args[1];
    Interval width;
    if (!ContainsNow(l) && AsNowPlus(r, &offset)) {
      row = c->args[0];
    } else if (!ContainsNow(r) && AsNowPlus(l, &offset)) {
      row = c->args[1];
      op = Flipped(op);
    } else if (ConstantInterval(r, &width) && l.kind == ExprKind::kCall &&
               std::string_view(l.fn_name) == "-" && l.args.size() == 2 && IsNow(*l.args[0]) &&
               !ContainsNow(*l.args[1])) {
      // NOW() - ts op width: NOW() op ts + width, that is ts + width op' NOW(),
      // with the interval's months as 30 days (interval comparison's rule).
      const Value w = Value::MakeInterval(0, width.months * 30 + width.days, width.micros);
      SLUICE_ASSIGN_OR_RETURN(
          row, Call("+", {l.args[1], MakeLiteral(w, SqlType::Interval(false))}, where));
      op = Flipped(op);
    } else if (ConstantInterval(l, &width) && r.kind == ExprKind::kCall &&
               std::string_view(r.fn_name) == "-" && r.args.size() == 2 && IsNow(*r.args[0]) &&
               !ContainsNow(*r.args[1])) {
      const Value w = Value::MakeInterval(0, width.months * 30 + width.days, width.micros);
      SLUICE_ASSIGN_OR_RETURN(
          row, Call("+", {r.args[1], MakeLiteral(w, SqlType::Interval(false))}, where));
    } else {
      return SqlUnsupported(sql_, where, "This use of NOW()", kWhereNowMayBe);
    }
    if (row->type.id() != TypeId::kTimestamp) {
      return SqlUnsupported(sql_, where, "Comparing NOW() with a " + PgTypeName(row->type),
                            "Compare it with a TIMESTAMP (or a DATE, cast to one).");
    }
    if (offset.months != 0) {
      // ts > NOW() - '1 month' is not ts + '1 month' > NOW() at months' ends.
      return SqlUnsupported(sql_, where, "An interval of months or years added to NOW()",
                            "Write it in days: NOW() - INTERVAL '30 days'.");
    }
    if (offset.days != 0 || offset.micros != 0) {
      const Value o = Value::MakeInterval(0, offset.days, offset.micros);
      SLUICE_ASSIGN_OR_RETURN(row,
                              Call("-", {row, MakeLiteral(o, SqlType::Interval(false))}, where));
    }
    // row op NOW(): NOW() lies below the row's time (op > or >=), above it
    // (< or <=), or on it.
    if (op == ">" || op == ">=" || op == "=") bounds->push_back({row, false, op != ">"});
    if (op == "<" || op == "<=" || op == "=") bounds->push_back({row, true, op != "<"});
  }
  *conjuncts = std::move(rest);
  return Status::OK();
}

PlanPtr MakeTemporalFilter(PlanPtr in, std::vector<TimeBound> bounds) {
  auto n = std::make_shared<PlanNode>();
  n->kind = PlanKind::kTemporalFilter;
  n->columns = in->columns;
  n->inputs = {std::move(in)};
  n->time_bounds = std::move(bounds);
  return n;
}

}  // namespace sluice::sql::binding
