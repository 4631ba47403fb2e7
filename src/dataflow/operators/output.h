#pragma once

#include <string>

#include "dataflow/circuit.h"

namespace sluice {

// Output: holds the step's change of its input, for the runtime to collect
// after the step.
class OutputOp final : public Operator {
 public:
  explicit OutputOp(Stream* in) : in_(in) {}
  Status Eval() override {
    output_.set(in_->value());
    return Status::OK();
  }
  const char* name() const override { return "output"; }

 private:
  Stream* in_;
};

void AddOutput(Circuit& c, Stream* in, const std::string& name);

}  // namespace sluice
