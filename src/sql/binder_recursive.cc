// The form of a recursive query, as PostgreSQL's parser checks it before
// binding (parse_cte.c: checkWellFormedRecursion, and the aggregate check
// of its analysis), with its messages and the caret where it puts it.
//
// PostgreSQL evaluates a recursive term over the previous iteration's rows
// alone; the rules keep that meaningful: the term reads the query once
// (not within a subquery, an outer join's nullable side, INTERSECT ALL or
// EXCEPT's right side or EXCEPT ALL), and aggregates nothing at the level
// that reads it. Terms it accepts may still not be linear for our lowering
// (a DISTINCT, a WITH query read twice): those are computed from scratch.
#include "sql/binder_internal.h"

namespace sluice::sql::binding {
namespace {

// Where a reference to the recursive query is being looked for.
enum class Place { kOk, kNonRecursiveTerm, kSubquery, kOuterJoin, kIntersect, kExcept };

std::string Refused(Place p, const std::string& name) {
  static const char* const kWhere[] = {"",
                                       "within its non-recursive term",
                                       "within a subquery",
                                       "within an outer join",
                                       "within INTERSECT",
                                       "within EXCEPT"};
  return "recursive reference to query \"" + name + "\" must not appear " +
         kWhere[static_cast<int>(p)];
}

// One recursive query's terms walked as checkWellFormedRecursionWalker
// walks them. Each walk's first error wins.
class RecursionWalk {
 public:
  RecursionWalk(std::string_view sql, std::string name) : sql_(sql), name_(std::move(name)) {}

  int refs() const { return refs_; }
  // The first aggregate at a level that reads the query (null if none).
  const Json* aggregate() const { return aggregate_; }

  Status Walk(const Json& n, Place place) {
    place_ = place;
    inner_withs_.clear();
    return Node(n);
  }
  // The body of a SelectStmt (the UNION's terms are not wrapped).
  Status WalkSelect(const Json& body, Place place) {
    place_ = place;
    inner_withs_.clear();
    return Select(body);
  }

 private:
  bool Hidden(const std::string& rel) const {
    for (const auto& names : inner_withs_) {
      if (std::find(names.begin(), names.end(), rel) != names.end()) return true;
    }
    return false;
  }
  bool IsReference(const Json& range_var) const {
    return !range_var.contains("schemaname") && range_var.value("relname", "") == name_ &&
           !Hidden(name_);
  }

  Status Node(const Json& n) {
    if (n.is_array()) {
      for (const Json& x : n) SLUICE_RETURN_IF_ERROR(Node(x));
      return Status::OK();
    }
    if (!n.is_object()) return Status::OK();
    if (n.contains("RangeVar")) {
      if (!IsReference(n["RangeVar"])) return Status::OK();
      if (place_ != Place::kOk) return SqlError(sql_, n, Refused(place_, name_));
      if (++refs_ > 1) {
        return SqlError(
            sql_, n,
            "recursive reference to query \"" + name_ + "\" must not appear more than once");
      }
      return Status::OK();
    }
    if (n.contains("SelectStmt")) return Select(n["SelectStmt"]);
    if (n.contains("JoinExpr")) return Join(n["JoinExpr"]);
    if (n.contains("SubLink")) {
      const Json& link = n["SubLink"];
      const Place saved = place_;
      place_ = Place::kSubquery;
      SLUICE_RETURN_IF_ERROR(Node(Field(link, "subselect")));
      place_ = saved;
      return Node(Field(link, "testexpr"));
    }
    for (auto it = n.begin(); it != n.end(); ++it) SLUICE_RETURN_IF_ERROR(Node(*it));
    return Status::OK();
  }

  Status Join(const Json& j) {
    const std::string type = j.value("jointype", "JOIN_INNER");
    const Place saved = place_;
    const Place outer = saved == Place::kOk ? Place::kOuterJoin : saved;
    // The nullable side of an outer join is refused.
    place_ = type == "JOIN_FULL" || type == "JOIN_RIGHT" ? outer : saved;
    SLUICE_RETURN_IF_ERROR(Node(Field(j, "larg")));
    place_ = type == "JOIN_FULL" || type == "JOIN_LEFT" ? outer : saved;
    SLUICE_RETURN_IF_ERROR(Node(Field(j, "rarg")));
    place_ = saved;
    return Node(Field(j, "quals"));
  }

  // A SELECT's WITH queries see the names before them (all of them, if
  // RECURSIVE), and hide the recursive query's name if they have it.
  Status Select(const Json& s) {
    if (!s.contains("withClause")) return SelectFields(s);
    const Json& with = s["withClause"];
    const Json ctes = with.value("ctes", Json::array());
    inner_withs_.emplace_back();
    if (with.value("recursive", false)) {
      for (const Json& c : ctes) inner_withs_.back().push_back(c["CommonTableExpr"]["ctename"]);
    }
    for (const Json& c : ctes) {
      SLUICE_RETURN_IF_ERROR(Node(c["CommonTableExpr"]["ctequery"]));
      if (!with.value("recursive", false))
        inner_withs_.back().push_back(c["CommonTableExpr"]["ctename"]);
    }
    SLUICE_RETURN_IF_ERROR(SelectFields(s));
    inner_withs_.pop_back();
    return Status::OK();
  }

