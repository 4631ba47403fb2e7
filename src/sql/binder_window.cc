// Window functions: the WINDOW clause, frames, the calls over a query's
// rows or its groups, and the rankings and rolling aggregates that run as
// operators of their own (a part of Binder, binder_internal.h).
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "sql/binder_internal.h"
#include "sql/over.h"

namespace sluice::sql::binding {
namespace {

// PostgreSQL's frame option bits (nodes/parsenodes.h).
constexpr int kFrameRange = 0x2, kFrameRows = 0x4, kFrameGroups = 0x8, kFrameBetween = 0x10,
              kStartUnboundedPreceding = 0x20, kStartUnboundedFollowing = 0x80,
              kEndUnboundedPreceding = 0x40, kEndUnboundedFollowing = 0x100,
              kStartCurrentRow = 0x200, kEndCurrentRow = 0x400, kStartOffsetPreceding = 0x800,
              kEndOffsetPreceding = 0x1000, kStartOffsetFollowing = 0x2000,
              kEndOffsetFollowing = 0x4000, kExcludeCurrentRow = 0x8000, kExcludeGroup = 0x10000,
              kExcludeTies = 0x20000;

}  // namespace

Result<Json> Binder::ResolveWindow(const Json& over, const Json& node, int depth) {
  // OVER w names a window of the WINDOW clause; OVER (w ...) and a window of
  // the clause defined as (w ...) refer to one.
  std::string ref = over.value("refname", depth == 0 ? over.value("name", "") : "");
  if (ref.empty()) return over;
  if (depth > 16) return SqlError(sql_, node, "window \"" + ref + "\" refers to itself");
  const Json* def = nullptr;
  if (window_clause_ != nullptr) {
    for (const Json& w : *window_clause_) {
      if (w["WindowDef"].value("name", "") == ref) def = &w["WindowDef"];
    }
  }
  if (def == nullptr) return SqlError(sql_, node, "window \"" + ref + "\" does not exist");
  SLUICE_ASSIGN_OR_RETURN(Json base, ResolveWindow(*def, node, depth + 1));
  Json merged = base;
  merged.erase("name");
  merged.erase("refname");
  if (over.contains("refname")) {  // OVER (w ...): w's partition and order, this frame
    if (over.contains("partitionClause")) {
      return SqlError(sql_, node, "cannot override PARTITION BY clause of window \"" + ref + "\"");
    }
    if (over.contains("orderClause")) {
      if (base.contains("orderClause")) {
        return SqlError(sql_, node, "cannot override ORDER BY clause of window \"" + ref + "\"");
      }
      merged["orderClause"] = over["orderClause"];
    }
    if (over.value("frameOptions", 0) & 1) {
      for (const char* k : {"frameOptions", "startOffset", "endOffset"}) {
        merged.erase(k);
        if (over.contains(k)) merged[k] = over[k];
      }
    }
  }
  return merged;
}

Result<WindowFrame> Binder::BindFrame(const Json& over, const std::vector<ExprPtr>& order_exprs,
                                      const Json& node, Ctx& ctx) {
  using B = WindowFrame::Bound;
  WindowFrame f;
  const int o = over.value("frameOptions", 0);
  f.unit = (o & kFrameRows)     ? WindowFrame::Unit::kRows
           : (o & kFrameGroups) ? WindowFrame::Unit::kGroups
                                : WindowFrame::Unit::kRange;
  f.start = (o & kStartUnboundedFollowing) ? B::kUnboundedFollowing
            : (o & kStartCurrentRow)       ? B::kCurrentRow
            : (o & kStartOffsetPreceding)  ? B::kPreceding
            : (o & kStartOffsetFollowing)  ? B::kFollowing
                                           : B::kUnboundedPreceding;
  f.end = (o & kEndUnboundedFollowing)   ? B::kUnboundedFollowing
          : (o & kEndUnboundedPreceding) ? B::kUnboundedPreceding
          : (o & kEndOffsetPreceding)    ? B::kPreceding
          : (o & kEndOffsetFollowing)    ? B::kFollowing
                                         : B::kCurrentRow;
  f.exclude = (o & kExcludeCurrentRow) ? WindowFrame::Exclude::kCurrentRow
              : (o & kExcludeGroup)    ? WindowFrame::Exclude::kGroup
              : (o & kExcludeTies)     ? WindowFrame::Exclude::kTies
                                       : WindowFrame::Exclude::kNoOthers;
  (void)kFrameRange;
  (void)kFrameBetween;
  (void)kStartUnboundedPreceding;
  if (f.unit == WindowFrame::Unit::kGroups && order_exprs.empty())
    return SqlError(sql_, node, "GROUPS mode requires an ORDER BY clause");
  auto offset = [&](const char* field, bool start, long double* out, int32_t* months,
                    ExprPtr* over_rows) -> Status {
    const Json& e = over[field];
    Ctx none;
    SLUICE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(e, none));
    if (x->kind != ExprKind::kLiteral && none.pending.empty()) {
      // An expression of constants: its value.
      Value v;
      Status st = Eval(*x, Row{}, &v);
      if (!st.ok()) return SqlError(sql_, e, st.message());
      x = MakeLiteral(std::move(v), x->type);
    }
    if (x->kind != ExprKind::kLiteral) {
      // Of uncorrelated subqueries (bound above without the query's
      // columns): joined to every row of the query, so the offset is a
      // value of the row, the same in every row, and a change of a
      // subquery's answer changes every row.
      if (f.unit == WindowFrame::Unit::kRange) {
        return SqlUnsupported(sql_, e, "A RANGE frame offset that is not a constant");
      }
      if (!x->type.IsInteger()) {
        return SqlError(sql_, e,
                        "argument of " +
                            std::string(f.unit == WindowFrame::Unit::kRows ? "ROWS" : "GROUPS") +
                            " must be type bigint, not type " + PgTypeName(x->type));
      }
      SLUICE_ASSIGN_OR_RETURN(*over_rows, BindExpr(e, ctx));
      return Status::OK();
    }
    if (x->value.is_null()) {
      return SqlError(
          sql_, e,
          std::string("frame ") + (start ? "starting" : "ending") + " offset must not be null");
    }
    if (f.unit != WindowFrame::Unit::kRange) {
      if (!x->type.IsInteger()) {
        return SqlError(sql_, e,
                        "argument of " +
                            std::string(f.unit == WindowFrame::Unit::kRows ? "ROWS" : "GROUPS") +
                            " must be type bigint, not type " + PgTypeName(x->type));
      }
      if (x->value.int_value() < 0) {
        return SqlError(sql_, e,
                        std::string("frame ") + (start ? "starting" : "ending") +
                            " offset must not be negative");
      }
      *out = static_cast<long double>(x->value.int_value());
      return Status::OK();
    }
    if (order_exprs.size() != 1) {
      return SqlError(sql_, node,
                      "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column");
    }
    const SqlType& kt = order_exprs[0]->type;
    const bool timeish = kt.id() == TypeId::kDate || kt.id() == TypeId::kTimestamp ||
                         kt.id() == TypeId::kTime || kt.id() == TypeId::kInterval;
    Value v;
    if (timeish) {
      if (!CastValue(x->value, x->type, SqlType::Interval(), &v).ok()) {
        return SqlError(sql_, e,
                        "the RANGE offset of a " + PgTypeName(kt) + " must be an interval");
      }
    } else if (IsNumeric(kt) && (IsNumeric(x->type) || x->untyped)) {
      if (!CastValue(x->value, x->type, SqlType::Double(), &v).ok()) {
        return SqlError(sql_, e, "the RANGE offset must be a number");
      }
    } else {
      return SqlUnsupported(sql_, node,
                            "A RANGE window with an offset, ordered by " + PgTypeName(kt));
    }
    std::optional<long double> n = RangeNumber(v, kt);
    if (!n) return SqlError(sql_, e, "the RANGE offset must be a number");
    const int32_t m =
        kt.id() == TypeId::kDate || kt.id() == TypeId::kTimestamp ? v.interval_value().months : 0;
    if (std::isnan(*n) || *n < 0 || m < 0)
      return SqlError(sql_, e, "invalid preceding or following size in window function");
    *out = *n;
    *months = m;
    return Status::OK();
  };
  if (f.start == B::kPreceding || f.start == B::kFollowing) {
    SLUICE_RETURN_IF_ERROR(
        offset("startOffset", true, &f.start_offset, &f.start_months, &f.start_expr));
  }
  if (f.end == B::kPreceding || f.end == B::kFollowing)
    SLUICE_RETURN_IF_ERROR(offset("endOffset", false, &f.end_offset, &f.end_months, &f.end_expr));
  return f;
}

