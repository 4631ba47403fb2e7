#include "dataflow/operators/exchange.h"

#include "base/hash.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"
#include "zset/merge.h"

namespace sluice {

int WorkerForKey(std::string_view key, int workers) {
  return static_cast<int>(Hash64(key) % static_cast<uint64_t>(workers));
}

Status ExchangeOp::Eval() {
  const int n = ctx_.workers;
  // A part keeps the input's order, so it is built without sorting.
  std::vector<OrderedBuilder> parts(static_cast<size_t>(n));
  auto c = in_->value()->NewCursor();
  for (; c->KeyValid(); c->StepKey()) {
    OrderedBuilder& part = parts[static_cast<size_t>(WorkerForKey(c->key(), n))];
    for (; c->ValValid(); c->StepVal()) {
      SLUICE_RETURN_IF_ERROR(part.Push(c->key(), c->val(), c->weight()));
    }
  }
  SLUICE_RETURN_IF_ERROR(c->status());
  for (int to = 0; to < n; ++to) {
    SLUICE_RETURN_IF_ERROR(
        ctx_.transport->Send(id_, ctx_.worker, to, parts[static_cast<size_t>(to)].Finish()));
  }
  std::vector<BatchPtr> received;
  SLUICE_RETURN_IF_ERROR(ctx_.transport->Receive(id_, ctx_.worker, &received));
  SLUICE_ASSIGN_OR_RETURN(BatchPtr sum, MergeBatches(received, {}));
  output_.set(std::move(sum));
  return Status::OK();
}

Stream* Exchange(Circuit& c, Stream* in) {
  if (c.context().workers == 1) return in;
  return c.Add<ExchangeOp>(in, c.context(), c.NewExchangeId())->output();
}

}  // namespace sluice
