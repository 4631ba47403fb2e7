#pragma once

#include "dataflow/circuit.h"
#include "dataflow/state.h"

namespace sluice {

// Delay (z^-1): emits at step t the input of step t-1, and the empty batch at
// step 0.
class DelayOp final : public Operator {
 public:
  explicit DelayOp(Stream* in) : in_(in) {}
  Status Eval() override {
    output_.set(std::move(held_));
    held_ = in_->value();
    return Status::OK();
  }
  const char* name() const override { return "delay"; }
  bool has_state() const override { return true; }
  Status SaveState(StateWriter& w) const override { return w.PutBatch(held_); }
  Status LoadState(StateReader& r) override {
    SLUICE_ASSIGN_OR_RETURN(held_, r.GetBatch());
    return Status::OK();
  }

 private:
  Stream* in_;
  BatchPtr held_ = MemBatch::Empty();
};

Stream* Delay(Circuit& c, Stream* in);

}  // namespace sluice