Result<WindowCall> Binder::BindWindowCall(const Json& node, const Json& body,
                                          const std::string& name, const Json& over,
                                          const std::vector<ExprPtr>& order_exprs, Ctx& ctx) {
  WindowCall c;
  // PostgreSQL's refusals, in its order.
  if (body.value("agg_distinct", false)) {
    return SqlError(sql_, node, "DISTINCT is not implemented for window functions");
  }
  if (!body.value("agg_order", Json::array()).empty()) {
    return SqlError(sql_, node, "aggregate ORDER BY is not implemented for window functions");
  }
  if (IsUserAggregateName(name)) {
    return BindUserWindowAggregate(node, body, name, over, order_exprs, ctx);
  }
  if (name == "json_agg" || name == "jsonb_agg" || name == "json_object_agg" ||
      name == "jsonb_object_agg") {
    // As grouped: the ARRAY_AGG of the elements (RewriteJsonCall), then the
    // function that makes them one JSON value, applied to each row's array.
    Json plain = body;
    plain.erase("over");
    std::optional<Json> call = RewriteJsonCall(name, plain, node);
    if (!call) return SqlError(sql_, node, "function " + name + " takes two arguments");
    Json& outer = (*call)["FuncCall"];
    const Json agg = outer["args"][0]["FuncCall"];
    SLUICE_ASSIGN_OR_RETURN(c, BindWindowCall(node, agg, "array_agg", over, order_exprs, ctx));
    static const char kValue[] = "window aggregate's value";
    outer["args"][0] =
        Json{{"ColumnRef",
              {{"fields", Json::array({Json{{"String", {{"sval", kValue}}}}})}, {"location", -1}}}};
    Ctx one;
    one.scope.push_back({"", kValue, c.type});
    SLUICE_ASSIGN_OR_RETURN(c.finish, BindExpr(*call, one));
    c.type = c.finish->type.WithNullable(true);
    return c;
  }
  std::vector<bool> untyped_null;  // an untyped NULL takes the type the function wants
  for (const Json& a : body.value("args", Json::array())) {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(a, ctx));
    untyped_null.push_back(e->kind == ExprKind::kLiteral && e->untyped && e->value.is_null());
    if (e->kind == ExprKind::kLiteral && e->untyped) e = MakeLiteral(e->value, SqlType::Varchar());
    c.args.push_back(e);
  }
  const size_t n = c.args.size();
  auto signature = [&]() {
    std::string msg = "function " + name + "(";
    for (size_t i = 0; i < n; ++i) msg += (i ? ", " : "") + PgTypeName(c.args[i]->type);
    return msg + ") does not exist";
  };
  auto int_arg = [&](size_t i) {
    if (untyped_null[i]) c.args[i] = MakeLiteral(Value::Null(), SqlType::Integer());
    return c.args[i]->type.IsInteger();
  };
  if (name == "row_number" || name == "rank" || name == "dense_rank" || name == "percent_rank" ||
      name == "cume_dist") {
    if (n != 0) return SqlError(sql_, node, signature());
    c.kind = name == "row_number"     ? WindowFnKind::kRowNumber
             : name == "rank"         ? WindowFnKind::kRank
             : name == "dense_rank"   ? WindowFnKind::kDenseRank
             : name == "percent_rank" ? WindowFnKind::kPercentRank
                                      : WindowFnKind::kCumeDist;
    c.type = c.kind == WindowFnKind::kPercentRank || c.kind == WindowFnKind::kCumeDist
                 ? SqlType::Double(false)
                 : SqlType::BigInt(false);
  } else if (name == "ntile") {
    if (n != 1 || !int_arg(0)) return SqlError(sql_, node, signature());
    c.kind = WindowFnKind::kNtile;
    c.type = SqlType::Integer();
  } else if (name == "lag" || name == "lead") {
    if (n < 1 || n > 3 || (n >= 2 && !int_arg(1))) return SqlError(sql_, node, signature());
    c.kind = name == "lag" ? WindowFnKind::kLag : WindowFnKind::kLead;
    c.type = c.args[0]->type.WithNullable(true);
    if (n == 3) {
      auto t = CommonType(c.args[0]->type, c.args[2]->type);
      if (!t.ok()) return SqlError(sql_, node, signature());
      c.type = t->WithNullable(true);
      c.args[0] = MakeCast(c.args[0], c.type);
      c.args[2] = MakeCast(c.args[2], c.type);
    }
  } else if (name == "first_value" || name == "last_value" || name == "nth_value") {
    bool nth = name == "nth_value";
    if (n != (nth ? 2u : 1u) || (nth && !int_arg(1))) return SqlError(sql_, node, signature());
    c.kind = name == "first_value"  ? WindowFnKind::kFirstValue
             : name == "last_value" ? WindowFnKind::kLastValue
                                    : WindowFnKind::kNthValue;
    c.type = c.args[0]->type.WithNullable(true);
  } else if (AggKind stat; StatisticKind(name, &stat)) {
    const bool pair = IsPairStatistic(stat);
    if (body.value("agg_star", false) || n != (pair ? 2u : 1u))
      return SqlError(sql_, node, signature());
    ExprPtr x = pair ? c.args[1] : nullptr;
    SLUICE_RETURN_IF_ERROR(TypeStatisticArgs(name, pair, &c.args[0], &x, node));
    if (pair) c.args[1] = x;
    c.kind = WindowFnKind::kAggregate;
    c.agg = stat;
    Schema types = {c.args[0]->type.WithNullable(true)};
    AggSpec spec{stat, 0};
    if (pair) {
      types.push_back(c.args[1]->type.WithNullable(true));
      spec.column2 = 1;
    }
    auto t = AggOutputType(spec, types);
    if (!t.ok()) return SqlError(sql_, node, t.status().message());
    c.type = *t;
  } else if (name == "array_agg" || name == "string_agg") {
    const bool strings = name == "string_agg";
    if (body.value("agg_star", false)) return SqlError(sql_, node, name + "(*) is not a function");
    if (n != (strings ? 2u : 1u)) return SqlError(sql_, node, signature());
    if (strings && !c.args[0]->type.IsString() && c.args[0]->type.id() != TypeId::kVarbinary)
      return SqlError(sql_, node, signature());
    c.kind = WindowFnKind::kAggregate;
    c.agg = strings ? AggKind::kStringAgg : AggKind::kArrayAgg;
    if (strings) {
      SLUICE_ASSIGN_OR_RETURN(c.separator, StringAggSeparator(body["args"][1], c.args[0]));
      c.args.resize(1);
    }
    auto t = AggOutputType(AggSpec{c.agg, 0}, {c.args[0]->type.WithNullable(true)});
    if (!t.ok()) return SqlError(sql_, node, t.status().message());
    c.type = *t;
  } else if (IsWindowAggregateName(name)) {
    const bool star = body.value("agg_star", false);
    if (star ? name != "count" : n != 1) return SqlError(sql_, node, signature());
    if ((name == "sum" || name == "avg") && !IsNumeric(c.args[0]->type) &&
        c.args[0]->type.id() != TypeId::kInterval &&
        !(name == "sum" && c.args[0]->type.pg_kind() == PgKind::kMoney))  // money sums to money
      return SqlError(sql_, node, signature());
    if (IsBoolAggregateName(name) && c.args[0]->type.id() != TypeId::kBoolean)
      return SqlError(sql_, node, signature());
    c.kind = WindowFnKind::kAggregate;
    c.agg = name == "count" ? (star ? AggKind::kCountStar : AggKind::kCount)
            : name == "sum" ? AggKind::kSum
            : name == "avg" ? AggKind::kAvg
            : name == "min" || name == "bool_and" || name == "every" ? AggKind::kMin
                                                                     : AggKind::kMax;
    Schema one = {star ? SqlType::BigInt() : c.args[0]->type.WithNullable(true)};
    auto t = AggOutputType(AggSpec{c.agg, star ? -1 : 0}, one);
    if (!t.ok()) return SqlError(sql_, node, t.status().message());
    c.type = *t;
  } else if (IsPostgresFunction(name)) {
    return SqlUnsupported(sql_, node, "The window function " + name + "()");
  } else {
    return SqlError(sql_, node, signature());
  }
  if (body.contains("agg_filter")) {
    if (c.kind != WindowFnKind::kAggregate) {
      return SqlError(sql_, node, "FILTER is not implemented for non-aggregate window functions");
    }
    if (ContainsAggregate(body["agg_filter"])) {
      return SqlError(sql_, body["agg_filter"], "aggregate functions are not allowed in FILTER");
    }
    SLUICE_ASSIGN_OR_RETURN(c.filter, BindExpr(body["agg_filter"], ctx));
    if (c.filter->kind == ExprKind::kLiteral && c.filter->untyped) {
      Value b;
      if (!CastValue(c.filter->value, SqlType::Varchar(), SqlType::Boolean(), &b).ok())
        return SqlError(sql_, body["agg_filter"], "argument of FILTER must be type boolean");
      c.filter = MakeLiteral(std::move(b), SqlType::Boolean());
    }
    if (c.filter->type.id() != TypeId::kBoolean) {
      return SqlError(
          sql_, body["agg_filter"],
          "argument of FILTER must be type boolean, not type " + PgTypeName(c.filter->type));
    }
  }
  SLUICE_ASSIGN_OR_RETURN(c.frame, BindFrame(over, order_exprs, node, ctx));
  return c;
}

