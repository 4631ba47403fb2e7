// Statements that change tables: INSERT, UPDATE and DELETE, with their
// RETURNING lists, and WITH queries that change data (`WITH t AS (DELETE
// ... RETURNING *) INSERT INTO log SELECT * FROM t`).
//
// A statement becomes ad hoc queries over the tables as they were before
// it: every part of one statement sees the same snapshot and none sees
// another's changes, as in PostgreSQL. The rows a data-changing WITH query
// returns are given to the queries after it as a constant table. The
// outcome is each table's rows that go and rows that come, and the rows the
// statement returns; the caller applies the changes its own way (a
// pipeline's input, a test session's tables).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "sql/parser.h"
#include "sql/plan.h"

namespace sluice::sql {

// The table a statement names (a RangeVar): tables live in the schema
// public, which a name may spell out.
Result<std::string> TargetTableName(const Json& range_var, std::string_view sql);

// One item of a SET list (UPDATE, ON CONFLICT DO UPDATE): `SET c = e`,
// `SET c[i] = e`, `SET c.f = e`, or one column of `SET (a, b) = (...)`.
struct SetItem {
  std::string column;
  // Where in the column the value goes, as written after its name: each
  // step a field (c.f) or subscripts (c[i][j], c[l:u]); empty: the column.
  struct Step {
    std::string field;  // empty: subscripts
    // Each subscript's lower and upper bound, as text; "" for a bound
    // left out (c[:u]). A subscript without a colon has the lower bound
    // "1" (in a slice, c[u] is c[1:u]).
    std::vector<std::pair<std::string, std::string>> subscripts;
    bool slice = false;  // one of the subscripts has a colon
  };
  std::vector<Step> path;
  std::string expr;  // the value's text
  bool to_default = false;
};

// What the statement says, clause by clause, as text. Each `*_offset` is
// where that text starts in the statement's.
struct InsertParts {
  std::string table;
  std::string alias;                 // empty: none
  std::vector<std::string> columns;  // empty: all, in order
  // Per column, the part of it the value goes to (INSERT INTO t (c[1:2]));
  // empty when every value goes to its whole column.
  std::vector<std::vector<SetItem::Step>> column_paths;
  std::string source;                // VALUES ... or SELECT ...
  size_t source_offset = 0;
  bool default_values = false;  // DEFAULT VALUES: no source
  // Each DEFAULT in the source's VALUES rows: its offset in the statement,
  // and which of the listed columns it stands for; and, in `default_rows`,
  // the number of its VALUES row.
  std::vector<std::pair<size_t, size_t>> defaults;
  std::vector<size_t> default_rows;
  // OVERRIDING SYSTEM VALUE (`overriding_system`): values for GENERATED
  // ALWAYS identity columns are taken; OVERRIDING USER VALUE: values for
  // identity columns are left for their sequences.
  bool overriding_system = false;
  bool overriding_user = false;
  std::string returning;  // the RETURNING list; empty: none
  size_t returning_offset = 0;
  // ON CONFLICT [(columns)] DO NOTHING | DO UPDATE SET ... [WHERE ...]
  bool on_conflict = false;
  bool do_update = false;
  std::vector<std::string> conflict_columns;  // empty: the primary key
  std::vector<SetItem> conflict_sets;
  std::string conflict_where;
  size_t conflict_where_offset = 0;
};
Result<InsertParts> ParseInsert(const std::string& text);

struct DeleteParts {
  std::string table;
  std::string alias;   // empty: none
  std::string using_;  // USING's FROM items; empty: none
  size_t using_offset = 0;
  std::string where;  // the condition; empty: every row
  size_t where_offset = 0;
  std::string returning;
  size_t returning_offset = 0;
};
Result<DeleteParts> ParseDelete(const std::string& text);

struct UpdateParts {
  std::string table;
  std::string alias;
  std::vector<SetItem> sets;  // one per column a SET item names, in order
  std::string from;  // FROM's items; empty: none
  size_t from_offset = 0;
  std::string where;
  size_t where_offset = 0;
  std::string returning;
  size_t returning_offset = 0;
};
Result<UpdateParts> ParseUpdate(const std::string& text);

// A table a statement changes, as its owner keeps it.
struct DmlTable {
  std::vector<Column> columns;
  bool append_only = false;  // takes no deletes or updates
  std::vector<int> key;      // the primary key's columns; empty: none
  // Per column (or empty: none has one): its DEFAULT, NULL when it has none.
  std::vector<Value> defaults;
  // Per column (or empty: none), the sequence whose next value is its
  // default ("" none): SERIAL and IDENTITY columns (TableDef).
  std::vector<std::string> default_sequences;
  // The GENERATED ALWAYS and BY DEFAULT AS IDENTITY columns (among those
  // of `default_sequences`).
  std::vector<int> identity_always;
  std::vector<int> identity_by_default;
  // Its CHECK constraints: a row the statement inserts (or an UPDATE
  // makes) that fails one fails the statement.
  std::vector<CheckConstraint> checks;
};

// The rows of a query: its visible columns, and its rows.
struct QueryRows {
  std::vector<Column> columns;
  std::vector<Row> rows;
};

// The name a query can call a ROW type by (a composite type's or a
// table's), or "" when none.
using TypeNamer = std::function<std::string(const SqlType& row_type)>;

struct DmlEnv {
  // Runs a query over the tables as they were before the statement, as an
  // ad hoc query (it may call nextval(): SERIAL columns' values come so).
  std::function<Result<QueryRows>(const std::string& query)> query;
  // The table `name`, which the statement changes; an error if it cannot
  // (no such table, a view).
  std::function<Result<DmlTable>(const std::string& name)> table;
  // May be empty: then columns of ROW types are not cast in the queries.
  TypeNamer type_name;
};

struct TableChange {
  std::string table;
  std::vector<Row> deleted;   // whole rows that go, one per row
  std::vector<Row> inserted;  // whole rows that come, in the table's types
  int part = 0;               // which part of the statement made it (its WITH queries, then it)
  int location = -1;          // where that part starts in the statement's text
};

struct DmlOutcome {
  std::vector<TableChange> changes;  // in the order the statement makes them
  bool returns_rows = false;         // a RETURNING list, or a SELECT
  QueryRows returned;
  std::string tag;  // PostgreSQL's command tag: "INSERT 0 2", "UPDATE 1", ...
};

// Whether a statement (a parse tree's "stmt") changes tables: INSERT,
// UPDATE, DELETE, or a SELECT with a WITH query that does.
bool ChangesData(const Json& stmt);
// Whether such a statement answers with rows: RETURNING, or a SELECT.
bool ReturnsData(const Json& stmt);

// Plans and runs the one statement `sql`. Errors point into `sql`.
Result<DmlOutcome> RunDml(const std::string& sql, const DmlEnv& env);

}  // namespace sluice::sql
