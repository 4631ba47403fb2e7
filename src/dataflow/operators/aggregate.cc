#include "dataflow/operators/aggregate.h"

#include <cstring>
#include <optional>

#include "base/bytes.h"
#include "dataflow/operators/exchange.h"
#include "dataflow/state.h"
#include "types/row_codec.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {

// A group's state: COUNT(*) and one linear accumulator per aggregate,
// serialized as fixed-width little-endian fields, the statistics followed by
// their moments (EncodeStats); then, only if some accumulator counts special
// numerics (NaN, infinities) or has a sum of more than 38 digits, every
// accumulator's three counts (8 bytes each); then, only if some has such a
// sum, the wide sums (EncodeWideSums). Not ordered; only equality matters,
// and equal states have equal bytes.
//
// The insert-only variant puts its MIN and MAX values first
// (EncodeExtremes): per aggregate that keeps one, in order, a byte 0 (no
// value yet: every value was NULL) or a byte 1, the value's length (4 bytes,
// little-endian) and the value (the field in its nullable encoding,
// inverted for MAX, as the index of the general variant holds it).
struct AggregateOp::State {
  int64_t rows = 0;
  std::vector<LinearAcc> accs;
  // Per aggregate: the current MIN or MAX of an insert-only one, if any.
  std::vector<std::optional<std::string>> extremes;

  void EncodeExtremes(const std::vector<bool>& extreme, std::string* out) const {
    for (size_t i = 0; i < extreme.size(); ++i) {
      if (!extreme[i]) continue;
      const std::optional<std::string>& v = extremes[i];
      out->push_back(v.has_value() ? 1 : 0);
      if (!v.has_value()) continue;
      const uint32_t len = static_cast<uint32_t>(v->size());
      out->append(reinterpret_cast<const char*>(&len), 4);
      out->append(*v);
    }
  }
  Status DecodeExtremes(const std::vector<bool>& extreme, std::string_view* in) {
    auto bad = [] { return Status::Corruption("the MIN and MAX of an aggregate are truncated"); };
    extremes.assign(extreme.size(), std::nullopt);
    for (size_t i = 0; i < extreme.size(); ++i) {
      if (!extreme[i]) continue;
      if (in->empty()) return bad();
      const char present = (*in)[0];
      in->remove_prefix(1);
      if (present == 0) continue;
      uint32_t len;
      if (present != 1 || in->size() < 4) return bad();
      std::memcpy(&len, in->data(), 4);
      in->remove_prefix(4);
      if (in->size() < len) return bad();
      extremes[i].emplace(in->substr(0, len));
      in->remove_prefix(len);
    }
    return Status::OK();
  }

  // numeric[i]: whether aggregate i sums a NUMERIC of dynamic scale, whose
  // accumulator also keeps its scale counts (EncodeScales).
  void Encode(const std::vector<AggSpec>& aggs, const std::vector<bool>& numeric,
              std::string* out) const {
    out->append(reinterpret_cast<const char*>(&rows), 8);
    for (size_t i = 0; i < accs.size(); ++i) {
      const LinearAcc& a = accs[i];
      out->append(reinterpret_cast<const char*>(&a.count), 8);
      out->append(reinterpret_cast<const char*>(&a.isum), 16);
      uint64_t bits;
      double d = a.dsum == 0 ? 0.0 : a.dsum;  // one encoding for -0.0 and 0.0
      std::memcpy(&bits, &d, 8);
      out->append(reinterpret_cast<const char*>(&bits), 8);
      if (IsStatistical(aggs[i].kind)) EncodeStats(a, out);
      if (numeric[i]) EncodeScales(a, out);
    }
    bool specials = false, wide = false;
    for (const LinearAcc& a : accs) {
      specials = specials || a.HasSpecials();
      wide = wide || a.wide != nullptr;
    }
    if (specials || wide) {
      for (const LinearAcc& a : accs) out->append(reinterpret_cast<const char*>(a.specials), 24);
    }
    if (wide) EncodeWideSums(accs, out);
  }
  Status Decode(std::string_view in, const std::vector<AggSpec>& aggs,
                const std::vector<bool>& numeric) {
    const size_t n = aggs.size();
    if (in.size() < 8 + 32 * n) return Status::Corruption("aggregate state has a bad length");
    std::memcpy(&rows, in.data(), 8);
    in.remove_prefix(8);
    accs.assign(n, LinearAcc());
    for (size_t i = 0; i < n; ++i) {
      if (in.size() < 32) return Status::Corruption("aggregate state has a bad length");
      const char* p = in.data();
      std::memcpy(&accs[i].count, p, 8);
      std::memcpy(&accs[i].isum, p + 8, 16);
      std::memcpy(&accs[i].dsum, p + 24, 8);
      in.remove_prefix(32);
      if (IsStatistical(aggs[i].kind)) SLUICE_RETURN_IF_ERROR(DecodeStats(&in, &accs[i]));
      if (numeric[i]) SLUICE_RETURN_IF_ERROR(DecodeScales(&in, &accs[i]));
    }
    if (in.size() >= 24 * n && !in.empty()) {
      for (size_t i = 0; i < n; ++i) std::memcpy(accs[i].specials, in.data() + 24 * i, 24);
      in.remove_prefix(24 * n);
      if (!in.empty()) SLUICE_RETURN_IF_ERROR(DecodeWideSums(&in, &accs));
    }
    if (!in.empty()) return Status::Corruption("aggregate state has a bad length");
    return Status::OK();
  }
};

