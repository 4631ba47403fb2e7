// Aggregates written by users (CREATE AGGREGATE), as PostgreSQL defines
// them: the state starts as INITCOND cast to STYPE (NULL without one); each
// row of a group, in the call's ORDER BY if it has one, makes it
// sfunc(state, args...); the result is finalfunc(state), or the state. With
// a STRICT sfunc, rows with a NULL argument are skipped, and without
// INITCOND the first row's first argument is the first state.
//
// An sfunc has no inverse, so a delete cannot be taken out of a state.
// Instead the aggregate keeps what ARRAY_AGG keeps: every group's rows
// (their arguments, as ROW(args...)), in the order the call asks for, in the
// aggregate operator's integral. A call is
//
//   fold(init, array_agg(ROW(args...) ORDER BY ...) FILTER (WHERE ...))
//
// where fold (ExprKind::kFold) applies the transition to each element of
// the array in turn, then the final function to the last state. Each step,
// a group that changed has its array rebuilt and folded again in full: the
// cost of a change is the size of the groups it touches, not the table's.
// Over a window frame, the window operator collects the frame's rows the
// same way (MSFUNC and MINVFUNC are not needed: every frame is folded from
// its start). Both paths are already distributed over workers and hosts.
//
// The transition and final functions are SQL functions (inlined, as any
// call of one is), built-in functions called by name, or PostgreSQL's names
// of its operators' functions (int4pl, int4_sum, textcat, ...), which are
// written here as SQL.
#include <set>

#include "sql/binder_internal.h"
#include "sql/program.h"
#include "sql/sql_text.h"

