#include "sql/binder.h"

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>

#include "sql/functions.h"

namespace sluice::sql {
namespace {

// ---------------------------------------------------------------- helpers

// {"Kind": {...}} -> ("Kind", {...})
std::pair<std::string, const Json*> Node(const Json& n) {
  if (!n.is_object() || n.size() != 1) return {"", &n};
  return {n.begin().key(), &n.begin().value()};
}

std::string Str(const Json& n) {
  auto [kind, body] = Node(n);
  if (kind == "String") return body->value("sval", "");
  return "";
}

const Json& Field(const Json& body, const char* name) {
  static const Json kNull;
  auto it = body.find(name);
  return it == body.end() ? kNull : *it;
}

bool IsAggregateName(const std::string& name) {
  return name == "count" || name == "sum" || name == "min" || name == "max" || name == "avg";
}

// True if `n` has an aggregate call outside any subquery.
bool ContainsAggregate(const Json& n) {
  if (n.is_array()) {
    for (const Json& x : n) {
      if (ContainsAggregate(x)) return true;
    }
    return false;
  }
  if (!n.is_object()) return false;
  for (auto it = n.begin(); it != n.end(); ++it) {
    if (it.key() == "SubLink" || it.key() == "SelectStmt") continue;
    if (it.key() == "FuncCall" && it->contains("funcname") && !it->contains("over")) {
      const Json& names = (*it)["funcname"];
      if (!names.empty() && IsAggregateName(Str(names.back()))) return true;
    }
    if (ContainsAggregate(*it)) return true;
  }
  return false;
}

struct ScopeCol {
  std::string qualifier;
  std::string name;
  SqlType type;
  // A column of the enclosing query, seen by a correlated subquery: it is
  // found only when no column of the subquery's own FROM has the name.
  bool correlated = false;
  // A column that a subquery's join added: never found by name, nor by *.
  bool hidden = false;
};

// A join that binding an expression asked for: the current plan is joined
// with `sub`, whose columns are appended to the scope.
struct Extension {
  PlanPtr sub;
  JoinType type = JoinType::kLeft;
  std::vector<ExprPtr> left_keys, right_keys;
  bool null_safe = false;
  // A correlated subquery reads the distinct values of the outer columns
  // `domain_cols`; the node is filled in once the outer plan is built.
  std::shared_ptr<PlanNode> domain;
  std::vector<int> domain_cols;
};

struct Ctx {
  std::vector<ScopeCol> scope;
  std::vector<Extension> pending;
  // Aggregation: while binding the select list and HAVING of a grouped
  // query, aggregate calls are collected here and bound as kAggRef-like
  // placeholders (see Binder::AggPlaceholder).
  std::vector<AggCall>* aggs = nullptr;
  std::vector<std::string>* agg_keys = nullptr;
  bool in_aggregate = false;
  // While finding which outer columns a subquery uses: the outer context,
  // and where to record them.
  const Ctx* outer = nullptr;
  std::vector<int>* outer_refs = nullptr;
};

// Marks a placeholder for aggregate j: a column reference far past any scope.
constexpr int kAggBase = 1 << 24;

PlanPtr MakeFilter(PlanPtr in, ExprPtr pred) {
  auto n = std::make_shared<PlanNode>();
  n->kind = PlanKind::kFilter;
  n->columns = in->columns;
  n->inputs = {std::move(in)};
  n->predicate = std::move(pred);
  return n;
}

// The type a computed column is stored with: a column reference keeps its
// nullability; anything computed may be NULL (CASE without ELSE, NULLIF, a
// NULL argument), so it is stored as nullable.
SqlType StoredType(const ExprPtr& e) {
  return e->kind == ExprKind::kColumn ? e->type : e->type.WithNullable(true);
}

PlanPtr MakeProject(PlanPtr in, std::vector<ExprPtr> exprs, std::vector<std::string> names) {
  auto n = std::make_shared<PlanNode>();
  n->kind = PlanKind::kProject;
  for (size_t i = 0; i < exprs.size(); ++i) n->columns.push_back({names[i], StoredType(exprs[i])});
  n->inputs = {std::move(in)};
  n->exprs = std::move(exprs);
  return n;
}

PlanPtr MakeJoin(PlanPtr l, PlanPtr r, JoinType type, std::vector<ExprPtr> lk,
                 std::vector<ExprPtr> rk, ExprPtr residual, bool null_safe = false) {
  auto n = std::make_shared<PlanNode>();
  n->kind = PlanKind::kJoin;
  n->columns = l->columns;
  for (const Column& c : r->columns) n->columns.push_back(c);
  if (type == JoinType::kRight || type == JoinType::kFull) {
    for (size_t i = 0; i < l->columns.size(); ++i)
      n->columns[i].type = n->columns[i].type.WithNullable(true);
  }
  if (type == JoinType::kLeft || type == JoinType::kFull) {
    for (size_t i = l->columns.size(); i < n->columns.size(); ++i) {
      n->columns[i].type = n->columns[i].type.WithNullable(true);
    }
  }
  n->inputs = {std::move(l), std::move(r)};
  n->join_type = type;
  n->left_keys = std::move(lk);
  n->right_keys = std::move(rk);
  n->predicate = std::move(residual);
  n->null_safe = null_safe;
  return n;
}

PlanPtr OneEmptyRow() {
  auto n = std::make_shared<PlanNode>();
  n->kind = PlanKind::kValues;
  n->rows = {Row{}};
  return n;
}

// Columns referenced by `e` (kAggBase placeholders excluded).
void CollectColumns(const Expr& e, std::vector<int>* out) {
  if (e.kind == ExprKind::kColumn && e.column < kAggBase) out->push_back(e.column);
  for (const ExprPtr& a : e.args) CollectColumns(*a, out);
}

// `e` with every column index shifted by `delta`.
ExprPtr Shift(const ExprPtr& e, int delta) {
  if (e->kind == ExprKind::kColumn) return MakeColumn(e->column + delta, e->type);
  if (e->args.empty()) return e;
  auto copy = std::make_shared<Expr>(*e);
  for (ExprPtr& a : copy->args) a = Shift(a, delta);
  return copy;
}

void SplitConjuncts(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (e->kind == ExprKind::kAnd) {
    for (const ExprPtr& a : e->args) SplitConjuncts(a, out);
  } else {
    out->push_back(e);
  }
}

ExprPtr AndAll(const std::vector<ExprPtr>& cs) {
  if (cs.empty()) return nullptr;
  if (cs.size() == 1) return cs[0];
  return MakeNode(ExprKind::kAnd, SqlType::Boolean(), cs);
}

std::string Key(const Expr& e) { return e.ToString() + ":" + e.type.ToString(); }

// If `item` ends in ROW_NUMBER() (a Project over a kRank node without a
// limit) and `pred` keeps rows numbered up to k (rn <= k, rn < k, rn = 1),
// returns the item with the rank node limited to k: a top-k per partition.
PlanPtr PushRankLimit(const PlanPtr& item, const ExprPtr& pred) {
  if (item->kind != PlanKind::kProject || pred->kind != ExprKind::kCall) return item;
  std::string op = pred->fn_name;
  if (op != "<=" && op != "<" && op != "=") return item;
  const ExprPtr& col = pred->args[0];
  const ExprPtr& lit = pred->args[1];
  if (col->kind != ExprKind::kColumn || lit->kind != ExprKind::kLiteral || lit->value.is_null() ||
      lit->value.kind() != Value::Kind::kInt) {
    return item;
  }
  const PlanPtr& rank = item->inputs[0];
  const ExprPtr& src = item->exprs[static_cast<size_t>(col->column)];
  if (rank->kind != PlanKind::kRank || rank->limit >= 0 || src->kind != ExprKind::kColumn ||
      src->column != static_cast<int>(rank->columns.size()) - 1) {
    return item;
  }
  int64_t k = lit->value.int_value();
  if (op == "<") --k;
  if (op == "=" && k != 1) return item;
  auto limited = std::make_shared<PlanNode>(*rank);
  limited->limit = std::max<int64_t>(k, 0);
  auto proj = std::make_shared<PlanNode>(*item);
  proj->inputs = {limited};
  return proj;
}

// The direction and NULL placement of a SortBy node, for output column `col`
// (PostgreSQL: NULLS LAST ascending, NULLS FIRST descending, by default).
SortKey SortKeyOf(const Json& by, int col) {
  SortKey k;
  k.column = col;
  k.desc = by.value("sortby_dir", "") == "SORTBY_DESC";
  std::string nulls = by.value("sortby_nulls", "SORTBY_NULLS_DEFAULT");
  k.nulls_first = nulls == "SORTBY_NULLS_DEFAULT" ? k.desc : nulls == "SORTBY_NULLS_FIRST";
  return k;
}

// ---------------------------------------------------------------- binder

class Binder {
 public:
  Binder(const Catalog& catalog, std::string_view sql) : catalog_(catalog), sql_(sql) {}

  Result<BoundQuery> BindQuery(const Json& select);
  Result<ExprPtr> BindExpr(const Json& n, Ctx& ctx);

