#pragma once

#include <functional>
#include <string>

#include "dataflow/circuit.h"
#include "dataflow/clock.h"
#include "dataflow/state.h"

namespace sluice {

// Constant: a relation that never changes (SELECT without FROM, VALUES). Its
// stream is the batch at step 0 and empty afterwards, so its integral is the
// batch. Only worker 0 emits it, so that W workers do not count it W times.
class ConstantOp final : public Operator {
 public:
  ConstantOp(BatchPtr batch, bool emits) : batch_(std::move(batch)), emits_(emits) {}
  Status Eval() override {
    output_.set(emits_ && !done_ ? batch_ : MemBatch::Empty());
    done_ = true;
    return Status::OK();
  }
  const char* name() const override { return "constant"; }
  bool has_state() const override { return true; }
  Status SaveState(StateWriter& w) const override {
    w.PutU64(done_);
    return Status::OK();
  }
  Status LoadState(StateReader& r) override {
    SLUICE_ASSIGN_OR_RETURN(uint64_t done, r.GetU64());
    done_ = done != 0;
    return Status::OK();
  }

 private:
  BatchPtr batch_;
  bool emits_;
  bool done_ = false;
};

Stream* Constant(Circuit& c, BatchPtr batch);

// Writes the row of the clock relation for the clock's value `micros`.
using ClockRowFn = std::function<Status(int64_t micros, std::string* row)>;

// StepClockRelation: the one-row relation {NOW()} (a view that reads NOW()
// outside a temporal filter joins it). Its change in a step whose clock
// moved is the old row out and the new one in; nothing otherwise. So what
// reads it is recomputed each time the clock moves, as Feldera's `now`
// stream is. Only worker 0 emits it, as a constant. The row emitted last
// is kept with the state, so a restart retracts it.
class StepClockRelationOp final : public Operator {
 public:
  StepClockRelationOp(StepClockPtr clock, ClockRowFn row_of, bool emits)
      : clock_(std::move(clock)), row_of_(std::move(row_of)), emits_(emits) {}
  Status Eval() override;
  const char* name() const override { return "step_clock"; }
  bool has_state() const override { return true; }
  Status SaveState(StateWriter& w) const override;
  Status LoadState(StateReader& r) override;

 private:
  StepClockPtr clock_;
  ClockRowFn row_of_;
  bool emits_;
  bool emitted_ = false;  // whether the row of `at_` is in the relation
  int64_t at_ = 0;
};

Stream* StepClockRelation(Circuit& c, StepClockPtr clock, ClockRowFn row_of);

}  // namespace sluice
