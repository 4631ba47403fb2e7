// LATENESS, Feldera's annotation of a time column: `ts TIMESTAMP NOT NULL
// LATENESS INTERVAL 1 HOURS` in a CREATE TABLE, or a statement of its own,
// `LATENESS t.ts INTERVAL '1' HOUR;`. PostgreSQL's grammar has neither, so
// they are taken out of the program's text (replaced by spaces, so that
// every error's line and column stay where they were) before the parser
// sees it, and applied to the tables once they are bound.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sql/catalog.h"

namespace sluice::sql {

struct LatenessClause {
  size_t at = 0;         // the offset of the keyword LATENESS
  std::string relation;  // a statement's t (empty for a column's annotation)
  std::string column;    // a statement's ts (empty for a column's annotation)
  size_t expr_at = 0;    // the offset of the expression
  std::string expr;      // as written
};

// Replaces the LATENESS annotations of `text` by spaces in `*out` (which is
// `text` otherwise) and lists them in `*clauses`, in order. Comments, strings
// and quoted identifiers are skipped as the lexer would.
void StripLateness(std::string_view text, std::string* out, std::vector<LatenessClause>* clauses);

// Gives `table` the lateness of `clause` on column `column`: the expression
// must be a constant of the column's unit (an INTERVAL without months for
// TIMESTAMP, TIME and DATE columns, an integer for integer columns), at
// least 0. Errors point into `text`.
Status ApplyLateness(std::string_view text, const LatenessClause& clause, int column,
                     TableDef* table);

}  // namespace sluice::sql
