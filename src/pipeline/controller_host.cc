// One host of a pipeline on many hosts (DESIGN.md section 6): the
// coordinator drives this controller's steps and checkpoints through the
// host's coordination API, and reads its integrals through leases.
#include <nlohmann/json.hpp>

#include "base/bytes.h"
#include "pipeline/controller.h"
#include "zset/batch_codec.h"

namespace sluice::pipeline {

using Clock = std::chrono::steady_clock;

Controller::InputState Controller::WaitForInput(std::chrono::milliseconds wait) {
  const auto deadline = Clock::now() + wait;
  std::unique_lock<std::mutex> l(mu_);
  for (;;) {
    if (state_ == PipelineState::kStopping || state_ == PipelineState::kFailed) {
      return {buffered_, false, step_};
    }
    if (buffered_ > 0) {
      if (buffered_ >= config_.min_batch_size_records) return {buffered_, true, step_};
      auto due = first_buffered_ + std::chrono::microseconds(config_.max_buffering_delay_usecs);
      if (Clock::now() >= due) return {buffered_, true, step_};
      if (Clock::now() >= deadline) return {buffered_, false, step_};
      cv_.wait_until(l, std::min(due, deadline));
      continue;
    }
    if (Clock::now() >= deadline) return {0, false, step_};
    cv_.wait_until(l, deadline);
  }
}

Status Controller::RunHostStep(uint64_t step, bool commit, bool in_txn, bool replay) {
  std::unique_lock<std::mutex> l(mu_);
  if (state_ == PipelineState::kFailed) return failure_;
  if (state_ == PipelineState::kStopping) return Status::Aborted("the host is stopping");
  if (step != runtime_->steps() + 1) {
    return Status::InvalidArgument("asked to run step " + std::to_string(step) +
                                   ", but this host's last step is " +
                                   std::to_string(runtime_->steps()));
  }
  std::map<std::string, std::vector<Range>> taken;
  bool journaled = false;
  if (replay && recorded_steps_.count(step) != 0) {
    const JournalRecord r = recorded_steps_.at(step);
    recorded_steps_.erase(step);
    auto t = TakeRecordedLocked(step, r.ranges);
    if (!t.ok()) return t.status();
    taken = std::move(*t);
    journaled = true;
  } else if (!replay) {
    if (!recorded_steps_.empty()) {
      return Status::InvalidArgument("step " + std::to_string(step) +
                                     " comes before the journal's steps were replayed");
    }
    taken = TakeLocked();
  }
  const uint64_t token = next_token_ - 1;
  txn_.open = in_txn || commit;
  txn_.commit_requested = commit;
  stepping_ = true;
  l.unlock();
  space_cv_.notify_all();
  return RunTaken(taken, token, commit, in_txn, /*journal=*/!journaled);
}

uint64_t Controller::NewestJournalFile() const {
  return journal_ ? Journal::Newest(config_.storage + "/journal") : 0;
}

std::vector<std::tuple<uint64_t, bool, bool>> Controller::RecordedSteps() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<std::tuple<uint64_t, bool, bool>> out;
  for (const auto& [step, r] : recorded_steps_) out.emplace_back(step, r.commit, r.in_transaction);
  return out;
}

Status Controller::WriteHostCheckpoint(uint64_t seq) {
  if (config_.storage.empty()) {
    return Status::InvalidArgument("host " + std::to_string(role_->host) +
                                   " has no storage for checkpoints: give it --storage DIR");
  }
  Status s;
  {
    std::lock_guard<std::mutex> sl(step_mu_);
    s = WriteCheckpoint(seq);
  }
  std::lock_guard<std::mutex> l(mu_);
  ckpt_.requested = seq;
  ckpt_.Taken(seq, s);
  done_cv_.notify_all();
  return s;
}

Result<std::pair<uint64_t, uint64_t>> Controller::Lease(const std::vector<std::string>& relations) {
  uint64_t step = 0;
  SLUICE_ASSIGN_OR_RETURN(auto batches, Snapshots(relations, &step));
  std::lock_guard<std::mutex> l(lease_mu_);
  // Leases whose holder went away without releasing them.
  const auto now = Clock::now();
  for (auto it = leases_.begin(); it != leases_.end();) {
    it = now - it->second.touched > kLeaseTimeout ? leases_.erase(it) : std::next(it);
  }
  const uint64_t id = next_lease_++;
  leases_[id] = {step, std::move(batches), now};
  return std::make_pair(id, step);
}

Result<std::vector<BatchPtr>> Controller::ScanLease(uint64_t lease, const std::string& relation) {
  std::lock_guard<std::mutex> l(lease_mu_);
  auto it = leases_.find(lease);
  if (it == leases_.end()) {
    return Status::NotFound("lease " + std::to_string(lease) +
                            " does not exist (released, or untouched for too long)");
  }
  it->second.touched = Clock::now();
  auto r = it->second.batches.find(relation);
  if (r == it->second.batches.end()) {
    return Status::NotFound("lease " + std::to_string(lease) + " does not hold " + relation);
  }
  return r->second;
}

Status Controller::Follow(const std::string& relation) {
  if (relations_.count(relation) == 0) {
    return Status::NotFound("table or view \"" + relation + "\" does not exist");
  }
  auto it = gather_switches_.find(relation);
  if (it != gather_switches_.end()) it->second->store(true);
  return Status::OK();
}

void Controller::ReleaseLease(uint64_t lease) {
  std::lock_guard<std::mutex> l(lease_mu_);
  leases_.erase(lease);
}

}  // namespace sluice::pipeline
