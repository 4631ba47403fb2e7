#include "pipeline/controller.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "base/hash.h"
#include "dataflow/operators/exchange.h"
#include "dataflow/operators/upsert.h"
#include "storage/file.h"
#include "zset/batch_builder.h"
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

// The sink of one input connector: its changes, tagged with where they came
// from, so that steps honour its max_batch_size and max_queued_records.
class Controller::Source final : public connector::InputSink {
 public:
  Source(Controller* c, size_t input) : c_(c), input_(input) {}
  bool Enqueue(format::ChangeBuffer changes, std::string position) override {
    return c_->EnqueueFrom(input_, std::move(changes), std::move(position));
  }
  bool stopping() const override { return c_->stopping(); }

 private:
  Controller* c_;
  size_t input_;
};

Controller::Controller(sql::Program program, PipelineConfig config, std::string base_dir)
    : program_(std::move(program)), config_(std::move(config)), base_dir_(std::move(base_dir)) {}

Result<std::unique_ptr<Controller>> Controller::Start(std::string_view program_text,
                                                      PipelineConfig config, std::string base_dir,
                                                      const HostRole* role) {
  SLUICE_ASSIGN_OR_RETURN(sql::Program program, sql::CompileProgram(program_text));
  std::unique_ptr<Controller> c(
      new Controller(std::move(program), std::move(config), std::move(base_dir)));
  if (role != nullptr) c->role_ = *role;
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
    p.output_names.push_back(t);
    SLUICE_ASSIGN_OR_RETURN(auto cs, connector::ParseConnectors(t, true, def.connectors, base_dir));
    p.connectors.insert(p.connectors.end(), cs.begin(), cs.end());
  }
  for (const std::string& v : program.views) {
    const sql::ViewDef& def = *program.catalog.FindView(v);
    std::vector<sql::Column> cols(
        def.query.plan->columns.begin(),
        def.query.plan->columns.begin() + static_cast<ptrdiff_t>(def.query.visible));
    p.relations[v] = {MakeRelation(v, cols, {}), false, def.materialized};
    p.output_names.push_back(v);
    SLUICE_ASSIGN_OR_RETURN(auto cs,
                            connector::ParseConnectors(v, false, def.connectors, base_dir));
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

std::set<std::string> GatheredOnDemand(const ProgramInfo& program) {
  std::set<std::string> out;
  for (const auto& [name, info] : program.relations) {
    if (!info.materialized) out.insert(name);
  }
  for (const connector::ConnectorSpec& c : program.connectors) {
    if (!c.input) out.erase(c.relation);
  }
  return out;
}

Status Controller::Init() {
  // Relations, and their connectors (checked before anything starts).
  SLUICE_ASSIGN_OR_RETURN(ProgramInfo info, DescribeProgram(program_, base_dir_));
  if (role_) {
    for (const std::string& r : GatheredOnDemand(info)) {
      gather_switches_[r] = std::make_shared<std::atomic<bool>>(false);
    }
  }
  relations_ = std::move(info.relations);
  output_names_ = std::move(info.output_names);
  std::vector<connector::ConnectorSpec> specs = std::move(info.connectors);
  for (const std::string& t : program_.tables) {
    queues_[t].keyed = !program_.catalog.FindTable(t)->primary_key.empty();
  }
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
      if (!role_) ckpt_.interval = std::chrono::seconds(secs);
      exactly_once_ = model == "exactly_once";
    }
  }
  // Workers.
  RuntimeOptions opts;
  opts.workers = config_.workers;
  sql::HostLayout layout;
  if (role_) {
    opts.host = role_->host;
    opts.hosts = role_->hosts;
    opts.transport = role_->transport;
    layout.workers_per_host = config_.workers;
    layout.output_host = role_->output_host;
    for (const auto& [r, on] : gather_switches_) layout.on_demand[r] = on;
  }
  if (!config_.storage.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(config_.storage, ec);
    if (ec) {
      return Status::IOError("cannot create the storage directory " + config_.storage + ": " +
                             ec.message());
    }
    opts.spine.merge.storage_dir = config_.storage;
    if (config_.memory_budget_mb > 0) {
      budget_ = std::make_unique<MemoryBudget>(config_.memory_budget_mb << 20);
      opts.spine.merge.budget = budget_.get();
    }
  } else if (config_.memory_budget_mb > 0) {
    return Status::InvalidArgument("memory_budget_mb needs storage: give --storage DIR");
  }
  SLUICE_ASSIGN_OR_RETURN(runtime_, Runtime::Start(opts, [&](Circuit& c) {
                            return sql::BuildProgram(program_, c, &errors_, nullptr,
                                                     role_ ? &layout : nullptr);
                          }));
  for (const auto& [name, info] : relations_) {
    if (info.materialized && IsHere(name)) integrals_[name] = std::make_unique<Spine>(opts.spine);
  }
  SLUICE_RETURN_IF_ERROR(LoadPipelineId());
  // Connectors: outputs first, so that nothing an input brings is missed.
  for (connector::ConnectorSpec& spec : specs) {
    spec.pipeline_id = pipeline_id_;
    spec.workers = config_.workers;
    const RelationInfo& info = relations_.at(spec.relation);
    // On many hosts, each connector runs on the host it is assigned to.
    if (role_ && (spec.input ? role_->inputs.count(spec.name) == 0 : !IsHere(spec.relation))) {
      continue;
    }
    if (spec.input) {
      SLUICE_ASSIGN_OR_RETURN(auto in, connector::MakeInputConnector(spec, info.rel));
      inputs_.push_back({spec, std::move(in)});
      continue;
    }
    if (spec.send_snapshot && !info.materialized) {
      return Status::InvalidArgument("connector \"" + spec.name + "\": send_snapshot needs " +
                                     spec.relation + " to be a materialized view");
    }
    SLUICE_ASSIGN_OR_RETURN(auto out, connector::MakeOutputConnector(spec, info.rel));
    if (out == nullptr) continue;  // http_output: streams come through /egress
    auto e = std::make_unique<Endpoint>();
    e->id = next_endpoint_id_++;
    e->name = spec.name;
    e->relation = spec.relation;
    e->transport = spec.transport;
    e->queue = std::make_shared<connector::OutputQueue>(spec.max_queued_records, true);
    e->send_snapshot = spec.send_snapshot;
    out->stats().paused = spec.paused;
    e->connector = std::move(out);
    endpoints_.push_back(std::move(e));
  }
  // A restart goes on from the latest checkpoint on storage (or waits for
  // approval of a program change).
  SLUICE_RETURN_IF_ERROR(Restore());
  if (state() == PipelineState::kAwaitingApproval) return Status::OK();
  return Launch();
}

