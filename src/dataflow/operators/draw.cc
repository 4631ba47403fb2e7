#include "dataflow/operators/draw.h"

#include <algorithm>

#include "base/hash.h"
#include "dataflow/operators/exchange.h"
#include "dataflow/state.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {

namespace {

uint64_t DrawHash(uint64_t seed, uint64_t site, uint64_t step, uint64_t occurrence,
                  std::string_view row) {
  // The row's hash, then one more round over the small numbers, so that
  // every argument moves every bit.
  const uint64_t parts[5] = {seed, site, step, occurrence, Hash64(row, seed ^ 0x9e3779b97f4a7c15)};
  return Hash64(parts, sizeof(parts), 0xd5a61266f0c9392c);
}

double ToUnit(uint64_t h) { return static_cast<double>(h >> 11) * 0x1.0p-53; }

void PutBigEndian(uint64_t v, std::string* out) {
  for (int i = 7; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetBigEndian(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

}  // namespace

double DrawValue(uint64_t seed, uint64_t site, uint64_t step, uint64_t occurrence,
                 std::string_view row) {
  return ToUnit(DrawHash(seed, site, step, occurrence, row));
}

Status DrawOp::Eval() {
  const BatchPtr& delta = in_->value();
  const uint64_t step = step_++;
  if (delta->empty()) {
    output_.set(MemBatch::Empty());
    return Status::OK();
  }
  const size_t k = spec_.sites.size();
  BatchBuilder out, kept;
  std::vector<double> draws(k);
  std::string drawn, row_out;
  auto emit = [&](std::string_view row, std::string_view value, Weight w) -> Status {
    for (size_t j = 0; j < k; ++j) draws[j] = ToUnit(GetBigEndian(value.data() + 8 * j));
    row_out.clear();
    SLUICE_RETURN_IF_ERROR(spec_.append(row, draws.data(), &row_out));
    out.Push(row_out, w);
    kept.Push(row, value, w);
    return Status::OK();
  };
  auto old = kept_.NewCursor();
  auto d = delta->NewCursor();
  for (; d->KeyValid(); d->StepKey()) {
    const std::string_view row = d->key();
    Weight w = 0;
    for (; d->ValValid(); d->StepVal()) w += d->weight();
    if (w > 0) {
      for (Weight i = 0; i < w; ++i) {
        drawn.clear();
        for (size_t j = 0; j < k; ++j) {
          PutBigEndian(DrawHash(spec_.seed, spec_.sites[j], step, static_cast<uint64_t>(i), row),
                       &drawn);
        }
        SLUICE_RETURN_IF_ERROR(emit(row, drawn, 1));
      }
    } else if (w < 0) {
      // Retract the kept copies that sort first; a deletion of more copies
      // than were kept retracts what there is.
      Weight need = -w;
      old->SeekKey(row);
      if (!old->KeyValid() || old->key() != row) continue;
      for (; old->ValValid() && need > 0; old->StepVal()) {
        const Weight n = std::min(old->weight(), need);
        if (n <= 0) continue;
        if (old->val().size() != 8 * k) return Status::Internal("draw: kept value of wrong size");
        SLUICE_RETURN_IF_ERROR(emit(row, old->val(), -n));
        need -= n;
      }
    }
  }
  SLUICE_RETURN_IF_ERROR(old->status());
  SLUICE_RETURN_IF_ERROR(d->status());
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr kept_change, kept.Finish());
  SLUICE_RETURN_IF_ERROR(kept_.Insert(kept_change));
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr out_batch, out.Finish());
  output_.set(std::move(out_batch));
  return Status::OK();
}

Stream* Draw(Circuit& c, Stream* in, DrawSpec spec) {
  return c.Add<DrawOp>(Exchange(c, in), std::move(spec), c.context().spine)->output();
}

Status DrawOp::SaveState(StateWriter& w) const {
  SLUICE_RETURN_IF_ERROR(w.PutSpine(kept_));
  w.PutU64(step_);
  return Status::OK();
}

Status DrawOp::LoadState(StateReader& r) {
  SLUICE_RETURN_IF_ERROR(r.GetSpine(&kept_));
  SLUICE_ASSIGN_OR_RETURN(step_, r.GetU64());
  return Status::OK();
}

}  // namespace sluice
