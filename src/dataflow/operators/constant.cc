#include "dataflow/operators/constant.h"

#include "zset/batch_builder.h"

namespace sluice {

Stream* Constant(Circuit& c, BatchPtr batch) {
  return c.Add<ConstantOp>(std::move(batch), c.context().worker == 0)->output();
}

Status StepClockRelationOp::Eval() {
  const int64_t now = clock_->now();
  if (!emits_ || (emitted_ && now == at_)) {
    output_.set(MemBatch::Empty());
    return Status::OK();
  }
  BatchBuilder b;
  std::string row;
  if (emitted_) {
    SLUICE_RETURN_IF_ERROR(row_of_(at_, &row));
    b.Push(row, -1);
    row.clear();
  }
  SLUICE_RETURN_IF_ERROR(row_of_(now, &row));
  b.Push(row, 1);
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr batch, b.Finish());
  output_.set(std::move(batch));
  emitted_ = true;
  at_ = now;
  return Status::OK();
}

Status StepClockRelationOp::SaveState(StateWriter& w) const {
  w.PutU64(emitted_);
  w.PutU64(static_cast<uint64_t>(at_));
  return Status::OK();
}

Status StepClockRelationOp::LoadState(StateReader& r) {
  SLUICE_ASSIGN_OR_RETURN(uint64_t emitted, r.GetU64());
  SLUICE_ASSIGN_OR_RETURN(uint64_t at, r.GetU64());
  emitted_ = emitted != 0;
  at_ = static_cast<int64_t>(at);
  return Status::OK();
}

Stream* StepClockRelation(Circuit& c, StepClockPtr clock, ClockRowFn row_of) {
  return c.Add<StepClockRelationOp>(std::move(clock), std::move(row_of), c.context().worker == 0)
      ->output();
}

}  // namespace sluice