 private:
  Result<BoundQuery> BindSetOp(const Json& s);
  Result<BoundQuery> BindSimple(const Json& s);
  Result<BoundQuery> BindValues(const Json& s);
  Status BindFromItem(const Json& item, PlanPtr* plan, std::vector<ScopeCol>* cols);
  Result<PlanPtr> BuildJoins(std::vector<PlanPtr> items, std::vector<size_t> widths,
                             std::vector<ExprPtr> conjuncts, size_t from_width);
  Result<PlanPtr> ApplyExtensions(PlanPtr plan, Ctx& ctx, size_t* applied);
  Result<ExprPtr> BindColumnRef(const Json& body, const Json& node, Ctx& ctx);
  Result<ExprPtr> BindConst(const Json& body, const Json& node);
  Result<ExprPtr> BindAExpr(const Json& body, const Json& node, Ctx& ctx);
  Result<ExprPtr> BindFuncCall(const Json& body, const Json& node, Ctx& ctx);
  Result<ExprPtr> BindSubLink(const Json& body, const Json& node, Ctx& ctx);
  Result<ExprPtr> BindCase(const Json& body, Ctx& ctx);
  // Computes the ROW_NUMBER() OVER (...) calls of a select list over `plan`,
  // adding their columns to the scope.
  Result<PlanPtr> BindWindows(const Json& targets, Ctx& ctx, PlanPtr plan);
  Result<ExprPtr> Call(const std::string& name, std::vector<ExprPtr> args, const Json& node);
  // Resolves `name` for `args` and casts them (in place) to what it takes.
  Result<ResolvedFn> Coerce(const std::string& name, std::vector<ExprPtr>* args, const Json& node);
  Result<std::vector<ExprPtr>> Unify(std::vector<ExprPtr> args, const Json& node);
  // Rewrites an expression bound over the FROM scope of a grouped query onto
  // the aggregate's output (group keys, then aggregates).
  Result<ExprPtr> OntoAggregate(const ExprPtr& e, const std::vector<ExprPtr>& keys,
                                const std::vector<std::string>& key_strs, const Ctx& from);
  Result<int64_t> ConstInt(const Json& n, const char* what);
  std::string OutputName(const Json& target);

  // Binds a subquery that refers to columns of `outer`: first finds which
  // outer columns it uses, then binds it over their distinct values (the
  // domain), so that it becomes a join instead of a per-row evaluation.
  struct Frame {
    const Ctx* outer = nullptr;
    std::vector<int>* refs = nullptr;   // finding the outer columns
    std::vector<ScopeCol> domain_cols;  // binding over the domain
    std::shared_ptr<PlanNode> domain;
    bool taken = false;
  };

