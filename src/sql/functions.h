// Operators and scalar functions: how a name and argument types resolve to an
// implementation, a result type and the types the arguments are cast to
// (PostgreSQL's implicit casts), and the implementations themselves.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sql/expr.h"

namespace sluice::sql {

struct ResolvedFn {
  ScalarFn fn = nullptr;
  const char* name = "";
  SqlType result;
  std::vector<SqlType> arg_types;  // what each argument is cast to
  bool strict = true;              // false: the function sees NULL arguments
  // Whether the function handles NaN and the infinities of DECIMAL
  // arguments; if not, they are an error ("not supported yet").
  bool numeric_specials = false;
};

// Resolves operator or function `name` (lower case: "+", "=", "||", "abs",
// "~~" for LIKE, ...). An unknown name or unsupported argument types is an
// InvalidArgument error in PostgreSQL's words ("operator does not exist:
// text + integer").
Result<ResolvedFn> ResolveFunction(std::string_view name, const std::vector<SqlType>& args);

// A set-returning function (regexp_matches, string_to_table,
// regexp_split_to_table), resolved as a scalar function that returns the
// array of its rows, for unnest() to spread: the rows' type is the result's
// element type.
// A date or time unit's canonical name, from any of PostgreSQL's spellings
// and cases ("msec", "Seconds", "yrs": "millisecond", "second", "year");
// an unknown one lower-cased.
std::string CanonicalDateUnit(std::string_view unit);

Result<ResolvedFn> ResolveSetFunction(std::string_view name, const std::vector<SqlType>& args);

// The type both operands of a comparison or CASE branches are cast to.
Result<SqlType> CommonType(const SqlType& a, const SqlType& b);

bool IsNumeric(const SqlType& t);
// Whether PostgreSQL 15 has a built-in function, or type, of this name
// (lower case): naming one that we do not have is "not supported yet",
// not "does not exist".
bool IsPostgresFunction(std::string_view name);
bool IsPostgresType(std::string_view name);
// Whether PostgreSQL 15's catalog has a table or view of that name
// ("pg_class", "pg_catalog.pg_class", "information_schema.columns").
bool IsPostgresRelation(std::string_view name);

// to_number's result: a NUMERIC with the scale of the digits it reads
// after the point.
Status EvalToNumber(const std::string& text, const std::string& fmt, Value* out);

// PostgreSQL's name of a type, for messages ("integer", "text", ...).
std::string PgTypeName(const SqlType& t);

}  // namespace sluice::sql
