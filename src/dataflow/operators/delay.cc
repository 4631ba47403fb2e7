#include "dataflow/operators/delay.h"

namespace sluice {

Stream* Delay(Circuit& c, Stream* in) { return c.Add<DelayOp>(in)->output(); }

}  // namespace sluice
