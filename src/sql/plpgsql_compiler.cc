// The compile phase of plpgsql.h: a plpgsql function's body, executed
// symbolically, as one SelectStmt.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sql/plpgsql.h"
#include "sql/plpgsql_internal.h"

namespace sluice::sql {
namespace plpgsql {
namespace {

// PostgreSQL's elog levels (utils/elog.h) that RAISE takes: below ERROR a
// message only.
constexpr int kErrorLevel = 21;
// Each IF runs the rest of the body once per branch: a bound on the paths.
constexpr int kMaxPaths = 4096;

// Executes one function's body (FunctionDef::body, as ParseFunction wrote
// it) symbolically, from the parameters as $1, $2, ..., into a SelectStmt:
// the binder makes one for each call it inlines (CompilePlpgsqlFunction).
// Invariants: a variable's value never mentions another variable, only
// parameters; a set-returning function's rows_ each hold only where the
// conditions of the path that added them hold.
// Thread safety: none needed, it lives on one thread for one call.
class Compiler {
 public:
  Compiler(const FunctionDef& f, const Catalog& catalog)
      : f_(f), catalog_(catalog), def_(Json::parse(f.body)), vars_(def_["vars"]) {
    return_type_ = Json::parse(f.return_type);
    for (size_t i = 0; i < vars_.size(); ++i) {
      const std::string name = vars_[i].value("name", "");
      // A later declaration (an inner block's) hides an earlier one.
      by_name_[name] = i;
      if (vars_[i].value("out", false)) outs_.push_back(i);
    }
    Labels(def_["action"]);
  }

  Result<Json> Compile() {
    State s(vars_.size());
    for (size_t i = 0; i < vars_.size(); ++i) {
      const Json& v = vars_[i];
      const Json& type = v.contains("type") ? v["type"] : Json();
      if (v.value("in", 0) > 0) {
        s[i].expr = Json{{"ParamRef", {{"number", v["in"]}, {"location", -1}}}};
      } else if (v.contains("init")) {
        s[i].expr = v["init"];
      } else if (v.contains("default")) {
        SLUICE_ASSIGN_OR_RETURN(Json e, Expr(v["default"], s));
        s[i].expr = type.is_null() ? e : Cast(e, type);
      } else {
        s[i].expr = NullOf(type);
      }
    }
    const Json action = Json::array({def_["action"]});
    std::vector<Json> path;
    if (f_.returns_set && f_.strict) {
      // STRICT: no rows if an argument is NULL (a scalar function's call
      // is NULL then: BindUserFunction).
      for (size_t i = 0; i < vars_.size(); ++i) {
        if (vars_[i].value("in", 0) == 0) continue;
        path.push_back(Json{
            {"NullTest", {{"arg", s[i].expr}, {"nulltesttype", "IS_NOT_NULL"}, {"location", -1}}}});
      }
    }
    SLUICE_ASSIGN_OR_RETURN(Json result, Run(std::move(s), {Frame{&action, 0}}, path));
    if (!f_.returns_set) return Select(Json::array({Target(result)}));
    if (rows_.empty()) {
      // No row on any path.
      Json targets = Json::array();
      if (outs_.empty()) targets.push_back(Target(NullOf(return_type_)));
      for (size_t i : outs_) targets.push_back(Target(NullOf(vars_[i]["type"])));
      Json select = Select(targets);
      select["whereClause"] = BoolConst(false);
      return select;
    }
    Json out = rows_[0];
    for (size_t i = 1; i < rows_.size(); ++i) {
      out = Json{{"op", "SETOP_UNION"},
                 {"all", true},
                 {"larg", out},
                 {"rarg", rows_[i]},
                 {"limitOption", "LIMIT_OPTION_DEFAULT"}};
    }
    return out;
  }

 private:
  // A variable's value: one expression, or, for a composite variable that
  // was assigned field by field, one per field of its type.
  struct Var {
    Json expr;
    bool by_fields = false;
    std::vector<Json> fields;
  };
  using State = std::vector<Var>;
  // A statement list and the next statement to run in it.
  struct Frame {
    const Json* stmts;
    size_t next;
  };

