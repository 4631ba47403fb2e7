#include "runtime/runtime.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "base/allocator.h"
#include "dataflow/operators/exchange.h"
#include "dataflow/operators/input.h"
#include "dataflow/operators/output.h"
#include "dataflow/state.h"
#include "runtime/memory_transport.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"
#include "zset/merge.h"

namespace sluice {

Runtime::Runtime(RuntimeOptions options) : options_(std::move(options)) {}

Result<std::unique_ptr<Runtime>> Runtime::Start(RuntimeOptions options, const BuildFn& build) {
  if (options.workers < 1) {
    return Status::InvalidArgument("workers must be at least 1, not " +
                                   std::to_string(options.workers));
  }
  if (options.hosts < 1 || options.host < 0 || options.host >= options.hosts ||
      (options.hosts > 1 && options.transport == nullptr)) {
    return Status::InvalidArgument("host " + std::to_string(options.host) + " of " +
                                   std::to_string(options.hosts) +
                                   " (many hosts need an exchange transport)");
  }
  TuneAllocatorForBatches();
  std::unique_ptr<Runtime> rt(new Runtime(std::move(options)));
  const int n = rt->options_.workers;
  const int total = n * rt->options_.hosts;
  if (rt->options_.transport != nullptr) {
    rt->transport_ = rt->options_.transport;
  } else {
    rt->owned_transport_ = std::make_unique<MemoryTransport>(total);
    rt->transport_ = rt->owned_transport_.get();
  }
  for (int w = 0; w < n; ++w) {
    WorkerContext ctx;
    ctx.worker = rt->options_.host * n + w;
    ctx.workers = total;
    ctx.transport = rt->transport_;
    ctx.spine = rt->options_.spine;
    auto c = std::make_unique<Circuit>(ctx);
    SLUICE_RETURN_IF_ERROR(build(*c));
    rt->operator_times_.push_back(c->Timed());
    rt->circuits_.push_back(std::move(c));
  }
  {
    MutexLock l(&rt->mu_);
    rt->results_.resize(static_cast<size_t>(n));
  }
  for (int w = 0; w < n; ++w) rt->threads_.emplace_back([r = rt.get(), w] { r->WorkerLoop(w); });
  return rt;
}

Runtime::~Runtime() {
  {
    MutexLock l(&mu_);
    stop_ = true;
  }
  start_cv_.SignalAll();
  for (auto& t : threads_) t.join();
}

void Runtime::WorkerLoop(int w) {
  uint64_t seen = 0;
  while (true) {
    {
      MutexLock l(&mu_);
      while (!stop_ && target_ <= seen) start_cv_.Wait(&mu_);
      if (stop_) return;
      seen = target_;
    }
    Status s = circuits_[static_cast<size_t>(w)]->Step();
    // Wake the workers that wait for this one in an exchange.
    if (!s.ok()) transport_->Abort(s);
    {
      MutexLock l(&mu_);
      results_[static_cast<size_t>(w)] = s;
      ++done_;
    }
    done_cv_.SignalAll();
  }
}

Status Runtime::Push(const std::string& name, const BatchPtr& batch) {
  if (circuits_[0]->input(name) == nullptr) {
    return Status::NotFound("the circuit has no input named '" + name + "'");
  }
  const int n = options_.workers, total = n * options_.hosts, first = options_.host * n;
  if (total == 1) {
    circuits_[0]->input(name)->Push(batch);
    return Status::OK();
  }
  SLUICE_ASSIGN_OR_RETURN(std::vector<MemBatchPtr> parts, PartitionByKey(*batch, total));
  for (int w = 0; w < total; ++w) {
    MemBatchPtr& part = parts[static_cast<size_t>(w)];
    if (part->empty()) continue;
    if (w < first || w >= first + n) {
      return Status::InvalidArgument("input " + name + ": rows for worker " + std::to_string(w) +
                                     ", which is on host " + std::to_string(w / n) +
                                     ", not this host " + std::to_string(options_.host));
    }
    circuits_[static_cast<size_t>(w - first)]->input(name)->Push(std::move(part));
  }
  return Status::OK();
}

Status Runtime::PushToWorker(const std::string& name, int worker, const BatchPtr& batch) {
  const int local = worker - options_.host * options_.workers;
  if (local < 0 || local >= options_.workers) {
    return Status::InvalidArgument("no worker " + std::to_string(worker) + " on host " +
                                   std::to_string(options_.host));
  }
  auto* in = circuits_[static_cast<size_t>(local)]->input(name);
  if (in == nullptr) return Status::NotFound("the circuit has no input named '" + name + "'");
  if (!batch->empty()) in->Push(batch);
  return Status::OK();
}

Result<std::string> Runtime::SaveState(const std::string& dir) const {
  if (!failed_.ok()) return failed_;
  // Workers are idle between steps: each circuit is written on its own thread.
  const size_t n = circuits_.size();
  std::vector<std::unique_ptr<StateWriter>> writers;
  std::vector<Status> results(n);
  std::vector<std::thread> threads;
  // Each thread gets its writer itself, not the vector's slot: a later
  // push_back may move the vector's storage while the thread reads it.
  for (size_t w = 0; w < n; ++w) {
    writers.push_back(std::make_unique<StateWriter>(dir, "w" + std::to_string(w)));
    StateWriter* writer = writers.back().get();
    threads.emplace_back([&, w, writer] { results[w] = circuits_[w]->SaveState(*writer); });
  }
  for (std::thread& t : threads) t.join();
  nlohmann::json m;
  m["workers"] = n;
  m["steps"] = steps_;
  m["circuits"] = nlohmann::json::array();
  for (size_t w = 0; w < n; ++w) {
    if (!results[w].ok()) return results[w].WithContext("worker " + std::to_string(w));
    m["circuits"].push_back(nlohmann::json::parse(writers[w]->Manifest()));
  }
  return m.dump();
}

Status Runtime::LoadState(const std::string& dir, std::string_view manifest,
                          const Circuit::OwnerFilter& select) {
  nlohmann::json m = nlohmann::json::parse(manifest, nullptr, false);
  if (m.is_discarded() || !m.contains("circuits") || !m["circuits"].is_array()) {
    return Status::Corruption("the runtime's checkpoint manifest is not valid");
  }
  if (m["circuits"].size() != circuits_.size()) {
    return Status::InvalidArgument(
        "the checkpoint was taken with " + std::to_string(m["circuits"].size()) +
        " workers; this pipeline has " + std::to_string(circuits_.size()));
  }
  for (size_t w = 0; w < circuits_.size(); ++w) {
    SLUICE_ASSIGN_OR_RETURN(auto reader, StateReader::Open(dir, m["circuits"][w].dump()));
    SLUICE_RETURN_IF_ERROR(
        circuits_[w]->LoadState(*reader, select).WithContext("worker " + std::to_string(w)));
  }
  steps_ = m.value("steps", uint64_t{0});
  return Status::OK();
}

size_t Runtime::Replay(const Circuit::OwnerFilter& select) {
  size_t n = 0;
  for (auto& c : circuits_) n += c->Replay(select);
  return n;
}

Status Runtime::Step() {
  if (!failed_.ok()) return failed_;
  std::vector<Status> results;
  {
    MutexLock l(&mu_);
    done_ = 0;
    ++target_;
    start_cv_.SignalAll();
    while (done_ != options_.workers) done_cv_.Wait(&mu_);
    results = results_;
  }
  ++steps_;
  // Between steps, the circuits are the caller's to read.
  for (size_t w = 0; w < circuits_.size(); ++w) {
    for (auto& [owner, s] : circuits_[w]->TakeStepFailures()) {
      failed_owners_.emplace(
          owner, s.WithContext("step " + std::to_string(steps_) + ", worker " + std::to_string(w)));
    }
  }
  // Report the root cause, not the aborts it caused on other workers.
  Status first;
  for (size_t w = 0; w < results.size(); ++w) {
    const Status& s = results[w];
    if (s.ok()) continue;
    Status named =
        s.WithContext("step " + std::to_string(steps_) + ", worker " + std::to_string(w));
    if (first.ok() || (first.code() == StatusCode::kAborted && s.code() != StatusCode::kAborted)) {
      first = named;
    }
  }
  if (!first.ok()) failed_ = first;
  return first;
}

std::map<std::string, Status> Runtime::TakeFailedOwners() {
  return std::exchange(failed_owners_, {});
}

void Runtime::SkipOwner(const std::string& owner) {
  for (auto& c : circuits_) c->SkipOwner(owner);
}

Result<BatchPtr> Runtime::Output(const std::string& name) const {
  std::vector<BatchPtr> parts;
  for (const auto& c : circuits_) {
    OutputOp* op = c->output(name);
    if (op == nullptr) return Status::NotFound("the circuit has no output named '" + name + "'");
    parts.push_back(op->output()->value());
  }
  return MergeBatches(parts, {});
}

}  // namespace sluice