Result<PlanPtr> Binder::BindWindows(const Json& targets, const Json* sort, Ctx& ctx, PlanPtr plan,
                                    std::vector<WindowGroup>* grouped) {
  std::vector<const Json*> calls;
  std::set<const Json*> top;  // calls that are whole select items
  for (const Json& t : targets) {
    const Json& val = t["ResTarget"]["val"];
    CollectWindowCalls(val, &calls);
    top.insert(&val);
  }
  if (sort != nullptr) {
    for (const Json& sb : *sort) CollectWindowCalls(sb["SortBy"]["node"], &calls);
  }
  // Calls over the same partition and order share one partition-wide
  // operator; ranks kept by a filter and rolling aggregates have their own.
  using Group = WindowGroup;
  std::vector<Group> groups;
  // Subqueries in the calls (their arguments, partitions, orders and frame
  // offsets) join the plan under the windows, in the order their columns
  // joined the scope.
  size_t applied = ctx.pending.size();
  int others = 0;  // ranks kept by a filter and rolling aggregates
  for (const Json* valp : calls) {
    if (grouped == nullptr) {
      SLUICE_ASSIGN_OR_RETURN(plan, ApplyExtensions(plan, ctx, &applied));
    }
    const Json& val = *valp;
    auto [kind, body] = Node(val);
    std::string name = Str((*body)["funcname"].back());
    // A built-in window function under a user's name (CREATE FUNCTION ...
    // LANGUAGE internal WINDOW): called by its own, its arguments in order.
    // `body` stays the key the call is known by.
    const Json* call = body;
    Json builtin;
    const FunctionDef* user =
        (*body)["funcname"].size() == 1 ? catalog_.FindFunction(name) : nullptr;
    if (user != nullptr && !user->window_builtin.empty()) {
      builtin = *body;
      builtin["funcname"] = Json::array({Json{{"String", {{"sval", user->window_builtin}}}}});
      SLUICE_ASSIGN_OR_RETURN(builtin["args"], FunctionCallArgs(*user, *body, val));
      if (builtin["args"].empty()) builtin.erase("args");
      name = user->window_builtin;
      call = &builtin;
    }
    SLUICE_ASSIGN_OR_RETURN(Json over, ResolveWindow((*body)["over"], val));
    const Json& order_clause = over.value("orderClause", Json::array());
    const int frame = over.value("frameOptions", 0);
    if (grouped == nullptr && (name == "row_number" || name == "rank" || name == "dense_rank") &&
        !call->contains("args") && top.count(valp)) {
      SLUICE_ASSIGN_OR_RETURN(plan, BindRankTopK(val, body, over, name, ctx, plan));
      ++others;
      continue;
    }
    if (grouped == nullptr && IsRollingAggregateName(name) &&
        (frame & ~1) == (kFrameRange | kFrameBetween | kEndCurrentRow | kStartOffsetPreceding) &&
        order_clause.size() == 1 &&
        order_clause[0]["SortBy"].value("sortby_dir", "") != "SORTBY_DESC" &&
        !body->value("agg_distinct", false) && !body->contains("agg_filter")) {
      const size_t before = ctx.pending.size();
      SLUICE_ASSIGN_OR_RETURN(ExprPtr key, BindExpr(order_clause[0]["SortBy"]["node"], ctx));
      const TypeId kt = key->type.id();
      // A key that may be NULL goes to the partition-wide operator, which
      // aggregates a NULL key with its NULL peers as PostgreSQL does.
      // So does an offset of months, which the calendar sizes, and one that
      // is not a literal (of subqueries, or constants to compute).
      Ctx none;
      auto off = BindExpr(over["startOffset"], none);
      const bool literal = off.ok() && (*off)->kind == ExprKind::kLiteral;
      bool months = false;
      if ((kt == TypeId::kDate || kt == TypeId::kTimestamp) && literal) {
        Value iv;
        months = CastValue((*off)->value, (*off)->type, SqlType::Interval(), &iv).ok() &&
                 !iv.is_null() && iv.interval_value().months != 0;
      }
      if (!key->type.nullable() && !months && literal && ctx.pending.size() == before &&
          (key->type.IsInteger() || kt == TypeId::kDate || kt == TypeId::kTimestamp)) {
        SLUICE_ASSIGN_OR_RETURN(plan, BindRolling(val, *body, over, name, ctx, plan));
        // Its node is on the plan already: a subquery would join above it.
        if (ctx.pending.size() != before) {
          return SqlUnsupported(sql_, val, "A subquery in a rolling window aggregate",
                                "Compute it in a subquery in FROM.");
        }
        ++others;
        continue;
      }
    }
    std::string key =
        over.value("partitionClause", Json::array()).dump() + "|" + order_clause.dump();
    auto g =
        std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.key == key; });
    if (g == groups.end()) {
      Group fresh;
      fresh.key = key;
      for (const Json& p : over.value("partitionClause", Json::array())) {
        SLUICE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(p, ctx));
        fresh.partition.push_back(e);
      }
      for (const Json& sb : order_clause) {
        const Json& by = sb["SortBy"];
        SLUICE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(by["node"], ctx));
        fresh.order_exprs.push_back(e);
        fresh.order.push_back(SortKeyOf(by, 0));
      }
      groups.push_back(std::move(fresh));
      g = groups.end() - 1;
    }
    SLUICE_ASSIGN_OR_RETURN(WindowCall c,
                            BindWindowCall(val, *call, name, over, g->order_exprs, ctx));
    g->calls.emplace_back(body, std::move(c));
  }
  if (grouped == nullptr) {
    SLUICE_ASSIGN_OR_RETURN(plan, ApplyExtensions(plan, ctx, &applied));
  }
  // Rows that come sorted from a subquery's ORDER BY that starts with the
  // windows' partition (ascending, NULLs last) and order are not sorted
  // again by PostgreSQL's plan: peers (and with no ORDER BY, all of a
  // partition's rows) keep the rest of the subquery's order. So when every
  // window of the query has that partition and order.
  auto sorted_by = [&](const Group& g) {
    const size_t np = g.partition.size(), m = np + g.order_exprs.size();
    bool prefix = m <= ctx.input_order.size();
    for (size_t i = 0; prefix && i < m; ++i) {
      const Ctx::InputOrderKey& k = ctx.input_order[i];
      const ExprPtr& e = i < np ? g.partition[i] : g.order_exprs[i - np];
      const bool desc = i < np ? false : g.order[i - np].desc;
      const bool nulls_first = i < np ? false : g.order[i - np].nulls_first;
      prefix = Key(*k.key) == Key(*e) && k.desc == desc && k.nulls_first == nulls_first;
    }
    return prefix ? m : SIZE_MAX;
  };
  const size_t sorted = groups.empty() ? SIZE_MAX : sorted_by(groups.front());
  if (grouped == nullptr && others == 0 && sorted != SIZE_MAX &&
      std::all_of(groups.begin(), groups.end(),
                  [&](const Group& g) { return sorted_by(g) == sorted; })) {
    for (Group& g : groups) {
      for (size_t i = sorted; i < ctx.input_order.size(); ++i) {
        const Ctx::InputOrderKey& k = ctx.input_order[i];
        g.tie_exprs.push_back(k.key);
        g.tie_order.push_back(SortKey{0, k.desc, k.nulls_first});
      }
    }
  }
  if (grouped != nullptr && !calls.empty() && !ctx.pending.empty()) {
    return SqlUnsupported(sql_, *calls.front(), "A subquery in a query with window functions",
                          "Compute the window functions in a view or a subquery in FROM, and "
                          "use the subquery outside it.");
  }
  if (grouped != nullptr) {
    int j = 0;
    for (const Group& g : groups) {
      for (const auto& [body, call] : g.calls) {
        window_cols_[body] = kWindowBase + j++;
        window_types_[body] = call.type;
      }
    }
    *grouped = std::move(groups);
    return plan;
  }
  for (Group& g : groups) {
    auto n = MakeOver(plan, g);
    for (auto& [body, call] : g.calls) {
      window_cols_[body] = static_cast<int>(ctx.scope.size());
      const std::string fname = Str((*body)["funcname"].back());
      ctx.scope.push_back({"", fname, call.type, false, /*hidden=*/true});
      n->columns.push_back({fname, call.type});
      n->window_calls.push_back(std::move(call));
    }
    plan = n;
  }
  return plan;
}