  const Catalog& catalog_;
  std::string_view sql_;
  std::vector<Frame> frames_;
  // The WITH queries in scope, innermost last.
  std::vector<std::pair<std::string, BoundQuery>> ctes_;
  // ROW_NUMBER() calls already computed: their FuncCall body -> column.
  std::map<const Json*, int> window_cols_;
};

Result<BoundQuery> Binder::BindQuery(const Json& s) {
  if (s.contains("withClause")) {
    // WITH: each query is bound in order (a later one may read an earlier
    // one), visible by name in the FROM clauses of this query only.
    const Json& with = s["withClause"];
    if (with.value("recursive", false)) return SqlUnsupported(sql_, with, "WITH RECURSIVE");
    std::map<std::string, BoundQuery> scope;
    for (const Json& c : with["ctes"]) {
      const Json& cte = c["CommonTableExpr"];
      std::string name = cte["ctename"];
      if (scope.count(name)) {
        return SqlError(sql_, c, "WITH query name \"" + name + "\" specified more than once");
      }
      SLUICE_ASSIGN_OR_RETURN(BoundQuery q, BindQuery(cte["ctequery"]["SelectStmt"]));
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
    auto r = BindQuery(rest);
    ctes_.resize(ctes_.size() - scope.size());
    return r;
  }
  std::string op = s.value("op", "SETOP_NONE");
  if (op != "SETOP_NONE") return BindSetOp(s);
  if (s.contains("valuesLists")) return BindValues(s);
  return BindSimple(s);
}

Result<int64_t> Binder::ConstInt(const Json& n, const char* what) {
  Ctx empty;
  SLUICE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(n, empty));
  if (e->kind != ExprKind::kLiteral || !e->type.IsInteger()) {
    return SqlError(sql_, n, std::string(what) + " must be an integer constant");
  }
  if (e->value.is_null()) return int64_t{-1};
  return e->value.int_value();
}

std::string Binder::OutputName(const Json& target) {
  if (target.contains("name")) return target["name"].get<std::string>();
  const Json& val = Field(target, "val");
  auto [kind, body] = Node(val);
  if (kind == "ColumnRef") {
    const Json& fields = (*body)["fields"];
    return Str(fields.back());
  }
  if (kind == "FuncCall") return Str((*body)["funcname"].back());
  if (kind == "TypeCast") {
    auto [k2, b2] = Node((*body)["arg"]);
    if (k2 == "ColumnRef") return Str((*b2)["fields"].back());
  }
  if (kind == "CaseExpr") return "case";
  if (kind == "CoalesceExpr") return "coalesce";
  return "?column?";
}

Result<BoundQuery> Binder::BindValues(const Json& s) {
  auto n = std::make_shared<PlanNode>();
  n->kind = PlanKind::kValues;
  std::vector<std::vector<ExprPtr>> rows;
  for (const Json& list : s["valuesLists"]) {
    auto [kind, body] = Node(list);
    std::vector<ExprPtr> row;
    Ctx empty;
    for (const Json& item : (*body)["items"]) {
      SLUICE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(item, empty));
      if (e->kind != ExprKind::kLiteral)
        return SqlUnsupported(sql_, item, "a non-constant VALUES item");
      row.push_back(e);
    }
    if (!rows.empty() && row.size() != rows[0].size()) {
      return SqlError(sql_, list, "VALUES lists must all be the same length");
    }
    rows.push_back(std::move(row));
  }
  size_t width = rows.empty() ? 0 : rows[0].size();
  std::vector<SqlType> types(width);
  for (size_t c = 0; c < width; ++c) {
    types[c] = rows[0][c]->type;
    for (auto& r : rows) {
      if (r[c]->value.is_null()) continue;
      if (types[c].id() != r[c]->type.id()) {
        auto t = CommonType(types[c], r[c]->type);
        if (!t.ok()) return SqlError(sql_, s, t.status().message());
        types[c] = *t;
      }
    }
    n->columns.push_back({"column" + std::to_string(c + 1), types[c]});
  }
  for (auto& r : rows) {
    Row values;
    for (size_t c = 0; c < width; ++c) {
      Value v;
      Status st = CastValue(r[c]->value, r[c]->type, types[c], &v);
      if (!st.ok()) return SqlError(sql_, s, st.message());
      values.push_back(std::move(v));
    }
    n->rows.push_back(std::move(values));
  }
  BoundQuery q;
  q.plan = n;
  q.visible = width;
  return q;
}

Result<BoundQuery> Binder::BindSetOp(const Json& s) {
  // The branches of a set operation are SelectStmt bodies, not wrapped.
  SLUICE_ASSIGN_OR_RETURN(BoundQuery l, BindQuery(s["larg"]));
  SLUICE_ASSIGN_OR_RETURN(BoundQuery r, BindQuery(s["rarg"]));
  if (l.visible != r.visible) {
    return SqlError(sql_, s,
                    "each " + s.value("op", "") + " query must have the same number of columns");
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
  for (size_t i = 0; i < l.visible; ++i) {
    const SqlType& a = lp->columns[i].type;
    const SqlType& b = rp->columns[i].type;
    auto t = CommonType(a, b);
    if (!t.ok()) return SqlError(sql_, s, s.value("op", "") + " " + t.status().message());
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
    if (all) return SqlUnsupported(sql_, s, "EXCEPT ALL");
    n->kind = PlanKind::kExcept;
  } else if (op == "SETOP_INTERSECT") {
    if (all) return SqlUnsupported(sql_, s, "INTERSECT ALL");
    n->kind = PlanKind::kIntersect;
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
  // ORDER BY of a set operation: output columns by position or name.
  for (const Json& sb : s.value("sortClause", Json::array())) {
    const Json& by = sb["SortBy"];
    const Json& node = by["node"];
    auto [kind, body] = Node(node);
    int col = -1;
    if (kind == "A_Const") {
      SLUICE_ASSIGN_OR_RETURN(int64_t pos, ConstInt(node, "ORDER BY position"));
      if (pos < 1 || pos > static_cast<int64_t>(q.visible)) {
        return SqlError(sql_, node,
                        "ORDER BY position " + std::to_string(pos) + " is not in select list");
      }
      col = static_cast<int>(pos - 1);
    } else if (kind == "ColumnRef" && (*body)["fields"].size() == 1) {
      std::string name = Str((*body)["fields"][0]);
      for (size_t i = 0; i < q.visible; ++i) {
        if (plan->columns[i].name == name) col = static_cast<int>(i);
      }
    }
    if (col < 0) return SqlUnsupported(sql_, node, "ORDER BY of a set operation on an expression");
    q.order.push_back(SortKeyOf(by, col));
  }
  if (s.contains("limitCount") || s.contains("limitOffset")) {
    auto t = std::make_shared<PlanNode>();
    t->kind = PlanKind::kTopK;
    t->columns = plan->columns;
    t->inputs = {plan};
    t->order = q.order;
    if (s.contains("limitCount")) {
      SLUICE_ASSIGN_OR_RETURN(t->limit, ConstInt(s["limitCount"], "LIMIT"));
    }
    if (s.contains("limitOffset")) {
      SLUICE_ASSIGN_OR_RETURN(t->offset, ConstInt(s["limitOffset"], "OFFSET"));
    }
    q.plan = t;
  }
  return q;
}

Status Binder::BindFromItem(const Json& item, PlanPtr* plan, std::vector<ScopeCol>* cols) {
  auto [kind, body] = Node(item);
  if (kind == "RangeVar") {
    std::string name = (*body)["relname"];
    std::string alias = body->contains("alias") ? (*body)["alias"].value("aliasname", name) : name;
    const BoundQuery* cte = nullptr;
    for (auto it = ctes_.rbegin(); it != ctes_.rend() && !body->contains("schemaname"); ++it) {
      if (it->first == name) {
        cte = &it->second;
        break;
      }
    }
    if (cte != nullptr) {
      PlanPtr p = cte->plan;
      if (p->columns.size() != cte->visible) {
        std::vector<ExprPtr> ex;
        std::vector<std::string> names;
        for (size_t i = 0; i < cte->visible; ++i) {
          ex.push_back(MakeColumn(static_cast<int>(i), p->columns[i].type));
          names.push_back(p->columns[i].name);
        }
        p = MakeProject(p, ex, names);
      }
      *plan = p;
    } else if (const TableDef* t = catalog_.FindTable(name)) {
      auto n = std::make_shared<PlanNode>();
      n->kind = PlanKind::kScan;
      n->table = name;
      n->columns = t->columns;
      *plan = n;
    } else if (const ViewDef* v = catalog_.FindView(name)) {
      PlanPtr p = v->query.plan;
      if (p->columns.size() != v->query.visible) {
        std::vector<ExprPtr> ex;
        std::vector<std::string> names;
        for (size_t i = 0; i < v->query.visible; ++i) {
          ex.push_back(MakeColumn(static_cast<int>(i), p->columns[i].type));
          names.push_back(p->columns[i].name);
        }
        p = MakeProject(p, ex, names);
      }
      *plan = p;
    } else {
      return SqlError(sql_, item, "relation \"" + name + "\" does not exist");
    }
    for (const Column& c : (*plan)->columns) cols->push_back({alias, c.name, c.type});
    if (body->contains("alias") && (*body)["alias"].contains("colnames")) {
      const Json& names = (*body)["alias"]["colnames"];
      for (size_t i = 0; i < names.size() && i < cols->size(); ++i) (*cols)[i].name = Str(names[i]);
    }
    return Status::OK();
  }
  if (kind == "RangeSubselect") {
    if (body->value("lateral", false)) return SqlUnsupported(sql_, item, "LATERAL");
    SLUICE_ASSIGN_OR_RETURN(BoundQuery q, BindQuery((*body)["subquery"]["SelectStmt"]));
    PlanPtr p = q.plan;
    std::string alias = body->contains("alias") ? (*body)["alias"].value("aliasname", "") : "";
    for (size_t i = 0; i < q.visible; ++i)
      cols->push_back({alias, p->columns[i].name, p->columns[i].type});
    if (p->columns.size() != q.visible) {
      std::vector<ExprPtr> ex;
      std::vector<std::string> names;
      for (size_t i = 0; i < q.visible; ++i) {
        ex.push_back(MakeColumn(static_cast<int>(i), p->columns[i].type));
        names.push_back(p->columns[i].name);
      }
      p = MakeProject(p, ex, names);
    }
    if (body->contains("alias") && (*body)["alias"].contains("colnames")) {
      const Json& names = (*body)["alias"]["colnames"];
      for (size_t i = 0; i < names.size() && i < cols->size(); ++i) (*cols)[i].name = Str(names[i]);
    }
    *plan = p;
    return Status::OK();
  }
  if (kind == "JoinExpr") {
    PlanPtr lp, rp;
    std::vector<ScopeCol> lc, rc;
    SLUICE_RETURN_IF_ERROR(BindFromItem((*body)["larg"], &lp, &lc));
    SLUICE_RETURN_IF_ERROR(BindFromItem((*body)["rarg"], &rp, &rc));
    std::string jt = body->value("jointype", "JOIN_INNER");
    JoinType type = jt == "JOIN_LEFT"    ? JoinType::kLeft
                    : jt == "JOIN_RIGHT" ? JoinType::kRight
                    : jt == "JOIN_FULL"  ? JoinType::kFull
                                         : JoinType::kInner;
    if (jt != "JOIN_INNER" && jt != "JOIN_LEFT" && jt != "JOIN_RIGHT" && jt != "JOIN_FULL") {
      return SqlUnsupported(sql_, item, jt);
    }
    Ctx ctx;
    ctx.scope = lc;
    ctx.scope.insert(ctx.scope.end(), rc.begin(), rc.end());
    const int lw = static_cast<int>(lc.size());
    std::vector<ExprPtr> conjuncts;
    if (body->value("isNatural", false)) return SqlUnsupported(sql_, item, "NATURAL JOIN");
    if (body->contains("usingClause")) {
      for (const Json& u : (*body)["usingClause"]) {
        std::string name = Str(u);
        int li = -1, ri = -1;
        for (int i = 0; i < lw; ++i) {
          if (lc[static_cast<size_t>(i)].name == name) li = i;
        }
        for (size_t i = 0; i < rc.size(); ++i) {
          if (rc[i].name == name) ri = static_cast<int>(i);
        }
        if (li < 0 || ri < 0) {
          return SqlError(sql_, item,
                          "column \"" + name + "\" specified in USING clause does not exist");
        }
        SLUICE_ASSIGN_OR_RETURN(ExprPtr eq,
                                Call("=",
                                     {MakeColumn(li, lc[static_cast<size_t>(li)].type),
                                      MakeColumn(lw + ri, rc[static_cast<size_t>(ri)].type)},
                                     item));
        conjuncts.push_back(eq);
      }
    }
    if (body->contains("quals")) {
      SLUICE_ASSIGN_OR_RETURN(ExprPtr q, BindExpr((*body)["quals"], ctx));
      if (!ctx.pending.empty())
        return SqlUnsupported(sql_, (*body)["quals"], "a subquery in a JOIN condition");
      if (q->type.id() != TypeId::kBoolean) {
        return SqlError(sql_, (*body)["quals"], "argument of JOIN/ON must be type boolean");
      }
      SplitConjuncts(q, &conjuncts);
    }
    // Equalities between the two sides become keys; the rest is a residual
    // predicate (for outer joins it decides matching, so it stays in the join).
    std::vector<ExprPtr> lk, rk, rest;
    for (const ExprPtr& c : conjuncts) {
      if (c->kind == ExprKind::kCall && std::string(c->fn_name) == "=") {
        std::vector<int> a, b;
        CollectColumns(*c->args[0], &a);
        CollectColumns(*c->args[1], &b);
        auto all_left = [&](const std::vector<int>& v) {
          return !v.empty() && std::all_of(v.begin(), v.end(), [&](int x) { return x < lw; });
        };
        auto all_right = [&](const std::vector<int>& v) {
          return !v.empty() && std::all_of(v.begin(), v.end(), [&](int x) { return x >= lw; });
        };
        if (all_left(a) && all_right(b)) {
          lk.push_back(c->args[0]);
          rk.push_back(Shift(c->args[1], -lw));
          continue;
        }
        if (all_left(b) && all_right(a)) {
          lk.push_back(c->args[1]);
          rk.push_back(Shift(c->args[0], -lw));
          continue;
        }
      }
      rest.push_back(c);
    }
    if (type != JoinType::kInner) {
      // A condition on the inner side alone (or on no side) of a LEFT or
      // RIGHT join only decides which of its rows can match: it filters that
      // side before the join.
      std::vector<ExprPtr> left_only, right_only, other;
      for (const ExprPtr& c : rest) {
        std::vector<int> cols;
        CollectColumns(*c, &cols);
        bool on_left = std::all_of(cols.begin(), cols.end(), [&](int x) { return x < lw; });
        bool on_right = std::all_of(cols.begin(), cols.end(), [&](int x) { return x >= lw; });
        if (type == JoinType::kLeft && on_right) {
          right_only.push_back(Shift(c, -lw));
        } else if (type == JoinType::kRight && on_left) {
          left_only.push_back(c);
        } else {
          other.push_back(c);
        }
      }
      if (!other.empty()) {
        return SqlUnsupported(sql_, item,
                              "this outer join condition (only equalities between the two sides, "
                              "and conditions on the inner side, are)");
      }
      if (!right_only.empty()) rp = MakeFilter(rp, AndAll(right_only));
      if (!left_only.empty()) lp = MakeFilter(lp, AndAll(left_only));
      rest.clear();
    }
    PlanPtr j = MakeJoin(lp, rp, type, lk, rk, nullptr);
    if (!rest.empty()) j = MakeFilter(j, AndAll(rest));
    *plan = j;
    *cols = ctx.scope;
    for (size_t i = 0; i < cols->size(); ++i) (*cols)[i].type = j->columns[i].type;
    if (body->contains("alias")) {
      for (ScopeCol& c : *cols) c.qualifier = (*body)["alias"].value("aliasname", "");
    }
    return Status::OK();
  }
  return SqlUnsupported(sql_, item, kind.empty() ? "this FROM item" : kind);
}

Result<PlanPtr> Binder::BuildJoins(std::vector<PlanPtr> items, std::vector<size_t> widths,
                                   std::vector<ExprPtr> conjuncts, size_t from_width) {
  // Start offsets of each item in the concatenated scope.
  std::vector<int> start(items.size());
  int off = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    start[i] = off;
    off += static_cast<int>(widths[i]);
  }
  auto item_of = [&](int col) {
    size_t i = 0;
    while (i + 1 < items.size() && col >= start[i + 1]) ++i;
    return i;
  };
  std::vector<bool> used(conjuncts.size(), false);
  // Push predicates on one item below the joins.
  for (size_t c = 0; c < conjuncts.size(); ++c) {
    std::vector<int> cols;
    CollectColumns(*conjuncts[c], &cols);
    if (cols.empty() || std::any_of(cols.begin(), cols.end(),
                                    [&](int x) { return x >= static_cast<int>(from_width); }))
      continue;
    size_t it = item_of(cols[0]);
    if (std::all_of(cols.begin(), cols.end(), [&](int x) { return item_of(x) == it; })) {
      ExprPtr local = Shift(conjuncts[c], -start[it]);
      items[it] = MakeFilter(PushRankLimit(items[it], local), local);
      used[c] = true;
    }
  }
  // Join greedily: next, the first item (in FROM order) that an equality
  // connects to what is joined already, so that no cross product is built
  // while a keyed join is possible.
  std::vector<int> pos(from_width, -1);  // original column -> position in `cur`
  auto remap = [&](const ExprPtr& e) {
    std::function<ExprPtr(const ExprPtr&)> rec = [&](const ExprPtr& x) -> ExprPtr {
      if (x->kind == ExprKind::kColumn && x->column < static_cast<int>(from_width)) {
        return MakeColumn(pos[static_cast<size_t>(x->column)], x->type);
      }
      if (x->args.empty()) return x;
      auto copy = std::make_shared<Expr>(*x);
      for (ExprPtr& a : copy->args) a = rec(a);
      return copy;
    };
    return rec(e);
  };
  auto in_item = [&](const std::vector<int>& v, size_t it) {
    return !v.empty() && std::all_of(v.begin(), v.end(), [&](int x) { return item_of(x) == it; });
  };
  std::vector<bool> joined(items.size(), false);
  auto in_joined = [&](const std::vector<int>& v) {
    return !v.empty() && std::all_of(v.begin(), v.end(), [&](int x) { return joined[item_of(x)]; });
  };
  PlanPtr cur = items[0];
  joined[0] = true;
  int cur_width = 0;
  for (int c = 0; c < static_cast<int>(widths[0]); ++c) pos[static_cast<size_t>(c)] = cur_width++;
  bool reordered = false;
  for (size_t step = 1; step < items.size(); ++step) {
    size_t next = items.size();
    for (size_t r = 1; r < items.size() && next == items.size(); ++r) {
      if (joined[r]) continue;
      for (size_t c = 0; c < conjuncts.size(); ++c) {
        const ExprPtr& e = conjuncts[c];
        if (used[c] || e->kind != ExprKind::kCall || std::string(e->fn_name) != "=") continue;
        std::vector<int> a, b;
        CollectColumns(*e->args[0], &a);
        CollectColumns(*e->args[1], &b);
        if ((in_joined(a) && in_item(b, r)) || (in_joined(b) && in_item(a, r))) {
          next = r;
          break;
        }
      }
    }
    if (next == items.size()) {
      for (size_t r = 1; r < items.size(); ++r) {
        if (!joined[r]) {
          next = r;
          break;
        }
      }
    }
    reordered |= next != step;
    std::vector<ExprPtr> lk, rk, filters;
    for (size_t c = 0; c < conjuncts.size(); ++c) {
      if (used[c]) continue;
      std::vector<int> cols;
      CollectColumns(*conjuncts[c], &cols);
      bool reachable = std::all_of(cols.begin(), cols.end(),
                                   [&](int x) { return joined[item_of(x)] || item_of(x) == next; });
      if (!reachable || cols.empty()) continue;
      used[c] = true;
      const ExprPtr& e = conjuncts[c];
      if (e->kind == ExprKind::kCall && std::string(e->fn_name) == "=") {
        std::vector<int> a, b;
        CollectColumns(*e->args[0], &a);
        CollectColumns(*e->args[1], &b);
        if (in_joined(a) && in_item(b, next)) {
          lk.push_back(remap(e->args[0]));
          rk.push_back(Shift(e->args[1], -start[next]));
          continue;
        }
        if (in_joined(b) && in_item(a, next)) {
          lk.push_back(remap(e->args[1]));
          rk.push_back(Shift(e->args[0], -start[next]));
          continue;
        }
      }
      filters.push_back(e);
    }
    cur = MakeJoin(cur, items[next], JoinType::kInner, lk, rk, nullptr);
    joined[next] = true;
    for (int c = 0; c < static_cast<int>(widths[next]); ++c) {
      pos[static_cast<size_t>(start[next] + c)] = cur_width++;
    }
    if (!filters.empty()) cur = MakeFilter(cur, remap(AndAll(filters)));
  }
  // Back to the FROM order of columns, which the rest of the query uses.
  if (reordered) {
    std::vector<ExprPtr> cols;
    std::vector<std::string> names;
    for (size_t c = 0; c < from_width; ++c) {
      cols.push_back(MakeColumn(pos[c], cur->columns[static_cast<size_t>(pos[c])].type));
      names.push_back(cur->columns[static_cast<size_t>(pos[c])].name);
    }
    cur = MakeProject(cur, cols, names);
  }
  // What is left references no column at all (WHERE 1 = 0, WHERE NULL IS NULL).
  std::vector<ExprPtr> rest;
  for (size_t c = 0; c < conjuncts.size(); ++c) {
    if (!used[c]) rest.push_back(conjuncts[c]);
  }
  if (!rest.empty()) cur = MakeFilter(cur, AndAll(rest));
  return cur;
}

Result<PlanPtr> Binder::ApplyExtensions(PlanPtr plan, Ctx& ctx, size_t* applied) {
  for (; *applied < ctx.pending.size(); ++*applied) {
    Extension& x = ctx.pending[*applied];
    if (x.domain != nullptr && x.domain->inputs.empty()) {
      // The domain: the distinct values of the outer columns over these rows.
      std::vector<ExprPtr> cols;
      std::vector<std::string> names;
      for (size_t i = 0; i < x.domain_cols.size(); ++i) {
        cols.push_back(MakeCast(
            MakeColumn(x.domain_cols[i], plan->columns[static_cast<size_t>(x.domain_cols[i])].type),
            x.domain->columns[i].type));
        names.push_back(x.domain->columns[i].name);
      }
      auto proj = std::make_shared<PlanNode>(*MakeProject(plan, cols, names));
      proj->columns = x.domain->columns;  // nullable, as the domain declares
      x.domain->inputs = {proj};
    }
    plan = MakeJoin(plan, x.sub, x.type, x.left_keys, x.right_keys, nullptr, x.null_safe);
  }
  return plan;
}

Result<BoundQuery> Binder::BindSimple(const Json& s) {
  if (s.contains("windowClause")) return SqlUnsupported(sql_, s["windowClause"], "WINDOW");
  // A subquery being decorrelated: this SELECT is the one its frame is for.
  Frame* frame = nullptr;
  if (!frames_.empty() && !frames_.back().taken) {
    frame = &frames_.back();
    frame->taken = true;
  }
  // FROM: each item bound on its own, then joined.
  std::vector<PlanPtr> items;
  std::vector<size_t> widths;
  Ctx ctx;
  if (frame != nullptr && frame->refs != nullptr) {
    ctx.outer = frame->outer;
    ctx.outer_refs = frame->refs;
  }
  for (const Json& item : s.value("fromClause", Json::array())) {
    PlanPtr p;
    std::vector<ScopeCol> cols;
    SLUICE_RETURN_IF_ERROR(BindFromItem(item, &p, &cols));
    items.push_back(p);
    widths.push_back(cols.size());
    ctx.scope.insert(ctx.scope.end(), cols.begin(), cols.end());
  }
  // Over a domain, the outer columns are one more FROM item, and they lead
  // the output (and the GROUP BY) so that the enclosing query can join on them.
  std::vector<ExprPtr> domain_refs;
  const bool over_domain = frame != nullptr && frame->domain != nullptr;
  if (over_domain) {
    int base = static_cast<int>(ctx.scope.size());
    items.push_back(frame->domain);
    widths.push_back(frame->domain_cols.size());
    for (size_t i = 0; i < frame->domain_cols.size(); ++i) {
      ctx.scope.push_back(frame->domain_cols[i]);
      domain_refs.push_back(MakeColumn(base + static_cast<int>(i), frame->domain_cols[i].type));
    }
    if (s.contains("limitCount") || s.contains("limitOffset")) {
      return SqlUnsupported(sql_, s, "LIMIT in a correlated subquery");
    }
  }
  const size_t k = domain_refs.size();
  if (items.empty()) {
    items.push_back(OneEmptyRow());
    widths.push_back(0);
  }
  const size_t from_width = ctx.scope.size();
  std::vector<ExprPtr> conjuncts;
  if (s.contains("whereClause")) {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr w, BindExpr(s["whereClause"], ctx));
    if (w->type.id() != TypeId::kBoolean) {
      return SqlError(sql_, s["whereClause"],
                      "argument of WHERE must be type boolean, not type " + PgTypeName(w->type));
    }
    SplitConjuncts(w, &conjuncts);
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
  // From here on the plan's columns are the scope's columns.
  const Json& targets = s.value("targetList", Json::array());
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
    bool any = false;
    for (size_t i = 0; i < ctx.scope.size(); ++i) {
      if (!qual.empty() && ctx.scope[i].qualifier != qual) continue;
      // * shows neither outer columns nor those that subqueries added.
      if (ctx.scope[i].correlated || ctx.scope[i].hidden) continue;
      outs.push_back(MakeColumn(static_cast<int>(i), ctx.scope[i].type));
      names.push_back(ctx.scope[i].name);
      any = true;
    }
    if (!any && !qual.empty())
      return SqlError(sql_, val, "missing FROM-clause entry for table \"" + qual + "\"");
    if (!any && grouped) return Status::OK();
    return Status::OK();
  };

  Ctx agg_ctx;
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
    agg_ctx.aggs = &aggs;
    agg_ctx.agg_keys = &agg_keys;
    std::vector<ExprPtr> raw(outs.begin(), outs.end());  // the domain columns
    outs.clear();
    for (const Json& t : targets) {
      const Json& val = t["ResTarget"]["val"];
      bool is_star = false;
      size_t before = outs.size();
      SLUICE_RETURN_IF_ERROR(star(val, &is_star));
      if (is_star) {
        // Each column of * must then be a group key (checked below).
        raw.insert(raw.end(), outs.begin() + static_cast<ptrdiff_t>(before), outs.end());
        outs.resize(before);
        continue;
      }
      SLUICE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(val, agg_ctx));
      raw.push_back(e);
      names.push_back(OutputName(t["ResTarget"]));
    }
    ExprPtr having;
    if (s.contains("havingClause")) {
      SLUICE_ASSIGN_OR_RETURN(having, BindExpr(s["havingClause"], agg_ctx));
      if (having->type.id() != TypeId::kBoolean) {
        return SqlError(sql_, s["havingClause"], "argument of HAVING must be type boolean");
      }
    }
    if (!agg_ctx.pending.empty())
      return SqlUnsupported(sql_, s, "a subquery in a grouped select list or HAVING");
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
    for (const ExprPtr& e : raw) {
      SLUICE_ASSIGN_OR_RETURN(ExprPtr m, OntoAggregate(e, keys, key_strs, ctx));
      outs.push_back(m);
    }
    if (having) {
      SLUICE_ASSIGN_OR_RETURN(ExprPtr h, OntoAggregate(having, keys, key_strs, ctx));
      plan = MakeFilter(plan, h);
    }
  } else {
    SLUICE_ASSIGN_OR_RETURN(plan, BindWindows(targets, ctx, plan));
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
  if (distinct && !s["distinctClause"].empty() && !s["distinctClause"][0].is_null() &&
      !s["distinctClause"][0].empty()) {
    return SqlUnsupported(sql_, s["distinctClause"], "DISTINCT ON");
  }
  // ORDER BY: output columns by position or name, or expressions computed as
  // hidden columns after the visible ones.
  std::vector<SortKey> order;
  for (const Json& sb : s.value("sortClause", Json::array())) {
    const Json& by = sb["SortBy"];
    const Json& node = by["node"];
    auto [kind, body] = Node(node);
    int col = -1;
    if (kind == "A_Const") {
      SLUICE_ASSIGN_OR_RETURN(int64_t pos, ConstInt(node, "ORDER BY position"));
      if (pos < 1 || pos > static_cast<int64_t>(visible - k)) {
        return SqlError(sql_, node,
                        "ORDER BY position " + std::to_string(pos) + " is not in select list");
      }
      col = static_cast<int>(k + static_cast<size_t>(pos) - 1);
    } else if (kind == "ColumnRef" && (*body)["fields"].size() == 1) {
      std::string name = Str((*body)["fields"][0]);
      for (size_t i = k; i < visible; ++i) {
        if (names[i] == name) {
          col = static_cast<int>(i);
          break;
        }
      }
    }
    if (col < 0) {
      Ctx& oc = grouped ? agg_ctx : ctx;
      SLUICE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(node, oc));
      if (grouped) {
        SLUICE_ASSIGN_OR_RETURN(e, OntoAggregate(e, keys, key_strs, ctx));
      } else if (ctx.pending.size() != applied) {
        return SqlUnsupported(sql_, node, "a subquery in ORDER BY");
      }
      std::string k = Key(*e);
      for (size_t i = 0; i < outs.size(); ++i) {
        if (Key(*outs[i]) == k) col = static_cast<int>(i);
      }
      if (col < 0) {
        if (distinct) {
          return SqlError(sql_, node,
                          "for SELECT DISTINCT, ORDER BY expressions must appear in select list");
        }
        col = static_cast<int>(outs.size());
        outs.push_back(e);
        names.push_back("?order?");
      }
    }
    order.push_back(SortKeyOf(by, col));
  }
  plan = MakeProject(plan, outs, names);
  if (distinct) {
    auto d = std::make_shared<PlanNode>();
    d->kind = PlanKind::kDistinct;
    d->columns = plan->columns;
    d->inputs = {plan};
    plan = d;
  }
  if (s.contains("limitCount") || s.contains("limitOffset")) {
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
    plan = t;
  }
  BoundQuery q;
  q.plan = plan;
  q.order = order;
  q.visible = visible;
  return q;
}

