// Recursive queries (WITH RECURSIVE): the relation R defined by
//
//   R = base UNION [ALL] step(R, other inputs)
//
// evaluated as PostgreSQL defines it. The working table W starts as base
// (without duplicates for UNION); each iteration evaluates step over W alone,
// not over all of R; the rows it yields are added to R (for UNION, only those
// not in R yet, once each) and become the next W; the iteration that yields
// no row ends it.
//
// The step is a circuit of its own, built by RecursiveSpec::build: inputs
// named "w" (the working table) and "in0", "in1", ... (the other relations
// the step reads, in the order Recursive() gets them), output "out". It runs
// once per iteration. Being incremental, it is fed the change of W since the
// previous iteration, and the integral of its output is step(W).
//
// Per step of the enclosing circuit in which an input changed, R is computed
// again from the inputs' integrals, and its change is emitted: the work is
// that of evaluating the whole recursion (an incremental fixed point across
// steps is not done yet). Recursive() gathers every input on worker 0, which
// computes R; the other workers emit nothing.
//
// A recursion that does not end within `max_iterations` or grows past
// `max_rows` or `max_bytes` (where PostgreSQL would run until it fails) is an error reported
// to `on_error`; R then keeps its previous contents.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dataflow/circuit.h"
#include "zset/spine.h"

namespace sluice {

struct RecursiveSpec {
  std::string name;  // the query's, for errors
  std::function<Status(Circuit& step)> build;
  bool set = false;  // UNION (R is a set) rather than UNION ALL
  int64_t max_iterations = 100000;
  uint64_t max_rows = 10000000;
  // The bytes of R's rows: a recursion whose rows grow (a path column)
  // meets this long before its row count limit.
  uint64_t max_bytes = 1ull << 28;
  // If set, the error of a recursion that does not end, in place of the
  // one that says which bound it met (the query's text points at it).
  std::string runaway_error;
  std::function<void(const Status&)> on_error;
};

class RecursiveOp final : public Operator {
 public:
  // inputs[0] is base; the others are the step's inputs "in0", "in1", ...
  RecursiveOp(std::vector<Stream*> inputs, RecursiveSpec spec, const SpineOptions& opts);
  Status Eval() override;
  const char* name() const override { return "recursive"; }
  bool has_state() const override { return true; }
  Status SaveState(StateWriter& w) const override;
  Status LoadState(StateReader& r) override;

 private:
  // R from the inputs' integrals.
  Result<BatchPtr> FixedPoint();

  std::vector<Stream*> inputs_;
  RecursiveSpec spec_;
  SpineOptions opts_;
  std::vector<std::unique_ptr<Spine>> integrals_;  // one per input
  BatchPtr result_;                                // R as last emitted
};

Stream* Recursive(Circuit& c, Stream* base, const std::vector<Stream*>& others, RecursiveSpec spec);

}  // namespace sluice