Status Controller::Launch() {
  for (auto& e : endpoints_) {
    // A send_snapshot connector starts with the view's contents, once.
    if (e->send_snapshot && !e->snapshot_sent) {
      SLUICE_RETURN_IF_ERROR(AddSnapshot(*e, delivered_step_));
      e->snapshot_sent = true;
    }
    SLUICE_RETURN_IF_ERROR(e->connector->Start(e->queue));
  }
  // exactly_once: the steps after the checkpoint again, as they were.
  if (exactly_once_) SLUICE_RETURN_IF_ERROR(LoadJournal(/*run_steps=*/!role_));
  if (!role_) loop_ = std::thread([this] { Loop(); });
  for (size_t i = 0; i < inputs_.size(); ++i) {
    Input& in = inputs_[i];
    if (!in.connector) continue;
    if (!in.position.empty()) SLUICE_RETURN_IF_ERROR(in.connector->Resume(in.position));
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

Result<std::map<std::string, std::vector<Controller::Range>>> Controller::TakeRecordedLocked(
    uint64_t step, const std::vector<JournalRecord::Range>& ranges) {
  std::map<std::string, std::vector<Range>> taken;
  for (const JournalRecord::Range& range : ranges) {
    bool found = false;
    for (auto& [name, q] : queues_) {
      for (auto it = q.segments.begin(); it != q.segments.end() && !found; ++it) {
        if (it->id != range.segment) continue;
        found = true;
        if (it->next != range.from || range.to > it->changes->size() || range.to < range.from) {
          return Status::Corruption("the input journal's step " + std::to_string(step) +
                                    " takes changes of segment " + std::to_string(range.segment) +
                                    " out of order");
        }
        const uint64_t n = range.to - range.from;
        taken[name].push_back({it->id, it->changes, range.from, range.to});
        it->next = range.to;
        buffered_ -= n;
        processed_records_ += n;
        if (it->source >= 0) inputs_[static_cast<size_t>(it->source)].queued -= n;
        if (it->next == it->changes->size()) q.segments.erase(it);
        break;
      }
      if (found) break;
    }
    if (!found) {
      return Status::Corruption("the input journal's step " + std::to_string(step) +
                                " takes segment " + std::to_string(range.segment) +
                                ", which is not queued");
    }
  }
  return taken;
}

Status Controller::LoadJournal(bool run_steps) {
  const std::string dir = config_.storage + "/journal";
  uint64_t replayed = 0;
  Status s = Journal::Replay(dir, restored_seq_, [&](const JournalRecord& r) -> Status {
    std::unique_lock<std::mutex> l(mu_);
    if (r.type == 'S') {
      if (queues_.count(r.table) == 0) {
        return Status::Corruption("the input journal names table " + r.table +
                                  ", which the program does not have");
      }
      int src = -1;
      for (size_t k = 0; k < inputs_.size(); ++k) {
        if (!r.source.empty() && inputs_[k].spec.name == r.source) src = static_cast<int>(k);
      }
      if (src >= 0) inputs_[static_cast<size_t>(src)].position = r.position;
      if (r.changes->empty()) return Status::OK();
      return QueueLocked(r.table, src, r.changes, r.segment);
    }
    if (!run_steps) {
      // Many hosts: the coordinator replays the steps, on every host at once.
      if (r.step != runtime_->steps() + 1 + recorded_steps_.size()) {
        return Status::Corruption("the input journal's step " + std::to_string(r.step) +
                                  " does not follow step " +
                                  std::to_string(runtime_->steps() + recorded_steps_.size()));
      }
      recorded_steps_[r.step] = r;
      return Status::OK();
    }
    // A step: exactly the changes it took.
    SLUICE_ASSIGN_OR_RETURN(auto taken, TakeRecordedLocked(r.step, r.ranges));
    txn_.open = r.in_transaction || r.commit;
    const uint64_t token = next_token_ - 1;
    l.unlock();
    if (runtime_->steps() + 1 != r.step) {
      return Status::Corruption("the input journal's step " + std::to_string(r.step) +
                                " does not follow step " + std::to_string(runtime_->steps()));
    }
    std::lock_guard<std::mutex> sl(step_mu_);
    ++replayed;
    return RunStep(taken, token, r.commit, r.in_transaction || r.commit);
  });
  SLUICE_RETURN_IF_ERROR(s.WithContext("replaying the input journal"));
  if (replayed > 0) {
    std::fprintf(stderr, "sluice: replayed %llu steps from the input journal, to step %llu\n",
                 static_cast<unsigned long long>(replayed),
                 static_cast<unsigned long long>(runtime_->steps()));
  }
  SLUICE_ASSIGN_OR_RETURN(journal_, Journal::Open(dir, restored_seq_));
  // The next checkpoint starts a journal file after every existing one (a
  // file may be newer than the checkpoint restored from, if a newer one was
  // damaged), so that no file is ever reused.
  const uint64_t newest = Journal::Newest(dir);
  std::lock_guard<std::mutex> l(mu_);
  if (newest > ckpt_.taken) {
    const bool pending = ckpt_.requested > ckpt_.taken;
    ckpt_.taken = newest;
    ckpt_.requested = newest + (pending ? 1 : 0);
  }
  return Status::OK();
}

Controller::~Controller() { Stop(); }

void Controller::Stop() {
  // exactly_once: a clean stop takes a checkpoint, so that the next start
  // replays nothing (and may run a changed program).
  if (journal_ && loop_.joinable()) {
    const PipelineState st = state();
    if (st == PipelineState::kRunning || st == PipelineState::kPaused) {
      auto seq = RequestCheckpoint();
      if (seq.ok()) {
        Status s = WaitCheckpoint(*seq, std::chrono::seconds(60));
        if (!s.ok()) {
          std::fprintf(stderr, "sluice: no checkpoint at stop: %s\n", s.ToString().c_str());
        }
      }
    }
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    if (state_ != PipelineState::kFailed) state_ = PipelineState::kStopping;
    cv_.notify_all();
    space_cv_.notify_all();
    done_cv_.notify_all();
  }
  for (Input& in : inputs_) {
    if (in.connector) in.connector->Stop();
  }
  {
    // HTTP streams end; connectors drain what they were handed.
    std::lock_guard<std::mutex> sl(step_mu_);
    for (auto& e : endpoints_) {
      if (!e->connector) e->queue->Close(Status::Aborted("the pipeline is stopping"));
    }
  }
  if (loop_.joinable()) loop_.join();
  std::lock_guard<std::mutex> sl(step_mu_);
  for (auto& e : endpoints_) {
    if (e->connector) e->connector->Stop();
    e->queue->Close();
  }
  endpoints_.clear();
}

const RelationInfo* Controller::FindRelation(const std::string& name) const {
  auto it = relations_.find(name);
  return it == relations_.end() ? nullptr : &it->second;
}

// ---------------------------------------------------------------- input

Result<uint64_t> Controller::Ingest(const std::string& table, format::ChangeBuffer changes,
                                    bool force, uint64_t bytes) {
  std::unique_lock<std::mutex> l(mu_);
  if (state_ == PipelineState::kAwaitingApproval) {
    return Status::Aborted("the pipeline awaits approval of its program change (POST /approve)");
  }
  if (!force) {
    space_cv_.wait(l, [&] { return state_ != PipelineState::kPaused; });
  }
  if (state_ == PipelineState::kFailed) return failure_;
  if (state_ == PipelineState::kStopping) return Status::Aborted("the pipeline is stopping");
  auto it = queues_.find(table);
  if (it == queues_.end()) return Status::NotFound("table \"" + table + "\" does not exist");
  IngressStats& st = ingress_[table];
  ++st.requests;
  st.records += changes.size();
  st.bytes += bytes;
  if (!changes.empty()) {
    SLUICE_RETURN_IF_ERROR(
        QueueLocked(table, -1, std::make_shared<const format::ChangeBuffer>(std::move(changes))));
  }
  uint64_t token = next_token_++;
  cv_.notify_all();
  return token;
}

void Controller::CountIngressErrors(const std::string& table, uint64_t errors) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = ingress_.find(table);
  if (queues_.count(table) == 0) return;
  (it == ingress_.end() ? ingress_[table] : it->second).parse_errors += errors;
}

bool Controller::EnqueueFrom(size_t input, format::ChangeBuffer changes, std::string position) {
  std::unique_lock<std::mutex> l(mu_);
  Input& in = inputs_[input];
  const uint64_t n = changes.size();
  space_cv_.wait(l, [&] {
    if (state_ == PipelineState::kStopping || state_ == PipelineState::kFailed) return true;
    if (state_ != PipelineState::kRunning || in.connector->stats().paused) return false;
    return in.queued == 0 || in.queued + n <= in.spec.max_queued_records;
  });
  if (state_ == PipelineState::kStopping || state_ == PipelineState::kFailed) return false;
  in.position = std::move(position);
  if (n == 0) return true;
  Status s = QueueLocked(in.spec.relation, static_cast<int>(input),
                         std::make_shared<const format::ChangeBuffer>(std::move(changes)));
  if (!s.ok()) {
    in.connector->stats().SetError(s.ToString());
    return false;
  }
  cv_.notify_all();
  return true;
}

Status Controller::QueueLocked(const std::string& table, int source,
                               std::shared_ptr<const format::ChangeBuffer> changes, uint64_t id) {
  TableQueue& q = queues_.at(table);
  if (id == 0) {
    id = next_segment_++;
    if (journal_) {
      const Input* in = source >= 0 ? &inputs_[static_cast<size_t>(source)] : nullptr;
      SLUICE_RETURN_IF_ERROR(journal_->AppendSegment(id, table, in ? in->spec.name : "",
                                                     in ? in->position : "", *changes));
    }
  } else {
    next_segment_ = std::max(next_segment_, id + 1);
  }
  const uint64_t n = changes->size();
  if (buffered_ == 0) first_buffered_ = Clock::now();
  buffered_ += n;
  if (source >= 0) inputs_[static_cast<size_t>(source)].queued += n;
  q.segments.push_back({id, source, std::move(changes), 0});
  return Status::OK();
}

std::map<std::string, std::vector<Controller::Range>> Controller::TakeLocked() {
  std::map<std::string, std::vector<Range>> taken;
  std::vector<uint64_t> budget;
  for (const Input& in : inputs_) budget.push_back(in.spec.max_batch_size);
  uint64_t count = 0;
  for (auto& [name, q] : queues_) {
    for (auto it = q.segments.begin(); it != q.segments.end();) {
      Segment& seg = *it;
      uint64_t n = seg.changes->size() - seg.next;
      if (seg.source >= 0) {
        const size_t src = static_cast<size_t>(seg.source);
        n = std::min(n, budget[src]);
        budget[src] -= n;
        inputs_[src].queued -= n;
      }
      if (n > 0) taken[name].push_back({seg.id, seg.changes, seg.next, seg.next + n});
      seg.next += n;
      count += n;
      it = seg.next == seg.changes->size() ? q.segments.erase(it) : it + 1;
    }
  }
  processed_records_ += count;
  buffered_ -= count;
  return taken;
}

bool Controller::Idle() const {
  std::lock_guard<std::mutex> l(mu_);
  return buffered_ == 0 && !stepping_;
}

bool Controller::stopping() const {
  std::lock_guard<std::mutex> l(mu_);
  return state_ == PipelineState::kStopping || state_ == PipelineState::kFailed;
}

Result<Completion> Controller::CompletionOf(uint64_t token) const {
  std::lock_guard<std::mutex> l(mu_);
  if (token == 0 || token >= next_token_) {
    return Status::NotFound("unknown token " + std::to_string(token));
  }
  Completion c;
  if (token > done_token_) {
    c.step = step_;
    return c;
  }
  c.complete = true;
  c.durable = token <= durable_token_;
  auto it = std::lower_bound(completed_.begin(), completed_.end(), token,
                             [](const auto& e, uint64_t t) { return e.first < t; });
  c.step = it == completed_.end() ? step_ : it->second;
  return c;
}

bool Controller::WaitComplete(uint64_t token, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> l(mu_);
  return done_cv_.wait_for(l, timeout, [&] {
    return token <= done_token_ || state_ == PipelineState::kFailed ||
           state_ == PipelineState::kStopping;
  }) && token <= done_token_;
}

// ---------------------------------------------------------------- steps

void Controller::Loop() {
  for (;;) {
    std::unique_lock<std::mutex> l(mu_);
    for (;;) {
      if (state_ == PipelineState::kStopping || state_ == PipelineState::kFailed) return;
      // Periodic checkpoints (fault_tolerance), when something changed.
      const Clock::time_point periodic_due = ckpt_.Schedule(step_);
      if (ckpt_.pending()) {
        // At this step boundary, before any more input is taken.
        const uint64_t seq = ckpt_.requested;
        l.unlock();
        Status cs;
        {
          std::lock_guard<std::mutex> sl(step_mu_);
          cs = WriteCheckpoint(seq);
        }
        l.lock();
        ckpt_.Taken(seq, cs);
        done_cv_.notify_all();
        continue;
      }
      if (state_ == PipelineState::kRunning) {
        if (txn_.commit_requested) break;
        if (buffered_ > 0) {
          if (buffered_ >= config_.min_batch_size_records) break;
          auto due = first_buffered_ + std::chrono::microseconds(config_.max_buffering_delay_usecs);
          if (Clock::now() >= due) break;
          cv_.wait_until(l, std::min(due, periodic_due));
          continue;
        }
      }
      if (periodic_due == Clock::time_point::max()) {
        cv_.wait(l);
      } else {
        cv_.wait_until(l, periodic_due);
      }
    }
    // Everything queued, except that a connector gives at most its
    // max_batch_size records to one step (the rest waits for the next).
    std::map<std::string, std::vector<Range>> taken = TakeLocked();
    const uint64_t token = next_token_ - 1;
    const bool commit = txn_.commit_requested;
    const bool in_txn = txn_.open;
    stepping_ = true;
    l.unlock();
    space_cv_.notify_all();
    if (!RunTaken(taken, token, commit, in_txn, /*journal=*/true).ok()) return;
  }
}

Status Controller::RunTaken(const std::map<std::string, std::vector<Range>>& taken, uint64_t token,
                            bool commit, bool in_txn, bool journal) {
  Status s;
  const auto began = Clock::now();
  if (journal_ && journal) {
    // The step's record is on storage before the step runs.
    std::vector<JournalRecord::Range> ranges;
    for (const auto& [table, list] : taken) {
      for (const Range& r : list) ranges.push_back({r.segment, r.from, r.to});
    }
    s = journal_->AppendStep(runtime_->steps() + 1, commit, in_txn, ranges);
  }
  if (s.ok()) {
    std::lock_guard<std::mutex> sl(step_mu_);
    s = RunStep(taken, token, commit, in_txn || commit);
  }
  {
    std::lock_guard<std::mutex> g(mu_);
    stepping_ = false;
    step_usecs_ += static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - began).count());
  }
  if (!s.ok()) Fail(s);
  return s;
}

