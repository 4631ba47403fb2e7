// Window functions over whole partitions: the input is indexed by partition,
// its values encoded so that byte order is the partition's order (as for
// TopKOp). For each partition that a change touches, the operator reads the
// partition's rows before and after the change from the sorted integral,
// asks `compute` for the output rows of each, and emits the difference.
//
// Work per change is the size of the partitions it touches (a change to a
// partition of n rows costs O(n)); what each function needs of its frame is
// the compute function's business.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dataflow/circuit.h"
#include "zset/batch_builder.h"
#include "zset/spine.h"

namespace sluice {

struct OverSpec {
  // Given one partition's rows in order (each value with its multiplicity,
  // which is positive), appends that partition's output rows (each with its
  // multiplicity) to `out`.
  using Rows = std::vector<std::pair<std::string, Weight>>;
  std::function<Status(const Rows& rows, std::vector<std::pair<std::string, Weight>>* out)> compute;
};

// REQUIRES: the input is sharded by partition (Over() adds the exchange).
class OverOp final : public Operator {
 public:
  OverOp(Stream* in, OverSpec spec, const SpineOptions& opts)
      : in_(in), spec_(std::move(spec)), integral_(opts) {}
  Status Eval() override;
  const char* name() const override { return "over"; }
  bool has_state() const override { return true; }
  Status SaveState(StateWriter& w) const override;
  Status LoadState(StateReader& r) override;

 private:
  Status Emit(Cursor& c, std::string_view group, Weight sign, BatchBuilder& out);

  Stream* in_;
  OverSpec spec_;
  Spine integral_;
};

// Output rows are keys (with empty values), as relations' rows are.
Stream* Over(Circuit& c, Stream* in, OverSpec spec);

}  // namespace sluice
