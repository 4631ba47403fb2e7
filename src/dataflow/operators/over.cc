#include "dataflow/operators/over.h"

#include "dataflow/operators/exchange.h"
#include "dataflow/operators/per_group.h"
#include "dataflow/state.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {

Status OverOp::Emit(Cursor& c, std::string_view group, Weight sign, BatchBuilder& out) {
  c.SeekKey(group);
  if (!c.KeyValid() || c.key() != group) return Status::OK();
  // The cursor's values may not outlive a step: copied.
  OverSpec::Rows rows;
  for (; c.ValValid(); c.StepVal()) {
    if (c.weight() <= 0) continue;  // not a row of a relation
    rows.emplace_back(std::string(c.val()), c.weight());
  }
  SLUICE_RETURN_IF_ERROR(c.status());
  std::vector<std::pair<std::string, Weight>> results;
  SLUICE_RETURN_IF_ERROR(spec_.compute(rows, &results));
  for (const auto& [row, w] : results) out.Push(row, "", sign * w);
  return Status::OK();
}

Status OverOp::Eval() {
  SLUICE_ASSIGN_OR_RETURN(
      MemBatchPtr result,
      RecomputeTouchedGroups(in_->value(), integral_,
                             [this](Cursor& c, std::string_view group, Weight sign,
                                    BatchBuilder& out) { return Emit(c, group, sign, out); }));
  output_.set(std::move(result));
  return Status::OK();
}

Stream* Over(Circuit& c, Stream* in, OverSpec spec) {
  return c.Add<OverOp>(Exchange(c, in), std::move(spec), c.context().spine)->output();
}

Status OverOp::SaveState(StateWriter& w) const { return w.PutSpine(integral_); }

Status OverOp::LoadState(StateReader& r) { return r.GetSpine(&integral_); }

}  // namespace sluice