Status Controller::RunStep(const std::map<std::string, std::vector<Range>>& taken, uint64_t token,
                           bool commit, bool in_txn) {
  // Each table's changes become one batch per worker (split by the hash
  // that the exchange uses); large ones are sorted on several threads, which
  // would otherwise wait for the step.
  // On many hosts, rows go to this host's workers; the operators that need
  // rows by key (the upsert among them) exchange them over all hosts.
  const int workers = runtime_->workers();
  const int first_worker = role_ ? role_->host * workers : 0;
  const uint64_t hosts = role_ ? static_cast<uint64_t>(role_->hosts) : 1;
  const uint64_t host = role_ ? static_cast<uint64_t>(role_->host) : 0;
  for (const auto& [table, ranges] : taken) {
    const bool keyed = queues_.at(table).keyed;  // fixed at Init
    std::vector<BatchBuilder> parts(static_cast<size_t>(workers));
    size_t records = 0;
    for (const Range& r : ranges) {
      const format::ChangeBuffer& changes = *r.changes;
      records += r.to - r.from;
      for (size_t i = r.from; i < r.to; ++i) {
        const format::ChangeKind k = changes.kind(i);
        const std::string_view key = keyed ? changes.key(i) : changes.payload(i);
        BatchBuilder& b = parts[workers == 1 ? 0 : static_cast<size_t>(WorkerForKey(key, workers))];
        if (!keyed) {
          b.Push(key, k == format::ChangeKind::kDelete ? -1 : 1);
          continue;
        }
        const UpsertOpKind op = k == format::ChangeKind::kInsert   ? UpsertOpKind::kInsert
                                : k == format::ChangeKind::kDelete ? UpsertOpKind::kDelete
                                                                   : UpsertOpKind::kUpdate;
        // Sequence numbers are unique over the hosts, so that two hosts'
        // commands for one key never consolidate into one.
        b.Push(key, EncodeUpsertCommand(upsert_seq_++ * hosts + host, op, changes.payload(i)), 1);
      }
    }
    std::vector<Result<MemBatchPtr>> built(parts.size(), MemBatch::Empty());
    auto finish = [&](size_t w) { built[w] = parts[w].Finish(); };
    if (workers > 1 && records >= 10000) {
      std::vector<std::thread> helpers;
      for (size_t w = 1; w < parts.size(); ++w) helpers.emplace_back(finish, w);
      finish(0);
      for (std::thread& t : helpers) t.join();
    } else {
      for (size_t w = 0; w < parts.size(); ++w) finish(w);
    }
    for (size_t w = 0; w < parts.size(); ++w) {
      if (!built[w].ok()) return built[w].status();
      SLUICE_RETURN_IF_ERROR(
          runtime_->PushToWorker(table, first_worker + static_cast<int>(w), *built[w]));
    }
  }
  SLUICE_RETURN_IF_ERROR(runtime_->Step());
  const uint64_t step = runtime_->steps();
  {
    std::lock_guard<std::mutex> l(mu_);
    step_ = step;
  }
  std::map<std::string, BatchPtr> outputs;
  for (const std::string& name : output_names_) {
    SLUICE_ASSIGN_OR_RETURN(BatchPtr b, runtime_->Output(name));
    if (!b->empty()) outputs[name] = b;
  }
  if (in_txn && !commit) {
    for (auto& [name, b] : outputs) txn_outputs_[name].push_back(b);
    return Status::OK();
  }
  if (commit) {
    for (auto& [name, b] : outputs) txn_outputs_[name].push_back(b);
    outputs.clear();
    for (auto& [name, list] : txn_outputs_) {
      MergeOptions mo;
      mo.storage_dir = config_.storage;
      SLUICE_ASSIGN_OR_RETURN(BatchPtr sum, MergeBatches(list, mo));
      if (!sum->empty()) outputs[name] = sum;
    }
    txn_outputs_.clear();
  }
  for (auto& [name, b] : outputs) {
    auto it = integrals_.find(name);
    if (it != integrals_.end()) SLUICE_RETURN_IF_ERROR(it->second->Insert(b));
  }
  Deliver(step, outputs, token);
  std::lock_guard<std::mutex> l(mu_);
  if (commit) {
    txn_.open = false;
    txn_.commit_requested = false;
    txn_.commit_step = step;
  }
  done_cv_.notify_all();
  return Status::OK();
}

