#pragma once

#include "dataflow/circuit.h"
#include "dataflow/state.h"

namespace sluice {

// Constant: a relation that never changes (SELECT without FROM, VALUES). Its
// stream is the batch at step 0 and empty afterwards, so its integral is the
// batch. Only worker 0 emits it, so that W workers do not count it W times.
class ConstantOp final : public Operator {
 public:
  ConstantOp(BatchPtr batch, bool emits) : batch_(std::move(batch)), emits_(emits) {}
  Status Eval() override {
    output_.set(emits_ && !done_ ? batch_ : MemBatch::Empty());
    done_ = true;
    return Status::OK();
  }
  const char* name() const override { return "constant"; }
  bool has_state() const override { return true; }
  Status SaveState(StateWriter& w) const override {
    w.PutU64(done_);
    return Status::OK();
  }
  Status LoadState(StateReader& r) override {
    SLUICE_ASSIGN_OR_RETURN(uint64_t done, r.GetU64());
    done_ = done != 0;
    return Status::OK();
  }

 private:
  BatchPtr batch_;
  bool emits_;
  bool done_ = false;
};

Stream* Constant(Circuit& c, BatchPtr batch);

}  // namespace sluice
