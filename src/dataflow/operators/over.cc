#include "dataflow/operators/over.h"

#include <algorithm>
#include <limits>

#include "dataflow/operators/exchange.h"
#include "dataflow/operators/per_group.h"
#include "dataflow/state.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {
namespace {

// Reverse(v): v with each 0x00 byte escaped as 00 FF and 00 00 appended (an
// order-preserving encoding in which no value is a prefix of another), every
// byte then inverted, so that Reverse(a) < Reverse(b) exactly when a > b.
std::string Reverse(std::string_view v) {
  std::string r;
  r.reserve(v.size() + 2);
  for (char ch : v) {
    r.push_back(static_cast<char>(~static_cast<unsigned char>(ch)));
    if (ch == 0) r.push_back(static_cast<char>(0x00));  // ~0xFF
  }
  r.push_back(static_cast<char>(0xFF));  // ~0x00
  r.push_back(static_cast<char>(0xFF));
  return r;
}

// The inverse of Reverse: inverts, unescapes 00 FF, stops at 00 00.
std::string Unreverse(std::string_view r) {
  std::string v;
  v.reserve(r.size());
  for (size_t k = 0; k < r.size(); ++k) {
    const auto b = static_cast<unsigned char>(~static_cast<unsigned char>(r[k]));
    if (b != 0) {
      v.push_back(static_cast<char>(b));
    } else if (k + 1 < r.size() && static_cast<unsigned char>(r[k + 1]) == 0x00) {
      v.push_back('\0');  // escaped: 00 FF, inverted FF 00
      ++k;
    } else {
      break;  // the terminator 00 00, inverted FF FF
    }
  }
  return v;
}

size_t SatAdd(size_t a, size_t b) {
  return a > std::numeric_limits<size_t>::max() - b ? std::numeric_limits<size_t>::max() : a + b;
}

}  // namespace

// A run of a partition's changed values, changed[first..last], whose rows
// (with `context` rows on each side) are read and computed together.
struct OverOp::Region {
  size_t first = 0, last = 0;
  // The context starts at the partition's first row, or else at the first
  // row whose value is >= `start`.
  bool from_start = false;
  std::string start;
  // The last value the read takes after changed[last] (set when another
  // region follows; the next region's start must be after it).
  std::string end;
};

Status OverOp::Emit(Cursor& c, std::string_view group, Weight sign, BatchBuilder& out) {
  c.SeekKey(group);
  if (!c.KeyValid() || c.key() != group) return Status::OK();
  // The cursor's values may not outlive a step: copied.
  OverSpec::Rows rows;
  size_t n = 0;
  for (; c.ValValid(); c.StepVal()) {
    if (c.weight() <= 0) continue;  // not a row of a relation
    rows.emplace_back(std::string(c.val()), c.weight());
    n += static_cast<size_t>(c.weight());
  }
  SLUICE_RETURN_IF_ERROR(c.status());
  std::vector<std::pair<std::string, Weight>> results;
  SLUICE_RETURN_IF_ERROR(spec_.compute(rows, 0, n, &results));
  for (const auto& [row, w] : results) out.Push(row, "", sign * w);
  return Status::OK();
}

