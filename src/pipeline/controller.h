// The controller: runs a compiled program as a pipeline. It owns the
// workers (Runtime), the table queues that HTTP ingress and input connectors
// fill, the step loop, the integrals of materialized tables and views (for
// snapshots and ad hoc queries), and the output endpoints (connectors and
// HTTP egress streams) that every step's changes are handed to.
//
// Steps. The step loop sleeps until input is queued, then waits for
// min_batch_size_records records or max_buffering_delay_usecs (whichever
// comes first), takes everything queued, runs one step on every worker, and
// hands each relation's change to its endpoints. Steps are numbered from 1.
//
// Consistency. Subscribing, snapshots and ad hoc queries happen between
// steps (under `step_mu_`), so a snapshot is exactly the integral after the
// last delivered step S, and a stream that starts with it then receives
// every change from step S+1 on.
//
// Transactions. Between StartTransaction() and CommitTransaction(), steps
// run as usual but their outputs are held; the commit delivers their sum as
// one change, with the commit's step, so that sinks see the transaction at
// once. Completion of ingress during a transaction waits for the commit.
//
// Backpressure. An input connector waits while its table's queue is full;
// an endpoint's full queue holds the step loop back (or, for an HTTP stream
// without backpressure, cuts that client off with an error).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "connector/connector.h"
#include "format/format.h"
#include "pipeline/api.h"
#include "pipeline/config.h"
#include "pipeline/journal.h"
#include "pipeline/step_state.h"
#include "runtime/runtime.h"
#include "sql/program.h"
#include "zset/spine.h"

namespace sluice::pipeline {

// One host's part in a pipeline on many hosts (DESIGN.md section 6), as the
// coordinator's activation gives it.
struct HostRole {
  int host = 0;                    // this host's index
  int hosts = 1;                   // how many
  Transport* transport = nullptr;  // the exchange between hosts; outlives the controller
  // The host of every table's and view's output stream (and integral).
  std::map<std::string, int> output_host;
  std::set<std::string> inputs;  // the input connectors that run on this host
  uint64_t restore_seq = 0;      // the checkpoint to open (0: none; newer ones go)
  std::string pipeline_id;
};

class Controller final : public PipelineApi {
 public:
  // Compiles `program_text`, checks its connectors, starts the workers, the
  // connectors and the step loop. Relative connector paths are taken from
  // `base_dir` (the program file's directory). With `role`, the controller
  // runs one host's share of a pipeline on many hosts (below).
  static Result<std::unique_ptr<Controller>> Start(std::string_view program_text,
                                                   PipelineConfig config, std::string base_dir = "",
                                                   const HostRole* role = nullptr);
  ~Controller() override;
  // Stops the connectors (output ones after draining what they were handed),
  // the step loop and the workers. Idempotent.
  void Stop();

  const RelationInfo* FindRelation(const std::string& name) const override;
  const sql::Program& program() const { return program_; }

  // ---- input
  Result<uint64_t> Ingest(const std::string& table, format::ChangeBuffer changes, bool force,
                          uint64_t bytes) override;
  void CountIngressErrors(const std::string& table, uint64_t errors) override;
  Result<Completion> CompletionOf(uint64_t token) const override;
  // Waits until `token` is complete or `timeout` passes (for tests and tools).
  bool WaitComplete(uint64_t token, std::chrono::milliseconds timeout) const;

  bool stopping() const;
  // Nothing is queued and no step is running (for benchmarks and tools).
  bool Idle() const;

  // ---- output
  Result<Subscription> Subscribe(const std::string& relation, bool snapshot, bool follow,
                                 bool backpressure, uint64_t max_queued_records) override;
  void Unsubscribe(uint64_t id) override;

  // ---- control
  void Pause() override;
  void Resume() override;
  PipelineState state() const override;
  Status failure() const;
  uint64_t step() const override;
  // Microseconds spent running steps and handing their outputs over.
  uint64_t step_usecs() const;
  Status StartTransaction() override;
  Result<uint64_t> CommitTransaction() override;
  bool in_transaction() const;
  Status SetEndpointPaused(const std::string& name, bool paused) override;
  Status ResetOutput(const std::string& name) override;

  // The integrals of materialized relations after the last delivered step,
  // read together (for ad hoc queries). Error if one is not materialized.
  // On many hosts, this host's part (empty for relations gathered on
  // another host).
  Result<std::map<std::string, std::vector<BatchPtr>>> Snapshots(
      const std::vector<std::string>& relations, uint64_t* step);

