// Scalar expressions: names, constants, operators and functions with
// PostgreSQL's implicit casts, CASE, COALESCE, NULLIF, IN lists, aggregates
// (collected for the enclosing GROUP BY) and type names.
#include <functional>
#include <sstream>

#include "sql/binder_internal.h"
#include "sql/datetime.h"
#include "sql/sequences.h"

namespace sluice::sql::binding {
namespace {

// Array type `t` with `dims` dimensions of its innermost element type.
SqlType WithArrayDimensions(const SqlType& t, int dims) {
  SqlType out = t;
  // Copy the child before assigning: it is part of `out` (assigning it
  // directly frees it mid-copy).
  while (out.IsSqlArray()) out = SqlType(out.children()[0]);
  for (int i = 0; i < dims; ++i) {
    out = SqlType::Array(out);
    if (ArrayHoldsSubArrays(out)) break;  // one type for every dimension
  }
  return out.WithNullable(t.nullable());
}

}  // namespace

// ---------------------------------------------------------------- expressions

// A subscript: an untyped constant ('2', NULL) is an integer.
Result<ExprPtr> Binder::BindSubscript(const Json& node, Ctx& ctx) {
  SLUICE_ASSIGN_OR_RETURN(ExprPtr i, BindExpr(node, ctx));
  if (i->kind != ExprKind::kLiteral || !i->untyped) return i;
  Value v;
  Status st = CastValue(i->value, i->type, SqlType::Integer(), &v);
  if (!st.ok()) return SqlError(sql_, node, st.message());
  return MakeLiteral(std::move(v), SqlType::Integer());
}

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
      SqlType to = args[static_cast<size_t>(1 - i)]->type;
      // 'four: ' || 4 is text || anynonarray, as PostgreSQL resolves it.
      if (name == "||" && to.id() != TypeId::kArray && !to.IsBinary() && !to.IsString() &&
          !to.is_json()) {
        to = SqlType::Varchar();
      }
      // interval * '2', interval / '0.5': a number, as PostgreSQL has no
      // interval * interval.
      if ((name == "*" || (name == "/" && i == 1)) && to.id() == TypeId::kInterval) {
        to = SqlType::Double();
      }
      // A document's key or path: text, as PostgreSQL picks jsonb -> text.
      if (to.is_json() && i == 1) {
        if (name == "->" || name == "->>" || name == "?" || name == "-" || name == "@?" ||
            name == "@@")
          to = SqlType::Varchar();
        if (name == "#>" || name == "#>>" || name == "?|" || name == "?&" || name == "#-")
          to = SqlType::Array(SqlType::Varchar());
      }
      Value v;
      Status st = CastValue(lit->value, lit->type, to, &v);
      if (!st.ok()) return SqlError(sql_, node, st.message());
      lit = MakeLiteral(std::move(v), to);
    }
  }
  std::vector<SqlType> types;
  for (const ExprPtr& a : args) types.push_back(a->type);
  auto r = ResolveFunction(name, types);
  if (!r.ok() && catalog_.HasRefusedOperator(name) &&
      r.status().message().rfind("operator does not exist", 0) == 0) {
    return SqlUnsupported(sql_, node, "the operator " + name + " of CREATE OPERATOR");
  }
  if (!r.ok()) return SqlError(sql_, node, r.status().message());
  for (size_t i = 0; i < args.size(); ++i) args[i] = MakeCast(args[i], r->arg_types[i]);
  return r;
}

ExprPtr FieldOf(const ExprPtr& row, size_t i) {
  auto f = std::make_shared<Expr>(
      *MakeNode(ExprKind::kField, SqlType(row->type.children()[i]).WithNullable(true), {row}));
  f->column = static_cast<int>(i);
  return f;
}

// Field `name` of the ROW value `x`: (row).name.
Result<ExprPtr> Binder::RowField(const ExprPtr& x, const std::string& name, const Json& node) {
  if (x->type.id() != TypeId::kRow) {
    return SqlError(sql_, node,
                    "column notation ." + name + " applied to type " + PgTypeName(x->type) +
                        ", which is not a composite type");
  }
  const auto& names = x->type.field_names();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return FieldOf(x, i);
  }
  return SqlError(sql_, node,
                  "column \"" + name + "\" not found in data type " + PgTypeName(x->type));
}

Result<ExprPtr> Binder::JsonSubscripts(ExprPtr x, const Json& indirection, const Json& node,
                                       Ctx& ctx) {
  std::vector<ExprPtr> steps;
  auto PathOf = [&](ExprPtr doc, std::vector<ExprPtr> path, const Json& at) -> Result<ExprPtr> {
    ExprPtr array =
        MakeNode(ExprKind::kArray, SqlType::Array(SqlType::Varchar(), false), std::move(path));
    return Call("#>", {std::move(doc), std::move(array)}, at);
  };
  for (const Json& ind : indirection) {
    auto [ikind, ibody] = Node(ind);
    if (ikind == "String") {
      if (!steps.empty()) {
        SLUICE_ASSIGN_OR_RETURN(x, PathOf(std::move(x), std::move(steps), node));
        steps.clear();
      }
      SLUICE_ASSIGN_OR_RETURN(x, RowField(x, ibody->value("sval", ""), node));
      continue;
    }
    if (!x->type.is_jsonb()) {
      return SqlError(sql_, node,
                      "cannot subscript type json because it does not support subscripting");
    }
    if (ikind != "A_Indices") return SqlUnsupported(sql_, node, "this indirection");
    if (ibody->value("is_slice", false))
      return SqlError(sql_, node, "jsonb subscript does not support slices");
    SLUICE_ASSIGN_OR_RETURN(ExprPtr i, BindExpr((*ibody)["uidx"], ctx));
    if (!i->type.IsInteger() && !i->type.IsString() &&
        !(i->kind == ExprKind::kLiteral && i->untyped)) {
      return SqlError(sql_, (*ibody)["uidx"],
                      "subscript type " + PgTypeName(i->type) +
                          " is not supported (jsonb subscript must be coercible to either "
                          "integer or text)");
    }
    steps.push_back(MakeCast(i, SqlType::Varchar()));
  }
  if (steps.empty()) return x;
  return PathOf(std::move(x), std::move(steps), node);
}

Result<ExprPtr> Binder::Call(const std::string& name, std::vector<ExprPtr> args, const Json& node) {
  SLUICE_ASSIGN_OR_RETURN(ResolvedFn r, Coerce(name, &args, node));
  return MakeCall(r.fn, r.name, r.result, std::move(args), r.strict, r.numeric_specials);
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
  if (name.empty()) {
    if (qual.empty()) return SqlError(sql_, node, "* is not allowed here");
    return BindWholeRow(qual, node, ctx);
  }
  int found = -1;
  bool qual_seen = false;
  // The subquery's own columns first, then those of the enclosing query.
  for (bool correlated : {false, true}) {
    for (size_t i = 0; i < ctx.scope.size(); ++i) {
      const ScopeCol& c = ctx.scope[i];
      if (c.correlated != correlated || c.hidden) continue;
      if (qual.empty() ? c.qualified_only : c.unqualified_only) continue;
      if (!qual.empty()) {
        if (c.qualifier != qual) continue;
        qual_seen = true;
      }
      if (c.name != name) continue;
      if (found >= 0) return SqlError(sql_, node, "column reference \"" + name + "\" is ambiguous");
      found = static_cast<int>(i);
    }
    if (found >= 0) {
      ++(correlated ? reads_.outer : reads_.own);
      break;
    }
  }
  // The enclosing queries', nearest first: a subquery inside a correlated
  // one may read any query around it. The column is recorded as read by
  // the query at that level (which is then bound over it, and passes it on
  // as one of its own); the value does not matter while only finding them.
  for (const Ctx* level = &ctx; found < 0 && level->outer != nullptr; level = level->outer) {
    for (size_t i = 0; i < level->outer->scope.size(); ++i) {
      const ScopeCol& c = level->outer->scope[i];
      if (c.hidden || (!qual.empty() && c.qualifier != qual) || c.name != name) continue;
      level->outer_refs->push_back(static_cast<int>(i));
      ++reads_.outer;
      return MakeLiteral(Value::Null(), c.type);
    }
  }
  if (found < 0 && qual.empty() && HasWholeRow(name, ctx)) {
    // A table's name alone is its whole row, as t.* is.
    return BindWholeRow(name, node, ctx);
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

// The columns `*` (qual empty) or `t.*` stands for, as a select list shows
// them: those of the query's own FROM; with `outer`, else those of the
// enclosing query's that a correlated subquery sees.
std::vector<int> Binder::StarColumns(const std::string& qual, const Ctx& ctx, bool outer) {
  std::vector<int> cols;
  for (bool correlated : {false, true}) {
    if (correlated && !outer) break;
    for (size_t i = 0; i < ctx.scope.size(); ++i) {
      const ScopeCol& c = ctx.scope[i];
      if (c.correlated != correlated || c.hidden || c.no_star) continue;
      if (qual.empty() ? c.qualified_only : (c.unqualified_only || c.qualifier != qual)) continue;
      cols.push_back(static_cast<int>(i));
    }
    if (!cols.empty()) break;
  }
  // In the order of the FROM list.
  std::stable_sort(cols.begin(), cols.end(), [&](int a, int b) {
    return ctx.scope[static_cast<size_t>(a)].from_item <
           ctx.scope[static_cast<size_t>(b)].from_item;
  });
  return cols;
}

// Whether `name` is a table of this query or of one around it, whose whole
// row its name alone stands for.
bool Binder::HasWholeRow(const std::string& name, const Ctx& ctx) {
  for (const Ctx* level = &ctx; level != nullptr; level = level->outer) {
    if (!StarColumns(name, *level, /*outer=*/true).empty()) return true;
  }
  return false;
}

// `t.*` as a value: the record of t's columns. On the side of an outer join
// that it may fill with NULLs, it is NULL when every column is (as the whole
// row of the missing side is NULL), so that count(t.*) counts the rows that
// t has; elsewhere a row of NULLs is a record, (,) as PostgreSQL prints it.
Result<ExprPtr> Binder::BindWholeRow(const std::string& qual, const Json& node, Ctx& ctx) {
  const std::vector<int> cols = StarColumns(qual, ctx, /*outer=*/true);
  if (cols.empty()) {
    // A table of an enclosing query, while finding which of its columns a
    // subquery reads: all of them.
    for (const Ctx* level = &ctx; level->outer != nullptr; level = level->outer) {
      const std::vector<int> outer_cols = StarColumns(qual, *level->outer, /*outer=*/true);
      if (outer_cols.empty()) continue;
      std::vector<std::string> names;
      std::vector<SqlType> types;
      for (int i : outer_cols) {
        level->outer_refs->push_back(i);
        names.push_back(level->outer->scope[static_cast<size_t>(i)].name);
        types.push_back(level->outer->scope[static_cast<size_t>(i)].type.WithNullable(true));
      }
      return MakeLiteral(Value::Null(), SqlType::Row(std::move(names), std::move(types), true));
    }
    return SqlError(sql_, node, "missing FROM-clause entry for table \"" + qual + "\"");
  }
  std::vector<ExprPtr> fields;
  std::vector<ExprPtr> nulls;
  std::vector<std::string> names;
  std::vector<SqlType> types;
  for (int i : cols) {
    const ScopeCol& c = ctx.scope[static_cast<size_t>(i)];
    fields.push_back(MakeColumn(i, c.type));
    nulls.push_back(MakeNode(ExprKind::kIsNull, SqlType::Boolean(), {fields.back()}));
    names.push_back(c.name);
    types.push_back(c.type.WithNullable(true));
  }
  SqlType record = SqlType::Row(std::move(names), std::move(types), true);
  ExprPtr row = MakeNode(ExprKind::kRow, record.WithNullable(false), std::move(fields));
  const bool nullable = std::any_of(cols.begin(), cols.end(), [&](int i) {
    return ctx.scope[static_cast<size_t>(i)].outer_nullable;
  });
  if (!nullable) return row;
  ExprPtr all_null =
      nulls.size() == 1 ? nulls[0] : MakeNode(ExprKind::kAnd, SqlType::Boolean(), nulls);
  auto e = std::make_shared<Expr>(
      *MakeNode(ExprKind::kCase, record, {all_null, MakeLiteral(Value::Null(), record), row}));
  e->has_else = true;
  return ExprPtr(e);
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
    // The scale of the written number: its digits after the point, less the
    // exponent (1.5e-3 has scale 4, 1e-5 scale 5, 2.50e1 scale 1).
    size_t dot = f.find('.'), exp = f.find_first_of("eE");
    int scale = 0;
    if (dot != std::string::npos) {
      scale = static_cast<int>((exp == std::string::npos ? f.size() : exp) - dot - 1);
    }
    if (exp != std::string::npos) scale -= std::atoi(f.c_str() + exp + 1);
    scale = std::max(scale, 0);
    Value v;
    if (scale > 37) {
      // Beyond DECIMAL(38, s): PostgreSQL's unconstrained numeric, at the
      // number's own scale.
      Status st = CastValue(Value::String(f), SqlType::Varchar(), SqlType::Numeric(false), &v);
      if (!st.ok()) return SqlError(sql_, node, st.message());
      return MakeLiteral(v, SqlType::Numeric(false));
    }
    Status st = CastValue(Value::String(f), SqlType::Varchar(), SqlType::Decimal(38, scale), &v);
    if (st.code() == StatusCode::kOverflow) {
      // More than 38 digits.
      st = CastValue(Value::String(f), SqlType::Varchar(), SqlType::Numeric(false), &v);
      if (!st.ok()) return SqlError(sql_, node, st.message());
      return MakeLiteral(v, SqlType::Numeric(false));
    }
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

ExprPtr MakeRow(std::vector<ExprPtr> fields) {
  std::vector<std::string> names;
  std::vector<SqlType> types;
  for (ExprPtr& f : fields) {
    // ROW('a'): an untyped field is text, as PostgreSQL resolves "unknown".
    if (f->kind == ExprKind::kLiteral && f->untyped) f = MakeCast(f, SqlType::Varchar());
    names.push_back("f" + std::to_string(names.size() + 1));
    types.push_back(f->type.WithNullable(true));
  }
  return MakeNode(ExprKind::kRow, SqlType::Row(std::move(names), std::move(types), false),
                  std::move(fields));
}

// (a1, a2, ...) op (b1, b2, ...), as PostgreSQL's make_row_comparison_op:
// = is the AND of the fields' =, <> the OR of their <>; < <= > >= compare
// the fields left to right, the first pair that is not equal deciding:
// a1 < b1 OR (a1 = b1 AND a2 < b2) ..., which gives NULL where PostgreSQL's
// row comparison does.
Result<ExprPtr> Binder::CompareRows(const std::string& op, const Json& left, const Json& right,
                                    const Json& node, Ctx& ctx) {
  std::vector<ExprPtr> l, r;
  for (const Json& a : left["RowExpr"].value("args", Json::array())) {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(a, ctx));
    l.push_back(x);
  }
  for (const Json& a : right["RowExpr"].value("args", Json::array())) {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(a, ctx));
    r.push_back(x);
  }
  if (l.size() != r.size()) {
    return SqlError(sql_, node, "unequal number of entries in row expressions");
  }
  if (l.empty()) {
    return SqlUnsupported(sql_, node, "Comparison of zero-column rows");
  }
  const std::string cmp = op == "!=" ? "<>" : op;
  if (cmp != "=" && cmp != "<>" && cmp != "<" && cmp != "<=" && cmp != ">" && cmp != ">=") {
    return SqlError(sql_, node,
                    "operator " + op + " must be a comparison operator to compare rows");
  }
  std::vector<ExprPtr> pairs;
  if (cmp == "=" || cmp == "<>") {
    for (size_t i = 0; i < l.size(); ++i) {
      SLUICE_ASSIGN_OR_RETURN(ExprPtr c, Call(cmp, {l[i], r[i]}, node));
      pairs.push_back(c);
    }
    if (pairs.size() == 1) return pairs[0];
    return MakeNode(cmp == "=" ? ExprKind::kAnd : ExprKind::kOr, SqlType::Boolean(),
                    std::move(pairs));
  }
  // From the last field back: last = a_n op b_n; then
  // a_i strict b_i OR (a_i = b_i AND rest).
  const std::string strict = cmp.substr(0, 1);
  SLUICE_ASSIGN_OR_RETURN(ExprPtr rest, Call(cmp, {l.back(), r.back()}, node));
  for (size_t i = l.size() - 1; i-- > 0;) {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr lt, Call(strict, {l[i], r[i]}, node));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr eq, Call("=", {l[i], r[i]}, node));
    rest = MakeNode(ExprKind::kOr, SqlType::Boolean(),
                    {lt, MakeNode(ExprKind::kAnd, SqlType::Boolean(), {eq, rest})});
  }
  return rest;
}

