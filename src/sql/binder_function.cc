// SQL functions (CREATE FUNCTION ... LANGUAGE SQL): a function is inlined
// where it is called, as PostgreSQL inlines simple SQL functions: its body's
// parse tree with each parameter replaced by the call's argument (cast to
// the parameter's type), the result cast to the declared type. A body
// without FROM is an expression; one with FROM is a scalar subquery of its
// first row; a set-returning function (SETOF, TABLE) is a LATERAL subquery
// in FROM. Nothing is evaluated row by row that a query would not be.
#include <functional>
#include <set>

#include "sql/binder_internal.h"
#include "sql/plpgsql.h"
#include "sql/program.h"

namespace sluice::sql {

namespace {

using binding::Field;
using binding::Node;
using binding::Str;

std::string DefString(const Json& arg) {
  auto [kind, body] = Node(arg);
  if (kind == "String") return body->value("sval", "");
  if (kind == "TypeName") return Str(Field(*body, "names").back());
  return "";
}

}  // namespace

Result<FunctionDef> BindCreateFunction(std::string_view sql, const Json& body) {
  FunctionDef f;
  f.name = Str(body["funcname"].back());
  if (body.value("is_procedure", false)) {
    f.unsupported = "procedures";
    return f;
  }
  std::string language = "sql";
  std::vector<std::string> as;
  bool window = false;
  for (const Json& o : body.value("options", Json::array())) {
    const Json& d = o["DefElem"];
    const std::string name = d.value("defname", "");
    if (name == "language") {
      language = DefString(d["arg"]);
    } else if (name == "as") {
      for (const Json& item : d["arg"]["List"]["items"]) as.push_back(Str(item));
    } else if (name == "strict") {
      f.strict = d["arg"].contains("Boolean") && d["arg"]["Boolean"].value("boolval", false);
    } else if (name == "window") {
      window = d["arg"].contains("Boolean") && d["arg"]["Boolean"].value("boolval", false);
    }
  }
  for (char& c : language) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (window && language == "internal" && as.size() == 1) {
    // PostgreSQL's own window functions under another name (and parameter
    // names and defaults of the user's).
    static const std::pair<const char*, const char*> kWindowFunctions[] = {
        {"window_row_number", "row_number"},
        {"window_rank", "rank"},
        {"window_dense_rank", "dense_rank"},
        {"window_percent_rank", "percent_rank"},
        {"window_cume_dist", "cume_dist"},
        {"window_ntile", "ntile"},
        {"window_lag", "lag"},
        {"window_lag_with_offset", "lag"},
        {"window_lag_with_offset_and_default", "lag"},
        {"window_lead", "lead"},
        {"window_lead_with_offset", "lead"},
        {"window_lead_with_offset_and_default", "lead"},
        {"window_first_value", "first_value"},
        {"window_last_value", "last_value"},
        {"window_nth_value", "nth_value"}};
    for (const auto& [internal, builtin] : kWindowFunctions) {
      if (as[0] == internal) f.window_builtin = builtin;
    }
  }
  if (f.window_builtin.empty()) {
    if (window) {
      f.unsupported = "window functions written by users";
    } else if (language != "sql" && language != "plpgsql") {
      f.unsupported = "functions in language " + language;
    }
  }
  if (!f.unsupported.empty()) return f;
  bool table = false, out = false;
  for (const Json& p : body.value("parameters", Json::array())) {
    const Json& fp = p["FunctionParameter"];
    const std::string mode = fp.value("mode", "FUNC_PARAM_DEFAULT");
    if (mode == "FUNC_PARAM_TABLE" || mode == "FUNC_PARAM_OUT") {
      // RETURNS TABLE (a, b), or SETOF record with OUT a, OUT b: the
      // columns' names.
      (mode == "FUNC_PARAM_OUT" ? out : table) = true;
      f.columns.push_back(fp.value("name", ""));
      continue;
    }
    if (mode != "FUNC_PARAM_DEFAULT" && mode != "FUNC_PARAM_IN") {
      f.unsupported = "OUT, INOUT and VARIADIC parameters";
      return f;
    }
    std::string def;
    if (fp.contains("defexpr")) {
      Json e = fp["defexpr"];
      FillNegativeConstants(&e, sql);
      DropLocations(&e);
      def = e.dump();
    } else if (!f.arg_defaults.empty() && !f.arg_defaults.back().empty()) {
      return SqlError(sql, p,
                      "input parameters after one with a default value must also have defaults");
    }
    Json type = fp["argType"];
    DropLocations(&type);
    f.arg_names.push_back(fp.value("name", ""));
    f.arg_types.push_back(type.dump());
    f.arg_defaults.push_back(std::move(def));
  }
  if (!f.window_builtin.empty()) return f;
  if (body.contains("returnType")) {
    Json type = body["returnType"];
    f.returns_set = type.value("setof", false) || table;
    type.erase("setof");
    DropLocations(&type);
    f.return_type = type.dump();
  } else {
    f.unsupported = "functions without RETURNS";
    return f;
  }
  if (out && !f.returns_set) {
    f.unsupported = "OUT parameters of a function that returns one row";
    return f;
  }
  // RETURNS TABLE (a, b) names its columns; SETOF record does not.
  if (f.returns_set && f.columns.empty() &&
      Str(Json::parse(f.return_type)["names"].back()) == "record") {
    f.unsupported = "functions returning SETOF record";
    return f;
  }
  if (language == "plpgsql") {
    if (as.size() != 1) {
      f.unsupported = "functions without a body";
      return f;
    }
    SLUICE_RETURN_IF_ERROR(ParsePlpgsqlFunction(sql, body, as[0], &f));
    return f;
  }
  Json select;
  if (body.contains("sql_body")) {
    // RETURN expr, or BEGIN ATOMIC ... END.
    const Json& sb = body["sql_body"];
    if (sb.contains("ReturnStmt")) {
      select = Json{
          {"op", "SETOP_NONE"},
          {"limitOption", "LIMIT_OPTION_DEFAULT"},
          {"targetList",
           Json::array(
               {Json{{"ResTarget", {{"val", sb["ReturnStmt"]["returnval"]}, {"location", -1}}}}})}};
      FillNegativeConstants(&select, sql);
    } else {
      f.unsupported = "BEGIN ATOMIC function bodies";
      return f;
    }
  } else {
    if (as.size() != 1) {
      f.unsupported = "functions without a body of SQL";
      return f;
    }
    auto tree = ParseSql(as[0]);
    if (!tree.ok()) {
      return SqlError(sql, body, "the body of function " + f.name + ": " + tree.status().message());
    }
    const Json& stmts = (*tree)["stmts"];
    if (stmts.size() != 1 || !stmts[0]["stmt"].contains("SelectStmt")) {
      f.unsupported = "function bodies that are not one SELECT";
      return f;
    }
    select = stmts[0]["stmt"]["SelectStmt"];
    FillNegativeConstants(&select, as[0]);
  }
  DropLocations(&select);
  f.body = select.dump();
  return f;
}

namespace binding {

namespace {

// `n` with each of the function's parameters ($1, its name, or
// function.name) replaced by the matching argument, and name.field by the
// argument's field. A bare name that is a column of a relation the body
// reads is that column, and a qualifier that names one of the body's FROM
// items (`from_names`) is that item (PostgreSQL lets a column or a table
// hide a parameter).
void Substitute(Json* n, const FunctionDef& f, const std::vector<Json>& args,
                const std::set<std::string>& columns, const std::set<std::string>& from_names) {
  if (n->is_array()) {
    for (Json& x : *n) Substitute(&x, f, args, columns, from_names);
    return;
  }
  if (!n->is_object()) return;
  if (n->contains("ParamRef")) {
    const int64_t k = (*n)["ParamRef"].value("number", int64_t{0});
    if (k >= 1 && static_cast<size_t>(k) <= args.size()) *n = args[static_cast<size_t>(k - 1)];
    return;
  }
  if (n->contains("ColumnRef")) {
    const Json& fields = (*n)["ColumnRef"]["fields"];
    std::string name;
    if (fields.size() == 1 && columns.count(Str(fields[0])) == 0) name = Str(fields[0]);
    if (fields.size() == 2 && Str(fields[0]) == f.name) name = Str(fields[1]);
    // A plpgsql function's body names its parameters $1, $2, ... only.
    if (f.plpgsql) return;
    if (name.empty() && fields.size() >= 2 && from_names.count(Str(fields[0])) == 0) {
      for (size_t i = 0; i < f.arg_names.size(); ++i) {
        if (f.arg_names[i].empty() || f.arg_names[i] != Str(fields[0])) continue;
        // A composite parameter's field: (argument).field.
        Json indirection(fields.begin() + 1, fields.end());
        *n = Json{{"A_Indirection", {{"arg", args[i]}, {"indirection", std::move(indirection)}}}};
        return;
      }
    }
    if (name.empty()) return;
    for (size_t i = 0; i < f.arg_names.size(); ++i) {
      if (f.arg_names[i] == name) {
        *n = args[i];
        return;
      }
    }
    return;
  }
  for (auto it = n->begin(); it != n->end(); ++it) {
    Substitute(&it.value(), f, args, columns, from_names);
  }
}

Json Cast(Json arg, const std::string& type) {
  // anyelement, anyarray, ...: the argument's own type.
  if (IsPolymorphicType(Str(Json::parse(type)["names"].back()))) return arg;
  return Json{
      {"TypeCast", {{"arg", std::move(arg)}, {"typeName", Json::parse(type)}, {"location", -1}}}};
}

// The names of the columns of the tables and views that `n` reads.
void RelationColumns(const Json& n, const Catalog& catalog, std::set<std::string>* out) {
  if (n.is_array()) {
    for (const Json& x : n) RelationColumns(x, catalog, out);
    return;
  }
  if (!n.is_object()) return;
  if (n.contains("RangeVar")) {
    const std::string rel = n["RangeVar"].value("relname", "");
    if (const TableDef* t = catalog.FindTable(rel)) {
      for (const Column& c : t->columns) out->insert(c.name);
    } else if (const ViewDef* v = catalog.FindView(rel)) {
      for (const Column& c : v->query.plan->columns) out->insert(c.name);
    }
    return;
  }
  for (auto it = n.begin(); it != n.end(); ++it) RelationColumns(it.value(), catalog, out);
}

// The names that FROM items inside `n` are known by.
void FromNames(const Json& n, std::set<std::string>* out) {
  if (n.is_array()) {
    for (const Json& x : n) FromNames(x, out);
    return;
  }
  if (!n.is_object()) return;
  for (const char* kind : {"RangeVar", "RangeSubselect", "RangeFunction"}) {
    if (!n.contains(kind)) continue;
    const Json& item = n[kind];
    if (item.contains("alias")) out->insert(item["alias"].value("aliasname", ""));
    if (item.contains("relname")) out->insert(item.value("relname", ""));
  }
  for (auto it = n.begin(); it != n.end(); ++it) FromNames(it.value(), out);
}

void CollectRefs(Json* n, std::vector<Json*>* out) {
  if (n->is_object() && n->contains("ColumnRef")) {
    out->push_back(n);
    return;
  }
  if (n->is_object() || n->is_array()) {
    for (auto& x : *n) CollectRefs(&x, out);
  }
}

bool ReadsTables(const Json& select) {
  return select.contains("fromClause") || select.value("op", "SETOP_NONE") != "SETOP_NONE";
}

// Whether a query anywhere in `n` (a subquery too) reads tables.
bool ReadsTablesAnywhere(const Json& n) {
  if (n.is_object()) {
    if (n.contains("fromClause")) return true;
    for (auto it = n.begin(); it != n.end(); ++it) {
      if (ReadsTablesAnywhere(it.value())) return true;
    }
  } else if (n.is_array()) {
    for (const Json& x : n) {
      if (ReadsTablesAnywhere(x)) return true;
    }
  }
  return false;
}

}  // namespace

Result<Json> Binder::FunctionCallArgs(const FunctionDef& f, const Json& call, const Json& node) {
  const Json& given = call.value("args", Json::array());
  std::vector<Json> args(f.arg_types.size());
  std::vector<bool> set(args.size(), false);
  size_t positional = 0;
  bool named = false;
  auto no_such = [&]() {
    return SqlError(sql_, node,
                    "function " + f.name + " takes " + std::to_string(f.arg_types.size()) +
                        " argument" + (f.arg_types.size() == 1 ? "" : "s") + ", not " +
                        std::to_string(given.size()));
  };
  for (const Json& a : given) {
    if (!a.contains("NamedArgExpr")) {
      if (named) return SqlError(sql_, a, "positional argument cannot follow named argument");
      if (positional == args.size()) return no_such();
      args[positional] = a;
      set[positional++] = true;
      continue;
    }
    named = true;
    const std::string name = a["NamedArgExpr"].value("name", "");
    size_t i = 0;
    while (i < args.size() && f.arg_names[i] != name) ++i;
    if (i == args.size()) {
      return SqlError(sql_, a, "function " + f.name + " has no parameter named \"" + name + "\"");
    }
    if (set[i]) return SqlError(sql_, a, "argument name \"" + name + "\" used more than once");
    args[i] = a["NamedArgExpr"]["arg"];
    set[i] = true;
  }
  Json out = Json::array();
  for (size_t i = 0; i < args.size(); ++i) {
    if (!set[i]) {
      if (f.arg_defaults[i].empty()) {
        const std::string param =
            f.arg_names[i].empty() ? "$" + std::to_string(i + 1) : "\"" + f.arg_names[i] + "\"";
        return SqlError(sql_, node,
                        "function " + f.name + "(...) does not exist: no argument for parameter " +
                            param + ", which has no default");
      }
      args[i] = Json::parse(f.arg_defaults[i]);
    }
    out.push_back(std::move(args[i]));
  }
  return out;
}

Result<Json> Binder::InlineFunctionBody(const FunctionDef& f, const Json& call, const Json& node,
                                        const Ctx* ctx) {
  if (!f.unsupported.empty()) {
    return SqlUnsupported(sql_, node, f.unsupported + " (function " + f.name + ")");
  }
  if (!f.window_builtin.empty()) {
    return SqlError(sql_, node, "window function " + f.name + " requires an OVER clause");
  }
  if (call.value("agg_star", false) || call.contains("agg_distinct") ||
      call.contains("agg_order") || call.contains("agg_filter")) {
    return SqlError(sql_, node, f.name + " is not an aggregate function");
  }
  SLUICE_ASSIGN_OR_RETURN(const Json args_in, FunctionCallArgs(f, call, node));
  // Each inlined body is bound with inline_depth_ one higher (BindUserFunction,
  // BindQuery): a function that calls itself stops here.
  if (inline_depth_ >= 32) {
    return SqlUnsupported(sql_, node, "SQL functions calling each other more than 32 deep");
  }
  std::vector<Json> args;
  for (size_t i = 0; i < args_in.size(); ++i) args.push_back(Cast(args_in[i], f.arg_types[i]));
  Json select;
  if (f.plpgsql) {
    auto compiled = CompilePlpgsqlFunction(f, catalog_);
    if (!compiled.ok()) {
      const std::string message = compiled.status().message() + " (function " + f.name + ")";
      return compiled.status().code() == StatusCode::kUnimplemented
                 ? SqlUnsupported(sql_, node, message)
                 : SqlError(sql_, node, message);
    }
    select = std::move(*compiled);
  } else {
    select = Json::parse(f.body);
  }
  if (catalog_.has_aggregates()) select = MarkUserAggregates(catalog_, select);
  if (ReadsTables(select) || ReadsTablesAnywhere(select)) {
    // The arguments go where the body's own columns are in scope (of its
    // FROM, or of a subquery's): each of their columns is qualified by its
    // table, which must not be a name the body uses too.
    std::set<std::string> inside;
    FromNames(select, &inside);
    for (Json& a : args) {
      std::vector<Json*> refs;
      CollectRefs(&a, &refs);
      for (Json* r : refs) {
        Json& fields = (*r)["ColumnRef"]["fields"];
        std::string qualifier = fields.size() == 2 ? Str(fields[0]) : "";
        if (fields.size() == 1 && ctx != nullptr) {
          const std::string name = Str(fields[0]);
          for (const ScopeCol& c : ctx->scope) {
            if (!c.hidden && !c.qualified_only && c.name == name) qualifier = c.qualifier;
          }
          if (!qualifier.empty())
            fields.insert(fields.begin(), Json{{"String", {{"sval", qualifier}}}});
        }
        if (qualifier.empty() || inside.count(qualifier)) {
          return SqlUnsupported(sql_, node,
                                "an argument of SQL function " + f.name +
                                    " that reads a column its body's tables could hide",
                                "Qualify the argument's columns with a name the function's "
                                "body does not use.");
        }
      }
    }
  }
  std::set<std::string> columns;
  RelationColumns(select, catalog_, &columns);
  std::set<std::string> from_names;
  FromNames(select, &from_names);
  Substitute(&select, f, args, columns, from_names);
  return select;
}

Result<ExprPtr> Binder::BindUserFunction(const FunctionDef& f, const Json& call, const Json& node,
                                         Ctx& ctx) {
  if (f.returns_set && f.unsupported.empty()) {
    return SqlUnsupported(sql_, node, "a set-returning SQL function outside FROM",
                          "Call it in FROM.");
  }
  SLUICE_ASSIGN_OR_RETURN(Json select, InlineFunctionBody(f, call, node, &ctx));
  SLUICE_ASSIGN_OR_RETURN(const Json args, FunctionCallArgs(f, call, node));
  Json expr;
  bool simple = !ReadsTables(select) && select.value("targetList", Json::array()).size() == 1;
  for (const char* k : {"whereClause", "groupClause", "havingClause", "sortClause", "limitCount",
                        "distinctClause", "valuesLists", "windowClause", "withClause"}) {
    simple = simple && !select.contains(k);
  }
  simple = simple && !ContainsAggregate(select["targetList"]);
  if (simple) {
    expr = select["targetList"][0]["ResTarget"]["val"];
  } else {
    // The value of the first row, NULL if none (a function's result is
    // its first row's).
    if (!select.contains("limitCount")) {
      select["limitCount"] = Json{{"A_Const", {{"ival", {{"ival", 1}}}, {"location", -1}}}};
      select["limitOption"] = "LIMIT_OPTION_COUNT";
    }
    expr = Json{{"SubLink",
                 {{"subLinkType", "EXPR_SUBLINK"},
                  {"subselect", {{"SelectStmt", select}}},
                  {"location", Location(node)}}}};
  }
  expr = Cast(std::move(expr), f.return_type);
  if (f.strict && !args.empty()) {
    // STRICT: NULL if any argument is NULL.
    Json any_null = Json::array();
    for (const Json& a : args) {
      any_null.push_back(
          Json{{"NullTest", {{"arg", a}, {"nulltesttype", "IS_NULL"}, {"location", -1}}}});
    }
    Json cond =
        any_null.size() == 1
            ? any_null[0]
            : Json{{"BoolExpr", {{"boolop", "OR_EXPR"}, {"args", any_null}, {"location", -1}}}};
    expr = Json{
        {"CaseExpr",
         {{"args", Json::array({Json{
                       {"CaseWhen",
                        {{"expr", cond},
                         {"result", Cast(Json{{"A_Const", {{"isnull", true}}}}, f.return_type)},
                         {"location", -1}}}}})},
          {"defresult", expr},
          {"location", -1}}}};
  }
  ++inline_depth_;
  auto bound = BindExpr(expr, ctx);
  --inline_depth_;
  if (!bound.ok() && bound.status().message().rfind("line ", 0) != 0) {
    // An error of the inlined body, whose nodes have no place in the text:
    // at the call.
    const std::string message = bound.status().message() + " (function " + f.name + ")";
    return bound.status().code() == StatusCode::kUnimplemented
               ? Status::Unimplemented(FormatSqlError(sql_, Location(node), message))
               : SqlError(sql_, node, message);
  }
  return bound;
}

// The FROM items of `s` that call a set-returning SQL function, as LATERAL
// subqueries of its body (named as the call's alias says, or as the
// function); nullopt if there are none.
std::optional<Json> Binder::SqlSetCallsToFrom(const Json& s) const {
  if (!s.contains("targetList") || s.contains("groupClause") || s.contains("havingClause") ||
      ContainsAggregate(s["targetList"])) {
    return std::nullopt;
  }
  auto sql_set_function = [&](const Json& fc) {
    if (fc["funcname"].size() != 1) return false;
    const FunctionDef* f = catalog_.FindFunction(Str(fc["funcname"].back()));
    if (f == nullptr || !f->returns_set || !f->unsupported.empty()) return false;
    auto type = BindTypeName(sql_, Json::parse(f->return_type), &catalog_);
    return type.ok() && type->id() != TypeId::kRow;
  };
  std::vector<const Json*> calls;
  CollectCalls(s["targetList"], sql_set_function, &calls);
  if (calls.empty()) return std::nullopt;
  const std::string text = Canonical(*calls[0]);
  for (const Json* c : calls) {
    if (Canonical(*c) != text) return std::nullopt;  // different ones: refused where they stand
  }
  std::vector<const Json*> builtin;
  CollectSetCalls(s["targetList"], &builtin);
  if (!builtin.empty()) return std::nullopt;  // beside built-in ones: refused where they stand
  // A bare * would show the LATERAL item's column too: refused where the
  // call stands (t.* names the other items alone).
  for (const Json& t : s["targetList"]) {
    const Json* val = t.contains("ResTarget") ? &t["ResTarget"]["val"] : nullptr;
    if (val != nullptr && val->contains("ColumnRef") && (*val)["ColumnRef"]["fields"].size() == 1 &&
        (*val)["ColumnRef"]["fields"][0].contains("A_Star")) {
      return std::nullopt;
    }
  }
  // The LATERAL item and its one column, both named so that no column of
  // another FROM item is taken for it.
  constexpr const char* kItem = "?sql_set_call";
  Json out = s;
  for (Json& t : out["targetList"]) {
    // Named as the call was: `SELECT f(1)` is still `f`.
    if (t.contains("ResTarget") && !t["ResTarget"].contains("name")) {
      t["ResTarget"]["name"] = OutputName(t["ResTarget"]);
    }
  }
  for (const char* k : {"targetList", "sortClause", "distinctClause"}) {
    if (out.contains(k)) ReplaceByColumns(&out[k], {{text, kItem}});
  }
  Json list = {{"List", {{"items", Json::array({*calls[0]})}}}};
  Json alias = {{"aliasname", kItem},
                {"colnames", Json::array({Json{{"String", {{"sval", kItem}}}}})}};
  Json item = {
      {"RangeFunction", {{"lateral", true}, {"functions", Json::array({list})}, {"alias", alias}}}};
  if (!out.contains("fromClause")) out["fromClause"] = Json::array();
  out["fromClause"].push_back(std::move(item));
  return out;
}

Result<std::optional<Json>> Binder::InlineTableFunctions(const Json& s) {
  if (!s.contains("fromClause")) return std::optional<Json>();
  bool any = false;
  std::function<Result<Json>(const Json&)> rewrite = [&](const Json& item) -> Result<Json> {
    auto [kind, body] = Node(item);
    if (kind == "JoinExpr") {
      Json out = item;
      SLUICE_ASSIGN_OR_RETURN(out["JoinExpr"]["larg"], rewrite((*body)["larg"]));
      SLUICE_ASSIGN_OR_RETURN(out["JoinExpr"]["rarg"], rewrite((*body)["rarg"]));
      return out;
    }
    if (kind != "RangeFunction" || (*body)["functions"].size() != 1) return item;
    const Json& call = (*body)["functions"][0]["List"]["items"][0];
    if (!call.contains("FuncCall")) return item;
    const FunctionDef* f = catalog_.FindFunction(Str(call["FuncCall"]["funcname"].back()));
    if (f == nullptr) return item;
    if (f->unsupported.empty() && !f->returns_set) {
      // One row: the call's value, or a composite value's fields.
      if (body->value("ordinality", false)) {
        return SqlUnsupported(sql_, item, "WITH ORDINALITY over a SQL function");
      }
      SLUICE_ASSIGN_OR_RETURN(SqlType type,
                              BindTypeName(sql_, Json::parse(f->return_type), &catalog_));
      Json alias = body->contains("alias") ? (*body)["alias"] : Json{{"aliasname", f->name}};
      Json targets = Json::array(), names = Json::array();
      if (type.id() == TypeId::kRow) {
        for (const std::string& field : type.field_names()) {
          targets.push_back(
              Json{{"ResTarget",
                    {{"val",
                      {{"A_Indirection",
                        {{"arg", call},
                         {"indirection", Json::array({Json{{"String", {{"sval", field}}}}})}}}}},
                     {"location", -1}}}});
          names.push_back(Json{{"String", {{"sval", field}}}});
        }
      } else {
        targets.push_back(Json{{"ResTarget", {{"val", call}, {"location", -1}}}});
        names.push_back(Json{{"String", {{"sval", alias["aliasname"]}}}});
      }
      if (!alias.contains("colnames")) alias["colnames"] = names;
      Json select = {
          {"targetList", targets}, {"op", "SETOP_NONE"}, {"limitOption", "LIMIT_OPTION_DEFAULT"}};
      any = true;
      return Json{{"RangeSubselect",
                   {{"lateral", true}, {"subquery", {{"SelectStmt", select}}}, {"alias", alias}}}};
    }
    if (body->value("ordinality", false)) {
      return SqlUnsupported(sql_, item, "WITH ORDINALITY over a SQL function");
    }
    SLUICE_ASSIGN_OR_RETURN(Json select, InlineFunctionBody(*f, call["FuncCall"], call, nullptr));
    Json alias = body->contains("alias") ? (*body)["alias"] : Json{{"aliasname", f->name}};
    if (!alias.contains("colnames")) {
      Json names = Json::array();
      for (const std::string& c : f->columns) names.push_back(Json{{"String", {{"sval", c}}}});
      // SETOF a scalar type: one column, named as the function.
      if (f->columns.empty()) names.push_back(Json{{"String", {{"sval", alias["aliasname"]}}}});
      alias["colnames"] = names;
    }
    any = true;
    return Json{{"RangeSubselect",
                 {{"lateral", true}, {"subquery", {{"SelectStmt", select}}}, {"alias", alias}}}};
  };
  Json out = s;
  for (Json& item : out["fromClause"]) {
    SLUICE_ASSIGN_OR_RETURN(item, rewrite(item));
  }
  if (!any) return std::optional<Json>();
  return std::optional<Json>(std::move(out));
}

}  // namespace binding
}  // namespace sluice::sql
