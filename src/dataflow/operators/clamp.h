#pragma once

#include <functional>

#include "dataflow/circuit.h"
#include "zset/spine.h"

namespace sluice {

// Clamp: keeps a relation's contents a set of rows with positive counts,
// as a table without a primary key must be. Given the change `a` to A and
// the integral of A, it emits, for each (k, v) in the support of `a` with
// old count w = A[k, v], max(0, w + a[k, v]) - w: a delete of a row that is
// not there (or of more copies than there are) deletes what there is and
// nothing more. The copies that found nothing to delete go to `on_ignored`
// (called once per step with their number, when it is not zero).
//
// A change with no negative weight passes through unchanged, without a
// lookup; only deletes are checked against the integral. With `check`, an
// inserted row it refuses is dropped (so a later delete of it finds
// nothing).
//
// REQUIRES: the input is sharded by key (Clamp() adds the exchange unless
// the caller says it already is).
class ClampOp final : public Operator {
 public:
  ClampOp(Stream* in, const SpineOptions& opts, std::function<void(int64_t)> on_ignored,
          RowCheckFn check)
      : in_(in), integral_(opts), on_ignored_(std::move(on_ignored)), check_(std::move(check)) {}
  Status Eval() override;
  const char* name() const override { return "clamp"; }
  bool has_state() const override { return true; }
  Status SaveState(StateWriter& w) const override;
  Status LoadState(StateReader& r) override;
  // In the next step, emits the contents instead of their change.
  bool Replay() override {
    replay_ = true;
    return true;
  }

 private:
  Status Apply(BatchPtr* out, int64_t* ignored);

  Stream* in_;
  Spine integral_;
  std::function<void(int64_t)> on_ignored_;
  RowCheckFn check_;
  bool replay_ = false;
};

// The clamped stream of `in`. With `sharded`, `in` already holds every row
// on the worker that owns its key (as a table's input does on one host), so
// no exchange is added.
Stream* Clamp(Circuit& c, Stream* in, bool sharded, std::function<void(int64_t)> on_ignored,
              RowCheckFn check = nullptr);

}  // namespace sluice
