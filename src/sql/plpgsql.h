// Functions in LANGUAGE plpgsql, compiled to one SQL query so that a call is
// inlined as a SQL function's is (binder_function.cc): a view that calls one
// stays a pure function of its inputs, maintained incrementally.
//
// The body is parsed by libpg_query's PL/pgSQL parser when the function is
// created; each expression's parse tree is kept beside its text in
// FunctionDef::body. Where the function is called, the body is executed
// symbolically: every variable (parameter, OUT parameter, DECLAREd
// variable) holds an SQL expression over the parameters; an assignment
// replaces it; a field assignment to a composite variable keeps one
// expression per field, built into a ROW of its type when the whole value is
// read; IF, ELSIF, ELSE and CASE split execution, each branch running on
// with the rest of the body, and the function's value is a CASE over the
// branches' values. A scalar function's query is `SELECT <expr>`; a
// set-returning one's is the UNION ALL of its RETURN QUERY and RETURN NEXT
// rows, each kept only where the conditions that lead to it hold. RAISE
// below EXCEPTION has no effect on results; RAISE EXCEPTION (and a path that
// ends without RETURN) is an error where that path is taken.
//
// What the body may hold: blocks with DECLARE (no EXCEPTION), assignments,
// IF, CASE, RETURN, RETURN NEXT, RETURN QUERY, RAISE, ASSERT and NULL.
// Loops, EXECUTE, PERFORM, SQL statements, cursors and GET DIAGNOSTICS are
// refused ("... in a plpgsql function is not supported yet").
#pragma once

#include <string_view>

#include "base/status.h"
#include "sql/catalog.h"
#include "sql/parser.h"

namespace sluice::sql {

// CREATE FUNCTION ... LANGUAGE plpgsql: parses `source` (the body, the AS
// string) of the function whose CreateFunctionStmt is `create` (in `sql`)
// into f->body. `f` already holds the signature (BindCreateFunction). A
// body Sluice cannot compile sets f->unsupported; a syntax error is an error.
Status ParsePlpgsqlFunction(std::string_view sql, const Json& create, const std::string& source,
                            FunctionDef* f);

// The SelectStmt parse tree that a plpgsql function `f` computes, its
// parameters as $1, $2, ... (the function's IN parameters, in order). An
// error message says what in the body is wrong, without a position (the
// caller points at the call); an Unimplemented error names what is not
// supported.
Result<Json> CompilePlpgsqlFunction(const FunctionDef& f, const Catalog& catalog);

// The name of the scalar function that raises an error (its first argument,
// text) when evaluated, and has the type of its second argument
// (functions_text_math.cc).
inline constexpr const char* kRaiseErrorFunction = "sluice_raise_error";

}  // namespace sluice::sql
