#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "dataflow/circuit.h"
#include "zset/spine.h"

namespace sluice {

enum class JoinType { kInner, kLeft, kRight, kFull, kSemi, kAnti };

// Writes the output pair for matched values `va` and `vb` of key `key`.
using JoinFn = std::function<Status(std::string_view key, std::string_view va, std::string_view vb,
                                    std::string* out_key, std::string* out_val)>;
// Writes the output pair for an unmatched value of one side (outer joins pad
// the other side with NULLs here).
using PadFn = std::function<Status(std::string_view key, std::string_view v, std::string* out_key,
                                   std::string* out_val)>;

struct JoinSpec {
  JoinType type = JoinType::kInner;
  JoinFn matched;   // inner, left, right, full
  PadFn left_pad;   // left, full: rows of A with no match in B
  PadFn right_pad;  // right, full: rows of B with no match in A
  // If set, the keys of A's (B's) integral that no later change of B (A)
  // can look up: they are forgotten as merges reach them (Spine::SetRetain).
  std::function<bool(std::string_view key)> retain_a, retain_b;
  // If set, the (key, value) pairs of A's (B's) integral that no later
  // change of B (A) can match once the join's output is filtered by a
  // condition between the sides' values (a range of times, whatever the
  // key): forgotten likewise (Spine::SetRetainValues). The join's own
  // output then lacks pairs that the filter above it removes anyway.
  std::function<bool(std::string_view key, std::string_view val)> retain_a_values, retain_b_values;
};

// Join of two indexed Z-sets A and B on their keys.
//
// The matched part is bilinear: given changes a, b and the integrals A, B as
// of the previous step, it emits
//   a x B + A x b + a x b  =  a x (B + b) + A x b,
// where (x) pairs every value of a key in one side with every value of that
// key in the other, with the product of the weights. Work follows |a| + |b|
// and the matches they find, not |A| or |B|.
//
// The unmatched parts (outer joins), semi and anti joins depend on whether a
// key is present on the other side. For each key k touched by a or b, with
// presence before (B[k] != 0) and after ((B + b)[k] != 0):
//   left pad:  present->present: nothing; absent->absent: pad(a[k]);
//              absent->present: -pad(A[k]); present->absent: +pad((A + a)[k])
//   semi:      the complement of the above on unpadded rows
//   anti:      the same as left pad, unpadded
// so a key's whole group is read only when its presence on the other side
// flips, which any correct answer must reflect.
//
// REQUIRES: both inputs are sharded by key (Join() adds the exchanges).
class JoinOp final : public Operator {
 public:
  JoinOp(Stream* a, Stream* b, JoinSpec spec, const SpineOptions& opts)
      : a_(a), b_(b), spec_(std::move(spec)), ia_(opts), ib_(opts) {
    if (spec_.retain_a) ia_.SetRetain(spec_.retain_a);
    if (spec_.retain_b) ib_.SetRetain(spec_.retain_b);
    if (spec_.retain_a_values) ia_.SetRetainValues(spec_.retain_a_values);
    if (spec_.retain_b_values) ib_.SetRetainValues(spec_.retain_b_values);
  }
  Status Eval() override;
  const char* name() const override { return "join"; }
  bool has_state() const override { return true; }
  Status SaveState(StateWriter& w) const override;
  Status LoadState(StateReader& r) override;

 private:
  class Emitter;
  // The matched part: sum over keys of d's keys of d[k] x other[k].
  Status JoinDelta(const Batch& d, Cursor& other, bool d_is_left, Emitter& out);
  // Rows of one side whose key is absent (anti) or present (semi) on the
  // other side, for the keys that either change touches.
  Status Unmatched(const BatchPtr& d_side, const BatchPtr& d_other,
                   const std::vector<BatchPtr>& side_prev, const std::vector<BatchPtr>& other_prev,
                   bool anti, const PadFn* pad, Emitter& out);

  Stream* a_;
  Stream* b_;
  JoinSpec spec_;
  Spine ia_, ib_;
};

// Adds exchanges (with more than one worker) and a join.
Stream* Join(Circuit& c, Stream* a, Stream* b, JoinSpec spec);

}  // namespace sluice
