#include "sql/deparse.h"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "sql/binder.h"
#include "sql/deparser.h"
#include "sql/expr.h"
#include "sql/functions.h"
#include "sql/sql_text.h"

namespace sluice::sql {
namespace deparse {

std::string Str(const Json& n) {
  if (n.contains("String")) return n["String"].value("sval", "");
  return "";
}

std::vector<std::string> Strings(const Json& list) {
  std::vector<std::string> out;
  for (const Json& n : list) out.push_back(Str(n));
  return out;
}

std::string Ident(const std::string& name) {
  static const std::set<std::string> kReserved = {"all",
                                                  "analyse",
                                                  "analyze",
                                                  "and",
                                                  "any",
                                                  "array",
                                                  "as",
                                                  "asc",
                                                  "between",
                                                  "bigint",
                                                  "bit",
                                                  "boolean",
                                                  "both",
                                                  "case",
                                                  "cast",
                                                  "char",
                                                  "character",
                                                  "check",
                                                  "coalesce",
                                                  "collate",
                                                  "column",
                                                  "constraint",
                                                  "create",
                                                  "current_date",
                                                  "current_role",
                                                  "current_time",
                                                  "current_timestamp",
                                                  "current_user",
                                                  "dec",
                                                  "decimal",
                                                  "default",
                                                  "deferrable",
                                                  "desc",
                                                  "distinct",
                                                  "do",
                                                  "else",
                                                  "end",
                                                  "except",
                                                  "exists",
                                                  "extract",
                                                  "false",
                                                  "fetch",
                                                  "float",
                                                  "for",
                                                  "foreign",
                                                  "from",
                                                  "grant",
                                                  "greatest",
                                                  "group",
                                                  "grouping",
                                                  "having",
                                                  "in",
                                                  "initially",
                                                  "inout",
                                                  "int",
                                                  "integer",
                                                  "intersect",
                                                  "interval",
                                                  "into",
                                                  "lateral",
                                                  "leading",
                                                  "least",
                                                  "limit",
                                                  "localtime",
                                                  "localtimestamp",
                                                  "national",
                                                  "nchar",
                                                  "none",
                                                  "normalize",
                                                  "not",
                                                  "null",
                                                  "nullif",
                                                  "numeric",
                                                  "offset",
                                                  "on",
                                                  "only",
                                                  "or",
                                                  "order",
                                                  "out",
                                                  "overlay",
                                                  "placing",
                                                  "position",
                                                  "precision",
                                                  "primary",
                                                  "real",
                                                  "references",
                                                  "returning",
                                                  "row",
                                                  "select",
                                                  "session_user",
                                                  "setof",
                                                  "smallint",
                                                  "some",
                                                  "substring",
                                                  "symmetric",
                                                  "table",
                                                  "then",
                                                  "time",
                                                  "timestamp",
                                                  "to",
                                                  "trailing",
                                                  "treat",
                                                  "trim",
                                                  "true",
                                                  "union",
                                                  "unique",
                                                  "user",
                                                  "using",
                                                  "values",
                                                  "varchar",
                                                  "variadic",
                                                  "when",
                                                  "where",
                                                  "window",
                                                  "with",
                                                  "xmlattributes",
                                                  "xmlconcat",
                                                  "xmlelement",
                                                  "xmlexists",
                                                  "xmlforest",
                                                  "xmlnamespaces",
                                                  "xmlparse",
                                                  "xmlpi",
                                                  "xmlroot",
                                                  "xmlserialize",
                                                  "xmltable",
                                                  "authorization",
                                                  "binary",
                                                  "collation",
                                                  "concurrently",
                                                  "cross",
                                                  "current_schema",
                                                  "freeze",
                                                  "full",
                                                  "ilike",
                                                  "inner",
                                                  "is",
                                                  "isnull",
                                                  "join",
                                                  "left",
                                                  "like",
                                                  "natural",
                                                  "notnull",
                                                  "outer",
                                                  "overlaps",
                                                  "right",
                                                  "similar",
                                                  "tablesample",
                                                  "verbose"};
  bool plain =
      !name.empty() && (std::islower(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) {
    plain = plain && (std::islower(static_cast<unsigned char>(c)) ||
                      std::isdigit(static_cast<unsigned char>(c)) || c == '_');
  }
  if (plain && !kReserved.count(name)) return name;
  return QuoteIdentifier(name);
}

std::string Quote(const std::string& s) {
  std::string out = "'";
  bool escape = false;
  for (char c : s) {
    if (c == '\'') out += '\'';
    if (c == '\\') {
      out += '\\';
      escape = true;
    }
    out += c;
  }
  return (escape ? "E" : "") + out + "'";
}

std::string TypeText(const SqlType& t) {
  switch (t.id()) {
    case TypeId::kDecimal:
      if (t.dynamic_scale()) return "numeric";
      return "numeric(" + std::to_string(t.precision()) + "," + std::to_string(t.scale()) + ")";
    case TypeId::kVarchar:
      if (t.is_json() || t.precision() < 0) return PgTypeName(t);
      return "character varying(" + std::to_string(t.precision()) + ")";
    case TypeId::kChar:
      return "character(" + std::to_string(t.length()) + ")";
    case TypeId::kArray:
      if (t.IsSqlArray()) return TypeText(SqlType(t.children()[0])) + "[]";
      return PgTypeName(t);
    default:
      return PgTypeName(t);
  }
}

bool IsInt(const Type& t) { return t && t->IsInteger() && t->pg_kind() == PgKind::kNone; }
bool IsDecimal(const Type& t) { return t && t->id() == TypeId::kDecimal; }
bool IsFloat(const Type& t) {
  return t && (t->id() == TypeId::kDouble || t->id() == TypeId::kReal);
}

bool IsVarchar(const Type& t) {
  return t && t->id() == TypeId::kVarchar && !t->is_json() && t->precision() >= 0;
}

bool IsText(const Type& t) {
  return t && t->id() == TypeId::kVarchar && !t->is_json() && t->precision() < 0;
}

int IntRank(const Type& t) {
  if (!IsInt(t)) return 0;
  return t->id() == TypeId::kBigInt ? 3 : t->id() == TypeId::kInteger ? 2 : 1;
}

Result<std::string> Deparser::View(const Json& select, const std::vector<std::string>& names) {
  std::string out;
  SLUICE_RETURN_IF_ERROR(Query(select, nullptr, 0, &names, true, &out).status());
  return out + ";";
}

Status Deparser::Unsupported(const std::string& what) const { return Status::Unimplemented(what); }

void Deparser::Keyword(std::string* buf, int* indent, const std::string& word, int before,
                       int after, int plus) const {
  *indent += before;
  while (!buf->empty() && buf->back() == ' ') buf->pop_back();
  *buf += '\n';
  buf->append(static_cast<size_t>(std::max(*indent, 0) + plus), ' ');
  *buf += word;
  *indent += after;
}

void Deparser::Append(std::string* buf, const std::string& text) {
  if (!text.empty() && text[0] == '\n') {
    while (!buf->empty() && buf->back() == ' ') buf->pop_back();
  }
  *buf += text;
}

Result<Output> Deparser::Query(const Json& s, const Level* parent, int indent,
                               const std::vector<std::string>* result_names, bool visible,
                               std::string* buf) {
  Level level;
  level.parent = parent;
  if (s.contains("withClause")) {
    SLUICE_RETURN_IF_ERROR(DeclareCtes(s["withClause"], &level));
  }
  const std::string op = s.value("op", "SETOP_NONE");
  std::vector<std::string> top_names;
  if (op != "SETOP_NONE" && result_names != nullptr) {
    // A view's columns are named by its first arm.
    const Json* first = &s;
    while (first->value("op", "SETOP_NONE") != "SETOP_NONE") first = &(*first)["larg"];
    std::string scratch;
    SLUICE_ASSIGN_OR_RETURN(Output o, Query(*first, parent, 0, result_names, true, &scratch));
    top_names = o.names;
    result_names = &top_names;
  }
  if (op != "SETOP_NONE") {
    // The names of a set operation's FROM items are its arms' own.
    if (s.contains("withClause")) {
      SLUICE_RETURN_IF_ERROR(With(s["withClause"], &level, &indent, buf));
    }
    SLUICE_ASSIGN_OR_RETURN(Output o, SetOp(s, &level, &indent, result_names, visible, buf));
    SLUICE_RETURN_IF_ERROR(Tail(s, &level, nullptr, &o, &indent, buf));
    return o;
  }
  if (s.contains("valuesLists")) return Unsupported("VALUES as a query");
  SLUICE_RETURN_IF_ERROR(DeclareFrom(s.value("fromClause", Json::array()), &level));
  if (s.contains("withClause")) {
    SLUICE_RETURN_IF_ERROR(With(s["withClause"], &level, &indent, buf));
  }
  level.windows = s.contains("windowClause") ? &s["windowClause"] : nullptr;
  return Basic(s, &level, indent, result_names, visible, buf);
}

Status Deparser::DeclareCtes(const Json& with, Level* level) {
  for (const Json& c : with["ctes"]) {
    const Json& cte = c["CommonTableExpr"];
    const std::string name = cte.value("ctename", "");
    const Json& q = cte["ctequery"]["SelectStmt"];
    std::vector<std::string> aliases = Strings(cte.value("aliascolnames", Json::array()));
    // A recursive query's columns are those of its first arm.
    const Json& first =
        q.value("op", "SETOP_NONE") != "SETOP_NONE" && with.value("recursive", false) ? q["larg"]
                                                                                      : q;
    std::string scratch;
    SLUICE_ASSIGN_OR_RETURN(Output o, Query(first, level, 0, nullptr, true, &scratch));
    Cte def{o.names, o.types};
    for (size_t i = 0; i < aliases.size() && i < def.columns.size(); ++i) {
      def.columns[i] = aliases[i];
    }
    // SEARCH adds its sequence column, CYCLE its mark and path columns.
    if (cte.contains("search_clause")) {
      def.columns.push_back(Clause(cte, "search_clause").value("search_seq_column", ""));
      def.types.emplace_back();
    }
    if (cte.contains("cycle_clause")) {
      const Json& cc = Clause(cte, "cycle_clause");
      def.columns.push_back(cc.value("cycle_mark_column", ""));
      def.types.emplace_back();
      def.columns.push_back(cc.value("cycle_path_column", ""));
      def.types.emplace_back();
    }
    level->ctes[name] = def;
  }
  return Status::OK();
}

Status Deparser::With(const Json& with, Level* level, int* indent, std::string* buf) {
  *indent += kIndentStd;
  *buf += ' ';
  *buf += with.value("recursive", false) ? "WITH RECURSIVE " : "WITH ";
  bool first = true;
  for (const Json& c : with["ctes"]) {
    const Json& cte = c["CommonTableExpr"];
    if (!first) *buf += ", ";
    first = false;
    *buf += Ident(cte.value("ctename", ""));
    std::vector<std::string> aliases = Strings(cte.value("aliascolnames", Json::array()));
    if (!aliases.empty()) {
      *buf += '(';
      for (size_t i = 0; i < aliases.size(); ++i) *buf += (i ? ", " : "") + Ident(aliases[i]);
      *buf += ')';
    }
    *buf += " AS ";
    const std::string m = cte.value("ctematerialized", "CTEMaterializeDefault");
    if (m == "CTEMaterializeAlways") *buf += "MATERIALIZED ";
    if (m == "CTEMaterializeNever") *buf += "NOT MATERIALIZED ";
    *buf += '(';
    Keyword(buf, indent, "", 0, 0, 0);
    SLUICE_RETURN_IF_ERROR(
        Query(cte["ctequery"]["SelectStmt"], level, *indent, nullptr, true, buf).status());
    Keyword(buf, indent, "", 0, 0, 0);
    *buf += ')';
    SLUICE_RETURN_IF_ERROR(SearchCycle(cte, level, *indent, buf));
  }
  *indent -= kIndentStd;
  Keyword(buf, indent, "", 0, 0, 0);
  return Status::OK();
}

const Json& Deparser::Clause(const Json& cte, const char* key) {
  const Json& c = cte[key];
  for (const char* k : {"CTESearchClause", "CTECycleClause"}) {
    if (c.contains(k)) return c[k];
  }
  return c;
}

std::string Deparser::NameList(const Json& list) {
  std::string out;
  for (const Json& n : list) out += (out.empty() ? "" : ", ") + Ident(Str(n));
  return out;
}

Status Deparser::SearchCycle(const Json& cte, Level* level, int indent, std::string* buf) {
  if (cte.contains("search_clause")) {
    const Json& sc = Clause(cte, "search_clause");
    *buf += sc.value("search_breadth_first", false) ? " SEARCH BREADTH FIRST BY "
                                                    : " SEARCH DEPTH FIRST BY ";
    *buf += NameList(sc.value("search_col_list", Json::array())) + " SET " +
            Ident(sc.value("search_seq_column", ""));
  }
  if (cte.contains("cycle_clause")) {
    const Json& cc = Clause(cte, "cycle_clause");
    *buf += " CYCLE " + NameList(cc.value("cycle_col_list", Json::array())) + " SET " +
            Ident(cc.value("cycle_mark_column", ""));
    if (cc.contains("cycle_mark_value")) {
      SLUICE_ASSIGN_OR_RETURN(Piece v, Expr(cc["cycle_mark_value"], level, indent));
      SLUICE_ASSIGN_OR_RETURN(Piece d, Expr(cc["cycle_mark_default"], level, indent));
      const Type t = Common({v, d});
      const SqlType to = t ? *t : SqlType::Varchar();
      const std::string value = Coerce(v, to).text, other = Coerce(d, to).text;
      // The default mark (TO true DEFAULT false) is left out.
      if (value != "true" || other != "false") *buf += " TO " + value + " DEFAULT " + other;
    }
    *buf += " USING " + Ident(cc.value("cycle_path_column", ""));
  }
  return Status::OK();
}

Result<Output> Deparser::SetOp(const Json& s, Level* level, int* indent,
                               const std::vector<std::string>* result_names, bool visible,
                               std::string* buf) {
  auto is_setop = [](const Json& q) { return q.value("op", "SETOP_NONE") != "SETOP_NONE"; };
  auto leaf = [&](const Json& q, bool vis) -> Result<Output> {
    if (is_setop(q)) {
      return SetOp(q, level, indent, result_names, vis, buf);
    }
    const bool paren = q.contains("withClause") || q.contains("sortClause") ||
                       q.contains("limitCount") || q.contains("limitOffset");
    if (paren) *buf += '(';
    SLUICE_ASSIGN_OR_RETURN(Output o, Query(q, level, *indent, result_names, vis, buf));
    if (paren) *buf += ')';
    return o;
  };
  const Json& l = s["larg"];
  const Json& r = s["rarg"];
  const std::string op = s.value("op", "");
  const bool all = s.value("all", false);
  bool paren = is_setop(l) && (l.value("op", "") != op || l.value("all", false) != all);
  int sub = 0;
  if (paren) {
    *buf += '(';
    sub = kIndentStd;
    Keyword(buf, indent, "", sub, 0, 0);
  }
  SLUICE_ASSIGN_OR_RETURN(Output out, leaf(l, visible));
  if (paren) {
    Keyword(buf, indent, ") ", -sub, 0, 0);
  } else {
    Keyword(buf, indent, "", -sub, 0, 0);
  }
  *buf += op == "SETOP_UNION" ? "UNION " : op == "SETOP_INTERSECT" ? "INTERSECT " : "EXCEPT ";
  if (all) *buf += "ALL ";
  paren = is_setop(r);
  sub = paren ? kIndentStd : 0;
  if (paren) *buf += '(';
  Keyword(buf, indent, "", sub, 0, 0);
  SLUICE_RETURN_IF_ERROR(leaf(r, false).status());
  *indent -= sub;
  if (paren) Keyword(buf, indent, ")", 0, 0, 0);
  return out;
}

Status Deparser::DeclareFrom(const Json& from, Level* level) {
  for (const Json& item : from) {
    SLUICE_RETURN_IF_ERROR(DeclareItem(item, level).status());
  }
  return Status::OK();
}

std::string Deparser::UniqueName(const std::string& base, Level* level) {
  std::string n = base;
  for (int i = 1; level->Taken(n); ++i) n = base + "_" + std::to_string(i);
  level->names.insert(n);
  return n;
}

Result<int> Deparser::DeclareItem(const Json& item, Level* level) {
  RangeItem r;
  if (item.contains("RangeVar")) {
    const Json& rv = item["RangeVar"];
    const std::string rel = rv.value("relname", "");
    r.ref = rv.contains("alias") ? rv["alias"].value("aliasname", rel) : rel;
    const Cte* cte = rv.contains("schemaname") ? nullptr : level->FindCte(rel);
    if (cte != nullptr) {
      r.columns = cte->columns;
      r.types = cte->types;
    } else if (const TableDef* t = catalog_.FindTable(rel)) {
      for (const Column& c : t->columns) {
        r.columns.push_back(c.name);
        r.types.push_back(c.type);
      }
    } else if (const ViewDef* v = catalog_.FindView(rel)) {
      for (size_t i = 0; i < v->query.visible; ++i) {
        r.columns.push_back(v->query.plan->columns[i].name);
        r.types.push_back(v->query.plan->columns[i].type);
      }
    } else {
      return Unsupported("relation " + rel);
    }
    if (rv.contains("alias") && rv["alias"].contains("colnames")) {
      std::vector<std::string> names = Strings(rv["alias"]["colnames"]);
      for (size_t i = 0; i < names.size() && i < r.columns.size(); ++i) r.columns[i] = names[i];
    }
    r.name = UniqueName(r.ref, level);
  } else if (item.contains("RangeSubselect")) {
    const Json& rs = item["RangeSubselect"];
    if (!rs.contains("alias")) return Unsupported("a subquery without an alias");
    std::string scratch;
    Output o;
    const Json& q = rs["subquery"]["SelectStmt"];
    if (q.contains("valuesLists")) {
      SLUICE_RETURN_IF_ERROR(Values(q, level, 0, &scratch, &o.types));
      for (size_t i = 0; i < o.types.size(); ++i)
        o.names.push_back("column" + std::to_string(i + 1));
    } else {
      SLUICE_ASSIGN_OR_RETURN(o, Query(q, level, 0, nullptr, true, &scratch));
    }
    r.ref = rs["alias"].value("aliasname", "");
    r.columns = o.names;
    r.types = o.types;
    if (rs["alias"].contains("colnames")) {
      std::vector<std::string> names = Strings(rs["alias"]["colnames"]);
      for (size_t i = 0; i < names.size() && i < r.columns.size(); ++i) r.columns[i] = names[i];
    }
    r.name = UniqueName(r.ref, level);
  } else if (item.contains("RangeFunction")) {
    const Json& rf = item["RangeFunction"];
    if (rf.value("lateral", false) || rf.value("ordinality", false) ||
        rf["functions"].size() != 1 || rf.contains("coldeflist")) {
      return Unsupported("this function in FROM");
    }
    const Json& call = rf["functions"][0]["List"]["items"][0];
    if (!call.contains("FuncCall")) return Unsupported("this function in FROM");
    const std::string fname = Str(call["FuncCall"]["funcname"].back());
    if (fname != "generate_series" && fname != "unnest") {
      return Unsupported("function " + fname + " in FROM");
    }
    Type t;
    const Json& args = call["FuncCall"].value("args", Json::array());
    if (!args.empty()) {
      Level probe;
      probe.parent = level;
      SLUICE_ASSIGN_OR_RETURN(Piece p, Expr(args[0], &probe, 0));
      t = p.type;
      if (p.unknown) t = std::nullopt;
      if (fname == "unnest") {
        t = t && t->id() == TypeId::kArray ? Type(SqlType(t->children()[0])) : std::nullopt;
      }
    }
    r.ref = rf.contains("alias") ? rf["alias"].value("aliasname", fname) : fname;
    std::vector<std::string> names;
    if (rf.contains("alias") && rf["alias"].contains("colnames")) {
      names = Strings(rf["alias"]["colnames"]);
    }
    r.columns = {names.empty() ? r.ref : names[0]};
    r.types = {t};
    r.name = UniqueName(r.ref, level);
  } else if (item.contains("JoinExpr")) {
    const Json& j = item["JoinExpr"];
    SLUICE_ASSIGN_OR_RETURN(int left, DeclareItem(j["larg"], level));
    SLUICE_ASSIGN_OR_RETURN(int right, DeclareItem(j["rarg"], level));
    r.join = true;
    r.left = left;
    r.right = right;
    r.using_columns = Strings(j.value("usingClause", Json::array()));
    // Its columns: the USING ones once, then the rest of each side.
    if (j.contains("alias")) return Unsupported("an aliased JOIN");
    if (j.value("isNatural", false)) return Unsupported("NATURAL JOIN");
  } else {
    return Unsupported("this FROM item");
  }
  level->items.push_back(std::move(r));
  return static_cast<int>(level->items.size()) - 1;
}

Result<Output> Deparser::Basic(const Json& s, Level* level, int indent,
                               const std::vector<std::string>* result_names, bool visible,
                               std::string* buf) {
  indent += kIndentStd;
  *buf += " SELECT";
  if (s.contains("distinctClause")) {
    const Json& d = s["distinctClause"];
    if (d.size() == 1 && (d[0].is_null() || d[0].empty())) {
      *buf += " DISTINCT";
    } else {
      *buf += " DISTINCT ON (";
      for (size_t i = 0; i < d.size(); ++i) {
        SLUICE_ASSIGN_OR_RETURN(Piece p, SortExpr(d[i], s, level, indent));
        *buf += (i ? ", " : "") + p.text;
      }
      *buf += ")";
    }
  }
  // The select list, `*` expanded.
  Output out;
  std::vector<std::pair<Piece, std::string>> targets;  // the piece, its name
  for (const Json& t : s.value("targetList", Json::array())) {
    const Json& rt = t["ResTarget"];
    const Json& val = rt["val"];
    if (val.contains("ColumnRef") && val["ColumnRef"]["fields"].back().contains("A_Star")) {
      const Json& fields = val["ColumnRef"]["fields"];
      std::string qual = fields.size() > 1 ? Str(fields[0]) : "";
      // A USING column is the join's, once: its right input's is left out.
      std::set<std::pair<int, std::string>> merged;
      for (const RangeItem& item : level->items) {
        for (const std::string& c : item.using_columns) merged.emplace(item.right, c);
      }
      for (size_t k = 0; k < level->items.size(); ++k) {
        const RangeItem& item = level->items[k];
        if (item.join || (!qual.empty() && item.ref != qual)) continue;
        for (size_t c = 0; c < item.columns.size(); ++c) {
          if (qual.empty() && merged.count({static_cast<int>(k), item.columns[c]})) continue;
          Piece p;
          p.text = item.name + "." + Ident(item.columns[c]);
          p.type = item.types[c];
          p.column = item.columns[c];
          targets.emplace_back(p, item.columns[c]);
        }
      }
      continue;
    }
    SLUICE_ASSIGN_OR_RETURN(Piece p, Expr(val, level, indent));
    std::string name = rt.contains("name") ? rt.value("name", "") : ColumnName(val);
    if (p.unknown) p = Coerce(p, SqlType::Varchar());
    targets.emplace_back(p, name);
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    Piece& p = targets[i].first;
    std::string name = targets[i].second;
    if (result_names != nullptr && i < result_names->size() && !(*result_names)[i].empty()) {
      name = (*result_names)[i];
    }
    out.names.push_back(name);
    out.types.push_back(p.type);
    std::string text = p.text;
    bool show = result_names != nullptr || visible || name != "?column?";
    if (show && (p.column.empty() || p.column != name)) text += " AS " + Ident(name);
    // PostgreSQL prints a view with wrap column 0: every column after the
    // first on a line of its own, unless it starts a line itself (CASE).
    *buf += i == 0 ? " " : ", ";
    if (!text.empty() && text[0] == '\n') {
      while (!buf->empty() && buf->back() == ' ') buf->pop_back();
    } else if (i > 0) {
      Keyword(buf, &indent, "", -kIndentStd, kIndentStd, kIndentVar);
    }
    *buf += text;
  }
  // FROM
  const Json& from = s.value("fromClause", Json::array());
  if (!from.empty()) {
    Keyword(buf, &indent, " FROM ", -kIndentStd, kIndentStd, 2);
    size_t next = 0;
    for (size_t i = 0; i < from.size(); ++i) {
      if (i > 0) {
        *buf += ", ";
        Keyword(buf, &indent, "", -kIndentStd, kIndentStd, kIndentVar);
      }
      SLUICE_RETURN_IF_ERROR(FromItem(from[i], level, &next, &indent, buf));
    }
  }
  if (s.contains("whereClause")) {
    Keyword(buf, &indent, " WHERE ", -kIndentStd, kIndentStd, 1);
    SLUICE_ASSIGN_OR_RETURN(Piece p, Expr(s["whereClause"], level, indent));
    Append(buf, p.text);
  }
  if (s.contains("groupClause")) {
    Keyword(buf, &indent, " GROUP BY ", -kIndentStd, kIndentStd, 1);
    if (s.value("groupDistinct", false)) *buf += "DISTINCT ";
    const Json& g = s["groupClause"];
    for (size_t i = 0; i < g.size(); ++i) {
      SLUICE_ASSIGN_OR_RETURN(std::string t, GroupItem(g[i], s, level, indent));
      *buf += (i ? ", " : "") + t;
    }
  }
  if (s.contains("havingClause")) {
    Keyword(buf, &indent, " HAVING ", -kIndentStd, kIndentStd, 0);
    SLUICE_ASSIGN_OR_RETURN(Piece p, Expr(s["havingClause"], level, indent));
    Append(buf, p.text);
  }
  if (s.contains("windowClause")) {
    Keyword(buf, &indent, " WINDOW ", -kIndentStd, kIndentStd, 1);
    const Json& w = s["windowClause"];
    for (size_t i = 0; i < w.size(); ++i) {
      const Json& def = w[i]["WindowDef"];
      SLUICE_ASSIGN_OR_RETURN(std::string spec, WindowSpec(def, s, level, indent));
      *buf += (i ? ", " : "") + Ident(def.value("name", "")) + " AS " + spec;
    }
  }
  SLUICE_RETURN_IF_ERROR(Tail(s, level, &s, &out, &indent, buf));
  return out;
}

Status Deparser::Tail(const Json& s, Level* level, const Json* select, Output* out, int* indent,
                      std::string* buf) {
  if (s.contains("sortClause")) {
    Keyword(buf, indent, " ORDER BY ", -kIndentStd, kIndentStd, 1);
    const Json& sorts = s["sortClause"];
    for (size_t i = 0; i < sorts.size(); ++i) {
      const Json& sb = sorts[i]["SortBy"];
      std::string t;
      if (select == nullptr) {
        // A set operation's output column, by number or by name.
        const Json& n = sb["node"];
        if (n.contains("A_Const") && n["A_Const"].contains("ival")) {
          t = std::to_string(n["A_Const"]["ival"].value("ival", 0));
        } else if (n.contains("ColumnRef")) {
          const std::string c = Str(n["ColumnRef"]["fields"].back());
          t = c;
          for (size_t k = 0; k < out->names.size(); ++k) {
            if (out->names[k] == c) t = std::to_string(k + 1);
          }
        } else {
          return Unsupported("this ORDER BY of a set operation");
        }
      } else {
        SLUICE_ASSIGN_OR_RETURN(Piece p, SortExpr(sb["node"], *select, level, *indent));
        t = p.text;
      }
      SLUICE_RETURN_IF_ERROR(SortSuffix(sb, &t));
      *buf += (i ? ", " : "") + t;
    }
  }
  if (s.contains("limitOffset")) {
    Keyword(buf, indent, " OFFSET ", -kIndentStd, kIndentStd, 0);
    SLUICE_ASSIGN_OR_RETURN(Piece p, Expr(s["limitOffset"], level, *indent));
    *buf += p.text;
  }
  if (s.contains("limitCount")) {
    Keyword(buf, indent, " LIMIT ", -kIndentStd, kIndentStd, 0);
    const Json& c = s["limitCount"];
    if (c.contains("A_Const") && c["A_Const"].value("isnull", false)) {
      *buf += "ALL";
    } else {
      SLUICE_ASSIGN_OR_RETURN(Piece p, Expr(c, level, *indent));
      *buf += p.text;
    }
  }
  return Status::OK();
}

Status Deparser::SortSuffix(const Json& sb, std::string* t) {
  const std::string dir = sb.value("sortby_dir", "SORTBY_DEFAULT");
  const std::string nulls = sb.value("sortby_nulls", "SORTBY_NULLS_DEFAULT");
  if (dir == "SORTBY_USING") return Unsupported("ORDER BY USING");
  const bool desc = dir == "SORTBY_DESC";
  if (desc) *t += " DESC";
  if (nulls == "SORTBY_NULLS_FIRST" && !desc) *t += " NULLS FIRST";
  if (nulls == "SORTBY_NULLS_LAST" && desc) *t += " NULLS LAST";
  return Status::OK();
}

Piece Deparser::SortItem(Piece p) const {
  if (!p.column.empty() || p.is_const) return p;
  if (pretty_ || p.call) p.text = "(" + p.text + ")";
  return p;
}

Result<Piece> Deparser::SortExpr(const Json& n, const Json& s, Level* level, int indent) {
  SLUICE_ASSIGN_OR_RETURN(Piece p, SortTarget(n, s, level, indent));
  return SortItem(p);
}

Result<Piece> Deparser::SortTarget(const Json& n, const Json& s, Level* level, int indent) {
  const Json& targets = s.value("targetList", Json::array());
  if (n.contains("A_Const") && n["A_Const"].contains("ival")) {
    const int k = n["A_Const"]["ival"].value("ival", 0);
    if (k >= 1 && static_cast<size_t>(k) <= targets.size()) {
      const Json& val = targets[static_cast<size_t>(k) - 1]["ResTarget"]["val"];
      if (val.contains("A_Const")) {
        Piece p;
        p.text = std::to_string(k);
        p.is_const = true;
        return p;
      }
      return Expr(val, level, indent);
    }
  }
  if (n.contains("ColumnRef") && n["ColumnRef"]["fields"].size() == 1) {
    const std::string c = Str(n["ColumnRef"]["fields"][0]);
    bool in_scope = false;
    for (const RangeItem& item : level->items) {
      for (const std::string& col : item.columns) in_scope = in_scope || col == c;
    }
    if (!in_scope) {
      for (const Json& t : targets) {
        if (t["ResTarget"].value("name", "") == c)
          return Expr(t["ResTarget"]["val"], level, indent);
      }
    }
  }
  return Expr(n, level, indent);
}

Result<std::string> Deparser::GroupItem(const Json& g, const Json& s, Level* level, int indent) {
  if (!g.contains("GroupingSet")) {
    SLUICE_ASSIGN_OR_RETURN(Piece p, SortExpr(g, s, level, indent));
    return p.text;
  }
  const Json& gs = g["GroupingSet"];
  const std::string kind = gs.value("kind", "");
  if (kind == "GROUPING_SET_EMPTY") return std::string("()");
  std::string items;
  const Json& content = gs.value("content", Json::array());
  for (size_t i = 0; i < content.size(); ++i) {
    std::string t;
    const Json& c = content[i];
    if (c.contains("RowExpr") || (c.contains("GroupingSet") && kind != "GROUPING_SET_SETS")) {
      // A parenthesized list of columns inside ROLLUP or CUBE.
      const Json& list = c.contains("RowExpr") ? c["RowExpr"].value("args", Json::array())
                                               : c["GroupingSet"].value("content", Json::array());
      t = "(";
      for (size_t k = 0; k < list.size(); ++k) {
        SLUICE_ASSIGN_OR_RETURN(Piece p, SortExpr(list[k], s, level, indent));
        t += (k ? ", " : "") + p.text;
      }
      t += ")";
    } else if (c.contains("GroupingSet")) {
      SLUICE_ASSIGN_OR_RETURN(t, GroupItem(c, s, level, indent));
    } else {
      SLUICE_ASSIGN_OR_RETURN(Piece p, SortExpr(c, s, level, indent));
      t = kind == "GROUPING_SET_SETS" ? "(" + p.text + ")" : p.text;
    }
    items += (i ? ", " : "") + t;
  }
  if (kind == "GROUPING_SET_ROLLUP") return "ROLLUP(" + items + ")";
  if (kind == "GROUPING_SET_CUBE") return "CUBE(" + items + ")";
  if (kind == "GROUPING_SET_SETS") return "GROUPING SETS (" + items + ")";
  // A plain list of columns: GROUPING SETS' item (a, b).
  return "(" + items + ")";
}

Status Deparser::FromItem(const Json& item, Level* level, size_t* next, int* indent,
                          std::string* buf) {
  if (item.contains("JoinExpr")) {
    const Json& j = item["JoinExpr"];
    const bool paren = !pretty_;
    if (paren) *buf += '(';
    SLUICE_RETURN_IF_ERROR(FromItem(j["larg"], level, next, indent, buf));
    const std::string type = j.value("jointype", "JOIN_INNER");
    const bool cross = type == "JOIN_INNER" && !j.contains("quals") && !j.contains("usingClause");
    std::string kw = cross                  ? " CROSS JOIN "
                     : type == "JOIN_LEFT"  ? " LEFT JOIN "
                     : type == "JOIN_RIGHT" ? " RIGHT JOIN "
                     : type == "JOIN_FULL"  ? " FULL JOIN "
                                            : " JOIN ";
    Keyword(buf, indent, kw, -kIndentStd, kIndentStd, kIndentJoin);
    if (j["rarg"].contains("JoinExpr")) return Unsupported("a JOIN on the right of a JOIN");
    SLUICE_RETURN_IF_ERROR(FromItem(j["rarg"], level, next, indent, buf));
    ++*next;  // the JOIN's own item
    if (j.contains("usingClause")) {
      *buf += " USING (";
      std::vector<std::string> cols = Strings(j["usingClause"]);
      for (size_t i = 0; i < cols.size(); ++i) *buf += (i ? ", " : "") + Ident(cols[i]);
      *buf += ")";
    } else if (j.contains("quals")) {
      SLUICE_ASSIGN_OR_RETURN(Piece q, Expr(j["quals"], level, *indent));
      *buf += " ON ";
      *buf += pretty_ ? q.text : "(" + q.text + ")";
    }
    if (paren) *buf += ')';
    return Status::OK();
  }
  const RangeItem& r = level->items.at((*next)++);
  if (item.contains("RangeVar")) {
    const Json& rv = item["RangeVar"];
    *buf += Ident(rv.value("relname", ""));
    if (r.name != rv.value("relname", "")) *buf += " " + Ident(r.name);
    if (rv.contains("alias") && rv["alias"].contains("colnames")) {
      *buf += "(";
      for (size_t i = 0; i < r.columns.size(); ++i) *buf += (i ? ", " : "") + Ident(r.columns[i]);
      *buf += ")";
    }
    return Status::OK();
  }
  if (item.contains("RangeSubselect")) {
    const Json& rs = item["RangeSubselect"];
    const Json& q = rs["subquery"]["SelectStmt"];
    if (q.contains("valuesLists")) {
      SLUICE_RETURN_IF_ERROR(Values(q, level, *indent, buf));
    } else {
      *buf += '(';
      SLUICE_RETURN_IF_ERROR(Query(q, level, *indent, nullptr, true, buf).status());
      *buf += ')';
    }
    *buf += " " + Ident(r.name);
    if (rs["alias"].contains("colnames")) {
      *buf += "(";
      for (size_t i = 0; i < r.columns.size(); ++i) *buf += (i ? ", " : "") + Ident(r.columns[i]);
      *buf += ")";
    }
    return Status::OK();
  }
  if (item.contains("RangeFunction")) {
    const Json& call = item["RangeFunction"]["functions"][0]["List"]["items"][0];
    Level* outer = level;
    SLUICE_ASSIGN_OR_RETURN(Piece p, Expr(call, outer, *indent));
    *buf += p.text + " " + Ident(r.name) + "(" + Ident(r.columns[0]) + ")";
    return Status::OK();
  }
  return Unsupported("this FROM item");
}

Status Deparser::Values(const Json& q, Level* level, int indent, std::string* buf,
                        std::vector<Type>* column_types) {
  const Json& rows = q["valuesLists"];
  std::vector<std::vector<Piece>> cells;
  std::vector<Type> types;
  for (const Json& row : rows) {
    std::vector<Piece> r;
    for (const Json& v : row["List"]["items"]) {
      SLUICE_ASSIGN_OR_RETURN(Piece p, Expr(v, level, indent));
      r.push_back(p);
    }
    if (types.size() < r.size()) types.resize(r.size());
    for (size_t i = 0; i < r.size(); ++i) {
      if (!r[i].unknown && r[i].type && !types[i]) types[i] = r[i].type;
      if (!r[i].unknown && IsDecimal(r[i].type) && IsInt(types[i])) types[i] = r[i].type;
    }
    cells.push_back(std::move(r));
  }
  *buf += "( VALUES ";
  for (size_t k = 0; k < cells.size(); ++k) {
    *buf += k ? ", (" : "(";
    for (size_t i = 0; i < cells[k].size(); ++i) {
      Piece p = Coerce(cells[k][i], types[i] ? *types[i] : SqlType::Varchar());
      *buf += (i ? "," : "") + p.text;
    }
    *buf += ")";
  }
  *buf += ")";
  if (column_types != nullptr) {
    for (Type& t : types) t = t ? t : Type(SqlType::Varchar());
    *column_types = types;
  }
  return Status::OK();
}

std::string Deparser::ColumnName(const Json& n) {
  if (n.contains("ColumnRef")) {
    const Json& f = n["ColumnRef"]["fields"];
    return f.back().contains("A_Star") ? "?column?" : Str(f.back());
  }
  if (n.contains("FuncCall")) return Str(n["FuncCall"]["funcname"].back());
  if (n.contains("TypeCast")) {
    const Json& arg = n["TypeCast"]["arg"];
    std::string inner = ColumnName(arg);
    if (inner != "?column?") return inner;
    const Json& names = n["TypeCast"]["typeName"]["names"];
    return Str(names.back());
  }
  if (n.contains("CaseExpr")) return "case";
  if (n.contains("A_ArrayExpr")) return "array";
  if (n.contains("CoalesceExpr")) return "coalesce";
  if (n.contains("MinMaxExpr"))
    return n["MinMaxExpr"].value("op", "") == "IS_GREATEST" ? "greatest" : "least";
  if (n.contains("GroupingFunc")) return "grouping";
  if (n.contains("A_Expr") && n["A_Expr"].value("kind", "") == "AEXPR_NULLIF") return "nullif";
  if (n.contains("SubLink")) {
    const Json& sl = n["SubLink"];
    const std::string k = sl.value("subLinkType", "");
    if (k == "EXISTS_SUBLINK") return "exists";
    if (k == "ARRAY_SUBLINK") return "array";
    if (k == "EXPR_SUBLINK") {
      const Json& t = sl["subselect"]["SelectStmt"].value("targetList", Json::array());
      if (!t.empty()) {
        const Json& rt = t[0]["ResTarget"];
        return rt.contains("name") ? rt.value("name", "") : ColumnName(rt["val"]);
      }
    }
  }
  if (n.contains("SQLValueFunction")) {
    const std::string op = n["SQLValueFunction"].value("op", "");
    if (op == "SVFOP_CURRENT_DATE") return "current_date";
    if (op == "SVFOP_CURRENT_TIMESTAMP") return "current_timestamp";
  }
  return "?column?";
}

}  // namespace deparse

Result<std::string> DeparseView(const Catalog& catalog, std::string_view sql, const Json& select,
                                const std::vector<std::string>& names, bool pretty) {
  Json tree = select;
  FillNegativeConstants(&tree, sql);
  return deparse::Deparser(catalog, sql, pretty).View(tree, names);
}

}  // namespace sluice::sql