  // Read at the last delivered step.
  Result<QueryResult> Query(std::string_view sql) override;

  // ---- checkpoints (with storage): the state after a step, on storage.
  Result<uint64_t> RequestCheckpoint() override;
  // Waits until checkpoint `seq` is written or failed.
  Status WaitCheckpoint(uint64_t seq, std::chrono::milliseconds timeout);
  std::string CheckpointStatusJson() const override;
  std::vector<CheckpointInfo> Checkpoints() const override;

  // ---- program changes (bootstrap.cc)
  Status Approve() override;

  PipelineStats Stats() const override;
  PipelineStatus CurrentStatus() const override;

  // ---- one host of many (controller_host.cc). The coordinator drives the steps and
  // checkpoints; this controller runs no step loop of its own.
  // Waits up to `wait` for input that is due for a step (by the batching
  // settings); returns the records queued, whether they are due, and the
  // last step (the state is that of the queues after it).
  struct InputState {
    uint64_t buffered = 0;
    bool due = false;
    uint64_t step = 0;
  };
  InputState WaitForInput(std::chrono::milliseconds wait);
  // Runs step `step` (which must follow the last one) with the input queued
  // now, as every other host does at the same time. With exactly_once, the
  // step is journaled first; a `replay` step takes what the journal says it
  // took (or nothing, if this host never ran it).
  Status RunHostStep(uint64_t step, bool commit, bool in_txn, bool replay = false);
  // exactly_once: the steps after the checkpoint that this host's journal
  // records, to be replayed: (step, commit, in a transaction).
  std::vector<std::tuple<uint64_t, bool, bool>> RecordedSteps() const;
  // The number of the newest input journal file (0: none).
  uint64_t NewestJournalFile() const;
  // Writes this host's part of checkpoint `seq` at this step boundary.
  Status WriteHostCheckpoint(uint64_t seq);
  // Every host wrote its part of `seq`: older parts and the journal files
  // before it go, and the input it holds counts as durable.
  Status CompleteHostCheckpoint(uint64_t seq);
  // Leases: the integrals of `relations` at the last step, pinned until
  // released (or untouched for `kLeaseTimeout`), for a coordinator that
  // reads every host at one step. Returns the lease and its step.
  Result<std::pair<uint64_t, uint64_t>> Lease(const std::vector<std::string>& relations);
  // This host's part of `relation` in lease `lease`.
  Result<std::vector<BatchPtr>> ScanLease(uint64_t lease, const std::string& relation);
  void ReleaseLease(uint64_t lease);
  // Gathers `relation`'s output onto its host from the next step on (see
  // GatheredOnDemand); every host is told between the same two steps.
  Status Follow(const std::string& relation);
  const HostRole* role() const { return role_ ? &*role_ : nullptr; }

 private:
  // Changes from one producer: an input connector (`source` >= 0) or one
  // HTTP request (-1, always taken whole so that its token completes in one
  // step). `next` counts the changes already taken.
  struct Segment {
    uint64_t id = 0;  // numbered in queueing order (the journal's key)
    int source = -1;
    std::shared_ptr<const format::ChangeBuffer> changes;
    size_t next = 0;
  };
  struct TableQueue {
    std::deque<Segment> segments;
    bool keyed = false;
  };
  // Changes of one table that a step takes.
  struct Range {
    uint64_t segment = 0;
    std::shared_ptr<const format::ChangeBuffer> changes;
    size_t from = 0, to = 0;
  };
  class Source;
  bool EnqueueFrom(size_t input, format::ChangeBuffer changes, std::string position);
  // Appends a non-empty segment to the queue of `table`, counting its
  // records as buffered (and as queued by its connector), and, with a
  // journal, writes it there first. `id` 0 numbers a new segment; restores
  // give the recorded one. REQUIRES: mu_ held.
  Status QueueLocked(const std::string& table, int source,
                     std::shared_ptr<const format::ChangeBuffer> changes, uint64_t id = 0);
  // Takes the next step's changes from the queues: everything queued, but at
  // most max_batch_size records per connector. REQUIRES: mu_ held.
  std::map<std::string, std::vector<Range>> TakeLocked();
  // exactly_once: replays the journal after the restored checkpoint: its
  // input is queued again, and its steps are run (`run_steps`) or, on many
  // hosts, kept in recorded_steps_ for the coordinator to replay.
  Status LoadJournal(bool run_steps);
  // The changes that step `step` took, as the journal records them, taken
  // from the queues again. REQUIRES: mu_ held.
  Result<std::map<std::string, std::vector<Range>>> TakeRecordedLocked(
      uint64_t step, const std::vector<JournalRecord::Range>& ranges);
  struct Endpoint {
    uint64_t id = 0;
    std::string name;  // connectors only
    std::string relation;
    std::string transport;
    std::shared_ptr<connector::OutputQueue> queue;
    std::unique_ptr<connector::OutputConnector> connector;  // null for HTTP streams
    bool send_snapshot = false;
    bool snapshot_sent = false;
  };
  struct Input {
    connector::ConnectorSpec spec;
    std::unique_ptr<connector::InputConnector> connector;
    std::unique_ptr<connector::InputSink> sink;
    uint64_t queued = 0;   // records not yet taken by a step; GUARDED_BY(mu_)
    std::string position;  // after the last changes it queued; GUARDED_BY(mu_)
  };
  struct IngressStats {
    uint64_t requests = 0, records = 0, bytes = 0, parse_errors = 0;
  };

