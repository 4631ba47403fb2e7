#include "sql/binder.h"

#include <cctype>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "sql/binder_internal.h"
#include "sql/draws.h"
#include "sql/over.h"

namespace sluice::sql {
namespace binding {

namespace {

// A WITH query that changes data runs once, as its statement's own part
// (sql/dml.h): a view or a subquery cannot hold one, as in PostgreSQL.
constexpr const char* kChangingWithNotHere =
    "a WITH query that changes data (INSERT, UPDATE, DELETE) must be at the top level of a "
    "statement, not in a view or a subquery";

// Whether the parse tree `n` names the relation `name` in a FROM clause. A
// query whose own WITH defines `name` again reads that one instead, but for
// the WITH queries (not RECURSIVE) up to and including its definition.
bool ReadsRelation(const Json& n, const std::string& name) {
  if (n.is_object()) {
    if (n.contains("RangeVar")) {
      const Json& rv = n["RangeVar"];
      if (!rv.contains("schemaname") && rv.value("relname", "") == name) return true;
    }
    if (n.contains("withClause") && n["withClause"].is_object()) {
      const Json& with = n["withClause"];
      const Json ctes = with.value("ctes", Json::array());
      for (size_t i = 0; i < ctes.size(); ++i) {
        if (ctes[i]["CommonTableExpr"].value("ctename", "") != name) continue;
        if (with.value("recursive", false)) return false;
        for (size_t j = 0; j <= i; ++j) {
          if (ReadsRelation(ctes[j]["CommonTableExpr"]["ctequery"], name)) return true;
        }
        return false;
      }
    }
    for (const auto& [key, child] : n.items()) {
      if (ReadsRelation(child, name)) return true;
    }
    return false;
  }
  if (n.is_array()) {
    for (const Json& x : n) {
      if (ReadsRelation(x, name)) return true;
    }
  }
  return false;
}

}  // namespace

namespace {

// `n` with every FROM item that reads relation `name` (a RangeVar of it,
// not schema-qualified) replaced by `(query) AS alias(columns)`; a query
// whose own WITH defines `name` again keeps its items.
void InlineWith(Json* n, const std::string& name, const Json& query, const Json& colnames) {
  if (n->is_array()) {
    for (Json& x : *n) InlineWith(&x, name, query, colnames);
    return;
  }
  if (!n->is_object()) return;
  if (n->contains("withClause")) {
    for (const Json& c : (*n)["withClause"].value("ctes", Json::array())) {
      if (c["CommonTableExpr"].value("ctename", "") == name) return;
    }
  }
  if (n->contains("RangeVar")) {
    const Json& rv = (*n)["RangeVar"];
    if (rv.value("relname", "") != name || rv.contains("schemaname")) return;
    Json alias = rv.contains("alias") ? rv["alias"] : Json{{"aliasname", name}};
    if (!alias.contains("colnames") && !colnames.is_null()) alias["colnames"] = colnames;
    *n = Json{{"RangeSubselect", {{"subquery", query}, {"alias", alias}}}};
    return;
  }
  for (auto it = n->begin(); it != n->end(); ++it) InlineWith(&it.value(), name, query, colnames);
}

bool ContainsSubLink(const Json& n);

}  // namespace

Result<BoundQuery> Binder::BindQuery(const Json& s) {
  // Only for this query's own SELECT (perhaps rewritten), not its WITH
  // queries nor its subqueries.
  const bool order_from_input = std::exchange(order_from_input_, false);
  auto hand_on = [&] {
    order_from_input_ = order_from_input;
    return true;
  };
  if (s.contains("withClause") && s["withClause"].value("recursive", false) && !frames_.empty() &&
      !frames_.back().taken && frames_.back().domain != nullptr) {
    // Its working table would have to carry the enclosing queries' values.
    return SqlUnsupported(sql_, s["withClause"],
                          "WITH RECURSIVE in a subquery that reads an enclosing query's columns");
  }
  if (s.contains("withClause") && !s["withClause"].value("recursive", false) && !frames_.empty() &&
      !frames_.back().taken) {
    // WITH inside a subquery that reads enclosing queries: its queries may
    // read them too, so each is read where it is named, as a subquery in
    // FROM (which sees the enclosing queries), as PostgreSQL may inline
    // them.
    Json rest = s;
    rest.erase("withClause");
    Json ctes = s["withClause"]["ctes"];
    for (size_t i = 0; i < ctes.size(); ++i) {
      const Json cte = ctes[i]["CommonTableExpr"];
      if (!cte["ctequery"].contains("SelectStmt")) {
        return SqlError(sql_, ctes[i], kChangingWithNotHere);
      }
      const std::string name = cte.value("ctename", "");
      for (size_t j = 0; j < i; ++j) {
        if (ctes[j]["CommonTableExpr"].value("ctename", "") == name) {
          return SqlError(sql_, ctes[i],
                          "WITH query name \"" + name + "\" specified more than once");
        }
      }
      const Json colnames = cte.contains("aliascolnames") ? cte["aliascolnames"] : Json();
      InlineWith(&rest, name, cte["ctequery"], colnames);
      // The later WITH queries may read it too.
      for (size_t j = i + 1; j < ctes.size(); ++j)
        InlineWith(&ctes[j]["CommonTableExpr"]["ctequery"], name, cte["ctequery"], colnames);
    }
    hand_on();
    return BindQuery(rest);
  }
  if (s.contains("withClause")) {
    // WITH: each query is bound in order (a later one may read an earlier
    // one), visible by name in the FROM clauses of this query only.
    const Json& with = s["withClause"];
    const bool recursive = with.value("recursive", false);
    std::map<std::string, BoundQuery> scope;
    std::vector<Json> ordered(with["ctes"].begin(), with["ctes"].end());
    if (recursive) {
      // WITH RECURSIVE: every query sees the others, whatever their order;
      // each is bound after the ones it reads.
      std::vector<Json> pending = std::move(ordered);
      ordered.clear();
      std::set<std::string> done;
      while (!pending.empty()) {
        size_t pick = 0;
        for (size_t i = 0; i < pending.size(); ++i) {
          const Json& cte = pending[i]["CommonTableExpr"];
          if (!cte["ctequery"].contains("SelectStmt")) break;
          const std::string self = cte.value("ctename", "");
          const bool ready = std::none_of(pending.begin(), pending.end(), [&](const Json& o) {
            const std::string other = o["CommonTableExpr"].value("ctename", "");
            return other != self && ReadsRelation(cte["ctequery"]["SelectStmt"], other);
          });
          if (ready) {
            pick = i;
            break;
          }
        }
        ordered.push_back(pending[pick]);
        pending.erase(pending.begin() + static_cast<ptrdiff_t>(pick));
      }
    }
    if (recursive) {
      // PostgreSQL checks the form of every recursive query before it binds
      // any of them.
      std::vector<const Json*> reading_themselves;
      for (const Json& c : ordered) {
        const Json& cte = c["CommonTableExpr"];
        if (cte["ctequery"].contains("SelectStmt") &&
            ReadsRelation(cte["ctequery"]["SelectStmt"], cte.value("ctename", ""))) {
          reading_themselves.push_back(&c);
        }
      }
      SLUICE_RETURN_IF_ERROR(CheckRecursiveQueries(sql_, reading_themselves));
    }
    for (const Json& c : ordered) {
      const Json& cte = c["CommonTableExpr"];
      std::string name = cte["ctename"];
      if (scope.count(name)) {
        return SqlError(sql_, c, "WITH query name \"" + name + "\" specified more than once");
      }
      if (!cte["ctequery"].contains("SelectStmt")) {
        return SqlError(sql_, c, kChangingWithNotHere);
      }
      const Json& body = cte["ctequery"]["SelectStmt"];
      if ((cte.contains("search_clause") || cte.contains("cycle_clause")) &&
          !(recursive && ReadsRelation(body, name))) {
        return SqlError(sql_, c, "WITH query is not recursive");
      }
      BoundQuery q;
      if (recursive) defining_.push_back(name);
      // While the enclosing queries' columns are being found, each WITH
      // query sees them, and so does the query after them (which is then
      // refused above, when bound over them).
      const bool finding = recursive && !frames_.empty() && !frames_.back().taken &&
                           frames_.back().domain == nullptr && frames_.back().refs != nullptr;
      if (finding) frames_.push_back(frames_.back());
      Result<BoundQuery> bound =
          recursive && ReadsRelation(body, name) ? BindRecursive(name, cte, c) : BindQuery(body);
      if (finding) frames_.pop_back();
      if (recursive) defining_.pop_back();
      SLUICE_ASSIGN_OR_RETURN(q, std::move(bound));
      if (cte.contains("aliascolnames")) {
        const Json& names = cte["aliascolnames"];
        if (names.size() > q.visible) {
          return SqlError(sql_, c,
                          "WITH query \"" + name + "\" has " + std::to_string(q.visible) +
                              " columns available but " + std::to_string(names.size()) +
                              " columns specified");
        }
        auto renamed = std::make_shared<PlanNode>(*q.plan);
        for (size_t i = 0; i < names.size(); ++i) renamed->columns[i].name = Str(names[i]);
        q.plan = renamed;
      }
      scope[name] = q;
      ctes_.push_back({name, q});
    }
    Json rest = s;
    rest.erase("withClause");
    hand_on();
    auto r = BindQuery(rest);
    ctes_.resize(ctes_.size() - scope.size());
    return r;
  }
  if (std::optional<Json> clocked = ClockReadsAsSubqueries(s, false)) return BindQuery(*clocked);
  if (s.contains("fromClause") && ContainsSubLink(s["fromClause"])) {
    // A subquery cannot stand in ON; over inner joins, WHERE is the same.
    if (Json moved = s; InnerOnConjunctsToWhere(&moved, ContainsSubLink)) return BindQuery(moved);
    // Under a LEFT JOIN, a LATERAL subquery of its right side's rows is.
    if (Json moved = s; LeftOnConjunctsToLateral(&moved, ContainsSubLink)) return BindQuery(moved);
  }
  std::string op = s.value("op", "SETOP_NONE");
  if (op != "SETOP_NONE") return BindSetOp(s);
  if (s.contains("valuesLists")) return BindValues(s, order_from_input);
  SLUICE_ASSIGN_OR_RETURN(std::optional<Json> under, SetCallsUnderGroups(s));
  if (under && hand_on()) return BindQuery(*under);
  SLUICE_ASSIGN_OR_RETURN(std::optional<Json> sets, ExpandGroupingSets(s));
  if (sets && hand_on()) return BindQuery(*sets);
  if (std::optional<Json> moved = SqlSetCallsToFrom(s); moved && hand_on()) {
    return BindQuery(*moved);
  }
  SLUICE_ASSIGN_OR_RETURN(std::optional<Json> inlined, InlineTableFunctions(s));
  if (inlined) {
    ++inline_depth_;  // the functions' bodies, which may call more (InlineFunctionBody)
    hand_on();
    auto bound = BindQuery(*inlined);
    --inline_depth_;
    return bound;
  }
  if (std::optional<Json> over = SubqueriesOverGroups(s); over && hand_on()) {
    return BindQuery(*over);
  }
  hand_on();
  // The subquery's frame, which BindSimple takes.
  const bool frame_open = !frames_.empty() && !frames_.back().taken;
  auto bound = BindSimple(s);
  if (!bound.ok() && std::exchange(temporal_refused_, false)) {
    // A comparison with the clock in WHERE that a temporal filter cannot
    // take (an interval of months, a DATE against NOW(), an enclosing
    // query's column): every read of the clock in WHERE becomes the clock
    // relation's, as elsewhere. The frame of a subquery is open again for it.
    if (std::optional<Json> all = ClockReadsAsSubqueries(s, true); all && hand_on()) {
      if (frame_open) frames_.back().taken = false;
      return BindQuery(*all);
    }
  }
  return bound;
}

std::string Canonical(const Json& n) {
  if (n.is_object()) {
    std::string out = "{";
    for (auto it = n.begin(); it != n.end(); ++it) {
      if (it.key() == "location") continue;
      out += it.key() + ":" + Canonical(it.value()) + ",";
    }
    return out + "}";
  }
  if (n.is_array()) {
    std::string out = "[";
    for (const Json& x : n) out += Canonical(x) + ",";
    return out + "]";
  }
  return n.dump();
}

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

// The name the FROM item `item` is known by: its alias, or a table's name;
// nullopt for an item without one (an unaliased subquery, a join).
std::optional<std::string> FromItemName(const Json& item) {
  auto [kind, body] = Node(item);
  if (body->contains("alias")) return (*body)["alias"].value("aliasname", "");
  if (kind == "RangeVar") return body->value("relname", "");
  return std::nullopt;
}

}  // namespace

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
  Json star = {{"ColumnRef", {{"fields", Json::array({Json{{"A_Star", Json::object()}}})}}}};
  Json targets = Json::array();
  if (!from.empty()) targets.push_back(Json{{"ResTarget", {{"val", star}}}});
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
  const bool subqueries = SubqueryOutsideAggregates(targets) || SubqueryOutsideAggregates(having);
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

Result<int64_t> Binder::ConstInt(const Json& n, const char* what) {
  if (n.dump().find("\"ColumnRef\"") != std::string::npos) {
    // A column here is the enclosing query's (PostgreSQL refuses this
    // query's own): the count would change row by row.
    if (frames_.empty()) {
      return SqlError(sql_, n, std::string("argument of ") + what + " must not contain variables");
    }
    return SqlUnsupported(sql_, n,
                          std::string(what[0] == 'O' ? "an " : "a ") + what +
                              " that reads the enclosing query's columns");
  }
  Ctx empty;
  SLUICE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(n, empty));
  if (ContainsDraw(*e)) {
    // Computed once, as PostgreSQL evaluates LIMIT once per execution.
    e = ReplaceDraws(
        e, [&](const Expr& d) { return MakeLiteral(Value::Double(OnceDraw(d.column)), d.type); });
    Value v;
    SLUICE_RETURN_IF_ERROR(Eval(*e, Row{}, &v));
    e = MakeLiteral(std::move(v), e->type);
  }
  if (e->kind != ExprKind::kLiteral || !e->type.IsInteger()) {
    return SqlError(sql_, n, std::string(what) + " must be an integer constant");
  }
  // NULL: no LIMIT (-1), or no OFFSET (0), as in PostgreSQL.
  if (e->value.is_null()) return int64_t{std::string_view(what) == "OFFSET" ? 0 : -1};
  return e->value.int_value();
}

