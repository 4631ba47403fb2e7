#pragma once

#include "dataflow/circuit.h"

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

 private:
  Stream* in_;
  BatchPtr held_ = MemBatch::Empty();
};

Stream* Delay(Circuit& c, Stream* in);

}  // namespace sluice