  Controller(sql::Program program, PipelineConfig config, std::string base_dir);
  // How long an untouched lease lives.
  static constexpr std::chrono::seconds kLeaseTimeout{120};
  struct LeaseEntry {
    uint64_t step = 0;
    std::map<std::string, std::vector<BatchPtr>> batches;
    std::chrono::steady_clock::time_point touched;
  };
  Status Init();
  void Loop();
  // `in_txn`: the step runs inside a transaction (its outputs are held
  // until one that commits).
  // Journals the step (with a journal, and `journal`), runs it, and counts
  // its time; a failure fails the pipeline. REQUIRES: stepping_ set, mu_
  // not held.
  Status RunTaken(const std::map<std::string, std::vector<Range>>& taken, uint64_t token,
                  bool commit, bool in_txn, bool journal);
  Status RunStep(const std::map<std::string, std::vector<Range>>& taken, uint64_t token,
                 bool commit, bool in_txn);
  void Deliver(uint64_t step, const std::map<std::string, BatchPtr>& outputs, uint64_t token);
  Status AddSnapshot(Endpoint& e, uint64_t step);
  Status WriteCheckpoint(uint64_t seq);
  Status Restore();
  Status LoadPipelineId();
  // Starts the output connectors (with their snapshots), the step loop and
  // the input connectors.
  Status Launch();
  // What a restart with a changed program keeps and rebuilds (bootstrap.cc).
  struct ProgramChange {
    struct Entry {
      std::string name;
      bool table = false;
      std::string change;  // "added", "changed", "removed", "materialized"
      std::string reason;
    };
    std::vector<Entry> entries;
    // Operators whose state comes from the checkpoint; from the rebuild.
    std::set<std::string> kept_owners, rebuilt_owners;
    std::set<std::string> rebuild_views;   // new and changed views
    std::set<std::string> changed_tables;  // rows carried into a new definition
    std::set<std::string> replay_tables;   // keyed: their upsert state replays
    std::set<std::string> feed_tables;     // unkeyed: fed from their integrals
    std::set<std::string> new_integrals;   // tables and views that get one
    bool needs_approval = false;
    bool needs_bootstrap() const { return !rebuilt_owners.empty() || !new_integrals.empty(); }
  };
  // Compares the program with the one checkpoint `body` (JSON text) was
  // taken with. Refuses changes it cannot rebuild.
  Result<std::unique_ptr<ProgramChange>> PlanChange(const std::string& body) const;
  // Loads checkpoint `dir`; with `change`, only the state the change keeps,
  // and then rebuilds the rest (Bootstrap).
  Status LoadCheckpoint(uint64_t seq, const std::string& dir, const std::string& body,
                        const ProgramChange* change);
  Status Bootstrap(const std::string& dir, const std::string& body, const ProgramChange& change);
  // The relations of this program as a checkpoint records them (JSON text).
  std::string RelationsJson() const;
  // A relation's fingerprint: its definition and those of all it reads.
  uint64_t Fingerprint(const std::string& relation) const;
  std::string CheckpointDir() const;
  void Fail(Status s);
  // Removes the checkpoints numbered below `seq`, and their journal files.
  void DropCheckpointsBefore(uint64_t seq);
  // On many hosts, whether `relation`'s output is gathered on this host.
  bool IsHere(const std::string& relation) const {
    return !role_ || role_->output_host.at(relation) == role_->host;
  }

