#pragma once

#include "dataflow/circuit.h"
#include "zset/spine.h"

namespace sluice {

// Intersect (INTERSECT ALL): for every pair p, out[p] = min(A[p], B[p]) over
// the relations A and B (weights are multiplicities, so negative integrals
// count as zero). Given changes a and b, it looks only at the pairs in the
// support of a or b: it emits min(A + a, B + b)[p] - min(A, B)[p] for them.
// EXCEPT ALL is A - intersect(A, B), since max(A - B, 0) = A - min(A, B).
//
// REQUIRES: both inputs are sharded by key (Intersect() adds the exchanges).
class IntersectOp final : public Operator {
 public:
  IntersectOp(Stream* a, Stream* b, const SpineOptions& opts)
      : a_(a), b_(b), ia_(opts), ib_(opts) {}
  Status Eval() override;
  const char* name() const override { return "intersect"; }
  bool has_state() const override { return true; }
  Status SaveState(StateWriter& w) const override;
  Status LoadState(StateReader& r) override;

 private:
  Stream* a_;
  Stream* b_;
  Spine ia_, ib_;
};

Stream* Intersect(Circuit& c, Stream* a, Stream* b);

}  // namespace sluice