Status OverOp::FindRegions(std::string_view part, const std::vector<std::string>& changed,
                           Cursor& probe, Cursor& reversed, std::vector<Region>* regions) {
  regions->clear();
  const size_t context = SatAdd(spec_.reach->before, spec_.reach->after);
  reversed.SeekKey(part);
  const bool reversed_present = reversed.KeyValid() && reversed.key() == part;
  if (!reversed_present) {
    // A partition new in this step: every row of it is changed.
    regions->push_back(Region{0, changed.size() - 1, true, {}, {}});
    return Status::OK();
  }
  // Changes with at most `context` unchanged rows between them share a
  // region: apart, the rows the two would emit could overlap. The rows
  // between two changes are the same before and after the step, so the
  // integral after it is probed.
  probe.SeekKey(part);
  const bool present = probe.KeyValid() && probe.key() == part;
  for (size_t i = 0; i < changed.size(); ++i) {
    if (regions->empty()) {
      regions->push_back(Region{i, i, false, {}, {}});
      continue;
    }
    size_t gap = 0;
    std::string end = changed[i - 1];
    if (present) {
      probe.SeekVal(changed[i - 1]);
      if (probe.ValValid() && probe.val() == changed[i - 1]) probe.StepVal();
      for (; probe.ValValid() && probe.val() < changed[i] && gap <= context; probe.StepVal()) {
        if (probe.weight() <= 0) continue;
        gap = SatAdd(gap, static_cast<size_t>(probe.weight()));
        if (gap >= context && gap - static_cast<size_t>(probe.weight()) < context)
          end = std::string(probe.val());
      }
      SLUICE_RETURN_IF_ERROR(probe.status());
    }
    if (gap <= context) {
      regions->back().last = i;
    } else {
      regions->back().end = std::move(end);
      regions->push_back(Region{i, i, false, {}, {}});
    }
  }
  // Where each region's context starts: `context` rows before its first
  // change, read backward in the reversed integral (before the step: the
  // rows before a region's first change are unchanged). Regions go last
  // first, so that the reversed cursor only moves forward.
  for (size_t r = regions->size(); r-- > 0;) {
    Region& g = (*regions)[r];
    if (context == 0) {
      g.start = changed[g.first];
      continue;
    }
    g.from_start = true;
    const std::string first = Reverse(changed[g.first]);
    reversed.SeekVal(first);
    if (reversed.ValValid() && reversed.val() == first) reversed.StepVal();
    size_t seen = 0;
    for (; reversed.ValValid(); reversed.StepVal()) {
      if (reversed.weight() <= 0) continue;
      seen = SatAdd(seen, static_cast<size_t>(reversed.weight()));
      if (seen >= context) break;
    }
    SLUICE_RETURN_IF_ERROR(reversed.status());
    if (seen >= context && reversed.ValValid()) {
      g.start = Unreverse(reversed.val());
      g.from_start = false;
    }
  }
  // A region whose context would start at or before the end of the
  // previous region's read (several copies of one value span the gap)
  // joins it, so that reads move forward and emit each row once.
  std::vector<Region> merged;
  for (Region& g : *regions) {
    if (!merged.empty() && (g.from_start || g.start <= merged.back().end)) {
      merged.back().last = g.last;
      merged.back().end = std::move(g.end);
    } else {
      merged.push_back(std::move(g));
    }
  }
  regions->swap(merged);
  return Status::OK();
}

Status OverOp::EmitRegion(Cursor& c, const std::vector<std::string>& changed, const Region& r,
                          Weight sign, BatchBuilder& out) {
  const size_t context = SatAdd(spec_.reach->before, spec_.reach->after);
  // The first region of a partition that starts at its first row finds the
  // cursor there (after SeekKey); the others seek forward.
  if (!r.from_start) c.SeekVal(r.start);
  const std::string& lo = changed[r.first];
  const std::string& hi = changed[r.last];
  OverSpec::Rows rows;
  constexpr size_t kNone = std::numeric_limits<size_t>::max();
  size_t pos = 0, first = kNone, changed_end = 0, after = 0;
  for (; c.ValValid(); c.StepVal()) {
    const std::string_view v = c.val();
    if (v > hi && after >= context) break;
    if (c.weight() <= 0) continue;  // not a row of a relation
    const size_t w = static_cast<size_t>(c.weight());
    if (first == kNone && v >= lo) first = pos;
    rows.emplace_back(std::string(v), c.weight());
    pos += w;
    if (v <= hi) {
      changed_end = pos;
    } else {
      after = SatAdd(after, w);
    }
  }
  SLUICE_RETURN_IF_ERROR(c.status());
  if (first == kNone) first = pos;
  // The rows whose reach holds a changed position: from `after` rows before
  // the first changed row to `before` rows after the last one (around the
  // place where a deleted run was, if nothing is left of it).
  const size_t from = first >= spec_.reach->after ? first - spec_.reach->after : 0;
  const size_t to = std::min(pos, SatAdd(changed_end, spec_.reach->before));
  if (from >= to) return Status::OK();
  std::vector<std::pair<std::string, Weight>> results;
  SLUICE_RETURN_IF_ERROR(spec_.compute(rows, from, to, &results));
  for (const auto& [row, w] : results) out.Push(row, "", sign * w);
  return Status::OK();
}

