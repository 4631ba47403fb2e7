#include "dataflow/operators/intersect.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "dataflow/operators/exchange.h"
#include "dataflow/state.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {
namespace {

// The weight of (key, val) under a cursor, seeking forward to it.
Weight WeightAt(Cursor& c, std::string_view key, std::string_view val) {
  c.SeekKey(key);
  if (!c.KeyValid() || c.key() != key) return 0;
  c.RewindVals();
  c.SeekVal(val);
  return c.ValValid() && c.val() == val ? c.weight() : 0;
}

}  // namespace

Status IntersectOp::Eval() {
  const BatchPtr& da = a_->value();
  const BatchPtr& db = b_->value();
  if (da->empty() && db->empty()) {
    output_.set(MemBatch::Empty());
    return Status::OK();
  }
  std::vector<BatchPtr> a_old = ia_.Snapshot(), b_old = ib_.Snapshot();
  auto oa = NewCursorOver(a_old), ob = NewCursorOver(b_old);
  auto delta_a = da->NewCursor(), delta_b = db->NewCursor();
  BatchBuilder out;
  // The pairs in the support of either change, in order. Not their sum: a
  // pair that a gains and b loses changes the minimum.
  std::vector<std::pair<std::string, std::string>> touched;
  for (const BatchPtr& d : {da, db}) {
    auto c = d->NewCursor();
    for (; c->KeyValid(); c->StepKey()) {
      for (; c->ValValid(); c->StepVal()) touched.emplace_back(c->key(), c->val());
    }
    SLUICE_RETURN_IF_ERROR(c->status());
  }
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  for (const auto& [key, val] : touched) {
    Weight wa = WeightAt(*oa, key, val), wb = WeightAt(*ob, key, val);
    Weight na = wa + WeightAt(*delta_a, key, val), nb = wb + WeightAt(*delta_b, key, val);
    Weight before = std::max<Weight>(0, std::min(wa, wb));
    Weight after = std::max<Weight>(0, std::min(na, nb));
    if (after != before) out.Push(key, val, after - before);
  }
  for (Cursor* c : {oa.get(), ob.get(), delta_a.get(), delta_b.get()}) {
    SLUICE_RETURN_IF_ERROR(c->status());
  }
  SLUICE_RETURN_IF_ERROR(ia_.Insert(da));
  SLUICE_RETURN_IF_ERROR(ib_.Insert(db));
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr result, out.Finish());
  output_.set(std::move(result));
  return Status::OK();
}

Stream* Intersect(Circuit& c, Stream* a, Stream* b) {
  return c.Add<IntersectOp>(Exchange(c, a), Exchange(c, b), c.context().spine)->output();
}

Status IntersectOp::SaveState(StateWriter& w) const {
  SLUICE_RETURN_IF_ERROR(w.PutSpine(ia_));
  SLUICE_RETURN_IF_ERROR(w.PutSpine(ib_));
  return Status::OK();
}

Status IntersectOp::LoadState(StateReader& r) {
  SLUICE_RETURN_IF_ERROR(r.GetSpine(&ia_));
  SLUICE_RETURN_IF_ERROR(r.GetSpine(&ib_));
  return Status::OK();
}

}  // namespace sluice