void Controller::Deliver(uint64_t step, const std::map<std::string, BatchPtr>& outputs,
                         uint64_t token) {
  for (auto it = endpoints_.begin(); it != endpoints_.end();) {
    Endpoint& e = **it;
    auto o = outputs.find(e.relation);
    bool ok = true;
    if (o != outputs.end()) {
      connector::OutputChunk chunk;
      chunk.step = step;
      chunk.batches = {o->second};
      ok = e.queue->Put(std::move(chunk));
    }
    // A stream whose client left (or fell behind) is dropped; a connector
    // stays, and its queue only closes when the pipeline stops.
    if (!ok && !e.connector) {
      it = endpoints_.erase(it);
    } else {
      ++it;
    }
  }
  delivered_step_ = step;
  std::lock_guard<std::mutex> l(mu_);
  done_token_ = token;
  completed_.emplace_back(token, step);
  if (completed_.size() > 1000000) completed_.pop_front();
}

void Controller::Fail(Status s) {
  {
    std::lock_guard<std::mutex> l(mu_);
    state_ = PipelineState::kFailed;
    failure_ = s.WithContext("pipeline failed");
    cv_.notify_all();
    space_cv_.notify_all();
    done_cv_.notify_all();
  }
  std::lock_guard<std::mutex> sl(step_mu_);
  for (auto& e : endpoints_) {
    if (!e->connector) e->queue->Close(failure());
  }
}

