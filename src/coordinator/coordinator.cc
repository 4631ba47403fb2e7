#include "coordinator/coordinator.h"

#include <ctime>
#include <filesystem>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/failpoint.h"
#include "pipeline/adhoc.h"
#include "pipeline/journal.h"
#include "pipeline/message_json.h"
#include "pipeline/wire.h"
#include "storage/file.h"

namespace sluice::coordinator {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// A query reads each host's part of a relation in pieces of about this
// many bytes.
constexpr uint64_t kScanPieceBytes = 4 << 20;
using pipeline::PipelineState;
namespace co = pipeline::coordination;

// The coordinator's record (`<storage>/coordinator.json`).
struct Record {
  std::string pipeline_id;
  uint64_t hosts = 0;
  std::map<std::string, int> output_host;
  std::map<std::string, int> input_host;
  struct Checkpoint {
    uint64_t sequence = 0;
    uint64_t step = 0;
    template <class V>
    void Fields(V& v) {
      v("sequence", sequence);
      v("step", step);
    }
  };
  std::vector<Checkpoint> checkpoints;
  // Where the integrals are ("one_host", "all_hosts"); a record written
  // before there was a choice has none, and means one_host.
  std::optional<std::string> layout;
  template <class V>
  void Fields(V& v) {
    v("layout", layout);
    v("pipeline_id", pipeline_id);
    v("hosts", hosts);
    v("output_host", output_host);
    v("input_host", input_host);
    v("checkpoints", checkpoints);
  }
};

}  // namespace

Assignment AssignHosts(const pipeline::ProgramInfo& program, int hosts, const Assignment& keep) {
  Assignment out;
  std::vector<uint64_t> load(static_cast<size_t>(hosts), 0), input_load = load;
  std::map<std::string, uint64_t> cost;
  for (const std::string& r : program.output_names) {
    cost[r] = 1 + (program.relations.at(r).materialized ? 2 : 0);
  }
  for (const connector::ConnectorSpec& c : program.connectors) {
    if (!c.input) cost[c.relation] += 2;
  }
  auto place = [&](std::vector<std::pair<uint64_t, std::string>> items,
                   const std::map<std::string, int>& kept, std::vector<uint64_t>& loads,
                   std::map<std::string, int>& into) {
    // Kept placements count first, so that the new ones balance around them.
    for (const auto& [c, name] : items) {
      auto k = kept.find(name);
      if (k != kept.end() && k->second < hosts) {
        into[name] = k->second;
        loads[static_cast<size_t>(k->second)] += c;
      }
    }
    std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (const auto& [c, name] : items) {
      if (into.count(name) != 0) continue;
      const size_t h =
          static_cast<size_t>(std::min_element(loads.begin(), loads.end()) - loads.begin());
      into[name] = static_cast<int>(h);
      loads[h] += c;
    }
  };
  std::vector<std::pair<uint64_t, std::string>> outputs, inputs;
  for (const auto& [name, c] : cost) outputs.emplace_back(c, name);
  for (const connector::ConnectorSpec& c : program.connectors) {
    if (c.input) inputs.emplace_back(1, c.name);
  }
  place(outputs, keep.output_host, load, out.output_host);
  place(inputs, keep.input_host, input_load, out.input_host);
  return out;
}

// An egress stream from the host that holds the relation: its frames are
// read on a thread of its own into the queue that the API's stream reads.
struct Coordinator::Egress {
  std::shared_ptr<connector::OutputQueue> queue;
  std::atomic<bool> cancelled{false};
};

Coordinator::Coordinator(sql::Program program, pipeline::PipelineConfig config,
                         std::string base_dir, CoordinatorOptions options)
    : program_(std::move(program)),
      config_(std::move(config)),
      base_dir_(std::move(base_dir)),
      options_(std::move(options)),
      reads_clock_(sql::ReadsStepClock(program_)),
      waterlines_(std::make_unique<pipeline::Waterlines>(program_, /*agreed=*/true)) {
  // The clock moves: a step once a resolution, input or not.
  if (reads_clock_) {
    loop_.set_step_interval(std::chrono::microseconds(config_.clock_resolution_usecs));
  }
}

Result<std::unique_ptr<Coordinator>> Coordinator::Start(std::string_view program_text,
                                                        pipeline::PipelineConfig config,
                                                        std::string base_dir,
                                                        CoordinatorOptions options) {
  SLUICE_ASSIGN_OR_RETURN(sql::Program program, sql::CompileProgram(program_text));
  std::unique_ptr<Coordinator> c(
      new Coordinator(std::move(program), std::move(config), std::move(base_dir), options));
  Status s = c->Init(program_text);
  if (!s.ok()) {
    c->Stop();
    return s;
  }
  return c;
}

