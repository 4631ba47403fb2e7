// Window functions over partitions: the input is indexed by partition, its
// values encoded so that byte order is the partition's order (as for
// TopKOp). Given a change `a` to A, emits over(A + a) - over(A), where
// over(X) is `compute` applied to every partition of X, looking only at the
// partitions in the support of a.
//
// Two paths, chosen by the spec:
//  - whole partitions (no reach): for each partition a change touches, the
//    operator reads the partition's rows before and after the change from
//    the sorted integral, asks `compute` for the output rows of each and
//    emits the difference. A change to a partition of n rows costs O(n).
//  - bounded reach (LAG/LEAD and ROWS frames with offsets): row i's output
//    depends only on the rows at positions [i - before, i + after] of its
//    partition (counted with multiplicities), so a change at positions P
//    alters only the outputs of rows within `after` positions before P or
//    `before` positions after it. The operator merges the changed values of
//    a partition into regions (changes fewer than before + after unchanged
//    rows apart share one), finds where each region's context starts by
//    stepping `before + after` rows back from its first change in a second
//    integral whose values are stored in reverse order (cursors only move
//    forward), reads the region plus that many rows on each side from the
//    integral before and after the change, and emits the outputs of the
//    rows the change can alter: -old +new. Work follows the change and the
//    reach, never the partition's size.
//
//      a ──> exchange ──┬──> over ──> out
//                       │     ^ reads I(A) and reverse(I(A))
//                       └──> integrate (both integrals, after the step)
//
// Thread safety: all methods are called from the worker that owns it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dataflow/circuit.h"
#include "zset/batch_builder.h"
#include "zset/spine.h"

namespace sluice {

// How far a row's output reaches into its partition: the rows at most
// `before` positions before it and `after` positions after it.
struct OverReach {
  size_t before = 0;
  size_t after = 0;
};

struct OverSpec {
  // Given consecutive rows of one partition in order (each value with its
  // multiplicity, which is positive), appends the output rows (each with its
  // multiplicity) of the rows at positions [from, to), positions counting
  // multiplicities. The rows given are a whole partition, or (with a reach)
  // a run of it treated as if it were one: the outputs asked for are then
  // those whose reach lies inside the run, or crosses only the partition's
  // own ends.
  using Rows = std::vector<std::pair<std::string, Weight>>;
  std::function<Status(const Rows& rows, size_t from, size_t to,
                       std::vector<std::pair<std::string, Weight>>* out)>
      compute;
  // Set when every output depends only on the rows within this reach (and
  // on where the partition starts and ends), not on the partition's size
  // or its other rows. Unset: whole partitions.
  std::optional<OverReach> reach;
};

// REQUIRES: the input is sharded by partition (Over() adds the exchange).
class OverOp final : public Operator {
 public:
  OverOp(Stream* in, OverSpec spec, const SpineOptions& opts)
      : in_(in), spec_(std::move(spec)), integral_(opts), reversed_(opts) {}
  Status Eval() override;
  const char* name() const override { return "over"; }
  bool has_state() const override { return true; }
  // The checkpoint holds the integral only; the reversed integral is built
  // again from it on load.
  Status SaveState(StateWriter& w) const override;
  Status LoadState(StateReader& r) override;

 private:
  struct Region;
  Status Emit(Cursor& c, std::string_view group, Weight sign, BatchBuilder& out);
  Result<MemBatchPtr> EvalBounded(const BatchPtr& delta);
  // The regions of one partition's changed values `changed` (sorted), each
  // with the value its context starts at.
  Status FindRegions(std::string_view part, const std::vector<std::string>& changed, Cursor& probe,
                     Cursor& reversed, std::vector<Region>* regions);
  // Reads region `r`'s rows from `c` (positioned on the partition) and emits
  // the outputs of the rows a change can alter, with sign `sign`.
  Status EmitRegion(Cursor& c, const std::vector<std::string>& changed, const Region& r,
                    Weight sign, BatchBuilder& out);

  Stream* in_;
  OverSpec spec_;
  Spine integral_;
  // With a reach: the integral again, each value v stored as Reverse(v), so
  // that a forward cursor reads a partition from its end to its start.
  Spine reversed_;
};

// Output rows are keys (with empty values), as relations' rows are.
Stream* Over(Circuit& c, Stream* in, OverSpec spec);

}  // namespace sluice
