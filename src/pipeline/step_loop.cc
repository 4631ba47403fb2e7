#include "pipeline/step_loop.h"

#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

namespace sluice::pipeline {
namespace {

std::string UtcNow() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

std::chrono::steady_clock::time_point CheckpointProgress::Schedule(uint64_t last_step) {
  if (interval.count() == 0) return std::chrono::steady_clock::time_point::max();
  const auto due = last_time + interval;
  if (std::chrono::steady_clock::now() >= due && last_step > step && requested == taken) {
    ++requested;
  }
  return due;
}

std::string CheckpointProgress::StatusText() const {
  using Json = nlohmann::json;
  Json j;
  j["requested"] = requested;
  j["success"] = ok == 0 ? Json(nullptr) : Json(ok);
  j["step"] = step;
  if (error.first != 0) {
    j["failure"] = {{"sequence_number", error.first}, {"error", error.second.ToString()}};
  } else {
    j["failure"] = nullptr;
  }
  return j.dump();
}

StepLoop::StepLoop(std::string what) : what_(std::move(what)) {}

void StepLoop::Run(Driver* driver) {
  Clock::time_point last_progress = Clock::now();
  MutexLock l(&mu_);
  for (;;) {
    if (state_ == PipelineState::kStopping || state_ == PipelineState::kFailed) return;
    const Clock::time_point periodic_due = ckpt_.Schedule(step_);
    if (ckpt_.pending()) {
      // At this step boundary, before any more input is taken.
      const uint64_t seq = ckpt_.requested;
      l.Unlock();
      const Clock::time_point began = Clock::now();
      Status s = driver->TakeCheckpoint(seq);
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - began).count();
      if (s.ok()) {
        std::fprintf(stderr, "%s: checkpoint %llu taken in %.0f ms\n", what_.c_str(),
                     static_cast<unsigned long long>(seq), ms);
      } else {
        std::fprintf(stderr, "%s: checkpoint %llu failed: %s\n", what_.c_str(),
                     static_cast<unsigned long long>(seq), s.ToString().c_str());
      }
      l.Lock();
      Finished(seq, s);
      if (s.ok()) {
        ckpt_.ok = seq;
        ckpt_.step = step_;
      }
      continue;
    }
    Clock::time_point wait_until = periodic_due;
    bool run = false;
    if (state_ == PipelineState::kRunning) {
      if (txn_.commit_requested) {
        run = true;
      } else {
        Clock::time_point input_due =
            step_ == 0 && step_at_start_ ? Clock::time_point::min() : driver->InputDue(step_);
        if (step_interval_.count() > 0) {
          input_due = std::min(input_due, last_began_ + step_interval_);
        }
        if (input_due <= Clock::now()) {
          run = true;
        } else {
          wait_until = std::min(wait_until, input_due);
        }
      }
    }
    if (!run) {
      if (wait_until == Clock::time_point::max()) {
        wake_.Wait(&mu_);
      } else {
        wake_.WaitUntil(&mu_, wait_until);
      }
      continue;
    }
    const StepPlan plan{step_ + 1, txn_.commit_requested, txn_.open};
    stepping_ = true;
    last_began_ = Clock::now();
    l.Unlock();
    const Clock::time_point began = Clock::now();
    Status s = driver->RunStep(plan);
    EndStep(plan, s, Clock::now() - began);
    if (!s.ok()) {
      Fail(s);
      driver->Failed(failure());
      return;
    }
    if (Clock::now() - last_progress >= kProgressInterval) {
      driver->Progress();
      last_progress = Clock::now();
    }
    l.Lock();
  }
}

PipelineState StepLoop::state() const {
  MutexLock l(&mu_);
  return state_;
}

Status StepLoop::failure() const {
  MutexLock l(&mu_);
  return failure_;
}

bool StepLoop::stopping() const {
  MutexLock l(&mu_);
  return state_ == PipelineState::kStopping || state_ == PipelineState::kFailed;
}

uint64_t StepLoop::step() const {
  MutexLock l(&mu_);
  return step_;
}

bool StepLoop::stepping() const {
  MutexLock l(&mu_);
  return stepping_;
}

uint64_t StepLoop::step_usecs() const {
  MutexLock l(&mu_);
  return step_usecs_;
}

std::vector<uint64_t> StepLoop::step_latency_counts() const {
  MutexLock l(&mu_);
  return latency_counts_;
}

bool StepLoop::in_transaction() const {
  MutexLock l(&mu_);
  return txn_.open;
}

void StepLoop::Reset(PipelineState state, uint64_t step) {
  MutexLock l(&mu_);
  state_ = state;
  step_ = step;
}

void StepLoop::Approved() {
  MutexLock l(&mu_);
  if (state_ == PipelineState::kAwaitingApproval) state_ = PipelineState::kRunning;
  wake_.SignalAll();
  done_.SignalAll();
}

void StepLoop::Pause() {
  MutexLock l(&mu_);
  if (state_ == PipelineState::kRunning) state_ = PipelineState::kPaused;
  done_.SignalAll();
}

void StepLoop::Resume() {
  MutexLock l(&mu_);
  if (state_ == PipelineState::kPaused) state_ = PipelineState::kRunning;
  wake_.SignalAll();
  done_.SignalAll();
}

void StepLoop::SetStopping() {
  MutexLock l(&mu_);
  if (state_ != PipelineState::kFailed) state_ = PipelineState::kStopping;
  wake_.SignalAll();
  done_.SignalAll();
}

bool StepLoop::Fail(const Status& s) {
  const std::string advice = advice_ ? advice_() : "";
  MutexLock l(&mu_);
  if (state_ == PipelineState::kFailed || state_ == PipelineState::kStopping) return false;
  state_ = PipelineState::kFailed;
  failure_ = s.WithContext("pipeline failed at " + UtcNow());
  if (!advice.empty()) failure_ = Status(failure_.code(), failure_.message() + " (" + advice + ")");
  std::fprintf(stderr, "%s: %s\n", what_.c_str(), failure_.ToString().c_str());
  wake_.SignalAll();
  done_.SignalAll();
  return true;
}

void StepLoop::Wake() {
  MutexLock l(&mu_);
  wake_.SignalAll();
}

void StepLoop::WaitForBoundary(uint64_t min_step, std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  MutexLock l(&mu_);
  while (state_ != PipelineState::kStopping && state_ != PipelineState::kFailed &&
         (stepping_ || step_ < min_step)) {
    if (!done_.WaitUntil(&mu_, deadline) && Clock::now() >= deadline) return;
  }
}

Status StepLoop::BeginStep(const StepPlan& plan) {
  MutexLock l(&mu_);
  if (state_ == PipelineState::kFailed) return failure_;
  if (state_ == PipelineState::kStopping) return Status::Aborted("the pipeline is stopping");
  if (stepping_) return Status::InvalidArgument("a step is already running");
  if (plan.step != step_ + 1) {
    return Status::InvalidArgument("asked to run step " + std::to_string(plan.step) +
                                   ", but the last step is " + std::to_string(step_));
  }
  stepping_ = true;
  last_began_ = Clock::now();
  txn_.open = plan.in_transaction || plan.commit;
  if (plan.commit) txn_.commit_requested = true;
  return Status::OK();
}

void StepLoop::EndStep(const StepPlan& plan, const Status& s, Clock::duration took) {
  MutexLock l(&mu_);
  stepping_ = false;
  step_usecs_ +=
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(took).count());
  const double secs = std::chrono::duration<double>(took).count();
  size_t bucket = 0;
  while (bucket < std::size(kLatencyBounds) && secs > kLatencyBounds[bucket]) ++bucket;
  ++latency_counts_[bucket];
  if (s.ok()) {
    step_ = plan.step;
    if (plan.commit) {
      txn_.open = false;
      txn_.commit_requested = false;
      txn_.commit_step = plan.step;
    }
  }
  done_.SignalAll();
}

