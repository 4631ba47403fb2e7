// A program: the text of CREATE TABLE, CREATE [MATERIALIZED] VIEW and CREATE
// INDEX statements that a pipeline runs. Compiling it binds every view; the
// circuit of every view is then built on each worker.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dataflow/circuit.h"
#include "sql/catalog.h"
#include "sql/lower.h"
#include "sql/parser.h"

namespace sluice::sql {

struct Program {
  Catalog catalog;
  std::vector<std::string> tables;  // in declaration order
  std::vector<std::string> views;   // in declaration order
};

// Compiles `text`. The first error stops compilation and is returned with
// the line, column and a caret.
Result<Program> CompileProgram(std::string_view text);

// Builds the circuit of every view into `c`: one input per table (named after
// it, rows encoded with its columns) and one output per view (named after it,
// the view's visible columns).
Status BuildProgram(const Program& program, Circuit& c, EvalErrors* errors);

// The table that a CREATE TABLE statement (the CreateStmt body) declares.
Result<TableDef> BindCreateTable(std::string_view sql, const Json& body);

}  // namespace sluice::sql