Status Coordinator::Init(std::string_view program_text) {
  if (options_.hosts.empty()) return Status::InvalidArgument("a coordinator needs hosts");
  for (size_t h = 0; h < options_.hosts.size(); ++h) {
    HostAddress a = options_.hosts[h];
    a.index = static_cast<int>(h);
    hosts_.emplace_back(a, options_.secret, options_.connect_timeout, options_.tls);
  }
  SLUICE_ASSIGN_OR_RETURN(info_, pipeline::DescribeProgram(program_, base_dir_));

  if (!config_.fault_tolerance.empty()) {
    Json ft = Json::parse(config_.fault_tolerance);
    if (ft.value("model", std::string("none")) != "none") {
      if (config_.storage.empty()) {
        return Status::InvalidArgument("fault_tolerance needs storage: give --storage DIR");
      }
      loop_.set_checkpoint_interval(std::chrono::seconds(ft.value("checkpoint_interval_secs", 60)));
      exactly_once_ = ft.value("model", std::string()) == "exactly_once";
    }
  }
  // The record of the last complete checkpoint: its assignment stays.
  SLUICE_RETURN_IF_ERROR(LoadRecord());
  SLUICE_ASSIGN_OR_RETURN(sequences_,
                          pipeline::OpenSequences(program_.catalog, config_.storage, ""));
  on_demand_ = pipeline::GatheredOnDemand(info_, layout_ == "all_hosts");
  // Distributed connectors: what they need, and which transports run on
  // one host whatever they ask.
  for (const connector::ConnectorSpec& c : info_.connectors) {
    if (c.input || !c.distributed) continue;
    const std::string what = "connector \"" + c.name + "\" (of " + c.relation + ")";
    if (!connector::SupportsDistributed(c.transport)) {
      std::fprintf(stderr,
                   "sluice coordinator: warning: %s: \"distributed\" is for null_output and "
                   "delta_table_output; this %s connector runs on one host\n",
                   what.c_str(), c.transport.c_str());
      continue;
    }
    if (c.send_snapshot && layout_ != "all_hosts") {
      return Status::InvalidArgument(
          what +
          ": send_snapshot on a distributed connector needs each host to hold a share "
          "of the view: set dev_tweaks.view_integrals to all_hosts (with one_host, the "
          "rows that change between the steps at which the hosts start their parts "
          "would arrive twice or never)");
    }
    if (c.transport == "delta_table_output" &&
        Json::parse(c.transport_config).value("mode", std::string("append")) != "append") {
      return Status::InvalidArgument(what +
                                     ": a distributed Delta sink takes mode append (every "
                                     "host's part adds to one table)");
    }
  }
  // Every host must be up (and not yet activated).
  std::vector<std::string> exchanges(hosts_.size());
  const auto deadline = Clock::now() + options_.start_timeout;
  for (size_t h = 0; h < hosts_.size(); ++h) {
    for (;;) {
      auto hello = hosts_[h].Call(co::HelloRequest{}, options_.request_timeout);
      if (hello.ok()) {
        if (hello->state != "Coordination") {
          return Status::InvalidArgument(hosts_[h].name() + " is already running a pipeline (" +
                                         hello->state +
                                         "): restart it before starting a new coordinator");
        }
        exchanges[h] = hello->exchange;
        break;
      }
      // 401 and other refusals are final; a host still starting is not.
      if (hello.status().code() != StatusCode::kIOError ||
          hello.status().message().find("did not answer") == std::string::npos ||
          Clock::now() > deadline) {
        return hello.status().WithContext("starting the coordinator");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  assignment_ = AssignHosts(info_, static_cast<int>(hosts_.size()), assignment_);
  uint64_t restore_seq = 0, restore_step = 0;
  {
    MutexLock l(&mu_);
    if (!checkpoints_.empty()) {
      restore_seq = checkpoints_.back().first;
      restore_step = checkpoints_.back().second;
    }
  }
  loop_.Restored(restore_seq, restore_step);
  loop_.set_failure_advice([this] { return ResumeAdvice(); });
  {
    MutexLock l(&poll_mu_);
    due_.assign(hosts_.size(), false);
    buffered_.assign(hosts_.size(), 0);
    polled_step_.assign(hosts_.size(), 0);
  }
  program_text_ = std::string(program_text);
  exchanges_ = std::move(exchanges);
  if (relayout_from_.empty()) return Activate(restore_seq, restore_step);
  // The integrals move to another layout: a rebuild, which the default
  // policy lets wait for POST /approve.
  pipeline::ProgramChanges report;
  report.checkpoint_step = restore_step;
  const std::string why = "layout " + relayout_from_ + " -> " + layout_;
  for (const auto& [name, rel] : info_.relations) {
    if (!rel.materialized) continue;
    relayout_.push_back(name);
    report.relations.push_back({name, rel.is_table ? "table" : "view", "relayout", why});
  }
  std::fprintf(stderr, "sluice coordinator: the integrals of %zu relations move (%s)\n",
               relayout_.size(), why.c_str());
  const bool wait = config_.bootstrap_policy == "await_approval";
  report.status = wait ? "awaiting_approval" : "approved";
  {
    MutexLock l(&mu_);
    program_changes_ = report;
  }
  if (!wait) return Activate(restore_seq, restore_step);
  std::fprintf(stderr, "sluice coordinator: awaiting approval to move them (POST /approve)\n");
  loop_.Reset(PipelineState::kAwaitingApproval, restore_step);
  restore_ = {restore_seq, restore_step};
  return Status::OK();
}

Status Coordinator::Activate(uint64_t restore_seq, uint64_t restore_step) {
  co::ActivateRequest a;
  a.addresses = exchanges_;
  a.workers = config_.workers;
  a.program = program_text_;
  a.base_dir = base_dir_;
  a.config = config_.ToJson();
  a.output_host = assignment_.output_host;
  a.restore_seq = restore_seq;
  a.pipeline_id = pipeline_id_;
  a.layout = layout_;
  if (!relayout_.empty()) a.relayout = relayout_;
  for (const HostClient& h : hosts_) a.apis.push_back(h.address().text());
  // Activated all at once: each joins the exchange, which waits for all.
  // exactly_once: each answers with the steps after the checkpoint that its
  // journal holds.
  struct Journaled {
    std::mutex mu;
    std::map<uint64_t, co::JournaledStep> steps;
    uint64_t newest_file = 0;                         // the newest journal file on any host
    std::vector<uint64_t> relayout_leases;            // by host
    std::vector<std::map<std::string, int64_t>> maxima;  // each host's LATENESS maxima
  };
  auto journaled = std::make_shared<Journaled>();
  journaled->relayout_leases.assign(hosts_.size(), 0);
  const std::map<std::string, int> input_host = assignment_.input_host;
  const auto activation_timeout = options_.step_timeout;
  // Each call owns what it touches: OnEveryHost returns at the first error,
  // and the other calls may end after this coordinator is gone.
  auto activate = [a, input_host, restore_step, activation_timeout,
                   journaled](const HostClient& h) -> Status {
    co::ActivateRequest mine = a;
    mine.host = h.address().index;
    for (const auto& [name, host] : input_host) {
      if (host == h.address().index) mine.inputs.push_back(name);
    }
    SLUICE_ASSIGN_OR_RETURN(co::ActivateAnswer st, h.Call(mine, activation_timeout));
    if (st.step != restore_step) {
      return Status::Corruption(h.name() + " opened step " + std::to_string(st.step) +
                                ", not step " + std::to_string(restore_step));
    }
    std::lock_guard<std::mutex> l(journaled->mu);
    journaled->maxima.push_back(std::move(st.maxima));
    journaled->newest_file = std::max(journaled->newest_file, st.newest_journal);
    journaled->relayout_leases[static_cast<size_t>(h.address().index)] =
        st.relayout_lease.value_or(0);
    for (const co::JournaledStep& j : st.journal_steps) {
      // Every host that ran a step journaled it with the same clock.
      co::JournaledStep& known = journaled->steps[j.step];
      known = {j.step, j.commit, j.in_transaction, j.clock != 0 ? j.clock : known.clock};
    }
    return Status::OK();
  };
  SLUICE_RETURN_IF_ERROR(OnEveryHost(activate).WithContext("activating the hosts"));
  // The first step runs with the largest LATENESS values over every host's
  // checkpoint.
  {
    std::lock_guard<std::mutex> l(journaled->mu);
    for (const auto& m : journaled->maxima) waterlines_->Agree(m);
  }
  if (!relayout_.empty()) {
    SLUICE_RETURN_IF_ERROR(Relayout(journaled->relayout_leases));
  }
  if (restore_seq == 0 && !config_.storage.empty()) {
    std::fprintf(stderr, "sluice coordinator: no checkpoint in %s: starting empty\n",
                 config_.storage.c_str());
  }
  if (restore_seq > 0) {
    std::fprintf(stderr,
                 "sluice coordinator: resumed every host from checkpoint %llu at step %llu\n",
                 static_cast<unsigned long long>(restore_seq),
                 static_cast<unsigned long long>(restore_step));
  }
  // Every step that a host journaled after the checkpoint runs again on
  // every host, each taking what its journal says it took (a host that never
  // got to a step takes nothing), so that they are the same steps as before.
  std::map<uint64_t, co::JournaledStep> replay;
  {
    std::lock_guard<std::mutex> l(journaled->mu);
    replay = journaled->steps;
    // A checkpoint that some host began after the one restored from (and
    // that never completed) left a journal file of its number, which holds
    // input from before the restart: the next checkpoint gets a number past
    // it, so that no journal file is ever reused.
    loop_.NumberCheckpointsAfter(journaled->newest_file);
  }
  uint64_t expect = restore_step + 1;
  for (const auto& [step, journaled_step] : replay) {
    if (step != expect) {
      return Status::Corruption("the hosts' input journals skip from step " +
                                std::to_string(expect - 1) + " to step " + std::to_string(step));
    }
    const pipeline::StepLoop::StepPlan plan{step, journaled_step.commit,
                                            journaled_step.in_transaction, journaled_step.clock};
    SLUICE_RETURN_IF_ERROR(loop_.BeginStep(plan));
    const auto began = Clock::now();
    Status s = RunOnHosts(plan, /*replay=*/true);
    loop_.EndStep(plan, s, Clock::now() - began);
    SLUICE_RETURN_IF_ERROR(s.WithContext("replaying the input journals"));
    ++expect;
  }
  if (!replay.empty()) {
    std::fprintf(stderr,
                 "sluice coordinator: replayed steps %llu to %llu from the hosts' input "
                 "journals\n",
                 static_cast<unsigned long long>(replay.begin()->first),
                 static_cast<unsigned long long>(replay.rbegin()->first));
  }
  SLUICE_RETURN_IF_ERROR(SaveRecord());
  if (!relayout_.empty()) {
    loop_.Approved();
    MutexLock l(&mu_);
    program_changes_->status = "applied";
    program_changes_->step = loop_.step();
  }
  // The steps before now (restored or replayed) need no waiting for.
  ignored_deletes_.Record(loop_.step(), {});
  for (size_t h = 0; h < hosts_.size(); ++h) pollers_.emplace_back([this, h] { Poll(h); });
  loop_.set_step_at_start(true);
  loop_thread_ = std::thread([this] { loop_.Run(this); });
  // The first checkpoint in the new layout, so that a restart need not
  // move the integrals again.
  if (!relayout_.empty()) SLUICE_RETURN_IF_ERROR(loop_.RequestCheckpoint().status());
  return Status::OK();
}

// Every host reads every host's old part of the moved integrals and keeps
// the rows it owns in the new layout; only then do the hosts start their
// output connectors (whose snapshots read every host).
Status Coordinator::Relayout(const std::vector<uint64_t>& leases) {
  const auto began = Clock::now();
  const co::RelayoutRequest request{relayout_, leases};
  const auto timeout = options_.step_timeout;
  auto rows = std::make_shared<std::atomic<uint64_t>>(0);
  SLUICE_RETURN_IF_ERROR(OnEveryHost([request, timeout, rows](const HostClient& h) -> Status {
                           SLUICE_ASSIGN_OR_RETURN(co::RelayoutAnswer a, h.Call(request, timeout));
                           *rows += a.rows;
                           return Status::OK();
                         }).WithContext("moving the integrals to layout " + layout_));
  const auto request_timeout = options_.request_timeout;
  SLUICE_RETURN_IF_ERROR(OnEveryHost([request_timeout](const HostClient& h) {
                           return h.Call(co::LaunchRequest{}, request_timeout).status();
                         }).WithContext("starting the output connectors"));
  std::fprintf(stderr,
               "sluice coordinator: moved %zu integrals (%llu rows) to layout %s in %.1f s; a "
               "checkpoint follows\n",
               relayout_.size(), static_cast<unsigned long long>(rows->load()), layout_.c_str(),
               std::chrono::duration<double>(Clock::now() - began).count());
  return Status::OK();
}

// `<storage>/coordinator.json`: the pipeline's id, the output assignment and
// the complete checkpoints (sequence, step), written atomically.
Status Coordinator::LoadRecord() {
  pipeline_id_ = pipeline::NewPipelineId();
  // A new pipeline spreads its integrals unless told otherwise.
  layout_ = config_.view_integrals == "auto" ? "all_hosts" : config_.view_integrals;
  {
    MutexLock l(&mu_);
    recorded_layout_ = layout_;
  }
  if (config_.storage.empty()) return Status::OK();
  std::error_code ec;
  std::filesystem::create_directories(config_.storage, ec);
  if (ec) {
    return Status::IOError("cannot create the storage directory " + config_.storage + ": " +
                           ec.message());
  }
  const std::string path = config_.storage + "/coordinator.json";
  std::ifstream in(path);
  if (!in) return Status::OK();
  std::stringstream ss;
  ss << in.rdbuf();
  auto record = pipeline::MessageFromText<Record>(ss.str());
  if (!record.ok()) {
    return Status::Corruption(path + " is damaged: it is not the coordinator's record (" +
                              record.status().message() + ")");
  }
  pipeline_id_ = record->pipeline_id;
  if (!record->checkpoints.empty()) {
    // A restart keeps the layout its checkpoints were taken in.
    const std::string recorded = record->layout.value_or("one_host");
    if (config_.view_integrals != "auto" && config_.view_integrals != recorded) {
      relayout_from_ = recorded;  // moved at activation (Init)
      layout_ = config_.view_integrals;
    } else {
      layout_ = recorded;
    }
    {
      MutexLock l(&mu_);
      recorded_layout_ = recorded;
    }
    // Only a checkpoint's assignment binds: without one, nothing has state.
    assignment_.output_host = record->output_host;
    assignment_.input_host = record->input_host;
    if (record->hosts != hosts_.size()) {
      return Status::InvalidArgument(
          "the pipeline's checkpoints were taken on " + std::to_string(record->hosts) +
          " hosts; it cannot restart on " + std::to_string(hosts_.size()) +
          " (start with empty storage to change the number of hosts)");
    }
    MutexLock l(&mu_);
    for (const Record::Checkpoint& c : record->checkpoints) {
      checkpoints_.emplace_back(c.sequence, c.step);
    }
  }
  return Status::OK();
}

Status Coordinator::SaveRecord() {
  if (config_.storage.empty()) return Status::OK();
  Record r;
  r.pipeline_id = pipeline_id_;
  r.hosts = hosts_.size();
  r.output_host = assignment_.output_host;
  r.input_host = assignment_.input_host;
  {
    MutexLock l(&mu_);
    // The layout of the checkpoints listed: the old one until the first
    // checkpoint after a relayout.
    r.layout = recorded_layout_;
    for (const auto& [seq, step] : checkpoints_) r.checkpoints.push_back({seq, step});
  }
  // Synced: once it names checkpoint k, the hosts drop what came before k.
  return ReplaceFile(config_.storage + "/coordinator.json",
                     pipeline::MessageToJson(r).dump(1) + "\n");
}

Coordinator::~Coordinator() { Stop(); }

void Coordinator::Stop() {
  // With storage, a clean stop takes a checkpoint, so that the next start
  // has everything this run processed (and replays nothing).
  if (!config_.storage.empty() && loop_thread_.joinable() &&
      (state() == PipelineState::kRunning || state() == PipelineState::kPaused)) {
    auto seq = RequestCheckpoint();
    Status s = seq.ok() ? loop_.WaitCheckpoint(*seq, std::chrono::seconds(60)) : seq.status();
    if (s.ok()) {
      std::fprintf(stderr, "sluice coordinator: checkpoint %llu taken at stop, at step %llu\n",
                   static_cast<unsigned long long>(*seq), static_cast<unsigned long long>(step()));
    } else {
      std::fprintf(stderr, "sluice coordinator: no checkpoint at stop: %s\n", s.ToString().c_str());
    }
  }
  loop_.SetStopping();
  if (loop_thread_.joinable()) loop_thread_.join();
  for (std::thread& t : pollers_) {
    if (t.joinable()) t.join();
  }
  pollers_.clear();
  {
    MutexLock l(&mu_);
    for (auto& [id, e] : egress_) {
      e->cancelled = true;
      e->queue->Close(Status::Aborted("the pipeline is stopping"));
    }
    egress_.clear();
  }
  for (const HostClient& h : hosts_) {
    (void)h.Call(co::StopRequest{}, std::chrono::seconds(5));
    h.CloseIdle();
  }
}

Status Coordinator::OnEveryHost(const std::function<Status(const HostClient&)>& fn) const {
  struct Shared {
    std::mutex mu;
    std::condition_variable cv;
    size_t done = 0;
    Status first;
  };
  auto shared = std::make_shared<Shared>();
  for (const HostClient& h : hosts_) {
    // Detached: a host that never answers must not hold the others' result
    // (its call still ends at its timeout). `fn` and `h` outlive the wait
    // only as copies.
    std::thread([shared, fn, h] {
      Status s = fn(h);
      std::lock_guard<std::mutex> l(shared->mu);
      ++shared->done;
      if (!s.ok() && shared->first.ok()) shared->first = s;
      shared->cv.notify_all();
    }).detach();
  }
  std::unique_lock<std::mutex> l(shared->mu);
  shared->cv.wait(l, [&] { return shared->done == hosts_.size() || !shared->first.ok(); });
  return shared->first;
}

// ---------------------------------------------------------------- steps

void Coordinator::Progress() {
  pipeline::PipelineStats now = Stats();
  const auto t = Clock::now();
  std::fprintf(stderr, "sluice coordinator: %s\n",
               pipeline::ProgressLine(progress_stats_, now,
                                      std::chrono::duration<double>(t - progress_at_).count())
                   .c_str());
  progress_stats_ = std::move(now);
  progress_at_ = t;
}

// How to resume a failed pipeline, for the end of its failure's message.
std::string Coordinator::ResumeAdvice() const {
  if (config_.storage.empty()) return "restart the pipeline; without storage it starts empty";
  MutexLock l(&mu_);
  if (checkpoints_.empty()) {
    return "restart the pipeline (the coordinator and every host); it has no checkpoint yet, so "
           "it starts empty";
  }
  return "restart the pipeline (the coordinator and every host); it resumes from checkpoint " +
         std::to_string(checkpoints_.back().first) + ", at step " +
         std::to_string(checkpoints_.back().second) +
         (exactly_once_ ? ", and replays the input after it" : "");
}

void Coordinator::Poll(size_t h) {
  const HostClient& host = hosts_[h];
  for (;;) {
    // While a step runs, or after this host said its input is due and
    // before a step took it, asking again would only say the same: wait
    // for the step (or half a second: every poll is also a sign of life
    // to the host).
    uint64_t min_step = 0;
    {
      MutexLock l(&poll_mu_);
      if (due_[h]) min_step = polled_step_[h] + 1;
    }
    loop_.WaitForBoundary(min_step, std::chrono::milliseconds(500));
    if (loop_.stopping()) return;
    auto r = host.Call(co::ReadyRequest{500}, options_.request_timeout);
    if (!r.ok()) {
      // A malformed answer names the host itself; silence is a lost host.
      Fail(r.status().code() == StatusCode::kCorruption
               ? r.status()
               : Status::IOError("lost " + host.name() + ": " + r.status().message()));
      return;
    }
    if (r->state == "Failed") {
      Fail(Status::IOError(host.name() + " failed: " + r->error.value_or("?")));
      return;
    }
    {
      MutexLock l(&poll_mu_);
      due_[h] = r->due;
      buffered_[h] = r->buffered;
      polled_step_[h] = r->step;
    }
    loop_.Wake();
  }
}

pipeline::StepLoop::Clock::time_point Coordinator::InputDue(uint64_t last_step) {
  // Input is due on a host (by its buffering delay), or there is
  // min_batch_size_records of it over all hosts. Answers from before the
  // last step describe queues that step emptied.
  MutexLock l(&poll_mu_);
  bool due = false;
  uint64_t buffered = 0;
  for (size_t h = 0; h < hosts_.size(); ++h) {
    if (polled_step_[h] < last_step) continue;
    due = due || due_[h];
    buffered += buffered_[h];
  }
  if (due || (buffered > 0 && buffered >= config_.min_batch_size_records)) {
    return pipeline::StepLoop::Clock::time_point::min();
  }
  return pipeline::StepLoop::Clock::time_point::max();
}

Status Coordinator::RunStep(const pipeline::StepLoop::StepPlan& plan) {
  return RunOnHosts(plan, /*replay=*/false);
}

Status Coordinator::RunOnHosts(const pipeline::StepLoop::StepPlan& plan, bool replay) {
  MutexLock sl(&step_mu_);
  co::StepRequest request{plan.step, plan.commit, plan.in_transaction, replay};
  request.maxima = waterlines_->agreed();
  if (reads_clock_) {
    // One step clock for every host, read here as a host's controller
    // reads it on one host: as recorded, else the wall clock; never back.
    clock_.Advance(plan.clock != 0 ? plan.clock : config_.StepClockNow());
    request.clock = clock_.now();
  }
  const auto timeout = options_.step_timeout;
  // The hosts' answers, owned by the calls: OnEveryHost returns at the first
  // error while the others may still answer.
  struct Answers {
    Mutex mu;
    std::vector<std::map<std::string, int64_t>> maxima GUARDED_BY(mu);
    std::map<std::string, uint64_t> ignored GUARDED_BY(mu);
  };
  auto answers = std::make_shared<Answers>();
  SLUICE_RETURN_IF_ERROR(OnEveryHost([request, timeout, answers](const HostClient& h) -> Status {
                           SLUICE_ASSIGN_OR_RETURN(co::StepAnswer a, h.Call(request, timeout));
                           MutexLock l(&answers->mu);
                           answers->maxima.push_back(std::move(a.maxima));
                           for (const auto& [t, n] : a.ignored_deletes) answers->ignored[t] += n;
                           return Status::OK();
                         }).WithContext("step " + std::to_string(plan.step)));
  MutexLock l(&answers->mu);
  // The next step runs with the largest over every host.
  for (const auto& m : answers->maxima) waterlines_->Agree(m);
  ignored_deletes_.Record(plan.step, answers->ignored);
  return Status::OK();
}

Status Coordinator::TakeCheckpoint(uint64_t seq) {
  MutexLock sl(&step_mu_);
  const co::CheckpointRequest request{seq};
  const auto timeout = options_.step_timeout;
  SLUICE_RETURN_IF_ERROR(OnEveryHost([request, timeout](const HostClient& h) {
                           return h.Call(request, timeout).status();
                         }).WithContext("checkpoint " + std::to_string(seq)));
  Failpoint("coordinator_checkpoint_parts_written");
  // The sequences as they are, so that a restart continues them exactly.
  SLUICE_RETURN_IF_ERROR(sequences_->Flush());
  // Every host wrote its part: the checkpoint counts from now on.
  {
    MutexLock l(&mu_);
    checkpoints_.emplace_back(seq, loop_.step());
    while (checkpoints_.size() > 2) checkpoints_.erase(checkpoints_.begin());
    recorded_layout_ = layout_;
  }
  SLUICE_RETURN_IF_ERROR(SaveRecord());
  // Now the hosts may drop older parts and journal files (a host that
  // misses this keeps them until the next checkpoint completes).
  const co::CheckpointCompleteRequest done{seq};
  const auto request_timeout = options_.request_timeout;
  Status s = OnEveryHost([done, request_timeout](const HostClient& h) {
    return h.Call(done, request_timeout).status();
  });
  if (!s.ok()) {
    std::fprintf(stderr, "sluice coordinator: checkpoint %llu: %s\n",
                 static_cast<unsigned long long>(seq), s.ToString().c_str());
  }
  return Status::OK();
}

// ---------------------------------------------------------------- input

const pipeline::RelationInfo* Coordinator::FindRelation(const std::string& name) const {
  auto it = info_.relations.find(name);
  return it == info_.relations.end() ? nullptr : &it->second;
}

Result<uint64_t> Coordinator::Ingest(const std::string& table, format::ChangeBuffer changes,
                                     bool force, uint64_t bytes) {
  if (state() == PipelineState::kFailed) return loop_.failure();
  if (state() == PipelineState::kStopping) return Status::Aborted("the pipeline is stopping");
  // Every request for a table goes to one host (its stream's), which queues
  // them in the order they came: a later request's change to a key wins
  // over an earlier one's, as on one host (requests on two hosts taken by
  // one step would have no order). The exchange takes each row to its owner.
  auto host = assignment_.output_host.find(table);
  if (host == assignment_.output_host.end()) {
    return Status::NotFound("table \"" + table + "\" does not exist");
  }
  const uint64_t hosts = hosts_.size();
  const uint64_t h = static_cast<uint64_t>(host->second);
  co::IngestRequest request;
  request.table = table;
  request.force = force;
  request.bytes = bytes;
  request.changes = std::make_shared<const format::ChangeBuffer>(std::move(changes));
  SLUICE_ASSIGN_OR_RETURN(co::IngestAnswer r, hosts_[h].Call(request, options_.step_timeout));
  return r.token * hosts + h;
}

void Coordinator::CountIngressErrors(const std::string& table, uint64_t errors) {
  auto host = assignment_.output_host.find(table);
  if (host == assignment_.output_host.end()) return;
  const HostClient& h = hosts_[static_cast<size_t>(host->second)];
  (void)h.Call(co::IngressErrorsRequest{table, errors}, options_.request_timeout);
}

Result<pipeline::Completion> Coordinator::CompletionOf(uint64_t token) const {
  const uint64_t hosts = hosts_.size();
  if (token < hosts) return Status::NotFound("unknown token " + std::to_string(token));
  const HostClient& h = hosts_[token % hosts];
  auto r = h.Call(co::CompletionRequest{token / hosts}, options_.request_timeout);
  if (!r.ok()) {
    if (r.status().code() == StatusCode::kNotFound) {
      return Status::NotFound("unknown token " + std::to_string(token));
    }
    return r.status();
  }
  pipeline::Completion c;
  c.complete = r->complete;
  c.durable = r->durable;
  c.step = r->step;
  c.lost = r->lost.value_or(false);
  c.from_step = r->from_step;
  if (c.complete) {
    ignored_deletes_.WaitRecorded(c.step, std::chrono::seconds(5));
    c.ignored_deletes = ignored_deletes_.Sum(c.from_step, c.step);
  }
  return c;
}

// ---------------------------------------------------------------- output

Result<pipeline::Subscription> Coordinator::Subscribe(const std::string& relation, bool snapshot,
                                                      bool follow, bool backpressure,
                                                      uint64_t max_queued_records) {
  if (info_.relations.count(relation) == 0) {
    return Status::NotFound("table or view \"" + relation + "\" does not exist");
  }
  if (state() == PipelineState::kFailed) return loop_.failure();
  const HostClient host = hosts_[static_cast<size_t>(assignment_.output_host.at(relation))];
  // A relation gathered on demand is gathered from the next step on, on
  // every host, before its stream starts; no step runs in between.
  MutexLock sl(&step_mu_);
  if (on_demand_.count(relation) != 0) {
    const auto timeout = options_.request_timeout;
    const co::FollowRequest follow_request{relation};
    SLUICE_RETURN_IF_ERROR(OnEveryHost([follow_request, timeout](const HostClient& h) {
      return h.Call(follow_request, timeout).status();
    }));
  }
  sl.Unlock();
  auto e = std::make_shared<Egress>();
  e->queue = std::make_shared<connector::OutputQueue>(max_queued_records, backpressure);
  const co::EgressRequest request{relation, snapshot, follow, backpressure, max_queued_records};
  // The header (the snapshot's step) comes first; the rest on the thread.
  auto header = std::make_shared<std::promise<Result<uint64_t>>>();
  auto got = header->get_future();
  const auto timeout = options_.request_timeout;
  std::thread([e, host, request, header, timeout] {
    pipeline::FrameReader frames;
    bool have_header = false;
    bool ended = false;
    Status error;
    Status s = host.Stream(request, timeout, [&](const char* data, size_t n) {
      if (e->cancelled) return false;
      frames.Append(std::string_view(data, n));
      for (;;) {
        auto t = frames.Next();
        if (!t.ok()) {
          error = t.status();
          return false;
        }
        switch (*t) {
          case pipeline::FrameReader::Type::kNone:
            return true;
          case pipeline::FrameReader::Type::kHeader:
            have_header = true;
            header->set_value(frames.step());
            break;
          case pipeline::FrameReader::Type::kHeartbeat:
            break;
          case pipeline::FrameReader::Type::kChunk:
            if (!e->queue->Put(std::move(frames.chunk()))) return false;
            break;
          case pipeline::FrameReader::Type::kEnd:
            ended = true;
            error = frames.end();
            return false;
        }
      }
    });
    if (!have_header) {
      header->set_value(s.ok() ? Status::IOError(host.name() + " ended the stream at once") : s);
      return;
    }
    if (!ended && error.ok()) {
      error = s.ok() ? Status::IOError("lost " + host.name() + ": its stream ended") : s;
    }
    if (e->cancelled) error = Status::OK();
    e->queue->Close(error);
  }).detach();
  if (got.wait_for(timeout + std::chrono::seconds(5)) != std::future_status::ready) {
    e->cancelled = true;
    return Status::IOError(host.name() + " did not start the stream of " + relation + " in time");
  }
  SLUICE_ASSIGN_OR_RETURN(uint64_t snapshot_step, got.get());
  MutexLock l(&mu_);
  pipeline::Subscription sub{next_egress_++, e->queue, snapshot_step};
  if (follow) egress_[sub.id] = e;
  return sub;
}

void Coordinator::Unsubscribe(uint64_t id) {
  MutexLock l(&mu_);
  auto it = egress_.find(id);
  if (it == egress_.end()) return;
  it->second->cancelled = true;
  it->second->queue->Close();
  egress_.erase(it);
}

// A connector's calls go to the host it runs on; a distributed one's to
// every host, between the same two steps.
Status Coordinator::ConnectorCall(const std::string& name, const std::string& action) {
  for (const connector::ConnectorSpec& c : info_.connectors) {
    if (c.name != name) continue;
    if (!c.input && c.distributed && connector::SupportsDistributed(c.transport)) {
      MutexLock sl(&step_mu_);
      const co::ConnectorRequest request{name, action};
      const auto timeout = options_.request_timeout;
      return OnEveryHost(
          [request, timeout](const HostClient& h) { return h.Call(request, timeout).status(); });
    }
    const int host =
        c.input ? assignment_.input_host.at(name) : assignment_.output_host.at(c.relation);
    const HostClient& h = hosts_[static_cast<size_t>(host)];
    return h.Call(co::ConnectorRequest{name, action}, options_.request_timeout).status();
  }
  return Status::NotFound("connector \"" + name + "\" does not exist");
}

Status Coordinator::SetEndpointPaused(const std::string& name, bool paused) {
  return ConnectorCall(name, paused ? "pause" : "start");
}

Status Coordinator::ResetOutput(const std::string& name) { return ConnectorCall(name, "reset"); }

// ---------------------------------------------------------------- control

void Coordinator::Pause() {
  if (state() != PipelineState::kRunning) return;
  loop_.Pause();
  const auto timeout = options_.request_timeout;
  (void)OnEveryHost(
      [timeout](const HostClient& h) { return h.Call(co::PauseRequest{}, timeout).status(); });
}

void Coordinator::Resume() {
  if (state() != PipelineState::kPaused) return;
  loop_.Resume();
  const auto timeout = options_.request_timeout;
  (void)OnEveryHost(
      [timeout](const HostClient& h) { return h.Call(co::ResumeRequest{}, timeout).status(); });
}

bool Coordinator::Idle() const {
  if (loop_.stepping()) return false;
  const uint64_t step = loop_.step();
  for (const HostClient& h : hosts_) {
    auto r = h.Call(co::ReadyRequest{0}, options_.request_timeout);
    if (!r.ok() || r->buffered != 0 || r->step != step) return false;
  }
  return !loop_.stepping() && loop_.step() == step;
}

PipelineState Coordinator::state() const { return loop_.state(); }

uint64_t Coordinator::step() const { return loop_.step(); }

Status Coordinator::StartTransaction() { return loop_.StartTransaction(); }

Result<uint64_t> Coordinator::CommitTransaction() { return loop_.CommitTransaction(); }

Status Coordinator::Approve() {
  const bool awaiting = state() == PipelineState::kAwaitingApproval;
  {
    MutexLock l(&mu_);
    if (!awaiting || approving_ || !program_changes_ ||
        program_changes_->status != "awaiting_approval") {
      return Status::InvalidArgument("the pipeline is not awaiting approval of a change");
    }
    approving_ = true;
  }
  Status s = Activate(restore_.first, restore_.second);
  if (!s.ok()) {
    Fail(s);
    return loop_.failure();
  }
  return Status::OK();
}

// ---------------------------------------------------------------- reads

Result<pipeline::QueryResult> Coordinator::Query(std::string_view text,
                                                 std::shared_ptr<sql::SequenceSession> session) {
  if (session == nullptr) session = std::make_shared<sql::SequenceSession>();
  SLUICE_ASSIGN_OR_RETURN(pipeline::AdhocQuery q,
                          pipeline::BindAdhoc(info_.relations, text, program_text_,
                                              std::make_shared<sql::SequenceAccess>(
                                                  sql::SequenceAccess{sequences_, session})));
  if (state() == PipelineState::kFailed) return loop_.failure();
  // Lease one step on every host: no step runs while the leases are taken.
  // (The calls run on threads that may outlive this call: they share what
  // they fill.)
  struct Read {
    std::mutex mu;
    std::vector<uint64_t> leases, steps;
    std::map<std::string, std::vector<BatchPtr>> snapshots;
  };
  auto read = std::make_shared<Read>();
  read->leases.assign(hosts_.size(), 0);
  read->steps.assign(hosts_.size(), 0);
  for (const std::string& r : q.scanned) read->snapshots[r];
  const co::LeaseRequest lease_request{q.scanned, /*step=*/0, "coordinator"};
  const std::vector<std::string> scanned = q.scanned;
  const auto timeout = options_.request_timeout;
  Status s;
  {
    MutexLock sl(&step_mu_);
    s = OnEveryHost([read, lease_request, timeout](const HostClient& h) -> Status {
      SLUICE_ASSIGN_OR_RETURN(co::LeaseAnswer r, h.Call(lease_request, timeout));
      std::lock_guard<std::mutex> l(read->mu);
      read->leases[static_cast<size_t>(h.address().index)] = r.lease;
      read->steps[static_cast<size_t>(h.address().index)] = r.step;
      return Status::OK();
    });
  }
  // Then read every host's part (the leases pin its batches), and release.
  if (s.ok()) {
    s = OnEveryHost([read, scanned, timeout](const HostClient& h) -> Status {
      const size_t i = static_cast<size_t>(h.address().index);
      uint64_t lease = 0;
      {
        std::lock_guard<std::mutex> l(read->mu);
        if (read->steps[i] != read->steps[0]) {
          return Status::Internal(h.name() + " leased step " + std::to_string(read->steps[i]) +
                                  ", another host step " + std::to_string(read->steps[0]));
        }
        lease = read->leases[i];
      }
      for (const std::string& r : scanned) {
        // In pieces, each of whole keys after the last piece's.
        co::ScanRequest scan_request{lease, r, /*from_start=*/true, "", kScanPieceBytes};
        for (;;) {
          SLUICE_ASSIGN_OR_RETURN(co::ScanAnswer scan, h.Call(scan_request, timeout));
          if (scan.batches.empty()) break;
          const MemBatch& piece = *scan.batches.back();
          scan_request.from_start = false;
          scan_request.after = std::string(piece.key(piece.key_count() - 1));
          std::lock_guard<std::mutex> l(read->mu);
          auto& into = read->snapshots[r];
          into.insert(into.end(), scan.batches.begin(), scan.batches.end());
        }
      }
      return Status::OK();
    });
  }
  std::map<std::string, std::vector<BatchPtr>> snapshots;
  std::vector<uint64_t> leases, steps;
  {
    std::lock_guard<std::mutex> l(read->mu);
    snapshots = read->snapshots;
    leases = read->leases;
    steps = read->steps;
  }
  for (size_t i = 0; i < hosts_.size(); ++i) {
    if (leases[i] == 0) continue;
    (void)hosts_[i].Call(co::ReleaseRequest{leases[i]}, timeout);
  }
  SLUICE_RETURN_IF_ERROR(s);
  SLUICE_ASSIGN_OR_RETURN(pipeline::QueryResult result,
                          pipeline::EvaluateAdhoc(q, snapshots, std::min(config_.workers, 4)));
  result.step = steps[0];
  return result;
}

// ---------------------------------------------------------------- checkpoints

Result<uint64_t> Coordinator::RequestCheckpoint() {
  if (config_.storage.empty()) {
    return Status::InvalidArgument("checkpoints need storage: give --storage DIR");
  }
  return loop_.RequestCheckpoint();
}

std::vector<pipeline::CheckpointInfo> Coordinator::Checkpoints() const {
  // Each host's part's size, summed.
  std::map<uint64_t, uint64_t> bytes;
  for (const HostClient& h : hosts_) {
    auto r = h.Call(co::CheckpointsRequest{}, options_.request_timeout);
    if (!r.ok()) continue;
    for (const pipeline::CheckpointInfo& c : r->checkpoints) {
      bytes[c.checkpoint_sequence_number] += c.size_bytes;
    }
  }
  std::vector<pipeline::CheckpointInfo> list;
  MutexLock l(&mu_);
  for (auto it = checkpoints_.rbegin(); it != checkpoints_.rend(); ++it) {
    pipeline::CheckpointInfo c;
    c.checkpoint_sequence_number = it->first;
    c.step = it->second;
    c.hosts = hosts_.size();
    c.size_bytes = bytes[it->first];
    list.push_back(c);
  }
  return list;
}

// ---------------------------------------------------------------- stats

pipeline::PipelineStatus Coordinator::CurrentStatus() const {
  pipeline::PipelineStatus st;
  st.state = pipeline::StateName(state());
  st.pipeline_id = pipeline_id_;
  st.layout = layout_;
  st.step = step();
  {
    MutexLock l(&mu_);
    st.program_changes = program_changes_;
  }
  st.transaction = loop_.in_transaction();
  const Status failure = loop_.failure();
  if (!failure.ok()) st.error = failure.ToString();
  st.hosts.emplace();
  for (const HostClient& h : hosts_) {
    pipeline::HostState e;
    e.host = h.address().index;
    e.address = h.address().text();
    auto r = h.Call(co::StatusRequest{}, std::chrono::seconds(2));
    if (r.ok()) {
      e.state = r->state;
      e.step = r->step;
      e.error = r->error;
    } else if (server::IsNotActivated(r.status())) {
      e.state = "NotActivated";  // up, waiting for its activation (e.g. for approval)
    } else {
      e.state = "Unreachable";
      e.error = r.status().message();
    }
    st.hosts->push_back(std::move(e));
  }
  return st;
}

pipeline::PipelineStats Coordinator::Stats() const {
  pipeline::PipelineStats st;
  pipeline::GlobalStats& g = st.global;
  g.state = pipeline::StateName(state());
  g.step = step();
  g.step_usecs = loop_.step_usecs();
  g.step_msecs = g.step_usecs / 1000;
  g.step_latency_counts = loop_.step_latency_counts();
  g.transaction = loop_.in_transaction();
  g.uptime_msecs = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started_).count());
  g.hosts = hosts_.size();
  g.workers = static_cast<uint64_t>(config_.workers) * hosts_.size();
  for (const HostClient& h : hosts_) {
    auto r = h.Call(co::StatsRequest{}, std::chrono::seconds(5));
    if (r.ok()) st.Add(*r, h.address().index);
  }
  if (!waterlines_->empty()) g.waterlines = waterlines_->waterlines();
  return st;
}

}  // namespace sluice::coordinator
