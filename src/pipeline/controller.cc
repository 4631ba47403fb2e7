#include "pipeline/controller.h"

#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

#include "base/hash.h"
#include "pipeline/adhoc.h"
#include "pipeline/snapshot_assembler.h"
#include "sql/datetime.h"
#include "storage/file.h"
#include "zset/merge.h"

namespace sluice::pipeline {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

uint64_t ResidentBytes() {
  std::ifstream f("/proc/self/statm");
  uint64_t pages = 0, resident = 0;
  f >> pages >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

uint64_t DirectoryBytes(const std::string& dir) {
  if (dir.empty()) return 0;
  std::error_code ec;
  uint64_t total = 0;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) total += it->file_size(ec);
  }
  return total;
}

format::Relation MakeRelation(const std::string& name, const std::vector<sql::Column>& columns,
                              std::vector<int> key) {
  format::Relation r;
  r.name = name;
  for (const sql::Column& c : columns) {
    r.columns.push_back(c.name);
    r.schema.push_back(c.type);
  }
  r.key = std::move(key);
  return r;
}

// The key columns of a view's output connectors that name one of its
// indexes (`"index"`), or need a key (update_mode merge) and it has one.
Status ResolveIndexes(const sql::Catalog& catalog, const std::string& view,
                      const std::vector<std::string>& columns,
                      std::vector<connector::ConnectorSpec>* specs) {
  for (connector::ConnectorSpec& spec : *specs) {
    const nlohmann::json config = nlohmann::json::parse(spec.transport_config, nullptr, false);
    if (!config.is_object()) continue;
    std::string name = config.value("index", std::string());
    const auto what = [&] { return "connector \"" + spec.name + "\" of view " + view; };
    if (name.empty()) {
      if (config.value("update_mode", std::string()) != "merge") continue;
      std::vector<std::string> found;
      for (const auto& [n, idx] : catalog.indexes()) {
        if (idx.relation == view) found.push_back(n);
      }
      if (found.size() > 1) {
        std::string list;
        for (const std::string& f : found) list += (list.empty() ? "" : ", ") + f;
        return Status::InvalidArgument(what() + ": the view has indexes " + list +
                                       ": name the one that is its unique key in \"index\"");
      }
      if (found.empty()) continue;  // the sink says what it needs
      name = found[0];
    }
    auto it = catalog.indexes().find(name);
    if (it == catalog.indexes().end()) {
      std::string on_view;
      for (const auto& [n, idx] : catalog.indexes()) {
        if (idx.relation == view) on_view += (on_view.empty() ? "" : ", ") + n;
      }
      return Status::InvalidArgument(
          what() + ": index \"" + name + "\" does not exist (" +
          (on_view.empty() ? "CREATE INDEX " + name + " ON " + view + " (columns)"
                           : "the view's indexes: " + on_view) +
          ")");
    }
    if (it->second.relation != view) {
      return Status::InvalidArgument(what() + ": index \"" + name + "\" is on " +
                                     it->second.relation + ", not on view " + view);
    }
    spec.key.clear();
    for (const std::string& c : it->second.columns) {
      auto at = std::find(columns.begin(), columns.end(), c);
      if (at == columns.end()) {
        return Status::InvalidArgument(what() + ": index \"" + name + "\" names column " + c +
                                       ", which view " + view + " does not have");
      }
      spec.key.push_back(static_cast<int>(at - columns.begin()));
    }
  }
  return Status::OK();
}

// A part's way to its leader on another host.
class PeerLeaderLink final : public connector::LeaderLink {
 public:
  PeerLeaderLink(Peers* peers, int leader) : peers_(peers), leader_(leader) {}
  Status Report(const connector::PartReport& report) override {
    return peers_->ReportPart(leader_, report);
  }

 private:
  Peers* peers_;
  int leader_;
};

}  // namespace

const char* StateName(PipelineState s) {
  switch (s) {
    case PipelineState::kAwaitingApproval:
      return "AwaitingApproval";
    case PipelineState::kRunning:
      return "Running";
    case PipelineState::kPaused:
      return "Paused";
    case PipelineState::kStopping:
      return "Stopping";
    case PipelineState::kFailed:
      return "Failed";
  }
  return "?";
}

// The sink of one input connector: its changes go to the input queues,
// tagged with where they came from, so that steps honour its
// max_batch_size and max_queued_records.
class Controller::Source final : public connector::InputSink {
 public:
  Source(Controller* c, size_t input) : c_(c), input_(input) {}
  bool Enqueue(format::ChangeBuffer changes, std::string position) override {
    Status s = c_->queues_->Enqueue(
        input_, std::make_shared<const format::ChangeBuffer>(std::move(changes)),
        std::move(position));
    if (s.ok()) return true;
    if (!c_->stopping()) c_->inputs_[input_].connector->stats().SetError(s.ToString());
    return false;
  }
  bool stopping() const override { return c_->stopping(); }

 private:
  Controller* c_;
  size_t input_;
};

