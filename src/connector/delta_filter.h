// The `filter` of a Delta input: a SQL condition on a table's columns
// (`"filter": "region = 'eu' AND amount >= 100"`), bound with the SQL layer
// as a WHERE clause over the table's columns. Every row read is kept only
// if the condition is TRUE (NULL and FALSE drop it), and whole data files
// and row groups are skipped when their statistics prove that no row can
// pass.
//
// Skipping: the condition's conjuncts (AND) are checked one by one against
// each column's bounds (min, max, null count; a partition column's bounds
// are its value). A conjunct proves "no row" when it is
//   col = lit, col < lit, col <= lit, col > lit, col >= lit (either side),
//   col BETWEEN a AND b, col IN (lits), col IS NULL, col IS NOT NULL,
//   or an OR of conjuncts that each prove it,
// with `col` a column, or a column cast to a wider number or a timestamp;
// any comparison with a column that holds only NULLs proves it too.
// Anything else never skips (the rows are still filtered).
//
// Thread safety: const after Parse(); any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "format/format.h"
#include "sql/expr.h"
#include "types/value.h"

namespace sluice::connector {

// What statistics say of one column of a file or row group.
struct ColumnBounds {
  bool has_min_max = false;
  Value min, max;           // of the column's type, when has_min_max
  int64_t null_count = -1;  // -1: unknown
};

class DeltaFilter {
 public:
  // Binds `condition` over `rel`'s columns; an error points at the text.
  static Result<std::shared_ptr<const DeltaFilter>> Parse(const std::string& condition,
                                                          const format::Relation& rel);

  // False only when no row with these bounds (one per column of the
  // relation) and `rows` rows (-1: unknown) can pass.
  bool MayMatch(const std::vector<ColumnBounds>& bounds, int64_t rows) const;
  // Whether `row` (the relation's columns) passes.
  Status Matches(const std::vector<Value>& row, bool* pass) const;

  const std::string& text() const { return text_; }

 private:
  bool MayMatchExpr(const sql::Expr& e, const std::vector<ColumnBounds>& bounds,
                    int64_t rows) const;

  std::string text_;
  sql::ExprPtr expr_;
  format::Relation rel_;
};

}  // namespace sluice::connector