std::string Binder::OutputName(const Json& target) {
  if (target.contains("name")) return target["name"].get<std::string>();
  return ExprName(Field(target, "val"));
}

// The name PostgreSQL gives a select list item without AS (its
// FigureColname), for the forms that have one.
std::string Binder::ExprName(const Json& val) {
  auto [kind, body] = Node(val);
  if (kind == "ColumnRef") {
    const Json& fields = (*body)["fields"];
    return Str(fields.back());
  }
  if (kind == "A_Indirection") {
    // (row).field is the field's name; a[1] the array's.
    const Json& ind = (*body)["indirection"];
    if (!ind.empty() && Node(ind.back()).first == "String") return Str(ind.back());
    return ExprName((*body)["arg"]);
  }
  if (kind == "FuncCall") return UserAggregateName(Str((*body)["funcname"].back()));
  if (kind == "TypeCast") {
    auto [k2, b2] = Node((*body)["arg"]);
    if (k2 == "ColumnRef" || k2 == "A_Indirection" || k2 == "RowExpr")
      return ExprName((*body)["arg"]);
  }
  if (kind == "RowExpr") return "row";
  if (kind == "CaseExpr") return "case";
  if (kind == "CoalesceExpr") return "coalesce";
  return "?column?";
}

Result<BoundQuery> Binder::BindValues(const Json& s, bool order_from_input) {
  // An item that is not a constant (VALUES (t.x) in a LATERAL subquery):
  // the VALUES is the UNION ALL of one SELECT per row.
  bool constant = true;
  size_t width = 0;
  for (const Json& list : s["valuesLists"]) {
    const Json& items = Node(list).second->at("items");
    if (width != 0 && items.size() != width) {
      return SqlError(sql_, list, "VALUES lists must all be the same length");
    }
    width = items.size();
    for (const Json& item : items) {
      auto e = FoldConstant(item);
      constant = constant && e.ok() && (*e)->kind == ExprKind::kLiteral;
    }
  }
  if (!constant) {
    Json u;
    for (const Json& list : s["valuesLists"]) {
      Json sel = {{"op", "SETOP_NONE"}, {"limitOption", "LIMIT_OPTION_DEFAULT"}};
      Json targets = Json::array();
      const Json& items = Node(list).second->at("items");
      for (size_t c = 0; c < items.size(); ++c) {
        targets.push_back(
            {{"ResTarget", {{"name", "column" + std::to_string(c + 1)}, {"val", items[c]}}}});
      }
      sel["targetList"] = targets;
      u = u.is_null() ? sel
                      : Json{{"op", "SETOP_UNION"},
                             {"all", true},
                             {"larg", u},
                             {"rarg", sel},
                             {"limitOption", "LIMIT_OPTION_DEFAULT"}};
    }
    for (const char* key : {"sortClause", "limitCount", "limitOffset", "limitOption"}) {
      if (s.contains(key)) u[key] = s[key];
    }
    return BindQuery(u);
  }
  auto n = std::make_shared<PlanNode>();
  n->kind = PlanKind::kValues;
  std::vector<std::vector<ExprPtr>> rows;
  for (const Json& list : s["valuesLists"]) {
    auto [kind, body] = Node(list);
    std::vector<ExprPtr> row;
    Ctx empty;
    for (const Json& item : (*body)["items"]) {
      SLUICE_ASSIGN_OR_RETURN(ExprPtr e, FoldConstant(item));
      if (e->kind != ExprKind::kLiteral)
        return SqlUnsupported(sql_, item, "a non-constant VALUES item");
      row.push_back(e);
    }
    if (!rows.empty() && row.size() != rows[0].size()) {
      return SqlError(sql_, list, "VALUES lists must all be the same length");
    }
    rows.push_back(std::move(row));
  }
  std::vector<SqlType> types(width);
  for (size_t c = 0; c < width; ++c) {
    // A NULL or quoted literal takes the type of the column's other items
    // (text if all are such), as in PostgreSQL.
    bool have = false;
    for (auto& r : rows) {
      if (r[c]->untyped) continue;
      if (!have) {
        types[c] = r[c]->type;
        have = true;
        continue;
      }
      if (types[c].id() != r[c]->type.id() ||
          (types[c].id() == TypeId::kDecimal && types[c].scale() != r[c]->type.scale())) {
        auto t = CommonType(types[c], r[c]->type);
        if (!t.ok()) return SqlError(sql_, s, t.status().message());
        types[c] = *t;
      }
    }
    if (!have) types[c] = SqlType::Varchar();
    for (auto& r : rows) {
      if (r[c]->value.is_null()) types[c] = types[c].WithNullable(true);
    }
    n->columns.push_back({"column" + std::to_string(c + 1), types[c]});
  }
  // The query around it takes the rows in the order they are listed (its
  // array_agg, string_agg and LIMIT without ORDER BY; ARRAY(VALUES ...)),
  // as PostgreSQL scans them: a hidden column numbers them.
  const bool numbered = order_from_input && !s.contains("sortClause");
  if (numbered) n->columns.push_back({"?ordinal", SqlType::BigInt(false)});
  for (auto& r : rows) {
    Row values;
    for (size_t c = 0; c < width; ++c) {
      Value v;
      Status st = CastValue(r[c]->value, r[c]->type, types[c], &v);
      if (!st.ok()) return SqlError(sql_, s, st.message());
      values.push_back(std::move(v));
    }
    if (numbered) values.push_back(Value::Int(static_cast<int64_t>(n->rows.size())));
    n->rows.push_back(std::move(values));
  }
  BoundQuery q;
  q.plan = n;
  q.visible = width;
  if (numbered) q.order.push_back({static_cast<int>(width), false, false});
  return q;
}

namespace {

// SEARCH and CYCLE columns (PostgreSQL's rewriteSearchCycle.c): the path
// of the rows a recursive query has walked, as arrays of ROW values.

// path || ARRAY[row]: the path with one more row (a NULL path is empty).
Status AppendToPath(const SqlType&, const Value* args, size_t, Value* out) {
  std::vector<Value> items;
  if (!args[0].is_null()) items = args[0].list();
  items.push_back(args[1]);
  *out = Value::List(std::move(items));
  return Status::OK();
}

// row = ANY (path), with record_eq's rules: fields compare equal when both
// are NULL, so the answer is never NULL.
Status PathHolds(const SqlType&, const Value* args, size_t, Value* out) {
  bool holds = false;
  for (const Value& x : args[0].list()) {
    if (!x.is_null() && CompareValues(x, args[1]) == 0) holds = true;
  }
  *out = Value::Bool(holds);
  return Status::OK();
}

// The rarg's FROM clause item that reads `name` at its top level (not in a
// subquery): the name its columns go by, or "" if there is none.
std::string TopLevelReference(const Json& from, const std::string& name) {
  for (const Json& item : from) {
    auto [kind, body] = Node(item);
    if (kind == "RangeVar") {
      if (!body->contains("schemaname") && body->value("relname", "") == name) {
        if (body->contains("alias")) return (*body)["alias"].value("aliasname", name);
        return name;
      }
    } else if (kind == "JoinExpr") {
      std::string r = TopLevelReference(Json::array({(*body)["larg"], (*body)["rarg"]}), name);
      if (!r.empty()) return r;
    }
  }
  return "";
}

Json StringNode(const std::string& s) { return Json{{"String", {{"sval", s}}}}; }

}  // namespace

