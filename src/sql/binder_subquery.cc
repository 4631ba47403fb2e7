// Subqueries in expressions: scalar, EXISTS and IN. A subquery that uses
// columns of its enclosing query is decorrelated: bound once over the distinct
// values of those columns (its domain) and joined back on them, so that no
// subquery is ever evaluated row by row.
#include <set>

#include "sql/binder_internal.h"

namespace sluice::sql::binding {
namespace {

void CollectColumnRefs(const Json& n, std::vector<const Json*>* out) {
  if (n.is_object() && n.contains("ColumnRef")) {
    out->push_back(&n["ColumnRef"]);
    return;
  }
  if (n.is_object() || n.is_array()) {
    for (const Json& x : n) CollectColumnRefs(x, out);
  }
}

// Whether `p` has at most one row per value of its first `k` columns (the
// domain's), so that a scalar subquery over it needs no check: an aggregate
// grouped by exactly those columns (or a global one), a LIMIT 1, one VALUES
// row, and filters and projections of these (which keep the domain columns
// first).
bool AtMostOneRowPerKey(const PlanNode& p, size_t k) {
  switch (p.kind) {
    case PlanKind::kAggregate:
      return p.group_keys.size() == k && (k > 0 || p.global);
    case PlanKind::kFilter:
    case PlanKind::kProject:
      return AtMostOneRowPerKey(*p.inputs[0], k);
    case PlanKind::kTopK:
      return k == 0 && p.limit >= 0 && p.limit <= 1;
    case PlanKind::kValues:
      return k == 0 && p.rows.size() <= 1;
    case PlanKind::kClock:
      return k == 0;
    default:
      return false;
  }
}

Status MoreThanOneRow(const SqlType&, const Value*, size_t, Value*) {
  return Status::InvalidArgument("more than one row returned by a subquery used as an expression");
}

// Parse-tree builders for RowInSubquery (no locations: they are not in
// the query's text).
Json Name(const char* s) { return Json{{"String", {{"sval", s}}}}; }
Json IntConst(int64_t v) { return Json{{"A_Const", {{"ival", {{"ival", v}}}, {"location", -1}}}}; }
Json Op(const char* op, Json l, Json r) {
  return Json{{"A_Expr",
               {{"kind", "AEXPR_OP"},
                {"name", Json::array({Name(op)})},
                {"lexpr", std::move(l)},
                {"rexpr", std::move(r)},
                {"location", -1}}}};
}
Json When(Json cond, Json result) {
  return Json{
      {"CaseWhen", {{"expr", std::move(cond)}, {"result", std::move(result)}, {"location", -1}}}};
}

}  // namespace

// x op ANY (subquery), and (x1, ..., xn) op ANY (SELECT y1, ..., yn ...)
// with the row comparison's NULLs: TRUE if a row compares TRUE, else NULL
// if a row's comparison is NULL, else FALSE (also for no rows). As two
// EXISTS over the rows, in which the x's are outer references (so each is
// decorrelated over the distinct values of x):
//   CASE WHEN EXISTS (SELECT FROM (subquery) AS "?in"("?1", ...)
//                     WHERE (x) op (y)) THEN TRUE
//        WHEN EXISTS (... WHERE ((x) op (y)) IS NULL) THEN NULL
//        ELSE FALSE END
Json Binder::RowInSubquery(const Json& body, bool correlated, const std::string& op) {
  const Json xs = body["testexpr"].contains("RowExpr") ? body["testexpr"]["RowExpr"]["args"]
                                                       : Json::array({body["testexpr"]});
  Json ys = Json::array(), names = Json::array();
  for (size_t i = 0; i < xs.size(); ++i) {
    const Json name = {{"String", {{"sval", "?" + std::to_string(i + 1)}}}};
    names.push_back(name);
    ys.push_back(
        Json{{"ColumnRef", {{"fields", Json::array({Name("?in"), name})}, {"location", -1}}}});
  }
  auto row = [](Json args) {
    return Json{
        {"RowExpr",
         {{"args", std::move(args)}, {"row_format", "COERCE_EXPLICIT_CALL"}, {"location", -1}}}};
  };
  // A subquery that reads outer columns itself cannot be a derived table:
  // a plain SELECT ... FROM ... WHERE is used as it is, its select list
  // compared to x, if no column of x could be taken for one of its own.
  const Json& orig = body["subselect"]["SelectStmt"];
  bool plain =
      correlated && orig.value("op", "SETOP_NONE") == "SETOP_NONE" && orig.contains("fromClause");
  for (const char* k : {"groupClause", "havingClause", "distinctClause", "limitCount",
                        "limitOffset", "valuesLists", "windowClause", "withClause"}) {
    plain &= !orig.contains(k);
  }
  if (plain) {
    for (const Json& t : orig["targetList"]) {
      const Json& val = t["ResTarget"]["val"];
      std::vector<const Json*> windows;
      CollectWindowCalls(val, &windows);
      plain &= !ContainsAggregate(val) && windows.empty() &&
               !(val.contains("ColumnRef") && val["ColumnRef"]["fields"].back().contains("A_Star"));
    }
  }
  if (plain) {
    std::set<std::string> names_inside;
    for (const Json& f : orig["fromClause"]) {
      auto [kind, item] = Node(f);
      if (item->contains("alias")) names_inside.insert((*item)["alias"].value("aliasname", ""));
      if (kind == "RangeVar") names_inside.insert(item->value("relname", ""));
      plain &= kind == "RangeVar" || kind == "RangeSubselect";
    }
    std::vector<const Json*> refs;
    CollectColumnRefs(xs, &refs);
    for (const Json* r : refs) {
      const Json& fields = (*r)["fields"];
      plain &= fields.size() == 2 && !names_inside.count(Str(fields[0]));
    }
    if (!plain) return Json();
  }
  if (plain) {
    ys = Json::array();
    for (const Json& t : orig["targetList"]) ys.push_back(t["ResTarget"]["val"]);
  }
  auto exists = [&](const Json& cond) {
    Json sel;
    if (plain) {
      sel = orig;
      sel.erase("sortClause");
      sel["whereClause"] = orig.contains("whereClause")
                               ? Json{{"BoolExpr",
                                       {{"boolop", "AND_EXPR"},
                                        {"args", Json::array({orig["whereClause"], cond})},
                                        {"location", -1}}}}
                               : cond;
    } else {
      Json from = Json{{"RangeSubselect",
                        {{"subquery", body["subselect"]},
                         {"alias", {{"aliasname", "?in"}, {"colnames", names}}}}}};
      sel = {{"fromClause", Json::array({from})},
             {"whereClause", cond},
             {"limitOption", "LIMIT_OPTION_DEFAULT"},
             {"op", "SETOP_NONE"}};
    }
    sel["targetList"] =
        Json::array({Json{{"ResTarget", {{"val", IntConst(1)}, {"location", -1}}}}});
    return Json{{"SubLink",
                 {{"subLinkType", "EXISTS_SUBLINK"},
                  {"subselect", {{"SelectStmt", sel}}},
                  {"location", body.value("location", -1)}}}};
  };
  const Json eq = xs.size() > 1 ? Op(op.c_str(), row(xs), row(ys)) : Op(op.c_str(), xs[0], ys[0]);
  const Json is_null =
      Json{{"NullTest", {{"arg", eq}, {"nulltesttype", "IS_NULL"}, {"location", -1}}}};
  Json t = Json{{"A_Const", {{"boolval", {{"boolval", true}}}, {"location", -1}}}};
  Json f = Json{{"A_Const", {{"boolval", Json::object()}, {"location", -1}}}};
  Json null = Json{{"A_Const", {{"isnull", true}, {"location", -1}}}};
  return Json{{"CaseExpr",
               {{"args", Json::array({When(exists(eq), t), When(exists(is_null), null)})},
                {"defresult", f},
                {"location", -1}}}};
}

Result<BoundQuery> Binder::BindFindingOuter(const Json& sel, const Ctx& outer,
                                            std::vector<int>* refs) {
  Frame find;
  find.outer = &outer;
  find.refs = refs;
  frames_.push_back(find);
  auto probe = BindQuery(sel);
  frames_.pop_back();
  std::sort(refs->begin(), refs->end());
  refs->erase(std::unique(refs->begin(), refs->end()), refs->end());
  return probe;
}

Result<BoundQuery> Binder::BindOverDomain(const Json& sel, const Ctx& outer,
                                          const std::vector<int>& refs,
                                          std::shared_ptr<PlanNode>* domain) {
  *domain = std::make_shared<PlanNode>();
  (*domain)->kind = PlanKind::kDistinct;
  Frame over;
  for (int r : refs) {
    ScopeCol c = outer.scope[static_cast<size_t>(r)];
    c.type = c.type.WithNullable(true);
    c.correlated = true;
    over.domain_cols.push_back(c);
    (*domain)->columns.push_back({c.name, c.type});
  }
  over.domain = *domain;
  // While `outer` itself is being probed, the queries around it stay in
  // sight: what the subquery reads of them is recorded as `outer`'s.
  over.outer = outer.outer;
  over.refs = outer.outer_refs;
  frames_.push_back(over);
  auto bound = BindQuery(sel);
  frames_.pop_back();
  return bound;
}

Result<ExprPtr> Binder::BindSubLink(const Json& body, const Json& node, Ctx& ctx) {
  std::string type = body.value("subLinkType", "");
  if (type != "EXPR_SUBLINK" && type != "EXISTS_SUBLINK" && type != "ANY_SUBLINK" &&
      type != "ALL_SUBLINK" && type != "ARRAY_SUBLINK") {
    return SqlUnsupported(sql_, node, type);
  }
  // In an aggregate's arguments or FILTER, a subquery reads the rows
  // before they are grouped: it joins them (BindSimple applies agg_ctx's
  // extensions to the aggregate's input). Elsewhere in a grouped select
  // list, SubqueriesOverGroups has moved it above the groups.
  if (ctx.aggs != nullptr && !ctx.in_aggregate) {
    return SqlUnsupported(sql_, node, "a subquery in a grouped select list or HAVING");
  }
  const Json& sel = body["subselect"]["SelectStmt"];
  // Which columns of this query does the subquery use?
  std::vector<int> refs;
  // ARRAY(subquery) is in the order the subquery yields its rows.
  const bool array = type == "ARRAY_SUBLINK";
  order_from_input_ = array;
  const ColumnReads reads_before = reads_;
  const size_t outer_refs_before = ctx.outer_refs != nullptr ? ctx.outer_refs->size() : 0;
  auto probe = BindFindingOuter(sel, ctx, &refs);
  if (!probe.ok()) return probe.status();
  // Decorrelate: bind the subquery once over the distinct values of those
  // columns (the domain), and join its result back on them.
  BoundQuery q;
  std::shared_ptr<PlanNode> domain;
  std::vector<ExprPtr> outer_keys;
  if (refs.empty()) {
    q = std::move(probe).value();
  } else {
    for (int r : refs) outer_keys.push_back(MakeColumn(r, ctx.scope[static_cast<size_t>(r)].type));
    order_from_input_ = array;
    SLUICE_ASSIGN_OR_RETURN(q, BindOverDomain(sel, ctx, refs, &domain));
  }
  if (ctx.in_aggregate) {
    // The query an aggregate around it belongs to (PostgreSQL's
    // agglevelsup) follows what the subquery reads of this query and of
    // those around it, not of its own FROM.
    bool own = false;
    bool outer = ctx.outer_refs != nullptr && ctx.outer_refs->size() > outer_refs_before;
    for (int r : refs) (ctx.scope[static_cast<size_t>(r)].correlated ? outer : own) = true;
    reads_ = reads_before;
    if (own) ++reads_.own;
    if (outer) ++reads_.outer;
  }
  const size_t k = refs.size();
  PlanPtr sub = q.plan;
  if (sub->columns.size() != q.visible && !array) {
    return SqlUnsupported(sql_, node, "ORDER BY on a hidden column in a subquery");
  }
  std::vector<ExprPtr> sub_keys;
  for (size_t i = 0; i < k; ++i)
    sub_keys.push_back(MakeColumn(static_cast<int>(i), sub->columns[i].type));
  // Appends the columns of `p`, joined to the current rows on `lk` = `rk`.
  auto append = [&](const PlanPtr& p, std::vector<ExprPtr> lk, std::vector<ExprPtr> rk) {
    Extension x;
    x.sub = p;
    x.type = JoinType::kLeft;
    x.left_keys = std::move(lk);
    x.right_keys = std::move(rk);
    x.null_safe = true;  // an outer NULL is a value of the domain like any other
    x.domain = domain;
    x.domain_cols = refs;
    ctx.pending.push_back(x);
    int base = static_cast<int>(ctx.scope.size());
    for (const Column& c : p->columns) {
      ctx.scope.push_back({"", c.name, c.type.WithNullable(true), false, /*hidden=*/true});
    }
    return base;
  };
  auto project = [&](const PlanPtr& p, std::vector<ExprPtr> exprs) {
    std::vector<std::string> names;
    for (size_t i = 0; i < exprs.size(); ++i) names.push_back("c" + std::to_string(i));
    return MakeProject(p, std::move(exprs), std::move(names));
  };
  auto distinct = [](const PlanPtr& p) {
    auto d = std::make_shared<PlanNode>();
    d->kind = PlanKind::kDistinct;
    d->columns = p->columns;
    d->inputs = {p};
    return PlanPtr(d);
  };
  // The aggregates `aggs` (each with its column's name) of the subquery's rows
  // per domain value, after the domain's columns; with `global`, one row
  // even for no rows at all.
  auto per_domain = [&](std::vector<std::pair<AggCall, std::string>> aggs, bool global) {
    auto agg = std::make_shared<PlanNode>();
    agg->kind = PlanKind::kAggregate;
    agg->inputs = {sub};
    agg->group_keys = sub_keys;
    agg->global = global;
    for (size_t i = 0; i < k; ++i) agg->columns.push_back(sub->columns[i]);
    for (auto& [call, name] : aggs) {
      agg->columns.push_back({name, call.type});
      agg->aggs.push_back(std::move(call));
    }
    return PlanPtr(agg);
  };
  const ExprPtr kTrue = MakeLiteral(Value::Bool(true), SqlType::Boolean(false));
  const ExprPtr kFalse = MakeLiteral(Value::Bool(false), SqlType::Boolean(false));

  if (type == "EXPR_SUBLINK") {
    if (q.visible != k + 1) return SqlError(sql_, node, "subquery must return only one column");
    const SqlType vt = sub->columns[k].type.WithNullable(true);
    if (AtMostOneRowPerKey(*sub, k)) {
      int base = append(sub, outer_keys, sub_keys);
      return MakeColumn(base + static_cast<int>(k), vt);
    }
    // Rows and a value per domain value: more than one row is an error, as
    // in PostgreSQL (here, of the outer rows that see it).
    PlanPtr agg = per_domain(
        {{{AggKind::kCountStar, nullptr, SqlType::BigInt(false)}, "count"},
         {{AggKind::kMin, MakeColumn(static_cast<int>(k), sub->columns[k].type), vt}, "value"}},
        false);
    int base = append(agg, outer_keys, sub_keys);
    ExprPtr cnt = MakeColumn(base + static_cast<int>(k), SqlType::BigInt());
    SLUICE_ASSIGN_OR_RETURN(
        ExprPtr many, Call(">", {cnt, MakeLiteral(Value::Int(1), SqlType::BigInt(false))}, node));
    auto e = std::make_shared<Expr>(
        *MakeNode(ExprKind::kCase, vt,
                  {many, MakeCall(MoreThanOneRow, "scalar subquery", vt, {cnt}),
                   MakeColumn(base + static_cast<int>(k) + 1, vt)}));
    e->has_else = true;
    return ExprPtr(e);
  }
  if (type == "ARRAY_SUBLINK") {
    // ARRAY(subquery): the array_agg of its column per domain value, in its
    // ORDER BY (by the value itself), and an empty array where it has no row.
    if (q.visible != k + 1) return SqlError(sql_, node, "subquery must return only one column");
    const ExprPtr value = MakeColumn(static_cast<int>(k), sub->columns[k].type);
    AggSpec spec{AggKind::kArrayAgg, 0};
    auto at = AggOutputType(spec, {value->type});
    if (!at.ok()) return SqlError(sql_, node, at.status().message());
    AggCall call{AggKind::kArrayAgg, value, *at};
    if (!q.order.empty()) {
      // The array_agg of ROW(keys, value), in the keys' order, when they
      // run one way. ROW values put NULLs last ascending and first
      // descending, PostgreSQL's default; a key whose NULLs go the other
      // way is (key IS NOT NULL, key).
      call.desc = q.order[0].desc;
      std::vector<ExprPtr> keys;
      for (const SortKey& o : q.order) {
        if (o.desc != call.desc) {
          return SqlUnsupported(sql_, node,
                                "ARRAY(subquery) whose ORDER BY keys run different ways");
        }
        ExprPtr key = MakeColumn(o.column, sub->columns[static_cast<size_t>(o.column)].type);
        if (o.nulls_first != o.desc) {
          key = MakeRow({MakeNode(ExprKind::kIsNull, SqlType::Boolean(false), {key}, true), key});
        }
        keys.push_back(key);
      }
      if (keys.size() > 1 || Key(*keys[0]) != Key(*value)) {
        call.arg = MakeRow({keys.size() == 1 ? keys[0] : MakeRow(std::move(keys)), value});
        call.keyed_order = true;
      }
    }
    int base = append(per_domain({{call, "array"}}, k == 0), outer_keys, sub_keys);
    const SqlType t = at->WithNullable(false);
    return MakeNode(ExprKind::kCoalesce, t,
                    {MakeColumn(base + static_cast<int>(k), at->WithNullable(true)),
                     MakeLiteral(Value::List({}), t)});
  }
  if (type == "EXISTS_SUBLINK") {
    // The domain values that have a row, each with TRUE.
    std::vector<ExprPtr> cols = sub_keys;
    cols.push_back(kTrue);
    int base = append(distinct(project(sub, cols)), outer_keys, sub_keys);
    ExprPtr flag = MakeColumn(base + static_cast<int>(k), SqlType::Boolean());
    return MakeNode(ExprKind::kCoalesce, SqlType::Boolean(), {flag, kFalse});
  }
  // x IN (subquery): TRUE if a value matches; FALSE if the subquery has no
  // rows; NULL if x is NULL or the subquery has NULLs; otherwise FALSE.
  std::string op = body.contains("operName") ? Str(body["operName"].back()) : "=";
  const bool all = type == "ALL_SUBLINK";
  const size_t n = body["testexpr"].contains("RowExpr")
                       ? body["testexpr"]["RowExpr"].value("args", Json::array()).size()
                       : 1;
  if (q.visible < k + n) return SqlError(sql_, node, "subquery has too few columns");
  if (q.visible > k + n) return SqlError(sql_, node, "subquery has too many columns");
  if (n > 1 || op != "=" || all) {
    // x op ALL (subquery) is NOT (x negated-op ANY (subquery)).
    static const std::pair<const char*, const char*> kNegations[] = {
        {"=", "<>"}, {"<>", "="}, {"!=", "="}, {"<", ">="}, {">=", "<"}, {">", "<="}, {"<=", ">"}};
    std::string any_op;
    for (const auto& [a, b] : kNegations) {
      if (op == a) any_op = all ? b : (op == "!=" ? "<>" : a);
    }
    if (any_op.empty()) {
      const std::string shown = op == "~~"     ? "LIKE"
                                : op == "!~~"  ? "NOT LIKE"
                                : op == "~~*"  ? "ILIKE"
                                : op == "!~~*" ? "NOT ILIKE"
                                               : op;
      return SqlUnsupported(sql_, node, shown + (all ? " ALL" : " ANY") + " (subquery)");
    }
    Json rewritten = RowInSubquery(body, k > 0, any_op);
    if (rewritten.is_null()) {
      return SqlUnsupported(sql_, node, "This comparison with a subquery that reads outer columns",
                            "Qualify the compared columns by their tables (t.a), and make the "
                            "subquery a plain SELECT ... FROM ... WHERE.");
    }
    if (all) {
      rewritten =
          Json{{"BoolExpr",
                {{"boolop", "NOT_EXPR"}, {"args", Json::array({rewritten})}, {"location", -1}}}};
    }
    return BindExpr(rewritten, ctx);
  }
  if (q.visible != k + 1) return SqlError(sql_, node, "subquery has too many columns");
  // ROW(x) = ANY (subquery) compares x, as a row of more values compares
  // each, with the subquery's column.
  const Json& test = body["testexpr"].contains("RowExpr") && n == 1
                         ? body["testexpr"]["RowExpr"]["args"][0]
                         : body["testexpr"];
  SLUICE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(test, ctx));
  const SqlType yt = sub->columns[k].type;
  ExprPtr y = MakeColumn(static_cast<int>(k), yt);
  std::vector<ExprPtr> xy = {x, y};
  SLUICE_RETURN_IF_ERROR(Coerce("=", &xy, node).status());
  const ExprPtr xc = xy[0];
  const SqlType ct = xy[1]->type;
  // The distinct non-NULL values per domain value.
  std::vector<ExprPtr> vcols = sub_keys;
  vcols.push_back(MakeCast(y, ct));
  PlanPtr vals = project(sub, vcols);
  vals = MakeFilter(vals, MakeNode(ExprKind::kIsNull, SqlType::Boolean(),
                                   {MakeColumn(static_cast<int>(k), ct)}, true));
  std::vector<ExprPtr> lk = outer_keys, rk = sub_keys;
  lk.push_back(xc);
  rk.push_back(MakeColumn(static_cast<int>(k), ct));
  int mbase = append(distinct(vals), lk, rk);
  ExprPtr matched = MakeColumn(mbase + static_cast<int>(k), ct);
  // Rows and non-NULL values per domain value.
  int cbase = append(per_domain({{{AggKind::kCountStar, nullptr, SqlType::BigInt(false)}, "count"},
                                 {{AggKind::kCount, y, SqlType::BigInt(false)}, "count"}},
                                k == 0),
                     outer_keys, sub_keys);
  const ExprPtr zero = MakeLiteral(Value::Int(0), SqlType::BigInt(false));
  ExprPtr cnt = MakeNode(ExprKind::kCoalesce, SqlType::BigInt(),
                         {MakeColumn(cbase + static_cast<int>(k), SqlType::BigInt()), zero});
  ExprPtr cnt_nonnull =
      MakeNode(ExprKind::kCoalesce, SqlType::BigInt(),
               {MakeColumn(cbase + static_cast<int>(k) + 1, SqlType::BigInt()), zero});
  ExprPtr is_match = MakeNode(ExprKind::kIsNull, SqlType::Boolean(), {matched}, true);
  SLUICE_ASSIGN_OR_RETURN(ExprPtr empty, Call("=", {cnt, zero}, node));
  SLUICE_ASSIGN_OR_RETURN(ExprPtr has_nulls, Call("<", {cnt_nonnull, cnt}, node));
  ExprPtr x_null = MakeNode(ExprKind::kIsNull, SqlType::Boolean(), {xc});
  ExprPtr unknown = MakeNode(ExprKind::kOr, SqlType::Boolean(), {x_null, has_nulls});
  auto e =
      std::make_shared<Expr>(*MakeNode(ExprKind::kCase, SqlType::Boolean(),
                                       {is_match, kTrue, empty, kFalse, unknown,
                                        MakeLiteral(Value::Null(), SqlType::Boolean()), kFalse}));
  e->has_else = true;
  return ExprPtr(e);
}

}  // namespace sluice::sql::binding
