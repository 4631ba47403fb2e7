// A program: the text of CREATE TABLE, CREATE [MATERIALIZED] VIEW and CREATE
// INDEX statements that a pipeline runs. Compiling it binds every view; the
// circuit of every view is then built on each worker.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <set>
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
  std::vector<std::string> functions;  // SQL functions, in declaration order
};

// Compiles `text`. The first error stops compilation and is returned with
// the line, column and a caret.
Result<Program> CompileProgram(std::string_view text);

// Builds the circuit of every view into `c`: one input per table (named after
// it), and one output per table (its rows' changes) and per view (the view's
// visible columns), named after them.
// A table without a primary key takes the changes of its rows (encoded with
// its columns); a table with one takes commands (EncodeUpsertCommand, keyed
// by the encoded key columns), so that inserting an existing key replaces
// its row and a delete needs only the key.
// The operators of table t belong to TableOwner(t), those that view v adds
// to ViewOwner(v) (Circuit::SetOwner). With `only_views`, just those views
// are built (with every table); it must hold every view that one of them
// reads.
//
// Many hosts (`layout`): the output of every table and view is gathered
// onto the workers of the host that `layout->output_host` assigns it
// (sharded over them by key), so that its stream and integral are whole
// there and empty elsewhere; those in `layout->on_demand` only while their
// switch is on (until then their output is empty everywhere). Input rows may be pushed to any
// worker of any host: every operator that needs rows by key (the upsert of a keyed table among
// them) exchanges its input first.
// One host's share of a pipeline on many hosts (DESIGN.md section 6):
// every table's and view's change is gathered onto the workers of its host
// (`output_host`), where its connectors and HTTP streams are; a gather with
// a switch in `on_demand` moves rows only while the switch is on. With
// `spread` (the all_hosts layout), each materialized relation's change is
// also sharded by row over the workers of every host, where its integral
// is kept: the runtime's output SpreadOutputName(r) is this host's share.
struct HostLayout {
  int workers_per_host = 1;
  std::map<std::string, int> output_host;  // every table and view
  std::map<std::string, std::shared_ptr<const std::atomic<bool>>> on_demand;
  bool spread = false;
  // Relations whose change, as this host's workers computed it (before the
  // gather), is also the runtime output PartOutputName(r): what the parts
  // of their distributed connectors write.
  std::set<std::string> parts;
};
// The runtime output that carries this host's share of a spread relation's
// change.
inline std::string SpreadOutputName(const std::string& relation) { return relation + "\x1fshare"; }
// The runtime output that carries this host's part of a relation's change,
// for distributed connectors (HostLayout::parts).
inline std::string PartOutputName(const std::string& relation) { return relation + "\x1fpart"; }
// Builds one worker's circuit of `program`. With `waterlines` (from
// NewTableWaterlines, shared by every worker), operators forget state behind
// the tables' waterlines. `clock` is the step clock that views with
// temporal filters read (Program::reads_clock; shared by every worker).
Status BuildProgram(const Program& program, Circuit& c, EvalErrors* errors,
                    const std::set<std::string>* only_views = nullptr,
                    const HostLayout* layout = nullptr, const TableWaterlines* waterlines = nullptr,
                    StepClockPtr clock = nullptr);
// Per view, the other views that read it (directly or through others): its
// plan is part of theirs.
std::map<std::string, std::vector<std::string>> ViewReaders(const Program& program);
// Whether a view of `program` has a temporal filter (NOW() in its WHERE
// clause), so that its output changes as the step clock moves.
bool ReadsStepClock(const Program& program);
inline std::string TableOwner(const std::string& t) { return "table:" + t; }
inline std::string ViewOwner(const std::string& v) { return "view:" + v; }

// The table that a CREATE TABLE statement (the CreateStmt body) declares;
// its columns may have the types `catalog` defines.
Result<TableDef> BindCreateTable(std::string_view sql, const Json& body,
                                 const Catalog* catalog = nullptr);

// The named ROW type of a CREATE TYPE name AS (field type, ...) statement
// (the CompositeTypeStmt body), added to `catalog`. Other kinds of CREATE
// TYPE (enums, ranges) are refused as not supported yet.
Status AddCreateType(std::string_view sql, const std::string& kind, const Json& body,
                     Catalog* catalog);
bool IsCreateType(const std::string& kind);

// CREATE [MATERIALIZED] VIEW: a ViewStmt, or a CreateTableAsStmt of a
// materialized view; `kind` is the statement's node name.
bool IsCreateView(const std::string& kind, const Json& body);
const Json& ViewRelation(const std::string& kind, const Json& body);
// Sets the view's query as written from its statement `st` (an element of
// the parse tree's "stmts") in `sql`, and, where DeparseView could not print
// its query, its pg_get_viewdef text to that query.
void SetViewText(std::string_view sql, const Json& st, ViewDef* v);
Result<ViewDef> BindCreateView(const Catalog& catalog, std::string_view sql,
                               const std::string& kind, const Json& body);

// The function that a CREATE FUNCTION statement (the CreateFunctionStmt
// body) declares (binder_function.cc). One Sluice cannot run is kept with
// the reason (FunctionDef::unsupported), which its calls report.
Result<FunctionDef> BindCreateFunction(std::string_view sql, const Json& body);

// The aggregate that a CREATE AGGREGATE statement (the DefineStmt body)
// declares, its functions checked against `catalog` (binder_aggregate.cc).
// One Sluice cannot compute is kept with the reason
// (AggregateDef::unsupported), which its calls report.
Result<AggregateDef> BindCreateAggregate(const Catalog& catalog, std::string_view sql,
                                         const Json& body);

// CREATE SEQUENCE over `catalog`: the new sequence, or nullopt where IF NOT
// EXISTS finds the name taken (by a sequence, table or view: PostgreSQL's
// notice).
Result<std::optional<SequenceDef>> CreatedSequence(std::string_view sql, const Json& body,
                                                   const Catalog& catalog);
// ALTER SEQUENCE over `catalog`: the sequence as the statement leaves it,
// or nullopt where IF EXISTS finds none; `restart` and `last_value` as
// ReadSequenceOptions takes them.
Result<std::optional<SequenceDef>> AlteredSequence(std::string_view sql, const Json& body,
                                                   const Catalog& catalog,
                                                   std::optional<int64_t>* restart,
                                                   std::optional<int64_t> last_value = {});
// CREATE SEQUENCE and ALTER SEQUENCE (`kind`: CreateSeqStmt or
// AlterSeqStmt, `body` its node) of a program, on `catalog`. ALTER's RESTART
// is refused: a program runs again at every start.
Status AddSequenceStatement(std::string_view sql, const std::string& kind, const Json& body,
                            Catalog* catalog);
// Adds the SQL functions, types and sequences (CREATE SEQUENCE, SERIAL and
// IDENTITY columns) that the program `text` declares to `catalog` (for
// queries outside the program: ad hoc ones). Nothing for an empty text.
Status AddProgramDefinitions(std::string_view text, Catalog* catalog);

// The index that a CREATE INDEX statement (the IndexStmt body) declares.
IndexDef BindCreateIndex(const Json& body);

}  // namespace sluice::sql