Result<PlanPtr> Binder::WindowsOverAggregate(std::vector<WindowGroup> groups,
                                             const std::vector<ExprPtr>& keys,
                                             const std::vector<std::string>& key_strs,
                                             const Ctx& from, PlanPtr plan) {
  auto onto = [&](ExprPtr* e, const Json* node) -> Status {
    SLUICE_ASSIGN_OR_RETURN(*e, OntoAggregate(*e, keys, key_strs, from, node));
    return Status::OK();
  };
  for (WindowGroup& g : groups) {
    const Json* node = g.calls.front().first;
    for (ExprPtr& e : g.partition) SLUICE_RETURN_IF_ERROR(onto(&e, node));
    for (ExprPtr& e : g.order_exprs) SLUICE_RETURN_IF_ERROR(onto(&e, node));
    auto n = MakeOver(plan, g);
    for (auto& [body, call] : g.calls) {
      for (ExprPtr& a : call.args) SLUICE_RETURN_IF_ERROR(onto(&a, body));
      if (call.filter != nullptr) SLUICE_RETURN_IF_ERROR(onto(&call.filter, body));
      n->columns.push_back({Str((*body)["funcname"].back()), call.type});
      n->window_calls.push_back(std::move(call));
    }
    plan = n;
  }
  return plan;
}

