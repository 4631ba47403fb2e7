#include "dataflow/operators/distinct.h"

#include "dataflow/operators/exchange.h"
#include "dataflow/state.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {

Status DistinctOp::Eval() {
  const BatchPtr& delta = in_->value();
  OrderedBuilder out;
  if (!delta->empty()) {
    auto old = integral_.NewCursor();
    auto d = delta->NewCursor();
    for (; d->KeyValid(); d->StepKey()) {
      old->SeekKey(d->key());
      bool key_found = old->KeyValid() && old->key() == d->key();
      for (; d->ValValid(); d->StepVal()) {
        Weight w_old = 0;
        if (key_found) {
          old->SeekVal(d->val());
          if (old->ValValid() && old->val() == d->val()) w_old = old->weight();
        }
        Weight w_new;
        if (__builtin_add_overflow(w_old, d->weight(), &w_new)) {
          return Status::Overflow("weight overflow in distinct");
        }
        int diff = (w_new > 0) - (w_old > 0);
        if (diff != 0) SLUICE_RETURN_IF_ERROR(out.Push(d->key(), d->val(), diff));
      }
    }
    SLUICE_RETURN_IF_ERROR(old->status());
    SLUICE_RETURN_IF_ERROR(d->status());
  }
  SLUICE_RETURN_IF_ERROR(integral_.Insert(delta));
  output_.set(out.Finish());
  return Status::OK();
}

Stream* Distinct(Circuit& c, Stream* in, std::function<bool(std::string_view row)> retain) {
  DistinctOp* op = c.Add<DistinctOp>(Exchange(c, in), c.context().spine);
  if (retain) op->SetRetain(std::move(retain));
  return op->output();
}

Status DistinctOp::SaveState(StateWriter& w) const {
  SLUICE_RETURN_IF_ERROR(w.PutSpine(integral_));
  return Status::OK();
}

Status DistinctOp::LoadState(StateReader& r) {
  SLUICE_RETURN_IF_ERROR(r.GetSpine(&integral_));
  return Status::OK();
}

}  // namespace sluice