namespace {

// `ROW(a, b) = (SELECT x, y FROM ...)`, PostgreSQL's ROWCOMPARE sublink,
// compares the fields of the subquery's one row (NULLs where it has none,
// an error where it has more) as a row constructor's: the subquery as a
// row of one scalar subquery per column, `ROW((SELECT x FROM ...), (SELECT
// y FROM ...))`, for CompareRows. nullopt unless `n` is a scalar subquery of
// several columns that such copies keep apart: a plain SELECT of named
// expressions, without DISTINCT.
std::optional<Json> SubqueryFields(const Json& n) {
  if (!n.contains("SubLink")) return std::nullopt;
  const Json& link = n["SubLink"];
  if (link.value("subLinkType", "") != "EXPR_SUBLINK") return std::nullopt;
  const Json& sel = link["subselect"]["SelectStmt"];
  if (sel.value("op", "SETOP_NONE") != "SETOP_NONE" || sel.contains("distinctClause") ||
      !sel.contains("targetList") || sel["targetList"].size() < 2) {
    return std::nullopt;
  }
  Json args = Json::array();
  for (const Json& t : sel["targetList"]) {
    if (!t.contains("ResTarget") || !t["ResTarget"].contains("val")) return std::nullopt;
    const Json& val = t["ResTarget"]["val"];
    if (val.contains("ColumnRef") && val["ColumnRef"]["fields"].back().contains("A_Star")) {
      return std::nullopt;
    }
    Json one = n;
    one["SubLink"]["subselect"]["SelectStmt"]["targetList"] = Json::array({t});
    args.push_back(std::move(one));
  }
  return Json{{"RowExpr", {{"args", std::move(args)}, {"location", link.value("location", -1)}}}};
}

}  // namespace

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
    if (body["lexpr"].contains("RowExpr") && body["rexpr"].contains("RowExpr")) {
      return CompareRows(op, body["lexpr"], body["rexpr"], node, ctx);
    }
    if (body["lexpr"].contains("RowExpr")) {
      if (std::optional<Json> fields = SubqueryFields(body["rexpr"])) {
        return CompareRows(op, body["lexpr"], *fields, node, ctx);
      }
    }
    SLUICE_ASSIGN_OR_RETURN(ExprPtr l, bind("lexpr"));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr r, bind("rexpr"));
    return Call(op, {l, r}, node);
  }
  if (kind == "AEXPR_IN" && body["lexpr"].contains("RowExpr")) {
    // (a, b) IN ((1, 2), (3, 4)): the OR of the row comparisons (NOT IN:
    // the AND of <>), as PostgreSQL expands it.
    std::vector<ExprPtr> cmps;
    for (const Json& item : body["rexpr"]["List"]["items"]) {
      if (!item.contains("RowExpr")) {
        return SqlUnsupported(sql_, item, "A row compared with a value that is not a row");
      }
      SLUICE_ASSIGN_OR_RETURN(ExprPtr c,
                              CompareRows(op == "<>" ? "<>" : "=", body["lexpr"], item, node, ctx));
      cmps.push_back(c);
    }
    if (cmps.size() == 1) return cmps[0];
    return MakeNode(op == "<>" ? ExprKind::kAnd : ExprKind::kOr, SqlType::Boolean(),
                    std::move(cmps));
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
  if (kind == "AEXPR_OP_ANY" || kind == "AEXPR_OP_ALL") {
    // x op ANY/ALL (array): over a constant array, the OR/AND of the
    // comparisons with each element (SQL's three-valued logic, as
    // PostgreSQL's; ANY of no elements is false, ALL true).
    const bool any = kind == "AEXPR_OP_ANY";
    SLUICE_ASSIGN_OR_RETURN(ExprPtr l, bind("lexpr"));
    std::vector<ExprPtr> elems;
    const Json& rx = body["rexpr"];
    if (rx.contains("A_ArrayExpr")) {
      for (const Json& e : rx["A_ArrayExpr"].value("elements", Json::array())) {
        SLUICE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(e, ctx));
        elems.push_back(x);
      }
    } else {
      auto folded = FoldConstant(rx);
      if (!folded.ok() || (*folded)->kind != ExprKind::kLiteral) {
        // Over an array that is not a constant: x = ANY (a) and x <> ALL (a)
        // ask whether a holds x.
        if ((any && op == "=") || (!any && op == "<>")) {
          SLUICE_ASSIGN_OR_RETURN(ExprPtr arr, BindExpr(rx, ctx));
          if (arr->type.id() != TypeId::kArray)
            return SqlError(sql_, rx, "op ANY/ALL (array) requires array on right side");
          ExprPtr x = l;
          if (x->kind == ExprKind::kLiteral && x->untyped) {  // 'd' = ANY (kinds)
            Value v;
            Status st = CastValue(x->value, x->type, arr->type.children()[0], &v);
            if (!st.ok()) return SqlError(sql_, body["lexpr"], st.message());
            x = MakeLiteral(std::move(v), arr->type.children()[0]);
          }
          SLUICE_ASSIGN_OR_RETURN(ExprPtr holds, Call("any=", {arr, x}, node));
          return any ? holds : MakeNode(ExprKind::kNot, SqlType::Boolean(), {holds});
        }
        if (!folded.ok()) return folded.status();
      }
      ExprPtr arr = *folded;
      if (arr->kind == ExprKind::kLiteral && arr->untyped && !arr->value.is_null()) {
        Value v;
        SqlType t = SqlType::Array(l->type.WithNullable(true));
        Status st = CastValue(arr->value, arr->type, t, &v);
        if (!st.ok()) return SqlError(sql_, rx, st.message());
        arr = MakeLiteral(v, t);
      }
      if (arr->kind != ExprKind::kLiteral) {
        return SqlUnsupported(
            sql_, node, std::string(any ? "ANY" : "ALL") + " over an array that is not a constant");
      }
      if (arr->value.is_null()) return MakeLiteral(Value::Null(), SqlType::Boolean());
      if (arr->type.id() != TypeId::kArray)
        return SqlError(sql_, rx, "op ANY/ALL (array) requires array on right side");
      // The elements of every dimension.
      std::function<void(const Value&)> each = [&](const Value& a) {
        for (const Value& v : a.list()) {
          if (v.kind() == Value::Kind::kList && ArrayHoldsSubArrays(arr->type)) {
            each(v);
          } else {
            elems.push_back(MakeLiteral(v, arr->type.children()[0]));
          }
        }
      };
      each(arr->value);
    }
    if (elems.empty()) return MakeLiteral(Value::Bool(!any), SqlType::Boolean());
    std::vector<ExprPtr> cmps;
    for (const ExprPtr& e : elems) {
      SLUICE_ASSIGN_OR_RETURN(ExprPtr c, Call(op, {l, e}, node));
      cmps.push_back(c);
    }
    if (cmps.size() == 1) return cmps[0];
    return MakeNode(any ? ExprKind::kOr : ExprKind::kAnd, SqlType::Boolean(), std::move(cmps));
  }
  if (kind == "AEXPR_LIKE" || kind == "AEXPR_ILIKE" || kind == "AEXPR_SIMILAR") {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr l, bind("lexpr"));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr r, bind("rexpr"));
    return Call(op, {l, r}, node);
  }
  if (kind == "AEXPR_BETWEEN" || kind == "AEXPR_NOT_BETWEEN" || kind == "AEXPR_BETWEEN_SYM" ||
      kind == "AEXPR_NOT_BETWEEN_SYM") {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr x, bind("lexpr"));
    const Json& items = body["rexpr"]["List"]["items"];
    SLUICE_ASSIGN_OR_RETURN(ExprPtr lo, BindExpr(items[0], ctx));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr hi, BindExpr(items[1], ctx));
    auto within = [&](const ExprPtr& from, const ExprPtr& to) -> Result<ExprPtr> {
      SLUICE_ASSIGN_OR_RETURN(ExprPtr ge, Call(">=", {x, from}, node));
      SLUICE_ASSIGN_OR_RETURN(ExprPtr le, Call("<=", {x, to}, node));
      return MakeNode(ExprKind::kAnd, SqlType::Boolean(), {ge, le});
    };
    SLUICE_ASSIGN_OR_RETURN(ExprPtr in, within(lo, hi));
    if (kind == "AEXPR_BETWEEN_SYM" || kind == "AEXPR_NOT_BETWEEN_SYM") {
      // SYMMETRIC: either bound may be the lower one, as PostgreSQL has it.
      SLUICE_ASSIGN_OR_RETURN(ExprPtr swapped, within(hi, lo));
      in = MakeNode(ExprKind::kOr, SqlType::Boolean(), {in, swapped});
    }
    if (kind == "AEXPR_NOT_BETWEEN" || kind == "AEXPR_NOT_BETWEEN_SYM")
      return MakeNode(ExprKind::kNot, SqlType::Boolean(), {in});
    return in;
  }
  if (kind == "AEXPR_NULLIF") {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr a, bind("lexpr"));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr b, bind("rexpr"));
    std::vector<ExprPtr> ab = {a, b};
    SLUICE_ASSIGN_OR_RETURN(ResolvedFn r, Coerce("=", &ab, node));
    ExprPtr eq = MakeCall(r.fn, r.name, r.result, ab, true, r.numeric_specials);
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
  return SqlUnsupported(sql_, node, kind == "AEXPR_OF" ? "IS OF" : "This operator form");
}