// ---------------------------------------------------------------- output

Status Controller::AddSnapshot(Endpoint& e, uint64_t step) {
  auto it = integrals_.find(e.relation);
  if (it == integrals_.end()) {
    return Status::InvalidArgument(
        "\"" + e.relation + "\" is not materialized, so it has no snapshot: declare it " +
        (relations_.at(e.relation).is_table ? "WITH (materialized = true)"
                                            : "as a CREATE MATERIALIZED VIEW"));
  }
  connector::OutputChunk chunk;
  chunk.kind = connector::OutputChunk::Kind::kSnapshot;
  chunk.step = step;
  chunk.batches = it->second->Snapshot();
  e.queue->Put(std::move(chunk));
  return Status::OK();
}

Result<Subscription> Controller::Subscribe(const std::string& relation, bool snapshot, bool follow,
                                           bool backpressure, uint64_t max_queued_records) {
  if (relations_.count(relation) == 0) {
    return Status::NotFound("table or view \"" + relation + "\" does not exist");
  }
  std::lock_guard<std::mutex> sl(step_mu_);
  if (state() == PipelineState::kFailed) return failure();
  auto e = std::make_unique<Endpoint>();
  e->id = next_endpoint_id_++;
  e->relation = relation;
  e->transport = "http_output";
  e->queue = std::make_shared<connector::OutputQueue>(max_queued_records, backpressure);
  Subscription sub{e->id, e->queue, delivered_step_};
  if (snapshot) SLUICE_RETURN_IF_ERROR(AddSnapshot(*e, delivered_step_));
  if (!follow) {
    e->queue->Close();
    return sub;
  }
  endpoints_.push_back(std::move(e));
  return sub;
}