Result<PlanPtr> Binder::BindWindows(const Json& targets, Ctx& ctx, PlanPtr plan) {
  for (const Json& t : targets) {
    const Json& val = t["ResTarget"]["val"];
    auto [kind, body] = Node(val);
    if (kind != "FuncCall" || !body->contains("over")) continue;  // nested ones: see BindFuncCall
    std::string name = Str((*body)["funcname"].back());
    if (name != "row_number") {
      return SqlUnsupported(sql_, val, "the window function " + name + "()");
    }
    if (body->contains("args")) return SqlError(sql_, val, "row_number() takes no arguments");
    const Json& over = (*body)["over"];
    if (over.contains("name") || over.contains("refname")) {
      return SqlUnsupported(sql_, val, "named windows");
    }
    auto rank = std::make_shared<PlanNode>();
    rank->kind = PlanKind::kRank;
    rank->inputs = {plan};
    rank->columns = plan->columns;
    rank->columns.push_back({"row_number", SqlType::BigInt(false)});
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
    size_t applied = ctx.pending.size();
    if (applied != 0) {
      return SqlUnsupported(sql_, val, "a subquery in a query with window functions");
    }
    plan = rank;
    window_cols_[body] = static_cast<int>(ctx.scope.size());
    ctx.scope.push_back({"", "row_number", SqlType::BigInt(false), false, /*hidden=*/true});
  }
  return plan;
}

