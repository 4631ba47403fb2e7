#include <nlohmann/json.hpp>

#include "sql/binder.h"
#include "sql/deparser.h"
#include "sql/expr.h"
#include "sql/functions.h"

namespace sluice::sql::deparse {

std::string Deparser::Arg(const Piece& p, Shape parent, const std::string& op, bool left) const {
  if (!pretty_) return p.text;  // operators already print their parentheses
  bool simple = true;
  switch (p.shape) {
    case Shape::kSimple:
      simple = true;
      break;
    case Shape::kOp: {
      if (parent == Shape::kAnd || parent == Shape::kOr || parent == Shape::kNot) {
        simple = true;
        break;
      }
      if (parent != Shape::kOp || p.op.empty() || op.empty()) {
        simple = false;
        break;
      }
      auto low = [](const std::string& o) { return o == "+" || o == "-"; };
      auto high = [](const std::string& o) { return o == "*" || o == "/" || o == "%"; };
      if (!(low(p.op) || high(p.op)) || !(low(op) || high(op))) {
        simple = false;
      } else if (high(p.op) && low(op)) {
        simple = true;
      } else if (low(p.op) && high(op)) {
        simple = false;
      } else {
        simple = left;
      }
      break;
    }
    case Shape::kAnd:  // AND binds tighter than OR
      simple = parent == Shape::kAnd || parent == Shape::kOr;
      break;
    case Shape::kOr:
      simple = parent == Shape::kOr;
      break;
    case Shape::kNot:
      simple = parent == Shape::kAnd || parent == Shape::kOr;
      break;
    case Shape::kTest:
      simple = parent == Shape::kAnd || parent == Shape::kOr || parent == Shape::kNot;
      break;
    case Shape::kOther:
      simple = false;
      break;
  }
  return simple ? p.text : "(" + p.text + ")";
}

Piece Deparser::Op(std::string text, Shape shape, const std::string& op, Type type) const {
  Piece p;
  p.text = pretty_ ? std::move(text) : "(" + text + ")";
  p.shape = pretty_ ? shape : Shape::kSimple;
  p.op = op;
  p.type = std::move(type);
  return p;
}

Piece Deparser::Const(const Value& value, const SqlType& type) const {
  Piece p;
  p.type = type;
  p.is_const = true;
  if (value.is_null()) {
    p.text = "NULL::" + TypeText(type);
    return p;
  }
  const std::string text = ValueToText(value, type);
  if (type.id() == TypeId::kBoolean) {
    p.text = value.bool_value() ? "true" : "false";
  } else if ((type.id() == TypeId::kInteger || type.id() == TypeId::kSmallInt) &&
             type.pg_kind() == PgKind::kNone) {
    p.text = text[0] == '-' ? Quote(text) + "::" + TypeText(type) : text;
    if (type.id() == TypeId::kSmallInt) p.text = Quote(text) + "::smallint";
  } else if (type.id() == TypeId::kDecimal && std::isdigit(static_cast<unsigned char>(text[0])) &&
             text.find_first_of(".eE") != std::string::npos) {
    p.text = text;
  } else {
    p.text = Quote(text) + "::" + TypeText(type);
  }
  return p;
}

Piece Deparser::Coerce(const Piece& p, const SqlType& to) const {
  if (p.unknown && IsVarchar(Type(to))) {
    // An untyped constant takes a VARCHAR's type but not its length.
    Piece q = Coerce(p, SqlType::Varchar());
    q.text = q.text.substr(0, q.text.rfind("::")) + "::character varying";
    q.type = to;
    return q;
  }
  if (p.unknown) {
    if (p.is_null) return Const(Value::Null(), to);
    Value v;
    if (!CastValue(Value::String(p.literal), SqlType::Varchar(), to, &v).ok()) {
      Piece q = p;
      q.text = Quote(p.literal) + "::" + TypeText(to);
      q.unknown = false;
      q.type = to;
      return q;
    }
    return Const(v, to);
  }
  if (!p.type) return p;
  const Type t = p.type;
  bool cast = false;
  if (IsInt(t) &&
      (to.id() == TypeId::kDecimal || to.id() == TypeId::kDouble || to.id() == TypeId::kReal)) {
    cast = true;
  } else if (IsDecimal(t) && (to.id() == TypeId::kDouble || to.id() == TypeId::kReal)) {
    cast = true;
  } else if (t->id() == TypeId::kReal && to.id() == TypeId::kDouble) {
    cast = true;
  } else if (IsVarchar(t) && to.id() == TypeId::kVarchar && to.precision() < 0 && !to.is_json()) {
    cast = true;
  } else if (IsInt(t) && to.IsInteger() && IntRank(t) < IntRank(Type(to))) {
    cast = true;
  } else if (t->id() == TypeId::kDate && to.id() == TypeId::kTimestamp) {
    cast = true;
  }
  if (!cast) return p;
  return Cast(p, to);
}

Piece Deparser::Cast(const Piece& p, const SqlType& to) const {
  Piece q;
  // Not pretty, whatever is cast is in parentheses.
  const bool simple = pretty_ && p.shape == Shape::kSimple;
  q.text = (simple ? p.text : "(" + p.text + ")") + "::" + TypeText(to);
  q.type = to;
  return q;
}

Result<Piece> Deparser::ColumnRef(const Json& fields, const Level* level) {
  std::string qual, col;
  if (fields.size() == 1) {
    col = Str(fields[0]);
  } else if (fields.size() == 2) {
    qual = Str(fields[0]);
    col = Str(fields[1]);
  } else {
    return Unsupported("a column qualified by a schema");
  }
  for (const Level* l = level; l != nullptr; l = l->parent) {
    for (const RangeItem& item : l->items) {
      if (item.join || (!qual.empty() && item.ref != qual)) continue;
      for (size_t c = 0; c < item.columns.size(); ++c) {
        if (item.columns[c] != col) continue;
        Piece p;
        p.text = Ident(item.name) + "." + Ident(col);
        p.type = item.types[c];
        p.column = col;
        return p;
      }
    }
  }
  return Unsupported("column " + col);
}

Result<Piece> Deparser::Expr(const Json& n, Level* level, int indent) {
  if (n.contains("ColumnRef")) return ColumnRef(n["ColumnRef"]["fields"], level);
  if (n.contains("A_Const")) return Constant(n["A_Const"]);
  if (n.contains("TypeCast")) {
    const Json& tc = n["TypeCast"];
    SLUICE_ASSIGN_OR_RETURN(SqlType to, BindTypeName(sql_, tc["typeName"], &catalog_));
    SLUICE_ASSIGN_OR_RETURN(Piece p, Expr(tc["arg"], level, indent));
    const Json& tn = tc["typeName"];
    const bool varchar = Str(tn["names"].back()) == "varchar" && !tn.contains("typmods") &&
                         !tn.contains("arrayBounds");
    if (p.unknown) {
      Piece q = Coerce(p, to);
      if (varchar) q.text = Quote(p.literal) + "::character varying";
      if (IsVarchar(Type(to)) && !p.is_null) q.text = Quote(p.literal) + "::" + TypeText(to);
      return q;
    }
    if (p.type && *p.type == to.WithNullable(p.type->nullable()) && !varchar) return p;
    if (p.type && TypeText(*p.type) == TypeText(to) && !varchar) return p;
    Piece q = Cast(p, to);
    if (varchar) q.text = q.text.substr(0, q.text.rfind("::")) + "::character varying";
    return q;
  }
  if (n.contains("A_Expr")) return Operator(n["A_Expr"], level, indent);
  if (n.contains("BoolExpr")) {
    const Json& b = n["BoolExpr"];
    const std::string op = b.value("boolop", "");
    std::vector<Piece> args;
    for (const Json& a : b["args"]) {
      SLUICE_ASSIGN_OR_RETURN(Piece p, Expr(a, level, indent));
      if (p.unknown) p = Coerce(p, SqlType::Boolean());
      args.push_back(p);
    }
    if (op == "NOT_EXPR") {
      return Op("NOT " + Arg(args[0], Shape::kNot, "", false), Shape::kNot, "", SqlType::Boolean());
    }
    const Shape shape = op == "AND_EXPR" ? Shape::kAnd : Shape::kOr;
    std::string text;
    for (size_t i = 0; i < args.size(); ++i) {
      text +=
          (i ? (shape == Shape::kAnd ? " AND " : " OR ") : "") + Arg(args[i], shape, "", i == 0);
    }
    return Op(text, shape, "", SqlType::Boolean());
  }
  if (n.contains("NullTest")) {
    const Json& t = n["NullTest"];
    SLUICE_ASSIGN_OR_RETURN(Piece p, Expr(t["arg"], level, indent));
    if (p.unknown) p = Coerce(p, SqlType::Varchar());
    const bool is_not = t.value("nulltesttype", "") == "IS_NOT_NULL";
    return Op(Arg(p, Shape::kTest, "", true) + (is_not ? " IS NOT NULL" : " IS NULL"), Shape::kTest,
              "", SqlType::Boolean());
  }
  if (n.contains("BooleanTest")) {
    const Json& t = n["BooleanTest"];
    SLUICE_ASSIGN_OR_RETURN(Piece p, Expr(t["arg"], level, indent));
    if (p.unknown) p = Coerce(p, SqlType::Boolean());
    static const std::map<std::string, std::string> kTests = {
        {"IS_TRUE", " IS TRUE"},       {"IS_NOT_TRUE", " IS NOT TRUE"},
        {"IS_FALSE", " IS FALSE"},     {"IS_NOT_FALSE", " IS NOT FALSE"},
        {"IS_UNKNOWN", " IS UNKNOWN"}, {"IS_NOT_UNKNOWN", " IS NOT UNKNOWN"}};
    auto it = kTests.find(t.value("booltesttype", ""));
    if (it == kTests.end()) return Unsupported("this boolean test");
    return Op(Arg(p, Shape::kTest, "", true) + it->second, Shape::kTest, "", SqlType::Boolean());
  }
  if (n.contains("FuncCall")) return Function(n["FuncCall"], level, indent);
  if (n.contains("CaseExpr")) return Case(n["CaseExpr"], level, indent);
  if (n.contains("CoalesceExpr") || n.contains("MinMaxExpr")) {
    const bool coalesce = n.contains("CoalesceExpr");
    const Json& c = coalesce ? n["CoalesceExpr"] : n["MinMaxExpr"];
    std::vector<Piece> args;
    for (const Json& a : c["args"]) {
      SLUICE_ASSIGN_OR_RETURN(Piece p, Expr(a, level, indent));
      args.push_back(p);
    }
    const Type t = Common(args);
    std::string text = coalesce                             ? "COALESCE("
                       : c.value("op", "") == "IS_GREATEST" ? "GREATEST("
                                                            : "LEAST(";
    for (size_t i = 0; i < args.size(); ++i) {
      text += (i ? ", " : "") + Coerce(args[i], t ? *t : SqlType::Varchar()).text;
    }
    Piece p;
    p.text = text + ")";
    p.type = t ? t : Type(SqlType::Varchar());
    return p;
  }
  if (n.contains("SubLink")) return SubLink(n["SubLink"], level, indent);
  if (n.contains("A_ArrayExpr")) {
    std::vector<Piece> args;
    for (const Json& a : n["A_ArrayExpr"].value("elements", Json::array())) {
      SLUICE_ASSIGN_OR_RETURN(Piece p, Expr(a, level, indent));
      args.push_back(p);
    }
    const Type t = Common(args);
    std::string text = "ARRAY[";
    for (size_t i = 0; i < args.size(); ++i) {
      text += (i ? ", " : "") + Coerce(args[i], t ? *t : SqlType::Varchar()).text;
    }
    Piece p;
    p.text = text + "]";
    if (t) p.type = SqlType::Array(*t);
    return p;
  }
  if (n.contains("SQLValueFunction")) {
    const std::string op = n["SQLValueFunction"].value("op", "");
    Piece p;
    if (op == "SVFOP_CURRENT_DATE") {
      p.text = "CURRENT_DATE";
      p.type = SqlType::Date();
    } else if (op == "SVFOP_CURRENT_TIMESTAMP") {
      p.text = "CURRENT_TIMESTAMP";
      p.type = SqlType::TimestampTz();
    } else {
      return Unsupported("this function");
    }
    return p;
  }
  if (n.contains("GroupingFunc")) {
    std::string text = "GROUPING(";
    const Json& args = n["GroupingFunc"]["args"];
    for (size_t i = 0; i < args.size(); ++i) {
      SLUICE_ASSIGN_OR_RETURN(Piece p, Expr(args[i], level, indent));
      text += (i ? ", " : "") + p.text;
    }
    Piece p;
    p.text = text + ")";
    p.type = SqlType::Integer();
    return p;
  }
  return Unsupported("this expression");
}

Type Deparser::Common(const std::vector<Piece>& args) {
  Type t;
  for (const Piece& p : args) {
    if (p.unknown || !p.type) continue;
    if (!t) {
      t = p.type;
      continue;
    }
    if (IsVarchar(t) && (IsText(p.type) || IsVarchar(p.type))) {
      t = SqlType::Varchar();
    } else if (IsInt(t) && IsInt(p.type)) {
      if (IntRank(p.type) > IntRank(t)) t = p.type;
    } else if ((IsInt(t) || IsDecimal(t)) && (IsDecimal(p.type) || IsFloat(p.type))) {
      if (!(IsDecimal(t) && IsDecimal(p.type))) t = p.type;
    }
  }
  if (IsVarchar(t)) {
    bool all_varchar = true;
    for (const Piece& p : args) all_varchar = all_varchar && (p.unknown || IsVarchar(p.type));
    if (!all_varchar) t = SqlType::Varchar();
  }
  return t;
}

Result<Piece> Deparser::Constant(const Json& c) {
  Piece p;
  if (c.value("isnull", false)) {
    p.unknown = true;
    p.is_null = true;
    p.text = "NULL";
    return p;
  }
  if (c.contains("sval")) {
    p.unknown = true;
    p.literal = c["sval"].value("sval", "");
    p.text = Quote(p.literal) + "::text";
    return p;
  }
  if (c.contains("boolval")) {
    return Const(Value::Bool(c["boolval"].value("boolval", false)), SqlType::Boolean());
  }
  if (c.contains("ival")) {
    return Const(Value::Int(c["ival"].value("ival", int64_t{0})), SqlType::Integer());
  }
  if (c.contains("fval")) {
    const std::string f = c["fval"].value("fval", "0");
    Value v;
    if (f.find_first_of(".eE") == std::string::npos &&
        CastValue(Value::String(f), SqlType::Varchar(), SqlType::BigInt(), &v).ok()) {
      return Const(v, SqlType::BigInt());
    }
    SLUICE_RETURN_IF_ERROR(CastValue(Value::String(f), SqlType::Varchar(), SqlType::Numeric(), &v));
    return Const(v, SqlType::Numeric());
  }
  return Unsupported("this constant");
}

Result<Piece> Deparser::Operator(const Json& a, Level* level, int indent) {
  const std::string kind = a.value("kind", "");
  const std::string name = a.contains("name") ? Str(a["name"].back()) : "";
  auto side = [&](const char* k) -> Result<Piece> { return Expr(a[k], level, indent); };
  if (kind == "AEXPR_OP" || kind == "AEXPR_LIKE" || kind == "AEXPR_ILIKE" ||
      kind == "AEXPR_SIMILAR" || kind == "AEXPR_DISTINCT" || kind == "AEXPR_NOT_DISTINCT") {
    if (!a.contains("lexpr")) {
      SLUICE_ASSIGN_OR_RETURN(Piece r, side("rexpr"));
      if (r.unknown) r = Coerce(r, SqlType::Varchar());
      // A unary minus over a number constant is the negative constant.
      return Op(name + " " + Arg(r, Shape::kOp, name, false), Shape::kOp, "", r.type);
    }
    SLUICE_ASSIGN_OR_RETURN(Piece l, side("lexpr"));
    SLUICE_ASSIGN_OR_RETURN(Piece r, side("rexpr"));
    std::string op = name;
    if (kind == "AEXPR_LIKE") op = name == "~~" ? "~~" : "!~~";
    if (kind == "AEXPR_ILIKE") op = name == "~~*" ? "~~*" : "!~~*";
    Type result;
    Binary(op, &l, &r, &result);
    if (kind == "AEXPR_DISTINCT" || kind == "AEXPR_NOT_DISTINCT") {
      // IS NOT DISTINCT FROM is NOT over IS DISTINCT FROM.
      Piece d = Op(
          Arg(l, Shape::kTest, "", true) + " IS DISTINCT FROM " + Arg(r, Shape::kTest, "", false),
          Shape::kTest, "", SqlType::Boolean());
      if (kind == "AEXPR_DISTINCT") return d;
      return Op("NOT " + Arg(d, Shape::kNot, "", false), Shape::kNot, "", SqlType::Boolean());
    }
    return Op(Arg(l, Shape::kOp, op, true) + " " + op + " " + Arg(r, Shape::kOp, op, false),
              Shape::kOp, op, result);
  }
  if (kind == "AEXPR_IN") {
    SLUICE_ASSIGN_OR_RETURN(Piece l, side("lexpr"));
    std::vector<Piece> items{l};
    for (const Json& x : a["rexpr"]["List"]["items"]) {
      SLUICE_ASSIGN_OR_RETURN(Piece p, Expr(x, level, indent));
      items.push_back(p);
    }
    Type t = Common(items);
    if (IsVarchar(t)) t = SqlType::Varchar();
    const SqlType to = t ? *t : SqlType::Varchar();
    std::string list;
    for (size_t i = 1; i < items.size(); ++i) {
      list += (i > 1 ? ", " : "") + Coerce(items[i], to).text;
    }
    if (IsInt(t)) l = Coerce(l, to);
    const std::string op = name == "<>" ? "<> ALL" : "= ANY";
    return Op(Arg(Coerce(l, to), Shape::kOther, "", true) + " " + op + " (ARRAY[" + list + "])",
              Shape::kOther, "", SqlType::Boolean());
  }
  if (kind == "AEXPR_BETWEEN" || kind == "AEXPR_NOT_BETWEEN") {
    SLUICE_ASSIGN_OR_RETURN(Piece x, side("lexpr"));
    const Json& items = a["rexpr"]["List"]["items"];
    SLUICE_ASSIGN_OR_RETURN(Piece lo, Expr(items[0], level, indent));
    SLUICE_ASSIGN_OR_RETURN(Piece hi, Expr(items[1], level, indent));
    const bool between = kind == "AEXPR_BETWEEN";
    Piece x1 = x, x2 = x;
    Type t1, t2;
    Binary(between ? ">=" : "<", &x1, &lo, &t1);
    Binary(between ? "<=" : ">", &x2, &hi, &t2);
    Piece a1 = Op(
        Arg(x1, Shape::kOp, "", true) + (between ? " >= " : " < ") + Arg(lo, Shape::kOp, "", false),
        Shape::kOp, between ? ">=" : "<", SqlType::Boolean());
    Piece a2 = Op(
        Arg(x2, Shape::kOp, "", true) + (between ? " <= " : " > ") + Arg(hi, Shape::kOp, "", false),
        Shape::kOp, between ? "<=" : ">", SqlType::Boolean());
    const Shape s = between ? Shape::kAnd : Shape::kOr;
    const char* word = between ? " AND " : " OR ";
    return Op(Arg(a1, s, "", true) + word + Arg(a2, s, "", false), s, "", SqlType::Boolean());
  }
  if (kind == "AEXPR_NULLIF") {
    SLUICE_ASSIGN_OR_RETURN(Piece l, side("lexpr"));
    SLUICE_ASSIGN_OR_RETURN(Piece r, side("rexpr"));
    Type t;
    Binary("=", &l, &r, &t);
    Piece p;
    p.text = "NULLIF(" + l.text + ", " + r.text + ")";
    p.type = l.type;
    return p;
  }
  if (kind == "AEXPR_OP_ANY" || kind == "AEXPR_OP_ALL") {
    SLUICE_ASSIGN_OR_RETURN(Piece l, side("lexpr"));
    SLUICE_ASSIGN_OR_RETURN(Piece r, side("rexpr"));
    return Op(Arg(l, Shape::kOther, "", true) + " " + name +
                  (kind == "AEXPR_OP_ANY" ? " ANY (" : " ALL (") + r.text + ")",
              Shape::kOther, "", SqlType::Boolean());
  }
  return Unsupported("this operator");
}

void Deparser::Binary(const std::string& op, Piece* l, Piece* r, Type* result) const {
  const bool compare = op == "=" || op == "<>" || op == "<" || op == ">" || op == "<=" ||
                       op == ">=" || op == "~~" || op == "!~~" || op == "~~*" || op == "!~~*" ||
                       op == "~" || op == "!~" || op == "~*" || op == "!~*";
  const bool concat = op == "||";
  if (l->unknown && r->unknown) {
    *l = Coerce(*l, SqlType::Varchar());
    *r = Coerce(*r, SqlType::Varchar());
  } else if (l->unknown || r->unknown) {
    Piece* u = l->unknown ? l : r;
    Piece* k = l->unknown ? r : l;
    SqlType to = k->type ? *k->type : SqlType::Varchar();
    if (IsVarchar(k->type) || concat || (op[0] == '~' || op[0] == '!')) to = SqlType::Varchar();
    if (to.id() == TypeId::kVarchar && !to.is_json()) {
      if (IsVarchar(k->type)) *k = Coerce(*k, SqlType::Varchar());
      to = SqlType::Varchar();
    }
    if ((op == "+" || op == "-") && k->type &&
        (k->type->id() == TypeId::kTimestamp || k->type->id() == TypeId::kDate)) {
      to = SqlType::Interval();
    }
    *u = Coerce(*u, to);
  } else if (l->type && r->type) {
    const Type lt = l->type, rt = r->type;
    if ((IsInt(lt) || IsDecimal(lt) || IsFloat(lt)) &&
        (IsInt(rt) || IsDecimal(rt) || IsFloat(rt))) {
      if (IsFloat(lt) || IsFloat(rt)) {
        *l = Coerce(*l, SqlType::Double());
        *r = Coerce(*r, SqlType::Double());
      } else if (IsDecimal(lt) || IsDecimal(rt)) {
        *l = Coerce(*l, SqlType::Numeric());
        *r = Coerce(*r, SqlType::Numeric());
      }
    } else if ((IsVarchar(lt) || IsText(lt)) && (IsVarchar(rt) || IsText(rt))) {
      *l = Coerce(*l, SqlType::Varchar());
      *r = Coerce(*r, SqlType::Varchar());
    } else if (concat && (IsVarchar(lt) || IsVarchar(rt))) {
      *l = Coerce(*l, SqlType::Varchar());
      *r = Coerce(*r, SqlType::Varchar());
    }
  }
  if (compare) {
    *result = SqlType::Boolean();
    return;
  }
  if (concat) {
    *result = SqlType::Varchar();
    return;
  }
  const Type lt = l->type, rt = r->type;
  if (!lt || !rt) {
    *result = lt ? lt : rt;
    return;
  }
  if (IsInt(lt) && IsInt(rt)) {
    *result = IntRank(lt) >= IntRank(rt) ? lt : rt;
  } else if (lt->id() == TypeId::kDate && IsInt(rt)) {
    *result = SqlType::Date();
  } else if (lt->id() == TypeId::kDate && rt->id() == TypeId::kDate) {
    *result = SqlType::Integer();
  } else if (lt->id() == TypeId::kDate && rt->id() == TypeId::kInterval) {
    *result = SqlType::Timestamp();
  } else if (lt->id() == TypeId::kTimestamp && rt->id() == TypeId::kTimestamp && op == "-") {
    *result = SqlType::Interval();
  } else {
    *result = l->type;
  }
}

Result<Piece> Deparser::Case(const Json& c, Level* level, int indent) {
  std::optional<Piece> operand;
  if (c.contains("arg")) {
    SLUICE_ASSIGN_OR_RETURN(Piece p, Expr(c["arg"], level, indent));
    operand = p;
  }
  std::vector<Piece> conds, results;
  for (const Json& w : c["args"]) {
    const Json& cw = w["CaseWhen"];
    SLUICE_ASSIGN_OR_RETURN(Piece cond, Expr(cw["expr"], level, indent + kIndentVar));
    SLUICE_ASSIGN_OR_RETURN(Piece res, Expr(cw["result"], level, indent + kIndentVar));
    if (operand) {
      Piece o = *operand;
      Type t;
      Binary("=", &o, &cond, &t);
    } else if (cond.unknown) {
      cond = Coerce(cond, SqlType::Boolean());
    }
    conds.push_back(cond);
    results.push_back(res);
  }
  Piece def;
  def.unknown = true;
  def.is_null = true;
  if (c.contains("defresult")) {
    SLUICE_ASSIGN_OR_RETURN(def, Expr(c["defresult"], level, indent + kIndentVar));
  }
  std::vector<Piece> all = results;
  all.push_back(def);
  Type t = Common(all);
  const SqlType to = t ? *t : SqlType::Varchar();
  // CASE prints on lines of its own, one WHEN a line.
  std::string text;
  int in = indent;
  Keyword(&text, &in, "CASE", 0, kIndentVar, 0);
  if (operand) text += " " + operand->text;
  for (size_t i = 0; i < conds.size(); ++i) {
    Keyword(&text, &in, "WHEN ", 0, 0, 0);
    text += conds[i].text + " THEN " + Coerce(results[i], to).text;
  }
  Keyword(&text, &in, "ELSE ", 0, 0, 0);
  text += Coerce(def, to).text;
  Keyword(&text, &in, "END", -kIndentVar, 0, 0);
  Piece p;
  p.text = text;
  p.type = to;
  return p;
}

Piece Deparser::Wrapped(const std::string& text) {
  Piece p;
  p.text = "(" + text + ")";
  p.type = SqlType::Boolean();
  return p;
}

Result<Piece> Deparser::SubLink(const Json& sl, Level* level, int indent) {
  const std::string kind = sl.value("subLinkType", "");
  std::string q = "(";
  SLUICE_ASSIGN_OR_RETURN(Output o,
                          Query(sl["subselect"]["SelectStmt"], level, indent, nullptr, false, &q));
  q += ")";
  // EXISTS, IN and ANY hold themselves in parentheses; a scalar subquery
  // takes more where an operator holds it.
  if (kind == "EXISTS_SUBLINK") return Wrapped("EXISTS " + q);
  if (kind == "EXPR_SUBLINK") {
    Piece p;
    p.text = q;
    p.shape = Shape::kOther;
    if (!o.types.empty()) p.type = o.types[0];
    return p;
  }
  if (kind == "ARRAY_SUBLINK") {
    Piece p;
    p.text = "ARRAY" + q;
    if (!o.types.empty() && o.types[0]) p.type = SqlType::Array(*o.types[0]);
    return p;
  }
  if (kind == "ANY_SUBLINK" || kind == "ALL_SUBLINK") {
    SLUICE_ASSIGN_OR_RETURN(Piece l, Expr(sl["testexpr"], level, indent));
    const std::string op = sl.contains("operName") ? Str(sl["operName"].back()) : "=";
    if (kind == "ANY_SUBLINK" && op == "=")
      return Wrapped(Arg(l, Shape::kOther, "", true) + " IN " + q);
    return Wrapped(Arg(l, Shape::kOther, "", true) + " " + op +
                   (kind == "ANY_SUBLINK" ? " ANY " : " ALL ") + q);
  }
  return Unsupported("this subquery");
}

Result<Piece> Deparser::Function(const Json& f, Level* level, int indent) {
  const Json& names = f["funcname"];
  const std::string name = Str(names.back());
  if (names.size() > 1 && Str(names[0]) != "pg_catalog") return Unsupported("function " + name);
  std::vector<Piece> args;
  for (const Json& a : f.value("args", Json::array())) {
    SLUICE_ASSIGN_OR_RETURN(Piece p, Expr(a, level, indent));
    args.push_back(p);
  }
  if (f.contains("agg_within_group")) return Unsupported("WITHIN GROUP");
  if (f.value("funcformat", "") == "COERCE_SQL_SYNTAX") {
    if (name == "extract" && args.size() == 2 && args[0].unknown) {
      Piece p;
      p.text = "EXTRACT(" + args[0].literal + " FROM " + args[1].text + ")";
      p.type = SqlType::Numeric();
      return p;
    }
    return Unsupported(name + " in SQL syntax");
  }
  if (f.value("func_variadic", false)) return Unsupported("VARIADIC");
  // Argument types: untyped constants and VARCHARs become the TEXT that
  // functions of strings take; a few functions take other types.
  std::vector<SqlType> types;
  for (size_t i = 0; i < args.size(); ++i) {
    Piece& p = args[i];
    if (name == "generate_series" && i == 2 && !args.empty() && args[0].type &&
        args[0].type->id() == TypeId::kTimestamp) {
      p = Coerce(p, SqlType::Interval());
    } else if (p.unknown || (IsVarchar(p.type) && name != "count")) {
      p = Coerce(p, SqlType::Varchar());
    }
    types.push_back(p.type ? *p.type : SqlType::Varchar());
  }
  const bool star = f.value("agg_star", false);
  std::string text = Ident(name) + "(";
  if (f.value("agg_distinct", false)) text += "DISTINCT ";
  if (star) text += "*";
  for (size_t i = 0; i < args.size(); ++i) text += (i ? ", " : "") + args[i].text;
  if (f.contains("agg_order")) {
    text += " ORDER BY ";
    const Json& order = f["agg_order"];
    for (size_t i = 0; i < order.size(); ++i) {
      const Json& sb = order[i]["SortBy"];
      SLUICE_ASSIGN_OR_RETURN(Piece p, Expr(sb["node"], level, indent));
      std::string t = SortItem(p).text;
      SLUICE_RETURN_IF_ERROR(SortSuffix(sb, &t));
      text += (i ? ", " : "") + t;
    }
  }
  text += ")";
  if (f.contains("agg_filter")) {
    SLUICE_ASSIGN_OR_RETURN(Piece p, Expr(f["agg_filter"], level, indent));
    text += " FILTER (WHERE " + p.text + ")";
  }
  Piece p;
  p.call = true;
  p.type = ResultType(name, types);
  if (f.contains("over")) {
    const Json& over = f["over"];
    if (over.contains("name") && !over.contains("orderClause") &&
        !over.contains("partitionClause") && !over.contains("refname")) {
      text += " OVER " + Ident(over.value("name", ""));
    } else {
      SLUICE_ASSIGN_OR_RETURN(std::string spec, WindowSpec(over, Json::object(), level, indent));
      text += " OVER " + spec;
    }
  }
  p.text = text;
  return p;
}

Type Deparser::ResultType(const std::string& name, const std::vector<SqlType>& args) {
  const Type a0 = args.empty() ? Type() : Type(args[0]);
  if (name == "count" || name == "row_number" || name == "rank" || name == "dense_rank") {
    return SqlType::BigInt();
  }
  if (name == "ntile") return SqlType::Integer();
  if (name == "percent_rank" || name == "cume_dist") return SqlType::Double();
  if (name == "sum") {
    if (IntRank(a0) == 3) return SqlType::Numeric();
    if (IsInt(a0)) return SqlType::BigInt();
    return a0;
  }
  if (name == "avg") return IsFloat(a0) ? Type(SqlType::Double()) : Type(SqlType::Numeric());
  if (name == "min" || name == "max" || name == "first_value" || name == "last_value" ||
      name == "lag" || name == "lead" || name == "nth_value" || name == "generate_series") {
    return a0;
  }
  if (name == "string_agg") return SqlType::Varchar();
  if (name == "array_agg") return a0 ? Type(SqlType::Array(*a0)) : Type();
  if (name == "now") return SqlType::TimestampTz();
  Result<ResolvedFn> f = ResolveFunction(name, args);
  if (f.ok()) return f->result;
  return std::nullopt;
}

Result<std::string> Deparser::WindowSpec(const Json& w, const Json& s, Level* level, int indent) {
  std::string out = "(";
  bool any = false;
  auto space = [&]() {
    if (any) out += " ";
    any = true;
  };
  if (w.contains("refname")) {
    space();
    out += Ident(w.value("refname", ""));
  }
  if (w.contains("partitionClause")) {
    space();
    out += "PARTITION BY ";
    const Json& ps = w["partitionClause"];
    for (size_t i = 0; i < ps.size(); ++i) {
      SLUICE_ASSIGN_OR_RETURN(
          Piece p, s.empty() ? Expr(ps[i], level, indent) : SortExpr(ps[i], s, level, indent));
      out += (i ? ", " : "") + p.text;
    }
  }
  Type order_type;
  if (w.contains("orderClause")) {
    space();
    out += "ORDER BY ";
    const Json& os = w["orderClause"];
    for (size_t i = 0; i < os.size(); ++i) {
      const Json& sb = os[i]["SortBy"];
      SLUICE_ASSIGN_OR_RETURN(Piece p, s.empty() ? Expr(sb["node"], level, indent)
                                                 : SortExpr(sb["node"], s, level, indent));
      if (s.empty()) p = SortItem(p);
      if (i == 0) order_type = p.type;
      std::string t = p.text;
      SLUICE_RETURN_IF_ERROR(SortSuffix(sb, &t));
      out += (i ? ", " : "") + t;
    }
  }
  const int o = w.value("frameOptions", 0);
  // PostgreSQL's frame option bits (nodes/parsenodes.h).
  constexpr int kNonDefault = 0x1, kRange = 0x2, kRows = 0x4, kGroups = 0x8, kBetween = 0x10,
                kStartUnbPre = 0x20, kEndUnbFol = 0x100, kStartCur = 0x200, kEndCur = 0x400,
                kStartPre = 0x800, kEndPre = 0x1000, kStartFol = 0x2000, kEndFol = 0x4000,
                kExclCur = 0x8000, kExclGroup = 0x10000, kExclTies = 0x20000;
  if (o & kNonDefault) {
    space();
    out += (o & kRows) ? "ROWS " : (o & kGroups) ? "GROUPS " : "RANGE ";
    auto offset = [&](const char* key) -> Result<std::string> {
      SLUICE_ASSIGN_OR_RETURN(Piece p, Expr(w[key], level, indent));
      if (o & kRange) {
        SqlType to = order_type ? *order_type : SqlType::Integer();
        if (to.id() == TypeId::kTimestamp || to.id() == TypeId::kDate) to = SqlType::Interval();
        return Coerce(p, to).text;
      }
      return p.text;
    };
    auto bound = [&](bool start) -> Result<std::string> {
      if (o & (start ? kStartUnbPre : 0x40)) return std::string("UNBOUNDED PRECEDING");
      if (o & (start ? 0x80 : kEndUnbFol)) return std::string("UNBOUNDED FOLLOWING");
      if (o & (start ? kStartCur : kEndCur)) return std::string("CURRENT ROW");
      SLUICE_ASSIGN_OR_RETURN(std::string v, offset(start ? "startOffset" : "endOffset"));
      if (o & (start ? kStartPre : kEndPre)) return v + " PRECEDING";
      if (o & (start ? kStartFol : kEndFol)) return v + " FOLLOWING";
      return Unsupported("this window frame");
    };
    if (o & kBetween) {
      SLUICE_ASSIGN_OR_RETURN(std::string a, bound(true));
      SLUICE_ASSIGN_OR_RETURN(std::string b, bound(false));
      out += "BETWEEN " + a + " AND " + b;
    } else {
      SLUICE_ASSIGN_OR_RETURN(std::string a, bound(true));
      out += a;
    }
    if (o & kExclCur) out += " EXCLUDE CURRENT ROW";
    if (o & kExclGroup) out += " EXCLUDE GROUP";
    if (o & kExclTies) out += " EXCLUDE TIES";
  }
  return out + ")";
}

}  // namespace sluice::sql::deparse
