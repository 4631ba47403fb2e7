#include "dataflow/operators/map.h"

#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {

Status MapOp::Eval() {
  const BatchPtr& in = in_->value();
  BatchBuilder out;
  out.Reserve(in->len(), in->byte_size());
  std::string k, v;
  auto c = in->NewCursor();
  for (; c->KeyValid(); c->StepKey()) {
    for (; c->ValValid(); c->StepVal()) {
      k.clear();
      v.clear();
      SLUICE_RETURN_IF_ERROR(fn_(c->key(), c->val(), &k, &v));
      out.Push(k, v, c->weight());
    }
  }
  SLUICE_RETURN_IF_ERROR(c->status());
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr b, out.Finish());
  output_.set(std::move(b));
  return Status::OK();
}

Stream* Map(Circuit& c, Stream* in, MapFn fn) { return c.Add<MapOp>(in, std::move(fn))->output(); }

}  // namespace sluice