Result<BoundQuery> Binder::BindRecursive(const std::string& name, const Json& cte,
                                         const Json& node) {
  if (cte["ctequery"]["SelectStmt"].contains("withClause") &&
      cte["ctequery"]["SelectStmt"].value("op", "") == "SETOP_UNION") {
    // WITH w AS (...) term UNION term: w is seen by both terms.
    Json moved = cte;
    Json& u = moved["ctequery"]["SelectStmt"];
    for (const char* term : {"larg", "rarg"}) {
      if (u[term].contains("withClause")) {
        return SqlUnsupported(sql_, node, "WITH in a term of a recursive query that has its own");
      }
      u[term]["withClause"] = u["withClause"];
    }
    u.erase("withClause");
    return BindRecursive(name, moved, node);
  }
  const Json& u = cte["ctequery"]["SelectStmt"];
  // The clauses, with or without their node's name around them.
  auto clause = [&](const char* key, const char* kind) -> const Json* {
    if (!cte.contains(key)) return nullptr;
    const Json& c = cte[key];
    return c.contains(kind) ? &c[kind] : &c;
  };
  const Json* search = clause("search_clause", "CTESearchClause");
  const Json* cycle = clause("cycle_clause", "CTECycleClause");
  if (search || cycle) {
    if (u["larg"].value("op", "SETOP_NONE") != "SETOP_NONE") {
      return SqlError(sql_, Json(),
                      "with a SEARCH or CYCLE clause, the left side of the UNION must be a "
                      "SELECT");
    }
    if (u["rarg"].value("op", "SETOP_NONE") != "SETOP_NONE") {
      return SqlError(sql_, Json(),
                      "with a SEARCH or CYCLE clause, the right side of the UNION must be a "
                      "SELECT");
    }
  }
  SLUICE_ASSIGN_OR_RETURN(BoundQuery base, BindQuery(u["larg"]));
  const Json names = cte.value("aliascolnames", Json::array());
  if (names.size() > base.visible) {
    return SqlError(sql_, node,
                    "WITH query \"" + name + "\" has " + std::to_string(base.visible) +
                        " columns available but " + std::to_string(names.size()) +
                        " columns specified");
  }
  // The working table's columns: the non-recursive term's names and types.
  // A decimal column takes the scale the recursive term needs too (a second
  // binding); other types must agree, as in PostgreSQL.
  std::vector<Column> cols;
  for (size_t i = 0; i < base.visible; ++i) {
    Column c = base.plan->columns[i];
    c.type = c.type.WithNullable(true);
    if (i < names.size()) c.name = Str(names[i]);
    cols.push_back(c);
  }

  // SEARCH and CYCLE: their columns by position, checked as PostgreSQL's
  // parse_cte.c does, and the columns they add after the query's own.
  auto column_index = [&](const std::string& col) -> int {
    for (size_t i = 0; i < cols.size(); ++i) {
      if (cols[i].name == col) return static_cast<int>(i);
    }
    return -1;
  };
  auto clause_columns = [&](const Json& clause, const char* list, const char* what,
                            std::vector<int>* out) -> Status {
    for (const Json& c : clause.value(list, Json::array())) {
      const std::string col = Str(c);
      int i = column_index(col);
      if (i < 0) {
        return SqlError(
            sql_, clause,
            std::string(what) + " column \"" + col + "\" not in WITH query column list");
      }
      if (std::find(out->begin(), out->end(), i) != out->end()) {
        return SqlError(sql_, clause,
                        std::string(what) + " column \"" + col + "\" specified more than once");
      }
      out->push_back(i);
    }
    return Status::OK();
  };
  std::vector<int> search_cols, cycle_cols;
  std::string seq_name, mark_name, path_name;
  bool breadth = false;
  ExprPtr mark_value, mark_default;
  if (search) {
    SLUICE_RETURN_IF_ERROR(clause_columns(*search, "search_col_list", "search", &search_cols));
    seq_name = search->value("search_seq_column", "");
    breadth = search->value("search_breadth_first", false);
    if (column_index(seq_name) >= 0) {
      return SqlError(sql_, *search,
                      "search sequence column name \"" + seq_name +
                          "\" already used in WITH query column list");
    }
  }
  if (cycle) {
    SLUICE_RETURN_IF_ERROR(clause_columns(*cycle, "cycle_col_list", "cycle", &cycle_cols));
    mark_name = cycle->value("cycle_mark_column", "");
    path_name = cycle->value("cycle_path_column", "");
    if (column_index(mark_name) >= 0) {
      return SqlError(
          sql_, *cycle,
          "cycle mark column name \"" + mark_name + "\" already used in WITH query column list");
    }
    if (column_index(path_name) >= 0) {
      return SqlError(
          sql_, *cycle,
          "cycle path column name \"" + path_name + "\" already used in WITH query column list");
    }
    if (mark_name == path_name) {
      return SqlError(sql_, *cycle,
                      "cycle mark column name and cycle path column name are the same");
    }
    SLUICE_ASSIGN_OR_RETURN(mark_value, FoldConstant((*cycle)["cycle_mark_value"]));
    SLUICE_ASSIGN_OR_RETURN(mark_default, FoldConstant((*cycle)["cycle_mark_default"]));
    if (mark_value->kind != ExprKind::kLiteral || mark_default->kind != ExprKind::kLiteral) {
      return SqlUnsupported(sql_, *cycle, "A cycle mark value that is not a constant");
    }
    SLUICE_ASSIGN_OR_RETURN(std::vector<ExprPtr> marks, Unify({mark_value, mark_default}, *cycle));
    mark_value = marks[0];
    mark_default = marks[1];
    SLUICE_RETURN_IF_ERROR(Call("<>", {mark_value, mark_default}, *cycle).status());
  }
  if (search && cycle) {
    if (seq_name == mark_name) {
      return SqlError(sql_, *search,
                      "search sequence column name and cycle mark column name are the same");
    }
    if (seq_name == path_name) {
      return SqlError(sql_, *search,
                      "search sequence column name and cycle path column name are the same");
    }
  }
  // The added columns' values: over the non-recursive term's row (`prev` is
  // null), or over a row of the recursive term whose working-table columns
  // `prev` holds (the columns `cols.size()` on of the recursive term).
  auto extras = [&](const std::vector<ExprPtr>& row, const std::vector<ExprPtr>* prev,
                    std::vector<ExprPtr>* out) -> Status {
    auto row_of = [&](const std::vector<int>& idx) {
      std::vector<ExprPtr> f;
      for (int i : idx) f.push_back(row[static_cast<size_t>(i)]);
      return MakeRow(std::move(f));
    };
    size_t next = 0;
    if (search) {
      if (breadth) {
        std::vector<int> idx = search_cols;
        std::vector<ExprPtr> f;
        if (prev == nullptr) {
          f.push_back(MakeLiteral(Value::Int(0), SqlType::BigInt()));
        } else {
          auto depth = std::make_shared<Expr>(
              *MakeNode(ExprKind::kField, SqlType::BigInt(), {(*prev)[next]}));
          depth->column = 0;
          SLUICE_ASSIGN_OR_RETURN(
              ExprPtr plus,
              Call("+", {depth, MakeLiteral(Value::Int(1), SqlType::BigInt())}, *search));
          f.push_back(plus);
        }
        for (int i : idx) f.push_back(row[static_cast<size_t>(i)]);
        ExprPtr r = MakeRow(std::move(f));
        auto named = std::make_shared<Expr>(*r);
        std::vector<std::string> fnames = r->type.field_names();
        fnames[0] = "*DEPTH*";
        named->type = SqlType::Row(fnames, r->type.children(), false);
        out->push_back(named);
      } else {
        ExprPtr r = row_of(search_cols);
        if (prev == nullptr) {
          out->push_back(
              MakeNode(ExprKind::kArray, SqlType::Array(r->type.WithNullable(true), false), {r}));
        } else {
          out->push_back(MakeCall(AppendToPath, "||",
                                  SqlType::Array(r->type.WithNullable(true), false),
                                  {(*prev)[next], r}, /*strict=*/false));
        }
      }
      ++next;
    }
    if (cycle) {
      ExprPtr r = row_of(cycle_cols);
      const SqlType path_type = SqlType::Array(r->type.WithNullable(true), false);
      if (prev == nullptr) {
        out->push_back(mark_default);
        out->push_back(MakeNode(ExprKind::kArray, path_type, {r}));
      } else {
        ExprPtr path = (*prev)[next + 1];
        ExprPtr holds = MakeCall(PathHolds, "= ANY", SqlType::Boolean(), {path, r});
        auto mark = std::make_shared<Expr>(
            *MakeNode(ExprKind::kCase, mark_value->type, {holds, mark_value, mark_default}));
        mark->has_else = true;
        out->push_back(mark);
        out->push_back(MakeCall(AppendToPath, "||", path_type, {path, r}, /*strict=*/false));
      }
    }
    return Status::OK();
  };
  // The recursive term with the working table's added columns at the end of
  // its select list (PostgreSQL's "SELECT trosl, ctename.sqc FROM ctename").
  Json rarg = u["rarg"];
  std::vector<std::string> added;
  if (search) added.push_back(seq_name);
  if (cycle) {
    added.push_back(mark_name);
    added.push_back(path_name);
  }
  if (!added.empty()) {
    const std::string ref = TopLevelReference(rarg.value("fromClause", Json::array()), name);
    if (ref.empty()) {
      return SqlUnsupported(sql_, node,
                            "With a SEARCH or CYCLE clause, a recursive reference to \"" + name +
                                "\" that is not at the top level of its right-hand SELECT");
    }
    for (const std::string& col : added) {
      Json target = {
          {"ResTarget",
           {{"val", {{"ColumnRef", {{"fields", Json::array({StringNode(ref), StringNode(col)})}}}}},
            {"location", -1}}}};
      rarg["targetList"].push_back(target);
    }
  }
  std::vector<Column> extra_cols;
  auto working = std::make_shared<PlanNode>();
  BoundQuery step;
  for (int pass = 0; pass < 2; ++pass) {
    // The added columns' types follow the (perhaps widened) columns.
    std::vector<ExprPtr> row;
    for (const Column& c : cols) row.push_back(MakeColumn(static_cast<int>(row.size()), c.type));
    std::vector<ExprPtr> ex;
    SLUICE_RETURN_IF_ERROR(extras(row, nullptr, &ex));
    extra_cols.clear();
    for (size_t i = 0; i < ex.size(); ++i) {
      extra_cols.push_back({added[i], ex[i]->type.WithNullable(true)});
    }
    std::vector<Column> all = cols;
    all.insert(all.end(), extra_cols.begin(), extra_cols.end());
    working = std::make_shared<PlanNode>();
    working->kind = PlanKind::kWorkingTable;
    working->table = name;
    working->columns = all;
    ctes_.push_back({name, BoundQuery{working, {}, all.size()}});
    star_width_[working.get()] = cols.size();
    auto bound = BindQuery(rarg);
    star_width_.erase(working.get());
    ctes_.pop_back();
    if (!bound.ok()) return bound.status();
    step = std::move(bound).value();
    if (step.visible != all.size()) {
      return SqlError(sql_, u, "each UNION query must have the same number of columns");
    }
    bool widened = false;
    for (size_t i = 0; i < cols.size(); ++i) {
      const SqlType& t = step.plan->columns[i].type;
      if (t.id() != cols[i].type.id()) {
        return SqlError(sql_, u["rarg"],
                        "recursive query \"" + name + "\" column " + std::to_string(i + 1) +
                            " has type " + PgTypeName(cols[i].type) +
                            " in non-recursive term but type " + PgTypeName(t) + " overall");
      }
      if (t.id() == TypeId::kDecimal && t.scale() != cols[i].type.scale()) {
        SLUICE_ASSIGN_OR_RETURN(SqlType wide, CommonType(cols[i].type, t));
        wide = wide.WithNullable(true);
        if (wide != cols[i].type.WithNullable(true)) {
          cols[i].type = wide;
          widened = true;
        }
      }
    }
    if (!widened) break;
  }
  std::vector<Column> all = cols;
  all.insert(all.end(), extra_cols.begin(), extra_cols.end());
  // Each term projected to the working table's columns, the added ones
  // computed from the term's row (and, in the recursive term, from the
  // previous iteration's added columns).
  auto project = [&](PlanPtr plan, bool recursive_term) -> Result<PlanPtr> {
    std::vector<ExprPtr> ex;
    std::vector<std::string> out_names;
    for (size_t i = 0; i < cols.size(); ++i) {
      ex.push_back(MakeCast(MakeColumn(static_cast<int>(i), plan->columns[i].type), cols[i].type));
      out_names.push_back(cols[i].name);
    }
    std::vector<ExprPtr> prev;
    for (size_t i = 0; i < extra_cols.size(); ++i) {
      prev.push_back(MakeColumn(static_cast<int>(cols.size() + i), extra_cols[i].type));
    }
    if (recursive_term && cycle) {
      // A row that closed a cycle is kept, but the walk stops there.
      SLUICE_ASSIGN_OR_RETURN(ExprPtr open, Call("<>", {prev[search ? 1 : 0], mark_value}, *cycle));
      plan = MakeFilter(plan, open);
    }
    std::vector<ExprPtr> more;
    SLUICE_RETURN_IF_ERROR(extras(ex, recursive_term ? &prev : nullptr, &more));
    for (size_t i = 0; i < more.size(); ++i) {
      ex.push_back(MakeCast(more[i], extra_cols[i].type));
      out_names.push_back(extra_cols[i].name);
    }
    auto p = std::make_shared<PlanNode>(*MakeProject(plan, ex, out_names));
    p->columns = all;
    return PlanPtr(p);
  };
  auto rec = std::make_shared<PlanNode>();
  rec->kind = PlanKind::kRecursive;
  rec->table = name;
  rec->columns = all;
  SLUICE_ASSIGN_OR_RETURN(PlanPtr base_plan, project(base.plan, false));
  SLUICE_ASSIGN_OR_RETURN(PlanPtr step_plan, project(step.plan, true));
  rec->inputs = {base_plan, step_plan};
  rec->working = working;
  rec->set_union = !u.value("all", false);
  // PostgreSQL computes a recursive query's rows only as far as its reader
  // asks (a LIMIT may stop one that never ends); Sluice computes them all.
  rec->runaway_error =
      SqlUnsupported(sql_, node, "A recursive query that does not end by itself",
                     "\"" + name +
                         "\" kept yielding new rows past Sluice's bounds: PostgreSQL may stop "
                         "reading such a query at a LIMIT, but Sluice computes all of its rows.")
          .message();
  BoundQuery q;
  q.plan = rec;
  q.visible = all.size();
  return q;
}

