#include "dataflow/operators/sum.h"

#include "zset/batch_builder.h"
#include "zset/cursor.h"
#include "zset/merge.h"

namespace sluice {

MemBatchPtr NegateBatch(const Batch& batch) {
  OrderedBuilder out;
  auto c = batch.NewCursor();
  for (; c->KeyValid(); c->StepKey()) {
    for (; c->ValValid(); c->StepVal()) {
      // Negating a non-zero weight of distinct pairs cannot overflow except
      // for INT64_MIN, which no consolidated relation reaches.
      (void)out.Push(c->key(), c->val(), -c->weight());
    }
  }
  return out.Finish();
}

Status SumOp::Eval() {
  std::vector<BatchPtr> terms;
  for (size_t i = 0; i < ins_.size(); ++i) {
    const BatchPtr& b = ins_[i]->value();
    if (b->empty()) continue;
    terms.push_back(signs_[i] > 0 ? b : NegateBatch(*b));
  }
  if (terms.empty()) {
    output_.set(MemBatch::Empty());
  } else if (terms.size() == 1) {
    output_.set(terms[0]);
  } else {
    SLUICE_ASSIGN_OR_RETURN(BatchPtr sum, MergeBatches(terms, {}));
    output_.set(std::move(sum));
  }
  return Status::OK();
}

Stream* Union(Circuit& c, std::vector<Stream*> ins) {
  std::vector<int> signs(ins.size(), 1);
  return c.Add<SumOp>(std::move(ins), std::move(signs))->output();
}

Stream* Subtract(Circuit& c, Stream* a, Stream* b) {
  return c.Add<SumOp>(std::vector<Stream*>{a, b}, std::vector<int>{1, -1})->output();
}

Stream* Negate(Circuit& c, Stream* a) {
  return c.Add<SumOp>(std::vector<Stream*>{a}, std::vector<int>{-1})->output();
}

}  // namespace sluice
