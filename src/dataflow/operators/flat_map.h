#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "dataflow/circuit.h"
#include "zset/batch.h"

namespace sluice {

// Receives the pairs that one input pair maps to.
using EmitFn = std::function<void(std::string_view key, std::string_view val)>;
using FlatMapFn =
    std::function<Status(std::string_view key, std::string_view val, const EmitFn& emit)>;

// FlatMap: given a change `a`, emits the sum over (k, v, w) in a of every
// pair in f(k, v), each with weight w (UNNEST, hopping windows). Linear.
class FlatMapOp final : public Operator {
 public:
  FlatMapOp(Stream* in, FlatMapFn fn) : in_(in), fn_(std::move(fn)) {}
  Status Eval() override;
  const char* name() const override { return "flat_map"; }

 private:
  Stream* in_;
  FlatMapFn fn_;
};

Stream* FlatMap(Circuit& c, Stream* in, FlatMapFn fn);

}  // namespace sluice
