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
  // The cursor's values may not outlive a step: copy them.
  std::vector<std::pair<std::string, Weight>> held;
  for (; c.ValValid(); c.StepVal()) {
    if (c.weight() <= 0) continue;  // not a row of a relation
    held.emplace_back(std::string(c.val()), c.weight());
  }
  SLUICE_RETURN_IF_ERROR(c.status());
  OverSpec::Rows rows;
  rows.reserve(held.size());
  for (const auto& [v, w] : held) rows.emplace_back(v, w);
  std::vector<std::pair<std::string, Weight>> results;
  SLUICE_RETURN_IF_ERROR(spec_.compute(rows, &results));
  for (const auto& [row, w] : results) out.Push(row, "", sign * w);
  return Status::OK();
}

Status OverOp::Eval() {
  const BatchPtr& delta = in_->value();
  if (delta->empty()) {
    output_.set(MemBatch::Empty());
    return Status::OK();
  }
  SLUICE_ASSIGN_OR_RETURN(
      MemBatchPtr result,
      RecomputeTouchedGroups(delta, integral_,
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