namespace {

// An OID's name by a map of the known ones: CASE oid WHEN ... END, the
// number's text for another.
ExprPtr NameByOid(const ExprPtr& oid, const std::map<int64_t, std::string>& names) {
  std::vector<ExprPtr> args;
  for (const auto& [o, name] : names) {
    args.push_back(MakeCall(
        [](const SqlType&, const Value* a, size_t, Value* out) {
          *out = Value::Bool(a[0].int_value() == a[1].int_value());
          return Status::OK();
        },
        "=", SqlType::Boolean(), {oid, MakeLiteral(Value::Int(o), SqlType::BigInt(false))}));
    args.push_back(MakeLiteral(Value::String(name), SqlType::Varchar()));
  }
  args.push_back(MakeCast(oid, SqlType::Varchar()));
  auto e = std::make_shared<Expr>(*MakeNode(ExprKind::kCase, SqlType::Varchar(), std::move(args)));
  e->has_else = true;
  return e;
}

bool IsAllDigits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A name as regclass and its kin read it: "Person" keeps its case, person
// and PUBLIC.Person are person.
std::string UnqualifiedIdentifier(std::string s, const char* schema) {
  const std::string prefix = std::string(schema) + ".";
  std::string lower = s;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.rfind(prefix, 0) == 0) {
    s = s.substr(prefix.size());
    lower = lower.substr(prefix.size());
  }
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
  return lower;
}

}  // namespace

bool Binder::IsOidAlias(const std::string& type) {
  return type == "oid" || type == "regclass" || type == "regtype" || type == "regnamespace" ||
         type == "regrole";
}

// oid and its aliases are BIGINT here (an OID is an unsigned 4-byte integer).
// A string constant cast to regclass, regtype, regnamespace or regrole is
// looked up by name, as PostgreSQL's input function does; another value cast
// to one of them reads as the name, as PostgreSQL's output function prints
// it (so c.oid::regclass shows the relation's name).
Result<ExprPtr> Binder::BindOidCast(const std::string& type, const ExprPtr& x, const Json& node) {
  const bool text_constant =
      x->kind == ExprKind::kLiteral && !x->value.is_null() && (x->untyped || x->type.IsString());
  if (type == "oid" || (text_constant && IsAllDigits(x->value.string_value()))) {
    if (x->kind == ExprKind::kLiteral) {
      Value v;
      Status st = CastValue(x->value, x->type, SqlType::BigInt(), &v);
      if (!st.ok()) return SqlError(sql_, node, st.message());
      if (!v.is_null() && (v.int_value() < 0 || v.int_value() > 0xffffffffLL)) {
        return SqlError(sql_, node, "OID out of range");
      }
      return MakeLiteral(std::move(v), SqlType::BigInt());
    }
    if (!x->type.IsInteger()) {
      return SqlError(sql_, node, "cannot cast type " + PgTypeName(x->type) + " to " + type);
    }
    return MakeCast(x, SqlType::BigInt());
  }
  const std::map<int64_t, std::string> namespaces = {
      {kPgCatalogNamespaceOid, "pg_catalog"},
      {kPublicNamespaceOid, "public"},
      {kInformationSchemaNamespaceOid, "information_schema"}};
  const std::map<int64_t, std::string> roles = {{kPgUserOid, kPgUserName}};
  if (text_constant) {
    const std::string& s = x->value.string_value();
    auto found = [&](int64_t oid) { return MakeLiteral(Value::Int(oid), SqlType::BigInt(false)); };
    if (type == "regclass") {
      const std::string name = UnqualifiedIdentifier(s, "public");
      const PgOids oids = AssignPgOids(catalog_);
      auto it = oids.relations.find(name);
      if (it != oids.relations.end()) return found(it->second);
      return SqlError(sql_, node, "relation \"" + s + "\" does not exist");
    }
    if (type == "regtype") {
      const std::string name = UnqualifiedIdentifier(s, "pg_catalog");
      for (const auto& [oid, typname] : PgTypes()) {
        if (name == typname || name == PgFormatType(oid, -1, false)) return found(oid);
      }
      return SqlError(sql_, node, "type \"" + s + "\" does not exist");
    }
    const auto& names = type == "regnamespace" ? namespaces : roles;
    const std::string name = UnqualifiedIdentifier(s, "");
    for (const auto& [oid, n] : names) {
      if (n == name) return found(oid);
    }
    return SqlError(
        sql_, node,
        std::string(type == "regnamespace" ? "schema" : "role") + " \"" + s + "\" does not exist");
  }
  if (!x->type.IsInteger()) {
    return SqlError(sql_, node, "cannot cast type " + PgTypeName(x->type) + " to " + type);
  }
  ExprPtr oid = MakeCast(x, SqlType::BigInt());
  if (type == "regtype") {
    return Call("format_type", {oid, MakeLiteral(Value::Null(), SqlType::Integer())}, node);
  }
  if (type == "regclass") {
    std::map<int64_t, std::string> names;
    for (const auto& [name, o] : AssignPgOids(catalog_).relations) names[o] = name;
    return NameByOid(oid, names);
  }
  return NameByOid(oid, type == "regnamespace" ? namespaces : roles);
}

Result<ExprPtr> Binder::BindSequenceCall(const std::string& name, const Json& body,
                                         const Json& node, Ctx& ctx) {
  const std::shared_ptr<const SequenceAccess>& access = catalog_.sequence_access();
  if (access == nullptr) {
    return SqlUnsupported(
        sql_, node, name + "() in a view",
        "A view is kept up to date incrementally, and a sequence's value cannot be taken back "
        "once it is handed out: call " +
            name + "() in an ad hoc query, an INSERT or an UPDATE");
  }
  const Json& args = body.value("args", Json::array());
  std::vector<ExprPtr> bound;
  for (size_t i = 0; i < args.size(); ++i) {
    const Json* a = &args[i];
    if (i == 0) {
      // The sequence, as regclass reads a name; a constant one is looked up
      // now, as PostgreSQL's parser does.
      if (a->contains("TypeCast") &&
          (*a)["TypeCast"]["typeName"]["names"].back()["String"].value("sval", "") == "regclass") {
        a = &(*a)["TypeCast"]["arg"];
      }
      if (a->contains("A_Const") && (*a)["A_Const"].contains("sval")) {
        const std::string text = (*a)["A_Const"]["sval"].value("sval", "");
        const std::string seq = UnqualifiedIdentifier(text, "public");
        if (catalog_.FindSequence(seq) == nullptr) {
          if (catalog_.FindTable(seq) != nullptr || catalog_.FindView(seq) != nullptr)
            return SqlError(sql_, *a, "\"" + seq + "\" is not a sequence");
          return SqlError(sql_, *a, "relation \"" + text + "\" does not exist");
        }
        bound.push_back(MakeLiteral(Value::String("\"" + seq + "\""), SqlType::Varchar(-1, false)));
        continue;
      }
    }
    SLUICE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(*a, ctx));
    bound.push_back(std::move(e));
  }
  std::vector<SqlType> want;
  if (name != "lastval") want.push_back(SqlType::Varchar());
  if (name == "setval") want.push_back(SqlType::BigInt());
  if (name == "setval" && args.size() == 3) want.push_back(SqlType::Boolean());
  bool fits = bound.size() == want.size();
  for (size_t i = 0; fits && i < bound.size(); ++i) {
    const SqlType& t = bound[i]->type;
    fits = bound[i]->untyped || (want[i].IsString()    ? t.IsString()
                                 : want[i].IsInteger() ? t.IsInteger()
                                                       : t.id() == TypeId::kBoolean);
    if (fits) bound[i] = MakeCast(bound[i], want[i]);
  }
  if (!fits) {
    std::string types;
    for (size_t i = 0; i < bound.size(); ++i) {
      types += (i ? ", " : "") + (bound[i]->untyped ? "unknown" : PgTypeName(bound[i]->type));
    }
    return SqlError(sql_, node, "function " + name + "(" + types + ") does not exist");
  }
  return MakeSequenceCall(name, std::move(bound), access);
}

// pg_get_viewdef(oid, ...), pg_get_indexdef(oid, ...) and
// pg_get_constraintdef(oid, ...): the catalog's text for the object, NULL
// for an OID it does not know (PostgreSQL's answer for an index or
// constraint that does not exist). pg_get_viewdef also takes a view's name
// ('v' or 'v'::regclass), and a second argument true for the pretty form
// (sql/deparse.h); the further arguments of the others (pretty printing, a
// column number) do not change what Sluice says.
Result<ExprPtr> Binder::BindPgDefinition(const std::string& name, std::vector<ExprPtr> args,
                                         const Json& node) {
  if (args.empty() || args.size() > 3) {
    return SqlError(sql_, node, "function " + name + " takes one to three arguments");
  }
  ExprPtr oid = args[0];
  const bool viewdef = name == "pg_get_viewdef";
  bool pretty = false;
  if (viewdef && args.size() >= 2) {
    const ExprPtr& flag = args[1];
    if (flag->kind != ExprKind::kLiteral) {
      return SqlUnsupported(sql_, node,
                            "pg_get_viewdef() with a pretty flag that is not a constant");
    }
    // A number is a wrap column, which asks for the pretty form too.
    pretty = flag->value.is_null()                 ? false
             : flag->type.id() == TypeId::kBoolean ? flag->value.bool_value()
                                                   : flag->type.IsInteger();
  }
  if (viewdef && oid->kind == ExprKind::kLiteral && (oid->untyped || oid->type.IsString())) {
    SLUICE_ASSIGN_OR_RETURN(oid, BindOidCast("regclass", oid, node));
  } else if (oid->kind == ExprKind::kLiteral && (oid->untyped || oid->type.IsString())) {
    SLUICE_ASSIGN_OR_RETURN(oid, BindOidCast("oid", oid, node));
  } else if (!oid->type.IsInteger()) {
    return SqlError(sql_, node,
                    "function " + name + "(" + PgTypeName(oid->type) + ") does not exist");
  }
  oid = MakeCast(oid, SqlType::BigInt());
  const auto& all = catalog_.pg_definitions();
  std::map<int64_t, std::string> defs;
  auto it = all.find(viewdef && pretty ? std::string(kPgViewdefPretty) : name);
  if (it != all.end()) defs = it->second;
  if (viewdef) {
    // The views of the catalog itself (a session's), beside those that
    // pg_definitions lists (a pipeline's, whose views an ad hoc query reads
    // as tables).
    const PgOids oids = AssignPgOids(catalog_);
    Value asked;
    const bool constant =
        oid->kind == ExprKind::kLiteral && Eval(*oid, Row{}, &asked).ok() && !asked.is_null();
    for (const auto& [view, def] : catalog_.views()) {
      auto o = oids.relations.find(view);
      if (o == oids.relations.end()) continue;
      if (constant && asked.int_value() == o->second && !def.pg_definition_missing.empty()) {
        // Its text as written would be a wrong answer.
        return SqlUnsupported(sql_, node,
                              "pg_get_viewdef() of a view with " + def.pg_definition_missing);
      }
      defs[o->second] = pretty ? def.pg_definition_pretty : def.pg_definition;
    }
  }
  if (defs.empty()) return MakeLiteral(Value::Null(), SqlType::Varchar());
  // NameByOid's ELSE is the number; here it is NULL.
  ExprPtr e = NameByOid(oid, defs);
  auto c = std::make_shared<Expr>(*e);
  c->args.back() = MakeLiteral(Value::Null(), SqlType::Varchar());
  return ExprPtr(c);
}

bool StatisticKind(const std::string& name, AggKind* kind) {
  static const std::pair<const char*, AggKind> kNames[] = {
      {"var_pop", AggKind::kVarPop},
      {"var_samp", AggKind::kVarSamp},
      {"variance", AggKind::kVarSamp},
      {"stddev_pop", AggKind::kStddevPop},
      {"stddev_samp", AggKind::kStddevSamp},
      {"stddev", AggKind::kStddevSamp},
      {"covar_pop", AggKind::kCovarPop},
      {"covar_samp", AggKind::kCovarSamp},
      {"corr", AggKind::kCorr},
      {"regr_count", AggKind::kRegrCount},
      {"regr_sxx", AggKind::kRegrSxx},
      {"regr_syy", AggKind::kRegrSyy},
      {"regr_sxy", AggKind::kRegrSxy},
      {"regr_avgx", AggKind::kRegrAvgX},
      {"regr_avgy", AggKind::kRegrAvgY},
      {"regr_r2", AggKind::kRegrR2},
      {"regr_slope", AggKind::kRegrSlope},
      {"regr_intercept", AggKind::kRegrIntercept},
  };
  for (const auto& [n, k] : kNames) {
    if (name == n) {
      *kind = k;
      return true;
    }
  }
  return false;
}