Result<ExprPtr> Binder::OntoAggregate(const ExprPtr& e, const std::vector<ExprPtr>& keys,
                                      const std::vector<std::string>& key_strs, const Ctx& from) {
  std::string k = Key(*e);
  for (size_t i = 0; i < keys.size(); ++i) {
    if (key_strs[i] == k) return MakeColumn(static_cast<int>(i), e->type);
  }
  if (e->kind == ExprKind::kColumn) {
    if (e->column >= kAggBase) {
      return MakeColumn(static_cast<int>(keys.size()) + (e->column - kAggBase), e->type);
    }
    const ScopeCol& c = from.scope[static_cast<size_t>(e->column)];
    return Status::InvalidArgument("column \"" + (c.qualifier.empty() ? "" : c.qualifier + ".") +
                                   c.name +
                                   "\" must appear in the GROUP BY clause or be used in an "
                                   "aggregate function");
  }
  if (e->args.empty()) return e;
  auto copy = std::make_shared<Expr>(*e);
  for (ExprPtr& a : copy->args) {
    SLUICE_ASSIGN_OR_RETURN(a, OntoAggregate(a, keys, key_strs, from));
  }
  return ExprPtr(copy);
}

// ---------------------------------------------------------------- expressions

Result<ResolvedFn> Binder::Coerce(const std::string& name, std::vector<ExprPtr>* argp,
                                  const Json& node) {
  std::vector<ExprPtr>& args = *argp;
  // Untyped literals ('abc', NULL) take the type of the other operand.
  if (args.size() == 2) {
    bool u0 = args[0]->kind == ExprKind::kLiteral && args[0]->untyped;
    bool u1 = args[1]->kind == ExprKind::kLiteral && args[1]->untyped;
    for (int i : {0, 1}) {
      if (!(i == 0 ? u0 && !u1 : u1 && !u0)) continue;
      ExprPtr& lit = args[static_cast<size_t>(i)];
      const SqlType& to = args[static_cast<size_t>(1 - i)]->type;
      Value v;
      Status st = CastValue(lit->value, lit->type, to, &v);
      if (!st.ok()) return SqlError(sql_, node, st.message());
      lit = MakeLiteral(std::move(v), to);
    }
  }
  std::vector<SqlType> types;
  for (const ExprPtr& a : args) types.push_back(a->type);
  auto r = ResolveFunction(name, types);
  if (!r.ok()) return SqlError(sql_, node, r.status().message());
  for (size_t i = 0; i < args.size(); ++i) args[i] = MakeCast(args[i], r->arg_types[i]);
  return r;
}