namespace {

LeaseTable::Options LeaseOptions(const PipelineConfig& config) {
  LeaseTable::Options o;
  o.idle_timeout = std::chrono::milliseconds(config.lease_idle_timeout_ms);
  return o;
}

}  // namespace

Controller::Controller(sql::Program program, PipelineConfig config, std::string base_dir)
    : program_(std::move(program)),
      config_(std::move(config)),
      base_dir_(std::move(base_dir)),
      leases_(LeaseOptions(config_)) {}

Result<std::unique_ptr<Controller>> Controller::Start(std::string_view program_text,
                                                      PipelineConfig config, std::string base_dir,
                                                      const HostRole* role) {
  SLUICE_ASSIGN_OR_RETURN(sql::Program program, sql::CompileProgram(program_text));
  std::unique_ptr<Controller> c(
      new Controller(std::move(program), std::move(config), std::move(base_dir)));
  if (role != nullptr) c->role_ = *role;
  c->program_text_ = std::string(program_text);
  c->program_fingerprint_ = Hash64(program_text);
  Status s = c->Init();
  if (!s.ok()) {
    c->Stop();
    return s;
  }
  return c;
}

Result<ProgramInfo> DescribeProgram(const sql::Program& program, const std::string& base_dir) {
  ProgramInfo p;
  for (const std::string& t : program.tables) {
    const sql::TableDef& def = *program.catalog.FindTable(t);
    p.relations[t] = {MakeRelation(t, def.columns, def.primary_key), true, def.materialized};
    p.relations[t].rel.append_only = def.append_only;
    p.relations[t].rel.defaults = def.defaults;
    p.relations[t].default_sequences = def.default_sequences;
    p.relations[t].identity_always = def.identity_always;
    p.relations[t].identity_by_default = def.identity_by_default;
    p.relations[t].checks = def.checks;
    p.output_names.push_back(t);
    SLUICE_ASSIGN_OR_RETURN(auto cs, connector::ParseConnectors(t, true, def.connectors, base_dir));
    p.connectors.insert(p.connectors.end(), cs.begin(), cs.end());
  }
  for (const std::string& v : program.views) {
    const sql::ViewDef& def = *program.catalog.FindView(v);
    std::vector<sql::Column> cols(
        def.query.plan->columns.begin(),
        def.query.plan->columns.begin() + static_cast<ptrdiff_t>(def.query.visible));
    p.relations[v] = {MakeRelation(v, cols, {}), false,
                      def.materialized,          def.query_sql,
                      def.pg_definition,         def.pg_definition_pretty};
    p.output_names.push_back(v);
    SLUICE_ASSIGN_OR_RETURN(auto cs,
                            connector::ParseConnectors(v, false, def.connectors, base_dir));
    SLUICE_RETURN_IF_ERROR(ResolveIndexes(program.catalog, v, p.relations[v].rel.columns, &cs));
    p.connectors.insert(p.connectors.end(), cs.begin(), cs.end());
  }
  const std::vector<connector::ConnectorSpec>& specs = p.connectors;
  for (size_t i = 0; i < specs.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (specs[i].name == specs[j].name) {
        return Status::InvalidArgument("two connectors are named \"" + specs[i].name + "\" (on " +
                                       specs[j].relation + " and " + specs[i].relation + ")");
      }
    }
  }
  return p;
}

std::set<std::string> GatheredOnDemand(const ProgramInfo& program, bool spread) {
  std::set<std::string> out;
  for (const auto& [name, info] : program.relations) {
    if (!info.materialized || spread) out.insert(name);
  }
  for (const connector::ConnectorSpec& c : program.connectors) {
    // A distributed connector's parts write what each host computed.
    if (!c.input && !(c.distributed && connector::SupportsDistributed(c.transport))) {
      out.erase(c.relation);
    }
  }
  return out;
}

