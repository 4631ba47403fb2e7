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
// Thread safety: every method may be called from any thread; mu_ (the step
// boundary) guards the endpoints, the integrals' contents as of
// delivered_step_, and delivered_step_. Connectors' own threads read their
// queues. Nothing is called with mu_ held that takes another lock of the
// pipeline.
#pragma once

#include <chrono>
#include <cstdint>
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
  // `held`: the materialized relations whose integral this host holds;
  // `elsewhere`: those held by other hosts (snapshots of them are empty
  // here).
  OutputEndpoints(const std::set<std::string>& held, std::set<std::string> elsewhere,
                  const SpineOptions& spine);

  // ---- set-up (before Launch)
  void AddConnector(const connector::ConnectorSpec& spec,
                    std::unique_ptr<connector::OutputConnector> connector) EXCLUDES(mu_);
  struct Progress {
    std::string progress;  // JSON text
    bool snapshot_sent = false;
  };
  // After a restart: every connector that `progress` names goes on from
  // its recorded progress, if `keep` accepts its relation (a rebuilt
  // relation's connectors start over).
  Status ResumeConnectors(const std::map<std::string, Progress>& progress,
                          const std::function<bool(const std::string&)>& keep) EXCLUDES(mu_);
  // Starts the connectors; each send_snapshot connector that has not had
  // its snapshot gets it first, as of the last delivered step.
  Status Launch() EXCLUDES(mu_);
  // HTTP streams end with `why` (the pipeline stops or failed).
  void CloseStreams(const Status& why) EXCLUDES(mu_);
  // Connectors write out what they were handed and stop; every queue
  // closes.
  void Stop() EXCLUDES(mu_);

  // ---- steps
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
  Result<Subscription> Subscribe(const std::string& relation, bool snapshot, bool follow,
                                 bool backpressure, uint64_t max_queued_records) EXCLUDES(mu_);
  void Unsubscribe(uint64_t id) EXCLUDES(mu_);
  // The integrals of `relations` as of the last delivered step (`*step`),
  // read together; an error for a relation that is not materialized.
  Result<std::map<std::string, std::vector<BatchPtr>>> Snapshots(
      const std::vector<std::string>& relations, uint64_t* step) const EXCLUDES(mu_);

  // ---- connectors
  // NotFound when no output connector has this name.
  Status SetPaused(const std::string& name, bool paused) EXCLUDES(mu_);
  Status Reset(const std::string& name) EXCLUDES(mu_);

  // ---- checkpoints
  // Every connector's progress, once it has written what it was handed.
  Result<std::map<std::string, Progress>> ConnectorProgress(std::chrono::milliseconds timeout)
      EXCLUDES(mu_);
  Status SaveIntegrals(StateWriter* writer) const EXCLUDES(mu_);
  // Loads the integrals that `keep` accepts (all, if null).
  Status LoadIntegrals(StateReader* reader, const std::function<bool(const std::string&)>& keep)
      EXCLUDES(mu_);

  std::vector<OutputStats> Stats() const EXCLUDES(mu_);

 private:
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
  Status AddSnapshot(Endpoint& e) REQUIRES(mu_);
  void HandOver(uint64_t step, const std::map<std::string, BatchPtr>& outputs,
                bool skip_snapshot_waiters) REQUIRES(mu_);

  const std::set<std::string> elsewhere_;
  mutable Mutex mu_;
  std::map<std::string, std::unique_ptr<Spine>> integrals_ GUARDED_BY(mu_);
  std::vector<std::unique_ptr<Endpoint>> endpoints_ GUARDED_BY(mu_);
  uint64_t delivered_step_ GUARDED_BY(mu_) = 0;
  uint64_t next_id_ GUARDED_BY(mu_) = 1;
};

}  // namespace sluice::pipeline