  const sql::Program program_;
  const PipelineConfig config_;
  const std::string base_dir_;
  std::optional<HostRole> role_;  // one host of many
  std::map<std::string, std::shared_ptr<std::atomic<bool>>> gather_switches_;
  std::mutex lease_mu_;
  std::map<uint64_t, LeaseEntry> leases_;  // GUARDED_BY(lease_mu_)
  uint64_t next_lease_ = 1;                // GUARDED_BY(lease_mu_)
  uint64_t program_fingerprint_ = 0;       // of the program's text
  std::string pipeline_id_;
  bool exactly_once_ = false;                         // fault_tolerance model exactly_once
  std::unique_ptr<Journal> journal_;                  // with exactly_once, once running
  std::pair<uint64_t, uint64_t> written_part_{0, 0};  // many hosts: (seq, token); GUARDED_BY(mu_)
  std::map<uint64_t, JournalRecord> recorded_steps_;  // many hosts: to replay; GUARDED_BY(mu_)
  uint64_t restored_seq_ = 0;                         // the checkpoint the pipeline started from
  uint64_t next_segment_ = 1;                         // GUARDED_BY(mu_)
  std::map<std::string, RelationInfo> relations_;
  std::vector<std::string> output_names_;  // tables and views, in program order
  sql::EvalErrors errors_;
  std::unique_ptr<MemoryBudget> budget_;  // outlives every spine below
  std::unique_ptr<Runtime> runtime_;
  std::map<std::string, std::unique_ptr<Spine>> integrals_;  // materialized relations
  std::vector<Input> inputs_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();

  // Held by the step loop while it steps and delivers, and by whoever reads
  // integrals or changes the endpoints, so that they see a step boundary.
  mutable std::mutex step_mu_;
  std::vector<std::unique_ptr<Endpoint>> endpoints_;          // GUARDED_BY(step_mu_)
  std::map<std::string, std::vector<BatchPtr>> txn_outputs_;  // GUARDED_BY(step_mu_)
  uint64_t delivered_step_ = 0;                               // GUARDED_BY(step_mu_)
  uint64_t next_endpoint_id_ = 1;                             // GUARDED_BY(step_mu_)

  mutable std::mutex mu_;
  mutable std::condition_variable cv_;                    // wakes the step loop
  mutable std::condition_variable space_cv_;              // wakes waiting producers
  mutable std::condition_variable done_cv_;               // a step was delivered
  PipelineState state_ = PipelineState::kRunning;         // GUARDED_BY(mu_)
  Status failure_;                                        // GUARDED_BY(mu_)
  std::map<std::string, TableQueue> queues_;              // GUARDED_BY(mu_)
  std::map<std::string, IngressStats> ingress_;           // GUARDED_BY(mu_)
  uint64_t buffered_ = 0;                                 // GUARDED_BY(mu_)
  std::chrono::steady_clock::time_point first_buffered_;  // GUARDED_BY(mu_)
  uint64_t next_token_ = 1;                               // GUARDED_BY(mu_)
  uint64_t done_token_ = 0;                               // GUARDED_BY(mu_)
  std::deque<std::pair<uint64_t, uint64_t>> completed_;   // (last token, step); GUARDED_BY(mu_)
  TransactionState txn_;                                  // GUARDED_BY(mu_)
  uint64_t step_ = 0;                                     // GUARDED_BY(mu_)
  uint64_t processed_records_ = 0;                        // GUARDED_BY(mu_)
  bool stepping_ = false;                                 // GUARDED_BY(mu_)
  uint64_t step_usecs_ = 0;     // stepping and handing outputs over; GUARDED_BY(mu_)
  uint64_t upsert_seq_ = 0;     // only the step loop
  CheckpointProgress ckpt_;     // GUARDED_BY(mu_)
  uint64_t durable_token_ = 0;  // GUARDED_BY(mu_)
  // A restart with a changed program: awaiting approval (with the
  // checkpoint it resumes), and the changes as /status lists them.
  std::unique_ptr<ProgramChange> pending_change_;
  uint64_t pending_seq_ = 0;
  std::string pending_dir_, pending_body_;
  std::optional<ProgramChanges> program_changes_;  // GUARDED_BY(mu_)
  std::thread loop_;
};

}  // namespace sluice::pipeline
