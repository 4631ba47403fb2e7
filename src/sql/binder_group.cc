// Binder's rewrites of grouped queries, each into a query that the binder
// binds as it is: GROUPING SETS, ROLLUP and CUBE into a UNION ALL of one
// GROUP BY per set (GROUPING() as its bits, windows over the sets' union);
// grouping keys that are set-returning calls or subqueries, computed below
// the groups; subqueries over the groups of a grouped query, over a grouped
// derived table; and aggregates of an enclosing query found in a subquery.
#include <map>
#include <optional>
#include <set>

#include "sql/binder.h"
#include "sql/binder_internal.h"

namespace sluice::sql {
namespace binding {

namespace {

using GroupingSetList = std::vector<std::vector<Json>>;

// The grouping sets one GROUP BY item stands for.
Result<GroupingSetList> ExpandGroupItem(std::string_view sql, const Json& item) {
  auto elements = [](const Json& content) {
    std::vector<std::vector<Json>> out;  // each: the expressions of one element
    for (const Json& c : content) {
      if (c.contains("RowExpr")) {
        out.push_back(c["RowExpr"].value("args", Json::array()).get<std::vector<Json>>());
      } else {
        out.push_back({c});
      }
    }
    return out;
  };
  if (item.contains("RowExpr")) {
    return GroupingSetList{item["RowExpr"].value("args", Json::array()).get<std::vector<Json>>()};
  }
  if (!item.contains("GroupingSet")) return GroupingSetList{{item}};
  const Json& g = item["GroupingSet"];
  const std::string kind = g.value("kind", "");
  const Json& content = g.value("content", Json::array());
  GroupingSetList out;
  if (kind == "GROUPING_SET_EMPTY") {
    out.push_back({});
  } else if (kind == "GROUPING_SET_SIMPLE") {
    std::vector<Json> set;
    for (const auto& e : elements(content)) set.insert(set.end(), e.begin(), e.end());
    out.push_back(set);
  } else if (kind == "GROUPING_SET_ROLLUP") {
    auto el = elements(content);
    for (size_t k = el.size() + 1; k-- > 0;) {
      std::vector<Json> set;
      for (size_t i = 0; i < k; ++i) set.insert(set.end(), el[i].begin(), el[i].end());
      out.push_back(set);
    }
  } else if (kind == "GROUPING_SET_CUBE") {
    auto el = elements(content);
    if (el.size() > 12) return SqlError(sql, item, "CUBE is limited to 12 elements");
    for (size_t mask = (size_t{1} << el.size()); mask-- > 0;) {
      std::vector<Json> set;
      for (size_t i = 0; i < el.size(); ++i) {
        if (mask & (size_t{1} << (el.size() - 1 - i)))
          set.insert(set.end(), el[i].begin(), el[i].end());
      }
      out.push_back(set);
    }
  } else if (kind == "GROUPING_SET_SETS") {
    for (const Json& c : content) {
      SLUICE_ASSIGN_OR_RETURN(GroupingSetList sub, ExpandGroupItem(sql, c));
      out.insert(out.end(), sub.begin(), sub.end());
    }
  } else {
    return SqlUnsupported(sql, item, kind);
  }
  return out;
}

// GROUPING(args) for a grouping set: a bit per argument, 1 where the
// argument is not in the set.
Json GroupingBits(const Json& call, const std::set<std::string>& in_set) {
  int64_t bits = 0;
  for (const Json& a : call.value("args", Json::array()))
    bits = bits * 2 + (in_set.count(Canonical(a)) ? 0 : 1);
  Json c;
  c["A_Const"]["ival"]["ival"] = bits;
  c["A_Const"]["location"] = call.value("location", -1);
  return c;
}

// The expressions a GROUP BY item groups by, in any of its sets.
void CollectGroupExprs(const Json& item, std::set<std::string>* out) {
  if (item.contains("GroupingSet")) {
    for (const Json& c : item["GroupingSet"].value("content", Json::array()))
      CollectGroupExprs(c, out);
    return;
  }
  if (item.contains("RowExpr")) {
    for (const Json& a : item["RowExpr"].value("args", Json::array())) CollectGroupExprs(a, out);
  }
  out->insert(Canonical(item));
}

// A subquery of a query being expanded into grouping sets: its GROUPING()
// calls of that query's grouping expressions (outer references, constant
// per group, as in PostgreSQL) become their bits for the set. A call of
// expressions that a subquery's own GROUP BY has (`shadowed`) is its own.
Json ForGroupingSetInSubquery(const Json& n, const std::set<std::string>& all,
                              const std::set<std::string>& in_set,
                              const std::set<std::string>& shadowed) {
  if (n.is_array()) {
    Json out = Json::array();
    for (const Json& x : n) out.push_back(ForGroupingSetInSubquery(x, all, in_set, shadowed));
    return out;
  }
  if (!n.is_object()) return n;
  if (n.contains("GroupingFunc")) {
    const Json& args = n["GroupingFunc"].value("args", Json::array());
    bool outer = !args.empty();
    for (const Json& a : args) {
      const std::string key = Canonical(a);
      outer &= all.count(key) > 0 && shadowed.count(key) == 0;
    }
    if (outer) return GroupingBits(n["GroupingFunc"], in_set);
    return n;
  }
  if (n.contains("SelectStmt") && n["SelectStmt"].contains("groupClause")) {
    std::set<std::string> inner = shadowed;
    for (const Json& g : n["SelectStmt"]["groupClause"]) CollectGroupExprs(g, &inner);
    Json out = Json::object();
    for (auto it = n.begin(); it != n.end(); ++it)
      out[it.key()] = ForGroupingSetInSubquery(it.value(), all, in_set, inner);
    return out;
  }
  Json out = Json::object();
  for (auto it = n.begin(); it != n.end(); ++it)
    out[it.key()] = ForGroupingSetInSubquery(it.value(), all, in_set, shadowed);
  return out;
}

// A GROUPING() call in the arguments of an aggregate call in `n` (outside
// subqueries), or null.
const Json* GroupingInAggregate(const Json& n, bool in_aggregate = false) {
  if (n.is_array()) {
    for (const Json& x : n) {
      if (const Json* g = GroupingInAggregate(x, in_aggregate)) return g;
    }
    return nullptr;
  }
  if (!n.is_object() || n.contains("SubLink")) return nullptr;
  if (in_aggregate && n.contains("GroupingFunc")) return &n;
  if (n.contains("FuncCall") && !n["FuncCall"].contains("over")) {
    const Json& names = n["FuncCall"]["funcname"];
    in_aggregate |=
        IsWithinGroupCall(n["FuncCall"]) || (!names.empty() && IsAggregateName(Str(names.back())));
  }
  for (auto it = n.begin(); it != n.end(); ++it) {
    if (const Json* g = GroupingInAggregate(it.value(), in_aggregate)) return g;
  }
  return nullptr;
}

// Whether a subquery in `n` calls GROUPING() of grouping expressions of
// the query (`all`), which ForGroupingSetInSubquery replaces.
bool HasOuterGroupingFunc(const Json& n, const std::set<std::string>& all,
                          const std::set<std::string>& shadowed) {
  if (n.is_array()) {
    for (const Json& x : n) {
      if (HasOuterGroupingFunc(x, all, shadowed)) return true;
    }
    return false;
  }
  if (!n.is_object()) return false;
  if (n.contains("GroupingFunc")) {
    return ForGroupingSetInSubquery(n, all, {}, shadowed) != n;
  }
  std::set<std::string> inner = shadowed;
  if (n.contains("SelectStmt") && n["SelectStmt"].contains("groupClause")) {
    for (const Json& g : n["SelectStmt"]["groupClause"]) CollectGroupExprs(g, &inner);
  }
  for (auto it = n.begin(); it != n.end(); ++it) {
    if (HasOuterGroupingFunc(it.value(), all, inner)) return true;
  }
  return false;
}

// NULLIF(n, n): a NULL of n's type that reads n.
Json NullIfSelf(const Json& n) {
  Json expr;
  expr["A_Expr"]["kind"] = "AEXPR_NULLIF";
  expr["A_Expr"]["name"] = Json::array({Json{{"String", {{"sval", "="}}}}});
  expr["A_Expr"]["lexpr"] = n;
  expr["A_Expr"]["rexpr"] = n;
  return expr;
}

// The direct arguments of an ordered-set aggregate (rank(a) WITHIN GROUP
// ...) for one grouping set: a grouping expression that the set leaves out
// is NULL there, as NULLIF(x, x) (they are read with the group's rows).
Json DirectArgsForGroupingSet(const Json& n, const std::set<std::string>& all,
                              const std::set<std::string>& in_set) {
  if (n.is_array()) {
    Json out = Json::array();
    for (const Json& x : n) out.push_back(DirectArgsForGroupingSet(x, all, in_set));
    return out;
  }
  if (!n.is_object()) return n;
  const std::string key = Canonical(n);
  if (in_set.count(key)) return n;
  if (all.count(key) && !n.contains("A_Const")) return NullIfSelf(n);
  Json out = Json::object();
  for (auto it = n.begin(); it != n.end(); ++it)
    out[it.key()] = DirectArgsForGroupingSet(it.value(), all, in_set);
  return out;
}

// Rewrites `n` for one grouping set: a grouping expression outside the set
// becomes a NULL of its type (MIN(NULLIF(e, e)): an aggregate, so the query
// stays grouped), GROUPING(...) its bits; aggregates' arguments stay as they
// are, and so do subqueries but for their GROUPING() of this query's
// grouping expressions.
Json ForGroupingSet(const Json& n, const std::set<std::string>& all,
                    const std::set<std::string>& in_set) {
  if (n.is_array()) {
    Json out = Json::array();
    for (const Json& x : n) out.push_back(ForGroupingSet(x, all, in_set));
    return out;
  }
  if (!n.is_object()) return n;
  if (n.contains("SortBy")) return n;
  if (n.contains("SubLink")) return ForGroupingSetInSubquery(n, all, in_set, {});
  if (n.contains("FuncCall")) {
    const Json& names = n["FuncCall"]["funcname"];
    if (!names.empty() && IsWithinGroupCall(n["FuncCall"]) && !n["FuncCall"].contains("over") &&
        n["FuncCall"].contains("args")) {
      // A hypothetical-set aggregate reads its direct arguments with each
      // row; percentile_disc and percentile_cont read theirs once per group.
      const std::string f = Str(names.back());
      const bool per_row =
          f == "rank" || f == "dense_rank" || f == "percent_rank" || f == "cume_dist";
      Json out = n;
      out["FuncCall"]["args"] = per_row
                                    ? DirectArgsForGroupingSet(n["FuncCall"]["args"], all, in_set)
                                    : ForGroupingSet(n["FuncCall"]["args"], all, in_set);
      return out;
    }
    if (!names.empty() &&
        (IsAggregateName(Str(names.back())) || IsWithinGroupCall(n["FuncCall"])) &&
        !n["FuncCall"].contains("over"))
      return n;
  }
  if (n.contains("GroupingFunc")) return GroupingBits(n["GroupingFunc"], in_set);
  std::string key = Canonical(n);
  // A grouping expression of this set is grouped whole: (x + y) stays
  // when x is not in the set.
  if (in_set.count(key)) return n;
  if (all.count(key) && !n.contains("A_Const")) {
    const Json expr = NullIfSelf(n);
    Json call;
    call["FuncCall"]["funcname"] = Json::array({Json{{"String", {{"sval", "min"}}}}});
    call["FuncCall"]["args"] = Json::array({expr});
    call["FuncCall"]["funcformat"] = "COERCE_EXPLICIT_CALL";
    return call;
  }
  Json out = Json::object();
  for (auto it = n.begin(); it != n.end(); ++it)
    out[it.key()] = ForGroupingSet(it.value(), all, in_set);
  return out;
}

}  // namespace

namespace {

// Whether `n` calls GROUPING() outside subqueries.
bool ContainsGroupingFunc(const Json& n) {
  if (n.is_array()) {
    for (const Json& x : n) {
      if (ContainsGroupingFunc(x)) return true;
    }
    return false;
  }
  if (!n.is_object() || n.contains("SubLink")) return false;
  if (n.contains("GroupingFunc")) return true;
  for (auto it = n.begin(); it != n.end(); ++it) {
    if (ContainsGroupingFunc(it.value())) return true;
  }
  return false;
}

}  // namespace

std::optional<std::string> FromItemName(const Json& item) {
  auto [kind, body] = Node(item);
  if (body->contains("alias")) return (*body)["alias"].value("aliasname", "");
  if (kind == "RangeVar") return body->value("relname", "");
  return std::nullopt;
}

// GROUP BY GROUPING SETS (1, 2): each integer constant in `item` is the
// select list's expression at that position, as in a plain GROUP BY; and
// a bare name that no FROM item's column has (`inputs`, when known) is the
// select list's expression of that name.
// `used` maps the text of each select list expression that an item became
// to its position. Grouping expressions are matched by their text, but
// PostgreSQL keeps two items of the same text apart (GROUP BY alias1,
// ROLLUP(alias2) of `g AS alias1, g AS alias2`), and a constant apart from
// every other copy of it (NULL in the sets without it): such an item
// becomes COALESCE(item), in `targets` too, a text of its own.
Status ResolveGroupOrdinals(std::string_view sql, Json* targets,
                            const std::optional<std::set<std::string>>& inputs, Json* item,
                            bool* changed, std::map<std::string, size_t>* used) {
  if (item->is_array()) {
    for (Json& x : *item)
      SLUICE_RETURN_IF_ERROR(ResolveGroupOrdinals(sql, targets, inputs, &x, changed, used));
    return Status::OK();
  }
  auto resolve = [&](size_t at) -> Status {
    Json& val = (*targets)[at]["ResTarget"]["val"];
    auto text_of = [](const Json& v) {
      Json text = v;
      DropLocations(&text);
      return text.dump();
    };
    auto taken = [&](const Json& v) {
      auto it = used->find(text_of(v));
      return it != used->end() && it->second != at;
    };
    while (val.contains("A_Const") || taken(val)) {
      val = Json{{"CoalesceExpr", {{"args", Json::array({val})}, {"location", -1}}}};
    }
    used->emplace(text_of(val), at);
    *item = val;
    *changed = true;
    return Status::OK();
  };
  if (!item->is_object()) return Status::OK();
  if (inputs && item->contains("ColumnRef") && (*item)["ColumnRef"]["fields"].size() == 1 &&
      (*item)["ColumnRef"]["fields"][0].contains("String")) {
    const std::string name = Str((*item)["ColumnRef"]["fields"][0]);
    if (inputs->count(name)) return Status::OK();
    for (size_t i = 0; i < targets->size(); ++i) {
      const Json& t = (*targets)[i];
      if (!t.contains("ResTarget") || t["ResTarget"].value("name", "") != name) continue;
      return resolve(i);
    }
    return Status::OK();
  }
  if (item->contains("A_Const") && (*item)["A_Const"].contains("ival")) {
    const int64_t n = (*item)["A_Const"]["ival"].value("ival", int64_t{0});
    if (n < 1 || n > static_cast<int64_t>(targets->size())) {
      return SqlError(sql, *item,
                      "GROUP BY position " + std::to_string(n) + " is not in select list");
    }
    return resolve(static_cast<size_t>(n - 1));
  }
  for (const char* k : {"GroupingSet", "RowExpr"}) {
    if (!item->contains(k)) continue;
    Json& body = (*item)[k];
    for (const char* list : {"content", "args"}) {
      if (body.contains(list)) {
        SLUICE_RETURN_IF_ERROR(
            ResolveGroupOrdinals(sql, targets, inputs, &body[list], changed, used));
      }
    }
  }
  return Status::OK();
}

std::optional<std::set<std::string>> Binder::FromColumnNames(const Json& from) const {
  std::set<std::string> names;
  auto aliased = [&](const Json& item) {
    if (!item.contains("alias") || !item["alias"].contains("colnames")) return false;
    for (const Json& c : item["alias"]["colnames"]) names.insert(Str(c));
    return true;
  };
  for (const Json& f : from) {
    auto [kind, item] = Node(f);
    if (kind == "RangeVar") {
      if (aliased(*item)) continue;
      const std::string rel = item->value("relname", "");
      const PlanNode* plan = nullptr;
      for (auto it = ctes_.rbegin(); it != ctes_.rend() && plan == nullptr; ++it) {
        if (it->first == rel) plan = it->second.plan.get();
      }
      if (plan == nullptr) {
        if (const ViewDef* v = catalog_.FindView(rel)) plan = v->query.plan.get();
      }
      if (plan != nullptr) {
        for (const Column& c : plan->columns) names.insert(c.name);
      } else if (const TableDef* t = catalog_.FindTable(rel)) {
        for (const auto& c : t->columns) names.insert(c.name);
      } else {
        return std::nullopt;
      }
    } else if (kind == "RangeSubselect") {
      if (aliased(*item)) continue;
      const Json& sub = (*item)["subquery"]["SelectStmt"];
      if (!sub.contains("targetList")) return std::nullopt;
      for (const Json& t : sub["targetList"]) {
        const Json& r = t["ResTarget"];
        if (r.contains("name")) {
          names.insert(Str(r["name"]));
          continue;
        }
        auto [vk, v] = Node(r["val"]);
        if (vk != "ColumnRef" || !(*v)["fields"].back().contains("String")) return std::nullopt;
        names.insert(Str((*v)["fields"].back()));
      }
    } else if (kind == "RangeFunction") {
      if (aliased(*item)) continue;
      // Functions of one column, named by the alias or the function.
      const Json& fns = item->value("functions", Json::array());
      if (fns.size() != 1 || item->value("ordinality", false)) return std::nullopt;
      if (!fns[0].is_object() || !fns[0].contains("List")) return std::nullopt;
      const Json items = fns[0]["List"].value("items", Json::array());
      if (items.empty() || !items[0].is_object() || !items[0].contains("FuncCall"))
        return std::nullopt;
      const Json& call = items[0];
      const std::string fn = Str(call["FuncCall"]["funcname"].back());
      if (fn != "generate_series" && fn != "unnest") return std::nullopt;
      if (fn == "unnest" && call["FuncCall"].value("args", Json::array()).size() != 1)
        return std::nullopt;
      names.insert(item->contains("alias") ? (*item)["alias"].value("aliasname", fn) : fn);
    } else if (kind == "JoinExpr") {
      if (aliased(*item)) continue;
      for (const char* side : {"larg", "rarg"}) {
        std::optional<std::set<std::string>> sub = FromColumnNames(Json::array({(*item)[side]}));
        if (!sub) return std::nullopt;
        names.insert(sub->begin(), sub->end());
      }
    } else {
      return std::nullopt;
    }
  }
  return names;
}

void ReplaceByColumns(Json* n, const std::map<std::string, std::string>& columns) {
  if (!n->is_object() && !n->is_array()) return;
  if (n->is_object()) {
    auto it = columns.find(Canonical(*n));
    if (it != columns.end()) {
      *n = Json{{"ColumnRef",
                 {{"fields", Json::array({Json{{"String", {{"sval", it->second}}}}})},
                  {"location", -1}}}};
      return;
    }
    if (n->contains("SubLink")) return;  // its own query's expressions
  }
  for (Json& v : *n) ReplaceByColumns(&v, columns);
}

namespace {

bool SubqueryOutsideAggregates(const Json& n);

// The grouping keys of `n` (a GROUP BY list, with its grouping sets) that
// hold a subquery outside aggregates.
void CollectSubqueryKeys(const Json& n, std::vector<const Json*>* out) {
  if (n.is_array()) {
    for (const Json& v : n) CollectSubqueryKeys(v, out);
    return;
  }
  if (!n.is_object()) return;
  for (const auto& [kind, list] : {std::pair{"GroupingSet", "content"}, {"RowExpr", "args"}}) {
    auto it = n.find(kind);
    if (it == n.end()) continue;
    if (auto items = it->find(list); items != it->end()) CollectSubqueryKeys(*items, out);
    return;
  }
  if (SubqueryOutsideAggregates(n)) out->push_back(&n);
}

}  // namespace

// PostgreSQL evaluates a set-returning function that a GROUP BY key calls
// below the grouping (a ProjectSet under the Agg): each input row yields one
// row per value of the call, and the groups are formed over those rows. So
// `SELECT f(x) AS g, count(*) FROM t WHERE w GROUP BY 1` is
// `SELECT "?srf0" AS g, count(*) FROM (SELECT *, f(x) AS "?srf0" FROM t
// WHERE w) t GROUP BY "?srf0"`, the derived table named as the only FROM item
// was, so that the rest of the query reads its columns as before. A key that
// is a subquery (correlated with the row, as `(SELECT t2.v FROM t2 WHERE
// t2.id = t.id)`) is computed below the groups the same way, as
// PostgreSQL's subplan in the Agg's input.
Result<std::optional<Json>> Binder::SetCallsUnderGroups(const Json& s) {
  if (!s.contains("groupClause") || !s.contains("targetList")) return std::optional<Json>();
  Json resolved = s;
  bool changed = false;
  std::map<std::string, size_t> used;
  SLUICE_RETURN_IF_ERROR(ResolveGroupOrdinals(sql_, &resolved["targetList"],
                                              FromColumnNames(s.value("fromClause", Json::array())),
                                              &resolved["groupClause"], &changed, &used));
  std::vector<const Json*> calls;
  CollectSetCalls(resolved["groupClause"], &calls);
  const size_t set_calls = calls.size();
  CollectSubqueryKeys(resolved["groupClause"], &calls);
  if (calls.empty()) return std::optional<Json>();
  const std::string what =
      set_calls > 0 ? "A set-returning function in GROUP BY" : "A subquery in GROUP BY";
  const Json from = s.value("fromClause", Json::array());
  if (from.size() > 1) return SqlUnsupported(sql_, *calls[0], what + " over several FROM items");
  std::string name = "?srf";
  if (from.size() == 1) {
    std::optional<std::string> known = FromItemName(from[0]);
    if (!known) return SqlUnsupported(sql_, *calls[0], what + " over an unnamed FROM item");
    name = *known;
  }
  std::map<std::string, std::string> columns;  // the call's text -> its column
  Json targets = Json::array();
  if (!from.empty()) targets.push_back(StarTarget());
  for (size_t i = 0; i < calls.size(); ++i) {
    const Json* c = calls[i];
    const std::string text = Canonical(*c);
    if (columns.count(text)) continue;
    const std::string column = (i < set_calls ? "?srf" : "?sq") + std::to_string(columns.size());
    columns[text] = column;
    targets.push_back(Json{{"ResTarget", {{"name", column}, {"val", *c}}}});
  }
  Json inner = {{"targetList", std::move(targets)},
                {"limitOption", "LIMIT_OPTION_DEFAULT"},
                {"op", "SETOP_NONE"}};
  if (!from.empty()) inner["fromClause"] = from;
  if (s.contains("whereClause")) inner["whereClause"] = s["whereClause"];
  Json outer = resolved;
  outer.erase("whereClause");
  // The computed keys are the derived table's own: * and t.* show the FROM
  // item's columns alone.
  Json no_star = Json::array();
  for (const auto& [text, column] : columns) no_star.push_back(column);
  outer["fromClause"] = Json::array({Json{{"RangeSubselect",
                                           {{"subquery", {{"SelectStmt", std::move(inner)}}},
                                            {"alias", {{"aliasname", name}}},
                                            {kNoStarColumns, std::move(no_star)}}}}});
  for (const char* k : {"targetList", "groupClause", "havingClause", "sortClause"}) {
    if (outer.contains(k)) ReplaceByColumns(&outer[k], columns);
  }
  return std::optional<Json>(std::move(outer));
}

Result<std::optional<Json>> Binder::ExpandGroupingSets(const Json& s) {
  bool sets = false;
  for (const Json& g : s.value("groupClause", Json::array())) sets |= g.contains("GroupingSet");
  if (sets && s.contains("targetList")) {
    Json resolved = s;
    bool changed = false;
    std::map<std::string, size_t> used;
    SLUICE_RETURN_IF_ERROR(ResolveGroupOrdinals(
        sql_, &resolved["targetList"], FromColumnNames(s.value("fromClause", Json::array())),
        &resolved["groupClause"], &changed, &used));
    if (changed) return ExpandResolvedGroupingSets(resolved);
  }
  return ExpandResolvedGroupingSets(s);
}

namespace {

// Whether `s`'s ORDER BY has an item that is neither an output column's
// name nor a position: over a UNION of grouping sets, only those are.
bool SortsByExpression(const Json& s) {
  std::set<std::string> names;
  for (const Json& t : s.value("targetList", Json::array())) {
    if (t.contains("ResTarget")) names.insert(Binder::OutputName(t["ResTarget"]));
  }
  for (const Json& sb : s.value("sortClause", Json::array())) {
    const Json& n = sb["SortBy"]["node"];
    if (n.contains("A_Const") && n["A_Const"].contains("ival")) continue;
    if (n.contains("ColumnRef") && n["ColumnRef"]["fields"].size() == 1 &&
        n["ColumnRef"]["fields"][0].contains("String") &&
        names.count(n["ColumnRef"]["fields"][0]["String"].value("sval", ""))) {
      continue;
    }
    return true;
  }
  return false;
}

}  // namespace

Result<std::optional<Json>> Binder::ExpandResolvedGroupingSets(const Json& s) {
  const Json& group = s.value("groupClause", Json::array());
  bool any = false;
  for (const Json& g : group) any |= g.contains("GroupingSet");
  // GROUPING() over a plain GROUP BY: one set, of every key.
  std::set<std::string> group_exprs;
  for (const Json& g : group) CollectGroupExprs(g, &group_exprs);
  for (const char* k : {"targetList", "havingClause", "sortClause"}) {
    any |= !group.empty() && s.contains(k) &&
           (ContainsGroupingFunc(s[k]) || HasOuterGroupingFunc(s[k], group_exprs, {}));
  }
  if (!any) return std::optional<Json>();
  for (const char* k : {"targetList", "havingClause", "sortClause"}) {
    if (const Json* g = s.contains(k) ? GroupingInAggregate(s[k]) : nullptr) {
      return SqlUnsupported(sql_, *g, "GROUPING() in an aggregate's arguments");
    }
  }
  // The cross product of the items' sets.
  GroupingSetList sets = {{}};
  for (const Json& g : group) {
    SLUICE_ASSIGN_OR_RETURN(GroupingSetList item, ExpandGroupItem(sql_, g));
    GroupingSetList next;
    for (const auto& a : sets) {
      for (const auto& b : item) {
        auto c = a;
        c.insert(c.end(), b.begin(), b.end());
        next.push_back(std::move(c));
      }
    }
    if (next.size() > 4096) return SqlError(sql_, s["groupClause"][0], "too many grouping sets");
    sets = std::move(next);
  }
  if (s.value("groupDistinct", false)) {
    // GROUP BY DISTINCT: each set of grouping expressions once, whatever
    // their order and repetitions.
    std::set<std::set<std::string>> seen;
    GroupingSetList unique;
    for (auto& set : sets) {
      std::set<std::string> key;
      for (const Json& e : set) key.insert(Canonical(e));
      if (seen.insert(std::move(key)).second) unique.push_back(std::move(set));
    }
    sets = std::move(unique);
  }
  std::set<std::string> all;
  std::vector<Json> keys;
  for (const auto& set : sets) {
    for (const Json& e : set) {
      if (all.insert(Canonical(e)).second) keys.push_back(e);
    }
  }
  if (s.contains("targetList")) {
    // Windows run over the union of every set's groups, not per set; an
    // ORDER BY expression that is not an output column reads them too.
    std::vector<const Json*> calls;
    CollectWindowCalls(s["targetList"], &calls);
    if (!calls.empty() || SortsByExpression(s)) {
      return std::optional<Json>(WindowsOverGroupingSets(s, keys));
    }
  }
  // SELECT DISTINCT applies across the sets' rows: each branch's DISTINCT
  // and a UNION (not ALL) of the branches.
  bool distinct = false;
  if (s.contains("distinctClause")) {
    for (const Json& d : s["distinctClause"]) {
      if (!d.is_null() && !d.empty()) {
        return SqlUnsupported(sql_, d, "DISTINCT ON in a query with GROUPING SETS");
      }
    }
    distinct = true;
  }
  // One grouped query per set, as UNION ALL; the ORDER BY and LIMIT apply
  // to the whole.
  Json branch_base = s;
  for (const char* k : {"sortClause", "limitCount", "limitOffset", "limitOption", "withClause"})
    branch_base.erase(k);
  std::optional<Json> tree;
  for (const auto& set : sets) {
    std::set<std::string> in_set;
    Json clause = Json::array();
    for (const Json& e : set) {
      if (in_set.insert(Canonical(e)).second) clause.push_back(e);
    }
    Json b = branch_base;
    b.erase("groupClause");
    if (!clause.empty()) b["groupClause"] = clause;
    b["targetList"] = ForGroupingSet(s["targetList"], all, in_set);
    // A key outside the set becomes an expression: it keeps its name.
    for (size_t i = 0; i < b["targetList"].size(); ++i) {
      const Json& original = s["targetList"][i];
      if (!original.contains("ResTarget") || original["ResTarget"].contains("name")) continue;
      auto [kind, body] = Node(original["ResTarget"]["val"]);
      if (kind == "ColumnRef" && (*body)["fields"].back().contains("A_Star")) continue;
      b["targetList"][i]["ResTarget"]["name"] = OutputName(original["ResTarget"]);
    }
    if (s.contains("havingClause")) {
      b["havingClause"] = ForGroupingSet(s["havingClause"], all, in_set);
    } else if (clause.empty()) {
      // The empty set is one group, also for a select list without
      // aggregates (HAVING TRUE keeps the branch grouped).
      b["havingClause"] = Json{{"A_Const", {{"boolval", {{"boolval", true}}}, {"location", -1}}}};
    }
    if (!tree) {
      tree = b;
      continue;
    }
    Json u;
    u["op"] = "SETOP_UNION";
    u["all"] = !distinct;
    u["larg"] = *tree;
    u["rarg"] = b;
    u["limitOption"] = "LIMIT_OPTION_DEFAULT";
    tree = u;
  }
  for (const char* k : {"sortClause", "limitCount", "limitOffset", "limitOption", "withClause"}) {
    if (s.contains(k)) (*tree)[k] = s[k];
  }
  return tree;
}

namespace {

Json GroupColumn(const std::string& table, const std::string& name) {
  return Json{{"ColumnRef",
               {{"fields", Json::array({Json{{"String", {{"sval", table}}}},
                                        Json{{"String", {{"sval", name}}}}})},
                {"location", -1}}}};
}

bool IsAggregateNode(const Json& n) {
  return n.contains("GroupingFunc") || (n.contains("FuncCall") && !n["FuncCall"].contains("over") &&
                                        (IsAggregateName(Str(n["FuncCall"]["funcname"].back())) ||
                                         IsWithinGroupCall(n["FuncCall"])));
}

// Whether every column `n` reads is qualified by `table` (and it reads some).
bool OnlyColumnsOf(const Json& n, const std::string& table, bool* any) {
  if (n.is_array()) {
    for (const Json& x : n) {
      if (!OnlyColumnsOf(x, table, any)) return false;
    }
    return true;
  }
  if (!n.is_object()) return true;
  if (n.contains("ColumnRef")) {
    const Json& fields = n["ColumnRef"]["fields"];
    *any = true;
    return fields.size() == 2 && Str(fields[0]) == table;
  }
  for (auto it = n.begin(); it != n.end(); ++it) {
    if (!OnlyColumnsOf(it.value(), table, any)) return false;
  }
  return true;
}

// A grouped query seen from above: the derived table `table` of its keys
// (`keys`: each key's parse tree, as Canonical, to its column) and of the
// aggregates found so far (`aggs`, column "?a<i>").
struct GroupedTable {
  std::string table;
  std::map<std::string, std::string> keys;
  std::vector<Json> aggs;
  std::map<std::string, std::string> agg_cols;
  std::set<std::string> enclosing;  // aggregates of subqueries that are the query's

