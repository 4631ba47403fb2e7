// One host of a pipeline on many hosts (DESIGN.md section 6): the
// coordinator drives this controller's steps and checkpoints through the
// host's coordination API (server/host_server.cc), and reads its integrals
// through leases.
#include "dataflow/operators/exchange.h"
#include "pipeline/controller.h"
#include "zset/batch_builder.h"

namespace sluice::pipeline {

Controller::InputState Controller::WaitForInput(std::chrono::milliseconds wait) {
  const InputQueues::Readiness r =
      queues_->WaitDue(config_.min_batch_size_records,
                       std::chrono::microseconds(config_.max_buffering_delay_usecs), wait);
  return {r.buffered, r.due && !stopping(), step()};
}

Status Controller::RunHostStep(uint64_t step, bool commit, bool in_txn, bool replay, int64_t clock,
                               const std::map<std::string, int64_t>& maxima) {
  StepLoop::StepPlan plan{step, commit, in_txn, clock};
  std::optional<JournalRecord> recorded;
  {
    MutexLock l(&host_mu_);
    auto it = recorded_steps_.find(step);
    if (replay && it != recorded_steps_.end()) {
      recorded = it->second;
      recorded_steps_.erase(it);
    } else if (!replay && !recorded_steps_.empty()) {
      return Status::InvalidArgument("step " + std::to_string(step) +
                                     " comes before the journal's steps were replayed");
    }
  }
  if (this->step() + 1 != step) {
    return Status::InvalidArgument("asked to run step " + std::to_string(step) +
                                   ", but this host's last step is " +
                                   std::to_string(this->step()));
  }
  // Every host drops the same late rows from now on, and forgets by the
  // same waterlines.
  waterlines_->Agree(maxima);
  InputQueues::StepInput input;
  uint64_t last_token = queues_->last_token();
  if (recorded) {
    SLUICE_ASSIGN_OR_RETURN(input, queues_->TakeRecorded(step, recorded->ranges, &last_token));
    if (recorded->clock != 0) plan.clock = recorded->clock;
  } else if (!replay) {
    input = queues_->Take(&last_token);
  }
  // A journaled step is in the journal already; a replayed step this host
  // never ran takes nothing, and is journaled now, as the other hosts have
  // it.
  return RunOutside(plan, input, last_token, /*journal=*/!recorded);
}

uint64_t Controller::NewestJournalFile() const {
  return journal_ ? Journal::Newest(config_.storage + "/journal") : 0;
}

std::vector<std::tuple<uint64_t, bool, bool, int64_t>> Controller::RecordedSteps() const {
  MutexLock l(&host_mu_);
  std::vector<std::tuple<uint64_t, bool, bool, int64_t>> out;
  for (const auto& [step, r] : recorded_steps_) {
    out.emplace_back(step, r.commit, r.in_transaction, r.clock);
  }
  return out;
}

Status Controller::WriteHostCheckpoint(uint64_t seq) {
  if (!store_) {
    return Status::InvalidArgument("host " + std::to_string(role_->host) +
                                   " has no storage for checkpoints: give it --storage DIR");
  }
  Status s;
  {
    MutexLock l(&step_mu_);
    s = WriteCheckpoint(seq);
  }
  loop_.CheckpointTaken(seq, s, step());
  return s;
}

Status Controller::CompleteHostCheckpoint(uint64_t seq) {
  uint64_t token = 0;
  {
    MutexLock l(&host_mu_);
    if (written_part_.first != seq) {
      return Status::InvalidArgument("this host's last checkpoint part is " +
                                     std::to_string(written_part_.first) + ", not " +
                                     std::to_string(seq));
    }
    token = written_part_.second;
  }
  queues_->Durable(token);
  DropCheckpointsBefore(seq);
  return Status::OK();
}

Result<std::pair<uint64_t, uint64_t>> Controller::Lease(const std::vector<std::string>& relations,
                                                        uint64_t step, const std::string& holder) {
  uint64_t at = 0;
  SLUICE_ASSIGN_OR_RETURN(auto batches,
                          outputs_->SnapshotsAt(relations, step, std::chrono::seconds(10), &at));
  SLUICE_ASSIGN_OR_RETURN(uint64_t id, leases_.Add(at, std::move(batches), holder));
  return std::make_pair(id, at);
}

Result<uint64_t> Controller::Relayout(const std::vector<std::string>& relations,
                                      const std::vector<uint64_t>& leases) {
  if (!role_ || !relayout_pending_) {
    return Status::InvalidArgument("this host has no integrals to move to another layout");
  }
  if (leases.size() != static_cast<size_t>(role_->hosts)) {
    return Status::InvalidArgument("relayout: " + std::to_string(leases.size()) + " leases for " +
                                   std::to_string(role_->hosts) + " hosts");
  }
  const int workers = role_->hosts * config_.workers;
  uint64_t rows = 0;
  for (const std::string& r : relations) {
    if (relations_.count(r) == 0 || !relations_.at(r).materialized) {
      return Status::InvalidArgument("relayout: \"" + r + "\" is not a materialized relation");
    }
    // The host that owns a row in this host's layout: the relation's
    // output host, or (all_hosts) the host of the worker its key hashes to.
    const int output_host = role_->output_host.at(r);
    auto mine = [&](std::string_view key) {
      const int owner = role_->spread ? WorkerForKey(key, workers) / config_.workers : output_host;
      return owner == role_->host;
    };
    std::vector<BatchPtr> kept;
    for (int h = 0; h < role_->hosts; ++h) {
      // Every host's old part, in pieces in key order: the rows this host
      // owns go into one batch per host.
      OrderedBuilder part;
      std::string after;
      for (bool first = true;; first = false) {
        constexpr uint64_t kPieceBytes = 4 << 20;
        Result<MemBatchPtr> piece =
            h == role_->host
                ? leases_.Scan(leases[static_cast<size_t>(h)], r, first, after, kPieceBytes)
                : role_->peers->Scan(h, leases[static_cast<size_t>(h)], r, first, after,
                                     kPieceBytes);
        if (!piece.ok()) {
          return piece.status().WithContext("moving " + r + " from host " + std::to_string(h));
        }
        const MemBatch& p = **piece;
        if (p.key_count() == 0) break;
        for (size_t k = 0; k < p.key_count(); ++k) {
          if (mine(p.key(k))) part.AppendKey(p, k);
        }
        after = std::string(p.key(p.key_count() - 1));
      }
      rows += part.len();
      MemBatchPtr b = part.Finish();
      if (!b->empty()) kept.push_back(std::move(b));
    }
    SLUICE_RETURN_IF_ERROR(outputs_->InstallIntegral(r, kept));
  }
  return rows;
}

Status Controller::LaunchOutputs() {
  if (!relayout_pending_.exchange(false)) return Status::OK();
  leases_.Release(relayout_lease_);
  OutputEndpoints::SnapshotStarts assemble;
  SLUICE_RETURN_IF_ERROR(outputs_->Launch(&assemble));
  AssembleSnapshots(std::move(assemble));
  return Status::OK();
}

Status Controller::Follow(const std::string& relation) {
  if (relations_.count(relation) == 0) {
    return Status::NotFound("table or view \"" + relation + "\" does not exist");
  }
  auto it = gather_switches_.find(relation);
  if (it != gather_switches_.end()) it->second->store(true);
  return Status::OK();
}

}  // namespace sluice::pipeline
