#include "dataflow/circuit.h"

#include "dataflow/state.h"

namespace sluice {

Status Circuit::Step() {
  for (size_t i = 0; i < ops_.size(); ++i) {
    Status s = ops_[i]->Eval();
    if (!s.ok()) {
      return s.WithContext(std::string("operator ") + std::to_string(i) + " (" + ops_[i]->name() +
                           ")");
    }
  }
  return Status::OK();
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

void Circuit::SetOwner(std::string owner) {
  for (size_t i = 0; i < owners_.size(); ++i) {
    if (owners_[i] == owner) {
      owner_ = i;
      return;
    }
  }
  owner_ = owners_.size();
  owners_.push_back(std::move(owner));
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
