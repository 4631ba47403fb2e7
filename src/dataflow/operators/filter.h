#pragma once

#include <functional>
#include <string_view>

#include "dataflow/circuit.h"

namespace sluice {

// Sets `*keep` for one (key, value) pair.
using FilterFn = std::function<Status(std::string_view key, std::string_view val, bool* keep)>;

// Filter: given a change `a`, emits the pairs of `a` that satisfy p, with
// their weights. Linear: filter(A + a) = filter(A) + filter(a). The output
// keeps the input's order, so it is built without sorting.
class FilterOp final : public Operator {
 public:
  FilterOp(Stream* in, FilterFn fn) : in_(in), fn_(std::move(fn)) {}
  Status Eval() override;
  const char* name() const override { return "filter"; }

 private:
  Stream* in_;
  FilterFn fn_;
};

Stream* Filter(Circuit& c, Stream* in, FilterFn fn);

}  // namespace sluice