Result<PlanPtr> Binder::BindRankTopK(const Json& val, const Json* body, const Json& over,
                                     const std::string& name, Ctx& ctx, PlanPtr plan) {
  auto rank = std::make_shared<PlanNode>();
  rank->kind = PlanKind::kRank;
  rank->inputs = {plan};
  rank->columns = plan->columns;
  rank->columns.push_back({name, SqlType::BigInt(false)});
  rank->rank_kind = name == "rank"         ? RankKind::kRank
                    : name == "dense_rank" ? RankKind::kDenseRank
                                           : RankKind::kRowNumber;
  // An enclosing filter may set a bound (a top-k); without one, lowering
  // numbers the whole partition. The plan has every subquery bound so far
  // joined (BindWindows); one in the partition or order would join above.
  const size_t applied = ctx.pending.size();
  for (const Json& p : over.value("partitionClause", Json::array())) {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(p, ctx));
    rank->partition.push_back(e);
  }
  for (const Json& sb : over.value("orderClause", Json::array())) {
    const Json& by = sb["SortBy"];
    SLUICE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(by["node"], ctx));
    rank->order_exprs.push_back(e);
    rank->order.push_back(SortKeyOf(by, 0));
  }
  if (ctx.pending.size() != applied) {
    return SqlUnsupported(sql_, val, "A subquery in a window's partition or order",
                          "Compute the window functions in a view or a subquery in FROM, and "
                          "use the subquery outside it.");
  }
  plan = rank;
  window_cols_[body] = static_cast<int>(ctx.scope.size());
  ctx.scope.push_back({"", name, SqlType::BigInt(false), false, /*hidden=*/true});
  return plan;
}

