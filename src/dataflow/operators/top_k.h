#pragma once

#include <functional>
#include <string_view>

#include "dataflow/circuit.h"
#include "zset/batch_builder.h"
#include "zset/spine.h"

namespace sluice {

enum class RankKind { kRowNumber, kRank, kDenseRank };

struct TopKSpec {
  size_t k = 1;
  // Append ROW_NUMBER() (BIGINT NOT NULL, from 1) to each output value; each
  // copy of a duplicated row then becomes its own output row.
  bool row_number = false;
  // RANK() and DENSE_RANK() instead: values whose `order_key` prefix is equal
  // are peers with one rank, appended as with row_number; the group keeps the
  // rows ranked up to k (so ties may keep more than k rows).
  RankKind rank = RankKind::kRowNumber;
  std::function<size_t(std::string_view val)> order_key;  // prefix length
  // If set, the groups it rejects (behind a waterline: no later change can
  // reach them) are forgotten as the integral's merges reach them.
  std::function<bool(std::string_view group)> retain;
  // The input never carries a negative weight (an append-only table and
  // what keeps it so): keep only the rows ranked up to k (see TopKOp).
  bool insert_only = false;
};

// Top-k per group: the input is indexed by group, and its values are encoded
// so that byte order is the wanted order (the SQL layer puts the ORDER BY
// columns first, inverting DESC ones). For each group it keeps the first k
// rows, counting multiplicities (ORDER BY ... LIMIT k, ROW_NUMBER() <= k), or
// the rows whose RANK() or DENSE_RANK() is at most k.
//
// Given a change `a` to A, it emits topk(A + a) - topk(A) for the groups in
// the support of a, reading the first k rows of each such group from the
// sorted integral, before and after: work per group is O(k + log n), not the
// group's size.
//
// Over an insert-only input (spec.insert_only), its "integral" keeps only the
// rows that are in the top k now (counting multiplicities, or with their
// RANK or DENSE_RANK at most k): an insert only pushes rows down, so a row
// that falls out can never come back, and the top k of the kept rows plus
// a change is the top k of the whole input plus it. State per group is
// then O(k) (plus ties, for RANK), not the group's size. A negative weight
// reaching it is a bug of the planner: Eval() fails (Status::Internal).
//
// REQUIRES: the input is sharded by group (TopK() adds the exchange).
class TopKOp final : public Operator {
 public:
  TopKOp(Stream* in, TopKSpec spec, const SpineOptions& opts)
      : in_(in), spec_(spec), integral_(opts) {
    if (spec_.retain) integral_.SetRetain(spec_.retain);
  }
  Status Eval() override;
  // The insert-only variant keeps other state: its own name, so that a
  // checkpoint of one is never loaded into the other.
  const char* name() const override { return spec_.insert_only ? "top_k_insert_only" : "top_k"; }
  bool has_state() const override { return true; }
  Status SaveState(StateWriter& w) const override;
  Status LoadState(StateReader& r) override;

 private:
  // Pushes the group's top rows to `out` with `sign`; with `kept`, also the
  // rows themselves (without their number or rank), with their counts.
  Status EmitTop(Cursor& c, std::string_view group, Weight sign, BatchBuilder& out,
                 BatchBuilder* kept = nullptr);
  Status EmitRanked(Cursor& c, std::string_view group, Weight sign, BatchBuilder& out,
                    BatchBuilder* kept);
  // The insert-only step: the kept rows change by the groups' new top rows
  // minus their old ones.
  Status EvalInsertOnly();

  Stream* in_;
  TopKSpec spec_;
  Spine integral_;
};

Stream* TopK(Circuit& c, Stream* in, TopKSpec spec);

}  // namespace sluice