Result<int> Binder::OrderByColumn(const Json& node, const std::vector<std::string>& names,
                                  size_t first, size_t visible) {
  auto [kind, body] = Node(node);
  if (kind == "A_Const") {
    SLUICE_ASSIGN_OR_RETURN(int64_t pos, ConstInt(node, "ORDER BY position"));
    if (pos < 1 || pos > static_cast<int64_t>(visible - first)) {
      return SqlError(sql_, node,
                      "ORDER BY position " + std::to_string(pos) + " is not in select list");
    }
    return static_cast<int>(first + static_cast<size_t>(pos) - 1);
  }
  if (kind == "ColumnRef" && (*body)["fields"].size() == 1) {
    std::string name = Str((*body)["fields"][0]);
    for (size_t i = first; i < visible; ++i) {
      if (names[i] == name) return static_cast<int>(i);
    }
  }
  return -1;
}

namespace {

// The rows of `plan` whose ROW_NUMBER() or RANK() within their partition (the
// columns `partition`) in `order` is at most `limit`: a top-k per partition,
// with the rank column projected away.
PlanPtr RankedUpTo(const PlanPtr& plan, const std::vector<int>& partition,
                   const std::vector<SortKey>& order, RankKind kind, int64_t limit,
                   const ExprPtr& rank_filter = nullptr) {
  auto rank = std::make_shared<PlanNode>();
  rank->kind = PlanKind::kRank;
  rank->inputs = {plan};
  rank->columns = plan->columns;
  rank->columns.push_back({"rank", SqlType::BigInt(false)});
  rank->rank_kind = kind;
  rank->limit = limit;
  for (int c : partition) {
    rank->partition.push_back(MakeColumn(c, plan->columns[static_cast<size_t>(c)].type));
  }
  for (const SortKey& o : order) {
    rank->order_exprs.push_back(
        MakeColumn(o.column, plan->columns[static_cast<size_t>(o.column)].type));
    rank->order.push_back(o);
  }
  PlanPtr ranked = rank;
  if (rank_filter != nullptr) ranked = MakeFilter(ranked, rank_filter);
  std::vector<ExprPtr> ex;
  std::vector<std::string> keep;
  for (size_t i = 0; i < plan->columns.size(); ++i) {
    ex.push_back(MakeColumn(static_cast<int>(i), plan->columns[i].type));
    keep.push_back(plan->columns[i].name);
  }
  return MakeProject(ranked, ex, keep);
}

}  // namespace

Result<PlanPtr> Binder::ApplyLimit(const Json& s, PlanPtr plan, const std::vector<SortKey>& order,
                                   size_t per_domain) {
  if (!s.contains("limitCount") && !s.contains("limitOffset")) return plan;
  if (per_domain > 0) {
    std::vector<int> partition;
    for (size_t i = 0; i < per_domain; ++i) partition.push_back(static_cast<int>(i));
    const bool ties = s.value("limitOption", "") == "LIMIT_OPTION_WITH_TIES";
    int64_t n = -1, off = 0;
    if (s.contains("limitCount")) {
      SLUICE_ASSIGN_OR_RETURN(n, ConstInt(s["limitCount"], "LIMIT"));
    }
    if (s.contains("limitOffset")) {
      SLUICE_ASSIGN_OR_RETURN(off, ConstInt(s["limitOffset"], "OFFSET"));
    }
    if (ties && off > 0)
      return SqlUnsupported(sql_, s["limitOffset"], "OFFSET with FETCH ... WITH TIES");
    if (n < 0 && off == 0) return plan;
    ExprPtr past_offset;  // rank > OFFSET
    if (off > 0) {
      ExprPtr r = MakeColumn(static_cast<int>(plan->columns.size()), SqlType::BigInt(false));
      SLUICE_ASSIGN_OR_RETURN(
          past_offset, Call(">", {r, MakeLiteral(Value::Int(off), SqlType::BigInt(false))}, s));
    }
    return RankedUpTo(plan, partition, order, ties ? RankKind::kRank : RankKind::kRowNumber,
                      n < 0 ? std::numeric_limits<int64_t>::max() : off + n, past_offset);
  }
  if (s.value("limitOption", "") == "LIMIT_OPTION_WITH_TIES") {
    // FETCH FIRST n ROWS WITH TIES: the rows whose RANK() in the ORDER BY is
    // at most n (the first n and every row tied with the n-th).
    if (s.contains("limitOffset")) {
      return SqlUnsupported(sql_, s["limitOffset"], "OFFSET with FETCH ... WITH TIES");
    }
    SLUICE_ASSIGN_OR_RETURN(int64_t n, ConstInt(s["limitCount"], "FETCH FIRST"));
    return RankedUpTo(plan, {}, order, RankKind::kRank, n);
  }
  auto t = std::make_shared<PlanNode>();
  t->kind = PlanKind::kTopK;
  t->columns = plan->columns;
  t->inputs = {plan};
  t->order = order;
  if (s.contains("limitCount")) {
    SLUICE_ASSIGN_OR_RETURN(t->limit, ConstInt(s["limitCount"], "LIMIT"));
  }
  if (s.contains("limitOffset")) {
    SLUICE_ASSIGN_OR_RETURN(t->offset, ConstInt(s["limitOffset"], "OFFSET"));
  }
  return PlanPtr(t);
}

Result<BoundQuery> Binder::BindSetOp(const Json& s) {
  // The branches of a set operation are SelectStmt bodies, not wrapped. In a
  // correlated subquery, each branch reads the enclosing query's columns (is
  // bound over the same domain, whose columns lead both).
  std::optional<Frame> frame;
  if (!frames_.empty() && !frames_.back().taken) {
    frame = frames_.back();
    frames_.back().taken = true;
  }
  auto branch = [&](const Json& b) -> Result<BoundQuery> {
    if (!frame) return BindQuery(b);
    frames_.push_back(*frame);
    auto q = BindQuery(b);
    frames_.pop_back();
    return q;
  };
  const size_t k = frame ? frame->domain_cols.size() : 0;
  SLUICE_ASSIGN_OR_RETURN(BoundQuery l, branch(s["larg"]));
  SLUICE_ASSIGN_OR_RETURN(BoundQuery r, branch(s["rarg"]));
  if (l.visible != r.visible) {
    return SqlError(sql_, s,
                    "each " + std::string(s.value("op", "")).substr(6) +
                        " query must have the same number of columns");
  }
  auto strip = [](BoundQuery& q) {
    if (q.plan->columns.size() == q.visible) return q.plan;
    std::vector<ExprPtr> ex;
    std::vector<std::string> names;
    for (size_t i = 0; i < q.visible; ++i) {
      ex.push_back(MakeColumn(static_cast<int>(i), q.plan->columns[i].type));
      names.push_back(q.plan->columns[i].name);
    }
    return MakeProject(q.plan, ex, names);
  };
  PlanPtr lp = strip(l), rp = strip(r);
  // Cast both sides to common column types.
  std::vector<ExprPtr> lx, rx;
  std::vector<std::string> names;
  bool lcast = false, rcast = false;
  // A column that is a bare NULL or quoted literal on one side has no type
  // of its own: it takes the other side's, as in PostgreSQL.
  auto unknown = [](const PlanPtr& p, size_t i) {
    return p->kind == PlanKind::kProject && i < p->exprs.size() &&
           p->exprs[i]->kind == ExprKind::kLiteral && p->exprs[i]->untyped;
  };
  std::string op_name = s.value("op", "");
  op_name = op_name.substr(op_name.find('_') + 1);  // SETOP_UNION: UNION
  for (size_t i = 0; i < l.visible; ++i) {
    const SqlType& a = lp->columns[i].type;
    const SqlType& b = rp->columns[i].type;
    auto t = unknown(lp, i) && !unknown(rp, i)   ? Result<SqlType>(b)
             : unknown(rp, i) && !unknown(lp, i) ? Result<SqlType>(a)
                                                 : CommonType(a, b);
    if (!t.ok()) return SqlError(sql_, s, op_name + " " + t.status().message());
    SqlType ct = t->WithNullable(a.nullable() || b.nullable());
    lx.push_back(MakeCast(MakeColumn(static_cast<int>(i), a), ct));
    rx.push_back(MakeCast(MakeColumn(static_cast<int>(i), b), ct));
    lcast |= !(a == ct);
    rcast |= !(b == ct);
    names.push_back(lp->columns[i].name);
  }
  if (lcast) lp = MakeProject(lp, lx, names);
  if (rcast) rp = MakeProject(rp, rx, names);
  std::string op = s["op"];
  bool all = s.value("all", false);
  auto n = std::make_shared<PlanNode>();
  n->columns = lp->columns;
  for (size_t i = 0; i < n->columns.size(); ++i) {
    n->columns[i].type = n->columns[i].type.WithNullable(lp->columns[i].type.nullable() ||
                                                         rp->columns[i].type.nullable());
  }
  n->inputs = {lp, rp};
  if (op == "SETOP_UNION") {
    n->kind = PlanKind::kUnionAll;
  } else if (op == "SETOP_EXCEPT") {
    n->kind = all ? PlanKind::kExceptAll : PlanKind::kExcept;
  } else if (op == "SETOP_INTERSECT") {
    n->kind = all ? PlanKind::kIntersectAll : PlanKind::kIntersect;
  } else {
    return SqlUnsupported(sql_, s, op);
  }
  PlanPtr plan = n;
  if (op == "SETOP_UNION" && !all) {
    auto d = std::make_shared<PlanNode>();
    d->kind = PlanKind::kDistinct;
    d->columns = plan->columns;
    d->inputs = {plan};
    plan = d;
  }
  BoundQuery q;
  q.plan = plan;
  q.visible = plan->columns.size();
  // ORDER BY of a set operation: output columns (named as the left branch's)
  // by position or name.
  for (const Json& sb : s.value("sortClause", Json::array())) {
    const Json& by = sb["SortBy"];
    SLUICE_ASSIGN_OR_RETURN(int col, OrderByColumn(by["node"], names, k, q.visible));
    if (col < 0) {
      return SqlUnsupported(sql_, by["node"], "ORDER BY of a set operation on an expression");
    }
    q.order.push_back(SortKeyOf(by, col));
  }
  SLUICE_ASSIGN_OR_RETURN(q.plan, ApplyLimit(s, plan, q.order, k));
  return q;
}

