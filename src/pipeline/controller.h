// The controller: runs a compiled program as a pipeline on one host, or as
// one host's share of a pipeline on many (HostRole, driven by a
// coordinator). It owns the workers (Runtime) and the connectors, and
// holds the pipeline together from parts with their own files and tests:
//
//   StepLoop         the state, transactions, checkpoint requests and the
//                    loop that decides between steps (step_loop.h)
//   InputQueues      input between arrival and the step that takes it,
//                    tokens and their completion (input_queues.h)
//   OutputEndpoints  integrals, output connectors and HTTP streams, handed
//                    every step's changes at the step boundary
//                    (output_endpoints.h)
//   CheckpointStore  checkpoints on storage (checkpoint_store.h)
//   LeaseTable       integrals pinned for readers on other processes
//                    (lease_table.h)
//
// The controller keeps what ties them: starting (Init, Launch), running a
// step (RunInput: the input split over the workers, the step, the outputs
// held in a transaction or handed over), writing and restoring checkpoints
// (controller_checkpoint.cc), rebuilding a changed program
// (controller_bootstrap.cc), a host's share (controller_host.cc), and
// failure.
//
// Steps. The loop sleeps until input is queued, then waits for
// min_batch_size_records records or max_buffering_delay_usecs (whichever
// comes first), takes everything queued, runs one step on every worker, and
// hands each relation's change over. Steps are numbered from 1.
//
// Consistency. Subscribing, snapshots and ad hoc queries take the output
// endpoints' lock, which a step holds while it hands its changes over, so a
// snapshot is exactly the integral after the last delivered step S, and a
// stream that starts with it then receives every change from step S+1 on.
//
// Transactions. Between StartTransaction() and CommitTransaction(), steps
// run as usual but their outputs are held; the commit delivers their sum as
// one change, with the commit's step, so that sinks see the transaction at
// once. Completion of ingress during a transaction waits for the commit.
//
// Thread safety and lock order. step_mu_ is held while a step runs, a
// checkpoint is written or a changed program is rebuilt (the runtime is
// only used under it, or before Launch). Locks are taken in this order:
//   step_mu_ -> OutputEndpoints -> StepLoop -> InputQueues -> Journal
// and the parts take no lock of another part while holding their own,
// except that the step loop asks InputDue (InputQueues) with its own held.
// host_mu_ and change_mu_ are leaves.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "base/mutex.h"
#include "connector/connector.h"
#include "dataflow/clock.h"
#include "format/format.h"
#include "pipeline/api.h"
#include "pipeline/checkpoint_store.h"
#include "pipeline/config.h"
#include "pipeline/input_queues.h"
#include "pipeline/journal.h"
#include "pipeline/lease_table.h"
#include "pipeline/output_endpoints.h"
#include "pipeline/peers.h"
#include "pipeline/step_loop.h"
#include "pipeline/waterlines.h"
#include "runtime/runtime.h"
#include "sql/program.h"
#include "sql/sequences.h"
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
  // The all_hosts layout: every host keeps a share of each materialized
  // relation's integral (else each is kept whole on its output host).
  bool spread = false;
  // The other hosts, for assembling snapshots of spread relations;
  // outlives the controller.
  Peers* peers = nullptr;
  uint64_t restore_seq = 0;  // the checkpoint to open (0: none; newer ones go)
  std::string pipeline_id;
  // Materialized relations whose integrals the checkpoint holds in the
  // other layout: their part here is leased aside (relayout_lease()), and
  // the output connectors wait, until Relayout().
  std::vector<std::string> relayout;
};

class Controller final : public PipelineApi, private StepLoop::Driver {
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

  const std::string& ProgramText() const override { return program_text_; }
  const RelationInfo* FindRelation(const std::string& name) const override;
  std::vector<std::string> RelationNames() const override { return output_names_; }
  const sql::Program& program() const { return program_; }

  // ---- input
  Result<uint64_t> Ingest(const std::string& table, format::ChangeBuffer changes, bool force,
                          uint64_t bytes) override;
  void CountIngressErrors(const std::string& table, uint64_t errors) override;
  Result<Completion> CompletionOf(uint64_t token) const override;
  // On the leader's host: another host's part of distributed connector
  // `report.connector` reports a step (connector::LeaderLink); returns once
  // the step is committed, or Unavailable after a while (ask again).
  Status AcceptPartReport(const connector::PartReport& report);
  // On a host of many: the deletes of the last step that found no row to
  // delete, per table (its step answer).
  std::map<std::string, uint64_t> LastStepIgnoredDeletes() const { return ignored_deletes_.Last(); }
  // Waits until `token` is complete or `timeout` passes (for tests and tools).
  bool WaitComplete(uint64_t token, std::chrono::milliseconds timeout) const;
  bool stopping() const { return loop_.stopping(); }
  // Nothing is queued and no step is running (for benchmarks and tools).
  bool Idle() const;

