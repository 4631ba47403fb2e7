#include "dataflow/operators/top_k.h"

#include "base/bytes.h"
#include "dataflow/operators/exchange.h"
#include "dataflow/operators/per_group.h"
#include "dataflow/state.h"
#include "types/row_codec.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {

Status TopKOp::EmitTop(Cursor& c, std::string_view group, Weight sign, BatchBuilder& out,
                       BatchBuilder* kept) {
  c.SeekKey(group);
  if (!c.KeyValid() || c.key() != group) return Status::OK();
  if (spec_.rank != RankKind::kRowNumber) return EmitRanked(c, group, sign, out, kept);
  size_t taken = 0;
  std::string val;
  for (; c.ValValid() && taken < spec_.k; c.StepVal()) {
    Weight w = c.weight();
    if (w <= 0) continue;  // not a row of a relation; it cannot rank
    size_t n = std::min<uint64_t>(static_cast<uint64_t>(w), spec_.k - taken);
    if (kept != nullptr) kept->Push(group, c.val(), sign * static_cast<Weight>(n));
    if (!spec_.row_number) {
      out.Push(group, c.val(), sign * static_cast<Weight>(n));
    } else {
      for (size_t i = 0; i < n; ++i) {
        val.assign(c.val());
        AppendInt64(static_cast<int64_t>(taken + i + 1), false, &val);
        out.Push(group, val, sign);
      }
    }
    taken += n;
  }
  return c.status();
}

Status TopKOp::EmitRanked(Cursor& c, std::string_view group, Weight sign, BatchBuilder& out,
                          BatchBuilder* kept) {
  // RANK: 1 + the rows before the value's peers; DENSE_RANK: 1 + the distinct
  // order keys before it. Peers share a rank, so they stay or go together.
  uint64_t before = 0, dense = 0, rank = 0;
  std::string peer, val;
  bool first = true;
  for (; c.ValValid(); c.StepVal()) {
    Weight w = c.weight();
    if (w <= 0) continue;
    std::string_view v = c.val();
    std::string_view key = v.substr(0, spec_.order_key(v));
    if (first || key != peer) {
      ++dense;
      rank = spec_.rank == RankKind::kRank ? before + 1 : dense;
      peer.assign(key);
      first = false;
    }
    if (rank > spec_.k) break;
    val.assign(v);
    AppendInt64(static_cast<int64_t>(rank), false, &val);
    out.Push(group, val, sign * w);
    if (kept != nullptr) kept->Push(group, v, sign * w);
    before += static_cast<uint64_t>(w);
  }
  return c.status();
}

Status TopKOp::EvalInsertOnly() {
  const BatchPtr& delta = in_->value();
  if (delta->empty()) {
    output_.set(MemBatch::Empty());
    return Status::OK();
  }
  std::vector<BatchPtr> snap = integral_.Snapshot();
  auto old_c = NewCursorOver(snap);
  snap.push_back(delta);
  auto new_c = NewCursorOver(snap);
  BatchBuilder out, kept;
  auto d = delta->NewCursor();
  for (; d->KeyValid(); d->StepKey()) {
    for (; d->ValValid(); d->StepVal()) {
      if (d->weight() < 0) {
        return Status::Internal("an insert-only top-k received a delete (weight " +
                                std::to_string(d->weight()) + ") in group " + BytesToHex(d->key()) +
                                ": its input was wrongly planned as insert-only");
      }
    }
    SLUICE_RETURN_IF_ERROR(EmitTop(*old_c, d->key(), -1, out, &kept));
    SLUICE_RETURN_IF_ERROR(EmitTop(*new_c, d->key(), +1, out, &kept));
  }
  SLUICE_RETURN_IF_ERROR(d->status());
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr change, kept.Finish());
  SLUICE_RETURN_IF_ERROR(integral_.Insert(std::move(change)));
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr result, out.Finish());
  output_.set(std::move(result));
  return Status::OK();
}

Status TopKOp::Eval() {
  if (spec_.insert_only) return EvalInsertOnly();
  SLUICE_ASSIGN_OR_RETURN(
      MemBatchPtr result,
      RecomputeTouchedGroups(in_->value(), integral_,
                             [this](Cursor& c, std::string_view group, Weight sign,
                                    BatchBuilder& out) { return EmitTop(c, group, sign, out); }));
  output_.set(std::move(result));
  return Status::OK();
}

Stream* TopK(Circuit& c, Stream* in, TopKSpec spec) {
  return c.Add<TopKOp>(Exchange(c, in), spec, c.context().spine)->output();
}

Status TopKOp::SaveState(StateWriter& w) const {
  SLUICE_RETURN_IF_ERROR(w.PutSpine(integral_));
  return Status::OK();
}

Status TopKOp::LoadState(StateReader& r) {
  SLUICE_RETURN_IF_ERROR(r.GetSpine(&integral_));
  return Status::OK();
}

}  // namespace sluice