void CollectCalls(const Json& n, const std::function<bool(const Json& call)>& is,
                  std::vector<const Json*>* out) {
  if (n.is_object()) {
    if (n.contains("SubLink")) return;
    auto fc = n.find("FuncCall");
    if (fc != n.end() && !fc->contains("over") && is(*fc)) {
      out->push_back(&n);
      return;
    }
  }
  if (!n.is_object() && !n.is_array()) return;
  for (const Json& v : n) CollectCalls(v, is, out);
}

void CollectSetCalls(const Json& n, std::vector<const Json*>* out) {
  CollectCalls(
      n, [](const Json& call) { return IsSeriesFunction(Str(call["funcname"].back())); }, out);
}

namespace {

bool HasWindowCall(const Json& n) {
  if (n.is_object()) {
    if (n.contains("SubLink")) return false;
    if (n.contains("FuncCall") && n["FuncCall"].contains("over")) return true;
  }
  if (!n.is_object() && !n.is_array()) return false;
  for (const Json& v : n) {
    if (HasWindowCall(v)) return true;
  }
  return false;
}

}  // namespace

Result<std::vector<const Json*>> Binder::SelectListSetCalls(const Json& s) {
  if (!s.contains("targetList")) return std::vector<const Json*>();
  const Json& targets = s["targetList"];
  std::vector<const Json*> calls;
  CollectSetCalls(targets, &calls);
  if (calls.empty()) return calls;
  if (s.contains("groupClause") || s.contains("havingClause") || ContainsAggregate(targets)) {
    return SqlUnsupported(sql_, *calls[0], "A set-returning function in a grouped select list",
                          "Group in a subquery in FROM, and call it outside.");
  }
  if (HasWindowCall(targets)) {
    return SqlUnsupported(sql_, *calls[0],
                          "A set-returning function in a select list with window functions");
  }
  return calls;
}

namespace {

// The names of the columns the parse tree `n` reads (a ColumnRef's last
// field, USING's names), into `names`; whether it reads whole rows of
// `alias` (a star, or the alias alone) into `whole`. `skip`: the index of
// an item of `n`'s own FROM list to leave out (-1: none); `skip_node`: a
// node of `n` to leave out.
void ColumnsRead(const Json& n, const std::string& alias, int skip, std::set<std::string>* names,
                 bool* whole, const Json* skip_node = nullptr) {
  if (&n == skip_node) return;
  if (n.is_array()) {
    for (const Json& x : n) ColumnsRead(x, alias, -1, names, whole, skip_node);
    return;
  }
  if (!n.is_object()) return;
  if (n.contains("ColumnRef")) {
    const Json& fields = n["ColumnRef"].value("fields", Json::array());
    if (fields.empty() || fields.back().contains("A_Star") ||
        (fields.size() == 1 && Str(fields[0]) == alias)) {
      *whole = true;
    } else {
      names->insert(Str(fields.back()));
    }
    return;
  }
  if (n.contains("JoinExpr") && n["JoinExpr"].value("isNatural", false)) *whole = true;
  if (n.contains("usingClause")) {
    for (const Json& u : n["usingClause"]) names->insert(Str(u));
  }
  for (const auto& [key, child] : n.items()) {
    if (key == "fromClause" && skip >= 0 && child.is_array()) {
      for (size_t i = 0; i < child.size(); ++i) {
        if (static_cast<int>(i) != skip) ColumnsRead(child[i], alias, -1, names, whole, skip_node);
      }
      continue;
    }
    ColumnsRead(child, alias, -1, names, whole, skip_node);
  }
}

// The subqueries of FROM item `item`: itself, or those its joins join.
void FromSubqueries(Json& item, std::vector<Json*>* out) {
  if (item.contains("RangeSubselect")) out->push_back(&item);
  if (item.contains("JoinExpr")) {
    FromSubqueries(item["JoinExpr"]["larg"], out);
    FromSubqueries(item["JoinExpr"]["rarg"], out);
  }
}

// Whether the parse tree `n` holds a subquery.
bool ContainsSubLink(const Json& n) {
  if (n.is_object() && n.contains("SubLink")) return true;
  if (n.is_object() || n.is_array()) {
    for (const Json& x : n) {
      if (ContainsSubLink(x)) return true;
    }
  }
  return false;
}

// Whether the parse tree `n` calls a volatile function by name.
bool CallsVolatile(const Json& n) {
  if (n.is_object() && n.contains("FuncCall")) {
    static const std::set<std::string> kVolatile = {
        "random", "nextval", "setval", "currval", "gen_random_uuid", "clock_timestamp"};
    if (kVolatile.count(Str(n["FuncCall"]["funcname"].back()))) return true;
  }
  if (n.is_object() || n.is_array()) {
    for (const Json& x : n) {
      if (CallsVolatile(x)) return true;
    }
  }
  return false;
}

// PostgreSQL leaves out the outputs of a subquery in FROM that the query
// around it (`s`, whose FROM item `item_no` is `item`, or joins it) never
// reads, so a subquery in such an output that would fail (more than one
// row) is never evaluated. Here such outputs (named, holding a subquery,
// calling nothing volatile) become NULL, where leaving them out changes
// nothing else: a plain SELECT, no column names in its alias, no star or
// whole row of it read around it.
Json WithoutUnreadSubqueryOutputs(const Json& s, const Json& item, int item_no) {
  Json out = item;
  std::vector<Json*> subqueries;
  FromSubqueries(out, &subqueries);
  for (Json* node : subqueries) {
    const Json& rs = (*node)["RangeSubselect"];
    const Json& sub = rs["subquery"]["SelectStmt"];
    if (rs.value("lateral", false) || (rs.contains("alias") && rs["alias"].contains("colnames")) ||
        sub.value("op", "SETOP_NONE") != "SETOP_NONE" || !sub.contains("targetList")) {
      continue;
    }
    bool plain = true;
    for (const char* k : {"distinctClause", "sortClause", "groupClause", "havingClause",
                          "windowClause", "valuesLists"}) {
      plain = plain && !sub.contains(k);
    }
    if (!plain) continue;
    const std::string alias = rs.contains("alias") ? rs["alias"].value("aliasname", "") : "";
    std::set<std::string> read;
    bool whole = false;
    ColumnsRead(s, alias, item_no, &read, &whole);
    ColumnsRead(out, alias, -1, &read, &whole, node);
    if (whole) continue;
    for (Json& t : (*node)["RangeSubselect"]["subquery"]["SelectStmt"]["targetList"]) {
      Json& target = t["ResTarget"];
      if (!target.contains("name") || read.count(target.value("name", "")) ||
          !ContainsSubLink(target["val"]) || CallsVolatile(target["val"])) {
        continue;
      }
      target["val"] = Json{{"A_Const", {{"isnull", true}, {"location", -1}}}};
    }
  }
  return out;
}

}  // namespace

