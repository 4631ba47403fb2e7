// The binder: from a parse tree (parser.h) to a typed logical plan
// (plan.h), resolving names against the catalog and types as PostgreSQL
// does.
//
// What it supports is listed in docs/sql.md; anything else is an
// Unimplemented error that names the feature and points at it in the text.
#pragma once

#include <string_view>

#include "sql/catalog.h"
#include "sql/parser.h"
#include "sql/plan.h"

namespace sluice::sql {

// Binds a SELECT (the object inside {"SelectStmt": ...}) of `sql`.
Result<BoundQuery> BindSelect(const Catalog& catalog, std::string_view sql, const Json& select);

// The SQL type that a TypeName node names (INTEGER, VARCHAR(10), ...).
// A type's name: a built-in type, or, given a catalog, a type it defines
// (CREATE TYPE) or a table's row type.
Result<SqlType> BindTypeName(std::string_view sql, const Json& type_name,
                             const Catalog* catalog = nullptr);

// Binds an expression over the columns of one table (DELETE and UPDATE).
Result<ExprPtr> BindOverColumns(const Catalog& catalog, std::string_view sql,
                                const std::vector<Column>& columns, const std::string& qualifier,
                                const Json& expr);

// Evaluates a constant expression (no column references), such as a value of
// INSERT ... VALUES.
Result<Value> EvalConstant(const Catalog& catalog, std::string_view sql, const Json& expr,
                           const SqlType& target);

}  // namespace sluice::sql