Status Binder::TypeStatisticArgs(const std::string& name, bool pair, ExprPtr* y, ExprPtr* x,
                                 const Json& node) {
  auto numeric = [](const ExprPtr& e) {
    return IsNumeric(e->type) || (e->kind == ExprKind::kLiteral && e->untyped);
  };
  if (!numeric(*y) || (pair && !numeric(*x))) {
    std::string sig = PgTypeName((*y)->type);
    if (pair) sig += ", " + PgTypeName((*x)->type);
    return SqlError(sql_, node, "function " + name + "(" + sig + ") does not exist");
  }
  if (pair) {
    for (ExprPtr* e : {y, x}) {
      if ((*e)->type.id() != TypeId::kDouble) *e = MakeCast(*e, SqlType::Double());
    }
  } else if ((*y)->kind == ExprKind::kLiteral && (*y)->untyped) {
    *y = MakeCast(*y, SqlType::Double());  // PostgreSQL: an unknown literal is double precision
  }
  return Status::OK();
}

namespace {

// A function whose arguments may be named (`make_interval(days => 10)`,
// `jsonb_path_query(j, p, silent => true)`): its parameters in order, each
// with its default, or required.
struct NamedParam {
  const char* name;
  Value default_value;  // NULL: required
  SqlType type;
};
struct NamedParams {
  const char* function;
  std::vector<NamedParam> params;
};

const NamedParams* FindNamedParams(const std::string& name) {
  static const std::vector<NamedParams> kFunctions = [] {
    const Value req = Value::Null();
    const SqlType i = SqlType::Integer(), t = SqlType::Varchar(), jb = SqlType::Json(true),
                  b = SqlType::Boolean();
    std::vector<NamedParams> fs = {
        {"make_interval",
         {{"years", Value::Int(0), i},
          {"months", Value::Int(0), i},
          {"weeks", Value::Int(0), i},
          {"days", Value::Int(0), i},
          {"hours", Value::Int(0), i},
          {"mins", Value::Int(0), i},
          {"secs", Value::Double(0), SqlType::Double()}}},
        {"jsonb_set",
         {{"jsonb_in", req, jb},
          {"path", req, t},
          {"replacement", req, jb},
          {"create_if_missing", Value::Bool(true), b}}},
        {"jsonb_set_lax",
         {{"jsonb_in", req, jb},
          {"path", req, t},
          {"replacement", req, jb},
          {"create_if_missing", Value::Bool(true), b},
          {"null_value_treatment", Value::String("use_json_null"), t}}},
        {"jsonb_insert",
         {{"jsonb_in", req, jb},
          {"path", req, t},
          {"replacement", req, jb},
          {"insert_after", Value::Bool(false), b}}},
    };
    for (const char* f :
         {"jsonb_path_exists", "jsonb_path_match", "jsonb_path_query", "jsonb_path_query_array",
          "jsonb_path_query_first", "jsonb_path_exists_tz", "jsonb_path_match_tz",
          "jsonb_path_query_tz", "jsonb_path_query_array_tz", "jsonb_path_query_first_tz"}) {
      fs.push_back({f,
                    {{"target", req, jb},
                     {"path", req, t},
                     {"vars", Value::String("{}"), jb},
                     {"silent", Value::Bool(false), b}}});
    }
    return fs;
  }();
  for (const NamedParams& f : kFunctions) {
    if (name == f.function) return &f;
  }
  return nullptr;
}

}  // namespace

Result<std::vector<ExprPtr>> Binder::BindCallArgs(const std::string& name, const Json& call_args,
                                                  const Json& node, Ctx& ctx) {
  std::vector<ExprPtr> args;
  std::vector<std::pair<std::string, const Json*>> named;
  for (const Json& a : call_args) {
    if (a.contains("NamedArgExpr")) {
      named.emplace_back(a["NamedArgExpr"].value("name", ""), &a);
      continue;
    }
    if (!named.empty()) {
      return SqlError(sql_, a, "positional argument cannot follow named argument");
    }
    SLUICE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(a, ctx));
    args.push_back(x);
  }
  if (named.empty()) return args;
  const NamedParams* f = FindNamedParams(name);
  if (f == nullptr)
    return SqlUnsupported(sql_, *named[0].second, "Named arguments of " + name + "()");
  // Every parameter, from the positional arguments, the named ones, or the
  // defaults.
  std::vector<ExprPtr> all(f->params.size());
  if (args.size() > all.size()) {
    return SqlError(
        sql_, node,
        "function " + name + "() takes at most " + std::to_string(all.size()) + " arguments");
  }
  for (size_t i = 0; i < args.size(); ++i) all[i] = args[i];
  for (const auto& [pname, a] : named) {
    size_t i = 0;
    while (i < all.size() && pname != f->params[i].name) ++i;
    if (i == all.size()) {
      return SqlError(sql_, *a, "function " + name + "() has no parameter named \"" + pname + "\"");
    }
    if (all[i] != nullptr) {
      return SqlError(sql_, *a, "argument name \"" + pname + "\" used more than once");
    }
    SLUICE_ASSIGN_OR_RETURN(all[i], BindExpr((*a)["NamedArgExpr"]["arg"], ctx));
  }
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i] != nullptr) continue;
    const NamedParam& p = f->params[i];
    if (p.default_value.is_null()) {
      return SqlError(sql_, node, "function " + name + "() needs its argument \"" + p.name + "\"");
    }
    all[i] = MakeLiteral(p.default_value, p.type);
  }
  return all;
}

Result<ExprPtr> Binder::AddAggregate(AggCall call, Ctx& ctx, const Json& node) {
  const ExprPtr& arg = call.arg;
  const ExprPtr& arg2 = call.arg2;
  // The aggregate's result type, as the engine computes it.
  Schema one = {arg ? arg->type : SqlType::BigInt()};
  AggSpec spec{call.kind, arg ? 0 : -1};
  spec.keyed_order = call.keyed_order;
  if (arg2) {
    one.push_back(arg2->type);
    spec.column2 = 1;
  }
  auto t = AggOutputType(spec, one);
  if (!t.ok()) return SqlError(sql_, node, t.status().message());
  call.type = *t;
  std::string key = std::to_string(static_cast<int>(call.kind)) + "|" + (arg ? Key(*arg) : "*") +
                    (arg2 ? "|" + Key(*arg2) : "") + "|" + call.separator +
                    (call.desc ? "|desc" : "") + (call.distinct ? "|distinct" : "") +
                    (call.keyed_order ? "|keyed" : "") +
                    (call.filter ? "|" + Key(*call.filter) : "");
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

Status Binder::CheckOrderedSetCall(const Json& body, const Json& node, Ctx& ctx, ExprPtr* filter) {
  if (ctx.aggs == nullptr) return SqlError(sql_, node, "aggregate functions are not allowed here");
  if (ctx.in_aggregate) return SqlError(sql_, node, "aggregate function calls cannot be nested");
  filter->reset();
  if (body.contains("agg_filter")) {
    if (ContainsAggregate(body["agg_filter"])) {
      return SqlError(sql_, body["agg_filter"], "aggregate functions are not allowed in FILTER");
    }
    ctx.in_aggregate = true;
    auto f = BindBooleanFilter(body["agg_filter"], ctx);
    ctx.in_aggregate = false;
    SLUICE_RETURN_IF_ERROR(f.status());
    *filter = *f;
  }
  return Status::OK();
}

// A hypothetical row h sorts among the group's rows by the ORDER BY keys:
// a row r comes before it when, at the first key where they are not peers
// (IS DISTINCT FROM), r's value sorts first, NULLs placed as the key says.
// Then, over the group's N rows, with B the rows before h and P those
// before it or its peers:
//   rank = B + 1,  dense_rank = COUNT(DISTINCT key) of the rows before + 1,
//   percent_rank = B / N (0 if N = 0),  cume_dist = (P + 1) / (N + 1),
// PostgreSQL's values once h is added to the group. Each is a COUNT with
// a FILTER, so it is maintained as counts are.
Result<ExprPtr> Binder::BindHypotheticalSet(const std::string& name, const Json& body,
                                            const Json& node, Ctx& ctx) {
  ExprPtr filter;
  SLUICE_RETURN_IF_ERROR(CheckOrderedSetCall(body, node, ctx, &filter));
  const Json& order = body.value("agg_order", Json::array());
  const Json& direct = body.value("args", Json::array());
  ctx.in_aggregate = true;
  std::vector<ExprPtr> hyp, keys;
  std::vector<const Json*> sorts;
  Status st;
  for (const Json& a : direct) {
    auto e = BindExpr(a, ctx);
    if (!e.ok()) {
      st = e.status();
      break;
    }
    hyp.push_back(*e);
  }
  for (size_t i = 0; st.ok() && i < order.size(); ++i) {
    const Json& by = order[i]["SortBy"];
    auto e = BindExpr(by["node"], ctx);
    if (!e.ok()) {
      st = e.status();
      break;
    }
    keys.push_back(*e);
    sorts.push_back(&by);
  }
  ctx.in_aggregate = false;
  SLUICE_RETURN_IF_ERROR(st);
  if (hyp.size() != keys.size()) {
    std::string sig;
    for (size_t i = 0; i < hyp.size(); ++i) sig += (i ? ", " : "") + PgTypeName(hyp[i]->type);
    return SqlError(sql_, node, "function " + name + "(" + sig + ") does not exist");
  }
  if (name == "dense_rank" && keys.size() != 1) {
    return SqlUnsupported(sql_, node, "dense_rank() WITHIN GROUP over more than one key");
  }
  const SqlType boolean = SqlType::Boolean();
  auto lit_bool = [&](bool b) { return MakeLiteral(Value::Bool(b), boolean); };
  ExprPtr before = lit_bool(false), peers = lit_bool(true);
  for (size_t i = 0; i < keys.size(); ++i) {
    const Json& by = *sorts[i];
    if (by.contains("useOp")) return SqlUnsupported(sql_, by, "ORDER BY ... USING");
    const bool desc = by.value("sortby_dir", "") == "SORTBY_DESC";
    const std::string nulls = by.value("sortby_nulls", "SORTBY_NULLS_DEFAULT");
    const bool nulls_first = nulls == "SORTBY_NULLS_DEFAULT" ? desc : nulls == "SORTBY_NULLS_FIRST";
    std::vector<ExprPtr> rh = {keys[i], hyp[i]};
    SLUICE_RETURN_IF_ERROR(Coerce("=", &rh, by["node"]).status());  // to their common type
    const ExprPtr& r = rh[0];
    const ExprPtr& h = rh[1];
    SLUICE_ASSIGN_OR_RETURN(ExprPtr cmp, Call(desc ? ">" : "<", {r, h}, by["node"]));
    // r before h: r's value sorts first, or r's NULL does (h not NULL)
    // when NULLs come first; both NULL are peers.
    ExprPtr r_null = MakeNode(ExprKind::kIsNull, boolean, {r});
    ExprPtr h_null = MakeNode(ExprKind::kIsNull, boolean, {h});
    ExprPtr r_set = MakeNode(ExprKind::kIsNull, boolean, {r}, true);
    ExprPtr h_set = MakeNode(ExprKind::kIsNull, boolean, {h}, true);
    ExprPtr first = nulls_first ? MakeNode(ExprKind::kAnd, boolean, {r_null, h_set})
                                : MakeNode(ExprKind::kAnd, boolean, {r_set, h_null});
    ExprPtr valued =
        MakeNode(ExprKind::kAnd, boolean,
                 {r_set, h_set, MakeNode(ExprKind::kCoalesce, boolean, {cmp, lit_bool(false)})});
    ExprPtr key_before = MakeNode(ExprKind::kOr, boolean, {first, valued});
    before = MakeNode(ExprKind::kOr, boolean,
                      {before, MakeNode(ExprKind::kAnd, boolean, {peers, key_before})});
    peers = MakeNode(ExprKind::kAnd, boolean,
                     {peers, MakeNode(ExprKind::kIsDistinct, boolean, {r, h}, true)});
  }
  const ExprPtr one = MakeLiteral(Value::Int(1), SqlType::Integer(false));
  // COUNT(*) FILTER (WHERE p), as COUNT(CASE WHEN p THEN 1 END); the call's
  // own FILTER leaves out the rows it does not take.
  auto count_if = [&](ExprPtr p, ExprPtr value, bool distinct) -> Result<ExprPtr> {
    if (filter) p = MakeNode(ExprKind::kAnd, boolean, {p, filter});
    AggCall c;
    c.kind = distinct ? AggKind::kCountDistinct : AggKind::kCount;
    c.arg = MakeNode(ExprKind::kCase, value->type.WithNullable(true), {p, value});
    return AddAggregate(std::move(c), ctx, node);
  };
  AggCall all;
  all.kind = AggKind::kCountStar;
  if (filter) {
    all.kind = AggKind::kCount;
    all.arg = MakeNode(ExprKind::kCase, one->type.WithNullable(true), {filter, one});
  }
  const SqlType dbl = SqlType::Double(false);
  if (name == "rank" || name == "dense_rank") {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr b,
                            count_if(before, name == "rank" ? one : keys[0], name == "dense_rank"));
    return Call("+", {b, MakeLiteral(Value::Int(1), SqlType::BigInt(false))}, node);
  }
  SLUICE_ASSIGN_OR_RETURN(ExprPtr n, AddAggregate(all, ctx, node));
  if (name == "percent_rank") {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr b, count_if(before, one, false));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr q, Call("/", {MakeCast(b, dbl), MakeCast(n, dbl)}, node));
    SLUICE_ASSIGN_OR_RETURN(
        ExprPtr empty, Call("=", {n, MakeLiteral(Value::Int(0), SqlType::BigInt(false))}, node));
    auto e = std::make_shared<Expr>(
        *MakeNode(ExprKind::kCase, dbl, {empty, MakeLiteral(Value::Double(0), dbl), q}));
    e->has_else = true;
    return ExprPtr(e);
  }
  SLUICE_ASSIGN_OR_RETURN(ExprPtr p,
                          count_if(MakeNode(ExprKind::kOr, boolean, {before, peers}), one, false));
  const ExprPtr big_one = MakeLiteral(Value::Int(1), SqlType::BigInt(false));
  SLUICE_ASSIGN_OR_RETURN(ExprPtr p1, Call("+", {p, big_one}, node));
  SLUICE_ASSIGN_OR_RETURN(ExprPtr n1, Call("+", {n, big_one}, node));
  return Call("/", {MakeCast(p1, dbl), MakeCast(n1, dbl)}, node);
}

