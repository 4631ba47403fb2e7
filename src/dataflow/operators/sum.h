#pragma once

#include <vector>

#include "dataflow/circuit.h"

namespace sluice {

// Sum: given changes a_1..a_n and signs s_i in {+1, -1}, emits
// s_1 a_1 + ... + s_n a_n, consolidated. Linear. UNION ALL is a sum of
// positive terms; subtraction (EXCEPT ALL before clamping) and negation use
// negative signs.
class SumOp final : public Operator {
 public:
  SumOp(std::vector<Stream*> ins, std::vector<int> signs)
      : ins_(std::move(ins)), signs_(std::move(signs)) {}
  Status Eval() override;
  const char* name() const override { return "sum"; }

 private:
  std::vector<Stream*> ins_;
  std::vector<int> signs_;
};

Stream* Union(Circuit& c, std::vector<Stream*> ins);
Stream* Subtract(Circuit& c, Stream* a, Stream* b);
Stream* Negate(Circuit& c, Stream* a);

// -batch: the same pairs with negated weights.
MemBatchPtr NegateBatch(const Batch& batch);

}  // namespace sluice