Result<ExprPtr> Binder::Call(const std::string& name, std::vector<ExprPtr> args, const Json& node) {
  SLUICE_ASSIGN_OR_RETURN(ResolvedFn r, Coerce(name, &args, node));
  return MakeCall(r.fn, r.name, r.result, std::move(args));
}

// Casts expressions to one common type (CASE branches, COALESCE, IN lists).
Result<std::vector<ExprPtr>> Binder::Unify(std::vector<ExprPtr> args, const Json& node) {
  SqlType t;
  bool have = false;
  for (const ExprPtr& a : args) {
    bool untyped = a->kind == ExprKind::kLiteral && a->untyped;
    if (untyped) continue;
    if (!have) {
      t = a->type;
      have = true;
      continue;
    }
    auto c = CommonType(t, a->type);
    if (!c.ok()) return SqlError(sql_, node, c.status().message());
    t = *c;
  }
  if (!have) t = SqlType::Varchar();
  for (ExprPtr& a : args) {
    if (a->kind == ExprKind::kLiteral) {
      Value v;
      Status st = CastValue(a->value, a->type, t, &v);
      if (!st.ok()) return SqlError(sql_, node, st.message());
      a = MakeLiteral(std::move(v), t);
    } else {
      a = MakeCast(a, t);
    }
  }
  return args;
}

Result<ExprPtr> Binder::BindColumnRef(const Json& body, const Json& node, Ctx& ctx) {
  const Json& fields = body["fields"];
  std::string qual, name;
  if (fields.size() == 1) {
    name = Str(fields[0]);
  } else if (fields.size() == 2) {
    qual = Str(fields[0]);
    name = Str(fields[1]);
  } else {
    return SqlUnsupported(sql_, node, "a column reference with schema or catalog");
  }
  if (name.empty()) return SqlError(sql_, node, "* is not allowed here");
  int found = -1;
  bool qual_seen = false;
  // The subquery's own columns first, then those of the enclosing query.
  for (bool correlated : {false, true}) {
    for (size_t i = 0; i < ctx.scope.size(); ++i) {
      const ScopeCol& c = ctx.scope[i];
      if (c.correlated != correlated || c.hidden) continue;
      if (!qual.empty()) {
        if (c.qualifier != qual) continue;
        qual_seen = true;
      }
      if (c.name != name) continue;
      if (found >= 0) return SqlError(sql_, node, "column reference \"" + name + "\" is ambiguous");
      found = static_cast<int>(i);
    }
    if (found >= 0) break;
  }
  if (found < 0 && ctx.outer != nullptr) {
    for (size_t i = 0; i < ctx.outer->scope.size(); ++i) {
      const ScopeCol& c = ctx.outer->scope[i];
      if (c.hidden || (!qual.empty() && c.qualifier != qual) || c.name != name) continue;
      // Recorded; the value does not matter while only finding them.
      ctx.outer_refs->push_back(static_cast<int>(i));
      return MakeLiteral(Value::Null(), c.type);
    }
  }
  if (found < 0) {
    if (!qual.empty() && !qual_seen) {
      return SqlError(sql_, node, "missing FROM-clause entry for table \"" + qual + "\"");
    }
    return SqlError(sql_, node,
                    "column \"" + (qual.empty() ? "" : qual + ".") + name + "\" does not exist");
  }
  return MakeColumn(found, ctx.scope[static_cast<size_t>(found)].type);
}

Result<ExprPtr> Binder::BindConst(const Json& body, const Json& node) {
  if (body.value("isnull", false)) {
    auto e = std::make_shared<Expr>(*MakeLiteral(Value::Null(), SqlType::Varchar()));
    e->untyped = true;
    return ExprPtr(e);
  }
  if (body.contains("ival")) {
    const Json& iv = body["ival"];
    int64_t v = iv.value("ival", int64_t{0});
    if (!iv.contains("ival")) {
      // libpg_query's JSON leaves out zero and (a bug of version 15-4) every
      // negative integer constant, which the parser folds from minus signs
      // ("- - ( - 6 )" is one constant): read the literal from the text.
      int loc = Location(node);
      if (loc >= 0 && static_cast<size_t>(loc) < sql_.size() &&
          sql_[static_cast<size_t>(loc)] == '-') {
        size_t i = static_cast<size_t>(loc);
        int minus = 0;
        while (i < sql_.size() && (sql_[i] == '-' || sql_[i] == '(' ||
                                   std::isspace(static_cast<unsigned char>(sql_[i])))) {
          minus += sql_[i++] == '-';
        }
        int64_t mag = 0;
        while (i < sql_.size() && std::isdigit(static_cast<unsigned char>(sql_[i]))) {
          mag = mag * 10 + (sql_[i++] - '0');
        }
        v = minus % 2 ? -mag : mag;
      }
    }
    return MakeLiteral(Value::Int(v), SqlType::Integer());
  }
  if (body.contains("fval")) {
    std::string f = body["fval"].value("fval", "0");
    bool integral = f.find_first_of(".eE") == std::string::npos;
    if (integral) {
      errno = 0;
      char* end = nullptr;
      long long v = std::strtoll(f.c_str(), &end, 10);
      if (errno == 0 && *end == '\0') return MakeLiteral(Value::Int(v), SqlType::BigInt());
    }
    size_t dot = f.find('.');
    int scale = 0;
    if (dot != std::string::npos) {
      size_t e = f.find_first_of("eE", dot);
      scale = static_cast<int>((e == std::string::npos ? f.size() : e) - dot - 1);
    }
    scale = std::min(scale, 37);
    Value v;
    Status st = CastValue(Value::String(f), SqlType::Varchar(), SqlType::Decimal(38, scale), &v);
    if (!st.ok()) return SqlError(sql_, node, st.message());
    return MakeLiteral(v, SqlType::Decimal(38, scale));
  }
  if (body.contains("sval")) {
    auto e = std::make_shared<Expr>(
        *MakeLiteral(Value::String(body["sval"].value("sval", "")), SqlType::Varchar()));
    e->untyped = true;  // until an operator gives it a type
    return ExprPtr(e);
  }
  if (body.contains("boolval")) {
    return MakeLiteral(Value::Bool(body["boolval"].value("boolval", false)), SqlType::Boolean());
  }
  return SqlUnsupported(sql_, node, "this constant");
}

Result<ExprPtr> Binder::BindCase(const Json& body, Ctx& ctx) {
  ExprPtr operand;
  if (body.contains("arg")) {
    SLUICE_ASSIGN_OR_RETURN(operand, BindExpr(body["arg"], ctx));
  }
  std::vector<ExprPtr> conds, results;
  for (const Json& w : body["args"]) {
    const Json& cw = w["CaseWhen"];
    SLUICE_ASSIGN_OR_RETURN(ExprPtr c, BindExpr(cw["expr"], ctx));
    if (operand) {
      SLUICE_ASSIGN_OR_RETURN(c, Call("=", {operand, c}, cw["expr"]));
    } else if (c->type.id() != TypeId::kBoolean) {
      return SqlError(sql_, cw["expr"], "argument of CASE/WHEN must be type boolean");
    }
    conds.push_back(c);
    SLUICE_ASSIGN_OR_RETURN(ExprPtr r, BindExpr(cw["result"], ctx));
    results.push_back(r);
  }
  bool has_else = body.contains("defresult");
  if (has_else) {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr d, BindExpr(body["defresult"], ctx));
    results.push_back(d);
  }
  SLUICE_ASSIGN_OR_RETURN(results, Unify(std::move(results), body));
  std::vector<ExprPtr> args;
  for (size_t i = 0; i < conds.size(); ++i) {
    args.push_back(conds[i]);
    args.push_back(results[i]);
  }
  if (has_else) args.push_back(results.back());
  auto e = std::make_shared<Expr>(*MakeNode(ExprKind::kCase, results[0]->type, args));
  e->has_else = has_else;
  return ExprPtr(e);
}

