#include "dataflow/circuit.h"

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

}  // namespace sluice
