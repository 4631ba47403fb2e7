#include "pipeline/output_endpoints.h"

namespace sluice::pipeline {

OutputEndpoints::OutputEndpoints(const std::set<std::string>& held, std::set<std::string> elsewhere,
                                 const SpineOptions& spine)
    : elsewhere_(std::move(elsewhere)) {
  MutexLock l(&mu_);
  for (const std::string& r : held) integrals_[r] = std::make_unique<Spine>(spine);
}

void OutputEndpoints::AddConnector(const connector::ConnectorSpec& spec,
                                   std::unique_ptr<connector::OutputConnector> connector) {
  auto e = std::make_unique<Endpoint>();
  e->name = spec.name;
  e->relation = spec.relation;
  e->transport = spec.transport;
  e->queue = std::make_shared<connector::OutputQueue>(spec.max_queued_records, true);
  e->send_snapshot = spec.send_snapshot;
  connector->stats().paused = spec.paused;
  e->connector = std::move(connector);
  MutexLock l(&mu_);
  e->id = next_id_++;
  endpoints_.push_back(std::move(e));
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

Status OutputEndpoints::Launch() {
  MutexLock l(&mu_);
  for (auto& e : endpoints_) {
    if (!e->connector) continue;
    // A send_snapshot connector starts with the view's contents, once.
    if (e->send_snapshot && !e->snapshot_sent) {
      SLUICE_RETURN_IF_ERROR(AddSnapshot(*e));
      e->snapshot_sent = true;
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

void OutputEndpoints::Stop() {
  MutexLock l(&mu_);
  for (auto& e : endpoints_) {
    if (e->connector) e->connector->Stop();
    e->queue->Close();
  }
  endpoints_.clear();
}

Status OutputEndpoints::AddSnapshot(Endpoint& e) {
  auto it = integrals_.find(e.relation);
  if (it == integrals_.end()) {
    return Status::InvalidArgument("\"" + e.relation +
                                   "\" is not materialized, so it has no snapshot");
  }
  connector::OutputChunk chunk;
  chunk.kind = connector::OutputChunk::Kind::kSnapshot;
  chunk.step = delivered_step_;
  chunk.batches = it->second->Snapshot();
  e.queue->Put(std::move(chunk));
  return Status::OK();
}

void OutputEndpoints::HandOver(uint64_t step, const std::map<std::string, BatchPtr>& outputs,
                               bool skip_snapshot_waiters) {
  for (auto it = endpoints_.begin(); it != endpoints_.end();) {
    Endpoint& e = **it;
    auto o = outputs.find(e.relation);
    bool ok = true;
    if (o != outputs.end() && !o->second->empty() && !(skip_snapshot_waiters && e.send_snapshot)) {
      connector::OutputChunk chunk;
      chunk.step = step;
      chunk.batches = {o->second};
      ok = e.queue->Put(std::move(chunk));
    }
    // A stream whose client left (or fell behind) is dropped; a connector
    // stays, and its queue only closes when the pipeline stops.
    it = !ok && !e.connector ? endpoints_.erase(it) : it + 1;
  }
  delivered_step_ = step;
}

Status OutputEndpoints::Deliver(uint64_t step, const std::map<std::string, BatchPtr>& outputs) {
  MutexLock l(&mu_);
  for (const auto& [name, b] : outputs) {
    auto it = integrals_.find(name);
    if (it != integrals_.end()) SLUICE_RETURN_IF_ERROR(it->second->Insert(b));
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
                                                uint64_t max_queued_records) {
  auto e = std::make_unique<Endpoint>();
  e->relation = relation;
  e->transport = "http_output";
  e->queue = std::make_shared<connector::OutputQueue>(max_queued_records, backpressure);
  MutexLock l(&mu_);
  e->id = next_id_++;
  Subscription sub{e->id, e->queue, delivered_step_};
  if (snapshot) SLUICE_RETURN_IF_ERROR(AddSnapshot(*e));
  if (!follow) {
    e->queue->Close();
    return sub;
  }
  endpoints_.push_back(std::move(e));
  return sub;
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

Status OutputEndpoints::Reset(const std::string& name) {
  MutexLock l(&mu_);
  for (auto& e : endpoints_) {
    if (e->name != name || !e->connector) continue;
    connector::OutputChunk reset;
    reset.kind = connector::OutputChunk::Kind::kReset;
    reset.step = delivered_step_;
    e->queue->Put(std::move(reset));
    if (e->send_snapshot) SLUICE_RETURN_IF_ERROR(AddSnapshot(*e));
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