Result<MemBatchPtr> OverOp::EvalBounded(const BatchPtr& delta) {
  if (delta->empty()) return MemBatch::Empty();
  std::vector<BatchPtr> snap = integral_.Snapshot();
  auto old_c = NewCursorOver(snap);
  snap.push_back(delta);
  auto new_c = NewCursorOver(snap);
  auto probe = NewCursorOver(snap);
  auto reversed = reversed_.NewCursor();
  OrderedBuilder reversed_delta;
  BatchBuilder out;
  std::vector<std::string> changed;
  std::vector<Weight> weights;
  std::vector<Region> regions;
  auto d = delta->NewCursor();
  for (; d->KeyValid(); d->StepKey()) {
    const std::string_view part = d->key();
    changed.clear();
    weights.clear();
    for (; d->ValValid(); d->StepVal()) {
      changed.emplace_back(d->val());
      weights.push_back(d->weight());
    }
    for (size_t i = changed.size(); i-- > 0;)
      SLUICE_RETURN_IF_ERROR(reversed_delta.Push(part, Reverse(changed[i]), weights[i]));
    SLUICE_RETURN_IF_ERROR(FindRegions(part, changed, *probe, *reversed, &regions));
    old_c->SeekKey(part);
    new_c->SeekKey(part);
    const bool old_present = old_c->KeyValid() && old_c->key() == part;
    const bool new_present = new_c->KeyValid() && new_c->key() == part;
    for (const Region& r : regions) {
      if (old_present) SLUICE_RETURN_IF_ERROR(EmitRegion(*old_c, changed, r, -1, out));
      if (new_present) SLUICE_RETURN_IF_ERROR(EmitRegion(*new_c, changed, r, +1, out));
    }
  }
  SLUICE_RETURN_IF_ERROR(d->status());
  SLUICE_RETURN_IF_ERROR(integral_.Insert(delta));
  SLUICE_RETURN_IF_ERROR(reversed_.Insert(reversed_delta.Finish()));
  return out.Finish();
}

Status OverOp::Eval() {
  if (spec_.reach) {
    SLUICE_ASSIGN_OR_RETURN(MemBatchPtr result, EvalBounded(in_->value()));
    output_.set(std::move(result));
    return Status::OK();
  }
  SLUICE_ASSIGN_OR_RETURN(
      MemBatchPtr result,
      RecomputeTouchedGroups(in_->value(), integral_,
                             [this](Cursor& c, std::string_view group, Weight sign,
                                    BatchBuilder& out) { return Emit(c, group, sign, out); }));
  output_.set(std::move(result));
  return Status::OK();
}

Stream* Over(Circuit& c, Stream* in, OverSpec spec) {
  return c.Add<OverOp>(Exchange(c, in), std::move(spec), c.context().spine)->output();
}

Status OverOp::SaveState(StateWriter& w) const { return w.PutSpine(integral_); }

Status OverOp::LoadState(StateReader& r) {
  SLUICE_RETURN_IF_ERROR(r.GetSpine(&integral_));
  if (!spec_.reach) return Status::OK();
  OrderedBuilder b;
  std::vector<std::pair<std::string, Weight>> vals;
  auto c = integral_.NewCursor();
  for (; c->KeyValid(); c->StepKey()) {
    vals.clear();
    for (; c->ValValid(); c->StepVal()) vals.emplace_back(std::string(c->val()), c->weight());
    for (size_t i = vals.size(); i-- > 0;)
      SLUICE_RETURN_IF_ERROR(b.Push(c->key(), Reverse(vals[i].first), vals[i].second));
  }
  SLUICE_RETURN_IF_ERROR(c->status());
  return reversed_.Insert(b.Finish());
}

}  // namespace sluice
