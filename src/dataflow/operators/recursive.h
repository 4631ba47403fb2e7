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
// the step reads, in the order Recursive() gets them), output "out". Being
// incremental, it is fed changes, and the integral of its output is step of
// the integral of its inputs.
//
// From scratch (FixedPoint), the circuit is fed W's change at each
// iteration, so that it computes step(W): PostgreSQL's iteration exactly.
//
// Across steps of the enclosing circuit, when the step is linear in W
// (RecursiveSpec::linear: it reads W once, through filters, projections,
// joins with other relations and UNION ALL, so that step(A + B) = step(A) +
// step(B)), R is kept up to date rather than computed again. A second
// circuit lives across steps, fed all of R as its W and the other inputs as
// they change, so that the integral of its output, Y, is step(R). Then:
// - UNION ALL: R = base + step(R) is linear; a change of base or of the
//   other inputs moves Y, and each change of R is fed back in as W's change
//   until nothing changes (a semi-naive iteration over the changes alone).
// - UNION: R is the least set that holds base and step(R) (linearity makes
//   it PostgreSQL's answer). Rows are deleted and derived again (the DRed
//   algorithm): every row of R that lost its base row or a derivation, and
//   then every row that lost one through them, is taken out of W; of those,
//   the rows that Y or base still holds go back in, and new rows of Y or
//   base come in, each feeding the next until nothing changes. The work is
//   that of the rows whose derivations changed, not of R.
// A step that turns out not to be monotone (a row in yields a row out taken
// away), or an iteration past the limits, falls back to the computation from
// scratch, after which the second circuit is built again from R. R's first
// computation, for a linear step, is the same iteration over the changes
// from nothing, in the circuit that then lives on.
//
// On many workers (and hosts) the iteration is DBSP's nested circuit, run by
// all of them in lockstep. Each row of base, R, Y and W lives on the worker
// that owns it (WorkerForKey, as Exchange places rows), where the set
// operations above are local. Every worker runs its own copy of the step's
// circuit, built over the pipeline's workers and transport, so that the
// step's joins and aggregates exchange rows among the workers as the outer
// circuit's do; the other inputs stay where they are. An iteration is one
// step of those circuits: each worker feeds its share of W's change, and
// the rows each yields go to their owners. Every decision that ends a loop
// or changes course (nothing left to feed, a limit passed, a step that is
// not monotone) is taken from sums over all workers (one more round of the
// transport), so all of them take it together. The step's circuit uses the
// exchange ids that Recursive() reserves for it in the enclosing circuit.
//
// A recursion that does not end within `max_iterations` or grows past
// `max_rows` or `max_bytes` (over all workers; where PostgreSQL would run
// until it fails) is an error reported to `on_error` (by worker 0); R then
// keeps its previous contents.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/hash.h"
#include "dataflow/circuit.h"
#include "zset/spine.h"

namespace sluice {

struct RecursiveSpec {
  std::string name;  // the query's, for errors
  std::function<Status(Circuit& step)> build;
  bool set = false;  // UNION (R is a set) rather than UNION ALL
  // The step is linear in W (above): R is kept up to date across steps.
  bool linear = false;
  int64_t max_iterations = 100000;
  uint64_t max_rows = 10000000;
  // The bytes of R's rows: a recursion whose rows grow (a path column)
  // meets this long before its row count limit.
  uint64_t max_bytes = 1ull << 28;
  // If set, the error of a recursion that does not end, in place of the
  // one that says which bound it met (the query's text points at it).
  std::string runaway_error;
  std::function<void(const Status&)> on_error;
  // After each step in which an input changed: whether R was computed from
  // scratch (else kept up to date), and the iterations that took. Called by
  // worker 0 alone (every worker takes the same iterations).
  std::function<void(bool from_scratch, int64_t iterations)> on_step;
};

// The exchange ids a recursive query's operator uses on its worker's
// transport: two of its own (rows to their owners, and the sums that
// decide), and a block for its step's circuit.
struct RecursiveExchangeIds {
  int rows = 0, sums = 0;
  int step_first = 0;
};

class RecursiveOp final : public Operator {
 public:
  // inputs[0] is base, each row on its owner; the others are the step's
  // inputs "in0", "in1", ... `ctx` is the enclosing circuit's worker.
  RecursiveOp(std::vector<Stream*> inputs, RecursiveSpec spec, const WorkerContext& ctx,
              RecursiveExchangeIds ids);
  ~RecursiveOp() override;
  Status Eval() override;
  const char* name() const override { return "recursive"; }
  bool has_state() const override { return true; }
  Status SaveState(StateWriter& w) const override;
  Status LoadState(StateReader& r) override;