Result<BoundQuery> Binder::BindSimple(const Json& s) {
  // NOW() may be the step clock in this SELECT's own WHERE clause only.
  struct RestoreWhere {
    bool* flag;
    bool was;
    ~RestoreWhere() { *flag = was; }
  } restore_where{&now_in_where_, now_in_where_};
  now_in_where_ = false;
  const bool order_from_input = std::exchange(order_from_input_, false);
  // A subquery being decorrelated: this SELECT is the one its frame is for.
  // (A copy: binding nested subqueries pushes frames, which may move them.)
  std::optional<Frame> frame;
  if (!frames_.empty() && !frames_.back().taken) {
    frames_.back().taken = true;
    frame = frames_.back();
  }
  // FROM: each item bound on its own, then joined.
  std::vector<PlanPtr> items;
  std::vector<size_t> widths;
  Ctx ctx;
  if (frame && frame->refs != nullptr) {
    ctx.outer = frame->outer;
    ctx.outer_refs = frame->refs;
  }
  // LATERAL subqueries that read earlier items: joined once the items are
  // (as a correlated subquery is), their columns after the items'.
  std::vector<ScopeCol> lateral_cols;
  // A set-returning function in the select list is a LATERAL call after the
  // FROM items, whose rows the select list reads (a hidden column).
  SLUICE_ASSIGN_OR_RETURN(std::vector<const Json*> set_calls, SelectListSetCalls(s));
  // The same call twice gives the same rows in step: one series. Different
  // calls run in lockstep, a series of a column each.
  std::vector<const Json*> distinct_calls;
  std::vector<size_t> call_column;  // per call of set_calls: its distinct call
  for (const Json* c : set_calls) {
    size_t d = 0;
    while (d < distinct_calls.size() && Canonical(*distinct_calls[d]) != Canonical(*c)) ++d;
    if (d == distinct_calls.size()) distinct_calls.push_back(c);
    call_column.push_back(d);
  }
  const bool in_step = distinct_calls.size() > 1;
  const Json* set_call = set_calls.empty() || in_step ? nullptr : set_calls[0];
  Json set_item;
  if (set_call != nullptr) {
    Json list;
    list["List"]["items"] = Json::array();
    list["List"]["items"].push_back(*set_call);
    set_item["RangeFunction"]["lateral"] = true;
    set_item["RangeFunction"]["functions"] = Json::array();
    set_item["RangeFunction"]["functions"].push_back(list);
  }
  auto take_set_column = [&] {
    ctx.scope.back().hidden = true;
    for (const Json* c : set_calls)
      set_cols_[&(*c)["FuncCall"]] = static_cast<int>(ctx.scope.size()) - 1;
  };
  // LATERAL items see the items before them: the other items bound so far,
  // the LATERAL items' columns so far (which follow all other items'), and
  // the domain's (which follow those of the items, once all are bound). Their
  // references are to such a view of the scope, mapped to the final columns
  // once those are known.
  struct LeftCol {
    enum { kItem, kLateral, kDomain } from;
    int at;
  };
  std::vector<std::pair<size_t, std::vector<LeftCol>>> lateral_lefts;  // pending index -> view
  auto bind_lateral = [&](const Json& item, bool domain_only, int item_no) -> Result<bool> {
    Ctx left;
    left.outer = ctx.outer;
    left.outer_refs = ctx.outer_refs;
    std::vector<LeftCol> view;
    if (!domain_only) {
      left.scope = ctx.scope;
      left.columnless = ctx.columnless;
      for (size_t i = 0; i < ctx.scope.size(); ++i) view.push_back({LeftCol::kItem, int(i)});
      left.scope.insert(left.scope.end(), lateral_cols.begin(), lateral_cols.end());
      for (size_t i = 0; i < lateral_cols.size(); ++i) view.push_back({LeftCol::kLateral, int(i)});
    }
    if (frame && frame->domain != nullptr) {
      left.scope.insert(left.scope.end(), frame->domain_cols.begin(), frame->domain_cols.end());
      for (size_t i = 0; i < frame->domain_cols.size(); ++i)
        view.push_back({LeftCol::kDomain, int(i)});
    }
    SLUICE_ASSIGN_OR_RETURN(std::optional<Lateral> lat, BindLateral(item, left, nullptr));
    if (!lat) return false;
    // A JOIN bound as LATERAL (SELECT * FROM join): its columns keep the
    // names and qualifiers they have in the join.
    auto named = join_star_cols_.find(&item["RangeSubselect"]["subquery"]["SelectStmt"]);
    if (named != join_star_cols_.end() && named->second.size() == lat->cols.size()) {
      for (size_t i = 0; i < lat->cols.size(); ++i) {
        ScopeCol c = named->second[i];
        c.type = lat->cols[i].type;
        c.correlated = false;
        c.domain = -1;
        lat->cols[i] = c;
      }
    }
    Extension x;
    x.sub = lat->plan;
    x.type = JoinType::kInner;
    x.null_safe = true;
    x.domain = lat->domain;
    x.domain_cols = lat->refs;  // mapped with the keys, below
    for (size_t i = 0; i < lat->refs.size(); ++i) {
      x.left_keys.push_back(
          MakeColumn(lat->refs[i], left.scope[static_cast<size_t>(lat->refs[i])].type));
      x.right_keys.push_back(MakeColumn(static_cast<int>(i), lat->plan->columns[i].type));
      lateral_cols.push_back(
          {"", lat->plan->columns[i].name, lat->plan->columns[i].type, false, /*hidden=*/true});
    }
    lateral_lefts.emplace_back(ctx.pending.size(), std::move(view));
    ctx.pending.push_back(x);
    for (ScopeCol c : lat->cols) {
      c.from_item = item_no;
      lateral_cols.push_back(c);
    }
    return true;
  };
  // Subqueries in FROM read the columns of the queries around this one, not
  // its own. While finding which ones this query reads, they look through a
  // scope with no columns of its own to the enclosing queries'; over a
  // domain, those that read it are joined as LATERAL items that see only it.
  Ctx enclosing;
  enclosing.outer = ctx.outer;
  enclosing.outer_refs = ctx.outer_refs;
  struct RestoreFromOuter {
    const Ctx** at;
    const Ctx* was;
    ~RestoreFromOuter() { *at = was; }
  } restore_from_outer{&from_outer_, from_outer_};
  from_outer_ = ctx.outer != nullptr ? &enclosing : nullptr;
  std::vector<std::pair<Json, int>> lateral_series;  // bound once every item is
  std::deque<Json> pruned_items;
  int item_no = -1;
  for (const Json& item : s.value("fromClause", Json::array())) {
    ++item_no;
    const size_t first = ctx.scope.size();
    if (item.contains("RangeFunction") && IsLateralSeries(item)) {
      lateral_series.emplace_back(item, item_no);
      continue;
    }
    if (item.contains("RangeSubselect")) {
      const bool lateral = item["RangeSubselect"].value("lateral", false);
      if (lateral || (frame && frame->domain != nullptr)) {
        SLUICE_ASSIGN_OR_RETURN(bool joined, bind_lateral(item, !lateral, item_no));
        if (joined) continue;
      }
    }
    if (item.contains("JoinExpr") && !s.contains(kJoinAsLateral) &&
        ((frame && frame->domain != nullptr) || HasLateralItem(item))) {
      // A JOIN whose LATERAL items read earlier items, or (over a domain)
      // whose items or conditions read the enclosing query: LATERAL (SELECT
      // * FROM join), joined on the columns it reads.
      Json star = {{"ColumnRef", {{"fields", Json::array({Json{{"A_Star", Json::object()}}})}}}};
      Json sel = {{"targetList", Json::array({Json{{"ResTarget", {{"val", star}}}}})},
                  {"fromClause", Json::array({item})},
                  {"limitOption", "LIMIT_OPTION_DEFAULT"},
                  {"op", "SETOP_NONE"},
                  {kJoinAsLateral, true}};
      const Json wrapped = {
          {"RangeSubselect", {{"lateral", true}, {"subquery", {{"SelectStmt", std::move(sel)}}}}}};
      SLUICE_ASSIGN_OR_RETURN(bool joined, bind_lateral(wrapped, false, item_no));
      join_star_cols_.erase(&wrapped["RangeSubselect"]["subquery"]["SelectStmt"]);
      if (joined) continue;
    }
    if (item.contains("JoinExpr") && s.contains(kJoinAsLateral) && frame &&
        frame->domain != nullptr) {
      // That SELECT over its domain: the join carries the domain's columns.
      JoinDomain d{frame->domain, frame->domain_cols, frame->outer, frame->refs};
      PlanPtr p;
      std::vector<ScopeCol> cols;
      SLUICE_RETURN_IF_ERROR(BindItemOverDomain(item, d, &p, &cols));
      items.push_back(p);
      widths.push_back(cols.size());
      ctx.scope.insert(ctx.scope.end(), cols.begin(), cols.end());
      for (size_t i = first; i < ctx.scope.size(); ++i) ctx.scope[i].from_item = item_no;
      continue;
    }
    if (item.contains("RangeFunction")) {
      std::vector<SortKey> order;
      const bool alone = s["fromClause"].size() == 1 && set_call == nullptr;
      SLUICE_RETURN_IF_ERROR(
          BindTableFunction(item, &items, &widths, &ctx.scope, alone ? &order : nullptr));
      for (const SortKey& k : order) {
        const size_t at = first + static_cast<size_t>(k.column);
        ctx.input_order.push_back(
            {MakeColumn(static_cast<int>(at), ctx.scope[at].type), k.desc, k.nulls_first});
      }
    } else {
      PlanPtr p;
      std::vector<ScopeCol> cols;
      std::vector<SortKey> order;
      const bool alone = s["fromClause"].size() == 1;
      // Kept as long as the binding, which may keep pointers into it.
      pruned_items.push_back(WithoutUnreadSubqueryOutputs(s, item, item_no));
      // A LATERAL item that reads no column of the earlier items may still
      // name one without columns (t.*): it sees their names.
      Ctx with_columnless = from_outer_ != nullptr ? *from_outer_ : Ctx();
      const Ctx* was_outer = from_outer_;
      if (item.contains("RangeSubselect") && item["RangeSubselect"].value("lateral", false) &&
          !ctx.columnless.empty()) {
        with_columnless.columnless.insert(with_columnless.columnless.end(), ctx.columnless.begin(),
                                          ctx.columnless.end());
        from_outer_ = &with_columnless;
      }
      Status bound = BindFromItem(pruned_items.back(), &p, &cols, alone ? &order : nullptr);
      from_outer_ = was_outer;
      SLUICE_RETURN_IF_ERROR(bound);
      if (cols.empty()) {
        if (std::optional<std::string> known = FromItemName(pruned_items.back())) {
          ctx.columnless.push_back(*known);
        }
      }
      for (const SortKey& k : order) {
        ctx.input_order.push_back({MakeColumn(k.column, cols[static_cast<size_t>(k.column)].type),
                                   k.desc, k.nulls_first});
      }
      items.push_back(p);
      widths.push_back(cols.size());
      ctx.scope.insert(ctx.scope.end(), cols.begin(), cols.end());
    }
    for (size_t i = first; i < ctx.scope.size(); ++i) ctx.scope[i].from_item = item_no;
  }
  if (set_call != nullptr && !IsLateralSeries(set_item)) {
    SLUICE_RETURN_IF_ERROR(BindTableFunction(set_item, &items, &widths, &ctx.scope));
    take_set_column();
  }
  // Over a domain, the outer columns are one more FROM item, and they lead
  // the output (and the GROUP BY) so that the enclosing query can join on them.
  // (A join that reads the domain carries its columns already.)
  std::vector<ExprPtr> domain_refs;
  const bool over_domain = frame && frame->domain != nullptr;
  std::vector<int> domain_at;
  if (over_domain) {
    for (size_t i = 0; i < frame->domain_cols.size(); ++i) {
      for (size_t c = 0; c < ctx.scope.size(); ++c) {
        if (ctx.scope[c].domain == static_cast<int>(i) && !ctx.scope[c].hidden)
          domain_at.push_back(static_cast<int>(c));
      }
    }
    if (domain_at.size() != frame->domain_cols.size()) {
      domain_at.clear();
      const int base = static_cast<int>(ctx.scope.size());
      items.push_back(frame->domain);
      widths.push_back(frame->domain_cols.size());
      for (size_t i = 0; i < frame->domain_cols.size(); ++i) {
        ctx.scope.push_back(frame->domain_cols[i]);
        domain_at.push_back(base + static_cast<int>(i));
      }
    }
    for (size_t i = 0; i < domain_at.size(); ++i) {
      domain_refs.push_back(
          MakeColumn(domain_at[i], ctx.scope[static_cast<size_t>(domain_at[i])].type));
    }
  }
  // The LATERAL items' references, from their views onto the final columns.
  const int lateral_base = static_cast<int>(ctx.scope.size());
  for (const auto& [at, view] : lateral_lefts) {
    Extension& x = ctx.pending[at];
    for (size_t i = 0; i < x.domain_cols.size(); ++i) {
      const LeftCol& c = view[static_cast<size_t>(x.domain_cols[i])];
      x.domain_cols[i] = c.from == LeftCol::kItem      ? c.at
                         : c.from == LeftCol::kLateral ? lateral_base + c.at
                                                       : domain_at[static_cast<size_t>(c.at)];
      x.left_keys[i] = MakeColumn(x.domain_cols[i], x.left_keys[i]->type);
    }
  }
  const size_t k = domain_refs.size();
  if (items.empty()) {
    items.push_back(OneEmptyRow());
    widths.push_back(0);
  }
  const size_t from_width = ctx.scope.size();
  ctx.scope.insert(ctx.scope.end(), lateral_cols.begin(), lateral_cols.end());
  for (const auto& [item, no] : lateral_series) {
    SLUICE_RETURN_IF_ERROR(BindLateralSeries(item, ctx));
    ctx.scope.back().from_item = no;
  }
  if (set_call != nullptr && IsLateralSeries(set_item)) {
    SLUICE_RETURN_IF_ERROR(BindLateralSeries(set_item, ctx));
    take_set_column();
  }
  if (in_step) {
    const size_t first = ctx.scope.size();
    SLUICE_RETURN_IF_ERROR(BindSetCallsInStep(distinct_calls, ctx));
    for (size_t i = first; i < ctx.scope.size(); ++i) ctx.scope[i].hidden = true;
    for (size_t i = 0; i < set_calls.size(); ++i) {
      set_cols_[&(*set_calls[i])["FuncCall"]] = static_cast<int>(first + call_column[i]);
    }
  }
  std::vector<ExprPtr> conjuncts;
  std::vector<TimeBound> time_bounds;
  if (s.contains("whereClause")) {
    const bool outer_where = now_in_where_;
    now_in_where_ = true;
    auto bound = BindExpr(s["whereClause"], ctx);
    now_in_where_ = outer_where;
    SLUICE_ASSIGN_OR_RETURN(ExprPtr w, std::move(bound));
    if (w->type.id() != TypeId::kBoolean) {
      return SqlError(sql_, s["whereClause"],
                      "argument of WHERE must be type boolean, not type " + PgTypeName(w->type));
    }
    SplitConjuncts(w, &conjuncts);
    if (Status taken = TakeTemporalConjuncts(&conjuncts, &time_bounds); !taken.ok()) {
      temporal_refused_ = true;  // BindQuery tries the clock relation instead
      return taken;
    }
  }
  std::vector<ExprPtr> from_conj, ext_conj;
  for (const ExprPtr& c : conjuncts) {
    std::vector<int> cols;
    CollectColumns(*c, &cols);
    bool ext = std::any_of(cols.begin(), cols.end(),
                           [&](int x) { return x >= static_cast<int>(from_width); });
    (ext ? ext_conj : from_conj).push_back(c);
  }
  SLUICE_ASSIGN_OR_RETURN(PlanPtr plan, BuildJoins(items, widths, from_conj, from_width));
  size_t applied = 0;
  SLUICE_ASSIGN_OR_RETURN(plan, ApplyExtensions(plan, ctx, &applied));
  if (!ext_conj.empty()) plan = MakeFilter(plan, AndAll(ext_conj));
  if (!time_bounds.empty()) plan = MakeTemporalFilter(plan, std::move(time_bounds));
  // From here on the plan's columns are the scope's columns. The targets are
  // those of `s` itself: calls bound in advance are known by address.
  static const Json kNoTargets = Json::array();
  const Json& targets = s.contains("targetList") ? s["targetList"] : kNoTargets;
  const Json* sort_clause = s.contains("sortClause") ? &s["sortClause"] : nullptr;
  bool grouped = s.contains("groupClause") || s.contains("havingClause") ||
                 ContainsAggregate(targets) ||
                 ContainsAggregate(s.value("sortClause", Json::array()));

  std::vector<ExprPtr> outs;
  std::vector<std::string> names;
  // Expands * and t.* into columns.
  auto star = [&](const Json& val, bool* is_star) -> Status {
    *is_star = false;
    auto [kind, body] = Node(val);
    if (kind != "ColumnRef") return Status::OK();
    const Json& fields = (*body)["fields"];
    if (!Node(fields.back()).first.empty() && Node(fields.back()).first != "A_Star")
      return Status::OK();
    *is_star = true;
    std::string qual = fields.size() == 2 ? Str(fields[0]) : "";
    // * shows neither outer columns nor those that subqueries added.
    std::vector<int> cols = StarColumns(qual, ctx, /*outer=*/false);
    // t.* of a table of an enclosing query: its columns, read as outer
    // references (over a domain, they are the domain's columns).
    if (cols.empty() && !qual.empty()) cols = StarColumns(qual, ctx, /*outer=*/true);
    if (cols.empty() && !qual.empty()) {
      for (const Ctx* level = &ctx; level->outer != nullptr; level = level->outer) {
        const std::vector<int> outer_cols = StarColumns(qual, *level->outer, /*outer=*/true);
        for (int i : outer_cols) {
          const ScopeCol& c = level->outer->scope[static_cast<size_t>(i)];
          level->outer_refs->push_back(i);
          ++reads_.outer;
          outs.push_back(MakeLiteral(Value::Null(), c.type));
          names.push_back(c.name);
        }
        if (!outer_cols.empty()) return Status::OK();
      }
    }
    for (int i : cols) {
      outs.push_back(MakeColumn(i, ctx.scope[static_cast<size_t>(i)].type));
      names.push_back(ctx.scope[static_cast<size_t>(i)].name);
    }
    if (s.contains(kJoinAsLateral)) {
      std::vector<ScopeCol>& shown = join_star_cols_[&s];
      shown.clear();
      for (int i : cols) shown.push_back(ctx.scope[static_cast<size_t>(i)]);
    }
    const bool any = !cols.empty();
    if (!any && !qual.empty()) {
      // t.* of a table without columns: none.
      for (const Ctx* level = &ctx; level != nullptr; level = level->outer) {
        const auto& names = level->columnless;
        if (std::find(names.begin(), names.end(), qual) != names.end()) return Status::OK();
      }
      return SqlError(sql_, val, "missing FROM-clause entry for table \"" + qual + "\"");
    }
    if (!any && grouped) return Status::OK();
    return Status::OK();
  };

  Ctx agg_ctx;
  size_t agg_applied = 0;  // agg_ctx's extensions joined to the aggregate's input
  std::vector<AggCall> aggs;
  std::vector<std::string> agg_keys;
  std::vector<ExprPtr> keys;
  std::vector<std::string> key_strs;
  const bool has_group_by = s.contains("groupClause");
  for (const ExprPtr& d : domain_refs) {
    outs.push_back(d);
    names.push_back(ctx.scope[static_cast<size_t>(d->column)].name);
    keys.push_back(d);
    key_strs.push_back(Key(*d));
  }
  if (grouped) {
    // Group keys over the FROM scope: expressions, output positions or names.
    for (const Json& g : s.value("groupClause", Json::array())) {
      auto [kind, body] = Node(g);
      const Json* expr = &g;
      if (kind == "A_Const") {
        SLUICE_ASSIGN_OR_RETURN(int64_t pos, ConstInt(g, "GROUP BY position"));
        if (pos < 1 || pos > static_cast<int64_t>(targets.size())) {
          return SqlError(sql_, g,
                          "GROUP BY position " + std::to_string(pos) + " is not in select list");
        }
        expr = &targets[static_cast<size_t>(pos - 1)]["ResTarget"]["val"];
      } else if (kind == "ColumnRef" && (*body)["fields"].size() == 1) {
        std::string name = Str((*body)["fields"][0]);
        bool in_scope = std::any_of(ctx.scope.begin(), ctx.scope.end(),
                                    [&](const ScopeCol& c) { return c.name == name; });
        if (!in_scope) {
          for (const Json& t : targets) {
            if (t["ResTarget"].value("name", "") == name) expr = &t["ResTarget"]["val"];
          }
        }
      } else if (kind == "GroupingSet") {
        return SqlUnsupported(sql_, g, "GROUPING SETS");
      }
      SLUICE_ASSIGN_OR_RETURN(ExprPtr k, BindExpr(*expr, ctx));
      if (ctx.pending.size() != applied) return SqlUnsupported(sql_, g, "a subquery in GROUP BY");
      std::string ks = Key(*k);
      if (std::find(key_strs.begin(), key_strs.end(), ks) == key_strs.end()) {
        keys.push_back(k);
        key_strs.push_back(ks);
      }
    }
    // Bind the select list, HAVING and ORDER BY over the FROM scope with
    // aggregates collected, then move them onto the aggregate's output.
    agg_ctx.scope = ctx.scope;
    agg_ctx.outer = ctx.outer;  // outer columns are constants of a group
    agg_ctx.outer_refs = ctx.outer_refs;
    agg_ctx.input_order = ctx.input_order;
    agg_ctx.aggs = &aggs;
    agg_ctx.agg_keys = &agg_keys;
    // Window calls: computed over the groups, after HAVING.
    window_clause_ = s.contains("windowClause") ? &s["windowClause"] : nullptr;
    std::vector<WindowGroup> window_groups;
    SLUICE_ASSIGN_OR_RETURN(plan, BindWindows(targets, sort_clause, agg_ctx, plan, &window_groups));
    std::vector<ExprPtr> raw(outs.begin(), outs.end());       // the domain columns
    std::vector<const Json*> raw_nodes(raw.size(), nullptr);  // for the error's caret
    outs.clear();
    for (const Json& t : targets) {
      const Json& val = t["ResTarget"]["val"];
      bool is_star = false;
      size_t before = outs.size();
      SLUICE_RETURN_IF_ERROR(star(val, &is_star));
      if (is_star) {
        // Each column of * must then be a group key (checked below).
        raw.insert(raw.end(), outs.begin() + static_cast<ptrdiff_t>(before), outs.end());
        raw_nodes.resize(raw.size(), &val);
        outs.resize(before);
        continue;
      }
      SLUICE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(val, agg_ctx));
      raw.push_back(e);
      raw_nodes.push_back(&val);
      names.push_back(OutputName(t["ResTarget"]));
    }
    ExprPtr having;
    if (s.contains("havingClause")) {
      SLUICE_ASSIGN_OR_RETURN(having, BindExpr(s["havingClause"], agg_ctx));
      if (having->type.id() != TypeId::kBoolean) {
        return SqlError(sql_, s["havingClause"], "argument of HAVING must be type boolean");
      }
    }
    // A column of a table whose whole primary key is grouped has one value
    // per group (PostgreSQL's functional dependency): it becomes a key too.
    auto is_key = [&](int col) {
      return std::any_of(keys.begin(), keys.end(), [&](const ExprPtr& k) {
        return k->kind == ExprKind::kColumn && k->column == col;
      });
    };
    auto dependent = [&](int col) {
      const int scan = ctx.scope[static_cast<size_t>(col)].scan;
      if (scan < 0) return false;
      bool any = false;
      for (size_t i = 0; i < ctx.scope.size(); ++i) {
        if (ctx.scope[i].scan != scan || !ctx.scope[i].primary_key) continue;
        if (!is_key(static_cast<int>(i))) return false;
        any = true;
      }
      return any;
    };
    std::vector<int> used;
    for (const ExprPtr& e : raw) CollectColumns(*e, &used);
    if (having) CollectColumns(*having, &used);
    for (int col : used) {
      if (col >= static_cast<int>(ctx.scope.size()) || is_key(col) || !dependent(col)) continue;
      keys.push_back(MakeColumn(col, ctx.scope[static_cast<size_t>(col)].type));
      key_strs.push_back(Key(*keys.back()));
    }
    // Subqueries in aggregates' arguments and FILTER: joined to the rows
    // they read, before these are grouped.
    SLUICE_ASSIGN_OR_RETURN(plan, ApplyExtensions(plan, agg_ctx, &agg_applied));
    auto agg = std::make_shared<PlanNode>();
    agg->kind = PlanKind::kAggregate;
    agg->inputs = {plan};
    agg->group_keys = keys;
    agg->aggs = aggs;
    agg->global = keys.empty();
    // Without GROUP BY, a correlated aggregate has a row for every outer value.
    if (over_domain && !has_group_by) agg->domain = frame->domain;
    for (size_t i = 0; i < keys.size(); ++i) {
      std::string name = "?column?";
      if (keys[i]->kind == ExprKind::kColumn)
        name = ctx.scope[static_cast<size_t>(keys[i]->column)].name;
      agg->columns.push_back({name, StoredType(keys[i])});
    }
    for (const AggCall& a : aggs) agg->columns.push_back({"agg", a.type});
    plan = agg;
    agg_width_ = static_cast<int>(agg->columns.size());
    for (size_t i = 0; i < raw.size(); ++i) {
      SLUICE_ASSIGN_OR_RETURN(ExprPtr m, OntoAggregate(raw[i], keys, key_strs, ctx, raw_nodes[i]));
      outs.push_back(m);
    }
    if (having) {
      SLUICE_ASSIGN_OR_RETURN(ExprPtr h,
                              OntoAggregate(having, keys, key_strs, ctx, &s["havingClause"]));
      plan = MakeFilter(plan, h);
    }
    SLUICE_ASSIGN_OR_RETURN(
        plan, WindowsOverAggregate(std::move(window_groups), keys, key_strs, ctx, plan));
  } else {
    window_clause_ = s.contains("windowClause") ? &s["windowClause"] : nullptr;
    SLUICE_ASSIGN_OR_RETURN(plan, BindWindows(targets, sort_clause, ctx, plan));
    applied = ctx.pending.size();  // BindWindows joined its calls' subqueries
    for (const Json& t : targets) {
      const Json& val = t["ResTarget"]["val"];
      bool is_star = false;
      SLUICE_RETURN_IF_ERROR(star(val, &is_star));
      if (is_star) continue;
      SLUICE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(val, ctx));
      outs.push_back(e);
      names.push_back(OutputName(t["ResTarget"]));
    }
    SLUICE_ASSIGN_OR_RETURN(plan, ApplyExtensions(plan, ctx, &applied));
  }
  const size_t visible = outs.size();
  bool distinct = s.contains("distinctClause");
  const bool distinct_on = distinct && !s["distinctClause"].empty() &&
                           !s["distinctClause"][0].is_null() && !s["distinctClause"][0].empty();
  if (distinct_on) distinct = false;  // a first row per key, below
  // ORDER BY: output columns by position or name, or expressions computed as
  // hidden columns after the visible ones.
  // The output column an ORDER BY or DISTINCT ON item names: by position or
  // name, or an expression found among the outputs; -1, with the bound
  // expression in `*e`, for an expression they lack.
  auto output_column = [&](const Json& node, const char* clause, ExprPtr* e) -> Result<int> {
    SLUICE_ASSIGN_OR_RETURN(int col, OrderByColumn(node, names, k, visible));
    if (col >= 0) return col;
    Ctx& oc = grouped ? agg_ctx : ctx;
    SLUICE_ASSIGN_OR_RETURN(*e, BindExpr(node, oc));
    if (grouped && agg_ctx.pending.size() != agg_applied) {
      return SqlUnsupported(sql_, node, std::string("a subquery in an aggregate in ") + clause);
    }
    if (grouped) {
      SLUICE_ASSIGN_OR_RETURN(*e, OntoAggregate(*e, keys, key_strs, ctx, &node));
    } else if (ctx.pending.size() != applied) {
      return SqlUnsupported(sql_, node, std::string("a subquery in ") + clause);
    }
    const std::string key = Key(**e);
    for (size_t i = 0; i < outs.size(); ++i) {
      if (Key(*outs[i]) == key) col = static_cast<int>(i);
    }
    return col;
  };
  // A column computed only for ORDER BY or DISTINCT ON, after the visible ones.
  auto add_hidden = [&](ExprPtr e, const char* name) {
    outs.push_back(std::move(e));
    names.push_back(name);
    return static_cast<int>(outs.size() - 1);
  };
  std::vector<SortKey> order;
  // By reference: window calls in it are known by address.
  for (const Json& sb : sort_clause != nullptr ? *sort_clause : kNoTargets) {
    const Json& by = sb["SortBy"];
    const Json& node = by["node"];
    ExprPtr e;
    SLUICE_ASSIGN_OR_RETURN(int col, output_column(node, "ORDER BY", &e));
    if (col < 0) {
      if (distinct) {
        return SqlError(sql_, node,
                        "for SELECT DISTINCT, ORDER BY expressions must appear in select list");
      }
      col = add_hidden(e, "?order?");
    }
    order.push_back(SortKeyOf(by, col));
  }
  // LIMIT or OFFSET without ORDER BY over one ordered subquery (or a
  // set-returning function) takes its rows in that order, as PostgreSQL's
  // plan does (SELECT * FROM (SELECT ... ORDER BY c) s LIMIT 3); so does
  // ARRAY() of such a query, or a query over it.
  if (sort_clause == nullptr &&
      (s.contains("limitCount") || s.contains("limitOffset") || order_from_input) && !grouped &&
      !distinct && !distinct_on && !ctx.input_order.empty() && ctx.pending.size() == applied) {
    for (const Ctx::InputOrderKey& k : ctx.input_order) {
      int col = -1;
      for (size_t i = 0; i < outs.size(); ++i) {
        if (Key(*outs[i]) == Key(*k.key)) col = static_cast<int>(i);
      }
      if (col < 0) col = add_hidden(k.key, "?order?");
      order.push_back(SortKey{col, k.desc, k.nulls_first});
    }
  }
  std::vector<int> on_cols;  // DISTINCT ON: the key columns
  if (distinct_on) {
    for (const Json& node : s["distinctClause"]) {
      ExprPtr e;
      SLUICE_ASSIGN_OR_RETURN(int col, output_column(node, "DISTINCT ON", &e));
      on_cols.push_back(col >= 0 ? col : add_hidden(e, "?distinct?"));
    }
    // PostgreSQL: the ORDER BY starts with the DISTINCT ON keys (in any order).
    for (size_t i = 0; i < order.size() && i < on_cols.size(); ++i) {
      if (std::find(on_cols.begin(), on_cols.end(), order[i].column) == on_cols.end()) {
        return SqlError(sql_, s["sortClause"][i],
                        "SELECT DISTINCT ON expressions must match initial ORDER BY expressions");
      }
    }
  }
  plan = MakeProject(plan, outs, names);
  if (distinct_on) {
    // The first row of each key in the ORDER BY's order: a top-1 per key.
    plan = RankedUpTo(plan, on_cols, order, RankKind::kRowNumber, 1);
  }
  if (distinct) {
    auto d = std::make_shared<PlanNode>();
    d->kind = PlanKind::kDistinct;
    d->columns = plan->columns;
    d->inputs = {plan};
    plan = d;
  }
  SLUICE_ASSIGN_OR_RETURN(plan, ApplyLimit(s, plan, order, k));
  BoundQuery q;
  q.plan = plan;
  q.order = order;
  q.visible = visible;
  return q;
}

}  // namespace binding

