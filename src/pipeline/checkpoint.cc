// Checkpoints of a pipeline, under `<storage>/checkpoints/<sequence>/`:
//
//   pipeline.json   {"body": {...}, "checksum": "<hex>"}: the step, the
//                   program's fingerprint, the workers' state manifest
//                   (Runtime::SaveState), the integrals of materialized
//                   relations, each input connector's position, each output
//                   connector's progress, and counters (upsert sequence,
//                   next token)
//   queues.bin      the changes queued but not yet taken by a step, with the
//                   connector each came from; checksummed
//   *.batch         FileBatch files of every spine and held batch
//
// A checkpoint is written into `.tmp-<sequence>` and renamed into place, so
// a crash while writing leaves the previous ones intact. At start, the
// newest checkpoint whose manifest and files check out is loaded; one that
// does not is skipped for the one before it.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/bytes.h"
#include "base/hash.h"
#include "dataflow/state.h"
#include "pipeline/controller.h"
#include "pipeline/journal.h"
#include "storage/file.h"
#include "zset/file_batch.h"

namespace sluice::pipeline {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

constexpr size_t kKeepCheckpoints = 2;
// Of the manifest; 2 keys operator state by owner and records each
// relation's definition (bootstrap.cc).
constexpr int kVersion = 2;

std::string SeqName(uint64_t seq) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%010llu", static_cast<unsigned long long>(seq));
  return buf;
}

// Every batch file a state manifest names.
void CollectFiles(const Json& j, std::vector<std::string>* out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "batch" && it->is_string()) out->push_back(it->get<std::string>());
      if (it.key() == "spine" && it->is_array()) {
        for (const Json& f : *it) out->push_back(f.get<std::string>());
      }
      CollectFiles(*it, out);
    }
  } else if (j.is_array()) {
    for (const Json& e : j) CollectFiles(e, out);
  }
}

// Numbered checkpoints under `dir`, newest first.
std::vector<uint64_t> ListCheckpoints(const std::string& dir) {
  std::vector<uint64_t> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name[0] == '.' ||
        name.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    out.push_back(std::strtoull(name.c_str(), nullptr, 10));
  }
  std::sort(out.rbegin(), out.rend());
  return out;
}

uint64_t DirBytes(const std::string& dir) {
  uint64_t n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_regular_file(ec)) n += e.file_size(ec);
  }
  return n;
}

Result<Json> ReadManifest(const std::string& dir) {
  std::ifstream in(dir + "/pipeline.json");
  if (!in) return Status::NotFound("no pipeline.json in " + dir);
  std::stringstream ss;
  ss << in.rdbuf();
  Json j = Json::parse(ss.str(), nullptr, false);
  if (j.is_discarded() || !j.contains("body") || !j.contains("checksum")) {
    return Status::Corruption(dir + "/pipeline.json is torn or not a checkpoint manifest");
  }
  if (Hex64(Checksum64(j["body"].dump().data(), j["body"].dump().size())) != j["checksum"]) {
    return Status::Corruption(dir + "/pipeline.json does not match its checksum");
  }
  return j["body"];
}

}  // namespace

std::string Controller::CheckpointDir() const { return config_.storage + "/checkpoints"; }

Result<uint64_t> Controller::RequestCheckpoint() {
  if (config_.storage.empty()) {
    return Status::InvalidArgument(
        "checkpoints need storage: start the pipeline with --storage DIR");
  }
  std::lock_guard<std::mutex> l(mu_);
  if (state_ == PipelineState::kFailed) return failure_;
  const uint64_t seq = ++ckpt_.requested;
  cv_.notify_all();
  return seq;
}

Status Controller::WaitCheckpoint(uint64_t seq, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> l(mu_);
  if (!done_cv_.wait_for(l, timeout, [&] {
        return ckpt_.taken >= seq || state_ == PipelineState::kFailed ||
               state_ == PipelineState::kStopping;
      })) {
    return Status::Aborted("checkpoint " + std::to_string(seq) + " is not written yet");
  }
  if (ckpt_.error.first == seq) return ckpt_.error.second;
  if (ckpt_.taken < seq) return Status::Aborted("the pipeline stopped");
  return Status::OK();
}