// The group's non-NULL values of `x` as an ARRAY_AGG in the order `by`
// gives them, of the rows that `filter` (if any) takes.
Result<ExprPtr> Binder::OrderedValues(ExprPtr x, const Json& by, const Json& node, Ctx& ctx,
                                      const ExprPtr& filter) {
  if (by.contains("useOp")) return SqlUnsupported(sql_, by, "ORDER BY ... USING");
  AggCall values;
  values.kind = AggKind::kArrayAgg;
  values.arg = x;
  values.desc = by.value("sortby_dir", "") == "SORTBY_DESC";
  values.filter = MakeNode(ExprKind::kIsNull, SqlType::Boolean(), {x}, true);
  if (filter) values.filter = MakeNode(ExprKind::kAnd, SqlType::Boolean(), {values.filter, filter});
  return AddAggregate(std::move(values), ctx, node);
}

// mode() WITHIN GROUP (ORDER BY x): the most frequent value, the first in
// that order on ties.
Result<ExprPtr> Binder::BindMode(const Json& by, const Json& node, Ctx& ctx,
                                 const ExprPtr& filter) {
  ctx.in_aggregate = true;
  auto bx = BindExpr(by["node"], ctx);
  ctx.in_aggregate = false;
  SLUICE_RETURN_IF_ERROR(bx.status());
  ExprPtr x = *bx;
  if (x->kind == ExprKind::kLiteral && x->untyped) x = MakeLiteral(x->value, SqlType::Varchar());
  SLUICE_ASSIGN_OR_RETURN(ExprPtr arr, OrderedValues(x, by, node, ctx, filter));
  return Call("sluice_array_mode", {arr}, node);
}

// PostgreSQL's percentile_disc_final and percentile_cont_final over the
// group's N non-NULL values v[1..N] in order: percentile_disc(p) is
// v[max(ceil(p * N), 1)]; percentile_cont(p), with pos = p * (N - 1), is
// v[floor(pos) + 1] moved toward v[ceil(pos) + 1] by pos - floor(pos), as
// lo + (hi - lo) * t. The values are an ARRAY_AGG ordered by x, so a change
// re-reads its group's values, as ARRAY_AGG does.
Result<ExprPtr> Binder::BindPercentile(const std::string& name, const Json& body, const Json& node,
                                       Ctx& ctx) {
  ExprPtr filter;
  SLUICE_RETURN_IF_ERROR(CheckOrderedSetCall(body, node, ctx, &filter));
  const Json& order = body.value("agg_order", Json::array());
  const Json& direct = body.value("args", Json::array());
  const bool mode = name == "mode";
  if (direct.size() != (mode ? 0 : 1) || order.size() != 1) {
    return SqlError(
        sql_, node,
        "function " + name + " takes " + (mode ? "no" : "one") + " argument and one ORDER BY key");
  }
  const Json& by = order[0]["SortBy"];
  if (mode) return BindMode(by, node, ctx, filter);
  SLUICE_ASSIGN_OR_RETURN(ExprPtr direct_arg, BindExpr(direct[0], ctx));
  // One fraction, or a constant array of them (the result is then the
  // array of the percentiles, NULL for a NULL fraction).
  std::vector<ExprPtr> fractions;
  Value fraction_list;
  const bool many = direct_arg->type.id() == TypeId::kArray;
  if (many) {
    std::vector<int> cols;
    CollectColumns(*direct_arg, &cols);
    if (!cols.empty() || direct_arg->type.children()[0].id() == TypeId::kArray) {
      return SqlUnsupported(sql_, direct[0],
                            name + "() of an array of fractions that is not a constant");
    }
    SLUICE_RETURN_IF_ERROR(Eval(*direct_arg, Row{}, &fraction_list));
    if (fraction_list.is_null()) return MakeLiteral(Value::Null(), direct_arg->type);
    // A multidimensional array: its elements in order, the answer taking
    // its shape again below.
    std::function<void(const Value&)> flatten = [&](const Value& list) {
      for (const Value& v : list.list()) {
        if (v.kind() == Value::Kind::kList) {
          flatten(v);
        } else {
          fractions.push_back(MakeLiteral(v, direct_arg->type.children()[0]));
        }
      }
    };
    flatten(fraction_list);
  } else {
    fractions.push_back(direct_arg);
  }
  const SqlType dbl = SqlType::Double();
  for (ExprPtr& p : fractions) {
    if (!(IsNumeric(p->type) || (p->kind == ExprKind::kLiteral && p->untyped))) {
      return SqlError(sql_, node,
                      "function " + name + "(" + PgTypeName(direct_arg->type) + ") does not exist");
    }
    p = MakeCast(p, dbl);
    if (p->kind == ExprKind::kLiteral && !p->value.is_null()) {
      Value v;
      SLUICE_RETURN_IF_ERROR(Eval(*p, Row{}, &v));
      const double f = v.double_value();
      if (!(f >= 0 && f <= 1)) {
        std::ostringstream msg;
        msg << "percentile value " << f << " is not between 0 and 1";
        return SqlError(sql_, direct[0], msg.str());
      }
    }
  }
  ctx.in_aggregate = true;
  auto bx = BindExpr(by["node"], ctx);
  ctx.in_aggregate = false;
  SLUICE_RETURN_IF_ERROR(bx.status());
  ExprPtr x = *bx;
  const bool cont = name == "percentile_cont";
  if (cont) {
    if (!IsNumeric(x->type)) {
      return SqlUnsupported(sql_, by["node"], "percentile_cont() of " + PgTypeName(x->type));
    }
    x = MakeCast(x, dbl);
  } else if (x->kind == ExprKind::kLiteral && x->untyped) {
    x = MakeLiteral(x->value, SqlType::Varchar());
  }
  SLUICE_ASSIGN_OR_RETURN(ExprPtr arr, OrderedValues(x, by, node, ctx, filter));
  SLUICE_ASSIGN_OR_RETURN(ExprPtr n, Call("cardinality", {arr}, node));
  const SqlType idx_type = SqlType::BigInt();
  auto at = [&](ExprPtr i) { return Call("[]", {arr, MakeCast(i, idx_type)}, node); };
  const ExprPtr one = MakeLiteral(Value::Double(1), dbl);
  auto percentile = [&](const ExprPtr& p) -> Result<ExprPtr> {
    if (!cont) {
      SLUICE_ASSIGN_OR_RETURN(ExprPtr pn, Call("*", {p, MakeCast(n, dbl)}, node));
      SLUICE_ASSIGN_OR_RETURN(ExprPtr up, Call("ceil", {pn}, node));
      SLUICE_ASSIGN_OR_RETURN(ExprPtr first, Call("<", {up, one}, node));
      auto i = std::make_shared<Expr>(*MakeNode(ExprKind::kCase, dbl, {first, one, up}));
      i->has_else = true;
      return at(ExprPtr(i));
    }
    SLUICE_ASSIGN_OR_RETURN(ExprPtr n1, Call("-", {MakeCast(n, dbl), one}, node));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr pos, Call("*", {p, n1}, node));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr lo_row, Call("floor", {pos}, node));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr hi_row, Call("ceil", {pos}, node));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr lo_i, Call("+", {lo_row, one}, node));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr hi_i, Call("+", {hi_row, one}, node));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr lo, at(lo_i));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr hi, at(hi_i));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr t, Call("-", {pos, lo_row}, node));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr span, Call("-", {hi, lo}, node));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr step, Call("*", {span, t}, node));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr lerp, Call("+", {lo, step}, node));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr two_rows, Call(">", {hi_row, lo_row}, node));
    auto e = std::make_shared<Expr>(*MakeNode(ExprKind::kCase, dbl, {two_rows, lerp, lo}));
    e->has_else = true;
    return ExprPtr(e);
  };
  if (!many) return percentile(fractions[0]);
  std::vector<ExprPtr> items;
  for (const ExprPtr& p : fractions) {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr item, percentile(p));
    // A NULL fraction: NULL (the value at no index).
    auto c = std::make_shared<Expr>(
        *MakeNode(ExprKind::kCase, item->type.WithNullable(true),
                  {MakeNode(ExprKind::kIsNull, SqlType::Boolean(), {p}, true), item}));
    items.push_back(ExprPtr(c));
  }
  const SqlType elem = cont ? dbl.WithNullable(true) : x->type.WithNullable(true);
  for (ExprPtr& item : items) item = MakeCast(item, elem);
  // No values: NULL, not an array of NULLs.
  const SqlType t = SqlType::Array(elem, true);
  SLUICE_ASSIGN_OR_RETURN(ExprPtr some,
                          Call(">", {n, MakeLiteral(Value::Int(0), SqlType::BigInt())}, node));
  size_t next = 0;
  std::function<ExprPtr(const Value&)> shaped = [&](const Value& list) {
    std::vector<ExprPtr> level;
    for (const Value& v : list.list())
      level.push_back(v.kind() == Value::Kind::kList ? shaped(v) : items[next++]);
    return MakeNode(ExprKind::kArray, t.WithNullable(false), std::move(level));
  };
  return MakeNode(ExprKind::kCase, t, {some, shaped(fraction_list)});
}

namespace {

// `arg::type` as the parser writes it, at `node`'s place.
Json TypeCastOf(Json arg, const std::string& type, const Json& node) {
  return Json{{"TypeCast",
               {{"arg", std::move(arg)},
                {"typeName",
                 {{"names", Json::array({Json{{"String", {{"sval", type}}}}})},
                  {"typemod", -1},
                  {"location", Location(node)}}},
                {"location", Location(node)}}}};
}

Json FuncCallOf(const std::string& name, Json args, const Json& node) {
  return Json{{"FuncCall",
               {{"funcname", Json::array({Json{{"String", {{"sval", name}}}}})},
                {"args", std::move(args)},
                {"funcformat", "COERCE_EXPLICIT_CALL"},
                {"location", Location(node)}}}};
}

}  // namespace

// The JSON functions that take values of any type, as calls of others:
// jsonb_build_object(k, v, ...) takes its keys as text and its values as
// to_jsonb(v); jsonb_agg(x) is to_jsonb(array_agg(x)) (a NULL is JSON's
// null in it) and jsonb_object_agg(k, v) an object of the pairs that
// array_agg(jsonb_build_array(k, v)) collects; the json_ forms alike, with
// to_json, and json_agg(x) the array of array_agg(to_json(x)).
std::optional<Json> Binder::RewriteJsonCall(const std::string& name, const Json& body,
                                            const Json& node) {
  if (body["funcname"].size() != 1 || body.contains("over") || body.contains("sluice_json"))
    return std::nullopt;
  const bool binary = name.rfind("jsonb_", 0) == 0;
  const std::string prefix = binary ? "jsonb" : "json";
  const std::string to = binary ? "to_jsonb" : "to_json";
  if (name == "jsonb_build_object" || name == "json_build_object" || name == "jsonb_build_array" ||
      name == "json_build_array") {
    const bool object = name.find("object") != std::string::npos;
    if (body.value("func_variadic", false)) {
      // f(VARIADIC array): the array's elements, at every level, are the
      // arguments.
      const Json& a = body.value("args", Json::array());
      if (a.size() != 1) return std::nullopt;
      return FuncCallOf(prefix + (object ? "_spread_object" : "_spread_array"),
                        Json::array({FuncCallOf(to, a, node)}), node);
    }
    Json args = Json::array();
    size_t i = 0;
    for (const Json& a : body.value("args", Json::array())) {
      if (object && i++ % 2 == 0) {
        args.push_back(TypeCastOf(a, "text", node));
      } else {
        args.push_back(FuncCallOf(to, Json::array({a}), node));
      }
    }
    Json call = FuncCallOf(name, args, node);
    call["FuncCall"]["sluice_json"] = true;
    return call;
  }
  if (name == "jsonb_agg" || name == "json_agg" || name == "jsonb_object_agg" ||
      name == "json_object_agg") {
    Json agg = body;
    agg["funcname"] = Json::array({Json{{"String", {{"sval", "array_agg"}}}}});
    if (name.find("object") != std::string::npos) {
      const Json& a = body.value("args", Json::array());
      if (a.size() != 2) return std::nullopt;
      agg["args"] = Json::array({FuncCallOf(prefix + "_build_array", a, node)});
      return FuncCallOf(prefix + "_object_of_pairs", Json::array({Json{{"FuncCall", agg}}}), node);
    }
    if (!binary) {
      // json_agg writes its elements as to_json does, joined by ", ".
      agg["args"] = Json::array({FuncCallOf(to, body.value("args", Json::array()), node)});
      return FuncCallOf("json_array_of_elements", Json::array({Json{{"FuncCall", agg}}}), node);
    }
    return FuncCallOf(to, Json::array({Json{{"FuncCall", agg}}}), node);
  }
  return std::nullopt;
}