  void Labels(const Json& n) {
    if (n.is_object()) {
      if (n.contains("PLpgSQL_stmt_block") && n["PLpgSQL_stmt_block"].contains("label"))
        labels_.insert(n["PLpgSQL_stmt_block"].value("label", ""));
      for (auto it = n.begin(); it != n.end(); ++it) Labels(it.value());
    } else if (n.is_array()) {
      for (const Json& x : n) Labels(x);
    }
  }

  const Json& TypeOf(size_t var) const {
    static const Json kNone;
    return vars_[var].contains("type") ? vars_[var]["type"] : kNone;
  }

  // The fields of a composite variable's type (CREATE TYPE ... AS, or a
  // table's row type).
  Result<std::vector<std::string>> FieldNames(size_t var) const {
    const Json& type = TypeOf(var);
    const std::string name =
        type.is_null() || !type.contains("names") ? "" : StrOf(type["names"].back());
    std::vector<std::string> names;
    if (const SqlType* t = catalog_.FindType(name); t != nullptr && t->id() == TypeId::kRow) {
      names = t->field_names();
    } else if (const TableDef* table = catalog_.FindTable(name)) {
      for (const Column& c : table->columns) names.push_back(c.name);
    } else {
      return Status::Unimplemented("fields of variable \"" + vars_[var].value("name", "") +
                                   "\", which is not of a composite type,");
    }
    return names;
  }

  Result<Json> Value(const State& s, size_t var) const {
    const Var& v = s[var];
    if (!v.by_fields) return v.expr;
    Json row{{"RowExpr",
              {{"args", v.fields}, {"row_format", "COERCE_EXPLICIT_CALL"}, {"location", -1}}}};
    return Cast(std::move(row), TypeOf(var));
  }

  // Makes variable `var` one expression per field.
  Status SplitFields(State* s, size_t var) const {
    Var& v = (*s)[var];
    if (v.by_fields) return Status::OK();
    SLUICE_ASSIGN_OR_RETURN(const std::vector<std::string> names, FieldNames(var));
    v.fields.clear();
    for (const std::string& n : names) {
      v.fields.push_back(
          Json{{"A_Indirection", {{"arg", v.expr}, {"indirection", Json::array({StrNode(n)})}}}});
    }
    v.by_fields = true;
    return Status::OK();
  }

  Result<Json> FieldOf(const State& s, size_t var, const std::string& field) const {
    const Var& v = s[var];
    if (!v.by_fields) {
      return Json{
          {"A_Indirection", {{"arg", v.expr}, {"indirection", Json::array({StrNode(field)})}}}};
    }
    SLUICE_ASSIGN_OR_RETURN(const std::vector<std::string> names, FieldNames(var));
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == field) return v.fields[i];
    }
    return Status::InvalidArgument("record \"" + vars_[var].value("name", "") +
                                   "\" has no field \"" + field + "\"");
  }

  std::optional<size_t> VarNamed(const std::string& name) const {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) return std::nullopt;
    return it->second;
  }

  // The names of the columns that queries inside `n` read, and the names
  // of their FROM items: a variable of one of these names would be
  // ambiguous (PostgreSQL's plpgsql.variable_conflict = error).
  void ColumnNames(const Json& n, std::set<std::string>* columns,
                   std::set<std::string>* items) const {
    if (n.is_array()) {
      for (const Json& x : n) ColumnNames(x, columns, items);
      return;
    }
    if (!n.is_object()) return;
    for (const char* kind : {"RangeVar", "RangeSubselect", "RangeFunction"}) {
      if (!n.contains(kind)) continue;
      const Json& item = n[kind];
      if (item.contains("alias")) {
        items->insert(item["alias"].value("aliasname", ""));
        for (const Json& c : item["alias"].value("colnames", Json::array()))
          columns->insert(StrOf(c));
        // A function's alias names its one column.
        if (std::string(kind) == "RangeFunction")
          columns->insert(item["alias"].value("aliasname", ""));
      }
      if (item.contains("relname")) {
        const std::string rel = item.value("relname", "");
        items->insert(rel);
        if (const TableDef* t = catalog_.FindTable(rel)) {
          for (const Column& c : t->columns) columns->insert(c.name);
        } else if (const ViewDef* v = catalog_.FindView(rel)) {
          for (const Column& c : v->query.plan->columns) columns->insert(c.name);
        }
      }
    }
    for (auto it = n.begin(); it != n.end(); ++it) ColumnNames(it.value(), columns, items);
  }