namespace sluice::sql {

namespace {

using binding::Field;
using binding::Node;
using binding::Str;

// The name a DefElem's argument gives: a function (sfunc = f, or
// f(int8, int4): the argument types are not needed), a type, a word.
std::string DefName(const Json& arg) {
  auto [kind, body] = Node(arg);
  if (kind == "TypeName") return Str(Field(*body, "names").back());
  if (kind == "String") return body->value("sval", "");
  if (kind == "List") return Str(Field(*body, "items").back());
  return "";
}

// A type's parse tree, in JSON text, from a DefElem's argument: a TypeName,
// or a type's name as a string (the old syntax's BASETYPE = 'int4').
Result<std::string> DefType(std::string_view sql, const Json& def) {
  const Json& arg = Field(def, "arg");
  Json type;
  if (arg.contains("TypeName")) {
    type = arg["TypeName"];
  } else if (arg.contains("String")) {
    type = Json{{"names", Json::array({arg})}, {"typemod", -1}, {"location", -1}};
  } else {
    return SqlError(sql, def, "aggregate " + def.value("defname", "") + " must be a type");
  }
  DropLocations(&type);
  return type.dump();
}

// INITCOND = '0' or INITCOND = 0: the text either way.
std::string InitCond(const Json& arg) {
  auto [kind, value] = Node(arg);
  if (kind == "String") return value->value("sval", "");
  if (kind == "Integer") return std::to_string(value->value("ival", 0));
  if (kind == "Float") return value->value("fval", "");
  return DefName(arg);
}

}  // namespace

Result<AggregateDef> BindCreateAggregate(const Catalog& catalog, std::string_view sql,
                                         const Json& body) {
  AggregateDef a;
  a.name = Str(body["defnames"].back());
  const Json& args = Field(body, "args");
  if (args.is_array() && !args.empty()) {
    for (const Json& p : args[0].value("List", Json::object()).value("items", Json::array())) {
      const Json& fp = p["FunctionParameter"];
      const std::string mode = fp.value("mode", "FUNC_PARAM_DEFAULT");
      if (mode != "FUNC_PARAM_DEFAULT" && mode != "FUNC_PARAM_IN") {
        a.unsupported = "aggregates with VARIADIC arguments";
      }
      Json type = fp["argType"];
      DropLocations(&type);
      a.arg_types.push_back(type.dump());
    }
    // The number of direct arguments of an ordered-set aggregate (name(x
    // ORDER BY y)). The parse tree gives the same for name(ORDER BY y) as
    // for name(y): that one is taken as name(y), and a call of it WITHIN
    // GROUP is refused.
    if (args.size() > 1 && args[1].contains("Integer") &&
        args[1]["Integer"].value("ival", -1) > 0) {
      a.unsupported = "ordered-set aggregates (CREATE AGGREGATE ... ORDER BY)";
    }
  }
  bool has_sfunc = false, has_stype = false;
  for (const Json& d : body.value("definition", Json::array())) {
    const Json& def = d["DefElem"];
    const std::string name = AsciiLower(def.value("defname", ""));
    const Json& arg = Field(def, "arg");
    if (name == "sfunc" || name == "sfunc1") {
      a.sfunc = DefName(arg);
      has_sfunc = true;
    } else if (name == "stype" || name == "stype1") {
      SLUICE_ASSIGN_OR_RETURN(a.state_type, DefType(sql, def));
      has_stype = true;
    } else if (name == "finalfunc") {
      a.final_func = DefName(arg);
    } else if (name == "initcond" || name == "initcond1") {
      a.initcond = InitCond(arg);
    } else if (name == "msfunc") {
      a.msfunc = DefName(arg);
    } else if (name == "mstype") {
      SLUICE_ASSIGN_OR_RETURN(a.mstate_type, DefType(sql, def));
    } else if (name == "mfinalfunc") {
      a.mfinal_func = DefName(arg);
    } else if (name == "minitcond") {
      a.minitcond = InitCond(arg);
    } else if (name == "basetype") {
      // The old syntax's one argument type; 'ANY' for none (as name(*)).
      SLUICE_ASSIGN_OR_RETURN(std::string type, DefType(sql, def));
      if (AsciiLower(DefName(arg)) != "any") a.arg_types.push_back(type);
    } else if (name == "finalfunc_extra" || name == "mfinalfunc_extra") {
      a.unsupported = "aggregates with FINALFUNC_EXTRA";
    } else if (name == "hypothetical") {
      a.unsupported = "hypothetical-set aggregates";
    } else if (name == "finalfunc_modify" || name == "mfinalfunc_modify") {
      const std::string how = AsciiLower(DefName(arg));
      if (how != "read_only" && how != "shareable" && how != "read_write") {
        return SqlError(sql, def,
                        "parameter \"" + name + "\" must be READ_ONLY, SHAREABLE, or READ_WRITE");
      }
    }
    // COMBINEFUNC, SERIALFUNC, DESERIALFUNC, PARALLEL, SSPACE, MSSPACE,
    // SORTOP and MINVFUNC change how PostgreSQL computes the same result:
    // every state here is folded from a group's (or frame's) first row.
  }
  if (!has_stype) return SqlError(sql, body, "aggregate stype must be specified");
  if (!has_sfunc) return SqlError(sql, body, "aggregate sfunc must be specified");
  if (!a.msfunc.empty() && a.mstate_type.empty()) {
    return SqlError(sql, body, "aggregate mstype must be specified when aggregate msfunc is");
  }
  // A function Sluice cannot run (another language than SQL) makes the
  // aggregate one it cannot compute, for the same reason.
  for (const std::string& fname : {a.sfunc, a.final_func, a.msfunc, a.mfinal_func}) {
    const FunctionDef* f = catalog.FindFunction(fname);
    if (a.unsupported.empty() && f != nullptr && !f->unsupported.empty()) {
      a.unsupported = f->unsupported + " (function " + fname + ")";
    }
  }
  if (!a.unsupported.empty()) return a;
  binding::Binder b(catalog, sql);
  SLUICE_RETURN_IF_ERROR(b.CheckUserAggregate(a, body));
  return a;
}

namespace binding {

bool IsPolymorphicType(const std::string& name) {
  return name == "anyelement" || name == "anyarray" || name == "anynonarray" ||
         name == "anycompatible" || name == "anycompatiblearray" ||
         name == "anycompatiblenonarray" || name == "any";
}

namespace {

std::string TypeNameOf(const std::string& type_tree) {
  return Str(Json::parse(type_tree)["names"].back());
}

Json ColumnRefOf(const std::string& name) {
  return Json{{"ColumnRef",
               {{"fields", Json::array({Json{{"String", {{"sval", name}}}}})}, {"location", -1}}}};
}

// PostgreSQL's functions behind its operators, which aggregates name as
// their sfunc: each as the SQL function it is.
struct BuiltinTransition {
  const char* name;
  const char* args;  // the parameters' types, comma-separated
  const char* result;
  bool strict;
  const char* body;  // an expression of $1, $2
};
constexpr BuiltinTransition kBuiltinTransitions[] = {
    {"int2pl", "int2, int2", "int2", true, "$1 + $2"},
    {"int4pl", "int4, int4", "int4", true, "$1 + $2"},
    {"int8pl", "int8, int8", "int8", true, "$1 + $2"},
    {"float4pl", "float4, float4", "float4", true, "$1 + $2"},
    {"float8pl", "float8, float8", "float8", true, "$1 + $2"},
    {"numeric_add", "numeric, numeric", "numeric", true, "$1 + $2"},
    {"int4mul", "int4, int4", "int4", true, "$1 * $2"},
    {"int8mul", "int8, int8", "int8", true, "$1 * $2"},
    {"float8mul", "float8, float8", "float8", true, "$1 * $2"},
    {"int4larger", "int4, int4", "int4", true, "greatest($1, $2)"},
    {"int8larger", "int8, int8", "int8", true, "greatest($1, $2)"},
    {"float8larger", "float8, float8", "float8", true, "greatest($1, $2)"},
    {"int4smaller", "int4, int4", "int4", true, "least($1, $2)"},
    {"int8smaller", "int8, int8", "int8", true, "least($1, $2)"},
    {"float8smaller", "float8, float8", "float8", true, "least($1, $2)"},
    {"text_larger", "text, text", "text", true, "greatest($1, $2)"},
    {"text_smaller", "text, text", "text", true, "least($1, $2)"},
    {"textcat", "text, text", "text", true, "$1 || $2"},
    {"int8inc", "int8", "int8", true, "$1 + 1"},
    {"int2_sum", "int8, int2", "int8", false,
     "CASE WHEN $1 IS NULL THEN $2::int8 WHEN $2 IS NULL THEN $1 ELSE $1 + $2 END"},
    {"int4_sum", "int8, int4", "int8", false,
     "CASE WHEN $1 IS NULL THEN $2::int8 WHEN $2 IS NULL THEN $1 ELSE $1 + $2 END"},
    {"int8_sum", "numeric, int8", "numeric", false,
     "CASE WHEN $1 IS NULL THEN $2::numeric WHEN $2 IS NULL THEN $1 ELSE $1 + $2 END"},
};

// The SQL function that stands for a built-in transition function.
std::optional<FunctionDef> BuiltinTransitionDef(const std::string& name) {
  for (const BuiltinTransition& t : kBuiltinTransitions) {
    if (name != t.name) continue;
    auto type_tree = [](const std::string& type) {
      auto tree = ParseSql("SELECT NULL::" + type);
      Json n = (*tree)["stmts"][0]["stmt"]["SelectStmt"]["targetList"][0]["ResTarget"]["val"]
                      ["TypeCast"]["typeName"];
      DropLocations(&n);
      return n.dump();
    };
    FunctionDef f;
    f.name = t.name;
    std::string args = t.args;
    for (size_t at = 0; at < args.size();) {
      size_t end = args.find(',', at);
      if (end == std::string::npos) end = args.size();
      std::string type = args.substr(at, end - at);
      type.erase(0, type.find_first_not_of(' '));
      f.arg_names.push_back("");
      f.arg_types.push_back(type_tree(type));
      f.arg_defaults.push_back("");
      at = end + 1;
    }
    f.return_type = type_tree(t.result);
    f.strict = t.strict;
    auto body = ParseSql(std::string("SELECT ") + t.body);
    Json select = (*body)["stmts"][0]["stmt"]["SelectStmt"];
    DropLocations(&select);
    f.body = select.dump();
    return f;
  }
  return std::nullopt;
}

// `e` with column `column` replaced by `with` (a kFold's transition is not
// among its arguments, so its own columns stay).
ExprPtr ReplaceColumn(const ExprPtr& e, int column, const ExprPtr& with) {
  if (e->kind == ExprKind::kColumn) return e->column == column ? with : e;
  if (e->args.empty()) return e;
  auto copy = std::make_shared<Expr>(*e);
  for (ExprPtr& a : copy->args) a = ReplaceColumn(a, column, with);
  return copy;
}

// Whether a bound call of a built-in function is strict: its outermost call
// below casts.
bool IsStrictCall(const ExprPtr& e) {
  const Expr* x = e.get();
  while (x->kind == ExprKind::kCast && !x->args.empty()) x = x->args[0].get();
  return x->kind != ExprKind::kCall || x->strict;
}

constexpr const char* kStateColumn = "?state";

// The aggregate PostgreSQL computes instead over a window whose frame's
// start moves: its moving-aggregate functions.
AggregateDef MovingAggregate(const AggregateDef& a) {
  AggregateDef m = a;
  m.sfunc = a.msfunc;
  m.state_type = a.mstate_type;
  m.final_func = a.mfinal_func;
  m.initcond = a.minitcond;
  return m;
}

}  // namespace

Json MarkUserAggregates(const Catalog& catalog, const Json& n) {
  if (n.is_array()) {
    Json out = Json::array();
    for (const Json& x : n) out.push_back(MarkUserAggregates(catalog, x));
    return out;
  }
  if (!n.is_object()) return n;
  Json out = Json::object();
  for (auto it = n.begin(); it != n.end(); ++it) {
    out[it.key()] = MarkUserAggregates(catalog, it.value());
  }
  if (n.size() == 1 && n.contains("FuncCall")) {
    Json& names = out["FuncCall"]["funcname"];
    const bool unqualified = names.size() == 1 || (names.size() == 2 && Str(names[0]) == "public");
    if (unqualified && catalog.FindAggregate(Str(names.back())) != nullptr) {
      names = Json::array({Json{{"String", {{"sval", kUserAggregatePrefix + Str(names.back())}}}}});
    }
  }
  return out;
}

Result<ExprPtr> Binder::BindAggregateFunction(const std::string& fname,
                                              const std::vector<std::string>& params, Ctx& ctx,
                                              const Json& node, bool* strict) {
  Json call{{"funcname", Json::array({Json{{"String", {{"sval", fname}}}}})},
            {"args", Json::array()},
            {"funcformat", "COERCE_EXPLICIT_CALL"},
            {"location", Location(node)}};
  for (const std::string& p : params) call["args"].push_back(ColumnRefOf(p));
  const ColumnReads reads = reads_;
  Result<ExprPtr> e = [&]() -> Result<ExprPtr> {
    if (const FunctionDef* f = catalog_.FindFunction(fname)) {
      // Called as a query calls it.
      *strict = f->strict;
      return BindExpr(Json{{"FuncCall", call}}, ctx);
    }
    if (std::optional<FunctionDef> builtin = BuiltinTransitionDef(fname)) {
      *strict = builtin->strict;
      return BindUserFunction(*builtin, call, node, ctx);
    }
    SLUICE_ASSIGN_OR_RETURN(ExprPtr bound, BindExpr(Json{{"FuncCall", call}}, ctx));
    *strict = IsStrictCall(bound);
    return bound;
  }();
  reads_ = reads;
  SLUICE_RETURN_IF_ERROR(e.status());
  if (!ctx.pending.empty()) {
    return SqlUnsupported(
        sql_, node, "a transition or final function that reads tables (function " + fname + ")");
  }
  return e;
}

Result<ExprPtr> Binder::UserAggregateFold(const AggregateDef& a, const std::vector<SqlType>& inputs,
                                          ExprPtr list, const Json& node, bool* strict_out) {
  // A polymorphic state type is the first argument's type, or an array of it.
  SqlType stype;
  const std::string stype_name = TypeNameOf(a.state_type);
  if (IsPolymorphicType(stype_name)) {
    if (inputs.empty()) {
      return SqlError(sql_, node, "cannot determine transition data type of " + a.name);
    }
    const SqlType& first = inputs[0];
    const bool array = stype_name.find("array") != std::string::npos;
    if (array && first.id() == TypeId::kArray) {
      stype = first;
    } else {
      stype = array ? SqlType::Array(first.WithNullable(true)) : first;
    }
  } else {
    SLUICE_ASSIGN_OR_RETURN(stype, BindTypeName(sql_, Json::parse(a.state_type), &catalog_));
  }
  stype = stype.WithNullable(true);
  Value init = Value::Null();
  if (a.initcond) {
    Status s = CastValue(Value::String(*a.initcond), SqlType::Varchar(), stype, &init);
    if (!s.ok()) return SqlError(sql_, node, s.message());
  }
  Ctx t;
  t.scope.push_back({"", kStateColumn, stype});
  std::vector<std::string> params = {kStateColumn};
  for (size_t i = 0; i < inputs.size(); ++i) {
    params.push_back("?input" + std::to_string(i + 1));
    t.scope.push_back({"", params.back(), inputs[i].WithNullable(true)});
  }
  bool strict = false;
  SLUICE_ASSIGN_OR_RETURN(ExprPtr transition,
                          BindAggregateFunction(a.sfunc, params, t, node, &strict));
  if (CommonType(transition->type, stype).ok() || transition->type.id() == stype.id()) {
    transition = MakeCast(transition, stype);
  } else {
    return SqlError(
        sql_, node,
        "return type of transition function " + a.sfunc + " is not " + PgTypeName(stype));
  }
  if (strict && !a.initcond && inputs.empty()) {
    return SqlError(sql_, node,
                    "must not omit initial value when transition function is strict and "
                    "transition type is not compatible with input type");
  }
  auto fold = std::make_shared<Expr>();
  fold->kind = ExprKind::kFold;
  fold->type = stype;
  fold->args = {MakeLiteral(init, stype), std::move(list)};
  fold->transition = transition;
  fold->fold_from_first = strict && !a.initcond;
  // A STRICT transition's rows with a NULL argument are not in the list at
  // all (the caller filters them out), so only its first state is left to
  // the fold.
  if (strict_out != nullptr) *strict_out = strict;
  if (a.final_func.empty()) return ExprPtr(fold);
  Ctx f;
  f.scope.push_back({"", kStateColumn, stype});
  bool final_strict = false;
  SLUICE_ASSIGN_OR_RETURN(
      ExprPtr final, BindAggregateFunction(a.final_func, {kStateColumn}, f, node, &final_strict));
  // The final function, part of the fold: the fold is computed once
  // however often the function reads the state.
  auto finished = std::make_shared<Expr>(*fold);
  finished->type = final->type.WithNullable(true);
  finished->finish = final;
  return ExprPtr(finished);
}

Status Binder::CheckUserAggregate(const AggregateDef& a, const Json& node) {
  std::vector<SqlType> inputs;
  for (const std::string& t : a.arg_types) {
    if (IsPolymorphicType(TypeNameOf(t))) return Status::OK();  // known at each call
    SLUICE_ASSIGN_OR_RETURN(SqlType type, BindTypeName(sql_, Json::parse(t), &catalog_));
    inputs.push_back(type);
  }
  std::vector<SqlType> fields;
  for (const SqlType& t : inputs) fields.push_back(t.WithNullable(true));
  if (fields.empty()) fields.push_back(SqlType::Integer());
  std::vector<std::string> names;
  for (size_t i = 0; i < fields.size(); ++i) names.push_back("f" + std::to_string(i + 1));
  const SqlType list = SqlType::Array(SqlType::Row(names, fields, false));
  SLUICE_RETURN_IF_ERROR(
      UserAggregateFold(a, inputs, MakeLiteral(Value::Null(), list), node, nullptr).status());
  if (a.msfunc.empty()) return Status::OK();
  return UserAggregateFold(MovingAggregate(a), inputs, MakeLiteral(Value::Null(), list), node,
                           nullptr)
      .status();
}

Result<std::vector<ExprPtr>> Binder::UserAggregateArgs(const AggregateDef& a, const Json& body,
                                                       const Json& node, Ctx& ctx) {
  std::vector<ExprPtr> args;
  const bool star = body.value("agg_star", false);
  for (const Json& x : body.value("args", Json::array())) {
    if (x.contains("NamedArgExpr")) {
      return SqlUnsupported(sql_, x, "named arguments of an aggregate");
    }
    SLUICE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(x, ctx));
    args.push_back(std::move(e));
  }
  auto signature = [&]() {
    std::string s = a.name + "(";
    if (star) s += "*";
    for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + PgTypeName(args[i]->type);
    return s + ")";
  };
  if (star != a.arg_types.empty() || args.size() != a.arg_types.size()) {
    if (star && a.arg_types.empty()) return args;
    return SqlError(sql_, node, "function " + signature() + " does not exist");
  }
  for (size_t i = 0; i < args.size(); ++i) {
    ExprPtr& e = args[i];
    const Json type = Json::parse(a.arg_types[i]);
    if (IsPolymorphicType(Str(type["names"].back()))) {
      if (e->kind == ExprKind::kLiteral && e->untyped) e = MakeCast(e, SqlType::Varchar());
      continue;
    }
    SLUICE_ASSIGN_OR_RETURN(SqlType declared, BindTypeName(sql_, type, &catalog_));
    // PostgreSQL takes an argument that casts to the parameter's type
    // implicitly: a type that it widens to it.
    if (!(e->kind == ExprKind::kLiteral && e->untyped) && e->type.id() != declared.id()) {
      auto common = CommonType(e->type, declared);
      if (!common.ok() || common->id() != declared.id()) {
        return SqlError(sql_, node, "function " + signature() + " does not exist");
      }
    }
    e = MakeCast(e, declared);
  }
  return args;
}

namespace {

// The element ROW(args...) of a call's list; ROW(1) for name(*), whose rows
// carry no value.
ExprPtr InputRow(const std::vector<ExprPtr>& args) {
  if (args.empty()) return MakeRow({MakeLiteral(Value::Int(1), SqlType::Integer(false))});
  return MakeRow(args);
}

// Rows whose arguments are all non-NULL, for a STRICT transition function,
// and the call's FILTER: the condition a row must meet to be aggregated
// (null if every row is).
ExprPtr RowsTaken(const std::vector<ExprPtr>& args, bool strict, ExprPtr filter) {
  std::vector<ExprPtr> conds;
  if (filter) conds.push_back(std::move(filter));
  if (strict) {
    for (const ExprPtr& x : args) {
      if (!x->type.nullable() && x->kind != ExprKind::kLiteral) continue;
      conds.push_back(MakeNode(ExprKind::kIsNull, SqlType::Boolean(false), {x}, true));
    }
  }
  return AndAll(conds);
}

}  // namespace

Result<ExprPtr> Binder::BindBooleanFilter(const Json& filter, Ctx& ctx) {
  SLUICE_ASSIGN_OR_RETURN(ExprPtr f, BindExpr(filter, ctx));
  if (f->kind == ExprKind::kLiteral && f->untyped) {
    Value b;
    if (!CastValue(f->value, SqlType::Varchar(), SqlType::Boolean(), &b).ok())
      return SqlError(sql_, filter, "argument of FILTER must be type boolean");
    f = MakeLiteral(std::move(b), SqlType::Boolean());
  }
  if (f->type.id() != TypeId::kBoolean) {
    return SqlError(sql_, filter,
                    "argument of FILTER must be type boolean, not type " + PgTypeName(f->type));
  }
  return f;
}

Result<ExprPtr> Binder::BindUserAggregate(const std::string& name, const Json& body,
                                          const Json& node, Ctx& ctx) {
  const AggregateDef* a = catalog_.FindAggregate(UserAggregateName(name));
  if (a == nullptr)
    return SqlError(sql_, node, "function " + UserAggregateName(name) + " does not exist");
  if (!a->unsupported.empty()) {
    return SqlUnsupported(sql_, node, a->unsupported + " (aggregate " + a->name + ")");
  }
  if (ctx.aggs == nullptr) return SqlError(sql_, node, "aggregate functions are not allowed here");
  if (ctx.in_aggregate) return SqlError(sql_, node, "aggregate function calls cannot be nested");
  const bool distinct = body.value("agg_distinct", false);
  const Json& order = body.value("agg_order", Json::array());
  const ColumnReads reads_before = reads_;
  std::vector<ExprPtr> args, keys;
  ExprPtr filter;
  bool desc = false;
  ctx.in_aggregate = true;
  Status st = [&]() -> Status {
    SLUICE_ASSIGN_OR_RETURN(args, UserAggregateArgs(*a, body, node, ctx));
    if (body.contains("agg_filter")) {
      SLUICE_ASSIGN_OR_RETURN(filter, BindBooleanFilter(body["agg_filter"], ctx));
    }
    for (size_t i = 0; i < order.size(); ++i) {
      const Json& by = order[i]["SortBy"];
      if (by.contains("useOp")) return SqlUnsupported(sql_, by, "ORDER BY ... USING");
      SLUICE_ASSIGN_OR_RETURN(ExprPtr k, BindExpr(by["node"], ctx));
      if (k->kind == ExprKind::kLiteral && k->untyped) k = MakeCast(k, SqlType::Varchar());
      const SortKey sk = SortKeyOf(by, 0);
      if (i == 0) desc = sk.desc;
      if (sk.desc != desc) {
        return SqlUnsupported(sql_, by["node"],
                              "an aggregate ordered by keys in different directions");
      }
      // NULLs the other way than the key's direction puts them: ordered by
      // (key IS NOT NULL, key).
      if (sk.nulls_first != sk.desc) {
        k = MakeRow({MakeNode(ExprKind::kIsNull, SqlType::Boolean(false), {k}, true), k});
      }
      keys.push_back(std::move(k));
    }
    return Status::OK();
  }();
  ctx.in_aggregate = false;
  SLUICE_RETURN_IF_ERROR(st);
  if (reads_.outer > reads_before.outer && reads_.own == reads_before.own) {
    return SqlUnsupported(sql_, node,
                          "An aggregate inside a subquery that reads only the enclosing "
                          "query's columns");
  }
  std::vector<SqlType> inputs;
  for (const ExprPtr& x : args) inputs.push_back(x->type);
  // The fold first, its list to come: whether the transition is strict
  // decides which rows the list holds.
  bool strict = false;
  SLUICE_ASSIGN_OR_RETURN(ExprPtr fold, UserAggregateFold(*a, inputs, nullptr, node, &strict));
  AggCall call;
  call.kind = AggKind::kArrayAgg;
  call.arg = InputRow(args);
  call.filter = RowsTaken(args, strict, filter);
  call.distinct = distinct;
  if (distinct && !keys.empty()) {
    // The distinct rows come in their own order: the call's must be that.
    if (keys.size() != 1 || args.size() != 1 || Key(*keys[0]) != Key(*args[0]) || desc) {
      return SqlUnsupported(sql_, order[0],
                            "an aggregate with DISTINCT ordered by other than its argument");
    }
    keys.clear();
  }
  if (keys.empty() && !distinct && ctx.InputOrderOneWay()) {
    // Over a subquery with an ORDER BY: in its order, as PostgreSQL takes
    // the rows.
    for (const Ctx::InputOrderKey& k : ctx.input_order) keys.push_back(k.key);
    desc = ctx.input_order[0].desc;
  }
  if (!keys.empty()) {
    const ExprPtr key = keys.size() == 1 ? keys[0] : MakeRow(std::move(keys));
    call.arg = MakeRow({key, call.arg});
    call.keyed_order = true;
    call.desc = desc;
  }
  SLUICE_ASSIGN_OR_RETURN(ExprPtr list, AddAggregate(std::move(call), ctx, node));
  auto out = std::make_shared<Expr>(*fold);
  out->args[1] = std::move(list);
  return ExprPtr(out);
}

Result<WindowCall> Binder::BindUserWindowAggregate(const Json& node, const Json& body,
                                                   const std::string& name, const Json& over,
                                                   const std::vector<ExprPtr>& order_exprs,
                                                   Ctx& ctx) {
  const AggregateDef* a = catalog_.FindAggregate(UserAggregateName(name));
  if (a == nullptr)
    return SqlError(sql_, node, "function " + UserAggregateName(name) + " does not exist");
  if (!a->unsupported.empty()) {
    return SqlUnsupported(sql_, node, a->unsupported + " (aggregate " + a->name + ")");
  }
  SLUICE_ASSIGN_OR_RETURN(std::vector<ExprPtr> args, UserAggregateArgs(*a, body, node, ctx));
  WindowCall c;
  SLUICE_ASSIGN_OR_RETURN(c.frame, BindFrame(over, order_exprs, node, ctx));
  ExprPtr filter;
  if (body.contains("agg_filter")) {
    if (ContainsAggregate(body["agg_filter"])) {
      return SqlError(sql_, body["agg_filter"], "aggregate functions are not allowed in FILTER");
    }
    SLUICE_ASSIGN_OR_RETURN(filter, BindBooleanFilter(body["agg_filter"], ctx));
  }
  // PostgreSQL's moving-aggregate mode: where the frame's start moves and
  // no argument (nor the FILTER) is volatile, it uses MSFUNC, and takes the
  // rows that leave the frame out of the state with MINVFUNC. Sluice folds
  // each frame from its start with MSFUNC instead, which gives the same
  // answer only where MINVFUNC is an exact inverse, or where PostgreSQL
  // never calls it: frames of one bound (CURRENT ROW AND CURRENT ROW,
  // 2 PRECEDING AND 2 PRECEDING) never overlap the previous row's, and an
  // EXCLUDE clause makes it fold every frame from its start too.
  auto is_volatile = [](const ExprPtr& x) {
    return x != nullptr && (ContainsVolatile(*x) || ContainsDraw(*x));
  };
  bool volatile_args = is_volatile(filter);
  for (const ExprPtr& x : args) volatile_args = volatile_args || is_volatile(x);
  const bool moving = !a->msfunc.empty() &&
                      c.frame.start != WindowFrame::Bound::kUnboundedPreceding && !volatile_args;
  const bool one_bound = c.frame.start == c.frame.end && c.frame.start_expr == nullptr &&
                         c.frame.end_expr == nullptr &&
                         c.frame.start_offset == c.frame.end_offset &&
                         c.frame.start_months == c.frame.end_months;
  if (moving && !one_bound && c.frame.exclude == WindowFrame::Exclude::kNoOthers) {
    return SqlUnsupported(sql_, node,
                          "Aggregate " + a->name +
                              " over a window frame whose start moves (PostgreSQL's "
                              "moving-aggregate mode, which takes rows out of the state with "
                              "its MINVFUNC)");
  }
  const AggregateDef def = moving ? MovingAggregate(*a) : *a;
  c.kind = WindowFnKind::kAggregate;
  c.agg = AggKind::kArrayAgg;
  c.args = {InputRow(args)};
  auto t = AggOutputType(AggSpec{c.agg, 0}, {c.args[0]->type.WithNullable(true)});
  if (!t.ok()) return SqlError(sql_, node, t.status().message());
  std::vector<SqlType> inputs;
  for (const ExprPtr& x : args) inputs.push_back(x->type);
  // Applied to the frame's array of rows: column 0 of a one-column row.
  bool strict = false;
  SLUICE_ASSIGN_OR_RETURN(c.finish,
                          UserAggregateFold(def, inputs, MakeColumn(0, *t), node, &strict));
  c.type = c.finish->type.WithNullable(true);
  c.filter = RowsTaken(args, strict, filter);
  return c;
}

}  // namespace binding
}  // namespace sluice::sql
