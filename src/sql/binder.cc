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
    set_item["RangeFunction"][kWholeRows] = true;  // the select list reads a composite whole
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
      Json sel = {{"targetList", Json::array({StarTarget()})},
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
    const size_t first = ctx.scope.size();
    SLUICE_RETURN_IF_ERROR(BindLateralSeries(item, ctx));
    for (size_t i = first; i < ctx.scope.size(); ++i) ctx.scope[i].from_item = no;
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
  // The hidden columns by their expression's text: DISTINCT ON's keys are
  // ORDER BY's, though a subquery bound twice would be two columns.
  std::map<std::string, int> hidden_by_text;
  auto output_column = [&](const Json& node, const char* clause, ExprPtr* e) -> Result<int> {
    SLUICE_ASSIGN_OR_RETURN(int col, OrderByColumn(node, names, k, visible));
    if (col >= 0) return col;
    if (auto it = hidden_by_text.find(Canonical(node)); it != hidden_by_text.end()) {
      return it->second;
    }
    Ctx& oc = grouped ? agg_ctx : ctx;
    SLUICE_ASSIGN_OR_RETURN(*e, BindExpr(node, oc));
    if (grouped && agg_ctx.pending.size() != agg_applied) {
      return SqlUnsupported(sql_, node, std::string("a subquery in an aggregate in ") + clause);
    }
    if (grouped) {
      SLUICE_ASSIGN_OR_RETURN(*e, OntoAggregate(*e, keys, key_strs, ctx, &node));
    } else if (ctx.pending.size() != applied) {
      // Its subqueries join the rows as the select list's do (their columns
      // come after those the select list reads).
      SLUICE_ASSIGN_OR_RETURN(plan, ApplyExtensions(plan, ctx, &applied));
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
      hidden_by_text[Canonical(node)] = col;
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
  if (name == "jsonpath") return SqlType::JsonPath();
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
