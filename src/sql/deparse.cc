#include "sql/deparse.h"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "sql/binder.h"
#include "sql/expr.h"
#include "sql/functions.h"
#include "sql/sql_text.h"

namespace sluice::sql {
namespace {

// PostgreSQL's indentation steps: a query level, a column of a select list
// or FROM list, a JOIN.
constexpr int kIndentStd = 8, kIndentVar = 4, kIndentJoin = 4;

using Type = std::optional<SqlType>;  // nullopt: not known

std::string Str(const Json& n) {
  if (n.contains("String")) return n["String"].value("sval", "");
  return "";
}

std::vector<std::string> Strings(const Json& list) {
  std::vector<std::string> out;
  for (const Json& n : list) out.push_back(Str(n));
  return out;
}

// A name as PostgreSQL prints it: quoted unless it is a lower-case word that
// is not a keyword it reserves.
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

// A string constant as PostgreSQL writes it: in single quotes, with E''
// when it holds a backslash.
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

// PostgreSQL's name of a type, with its modifiers, as a cast prints it.
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

// How an expression's text sits in the text around it: whether it is an
// operator (that parentheses may have to hold together) and which.
enum class Shape {
  kSimple,  // a column, a function call, a constant, CASE, a subquery
  kOp,      // a binary or unary operator; `op` names it
  kAnd,     // AND
  kOr,      // OR
  kNot,     // NOT
  kTest,    // IS [NOT] NULL, IS TRUE, IS DISTINCT FROM
  kOther,   // = ANY (ARRAY[...]), a scalar subquery
};

struct Piece {
  std::string text;
  Shape shape = Shape::kSimple;
  std::string op;
  Type type;
  std::string column;  // a plain column reference: its name
  // An untyped constant: a string (or NULL) whose type comes from where it
  // is used.
  bool unknown = false;
  bool is_null = false;
  std::string literal;
  bool is_const = false;  // a constant (its cast prints without parentheses)
  bool call = false;      // a function, aggregate or window function call
};

struct RangeItem {
  std::string ref;   // the name the query refers to it by
  std::string name;  // the name printed, unique among enclosing levels
  std::vector<std::string> columns;
  std::vector<Type> types;
  bool join = false;                       // an unnamed JOIN: reached through its inputs only
  std::vector<std::string> using_columns;  // a JOIN's USING columns
  int left = -1;                           // a JOIN: its left input's item
  int right = -1;                          // and its right input's
};

struct Cte {
  std::vector<std::string> columns;
  std::vector<Type> types;
};

struct Output {
  std::vector<std::string> names;
  std::vector<Type> types;
};

// One query level's FROM items and the CTEs it sees.
struct Level {
  const Level* parent = nullptr;
  std::vector<RangeItem> items;
  std::set<std::string> names;
  std::map<std::string, Cte> ctes;
  const Json* windows = nullptr;

  bool Taken(const std::string& n) const {
    for (const Level* l = this; l != nullptr; l = l->parent) {
      if (l->names.count(n)) return true;
    }
    return false;
  }
  const Cte* FindCte(const std::string& n) const {
    for (const Level* l = this; l != nullptr; l = l->parent) {
      auto it = l->ctes.find(n);
      if (it != l->ctes.end()) return &it->second;
    }
    return nullptr;
  }
};

class Deparser {
 public:
  Deparser(const Catalog& catalog, std::string_view sql, bool pretty)
      : catalog_(catalog), sql_(sql), pretty_(pretty) {}

  Result<std::string> View(const Json& select, const std::vector<std::string>& names) {
    std::string out;
    SLUICE_RETURN_IF_ERROR(Query(select, nullptr, 0, &names, true, &out).status());
    return out + ";";
  }

 private:
  Status Unsupported(const std::string& what) const {
    return Status::Unimplemented("pg_get_viewdef cannot print " + what + " yet");
  }

  // appendContextKeyword: a new line at the level's indentation (less
  // `before`), then `word`, then the indentation moves by `after`.
  void Keyword(std::string* buf, int* indent, const std::string& word, int before, int after,
               int plus) const {
    *indent += before;
    while (!buf->empty() && buf->back() == ' ') buf->pop_back();
    *buf += '\n';
    buf->append(static_cast<size_t>(std::max(*indent, 0) + plus), ' ');
    *buf += word;
    *indent += after;
  }