  Status Substitute(Json* n, const State& s, const std::set<std::string>& columns,
                    const std::set<std::string>& items) const {
    if (n->is_array()) {
      for (Json& x : *n) SLUICE_RETURN_IF_ERROR(Substitute(&x, s, columns, items));
      return Status::OK();
    }
    if (!n->is_object()) return Status::OK();
    if (n->contains("ParamRef")) {
      const int64_t k = (*n)["ParamRef"].value("number", int64_t{0});
      size_t params = 0;
      while (params < vars_.size() && vars_[params].contains("in")) ++params;
      if (k < 1 || static_cast<size_t>(k) > params) {
        return Status::InvalidArgument("there is no parameter $" + std::to_string(k));
      }
      SLUICE_ASSIGN_OR_RETURN(*n, Value(s, static_cast<size_t>(k - 1)));
      return Status::OK();
    }
    if (n->contains("ColumnRef")) {
      const Json& fields = (*n)["ColumnRef"]["fields"];
      std::vector<std::string> names;
      for (const Json& x : fields) names.push_back(StrOf(x));
      auto qualifier = [&](const std::string& q) {
        return (q == f_.name || labels_.count(q)) && items.count(q) == 0;
      };
      if (names.size() == 1 && !names[0].empty()) {
        if (auto v = VarNamed(names[0])) {
          if (columns.count(names[0])) {
            return Status::InvalidArgument("column reference \"" + names[0] +
                                           "\" is ambiguous: it could refer to either a PL/pgSQL "
                                           "variable or a table column");
          }
          SLUICE_ASSIGN_OR_RETURN(*n, Value(s, *v));
        }
      } else if (names.size() == 2 && !names[0].empty() && !names[1].empty()) {
        if (auto v = VarNamed(names[0]); v && items.count(names[0]) == 0) {
          SLUICE_ASSIGN_OR_RETURN(*n, FieldOf(s, *v, names[1]));
        } else if (auto w = VarNamed(names[1]); w && qualifier(names[0])) {
          SLUICE_ASSIGN_OR_RETURN(*n, Value(s, *w));
        }
      } else if (names.size() == 3 && qualifier(names[0])) {
        if (auto v = VarNamed(names[1]); v && !names[2].empty()) {
          SLUICE_ASSIGN_OR_RETURN(*n, FieldOf(s, *v, names[2]));
        }
      }
      return Status::OK();
    }
    for (auto it = n->begin(); it != n->end(); ++it) {
      SLUICE_RETURN_IF_ERROR(Substitute(&it.value(), s, columns, items));
    }
    return Status::OK();
  }

  // `tree` with every variable replaced by its value in `s`.
  Result<Json> Expr(const Json& tree, const State& s) const {
    Json out = tree;
    std::set<std::string> columns, items;
    ColumnNames(out, &columns, &items);
    SLUICE_RETURN_IF_ERROR(Substitute(&out, s, columns, items));
    return out;
  }

  Result<Json> ExprOf(const Json& plpgsql_expr, const State& s) const {
    return Expr(plpgsql_expr["PLpgSQL_expr"]["tree"], s);
  }

