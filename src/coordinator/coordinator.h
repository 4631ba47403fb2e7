// The coordinator of a pipeline on many hosts (DESIGN.md section 6). It
// serves the same API as a pipeline on one host (it is a PipelineApi that
// src/server serves) by driving H host processes (`sluice host`) through
// their coordination API (client.h):
//
// - Start: asks every host for its exchange address, assigns every output
//   stream (and its connectors) and every input connector to a host, and
//   activates every host at once with the layout, the assignment, the
//   checkpoint to open and the pipeline's id. The first step runs only after
//   every host is up.
// - Steps: a poller per host long-polls /coordination/ready (which is also
//   the host's sign of life from its coordinator); when input is due on any
//   host, or a commit is asked for, every host runs step N together
//   (/coordination/step). A host that fails or does not answer fails the
//   pipeline with its name, address and the time.
// - Checkpoints: every host writes its part of checkpoint k at the same
//   step boundary; k counts (and is recorded in the coordinator's
//   storage, with the output assignment) only when every host wrote it. A
//   restart opens the latest complete one on every host and keeps the
//   recorded assignment.
// - Reads: /query leases one step's integrals on every host, scans each
//   host's part as serialized batches and evaluates over them; egress
//   streams come from the host that holds the relation's output.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "dataflow/clock.h"
#include "pipeline/api.h"
#include "pipeline/config.h"
#include "pipeline/step_loop.h"
#include "pipeline/waterlines.h"
#include "server/host_client.h"
#include "sql/sequences.h"

namespace sluice::coordinator {

using server::HostAddress;
using server::HostClient;
using server::ParseAddress;

struct CoordinatorOptions {
  std::vector<HostAddress> hosts;  // every host's coordination API, by index
  std::string secret;
  // With files, calls to the hosts are HTTPS, and the hosts' certificates
  // must come from the same CA; the coordinator presents its own.
  TlsFiles tls;
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds request_timeout{30000};  // every call but steps and checkpoints
  std::chrono::milliseconds step_timeout{600000};    // a step or checkpoint on every host
  std::chrono::milliseconds start_timeout{30000};    // for hosts to come up
};

// Where each output stream and input connector runs. Output streams
// (every table and view) are placed by estimated cost, largest first,
// each on the host with the least cost so far (ties: the name, then the
// lower host); the cost of a stream is 1, plus 2 if it is materialized
// (its integral), plus 2 per output connector. Input connectors are
// spread likewise, a cost of 1 each. Placements in `keep` (a
// checkpoint's) stay as they are.
struct Assignment {
  std::map<std::string, int> output_host;
  std::map<std::string, int> input_host;
};
Assignment AssignHosts(const pipeline::ProgramInfo& program, int hosts, const Assignment& keep);

class Coordinator final : public pipeline::PipelineApi, private pipeline::StepLoop::Driver {
 public:
  // `config.storage` is the coordinator's own storage (its checkpoint
  // records); each host has its own.
  static Result<std::unique_ptr<Coordinator>> Start(std::string_view program_text,
                                                    pipeline::PipelineConfig config,
                                                    std::string base_dir,
                                                    CoordinatorOptions options);
  ~Coordinator() override;
  // Stops stepping and tells every host to stop. Idempotent.
  void Stop();

  const sql::Program& program() const { return program_; }
  const Assignment& assignment() const { return assignment_; }
  // No step is running and no host has anything queued (asks every host;
  // for benchmarks and tools).
  bool Idle() const;

  const std::string& ProgramText() const override { return program_text_; }
  const pipeline::RelationInfo* FindRelation(const std::string& name) const override;
  std::vector<std::string> RelationNames() const override {
    std::vector<std::string> names;
    for (const auto& [name, info] : info_.relations) names.push_back(name);
    return names;
  }
  Result<uint64_t> Ingest(const std::string& table, format::ChangeBuffer changes, bool force,
                          uint64_t bytes) override;
  void CountIngressErrors(const std::string& table, uint64_t errors) override;
  Result<pipeline::Completion> CompletionOf(uint64_t token) const override;
  Result<pipeline::Subscription> Subscribe(const std::string& relation, bool snapshot, bool follow,
                                           bool backpressure, uint64_t max_queued_records) override;
  void Unsubscribe(uint64_t id) override;
  void Pause() override;
  void Resume() override;
  pipeline::PipelineState state() const override;
  uint64_t step() const override;
  Status StartTransaction() override;
  Result<uint64_t> CommitTransaction() override;
  Status SetEndpointPaused(const std::string& name, bool paused) override;
  Status ResetOutput(const std::string& name) override;
  using PipelineApi::Query;
  Result<pipeline::QueryResult> Query(std::string_view sql,
                                      std::shared_ptr<sql::SequenceSession> session) override;
  Result<uint64_t> RequestCheckpoint() override;
  std::string CheckpointStatusJson() const override { return loop_.CheckpointStatusText(); }
  std::vector<pipeline::CheckpointInfo> Checkpoints() const override;
  Status Approve() override;
  pipeline::PipelineStats Stats() const override;
  pipeline::PipelineStatus CurrentStatus() const override;