// Runs on the step loop at a step boundary, with step_mu_ held.
Status Controller::WriteCheckpoint(uint64_t seq) {
  const std::string root = CheckpointDir();
  const std::string tmp = root + "/.tmp-" + SeqName(seq);
  const std::string final_dir = root + "/" + SeqName(seq);
  std::error_code ec;
  fs::remove_all(tmp, ec);
  // A checkpoint that fails (storage full, say) leaves nothing behind.
  struct Cleanup {
    std::string dir;
    bool done = false;
    ~Cleanup() {
      std::error_code e;
      if (!done) fs::remove_all(dir, e);
    }
  } cleanup{tmp};
  SLUICE_RETURN_IF_ERROR(CreateDirs(tmp));
  Json body;
  // Output connectors first write out everything they were handed, so that
  // their recorded progress is exactly this step's.
  Json outputs = Json::object();
  for (auto& e : endpoints_) {
    if (!e->connector) continue;
    SLUICE_ASSIGN_OR_RETURN(std::string progress, e->connector->Progress(std::chrono::seconds(60)));
    outputs[e->name] = {{"progress", Json::parse(progress)}, {"snapshot_sent", e->snapshot_sent}};
  }
  body["outputs"] = outputs;
  SLUICE_ASSIGN_OR_RETURN(std::string runtime, runtime_->SaveState(tmp));
  body["runtime"] = Json::parse(runtime);
  StateWriter integrals(tmp, "m");
  for (const auto& [name, spine] : integrals_) {
    integrals.BeginOp(name, "integral");
    SLUICE_RETURN_IF_ERROR(integrals.PutSpine(*spine));
  }
  body["relations"] = Json::parse(RelationsJson());
  body["integrals"] = Json::parse(integrals.Manifest());
  std::string queues = "SLQ2";
  {
    std::lock_guard<std::mutex> l(mu_);
    body["step"] = step_;
    body["next_token"] = next_token_;
    body["next_segment"] = next_segment_;
    Json inputs = Json::object();
    for (const Input& in : inputs_) {
      if (!in.position.empty()) inputs[in.spec.name] = Json::parse(in.position);
    }
    body["inputs"] = inputs;
    for (const auto& [table, q] : queues_) {
      for (const Segment& seg : q.segments) {
        PutFixed32(&queues, static_cast<uint32_t>(table.size()));
        queues.append(table);
        const std::string source =
            seg.source < 0 ? "" : inputs_[static_cast<size_t>(seg.source)].spec.name;
        PutFixed32(&queues, static_cast<uint32_t>(source.size()));
        queues.append(source);
        PutFixed64(&queues, seg.id);
        EncodeChanges(*seg.changes, seg.next, seg.changes->size(), &queues);
      }
    }
    // Input queued from here on goes to the journal of this checkpoint.
    if (journal_) SLUICE_RETURN_IF_ERROR(journal_->Rotate(seq));
  }
  PutFixed64(&queues, Checksum64(queues.data(), queues.size()));
  SLUICE_RETURN_IF_ERROR(WriteWholeFile(tmp + "/queues.bin", queues));
  body["version"] = kVersion;
  body["sequence"] = seq;
  body["delivered_step"] = delivered_step_;
  body["upsert_seq"] = upsert_seq_;
  body["program"] = Hex64(program_fingerprint_);
  body["workers"] = config_.workers;
  const std::string text = body.dump();
  Json manifest = {{"body", body}, {"checksum", Hex64(Checksum64(text.data(), text.size()))}};
  SLUICE_RETURN_IF_ERROR(WriteWholeFile(tmp + "/pipeline.json", manifest.dump(1)));
  SLUICE_RETURN_IF_ERROR(RenameFile(tmp, final_dir));
  cleanup.done = true;
  {
    std::lock_guard<std::mutex> l(mu_);
    ckpt_.ok = seq;
    ckpt_.step = body["step"];
    if (role_) {
      // On many hosts, this is one part: it counts (and older parts and
      // journal files go) once every host wrote its part.
      written_part_ = {seq, body["next_token"].get<uint64_t>() - 1};
      return Status::OK();
    }
    durable_token_ = body["next_token"].get<uint64_t>() - 1;
  }
  // The newest kKeepCheckpoints stay.
  std::vector<uint64_t> all = ListCheckpoints(root);
  DropCheckpointsBefore(all[std::min(all.size(), kKeepCheckpoints) - 1]);
  return Status::OK();
}

