#include "dataflow/operators/integrate.h"

namespace sluice {

Status IntegrateOp::Eval() {
  SLUICE_RETURN_IF_ERROR(spine_.Insert(in_->value()));
  SLUICE_ASSIGN_OR_RETURN(BatchPtr all, spine_.Consolidated());
  output_.set(std::move(all));
  return Status::OK();
}

Stream* Integrate(Circuit& c, Stream* in) {
  return c.Add<IntegrateOp>(in, c.context().spine)->output();
}

}  // namespace sluice
