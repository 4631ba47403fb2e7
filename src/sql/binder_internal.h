// The binder's internals, shared by its files: binder.cc (queries, FROM,
// joins, grouping), binder_group.cc (rewrites of grouped queries),
// binder_expr.cc (expressions) and binder_subquery.cc (subqueries and their
// decorrelation), and the others named below. Not for use outside src/sql.
#pragma once

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sql/binder.h"
#include "sql/functions.h"

namespace sluice::sql::binding {

// ---------------------------------------------------------------- helpers

// {"Kind": {...}} -> ("Kind", {...})
inline std::pair<std::string, const Json*> Node(const Json& n) {
  if (!n.is_object() || n.size() != 1) return {"", &n};
  return {n.begin().key(), &n.begin().value()};
}

inline std::string Str(const Json& n) {
  auto [kind, body] = Node(n);
  if (kind == "String") return body->value("sval", "");
  return "";
}

inline const Json& Field(const Json& body, const char* name) {
  static const Json kNull;
  auto it = body.find(name);
  return it == body.end() ? kNull : *it;
}

// The set-returning functions a query may call in FROM or in its select
// list: generate_series, unnest, regexp_matches, string_to_table,
// regexp_split_to_table, and the JSON ones (jsonb_array_elements, ...).
bool IsSeriesFunction(std::string_view name);
std::string SeriesColumnName(const std::string& name);

// PostgreSQL's statistical aggregates (VAR_POP, REGR_SLOPE, ...): their kind,
// or false if `name` is not one.
bool StatisticKind(const std::string& name, AggKind* kind);
inline bool IsStatisticName(const std::string& name) {
  AggKind k;
  return StatisticKind(name, &k);
}
// BOOL_AND (and its standard name EVERY) and BOOL_OR: MIN and MAX of
// booleans, as false < true.
inline bool IsBoolAggregateName(const std::string& name) {
  return name == "bool_and" || name == "every" || name == "bool_or";
}
// The ordered-set aggregates, called as f(args) WITHIN GROUP (ORDER BY ...).
inline bool IsHypotheticalSetName(const std::string& name) {
  return name == "rank" || name == "dense_rank" || name == "percent_rank" || name == "cume_dist";
}
inline bool IsWithinGroupCall(const Json& func_call) {
  return func_call.value("agg_within_group", false);
}
// A call of an aggregate that a user defined (CREATE AGGREGATE) is known by
// this prefix to its name (MarkUserAggregates), so that whatever asks
// whether a call is an aggregate knows it is one.
inline constexpr const char* kUserAggregatePrefix = "?aggregate ";
inline bool IsUserAggregateName(const std::string& name) {
  return name.rfind(kUserAggregatePrefix, 0) == 0;
}
// The aggregate's own name, without the prefix.
inline std::string UserAggregateName(const std::string& name) {
  return IsUserAggregateName(name) ? name.substr(std::string(kUserAggregatePrefix).size()) : name;
}
// `n` (a parse tree) with the prefix on the calls of the catalog's
// aggregates (binder_aggregate.cc).
Json MarkUserAggregates(const Catalog& catalog, const Json& n);
// anyelement, anyarray, "any", ...: a parameter whose type is its argument's.
bool IsPolymorphicType(const std::string& name);

inline bool IsAggregateName(const std::string& name) {
  return IsUserAggregateName(name) || name == "count" || name == "sum" || name == "min" ||
         name == "max" || name == "avg" || name == "string_agg" || name == "array_agg" ||
         IsStatisticName(name) || IsBoolAggregateName(name) || name == "jsonb_agg" ||
         name == "json_agg" || name == "jsonb_object_agg" || name == "json_object_agg";
}
// The aggregates a rolling (RANGE n PRECEDING) window can compute.
inline bool IsRollingAggregateName(const std::string& name) {
  return name == "count" || name == "sum" || name == "min" || name == "max" || name == "avg";
}
// The aggregates a window can compute.
inline bool IsWindowAggregateName(const std::string& name) {
  return IsRollingAggregateName(name) || IsStatisticName(name) || IsBoolAggregateName(name);
}

// The window function calls in an expression, outside its subqueries.
inline void CollectWindowCalls(const Json& n, std::vector<const Json*>* out) {
  if (n.is_object()) {
    if (n.contains("SubLink")) return;
    if (n.contains("FuncCall") && n["FuncCall"].contains("over")) {
      out->push_back(&n);
      return;
    }
    for (auto it = n.begin(); it != n.end(); ++it) CollectWindowCalls(it.value(), out);
  } else if (n.is_array()) {
    for (const Json& x : n) CollectWindowCalls(x, out);
  }
}

// The first aggregate call of `n` outside any subquery (the FuncCall's
// body), in document order, a subquery's left operand being outside it;
// null if none.
inline const Json* FirstAggregate(const Json& n) {
  if (n.is_array()) {
    for (const Json& x : n) {
      if (const Json* a = FirstAggregate(x)) return a;
    }
    return nullptr;
  }
  if (!n.is_object()) return nullptr;
  for (auto it = n.begin(); it != n.end(); ++it) {
    if (it.key() == "SubLink") {
      // `x = ANY (SELECT ...)`: x is this query's expression.
      if (auto x = it->find("testexpr"); x != it->end()) {
        if (const Json* a = FirstAggregate(*x)) return a;
      }
      continue;
    }
    if (it.key() == "SelectStmt") continue;
    if (it.key() == "FuncCall" && it->contains("funcname") && !it->contains("over")) {
      const Json& names = (*it)["funcname"];
      if (IsWithinGroupCall(*it)) return &*it;
      if (!names.empty() && IsAggregateName(Str(names.back()))) return &*it;
    }
    if (const Json* a = FirstAggregate(*it)) return a;
  }
  return nullptr;
}

// True if `n` has an aggregate call outside any subquery.
inline bool ContainsAggregate(const Json& n) { return FirstAggregate(n) != nullptr; }

// PostgreSQL's rules for the form of recursive queries (binder_recursive.cc):
// `ctes`, the CommonTableExpr nodes of one WITH RECURSIVE that read
// themselves, in the order they are bound; PostgreSQL's error for the first
// that breaks one, pointing where PostgreSQL points.
Status CheckRecursiveQueries(std::string_view sql, const std::vector<const Json*>& ctes);

// An inner join of `l` and `r` on `conds` (over l's columns, then r's from
// `lw`) that has no equality key but an OR of equalities between the sides:
// the union of one keyed join per disjunct, each leaving out the pairs an
// earlier one took, so that each pair counts once and no cross product is
// built. nullopt if there is no such OR.
std::optional<PlanPtr> UnionOfKeyedJoins(const PlanPtr& l, const PlanPtr& r, int lw,
                                         const std::vector<ExprPtr>& conds);

// The relation of one row {NOW()} that a view's reads of the step clock
// outside temporal filters join (plan.h, kClock).
constexpr const char* kStepClock = "?step_clock";

// age(x), the call's parse tree, as age(CURRENT_DATE::timestamp, x): from
// the midnight that began the day (binder_temporal.cc).
Json AgeFromMidnight(const Json& call);

// An expression's parse tree without its positions: equal text, equal key.
std::string Canonical(const Json& n);

// `n` with every subtree whose text (Canonical) is a key of `columns`
// replaced by a reference to the column it names; not inside subqueries.
void ReplaceByColumns(Json* n, const std::map<std::string, std::string>& columns);

// The calls of `n`, outside its subqueries and not over a window, whose
// FuncCall body `is` holds for; a call's arguments are not looked into.
void CollectCalls(const Json& n, const std::function<bool(const Json& call)>& is,
                  std::vector<const Json*>* out);
// The calls of built-in set-returning functions in `n` (CollectCalls).
void CollectSetCalls(const Json& n, std::vector<const Json*>* out);

// The select list item `*`, as the parser writes it.
inline Json StarTarget() {
  return {{"ResTarget",
           {{"val", {{"ColumnRef", {{"fields", Json::array({Json{{"A_Star", Json::object()}}})}}}}},
            {"location", -1}}}};
}

// The name the FROM item `item` is known by: its alias, or a table's name;
// nullopt for an item without one (an unaliased subquery, a join).
std::optional<std::string> FromItemName(const Json& item);

// Moves the conjuncts of the ON conditions of the inner joins of the SELECT
// `s`'s FROM (not those under an outer join) that `moves` holds for into
// its WHERE, where ON and WHERE are one; whether any moved.
bool InnerOnConjunctsToWhere(Json* s, bool (*moves)(const Json& conjunct));

// Moves the conjuncts of the ON conditions of the LEFT JOINs of the SELECT
// `s`'s FROM that `moves` holds for into a LATERAL subquery around the
// join's right side (a table, view, WITH query, or an aliased subquery or
// function), where WHERE may hold what ON may not; whether any moved.
bool LeftOnConjunctsToLateral(Json* s, bool (*moves)(const Json& conjunct));

// Marks the SELECT * FROM join as which a JOIN in FROM that reads earlier
// items (or an enclosing query) is bound, as a LATERAL subquery.
constexpr const char* kJoinAsLateral = "?join_as_lateral";

// Whether a JOIN in FROM has a LATERAL item in its tree.
inline bool HasLateralItem(const Json& item) {
  auto [kind, body] = Node(item);
  if (kind == "JoinExpr") return HasLateralItem((*body)["larg"]) || HasLateralItem((*body)["rarg"]);
  return (kind == "RangeSubselect" || kind == "RangeFunction") && body->value("lateral", false);
}

// A key of a derived table (RangeSubselect) that a rewrite made: the names
// of its columns that are computed for the enclosing query and not shown by
// * (ScopeCol::no_star).
inline constexpr const char* kNoStarColumns = "sluice_no_star";
// On a RangeFunction: its rows of a composite type stay one column (a
// select list's set-returning call), not a column per field as in FROM.
inline constexpr const char* kWholeRows = "sluice_whole_rows";

// Field i of the ROW value `row`: (row).field, NULL where the row is.
ExprPtr FieldOf(const ExprPtr& row, size_t i);

struct ScopeCol {
  std::string qualifier;
  std::string name;
  SqlType type;
  // A column of the enclosing query, seen by a correlated subquery: it is
  // found only when no column of the subquery's own FROM has the name.
  bool correlated = false;
  // A column that a subquery's join added: never found by name, nor by *.
  bool hidden = false;
  // JOIN ... USING: the merged column is found by its bare name and shown by
  // *; each side's own is found only qualified (t.a) and shown by t.*.
  bool unqualified_only = false;
  bool qualified_only = false;
  // A recursive query's SEARCH and CYCLE columns, read in its recursive
  // term: found by name, but not shown by * (PostgreSQL's expansion).
  bool no_star = false;
  // A column of the side of an outer join whose rows it may fill with
  // NULLs: that side's whole row (t.*) is then NULL.
  bool outer_nullable = false;
  // A column of a table read in FROM: which reading of a table (one number
  // per FROM item of this binder) and whether it is in the table's primary
  // key. A query grouped by a table's whole key may read its other columns.
  int scan = -1;
  bool primary_key = false;
  // Which item of a SELECT's FROM list the column comes from, for the order
  // in which * shows the columns (LATERAL items are joined after the others).
  int from_item = std::numeric_limits<int>::max();
  // A column of a correlated subquery's domain that a join in its FROM
  // carries (JoinDomain): which one. The subquery's output leads with them.
  int domain = -1;
  // The merged column of a LEFT, RIGHT or inner JOIN ... USING: the scope
  // column this many places on whose value it is (cast to its type), so a
  // query grouped by that column may read this one. 0 for none.
  int same_as = 0;
};

struct Ctx;

// The domain of a correlated subquery (the distinct values of the outer
// columns it reads), while a join in its FROM that reads those columns is
// bound: each side that reads them is bound over the domain too, and the
// sides are joined on the domain's columns as well as on their condition.
struct JoinDomain {
  PlanPtr plan;                // the domain's node
  std::vector<ScopeCol> cols;  // its columns (correlated ones)
  // The queries around the domain, as the subquery's frame sees them.
  const Ctx* outer = nullptr;
  std::vector<int>* outer_refs = nullptr;
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
  // Instead of a join: a LATERAL set-returning function of the plan's rows
  // (kSeries), whose input and columns are set once the plan is built.
  std::shared_ptr<PlanNode> series;
  // The series' one column is a composite value: its fields take its place.
  bool spread = false;
};

struct Ctx {
  std::vector<ScopeCol> scope;
  // The names of FROM items without columns (a table of none): the scope
  // has nothing of them, but t.* names them.
  std::vector<std::string> columnless;
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
  // A query over one subquery with an ORDER BY: its sort keys (over this
  // query's scope) and their direction, the order in which LIMIT without
  // an ORDER BY, and array_agg and string_agg without one, take the rows.
  struct InputOrderKey {
    ExprPtr key;
    bool desc = false, nulls_first = false;
  };
  std::vector<InputOrderKey> input_order;
  // Whether input_order runs one way, with PostgreSQL's default NULLs.
  bool InputOrderOneWay() const {
    for (const InputOrderKey& k : input_order) {
      if (k.desc != input_order[0].desc || k.nulls_first != k.desc) return false;
    }
    return !input_order.empty();
  }
};

// Marks a placeholder for aggregate j: a column reference far past any scope.
constexpr int kAggBase = 1 << 24;
// Marks a placeholder for window call j of a grouped query, computed over
// the aggregate's output (after aggregate j's placeholders).
constexpr int kWindowBase = 1 << 25;

// Window calls over one partition and order, bound as one window operator.
struct WindowGroup {
  std::string key;
  std::vector<ExprPtr> partition, order_exprs;
  std::vector<SortKey> order;
  std::vector<ExprPtr> tie_exprs;  // kOver's
  std::vector<SortKey> tie_order;
  std::vector<std::pair<const Json*, WindowCall>> calls;
};

// A kOver node over `in` for the group's partition and order, without its
// calls yet (their columns follow `in`'s).
inline std::shared_ptr<PlanNode> MakeOver(PlanPtr in, const WindowGroup& g) {
  auto n = std::make_shared<PlanNode>();
  n->kind = PlanKind::kOver;
  n->columns = in->columns;
  n->inputs = {std::move(in)};
  n->partition = g.partition;
  n->order_exprs = g.order_exprs;
  n->order = g.order;
  n->tie_exprs = g.tie_exprs;
  n->tie_order = g.tie_order;
  return n;
}

// ROW(fields...): a value of an anonymous ROW type (fields f1, f2, ...).
ExprPtr MakeRow(std::vector<ExprPtr> fields);

// The rows of `in` while the step clock passes `bounds` (binder_temporal.cc).
PlanPtr MakeTemporalFilter(PlanPtr in, std::vector<TimeBound> bounds);

inline PlanPtr MakeFilter(PlanPtr in, ExprPtr pred) {
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
inline SqlType StoredType(const ExprPtr& e) {
  return e->kind == ExprKind::kColumn ? e->type : e->type.WithNullable(true);
}

inline PlanPtr MakeProject(PlanPtr in, std::vector<ExprPtr> exprs, std::vector<std::string> names) {
  auto n = std::make_shared<PlanNode>();
  n->kind = PlanKind::kProject;
  for (size_t i = 0; i < exprs.size(); ++i) n->columns.push_back({names[i], StoredType(exprs[i])});
  n->inputs = {std::move(in)};
  n->exprs = std::move(exprs);
  return n;
}

inline PlanPtr MakeJoin(PlanPtr l, PlanPtr r, JoinType type, std::vector<ExprPtr> lk,
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

inline PlanPtr OneEmptyRow() {
  auto n = std::make_shared<PlanNode>();
  n->kind = PlanKind::kValues;
  n->rows = {Row{}};
  return n;
}

// Columns referenced by `e` (kAggBase placeholders excluded).
inline void CollectColumns(const Expr& e, std::vector<int>* out) {
  if (e.kind == ExprKind::kColumn && e.column < kAggBase) out->push_back(e.column);
  for (const ExprPtr& a : e.args) CollectColumns(*a, out);
}

// `e` with every column index shifted by `delta`.
inline ExprPtr Shift(const ExprPtr& e, int delta) {
  if (e->kind == ExprKind::kColumn) return MakeColumn(e->column + delta, e->type);
  if (e->args.empty()) return e;
  auto copy = std::make_shared<Expr>(*e);
  for (ExprPtr& a : copy->args) a = Shift(a, delta);
  return copy;
}

inline void SplitConjuncts(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (e->kind == ExprKind::kAnd) {
    for (const ExprPtr& a : e->args) SplitConjuncts(a, out);
  } else {
    out->push_back(e);
  }
}

inline ExprPtr AndAll(const std::vector<ExprPtr>& cs) {
  if (cs.empty()) return nullptr;
  if (cs.size() == 1) return cs[0];
  return MakeNode(ExprKind::kAnd, SqlType::Boolean(), cs);
}

inline std::string Key(const Expr& e) { return e.ToString() + ":" + e.type.ToString(); }

// If `item` ends in ROW_NUMBER() (a Project over a kRank node without a
// limit) and `pred` keeps rows numbered up to k (rn <= k, rn < k, rn = 1),
// returns the item with the rank node limited to k: a top-k per partition.
inline PlanPtr PushRankLimit(const PlanPtr& item, const ExprPtr& pred) {
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
inline SortKey SortKeyOf(const Json& by, int col) {
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
  // Whether the aggregate's transition and final functions exist and take
  // its state and arguments (for CREATE AGGREGATE); `node` is the statement.
  Status CheckUserAggregate(const AggregateDef& a, const Json& node);
  // An array subscript (an untyped constant in it is an integer).
  Result<ExprPtr> BindSubscript(const Json& n, Ctx& ctx);

  // The output column name of a select-list item, as PostgreSQL names it.
  static std::string OutputName(const Json& target);
  static std::string ExprName(const Json& val);

 private:
  Result<BoundQuery> BindSetOp(const Json& s);
  Result<BoundQuery> BindSimple(const Json& s);
  // The set-returning function calls (FuncCall nodes) in the select list of
  // `s`: none, or one call, maybe written several times; an error for those
  // not supported yet.
  Result<std::vector<const Json*>> SelectListSetCalls(const Json& s);
  // `order_from_input`: the query around it asks for the order of its rows.
  Result<BoundQuery> BindValues(const Json& s, bool order_from_input = false);
  // WITH RECURSIVE `name` AS (base UNION [ALL] step), step reading `name`.
  Result<BoundQuery> BindRecursive(const std::string& name, const Json& cte, const Json& node);
  // With `order` (a query over this one item), a subquery's ORDER BY in one
  // direction with PostgreSQL's default NULLs: its columns among the item's
  // (its hidden sort columns kept, hidden) and DESC, the order in which an
  // array_agg or string_agg over it takes its rows.
  Status BindFromItem(const Json& item, PlanPtr* plan, std::vector<ScopeCol>* cols,
                      std::vector<SortKey>* order = nullptr);
  // A JOIN in FROM; with `d`, inside a correlated subquery whose domain the
  // join reads: its columns then carry the domain's (ScopeCol::domain).
  Status BindJoin(const Json& item, const JoinDomain* d, PlanPtr* plan,
                  std::vector<ScopeCol>* cols);
  // Whether binding `item` reads a column of the domain `d`.
  Result<bool> ReadsDomain(const Json& item, const JoinDomain& d);
  // A side of a join inside a subquery with the domain `d`: bound over the
  // domain (its columns leading) if it reads it, else as it is.
  Status BindItemOverDomain(const Json& item, const JoinDomain& d, PlanPtr* plan,
                            std::vector<ScopeCol>* cols);
  // `d`'s columns joined to every row of `plan` (whose scope is `cols`).
  static void CrossWithDomain(const JoinDomain& d, PlanPtr* plan, std::vector<ScopeCol>* cols);
  // hop(...) or tumble(...) in FROM: windows over the time column of one
  // earlier FROM item, whose plan and scope columns it extends in place.
  // generate_series() and unnest() of constants: a constant relation. With
  // `order` (a query over this one item), the order in which the function
  // yields its rows, by its ordinality column (hidden, unless WITH
  // ORDINALITY shows it): PostgreSQL's order of the rows, which array_agg
  // and string_agg without an ORDER BY, LIMIT and windows take.
  Status BindConstantSeries(const Json& item, const Json& call, std::vector<PlanPtr>* items,
                            std::vector<size_t>* widths, std::vector<ScopeCol>* scope,
                            std::vector<SortKey>* order = nullptr);
  // An expression without columns, evaluated now (a literal), or as it is.
  Result<ExprPtr> FoldConstant(const Json& node);
  // NOW(), CURRENT_TIMESTAMP, LOCALTIMESTAMP (binder_temporal.cc): the
  // catalog's constant in an ad hoc query; in a view the step clock, only
  // within a WHERE clause.
  Result<ExprPtr> BindNow(const Json& node);
  // nextval(), currval(), setval() and lastval() (sequences.h): only where
  // the catalog gives them a SequenceAccess, never in a view.
  Result<ExprPtr> BindSequenceCall(const std::string& name, const Json& body, const Json& node,
                                   Ctx& ctx);
  // random() at call site `site` where the query needs a constant (LIMIT,
  // OFFSET): drawn once, at binding, from the query's instant in an ad hoc
  // query, from its text in a view.
  double OnceDraw(int site);
  // CURRENT_DATE in a view: the step clock's date, within a WHERE clause.
  Result<ExprPtr> BindToday(const Json& node);
  // In a view, `s` (a SELECT) with every read of the clock that is not in a
  // temporal filter's comparison (in WHERE; with `where_too`, none is) as a
  // subquery of the clock relation, kStepClock; nullopt if it has none. Not
  // its subqueries'.
  std::optional<Json> ClockReadsAsSubqueries(const Json& s, bool where_too) const;
  // The bounds of one conjunct comparing a DATE with CURRENT_DATE.
  Status TodayBounds(const Expr& conjunct, const Json& where, std::vector<TimeBound>* bounds);
  // Takes the conjuncts that read the step clock out of `conjuncts`, as
  // bounds of a temporal filter; an error at a NOW() that is not in such a
  // comparison.
  Status TakeTemporalConjuncts(std::vector<ExprPtr>* conjuncts, std::vector<TimeBound>* bounds);
  // A set-returning call bound as a series of rows per input row: its kind,
  // its arguments and the type of its values.
  struct SetCall {
    SeriesFn fn = SeriesFn::kGenerateSeries;
    std::vector<ExprPtr> args;
    SqlType type;
  };
  Result<SetCall> BindSetCall(const Json& call, Ctx& ctx, const Json* coldeflist = nullptr);
  // json(b)_to_record(set)'s first argument: a NULL of the type that the
  // column definition list (AS x(a INT, ...)) describes. nullptr for other
  // functions, which take no such list.
  Result<ExprPtr> RecordTypeArg(const std::string& name, const Json* coldeflist, const Json& node);
  // Several different set-returning calls of a select list, in lockstep
  // (PostgreSQL's ProjectSet): one LATERAL series of a column each, hidden.
  Status BindSetCallsInStep(const std::vector<const Json*>& calls, Ctx& ctx);
  Status BindTableFunction(const Json& item, std::vector<PlanPtr>* items,
                           std::vector<size_t>* widths, std::vector<ScopeCol>* scope,
                           std::vector<SortKey>* order = nullptr);
  // generate_series or unnest in FROM whose arguments read columns of
  // earlier items or of an enclosing query: whether `item` is one, and
  // binding it (over `ctx`, once all items are) as an extension computed per
  // row of the items' join.
  static bool IsLateralSeries(const Json& item);
  Status BindLateralSeries(const Json& item, Ctx& ctx);
  // A set-returning function other than generate_series and unnest, as the
  // call of its scalar form: the array of its rows (ResolveSetFunction).
  Result<ExprPtr> CallSetFunction(const std::string& name, std::vector<ExprPtr> args,
                                  const Json& node);
  Result<PlanPtr> BuildJoins(std::vector<PlanPtr> items, std::vector<size_t> widths,
                             std::vector<ExprPtr> conjuncts, size_t from_width);
  Result<PlanPtr> ApplyExtensions(PlanPtr plan, Ctx& ctx, size_t* applied);
  // A LATERAL subquery that reads columns of the FROM items before it (whose
  // columns `left` holds): bound once over the distinct values of those
  // columns and of those that `on` (a LEFT JOIN's condition) reads, like a
  // correlated subquery, with `on` applied to its rows. nullopt if it reads
  // none (then it is an ordinary subquery).
  struct Lateral {
    PlanPtr plan;                      // the domain's columns, then the subquery's
    std::vector<int> refs;             // the columns of `left` in the domain
    std::shared_ptr<PlanNode> domain;  // its input is the caller's to set
    std::vector<ScopeCol> cols;        // the subquery's columns
  };
  Result<std::optional<Lateral>> BindLateral(const Json& item, const Ctx& left, const Json* on);
  // `lp` (whose scope is `lc`) JOIN (jt: inner or left) that subquery.
  Status JoinLateral(const Json& item, const std::string& jt, const PlanPtr& lp,
                     const std::vector<ScopeCol>& lc, const Lateral& lat, PlanPtr* plan,
                     std::vector<ScopeCol>* cols);
  Status RenameJoinColumns(const Json& body, std::vector<ScopeCol>* cols);
  Result<ExprPtr> BindColumnRef(const Json& body, const Json& node, Ctx& ctx);
  // NULL when the row cannot be compared to a correlated subquery's rows.
  static Json RowInSubquery(const Json& sublink, bool correlated, const std::string& op);
  std::vector<int> StarColumns(const std::string& qual, const Ctx& ctx, bool outer);
  bool HasWholeRow(const std::string& name, const Ctx& ctx);
  Result<ExprPtr> BindWholeRow(const std::string& qual, const Json& node, Ctx& ctx);
  Result<ExprPtr> BindConst(const Json& body, const Json& node);
  Result<ExprPtr> BindAExpr(const Json& body, const Json& node, Ctx& ctx);
  Result<ExprPtr> BindFuncCall(const Json& body, const Json& node, Ctx& ctx);
  std::optional<Json> RewriteJsonCall(const std::string& name, const Json& body, const Json& node);
  // STRING_AGG's separator for values `value`: a constant string (bytea for
  // bytea values).
  Result<std::string> StringAggSeparator(const Json& sep, const ExprPtr& value);
  // An aggregate call of the query: its column on the aggregate's output
  // (the same call twice is computed once).
  Result<ExprPtr> AddAggregate(AggCall call, Ctx& ctx, const Json& node);
  // f(args) WITHIN GROUP (ORDER BY keys): the hypothetical-set aggregates
  // (rank, dense_rank, percent_rank, cume_dist) as counts of the group's
  // rows that sort before the hypothetical row `args`, or with it.
  // What every ordered-set aggregate call must be: in a grouped query, not
  // inside another aggregate, without FILTER.
  // Checks where an ordered-set call may stand, and binds its FILTER into
  // `filter` (null without one).
  Status CheckOrderedSetCall(const Json& body, const Json& node, Ctx& ctx, ExprPtr* filter);
  Result<ExprPtr> BindHypotheticalSet(const std::string& name, const Json& body, const Json& node,
                                      Ctx& ctx);
  // percentile_disc(p) and percentile_cont(p) WITHIN GROUP (ORDER BY x):
  // picked from the group's non-NULL values in order (an ARRAY_AGG).
  Result<ExprPtr> OrderedValues(ExprPtr x, const Json& by, const Json& node, Ctx& ctx,
                                const ExprPtr& filter);
  Result<ExprPtr> BindMode(const Json& by, const Json& node, Ctx& ctx, const ExprPtr& filter);
  Result<ExprPtr> BindPercentile(const std::string& name, const Json& body, const Json& node,
                                 Ctx& ctx);
  // Casts to oid, regclass, regtype, regnamespace and regrole.
  static bool IsOidAlias(const std::string& type);
  Result<ExprPtr> BindOidCast(const std::string& type, const ExprPtr& x, const Json& node);
  Result<ExprPtr> BindPgDefinition(const std::string& name, std::vector<ExprPtr> args,
                                   const Json& node);
  Result<ExprPtr> BindSubLink(const Json& body, const Json& node, Ctx& ctx);
  // Decorrelation, shared by subqueries in expressions and LATERAL: binds
  // `sel` with `outer` as its enclosing query, setting `refs` to the columns
  // of `outer` it reads (sorted, once each) ...
  Result<BoundQuery> BindFindingOuter(const Json& sel, const Ctx& outer, std::vector<int>* refs);
  // ... and binds it over the distinct values of those columns (the domain,
  // whose columns then lead its output). `*domain` is the domain's node; its
  // input is the caller's to set.
  Result<BoundQuery> BindOverDomain(const Json& sel, const Ctx& outer, const std::vector<int>& refs,
                                    std::shared_ptr<PlanNode>* domain);
  Result<ExprPtr> BindCase(const Json& body, Ctx& ctx);
  // Computes the ROW_NUMBER() OVER (...) calls of a select list over `plan`,
  // adding their columns to the scope.
  // The window calls of the select list and ORDER BY (`sort`, or null),
  // computed over `plan` (the FROM scope). With `grouped`, the calls of a
  // grouped query: they are bound over the FROM scope with aggregates
  // collected, into `grouped`, for WindowsOverAggregate; `plan` is returned.
  Result<PlanPtr> BindWindows(const Json& targets, const Json* sort, Ctx& ctx, PlanPtr plan,
                              std::vector<WindowGroup>* grouped = nullptr);
  // A grouped query's window operators over its aggregate (and HAVING):
  // the groups' expressions moved onto the aggregate's output.
  Result<PlanPtr> WindowsOverAggregate(std::vector<WindowGroup> groups,
                                       const std::vector<ExprPtr>& keys,
                                       const std::vector<std::string>& key_strs, const Ctx& from,
                                       PlanPtr plan);
  // Rewrites of grouped queries (binder_group.cc). GROUP BY with GROUPING
  // SETS, ROLLUP or CUBE: the query as a UNION ALL of one grouped query per
  // set (nullopt if it has none).
  Result<std::optional<Json>> ExpandGroupingSets(const Json& s);
  // The names of the columns the FROM clause's items show (for a GROUP BY
  // name, which is an input column before it is an output one), or nullopt
  // when an item's are not known before binding it.
  std::optional<std::set<std::string>> FromColumnNames(const Json& from) const;
  // The aggregates in the subqueries of `n` (an expression of a query whose
  // FROM is `from`) that belong to that query, as PostgreSQL gives an
  // aggregate to the query whose columns it reads (its agglevelsup):
  // `(SELECT max(o.x) FILTER (WHERE o.y) FROM t)` in a query over `o`. By
  // their text (as Canonical).
  void EnclosingAggregates(const Json& n, const Json& from, std::set<std::string>* out) const;
  Result<std::optional<Json>> ExpandResolvedGroupingSets(const Json& s);
  Json WindowsOverGroupingSets(const Json& s, const std::vector<Json>& keys);
  std::optional<Json> SubqueriesOverGroups(const Json& s);
  // GROUP BY a set-returning function's call: the query over a derived
  // table that adds the call's rows as a column (nullopt if no key calls one).
  Result<std::optional<Json>> SetCallsUnderGroups(const Json& s);
  // SQL functions (binder_function.cc): a call's inlined body; a call in an
  // expression; the FROM items of `s` that call set-returning ones.
  // `ctx`: where the call is (nullptr in FROM), to qualify its arguments'
  // columns.
  Result<Json> InlineFunctionBody(const FunctionDef& f, const Json& call, const Json& node,
                                  const Ctx* ctx);
  Result<ExprPtr> BindUserFunction(const FunctionDef& f, const Json& call, const Json& node,
                                   Ctx& ctx);
  Result<std::optional<Json>> InlineTableFunctions(const Json& s);
  // A set-returning SQL function of one column called in an ungrouped
  // select list: a LATERAL call in FROM, whose column the select list reads.
  std::optional<Json> SqlSetCallsToFrom(const Json& s) const;
  // Aggregates written by users (binder_aggregate.cc). A call in a grouped
  // query, as a fold over the ARRAY_AGG of its rows; one over a window.
  Result<ExprPtr> BindUserAggregate(const std::string& name, const Json& body, const Json& node,
                                    Ctx& ctx);
  Result<WindowCall> BindUserWindowAggregate(const Json& node, const Json& body,
                                             const std::string& name, const Json& over,
                                             const std::vector<ExprPtr>& order_exprs, Ctx& ctx);
  // The call's arguments, cast to the aggregate's parameter types.
  Result<std::vector<ExprPtr>> UserAggregateArgs(const AggregateDef& a, const Json& body,
                                                 const Json& node, Ctx& ctx);
  // The kFold that computes `a` over `list`, an array of ROW(args...) of
  // types `inputs`; `*strict` says whether its transition function is.
  Result<ExprPtr> UserAggregateFold(const AggregateDef& a, const std::vector<SqlType>& inputs,
                                    ExprPtr list, const Json& node, bool* strict);
  // A call of transition or final function `fname` with the columns named
  // `params` of `ctx` as its arguments.
  Result<ExprPtr> BindAggregateFunction(const std::string& fname,
                                        const std::vector<std::string>& params, Ctx& ctx,
                                        const Json& node, bool* strict);
  // An aggregate's FILTER (WHERE ...) condition.
  Result<ExprPtr> BindBooleanFilter(const Json& filter, Ctx& ctx);
  // ROW_NUMBER(), RANK() or DENSE_RANK() as a top-k per partition, bounded by
  // a filter of the enclosing query (else computed per whole partition).
  Result<PlanPtr> BindRankTopK(const Json& val, const Json* body, const Json& over,
                               const std::string& name, Ctx& ctx, PlanPtr plan);
  // A window's definition with a named window it refers to (OVER w, OVER (w
  // ORDER BY ...)) merged in, from the query's WINDOW clause.
  Result<Json> ResolveWindow(const Json& over, const Json& node, int depth = 0);
  Result<WindowFrame> BindFrame(const Json& over, const std::vector<ExprPtr>& order_exprs,
                                const Json& node, Ctx& ctx);
  // A window function that the partition-wide operator computes.
  Result<WindowCall> BindWindowCall(const Json& node, const Json& body, const std::string& name,
                                    const Json& over, const std::vector<ExprPtr>& order_exprs,
                                    Ctx& ctx);
  // An aggregate OVER (PARTITION BY ... ORDER BY k RANGE BETWEEN n PRECEDING
  // AND CURRENT ROW) over `plan`: a rolling aggregate.
  Result<PlanPtr> BindRolling(const Json& node, const Json& body, const Json& over,
                              const std::string& name, Ctx& ctx, PlanPtr plan);
  Result<ExprPtr> Call(const std::string& name, std::vector<ExprPtr> args, const Json& node);
  Result<ExprPtr> RowField(const ExprPtr& x, const std::string& name, const Json& node);
  // jsonb's subscripts, j['a'][0]: the path of #>, each subscript as text.
  Result<ExprPtr> JsonSubscripts(ExprPtr x, const Json& indirection, const Json& node, Ctx& ctx);
  // The arguments of a call to `name`, in order; named ones (`days => 10`)
  // put in their places, and the defaults of the others added.
  // The arguments of a call of `f`, one per parameter in order: the
  // positional ones, then the named ones (`name => value`) where their
  // names say, then the parameters' defaults.
  Result<Json> FunctionCallArgs(const FunctionDef& f, const Json& call, const Json& node);
  Result<std::vector<ExprPtr>> BindCallArgs(const std::string& name, const Json& call_args,
                                            const Json& node, Ctx& ctx);
  // Checks a statistic's arguments: the variance family takes a number; the
  // pairs take double precision (other numbers are cast to it).
  Status TypeStatisticArgs(const std::string& name, bool pair, ExprPtr* y, ExprPtr* x,
                           const Json& node);
  // Resolves `name` for `args` and casts them (in place) to what it takes.
  Result<ResolvedFn> Coerce(const std::string& name, std::vector<ExprPtr>* args, const Json& node);
  Result<std::vector<ExprPtr>> Unify(std::vector<ExprPtr> args, const Json& node);
  Result<ExprPtr> CompareRows(const std::string& op, const Json& left, const Json& right,
                              const Json& node, Ctx& ctx);
  // Rewrites an expression bound over the FROM scope of a grouped query onto
  // the aggregate's output (group keys, then aggregates). An error points at
  // `node` (the expression's text), if given.
  Result<ExprPtr> OntoAggregate(const ExprPtr& e, const std::vector<ExprPtr>& keys,
                                const std::vector<std::string>& key_strs, const Ctx& from,
                                const Json* node = nullptr);
  Result<int64_t> ConstInt(const Json& n, const char* what);
  // An ORDER BY item that names an output column in [first, visible): by
  // 1-based position (counted from `first`) or by name; -1 if it names none.
  Result<int> OrderByColumn(const Json& node, const std::vector<std::string>& names, size_t first,
                            size_t visible);
  // LIMIT and OFFSET of `s`, as a top-k over `plan` in `order`.
  // LIMIT and OFFSET; over a correlated subquery's domain (its first
  // `per_domain` columns), per domain value.
  Result<PlanPtr> ApplyLimit(const Json& s, PlanPtr plan, const std::vector<SortKey>& order,
                             size_t per_domain = 0);

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
  // The working tables of recursive queries with SEARCH or CYCLE: how many
  // of their columns * shows (the ones before the added columns).
  std::map<const PlanNode*, size_t> star_width_;
  // A JOIN in FROM that reads earlier items is bound as LATERAL (SELECT *
  // FROM join): that SELECT -> the scope columns its * showed (their
  // qualifiers, which the join's columns keep).
  std::map<const Json*, std::vector<ScopeCol>> join_star_cols_;
  // WITH RECURSIVE queries being bound: names a misspelling may have meant.
  std::vector<std::string> defining_;
  // ROW_NUMBER() calls already computed: their FuncCall body -> column.
  std::map<const Json*, int> window_cols_;
  // Set-returning functions of select lists, computed in FROM: their
  // FuncCall body -> column.
  std::map<const Json*, int> set_cols_;
  const Json* window_clause_ = nullptr;          // the WINDOW clause of the query being bound
  std::map<const Json*, SqlType> window_types_;  // window calls of a grouped query
  // While binding a FROM clause inside a subquery whose outer columns are
  // being found: what its subqueries in FROM see (the enclosing queries').
  const Ctx* from_outer_ = nullptr;
  // Column references bound so far: to the query's own columns, and to
  // those of queries around it (the level an aggregate belongs to).
  struct ColumnReads {
    int own = 0, outer = 0;
  } reads_;
  int inline_depth_ = 0;                         // SQL functions being inlined
  // The query about to be bound hands on the order of its one FROM item as
  // its own (BoundQuery::order) where it has no ORDER BY, as PostgreSQL's
  // plan keeps it: set for ARRAY(subquery) and a subquery alone in FROM.
  bool order_from_input_ = false;
  bool temporal_refused_ = false;                // TakeTemporalConjuncts refused a comparison
  bool now_in_where_ = false;                    // binding a WHERE clause: NOW() may be the clock
  std::map<const Expr*, int> now_at_;            // the step clock's reads: where they are written
  int scans_ = 0;                                // ScopeCol::scan numbers given so far
  int agg_width_ = 0;                            // the aggregate's columns, before its window calls
};

}  // namespace sluice::sql::binding