Result<std::string> Binder::StringAggSeparator(const Json& sep_node, const ExprPtr& value) {
  // A constant, of the value's type (text or bytea), perhaps computed
  // (decode('ee', 'hex')).
  auto sep = FoldConstant(sep_node);
  const bool bytes = value->type.id() == TypeId::kVarbinary;
  if (sep.ok() && (*sep)->kind == ExprKind::kLiteral && (*sep)->untyped && bytes &&
      !(*sep)->value.is_null()) {
    Value b;
    Status cs = CastValue((*sep)->value, SqlType::Varchar(), SqlType::Varbinary(), &b);
    if (!cs.ok()) return SqlError(sql_, sep_node, cs.message());
    sep = MakeLiteral(std::move(b), SqlType::Varbinary());
  }
  if (!sep.ok() || (*sep)->kind != ExprKind::kLiteral ||
      (!((*sep)->type.id() == TypeId::kVarbinary ? bytes : (*sep)->type.IsString()) &&
       !(*sep)->untyped)) {
    return SqlUnsupported(sql_, sep_node, "A string_agg() separator that is not a constant string");
  }
  return (*sep)->value.is_null() ? std::string() : (*sep)->value.string_value();
}

Result<ExprPtr> Binder::BindFuncCall(const Json& body, const Json& node, Ctx& ctx) {
  std::string name = Str(body["funcname"].back());
  if (auto it = set_cols_.find(&body); it != set_cols_.end()) {
    return MakeColumn(it->second, ctx.scope[static_cast<size_t>(it->second)].type);
  }
  if (body.contains("over")) {
    auto it = window_cols_.find(&body);
    if (it != window_cols_.end() && it->second >= kWindowBase && ctx.aggs != nullptr &&
        !ctx.in_aggregate) {
      return MakeColumn(it->second, window_types_[&body]);  // over a grouped query's groups
    }
    if (it == window_cols_.end() || ctx.aggs != nullptr ||
        it->second >= kWindowBase) {  // bound by BindWindows, or nowhere
      return SqlUnsupported(sql_, node, "A window function here",
                            "Window functions may be in the select list and ORDER BY (over "
                            "the groups, in a grouped query), not inside another window "
                            "function or an aggregate.");
    }
    return MakeColumn(it->second, ctx.scope[static_cast<size_t>(it->second)].type);
  }
  if (IsUserAggregateName(name)) {
    if (IsWithinGroupCall(body)) {
      return SqlError(sql_, node,
                      UserAggregateName(name) +
                          " is not an ordered-set aggregate, so it cannot "
                          "have WITHIN GROUP");
    }
    return BindUserAggregate(name, body, node, ctx);
  }
  if (body["funcname"].size() == 1) {
    if (const FunctionDef* f = catalog_.FindFunction(name)) {
      return BindUserFunction(*f, body, node, ctx);
    }
  }
  if (std::optional<Json> j = RewriteJsonCall(name, body, node)) return BindExpr(*j, ctx);
  if (IsSequenceFunction(name) && !body.contains("over") && !body.value("agg_star", false) &&
      !body.contains("agg_order") && !body.value("agg_distinct", false)) {
    return BindSequenceCall(name, body, node, ctx);
  }
  if (name == "random" && body["funcname"].size() == 1 && !body.contains("args") &&
      !body.value("agg_star", false) && !body.contains("over")) {
    // A draw per row, at this call site; lifted out of the expression into
    // the plan node that keeps the row's draws (LiftDraws).
    return MakeDraw(Location(node));
  }
  if (name == "age" && body.value("args", Json::array()).size() == 1 && catalog_.now() &&
      !body.contains("over")) {
    // age(x): from the midnight that began the query's day (in a view, the
    // clock's: ClockReadsAsSubqueries).
    return BindExpr(AgeFromMidnight(node), ctx);
  }
  if ((name == "now" || name == "transaction_timestamp" || name == "statement_timestamp") &&
      body.value("args", Json::array()).empty() && !body.value("agg_star", false)) {
    return BindNow(node);
  }
  // int8(x), float8(x), numeric(x), text(x), ...: PostgreSQL's cast
  // functions, named as their types.
  static const char* kCastFunctions[] = {"int2",    "int4",     "int8", "float4",  "float8",
                                         "numeric", "text",     "bool", "varchar", "bpchar",
                                         "name",    "interval", "bytea"};
  if (body.value("args", Json::array()).size() == 1 && !body.contains("agg_distinct") &&
      !body.value("agg_star", false) && body["funcname"].size() == 1) {
    for (const char* t : kCastFunctions) {
      if (name != t) continue;
      return BindExpr(TypeCastOf(body["args"][0], t, node), ctx);
    }
  }
  std::vector<ExprPtr> args;
  if (IsWithinGroupCall(body)) {
    if (IsHypotheticalSetName(name)) return BindHypotheticalSet(name, body, node, ctx);
    if (name == "percentile_disc" || name == "percentile_cont" || name == "mode") {
      return BindPercentile(name, body, node, ctx);
    }
    return SqlUnsupported(sql_, node, "The ordered-set aggregate " + name + "()");
  }
  if (IsAggregateName(name)) {
    if (ctx.aggs == nullptr) {
      return SqlError(sql_, node, "aggregate functions are not allowed here");
    }
    if (ctx.in_aggregate) return SqlError(sql_, node, "aggregate function calls cannot be nested");
    ctx.in_aggregate = true;
    const ColumnReads reads_before = reads_;
    AggCall call;
    bool star = body.value("agg_star", false);
    bool distinct = body.value("agg_distinct", false);
    ExprPtr arg, arg2;
    const bool string_agg = name == "string_agg";
    AggKind stat_kind = AggKind::kCountStar;
    const bool stat = StatisticKind(name, &stat_kind);
    const bool pair = stat && IsPairStatistic(stat_kind);
    if (!star) {
      const Json& a = body.value("args", Json::array());
      const bool two = string_agg || pair;
      if (a.size() != (two ? 2u : 1u)) {
        ctx.in_aggregate = false;
        return SqlError(sql_, node,
                        "function " + name + " takes " + (two ? "two arguments" : "one argument"));
      }
      if (pair) {
        auto x = BindExpr(a[1], ctx);
        if (!x.ok()) {
          ctx.in_aggregate = false;
          return x.status();
        }
        arg2 = *x;
      }
      auto r = BindExpr(a[0], ctx);
      if (!r.ok()) {
        ctx.in_aggregate = false;
        return r.status();
      }
      arg = *r;
      if (string_agg) {
        auto sep = StringAggSeparator(a[1], arg);
        if (!sep.ok()) {
          ctx.in_aggregate = false;
          return sep.status();
        }
        call.separator = *sep;
      }
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
    if (reads_.outer > reads_before.outer && reads_.own == reads_before.own) {
      // PostgreSQL computes it over the rows of the query whose columns it
      // reads, not over the subquery's.
      return SqlUnsupported(sql_, node,
                            "An aggregate inside a subquery that reads only the enclosing "
                            "query's columns");
    }
    if (name == "count") {
      call.kind = star ? AggKind::kCountStar : distinct ? AggKind::kCountDistinct : AggKind::kCount;
    } else if (name == "string_agg" || name == "array_agg") {
      if (star) return SqlError(sql_, node, name + "(*) is not a function");
      call.distinct = distinct;
      if (string_agg && !arg->type.IsString() && arg->type.id() != TypeId::kVarbinary) {
        return SqlError(sql_, node,
                        "function string_agg(" + PgTypeName(arg->type) + ", text) does not exist");
      }
      call.kind = string_agg ? AggKind::kStringAgg : AggKind::kArrayAgg;
      // ORDER BY inside the call: the aggregated value itself, either way.
      const Json& order = body.value("agg_order", Json::array());
      if (!order.empty()) {
        // Keys in one direction: a ROW of them (its fields compare in turn).
        std::vector<ExprPtr> keys;
        bool value_key = true;  // every key the value itself
        for (size_t i = 0; i < order.size(); ++i) {
          const Json& by = order[i]["SortBy"];
          ctx.in_aggregate = true;
          auto k = BindExpr(by["node"], ctx);
          ctx.in_aggregate = false;
          if (!k.ok()) return k.status();
          const bool desc = by.value("sortby_dir", "") == "SORTBY_DESC";
          if (i == 0) call.desc = desc;
          if (desc != call.desc) {
            return SqlUnsupported(sql_, order[i],
                                  name + "() ordered by keys in different directions");
          }
          const std::string nulls = by.value("sortby_nulls", "SORTBY_NULLS_DEFAULT");
          ExprPtr key = *k;
          // Whether the key is the value's own, but for where its NULLs go.
          value_key = value_key && Key(*key) == Key(*arg);
          if (nulls != "SORTBY_NULLS_DEFAULT" && (nulls == "SORTBY_NULLS_FIRST") != desc) {
            // NULLs the other way than the value's order puts them: ordered
            // by (key IS NOT NULL, key), whose first field puts the NULLs
            // first ascending and last descending.
            key = MakeRow({MakeNode(ExprKind::kIsNull, SqlType::Boolean(false), {key}, true), key});
          }
          keys.push_back(std::move(key));
        }
        const Json& by = order[0]["SortBy"];
        ExprPtr key = keys.size() == 1 ? keys[0] : MakeRow(std::move(keys));
        if (Key(*key) != Key(*arg)) {
          if (distinct && !value_key) {
            return SqlError(sql_, by["node"],
                            "in an aggregate with DISTINCT, ORDER BY expressions must appear in "
                            "argument list");
          }
          // Ordered by another key: aggregate ROW(key, value), sorted by key
          // then value, and keep the value.
          arg = MakeRow({key, arg});
          call.keyed_order = true;
        }
      } else if (ctx.InputOrderOneWay() && !distinct) {
        // Over a subquery with an ORDER BY, in its order (as PostgreSQL
        // takes the rows); a value's ties by the value.
        std::vector<ExprPtr> keys;
        for (const Ctx::InputOrderKey& k : ctx.input_order) keys.push_back(k.key);
        const ExprPtr key = keys.size() == 1 ? keys[0] : MakeRow(std::move(keys));
        if (Key(*key) != Key(*arg)) {
          arg = MakeRow({key, arg});
          call.keyed_order = true;
        }
        call.desc = ctx.input_order[0].desc;
      }
    } else if (stat) {
      if (star) return SqlError(sql_, node, name + "(*) is not a function");
      if (distinct) return SqlUnsupported(sql_, node, name + "(DISTINCT ...)");
      call.kind = stat_kind;
      SLUICE_RETURN_IF_ERROR(TypeStatisticArgs(name, pair, &arg, &arg2, node));
    } else {
      if (star) return SqlError(sql_, node, name + "(*) is not a function");
      call.kind = name == "sum"   ? (distinct ? AggKind::kSumDistinct : AggKind::kSum)
                  : name == "avg" ? (distinct ? AggKind::kAvgDistinct : AggKind::kAvg)
                  : name == "min" || name == "bool_and" || name == "every" ? AggKind::kMin
                                                                           : AggKind::kMax;
      if (IsBoolAggregateName(name) && arg->type.id() != TypeId::kBoolean) {
        if (!(arg->kind == ExprKind::kLiteral && arg->value.is_null())) {
          return SqlError(sql_, node,
                          "function " + name + "(" + PgTypeName(arg->type) + ") does not exist");
        }
        arg = MakeLiteral(Value::Null(), SqlType::Boolean());
      }
      // money sums (to money), and has no average.
      const bool money_sum =
          BaseKind(call.kind) == AggKind::kSum && arg->type.pg_kind() == PgKind::kMoney;
      if ((BaseKind(call.kind) == AggKind::kSum || BaseKind(call.kind) == AggKind::kAvg) &&
          !IsNumeric(arg->type) && arg->type.id() != TypeId::kInterval && !money_sum) {
        return SqlError(sql_, node,
                        "function " + name + "(" + PgTypeName(arg->type) + ") does not exist");
      }
    }
    if (filter && call.kind == AggKind::kArrayAgg) {
      call.filter = filter;  // its NULLs count: the filter goes to the operator
    } else if (filter) {
      // agg(x) FILTER (WHERE p) = agg(CASE WHEN p THEN x END); COUNT(*) counts
      // a constant.
      ExprPtr x = arg ? arg : MakeLiteral(Value::Int(1), SqlType::Integer(false));
      auto c = std::make_shared<Expr>(
          *MakeNode(ExprKind::kCase, x->type.WithNullable(true), {filter, x}));
      arg = c;
      if (call.kind == AggKind::kCountStar) call.kind = AggKind::kCount;
      if (arg2) {
        arg2 = std::make_shared<Expr>(
            *MakeNode(ExprKind::kCase, arg2->type.WithNullable(true), {filter, arg2}));
      }
    }
    call.arg = arg;
    call.arg2 = arg2;
    return AddAggregate(std::move(call), ctx, node);
  }
  // By reference: window calls among the arguments are known by address.
  static const Json kNoArgs = Json::array();
  SLUICE_ASSIGN_OR_RETURN(
      args, BindCallArgs(name, body.contains("args") ? body["args"] : kNoArgs, node, ctx));
  // The functions behind boolean comparison operators, called by name.
  static const std::pair<const char*, const char*> kBoolOperators[] = {
      {"booleq", "="}, {"boolne", "<>"}, {"boollt", "<"},
      {"boolgt", ">"}, {"boolle", "<="}, {"boolge", ">="}};
  for (const auto& [fn, op] : kBoolOperators) {
    auto boolean = [](const ExprPtr& a) {
      return a->type.id() == TypeId::kBoolean || (a->kind == ExprKind::kLiteral && a->untyped);
    };
    if (name == fn && args.size() == 2 && boolean(args[0]) && boolean(args[1])) {
      return Call(op, args, node);
    }
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
  if (name == "pg_get_viewdef" || name == "pg_get_indexdef" || name == "pg_get_constraintdef") {
    return BindPgDefinition(name, std::move(args), node);
  }
  if (name.rfind("array_", 0) == 0 && !args.empty() && args[0]->type.id() == TypeId::kArray) {
    // An untyped constant beside an array is of its element type, as
    // PostgreSQL resolves anyelement from anyarray.
    SqlType elem = args[0]->type;
    while (elem.id() == TypeId::kArray) elem = SqlType(elem.children()[0]);
    for (size_t i = 1; i < args.size(); ++i) {
      Value v;
      if (args[i]->kind == ExprKind::kLiteral && args[i]->untyped &&
          CastValue(args[i]->value, args[i]->type, elem, &v).ok()) {
        args[i] = MakeLiteral(std::move(v), elem);
      }
    }
  }
  if (name == "power" || name == "pow" || name == "log" || name == "div" || name == "mod") {
    // Beside a NUMERIC, an untyped constant is a NUMERIC too, as PostgreSQL
    // picks the numeric overload (power(x, '2'), log('inf'::numeric, '10')),
    // with the digits after the point that it is written with.
    bool numeric = false;
    for (const ExprPtr& a : args) numeric = numeric || a->type.id() == TypeId::kDecimal;
    for (ExprPtr& a : args) {
      if (!numeric || a->kind != ExprKind::kLiteral || !a->untyped || a->value.is_null() ||
          a->value.kind() != Value::Kind::kString) {
        continue;
      }
      const std::string text = a->value.string_value();
      DecimalSpecial special;
      int scale = 0;
      if (!ParseDecimalSpecial(text, &special)) {
        size_t dot = text.find('.'), exp = text.find_first_of("eE");
        if (dot != std::string::npos) {
          scale = static_cast<int>((exp == std::string::npos ? text.size() : exp) - dot - 1);
        }
        if (exp != std::string::npos) scale -= std::atoi(text.c_str() + exp + 1);
        scale = std::clamp(scale, 0, kMaxDecimalDigits - 1);
      }
      Value v;
      Status st = CastValue(a->value, SqlType::Varchar(), SqlType::Decimal(38, scale), &v);
      if (!st.ok()) return SqlError(sql_, node, st.message());
      a = MakeLiteral(std::move(v), SqlType::Decimal(38, scale));
    }
  }
  if (name == "pg_typeof" && args.size() == 1) {
    // A regtype's text: the name of the argument's type, without its
    // typmod ("integer[]", "character varying"); "unknown" for a constant
    // without one.
    const bool unknown = args[0]->kind == ExprKind::kLiteral && args[0]->untyped;
    return MakeLiteral(
        Value::String(unknown ? "unknown" : PgFormatType(PgTypeOf(args[0]->type).oid, -1, false)),
        SqlType::Varchar(-1, false));
  }
  for (ExprPtr& a : args) {
    if (a->kind == ExprKind::kLiteral && a->untyped) a = MakeLiteral(a->value, SqlType::Varchar());
  }
  if (body.value("func_variadic", false)) {
    // f(..., VARIADIC array): the array's elements are the arguments.
    if (name != "concat" && name != "concat_ws" && name != "format") {
      return SqlUnsupported(sql_, node, "VARIADIC in a call of " + name + "()");
    }
    if (args.empty() || args.back()->type.id() != TypeId::kArray) {
      return SqlError(sql_, node, "VARIADIC argument must be an array");
    }
    if (args.back()->type.children()[0].id() != TypeId::kBoolean) {
      args.back() = MakeCast(args.back(), SqlType::Array(SqlType::Varchar()));
    }
    return Call(name + " variadic", std::move(args), node);
  }
  if ((name == "round" || name == "trunc") && args.size() == 2 &&
      args[0]->type.id() == TypeId::kDecimal && !args[0]->type.dynamic_scale() &&
      args[0]->type.precision() <= kMaxDecimalDigits && args[1]->kind == ExprKind::kLiteral &&
      !args[1]->value.is_null() && args[1]->value.kind() == Value::Kind::kInt &&
      args[1]->value.int_value() <= 37) {
    // round(x, n) and trunc(x, n) have n digits after the point (none if n
    // is negative). Of an unconstrained or wider numeric, they are one (of
    // the value's digits, which may exceed 38).
    int scale = static_cast<int>(std::clamp<int64_t>(args[1]->value.int_value(), 0, 37));
    SLUICE_ASSIGN_OR_RETURN(ExprPtr e, Call(name, std::move(args), node));
    return MakeCast(e, SqlType::Decimal(38, scale));
  }
  if (name == "to_number" && args.size() == 2 && args[0]->type.IsString() &&
      args[1]->type.IsString() && args[0]->kind == ExprKind::kLiteral &&
      args[1]->kind == ExprKind::kLiteral && !args[0]->value.is_null() &&
      !args[1]->value.is_null()) {
    // A constant call is its value (an error in it is the query's).
    Value v;
    Status st = EvalToNumber(args[0]->value.string_value(), args[1]->value.string_value(), &v);
    if (!st.ok()) return SqlError(sql_, node, st.message());
    return MakeLiteral(v, SqlType::Numeric());
  }
  if (name == "extract" && args.size() == 2 && args[0]->kind == ExprKind::kLiteral &&
      !args[0]->value.is_null() && args[0]->value.kind() == Value::Kind::kString) {
    // EXTRACT is numeric with the field's own scale: seconds and the epoch
    // have 6 digits, milliseconds 3, every other field none.
    const std::string field = CanonicalDateUnit(args[0]->value.string_value());
    int scale = field == "second" || field == "epoch" || field == "julian" ? 6
                : field == "millisecond"                                   ? 3
                                                                           : 0;
    SLUICE_ASSIGN_OR_RETURN(ExprPtr e, Call(name, std::move(args), node));
    return scale == 6 ? e : MakeCast(e, SqlType::Decimal(38, scale));
  }
  return Call(name, std::move(args), node);
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
    const bool is_not = body.value("nulltesttype", "") == "IS_NOT_NULL";
    if (x->type.id() == TypeId::kRow && !x->type.field_names().empty()) {
      // A row IS NULL when it is or every field is; IS NOT NULL when no
      // field is (so a row of some NULLs is neither).
      std::vector<ExprPtr> tests{MakeNode(ExprKind::kIsNull, SqlType::Boolean(), {x}, is_not)};
      for (const std::string& f : x->type.field_names()) {
        SLUICE_ASSIGN_OR_RETURN(ExprPtr field, RowField(x, f, n));
        tests.push_back(MakeNode(ExprKind::kIsNull, SqlType::Boolean(), {field}, is_not));
      }
      if (!is_not) {
        ExprPtr fields = MakeNode(ExprKind::kAnd, SqlType::Boolean(),
                                  std::vector<ExprPtr>(tests.begin() + 1, tests.end()));
        return MakeNode(ExprKind::kOr, SqlType::Boolean(), {tests[0], fields});
      }
      return MakeNode(ExprKind::kAnd, SqlType::Boolean(), std::move(tests));
    }
    return MakeNode(ExprKind::kIsNull, SqlType::Boolean(), {x}, is_not);
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
  if (kind == "MinMaxExpr") {
    std::vector<ExprPtr> args;
    for (const Json& a : body["args"]) {
      SLUICE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(a, ctx));
      args.push_back(x);
    }
    SLUICE_ASSIGN_OR_RETURN(args, Unify(std::move(args), n));
    return Call(body.value("op", "") == "IS_LEAST" ? "least" : "greatest", std::move(args), n);
  }
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
    if (body["arg"].contains("A_ArrayExpr") &&
        body["arg"]["A_ArrayExpr"].value("elements", Json::array()).empty()) {
      // ARRAY[]::T[]: the empty array of the type it is cast to.
      SLUICE_ASSIGN_OR_RETURN(SqlType t, BindTypeName(sql_, body["typeName"], &catalog_));
      if (t.IsSqlArray()) return MakeLiteral(Value::List({}), t);
      if (t.IsPgArrayKind() && t.pg_kind() != PgKind::kPoint) {
        return SqlError(sql_, n, "array is not a valid " + PgTypeName(t));
      }
    }
    if (body["arg"].contains("A_ArrayExpr")) {
      // ARRAY[x, ...]::int2vector: the array of the vector's elements, made
      // a vector (PostgreSQL types the constructor from the cast).
      SLUICE_ASSIGN_OR_RETURN(SqlType t, BindTypeName(sql_, body["typeName"], &catalog_));
      if (t.IsPgArrayKind() && t.pg_kind() != PgKind::kPoint) {
        SLUICE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(body["arg"], ctx));
        const SqlType elements = SqlType::Array(t.children()[0]);
        if (x->type.id() != TypeId::kArray || !CommonType(x->type, elements).ok()) {
          return SqlError(sql_, n,
                          "cannot cast type " + PgTypeName(x->type) + " to " + PgTypeName(t));
        }
        return Call(
            t.pg_kind() == PgKind::kInt2Vector ? "array to int2vector" : "array to oidvector",
            {MakeCast(x, elements)}, n);
      }
    }
    if (body["arg"].contains("A_ArrayExpr") &&
        !body["typeName"].value("arrayBounds", Json::array()).empty()) {
      // ARRAY[x, ...]::T[]: each element cast to T (a sub-array to T[]), as
      // PostgreSQL types the constructor from the cast: ARRAY[1,
      // 'NaN']::float8[] holds two doubles.
      Json element_type = body["typeName"];
      element_type.erase("arrayBounds");
      Json array = body["arg"];
      for (Json& e : array["A_ArrayExpr"]["elements"]) {
        const bool sub = e.contains("A_ArrayExpr");
        e = Json{{"TypeCast",
                  {{"arg", e},
                   {"typeName", sub ? body["typeName"] : element_type},
                   {"location", body.value("location", -1)}}}};
      }
      return BindExpr(array, ctx);
    }
    SLUICE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(body["arg"], ctx));
    const Json& type_name = body["typeName"];
    if (!type_name.contains("arrayBounds") && !type_name.value("names", Json::array()).empty()) {
      const std::string tname = Str(type_name["names"].back());
      if (IsOidAlias(tname)) return BindOidCast(tname, x, n);
    }
    SLUICE_ASSIGN_OR_RETURN(SqlType t, BindTypeName(sql_, body["typeName"], &catalog_));
    // int2vector, oidvector and point are read from text; a vector is
    // also an array of its elements, and no other value is one of them.
    if ((t.IsPgArrayKind() || x->type.pg_kind() == PgKind::kPoint) && !x->type.IsString() &&
        x->type.pg_kind() != t.pg_kind() && !t.IsString() &&
        !(x->kind == ExprKind::kLiteral && (x->untyped || x->value.is_null())) &&
        !(x->type.IsPgArrayKind() && x->type.pg_kind() != PgKind::kPoint && t.IsSqlArray())) {
      return SqlError(sql_, n, "cannot cast type " + PgTypeName(x->type) + " to " + PgTypeName(t));
    }
    // money is read from text, integers and numeric, and is text or
    // numeric again.
    const bool money_in = t.pg_kind() == PgKind::kMoney && x->type.pg_kind() != PgKind::kMoney &&
                          !x->type.IsString() && !x->type.IsInteger() &&
                          x->type.id() != TypeId::kDecimal &&
                          !(x->kind == ExprKind::kLiteral && (x->untyped || x->value.is_null()));
    const bool money_out = x->type.pg_kind() == PgKind::kMoney && t.pg_kind() != PgKind::kMoney &&
                           !t.IsString() && t.id() != TypeId::kDecimal;
    if (money_in || money_out) {
      return SqlError(sql_, n, "cannot cast type " + PgTypeName(x->type) + " to " + PgTypeName(t));
    }
    // A document is read from text; other values become one by to_jsonb.
    if (t.is_json() && !x->type.IsString() && !x->type.is_json() &&
        !(x->kind == ExprKind::kLiteral && (x->untyped || x->value.is_null()))) {
      return SqlError(sql_, n, "cannot cast type " + PgTypeName(x->type) + " to " + PgTypeName(t));
    }
    // INTERVAL '1' DAY TO SECOND(2), interval(2) '...', x::INTERVAL HOUR:
    // the typmod's field restriction and precision.
    const Json& mods = body["typeName"].value("typmods", Json::array());
    // x cast to t and passed through the function `fn_name`(t, mod) that
    // applies a typmod; a constant is folded here, so that its errors have
    // a caret.
    auto with_typmod = [&](const char* fn_name, int64_t mod) -> Result<ExprPtr> {
      SLUICE_ASSIGN_OR_RETURN(ResolvedFn fn, ResolveFunction(fn_name, {t, SqlType::Integer()}));
      ExprPtr call = MakeCall(fn.fn, fn_name, t,
                              {MakeCast(x, t), MakeLiteral(Value::Int(mod), SqlType::Integer())});
      if (x->kind != ExprKind::kLiteral) return call;
      Value v;
      Status st = Eval(*call, Row(), &v);
      if (!st.ok()) return SqlError(sql_, n, st.message());
      return MakeLiteral(std::move(v), t);
    };
    int typmod[2] = {kIntervalFullRange, kIntervalFullPrecision};
    if (t.id() == TypeId::kInterval) {
      for (size_t i = 0; i < mods.size() && i < 2; ++i) {
        auto [mkind, mbody] = Node(mods[i]);
        if (mkind != "A_Const" || !mbody->contains("ival")) {
          return SqlError(sql_, n, "type modifiers of INTERVAL must be integer constants");
        }
        typmod[i] = static_cast<int>((*mbody)["ival"].value("ival", int64_t{0}));
      }
    }
    if (typmod[0] != kIntervalFullRange || typmod[1] != kIntervalFullPrecision) {
      if (x->kind == ExprKind::kLiteral && x->type.IsString() && !x->value.is_null()) {
        Interval iv;
        Status st = ParseIntervalTypmod(x->value.string_value(), typmod[0], typmod[1], &iv);
        if (!st.ok()) return SqlError(sql_, n, st.message());
        return MakeLiteral(Value::MakeInterval(iv.months, iv.days, iv.micros), t);
      }
      return with_typmod("interval",
                         static_cast<int64_t>(typmod[0]) << 16 | (typmod[1] & 0xFFFF));
    }
    if ((t.id() == TypeId::kTimestamp || (t.id() == TypeId::kTime && !t.with_time_zone())) &&
        mods.size() == 1) {
      // TIMESTAMP(2) 'now', x::TIME(0): rounded to that many digits.
      auto [mkind, mbody] = Node(mods[0]);
      if (mkind != "A_Const" || !mbody->contains("ival")) {
        return SqlError(sql_, n, "type modifiers must be simple constants or identifiers");
      }
      return with_typmod(t.id() == TypeId::kTime ? "time"
                         : t.with_time_zone()    ? "timestamptz"
                                                 : "timestamp",
                         (*mbody)["ival"].value("ival", int64_t{0}));
    }
    if (x->kind == ExprKind::kLiteral && t.IsSqlArray() && x->type.IsString() &&
        !x->value.is_null()) {
      // PostgreSQL's INT[] has any number of dimensions; here the type
      // says how many, so a constant's type takes the text's.
      const int dims = ArrayTextDimensions(x->value.string_value());
      if (dims > 0) t = WithArrayDimensions(t, dims);
    }
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
  if (kind == "CollateClause") {
    // Text compares by its bytes here, which is the C collation; the
    // database's default collation is C too (pg_database.datcollate).
    const Json& names = body.value("collname", Json::array());
    const std::string coll = names.empty() ? "" : Str(names.back());
    if (coll != "default" && coll != "C" && coll != "POSIX") {
      return SqlUnsupported(sql_, n, "Collation \"" + coll + "\"",
                            "Text compares by its bytes, as in the collation \"C\".");
    }
    return BindExpr(body["arg"], ctx);
  }
  if (kind == "SQLValueFunction") {
    const std::string op = body.value("op", "");
    if (op == "SVFOP_CURRENT_USER" || op == "SVFOP_SESSION_USER" || op == "SVFOP_USER" ||
        op == "SVFOP_CURRENT_ROLE") {
      return MakeLiteral(Value::String(kPgUserName), SqlType::Varchar(-1, false));
    }
    if (op == "SVFOP_CURRENT_CATALOG") {
      return MakeLiteral(Value::String(kPgDatabaseName), SqlType::Varchar(-1, false));
    }
    if (op == "SVFOP_CURRENT_SCHEMA") {
      return MakeLiteral(Value::String("public"), SqlType::Varchar(-1, false));
    }
    if (op == "SVFOP_CURRENT_TIMESTAMP" || op == "SVFOP_CURRENT_TIMESTAMP_N" ||
        op == "SVFOP_LOCALTIMESTAMP" || op == "SVFOP_LOCALTIMESTAMP_N") {
      return BindNow(n);
    }
    if (catalog_.now()) {
      // An ad hoc query's date and time of day (UTC).
      constexpr int64_t kDay = int64_t{86400} * 1000000;
      const int64_t now = *catalog_.now();
      const int64_t day = now >= 0 ? now / kDay : (now - kDay + 1) / kDay;
      if (op == "SVFOP_CURRENT_DATE") return MakeLiteral(Value::Int(day), SqlType::Date(false));
      return MakeLiteral(Value::Int(now - day * kDay), SqlType::Time(false));
    }
    if (op == "SVFOP_CURRENT_DATE") return BindToday(n);
    return SqlUnsupported(
        sql_, n,
        "CURRENT_TIME in a view's window, a UNION's ORDER BY or an outer join's ON condition");
  }
  if (kind == "RowExpr") {
    std::vector<ExprPtr> fields;
    for (const Json& a : body.value("args", Json::array())) {
      auto [akind, abody] = Node(a);
      if (akind == "ColumnRef" && (*abody)["fields"].size() == 2 &&
          (*abody)["fields"].back().contains("A_Star")) {
        // ROW(t.*) has t's columns as its fields.
        const std::string qual = Str((*abody)["fields"][0]);
        const std::vector<int> cols = StarColumns(qual, ctx, /*outer=*/true);
        if (cols.empty()) {
          return SqlError(sql_, a, "missing FROM-clause entry for table \"" + qual + "\"");
        }
        for (int i : cols) fields.push_back(MakeColumn(i, ctx.scope[static_cast<size_t>(i)].type));
        continue;
      }
      SLUICE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(a, ctx));
      fields.push_back(x);
    }
    return MakeRow(std::move(fields));
  }
  if (kind == "A_ArrayExpr") {
    std::vector<ExprPtr> items;
    for (const Json& a : body.value("elements", Json::array())) {
      SLUICE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(a, ctx));
      items.push_back(x);
    }
    if (items.empty()) {
      return SqlError(sql_, n, "cannot determine type of empty array (cast it: ARRAY[]::INT[])");
    }
    SLUICE_ASSIGN_OR_RETURN(items, Unify(std::move(items), n));
    // ARRAY[ARRAY[..], ..] adds a dimension to the items' array type, which
    // is its own type (ArrayHoldsSubArrays).
    SqlType t = ArrayHoldsSubArrays(items[0]->type)
                    ? items[0]->type.WithNullable(false)
                    : SqlType::Array(items[0]->type.WithNullable(true), false);
    return MakeNode(ExprKind::kArray, t, std::move(items));
  }
  if (kind == "A_Indirection") {
    SLUICE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(body["arg"], ctx));
    const Json& indirection = body.value("indirection", Json::array());
    if (x->type.is_json()) return JsonSubscripts(std::move(x), indirection, n, ctx);
    bool slice = false;
    for (const Json& ind : indirection) {
      auto [ikind, ibody] = Node(ind);
      if (ikind == "A_Indices" && ibody->value("is_slice", false)) slice = true;
    }
    if (slice && x->type.id() == TypeId::kArray &&
        (ArrayHoldsSubArrays(x->type) || indirection.size() == 1)) {
      // a[l:u][i]...: every subscript a slice (i alone is 1:i), as
      // array_slice(a, omitted, l1, u1, ...), `omitted` a bit for each
      // bound left out.
      std::vector<ExprPtr> args{x, nullptr};
      int64_t omitted = 0;
      for (const Json& ind : indirection) {
        auto [ikind, ibody] = Node(ind);
        if (ikind != "A_Indices") return SqlUnsupported(sql_, n, "field selection");
        const int bit = static_cast<int>(args.size()) - 2;
        for (const char* bound : {"lidx", "uidx"}) {
          const bool upper = std::string_view(bound) == "uidx";
          if (!upper && !ibody->value("is_slice", false)) {
            args.push_back(MakeLiteral(Value::Int(1), SqlType::Integer()));
          } else if (ibody->contains(bound)) {
            SLUICE_ASSIGN_OR_RETURN(ExprPtr i, BindSubscript((*ibody)[bound], ctx));
            args.push_back(i);
          } else {
            omitted |= int64_t{1} << (bit + (upper ? 1 : 0));
            args.push_back(MakeLiteral(Value::Int(0), SqlType::Integer()));
          }
        }
      }
      args[1] = MakeLiteral(Value::Int(omitted), SqlType::BigInt());
      return Call("[:]", std::move(args), n);
    }
    if (ArrayHoldsSubArrays(x->type)) {
      // One call with every subscript: the value says how many dimensions
      // it has.
      std::vector<ExprPtr> args{x};
      size_t k = 0;
      for (; k < indirection.size(); ++k) {
        auto [ikind, ibody] = Node(indirection[k]);
        if (ikind != "A_Indices") break;
        SLUICE_ASSIGN_OR_RETURN(ExprPtr i, BindSubscript((*ibody)["uidx"], ctx));
        args.push_back(i);
      }
      SLUICE_ASSIGN_OR_RETURN(x, Call("[]", std::move(args), n));
      // Then fields of the element: a[2].f
      for (; k < indirection.size(); ++k) {
        auto [ikind, ibody] = Node(indirection[k]);
        if (ikind != "String") return SqlUnsupported(sql_, n, "this indirection");
        SLUICE_ASSIGN_OR_RETURN(x, RowField(x, ibody->value("sval", ""), n));
      }
      return x;
    }
    int dims = 0, subscripts = 0;
    bool fields = false;
    for (const SqlType* e = &x->type; e->IsSqlArray(); e = &e->children()[0]) ++dims;
    for (const Json& ind : indirection) {
      auto [ikind, ibody] = Node(ind);
      if (ikind == "String") {
        // (row).field
        SLUICE_ASSIGN_OR_RETURN(x, RowField(x, ibody->value("sval", ""), n));
        fields = true;
        continue;
      }
      if (ikind != "A_Indices" || ibody->value("is_slice", false)) {
        return SqlUnsupported(sql_, n, ikind == "A_Indices" ? "array slices" : "field selection");
      }
      SLUICE_ASSIGN_OR_RETURN(ExprPtr i, BindExpr((*ibody)["uidx"], ctx));
      if (x->type.id() != TypeId::kArray) {
        return SqlError(sql_, n,
                        "cannot subscript type " + PgTypeName(x->type) +
                            " because it is not an "
                            "array");
      }
      SLUICE_ASSIGN_OR_RETURN(x, Call("[]", {x, i}, n));
      ++subscripts;
    }
    if (!fields && subscripts < dims) {
      // Fewer subscripts than dimensions pick no element: NULL, as in
      // PostgreSQL (a slice would take a sub-array).
      SqlType elem = x->type;
      while (elem.IsSqlArray()) elem = SqlType(elem.children()[0]);
      return MakeLiteral(Value::Null(), elem.WithNullable(true));
    }
    return x;
  }
  // In the words of SQL, not of the parse tree.
  static const std::map<std::string, std::string> kWords = {
      {"GroupingFunc", "GROUPING() here (inside a subquery, or of columns it cannot see)"},
      {"NamedArgExpr", "A named argument (name => value) here"},
      {"CollateClause", "COLLATE"},
      {"SetToDefault", "DEFAULT here"},
      {"ParamRef", "A parameter ($n) here"},
      {"XmlExpr", "XML"},
      {"XmlSerialize", "XML"},
      {"CurrentOfExpr", "WHERE CURRENT OF"},
      {"MultiAssignRef", "Assigning several columns from one subquery"},
  };
  auto words = kWords.find(kind);
  return SqlUnsupported(sql_, n,
                        words != kWords.end() ? words->second
                        : kind.empty()        ? "this expression"
                                              : "The expression " + kind);
}

}  // namespace sluice::sql::binding
