// Sequences, as PostgreSQL has them: CREATE / ALTER / DROP SEQUENCE,
// nextval(), currval(), setval() and lastval(), and the SERIAL and IDENTITY
// columns whose default is a sequence's next value.
//
// A sequence hands out each value once, so it cannot live in a view (a view
// is maintained incrementally, and a value handed out cannot be taken back
// when a row leaves): the calls are bound only where a statement is
// evaluated once, in ad hoc queries and in INSERT and UPDATE, through a
// SequenceAccess that the catalog carries (Catalog::set_sequence_access).
//
// The values live in one Sequences per pipeline (on the host, or the
// coordinator, that runs ad hoc queries and statements), never one per
// worker or per host, so that no value is handed out twice.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sql/catalog.h"
#include "sql/expr.h"
#include "sql/parser.h"

namespace sluice::sql {

// CREATE SEQUENCE (a CreateSeqStmt's body): the definition, PostgreSQL's
// defaults filled in and its checks made. Errors point into `sql`.
Result<SequenceDef> BindCreateSequence(std::string_view sql, const Json& body);

// Reads a list of sequence options (DefElem nodes: CREATE and ALTER
// SEQUENCE, an identity column's `(START WITH 10 ...)`) over `def`.
// `create`: the options of a new sequence, so what they leave out takes its
// default. `restart` gets ALTER's RESTART [WITH n] (n, or the start). The
// current value `last_value` of an existing sequence must stay in bounds.
Status ReadSequenceOptions(std::string_view sql, const Json& options, bool create, SequenceDef* def,
                           std::optional<int64_t>* restart = nullptr,
                           std::optional<int64_t> last_value = std::nullopt);

// The sequence a SERIAL or IDENTITY column gets: `table_column_seq`, of the
// column's type, owned by the column.
SequenceDef ColumnSequence(const std::string& table, const std::string& column,
                           const SqlType& type);

// Whether `name` is nextval, currval, setval or lastval.
bool IsSequenceFunction(const std::string& name);
// Whether a parse tree calls one of them.
bool CallsSequenceFunction(const Json& tree);
// The sequence that a DEFAULT expression `nextval('name')` (or
// `nextval('name'::regclass)`) names; "" if it is anything else.
std::string DefaultSequence(const Json& expr);

// The values of a pipeline's (or a session's) sequences.
//
// Durability: before a value is handed out that the log has not covered, the
// state is written with that sequence 32 values further on (PostgreSQL logs
// ahead the same way), so a restart after a crash may skip values, and never
// hands one out twice. Each write carries a version that grows, so that of
// two saved states (the log's, a checkpoint's) the newer wins.
//
// Thread safety: every method takes `mu_`; the log is called under it.
class Sequences {
 public:
  // Writes the saved state (StateJson) durably; an error fails the call
  // that needed it, which hands out nothing.
  using Log = std::function<Status(const std::string& state)>;
  void set_log(Log log);

  // A sequence of the program (or session), at its start.
  Status Create(const SequenceDef& def);
  // ALTER SEQUENCE: new options; RESTART sets the next value.
  Status Alter(const SequenceDef& def, std::optional<int64_t> restart);
  Status Drop(const std::string& name);
  // Makes the sequences those of `defs`: new ones start, dropped ones go,
  // changed ones keep their values (a program that changed).
  void Define(const std::map<std::string, SequenceDef>& defs);
  // A sequence's last value (nullopt: no such sequence), which ALTER
  // checks against new bounds.
  std::optional<int64_t> LastValue(const std::string& name) const;

  Result<int64_t> NextVal(const std::string& name);
  // setval(name, value, is_called).
  Result<int64_t> SetVal(const std::string& name, int64_t value, bool is_called);

  // The exact state: {"version": n, "sequences": {"s": {"last_value": v,
  // "is_called": b}, ...}}.
  std::string StateJson() const;
  // Takes a saved state (the newer of several, by version) for the
  // sequences it names that exist here. Errors: it does not parse.
  Status Restore(const std::string& state);
  // The version of a saved state (0 if it does not parse).
  static uint64_t VersionOf(const std::string& state);
  // Logs the exact state (a checkpoint, a clean stop), so that a restart
  // continues where the sequences are, skipping nothing.
  Status Flush();

 private:
  struct Entry {
    SequenceDef def;
    int64_t last_value = 0;
    bool is_called = false;
    // The log holds this sequence further on than its values: at
    // `logged` (is_called), so values up to it (in the direction of the
    // increment) may be handed out without writing. Else the log holds
    // exactly last_value and is_called.
    bool reserved = false;
    int64_t logged = 0;
  };
  std::string LoggedJson() const;
  Status WriteLog();

  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;
  Log log_;
  uint64_t version_ = 0;
};

// What one client's session has seen of the sequences: currval() and
// lastval() are the session's own, as in PostgreSQL.
// Thread safety: `mu_` guards all (calls come from the query's workers).
class SequenceSession {
 public:
  void Saw(const std::string& name, int64_t value);
  Result<int64_t> CurrVal(const std::string& name) const;
  Result<int64_t> LastVal() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, int64_t> current_;
  std::string last_;
};

// What the calls of one statement reach.
struct SequenceAccess {
  std::shared_ptr<Sequences> sequences;
  std::shared_ptr<SequenceSession> session;
};

// A call of nextval, currval, setval or lastval over bound arguments (the
// sequence's name as text first), which reaches `access` when evaluated.
ExprPtr MakeSequenceCall(const std::string& function, std::vector<ExprPtr> args,
                         std::shared_ptr<const SequenceAccess> access);

}  // namespace sluice::sql