  // A relation as rows and their multiplicities, and a set of rows, hashed
  // (looked up by string_view too). Their order is no row order: batches
  // made from them are sorted.
  struct RowHash {
    using is_transparent = void;
    size_t operator()(std::string_view row) const { return Hash64(row); }
  };
  using Rows = std::unordered_map<std::string, Weight, RowHash, std::equal_to<>>;
  using RowSet = std::unordered_set<std::string, RowHash, std::equal_to<>>;

 private:
  struct Live;

  // R from the inputs' integrals.
  Result<Rows> FixedPoint();
  // The circuit that lives across steps, fed `w` as W (R, or nothing) and
  // the other inputs' integrals; Y and base from them.
  Status Rebuild(const Rows& w);
  // R from the inputs' integrals, for a linear step: computed through a
  // circuit built over no rows of W, which then lives on (an error when the
  // step is not monotone or a limit is passed).
  Result<Rows> Load();
  // The change of R that `changes` (of base, then of the other inputs) make,
  // kept up to date from the live circuit; an error when the step is not
  // monotone or a limit is passed (the live circuit is then spent).
  Result<Rows> Incremental(const std::vector<BatchPtr>& changes);
  // `lost`: the rows of Y that lost a derivation to the other inputs'
  // changes (which `y_change` sums).
  Result<Rows> IncrementalSet(const Rows& base_change, const Rows& y_change, RowSet lost);
  Result<Rows> IncrementalBag(const Rows& base_change, const Rows& y_change);
  // Feeds `w` (W's change) to the live circuit: the change of Y.
  Result<Rows> Feed(const Rows& w);
  // An error when a bound is passed (the sums over all workers), which
  // sets passed_limit_.
  Status Limit(int64_t iteration, uint64_t rows, uint64_t bytes);

  // Eval's work; an error of this worker alone fails the step everywhere.
  Status EvalOnWorkers();
  // A fresh circuit of the step, over this worker (Live, FixedPoint).
  Result<std::unique_ptr<Circuit>> BuildStep();
  // Every worker's `mine` summed, each row on its owner: this worker's.
  Result<Rows> ToOwners(const Rows& mine);
  // The sums over all workers of each of `mine`: the same on every worker.
  Result<std::vector<uint64_t>> SumOverWorkers(std::vector<uint64_t> mine);
  // Whether `mine` holds on any worker.
  Result<bool> OnAnyWorker(bool mine);

  std::vector<Stream*> inputs_;
  RecursiveSpec spec_;
  WorkerContext ctx_;
  RecursiveExchangeIds ids_;
  SpineOptions opts_;
  std::vector<std::unique_ptr<Spine>> integrals_;  // one per input
  Rows r_;                                         // this worker's R as last emitted
  uint64_t r_rows_ = 0, r_bytes_ = 0;              // its rows and their bytes
  int64_t iterations_ = 0;                         // of this step, so far
  // This step met a bound (Limit): the query's failure, not the step's.
  bool passed_limit_ = false;
  std::unique_ptr<Live> live_;                     // null: none (yet)
};

Stream* Recursive(Circuit& c, Stream* base, const std::vector<Stream*>& others, RecursiveSpec spec);

}  // namespace sluice
