#include "pipeline/step_state.h"

#include <nlohmann/json.hpp>

namespace sluice::pipeline {

Status StartTransaction(PipelineState state, const Status& failure, TransactionState* t) {
  if (state == PipelineState::kFailed) return failure;
  if (t->open) return Status::InvalidArgument("a transaction is already open");
  t->open = true;
  return Status::OK();
}

Result<uint64_t> CommitTransaction(std::unique_lock<std::mutex>& l, const PipelineState& state,
                                   const Status& failure, TransactionState* t,
                                   std::condition_variable& wake, std::condition_variable& done) {
  if (!t->open) return Status::InvalidArgument("no transaction is open");
  if (state == PipelineState::kPaused) {
    return Status::InvalidArgument("the pipeline is paused: start it to commit");
  }
  t->commit_requested = true;
  wake.notify_all();
  done.wait(l, [&] {
    return !t->commit_requested || state == PipelineState::kFailed ||
           state == PipelineState::kStopping;
  });
  if (state == PipelineState::kFailed) return failure;
  if (t->commit_requested) return Status::Aborted("the pipeline stopped before the commit");
  return t->commit_step;
}

std::chrono::steady_clock::time_point CheckpointProgress::Schedule(uint64_t last_step) {
  if (interval.count() == 0) return std::chrono::steady_clock::time_point::max();
  const auto due = last_time + interval;
  if (std::chrono::steady_clock::now() >= due && last_step > step && requested == taken) {
    ++requested;
  }
  return due;
}

void CheckpointProgress::Taken(uint64_t seq, const Status& s) {
  taken = seq;
  last_time = std::chrono::steady_clock::now();
  if (!s.ok()) error = {seq, s};
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

}  // namespace sluice::pipeline