  // ---- output
  Result<Subscription> Subscribe(const std::string& relation, bool snapshot, bool follow,
                                 bool backpressure, uint64_t max_queued_records) override;
  void Unsubscribe(uint64_t id) override;

  // ---- control
  void Pause() override;
  void Resume() override;
  PipelineState state() const override { return loop_.state(); }
  Status failure() const { return loop_.failure(); }
  uint64_t step() const override { return loop_.step(); }
  // Microseconds spent running steps and handing their outputs over.
  uint64_t step_usecs() const { return loop_.step_usecs(); }
  // The same, by phase (report.h), and the time input waited for its step.
  std::map<std::string, uint64_t> step_phase_usecs() const { return phases_.Usecs(); }
  Status StartTransaction() override { return loop_.StartTransaction(); }
  Result<uint64_t> CommitTransaction() override { return loop_.CommitTransaction(); }
  bool in_transaction() const { return loop_.in_transaction(); }
  Status SetEndpointPaused(const std::string& name, bool paused) override;
  Status ResetOutput(const std::string& name) override;

  // The integrals of materialized relations after the last delivered step,
  // read together (for ad hoc queries). Error if one is not materialized.
  // On many hosts, this host's part (empty for relations gathered on
  // another host).
  Result<std::map<std::string, std::vector<BatchPtr>>> Snapshots(
      const std::vector<std::string>& relations, uint64_t* step) const;

  // Read at the last delivered step.
  using PipelineApi::Query;
  Result<QueryResult> Query(std::string_view sql,
                            std::shared_ptr<sql::SequenceSession> session) override;

  // ---- checkpoints (with storage): the state after a step, on storage.
  Result<uint64_t> RequestCheckpoint() override;
  // Waits until checkpoint `seq` is written or failed.
  Status WaitCheckpoint(uint64_t seq, std::chrono::milliseconds timeout) {
    return loop_.WaitCheckpoint(seq, timeout);
  }
  std::string CheckpointStatusJson() const override { return loop_.CheckpointStatusText(); }
  std::vector<CheckpointInfo> Checkpoints() const override;

  // ---- program changes (controller_bootstrap.cc)
  Status Approve() override;

  PipelineStats Stats() const override;
  PipelineStatus CurrentStatus() const override;

  // ---- one host of many (controller_host.cc). The coordinator drives the
  // steps and checkpoints; this controller runs no step loop of its own.
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
  // took (or nothing, if this host never ran it). `clock` is the step clock
  // the coordinator chose (a journaled step keeps the one it had).
  // `maxima`: per table with a LATENESS, the largest value over every host
  // (the waterlines follow it before the step takes its input).
  Status RunHostStep(uint64_t step, bool commit, bool in_txn, bool replay = false,
                     int64_t clock = 0, const std::map<std::string, int64_t>& maxima = {});
  // Per table with a LATENESS: the largest value of its column this host
  // took (for the coordinator, which agrees on the waterlines).
  std::map<std::string, int64_t> LatenessMaxima() const { return waterlines_->maxima(); }
  // exactly_once: the steps after the checkpoint that this host's journal
  // records, to be replayed: (step, commit, in a transaction, step clock).
  std::vector<std::tuple<uint64_t, bool, bool, int64_t>> RecordedSteps() const;
  // The number of the newest input journal file (0: none).
  uint64_t NewestJournalFile() const;
  // Writes this host's part of checkpoint `seq` at this step boundary.
  Status WriteHostCheckpoint(uint64_t seq);
  // Every host wrote its part of `seq`: older parts and the journal files
  // before it go, and the input it holds counts as durable.
  Status CompleteHostCheckpoint(uint64_t seq);
  // Leases: the integrals of `relations` at step `step` (0: the last),
  // pinned until released (or untouched for too long), for a reader on
  // another process that reads every host at one step (the coordinator's
  // query, another host's snapshot). A step not delivered yet is waited for
  // (10 s). Returns the lease and its step.
  Result<std::pair<uint64_t, uint64_t>> Lease(const std::vector<std::string>& relations,
                                              uint64_t step, const std::string& holder);
  // A piece of this host's part of `relation` in lease `lease`
  // (LeaseTable::Scan).
  Result<MemBatchPtr> ScanLease(uint64_t lease, const std::string& relation, bool from_start,
                                std::string_view after, uint64_t max_bytes) {
    return leases_.Scan(lease, relation, from_start, after, max_bytes);
  }
  Result<uint64_t> TouchLease(uint64_t lease) { return leases_.Touch(lease); }
  void ReleaseLease(uint64_t lease) { leases_.Release(lease); }
  // Gathers `relation`'s output onto its host from the next step on (see
  // GatheredOnDemand); every host is told between the same two steps.
  Status Follow(const std::string& relation);
  const HostRole* role() const { return role_ ? &*role_ : nullptr; }
  // With HostRole::relayout: the lease of this host's old part (0: none).
  uint64_t relayout_lease() const { return relayout_lease_; }
  // Moves the integrals of `relations` into this host's layout: reads
  // every host's old part (`leases`, by host) and keeps the rows this host
  // now owns; then starts the output connectors. Returns the rows kept.
  Result<uint64_t> Relayout(const std::vector<std::string>& relations,
                            const std::vector<uint64_t>& leases);
  // Once every host moved its integrals: drops the relayout lease and
  // starts the output connectors (their snapshots read every host).
  Status LaunchOutputs();

