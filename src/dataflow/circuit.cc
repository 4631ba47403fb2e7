#include "dataflow/circuit.h"

#include <chrono>
#include <utility>

#include "dataflow/state.h"

namespace sluice {

Status Circuit::Step() {
  for (size_t i = 0; i < ops_.size(); ++i) {
    const size_t owner = owner_of_[i];
    if (skipped_[owner] || poisoned_[i]) {
      ops_[i]->output()->set(MemBatch::Empty());
      continue;
    }
    Status s;
    if (times_ != nullptr && i < times_->ops.size()) {
      const auto start = std::chrono::steady_clock::now();
      s = ops_[i]->Eval();
      const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::steady_clock::now() - start)
                             .count();
      times_->nanos[i].fetch_add(static_cast<uint64_t>(nanos), std::memory_order_relaxed);
    } else {
      s = ops_[i]->Eval();
    }
    if (s.ok()) continue;
    s = s.WithContext(std::string("operator ") + std::to_string(i) + " (" + ops_[i]->name() + ")");
    if (!fails_alone_[owner]) return s;
    // Its owner fails, not the step: the operator's change is empty from now
    // on, and the others (on every worker) keep their steps in lockstep.
    ops_[i]->output()->set(MemBatch::Empty());
    poisoned_[i] = true;
    step_failures_.emplace_back(owners_[owner], std::move(s));
  }
  return Status::OK();
}

std::vector<std::pair<std::string, Status>> Circuit::TakeStepFailures() {
  return std::exchange(step_failures_, {});
}

void Circuit::SkipOwner(const std::string& owner) {
  for (size_t i = 0; i < owners_.size(); ++i) {
    if (owners_[i] == owner) skipped_[i] = true;
  }
}

InputOp* Circuit::input(const std::string& name) const {
  auto it = inputs_.find(name);
  return it == inputs_.end() ? nullptr : it->second;
}

OutputOp* Circuit::output(const std::string& name) const {
  auto it = outputs_.find(name);
  return it == outputs_.end() ? nullptr : it->second;
}

std::vector<std::string> Circuit::OperatorNames(const std::string& owner) const {
  std::vector<std::string> out;
  for (size_t i = 0; i < ops_.size(); ++i) {
    if (owners_[owner_of_[i]] == owner) out.emplace_back(ops_[i]->name());
  }
  return out;
}

void Circuit::SetOwner(std::string owner, bool fails_alone) {
  for (size_t i = 0; i < owners_.size(); ++i) {
    if (owners_[i] == owner) {
      owner_ = i;
      fails_alone_[i] = fails_alone;
      return;
    }
  }
  owner_ = owners_.size();
  owners_.push_back(std::move(owner));
  fails_alone_.push_back(fails_alone);
  skipped_.push_back(false);
}

namespace {

// Calls fn(i, key) for every operator, with its state key.
template <typename Fn>
void ForEachKey(const std::vector<size_t>& owner_of, const std::vector<std::string>& owners,
                Fn fn) {
  std::vector<size_t> ordinal(owners.size(), 0);
  for (size_t i = 0; i < owner_of.size(); ++i) {
    const size_t o = owner_of[i];
    fn(i, owners[o], owners[o] + "/" + std::to_string(ordinal[o]++));
  }
}

}  // namespace

std::shared_ptr<const OperatorTimes> Circuit::Timed() {
  auto times = std::make_shared<OperatorTimes>();
  ForEachKey(owner_of_, owners_, [&](size_t i, const std::string&, const std::string& key) {
    times->ops.push_back({key, ops_[i]->name()});
  });
  times->nanos = std::make_unique<std::atomic<uint64_t>[]>(ops_.size());
  times_ = times;
  return times;
}

Status Circuit::SaveState(StateWriter& w) const {
  Status s;
  ForEachKey(owner_of_, owners_, [&](size_t i, const std::string&, const std::string& key) {
    if (!s.ok() || !ops_[i]->has_state()) return;
    w.BeginOp(key, ops_[i]->name());
    s = ops_[i]->SaveState(w).WithContext(ops_[i]->name());
  });
  return s;
}

Status Circuit::LoadState(StateReader& r, const OwnerFilter& select) {
  Status s;
  ForEachKey(owner_of_, owners_, [&](size_t i, const std::string& owner, const std::string& key) {
    if (!s.ok() || !ops_[i]->has_state()) return;
    if (select && !select(owner)) return;
    s = r.BeginOp(key, ops_[i]->name());
    if (s.ok()) s = ops_[i]->LoadState(r).WithContext(ops_[i]->name());
  });
  SLUICE_RETURN_IF_ERROR(s);
  return select ? Status::OK() : r.Finish();
}

size_t Circuit::Replay(const OwnerFilter& select) {
  size_t n = 0;
  for (size_t i = 0; i < ops_.size(); ++i) {
    if (select(owners_[owner_of_[i]]) && ops_[i]->Replay()) ++n;
  }
  return n;
}

}  // namespace sluice
