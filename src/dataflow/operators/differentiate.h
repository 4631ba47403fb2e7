#pragma once

#include "dataflow/circuit.h"

namespace sluice {

// Differentiate: given a stream of values x_0..x_t (whole relations), emits
// D(x)_t = x_t - x_{t-1} (with x_{-1} = 0). The inverse of integrate:
// D(I(a)) = a.
class DifferentiateOp final : public Operator {
 public:
  explicit DifferentiateOp(Stream* in) : in_(in) {}
  Status Eval() override;
  const char* name() const override { return "differentiate"; }

 private:
  Stream* in_;
  BatchPtr prev_ = MemBatch::Empty();
};

Stream* Differentiate(Circuit& c, Stream* in);

}  // namespace sluice