Status Controller::Init() {
  // Relations, and their connectors (checked before anything starts).
  SLUICE_ASSIGN_OR_RETURN(ProgramInfo info, DescribeProgram(program_, base_dir_));
  if (role_) {
    for (const std::string& r : GatheredOnDemand(info, role_->spread)) {
      gather_switches_[r] = std::make_shared<std::atomic<bool>>(false);
    }
  }
  relations_ = std::move(info.relations);
  output_names_ = std::move(info.output_names);
  std::vector<connector::ConnectorSpec> specs = std::move(info.connectors);
  // Periodic checkpoints.
  if (!config_.fault_tolerance.empty()) {
    auto ft = nlohmann::json::parse(config_.fault_tolerance, nullptr, false);
    const std::string model = ft.value("model", std::string("none"));
    const uint64_t secs = ft.value("checkpoint_interval_secs", uint64_t{60});
    if (model != "none") {
      if (config_.storage.empty()) {
        return Status::InvalidArgument("fault_tolerance model \"" + model +
                                       "\" needs storage: give --storage DIR");
      }
      // On many hosts the coordinator takes the periodic checkpoints.
      if (!role_) loop_.set_checkpoint_interval(std::chrono::seconds(secs));
      exactly_once_ = model == "exactly_once";
    }
  }
  // Workers.
  RuntimeOptions opts;
  opts.workers = config_.workers;
  sql::HostLayout layout;
  // On many hosts, a distributed connector runs as a part on every host,
  // writing the changes of the relation as this host's workers computed
  // them: its spread share (all_hosts, materialized), or else the change
  // before the gather.
  std::map<std::string, std::string> part_streams;  // by connector
  if (role_) {
    opts.host = role_->host;
    opts.hosts = role_->hosts;
    opts.transport = role_->transport;
    layout.workers_per_host = config_.workers;
    layout.output_host = role_->output_host;
    layout.spread = role_->spread;
    for (const auto& [r, on] : gather_switches_) layout.on_demand[r] = on;
    for (const connector::ConnectorSpec& spec : specs) {
      if (!RunsAsParts(spec)) continue;
      if (role_->spread && relations_.at(spec.relation).materialized) {
        part_streams[spec.name] = sql::SpreadOutputName(spec.relation);
      } else {
        layout.parts.insert(spec.relation);
        part_streams[spec.name] = sql::PartOutputName(spec.relation);
      }
    }
  }
  if (!config_.storage.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(config_.storage, ec);
    if (ec) {
      return Status::IOError("cannot create the storage directory " + config_.storage + ": " +
                             ec.message());
    }
    opts.spine.merge.storage_dir = config_.storage;
    // The spines' in-memory batches and the decoded blocks of their files
    // share the budget, half and half; without one, the cache is small.
    uint64_t cache_bytes = BlockCache::kDefaultCapacity;
    if (config_.memory_budget_mb > 0) {
      const uint64_t limit = config_.memory_budget_mb << 20;
      cache_bytes = limit / 2;
      budget_ = std::make_unique<MemoryBudget>(limit - cache_bytes);
      opts.spine.merge.budget = budget_.get();
    }
    block_cache_ = std::make_shared<BlockCache>(cache_bytes);
    opts.spine.merge.block_cache = block_cache_;
    store_ = std::make_unique<CheckpointStore>(config_.storage + "/checkpoints");
  } else if (config_.memory_budget_mb > 0) {
    return Status::InvalidArgument("memory_budget_mb needs storage: give --storage DIR");
  }
  if (!budget_) {
    // Without a budget the spines still count their bytes, for /stats.
    budget_ = std::make_unique<MemoryBudget>(MemoryBudget::kUnlimited);
    opts.spine.merge.budget = budget_.get();
  }
  // On many hosts each host sees only its own input: the waterlines follow
  // the largest value over every host's, which the coordinator gives with
  // each step (RunHostStep).
  waterlines_ = std::make_unique<Waterlines>(program_, /*agreed=*/role_ && role_->hosts > 1);
  reads_clock_ = sql::ReadsStepClock(program_);
  // The clock moves: a step once a resolution, input or not.
  if (reads_clock_) {
    loop_.set_step_interval(std::chrono::microseconds(config_.clock_resolution_usecs));
  }
  SLUICE_ASSIGN_OR_RETURN(runtime_, Runtime::Start(opts, [&](Circuit& c) {
                            return sql::BuildProgram(
                                program_, c, &errors_, nullptr, role_ ? &layout : nullptr,
                                waterlines_->empty() ? nullptr : &waterlines_->published(), clock_);
                          }));
  {
    MutexLock l(&times_mu_);
    operator_times_ = runtime_->operator_times();
  }
  // The integrals this host holds: on many hosts, of the relations gathered
  // here (one_host; the others' are elsewhere), or a share of each
  // (all_hosts).
  std::set<std::string> held, elsewhere, spread;
  runtime_outputs_ = output_names_;
  for (const std::string& r : layout.parts) runtime_outputs_.push_back(sql::PartOutputName(r));
  for (const auto& [name, rel] : relations_) {
    if (!rel.materialized) continue;
    if (role_ && role_->spread) {
      held.insert(name);
      spread.insert(name);
      runtime_outputs_.push_back(sql::SpreadOutputName(name));
    } else {
      (IsHere(name) ? held : elsewhere).insert(name);
    }
  }
  outputs_ = std::make_unique<OutputEndpoints>(held, elsewhere, spread, opts.spine);
  spine_options_ = opts.spine;
  SLUICE_RETURN_IF_ERROR(LoadPipelineId());
  // Connectors (checked before any starts).
  std::vector<InputQueues::Source> sources;
  for (connector::ConnectorSpec& spec : specs) {
    spec.pipeline_id = pipeline_id_;
    spec.workers = config_.workers;
    const RelationInfo& rel = relations_.at(spec.relation);
    // On many hosts, each connector runs on the host it is assigned to (a
    // distributed one on every host).
    const auto part = part_streams.find(spec.name);
    if (role_ && (spec.input ? role_->inputs.count(spec.name) == 0
                             : part == part_streams.end() && !IsHere(spec.relation))) {
      continue;
    }
    if (spec.input) {
      SLUICE_ASSIGN_OR_RETURN(auto in, connector::MakeInputConnector(spec, rel.rel));
      in->stats().set_name(spec.name);
      sources.push_back({spec.name, spec.relation, spec.max_batch_size, spec.max_queued_records});
      inputs_.push_back({spec, std::move(in), nullptr});
      continue;
    }
    if (spec.send_snapshot && !rel.materialized) {
      return Status::InvalidArgument("connector \"" + spec.name + "\": send_snapshot needs " +
                                     spec.relation + " to be a materialized view");
    }
    SLUICE_ASSIGN_OR_RETURN(auto out, connector::MakeOutputConnector(spec, rel.rel));
    if (out == nullptr) continue;  // http_output: streams come through /egress
    out->stats().set_name(spec.name);
    if (part != part_streams.end()) {
      connector::PartInfo info;
      info.host = role_->host;
      info.hosts = role_->hosts;
      info.leader = role_->output_host.at(spec.relation);
      if (!info.leader_here())
        info.link = std::make_shared<PeerLeaderLink>(role_->peers, info.leader);
      out->SetPart(std::move(info));
      outputs_->AddConnector(spec, std::move(out), part->second);
      continue;
    }
    outputs_->AddConnector(spec, std::move(out));
  }
  std::vector<InputQueues::Table> tables;
  for (const std::string& t : program_.tables) {
    tables.push_back({t, !program_.catalog.FindTable(t)->primary_key.empty()});
  }
  queues_ = std::make_unique<InputQueues>(tables, std::move(sources), [this] { loop_.Wake(); });
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (inputs_[i].spec.paused) queues_->SetSourcePaused(i, true);
    inputs_[i].connector->stats().paused = inputs_[i].spec.paused;
  }
  // A restart goes on from the latest checkpoint on storage (or waits for
  // approval of a program change).
  SLUICE_RETURN_IF_ERROR(Restore());
  if (!role_) {
    SLUICE_ASSIGN_OR_RETURN(sequences_,
                            OpenSequences(program_.catalog, config_.storage, restored_sequences_));
  }
  if (!role_) {
    loop_.set_failure_advice([this]() -> std::string {
      if (!store_) return "restart the pipeline; without storage it starts empty";
      const std::vector<uint64_t> kept = store_->List();
      if (kept.empty()) return "restart the pipeline; it has no checkpoint yet, so it starts empty";
      return "restart the pipeline; it resumes from checkpoint " + std::to_string(kept[0]) +
             (exactly_once_ ? ", and replays the input after it" : "");
    });
  }
  if (state() == PipelineState::kAwaitingApproval) return Status::OK();
  return Launch();
}

