#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "dataflow/circuit.h"
#include "zset/spine.h"

namespace sluice {

// What a draw operator draws and how it writes its output rows.
struct DrawSpec {
  // Mixed into every draw: a view's draws differ from another view's.
  uint64_t seed = 0;
  // One draw per site for every copy of a row (a call site of random()).
  std::vector<uint64_t> sites;
  // Writes the output row of `row` with its draws (one per site); `out`
  // arrives empty.
  std::function<Status(std::string_view row, const double* draws, std::string* out)> append;
};

// The draw of occurrence `occurrence` of `row` in step `step` at `site`: a
// 64-bit hash of all of them (and `seed`), its top 53 bits mapped to
// [0, 1). The same arguments give the same value on every host and after
// every restart.
double DrawValue(uint64_t seed, uint64_t site, uint64_t step, uint64_t occurrence,
                 std::string_view row);

// Draw: random() in an incremental view. Given a change `a` to a Z-set of
// rows A (no values), emits for every row r inserted with weight w > 0 the
// w rows (r, d_1..d_k), each with fresh draws, one per site, and keeps them;
// for every row deleted with weight w < 0, it retracts w of the rows it
// emitted for r (those whose draws sort first), and forgets them. So the
// integral of the output is always A with each copy of a row extended by
// the draws it got when it was inserted: a deletion retracts exactly what
// the insertion emitted, and nothing drifts.
//
//   a ──► exchange ──► [draw] ──► (r, d) per copy of r
//                        │ ▲
//                        ▼ │
//                 kept: r -> d (a spine)
//
// The draws of step s are DrawValue(seed, site, s, i, r) for the i-th copy
// of r inserted in that step, where s counts the operator's own steps
// (saved with its state), so a replay of the same steps from a checkpoint
// draws the same values, and so does every host.
//
// REQUIRES: the input is sharded by row (an exchange precedes it), so
// every copy of a row meets on one worker. Thread safety: called from the
// worker that owns it.
class DrawOp final : public Operator {
 public:
  DrawOp(Stream* in, DrawSpec spec, const SpineOptions& opts)
      : in_(in), spec_(std::move(spec)), kept_(opts) {}
  Status Eval() override;
  const char* name() const override { return "draw"; }
  bool has_state() const override { return true; }
  Status SaveState(StateWriter& w) const override;
  Status LoadState(StateReader& r) override;

 private:
  Stream* in_;
  DrawSpec spec_;
  // Invariants: (1) a row r holds value v (the k draws, each as the 8
  // big-endian bytes of its 64-bit hash) with weight n > 0 when n copies of
  // (r, d(v)) are in the integral of the output; (2) for every r, the sum of
  // its weights is A[r] (as long as A never held a negative weight).
  Spine kept_;
  uint64_t step_ = 0;  // steps evaluated, ever
};

// Adds an exchange (with more than one worker) and a draw.
Stream* Draw(Circuit& c, Stream* in, DrawSpec spec);

}  // namespace sluice
