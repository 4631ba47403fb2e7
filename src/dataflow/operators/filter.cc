#include "dataflow/operators/filter.h"

#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {

Status FilterOp::Eval() {
  const BatchPtr& in = in_->value();
  OrderedBuilder out;
  auto c = in->NewCursor();
  for (; c->KeyValid(); c->StepKey()) {
    for (; c->ValValid(); c->StepVal()) {
      bool keep = false;
      SLUICE_RETURN_IF_ERROR(fn_(c->key(), c->val(), &keep));
      if (keep) SLUICE_RETURN_IF_ERROR(out.Push(c->key(), c->val(), c->weight()));
    }
  }
  SLUICE_RETURN_IF_ERROR(c->status());
  output_.set(out.Finish());
  return Status::OK();
}

Stream* Filter(Circuit& c, Stream* in, FilterFn fn) {
  return c.Add<FilterOp>(in, std::move(fn))->output();
}

}  // namespace sluice
