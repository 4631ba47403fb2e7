// Where every step's changes go: the integrals of the materialized tables
// and views this host holds (for snapshots and ad hoc reads), the output
// connectors and the HTTP egress streams. Deliver() adds a step's changes
// to the integrals and hands them to every endpoint under one lock (the
// step boundary), and a subscription takes its snapshot under the same
// lock, so a stream that starts with the integral at step S then receives
// every change from step S+1 on, with no gap and no overlap.
//
// An endpoint's queue is bounded: a connector's full queue holds the step
// back (backpressure); an HTTP stream without backpressure whose client
// falls behind is cut off, and a stream whose client left is dropped.
//
// A relation spread over every host (the all_hosts layout) has only this
// host's share here: its snapshot is assembled from every host by the
// caller, outside the lock (SnapshotStart, snapshot_assembler.h). Until
// the snapshot is in the endpoint's queue, the changes of the steps after
// it wait aside, in order; then they follow it.
//
// Thread safety: every method may be called from any thread; mu_ (the step
// boundary) guards the endpoints, the integrals' contents as of
// delivered_step_, and delivered_step_. Connectors' own threads read their
// queues. Nothing is called with mu_ held that takes another lock of the
// pipeline.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "connector/connector.h"
#include "dataflow/state.h"
#include "pipeline/api.h"
#include "zset/spine.h"

namespace sluice::pipeline {

class OutputEndpoints {
 public:
  // `held`: the materialized relations whose integral (or share of it)
  // this host holds; `elsewhere`: those held by other hosts (snapshots of
  // them are empty here); `spread`: those of `held` of which this host
  // holds a share, fed by the change sql::SpreadOutputName(r) rather than
  // by r's.
  OutputEndpoints(const std::set<std::string>& held, std::set<std::string> elsewhere,
                  std::set<std::string> spread, const SpineOptions& spine);

  // ---- set-up (before Launch)
  // With `part_stream`, the connector is this host's part of a distributed
  // connector: it gets the runtime output `part_stream` (this host's share
  // of the relation's change) at every step, a chunk with no batches when
  // there was none, and its snapshot is this host's share of the integral.
  void AddConnector(const connector::ConnectorSpec& spec,
                    std::unique_ptr<connector::OutputConnector> connector,
                    const std::string& part_stream = "") EXCLUDES(mu_);
  // The running output connector `name`, or null. It stays valid until
  // Stop().
  connector::OutputConnector* FindConnector(const std::string& name) EXCLUDES(mu_);
  struct Progress {
    std::string progress;  // JSON text
    bool snapshot_sent = false;
  };
  // After a restart: every connector that `progress` names goes on from
  // its recorded progress, if `keep` accepts its relation (a rebuilt
  // relation's connectors start over).
  Status ResumeConnectors(const std::map<std::string, Progress>& progress,
                          const std::function<bool(const std::string&)>& keep) EXCLUDES(mu_);
  // A snapshot of a spread relation for the caller to assemble from every
  // host: the endpoint that gets it, the step, this host's share at that
  // step, and the queue and part size of its consumer.
  struct SnapshotStart {
    uint64_t endpoint = 0;
    std::string relation;
    uint64_t step = 0;
    std::vector<BatchPtr> own;
    std::shared_ptr<connector::OutputQueue> queue;
    uint64_t part_bytes = 1 << 20;
    bool follow = true;  // false: the queue closes after the snapshot
  };
  using SnapshotStarts = std::vector<SnapshotStart>;

  // Starts the connectors; each send_snapshot connector that has not had
  // its snapshot gets it first, as of the last delivered step (spread
  // relations: in `assemble`).
  Status Launch(SnapshotStarts* assemble) EXCLUDES(mu_);
  // HTTP streams end with `why` (the pipeline stops or failed).
  void CloseStreams(const Status& why) EXCLUDES(mu_);
  // Closes the HTTP streams of one relation, saying why.
  void CloseStreams(const std::string& relation, const Status& why) EXCLUDES(mu_);
  // Connectors write out what they were handed and stop; every queue
  // closes.
  void Stop() EXCLUDES(mu_);

  // ---- steps
  // Which of `outputs` (runtime outputs) something reads at step `step`:
  // an integral held here, a connector or an HTTP stream. The caller need
  // not sum the workers' parts of the others. Until `step` is delivered, a
  // stream that subscribes to one of the others starts after `step`, whose
  // change it would not get whole.
  std::set<std::string> ReadOutputs(uint64_t step, const std::vector<std::string>& outputs)
      EXCLUDES(mu_);
  // Step `step`'s changes, by relation: added to the integrals, then handed
  // to every endpoint of the relation.
  Status Deliver(uint64_t step, const std::map<std::string, BatchPtr>& outputs) EXCLUDES(mu_);
  // A rebuilt program's first step: new integrals get their contents
  // (`integrals`), and the endpoints of rebuilt relations their first
  // change (`changes`), except those that wait for a snapshot (it comes at
  // Launch).
  Status DeliverRebuilt(uint64_t step, const std::map<std::string, BatchPtr>& integrals,
                        const std::map<std::string, BatchPtr>& changes) EXCLUDES(mu_);
  uint64_t delivered_step() const EXCLUDES(mu_);
  void set_delivered_step(uint64_t step) EXCLUDES(mu_);