void StepLoop::set_step(uint64_t step) {
  MutexLock l(&mu_);
  step_ = step;
}

Status StepLoop::StartTransaction() {
  MutexLock l(&mu_);
  if (state_ == PipelineState::kFailed) return failure_;
  if (txn_.open) return Status::InvalidArgument("a transaction is already open");
  txn_.open = true;
  return Status::OK();
}

Result<uint64_t> StepLoop::CommitTransaction() {
  MutexLock l(&mu_);
  if (!txn_.open) return Status::InvalidArgument("no transaction is open");
  if (state_ == PipelineState::kPaused) {
    return Status::InvalidArgument("the pipeline is paused: start it to commit");
  }
  txn_.commit_requested = true;
  wake_.SignalAll();
  while (txn_.commit_requested && state_ != PipelineState::kFailed &&
         state_ != PipelineState::kStopping) {
    done_.Wait(&mu_);
  }
  if (state_ == PipelineState::kFailed) return failure_;
  if (txn_.commit_requested) return Status::Aborted("the pipeline stopped before the commit");
  return txn_.commit_step;
}

void StepLoop::set_step_at_start(bool on) {
  MutexLock l(&mu_);
  step_at_start_ = on;
  wake_.SignalAll();
}

void StepLoop::set_step_interval(std::chrono::microseconds interval) {
  MutexLock l(&mu_);
  step_interval_ = interval;
  wake_.SignalAll();
}