AggregateOp::AggregateOp(Stream* in, Schema val_schema, std::vector<AggSpec> aggs,
                         const SpineOptions& opts, bool insert_only)
    : in_(in),
      val_schema_(std::move(val_schema)),
      aggs_(std::move(aggs)),
      states_(opts),
      insert_only_(insert_only) {
  for (const AggSpec& a : aggs_) {
    const bool extreme = insert_only_ && (a.kind == AggKind::kMin || a.kind == AggKind::kMax);
    extreme_.push_back(extreme);
    bool indexed = !extreme && (!IsLinear(a.kind) || IsDistinctAgg(a.kind));
    index_.push_back(indexed ? std::make_unique<Spine>(opts) : nullptr);
    numeric_.push_back(a.column >= 0 && static_cast<size_t>(a.column) < val_schema_.size() &&
                       val_schema_[static_cast<size_t>(a.column)].dynamic_scale());
  }
}

Status AggregateOp::Render(std::string_view group, const State& st,
                           std::vector<std::unique_ptr<Cursor>>& idx, std::string* out) const {
  out->assign(group);
  for (size_t i = 0; i < aggs_.size(); ++i) {
    const AggSpec& a = aggs_[i];
    static const SqlType kNoColumn;
    const SqlType& col = a.column >= 0 ? val_schema_[static_cast<size_t>(a.column)] : kNoColumn;
    if (IsLinear(a.kind)) {
      Status s = RenderLinear(a, col, st.accs[i], out);
      if (!s.ok()) return s.WithContext("aggregate " + std::to_string(i + 1));
      continue;
    }
    if (KeepsExtreme(i)) {
      const std::optional<std::string>& v = st.extremes[i];
      if (!v.has_value()) {
        AppendNull(out);
        continue;
      }
      size_t start = out->size();
      out->append(*v);
      if (a.kind == AggKind::kMax) InvertBytes(out->data() + start, v->size());
      continue;
    }
    Cursor& c = *idx[i];
    c.SeekKey(group);
    if (a.kind == AggKind::kStringAgg || a.kind == AggKind::kArrayAgg) {
      // Every value of the group, in order, as many times as it occurs.
      const SqlType vt = col.WithNullable(true);
      std::vector<Value> values;
      std::string bytes;
      if (c.KeyValid() && c.key() == group) {
        for (; c.ValValid(); c.StepVal()) {
          if (c.weight() <= 0) continue;
          bytes.assign(c.val());
          if (a.desc) InvertBytes(bytes.data(), bytes.size());
          std::string_view in = bytes;
          Value v;
          SLUICE_RETURN_IF_ERROR(DecodeValue(vt, &in, &v));
          if (a.keyed_order) {
            // ROW(order key, value): the value; string_agg skips NULLs.
            if (v.is_null()) continue;  // FILTER left it out
            if (v.list().size() != 2) {
              return Status::Corruption("an ordered aggregate's value is not a (key, value) row");
            }
            Value value = v.list()[1];
            v = std::move(value);
            if (v.is_null() && a.kind == AggKind::kStringAgg) continue;
          }
          const Weight times = a.distinct ? 1 : c.weight();
          for (Weight k = 0; k < times; ++k) values.push_back(v);
        }
      }
      SLUICE_RETURN_IF_ERROR(c.status());
      SLUICE_ASSIGN_OR_RETURN(SqlType out_type, AggOutputType(a, val_schema_));
      SLUICE_ASSIGN_OR_RETURN(Value result, CollectedResult(a, out_type, vt, std::move(values)));
      SLUICE_RETURN_IF_ERROR(EncodeValue(out_type, result, out));
      continue;
    }
    if (c.KeyValid() && c.key() == group && c.ValValid()) {
      std::string_view v = c.val();
      size_t start = out->size();
      out->append(v);
      if (a.kind == AggKind::kMax) InvertBytes(out->data() + start, v.size());
    } else {
      AppendNull(out);
    }
    SLUICE_RETURN_IF_ERROR(c.status());
  }
  return Status::OK();
}

