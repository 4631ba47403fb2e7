#include "dataflow/operators/output.h"

namespace sluice {

void AddOutput(Circuit& c, Stream* in, const std::string& name) {
  c.RegisterOutput(name, c.Add<OutputOp>(in));
}

}  // namespace sluice
