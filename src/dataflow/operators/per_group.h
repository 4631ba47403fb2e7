// The step of an operator that keeps its input's integral indexed by group
// and recomputes each group a change touches: for every group in the
// change, `emit` is called over the integral before the change (sign -1) and
// after it (sign +1); then the change joins the integral. The output is what
// `emit` pushed, consolidated, so a group's unchanged rows cancel out; an
// empty change is an empty output.
#pragma once

#include <functional>
#include <string_view>

#include "zset/batch_builder.h"
#include "zset/cursor.h"
#include "zset/spine.h"

namespace sluice {

using EmitGroup =
    std::function<Status(Cursor& c, std::string_view group, Weight sign, BatchBuilder& out)>;

inline Result<MemBatchPtr> RecomputeTouchedGroups(const BatchPtr& delta, Spine& integral,
                                                  const EmitGroup& emit) {
  if (delta->empty()) return MemBatch::Empty();
  std::vector<BatchPtr> snap = integral.Snapshot();
  auto old_c = NewCursorOver(snap);
  snap.push_back(delta);
  auto new_c = NewCursorOver(snap);
  BatchBuilder out;
  auto d = delta->NewCursor();
  for (; d->KeyValid(); d->StepKey()) {
    SLUICE_RETURN_IF_ERROR(emit(*old_c, d->key(), -1, out));
    SLUICE_RETURN_IF_ERROR(emit(*new_c, d->key(), +1, out));
  }
  SLUICE_RETURN_IF_ERROR(d->status());
  SLUICE_RETURN_IF_ERROR(integral.Insert(delta));
  return out.Finish();
}

}  // namespace sluice
