#pragma once

#include "dataflow/circuit.h"
#include "dataflow/state.h"

namespace sluice {

// Differentiate: given a stream of values x_0..x_t (whole relations), emits
// D(x)_t = x_t - x_{t-1} (with x_{-1} = 0). The inverse of integrate:
// D(I(a)) = a.
class DifferentiateOp final : public Operator {
 public:
  explicit DifferentiateOp(Stream* in) : in_(in) {}
  Status Eval() override;
  const char* name() const override { return "differentiate"; }
  bool has_state() const override { return true; }
  Status SaveState(StateWriter& w) const override { return w.PutBatch(prev_); }
  Status LoadState(StateReader& r) override {
    SLUICE_ASSIGN_OR_RETURN(prev_, r.GetBatch());
    return Status::OK();
  }

 private:
  Stream* in_;
  BatchPtr prev_ = MemBatch::Empty();
};

Stream* Differentiate(Circuit& c, Stream* in);

}  // namespace sluice