Status AggregateOp::AddStatistic(const AggSpec& a, const std::vector<std::string_view>& fields,
                                 Weight w, LinearAcc* acc) const {
  Value y, x;
  const SqlType& yt = val_schema_[static_cast<size_t>(a.column)];
  std::string_view in = fields[static_cast<size_t>(a.column)];
  SLUICE_RETURN_IF_ERROR(DecodeValue(yt, &in, &y));
  if (a.column2 >= 0) {
    in = fields[static_cast<size_t>(a.column2)];
    SLUICE_RETURN_IF_ERROR(DecodeValue(val_schema_[static_cast<size_t>(a.column2)], &in, &x));
  }
  return StatsAdd(a, yt, y, x, w, acc);
}

Status AggregateOp::IndexedField(size_t i, const std::vector<std::string_view>& fields,
                                 std::string* field, bool* keep) const {
  const AggSpec& a = aggs_[i];
  const SqlType& col = val_schema_[static_cast<size_t>(a.column)];
  std::string_view f = fields[static_cast<size_t>(a.column)];
  *keep = false;
  if (FieldIsNull(col, f) && a.kind != AggKind::kArrayAgg) return Status::OK();
  if (a.filter_column >= 0) {
    const size_t fc = static_cast<size_t>(a.filter_column);
    std::string_view in = fields[fc];
    Value pass;
    SLUICE_RETURN_IF_ERROR(DecodeValue(val_schema_[fc], &in, &pass));
    if (pass.is_null() || !pass.bool_value()) return Status::OK();
  }
  field->clear();
  AppendAsNullable(col, f, field);
  if (a.kind == AggKind::kMax || a.desc) InvertBytes(field->data(), field->size());
  *keep = true;
  return Status::OK();
}