  // The message of a RAISE: its format with each % replaced by the text of
  // the next parameter (<NULL> for NULL) and %% by %, or its USING MESSAGE,
  // or the condition it names.
  Result<Json> RaiseMessage(const Json& raise, const State& s) const {
    static const Json kText = Json{{"names", Json::array({StrNode("text")})}, {"typemod", -1}};
    constexpr int kMessageOption = 1;  // PLPGSQL_RAISEOPTION_MESSAGE
    for (const Json& o : raise.value("options", Json::array())) {
      const Json& opt = o["PLpgSQL_raise_option"];
      if (opt.value("opt_type", 0) == kMessageOption) return ExprOf(opt["expr"], s);
    }
    if (!raise.contains("message")) return TextConst(raise.value("condname", ""));
    const std::string format = raise.value("message", "");
    const Json& params = raise.value("params", Json::array());
    std::vector<Json> parts;
    std::string literal;
    size_t p = 0;
    for (size_t i = 0; i < format.size(); ++i) {
      if (format[i] != '%') {
        literal += format[i];
      } else if (i + 1 < format.size() && format[i + 1] == '%') {
        literal += '%';
        ++i;
      } else if (p < params.size()) {
        if (!literal.empty()) parts.push_back(TextConst(literal));
        literal.clear();
        SLUICE_ASSIGN_OR_RETURN(Json v, ExprOf(params[p++], s));
        parts.push_back(
            Call("coalesce", Json::array({Cast(std::move(v), kText), TextConst("<NULL>")})));
      } else {
        return Status::InvalidArgument("too few parameters specified for RAISE");
      }
    }
    if (p < params.size())
      return Status::InvalidArgument("too many parameters specified for RAISE");
    if (!literal.empty() || parts.empty()) parts.push_back(TextConst(literal));
    Json message = parts[0];
    for (size_t i = 1; i < parts.size(); ++i) message = Op("||", message, parts[i]);
    return message;
  }

  // The end of a path with the error `message`: its value (a scalar
  // function), or a row source that raises it where the path is taken.
  Result<Json> Fail(Json message, const std::vector<Json>& path) {
    if (!f_.returns_set) return ErrorExpr(std::move(message), return_type_);
    static const Json kBool = Json{{"names", Json::array({StrNode("bool")})}, {"typemod", -1}};
    Json raise = ErrorExpr(std::move(message), kBool);
    Json cond =
        path.empty() ? raise : Case(Json::array({When(And(path), raise)}), BoolConst(false));
    Json targets = Json::array();
    if (outs_.empty()) targets.push_back(Target(NullOf(return_type_)));
    for (size_t i : outs_) targets.push_back(Target(NullOf(vars_[i]["type"])));
    Json select = Select(targets);
    select["whereClause"] = cond;
    rows_.push_back(select);
    return Json();
  }

  // Rows of a set-returning function, kept where `path` holds.
  void AddRows(Json select, const std::vector<Json>& path) {
    if (path.empty()) {
      rows_.push_back(std::move(select));
      return;
    }
    Json star =
        Json{{"ColumnRef",
              {{"fields", Json::array({Json{{"A_Star", Json::object()}}})}, {"location", -1}}}};
    Json out = Select(Json::array({Target(star)}));
    out["fromClause"] = Json::array({Json{{"RangeSubselect",
                                           {{"subquery", {{"SelectStmt", std::move(select)}}},
                                            {"alias", {{"aliasname", "plpgsql_rows"}}}}}}});
    out["whereClause"] = And(path);
    rows_.push_back(std::move(out));
  }

  // Branches (condition, statements; a null condition for ELSE): each runs
  // with the rest of the body. Without an ELSE, `otherwise` runs (null:
  // the rest of the body as it is).
  Result<Json> Branch(const State& s, const std::vector<Frame>& k, const std::vector<Json>& path,
                      const std::vector<std::pair<Json, const Json*>>& branches,
                      const std::optional<Json>& otherwise) {
    Json whens = Json::array();
    std::vector<Json> not_before;  // the conditions of the earlier branches, not taken
    std::optional<Json> last;
    bool has_else = false;
    for (const auto& [cond, stmts] : branches) {
      std::vector<Json> p = path;
      p.insert(p.end(), not_before.begin(), not_before.end());
      if (!cond.is_null()) p.push_back(IsTrue(cond, true));
      std::vector<Frame> next = k;
      if (stmts != nullptr && stmts->is_array()) next.push_back(Frame{stmts, 0});
      SLUICE_ASSIGN_OR_RETURN(Json r, Run(s, std::move(next), p));
      if (cond.is_null()) {
        last = r;
        has_else = true;
        break;
      }
      whens.push_back(When(cond, r));
      not_before.push_back(IsTrue(cond, false));
    }
    if (!has_else) {
      std::vector<Json> p = path;
      p.insert(p.end(), not_before.begin(), not_before.end());
      if (otherwise) {
        SLUICE_ASSIGN_OR_RETURN(Json r, Fail(*otherwise, p));
        if (f_.returns_set) return Json();
        last = r;
      } else {
        SLUICE_ASSIGN_OR_RETURN(Json r, Run(s, k, p));
        last = r;
      }
    }
    if (f_.returns_set) return Json();
    return Case(whens, *last);
  }