Result<ExprPtr> Binder::BindAExpr(const Json& body, const Json& node, Ctx& ctx) {
  std::string kind = body.value("kind", "");
  std::string op = body.contains("name") ? Str(body["name"].back()) : "";
  auto bind = [&](const char* f) { return BindExpr(body[f], ctx); };
  if (kind == "AEXPR_OP") {
    if (!body.contains("lexpr")) {
      SLUICE_ASSIGN_OR_RETURN(ExprPtr r, bind("rexpr"));
      // Fold -constant, so that the most negative integer literal fits.
      if (op == "-" && r->kind == ExprKind::kLiteral && r->type.IsInteger() &&
          !r->value.is_null()) {
        return MakeLiteral(Value::Int(-r->value.int_value()), r->type);
      }
      return Call(op, {r}, node);
    }
    SLUICE_ASSIGN_OR_RETURN(ExprPtr l, bind("lexpr"));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr r, bind("rexpr"));
    return Call(op, {l, r}, node);
  }
  if (kind == "AEXPR_IN") {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr l, bind("lexpr"));
    std::vector<ExprPtr> args = {l};
    for (const Json& item : body["rexpr"]["List"]["items"]) {
      SLUICE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(item, ctx));
      args.push_back(x);
    }
    SLUICE_ASSIGN_OR_RETURN(args, Unify(std::move(args), node));
    return MakeNode(ExprKind::kInList, SqlType::Boolean(), std::move(args), op == "<>");
  }
  if (kind == "AEXPR_LIKE" || kind == "AEXPR_ILIKE") {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr l, bind("lexpr"));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr r, bind("rexpr"));
    return Call(op, {l, r}, node);
  }
  if (kind == "AEXPR_BETWEEN" || kind == "AEXPR_NOT_BETWEEN") {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr x, bind("lexpr"));
    const Json& items = body["rexpr"]["List"]["items"];
    SLUICE_ASSIGN_OR_RETURN(ExprPtr lo, BindExpr(items[0], ctx));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr hi, BindExpr(items[1], ctx));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr ge, Call(">=", {x, lo}, node));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr le, Call("<=", {x, hi}, node));
    ExprPtr both = MakeNode(ExprKind::kAnd, SqlType::Boolean(), {ge, le});
    if (kind == "AEXPR_NOT_BETWEEN") return MakeNode(ExprKind::kNot, SqlType::Boolean(), {both});
    return both;
  }
  if (kind == "AEXPR_NULLIF") {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr a, bind("lexpr"));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr b, bind("rexpr"));
    std::vector<ExprPtr> ab = {a, b};
    SLUICE_ASSIGN_OR_RETURN(ResolvedFn r, Coerce("=", &ab, node));
    ExprPtr eq = MakeCall(r.fn, r.name, r.result, ab);
    // NULLIF(a, b) = CASE WHEN a = b THEN NULL ELSE a END, typed as a.
    SqlType t = a->type;
    if (a->kind == ExprKind::kLiteral && a->untyped && ab[0]->type.id() != TypeId::kVarchar) {
      t = ab[0]->type;
    }
    auto e = std::make_shared<Expr>(
        *MakeNode(ExprKind::kCase, t, {eq, MakeLiteral(Value::Null(), t), MakeCast(a, t)}));
    e->has_else = true;
    return ExprPtr(e);
  }
  if (kind == "AEXPR_DISTINCT" || kind == "AEXPR_NOT_DISTINCT") {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr a, bind("lexpr"));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr b, bind("rexpr"));
    std::vector<ExprPtr> ab = {a, b};
    SLUICE_RETURN_IF_ERROR(Coerce("=", &ab, node).status());  // to their common type
    return MakeNode(ExprKind::kIsDistinct, SqlType::Boolean(), {ab[0], ab[1]},
                    kind == "AEXPR_NOT_DISTINCT");
  }
  return SqlUnsupported(sql_, node, kind);
}

Result<ExprPtr> Binder::BindFuncCall(const Json& body, const Json& node, Ctx& ctx) {
  std::string name = Str(body["funcname"].back());
  if (body.contains("over")) {
    auto it = window_cols_.find(&body);
    if (it == window_cols_.end() || ctx.aggs != nullptr) {
      return SqlUnsupported(sql_, node,
                            "a window function here (only ROW_NUMBER() as a select item of a query "
                            "without GROUP BY is)");
    }
    return MakeColumn(it->second, SqlType::BigInt(false));
  }
  std::vector<ExprPtr> args;
  if (IsAggregateName(name)) {
    if (ctx.aggs == nullptr) {
      return SqlError(sql_, node, "aggregate functions are not allowed here");
    }
    if (ctx.in_aggregate) return SqlError(sql_, node, "aggregate function calls cannot be nested");
    ctx.in_aggregate = true;
    AggCall call;
    bool star = body.value("agg_star", false);
    bool distinct = body.value("agg_distinct", false);
    ExprPtr arg;
    if (!star) {
      const Json& a = body.value("args", Json::array());
      if (a.size() != 1) {
        ctx.in_aggregate = false;
        return SqlError(sql_, node, "function " + name + " takes one argument");
      }
      auto r = BindExpr(a[0], ctx);
      if (!r.ok()) {
        ctx.in_aggregate = false;
        return r.status();
      }
      arg = *r;
      if (arg->kind == ExprKind::kLiteral && arg->untyped)
        arg = MakeLiteral(arg->value, SqlType::Varchar());
    }
    ExprPtr filter;
    if (body.contains("agg_filter")) {
      auto f = BindExpr(body["agg_filter"], ctx);
      if (!f.ok()) {
        ctx.in_aggregate = false;
        return f.status();
      }
      filter = *f;
    }
    ctx.in_aggregate = false;
    if (name == "count") {
      call.kind = star ? AggKind::kCountStar : distinct ? AggKind::kCountDistinct : AggKind::kCount;
    } else {
      if (star) return SqlError(sql_, node, name + "(*) is not a function");
      call.kind = name == "sum"   ? (distinct ? AggKind::kSumDistinct : AggKind::kSum)
                  : name == "avg" ? (distinct ? AggKind::kAvgDistinct : AggKind::kAvg)
                  : name == "min" ? AggKind::kMin
                                  : AggKind::kMax;
      if ((BaseKind(call.kind) == AggKind::kSum || BaseKind(call.kind) == AggKind::kAvg) &&
          !IsNumeric(arg->type)) {
        return SqlError(sql_, node,
                        "function " + name + "(" + PgTypeName(arg->type) + ") does not exist");
      }
    }
    if (filter) {
      // agg(x) FILTER (WHERE p) = agg(CASE WHEN p THEN x END); COUNT(*) counts
      // a constant.
      ExprPtr x = arg ? arg : MakeLiteral(Value::Int(1), SqlType::Integer(false));
      auto c = std::make_shared<Expr>(
          *MakeNode(ExprKind::kCase, x->type.WithNullable(true), {filter, x}));
      arg = c;
      if (call.kind == AggKind::kCountStar) call.kind = AggKind::kCount;
    }
    call.arg = arg;
    // The aggregate's result type, as the engine computes it.
    Schema one = {arg ? arg->type : SqlType::BigInt()};
    AggSpec spec{call.kind, arg ? 0 : -1};
    auto t = AggOutputType(spec, one);
    if (!t.ok()) return SqlError(sql_, node, t.status().message());
    call.type = *t;
    std::string key = std::to_string(static_cast<int>(call.kind)) + "|" + (arg ? Key(*arg) : "*");
    auto it = std::find(ctx.agg_keys->begin(), ctx.agg_keys->end(), key);
    int index;
    if (it != ctx.agg_keys->end()) {
      index = static_cast<int>(it - ctx.agg_keys->begin());
    } else {
      index = static_cast<int>(ctx.aggs->size());
      ctx.aggs->push_back(call);
      ctx.agg_keys->push_back(key);
    }
    return MakeColumn(kAggBase + index, call.type);
  }
  for (const Json& a : body.value("args", Json::array())) {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(a, ctx));
    args.push_back(x);
  }
  if (name == "coalesce") {
    SLUICE_ASSIGN_OR_RETURN(args, Unify(std::move(args), node));
    SqlType t = args[0]->type;
    return MakeNode(ExprKind::kCoalesce, t, std::move(args));
  }
  if (name == "nullif" && args.size() == 2) {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr eq, Call("=", {args[0], args[1]}, node));
    auto e = std::make_shared<Expr>(*MakeNode(
        ExprKind::kCase, args[0]->type, {eq, MakeLiteral(Value::Null(), args[0]->type), args[0]}));
    e->has_else = true;
    return ExprPtr(e);
  }
  for (ExprPtr& a : args) {
    if (a->kind == ExprKind::kLiteral && a->untyped) a = MakeLiteral(a->value, SqlType::Varchar());
  }
  return Call(name, std::move(args), node);
}

