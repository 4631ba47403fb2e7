#pragma once

#include <string>
#include <vector>

#include "dataflow/circuit.h"

namespace sluice {

// Input: emits the batches that the runtime pushed to this worker since the
// last step, summed. Push() is called by the runtime between steps, never
// while the worker evaluates (the step's start orders the two).
class InputOp final : public Operator {
 public:
  void Push(BatchPtr batch) { pending_.push_back(std::move(batch)); }
  Status Eval() override;
  const char* name() const override { return "input"; }

 private:
  std::vector<BatchPtr> pending_;
};

// Adds a named input to `c` and returns its stream.
Stream* AddInput(Circuit& c, const std::string& name);

}  // namespace sluice