  // Runs the statements of `k` (innermost last) from state `s`, on the
  // path where the conditions `path` hold: the value of a scalar function
  // on this path; a set-returning function's rows go to rows_.
  Result<Json> Run(State s, std::vector<Frame> k, const std::vector<Json>& path) {
    if (++paths_ > kMaxPaths) {
      return Status::Unimplemented("more than " + std::to_string(kMaxPaths) +
                                   " paths through IF and CASE statements");
    }
    while (!k.empty()) {
      Frame& top = k.back();
      if (top.next >= top.stmts->size()) {
        k.pop_back();
        continue;
      }
      const Json& stmt = (*top.stmts)[top.next++];
      const std::string kind = stmt.begin().key();
      const Json& st = stmt.begin().value();
      if (kind == "PLpgSQL_stmt_block") {
        if (st.contains("body")) k.push_back(Frame{&st["body"], 0});
      } else if (kind == "PLpgSQL_stmt_assign") {
        SLUICE_RETURN_IF_ERROR(Assign(st, &s));
      } else if (kind == "PLpgSQL_stmt_if") {
        std::vector<std::pair<Json, const Json*>> branches;
        SLUICE_ASSIGN_OR_RETURN(Json c, ExprOf(st["cond"], s));
        branches.push_back({c, st.contains("then_body") ? &st["then_body"] : nullptr});
        if (st.contains("elsif_list")) {
          for (const Json& e : st["elsif_list"]) {
            const Json& b = e["PLpgSQL_if_elsif"];
            SLUICE_ASSIGN_OR_RETURN(Json ec, ExprOf(b["cond"], s));
            branches.push_back({ec, b.contains("stmts") ? &b["stmts"] : nullptr});
          }
        }
        if (st.contains("else_body")) branches.push_back({Json(), &st["else_body"]});
        return Branch(s, k, path, branches, std::nullopt);
      } else if (kind == "PLpgSQL_stmt_case") {
        if (st.contains("t_expr")) {
          const size_t t = st.value("t_varno", size_t{0});
          if (t >= s.size()) return Status::InvalidArgument("bad CASE variable");
          SLUICE_ASSIGN_OR_RETURN(s[t].expr, ExprOf(st["t_expr"], s));
          s[t].by_fields = false;
        }
        std::vector<std::pair<Json, const Json*>> branches;
        static const Json kNoCases = Json::array();
        // (References into the body: the branches point at their statements.)
        for (const Json& w : st.contains("case_when_list") ? st["case_when_list"] : kNoCases) {
          const Json& b = w["PLpgSQL_case_when"];
          SLUICE_ASSIGN_OR_RETURN(Json c, ExprOf(b["expr"], s));
          branches.push_back({c, b.contains("stmts") ? &b["stmts"] : nullptr});
        }
        if (st.value("have_else", false)) {
          branches.push_back({Json(), st.contains("else_stmts") ? &st["else_stmts"] : nullptr});
          return Branch(s, k, path, branches, std::nullopt);
        }
        return Branch(s, k, path, branches, TextConst("case not found"));
      } else if (kind == "PLpgSQL_stmt_return") {
        if (f_.returns_set) return Json();
        if (!st.contains("expr")) {
          // libpg_query ends every body with a RETURN without a value.
          return Fail(TextConst("control reached end of function without RETURN"), path);
        }
        SLUICE_ASSIGN_OR_RETURN(Json e, ExprOf(st["expr"], s));
        return Cast(std::move(e), return_type_);
      } else if (kind == "PLpgSQL_stmt_return_next") {
        if (!f_.returns_set)
          return Status::InvalidArgument("cannot use RETURN NEXT in a non-SETOF function");
        if (!st.contains("expr")) return Status::Unimplemented("RETURN NEXT without a value");
        SLUICE_ASSIGN_OR_RETURN(Json e, ExprOf(st["expr"], s));
        AddRows(Select(Json::array({Target(Cast(std::move(e), return_type_))})), path);
      } else if (kind == "PLpgSQL_stmt_return_query") {
        if (!f_.returns_set) {
          return Status::InvalidArgument("cannot use RETURN QUERY in a non-SETOF function");
        }
        SLUICE_ASSIGN_OR_RETURN(Json q, ExprOf(st["query"], s));
        AddRows(std::move(q), path);
      } else if (kind == "PLpgSQL_stmt_raise") {
        if (st.value("elog_level", kErrorLevel) < kErrorLevel) continue;  // a notice
        SLUICE_ASSIGN_OR_RETURN(Json message, RaiseMessage(st, s));
        return Fail(std::move(message), path);
      } else if (kind == "PLpgSQL_stmt_assert") {
        SLUICE_ASSIGN_OR_RETURN(Json c, ExprOf(st["cond"], s));
        Json message = TextConst("assertion failed");
        if (st.contains("message")) {
          SLUICE_ASSIGN_OR_RETURN(message, ExprOf(st["message"], s));
        }
        static const Json kNothing = Json::array();
        return Branch(s, k, path, {{c, &kNothing}}, message);
      } else {
        return Status::Unimplemented(kind + " in a plpgsql function");
      }
    }
    if (f_.returns_set) return Json();
    return Fail(TextConst("control reached end of function without RETURN"), path);
  }

