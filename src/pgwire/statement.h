// The statements a PostgreSQL client sends, as the protocol layer needs
// them: split and classified (libpg_query), parameters put in place, and
// what INSERT, DELETE and COPY name.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "format/format.h"
#include "pgwire/codec.h"
#include "sql/expr.h"
#include "sql/plan.h"
#include "sql/sql_text.h"
#include "types/value.h"

namespace sluice::pgwire {

enum class StatementKind {
  kEmpty,
  kSelect,
  kModify,  // INSERT, UPDATE, DELETE, or a SELECT whose WITH changes tables
  kCopyFrom,
  kCopyTo,
  kSubscribe,
  kBegin,
  kCommit,
  kRollback,
  kSet,
  kShow,
  kIgnored,      // answered with `tag` only (DISCARD, DEALLOCATE, ...)
  kUnsupported,  // answered with 0A000 and `unsupported`
};

// COPY's target and options.
struct CopySpec {
  std::string table;
  std::vector<std::string> columns;  // empty: all, in order
  std::string query;                 // COPY (query) TO STDOUT
  bool to_stdout = false;            // COPY (SUBSCRIBE ...) TO STDOUT too
  bool csv = false;
  bool header = false;
  char delimiter = '\t';
  std::string null_marker = "\\N";
};

struct Statement {
  StatementKind kind = StatementKind::kEmpty;
  std::string text;   // this statement's SQL
  size_t offset = 0;  // where it starts in the query string
  // $n parameters: the highest n, and each one's byte offset in `text`.
  int params = 0;
  std::vector<std::pair<size_t, int>> param_at;
  std::string tag;            // kIgnored; kModify: its command (INSERT, ...)
  bool returns_rows = false;  // kModify: RETURNING, or a SELECT
  std::string unsupported;  // kUnsupported: why
  std::string name;         // SET, SHOW: the parameter; SUBSCRIBE: the relation
  std::string value;        // SET
  bool reset = false;       // SET ... TO DEFAULT, RESET
  bool snapshot = true;     // SUBSCRIBE ... WITH (SNAPSHOT = false)
  CopySpec copy;
};

// Splits a query string into its statements (none for an empty one).
// `SUBSCRIBE [TO] name [WITH (SNAPSHOT = true|false)]` and
// `COPY (SUBSCRIBE ...) TO STDOUT` are read here, as PostgreSQL's grammar
// has no SUBSCRIBE. A syntax error is the SQL layer's, with its position.
Status SplitStatements(const std::string& text, std::vector<Statement>* out);

// Whether the statement answers with rows (a RowDescription).
bool ReturnsRows(const Statement& st);

// The format (0 text, 1 binary) of result column `i` from a Bind's list:
// none (all text), one (for all) or one per column.
int16_t ColumnFormat(const std::vector<int16_t>& formats, size_t i);

// `st.text` with each $n replaced by the literal of params[n-1]: NULL, or
// the text in quotes, cast to the parameter's type when the client named
// one (oids[n-1] != 0).
Result<std::string> SubstituteParams(const Statement& st,
                                     const std::vector<std::optional<std::string>>& params,
                                     const std::vector<uint32_t>& oids);

using sql::QuoteIdentifier;

// For a DELETE from a table with a primary key: the keys its WHERE names,
// as rows of the table with the key columns set (the rest NULL). It must
// be a conjunction of `key_column = constant` (or `IN (constants)`) that
// names every key column.
Result<std::vector<std::vector<Value>>> KeysOfWhere(const std::string& text,
                                                    const format::Relation& rel);

// Encodes a row for a ChangeBuffer: `row` the whole row (inserts, and
// deletes from a table without a key), `key` the key columns (tables with
// a key). An error says which column.
std::optional<std::string> EncodeChange(const format::Relation& rel,
                                        const std::vector<Value>& values, bool insert,
                                        std::string* row, std::string* key);

// Reads COPY FROM STDIN's data, in pieces as they arrive, into changes.
class CopyReader {
 public:
  CopyReader(CopySpec spec, format::Relation rel) : spec_(std::move(spec)), rel_(std::move(rel)) {}
  Status Init();
  Status Feed(std::string_view data);
  // The whole COPY's changes, or the first bad line's error ("COPY t,
  // line 3, column c: ...").
  Result<format::ChangeBuffer> Finish();

 private:
  Status Records(bool at_end);
  Status Decode();
  // CSV in the table's column order with the default NULL goes to the
  // decoder as it came, in large pieces.
  void DecodeDirect(bool at_end);

  CopySpec spec_;
  format::Relation rel_;
  std::vector<int> target_;  // copy field i goes to column target_[i]
  std::vector<CopyField> left_out_;  // what each column not in target_ gets
  std::unique_ptr<format::Decoder> decoder_;
  std::string pending_;          // bytes not yet a whole record
  std::string canonical_;        // whole records as CSV in the table's column order
  std::vector<uint64_t> lines_;  // each record of canonical_: its input line
  uint64_t line_ = 1;            // the input line pending_ starts at
  uint64_t records_ = 0;
  bool header_skipped_ = false;
  bool ended_ = false;  // the \. line was seen
  bool direct_ = false;
  format::Position position_;
  format::ChangeBuffer changes_;
  std::optional<std::string> error_;
};

// One row as a line of COPY TO's data, newline included.
void FormatCopyLine(const CopySpec& spec, const std::vector<Value>& row,
                    const std::vector<sql::Column>& columns, const sql::OutputStyle& style,
                    std::string* line);

}  // namespace sluice::pgwire
