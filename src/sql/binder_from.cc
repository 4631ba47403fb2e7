// FROM: tables, views, WITH queries and subqueries as items, explicit JOINs
// with their keys, the join order of comma-separated items (greedy along
// equalities), with predicates pushed down to the items they touch, and the
// window table functions hop() and tumble().
#include <optional>

#include "base/suggest.h"
#include "sql/binder_internal.h"
#include "sql/datetime.h"
#include "sql/draws.h"

namespace sluice::sql::binding {

namespace {

void Disjuncts(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (e->kind == ExprKind::kOr) {
    for (const ExprPtr& a : e->args) Disjuncts(a, out);
  } else {
    out->push_back(e);
  }
}

}  // namespace

std::optional<PlanPtr> UnionOfKeyedJoins(const PlanPtr& l, const PlanPtr& r, int lw,
                                         const std::vector<ExprPtr>& conds) {
  auto side = [&](const ExprPtr& e, bool left) {
    std::vector<int> cols;
    CollectColumns(*e, &cols);
    return !cols.empty() &&
           std::all_of(cols.begin(), cols.end(), [&](int x) { return left ? x < lw : x >= lw; });
  };
  for (size_t f = 0; f < conds.size(); ++f) {
    if (conds[f]->kind != ExprKind::kOr) continue;
    std::vector<ExprPtr> ds;
    Disjuncts(conds[f], &ds);
    struct Branch {
      std::vector<ExprPtr> lk, rk, rest;
    };
    std::vector<Branch> branches;
    for (const ExprPtr& d : ds) {
      Branch b;
      std::vector<ExprPtr> parts;
      SplitConjuncts(d, &parts);
      for (const ExprPtr& e : parts) {
        if (e->kind == ExprKind::kCall && std::string(e->fn_name) == "=") {
          if (side(e->args[0], true) && side(e->args[1], false)) {
            b.lk.push_back(e->args[0]);
            b.rk.push_back(Shift(e->args[1], -lw));
            continue;
          }
          if (side(e->args[1], true) && side(e->args[0], false)) {
            b.lk.push_back(e->args[1]);
            b.rk.push_back(Shift(e->args[0], -lw));
            continue;
          }
        }
        b.rest.push_back(e);
      }
      if (b.lk.empty()) break;
      branches.push_back(std::move(b));
    }
    if (branches.size() != ds.size()) continue;
    std::vector<PlanPtr> joins;
    for (size_t i = 0; i < branches.size(); ++i) {
      std::vector<ExprPtr> cond;
      for (size_t g = 0; g < conds.size(); ++g) {
        if (g != f) cond.push_back(conds[g]);
      }
      cond.insert(cond.end(), branches[i].rest.begin(), branches[i].rest.end());
      for (size_t e = 0; e < i; ++e) {
        // NOT COALESCE(d_e, FALSE): the pairs an earlier branch did not take.
        ExprPtr taken = MakeNode(ExprKind::kCoalesce, SqlType::Boolean(false),
                                 {ds[e], MakeLiteral(Value::Bool(false), SqlType::Boolean())});
        cond.push_back(MakeNode(ExprKind::kNot, SqlType::Boolean(false), {taken}));
      }
      PlanPtr j = MakeJoin(l, r, JoinType::kInner, branches[i].lk, branches[i].rk, nullptr);
      if (!cond.empty()) j = MakeFilter(j, AndAll(cond));
      joins.push_back(j);
    }
    auto u = std::make_shared<PlanNode>();
    u->kind = PlanKind::kUnionAll;
    u->columns = joins[0]->columns;
    u->inputs = joins;
    return PlanPtr(u);
  }
  return std::nullopt;
}

namespace {

// An outer join whose condition is more than equalities between the sides
// and conditions on its inner side (an inequality between the sides, a
// condition on the outer side, FULL JOIN ON TRUE): the inner join's pairs
// (`pairs`, the keyed join, filtered by `rest`), then each side's rows that
// took part in none, with NULLs for the other side. A side's rows that took
// part are its distinct rows among the pairs; the others are found by
// joining on all of its columns (NULL equal to NULL) and keeping the rows
// without a partner.
PlanPtr OuterJoinOnAnyCondition(const PlanPtr& lp, const PlanPtr& rp, JoinType type, PlanPtr pairs,
                                const std::vector<ExprPtr>& rest) {
  const size_t lw = lp->columns.size(), rw = rp->columns.size();
  if (!rest.empty()) pairs = MakeFilter(pairs, AndAll(rest));
  std::vector<PlanPtr> parts = {pairs};
  // The rows of `side` (columns [from, from + width) of the pairs) without a
  // pair, widened with NULLs to the join's columns.
  auto unmatched = [&](const PlanPtr& side, size_t from, bool left) {
    const size_t width = side->columns.size();
    std::vector<ExprPtr> ex;
    std::vector<std::string> names;
    for (size_t i = 0; i < width; ++i) {
      ex.push_back(MakeColumn(static_cast<int>(from + i), pairs->columns[from + i].type));
      names.push_back(pairs->columns[from + i].name);
    }
    ex.push_back(MakeLiteral(Value::Bool(true), SqlType::Boolean(false)));
    names.push_back("matched");
    auto seen = std::make_shared<PlanNode>();
    seen->kind = PlanKind::kDistinct;
    seen->inputs = {MakeProject(pairs, ex, names)};
    seen->columns = seen->inputs[0]->columns;
    std::vector<ExprPtr> sk, tk;
    for (size_t i = 0; i < width; ++i) {
      sk.push_back(MakeColumn(static_cast<int>(i), side->columns[i].type));
      tk.push_back(MakeColumn(static_cast<int>(i), seen->columns[i].type));
    }
    PlanPtr j = MakeJoin(side, PlanPtr(seen), JoinType::kLeft, sk, tk, nullptr, /*null_safe=*/true);
    j = MakeFilter(j, MakeNode(ExprKind::kIsNull, SqlType::Boolean(),
                               {MakeColumn(static_cast<int>(2 * width), SqlType::Boolean())}));
    std::vector<ExprPtr> out;
    std::vector<std::string> out_names;
    for (size_t i = 0; i < lw + rw; ++i) {
      const bool mine = left ? i < lw : i >= lw;
      const size_t at = i - (left ? 0 : lw);
      out.push_back(mine ? MakeColumn(static_cast<int>(at), side->columns[at].type)
                         : MakeLiteral(Value::Null(), pairs->columns[i].type.WithNullable(true)));
      out_names.push_back(pairs->columns[i].name);
    }
    return MakeProject(j, out, out_names);
  };
  if (type == JoinType::kLeft || type == JoinType::kFull) parts.push_back(unmatched(lp, 0, true));
  if (type == JoinType::kRight || type == JoinType::kFull)
    parts.push_back(unmatched(rp, lw, false));
  auto u = std::make_shared<PlanNode>();
  u->kind = PlanKind::kUnionAll;
  // Every column may be NULL in some part; each part is encoded to the
  // union's columns where it is lowered.
  u->columns = pairs->columns;
  for (Column& c : u->columns) c.type = c.type.WithNullable(true);
  u->inputs = parts;
  return PlanPtr(u);
}

}  // namespace

namespace {

Json AndOf(std::vector<Json> conjuncts) {
  if (conjuncts.size() == 1) return conjuncts[0];
  return {{"BoolExpr", {{"boolop", "AND_EXPR"}, {"args", std::move(conjuncts)}, {"location", -1}}}};
}

// Splits the ON condition `q` into the conjuncts `moves` holds for
// (appended to `moved`) and the others (`kept`).
void SplitOnConjuncts(const Json& q, bool (*moves)(const Json&), std::vector<Json>* kept,
                      std::vector<Json>* moved) {
  const bool conjunction =
      q.contains("BoolExpr") && q["BoolExpr"].value("boolop", "") == "AND_EXPR";
  for (const Json& c : conjunction ? q["BoolExpr"]["args"] : Json::array({q})) {
    (moves(c) ? moved : kept)->push_back(c);
  }
}

// Takes the conjuncts `moves` holds for out of the ON conditions of `item`'s
// inner joins (it and the inner joins it is made of) into `moved`.
void TakeInnerOnConjuncts(Json* item, bool (*moves)(const Json&), std::vector<Json>* moved) {
  auto j = item->find("JoinExpr");
  if (j == item->end() || j->value("jointype", "") != "JOIN_INNER" || j->contains("usingClause") ||
      j->value("isNatural", false) || j->contains("alias")) {
    return;
  }
  for (const char* side : {"larg", "rarg"}) {
    if (j->contains(side)) TakeInnerOnConjuncts(&(*j)[side], moves, moved);
  }
  if (!j->contains("quals")) return;
  Json& q = (*j)["quals"];
  std::vector<Json> kept;
  const size_t before = moved->size();
  SplitOnConjuncts(q, moves, &kept, moved);
  if (moved->size() == before) return;
  if (kept.empty()) {
    j->erase("quals");  // a CROSS JOIN
  } else {
    q = AndOf(std::move(kept));
  }
}

// The name of `item` (FromItemName) if a LEFT JOIN's right side may be
// wrapped around it: a table, view or WITH query, or an aliased subquery or
// function that is not LATERAL.
std::optional<std::string> WrappableName(const Json& item) {
  auto [kind, body] = Node(item);
  const bool wrappable =
      kind == "RangeVar" || ((kind == "RangeSubselect" || kind == "RangeFunction") &&
                             !body->value("lateral", false) && body->contains("alias"));
  return wrappable ? FromItemName(item) : std::nullopt;
}

// Moves the conjuncts `moves` holds for out of the ON conditions of `item`'s
// LEFT JOINs (it and the joins it is made of) into a LATERAL subquery
// around the right side: `a LEFT JOIN b ON c AND s` is `a LEFT JOIN LATERAL
// (SELECT * FROM b WHERE s) b ON c`, which pairs the same rows.
bool TakeLeftOnConjuncts(Json* item, bool (*moves)(const Json&)) {
  auto j = item->find("JoinExpr");
  if (j == item->end()) return false;
  bool changed = false;
  for (const char* side : {"larg", "rarg"}) {
    if (j->contains(side)) changed |= TakeLeftOnConjuncts(&(*j)[side], moves);
  }
  if (j->value("jointype", "") != "JOIN_LEFT" || j->contains("usingClause") ||
      j->value("isNatural", false) || !j->contains("quals") || !j->contains("rarg")) {
    return changed;
  }
  const std::optional<std::string> name = WrappableName((*j)["rarg"]);
  if (!name || name->empty()) return changed;
  Json& q = (*j)["quals"];
  std::vector<Json> kept, moved;
  SplitOnConjuncts(q, moves, &kept, &moved);
  if (moved.empty()) return changed;
  Json select = {{"targetList", Json::array({StarTarget()})},
                 {"fromClause", Json::array({(*j)["rarg"]})},
                 {"whereClause", AndOf(std::move(moved))},
                 {"limitOption", "LIMIT_OPTION_DEFAULT"},
                 {"op", "SETOP_NONE"}};
  (*j)["rarg"] = Json{{"RangeSubselect",
                       {{"lateral", true},
                        {"subquery", {{"SelectStmt", std::move(select)}}},
                        {"alias", {{"aliasname", *name}}}}}};
  q = kept.empty() ? Json{{"A_Const", {{"boolval", {{"boolval", true}}}, {"location", -1}}}}
                   : AndOf(std::move(kept));
  return true;
}

}  // namespace

bool InnerOnConjunctsToWhere(Json* s, bool (*moves)(const Json& conjunct)) {
  std::vector<Json> moved;
  if (s->contains("fromClause")) {
    for (Json& item : (*s)["fromClause"]) TakeInnerOnConjuncts(&item, moves, &moved);
  }
  if (moved.empty()) return false;
  if (s->contains("whereClause")) moved.insert(moved.begin(), (*s)["whereClause"]);
  (*s)["whereClause"] = AndOf(std::move(moved));
  return true;
}

bool LeftOnConjunctsToLateral(Json* s, bool (*moves)(const Json& conjunct)) {
  bool changed = false;
  if (s->contains("fromClause")) {
    for (Json& item : (*s)["fromClause"]) changed |= TakeLeftOnConjuncts(&item, moves);
  }
  return changed;
}

Status Binder::BindFromItem(const Json& item, PlanPtr* plan, std::vector<ScopeCol>* cols,
                            std::vector<SortKey>* order) {
  auto [kind, body] = Node(item);
  if (kind == "RangeVar") {
    std::string name = (*body)["relname"];
    if (body->contains("schemaname")) {
      const std::string schema = (*body)["schemaname"];
      if (schema == "information_schema" || schema == "pg_catalog") {
        name = schema + "." + name;  // as the catalog holds them, if it does
      } else if (schema != "public") {
        return SqlError(sql_, item,
                        "schema \"" + schema +
                            "\" does not exist (there are public, pg_catalog and "
                            "information_schema)");
      }
    } else if (catalog_.FindTable("pg_catalog." + name) != nullptr) {
      // PostgreSQL's search path reads pg_catalog before public.
      name = "pg_catalog." + name;
    }
    const std::string relname = (*body)["relname"];
    std::string alias =
        body->contains("alias") ? (*body)["alias"].value("aliasname", relname) : relname;
    const BoundQuery* cte = nullptr;
    for (auto it = ctes_.rbegin(); it != ctes_.rend() && !body->contains("schemaname"); ++it) {
      if (it->first == relname) {
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
    } else if (relname == kStepClock && !body->contains("schemaname")) {
      // {NOW()}: the step clock in a view, the query's time in an ad hoc one.
      auto n = std::make_shared<PlanNode>();
      n->kind = catalog_.now() ? PlanKind::kValues : PlanKind::kClock;
      n->columns = {Column{"now", SqlType::Timestamp(false)}};
      if (catalog_.now()) n->rows.push_back(Row{Value::Int(*catalog_.now())});
      *plan = n;
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
    } else if (IsPostgresRelation(name)) {
      return SqlUnsupported(sql_, item, "PostgreSQL's catalog relation \"" + name + "\"");
    } else {
      std::vector<std::string> known;
      for (const auto& [n, def] : catalog_.tables()) known.push_back(n);
      for (const auto& [n, def] : catalog_.views()) known.push_back(n);
      for (const auto& [n, q] : ctes_) known.push_back(n);  // WITH queries in scope
      known.insert(known.end(), defining_.begin(), defining_.end());
      return SqlError(sql_, item,
                      "relation \"" + name + "\" does not exist" + DidYouMean(name, known));
    }
    for (const Column& c : (*plan)->columns) cols->push_back({alias, c.name, c.type});
    if (const TableDef* t = cte == nullptr ? catalog_.FindTable(name) : nullptr) {
      const int scan = scans_++;
      for (size_t i = 0; i < cols->size(); ++i) {
        (*cols)[i].scan = scan;
        (*cols)[i].primary_key =
            std::count(t->primary_key.begin(), t->primary_key.end(), static_cast<int>(i)) > 0;
      }
    }
    if (cte != nullptr) {
      if (auto it = star_width_.find(cte->plan.get()); it != star_width_.end()) {
        for (size_t i = it->second; i < cols->size(); ++i) (*cols)[i].no_star = true;
      }
    }
    if (body->contains("alias") && (*body)["alias"].contains("colnames")) {
      const Json& names = (*body)["alias"]["colnames"];
      for (size_t i = 0; i < names.size() && i < cols->size(); ++i) (*cols)[i].name = Str(names[i]);
    }
    return Status::OK();
  }
  if (kind == "RangeSubselect") {
    const Json& sel = (*body)["subquery"]["SelectStmt"];
    std::vector<int> none;  // from_outer_ has no columns of its own
    order_from_input_ = order != nullptr;
    SLUICE_ASSIGN_OR_RETURN(BoundQuery q, from_outer_ != nullptr
                                              ? BindFindingOuter(sel, *from_outer_, &none)
                                              : BindQuery(sel));
    PlanPtr p = q.plan;
    std::string alias = body->contains("alias") ? (*body)["alias"].value("aliasname", "") : "";
    const size_t first = cols->size();
    for (size_t i = 0; i < q.visible; ++i)
      cols->push_back({alias, p->columns[i].name, p->columns[i].type});
    if (body->contains(kNoStarColumns)) {
      for (size_t i = first; i < cols->size(); ++i) {
        for (const Json& n : (*body)[kNoStarColumns]) {
          (*cols)[i].no_star |= n.is_string() && (*cols)[i].name == n.get<std::string>();
        }
      }
    }
    std::vector<size_t> kept;
    for (size_t i = 0; i < q.visible; ++i) kept.push_back(i);
    if (order != nullptr) {
      for (const SortKey& k : q.order) {
        size_t at = static_cast<size_t>(k.column);
        if (at >= q.visible) {
          kept.push_back(at);
          cols->push_back({"", p->columns[at].name, p->columns[at].type, false, /*hidden=*/true});
          at = kept.size() - 1;
        }
        order->push_back({static_cast<int>(at), k.desc, k.nulls_first});
      }
    }
    if (p->columns.size() != kept.size()) {
      std::vector<ExprPtr> ex;
      std::vector<std::string> names;
      for (size_t i : kept) {
        ex.push_back(MakeColumn(static_cast<int>(i), p->columns[i].type));
        names.push_back(p->columns[i].name);
      }
      p = MakeProject(p, ex, names);
    }
    if (body->contains("alias") && (*body)["alias"].contains("colnames")) {
      const Json& names = (*body)["alias"]["colnames"];
      for (size_t i = 0; i < names.size() && i < q.visible; ++i) (*cols)[i].name = Str(names[i]);
    }
    *plan = p;
    return Status::OK();
  }
  if (kind == "JoinExpr") return BindJoin(item, nullptr, plan, cols);
  if (kind == "RangeFunction" && (*body)["functions"].size() == 1 &&
      (*body)["functions"][0]["List"]["items"][0].contains("FuncCall")) {
    const Json& call = (*body)["functions"][0]["List"]["items"][0];
    std::string fname = Str(call["FuncCall"]["funcname"].back());
    if (IsSeriesFunction(fname)) {
      std::vector<PlanPtr> items;
      std::vector<size_t> widths;
      std::vector<ScopeCol> scope;
      SLUICE_RETURN_IF_ERROR(BindConstantSeries(item, call, &items, &widths, &scope, order));
      *plan = items[0];
      *cols = scope;
      return Status::OK();
    }
  }
  if (kind == "RangeFunction") {
    return SqlUnsupported(sql_, item,
                          "a table function inside JOIN (list hop() or tumble() in FROM, after a "
                          "comma)");
  }
  return SqlUnsupported(sql_, item, kind.empty() ? "this FROM item" : kind);
}

Status Binder::BindJoin(const Json& item, const JoinDomain* d, PlanPtr* plan,
                        std::vector<ScopeCol>* cols) {
  const Json* body = &item["JoinExpr"];
  PlanPtr lp, rp;
  std::vector<ScopeCol> lc, rc;
  auto bind_side = [&](const Json& side, PlanPtr* p, std::vector<ScopeCol>* c) {
    return d != nullptr ? BindItemOverDomain(side, *d, p, c) : BindFromItem(side, p, c);
  };
  auto carries_domain = [](const std::vector<ScopeCol>& c) {
    return std::any_of(c.begin(), c.end(),
                       [](const ScopeCol& x) { return x.domain >= 0 && !x.hidden; });
  };
  SLUICE_RETURN_IF_ERROR(bind_side((*body)["larg"], &lp, &lc));
  std::string jt = body->value("jointype", "JOIN_INNER");
  Json wrapped;
  if ((*body)["rarg"].contains("RangeFunction") &&
      (*body)["rarg"]["RangeFunction"]["functions"].dump().find("ColumnRef") != std::string::npos) {
    // A function of the left side's columns (JOIN unnest(t.a) AS u ON ...)
    // is a LATERAL subquery that calls it.
    const Json& rf = (*body)["rarg"]["RangeFunction"];
    Json inner = (*body)["rarg"];
    const std::string name =
        rf.contains("alias")
            ? rf["alias"].value("aliasname", "")
            : Str(rf["functions"][0]["List"]["items"][0]["FuncCall"]["funcname"].back());
    Json select = {{"targetList", Json::array({StarTarget()})},
                   {"fromClause", Json::array({inner})},
                   {"op", "SETOP_NONE"},
                   {"limitOption", "LIMIT_OPTION_DEFAULT"}};
    wrapped = Json{{"RangeSubselect",
                    {{"lateral", true},
                     {"subquery", {{"SelectStmt", select}}},
                     {"alias", {{"aliasname", name}}}}}};
    Json copy = *body;
    copy["rarg"] = wrapped;
    wrapped = Json{{"JoinExpr", copy}};
    body = &wrapped["JoinExpr"];
  }
  const Json& rarg = (*body)["rarg"];
  bool rarg_bound = false;
  if (rarg.contains("RangeSubselect") && rarg["RangeSubselect"].value("lateral", false)) {
    if (d != nullptr && !carries_domain(lc)) {
      // A LATERAL subquery that reads the domain: over the domain alone if
      // it reads nothing of the left side; else the left side first takes
      // the domain's columns, which it then reads as the left side's.
      Ctx dctx;
      dctx.scope = d->cols;
      dctx.outer = d->outer;
      dctx.outer_refs = d->outer_refs;
      std::vector<int> drefs, lrefs;
      Ctx probe_left;
      probe_left.scope = lc;
      probe_left.outer = &dctx;
      probe_left.outer_refs = &drefs;
      SLUICE_RETURN_IF_ERROR(
          BindFindingOuter(rarg["RangeSubselect"]["subquery"]["SelectStmt"], probe_left, &lrefs)
              .status());
      if (!drefs.empty() && jt != "JOIN_INNER" && jt != "JOIN_LEFT") {
        return SqlError(sql_, rarg,
                        "The combining JOIN type must be INNER or LEFT for a LATERAL reference.");
      }
      if (!drefs.empty() && lrefs.empty()) {
        SLUICE_RETURN_IF_ERROR(BindItemOverDomain(rarg, *d, &rp, &rc));
        rarg_bound = true;
      } else if (!drefs.empty()) {
        CrossWithDomain(*d, &lp, &lc);
      }
    }
    if (!rarg_bound) {
      Ctx left;
      left.scope = lc;
      if (from_outer_ != nullptr) {
        left.outer = from_outer_->outer;
        left.outer_refs = from_outer_->outer_refs;
      }
      const Json* on = body->contains("quals") ? &(*body)["quals"] : nullptr;
      SLUICE_ASSIGN_OR_RETURN(std::optional<Lateral> lat, BindLateral(rarg, left, on));
      if (lat) return JoinLateral(item, jt, lp, lc, *lat, plan, cols);
    }
  }
  if (!rarg_bound) SLUICE_RETURN_IF_ERROR(bind_side(rarg, &rp, &rc));
  JoinType type = jt == "JOIN_LEFT"    ? JoinType::kLeft
                  : jt == "JOIN_RIGHT" ? JoinType::kRight
                  : jt == "JOIN_FULL"  ? JoinType::kFull
                                       : JoinType::kInner;
  if (jt != "JOIN_INNER" && jt != "JOIN_LEFT" && jt != "JOIN_RIGHT" && jt != "JOIN_FULL") {
    return SqlUnsupported(sql_, item, jt);
  }
  // Over a domain, the sides whose rows an outer join keeps must carry it
  // (each of its values has its own join), and the condition reads it from
  // the left side if neither reads it itself. Sides that both carry it are
  // joined on it too, NULL equal to NULL as it is a value like any other.
  std::vector<std::pair<int, int>> domain_pairs;  // (left, right) in the sides' columns
  if (d != nullptr) {
    bool ld = carries_domain(lc), rd = carries_domain(rc);
    if ((!ld && !rd) || (rd && !ld && (type == JoinType::kLeft || type == JoinType::kFull))) {
      CrossWithDomain(*d, &lp, &lc);
      ld = true;
    }
    if (ld && !rd && (type == JoinType::kRight || type == JoinType::kFull)) {
      CrossWithDomain(*d, &rp, &rc);
      rd = true;
    }
    if (ld && rd) {
      for (size_t i = 0; i < d->cols.size(); ++i) {
        int l = -1, r = -1;
        for (size_t c = 0; c < lc.size(); ++c) {
          if (lc[c].domain == static_cast<int>(i) && !lc[c].hidden) l = static_cast<int>(c);
        }
        for (size_t c = 0; c < rc.size(); ++c) {
          if (rc[c].domain == static_cast<int>(i) && !rc[c].hidden) r = static_cast<int>(c);
        }
        domain_pairs.emplace_back(l, r);
      }
      for (ScopeCol& c : rc) c.hidden |= c.domain >= 0;
    }
  }
  const bool null_safe = !domain_pairs.empty();
  Ctx ctx;
  ctx.scope = lc;
  ctx.scope.insert(ctx.scope.end(), rc.begin(), rc.end());
  if (from_outer_ != nullptr) {
    ctx.outer = from_outer_->outer;
    ctx.outer_refs = from_outer_->outer_refs;
  }
  const int lw = static_cast<int>(lc.size());
  std::vector<ExprPtr> conjuncts;
  // USING (or NATURAL: the names both sides have): each pair equal, and
  // one merged column for each name.
  std::vector<std::string> using_names;
  if (body->value("isNatural", false)) {
    for (const ScopeCol& l : lc) {
      if (l.hidden || l.qualified_only || l.domain >= 0) continue;
      for (const ScopeCol& r : rc) {
        if (!r.hidden && !r.qualified_only && r.domain < 0 && r.name == l.name &&
            std::find(using_names.begin(), using_names.end(), l.name) == using_names.end()) {
          using_names.push_back(l.name);
        }
      }
    }
  }
  for (const Json& u : body->value("usingClause", Json::array())) using_names.push_back(Str(u));
  std::vector<std::pair<int, int>> using_pairs;  // (left, right) in the join's columns
  {
    for (const std::string& name : using_names) {
      int li = -1, ri = -1;
      for (int i = 0; i < lw; ++i) {
        const ScopeCol& c = lc[static_cast<size_t>(i)];
        if (c.name == name && !c.hidden && !c.qualified_only && c.domain < 0) li = i;
      }
      for (size_t i = 0; i < rc.size(); ++i) {
        if (rc[i].name == name && !rc[i].hidden && !rc[i].qualified_only && rc[i].domain < 0)
          ri = static_cast<int>(i);
      }
      if (li < 0 || ri < 0) {
        return SqlError(sql_, item,
                        "column \"" + name + "\" specified in USING clause does not exist in " +
                            (li < 0 ? "left" : "right") + " table");
      }
      using_pairs.emplace_back(li, lw + ri);
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
  for (const auto& [l, r] : domain_pairs) {
    lk.push_back(MakeColumn(l, lc[static_cast<size_t>(l)].type));
    rk.push_back(MakeColumn(r, rc[static_cast<size_t>(r)].type));
  }
  for (const ExprPtr& c : conjuncts) {
    if (!null_safe && c->kind == ExprKind::kCall && std::string(c->fn_name) == "=") {
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
    if (!right_only.empty()) rp = MakeFilter(rp, AndAll(right_only));
    if (!left_only.empty()) lp = MakeFilter(lp, AndAll(left_only));
    rest = std::move(other);
  }
  std::optional<PlanPtr> ors;
  if (lk.empty() && !rest.empty()) ors = UnionOfKeyedJoins(lp, rp, lw, rest);
  PlanPtr j;
  if (type != JoinType::kInner && !rest.empty()) {
    j = OuterJoinOnAnyCondition(
        lp, rp, type, ors ? *ors : MakeJoin(lp, rp, JoinType::kInner, lk, rk, nullptr, null_safe),
        ors ? std::vector<ExprPtr>{} : rest);
  } else {
    j = ors ? *ors : MakeJoin(lp, rp, type, lk, rk, nullptr, null_safe);
    if (!ors && !rest.empty()) j = MakeFilter(j, AndAll(rest));
  }
  if (null_safe && (type == JoinType::kRight || type == JoinType::kFull)) {
    // The domain's value of a row that only the right side has.
    std::vector<ExprPtr> ex;
    std::vector<std::string> names;
    for (size_t i = 0; i < j->columns.size(); ++i) {
      ex.push_back(MakeColumn(static_cast<int>(i), j->columns[i].type));
      names.push_back(j->columns[i].name);
    }
    for (const auto& [l, r] : domain_pairs) {
      const SqlType t = j->columns[static_cast<size_t>(l)].type;
      ExprPtr rv = MakeColumn(lw + r, j->columns[static_cast<size_t>(lw + r)].type);
      ex[static_cast<size_t>(l)] = type == JoinType::kRight
                                       ? rv
                                       : MakeNode(ExprKind::kCoalesce, t.WithNullable(true),
                                                  {ex[static_cast<size_t>(l)], rv});
    }
    j = MakeProject(j, ex, names);
  }
  *plan = j;
  *cols = ctx.scope;
  for (size_t i = 0; i < cols->size(); ++i) {
    (*cols)[i].type = j->columns[i].type;
    const bool left = static_cast<int>(i) < lw;
    if ((left && (type == JoinType::kRight || type == JoinType::kFull)) ||
        (!left && (type == JoinType::kLeft || type == JoinType::kFull))) {
      (*cols)[i].outer_nullable = true;
    }
  }
  const bool aliased = body->contains("alias");
  const std::string alias = aliased ? (*body)["alias"].value("aliasname", "") : "";
  if (!using_pairs.empty()) {
    // The merged columns lead: the left side's value (the right's for a
    // RIGHT join, the first non-NULL for FULL), then every column of both.
    std::vector<ExprPtr> ex;
    std::vector<std::string> names;
    std::vector<ScopeCol> merged;
    for (const auto& [l, r] : using_pairs) {
      const SqlType& lt = j->columns[static_cast<size_t>(l)].type;
      const SqlType& rt = j->columns[static_cast<size_t>(r)].type;
      auto t = CommonType(lt, rt);
      if (!t.ok()) return SqlError(sql_, item, "JOIN/USING " + t.status().message());
      ExprPtr le = MakeCast(MakeColumn(l, lt), t->WithNullable(lt.nullable()));
      ExprPtr re = MakeCast(MakeColumn(r, rt), t->WithNullable(rt.nullable()));
      ExprPtr m = type == JoinType::kRight ? re
                  : type == JoinType::kFull
                      ? MakeNode(ExprKind::kCoalesce,
                                 t->WithNullable(lt.nullable() && rt.nullable()), {le, re})
                      : le;
      ex.push_back(m);
      names.push_back((*cols)[static_cast<size_t>(l)].name);
      ScopeCol c{aliased ? alias : "", (*cols)[static_cast<size_t>(l)].name, m->type};
      c.unqualified_only = !aliased;
      if (type != JoinType::kFull) {
        // Once the merged columns lead: the side's own column, counted from
        // this one.
        // An inner join's is the left side's, unless only that one is cast
        // (PostgreSQL's buildMergedJoinVar).
        const bool left_cast = lt.WithNullable(true) != t->WithNullable(true);
        const bool right_cast = rt.WithNullable(true) != t->WithNullable(true);
        const bool right =
            type == JoinType::kRight || (type == JoinType::kInner && left_cast && !right_cast);
        const int side = right ? r : l;
        c.same_as = static_cast<int>(using_pairs.size()) + side - static_cast<int>(merged.size());
      }
      merged.push_back(c);
      (*cols)[static_cast<size_t>(l)].qualified_only = true;
      (*cols)[static_cast<size_t>(r)].qualified_only = true;
    }
    for (size_t i = 0; i < j->columns.size(); ++i) {
      ex.push_back(MakeColumn(static_cast<int>(i), j->columns[i].type));
      names.push_back(j->columns[i].name);
    }
    const size_t merged_count = merged.size();
    cols->insert(cols->begin(), merged.begin(), merged.end());
    if (body->contains("join_using_alias") && !aliased) {
      // USING (...) AS x: x names the merged columns only (x.a, x.*).
      const std::string using_alias = (*body)["join_using_alias"].value("aliasname", "");
      for (size_t i = 0; i < merged_count; ++i) {
        ex.push_back(ex[i]);
        names.push_back(names[i]);
        ScopeCol c{using_alias, (*cols)[i].name, (*cols)[i].type};
        c.qualified_only = true;
        cols->push_back(c);
      }
    }
    *plan = MakeProject(j, ex, names);
  }
  if (aliased) {
    // Behind an alias, the sides' own copies of USING columns are gone.
    for (ScopeCol& c : *cols) {
      if (c.domain >= 0) continue;  // still the enclosing query's column
      c.qualifier = alias;
      if (c.qualified_only) c.hidden = true;
    }
    return RenameJoinColumns(*body, cols);
  }
  return Status::OK();
}

// `(a JOIN b) AS x (c1, c2, ...)`: the names apply, in order, to the join's
// columns that x.* shows; the rest keep theirs.
Status Binder::RenameJoinColumns(const Json& body, std::vector<ScopeCol>* cols) {
  if (!body.contains("alias") || !body["alias"].contains("colnames")) return Status::OK();
  const Json& names = body["alias"]["colnames"];
  size_t at = 0, shown = 0;
  for (ScopeCol& c : *cols) {
    if (c.domain >= 0 || c.hidden) continue;
    ++shown;
    if (at < names.size()) c.name = Str(names[at++]);
  }
  if (names.size() > shown) {
    return SqlError(sql_, body["alias"],
                    "table \"" + body["alias"].value("aliasname", "") + "\" has " +
                        std::to_string(shown) + " columns available but " +
                        std::to_string(names.size()) + " columns specified");
  }
  return Status::OK();
}

void FillDomain(PlanNode* domain, const std::vector<int>& cols, const PlanPtr& plan);

Result<bool> Binder::ReadsDomain(const Json& item, const JoinDomain& d) {
  Ctx dctx;
  dctx.scope = d.cols;
  dctx.outer = d.outer;
  dctx.outer_refs = d.outer_refs;
  // As when finding which outer columns a subquery reads: the item's
  // references beyond itself are recorded, here those to the domain.
  std::vector<int> refs;
  Ctx probe;
  probe.outer = &dctx;
  probe.outer_refs = &refs;
  const Ctx* was = from_outer_;
  from_outer_ = &probe;
  PlanPtr p;
  std::vector<ScopeCol> cols;
  Status st = BindFromItem(item, &p, &cols);
  from_outer_ = was;
  SLUICE_RETURN_IF_ERROR(st);
  return !refs.empty();
}

void Binder::CrossWithDomain(const JoinDomain& d, PlanPtr* plan, std::vector<ScopeCol>* cols) {
  *plan = MakeJoin(d.plan, *plan, JoinType::kInner, {}, {}, nullptr);
  std::vector<ScopeCol> with = d.cols;
  for (size_t i = 0; i < with.size(); ++i) with[i].domain = static_cast<int>(i);
  with.insert(with.end(), cols->begin(), cols->end());
  *cols = std::move(with);
}

Status Binder::BindItemOverDomain(const Json& item, const JoinDomain& d, PlanPtr* plan,
                                  std::vector<ScopeCol>* cols) {
  SLUICE_ASSIGN_OR_RETURN(bool reads, ReadsDomain(item, d));
  if (!reads) return BindFromItem(item, plan, cols);
  auto [kind, body] = Node(item);
  if (kind == "JoinExpr") return BindJoin(item, &d, plan, cols);
  if (kind != "RangeSubselect") {
    return SqlUnsupported(sql_, item,
                          "A table function inside JOIN that reads the enclosing query's columns");
  }
  // Bound over the whole domain, whose columns then lead its rows.
  Ctx dctx;
  dctx.scope = d.cols;
  dctx.outer = d.outer;
  dctx.outer_refs = d.outer_refs;
  std::vector<int> all;
  for (size_t i = 0; i < d.cols.size(); ++i) all.push_back(static_cast<int>(i));
  std::shared_ptr<PlanNode> domain;
  SLUICE_ASSIGN_OR_RETURN(BoundQuery q,
                          BindOverDomain((*body)["subquery"]["SelectStmt"], dctx, all, &domain));
  FillDomain(domain.get(), all, d.plan);
  PlanPtr p = q.plan;
  if (p->columns.size() != q.visible) {
    std::vector<ExprPtr> ex;
    std::vector<std::string> names;
    for (size_t i = 0; i < q.visible; ++i) {
      ex.push_back(MakeColumn(static_cast<int>(i), p->columns[i].type));
      names.push_back(p->columns[i].name);
    }
    p = MakeProject(p, ex, names);
  }
  *plan = p;
  cols->clear();
  for (size_t i = 0; i < d.cols.size(); ++i) {
    ScopeCol c = d.cols[i];
    c.type = p->columns[i].type;
    c.domain = static_cast<int>(i);
    cols->push_back(c);
  }
  const std::string alias = body->contains("alias") ? (*body)["alias"].value("aliasname", "") : "";
  const Json* names = body->contains("alias") && (*body)["alias"].contains("colnames")
                          ? &(*body)["alias"]["colnames"]
                          : nullptr;
  for (size_t i = d.cols.size(); i < q.visible; ++i) {
    const size_t at = i - d.cols.size();
    cols->push_back(
        {alias, names != nullptr && at < names->size() ? Str((*names)[at]) : p->columns[i].name,
         p->columns[i].type});
  }
  return Status::OK();
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
    // Without an equality, an OR of equalities is a union of keyed joins.
    std::optional<PlanPtr> union_of_joins;
    if (lk.empty() && !filters.empty()) {
      std::vector<int> saved = pos;
      int width = cur_width;
      for (int c = 0; c < static_cast<int>(widths[next]); ++c)
        pos[static_cast<size_t>(start[next] + c)] = width++;
      std::vector<ExprPtr> conds;
      for (const ExprPtr& f : filters) conds.push_back(remap(f));
      pos = saved;
      union_of_joins = UnionOfKeyedJoins(cur, items[next], cur_width, conds);
    }
    if (union_of_joins) {
      cur = *union_of_joins;
      filters.clear();
    } else {
      cur = MakeJoin(cur, items[next], JoinType::kInner, lk, rk, nullptr);
    }
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

// Makes `domain` the distinct values of the columns `cols` of `plan`.
void FillDomain(PlanNode* domain, const std::vector<int>& cols, const PlanPtr& plan) {
  std::vector<ExprPtr> exprs;
  std::vector<std::string> names;
  for (size_t i = 0; i < cols.size(); ++i) {
    exprs.push_back(MakeCast(MakeColumn(cols[i], plan->columns[static_cast<size_t>(cols[i])].type),
                             domain->columns[i].type));
    names.push_back(domain->columns[i].name);
  }
  auto proj = std::make_shared<PlanNode>(*MakeProject(plan, exprs, names));
  proj->columns = domain->columns;  // nullable, as the domain declares
  domain->inputs = {proj};
}

Result<PlanPtr> Binder::ApplyExtensions(PlanPtr plan, Ctx& ctx, size_t* applied) {
  for (; *applied < ctx.pending.size(); ++*applied) {
    Extension& x = ctx.pending[*applied];
    if (x.series != nullptr) {
      // Its columns: a function's each, and its ordinality.
      const size_t own = std::max<size_t>(1, x.series->zip.size()) + (x.series->ordinality ? 1 : 0);
      std::vector<Column> cols(x.series->columns.end() - static_cast<ptrdiff_t>(own),
                               x.series->columns.end());
      x.series->columns = plan->columns;
      x.series->columns.insert(x.series->columns.end(), cols.begin(), cols.end());
      x.series->inputs = {plan};
      plan = x.series;
      if (x.spread) {
        // The input's columns, then the fields of the series' composite
        // (and its ordinality).
        std::vector<ExprPtr> exprs;
        std::vector<std::string> names;
        const size_t last = plan->columns.size() - 1 - (x.series->ordinality ? 1 : 0);
        for (size_t i = 0; i < last; ++i) {
          exprs.push_back(MakeColumn(static_cast<int>(i), plan->columns[i].type));
          names.push_back(plan->columns[i].name);
        }
        const ExprPtr row = MakeColumn(static_cast<int>(last), plan->columns[last].type);
        for (size_t f = 0; f < row->type.children().size(); ++f) {
          exprs.push_back(FieldOf(row, f));
          names.push_back(row->type.field_names()[f]);
        }
        if (x.series->ordinality) {
          exprs.push_back(MakeColumn(static_cast<int>(last + 1), plan->columns[last + 1].type));
          names.push_back(plan->columns[last + 1].name);
        }
        plan = MakeProject(plan, std::move(exprs), std::move(names));
      }
      continue;
    }
    if (x.domain != nullptr && x.domain->inputs.empty())
      FillDomain(x.domain.get(), x.domain_cols, plan);
    plan = MakeJoin(plan, x.sub, x.type, x.left_keys, x.right_keys, nullptr, x.null_safe);
  }
  return plan;
}

Status Binder::JoinLateral(const Json& item, const std::string& jt, const PlanPtr& lp,
                           const std::vector<ScopeCol>& lc, const Lateral& lat, PlanPtr* plan,
                           std::vector<ScopeCol>* cols) {
  const Json& body = item["JoinExpr"];
  if (jt != "JOIN_INNER" && jt != "JOIN_LEFT") {
    return SqlError(sql_, body["rarg"],
                    "The combining JOIN type must be INNER or LEFT for a LATERAL reference.");
  }
  if (body.value("isNatural", false) || body.contains("usingClause")) {
    return SqlUnsupported(sql_, item, "USING or NATURAL with a LATERAL subquery");
  }
  FillDomain(lat.domain.get(), lat.refs, lp);
  const size_t k = lat.refs.size(), lw = lc.size();
  std::vector<ExprPtr> lk, rk;
  for (size_t i = 0; i < k; ++i) {
    lk.push_back(MakeColumn(lat.refs[i], lp->columns[static_cast<size_t>(lat.refs[i])].type));
    rk.push_back(MakeColumn(static_cast<int>(i), lat.plan->columns[i].type));
  }
  PlanPtr j = MakeJoin(lp, lat.plan, jt == "JOIN_LEFT" ? JoinType::kLeft : JoinType::kInner, lk, rk,
                       nullptr, /*null_safe=*/true);
  // Without the domain's columns.
  std::vector<ExprPtr> ex;
  std::vector<std::string> names;
  for (size_t i = 0; i < j->columns.size(); ++i) {
    if (i >= lw && i < lw + k) continue;
    ex.push_back(MakeColumn(static_cast<int>(i), j->columns[i].type));
    names.push_back(j->columns[i].name);
  }
  *plan = MakeProject(j, ex, names);
  *cols = lc;
  cols->insert(cols->end(), lat.cols.begin(), lat.cols.end());
  for (size_t i = 0; i < cols->size(); ++i) (*cols)[i].type = (*plan)->columns[i].type;
  if (body.contains("alias")) {
    for (ScopeCol& c : *cols) {
      if (c.domain < 0) c.qualifier = body["alias"].value("aliasname", "");
    }
  }
  return RenameJoinColumns(body, cols);
}

Result<std::optional<Binder::Lateral>> Binder::BindLateral(const Json& item, const Ctx& left,
                                                           const Json* on) {
  const Json& body = item["RangeSubselect"];
  const Json& sel = body["subquery"]["SelectStmt"];
  const std::string alias = body.contains("alias") ? body["alias"].value("aliasname", "") : "";
  // Which columns of the earlier items does it read?
  std::vector<int> refs;
  auto probe = BindFindingOuter(sel, left, &refs);
  if (!probe.ok()) return probe.status();
  if (refs.empty()) return std::optional<Lateral>();
  auto name_cols = [&](const PlanPtr& p, size_t from, size_t to, std::vector<ScopeCol>* out) {
    const size_t first = out->size();
    for (size_t i = from; i < to; ++i)
      out->push_back({alias, p->columns[i].name, p->columns[i].type});
    if (body.contains("alias") && body["alias"].contains("colnames")) {
      const Json& names = body["alias"]["colnames"];
      for (size_t i = 0; i < names.size() && first + i < out->size(); ++i) {
        (*out)[first + i].name = Str(names[i]);
      }
    }
  };
  const int lw = static_cast<int>(left.scope.size());
  if (on != nullptr) {
    // The condition's columns of the earlier items join the domain.
    Ctx probe_ctx;
    probe_ctx.scope = left.scope;
    name_cols(probe->plan, 0, probe->visible, &probe_ctx.scope);
    SLUICE_ASSIGN_OR_RETURN(ExprPtr cond, BindExpr(*on, probe_ctx));
    std::vector<int> used;
    CollectColumns(*cond, &used);
    for (int c : used) {
      if (c < lw) refs.push_back(c);
    }
  }
  std::sort(refs.begin(), refs.end());
  refs.erase(std::unique(refs.begin(), refs.end()), refs.end());
  Lateral lat;
  lat.refs = refs;
  auto bound = BindOverDomain(sel, left, refs, &lat.domain);
  if (!bound.ok()) return bound.status();
  const size_t k = refs.size();
  PlanPtr p = bound->plan;
  if (p->columns.size() != bound->visible) {
    std::vector<ExprPtr> ex;
    std::vector<std::string> names;
    for (size_t i = 0; i < bound->visible; ++i) {
      ex.push_back(MakeColumn(static_cast<int>(i), p->columns[i].type));
      names.push_back(p->columns[i].name);
    }
    p = MakeProject(p, ex, names);
  }
  name_cols(p, k, bound->visible, &lat.cols);
  if (on != nullptr) {
    // The condition over the domain's columns (named as the earlier items'
    // are) and the subquery's.
    Ctx cond_ctx;
    for (int r : refs) cond_ctx.scope.push_back(left.scope[static_cast<size_t>(r)]);
    for (size_t i = 0; i < k; ++i) cond_ctx.scope[i].type = p->columns[i].type;
    cond_ctx.scope.insert(cond_ctx.scope.end(), lat.cols.begin(), lat.cols.end());
    SLUICE_ASSIGN_OR_RETURN(ExprPtr cond, BindExpr(*on, cond_ctx));
    if (!cond_ctx.pending.empty())
      return SqlUnsupported(sql_, *on, "a subquery in a JOIN condition");
    if (cond->type.id() != TypeId::kBoolean) {
      return SqlError(sql_, *on, "argument of JOIN/ON must be type boolean");
    }
    p = MakeFilter(p, cond);
  }
  lat.plan = p;
  return std::optional<Lateral>(std::move(lat));
}

// hop(ts, slide, size [, origin]) and tumble(ts, size [, origin]) return, for
// each row of the FROM item whose column `ts` they read, one row
// (window_start, window_end) per window [start, start + size) that holds ts,
// where the starts are origin + n * slide (tumble: slide = size). PostgreSQL
// would run such a function once per row (a LATERAL call); here it is one
// window operator over the item's changes, and the item's scope grows by the
// two columns.
namespace {

// Whether `node` reads columns or holds a subquery: not a constant.
bool ReadsColumns(const Json& node) {
  if (node.is_object()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (it.key() == "ColumnRef" || it.key() == "SubLink" || ReadsColumns(*it)) return true;
    }
  } else if (node.is_array()) {
    for (const Json& e : node) {
      if (ReadsColumns(e)) return true;
    }
  }
  return false;
}

}  // namespace

bool Binder::IsLateralSeries(const Json& item) {
  const Json& body = item["RangeFunction"];
  const Json& fns = body.value("functions", Json::array());
  if (body.value("is_rowsfrom", false) || fns.size() != 1) return false;
  const Json& call = fns[0]["List"]["items"][0];
  if (!call.contains("FuncCall")) return false;
  const std::string name = Str(call["FuncCall"]["funcname"].back());
  return IsSeriesFunction(name) && ReadsColumns(call["FuncCall"].value("args", Json::array()));
}

// The column of a set-returning function's rows: its name, or, as
// PostgreSQL names the OUT parameter of jsonb_array_elements, "value".
std::string SeriesColumnName(const std::string& name) {
  return name.find("array_elements") != std::string::npos ? "value" : name;
}

bool IsSeriesFunction(std::string_view name) {
  return name == "generate_series" || name == "unnest" || name == "generate_subscripts" ||
         name == "regexp_matches" || name == "string_to_table" || name == "regexp_split_to_table" ||
         name == "jsonb_array_elements" || name == "json_array_elements" ||
         name == "jsonb_array_elements_text" || name == "json_array_elements_text" ||
         name == "jsonb_object_keys" || name == "json_object_keys" || name == "jsonb_each" ||
         name == "json_each" || name == "jsonb_each_text" || name == "json_each_text" ||
         name == "jsonb_populate_record" || name == "json_populate_record" ||
         name == "jsonb_populate_recordset" || name == "json_populate_recordset" ||
         name == "jsonb_to_record" || name == "json_to_record" || name == "jsonb_to_recordset" ||
         name == "json_to_recordset" || name == "jsonb_path_query" || name == "jsonb_path_query_tz";
}

Result<ExprPtr> Binder::CallSetFunction(const std::string& name, std::vector<ExprPtr> args,
                                        const Json& node) {
  std::vector<SqlType> types;
  for (ExprPtr& a : args) {
    if (a->kind == ExprKind::kLiteral && a->untyped) a = MakeCast(a, SqlType::Varchar());
    types.push_back(a->type);
  }
  auto r = ResolveSetFunction(name, types);
  if (!r.ok()) return SqlError(sql_, node, r.status().message());
  for (size_t i = 0; i < args.size(); ++i) args[i] = MakeCast(args[i], r->arg_types[i]);
  return MakeCall(r->fn, r->name, r->result, std::move(args), r->strict, r->numeric_specials);
}

// A FROM function's alias, AS q(c1, ...): q qualifies its columns, and the
// names rename the first of its `available` columns (no more than those).
// Without an alias, nothing changes.
Status FunctionAlias(std::string_view sql, const Json& item, size_t available,
                     std::string* qualifier, std::vector<std::string>* names) {
  const Json& body = item["RangeFunction"];
  if (!body.contains("alias")) return Status::OK();
  const Json& alias = body["alias"];
  *qualifier = alias.value("aliasname", *qualifier);
  const Json& cn = alias.value("colnames", Json::array());
  if (cn.size() > available) {
    return SqlError(sql, item,
                    "table \"" + *qualifier + "\" has " + std::to_string(available) +
                        " columns available but " + std::to_string(cn.size()) +
                        " columns specified");
  }
  for (const Json& c : cn) names->push_back(Str(c));
  return Status::OK();
}

bool HasNamedArgs(const Json& args) {
  return std::any_of(args.begin(), args.end(),
                     [](const Json& a) { return a.contains("NamedArgExpr"); });
}

// json(b)_populate_record(set): with a column definition list, its first
// argument (NULL::record) takes the list's type.
bool PopulatesRecord(const std::string& name) {
  return name == "jsonb_populate_record" || name == "json_populate_record" ||
         name == "jsonb_populate_recordset" || name == "json_populate_recordset";
}

Result<ExprPtr> Binder::RecordTypeArg(const std::string& name, const Json* coldeflist,
                                      const Json& node) {
  const bool record = name == "jsonb_to_record" || name == "json_to_record" ||
                      name == "jsonb_to_recordset" || name == "json_to_recordset" ||
                      (coldeflist != nullptr && PopulatesRecord(name));
  if (!record) {
    if (coldeflist == nullptr) return ExprPtr();
    return SqlError(sql_, node,
                    "a column definition list is only allowed for functions returning \"record\"");
  }
  if (coldeflist == nullptr) {
    return SqlError(sql_, node,
                    "a column definition list is required for functions returning \"record\"");
  }
  std::vector<std::string> names;
  std::vector<SqlType> fields;
  for (const Json& elt : *coldeflist) {
    if (!elt.contains("ColumnDef")) continue;
    const Json& cd = elt["ColumnDef"];
    SLUICE_ASSIGN_OR_RETURN(SqlType t, BindTypeName(sql_, cd["typeName"], &catalog_));
    names.push_back(cd.value("colname", ""));
    fields.push_back(t.WithNullable(true));
  }
  return MakeLiteral(Value::Null(), SqlType::Row(std::move(names), std::move(fields)));
}

Result<Binder::SetCall> Binder::BindSetCall(const Json& call, Ctx& ctx, const Json* coldeflist) {
  const Json& fc = call["FuncCall"];
  const std::string name = Str(fc["funcname"].back());
  SetCall out;
  std::vector<ExprPtr>& args = out.args;
  SLUICE_ASSIGN_OR_RETURN(ExprPtr record, RecordTypeArg(name, coldeflist, call));
  if (record != nullptr) args.push_back(record);
  const bool skip_first = record != nullptr && PopulatesRecord(name);
  const Json& given = fc.value("args", Json::array());
  if (HasNamedArgs(given)) {
    SLUICE_ASSIGN_OR_RETURN(std::vector<ExprPtr> bound, BindCallArgs(name, given, call, ctx));
    args.insert(args.end(), bound.begin(), bound.end());
  } else {
    for (size_t i = skip_first ? 1 : 0; i < given.size(); ++i) {
      SLUICE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(given[i], ctx));
      args.push_back(x);
    }
  }
  if (name == "unnest") {
    out.fn = SeriesFn::kUnnest;
    if (args.size() != 1 || args[0]->type.id() != TypeId::kArray ||
        args[0]->type.pg_kind() == PgKind::kPoint) {
      return SqlError(sql_, call, "unnest() takes one array");
    }
    out.type = args[0]->type.children()[0].WithNullable(true);
  } else if (name != "generate_series" ||
             std::any_of(args.begin(), args.end(), [](const ExprPtr& a) {
               return !a->type.IsInteger() && !(a->kind == ExprKind::kLiteral && a->untyped);
             })) {
    // The rows as an array, spread by unnest() (generate_series over
    // numeric or timestamps too).
    SLUICE_ASSIGN_OR_RETURN(ExprPtr rows, CallSetFunction(name, std::move(args), call));
    out.fn = SeriesFn::kUnnest;
    out.type = rows->type.children()[0].WithNullable(true);
    out.args = {rows};
  } else {
    out.fn = SeriesFn::kGenerateSeries;
    if (args.size() != 2 && args.size() != 3) {
      return SqlError(sql_, call, "generate_series() takes (start, stop) or (start, stop, step)");
    }
    bool big = false;
    for (ExprPtr& a : args) {
      if (a->kind == ExprKind::kLiteral && a->untyped) {
        Value v;
        Status st = CastValue(a->value, a->type, SqlType::BigInt(), &v);
        if (!st.ok()) return SqlError(sql_, call, st.message());
        a = MakeLiteral(std::move(v), SqlType::Integer());
      }
      if (!a->type.IsInteger()) {
        return SqlUnsupported(sql_, call,
                              "generate_series() of a column over " + PgTypeName(a->type),
                              "Over columns, it takes integers.");
      }
      big |= a->type.id() == TypeId::kBigInt;
      a = MakeCast(a, SqlType::BigInt());
    }
    out.type = big ? SqlType::BigInt(false) : SqlType::Integer(false);
  }
  return out;
}

Status Binder::BindSetCallsInStep(const std::vector<const Json*>& calls, Ctx& ctx) {
  auto n = std::make_shared<PlanNode>();
  n->kind = PlanKind::kSeries;
  for (const Json* c : calls) {
    SLUICE_ASSIGN_OR_RETURN(SetCall call, BindSetCall(*c, ctx));
    n->zip.emplace_back(call.fn, call.args.size());
    n->exprs.insert(n->exprs.end(), call.args.begin(), call.args.end());
    // A column each, NULL once its function has ended.
    const std::string name = Str((*c)["FuncCall"]["funcname"].back());
    n->columns.push_back({SeriesColumnName(name), call.type.WithNullable(true)});
  }
  Extension x;
  x.series = n;
  ctx.pending.push_back(std::move(x));
  for (const Column& c : n->columns) ctx.scope.push_back({"", c.name, c.type});
  return Status::OK();
}

Status Binder::BindLateralSeries(const Json& item, Ctx& ctx) {
  const Json& body = item["RangeFunction"];
  const Json& call = body["functions"][0]["List"]["items"][0];
  const std::string name = Str(call["FuncCall"]["funcname"].back());
  SLUICE_ASSIGN_OR_RETURN(
      SetCall bound,
      BindSetCall(call, ctx, body.contains("coldeflist") ? &body["coldeflist"] : nullptr));
  auto n = std::make_shared<PlanNode>();
  n->kind = PlanKind::kSeries;
  n->series = bound.fn;
  // WITH ORDINALITY: each value's place, a column after the function's.
  n->ordinality = body.value("ordinality", false);
  const Column ordinality{"ordinality", SqlType::BigInt(false)};
  SqlType type = bound.type;
  std::vector<ExprPtr> args = std::move(bound.args);
  n->exprs = std::move(args);
  std::string qualifier = name, column = SeriesColumnName(name);
  if (type.id() == TypeId::kRow && !body.contains(kWholeRows)) {
    // Rows of a composite type: a column each of its fields.
    std::vector<std::string> names = type.field_names(), renamed;
    if (n->ordinality) names.push_back(ordinality.name);
    SLUICE_RETURN_IF_ERROR(FunctionAlias(sql_, item, names.size(), &qualifier, &renamed));
    std::copy(renamed.begin(), renamed.end(), names.begin());
    n->columns = {{name, type}};
    if (n->ordinality) n->columns.push_back(ordinality);
    Extension x;
    x.series = n;
    x.spread = true;
    ctx.pending.push_back(std::move(x));
    for (size_t i = 0; i < type.children().size(); ++i)
      ctx.scope.push_back({qualifier, names[i], SqlType(type.children()[i]).WithNullable(true)});
    if (n->ordinality) ctx.scope.push_back({qualifier, names.back(), ordinality.type});
    return Status::OK();
  }
  std::vector<std::string> renamed;
  SLUICE_RETURN_IF_ERROR(FunctionAlias(sql_, item, n->ordinality ? 2 : 1, &qualifier, &renamed));
  if (column == name) column = qualifier;  // "value" stays
  if (!renamed.empty()) column = renamed[0];
  n->columns = {{column, type}};  // after the input's, once it is known
  if (n->ordinality)
    n->columns.push_back({renamed.size() > 1 ? renamed[1] : ordinality.name, ordinality.type});
  Extension x;
  x.series = n;
  ctx.pending.push_back(std::move(x));
  ctx.scope.push_back({qualifier, column, type});
  if (n->ordinality) ctx.scope.push_back({qualifier, n->columns.back().name, ordinality.type});
  return Status::OK();
}

Status Binder::BindTableFunction(const Json& item, std::vector<PlanPtr>* items,
                                 std::vector<size_t>* widths, std::vector<ScopeCol>* scope,
                                 std::vector<SortKey>* order) {
  const Json& body = item["RangeFunction"];
  const Json& fns = body.value("functions", Json::array());
  if (body.value("is_rowsfrom", false) || fns.size() != 1) {
    return SqlUnsupported(sql_, item, "ROWS FROM");
  }
  const Json& call = fns[0]["List"]["items"][0];
  if (!call.contains("FuncCall")) return SqlUnsupported(sql_, item, "this FROM item");
  const Json& fc = call["FuncCall"];
  const std::string name = Str(fc["funcname"].back());
  if (IsSeriesFunction(name)) return BindConstantSeries(item, call, items, widths, scope, order);
  if (body.value("ordinality", false)) return SqlUnsupported(sql_, item, "WITH ORDINALITY");
  if (name != "hop" && name != "tumble") {
    if (IsPostgresFunction(name)) {
      return SqlUnsupported(sql_, call, "The table function " + name + "()");
    }
    return SqlError(sql_, call,
                    "table function " + name +
                        "() does not exist; FROM takes generate_series(), unnest() and the "
                        "window functions hop() and tumble()");
  }
  const bool hop = name == "hop";
  const Json& args = fc.value("args", Json::array());
  const size_t want = hop ? 3 : 2;
  if (args.size() != want && args.size() != want + 1) {
    return SqlError(sql_, call,
                    hop ? "hop() takes (time, slide, size) or (time, slide, size, origin)"
                        : "tumble() takes (time, size) or (time, size, origin)");
  }
  // The time column: an expression over the columns of one earlier item.
  Ctx ctx;
  ctx.scope = *scope;
  SLUICE_ASSIGN_OR_RETURN(ExprPtr ts, BindExpr(args[0], ctx));
  if (!ctx.pending.empty()) return SqlUnsupported(sql_, args[0], "a subquery here");
  std::vector<int> cols;
  CollectColumns(*ts, &cols);
  std::vector<int> start;
  int off = 0;
  for (size_t w : *widths) {
    start.push_back(off);
    off += static_cast<int>(w);
  }
  auto item_of = [&](int col) {
    size_t i = 0;
    while (i + 1 < start.size() && col >= start[i + 1]) ++i;
    return i;
  };
  if (cols.empty() || std::any_of(cols.begin(), cols.end(), [&](int c) {
        return c >= off || item_of(c) != item_of(cols[0]);
      })) {
    return SqlError(sql_, args[0],
                    name +
                        "()'s time argument must read the columns of one FROM item listed "
                        "before it");
  }
  const size_t it = item_of(cols[0]);
  const TypeId tt = ts->type.id();
  if (tt == TypeId::kDate)
    ts = MakeCast(ts, SqlType::Timestamp().WithNullable(ts->type.nullable()));
  if (!ts->type.IsInteger() && ts->type.id() != TypeId::kTimestamp) {
    return SqlError(
        sql_, args[0],
        name + "() takes a TIMESTAMP, DATE or integer time, not " + PgTypeName(ts->type));
  }
  const bool is_time = ts->type.id() == TypeId::kTimestamp;
  // Slide, size and origin: constants in the time's unit (micros for times).
  auto constant = [&](const Json& a, bool origin, int64_t* out) -> Status {
    Ctx none;
    SLUICE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(a, none));
    if (e->kind != ExprKind::kLiteral || e->value.is_null()) {
      return SqlError(
          sql_, a, name + "()'s " + (origin ? "origin" : "slide and size") + " must be constants");
    }
    Value v;
    if (!is_time) {
      if (!e->type.IsInteger()) {
        return SqlError(sql_, a, name + "() over an integer time takes integer bounds");
      }
      *out = e->value.int_value();
    } else if (origin) {
      if (!CastValue(e->value, e->type, SqlType::Timestamp(), &v).ok()) {
        return SqlError(sql_, a, name + "()'s origin must be a timestamp");
      }
      *out = v.int_value();
    } else {
      if (!CastValue(e->value, e->type, SqlType::Interval(), &v).ok() ||
          v.interval_value().months != 0) {
        return SqlError(sql_, a,
                        name +
                            "() takes intervals of days and time (months and years vary "
                            "in length)");
      }
      const Interval& iv = v.interval_value();
      if (__builtin_mul_overflow(int64_t{iv.days}, int64_t{86400000000LL}, out) ||
          __builtin_add_overflow(*out, iv.micros, out)) {
        return SqlError(sql_, a, "interval out of range");
      }
    }
    if (!origin && *out <= 0) return SqlError(sql_, a, name + "()'s intervals must be positive");
    return Status::OK();
  };
  WindowSpec spec;
  SLUICE_RETURN_IF_ERROR(constant(args[1], false, hop ? &spec.hop : &spec.size));
  if (hop) SLUICE_RETURN_IF_ERROR(constant(args[2], false, &spec.size));
  if (!hop) spec.hop = spec.size;
  if (args.size() == want + 1) SLUICE_RETURN_IF_ERROR(constant(args[want], true, &spec.offset));
  // The window operator reads a column: project the time first when it is
  // an expression, and drop it after.
  PlanPtr in = (*items)[it];
  const size_t w = (*widths)[it];
  ts = Shift(ts, -start[it]);
  const bool projected = ts->kind != ExprKind::kColumn;
  if (projected) {
    std::vector<ExprPtr> ex;
    std::vector<std::string> names;
    for (size_t i = 0; i < w; ++i) {
      ex.push_back(MakeColumn(static_cast<int>(i), in->columns[i].type));
      names.push_back(in->columns[i].name);
    }
    ex.push_back(ts);
    names.push_back(name + "_time");
    in = MakeProject(in, ex, names);
  }
  spec.ts_column = projected ? static_cast<int>(w) : ts->column;
  std::string qualifier = name;
  std::vector<std::string> out_names = {"window_start", "window_end"};
  if (body.contains("alias")) {
    const Json& alias = body["alias"];
    qualifier = alias.value("aliasname", name);
    const Json& names = alias.value("colnames", Json::array());
    if (names.size() > 2) {
      return SqlError(sql_, item,
                      name + "() returns 2 columns (window_start, window_end), but " +
                          std::to_string(names.size()) + " names were given");
    }
    for (size_t i = 0; i < names.size(); ++i) out_names[i] = Str(names[i]);
  }
  auto n = std::make_shared<PlanNode>();
  n->kind = PlanKind::kWindow;
  n->columns = in->columns;
  const SqlType bound = ts->type.WithNullable(false);
  for (const std::string& c : out_names) n->columns.push_back({c, bound});
  n->window = spec;
  n->inputs = {in};
  PlanPtr out = n;
  if (projected) {
    std::vector<ExprPtr> ex;
    std::vector<std::string> names;
    for (size_t i = 0; i < n->columns.size(); ++i) {
      if (i == w) continue;
      ex.push_back(MakeColumn(static_cast<int>(i), n->columns[i].type));
      names.push_back(n->columns[i].name);
    }
    out = MakeProject(n, ex, names);
  }
  (*items)[it] = out;
  (*widths)[it] += 2;
  std::vector<ScopeCol> added;
  for (const std::string& c : out_names) added.push_back({qualifier, c, bound});
  scope->insert(scope->begin() + start[it] + static_cast<ptrdiff_t>(w), added.begin(), added.end());
  return Status::OK();
}

Result<ExprPtr> Binder::FoldConstant(const Json& node) {
  Ctx none;
  SLUICE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(node, none));
  if (e->kind == ExprKind::kLiteral || !none.pending.empty()) return e;
  std::vector<int> cols;
  CollectColumns(*e, &cols);
  // nextval() is called where the query says, and never at binding.
  if (!cols.empty() || ContainsVolatile(*e)) return e;
  // A constant is evaluated once, and so is random() in it (a VALUES item,
  // the arguments of a function in FROM), as in PostgreSQL.
  e = ReplaceDraws(
      e, [&](const Expr& d) { return MakeLiteral(Value::Double(OnceDraw(d.column)), d.type); });
  Value v;
  Status st = Eval(*e, Row{}, &v);
  if (!st.ok()) return SqlError(sql_, node, st.message());
  return MakeLiteral(std::move(v), e->type);
}

// generate_series(start, stop [, step]) over integers, numerics or
// timestamps (with an interval step), and unnest(array): with constant
// arguments, their rows are known when the view is made. PostgreSQL's
// limits: a zero step is an error; the series stops before passing `stop`.
Status Binder::BindConstantSeries(const Json& item, const Json& call, std::vector<PlanPtr>* items,
                                  std::vector<size_t>* widths, std::vector<ScopeCol>* scope,
                                  std::vector<SortKey>* order) {
  const Json& body = item["RangeFunction"];
  const Json& fc = call["FuncCall"];
  const std::string name = Str(fc["funcname"].back());
  const Json& args = fc.value("args", Json::array());
  std::vector<ExprPtr> vals;
  SLUICE_ASSIGN_OR_RETURN(
      ExprPtr record,
      RecordTypeArg(name, body.contains("coldeflist") ? &body["coldeflist"] : nullptr, call));
  if (record != nullptr) vals.push_back(record);
  const bool skip_first = record != nullptr && PopulatesRecord(name);
  const bool named = HasNamedArgs(args);
  if (named) {
    // Named arguments put in their places (and defaults added): each a
    // constant, as below.
    Ctx earlier;
    earlier.scope = *scope;
    SLUICE_ASSIGN_OR_RETURN(std::vector<ExprPtr> bound, BindCallArgs(name, args, call, earlier));
    for (const ExprPtr& b : bound) {
      std::vector<int> refs;
      CollectColumns(*b, &refs);
      Value v;
      if (!refs.empty() || !Eval(*b, Row{}, &v).ok()) {
        return SqlUnsupported(sql_, call, name + "() of a column with named arguments",
                              "Pass the arguments by position.");
      }
      vals.push_back(MakeLiteral(std::move(v), b->type));
    }
  }
  static const Json kNone = Json::array();
  for (const Json& a : named ? kNone : args) {
    if (skip_first && &a == &args[0]) continue;
    Ctx earlier;  // a reference to an earlier item's column is a LATERAL call
    earlier.scope = *scope;
    SLUICE_ASSIGN_OR_RETURN(ExprPtr bound, BindExpr(a, earlier));
    std::vector<int> refs;
    CollectColumns(*bound, &refs);
    if (!refs.empty()) {
      return SqlUnsupported(sql_, a, name + "() of a column (a LATERAL call)",
                            "Its arguments must be constants here.");
    }
    SLUICE_ASSIGN_OR_RETURN(ExprPtr e, FoldConstant(a));
    if (e->kind != ExprKind::kLiteral) {
      return SqlUnsupported(sql_, a, name + "() of a column (a LATERAL call)",
                            "Its arguments must be constants here.");
    }
    vals.push_back(e);
  }
  constexpr size_t kMaxRows = 10000000;
  std::vector<Value> out;
  SqlType type;
  // unnest(a, b, ...): the arrays side by side, the shorter ones padded
  // with NULLs (a column each, after `out`'s).
  std::vector<std::vector<Value>> more;
  std::vector<SqlType> more_types;
  if (name != "unnest" && name != "generate_series") {
    // The rows of the array that the set function's scalar form returns.
    SLUICE_ASSIGN_OR_RETURN(ExprPtr rows, CallSetFunction(name, vals, call));
    Value list;
    Status st = Eval(*rows, Row{}, &list);
    if (!st.ok()) return SqlError(sql_, call, st.message());
    type = rows->type.children()[0].WithNullable(true);
    if (!list.is_null()) out = list.list();
  } else if (name == "unnest") {
    if (vals.empty()) return SqlError(sql_, call, "unnest() takes one array or more");
    for (size_t i = 0; i < vals.size(); ++i) {
      if ((vals[i]->type.id() != TypeId::kArray || vals[i]->type.pg_kind() == PgKind::kPoint) &&
          !vals[i]->untyped) {
        return SqlError(sql_, call, "unnest() takes arrays");
      }
      if (vals[i]->untyped) {
        return SqlError(sql_, call,
                        "could not determine polymorphic type because input has type unknown");
      }
      const SqlType t = vals[i]->type.children()[0].WithNullable(true);
      std::vector<Value> rows;
      if (!vals[i]->value.is_null()) rows = vals[i]->value.list();
      if (i == 0) {
        type = t;
        out = std::move(rows);
      } else {
        more_types.push_back(t);
        more.push_back(std::move(rows));
      }
    }
  } else {
    if (vals.size() != 2 && vals.size() != 3) {
      return SqlError(sql_, call, "generate_series() takes (start, stop) or (start, stop, step)");
    }
    for (auto& v : vals) {
      if (v->untyped && !v->value.is_null()) {
        Value n;
        if (CastValue(v->value, v->type, SqlType::Timestamp(), &n).ok()) {
          v = MakeLiteral(n, SqlType::Timestamp());
        } else {
          return SqlError(sql_, call, "function generate_series(unknown, ...) is not unique");
        }
      }
    }
    const SqlType& t0 = vals[0]->type;
    const bool time = t0.id() == TypeId::kTimestamp || t0.id() == TypeId::kDate;
    bool any_null = false;
    for (auto& v : vals) any_null |= v->value.is_null();
    if (time) {
      if (vals.size() != 3 || vals[2]->type.id() != TypeId::kInterval) {
        return SqlError(sql_, call,
                        "generate_series() over timestamps takes (start, stop, interval step)");
      }
      type = SqlType::Timestamp(false);
      if (!any_null) {
        Value a, b;
        SLUICE_RETURN_IF_ERROR(CastValue(vals[0]->value, t0, type, &a));
        SLUICE_RETURN_IF_ERROR(CastValue(vals[1]->value, vals[1]->type, type, &b));
        const Interval& step = vals[2]->value.interval_value();
        if (step.months == 0 && step.days == 0 && step.micros == 0)
          return SqlError(sql_, call, "step size cannot equal zero");
        const int64_t stop = b.int_value();
        const bool up = step.months > 0 || step.days > 0 || step.micros > 0;
        // Each element is the previous one plus the step, as PostgreSQL adds.
        for (int64_t cur = a.int_value(); up ? cur <= stop : cur >= stop;) {
          if (out.size() >= kMaxRows)
            return SqlError(sql_, call, "generate_series() of more than 10000000 rows");
          out.push_back(Value::Int(cur));
          if (!AddInterval(cur, step, 1, &cur)) break;
        }
      }
    } else {
      for (auto& v : vals) {
        if (!IsNumeric(v->type) || v->type.id() == TypeId::kReal ||
            v->type.id() == TypeId::kDouble) {
          if (!v->value.is_null() || !IsNumeric(v->type)) {
            return SqlError(
                sql_, call,
                "function generate_series(" + PgTypeName(v->type) + ", ...) does not exist");
          }
        }
      }
      bool dec = false, dynamic = false;
      int scale = 0, start_scale = 0;
      for (auto& v : vals) {
        if (v->type.id() == TypeId::kDecimal) {
          dec = true;
          dynamic = dynamic || v->type.dynamic_scale();
          if (!v->type.dynamic_scale()) scale = std::max(scale, v->type.scale());
        }
      }
      if (dynamic && !any_null) {
        // As PostgreSQL: the first value has the start's scale, the others
        // the larger of the start's and the step's.
        for (size_t i = 0; i < vals.size(); ++i) {
          Value v;
          SLUICE_RETURN_IF_ERROR(CastValue(vals[i]->value, vals[i]->type, SqlType::Numeric(), &v));
          if (v.decimal_is_special()) continue;  // refused below
          if (i == 0) start_scale = v.decimal_scale();
          if (i != 1) scale = std::max(scale, v.decimal_scale());
        }
      }
      type = dec && dynamic ? SqlType::Numeric(false)
             : dec          ? SqlType::Decimal(38, scale, false)
             : (t0.id() == TypeId::kBigInt || vals[1]->type.id() == TypeId::kBigInt)
                 ? SqlType::BigInt(false)
                 : SqlType::Integer(false);
      if (!any_null) {
        auto as128 = [&](const ExprPtr& e) -> Result<int128> {
          Value v;
          const Status cast = CastValue(e->value, e->type,
                                        dec ? SqlType::Decimal(38, scale) : SqlType::BigInt(), &v);
          if (dec && cast.code() == StatusCode::kOverflow) {
            return Status::Unimplemented(
                "generate_series of numeric values of more than 38 digits is not supported yet");
          }
          SLUICE_RETURN_IF_ERROR(cast);
          if (dec && v.decimal_is_special()) {
            return Status::InvalidArgument(
                v.decimal_special() == DecimalSpecial::kNaN
                    ? "generate_series of numeric NaN is not allowed"
                    : "generate_series of numeric infinity is not allowed");
          }
          return dec ? v.decimal_unscaled() : static_cast<int128>(v.int_value());
        };
        SLUICE_ASSIGN_OR_RETURN(int128 a, as128(vals[0]));
        SLUICE_ASSIGN_OR_RETURN(int128 b, as128(vals[1]));
        int128 step = dec ? Pow10(scale) : 1;
        if (vals.size() == 3) {
          SLUICE_ASSIGN_OR_RETURN(step, as128(vals[2]));
        }
        if (step == 0) return SqlError(sql_, call, "step size cannot equal zero");
        for (int128 cur = a; step > 0 ? cur <= b : cur >= b; cur += step) {
          if (out.size() >= kMaxRows)
            return SqlError(sql_, call, "generate_series() of more than 10000000 rows");
          if (dynamic && cur == a && start_scale < scale) {
            out.push_back(Value::Decimal(cur / Pow10(scale - start_scale), start_scale));
            continue;
          }
          out.push_back(dec ? Value::Decimal(cur, scale) : Value::Int(static_cast<int64_t>(cur)));
        }
      }
    }
  }
  const bool ordinality = body.value("ordinality", false);
  std::string qualifier = name, column = SeriesColumnName(name);
  std::vector<std::string> names = {column};
  for (size_t i = 0; i < more.size(); ++i) names.push_back(column);
  if (type.id() == TypeId::kRow && more.empty() && !type.children().empty() &&
      !body.contains(kWholeRows)) {
    // Rows of a composite type: a column each of its fields (a NULL row's
    // all NULL).
    const size_t k = type.children().size();
    std::vector<std::vector<Value>> columns(k);
    for (const Value& r : out) {
      for (size_t f = 0; f < k; ++f)
        columns[f].push_back(r.is_null() ? Value::Null() : r.list()[f]);
    }
    names = type.field_names();
    column = names[0];
    for (size_t f = 1; f < k; ++f) {
      more_types.push_back(SqlType(type.children()[f]).WithNullable(true));
      more.push_back(std::move(columns[f]));
    }
    out = std::move(columns[0]);
    type = SqlType(type.children()[0]).WithNullable(true);
  }
  if (ordinality) names.push_back("ordinality");
  std::vector<std::string> renamed;
  SLUICE_RETURN_IF_ERROR(FunctionAlias(sql_, item, names.size(), &qualifier, &renamed));
  // A scalar function's one column takes the alias.
  if (body.contains("alias") && column == name && more.empty()) names[0] = qualifier;
  std::copy(renamed.begin(), renamed.end(), names.begin());
  auto n = std::make_shared<PlanNode>();
  n->kind = PlanKind::kValues;
  n->columns.push_back({names[0], type});
  size_t count = out.size();
  for (size_t c = 0; c < more.size(); ++c) {
    n->columns.push_back({names[c + 1], more_types[c]});
    count = std::max(count, more[c].size());
  }
  const bool hidden_ordinality = !ordinality && order != nullptr;
  if (ordinality) n->columns.push_back({names.back(), SqlType::BigInt(false)});
  if (hidden_ordinality) n->columns.push_back({"ordinality", SqlType::BigInt(false)});
  for (size_t i = 0; i < count; ++i) {
    Row r = {i < out.size() ? out[i] : Value::Null()};
    for (const std::vector<Value>& m : more) r.push_back(i < m.size() ? m[i] : Value::Null());
    if (ordinality || hidden_ordinality) r.push_back(Value::Int(static_cast<int64_t>(i + 1)));
    n->rows.push_back(std::move(r));
  }
  items->push_back(n);
  widths->push_back(n->columns.size());
  for (const Column& c : n->columns) scope->push_back({qualifier, c.name, c.type});
  if (hidden_ordinality) scope->back().hidden = true;
  if (order != nullptr) {
    order->push_back({static_cast<int>(n->columns.size()) - 1, false, false});
  }
  return Status::OK();
}

}  // namespace sluice::sql::binding