void StepLoop::set_checkpoint_interval(std::chrono::seconds interval) {
  MutexLock l(&mu_);
  ckpt_.interval = interval;
}

Result<uint64_t> StepLoop::RequestCheckpoint() {
  MutexLock l(&mu_);
  if (state_ == PipelineState::kFailed) return failure_;
  const uint64_t seq = ++ckpt_.requested;
  wake_.SignalAll();
  return seq;
}

Status StepLoop::WaitCheckpoint(uint64_t seq, std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  MutexLock l(&mu_);
  while (ckpt_.taken < seq && state_ != PipelineState::kFailed &&
         state_ != PipelineState::kStopping) {
    if (!done_.WaitUntil(&mu_, deadline) && Clock::now() >= deadline) {
      return Status::Aborted("checkpoint " + std::to_string(seq) + " is not written yet");
    }
  }
  if (ckpt_.error.first == seq) return ckpt_.error.second;
  if (ckpt_.taken < seq) return Status::Aborted("the pipeline stopped");
  return Status::OK();
}

void StepLoop::Finished(uint64_t seq, const Status& s) {
  ckpt_.taken = seq;
  ckpt_.last_time = Clock::now();
  if (!s.ok()) ckpt_.error = {seq, s};
  done_.SignalAll();
}

void StepLoop::CheckpointTaken(uint64_t seq, const Status& s, uint64_t step) {
  MutexLock l(&mu_);
  ckpt_.requested = std::max(ckpt_.requested, seq);
  Finished(seq, s);
  if (s.ok()) {
    ckpt_.ok = seq;
    ckpt_.step = step;
  }
}

void StepLoop::Restored(uint64_t seq, uint64_t step) {
  MutexLock l(&mu_);
  ckpt_.requested = ckpt_.taken = ckpt_.ok = seq;
  ckpt_.step = step;
  step_ = step;
}

void StepLoop::NumberCheckpointsAfter(uint64_t seq) {
  MutexLock l(&mu_);
  if (seq <= ckpt_.taken) return;
  const bool pending = ckpt_.requested > ckpt_.taken;
  ckpt_.taken = seq;
  ckpt_.requested = seq + (pending ? 1 : 0);
}

void StepLoop::RequestCheckpointNumber(uint64_t seq) {
  MutexLock l(&mu_);
  ckpt_.requested = std::max(ckpt_.requested, seq);
  wake_.SignalAll();
}

std::string StepLoop::CheckpointStatusText() const {
  MutexLock l(&mu_);
  return ckpt_.StatusText();
}

uint64_t StepLoop::last_checkpoint() const {
  MutexLock l(&mu_);
  return ckpt_.ok;
}

}  // namespace sluice::pipeline
