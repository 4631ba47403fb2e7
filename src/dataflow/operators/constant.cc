#include "dataflow/operators/constant.h"

namespace sluice {

Stream* Constant(Circuit& c, BatchPtr batch) {
  return c.Add<ConstantOp>(std::move(batch), c.context().worker == 0)->output();
}

}  // namespace sluice
