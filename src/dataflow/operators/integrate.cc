#include "dataflow/operators/integrate.h"

#include "dataflow/state.h"

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

Status IntegrateOp::SaveState(StateWriter& w) const {
  SLUICE_RETURN_IF_ERROR(w.PutSpine(spine_));
  return Status::OK();
}

Status IntegrateOp::LoadState(StateReader& r) {
  SLUICE_RETURN_IF_ERROR(r.GetSpine(&spine_));
  return Status::OK();
}

}  // namespace sluice