Status Controller::Launch() {
  SLUICE_RETURN_IF_ERROR(ResumeTokens());
  // Integrals that move to another layout first: the output connectors
  // start once they are in place (Relayout).
  if (!relayout_pending_) {
    OutputEndpoints::SnapshotStarts assemble;
    SLUICE_RETURN_IF_ERROR(outputs_->Launch(&assemble));
    AssembleSnapshots(std::move(assemble));
  }
  // exactly_once: the steps after the checkpoint again, as they were.
  if (exactly_once_) SLUICE_RETURN_IF_ERROR(LoadJournal(/*run_steps=*/!role_));
  if (!role_) {
    loop_.set_step_at_start(true);
    loop_thread_ = std::thread([this] { loop_.Run(this); });
  }
  for (size_t i = 0; i < inputs_.size(); ++i) {
    Input& in = inputs_[i];
    const std::string position = queues_->position(i);
    if (!position.empty()) SLUICE_RETURN_IF_ERROR(in.connector->Resume(position));
    in.sink = std::make_unique<Source>(this, i);
    SLUICE_RETURN_IF_ERROR(in.connector->Start(in.sink.get()));
  }
  return Status::OK();
}

// The pipeline's id: made at its first start and kept on its storage, so
// that it outlives restarts (sinks that deduplicate replayed steps key them
// by it); a pipeline without storage gets a new one at every start.
std::string NewPipelineId() {
  std::random_device rd;
  char id[40];
  std::snprintf(id, sizeof id, "%08x-%04x-%04x-%04x-%04x%08x", rd(), rd() & 0xffff,
                (rd() & 0x0fff) | 0x4000, (rd() & 0x3fff) | 0x8000, rd() & 0xffff, rd());
  return id;
}

// Tokens are reserved in blocks in <storage>/tokens, so that no token is
// given twice in the pipeline's life (a restart goes on after the last
// block reserved).
Status Controller::ResumeTokens() {
  if (config_.storage.empty()) return Status::OK();
  const std::string path = config_.storage + "/tokens";
  uint64_t reserved = 0;
  if (std::filesystem::exists(path)) {
    SLUICE_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
    if (std::from_chars(text.data(), text.data() + text.size(), reserved).ec != std::errc()) {
      return Status::Corruption(path + " is damaged: it does not hold a token number");
    }
  }
  return queues_->ResumeTokens(reserved, exactly_once_, [path](uint64_t upto) {
    return ReplaceFile(path, std::to_string(upto) + "\n");
  });
}

