#include "pipeline/output_endpoints.h"

#include "sql/program.h"

namespace sluice::pipeline {

OutputEndpoints::OutputEndpoints(const std::set<std::string>& held, std::set<std::string> elsewhere,
                                 std::set<std::string> spread, const SpineOptions& spine)
    : elsewhere_(std::move(elsewhere)) {
  for (const std::string& r : spread) share_name_[r] = sql::SpreadOutputName(r);
  MutexLock l(&mu_);
  for (const std::string& r : held) integrals_[r] = std::make_unique<Spine>(spine);
}

const std::string& OutputEndpoints::IntegralSource(const std::string& relation) const {
  auto it = share_name_.find(relation);
  return it == share_name_.end() ? relation : it->second;
}

void OutputEndpoints::AddConnector(const connector::ConnectorSpec& spec,
                                   std::unique_ptr<connector::OutputConnector> connector,
                                   const std::string& part_stream) {
  auto e = std::make_unique<Endpoint>();
  e->name = spec.name;
  e->relation = spec.relation;
  e->stream = part_stream.empty() ? spec.relation : part_stream;
  e->part = !part_stream.empty();
  e->transport = spec.transport;
  e->queue = std::make_shared<connector::OutputQueue>(spec.max_queued_records, true);
  e->send_snapshot = spec.send_snapshot;
  connector->stats().paused = spec.paused;
  e->connector = std::move(connector);
  MutexLock l(&mu_);
  e->id = next_id_++;
  endpoints_.push_back(std::move(e));
}

connector::OutputConnector* OutputEndpoints::FindConnector(const std::string& name) {
  MutexLock l(&mu_);
  for (auto& e : endpoints_) {
    if (e->connector && e->name == name) return e->connector.get();
  }
  return nullptr;
}

Status OutputEndpoints::ResumeConnectors(const std::map<std::string, Progress>& progress,
                                         const std::function<bool(const std::string&)>& keep) {
  MutexLock l(&mu_);
  for (auto& e : endpoints_) {
    if (!e->connector) continue;
    auto p = progress.find(e->name);
    if (p == progress.end() || !keep(e->relation)) continue;
    e->snapshot_sent = p->second.snapshot_sent;
    SLUICE_RETURN_IF_ERROR(e->connector->Resume(p->second.progress));
  }
  return Status::OK();
}

Status OutputEndpoints::Launch(SnapshotStarts* assemble) {
  MutexLock l(&mu_);
  for (auto& e : endpoints_) {
    if (!e->connector) continue;
    // A send_snapshot connector starts with the view's contents, once.
    if (e->send_snapshot && !e->snapshot_sent) {
      SLUICE_RETURN_IF_ERROR(AddSnapshot(*e, assemble, /*follow=*/true));
      e->snapshot_sent = !e->assembling;
    }
    SLUICE_RETURN_IF_ERROR(e->connector->Start(e->queue));
  }
  return Status::OK();
}

void OutputEndpoints::CloseStreams(const Status& why) {
  MutexLock l(&mu_);
  for (auto& e : endpoints_) {
    if (!e->connector) e->queue->Close(why);
  }
}

void OutputEndpoints::CloseStreams(const std::string& relation, const Status& why) {
  MutexLock l(&mu_);
  for (auto& e : endpoints_) {
    if (!e->connector && e->relation == relation) e->queue->Close(why);
  }
}

void OutputEndpoints::Stop() {
  MutexLock l(&mu_);
  for (auto& e : endpoints_) {
    if (e->connector) e->connector->Stop();
    e->queue->Close();
  }
  endpoints_.clear();
}

Status OutputEndpoints::AddSnapshot(Endpoint& e, SnapshotStarts* assemble, bool follow) {
  auto it = integrals_.find(e.relation);
  if (it == integrals_.end()) {
    return Status::InvalidArgument("\"" + e.relation +
                                   "\" is not materialized, so it has no snapshot");
  }
  if (share_name_.count(e.relation) > 0 && !e.part) {
    if (assemble == nullptr) {
      return Status::Internal("the snapshot of spread relation " + e.relation +
                              " has nobody to assemble it");
    }
    SnapshotStart start;
    start.endpoint = e.id;
    start.relation = e.relation;
    start.step = delivered_step_;
    start.own = it->second->Snapshot();
    start.queue = e.queue;
    start.part_bytes = e.connector ? e.connector->preferred_part_bytes() : uint64_t{1} << 20;
    start.follow = follow;
    assemble->push_back(std::move(start));
    e.assembling = true;
    e.held.clear();
    return Status::OK();
  }
  connector::OutputChunk chunk;
  chunk.kind = connector::OutputChunk::Kind::kSnapshot;
  chunk.step = delivered_step_;
  chunk.batches = it->second->Snapshot();
  e.queue->Put(std::move(chunk));
  return Status::OK();
}

OutputEndpoints::Endpoint* OutputEndpoints::FindEndpoint(uint64_t id) {
  for (auto& e : endpoints_) {
    if (e->id == id) return e.get();
  }
  return nullptr;
}

void OutputEndpoints::HandOver(uint64_t step, const std::map<std::string, BatchPtr>& outputs,
                               bool skip_snapshot_waiters) {
  for (auto it = endpoints_.begin(); it != endpoints_.end();) {
    Endpoint& e = **it;
    auto o = outputs.find(e.stream);
    const bool change = o != outputs.end() && !o->second->empty();
    // A connector whose snapshot is still to be taken (at its launch) gets
    // no change before it: the snapshot will hold it.
    const bool snapshot_to_come =
        e.connector && e.send_snapshot && !e.snapshot_sent && !e.assembling;
    bool ok = true;
    if ((change || e.part) && !e.failed && !snapshot_to_come && e.starts_after < step &&
        !(skip_snapshot_waiters && e.send_snapshot)) {
      connector::OutputChunk chunk;
      chunk.step = step;
      if (change) chunk.batches = {o->second};
      if (e.assembling) {
        e.held.push_back(std::move(chunk));  // after its snapshot
      } else {
        ok = e.queue->Put(std::move(chunk));
      }
    }
    // A stream whose client left (or fell behind) is dropped; a connector
    // stays, and its queue only closes when the pipeline stops.
    it = !ok && !e.connector ? endpoints_.erase(it) : it + 1;
  }
  delivered_step_ = step;
  if (!share_name_.empty()) {
    Integrals now;
    for (const auto& [name, share] : share_name_) now[name] = integrals_.at(name)->Snapshot();
    history_.emplace_back(step, std::move(now));
    while (history_.size() > kHistorySteps) history_.pop_front();
  }
  delivered_.SignalAll();
}

std::set<std::string> OutputEndpoints::ReadOutputs(uint64_t step,
                                                   const std::vector<std::string>& outputs) {
  MutexLock l(&mu_);
  std::set<std::string> read;
  for (const auto& [name, spine] : integrals_) read.insert(IntegralSource(name));
  for (const auto& e : endpoints_) read.insert(e->stream);
  unread_step_ = step;
  unread_.clear();
  std::set<std::string> wanted;
  for (const std::string& o : outputs) (read.count(o) > 0 ? wanted : unread_).insert(o);
  return wanted;
}

Status OutputEndpoints::Deliver(uint64_t step, const std::map<std::string, BatchPtr>& outputs) {
  MutexLock l(&mu_);
  unread_.clear();
  for (auto& [name, spine] : integrals_) {
    auto it = outputs.find(IntegralSource(name));
    if (it != outputs.end()) SLUICE_RETURN_IF_ERROR(spine->Insert(it->second));
  }
  HandOver(step, outputs, /*skip_snapshot_waiters=*/false);
  return Status::OK();
}

Status OutputEndpoints::DeliverRebuilt(uint64_t step,
                                       const std::map<std::string, BatchPtr>& integrals,
                                       const std::map<std::string, BatchPtr>& changes) {
  MutexLock l(&mu_);
  for (const auto& [name, b] : integrals) {
    auto it = integrals_.find(name);
    if (it != integrals_.end()) SLUICE_RETURN_IF_ERROR(it->second->Insert(b));
  }
  HandOver(step, changes, /*skip_snapshot_waiters=*/true);
  return Status::OK();
}

uint64_t OutputEndpoints::delivered_step() const {
  MutexLock l(&mu_);
  return delivered_step_;
}

void OutputEndpoints::set_delivered_step(uint64_t step) {
  MutexLock l(&mu_);
  delivered_step_ = step;
}

Result<Subscription> OutputEndpoints::Subscribe(const std::string& relation, bool snapshot,
                                                bool follow, bool backpressure,
                                                uint64_t max_queued_records,
                                                SnapshotStarts* assemble) {
  auto e = std::make_unique<Endpoint>();
  e->relation = relation;
  e->stream = relation;
  e->transport = "http_output";
  e->queue = std::make_shared<connector::OutputQueue>(max_queued_records, backpressure);
  MutexLock l(&mu_);
  e->id = next_id_++;
  Subscription sub{e->id, e->queue, delivered_step_};
  if (unread_.count(e->stream) > 0) {
    // This step's change of the relation is not being summed: start after it.
    e->starts_after = unread_step_;
    sub.snapshot_step = unread_step_;
  }
  if (snapshot) SLUICE_RETURN_IF_ERROR(AddSnapshot(*e, assemble, follow));
  if (!follow) {
    // The queue closes after the snapshot (now, or when it is assembled).
    if (!e->assembling) e->queue->Close();
    return sub;
  }
  endpoints_.push_back(std::move(e));
  return sub;
}

void OutputEndpoints::FinishSnapshot(const SnapshotStart& start, const Status& s) {
  MutexLock l(&mu_);
  if (!start.follow) {
    start.queue->Close(s);
    return;
  }
  Endpoint* e = FindEndpoint(start.endpoint);
  if (e == nullptr || !e->assembling) return;  // gone meanwhile
  e->assembling = false;
  if (s.ok()) {
    // The changes of the steps after the snapshot, in order.
    bool ok = true;
    while (!e->held.empty() && ok) {
      ok = e->queue->Put(std::move(e->held.front()));
      e->held.pop_front();
    }
    e->held.clear();
    e->snapshot_sent = true;
    return;
  }
  e->held.clear();
  const Status why = s.WithContext("the snapshot of " + e->relation + " at step " +
                                   std::to_string(start.step) + " failed");
  if (!e->connector) {
    e->queue->Close(why);
    for (auto it = endpoints_.begin(); it != endpoints_.end(); ++it) {
      if (it->get() == e) {
        endpoints_.erase(it);
        break;
      }
    }
    return;
  }
  e->failed = true;
  e->connector->stats().SetError(why.ToString() + " (reset the connector to try again)");
}

Result<OutputEndpoints::SnapshotStart> OutputEndpoints::RestartSnapshot(
    const SnapshotStart& start) {
  MutexLock l(&mu_);
  Endpoint* e = FindEndpoint(start.endpoint);
  if (start.follow && (e == nullptr || !e->assembling)) {
    return Status::NotFound("the snapshot's consumer went away");
  }
  SnapshotStart again = start;
  again.step = delivered_step_;
  again.own = integrals_.at(start.relation)->Snapshot();
  if (e != nullptr) {
    while (!e->held.empty() && e->held.front().step <= again.step) e->held.pop_front();
  }
  return again;
}

void OutputEndpoints::Unsubscribe(uint64_t id) {
  MutexLock l(&mu_);
  for (auto it = endpoints_.begin(); it != endpoints_.end(); ++it) {
    if ((*it)->id == id && !(*it)->connector) {
      (*it)->queue->Close();
      endpoints_.erase(it);
      return;
    }
  }
}

Result<std::map<std::string, std::vector<BatchPtr>>> OutputEndpoints::Snapshots(
    const std::vector<std::string>& relations, uint64_t* step) const {
  std::map<std::string, std::vector<BatchPtr>> out;
  MutexLock l(&mu_);
  for (const std::string& r : relations) {
    auto it = integrals_.find(r);
    if (it != integrals_.end()) {
      out[r] = it->second->Snapshot();
    } else if (elsewhere_.count(r) > 0) {
      out[r] = {};  // another host holds it
    } else {
      return Status::InvalidArgument("\"" + r + "\" is not materialized");
    }
  }
  *step = delivered_step_;
  return out;
}

Result<OutputEndpoints::Integrals> OutputEndpoints::SnapshotsAt(
    const std::vector<std::string>& relations, uint64_t step, std::chrono::milliseconds wait,
    uint64_t* at) const {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  MutexLock l(&mu_);
  while (step > delivered_step_) {
    if (!delivered_.WaitUntil(&mu_, deadline) && std::chrono::steady_clock::now() >= deadline &&
        step > delivered_step_) {
      return Status::Aborted("step " + std::to_string(step) + " was not delivered within " +
                             std::to_string(wait.count()) + " ms (this host is at step " +
                             std::to_string(delivered_step_) + ")");
    }
  }
  if (step == 0 || step == delivered_step_) {
    *at = delivered_step_;
    Integrals out;
    for (const std::string& r : relations) {
      auto it = integrals_.find(r);
      if (it != integrals_.end()) {
        out[r] = it->second->Snapshot();
      } else if (elsewhere_.count(r) > 0) {
        out[r] = {};
      } else {
        return Status::InvalidArgument("\"" + r + "\" is not materialized");
      }
    }
    return out;
  }
  for (const auto& [s, integrals] : history_) {
    if (s != step) continue;
    *at = step;
    Integrals out;
    for (const std::string& r : relations) {
      auto it = integrals.find(r);
      if (it == integrals.end()) {
        return Status::InvalidArgument("\"" + r + "\" is not spread over the hosts");
      }
      out[r] = it->second;
    }
    return out;
  }
  return Status::Aborted("step " + std::to_string(step) +
                         " is no longer held (this host is at step " +
                         std::to_string(delivered_step_) + ", and keeps the last " +
                         std::to_string(kHistorySteps) + ")");
}

Status OutputEndpoints::SetPaused(const std::string& name, bool paused) {
  MutexLock l(&mu_);
  for (auto& e : endpoints_) {
    if (e->name == name && e->connector) {
      e->connector->stats().paused = paused;
      return Status::OK();
    }
  }
  return Status::NotFound("connector \"" + name + "\" does not exist");
}

Status OutputEndpoints::Reset(const std::string& name, SnapshotStarts* assemble) {
  MutexLock l(&mu_);
  for (auto& e : endpoints_) {
    if (e->name != name || !e->connector) continue;
    if (e->assembling) {
      return Status::InvalidArgument("connector \"" + name +
                                     "\" is receiving its snapshot: reset it once that is done");
    }
    connector::OutputChunk reset;
    reset.kind = connector::OutputChunk::Kind::kReset;
    reset.step = delivered_step_;
    e->queue->Put(std::move(reset));
    e->failed = false;
    e->connector->stats().SetError("");
    if (e->send_snapshot) {
      SLUICE_RETURN_IF_ERROR(AddSnapshot(*e, assemble, /*follow=*/true));
      if (e->assembling) e->snapshot_sent = false;
    }
    return Status::OK();
  }
  return Status::NotFound("output connector \"" + name + "\" does not exist");
}

Result<std::map<std::string, OutputEndpoints::Progress>> OutputEndpoints::ConnectorProgress(
    std::chrono::milliseconds timeout) {
  std::map<std::string, Progress> out;
  MutexLock l(&mu_);
  for (auto& e : endpoints_) {
    if (!e->connector) continue;
    SLUICE_ASSIGN_OR_RETURN(std::string progress, e->connector->Progress(timeout));
    out[e->name] = {std::move(progress), e->snapshot_sent};
  }
  return out;
}

Status OutputEndpoints::SaveIntegrals(StateWriter* writer) const {
  MutexLock l(&mu_);
  for (const auto& [name, spine] : integrals_) {
    writer->BeginOp(name, "integral");
    SLUICE_RETURN_IF_ERROR(writer->PutSpine(*spine));
  }
  return Status::OK();
}

Status OutputEndpoints::LoadIntegrals(StateReader* reader,
                                      const std::function<bool(const std::string&)>& keep) {
  MutexLock l(&mu_);
  for (auto& [name, spine] : integrals_) {
    if (keep && !keep(name)) continue;
    SLUICE_RETURN_IF_ERROR(reader->BeginOp(name, "integral"));
    SLUICE_RETURN_IF_ERROR(reader->GetSpine(spine.get()));
  }
  return Status::OK();
}

Status OutputEndpoints::InstallIntegral(const std::string& relation,
                                        const std::vector<BatchPtr>& batches) {
  MutexLock l(&mu_);
  auto it = integrals_.find(relation);
  if (it == integrals_.end()) {
    if (batches.empty()) return Status::OK();  // held elsewhere in this layout
    return Status::Internal("this host holds no integral of " + relation);
  }
  if (!it->second->Snapshot().empty()) {
    return Status::Internal("the integral of " + relation + " is not empty");
  }
  for (const BatchPtr& b : batches) SLUICE_RETURN_IF_ERROR(it->second->Insert(b));
  for (auto& [step, integrals] : history_) {
    auto h = integrals.find(relation);
    if (h != integrals.end()) h->second = it->second->Snapshot();
  }
  return Status::OK();
}

std::vector<OutputStats> OutputEndpoints::Stats() const {
  std::vector<OutputStats> out;
  MutexLock l(&mu_);
  for (const auto& e : endpoints_) {
    OutputStats c;
    c.name = e->name.empty() ? "egress." + std::to_string(e->id) : e->name;
    c.view = e->relation;
    c.transport = e->transport;
    c.queued_records = e->queue->queued_records();
    if (e->connector) {
      const connector::ConnectorStats& s = e->connector->stats();
      c.records = s.records.load();
      c.bytes = s.bytes.load();
      c.transport_errors = s.transport_errors.load();
      c.paused = s.paused.load();
      c.health = s.last_error().empty() ? "Healthy" : "Unhealthy";
      if (!s.last_error().empty()) c.last_error = s.last_error();
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace sluice::pipeline