 private:
  class Source;
  struct Input {
    connector::ConnectorSpec spec;
    std::unique_ptr<connector::InputConnector> connector;
    std::unique_ptr<connector::InputSink> sink;
  };
  // What a restart with a changed program keeps and rebuilds
  // (controller_bootstrap.cc).
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

  Controller(sql::Program program, PipelineConfig config, std::string base_dir);
  Status Init();
  // Starts the output connectors (with their snapshots), the step loop and
  // the input connectors.
  Status Launch();
  Status LoadPipelineId();
  Status ResumeTokens();

  // ---- StepLoop::Driver
  StepLoop::Clock::time_point InputDue(uint64_t last_step) override;
  Status RunStep(const StepLoop::StepPlan& plan) override;
  Status TakeCheckpoint(uint64_t seq) override;
  void Failed(const Status& s) override;
  void Progress() override;

  // Journals the step (with a journal and `journal`), splits `input` over
  // the workers, runs the step, and holds its outputs (in a transaction) or
  // hands them over; tokens up to `last_token` are then complete.
  Status RunInput(const StepLoop::StepPlan& plan, const InputQueues::StepInput& input,
                  uint64_t last_token, bool journal) REQUIRES(step_mu_);
  // Assembles snapshots of spread relations from every host, each on a
  // thread of its own (never the step loop's); threads that are done are
  // joined as new ones start, and every one at Stop.
  void AssembleSnapshots(OutputEndpoints::SnapshotStarts starts) EXCLUDES(snapshots_mu_);
  // Runs a step outside the loop (a replay at start, a host's step).
  Status RunOutside(const StepLoop::StepPlan& plan, const InputQueues::StepInput& input,
                    uint64_t last_token, bool journal) EXCLUDES(step_mu_);
  void Fail(const Status& s);
  // The input gate as the state says: open, held (paused) or closed.
  void SyncGate();

  // ---- checkpoints (controller_checkpoint.cc)
  Status WriteCheckpoint(uint64_t seq) REQUIRES(step_mu_);
  Status Restore();
  // Loads checkpoint `seq`; with `change`, only the state the change keeps,
  // and then rebuilds the rest (Bootstrap).
  Status LoadCheckpoint(uint64_t seq, const std::string& body, const ProgramChange* change)
      REQUIRES(step_mu_);
  // exactly_once: replays the journal after the restored checkpoint: its
  // input is queued again, and its steps are run (`run_steps`) or, on many
  // hosts, kept in recorded_steps_ for the coordinator to replay.
  Status LoadJournal(bool run_steps);
  // Removes the checkpoints numbered below `seq`, and their journal files.
  void DropCheckpointsBefore(uint64_t seq);

  // ---- program changes (controller_bootstrap.cc)
  // Compares the program with the one checkpoint `body` (JSON text) was
  // taken with. Refuses changes it cannot rebuild.
  Result<std::unique_ptr<ProgramChange>> PlanChange(const std::string& body) const;
  Status Bootstrap(const std::string& dir, const std::string& body, const ProgramChange& change)
      REQUIRES(step_mu_);
  // The relations of this program as a checkpoint records them (JSON text).
  std::string RelationsJson() const;
  // A relation's fingerprint: its definition and those of all it reads.
  uint64_t Fingerprint(const std::string& relation) const;

  // On many hosts, whether `relation`'s output is gathered on this host.
  // On many hosts: whether output connector `spec` runs as a part on every
  // host (distributed, of a transport that can).
  bool RunsAsParts(const connector::ConnectorSpec& spec) const {
    return role_.has_value() && role_->hosts > 1 && !spec.input && spec.distributed &&
           connector::SupportsDistributed(spec.transport);
  }
  bool IsHere(const std::string& relation) const {
    return !role_ || role_->output_host.at(relation) == role_->host;
  }