Status AggregateOp::Eval() {
  const BatchPtr& delta = in_->value();
  if (delta->empty()) {
    output_.set(MemBatch::Empty());
    return Status::OK();
  }
  const size_t n = aggs_.size();
  std::vector<std::string_view> fields;

  // Pass 1: the change to each (group, field) index.
  std::vector<BatchPtr> index_delta(n);
  {
    std::vector<BatchBuilder> builders(n);
    std::string field;
    auto c = delta->NewCursor();
    for (; c->KeyValid(); c->StepKey()) {
      for (; c->ValValid(); c->StepVal()) {
        bool split = false;
        for (size_t i = 0; i < n; ++i) {
          if (!index_[i]) continue;
          if (!split) {
            SLUICE_RETURN_IF_ERROR(SplitRowOrMisfit(val_schema_, c->val(), &fields, "aggregate"));
            split = true;
          }
          bool keep;
          SLUICE_RETURN_IF_ERROR(IndexedField(i, fields, &field, &keep));
          if (keep) builders[i].Push(c->key(), field, c->weight());
        }
      }
    }
    SLUICE_RETURN_IF_ERROR(c->status());
    for (size_t i = 0; i < n; ++i) {
      if (!index_[i]) continue;
      SLUICE_ASSIGN_OR_RETURN(MemBatchPtr b, builders[i].Finish());
      index_delta[i] = std::move(b);
    }
  }

  // Pass 2: per group, old and new state and output.
  std::vector<std::unique_ptr<Cursor>> idx_old(n), idx_new(n), idx_delta(n);
  for (size_t i = 0; i < n; ++i) {
    if (!index_[i]) continue;
    std::vector<BatchPtr> snap = index_[i]->Snapshot();
    idx_old[i] = NewCursorOver(snap);
    snap.push_back(index_delta[i]);
    idx_new[i] = NewCursorOver(snap);
    idx_delta[i] = index_delta[i]->NewCursor();
  }
  auto states = states_.NewCursor();
  BatchBuilder out;
  OrderedBuilder state_delta;
  std::string old_row, new_row, old_bytes, new_bytes, field;
  State st_old, st_new;
  auto d = delta->NewCursor();
  for (; d->KeyValid(); d->StepKey()) {
    std::string_view g = d->key();
    st_old = State();
    st_old.accs.assign(n, LinearAcc());
    st_old.extremes.assign(n, std::nullopt);
    old_bytes.clear();
    states->SeekKey(g);
    if (states->KeyValid() && states->key() == g && states->ValValid()) {
      old_bytes.assign(states->val());
      std::string_view in = old_bytes;
      SLUICE_RETURN_IF_ERROR(st_old.DecodeExtremes(extreme_, &in));
      SLUICE_RETURN_IF_ERROR(st_old.Decode(in, aggs_, numeric_));
    }
    st_new = st_old;
    for (; d->ValValid(); d->StepVal()) {
      Weight w = d->weight();
      if (insert_only_ && w < 0) {
        return Status::Internal("an insert-only aggregate received a delete (weight " +
                                std::to_string(w) + ") in group " + BytesToHex(g) +
                                ": its input was wrongly planned as insert-only");
      }
      if (__builtin_add_overflow(st_new.rows, w, &st_new.rows)) {
        return Status::Overflow("row count overflow in aggregate");
      }
      bool split = false;
      for (size_t i = 0; i < n; ++i) {
        if (!KeepsExtreme(i)) continue;
        if (!split) {
          SLUICE_RETURN_IF_ERROR(SplitRowOrMisfit(val_schema_, d->val(), &fields, "aggregate"));
          split = true;
        }
        // The smallest field is the MIN (or, inverted, the MAX), as the
        // general variant's index would give it first.
        bool keep;
        SLUICE_RETURN_IF_ERROR(IndexedField(i, fields, &field, &keep));
        std::optional<std::string>& cur = st_new.extremes[i];
        if (keep && (!cur.has_value() || field < *cur)) cur = field;
      }
      for (size_t i = 0; i < n; ++i) {
        const AggSpec& a = aggs_[i];
        if (IsDistinctAgg(a.kind) || !IsLinear(a.kind)) continue;
        if (a.kind == AggKind::kCountStar) {
          SLUICE_RETURN_IF_ERROR(AccAdd(a, SqlType(), {}, w, &st_new.accs[i]));
          continue;
        }
        if (!split) {
          SLUICE_RETURN_IF_ERROR(SplitRowOrMisfit(val_schema_, d->val(), &fields, "aggregate"));
          split = true;
        }
        const SqlType& col = val_schema_[static_cast<size_t>(a.column)];
        Status s;
        if (IsStatistical(a.kind)) {
          s = AddStatistic(a, fields, w, &st_new.accs[i]);
        } else {
          s = AccAdd(a, col, fields[static_cast<size_t>(a.column)], w, &st_new.accs[i]);
        }
        if (!s.ok()) return g.empty() ? s : s.WithContext("group " + BytesToHex(g));
      }
    }
    // COUNT, SUM, AVG (DISTINCT): a value counts once its multiplicity
    // becomes positive, and stops counting when it falls back to zero.
    for (size_t i = 0; i < n; ++i) {
      if (!IsDistinctAgg(aggs_[i].kind)) continue;
      const SqlType col = val_schema_[static_cast<size_t>(aggs_[i].column)].WithNullable(true);
      Cursor& dc = *idx_delta[i];
      dc.SeekKey(g);
      if (!dc.KeyValid() || dc.key() != g) continue;
      Cursor& oc = *idx_old[i];
      oc.SeekKey(g);
      bool has = oc.KeyValid() && oc.key() == g;
      for (; dc.ValValid(); dc.StepVal()) {
        Weight before = 0;
        if (has) {
          oc.SeekVal(dc.val());
          if (oc.ValValid() && oc.val() == dc.val()) before = oc.weight();
        }
        Weight after = before + dc.weight();
        int flip = (after > 0) - (before > 0);
        if (flip != 0) {
          // Index values are stored in their nullable form.
          SLUICE_RETURN_IF_ERROR(AccAdd(aggs_[i], col, dc.val(), flip, &st_new.accs[i]));
        }
      }
    }
    bool existed = st_old.rows != 0, exists = st_new.rows != 0;
    old_row.clear();
    new_row.clear();
    if (existed) SLUICE_RETURN_IF_ERROR(Render(g, st_old, idx_old, &old_row));
    if (exists) SLUICE_RETURN_IF_ERROR(Render(g, st_new, idx_new, &new_row));
    if (existed != exists || old_row != new_row) {
      if (existed) out.Push(old_row, -1);
      if (exists) out.Push(new_row, 1);
    }
    new_bytes.clear();
    if (exists) {
      st_new.EncodeExtremes(extreme_, &new_bytes);
      st_new.Encode(aggs_, numeric_, &new_bytes);
    }
    if (old_bytes != new_bytes) {
      // The state delta is built in order: the smaller state's bytes first.
      std::pair<const std::string*, Weight> parts[2] = {{&old_bytes, existed ? -1 : 0},
                                                        {&new_bytes, exists ? 1 : 0}};
      if (new_bytes < old_bytes) std::swap(parts[0], parts[1]);
      for (const auto& [bytes, w] : parts) {
        if (w != 0) SLUICE_RETURN_IF_ERROR(state_delta.Push(g, *bytes, w));
      }
    }
  }
  SLUICE_RETURN_IF_ERROR(d->status());
  SLUICE_RETURN_IF_ERROR(states->status());
  SLUICE_RETURN_IF_ERROR(states_.Insert(state_delta.Finish()));
  for (size_t i = 0; i < n; ++i) {
    if (index_[i]) SLUICE_RETURN_IF_ERROR(index_[i]->Insert(index_delta[i]));
  }
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr result, out.Finish());
  output_.set(std::move(result));
  return Status::OK();
}

