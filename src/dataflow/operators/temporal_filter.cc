#include "dataflow/operators/temporal_filter.h"

#include "base/bytes.h"
#include "dataflow/state.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {
namespace {

enum Waits : char { kToEnter = 0, kToLeave = 1 };
constexpr size_t kHeader = 9;  // the instant, then what the row waits for

// The instant big-endian with its sign bit flipped, so that the spine's byte
// order is the instants' order.
void PutKey(int64_t at, Waits waits, std::string_view key, std::string* out) {
  out->clear();
  const uint64_t u = static_cast<uint64_t>(at) ^ (uint64_t{1} << 63);
  for (int shift = 56; shift >= 0; shift -= 8) out->push_back(static_cast<char>(u >> shift));
  out->push_back(waits);
  out->append(key);
}

int64_t InstantOf(std::string_view key) {
  uint64_t u = 0;
  for (size_t i = 0; i < 8; ++i) u = (u << 8) | static_cast<uint8_t>(key[i]);
  return static_cast<int64_t>(u ^ (uint64_t{1} << 63));
}

}  // namespace

Status TemporalFilterOp::Eval() {
  const int64_t now = clock_->now();
  BatchBuilder out, filed;
  std::string key;
  // Rows whose instant the clock reached: those waiting to enter enter (or
  // were due to leave already), those waiting to leave leave.
  auto w = waiting_.NewCursor();
  if (done_ != TimeSpan::kAlways) {
    // Every row filed at or before the last step's clock was taken then
    // (and cancels out until a merge drops it): start after it.
    PutKey(done_ + 1, kToEnter, {}, &key);
    w->SeekKey(key);
  }
  for (; w->KeyValid(); w->StepKey()) {
    const std::string_view k = w->key();
    if (k.size() < kHeader) return Status::Corruption("temporal filter: a short key in its state");
    if (InstantOf(k) > now) break;
    const std::string_view row = k.substr(kHeader);
    for (; w->ValValid(); w->StepVal()) {
      filed.Push(k, w->val(), -w->weight());
      if (k[8] == kToLeave) {
        out.Push(row, w->val(), -w->weight());
        continue;
      }
      TimeSpan span;
      SLUICE_RETURN_IF_ERROR(span_(row, w->val(), &span));
      if (now >= span.until) continue;
      out.Push(row, w->val(), w->weight());
      if (span.until != TimeSpan::kNever) {
        PutKey(span.until, kToLeave, row, &key);
        filed.Push(key, w->val(), w->weight());
      }
    }
  }
  SLUICE_RETURN_IF_ERROR(w->status());
  // This step's change, at this step's clock.
  auto c = in_->value()->NewCursor();
  for (; c->KeyValid(); c->StepKey()) {
    for (; c->ValValid(); c->StepVal()) {
      TimeSpan span;
      SLUICE_RETURN_IF_ERROR(span_(c->key(), c->val(), &span));
      if (span.from >= span.until || now >= span.until) continue;  // never, or no longer
      if (now < span.from) {
        PutKey(span.from, kToEnter, c->key(), &key);
        filed.Push(key, c->val(), c->weight());
        continue;
      }
      out.Push(c->key(), c->val(), c->weight());
      if (span.until != TimeSpan::kNever) {
        PutKey(span.until, kToLeave, c->key(), &key);
        filed.Push(key, c->val(), c->weight());
      }
    }
  }
  SLUICE_RETURN_IF_ERROR(c->status());
  if (filed.pending() > 0) {
    SLUICE_ASSIGN_OR_RETURN(MemBatchPtr f, filed.Finish());
    SLUICE_RETURN_IF_ERROR(waiting_.Insert(std::move(f)));
  }
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr o, out.Finish());
  output_.set(std::move(o));
  done_ = now;
  return Status::OK();
}

Status TemporalFilterOp::SaveState(StateWriter& w) const {
  SLUICE_RETURN_IF_ERROR(w.PutSpine(waiting_));
  w.PutU64(static_cast<uint64_t>(done_));
  return Status::OK();
}

Status TemporalFilterOp::LoadState(StateReader& r) {
  SLUICE_RETURN_IF_ERROR(r.GetSpine(&waiting_));
  SLUICE_ASSIGN_OR_RETURN(uint64_t done, r.GetU64());
  done_ = static_cast<int64_t>(done);
  return Status::OK();
}

Stream* TemporalFilter(Circuit& c, Stream* in, StepClockPtr clock, TimeSpanFn span) {
  return c.Add<TemporalFilterOp>(in, std::move(clock), std::move(span), c.context().spine)
      ->output();
}

}  // namespace sluice