  // Appends `text`; one that starts a line of its own (CASE) takes the
  // place of the spaces before it.
  static void Append(std::string* buf, const std::string& text) {
    if (!text.empty() && text[0] == '\n') {
      while (!buf->empty() && buf->back() == ' ') buf->pop_back();
    }
    *buf += text;
  }

  // --- queries -----------------------------------------------------------

  // Prints `s` at `indent`; `result_names` are a view's column names (its
  // top level); `visible`: whether the names of its columns matter.
  Result<Output> Query(const Json& s, const Level* parent, int indent,
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

  Status DeclareCtes(const Json& with, Level* level) {
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

  Status With(const Json& with, Level* level, int* indent, std::string* buf) {
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

  static const Json& Clause(const Json& cte, const char* key) {
    const Json& c = cte[key];
    for (const char* k : {"CTESearchClause", "CTECycleClause"}) {
      if (c.contains(k)) return c[k];
    }
    return c;
  }

  static std::string NameList(const Json& list) {
    std::string out;
    for (const Json& n : list) out += (out.empty() ? "" : ", ") + Ident(Str(n));
    return out;
  }

  // A recursive query's SEARCH and CYCLE clauses.
  Status SearchCycle(const Json& cte, Level* level, int indent, std::string* buf) {
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

  // The arms of UNION, INTERSECT and EXCEPT, parenthesized where the
  // operator changes.
  Result<Output> SetOp(const Json& s, Level* level, int* indent,
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

  // The FROM items of a level, named before anything of it is printed.
  Status DeclareFrom(const Json& from, Level* level) {
    for (const Json& item : from) {
      SLUICE_RETURN_IF_ERROR(DeclareItem(item, level).status());
    }
    return Status::OK();
  }

  std::string UniqueName(const std::string& base, Level* level) {
    std::string n = base;
    for (int i = 1; level->Taken(n); ++i) n = base + "_" + std::to_string(i);
    level->names.insert(n);
    return n;
  }

  // Adds the item (and, for a JOIN, its inputs) to `level`; returns its index.
  Result<int> DeclareItem(const Json& item, Level* level) {
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

  Result<Output> Basic(const Json& s, Level* level, int indent,
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

  // ORDER BY, OFFSET and LIMIT. `select`: the plain SELECT whose output
  // columns ORDER BY may name; null for a set operation.
  Status Tail(const Json& s, Level* level, const Json* select, Output* out, int* indent,
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

  Status SortSuffix(const Json& sb, std::string* t) {
    const std::string dir = sb.value("sortby_dir", "SORTBY_DEFAULT");
    const std::string nulls = sb.value("sortby_nulls", "SORTBY_NULLS_DEFAULT");
    if (dir == "SORTBY_USING") return Unsupported("ORDER BY USING");
    const bool desc = dir == "SORTBY_DESC";
    if (desc) *t += " DESC";
    if (nulls == "SORTBY_NULLS_FIRST" && !desc) *t += " NULLS FIRST";
    if (nulls == "SORTBY_NULLS_LAST" && desc) *t += " NULLS LAST";
    return Status::OK();
  }

  // An item of ORDER BY, GROUP BY, DISTINCT ON or a window: a column or a
  // constant as it is; a call in parentheses, and, pretty, any expression.
  Piece SortItem(Piece p) const {
    if (!p.column.empty() || p.is_const) return p;
    if (pretty_ || p.call) p.text = "(" + p.text + ")";
    return p;
  }

  Result<Piece> SortExpr(const Json& n, const Json& s, Level* level, int indent) {
    SLUICE_ASSIGN_OR_RETURN(Piece p, SortTarget(n, s, level, indent));
    return SortItem(p);
  }

  // An ORDER BY, GROUP BY or DISTINCT ON item: an output column by number
  // or by name, or an expression.
  Result<Piece> SortTarget(const Json& n, const Json& s, Level* level, int indent) {
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

  Result<std::string> GroupItem(const Json& g, const Json& s, Level* level, int indent) {
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

  Status FromItem(const Json& item, Level* level, size_t* next, int* indent, std::string* buf) {
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

  // ( VALUES (...), (...)): each row's values typed by its column.
  Status Values(const Json& q, Level* level, int indent, std::string* buf,
                std::vector<Type>* column_types = nullptr) {
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

  // The name PostgreSQL gives an output column that has no AS.
  std::string ColumnName(const Json& n) {
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

  // --- expressions --------------------------------------------------------

  // Holds `p` together inside an expression of shape `parent` (operator
  // `op`, `p` on its left if `left`).
  std::string Arg(const Piece& p, Shape parent, const std::string& op, bool left) const {
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

  // Wraps an operator's text in parentheses when not pretty.
  Piece Op(std::string text, Shape shape, const std::string& op, Type type) const {
    Piece p;
    p.text = pretty_ ? std::move(text) : "(" + text + ")";
    p.shape = pretty_ ? shape : Shape::kSimple;
    p.op = op;
    p.type = std::move(type);
    return p;
  }

  // `value` of `type` as a constant prints.
  Piece Const(const Value& value, const SqlType& type) const {
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

  // `p` as a value of type `to`: an untyped constant takes the type; a
  // column or expression of another type is cast, as PostgreSQL's implicit
  // casts do.
  Piece Coerce(const Piece& p, const SqlType& to) const {
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

  Piece Cast(const Piece& p, const SqlType& to) const {
    Piece q;
    // Not pretty, whatever is cast is in parentheses.
    const bool simple = pretty_ && p.shape == Shape::kSimple;
    q.text = (simple ? p.text : "(" + p.text + ")") + "::" + TypeText(to);
    q.type = to;
    return q;
  }

  // A column reference: the FROM item it belongs to, at this level or an
  // enclosing one.
  Result<Piece> ColumnRef(const Json& fields, const Level* level) {
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

  Result<Piece> Expr(const Json& n, Level* level, int indent) {
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
        return Op("NOT " + Arg(args[0], Shape::kNot, "", false), Shape::kNot, "",
                  SqlType::Boolean());
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
      return Op(Arg(p, Shape::kTest, "", true) + (is_not ? " IS NOT NULL" : " IS NULL"),
                Shape::kTest, "", SqlType::Boolean());
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

  // The type several values meet in (CASE, COALESCE, ARRAY[], IN lists).
  static Type Common(const std::vector<Piece>& args) {
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

  Result<Piece> Constant(const Json& c) {
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
      SLUICE_RETURN_IF_ERROR(
          CastValue(Value::String(f), SqlType::Varchar(), SqlType::Numeric(), &v));
      return Const(v, SqlType::Numeric());
    }
    return Unsupported("this constant");
  }

  Result<Piece> Operator(const Json& a, Level* level, int indent) {
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
      Piece a1 = Op(Arg(x1, Shape::kOp, "", true) + (between ? " >= " : " < ") +
                        Arg(lo, Shape::kOp, "", false),
                    Shape::kOp, between ? ">=" : "<", SqlType::Boolean());
      Piece a2 = Op(Arg(x2, Shape::kOp, "", true) + (between ? " <= " : " > ") +
                        Arg(hi, Shape::kOp, "", false),
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

  // Types the operands of binary operator `op` as PostgreSQL resolves it,
  // casting them where it would; sets the result's type.
  void Binary(const std::string& op, Piece* l, Piece* r, Type* result) const {
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

  Result<Piece> Case(const Json& c, Level* level, int indent) {
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

  static Piece Wrapped(const std::string& text) {
    Piece p;
    p.text = "(" + text + ")";
    p.type = SqlType::Boolean();
    return p;
  }

  Result<Piece> SubLink(const Json& sl, Level* level, int indent) {
    const std::string kind = sl.value("subLinkType", "");
    std::string q = "(";
    SLUICE_ASSIGN_OR_RETURN(
        Output o, Query(sl["subselect"]["SelectStmt"], level, indent, nullptr, false, &q));
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

  Result<Piece> Function(const Json& f, Level* level, int indent) {
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

  static Type ResultType(const std::string& name, const std::vector<SqlType>& args) {
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

  // ( [name] [PARTITION BY ...] [ORDER BY ...] [frame] )
  Result<std::string> WindowSpec(const Json& w, const Json& s, Level* level, int indent) {
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

  const Catalog& catalog_;
  std::string_view sql_;
  bool pretty_;
};

}  // namespace

Result<std::string> DeparseView(const Catalog& catalog, std::string_view sql, const Json& select,
                                const std::vector<std::string>& names, bool pretty) {
  Json tree = select;
  FillNegativeConstants(&tree, sql);
  return Deparser(catalog, sql, pretty).View(tree, names);
}

}  // namespace sluice::sql
