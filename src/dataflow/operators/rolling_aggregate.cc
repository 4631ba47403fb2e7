#include "dataflow/operators/rolling_aggregate.h"

#include <deque>
#include <limits>

#include "dataflow/operators/exchange.h"
#include "dataflow/state.h"
#include "types/row_codec.h"
#include "zset/cursor.h"

namespace sluice {
namespace {

int64_t SatAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

bool IsOrderKeyType(const SqlType& t) {
  return !t.nullable() && (t.IsInteger() || t.id() == TypeId::kDate || t.id() == TypeId::kTime ||
                           t.id() == TypeId::kTimestamp);
}

// The encoding of order key `t` clamped to its type's range: every value
// whose order key is >= t sorts at or after it.
std::string OrderKeyPrefix(const SqlType& t, int64_t v) {
  int width = IntWidth(t.id());
  if (width < 8) {
    int64_t lim = int64_t{1} << (8 * width - 1);
    v = std::max(-lim, std::min(lim - 1, v));
  }
  std::string out;
  Status s = EncodeValue(t.id() == TypeId::kTime ? SqlType::BigInt(false) : t, Value::Int(v), &out);
  (void)s;  // clamped into range above, so it fits
  return out;
}

}  // namespace

struct RollingAggregateOp::Row {
  int64_t ts;
  size_t off, len;  // the value's bytes in the arena
  Weight w;
  std::string_view field;  // the aggregated field (points into the arena)
};

Status RollingAggregateOp::ReadRange(Cursor& c, std::string_view part, int64_t from, int64_t to,
                                     std::vector<Row>* rows, std::string* arena) {
  rows->clear();
  arena->clear();
  c.SeekKey(part);
  if (!c.KeyValid() || c.key() != part) return c.status();
  c.SeekVal(OrderKeyPrefix(val_schema_[0], from));
  const SqlType& ts_type = val_schema_[0];
  std::vector<std::pair<size_t, size_t>> fields;  // (offset, length) of the field
  std::vector<std::string_view> split;
  for (; c.ValValid(); c.StepVal()) {
    std::string_view v = c.val();
    std::string_view in = v;
    int64_t ts;
    ReadInt(ts_type.id(), false, &in, &ts);
    if (ts > to) break;
    Row r{ts, arena->size(), v.size(), c.weight(), {}};
    size_t foff = 0, flen = 0;
    if (spec_.agg.column >= 0) {
      SLUICE_RETURN_IF_ERROR(SplitRowOrMisfit(val_schema_, v, &split, "rolling aggregate"));
      std::string_view f = split[static_cast<size_t>(spec_.agg.column)];
      foff = static_cast<size_t>(f.data() - v.data());
      flen = f.size();
    }
    arena->append(v);
    fields.emplace_back(r.off + foff, flen);
    rows->push_back(r);
  }
  for (size_t i = 0; i < rows->size(); ++i) {
    (*rows)[i].field = std::string_view(arena->data() + fields[i].first, fields[i].second);
  }
  return c.status();
}

Status RollingAggregateOp::EmitRange(std::string_view part, const std::vector<Row>& rows,
                                     const std::string& arena, int64_t lo, int64_t hi, Weight sign,
                                     BatchBuilder& out) {
  const AggSpec& agg = spec_.agg;
  static const SqlType kNoColumn;
  const SqlType& col = agg.column >= 0 ? val_schema_[static_cast<size_t>(agg.column)] : kNoColumn;
  const bool minmax = !IsLinear(agg.kind);
  LinearAcc acc;
  std::deque<size_t> mono;  // MIN/MAX candidates, best first
  auto better = [&](std::string_view a, std::string_view b) {
    return agg.kind == AggKind::kMin ? a < b : a > b;
  };
  size_t head = 0, tail = 0;
  std::string val;
  for (size_t i = 0; i < rows.size();) {
    int64_t t = rows[i].ts;
    size_t j = i;
    while (j < rows.size() && rows[j].ts == t) ++j;
    for (; tail < j; ++tail) {
      const Row& r = rows[tail];
      if (minmax) {
        if (r.w <= 0 || FieldIsNull(col, r.field)) continue;
        while (!mono.empty() && !better(rows[mono.back()].field, r.field)) mono.pop_back();
        mono.push_back(tail);
      } else {
        SLUICE_RETURN_IF_ERROR(AccAdd(agg, col, r.field, r.w, &acc));
      }
    }
    int64_t start = SatAdd(t, -spec_.range);
    for (; head < tail && rows[head].ts < start; ++head) {
      if (minmax) {
        if (!mono.empty() && mono.front() == head) mono.pop_front();
      } else {
        SLUICE_RETURN_IF_ERROR(AccAdd(agg, col, rows[head].field, -rows[head].w, &acc));
      }
    }
    if (t >= lo && t <= hi) {
      for (size_t k = i; k < j; ++k) {
        val.assign(arena, rows[k].off, rows[k].len);
        if (minmax) {
          if (mono.empty()) {
            AppendNull(&val);
          } else {
            AppendAsNullable(col, rows[mono.front()].field, &val);
          }
        } else {
          SLUICE_RETURN_IF_ERROR(RenderLinear(agg, col, acc, &val));
        }
        out.Push(part, val, sign * rows[k].w);
      }
    }
    i = j;
  }
  return Status::OK();
}

Status RollingAggregateOp::Eval() {
  const BatchPtr& delta = in_->value();
  if (delta->empty()) {
    output_.set(MemBatch::Empty());
    return Status::OK();
  }
  if (val_schema_.empty() || !IsOrderKeyType(val_schema_[0])) {
    return Status::InvalidArgument(
        "a rolling aggregate needs a NOT NULL integer, DATE, TIME or TIMESTAMP order key first, "
        "not " +
        SchemaToString(val_schema_));
  }
  if (spec_.range < 0)
    return Status::InvalidArgument("a rolling window's range must not be negative");
  const SqlType& ts_type = val_schema_[0];
  std::vector<BatchPtr> snap = integral_.Snapshot();
  auto old_c = NewCursorOver(snap);
  snap.push_back(delta);
  auto new_c = NewCursorOver(snap);
  BatchBuilder out;
  std::vector<Row> rows;
  std::string arena;
  auto d = delta->NewCursor();
  for (; d->KeyValid(); d->StepKey()) {
    std::string_view part = d->key();
    // Intervals of affected order keys, merged so that their read ranges
    // [lo - range, hi] do not overlap and cursors only move forward.
    std::vector<std::pair<int64_t, int64_t>> intervals;
    for (; d->ValValid(); d->StepVal()) {
      std::string_view in = d->val();
      int64_t t;
      ReadInt(ts_type.id(), false, &in, &t);
      int64_t end = SatAdd(t, spec_.range);
      if (!intervals.empty() && SatAdd(intervals.back().second, spec_.range) >= t) {
        intervals.back().second = std::max(intervals.back().second, end);
      } else {
        intervals.emplace_back(t, end);
      }
    }
    for (const auto& [lo, hi] : intervals) {
      int64_t from = SatAdd(lo, -spec_.range);
      SLUICE_RETURN_IF_ERROR(ReadRange(*old_c, part, from, hi, &rows, &arena));
      SLUICE_RETURN_IF_ERROR(EmitRange(part, rows, arena, lo, hi, -1, out));
      SLUICE_RETURN_IF_ERROR(ReadRange(*new_c, part, from, hi, &rows, &arena));
      SLUICE_RETURN_IF_ERROR(EmitRange(part, rows, arena, lo, hi, +1, out));
    }
  }
  SLUICE_RETURN_IF_ERROR(d->status());
  SLUICE_RETURN_IF_ERROR(integral_.Insert(delta));
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr result, out.Finish());
  output_.set(std::move(result));
  return Status::OK();
}

Stream* RollingAggregate(Circuit& c, Stream* in, Schema val_schema, RollingSpec spec) {
  return c.Add<RollingAggregateOp>(Exchange(c, in), std::move(val_schema), spec, c.context().spine)
      ->output();
}

Status RollingAggregateOp::SaveState(StateWriter& w) const {
  SLUICE_RETURN_IF_ERROR(w.PutSpine(integral_));
  return Status::OK();
}

Status RollingAggregateOp::LoadState(StateReader& r) {
  SLUICE_RETURN_IF_ERROR(r.GetSpine(&integral_));
  return Status::OK();
}

}  // namespace sluice