void Controller::Unsubscribe(uint64_t id) {
  std::lock_guard<std::mutex> sl(step_mu_);
  for (auto it = endpoints_.begin(); it != endpoints_.end(); ++it) {
    if ((*it)->id == id && !(*it)->connector) {
      (*it)->queue->Close();
      endpoints_.erase(it);
      return;
    }
  }
}

Status Controller::ResetOutput(const std::string& name) {
  std::lock_guard<std::mutex> sl(step_mu_);
  for (auto& e : endpoints_) {
    if (e->name != name) continue;
    connector::OutputChunk reset;
    reset.kind = connector::OutputChunk::Kind::kReset;
    reset.step = delivered_step_;
    e->queue->Put(std::move(reset));
    if (e->send_snapshot) SLUICE_RETURN_IF_ERROR(AddSnapshot(*e, delivered_step_));
    return Status::OK();
  }
  return Status::NotFound("output connector \"" + name + "\" does not exist");
}

Status Controller::SetEndpointPaused(const std::string& name, bool paused) {
  for (Input& in : inputs_) {
    if (in.spec.name == name) {
      if (!in.connector) return Status::InvalidArgument("\"" + name + "\" is served by /ingress");
      std::lock_guard<std::mutex> l(mu_);
      in.connector->stats().paused = paused;
      space_cv_.notify_all();
      return Status::OK();
    }
  }
  std::lock_guard<std::mutex> sl(step_mu_);
  for (auto& e : endpoints_) {
    if (e->name == name) {
      e->connector->stats().paused = paused;
      return Status::OK();
    }
  }
  return Status::NotFound("connector \"" + name + "\" does not exist");
}