  Status Assign(const Json& st, State* s) const {
    const size_t var = st.value("varno", size_t{0});
    if (var >= s->size()) return Status::InvalidArgument("bad assignment target");
    const Json& e = st["expr"]["PLpgSQL_expr"];
    SLUICE_ASSIGN_OR_RETURN(Json value, Expr(e["tree"], *s));
    const Json& target = e["target"];
    const Json& type = TypeOf(var);
    if (target.contains("ColumnRef")) {
      (*s)[var] = Var{type.is_null() ? value : Cast(std::move(value), type)};
      return Status::OK();
    }
    // rec['field'] := value, as RewriteFieldAssignments wrote it.
    std::string field;
    if (target.contains("A_Indirection")) {
      const Json& ind = target["A_Indirection"]["indirection"];
      if (ind.size() == 1 && ind[0].contains("A_Indices") && ind[0]["A_Indices"].contains("uidx") &&
          ind[0]["A_Indices"]["uidx"].contains("A_Const")) {
        field =
            ind[0]["A_Indices"]["uidx"]["A_Const"].value("sval", Json::object()).value("sval", "");
      }
    }
    if (field.empty()) return Status::Unimplemented("assignments to array elements");
    SLUICE_RETURN_IF_ERROR(SplitFields(s, var));
    SLUICE_ASSIGN_OR_RETURN(const std::vector<std::string> names, FieldNames(var));
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == field) {
        (*s)[var].fields[i] = std::move(value);
        return Status::OK();
      }
    }
    return Status::InvalidArgument("record \"" + vars_[var].value("name", "") +
                                   "\" has no field \"" + field + "\"");
  }

  const FunctionDef& f_;
  const Catalog& catalog_;
  const Json def_;
  const Json& vars_;
  Json return_type_;
  std::map<std::string, size_t> by_name_;
  std::set<std::string> labels_;
  std::vector<size_t> outs_;  // the OUT parameters' variables
  std::vector<Json> rows_;    // a set-returning function's row sources
  int paths_ = 0;
};

}  // namespace
}  // namespace plpgsql

Result<Json> CompilePlpgsqlFunction(const FunctionDef& f, const Catalog& catalog) {
  plpgsql::Compiler c(f, catalog);
  return c.Compile();
}

}  // namespace sluice::sql
