// Checkpoints of a pipeline (one host's part of them, on many hosts), in
// the CheckpointStore under `<storage>/checkpoints/<sequence>/`:
//
//   pipeline.json   the manifest (checkpoint_store.h), whose body holds:
//                   the step, the program's fingerprint, the workers' state
//                   manifest (Runtime::SaveState), the integrals of
//                   materialized relations, each input connector's
//                   position, each output connector's progress, each
//                   relation's definition (controller_bootstrap.cc), and
//                   counters (upsert sequence, next token and segment),
//                   and the state of the program's sequences (also logged
//                   ahead in `<storage>/sequences.json`: adhoc.h)
//   queues.bin      the changes queued but not yet taken by a step
//                   (input_queues.cc documents its bytes)
//   *.batch         FileBatch files of every spine and held batch
//
// At start, the newest checkpoint whose manifest and files check out is
// loaded; one that does not is set aside and the one before it is tried.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/bytes.h"
#include "dataflow/state.h"
#include "pipeline/controller.h"
#include "pipeline/journal.h"
#include "storage/file.h"

namespace sluice::pipeline {
namespace {

using Json = nlohmann::json;

constexpr size_t kKeepCheckpoints = 2;
// Of the manifest; 2 keys operator state by owner and records each
// relation's definition (controller_bootstrap.cc); 3 keeps the rows of a
// table without a primary key (ClampOp).
constexpr int kVersion = 3;

}  // namespace

Result<uint64_t> Controller::RequestCheckpoint() {
  if (config_.storage.empty()) {
    return Status::InvalidArgument(
        "checkpoints need storage: start the pipeline with --storage DIR");
  }
  return loop_.RequestCheckpoint();
}

Status Controller::TakeCheckpoint(uint64_t seq) {
  MutexLock l(&step_mu_);
  return WriteCheckpoint(seq);
}

Status Controller::WriteCheckpoint(uint64_t seq) {
  // A checkpoint that fails (storage full, say) leaves nothing behind.
  struct Cleanup {
    CheckpointStore* store;
    uint64_t seq;
    bool done = false;
    ~Cleanup() {
      if (!done) store->Abandon(seq);
    }
  } cleanup{store_.get(), seq};
  SLUICE_ASSIGN_OR_RETURN(const std::string tmp, store_->Begin(seq));
  Json body;
  // Output connectors first write out everything they were handed, so that
  // their recorded progress is exactly this step's.
  Json outputs = Json::object();
  SLUICE_ASSIGN_OR_RETURN(auto progress, outputs_->ConnectorProgress(std::chrono::seconds(60)));
  for (const auto& [name, p] : progress) {
    outputs[name] = {{"progress", Json::parse(p.progress)}, {"snapshot_sent", p.snapshot_sent}};
  }
  body["outputs"] = outputs;
  SLUICE_ASSIGN_OR_RETURN(std::string runtime, runtime_->SaveState(tmp));
  body["runtime"] = Json::parse(runtime);
  StateWriter integrals(tmp, "m");
  SLUICE_RETURN_IF_ERROR(outputs_->SaveIntegrals(&integrals));
  body["relations"] = Json::parse(RelationsJson());
  body["integrals"] = Json::parse(integrals.Manifest());
  // The queues, and (exactly_once) the journal file that input queued from
  // now on goes to, at once.
  SLUICE_ASSIGN_OR_RETURN(InputQueues::Saved saved, queues_->Save(seq));
  Json inputs = Json::object();
  for (const auto& [name, position] : saved.positions) inputs[name] = Json::parse(position);
  body["inputs"] = inputs;
  SLUICE_RETURN_IF_ERROR(WriteWholeFile(tmp + "/queues.bin", saved.queues));
  body["step"] = step();
  body["next_token"] = saved.next_token;
  body["next_segment"] = saved.next_segment;
  body["version"] = kVersion;
  body["sequence"] = seq;
  body["delivered_step"] = outputs_->delivered_step();
  body["upsert_seq"] = upsert_seq_;
  if (!role_) {
    // The sequences as they are (logged too, so that a restart from here
    // continues them exactly).
    SLUICE_RETURN_IF_ERROR(sequences_->Flush());
    body["sequences"] = Json::parse(sequences_->StateJson());
  }
  if (!waterlines_->empty()) body["waterlines"] = waterlines_->ToJson();
  if (reads_clock_) body["step_clock"] = clock_->now();
  {
    MutexLock l(&failed_mu_);
    if (!failed_views_.empty()) body["failed_views"] = failed_views_;
  }
  body["program"] = Hex64(program_fingerprint_);
  body["workers"] = config_.workers;
  SLUICE_RETURN_IF_ERROR(store_->Commit(seq, body.dump()));
  cleanup.done = true;
  const uint64_t token = saved.next_token - 1;
  if (role_) {
    // On many hosts, this is one part: it counts (and older parts and
    // journal files go) once every host wrote its part.
    MutexLock h(&host_mu_);
    written_part_ = {seq, token};
    return Status::OK();
  }
  queues_->Durable(token);
  // The newest kKeepCheckpoints stay.
  std::vector<uint64_t> all = store_->List();
  DropCheckpointsBefore(all[std::min(all.size(), kKeepCheckpoints) - 1]);
  return Status::OK();
}

void Controller::DropCheckpointsBefore(uint64_t seq) {
  store_->DropBefore(seq);
  if (journal_) journal_->RemoveBefore(seq);
}

Status Controller::Restore() {
  if (!store_) return Status::OK();
  if (role_) {
    // On many hosts, the coordinator names the checkpoint that every host
    // completed; newer ones are the parts of an incomplete one, and go.
    store_->DropAfter(role_->restore_seq);
    std::vector<uint64_t> left = store_->List();
    if (role_->restore_seq == 0) return Status::OK();
    if (left.empty() || left[0] != role_->restore_seq) {
      return Status::NotFound("host " + std::to_string(role_->host) + " has no checkpoint " +
                              std::to_string(role_->restore_seq) + " in " + store_->root() +
                              ", which the coordinator restarts from");
    }
  }
  Status last_error;
  for (uint64_t seq : store_->List()) {
    const std::string dir = store_->Dir(seq);
    Status s = store_->Validate(seq);
    if (!s.ok() && role_) {
      return s.WithContext("host " + std::to_string(role_->host) + "'s part of checkpoint " + dir +
                           " is damaged");
    }
    if (!s.ok()) {
      // Set aside (kept for inspection), so that it is neither loaded nor
      // counted among the checkpoints kept, and its number can be reused.
      store_->SetAside(seq, s);
      last_error = s;
      continue;
    }
    SLUICE_ASSIGN_OR_RETURN(const std::string body_text, store_->ReadBody(seq));
    const Json b = Json::parse(body_text);
    if (b.value("version", 0) != kVersion) {
      return Status::InvalidArgument(
          "checkpoint " + dir + " is in format version " + std::to_string(b.value("version", 0)) +
          ", and this version of sluice reads version " + std::to_string(kVersion) +
          ": start with an empty storage directory");
    }
    if (b.value("program", std::string()) == Hex64(program_fingerprint_)) {
      MutexLock l(&step_mu_);
      return LoadCheckpoint(seq, body_text, nullptr);
    }
    if (role_) {
      return Status::Unimplemented(
          "the program changed since checkpoint " + dir +
          ", and a pipeline on many hosts cannot rebuild views yet: run the program it ran, "
          "or start with empty storage");
    }
    if (exactly_once_) {
      // The journal's steps ran the old program: they cannot be replayed
      // on the new one as they were.
      uint64_t steps = 0;
      SLUICE_RETURN_IF_ERROR(
          Journal::Replay(config_.storage + "/journal", seq, [&](const JournalRecord& r) {
            steps += r.type == 'T';
            return Status::OK();
          }));
      if (steps > 0) {
        return Status::InvalidArgument(
            "the program changed, and the pipeline stopped " + std::to_string(steps) +
            " steps after its last checkpoint (" + dir +
            "): restart it with the program it ran, take a checkpoint (or stop it with "
            "SIGTERM, which takes one), then change the program");
      }
    }
    SLUICE_ASSIGN_OR_RETURN(auto change, PlanChange(body_text));
    ProgramChanges report;
    report.checkpoint_step = b.value("step", uint64_t{0});
    for (const ProgramChange::Entry& e : change->entries) {
      report.relations.push_back({e.name, e.table ? "table" : "view", e.change, e.reason});
      std::fprintf(stderr, "sluice: %s %s: %s\n", e.table ? "table" : "view", e.name.c_str(),
                   e.reason.c_str());
    }
    const bool wait = change->needs_approval && config_.bootstrap_policy == "await_approval";
    report.status = wait ? "awaiting_approval" : "approved";
    if (wait) {
      std::fprintf(stderr,
                   "sluice: the program changed since checkpoint %s: awaiting approval to rebuild "
                   "(POST /approve)\n",
                   dir.c_str());
      MutexLock l(&change_mu_);
      program_changes_ = std::move(report);
      pending_change_ = std::move(change);
      pending_seq_ = seq;
      pending_body_ = body_text;
      loop_.Reset(PipelineState::kAwaitingApproval, report.checkpoint_step);
      return Status::OK();
    }
    {
      MutexLock l(&change_mu_);
      program_changes_ = std::move(report);
    }
    MutexLock l(&step_mu_);
    return LoadCheckpoint(seq, body_text, change.get());
  }
  if (!last_error.ok()) {
    return last_error.WithContext("no usable checkpoint in " + store_->root() +
                                  " (refusing to start from nothing over old state)");
  }
  std::fprintf(stderr, "sluice: no checkpoint in %s: starting empty\n", store_->root().c_str());
  return Status::OK();
}

Status Controller::LoadCheckpoint(uint64_t seq, const std::string& body,
                                  const ProgramChange* change) {
  const std::string dir = store_->Dir(seq);
  const Json b = Json::parse(body);
  // With a changed program, only what the change keeps comes from here.
  Circuit::OwnerFilter kept = nullptr;
  if (change != nullptr) {
    kept = [change](const std::string& owner) { return change->kept_owners.count(owner) > 0; };
  }
  auto keeps = [&](const std::string& relation) {
    if (change == nullptr) return true;
    const std::string owner =
        relations_.at(relation).is_table ? sql::TableOwner(relation) : sql::ViewOwner(relation);
    return change->kept_owners.count(owner) > 0;
  };
  SLUICE_RETURN_IF_ERROR(runtime_->LoadState(dir, b["runtime"].dump(), kept));
  SLUICE_ASSIGN_OR_RETURN(auto reader, StateReader::Open(dir, b["integrals"].dump()));
  const std::set<std::string> moved =
      role_ ? std::set<std::string>(role_->relayout.begin(), role_->relayout.end())
            : std::set<std::string>();
  SLUICE_RETURN_IF_ERROR(outputs_->LoadIntegrals(reader.get(), [&](const std::string& name) {
    return keeps(name) && moved.count(name) == 0 &&
           (change == nullptr || change->new_integrals.count(name) == 0);
  }));
  if (!moved.empty()) {
    // Integrals kept in the other layout: this host's part of them, as the
    // checkpoint holds it, is leased aside for every host to read.
    LeaseTable::Integrals aside;
    for (const std::string& r : moved) {
      aside[r];
      if (!reader->Has(r)) continue;  // held by another host
      SLUICE_RETURN_IF_ERROR(reader->BeginOp(r, "integral"));
      Spine part(spine_options_);
      SLUICE_RETURN_IF_ERROR(reader->GetSpine(&part));
      aside[r] = part.Snapshot();
    }
    SLUICE_ASSIGN_OR_RETURN(
        relayout_lease_, leases_.Add(b.value("step", uint64_t{0}), std::move(aside), "relayout"));
    relayout_pending_ = true;
  }
  if (change == nullptr) SLUICE_RETURN_IF_ERROR(reader->Finish());
  // Queued changes, back into their tables' queues; connectors' positions.
  InputQueues::Saved saved;
  SLUICE_ASSIGN_OR_RETURN(saved.queues, ReadWholeFile(dir + "/queues.bin"));
  for (auto it = b["inputs"].begin(); it != b["inputs"].end(); ++it) {
    saved.positions[it.key()] = it->dump();
  }
  saved.next_token = b.value("next_token", uint64_t{1});
  saved.next_segment = b.value("next_segment", uint64_t{1});
  SLUICE_RETURN_IF_ERROR(
      queues_
          ->Restore(saved, change != nullptr,
                    change != nullptr ? change->changed_tables : std::set<std::string>{})
          .WithContext(dir));
  // Output connectors go on from their progress; those of rebuilt
  // relations start over.
  std::map<std::string, OutputEndpoints::Progress> progress;
  for (auto it = b["outputs"].begin(); it != b["outputs"].end(); ++it) {
    progress[it.key()] = {(*it)["progress"].dump(), it->value("snapshot_sent", false)};
  }
  SLUICE_RETURN_IF_ERROR(outputs_->ResumeConnectors(progress, keeps));
  const uint64_t step = b.value("step", uint64_t{0});
  loop_.Restored(seq, step);
  restored_seq_ = seq;
  outputs_->set_delivered_step(b.value("delivered_step", step));
  upsert_seq_ = b.value("upsert_seq", uint64_t{0});
  restored_sequences_ = b.contains("sequences") ? b["sequences"].dump() : "";
  if (b.contains("waterlines")) {
    SLUICE_RETURN_IF_ERROR(waterlines_->FromJson(b["waterlines"]).WithContext(dir));
  }
  // The step clock never goes back, not even across a restart.
  clock_->Advance(b.value("step_clock", int64_t{0}));
  // Views that failed stay stopped (their operators' state is not whole),
  // but for those a changed program rebuilds.
  const Json failed = b.value("failed_views", Json::object());
  for (const auto& [v, why] : failed.items()) {
    if (std::find(program_.views.begin(), program_.views.end(), v) == program_.views.end())
      continue;
    if (change != nullptr && change->rebuild_views.count(v) > 0) continue;
    {
      MutexLock l(&failed_mu_);
      failed_views_[v] = why.get<std::string>();
    }
    runtime_->SkipOwner(sql::ViewOwner(v));
  }
  std::fprintf(stderr, "sluice: resumed from checkpoint %s at step %llu\n", dir.c_str(),
               static_cast<unsigned long long>(step));
  if (change == nullptr) return Status::OK();
  if (change->needs_bootstrap()) {
    SLUICE_RETURN_IF_ERROR(Bootstrap(dir, body, *change));
    std::fprintf(stderr, "sluice: rebuilt %zu views and %zu tables in step %llu\n",
                 change->rebuild_views.size(), change->changed_tables.size(),
                 static_cast<unsigned long long>(outputs_->delivered_step()));
  }
  // The changed program's first checkpoint, so that a restart need not
  // rebuild again.
  loop_.RequestCheckpointNumber(seq + 1);
  MutexLock l(&change_mu_);
  if (program_changes_) {
    program_changes_->status = "applied";
    program_changes_->step = this->step();
  }
  return Status::OK();
}

Status Controller::LoadJournal(bool run_steps) {
  const std::string dir = config_.storage + "/journal";
  uint64_t replayed = 0;
  uint64_t recorded = 0;
  Status s = Journal::Replay(dir, restored_seq_, [&](const JournalRecord& r) -> Status {
    if (r.type == 'S') {
      return queues_->QueueRecorded(r.table, r.source, r.position, r.changes, r.segment);
    }
    const uint64_t expect = step() + 1 + recorded;
    if (r.step != expect) {
      return Status::Corruption("the input journal's step " + std::to_string(r.step) +
                                " does not follow step " + std::to_string(expect - 1));
    }
    if (!run_steps) {
      // Many hosts: the coordinator replays the steps, on every host at once.
      MutexLock l(&host_mu_);
      recorded_steps_[r.step] = r;
      ++recorded;
      return Status::OK();
    }
    // A step: exactly the changes it took.
    uint64_t last_token = 0;
    SLUICE_ASSIGN_OR_RETURN(auto input, queues_->TakeRecorded(r.step, r.ranges, &last_token));
    ++replayed;
    return RunOutside({r.step, r.commit, r.in_transaction, r.clock}, input, last_token,
                      /*journal=*/false);
  });
  SLUICE_RETURN_IF_ERROR(s.WithContext("replaying the input journal"));
  if (replayed > 0) {
    std::fprintf(stderr, "sluice: replayed %llu steps from the input journal, to step %llu\n",
                 static_cast<unsigned long long>(replayed),
                 static_cast<unsigned long long>(step()));
  }
  SLUICE_ASSIGN_OR_RETURN(journal_, Journal::Open(dir, restored_seq_));
  queues_->SetJournal(journal_.get());
  // The next checkpoint starts a journal file after every existing one (a
  // file may be newer than the checkpoint restored from, if a newer one was
  // damaged), so that no file is ever reused.
  loop_.NumberCheckpointsAfter(Journal::Newest(dir));
  return Status::OK();
}

std::vector<CheckpointInfo> Controller::Checkpoints() const {
  return store_ ? store_->Info() : std::vector<CheckpointInfo>{};
}

}  // namespace sluice::pipeline
