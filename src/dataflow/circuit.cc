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

Status Circuit::SaveState(StateWriter& w) const {
  for (size_t i = 0; i < ops_.size(); ++i) {
    if (!ops_[i]->has_state()) continue;
    w.BeginOp(i, ops_[i]->name());
    SLUICE_RETURN_IF_ERROR(ops_[i]->SaveState(w).WithContext(ops_[i]->name()));
  }
  return Status::OK();
}

Status Circuit::LoadState(StateReader& r) {
  for (size_t i = 0; i < ops_.size(); ++i) {
    if (!ops_[i]->has_state()) continue;
    SLUICE_RETURN_IF_ERROR(r.BeginOp(i, ops_[i]->name()));
    SLUICE_RETURN_IF_ERROR(ops_[i]->LoadState(r).WithContext(ops_[i]->name()));
  }
  return r.Finish();
}

}  // namespace sluice
