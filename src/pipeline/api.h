// PipelineApi: what the HTTP API (src/server) asks of a pipeline. The
// controller implements it for a pipeline on one host; the coordinator
// (src/coordinator) implements it for a pipeline spread over many hosts, by
// calling them. The server never knows which.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/status.h"
#include "connector/connector.h"
#include "format/format.h"
#include "pipeline/report.h"
#include "sql/expr.h"
#include "sql/plan.h"
#include "sql/program.h"

namespace sluice::sql {
class SequenceSession;
}  // namespace sluice::sql

namespace sluice::pipeline {

// kAwaitingApproval: restarted with a changed program whose new and changed
// views wait for POST /approve before they are rebuilt (bootstrap.cc).
enum class PipelineState { kAwaitingApproval, kRunning, kPaused, kStopping, kFailed };
const char* StateName(PipelineState s);

struct RelationInfo {
  format::Relation rel;
  bool is_table = false;
  bool materialized = false;
  std::string definition;  // a view's query as written
  // A view's query as pg_get_viewdef prints it, and its pretty form.
  std::string pg_definition;
  std::string pg_definition_pretty;
  // A table's SERIAL and IDENTITY columns (sql::TableDef).
  std::vector<std::string> default_sequences;
  std::vector<int> identity_always, identity_by_default;
  std::vector<sql::CheckConstraint> checks;  // a table's CHECK constraints
};

struct Completion {
  bool complete = false;
  bool durable = false;  // its changes are in a checkpoint
  // Given before a restart, and its changes were in no checkpoint or
  // journal: they were lost.
  bool lost = false;
  uint64_t step = 0;  // complete: the step that processed it; else the current step
  // Complete: the first step that may have taken some of its records (its
  // records were taken by steps from_step to step).
  uint64_t from_step = 0;
  // Complete: deletes that found no row to delete in a table without a
  // primary key, in steps from_step to step (another request's, taken by
  // the same steps, included), per table.
  std::map<std::string, uint64_t> ignored_deletes;
};

struct Subscription {
  uint64_t id = 0;
  std::shared_ptr<connector::OutputQueue> queue;
  uint64_t snapshot_step = 0;  // the step the snapshot reflects
};

struct QueryResult {
  std::vector<sql::Column> columns;
  std::vector<sql::Row> rows;  // in the query's ORDER BY
  uint64_t step = 0;
};

// The relations of a program and their connectors, as a pipeline sees them.
struct ProgramInfo {
  std::map<std::string, RelationInfo> relations;
  std::vector<std::string> output_names;  // tables, then views, in program order
  std::vector<connector::ConnectorSpec> connectors;
};
// Relative connector paths are taken from `base_dir`. Errors: a connector
// that does not parse, two connectors of one name.
Result<ProgramInfo> DescribeProgram(const sql::Program& program, const std::string& base_dir);
// On many hosts, the relations whose output is gathered onto their host only
// while someone follows them over HTTP: those without an output connector
// (other than distributed ones) that are not materialized, or (`spread`: the all_hosts layout,
// where an integral needs no gather) are materialized too. The others are always gathered.
std::set<std::string> GatheredOnDemand(const ProgramInfo& program, bool spread);
// A new pipeline id (a random UUID), which sinks key replayed steps by.
std::string NewPipelineId();

class PipelineApi {
 public:
  virtual ~PipelineApi() = default;

  // The program's SQL, as it was given (GET /program).
  virtual const std::string& ProgramText() const = 0;
  virtual const RelationInfo* FindRelation(const std::string& name) const = 0;
  // Every table and view, for "did you mean" on a misspelled name.
  virtual std::vector<std::string> RelationNames() const = 0;

  // ---- input
  // Queues one request's decoded changes as a whole. Waits while the
  // pipeline is paused, unless `force`. Returns the request's token.
  virtual Result<uint64_t> Ingest(const std::string& table, format::ChangeBuffer changes,
                                  bool force, uint64_t bytes) = 0;
  // Counts a rejected ingress request's bad records for /stats.
  virtual void CountIngressErrors(const std::string& table, uint64_t errors) = 0;
  virtual Result<Completion> CompletionOf(uint64_t token) const = 0;

  // ---- output
  // A stream of a relation's changes: with `snapshot`, first its contents
  // (materialized relations only); with `follow`, every later change.
  virtual Result<Subscription> Subscribe(const std::string& relation, bool snapshot, bool follow,
                                         bool backpressure, uint64_t max_queued_records) = 0;
  virtual void Unsubscribe(uint64_t id) = 0;

  // ---- control
  virtual void Pause() = 0;
  virtual void Resume() = 0;
  virtual PipelineState state() const = 0;
  virtual uint64_t step() const = 0;
  virtual Status StartTransaction() = 0;
  // Delivers the transaction's outputs; returns the step that committed it.
  virtual Result<uint64_t> CommitTransaction() = 0;
  virtual Status SetEndpointPaused(const std::string& name, bool paused) = 0;
  // An output connector starts over: a file sink truncates its file, and a
  // send_snapshot connector gets the relation's snapshot again.
  virtual Status ResetOutput(const std::string& name) = 0;
  // An ad hoc SELECT over the materialized tables and views, all read at
  // one step. It may call nextval() and its kin: the pipeline's sequences
  // are kept where its ad hoc queries run. `session`: what the client's
  // session has seen of them (currval(), lastval()); null: a session of
  // this query alone.
  virtual Result<QueryResult> Query(std::string_view sql,
                                    std::shared_ptr<sql::SequenceSession> session) = 0;
  Result<QueryResult> Query(std::string_view sql) { return Query(sql, nullptr); }

  // ---- checkpoints: asks for one at the next step boundary; returns its
  // sequence number.
  virtual Result<uint64_t> RequestCheckpoint() = 0;
  virtual std::string CheckpointStatusJson() const = 0;
  // The checkpoints on storage, newest first.
  virtual std::vector<CheckpointInfo> Checkpoints() const = 0;
  // Rebuilds the changed views that a restart waits to rebuild, then runs.
  virtual Status Approve() = 0;

  // What /stats and /status report.
  virtual PipelineStats Stats() const = 0;
  virtual PipelineStatus CurrentStatus() const = 0;
};

}  // namespace sluice::pipeline