void Controller::Progress() {
  PipelineStats now = Stats();
  const auto t = std::chrono::steady_clock::now();
  std::fprintf(
      stderr, "sluice: %s\n",
      ProgressLine(progress_stats_, now, std::chrono::duration<double>(t - progress_at_).count())
          .c_str());
  progress_stats_ = std::move(now);
  progress_at_ = t;
}

Status Controller::LoadPipelineId() {
  if (role_) {
    pipeline_id_ = role_->pipeline_id;
    return Status::OK();
  }
  pipeline_id_ = NewPipelineId();
  if (config_.storage.empty()) return Status::OK();
  const std::string path = config_.storage + "/pipeline_id";
  std::ifstream in(path);
  std::string stored;
  if (in >> stored && !stored.empty()) {
    pipeline_id_ = stored;
    return Status::OK();
  }
  return ReplaceFile(path, pipeline_id_ + "\n");
}

Controller::~Controller() { Stop(); }

void Controller::Stop() {
  // With storage, a clean stop takes a checkpoint, so that the next start
  // has everything this run processed (and, exactly_once, replays
  // nothing, so that it may run a changed program).
  if (store_ && loop_thread_.joinable()) {
    const PipelineState st = state();
    if (st == PipelineState::kRunning || st == PipelineState::kPaused) {
      auto seq = RequestCheckpoint();
      Status s = seq.ok() ? WaitCheckpoint(*seq, std::chrono::seconds(60)) : seq.status();
      if (s.ok()) {
        std::fprintf(stderr, "sluice: checkpoint %llu taken at stop, at step %llu\n",
                     static_cast<unsigned long long>(*seq),
                     static_cast<unsigned long long>(step()));
      } else {
        std::fprintf(stderr, "sluice: no checkpoint at stop: %s\n", s.ToString().c_str());
      }
    }
  }
  loop_.SetStopping();
  cancel_snapshots_ = true;
  if (queues_) queues_->SetGate(InputQueues::Gate::kClosed);
  for (Input& in : inputs_) {
    if (in.connector) in.connector->Stop();
  }
  // HTTP streams end; connectors drain what they were handed.
  if (outputs_) outputs_->CloseStreams(Status::Aborted("the pipeline is stopping"));
  if (loop_thread_.joinable()) loop_thread_.join();
  // Connectors drain and stop; their queues close, so that a snapshot that
  // waits to hand a part over stops waiting.
  if (outputs_) outputs_->Stop();
  std::vector<SnapshotThread> threads;
  {
    MutexLock l(&snapshots_mu_);
    threads.swap(snapshot_threads_);
  }
  for (SnapshotThread& t : threads) t.thread.join();
}

void Controller::AssembleSnapshots(OutputEndpoints::SnapshotStarts starts) {
  if (starts.empty()) return;
  MutexLock l(&snapshots_mu_);
  for (auto it = snapshot_threads_.begin(); it != snapshot_threads_.end();) {
    if (*it->done) {
      it->thread.join();
      it = snapshot_threads_.erase(it);
    } else {
      ++it;
    }
  }
  for (OutputEndpoints::SnapshotStart& start : starts) {
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::thread t([this, start = std::move(start), done]() mutable {
      Status s;
      // A host that moved past the step before it was leased: again, at a
      // later step.
      for (int attempt = 0;; ++attempt) {
        SnapshotJob job;
        job.relation = start.relation;
        job.step = start.step;
        job.own = start.own;
        job.host = role_->host;
        job.hosts = role_->hosts;
        job.part_bytes = start.part_bytes;
        job.storage_dir = config_.storage;
        job.touch_interval = std::chrono::milliseconds(config_.lease_touch_interval_ms);
        auto queue = start.queue;
        s = AssembleSnapshot(
            job, *role_->peers,
            [queue](connector::OutputChunk c) { return queue->Put(std::move(c)); },
            cancel_snapshots_);
        if (s.ok() || attempt >= 3 || cancel_snapshots_ || s.code() != StatusCode::kAborted ||
            s.message().find("no longer held") == std::string::npos) {
          break;
        }
        auto again = outputs_->RestartSnapshot(start);
        if (!again.ok()) {
          s = again.status();
          break;
        }
        start = std::move(again).value();
      }
      if (!s.ok()) {
        std::fprintf(stderr, "sluice host %d: %s\n", role_->host, s.ToString().c_str());
      }
      outputs_->FinishSnapshot(start, s);
      *done = true;
    });
    snapshot_threads_.push_back({std::move(t), done});
  }
}

const RelationInfo* Controller::FindRelation(const std::string& name) const {
  auto it = relations_.find(name);
  return it == relations_.end() ? nullptr : &it->second;
}

void Controller::SyncGate() {
  switch (state()) {
    case PipelineState::kRunning:
    case PipelineState::kAwaitingApproval:
      queues_->SetGate(InputQueues::Gate::kOpen);
      break;
    case PipelineState::kPaused:
      queues_->SetGate(InputQueues::Gate::kHeld);
      break;
    case PipelineState::kStopping:
    case PipelineState::kFailed:
      queues_->SetGate(InputQueues::Gate::kClosed, failure());
      break;
  }
}