Result<std::map<std::string, std::vector<BatchPtr>>> Controller::Snapshots(
    const std::vector<std::string>& relations, uint64_t* step) {
  std::lock_guard<std::mutex> sl(step_mu_);
  std::map<std::string, std::vector<BatchPtr>> out;
  for (const std::string& r : relations) {
    auto it = integrals_.find(r);
    if (it == integrals_.end()) {
      auto rel = relations_.find(r);
      if (rel != relations_.end() && rel->second.materialized && !IsHere(r)) {
        out[r] = {};  // another host holds it
        continue;
      }
      return Status::InvalidArgument("\"" + r + "\" is not materialized");
    }
    out[r] = it->second->Snapshot();
  }
  *step = delivered_step_;
  return out;
}

// ---------------------------------------------------------------- control

void Controller::Pause() {
  std::lock_guard<std::mutex> l(mu_);
  if (state_ == PipelineState::kRunning) state_ = PipelineState::kPaused;
}

void Controller::Resume() {
  std::lock_guard<std::mutex> l(mu_);
  if (state_ == PipelineState::kPaused) state_ = PipelineState::kRunning;
  cv_.notify_all();
  space_cv_.notify_all();
}

PipelineState Controller::state() const {
  std::lock_guard<std::mutex> l(mu_);
  return state_;
}

