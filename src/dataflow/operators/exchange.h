#pragma once

#include <atomic>
#include <memory>

#include "dataflow/circuit.h"

namespace sluice {

// Exchange: re-shards a stream by key. Each worker splits its change `a` by
// hash(key) mod W into W parts, sends part j to worker j through the
// circuit's transport, and emits the sum of the parts that it receives. The
// sum over workers is unchanged (exchange is the identity on the whole
// stream), and afterwards every pair with key k sits on worker
// Hash64(k) mod W. With one worker it passes its input through.
//
// A gather (ExchangeTo) sends every row to a range of `count` workers from
// `first` instead (Hash64(k) mod count picks one), e.g. to the workers of
// one host. A gather with an `enabled` switch sends nothing (empty batches,
// so that the round still completes) while the switch is off: the caller
// flips it on every host between the same two steps.
class ExchangeOp final : public Operator {
 public:
  ExchangeOp(Stream* in, const WorkerContext& ctx, int id, int first, int count,
             std::shared_ptr<const std::atomic<bool>> enabled = nullptr)
      : in_(in), ctx_(ctx), id_(id), first_(first), count_(count), enabled_(std::move(enabled)) {}
  Status Eval() override;
  const char* name() const override { return "exchange"; }

 private:
  Stream* in_;
  WorkerContext ctx_;
  int id_;
  int first_, count_;
  std::shared_ptr<const std::atomic<bool>> enabled_;
};

// The worker that owns `key` among `workers`.
int WorkerForKey(std::string_view key, int workers);

// Splits `batch` into `workers` parts by WorkerForKey; each part keeps the
// batch's order, so no part is sorted again.
Result<std::vector<MemBatchPtr>> PartitionByKey(const Batch& batch, int workers);

Stream* Exchange(Circuit& c, Stream* in);
// Moves every row of `in` to workers [first, first + count) (while
// `enabled`, if given, is on).
Stream* ExchangeTo(Circuit& c, Stream* in, int first, int count,
                   std::shared_ptr<const std::atomic<bool>> enabled = nullptr);

}  // namespace sluice