 private:
  struct Egress;
  Coordinator(sql::Program program, pipeline::PipelineConfig config, std::string base_dir,
              CoordinatorOptions options);
  Status Init(std::string_view program_text);
  Status LoadRecord();
  // Activates every host on the checkpoint (seq, step), moves integrals to
  // the layout (relayout_), replays the journaled steps, and starts the
  // pollers and the step loop.
  Status Activate(uint64_t restore_seq, uint64_t restore_step);
  Status Relayout(const std::vector<uint64_t>& leases);
  Status SaveRecord();
  void Poll(size_t host);

  // ---- pipeline::StepLoop::Driver
  pipeline::StepLoop::Clock::time_point InputDue(uint64_t last_step) override;
  Status RunStep(const pipeline::StepLoop::StepPlan& plan) override;
  Status TakeCheckpoint(uint64_t seq) override;
  void Failed(const Status&) override {}
  void Progress() override;

  // Runs a step on every host (`replay`: a journaled one).
  Status RunOnHosts(const pipeline::StepLoop::StepPlan& plan, bool replay);
  // Calls `fn` for every host on threads of its own and waits for all, or
  // only until the first error; returns the first error. The calls still
  // running then go on without it: `fn` must own (share) whatever it
  // touches, never the caller's locals or this coordinator's members.
  Status OnEveryHost(const std::function<Status(const HostClient&)>& fn) const;
  void Fail(const Status& s) { loop_.Fail(s); }
  std::string ResumeAdvice() const;
  Status ConnectorCall(const std::string& name, const std::string& action);

  const sql::Program program_;
  const pipeline::PipelineConfig config_;
  const std::string base_dir_;
  const CoordinatorOptions options_;
  std::vector<HostClient> hosts_;
  pipeline::ProgramInfo info_;
  std::set<std::string> on_demand_;  // pipeline::GatheredOnDemand
  Assignment assignment_;
  std::string pipeline_id_;
  std::string layout_;  // of the integrals: "one_host" or "all_hosts"
  // A restart in another layout than its checkpoints': the one they hold,
  // and the materialized relations whose integrals move.
  std::string relayout_from_;
  std::vector<std::string> relayout_;
  std::string program_text_;
  // The program's sequences: kept here, where ad hoc queries and
  // statements run, so that no host hands out a value another did (set at
  // Init; its log is `<storage>/sequences.json`).
  std::shared_ptr<sql::Sequences> sequences_ = std::make_shared<sql::Sequences>();
  std::vector<std::string> exchanges_;           // every host's exchange address
  std::pair<uint64_t, uint64_t> restore_{0, 0};  // (seq, step) awaiting approval
  bool exactly_once_ = false;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  // The last progress line's figures and time (the loop thread's).
  pipeline::PipelineStats progress_stats_;
  std::chrono::steady_clock::time_point progress_at_ = started_;
  // What each step's deletes found nothing to delete, from the hosts'
  // answers, for the completion of requests.
  pipeline::IgnoredDeletesLog ignored_deletes_;

  pipeline::StepLoop loop_{"sluice coordinator"};

  // Held while a step, a checkpoint or a lease is taken on the hosts, so
  // that each sees one step boundary on every host.
  Mutex step_mu_;
  // The step clock (NOW() in views' temporal filters), when a view reads it.
  const bool reads_clock_ = false;
  StepClock clock_;
  // Per table with a LATENESS: the largest value of its column over every
  // host's answers (at activation, then to each step), sent with the next
  // step so that every host keeps the same waterlines; and those
  // waterlines (for /stats: a host's own follow only when that step starts).
  std::unique_ptr<pipeline::Waterlines> waterlines_;

  // What each host's last poll said. Lock order: the loop's mutex, then
  // poll_mu_ (InputDue).
  Mutex poll_mu_;
  std::vector<bool> due_ GUARDED_BY(poll_mu_);
  std::vector<uint64_t> buffered_ GUARDED_BY(poll_mu_);
  // The step each host's answer followed.
  std::vector<uint64_t> polled_step_ GUARDED_BY(poll_mu_);

  mutable Mutex mu_;
  std::vector<std::pair<uint64_t, uint64_t>> checkpoints_ GUARDED_BY(mu_);  // (seq, step)
  std::string recorded_layout_ GUARDED_BY(mu_);                             // of checkpoints_
  std::optional<pipeline::ProgramChanges> program_changes_ GUARDED_BY(mu_);
  bool approving_ GUARDED_BY(mu_) = false;
  std::map<uint64_t, std::shared_ptr<Egress>> egress_ GUARDED_BY(mu_);
  uint64_t next_egress_ GUARDED_BY(mu_) = 1;
  std::thread loop_thread_;
  std::vector<std::thread> pollers_;
};

}  // namespace sluice::coordinator