void Controller::Fail(const Status& s) {
  loop_.Fail(s);
  Failed(loop_.failure());
}

void Controller::Failed(const Status& s) {
  queues_->SetGate(InputQueues::Gate::kClosed, s);
  outputs_->CloseStreams(s);
}

// ---------------------------------------------------------------- input

Result<uint64_t> Controller::Ingest(const std::string& table, format::ChangeBuffer changes,
                                    bool force, uint64_t bytes) {
  if (state() == PipelineState::kAwaitingApproval) {
    return Status::Aborted("the pipeline awaits approval of its program change (POST /approve)");
  }
  return queues_->Ingest(table, std::make_shared<const format::ChangeBuffer>(std::move(changes)),
                         force, bytes);
}

void Controller::CountIngressErrors(const std::string& table, uint64_t errors) {
  queues_->CountParseErrors(table, errors);
}

Status Controller::AcceptPartReport(const connector::PartReport& report) {
  connector::OutputConnector* c = outputs_->FindConnector(report.connector);
  if (c == nullptr) {
    return Status::NotFound("connector \"" + report.connector + "\" does not run on this host");
  }
  return c->AcceptReport(report, std::chrono::seconds(10));
}

Result<Completion> Controller::CompletionOf(uint64_t token) const {
  SLUICE_ASSIGN_OR_RETURN(Completion c, queues_->CompletionOf(token, step()));
  if (c.complete) c.ignored_deletes = ignored_deletes_.Sum(c.from_step, c.step);
  return c;
}

bool Controller::WaitComplete(uint64_t token, std::chrono::milliseconds timeout) const {
  return queues_->WaitComplete(token, timeout);
}

bool Controller::Idle() const { return queues_->buffered() == 0 && !loop_.stepping(); }

// ---------------------------------------------------------------- steps

StepLoop::Clock::time_point Controller::InputDue(uint64_t) {
  return queues_->DueAt(config_.min_batch_size_records,
                        std::chrono::microseconds(config_.max_buffering_delay_usecs));
}

Status Controller::RunStep(const StepLoop::StepPlan& plan) {
  // Everything queued, except that a connector gives at most its
  // max_batch_size records to one step (the rest waits for the next).
  uint64_t last_token = 0;
  const Clock::time_point began = Clock::now();
  // The oldest queued record's arrival (DueAt with no count that is ever
  // enough and no delay).
  const Clock::time_point oldest =
      queues_->DueAt(std::numeric_limits<uint64_t>::max(), std::chrono::microseconds(0));
  if (oldest != Clock::time_point::max()) phases_.Add(StepPhases::kQueued, began - oldest);
  const InputQueues::StepInput input = queues_->Take(&last_token);
  phases_.Add(StepPhases::kSplit, Clock::now() - began);
  MutexLock l(&step_mu_);
  return RunInput(plan, input, last_token, /*journal=*/true);
}

Status Controller::RunOutside(const StepLoop::StepPlan& plan, const InputQueues::StepInput& input,
                              uint64_t last_token, bool journal) {
  SLUICE_RETURN_IF_ERROR(loop_.BeginStep(plan));
  const auto began = StepLoop::Clock::now();
  Status s;
  {
    MutexLock l(&step_mu_);
    s = RunInput(plan, input, last_token, journal);
  }
  loop_.EndStep(plan, s, StepLoop::Clock::now() - began);
  if (!s.ok()) Fail(s);
  return s;
}