  Json AggColumn(const Json& n) {
    const std::string key = Canonical(n);
    auto it = agg_cols.find(key);
    if (it == agg_cols.end()) {
      it = agg_cols.emplace(key, "?a" + std::to_string(aggs.size())).first;
      aggs.push_back(n);
    }
    return GroupColumn(table, it->second);
  }
};

// `n` with the grouping keys and the aggregates replaced by the columns of
// the derived table that computes them. Inside a subquery only the
// aggregates of the grouped query's own columns (all qualified by its
// table's name) are replaced, as PostgreSQL gives an aggregate to the query
// whose columns it reads; the subquery's other references find the derived
// table's columns by their names.
Json OntoGroups(const Json& n, GroupedTable* g, bool in_subquery = false) {
  if (n.is_array()) {
    Json out = Json::array();
    for (const Json& x : n) out.push_back(OntoGroups(x, g, in_subquery));
    return out;
  }
  if (!n.is_object()) return n;
  if (n.contains("SubLink")) {
    // `x = ANY (SELECT ...)`: x is the enclosing query's expression, its
    // aggregates the groups'.
    Json out = n;
    if (n["SubLink"].contains("testexpr")) {
      out["SubLink"]["testexpr"] = OntoGroups(n["SubLink"]["testexpr"], g, in_subquery);
    }
    if (g->table == "?gs") return out;
    out["SubLink"]["subselect"] = OntoGroups(n["SubLink"]["subselect"], g, true);
    return out;
  }
  if (IsAggregateNode(n)) {
    bool any = false;
    if (!in_subquery || (OnlyColumnsOf(n, g->table, &any) && any) ||
        g->enclosing.count(Canonical(n))) {
      return g->AggColumn(n);
    }
    return n;
  }
  if (!in_subquery) {
    if (auto it = g->keys.find(Canonical(n)); it != g->keys.end()) {
      return GroupColumn(g->table, it->second);
    }
  }
  Json out = Json::object();
  for (auto it = n.begin(); it != n.end(); ++it)
    out[it.key()] = OntoGroups(it.value(), g, in_subquery);
  return out;
}

// Whether `n` has a subquery outside the arguments of aggregates.
bool SubqueryOutsideAggregates(const Json& n) {
  if (n.is_array()) {
    for (const Json& x : n) {
      if (SubqueryOutsideAggregates(x)) return true;
    }
    return false;
  }
  if (!n.is_object()) return false;
  if (n.contains("SubLink")) return true;
  if (IsAggregateNode(n)) return false;
  for (auto it = n.begin(); it != n.end(); ++it) {
    if (SubqueryOutsideAggregates(it.value())) return true;
  }
  return false;
}

// The grouped query `s` as the derived table of `g` (its keys' columns are
// named by g->keys, its aggregates by g->aggs) and the query above it, whose
// select list, WHERE (the grouped query's HAVING), ORDER BY, DISTINCT and
// WINDOW clauses are `s`'s onto the derived table.
Json OverGroupedTable(const Json& s, const std::vector<Json>& keys, GroupedTable* g) {
  Json outer;
  outer["op"] = "SETOP_NONE";
  outer["targetList"] = Json::array();
  for (const Json& t : s["targetList"]) {
    Json r = t;
    r["ResTarget"]["val"] = OntoGroups(t["ResTarget"]["val"], g);
    if (!t["ResTarget"].contains("name"))
      r["ResTarget"]["name"] = Binder::OutputName(t["ResTarget"]);
    outer["targetList"].push_back(r);
  }
  for (const char* k : {"sortClause", "windowClause", "distinctClause"}) {
    if (s.contains(k)) outer[k] = OntoGroups(s[k], g);
  }
  if (s.contains("havingClause")) outer["whereClause"] = OntoGroups(s["havingClause"], g);
  for (const char* k : {"limitCount", "limitOffset", "limitOption", "withClause"}) {
    if (s.contains(k)) outer[k] = s[k];
  }
  if (!outer.contains("limitOption")) outer["limitOption"] = "LIMIT_OPTION_DEFAULT";
  Json inner_targets = Json::array();
  std::map<std::string, const Json*> by_column;
  for (const Json& k : keys) by_column[g->keys.at(Canonical(k))] = &k;
  for (const auto& [name, k] : by_column) {
    inner_targets.push_back(Json{{"ResTarget", {{"val", *k}, {"name", name}, {"location", -1}}}});
  }
  for (size_t i = 0; i < g->aggs.size(); ++i) {
    inner_targets.push_back(
        Json{{"ResTarget",
              {{"val", g->aggs[i]}, {"name", "?a" + std::to_string(i)}, {"location", -1}}}});
  }
  Json inner = s;
  for (const char* k : {"sortClause", "windowClause", "distinctClause", "limitCount", "limitOffset",
                        "withClause", "havingClause"}) {
    inner.erase(k);
  }
  inner["limitOption"] = "LIMIT_OPTION_DEFAULT";
  inner["targetList"] = inner_targets;
  if (!inner.contains("groupClause") && g->aggs.empty()) {
    // One group of all rows (HAVING without aggregates): still one group.
    inner["havingClause"] = Json{{"A_Const", {{"boolval", {{"boolval", true}}}, {"location", -1}}}};
  }
  outer["fromClause"] = Json::array(
      {Json{{"RangeSubselect",
             {{"subquery", {{"SelectStmt", inner}}}, {"alias", {{"aliasname", g->table}}}}}}});
  return outer;
}

}  // namespace

// Window functions over GROUPING SETS: the grouped query becomes a derived
// table of its keys and aggregates (one UNION ALL of the sets, as without
// windows), and the select list, its windows and the ORDER BY read it.
Json Binder::WindowsOverGroupingSets(const Json& s, const std::vector<Json>& keys) {
  GroupedTable g;
  g.table = "?gs";
  for (size_t i = 0; i < keys.size(); ++i) g.keys[Canonical(keys[i])] = "?k" + std::to_string(i);
  return OverGroupedTable(s, keys, &g);
}

namespace {

// One query among those around an aggregate: the names its FROM items go
// by, and their columns (nullopt: not known before binding).
struct QueryLevel {
  std::set<std::string> tables;
  std::optional<std::set<std::string>> columns;
};

void FromItemNames(const Json& item, std::set<std::string>* out) {
  if (std::optional<std::string> name = FromItemName(item)) {
    out->insert(*name);
    return;
  }
  if (item.contains("JoinExpr")) {
    for (const char* side : {"larg", "rarg"}) FromItemNames(item["JoinExpr"][side], out);
  }
}

// Whether every column that `n` (inside an aggregate of `levels[1]`, a
// subquery of `levels[0]`) reads resolves to levels[0] or to a query within
// the aggregate's arguments (levels[2..]), none to levels[1] and none to no
// query known; `*outer` becomes true if one resolves to levels[0].
bool ReadsOnlyEnclosing(const Json& n, std::vector<QueryLevel>* levels,
                        const std::function<QueryLevel(const Json&)>& level_of, bool* outer) {
  if (n.is_array()) {
    for (const Json& x : n) {
      if (!ReadsOnlyEnclosing(x, levels, level_of, outer)) return false;
    }
    return true;
  }
  if (!n.is_object()) return true;
  if (auto c = n.find("ColumnRef"); c != n.end()) {
    const Json& fields = (*c)["fields"];
    if (fields.empty() || fields.back().contains("A_Star") || fields.size() > 2) return false;
    int at = -1;
    for (int i = static_cast<int>(levels->size()) - 1; i >= 0 && at < 0; --i) {
      const QueryLevel& l = (*levels)[static_cast<size_t>(i)];
      if (fields.size() == 2) {
        if (l.tables.count(Str(fields[0]))) at = i;
      } else if (!l.columns) {
        return false;  // it might be this level's
      } else if (l.columns->count(Str(fields[0]))) {
        at = i;
      }
    }
    if (at < 0 || at == 1) return false;
    *outer = *outer || at == 0;
    return true;
  }
  if (auto sub = n.find("SubLink"); sub != n.end()) {
    if (sub->contains("testexpr") &&
        !ReadsOnlyEnclosing((*sub)["testexpr"], levels, level_of, outer))
      return false;
    const Json& select = (*sub)["subselect"]["SelectStmt"];
    levels->push_back(level_of(select.value("fromClause", Json::array())));
    const bool only = ReadsOnlyEnclosing(select, levels, level_of, outer);
    levels->pop_back();
    return only;
  }
  for (auto it = n.begin(); it != n.end(); ++it) {
    if (it.key() == "fromClause") continue;  // names, and levels of their own
    if (!ReadsOnlyEnclosing(it.value(), levels, level_of, outer)) return false;
  }
  return true;
}

// The aggregate calls of `n` outside its subqueries.
void AggregatesOutsideSubqueries(const Json& n, std::vector<const Json*>* out) {
  if (n.is_object()) {
    if (n.contains("SubLink")) return;
    if (IsAggregateNode(n)) {
      out->push_back(&n);
      return;
    }
  }
  if (!n.is_object() && !n.is_array()) return;
  for (const Json& x : n) AggregatesOutsideSubqueries(x, out);
}

}  // namespace

void Binder::EnclosingAggregates(const Json& n, const Json& from,
                                 std::set<std::string>* out) const {
  auto level_of = [this](const Json& items) {
    QueryLevel l;
    for (const Json& item : items) FromItemNames(item, &l.tables);
    l.columns = FromColumnNames(items);
    return l;
  };
  if (n.is_array()) {
    for (const Json& x : n) EnclosingAggregates(x, from, out);
    return;
  }
  if (!n.is_object()) return;
  auto sub = n.find("SubLink");
  if (sub == n.end()) {
    for (const Json& x : n) EnclosingAggregates(x, from, out);
    return;
  }
  const Json& select = (*sub)["subselect"]["SelectStmt"];
  std::vector<const Json*> aggs;
  for (const char* clause : {"targetList", "havingClause", "whereClause"}) {
    if (select.contains(clause)) AggregatesOutsideSubqueries(select[clause], &aggs);
  }
  if (aggs.empty()) return;
  const QueryLevel outer = level_of(from);
  const QueryLevel own = level_of(select.value("fromClause", Json::array()));
  for (const Json* a : aggs) {
    std::vector<QueryLevel> levels = {outer, own};
    bool reads_outer = false;
    if (ReadsOnlyEnclosing(*a, &levels, level_of, &reads_outer) && reads_outer) {
      out->insert(Canonical(*a));
    }
  }
}

// A grouped query with subqueries in its select list or HAVING, or
// set-returning functions in its select list: the grouped query becomes a
// derived table of its keys and aggregates, named as its only FROM item is,
// with each key that is a column named as that column; the subqueries then
// read the groups' keys as PostgreSQL's read the grouped columns of the
// query around them, and the functions run once per group, after HAVING,
// as PostgreSQL's ProjectSet over the groups. nullopt for other queries.
std::optional<Json> Binder::SubqueriesOverGroups(const Json& s) {
  const Json& targets = s.contains("targetList") ? s["targetList"] : Json::array();
  const Json& having = s.contains("havingClause") ? s["havingClause"] : Json();
  const Json& sort = s.contains("sortClause") ? s["sortClause"] : Json();
  const bool subqueries = SubqueryOutsideAggregates(targets) || SubqueryOutsideAggregates(having) ||
                          SubqueryOutsideAggregates(sort);
  std::vector<const Json*> set_calls;
  CollectSetCalls(targets, &set_calls);
  if (!subqueries && set_calls.empty()) return std::nullopt;
  GroupedTable g;
  g.table = "?gs";
  if (s.contains("fromClause") && s["fromClause"].size() == 1) {
    g.table = FromItemName(s["fromClause"][0]).value_or(g.table);
  }
  if (subqueries && g.table != "?gs") {
    EnclosingAggregates(targets, s["fromClause"], &g.enclosing);
    EnclosingAggregates(having, s["fromClause"], &g.enclosing);
    EnclosingAggregates(sort, s["fromClause"], &g.enclosing);
  }
  if (!s.contains("groupClause") && !s.contains("havingClause") && !ContainsAggregate(targets) &&
      g.enclosing.empty()) {
    return std::nullopt;
  }
  std::vector<Json> keys;
  std::set<std::string> names;
  const std::optional<std::set<std::string>> inputs =
      FromColumnNames(s.value("fromClause", Json::array()));
  for (const Json& item : s.value("groupClause", Json::array())) {
    Json k = item;
    auto [kind, body] = Node(item);
    if (kind == "A_Const" && body->contains("ival")) {  // GROUP BY 2
      const int64_t pos = (*body)["ival"].value("ival", int64_t{0});
      if (pos < 1 || pos > static_cast<int64_t>(targets.size())) return std::nullopt;
      k = targets[static_cast<size_t>(pos - 1)]["ResTarget"]["val"];
    } else if (kind == "ColumnRef" && inputs && (*body)["fields"].size() == 1 &&
               (*body)["fields"][0].contains("String") &&
               !inputs->count(Str((*body)["fields"][0]))) {
      // GROUP BY s, where s names no input column but an output one.
      const std::string name = Str((*body)["fields"][0]);
      for (const Json& t : targets) {
        if (t.contains("ResTarget") && t["ResTarget"].value("name", "") == name) {
          k = t["ResTarget"]["val"];
          break;
        }
      }
    }
    // A subquery as a key would stay a subquery of the grouped derived
    // table's select list, and so on without end: such a query is bound as
    // it is, and says what it cannot do.
    if (SubqueryOutsideAggregates(k)) return std::nullopt;
    const std::string key = Canonical(k);
    if (g.keys.count(key)) continue;
    std::string name = "?k" + std::to_string(keys.size());
    if (k.contains("ColumnRef") && !k["ColumnRef"]["fields"].back().contains("A_Star")) {
      const std::string column = Str(k["ColumnRef"]["fields"].back());
      if (names.insert(column).second) name = column;
    }
    g.keys[key] = name;
    keys.push_back(k);
  }
  Json grouped = s;
  if (s.contains("groupClause")) grouped["groupClause"] = keys;  // positions resolved
  return OverGroupedTable(grouped, keys, &g);
}

}  // namespace binding
}  // namespace sluice::sql