Stream* Aggregate(Circuit& c, Stream* in, Schema val_schema, std::vector<AggSpec> aggs,
                  std::function<bool(std::string_view group)> retain, bool insert_only) {
  AggregateOp* op = c.Add<AggregateOp>(Exchange(c, in), std::move(val_schema), std::move(aggs),
                                       c.context().spine, insert_only);
  if (retain) op->SetRetain(retain);
  return op->output();
}

void AggregateOp::SetRetain(const std::function<bool(std::string_view group)>& retain) {
  states_.SetRetain(retain);
  for (auto& idx : index_) {
    if (idx != nullptr) idx->SetRetain(retain);
  }
}

Status AggregateOp::SaveState(StateWriter& w) const {
  SLUICE_RETURN_IF_ERROR(w.PutSpine(states_));
  for (const auto& idx : index_) {
    w.PutU64(idx != nullptr);
    if (idx != nullptr) SLUICE_RETURN_IF_ERROR(w.PutSpine(*idx));
  }
  return Status::OK();
}

Status AggregateOp::LoadState(StateReader& r) {
  SLUICE_RETURN_IF_ERROR(r.GetSpine(&states_));
  for (auto& idx : index_) {
    SLUICE_ASSIGN_OR_RETURN(uint64_t present, r.GetU64());
    if ((present != 0) != (idx != nullptr)) {
      return Status::Corruption("checkpoint state of an aggregate does not match its kinds");
    }
    if (idx != nullptr) SLUICE_RETURN_IF_ERROR(r.GetSpine(idx.get()));
  }
  return Status::OK();
}

}  // namespace sluice