Status Controller::RunInput(const StepLoop::StepPlan& plan, const InputQueues::StepInput& input,
                            uint64_t last_token, bool journal) {
  if (runtime_->steps() + 1 != plan.step) {
    return Status::Internal("step " + std::to_string(plan.step) + " does not follow the workers' " +
                            std::to_string(runtime_->steps()));
  }
  Clock::time_point at = Clock::now();
  // Adds the time since the last phase ended to phase `p`.
  auto lap = [&](StepPhases::Phase p) {
    const Clock::time_point now = Clock::now();
    phases_.Add(p, now - at);
    at = now;
  };
  if (reads_clock_) {
    // NOW() for this step: as recorded or given, else the wall clock; never
    // back (a wall clock set back holds the step clock where it was).
    clock_->Advance(plan.clock != 0 ? plan.clock : config_.StepClockNow());
  }
  if (journal_ && journal) {
    // The step's record is on storage before the step runs.
    SLUICE_RETURN_IF_ERROR(journal_->AppendStep(plan.step, plan.commit, plan.in_transaction,
                                                InputQueues::JournalRanges(input),
                                                reads_clock_ ? clock_->now() : 0));
    lap(StepPhases::kJournal);
  }
  // Each table's changes become one batch per worker of this host; on many
  // hosts, the operators that need rows by key (the upsert among them)
  // exchange them over all hosts.
  const int workers = runtime_->workers();
  const int first_worker = role_ ? role_->host * workers : 0;
  const uint64_t hosts = role_ ? static_cast<uint64_t>(role_->hosts) : 1;
  const uint64_t host = role_ ? static_cast<uint64_t>(role_->host) : 0;
  SLUICE_ASSIGN_OR_RETURN(auto parts, queues_->Split(input, workers, hosts, host, &upsert_seq_,
                                                     waterlines_.get()));
  for (const auto& [table, batches] : parts) {
    for (size_t w = 0; w < batches.size(); ++w) {
      SLUICE_RETURN_IF_ERROR(
          runtime_->PushToWorker(table, first_worker + static_cast<int>(w), batches[w]));
    }
  }
  lap(StepPhases::kSplit);
  SLUICE_RETURN_IF_ERROR(runtime_->Step());
  for (const auto& [owner, why] : runtime_->TakeFailedOwners()) {
    for (const std::string& v : program_.views) {
      if (sql::ViewOwner(v) == owner) FailView(v, why.message());
    }
  }
  // Only now may operators forget what this step's rows needed.
  waterlines_->EndStep();
  ignored_deletes_.RecordTotals(plan.step, errors_.ignored_deletes());
  std::map<std::string, BatchPtr> outputs;
  std::set<std::string> stopped;  // failed views: their change this step is not whole
  {
    MutexLock l(&failed_mu_);
    for (const auto& [v, why] : failed_views_) stopped.insert(v);
  }
  // The workers' parts of an output are summed only if something reads it
  // (the sum can be a tenth of a step that passes every row through); a
  // transaction's are all kept, since a reader may come before it commits.
  const bool whole = plan.in_transaction || plan.commit;
  const std::set<std::string> read =
      whole ? std::set<std::string>() : outputs_->ReadOutputs(plan.step, runtime_outputs_);
  for (const std::string& name : runtime_outputs_) {
    if (stopped.count(name) > 0 || (!whole && read.count(name) == 0)) continue;
    SLUICE_ASSIGN_OR_RETURN(BatchPtr b, runtime_->Output(name));
    if (!b->empty()) outputs[name] = b;
  }
  lap(StepPhases::kCircuit);
  if (plan.in_transaction || plan.commit) {
    // A transaction's outputs are held, and handed over as one change when
    // it commits.
    for (auto& [name, b] : outputs) txn_outputs_[name].push_back(b);
    if (!plan.commit) return Status::OK();
    outputs.clear();
    for (auto& [name, list] : txn_outputs_) {
      MergeOptions mo;
      mo.storage_dir = config_.storage;
      SLUICE_ASSIGN_OR_RETURN(BatchPtr sum, MergeBatches(list, mo));
      if (!sum->empty()) outputs[name] = sum;
    }
    txn_outputs_.clear();
    lap(StepPhases::kTransaction);
  }
  SLUICE_RETURN_IF_ERROR(outputs_->Deliver(plan.step, outputs));
  queues_->Completed(last_token, plan.step);
  lap(StepPhases::kDeliver);
  return Status::OK();
}

void Controller::FailView(const std::string& name, const std::string& why) {
  std::vector<std::string> stopped = {name};
  const auto readers = sql::ViewReaders(program_);
  auto it = readers.find(name);
  if (it != readers.end()) stopped.insert(stopped.end(), it->second.begin(), it->second.end());
  const std::string step = std::to_string(runtime_->steps());
  for (const std::string& v : stopped) {
    const std::string msg = v == name ? "view " + v + " failed at step " + step + ": " + why
                                      : "view " + v + " stopped at step " + step +
                                            ": it reads view " + name + ", which failed: " + why;
    {
      MutexLock l(&failed_mu_);
      if (!failed_views_.emplace(v, msg).second) continue;
    }
    runtime_->SkipOwner(sql::ViewOwner(v));
    txn_outputs_.erase(v);
    outputs_->CloseStreams(v, Status::Aborted(msg));
    std::fprintf(stderr, "sluice: %s (the other views run on)\n", msg.c_str());
  }
}

Status Controller::ViewFailure(const std::string& relation) const {
  MutexLock l(&failed_mu_);
  auto it = failed_views_.find(relation);
  return it == failed_views_.end() ? Status::OK() : Status::Aborted(it->second);
}

// ---------------------------------------------------------------- output

Result<Subscription> Controller::Subscribe(const std::string& relation, bool snapshot, bool follow,
                                           bool backpressure, uint64_t max_queued_records) {
  if (relations_.count(relation) == 0) {
    return Status::NotFound("table or view \"" + relation + "\" does not exist");
  }
  if (state() == PipelineState::kFailed) return failure();
  SLUICE_RETURN_IF_ERROR(ViewFailure(relation));
  OutputEndpoints::SnapshotStarts assemble;
  SLUICE_ASSIGN_OR_RETURN(
      Subscription sub,
      outputs_->Subscribe(relation, snapshot, follow, backpressure, max_queued_records, &assemble));
  AssembleSnapshots(std::move(assemble));
  // A failure between the check and the subscription closed the streams
  // before this one was there.
  if (state() == PipelineState::kFailed) {
    outputs_->Unsubscribe(sub.id);
    return failure();
  }
  return sub;
}

