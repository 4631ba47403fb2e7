#pragma once

#include "dataflow/circuit.h"
#include "zset/spine.h"

namespace sluice {

// Distinct: given changes `a` to A and the integral of A, emits
// distinct(A + a) - distinct(A), looking only at the pairs in the support of
// a: for each (k, v) in a, with old weight w = A[k, v], it emits
// [w + a[k, v] > 0] - [w > 0]. distinct(Z)[p] = 1 if Z[p] > 0, else 0.
//
// REQUIRES: the input is sharded by key (an exchange precedes it), so every
// copy of a pair meets on one worker.
class DistinctOp final : public Operator {
 public:
  DistinctOp(Stream* in, const SpineOptions& opts) : in_(in), integral_(opts) {}
  Status Eval() override;
  const char* name() const override { return "distinct"; }
  bool has_state() const override { return true; }
  Status SaveState(StateWriter& w) const override;
  Status LoadState(StateReader& r) override;

 private:
  Stream* in_;
  Spine integral_;
};

// Adds an exchange (with more than one worker) and a distinct.
Stream* Distinct(Circuit& c, Stream* in);

}  // namespace sluice
