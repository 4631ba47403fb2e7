// NOW() and the temporal filters that read it (plan.h, kTemporalFilter).
//
// In an ad hoc query NOW() is the time of the query, a constant. In a view
// it is the step clock (dataflow/clock.h), which a view may read only in a
// WHERE conjunct that compares it with a row's time: `ts > NOW() - INTERVAL
// '1 hour'`, `ts <= NOW()`, `NOW() - ts < INTERVAL '5 minutes'`. Each such
// conjunct becomes a bound on the instants at which the row is in the view,
// so the view changes as the clock moves without reading any row twice.
#include "base/hash.h"
#include "dataflow/operators/draw.h"
#include "sql/binder_internal.h"

namespace sluice::sql::binding {
namespace {

// The step clock is read by the temporal filter, never evaluated in place.
Status StepClockOnly(const SqlType&, const Value*, size_t, Value*) {
  return Status::Internal("NOW() in a view is read only by its temporal filter");
}

constexpr const char* kWhereNowMayBe =
    "In a view, NOW() is the step clock; a view reads it in its select list, WHERE, GROUP BY, "
    "HAVING, ORDER BY, the ON of inner joins and of LEFT JOINs.";

// CURRENT_DATE in a view: the step clock's date.
Status StepDateOnly(const SqlType&, const Value*, size_t, Value*) {
  return Status::Internal("CURRENT_DATE in a view is read only by its temporal filter");
}

bool IsNow(const Expr& e) { return e.kind == ExprKind::kCall && e.fn == StepClockOnly; }
bool IsToday(const Expr& e) { return e.kind == ExprKind::kCall && e.fn == StepDateOnly; }
bool ReadsClock(const Expr& e) { return IsNow(e) || IsToday(e); }

// The first node of `e`, depth first, that `is` holds for; null if none.
const Expr* FirstOf(const Expr& e, bool (*is)(const Expr&)) {
  if (is(e)) return &e;
  for (const ExprPtr& a : e.args) {
    if (const Expr* found = FirstOf(*a, is)) return found;
  }
  return nullptr;
}

bool ContainsNow(const Expr& e) { return FirstOf(e, ReadsClock) != nullptr; }

// A constant (no column, no clock) that is not NULL: its value.
bool ConstantValue(const Expr& e, Value* out) {
  if (ContainsNow(e)) return false;
  std::vector<int> cols;
  CollectColumns(e, &cols);
  return cols.empty() && Eval(e, Row(), out).ok() && !out->is_null();
}

// A constant INTERVAL (a literal, or a cast of one): its value.
bool ConstantInterval(const Expr& e, Interval* out) {
  Value v;
  if (e.type.id() != TypeId::kInterval || !ConstantValue(e, &v)) return false;
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

// `e` as CURRENT_DATE + days (days zero for CURRENT_DATE itself).
bool AsTodayPlus(const Expr& e, int64_t* days) {
  *days = 0;
  if (IsToday(e)) return true;
  if (e.kind != ExprKind::kCall || e.args.size() != 2) return false;
  const std::string_view op = e.fn_name;
  if (op != "+" && op != "-") return false;
  const int side = IsToday(*e.args[0]) ? 1 : op == "+" && IsToday(*e.args[1]) ? 0 : -1;
  if (side < 0) return false;
  const Expr& k = *e.args[static_cast<size_t>(side)];
  Value v;
  if (!k.type.IsInteger() || !ConstantValue(k, &v)) return false;
  *days = op == "-" ? -v.int_value() : v.int_value();
  return true;
}

// `e` as NOW() - ts: ts (free of the clock), or null.
ExprPtr AgeOf(const Expr& e) {
  if (e.kind != ExprKind::kCall || std::string_view(e.fn_name) != "-" || e.args.size() != 2 ||
      !IsNow(*e.args[0]) || ContainsNow(*e.args[1])) {
    return nullptr;
  }
  return e.args[1];
}

// An interval as interval comparison weighs it: its months as 30 days.
ExprPtr ComparedAsDays(const Interval& width) {
  return MakeLiteral(Value::MakeInterval(0, width.months * 30 + width.days, width.micros),
                     SqlType::Interval(false));
}

// The comparison `b op a` for `a op b`.
std::string_view Flipped(std::string_view op) {
  if (op == "<") return ">";
  if (op == "<=") return ">=";
  if (op == ">") return "<";
  if (op == ">=") return "<=";
  return op;
}

// What a read of the clock gives: NOW()'s TIMESTAMP, CURRENT_DATE's DATE,
// CURRENT_TIME's TIME; kNone for a node that does not read it.
enum class ClockRead { kNone, kTimestamp, kDate, kTime };

ClockRead ClockReadOf(const Json& n) {
  if (!n.is_object()) return ClockRead::kNone;
  if (auto f = n.find("FuncCall"); f != n.end()) {
    const std::string name = Str((*f)["funcname"].back());
    const bool clock =
        name == "now" || name == "transaction_timestamp" || name == "statement_timestamp";
    return clock && f->value("args", Json::array()).empty() && !f->contains("over") &&
                   !f->value("agg_star", false)
               ? ClockRead::kTimestamp
               : ClockRead::kNone;
  }
  if (auto v = n.find("SQLValueFunction"); v != n.end()) {
    const std::string op = v->value("op", "");
    if (op.rfind("SVFOP_CURRENT_TIMESTAMP", 0) == 0 || op.rfind("SVFOP_LOCALTIMESTAMP", 0) == 0)
      return ClockRead::kTimestamp;
    if (op == "SVFOP_CURRENT_DATE") return ClockRead::kDate;
    if (op.rfind("SVFOP_CURRENT_TIME", 0) == 0 || op.rfind("SVFOP_LOCALTIME", 0) == 0)
      return ClockRead::kTime;
  }
  return ClockRead::kNone;
}

// Whether `n` is age(x) of one argument, which reads the clock's date.
bool IsAgeOfOne(const Json& n) {
  auto f = n.is_object() ? n.find("FuncCall") : n.end();
  return f != n.end() && Str((*f)["funcname"].back()) == "age" &&
         f->value("args", Json::array()).size() == 1 && !f->contains("over");
}

// Whether `n` reads the clock outside the queries it holds.
bool HasClockRead(const Json& n) {
  if (ClockReadOf(n) != ClockRead::kNone || IsAgeOfOne(n)) return true;
  if (!n.is_object() && !n.is_array()) return false;
  for (auto it = n.begin(); it != n.end(); ++it) {
    if (n.is_object() && it.key() == "SelectStmt") continue;
    if (HasClockRead(it.value())) return true;
  }
  return false;
}

Json TypeName(const char* name, int64_t typmod) {
  Json t = {{"names", Json::array({Json{{"String", {{"sval", name}}}}})}, {"location", -1}};
  if (typmod >= 0) {
    t["typmods"] =
        Json::array({Json{{"A_Const", {{"ival", {{"ival", typmod}}}, {"location", -1}}}}});
  }
  return t;
}

// `(SELECT "?step_clock".now FROM "?step_clock")`, as `read` wants it:
// cast to a DATE or a TIME, rounded to its precision (CURRENT_TIMESTAMP(2)).
Json ClockSubquery(const Json& read, ClockRead kind) {
  Json val = {{"ColumnRef",
               {{"fields", Json::array({Json{{"String", {{"sval", kStepClock}}}},
                                        Json{{"String", {{"sval", "now"}}}}})},
                {"location", -1}}}};
  int64_t typmod = -1;
  if (auto v = read.find("SQLValueFunction"); v != read.end()) typmod = v->value("typmod", -1);
  if (kind != ClockRead::kTimestamp || typmod >= 0) {
    const char* type = kind == ClockRead::kDate   ? "date"
                       : kind == ClockRead::kTime ? "time"
                                                  : "timestamp";
    val = {{"TypeCast", {{"arg", val}, {"typeName", TypeName(type, typmod)}, {"location", -1}}}};
  }
  Json select = {
      {"targetList", Json::array({Json{{"ResTarget", {{"val", val}, {"location", -1}}}}})},
      {"fromClause", Json::array({Json{{"RangeVar",
                                        {{"relname", kStepClock},
                                         {"inh", true},
                                         {"relpersistence", "p"},
                                         {"location", -1}}}}})},
      {"limitOption", "LIMIT_OPTION_DEFAULT"},
      {"op", "SETOP_NONE"}};
  const Json* body = read.contains("FuncCall") ? &read["FuncCall"] : &read["SQLValueFunction"];
  return {{"SubLink",
           {{"subLinkType", "EXPR_SUBLINK"},
            {"subselect", {{"SelectStmt", std::move(select)}}},
            {"location", body->value("location", -1)}}}};
}

// `n` with its reads of the clock (outside the queries it holds) as
// subqueries of the clock relation. Not in a JOIN's ON nor a window's
// definition, where a subquery cannot stand (an inner join's ON goes to
// WHERE first, InnerOnConjunctsToWhere, a LEFT JOIN's to a LATERAL
// subquery's WHERE, LeftOnConjunctsToLateral): BindNow refuses those.
void ReplaceClockReads(Json* n, bool* changed) {
  if (const ClockRead kind = ClockReadOf(*n); kind != ClockRead::kNone) {
    *n = ClockSubquery(*n, kind);
    *changed = true;
    return;
  }
  if (IsAgeOfOne(*n)) {
    *n = AgeFromMidnight(*n);
    *changed = true;
    ReplaceClockReads(&(*n)["FuncCall"]["args"], changed);
    return;
  }
  if (!n->is_object() && !n->is_array()) return;
  const bool join = n->is_object() && n->contains("jointype");
  for (auto it = n->begin(); it != n->end(); ++it) {
    if (n->is_object() &&
        (it.key() == "SelectStmt" || it.key() == "over" || (join && it.key() == "quals"))) {
      continue;
    }
    ReplaceClockReads(&it.value(), changed);
  }
}

// Whether `side` of a comparison is one a temporal filter takes: free of
// the clock, the clock itself, or the clock plus or minus what is free of it.
bool TemporalSide(const Json& side) {
  // NOW() and CURRENT_DATE; CURRENT_TIME has no temporal filter.
  auto filtered = [](const Json& n) {
    const ClockRead k = ClockReadOf(n);
    return k == ClockRead::kTimestamp || k == ClockRead::kDate;
  };
  if (!HasClockRead(side) || filtered(side)) return true;
  auto e = side.find("A_Expr");
  if (e == side.end() || e->value("kind", "") != "AEXPR_OP") return false;
  const std::string op = Str((*e)["name"].back());
  if (op != "+" && op != "-") return false;
  const Json& l = e->value("lexpr", Json());
  const Json& r = e->value("rexpr", Json());
  return (filtered(l) && !HasClockRead(r)) || (filtered(r) && !HasClockRead(l));
}

// Whether the WHERE conjunct `c` compares the clock as a temporal filter
// may (TakeTemporalConjuncts says what it cannot take of these).
bool TemporalShaped(const Json& c) {
  auto e = c.find("A_Expr");
  if (e == c.end()) return false;
  const std::string kind = e->value("kind", "");
  const Json& l = e->value("lexpr", Json());
  const Json& r = e->value("rexpr", Json());
  if (kind == "AEXPR_BETWEEN") {
    if (!TemporalSide(l) || !r.is_array()) return false;
    return std::all_of(r.begin(), r.end(), TemporalSide);
  }
  if (kind != "AEXPR_OP") return false;
  const std::string op = Str((*e)["name"].back());
  if (op != "<" && op != "<=" && op != ">" && op != ">=" && op != "=") return false;
  return TemporalSide(l) && TemporalSide(r);
}
}  // namespace

Json AgeFromMidnight(const Json& call) {
  Json out = call;
  Json& f = out["FuncCall"];
  const Json today = {
      {"SQLValueFunction", {{"op", "SVFOP_CURRENT_DATE"}, {"location", f.value("location", -1)}}}};
  Json midnight = {
      {"TypeCast", {{"arg", today}, {"typeName", TypeName("timestamp", -1)}, {"location", -1}}}};
  f["args"].insert(f["args"].begin(), std::move(midnight));
  return out;
}

Result<ExprPtr> Binder::BindToday(const Json& node) {
  if (!now_in_where_) {
    return SqlUnsupported(
        sql_, node,
        "CURRENT_DATE in a view's window, a UNION's ORDER BY or an outer join's ON condition",
        kWhereNowMayBe);
  }
  ExprPtr e = MakeCall(StepDateOnly, "current_date", SqlType::Date(false), {});
  now_at_[e.get()] = Location(node);
  return e;
}

Status Binder::TodayBounds(const Expr& conjunct, const Json& where,
                           std::vector<TimeBound>* bounds) {
  // date op CURRENT_DATE + k, as b op CURRENT_DATE with b = date - k; with
  // CURRENT_DATE = floor(NOW() / 1 day), b > today is NOW() < b's midnight,
  // b >= today is NOW() < the next midnight, b < today is NOW() >= the next
  // midnight, b <= today is NOW() >= b's midnight.
  std::string_view op = conjunct.fn_name;
  int64_t days = 0;
  ExprPtr b;
  if (!ContainsNow(*conjunct.args[0]) && AsTodayPlus(*conjunct.args[1], &days)) {
    b = conjunct.args[0];
  } else if (!ContainsNow(*conjunct.args[1]) && AsTodayPlus(*conjunct.args[0], &days)) {
    b = conjunct.args[1];
    op = Flipped(op);
  } else {
    return SqlUnsupported(sql_, where, "This use of CURRENT_DATE", kWhereNowMayBe);
  }
  if (b->type.id() != TypeId::kDate) {
    return SqlUnsupported(sql_, where, "Comparing CURRENT_DATE with a " + PgTypeName(b->type),
                          "Compare it with a DATE, or compare a TIMESTAMP with NOW().");
  }
  if (days != 0) {
    SLUICE_ASSIGN_OR_RETURN(
        b, Call("-", {b, MakeLiteral(Value::Int(days), SqlType::Integer(false))}, where));
  }
  const ExprPtr midnight = MakeCast(b, SqlType::Timestamp());
  SLUICE_ASSIGN_OR_RETURN(
      ExprPtr next_day, Call("+", {b, MakeLiteral(Value::Int(1), SqlType::Integer(false))}, where));
  const ExprPtr next_midnight = MakeCast(next_day, SqlType::Timestamp());
  if (op == ">") bounds->push_back({midnight, false, false});
  if (op == ">=" || op == "=") bounds->push_back({next_midnight, false, false});
  if (op == "<") bounds->push_back({next_midnight, true, true});
  if (op == "<=" || op == "=") bounds->push_back({midnight, true, true});
  return Status::OK();
}

Result<ExprPtr> Binder::BindNow(const Json& node) {
  if (catalog_.now()) return MakeLiteral(Value::Int(*catalog_.now()), SqlType::Timestamp(false));
  if (!now_in_where_)
    return SqlUnsupported(
        sql_, node, "NOW() in a view's window, a UNION's ORDER BY or an outer join's ON condition",
        kWhereNowMayBe);
  ExprPtr e = MakeCall(StepClockOnly, "now", SqlType::Timestamp(false), {});
  now_at_[e.get()] = Location(node);
  return e;
}

std::optional<Json> Binder::ClockReadsAsSubqueries(const Json& s, bool where_too) const {
  if (catalog_.now() || !HasClockRead(s)) return std::nullopt;
  Json out = s;
  bool changed = false;
  changed = InnerOnConjunctsToWhere(&out, HasClockRead);
  changed |= LeftOnConjunctsToLateral(&out, HasClockRead);
  if (out.contains("targetList")) {
    // Named as before: `SELECT NOW()` is still `now`.
    for (Json& t : out["targetList"]) {
      if (!t.contains("ResTarget") || t["ResTarget"].contains("name")) continue;
      if (HasClockRead(t["ResTarget"]["val"])) t["ResTarget"]["name"] = OutputName(t["ResTarget"]);
    }
  }
  for (auto it = out.begin(); it != out.end(); ++it) {
    // WITH queries and the sides of a UNION are bound as queries of their
    // own (their temporal filters stay theirs); a UNION's ORDER BY and a
    // WINDOW cannot hold a subquery (BindNow refuses the clock there).
    if (it.key() == "withClause" || it.key() == "larg" || it.key() == "rarg" ||
        it.key() == "windowClause" ||
        (it.key() == "sortClause" && s.value("op", "SETOP_NONE") != "SETOP_NONE")) {
      continue;
    }
    if (it.key() != "whereClause" || where_too) {
      ReplaceClockReads(&it.value(), &changed);
      continue;
    }
    // WHERE: each conjunct a temporal filter may take stays for it.
    Json& w = it.value();
    const bool conjunction =
        w.contains("BoolExpr") && w["BoolExpr"].value("boolop", "") == "AND_EXPR";
    if (!conjunction) {
      if (!TemporalShaped(w)) ReplaceClockReads(&w, &changed);
      continue;
    }
    for (Json& c : w["BoolExpr"]["args"]) {
      if (!TemporalShaped(c)) ReplaceClockReads(&c, &changed);
    }
  }
  if (!changed) return std::nullopt;
  return out;
}

double Binder::OnceDraw(int site) {
  const uint64_t seed = catalog_.now() ? static_cast<uint64_t>(*catalog_.now()) : Hash64(sql_);
  return DrawValue(seed, static_cast<uint64_t>(site), 0, 0, sql_);
}

Status Binder::TakeTemporalConjuncts(std::vector<ExprPtr>* conjuncts,
                                     std::vector<TimeBound>* bounds) {
  std::vector<ExprPtr> rest;
  for (const ExprPtr& c : *conjuncts) {
    if (!ContainsNow(*c)) {
      rest.push_back(c);
      continue;
    }
    // Where to point: the conjunct's first NOW() or CURRENT_DATE.
    auto read = now_at_.find(FirstOf(*c, ReadsClock));
    const Json where{{"location", read == now_at_.end() ? -1 : read->second}};
    std::string_view op = c->kind == ExprKind::kCall ? c->fn_name : "";
    if (c->args.size() != 2 || (op != "<" && op != "<=" && op != ">" && op != ">=" && op != "=")) {
      return SqlUnsupported(sql_, where, "This use of NOW()", kWhereNowMayBe);
    }
    if (FirstOf(*c, IsToday) != nullptr) {
      SLUICE_RETURN_IF_ERROR(TodayBounds(*c, where, bounds));
      continue;
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
    } else if (ExprPtr ts = AgeOf(l); ts && ConstantInterval(r, &width)) {
      // NOW() - ts op width: NOW() op ts + width, that is ts + width op' NOW().
      SLUICE_ASSIGN_OR_RETURN(row, Call("+", {ts, ComparedAsDays(width)}, where));
      op = Flipped(op);
    } else if (ExprPtr ts2 = AgeOf(r); ts2 && ConstantInterval(l, &width)) {
      SLUICE_ASSIGN_OR_RETURN(row, Call("+", {ts2, ComparedAsDays(width)}, where));
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