void Controller::DropCheckpointsBefore(uint64_t seq) {
  // Their files stay alive while batches still use them.
  const std::string root = CheckpointDir();
  std::error_code ec;
  for (uint64_t k : ListCheckpoints(root)) {
    if (k < seq) fs::remove_all(root + "/" + SeqName(k), ec);
  }
  if (journal_) journal_->RemoveBefore(seq);
}

Status Controller::CompleteHostCheckpoint(uint64_t seq) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (written_part_.first != seq) {
      return Status::InvalidArgument("this host's last checkpoint part is " +
                                     std::to_string(written_part_.first) + ", not " +
                                     std::to_string(seq));
    }
    durable_token_ = written_part_.second;
  }
  DropCheckpointsBefore(seq);
  return Status::OK();
}

Status Controller::Restore() {
  if (config_.storage.empty()) return Status::OK();
  const std::string root = CheckpointDir();
  if (role_) {
    // On many hosts, the coordinator names the checkpoint that every host
    // completed; newer ones are the parts of an incomplete one, and go.
    for (uint64_t seq : ListCheckpoints(root)) {
      if (seq <= role_->restore_seq) break;
      std::error_code ec;
      fs::remove_all(root + "/" + SeqName(seq), ec);
    }
    std::vector<uint64_t> left = ListCheckpoints(root);
    if (role_->restore_seq == 0) {
      for (uint64_t seq : left) {
        std::error_code ec;
        fs::remove_all(root + "/" + SeqName(seq), ec);
      }
      return Status::OK();
    }
    if (left.empty() || left[0] != role_->restore_seq) {
      return Status::NotFound("host " + std::to_string(role_->host) + " has no checkpoint " +
                              std::to_string(role_->restore_seq) + " in " + root +
                              ", which the coordinator restarts from");
    }
  }
  Status last_error;
  for (uint64_t seq : ListCheckpoints(root)) {
    const std::string dir = root + "/" + SeqName(seq);
    auto body = ReadManifest(dir);
    Status s = body.status();
    if (s.ok()) {
      // Every file it names must be there and whole: its index and every
      // block are checked against their checksums now, so that a damaged
      // checkpoint is skipped here rather than failing a later step.
      std::vector<std::string> files;
      CollectFiles((*body)["runtime"], &files);
      CollectFiles((*body)["integrals"], &files);
      for (size_t f = 0; f < files.size() && s.ok(); ++f) {
        auto fb = FileBatch::Open(dir + "/" + files[f], /*remove_on_drop=*/false);
        if (!fb.ok()) {
          s = fb.status();
          break;
        }
        for (size_t b = 0; b < (*fb)->block_count() && s.ok(); ++b) {
          s = (*fb)->ReadBlock(b).status();
        }
      }
    }
    if (!s.ok() && role_) {
      return s.WithContext("host " + std::to_string(role_->host) + "'s part of checkpoint " + dir +
                           " is damaged");
    }
    if (!s.ok()) {
      // Set aside (kept for inspection), so that it is neither loaded nor
      // counted among the checkpoints kept, and its number can be reused.
      const std::string aside = root + "/.corrupt-" + SeqName(seq);
      std::error_code ec;
      fs::remove_all(aside, ec);
      fs::rename(dir, aside, ec);
      std::fprintf(stderr, "sluice: skipping checkpoint %s (moved to %s): %s\n", dir.c_str(),
                   aside.c_str(), s.ToString().c_str());
      last_error = s;
      continue;
    }
    const Json& b = *body;
    if (b.value("version", 0) != kVersion) {
      return Status::InvalidArgument(
          "checkpoint " + dir + " is in format version " + std::to_string(b.value("version", 0)) +
          ", and this version of sluice reads version " + std::to_string(kVersion) +
          ": start with an empty storage directory");
    }
    if (b.value("program", std::string()) == Hex64(program_fingerprint_)) {
      return LoadCheckpoint(seq, dir, b.dump(), nullptr);
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
    SLUICE_ASSIGN_OR_RETURN(auto change, PlanChange(b.dump()));
    ProgramChanges report;
    report.checkpoint_step = b.value("step", uint64_t{0});
    for (const ProgramChange::Entry& e : change->entries) {
      report.relations.push_back({e.name, e.table ? "table" : "view", e.change, e.reason});
      std::fprintf(stderr, "sluice: %s %s: %s\n", e.table ? "table" : "view", e.name.c_str(),
                   e.reason.c_str());
    }
    const bool wait = change->needs_approval && config_.bootstrap_policy == "await_approval";
    report.status = wait ? "awaiting_approval" : "approved";
    {
      std::lock_guard<std::mutex> l(mu_);
      program_changes_ = std::move(report);
    }
    if (wait) {
      std::fprintf(stderr,
                   "sluice: the program changed since checkpoint %s: awaiting approval to rebuild "
                   "(POST /approve)\n",
                   dir.c_str());
      pending_change_ = std::move(change);
      pending_seq_ = seq;
      pending_dir_ = dir;
      pending_body_ = b.dump();
      std::lock_guard<std::mutex> l(mu_);
      state_ = PipelineState::kAwaitingApproval;
      return Status::OK();
    }
    return LoadCheckpoint(seq, dir, b.dump(), change.get());
  }
  if (!last_error.ok()) {
    return last_error.WithContext("no usable checkpoint in " + root +
                                  " (refusing to start from nothing over old state)");
  }
  return Status::OK();
}

Status Controller::LoadCheckpoint(uint64_t seq, const std::string& dir, const std::string& body,
                                  const ProgramChange* change) {
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
  for (auto& [name, spine] : integrals_) {
    if (!keeps(name) || (change != nullptr && change->new_integrals.count(name) > 0)) continue;
    SLUICE_RETURN_IF_ERROR(reader->BeginOp(name, "integral"));
    SLUICE_RETURN_IF_ERROR(reader->GetSpine(spine.get()));
  }
  if (change == nullptr) SLUICE_RETURN_IF_ERROR(reader->Finish());
  // Queued changes, back into their tables' queues.
  std::ifstream qin(dir + "/queues.bin", std::ios::binary);
  std::stringstream qss;
  qss << qin.rdbuf();
  const std::string qdata = qss.str();
  uint64_t sum = 0;
  if (qdata.size() < 12 || qdata.compare(0, 4, "SLQ2") != 0 ||
      (std::memcpy(&sum, qdata.data() + qdata.size() - 8, 8),
       sum != Checksum64(qdata.data(), qdata.size() - 8))) {
    return Status::Corruption(dir + "/queues.bin is torn or corrupted");
  }
  std::string_view in(qdata);
  in.remove_prefix(4);
  in.remove_suffix(8);
  {
    std::lock_guard<std::mutex> l(mu_);
    next_segment_ = b.value("next_segment", uint64_t{1});
    while (!in.empty()) {
      uint32_t len;
      std::string_view table, source;
      uint64_t id;
      auto changes = std::make_shared<format::ChangeBuffer>();
      if (!ConsumeFixed32(&in, &len) || !ConsumeBytes(&in, len, &table) ||
          !ConsumeFixed32(&in, &len) || !ConsumeBytes(&in, len, &source) ||
          !ConsumeFixed64(&in, &id) || !DecodeChanges(&in, changes.get())) {
        return Status::Corruption(dir + "/queues.bin is malformed");
      }
      int src = -1;
      for (size_t k = 0; k < inputs_.size(); ++k) {
        if (inputs_[k].spec.name == source) src = static_cast<int>(k);
      }
      const std::string name(table);
      if (queues_.count(name) == 0) {
        if (change != nullptr) continue;  // a table the program no longer has
        return Status::Corruption("queues.bin names an unknown table");
      }
      if (change != nullptr && change->changed_tables.count(name) > 0 && !changes->empty()) {
        return Status::InvalidArgument(
            "table " + name + " changed, and " + std::to_string(changes->size()) +
            " of its changes were queued in its old form at the checkpoint: restart with the "
            "program the checkpoint was taken with, let them be processed and take a checkpoint, "
            "then change the table");
      }
      if (!changes->empty()) SLUICE_RETURN_IF_ERROR(QueueLocked(name, src, std::move(changes), id));
    }
  }
  // (Input connectors resume from these positions when they start.)
  for (Input& in_conn : inputs_) {
    if (b["inputs"].contains(in_conn.spec.name) && in_conn.connector) {
      in_conn.position = b["inputs"][in_conn.spec.name].dump();
    }
  }
  for (auto& e : endpoints_) {
    // The connectors of rebuilt relations start over.
    if (!b["outputs"].contains(e->name) || !keeps(e->relation)) continue;
    const Json& o = b["outputs"][e->name];
    e->snapshot_sent = o.value("snapshot_sent", false);
    SLUICE_RETURN_IF_ERROR(e->connector->Resume(o["progress"].dump()));
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    step_ = b.value("step", uint64_t{0});
    next_token_ = b.value("next_token", uint64_t{1});
    done_token_ = durable_token_ = next_token_ - 1;
    ckpt_.requested = ckpt_.taken = ckpt_.ok = seq;
    ckpt_.step = step_;
  }
  restored_seq_ = seq;
  delivered_step_ = b.value("delivered_step", step_);
  upsert_seq_ = b.value("upsert_seq", uint64_t{0});
  std::fprintf(stderr, "sluice: resumed from checkpoint %s at step %llu\n", dir.c_str(),
               static_cast<unsigned long long>(b.value("step", uint64_t{0})));
  if (change == nullptr) return Status::OK();
  if (change->needs_bootstrap()) {
    SLUICE_RETURN_IF_ERROR(Bootstrap(dir, body, *change));
    std::fprintf(stderr, "sluice: rebuilt %zu views and %zu tables in step %llu\n",
                 change->rebuild_views.size(), change->changed_tables.size(),
                 static_cast<unsigned long long>(delivered_step_));
  }
  // The changed program's first checkpoint, so that a restart need not
  // rebuild again.
  std::lock_guard<std::mutex> l(mu_);
  ckpt_.requested = seq + 1;
  if (program_changes_) {
    program_changes_->status = "applied";
    program_changes_->step = step_;
  }
  return Status::OK();
}

std::string Controller::CheckpointStatusJson() const {
  std::lock_guard<std::mutex> l(mu_);
  return ckpt_.StatusText();
}

std::vector<CheckpointInfo> Controller::Checkpoints() const {
  std::vector<CheckpointInfo> list;
  if (config_.storage.empty()) return list;
  for (uint64_t seq : ListCheckpoints(CheckpointDir())) {
    const std::string dir = CheckpointDir() + "/" + SeqName(seq);
    auto body = ReadManifest(dir);
    CheckpointInfo c;
    c.checkpoint_sequence_number = seq;
    c.size_bytes = DirBytes(dir);
    if (body.ok()) {
      c.step = (*body).value("step", uint64_t{0});
    } else {
      c.error = body.status().ToString();
    }
    list.push_back(c);
  }
  return list;
}

}  // namespace sluice::pipeline
