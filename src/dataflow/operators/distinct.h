#pragma once

#include <functional>
#include <string_view>

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
  // Forgets the rows for which `retain` returns false (rows behind a
  // waterline, whose count no later change can move), as merges reach them.
  void SetRetain(std::function<bool(std::string_view row)> retain) {
    integral_.SetRetain(std::move(retain));
  }
  Status Eval() override;
  const char* name() const override { return "distinct"; }
  bool has_state() const override { return true; }
  Status SaveState(StateWriter& w) const override;
  Status LoadState(StateReader& r) override;

 private:
  Stream* in_;
  Spine integral_;
};

// Adds an exchange (with more than one worker) and a distinct; with
// `retain`, the distinct forgets the rows it rejects (SetRetain).
Stream* Distinct(Circuit& c, Stream* in,
                 std::function<bool(std::string_view row)> retain = nullptr);

}  // namespace sluice