Status Controller::failure() const {
  std::lock_guard<std::mutex> l(mu_);
  return failure_;
}

uint64_t Controller::step_usecs() const {
  std::lock_guard<std::mutex> l(mu_);
  return step_usecs_;
}

uint64_t Controller::step() const {
  std::lock_guard<std::mutex> l(mu_);
  return step_;
}

bool Controller::in_transaction() const {
  std::lock_guard<std::mutex> l(mu_);
  return txn_.open;
}

Status Controller::StartTransaction() {
  std::lock_guard<std::mutex> l(mu_);
  return pipeline::StartTransaction(state_, failure_, &txn_);
}

Result<uint64_t> Controller::CommitTransaction() {
  std::unique_lock<std::mutex> l(mu_);
  return pipeline::CommitTransaction(l, state_, failure_, &txn_, cv_, done_cv_);
}

// ---------------------------------------------------------------- stats

PipelineStatus Controller::CurrentStatus() const {
  PipelineStatus st;
  std::lock_guard<std::mutex> l(mu_);
  st.state = StateName(state_);
  st.pipeline_id = pipeline_id_;
  st.step = step_;
  st.transaction = txn_.open;
  if (!failure_.ok()) st.error = failure_.ToString();
  st.program_changes = program_changes_;
  return st;
}

PipelineStats Controller::Stats() const {
  PipelineStats st;
  GlobalStats& g = st.global;
  {
    std::lock_guard<std::mutex> l(mu_);
    g.state = StateName(state_);
    g.step = step_;
    g.processed_records = processed_records_;
    g.step_msecs = step_usecs_ / 1000;
    g.buffered_records = buffered_;
    g.transaction = txn_.open;
  }
  g.uptime_msecs = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started_).count());
  g.rss_bytes = ResidentBytes();
  g.storage_bytes = DirectoryBytes(config_.storage);
  const SpillFailures spill = GetSpillFailures();
  g.spill_failures = spill.count;
  if (!spill.last.empty()) g.last_spill_failure = spill.last;
  if (budget_) {
    g.memory_budget_bytes = budget_->limit();
    g.spine_memory_bytes = budget_->used();
  }
  g.workers = static_cast<uint64_t>(config_.workers);
  g.eval_errors = errors_.count();
  g.eval_error_samples = errors_.samples();
  auto health = [](const connector::ConnectorStats& s) {
    return s.last_error().empty() ? "Healthy" : "Unhealthy";
  };
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const auto& [table, in] : ingress_) {
      InputStats c;
      c.name = table + ".http";
      c.table = table;
      c.transport = "http_input";
      c.records = in.records;
      c.bytes = in.bytes;
      c.requests = in.requests;
      c.parse_errors = in.parse_errors;
      c.health = "Healthy";
      st.inputs.push_back(std::move(c));
    }
    for (const Input& in : inputs_) {
      if (!in.connector) continue;
      const connector::ConnectorStats& s = in.connector->stats();
      InputStats c;
      c.name = in.spec.name;
      c.table = in.spec.relation;
      c.transport = in.spec.transport;
      c.records = s.records.load();
      c.bytes = s.bytes.load();
      c.parse_errors = s.parse_errors.load();
      c.transport_errors = s.transport_errors.load();
      c.queued_records = in.queued;
      c.end_of_input = s.end_of_input.load();
      c.paused = s.paused.load();
      c.health = health(s);
      if (!s.last_error().empty()) c.last_error = s.last_error();
      st.inputs.push_back(std::move(c));
    }
  }
  {
    std::lock_guard<std::mutex> sl(step_mu_);
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
        c.health = health(s);
        if (!s.last_error().empty()) c.last_error = s.last_error();
      }
      st.outputs.push_back(std::move(c));
    }
  }
  return st;
}

}  // namespace sluice::pipeline