Result<PlanPtr> Binder::BindRolling(const Json& node, const Json& body, const Json& over,
                                    const std::string& name, Ctx& ctx, PlanPtr plan) {
  int frame = over.value("frameOptions", 0);
  int wanted = kFrameRange | kFrameBetween | kEndCurrentRow | kStartOffsetPreceding;
  if ((frame & ~1) != wanted || !over.contains("startOffset")) {
    return SqlUnsupported(sql_, node, "This window frame",
                          "An aggregate over a window takes the frame RANGE BETWEEN <offset> "
                          "PRECEDING AND CURRENT ROW, with one ascending ORDER BY column.");
  }
  const Json& order = over.value("orderClause", Json::array());
  if (order.size() != 1) {
    return SqlError(sql_, node,
                    "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column");
  }
  if (order[0]["SortBy"].value("sortby_dir", "") == "SORTBY_DESC") {
    return SqlUnsupported(sql_, node, "A RANGE frame in descending order",
                          "Order the window by an ascending column.");
  }
  auto n = std::make_shared<PlanNode>();
  n->kind = PlanKind::kRolling;
  n->inputs = {plan};
  for (const Json& p : over.value("partitionClause", Json::array())) {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(p, ctx));
    n->partition.push_back(e);
  }
  SLUICE_ASSIGN_OR_RETURN(ExprPtr key, BindExpr(order[0]["SortBy"]["node"], ctx));
  const TypeId kt = key->type.id();
  if (!key->type.IsInteger() && kt != TypeId::kDate && kt != TypeId::kTimestamp) {
    return SqlUnsupported(sql_, node, "a RANGE window ordered by " + PgTypeName(key->type));
  }
  n->order_exprs = {key};
  // The offset: an interval for dates and timestamps, a number otherwise.
  Ctx none;
  SLUICE_ASSIGN_OR_RETURN(ExprPtr off, BindExpr(over["startOffset"], none));
  if (off->kind != ExprKind::kLiteral || off->value.is_null()) {
    return SqlError(sql_, over["startOffset"], "the RANGE offset must be a constant");
  }
  if (kt == TypeId::kTimestamp || kt == TypeId::kDate) {
    Value iv;
    Status st = CastValue(off->value, off->type, SqlType::Interval(), &iv);
    if (!st.ok() || iv.interval_value().months != 0) {
      return SqlError(
          sql_, over["startOffset"],
          "the RANGE offset of a date or timestamp must be an interval of days and time");
    }
    const Interval& v = iv.interval_value();
    int64_t micros = v.days * 86400000000LL + v.micros;
    n->range = kt == TypeId::kDate ? micros / 86400000000LL : micros;
  } else {
    if (!off->type.IsInteger())
      return SqlError(sql_, over["startOffset"], "the RANGE offset must be an integer");
    n->range = off->value.int_value();
  }
  if (n->range < 0)
    return SqlError(sql_, over["startOffset"],
                    "invalid preceding or following size in window function");
  // The aggregate and its argument.
  AggCall call;
  bool star = body.value("agg_star", false);
  if (body.value("agg_distinct", false) || body.contains("agg_filter")) {
    return SqlUnsupported(sql_, node, "DISTINCT or FILTER in a window aggregate");
  }
  if (!star) {
    const Json& args = body.value("args", Json::array());
    if (args.size() != 1) return SqlError(sql_, node, "function " + name + " takes one argument");
    SLUICE_ASSIGN_OR_RETURN(call.arg, BindExpr(args[0], ctx));
  }
  call.kind = name == "count" ? (star ? AggKind::kCountStar : AggKind::kCount)
              : name == "sum" ? AggKind::kSum
              : name == "avg" ? AggKind::kAvg
              : name == "min" ? AggKind::kMin
                              : AggKind::kMax;
  Schema one = {call.arg ? call.arg->type.WithNullable(true) : SqlType::BigInt()};
  auto t = AggOutputType(AggSpec{call.kind, call.arg ? 0 : -1}, one);
  if (!t.ok()) return SqlError(sql_, node, t.status().message());
  call.type = *t;
  n->rolling = call;
  n->columns = plan->columns;
  n->columns.push_back({name, call.type});
  window_cols_[&body] = static_cast<int>(ctx.scope.size());
  ctx.scope.push_back({"", name, call.type, false, /*hidden=*/true});
  return PlanPtr(n);
}

