#include "dataflow/operators/flat_map.h"

#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {

Status FlatMapOp::Eval() {
  BatchBuilder out;
  // Most maps give a row or none per row, no longer than it: reserved up
  // front, the builder does not copy its bytes again as it grows.
  const Batch& in = *in_->value();
  if (!in.on_storage()) out.Reserve(in.len(), in.byte_size());
  Weight w = 0;
  EmitFn emit = [&](std::string_view k, std::string_view v) { out.Push(k, v, w); };
  auto c = in.NewCursor();
  for (; c->KeyValid(); c->StepKey()) {
    for (; c->ValValid(); c->StepVal()) {
      w = c->weight();
      SLUICE_RETURN_IF_ERROR(fn_(c->key(), c->val(), emit));
    }
  }
  SLUICE_RETURN_IF_ERROR(c->status());
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr b, out.Finish());
  output_.set(std::move(b));
  return Status::OK();
}

Stream* FlatMap(Circuit& c, Stream* in, FlatMapFn fn) {
  return c.Add<FlatMapOp>(in, std::move(fn))->output();
}

}  // namespace sluice
