// The internals of the view printer (sql/deparse.h): the state of one
// printing and its helpers, split over deparse.cc (queries: SELECT, FROM,
// WITH, set operations, the clauses) and deparse_expr.cc (expressions,
// constants and their types). Only those two files include it.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sql/catalog.h"
#include "sql/parser.h"

namespace sluice::sql::deparse {

// PostgreSQL's indentation steps: a query level, a column of a select list
// or FROM list, a JOIN.
constexpr int kIndentStd = 8, kIndentVar = 4, kIndentJoin = 4;

using Type = std::optional<SqlType>;  // nullopt: not known

std::string Str(const Json& n);

std::vector<std::string> Strings(const Json& list);

// A name as PostgreSQL prints it: quoted unless it is a lower-case word that
// is not a keyword it reserves.
std::string Ident(const std::string& name);

// A string constant as PostgreSQL writes it: in single quotes, with E''
// when it holds a backslash.
std::string Quote(const std::string& s);

// PostgreSQL's name of a type, with its modifiers, as a cast prints it.
std::string TypeText(const SqlType& t);

// Kinds of type, as PostgreSQL's operators and implicit casts tell them
// apart.
bool IsInt(const Type& t);
bool IsDecimal(const Type& t);
bool IsFloat(const Type& t);
bool IsVarchar(const Type& t);  // VARCHAR(n)
bool IsText(const Type& t);
int IntRank(const Type& t);  // SMALLINT 1, INTEGER 2, BIGINT 3

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

// One printing of one view's query. Thread safety: used by one thread.
class Deparser {
 public:
  Deparser(const Catalog& catalog, std::string_view sql, bool pretty)
      : catalog_(catalog), sql_(sql), pretty_(pretty) {}
  Result<std::string> View(const Json& select, const std::vector<std::string>& names);

 private:
  // Queries (deparse.cc).
  Status Unsupported(const std::string& what) const;
  // appendContextKeyword: a new line at the level's indentation (less
  // `before`), then `word`, then the indentation moves by `after`.
  void Keyword(std::string* buf, int* indent, const std::string& word, int before, int after,
               int plus) const;
  // Appends `text`; one that starts a line of its own (CASE) takes the
  // place of the spaces before it.
  static void Append(std::string* buf, const std::string& text);
  // Prints `s` at `indent`; `result_names` are a view's column names (its
  // top level); `visible`: whether the names of its columns matter.
  Result<Output> Query(const Json& s, const Level* parent, int indent,
                       const std::vector<std::string>* result_names, bool visible,
                       std::string* buf);
  Status DeclareCtes(const Json& with, Level* level);
  Status With(const Json& with, Level* level, int* indent, std::string* buf);
  static const Json& Clause(const Json& cte, const char* key);
  static std::string NameList(const Json& list);
  // A recursive query's SEARCH and CYCLE clauses.
  Status SearchCycle(const Json& cte, Level* level, int indent, std::string* buf);
  // The arms of UNION, INTERSECT and EXCEPT, parenthesized where the
  // operator changes.
  Result<Output> SetOp(const Json& s, Level* level, int* indent,
                       const std::vector<std::string>* result_names, bool visible,
                       std::string* buf);
  // The FROM items of a level, named before anything of it is printed.
  Status DeclareFrom(const Json& from, Level* level);
  std::string UniqueName(const std::string& base, Level* level);
  // Adds the item (and, for a JOIN, its inputs) to `level`; returns its index.
  Result<int> DeclareItem(const Json& item, Level* level);
  Result<Output> Basic(const Json& s, Level* level, int indent,
                       const std::vector<std::string>* result_names, bool visible,
                       std::string* buf);
  // ORDER BY, OFFSET and LIMIT. `select`: the plain SELECT whose output
  // columns ORDER BY may name; null for a set operation.
  Status Tail(const Json& s, Level* level, const Json* select, Output* out, int* indent,
              std::string* buf);
  Status SortSuffix(const Json& sb, std::string* t);
  // An item of ORDER BY, GROUP BY, DISTINCT ON or a window: a column or a
  // constant as it is; a call in parentheses, and, pretty, any expression.
  Piece SortItem(Piece p) const;
  Result<Piece> SortExpr(const Json& n, const Json& s, Level* level, int indent);
  // An ORDER BY, GROUP BY or DISTINCT ON item: an output column by number
  // or by name, or an expression.
  Result<Piece> SortTarget(const Json& n, const Json& s, Level* level, int indent);
  Result<std::string> GroupItem(const Json& g, const Json& s, Level* level, int indent);
  Status FromItem(const Json& item, Level* level, size_t* next, int* indent, std::string* buf);
  // ( VALUES (...), (...)): each row's values typed by its column.
  Status Values(const Json& q, Level* level, int indent, std::string* buf,
                std::vector<Type>* column_types = nullptr);
  // The name PostgreSQL gives an output column that has no AS.
  std::string ColumnName(const Json& n);

  // Expressions (deparse_expr.cc).
  // Holds `p` together inside an expression of shape `parent` (operator
  // `op`, `p` on its left if `left`).
  std::string Arg(const Piece& p, Shape parent, const std::string& op, bool left) const;
  // Wraps an operator's text in parentheses when not pretty.
  Piece Op(std::string text, Shape shape, const std::string& op, Type type) const;
  // `value` of `type` as a constant prints.
  Piece Const(const Value& value, const SqlType& type) const;
  // `p` as a value of type `to`: an untyped constant takes the type; a
  // column or expression of another type is cast, as PostgreSQL's implicit
  // casts do.
  Piece Coerce(const Piece& p, const SqlType& to) const;
  Piece Cast(const Piece& p, const SqlType& to) const;
  // A column reference: the FROM item it belongs to, at this level or an
  // enclosing one.
  Result<Piece> ColumnRef(const Json& fields, const Level* level);
  Result<Piece> Expr(const Json& n, Level* level, int indent);
  // The type several values meet in (CASE, COALESCE, ARRAY[], IN lists).
  static Type Common(const std::vector<Piece>& args);
  Result<Piece> Constant(const Json& c);
  Result<Piece> Operator(const Json& a, Level* level, int indent);
  // Types the operands of binary operator `op` as PostgreSQL resolves it,
  // casting them where it would; sets the result's type.
  void Binary(const std::string& op, Piece* l, Piece* r, Type* result) const;
  Result<Piece> Case(const Json& c, Level* level, int indent);
  static Piece Wrapped(const std::string& text);
  Result<Piece> SubLink(const Json& sl, Level* level, int indent);
  Result<Piece> Function(const Json& f, Level* level, int indent);
  static Type ResultType(const std::string& name, const std::vector<SqlType>& args);
  // ( [name] [PARTITION BY ...] [ORDER BY ...] [frame] )
  Result<std::string> WindowSpec(const Json& w, const Json& s, Level* level, int indent);

  const Catalog& catalog_;
  std::string_view sql_;
  bool pretty_;
};

}  // namespace sluice::sql::deparse