Result<ExprPtr> Binder::OntoAggregate(const ExprPtr& e, const std::vector<ExprPtr>& keys,
                                      const std::vector<std::string>& key_strs, const Ctx& from,
                                      const Json* node) {
  std::string k = Key(*e);
  for (size_t i = 0; i < keys.size(); ++i) {
    if (key_strs[i] == k) return MakeColumn(static_cast<int>(i), e->type);
  }
  if (e->kind == ExprKind::kColumn && e->column >= kWindowBase) {
    return MakeColumn(agg_width_ + (e->column - kWindowBase), e->type);
  }
  if (e->kind == ExprKind::kColumn) {
    if (e->column >= kAggBase) {
      return MakeColumn(static_cast<int>(keys.size()) + (e->column - kAggBase), e->type);
    }
    const ScopeCol& c = from.scope[static_cast<size_t>(e->column)];
    const int same = e->column + c.same_as;
    if (c.same_as != 0 && same >= 0 && static_cast<size_t>(same) < from.scope.size() &&
        from.scope[static_cast<size_t>(same)].name == c.name) {
      // A merged USING column: the side's column it is, if that is grouped.
      auto side = OntoAggregate(
          MakeCast(MakeColumn(same, from.scope[static_cast<size_t>(same)].type), e->type), keys,
          key_strs, from, nullptr);
      if (side.ok()) return side;
    }
    const std::string message = "column \"" + (c.qualifier.empty() ? "" : c.qualifier + ".") +
                                c.name +
                                "\" must appear in the GROUP BY clause or be used in an "
                                "aggregate function";
    if (node != nullptr) return SqlError(sql_, *node, message);
    return Status::InvalidArgument(message);
  }
  if (e->args.empty()) return e;
  auto copy = std::make_shared<Expr>(*e);
  for (ExprPtr& a : copy->args) {
    SLUICE_ASSIGN_OR_RETURN(a, OntoAggregate(a, keys, key_strs, from, node));
  }
  return ExprPtr(copy);
}

}  // namespace sluice::sql::binding
