#include "dataflow/operators/clamp.h"

#include "dataflow/operators/exchange.h"
#include "dataflow/state.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {
namespace {

Result<bool> HasNegativeWeight(const Batch& b) {
  auto c = b.NewCursor();
  for (; c->KeyValid(); c->StepKey()) {
    for (; c->ValValid(); c->StepVal()) {
      if (c->weight() < 0) return true;
    }
  }
  SLUICE_RETURN_IF_ERROR(c->status());
  return false;
}

}  // namespace

Status ClampOp::Apply(BatchPtr* out, int64_t* ignored) {
  const BatchPtr& delta = in_->value();
  *ignored = 0;
  SLUICE_ASSIGN_OR_RETURN(bool deletes, HasNegativeWeight(*delta));
  if (!deletes && !check_) {
    *out = delta;
    return Status::OK();
  }
  OrderedBuilder clamped;
  auto old = integral_.NewCursor();
  auto d = delta->NewCursor();
  for (; d->KeyValid(); d->StepKey()) {
    // The integral is sought only for a delete: inserts (checked or not)
    // need no lookup.
    bool sought = false, key_found = false;
    for (; d->ValValid(); d->StepVal()) {
      if (d->weight() > 0) {
        bool keep = true;
        if (check_) {
          SLUICE_ASSIGN_OR_RETURN(keep, check_(d->key()));
        }
        if (keep) SLUICE_RETURN_IF_ERROR(clamped.Push(d->key(), d->val(), d->weight()));
        continue;
      }
      if (!sought) {
        old->SeekKey(d->key());
        key_found = old->KeyValid() && old->key() == d->key();
        sought = true;
      }
      Weight w_old = 0;
      if (key_found) {
        old->SeekVal(d->val());
        if (old->ValValid() && old->val() == d->val()) w_old = old->weight();
      }
      // -d->weight() copies are to go; w_old are there.
      const Weight gone = std::min(w_old, -d->weight());
      *ignored += -d->weight() - gone;
      if (gone > 0) SLUICE_RETURN_IF_ERROR(clamped.Push(d->key(), d->val(), -gone));
    }
  }
  SLUICE_RETURN_IF_ERROR(old->status());
  SLUICE_RETURN_IF_ERROR(d->status());
  *out = clamped.Finish();
  return Status::OK();
}

Status ClampOp::Eval() {
  BatchPtr change;
  int64_t ignored = 0;
  SLUICE_RETURN_IF_ERROR(Apply(&change, &ignored));
  if (ignored != 0 && on_ignored_) on_ignored_(ignored);
  SLUICE_RETURN_IF_ERROR(integral_.Insert(change));
  if (!replay_) {
    output_.set(std::move(change));
    return Status::OK();
  }
  // Replay: the contents as they now are, instead of their change.
  replay_ = false;
  OrderedBuilder all;
  auto c = integral_.NewCursor();
  for (; c->KeyValid(); c->StepKey()) {
    for (; c->ValValid(); c->StepVal()) {
      SLUICE_RETURN_IF_ERROR(all.Push(c->key(), c->val(), c->weight()));
    }
  }
  SLUICE_RETURN_IF_ERROR(c->status());
  output_.set(all.Finish());
  return Status::OK();
}

Stream* Clamp(Circuit& c, Stream* in, bool sharded, std::function<void(int64_t)> on_ignored,
              RowCheckFn check) {
  if (!sharded) in = Exchange(c, in);
  return c.Add<ClampOp>(in, c.context().spine, std::move(on_ignored), std::move(check))->output();
}

Status ClampOp::SaveState(StateWriter& w) const {
  SLUICE_RETURN_IF_ERROR(w.PutSpine(integral_));
  return Status::OK();
}

Status ClampOp::LoadState(StateReader& r) {
  SLUICE_RETURN_IF_ERROR(r.GetSpine(&integral_));
  return Status::OK();
}

}  // namespace sluice
