#include "dataflow/operators/exchange.h"

#include "base/hash.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"
#include "zset/merge.h"

namespace sluice {

int WorkerForKey(std::string_view key, int workers) {
  return static_cast<int>(Hash64(key) % static_cast<uint64_t>(workers));
}

Result<std::vector<MemBatchPtr>> PartitionByKey(const Batch& batch, int workers) {
  std::vector<OrderedBuilder> parts(static_cast<size_t>(workers));
  auto c = batch.NewCursor();
  for (; c->KeyValid(); c->StepKey()) {
    OrderedBuilder& part = parts[static_cast<size_t>(WorkerForKey(c->key(), workers))];
    for (; c->ValValid(); c->StepVal()) {
      SLUICE_RETURN_IF_ERROR(part.Push(c->key(), c->val(), c->weight()));
    }
  }
  SLUICE_RETURN_IF_ERROR(c->status());
  std::vector<MemBatchPtr> out;
  out.reserve(parts.size());
  for (OrderedBuilder& part : parts) out.push_back(part.Finish());
  return out;
}

Status ExchangeOp::Eval() {
  if (enabled_ && !enabled_->load()) {
    for (int to = 0; to < ctx_.workers; ++to) {
      SLUICE_RETURN_IF_ERROR(ctx_.transport->Send(id_, ctx_.worker, to, MemBatch::Empty()));
    }
    std::vector<BatchPtr> received;
    SLUICE_RETURN_IF_ERROR(ctx_.transport->Receive(id_, ctx_.worker, &received));
    output_.set(MemBatch::Empty());
    return Status::OK();
  }
  SLUICE_ASSIGN_OR_RETURN(std::vector<MemBatchPtr> parts, PartitionByKey(*in_->value(), count_));
  for (int to = 0; to < ctx_.workers; ++to) {
    const int part = to - first_;
    BatchPtr b = part >= 0 && part < count_ ? std::move(parts[static_cast<size_t>(part)])
                                            : MemBatch::Empty();
    SLUICE_RETURN_IF_ERROR(ctx_.transport->Send(id_, ctx_.worker, to, std::move(b)));
  }
  std::vector<BatchPtr> received;
  SLUICE_RETURN_IF_ERROR(ctx_.transport->Receive(id_, ctx_.worker, &received));
  SLUICE_ASSIGN_OR_RETURN(BatchPtr sum, MergeBatches(received, {}));
  output_.set(std::move(sum));
  return Status::OK();
}

Stream* Exchange(Circuit& c, Stream* in) {
  if (c.context().workers == 1) return in;
  return c.Add<ExchangeOp>(in, c.context(), c.NewExchangeId(), 0, c.context().workers)->output();
}

Stream* ExchangeTo(Circuit& c, Stream* in, int first, int count,
                   std::shared_ptr<const std::atomic<bool>> enabled) {
  if (c.context().workers == 1) return in;
  return c.Add<ExchangeOp>(in, c.context(), c.NewExchangeId(), first, count, std::move(enabled))
      ->output();
}

}  // namespace sluice