  Status SelectFields(const Json& s) {
    const std::string op = s.value("op", "SETOP_NONE");
    const Place saved = place_;
    if (saved == Place::kOk && (op == "SETOP_INTERSECT" || op == "SETOP_EXCEPT")) {
      const bool all = s.value("all", false);
      if (all) place_ = op == "SETOP_INTERSECT" ? Place::kIntersect : Place::kExcept;
      SLUICE_RETURN_IF_ERROR(Select(Field(s, "larg")));
      if (op == "SETOP_EXCEPT") place_ = Place::kExcept;
      SLUICE_RETURN_IF_ERROR(Select(Field(s, "rarg")));
      place_ = saved;
      for (const char* key : {"sortClause", "limitOffset", "limitCount", "lockingClause"}) {
        SLUICE_RETURN_IF_ERROR(Node(Field(s, key)));
      }
      return Status::OK();
    }
    for (auto it = s.begin(); it != s.end(); ++it) {
      if (it.key() == "withClause") continue;
      if (it.key() == "larg" || it.key() == "rarg") {
        SLUICE_RETURN_IF_ERROR(Select(*it));
      } else {
        SLUICE_RETURN_IF_ERROR(Node(*it));
      }
    }
    if (aggregate_ == nullptr && op == "SETOP_NONE" && ReadsDirectly(Field(s, "fromClause"))) {
      for (const char* key : {"targetList", "sortClause", "havingClause"}) {
        aggregate_ = FirstAggregate(Field(s, key));
        if (aggregate_ != nullptr) break;
      }
    }
    return Status::OK();
  }

  // Whether FROM items `n` read the query themselves or through joins (not
  // through subqueries): the query's level, where it may not aggregate.
  bool ReadsDirectly(const Json& n) const {
    if (n.is_array()) {
      return std::any_of(n.begin(), n.end(), [&](const Json& x) { return ReadsDirectly(x); });
    }
    if (n.contains("RangeVar")) return IsReference(n["RangeVar"]);
    if (n.contains("JoinExpr")) {
      return ReadsDirectly(Field(n["JoinExpr"], "larg")) ||
             ReadsDirectly(Field(n["JoinExpr"], "rarg"));
    }
    return false;
  }

  std::string_view sql_;
  std::string name_;
  Place place_ = Place::kOk;
  int refs_ = 0;
  const Json* aggregate_ = nullptr;
  std::vector<std::vector<std::string>> inner_withs_;
};

}  // namespace

Status CheckRecursiveQueries(std::string_view sql, const std::vector<const Json*>& ctes) {
  const Json* aggregate = nullptr;
  for (const Json* c : ctes) {
    const Json& cte = (*c)["CommonTableExpr"];
    const std::string name = cte.value("ctename", "");
    const Json& u = cte["ctequery"]["SelectStmt"];
    if (u.value("op", "") != "SETOP_UNION") {
      return SqlError(sql, *c,
                      "recursive query \"" + name +
                          "\" does not have the form non-recursive-term UNION [ALL] "
                          "recursive-term");
    }
    RecursionWalk walk(sql, name);
    SLUICE_RETURN_IF_ERROR(walk.WalkSelect(u["larg"], Place::kNonRecursiveTerm));
    SLUICE_RETURN_IF_ERROR(walk.WalkSelect(u["rarg"], Place::kOk));
    if (u.contains("withClause")) {
      SLUICE_RETURN_IF_ERROR(
          walk.Walk(u["withClause"].value("ctes", Json::array()), Place::kSubquery));
    }
    if (u.contains("sortClause")) {
      return SqlError(sql, Field(u["sortClause"][0]["SortBy"], "node"),
                      "ORDER BY in a recursive query is not implemented");
    }
    if (u.contains("limitOffset")) {
      return SqlError(sql, u["limitOffset"], "OFFSET in a recursive query is not implemented");
    }
    if (u.contains("limitCount")) {
      return SqlError(sql, u["limitCount"], "LIMIT in a recursive query is not implemented");
    }
    if (u.contains("lockingClause")) {
      return SqlError(sql, Json(), "FOR UPDATE/SHARE in a recursive query is not implemented");
    }
    if (aggregate == nullptr) aggregate = walk.aggregate();
  }
  if (aggregate != nullptr) {
    return SqlError(sql, *aggregate,
                    "aggregate functions are not allowed in a recursive query's recursive term");
  }
  return Status::OK();
}

}  // namespace sluice::sql::binding