Result<ExprPtr> Binder::BindSubLink(const Json& body, const Json& node, Ctx& ctx) {
  std::string type = body.value("subLinkType", "");
  if (type != "EXPR_SUBLINK" && type != "EXISTS_SUBLINK" && type != "ANY_SUBLINK") {
    return SqlUnsupported(sql_, node, type);
  }
  if (ctx.aggs != nullptr) {
    return SqlUnsupported(sql_, node, "a subquery in a grouped select list or HAVING");
  }
  const Json& sel = body["subselect"]["SelectStmt"];
  // Which columns of this query does the subquery use?
  std::vector<int> refs;
  Frame find;
  find.outer = &ctx;
  find.refs = &refs;
  frames_.push_back(find);
  auto probe = BindQuery(sel);
  frames_.pop_back();
  if (!probe.ok()) return probe.status();
  std::sort(refs.begin(), refs.end());
  refs.erase(std::unique(refs.begin(), refs.end()), refs.end());
  // Decorrelate: bind the subquery once over the distinct values of those
  // columns (the domain), and join its result back on them.
  BoundQuery q;
  std::shared_ptr<PlanNode> domain;
  std::vector<ExprPtr> outer_keys;
  if (refs.empty()) {
    q = std::move(probe).value();
  } else {
    domain = std::make_shared<PlanNode>();
    domain->kind = PlanKind::kDistinct;
    Frame over;
    for (int r : refs) {
      ScopeCol c = ctx.scope[static_cast<size_t>(r)];
      c.type = c.type.WithNullable(true);
      c.correlated = true;
      over.domain_cols.push_back(c);
      domain->columns.push_back({c.name, c.type});
      outer_keys.push_back(MakeColumn(r, ctx.scope[static_cast<size_t>(r)].type));
    }
    over.domain = domain;
    frames_.push_back(over);
    auto bound = BindQuery(sel);
    frames_.pop_back();
    if (!bound.ok()) return bound.status();
    q = std::move(bound).value();
  }
  const size_t k = refs.size();
  PlanPtr sub = q.plan;
  if (sub->columns.size() != q.visible) {
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
  const ExprPtr kTrue = MakeLiteral(Value::Bool(true), SqlType::Boolean(false));
  const ExprPtr kFalse = MakeLiteral(Value::Bool(false), SqlType::Boolean(false));

  if (type == "EXPR_SUBLINK") {
    if (q.visible != k + 1) return SqlError(sql_, node, "subquery must return only one column");
    int base = append(sub, outer_keys, sub_keys);
    return MakeColumn(base + static_cast<int>(k), sub->columns[k].type.WithNullable(true));
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
  if (op != "=") return SqlUnsupported(sql_, node, op + " ANY (subquery)");
  if (q.visible != k + 1) return SqlError(sql_, node, "subquery has too many columns");
  SLUICE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(body["testexpr"], ctx));
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
  auto agg = std::make_shared<PlanNode>();
  agg->kind = PlanKind::kAggregate;
  agg->inputs = {sub};
  agg->group_keys = sub_keys;
  agg->global = k == 0;
  for (size_t i = 0; i < k; ++i) agg->columns.push_back(sub->columns[i]);
  agg->aggs.push_back({AggKind::kCountStar, nullptr, SqlType::BigInt(false)});
  agg->aggs.push_back({AggKind::kCount, y, SqlType::BigInt(false)});
  agg->columns.push_back({"count", SqlType::BigInt(false)});
  agg->columns.push_back({"count", SqlType::BigInt(false)});
  int cbase = append(agg, outer_keys, sub_keys);
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

Result<ExprPtr> Binder::BindExpr(const Json& n, Ctx& ctx) {
  auto [kind, body_ptr] = Node(n);
  const Json& body = *body_ptr;
  if (kind == "ColumnRef") return BindColumnRef(body, n, ctx);
  if (kind == "A_Const") return BindConst(body, n);
  if (kind == "A_Expr") return BindAExpr(body, n, ctx);
  if (kind == "BoolExpr") {
    std::string op = body.value("boolop", "");
    std::vector<ExprPtr> args;
    for (const Json& a : body["args"]) {
      SLUICE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(a, ctx));
      if (x->kind == ExprKind::kLiteral && x->untyped) {
        Value v;
        Status st = CastValue(x->value, x->type, SqlType::Boolean(), &v);
        if (!st.ok()) return SqlError(sql_, a, st.message());
        x = MakeLiteral(v, SqlType::Boolean());
      }
      if (x->type.id() != TypeId::kBoolean) {
        return SqlError(sql_, a,
                        "argument of " +
                            std::string(op == "AND_EXPR"  ? "AND"
                                        : op == "OR_EXPR" ? "OR"
                                                          : "NOT") +
                            " must be type boolean, not type " + PgTypeName(x->type));
      }
      args.push_back(x);
    }
    ExprKind k = op == "AND_EXPR"  ? ExprKind::kAnd
                 : op == "OR_EXPR" ? ExprKind::kOr
                                   : ExprKind::kNot;
    return MakeNode(k, SqlType::Boolean(), std::move(args));
  }
  if (kind == "NullTest") {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(body["arg"], ctx));
    return MakeNode(ExprKind::kIsNull, SqlType::Boolean(), {x},
                    body.value("nulltesttype", "") == "IS_NOT_NULL");
  }
  if (kind == "BooleanTest") {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(body["arg"], ctx));
    std::string t = body.value("booltesttype", "");
    bool want = t == "IS_TRUE" || t == "IS_NOT_TRUE";
    bool negate = t == "IS_NOT_TRUE" || t == "IS_NOT_FALSE";
    if (t == "IS_UNKNOWN" || t == "IS_NOT_UNKNOWN") {
      return MakeNode(ExprKind::kIsNull, SqlType::Boolean(), {x}, t == "IS_NOT_UNKNOWN");
    }
    // x IS TRUE = x IS NOT DISTINCT FROM TRUE
    return MakeNode(ExprKind::kIsDistinct, SqlType::Boolean(),
                    {x, MakeLiteral(Value::Bool(want), SqlType::Boolean())}, !negate);
  }
  if (kind == "CaseExpr") return BindCase(body, ctx);
  if (kind == "CoalesceExpr") {
    std::vector<ExprPtr> args;
    for (const Json& a : body["args"]) {
      SLUICE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(a, ctx));
      args.push_back(x);
    }
    SLUICE_ASSIGN_OR_RETURN(args, Unify(std::move(args), n));
    SqlType t = args[0]->type;
    return MakeNode(ExprKind::kCoalesce, t, std::move(args));
  }
  if (kind == "TypeCast") {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(body["arg"], ctx));
    SLUICE_ASSIGN_OR_RETURN(SqlType t, BindTypeName(sql_, body["typeName"]));
    if (x->kind == ExprKind::kLiteral) {
      Value v;
      Status st = CastValue(x->value, x->type, t, &v);
      if (!st.ok()) return SqlError(sql_, n, st.message());
      return MakeLiteral(std::move(v), t);
    }
    return MakeCast(x, t);
  }
  if (kind == "FuncCall") return BindFuncCall(body, n, ctx);
  if (kind == "SubLink") return BindSubLink(body, n, ctx);
  return SqlUnsupported(sql_, n, kind.empty() ? "this expression" : kind);
}

}  // namespace

Result<SqlType> BindTypeName(std::string_view sql, const Json& type_name) {
  const Json& tn = type_name.contains("TypeName") ? type_name["TypeName"] : type_name;
  std::string name = Str(tn["names"].back());
  std::vector<int64_t> mods;
  for (const Json& m : tn.value("typmods", Json::array())) {
    auto [kind, body] = Node(m);
    if (kind == "A_Const" && body->contains("ival"))
      mods.push_back((*body)["ival"].value("ival", int64_t{0}));
  }
  if (tn.contains("arrayBounds")) {
    return SqlUnsupported(sql, type_name, "an array type in this position");
  }
  if (name == "int4" || name == "integer" || name == "int") return SqlType::Integer();
  if (name == "int8" || name == "bigint") return SqlType::BigInt();
  if (name == "int2" || name == "smallint") return SqlType::SmallInt();
  if (name == "tinyint") return SqlType::TinyInt();
  if (name == "float8" || name == "double") return SqlType::Double();
  if (name == "float4" || name == "real") return SqlType::Real();
  if (name == "bool" || name == "boolean") return SqlType::Boolean();
  if (name == "text" || name == "string") return SqlType::Varchar();
  if (name == "varchar") return SqlType::Varchar(mods.empty() ? -1 : static_cast<int>(mods[0]));
  if (name == "bpchar" || name == "char")
    return SqlType::Char(mods.empty() ? 1 : static_cast<int>(mods[0]));
  if (name == "bytea" || name == "varbinary") return SqlType::Varbinary();
  if (name == "binary") return SqlType::Binary(mods.empty() ? 1 : static_cast<int>(mods[0]));
  if (name == "numeric" || name == "decimal") {
    int p = mods.empty() ? 38 : static_cast<int>(mods[0]);
    int s = mods.size() > 1 ? static_cast<int>(mods[1]) : (mods.empty() ? 10 : 0);
    if (p < 1 || p > 38)
      return SqlError(sql, type_name,
                      "NUMERIC precision " + std::to_string(p) + " must be between 1 and 38");
    if (s < 0 || s > p)
      return SqlError(sql, type_name,
                      "NUMERIC scale " + std::to_string(s) + " must be between 0 and precision " +
                          std::to_string(p));
    return SqlType::Decimal(p, s);
  }
  if (name == "date") return SqlType::Date();
  if (name == "time") return SqlType::Time();
  if (name == "timestamp") return SqlType::Timestamp();
  if (name == "interval") return SqlType::Interval();
  if (name == "variant") return SqlType::Variant();
  return SqlError(sql, type_name, "type \"" + name + "\" does not exist");
}

Result<BoundQuery> BindSelect(const Catalog& catalog, std::string_view sql, const Json& select) {
  Binder b(catalog, sql);
  return b.BindQuery(select);
}

Result<ExprPtr> BindOverColumns(const Catalog& catalog, std::string_view sql,
                                const std::vector<Column>& columns, const std::string& qualifier,
                                const Json& expr) {
  Binder b(catalog, sql);
  Ctx ctx;
  for (const Column& c : columns) ctx.scope.push_back({qualifier, c.name, c.type});
  SLUICE_ASSIGN_OR_RETURN(ExprPtr e, b.BindExpr(expr, ctx));
  if (!ctx.pending.empty()) return SqlUnsupported(sql, expr, "a subquery here");
  return e;
}

Result<Value> EvalConstant(const Catalog& catalog, std::string_view sql, const Json& expr,
                           const SqlType& target) {
  Binder b(catalog, sql);
  Ctx empty;
  SLUICE_ASSIGN_OR_RETURN(ExprPtr e, b.BindExpr(expr, empty));
  if (!empty.pending.empty()) return SqlUnsupported(sql, expr, "a subquery here");
  Value v;
  Status s = Eval(*e, Row{}, &v);
  if (s.ok()) s = CastValue(v, e->type, target, &v);
  if (!s.ok()) return SqlError(sql, expr, s.message());
  return v;
}

}  // namespace sluice::sql