  // Set at Start/Init, then read only.
  const sql::Program program_;
  const PipelineConfig config_;
  const std::string base_dir_;
  std::optional<HostRole> role_;  // one host of many
  std::map<std::string, std::shared_ptr<std::atomic<bool>>> gather_switches_;
  std::string program_text_;
  uint64_t program_fingerprint_ = 0;  // of the program's text
  std::string pipeline_id_;
  bool exactly_once_ = false;  // fault_tolerance model exactly_once
  std::map<std::string, RelationInfo> relations_;
  std::vector<std::string> output_names_;  // tables and views, in program order
  // The runtime's outputs: output_names_, and the spread shares.
  std::vector<std::string> runtime_outputs_;
  sql::EvalErrors errors_;
  IgnoredDeletesLog ignored_deletes_;       // by step, from errors_
  std::unique_ptr<Waterlines> waterlines_;  // of the tables with a LATENESS column
  // NOW() in views' temporal filters: set before each step (StepClockFor).
  std::shared_ptr<StepClock> clock_ = std::make_shared<StepClock>();
  bool reads_clock_ = false;                // some view has a temporal filter
  std::unique_ptr<MemoryBudget> budget_;    // outlives every spine below
  std::shared_ptr<BlockCache> block_cache_;  // with storage: shared by the spines' files
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  // The last progress line's figures and time (the loop thread's).
  PipelineStats progress_stats_;
  std::chrono::steady_clock::time_point progress_at_ = started_;

  // The parts.
  StepLoop loop_{"sluice"};
  std::unique_ptr<InputQueues> queues_;
  std::unique_ptr<OutputEndpoints> outputs_;
  std::unique_ptr<CheckpointStore> store_;  // with storage
  LeaseTable leases_;
  std::vector<Input> inputs_;                  // the connectors; their queues are in queues_
  std::unique_ptr<Journal> journal_;           // exactly_once, once launched; its own mutex
  uint64_t restored_seq_ = 0;                  // the checkpoint the pipeline started from
  SpineOptions spine_options_;                 // of the integrals
  uint64_t relayout_lease_ = 0;                // set at Start, then read only
  std::atomic<bool> relayout_pending_{false};  // the output connectors wait

  // The step runner.
  StepPhases phases_;
  Mutex step_mu_;
  std::unique_ptr<Runtime> runtime_;  // steps and state: under step_mu_ once launched
  // Each worker's operators' times, for /stats (read there without step_mu_).
  mutable Mutex times_mu_;
  std::vector<std::shared_ptr<const OperatorTimes>> operator_times_ GUARDED_BY(times_mu_);
  // Views whose evaluation met an error in a step (on one host), and the
  // views that read them: why, as "view v failed at step N: ...". They give
  // no changes from that step on; the other views run on.
  mutable Mutex failed_mu_;
  std::map<std::string, std::string> failed_views_ GUARDED_BY(failed_mu_);
  // Stops view `name` and every view that reads it, from the next step on.
  void FailView(const std::string& name, const std::string& why) REQUIRES(step_mu_)
      EXCLUDES(failed_mu_);
  // Why `relation` gives no changes (a failed view), or OK.
  Status ViewFailure(const std::string& relation) const EXCLUDES(failed_mu_);
  std::map<std::string, std::vector<BatchPtr>> txn_outputs_ GUARDED_BY(step_mu_);
  uint64_t upsert_seq_ GUARDED_BY(step_mu_) = 0;
  // The program's sequences (one host only: on many, the coordinator keeps
  // them), set at Init; and the state a restored checkpoint held of them.
  std::shared_ptr<sql::Sequences> sequences_ = std::make_shared<sql::Sequences>();
  std::string restored_sequences_;

  // One host of many.
  mutable Mutex host_mu_;
  std::pair<uint64_t, uint64_t> written_part_ GUARDED_BY(host_mu_){0, 0};  // (seq, token)
  std::map<uint64_t, JournalRecord> recorded_steps_ GUARDED_BY(host_mu_);  // to replay

  // A restart with a changed program: awaiting approval (with the
  // checkpoint it resumes), and the changes as /status lists them.
  mutable Mutex change_mu_;
  std::unique_ptr<ProgramChange> pending_change_ GUARDED_BY(change_mu_);
  uint64_t pending_seq_ GUARDED_BY(change_mu_) = 0;
  std::string pending_body_ GUARDED_BY(change_mu_);
  std::optional<ProgramChanges> program_changes_ GUARDED_BY(change_mu_);

  std::thread loop_thread_;

  // Snapshots being assembled (AssembleSnapshots).
  Mutex snapshots_mu_;
  struct SnapshotThread {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::vector<SnapshotThread> snapshot_threads_ GUARDED_BY(snapshots_mu_);
  std::atomic<bool> cancel_snapshots_{false};
};

}  // namespace sluice::pipeline