using binding::Binder;
using binding::Ctx;
using binding::Node;
using binding::Str;

Result<SqlType> BindTypeName(std::string_view sql, const Json& type_name, const Catalog* catalog) {
  const Json& tn = type_name.contains("TypeName") ? type_name["TypeName"] : type_name;
  std::string name = Str(tn["names"].back());
  if (tn["names"].size() == 2 && Str(tn["names"][0]) == "information_schema") {
    // Its domains (cardinal_number, sql_identifier, ...).
    return SqlUnsupported(sql, type_name, "the type information_schema." + name);
  }
  std::vector<int64_t> mods;
  for (const Json& m : tn.value("typmods", Json::array())) {
    auto [kind, body] = Node(m);
    if (kind == "A_Const" && body->contains("ival"))
      mods.push_back((*body)["ival"].value("ival", int64_t{0}));
  }
  if (tn.contains("arrayBounds")) {
    // T[], T[n] and T ARRAY. PostgreSQL enforces neither sizes nor the
    // number of dimensions: T[][] is T[], whose values have any number of
    // dimensions. Arrays of rows and variants keep one level per bound
    // (ArrayHoldsSubArrays).
    Json elem = tn;
    elem.erase("arrayBounds");
    SLUICE_ASSIGN_OR_RETURN(SqlType t, BindTypeName(sql, elem, catalog));
    t = SqlType::Array(t);
    if (ArrayHoldsSubArrays(t)) return t;
    for (size_t i = 1; i < tn["arrayBounds"].size(); ++i) t = SqlType::Array(t);
    return t;
  }
  if (name.size() > 1 && name[0] == '_' && !tn.contains("arrayBounds")) {
    // _int4, _text: pg_type's names of the array types.
    Json elem = tn;
    elem["names"] = Json::array({Json{{"String", {{"sval", name.substr(1)}}}}});
    auto t = BindTypeName(sql, elem, catalog);
    if (t.ok() && t->id() != TypeId::kArray) return SqlType::Array(*t);
  }
  if (name == "int4" || name == "integer" || name == "int") return SqlType::Integer();
  if (name == "int8" || name == "bigint") return SqlType::BigInt();
  if (name == "int2" || name == "smallint") return SqlType::SmallInt();
  if (name == "tinyint") return SqlType::TinyInt();
  if (name == "float8" || name == "double") return SqlType::Double();
  if (name == "float4" || name == "real") return SqlType::Real();
  if (name == "bool" || name == "boolean") return SqlType::Boolean();
  if (name == "text" || name == "string" || name == "name") return SqlType::Varchar();
  if (name == "varchar") return SqlType::Varchar(mods.empty() ? -1 : static_cast<int>(mods[0]));
  if (name == "bpchar" || name == "char")
    return SqlType::Char(mods.empty() ? 1 : static_cast<int>(mods[0]));
  if (name == "bytea" || name == "varbinary") return SqlType::Varbinary();
  if (name == "binary") return SqlType::Binary(mods.empty() ? 1 : static_cast<int>(mods[0]));
  if (name == "numeric" || name == "decimal") {
    if (mods.empty()) return SqlType::Numeric();
    int p = static_cast<int>(mods[0]);
    int s = mods.size() > 1 ? static_cast<int>(mods[1]) : 0;
    if (p < 1 || p > kMaxDecimalPrecision)
      return SqlError(sql, type_name,
                      "NUMERIC precision " + std::to_string(p) + " must be between 1 and " +
                          std::to_string(kMaxDecimalPrecision));
    // PostgreSQL 15 also takes a negative scale and one above the
    // precision; Sluice's values have at most 38 digits after the point.
    if (s < 0 || s > p || s > kMaxDecimalDigits)
      return SqlUnsupported(
          sql, type_name,
          "NUMERIC scale " + std::to_string(s) + " with precision " + std::to_string(p));
    return SqlType::Decimal(p, s);
  }
  if (name == "date") return SqlType::Date();
  if (name == "time") return SqlType::Time();
  if (name == "timetz") return SqlType::TimeTz();
  if (name == "timestamp") return SqlType::Timestamp();
  if (name == "timestamptz") return SqlType::TimestampTz();
  if (name == "json" || name == "jsonb") return SqlType::Json(name == "jsonb");
  if (name == "interval") return SqlType::Interval();
  if (name == "variant") return SqlType::Variant();
  if (name == "int2vector") return SqlType::Int2Vector();
  if (name == "oidvector") return SqlType::OidVector();
  if (name == "oid") return SqlType::Oid();
  if (name == "point") return SqlType::Point();
  if (name == "money") return SqlType::Money();
  if (catalog != nullptr) {
    if (const SqlType* t = catalog->FindType(name)) return *t;
    if (const std::string* what = catalog->FindRefusedType(name)) {
      return SqlUnsupported(sql, type_name, *what + " \"" + name + "\"");
    }
    if (const TableDef* t = catalog->FindTable(name)) {
      // A table's name is also its rows' type, as in PostgreSQL.
      std::vector<std::string> names;
      std::vector<SqlType> fields;
      for (const Column& c : t->columns) {
        names.push_back(c.name);
        fields.push_back(c.type.WithNullable(true));
      }
      return SqlType::Row(std::move(names), std::move(fields));
    }
  }
  if (IsPostgresType(name)) {
    return SqlError(sql, type_name, "type " + name + " is not supported yet");
  }
  return SqlError(sql, type_name, "type \"" + name + "\" does not exist");
}

