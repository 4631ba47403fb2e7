#include "dataflow/operators/differentiate.h"

#include "dataflow/operators/sum.h"
#include "zset/merge.h"

namespace sluice {

Status DifferentiateOp::Eval() {
  const BatchPtr& cur = in_->value();
  SLUICE_ASSIGN_OR_RETURN(BatchPtr diff, MergeBatches({cur, NegateBatch(*prev_)}, {}));
  prev_ = cur;
  output_.set(std::move(diff));
  return Status::OK();
}

Stream* Differentiate(Circuit& c, Stream* in) { return c.Add<DifferentiateOp>(in)->output(); }

}  // namespace sluice