  // ---- readers
  // With `snapshot` of a spread relation, the snapshot is in `assemble`.
  Result<Subscription> Subscribe(const std::string& relation, bool snapshot, bool follow,
                                 bool backpressure, uint64_t max_queued_records,
                                 SnapshotStarts* assemble) EXCLUDES(mu_);
  // The snapshot of `start` is in its queue (OK), or could not be made: an
  // HTTP stream ends with the error, a connector keeps it in its stats and
  // gets nothing until it is reset. Either way the changes held aside
  // follow or go.
  void FinishSnapshot(const SnapshotStart& start, const Status& s) EXCLUDES(mu_);
  // The snapshot of `start` again, at the last delivered step (a host no
  // longer held the earlier one); the changes held aside up to that step
  // go. NotFound if its endpoint is gone.
  Result<SnapshotStart> RestartSnapshot(const SnapshotStart& start) EXCLUDES(mu_);
  void Unsubscribe(uint64_t id) EXCLUDES(mu_);
  using Integrals = std::map<std::string, std::vector<BatchPtr>>;
  // The integrals of `relations` as of the last delivered step (`*step`),
  // read together; an error for a relation that is not materialized.
  Result<Integrals> Snapshots(const std::vector<std::string>& relations, uint64_t* step) const
      EXCLUDES(mu_);
  // The same as of step `step` (0: the last): a step not delivered yet is
  // waited for, up to `wait` (another host may have finished it first); of
  // the steps before the last, the last kHistorySteps delivered ones are
  // kept for spread relations (another host may be a few steps behind),
  // and an older one is an Aborted error.
  static constexpr size_t kHistorySteps = 8;
  Result<Integrals> SnapshotsAt(const std::vector<std::string>& relations, uint64_t step,
                                std::chrono::milliseconds wait, uint64_t* at) const EXCLUDES(mu_);

  // ---- connectors
  // NotFound when no output connector has this name.
  Status SetPaused(const std::string& name, bool paused) EXCLUDES(mu_);
  // A reset, then (send_snapshot) the snapshot again; of a spread
  // relation, in `assemble`.
  Status Reset(const std::string& name, SnapshotStarts* assemble) EXCLUDES(mu_);

  // ---- checkpoints
  // Every connector's progress, once it has written what it was handed.
  Result<std::map<std::string, Progress>> ConnectorProgress(std::chrono::milliseconds timeout)
      EXCLUDES(mu_);
  Status SaveIntegrals(StateWriter* writer) const EXCLUDES(mu_);
  // Loads the integrals that `keep` accepts (all, if null).
  Status LoadIntegrals(StateReader* reader, const std::function<bool(const std::string&)>& keep)
      EXCLUDES(mu_);
  // The integral of `relation` (empty until now) gets `batches`: its rows
  // moved from another layout, as of the last delivered step.
  Status InstallIntegral(const std::string& relation, const std::vector<BatchPtr>& batches)
      EXCLUDES(mu_);

  std::vector<OutputStats> Stats() const EXCLUDES(mu_);

 private:
  struct Endpoint {
    uint64_t id = 0;
    std::string name;  // connectors only
    std::string relation;
    std::string stream;  // the output it gets: the relation's, or its part's
    bool part = false;   // a part of a distributed connector
    std::string transport;
    std::shared_ptr<connector::OutputQueue> queue;
    std::unique_ptr<connector::OutputConnector> connector;  // null for HTTP streams
    bool send_snapshot = false;
    bool snapshot_sent = false;
    // A snapshot being assembled elsewhere: changes wait in `held`.
    bool assembling = false;
    std::deque<connector::OutputChunk> held;
    bool failed = false;  // its snapshot failed: it gets nothing until reset
    // It came after ReadOutputs found nobody reading its stream at this
    // step (0: none), so it starts after that step.
    uint64_t starts_after = 0;
  };
  // The snapshot of `e` as of the last delivered step: in its queue, or,
  // for a spread relation, in `assemble` (null: an error).
  Status AddSnapshot(Endpoint& e, SnapshotStarts* assemble, bool follow) REQUIRES(mu_);
  Endpoint* FindEndpoint(uint64_t id) REQUIRES(mu_);
  void HandOver(uint64_t step, const std::map<std::string, BatchPtr>& outputs,
                bool skip_snapshot_waiters) REQUIRES(mu_);

  // The integral that `relation`'s integral is fed from, in `outputs`.
  const std::string& IntegralSource(const std::string& relation) const;

  const std::set<std::string> elsewhere_;
  std::map<std::string, std::string> share_name_;  // spread relation: its share's output
  mutable Mutex mu_;
  std::map<std::string, std::unique_ptr<Spine>> integrals_ GUARDED_BY(mu_);
  std::vector<std::unique_ptr<Endpoint>> endpoints_ GUARDED_BY(mu_);
  uint64_t delivered_step_ GUARDED_BY(mu_) = 0;
  mutable CondVar delivered_;  // a step was delivered
  // The spread integrals after each of the last delivered steps.
  std::deque<std::pair<uint64_t, Integrals>> history_ GUARDED_BY(mu_);
  uint64_t next_id_ GUARDED_BY(mu_) = 1;
  // The step ReadOutputs was last asked about, and the outputs it found
  // nobody reading, until that step is delivered.
  uint64_t unread_step_ GUARDED_BY(mu_) = 0;
  std::set<std::string> unread_ GUARDED_BY(mu_);
};

}  // namespace sluice::pipeline
