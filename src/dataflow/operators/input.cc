#include "dataflow/operators/input.h"

#include "zset/merge.h"

namespace sluice {

Status InputOp::Eval() {
  if (pending_.empty()) {
    output_.set(MemBatch::Empty());
    return Status::OK();
  }
  BatchPtr sum = pending_[0];
  if (pending_.size() > 1) {
    SLUICE_ASSIGN_OR_RETURN(sum, MergeBatches(pending_, {}));
  }
  pending_.clear();
  output_.set(std::move(sum));
  return Status::OK();
}

Stream* AddInput(Circuit& c, const std::string& name) {
  InputOp* op = c.Add<InputOp>();
  c.RegisterInput(name, op);
  return op->output();
}

}  // namespace sluice
