#pragma once

#include "dataflow/circuit.h"
#include "zset/spine.h"

namespace sluice {

// Integrate: given changes a_0..a_t, emits the integral I(a)_t = a_0 + ... +
// a_t as one consolidated batch. The integral itself lives in a spine, which
// other operators may read through spine(). Emitting the whole integral costs
// O(|I|) per step; incremental operators read spine() instead.
class IntegrateOp final : public Operator {
 public:
  IntegrateOp(Stream* in, const SpineOptions& opts) : in_(in), spine_(opts) {}
  Status Eval() override;
  const char* name() const override { return "integrate"; }
  bool has_state() const override { return true; }
  Status SaveState(StateWriter& w) const override;
  Status LoadState(StateReader& r) override;
  const Spine& spine() const { return spine_; }

 private:
  Stream* in_;
  Spine spine_;
};

Stream* Integrate(Circuit& c, Stream* in);

}  // namespace sluice
