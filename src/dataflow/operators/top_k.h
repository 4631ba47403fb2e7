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
// REQUIRES: the input is sharded by group (TopK() adds the exchange).
class TopKOp final : public Operator {
 public:
  TopKOp(Stream* in, TopKSpec spec, const SpineOptions& opts)
      : in_(in), spec_(spec), integral_(opts) {
    if (spec_.retain) integral_.SetRetain(spec_.retain);
  }
  Status Eval() override;
  const char* name() const override { return "top_k"; }
  bool has_state() const override { return true; }
  Status SaveState(StateWriter& w) const override;
  Status LoadState(StateReader& r) override;

 private:
  Status EmitTop(Cursor& c, std::string_view group, Weight sign, BatchBuilder& out);
  Status EmitRanked(Cursor& c, std::string_view group, Weight sign, BatchBuilder& out);

  Stream* in_;
  TopKSpec spec_;
  Spine integral_;
};

Stream* TopK(Circuit& c, Stream* in, TopKSpec spec);

}  // namespace sluice
