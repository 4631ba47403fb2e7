#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "dataflow/circuit.h"

namespace sluice {

// Writes the image of one (key, value) pair; `out_key` and `out_val` arrive
// empty. An error (a failed cast, say) fails the step and names the row.
using MapFn = std::function<Status(std::string_view key, std::string_view val, std::string* out_key,
                                   std::string* out_val)>;

// Map: given a change `a`, emits map(a) = sum over (k, v, w) in a of
// (f(k, v), w). Linear, so it needs no state: map(A + a) = map(A) + map(a).
class MapOp final : public Operator {
 public:
  MapOp(Stream* in, MapFn fn) : in_(in), fn_(std::move(fn)) {}
  Status Eval() override;
  const char* name() const override { return "map"; }

 private:
  Stream* in_;
  MapFn fn_;
};

Stream* Map(Circuit& c, Stream* in, MapFn fn);

}  // namespace sluice