void Controller::Unsubscribe(uint64_t id) { outputs_->Unsubscribe(id); }

Status Controller::ResetOutput(const std::string& name) {
  OutputEndpoints::SnapshotStarts assemble;
  SLUICE_RETURN_IF_ERROR(outputs_->Reset(name, &assemble));
  AssembleSnapshots(std::move(assemble));
  return Status::OK();
}

Status Controller::SetEndpointPaused(const std::string& name, bool paused) {
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (inputs_[i].spec.name != name) continue;
    inputs_[i].connector->stats().paused = paused;
    queues_->SetSourcePaused(i, paused);
    return Status::OK();
  }
  return outputs_->SetPaused(name, paused);
}

Result<std::map<std::string, std::vector<BatchPtr>>> Controller::Snapshots(
    const std::vector<std::string>& relations, uint64_t* step) const {
  return outputs_->Snapshots(relations, step);
}

// ---------------------------------------------------------------- control

void Controller::Pause() {
  loop_.Pause();
  SyncGate();
}

void Controller::Resume() {
  loop_.Resume();
  SyncGate();
}

// ---------------------------------------------------------------- stats

PipelineStatus Controller::CurrentStatus() const {
  PipelineStatus st;
  st.state = StateName(state());
  st.pipeline_id = pipeline_id_;
  st.step = step();
  st.transaction = in_transaction();
  const Status f = failure();
  if (!f.ok()) st.error = f.ToString();
  MutexLock l(&change_mu_);
  st.program_changes = program_changes_;
  return st;
}

PipelineStats Controller::Stats() const {
  PipelineStats st;
  GlobalStats& g = st.global;
  g.state = StateName(state());
  g.step = step();
  g.processed_records = queues_->processed();
  g.step_usecs = step_usecs();
  g.step_msecs = g.step_usecs / 1000;
  g.step_latency_counts = loop_.step_latency_counts();
  g.step_phase_usecs = phases_.Usecs();
  {
    MutexLock l(&times_mu_);
    for (const auto& worker : operator_times_) {
      for (size_t i = 0; i < worker->ops.size(); ++i) {
        const OperatorTimes::Op& op = worker->ops[i];
        g.operator_usecs[op.key + " " + op.name] +=
            worker->nanos[i].load(std::memory_order_relaxed) / 1000;
      }
    }
  }
  g.buffered_records = queues_->buffered();
  g.transaction = in_transaction();
  g.uptime_msecs = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started_).count());
  g.rss_bytes = ResidentBytes();
  g.storage_bytes = DirectoryBytes(config_.storage);
  const SpillFailures spill = GetSpillFailures();
  g.spill_failures = spill.count;
  if (!spill.last.empty()) g.last_spill_failure = spill.last;
  if (budget_) {
    if (config_.memory_budget_mb > 0) g.memory_budget_bytes = config_.memory_budget_mb << 20;
    g.spine_memory_bytes = budget_->used();
  }
  if (block_cache_) {
    const BlockCache::Stats c = block_cache_->GetStats();
    BlockCacheStats& b = g.block_cache.emplace();
    b.capacity_bytes = c.capacity_bytes;
    b.bytes = c.bytes;
    b.blocks = c.blocks;
    b.hits = c.hits;
    b.misses = c.misses;
    b.evictions = c.evictions;
    b.hit_rate = c.hit_rate;
  }
  g.workers = static_cast<uint64_t>(config_.workers);
  g.eval_errors = errors_.count();
  if (role_ && role_->transport != nullptr) g.exchange_bytes_sent = role_->transport->bytes_sent();
  g.ignored_deletes = errors_.ignored_deletes();
  for (const auto& [query, r] : errors_.recursions()) {
    g.recursive_queries[query] = {r.incremental_steps, r.from_scratch_steps, r.last_iterations,
                                  r.iterations};
  }
  if (waterlines_ && !waterlines_->empty()) {
    g.late_rows = waterlines_->late_rows();
    g.waterlines = waterlines_->waterlines();
  }
  if (reads_clock_) g.step_clock = sql::FormatTimestamp(clock_->now());
  g.eval_error_samples = errors_.samples();
  {
    MutexLock l(&failed_mu_);
    g.failed_views = failed_views_;
  }
  st.inputs = queues_->IngressStats();
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const Input& in = inputs_[i];
    const connector::ConnectorStats& s = in.connector->stats();
    InputStats c;
    c.name = in.spec.name;
    c.table = in.spec.relation;
    c.transport = in.spec.transport;
    c.records = s.records.load();
    c.bytes = s.bytes.load();
    c.parse_errors = s.parse_errors.load();
    c.transport_errors = s.transport_errors.load();
    c.queued_records = queues_->queued(i);
    c.end_of_input = s.end_of_input.load();
    c.paused = s.paused.load();
    c.health = s.last_error().empty() ? "Healthy" : "Unhealthy";
    if (!s.last_error().empty()) c.last_error = s.last_error();
    st.inputs.push_back(std::move(c));
  }
  st.outputs = outputs_->Stats();
  return st;
}

}  // namespace sluice::pipeline