Result<BoundQuery> BindSelect(const Catalog& catalog, std::string_view sql, const Json& select) {
  Binder b(catalog, sql);
  Result<BoundQuery> q = catalog.has_aggregates()
                             ? b.BindQuery(binding::MarkUserAggregates(catalog, select))
                             : b.BindQuery(select);
  if (!q.ok()) return q;
  SLUICE_ASSIGN_OR_RETURN(q->plan, LiftDraws(q->plan, sql));
  return q;
}

Result<ExprPtr> BindOverColumns(const Catalog& catalog, std::string_view sql,
                                const std::vector<Column>& columns, const std::string& qualifier,
                                const Json& expr) {
  Binder b(catalog, sql);
  Ctx ctx;
  for (const Column& c : columns) ctx.scope.push_back({qualifier, c.name, c.type});
  SLUICE_ASSIGN_OR_RETURN(ExprPtr e, b.BindExpr(expr, ctx));
  if (!ctx.pending.empty()) return SqlUnsupported(sql, expr, "a subquery here");
  return FreshDraws(e);
}

Result<Value> EvalConstant(const Catalog& catalog, std::string_view sql, const Json& expr,
                           const SqlType& target) {
  Binder b(catalog, sql);
  Ctx empty;
  SLUICE_ASSIGN_OR_RETURN(ExprPtr e, b.BindExpr(expr, empty));
  if (!empty.pending.empty()) return SqlUnsupported(sql, expr, "a subquery here");
  e = FreshDraws(e);
  Value v;
  Status s = Eval(*e, Row{}, &v);
  if (s.ok()) s = AssignValue(v, e->type, target, &v);
  if (!s.ok()) return SqlError(sql, expr, s.message());
  return v;
}

}  // namespace sluice::sql
