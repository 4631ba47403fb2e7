#include "dataflow/operators/upsert.h"

#include "base/bytes.h"
#include "base/hash.h"
#include "dataflow/operators/exchange.h"
#include "dataflow/state.h"
#include "types/row_codec.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {

std::string EncodeUpsertCommand(uint64_t seq, UpsertOpKind op, std::string_view payload) {
  std::string out(8, '\0');
  for (int i = 7; i >= 0; --i) {
    out[static_cast<size_t>(i)] = static_cast<char>(seq & 0xff);
    seq >>= 8;
  }
  out.push_back(static_cast<char>(op));
  if (op != UpsertOpKind::kDelete) out.append(payload);
  return out;
}

std::string EncodeUpdatePatch(const std::vector<bool>& present, std::string_view fields) {
  std::string out((present.size() + 7) / 8, '\0');
  for (size_t i = 0; i < present.size(); ++i) {
    if (present[i]) out[i / 8] = static_cast<char>(out[i / 8] | (1 << (i % 8)));
  }
  out.append(fields);
  return out;
}

Status UpsertOp::ApplyPatch(std::string_view patch, std::string_view row, std::string* out) const {
  const size_t n = schema_.size(), bitmap = (n + 7) / 8;
  if (patch.size() < bitmap) return Status::InvalidArgument("truncated update patch");
  Schema present;
  std::vector<bool> set(n);
  for (size_t i = 0; i < n; ++i) {
    set[i] = (static_cast<uint8_t>(patch[i / 8]) >> (i % 8)) & 1;
    if (set[i]) present.push_back(schema_[i]);
  }
  std::vector<std::string_view> old_fields, new_fields;
  SLUICE_RETURN_IF_ERROR(SplitRowOrMisfit(schema_, row, &old_fields, "upsert"));
  SLUICE_RETURN_IF_ERROR(
      SplitRowOrMisfit(present, patch.substr(bitmap), &new_fields, "update patch"));
  out->clear();
  for (size_t i = 0, j = 0; i < n; ++i) out->append(set[i] ? new_fields[j++] : old_fields[i]);
  return Status::OK();
}

namespace {

// Point lookups of sorted keys in a spine's batches: a batch is skipped
// when its Bloom filter rules the key out; otherwise one in memory is
// searched from where its previous search ended, and one on storage goes
// through a cursor.
// (A merged cursor would search every batch for every key.)
class PointLookup {
 public:
  explicit PointLookup(std::vector<BatchPtr> batches) : batches_(std::move(batches)) {
    for (const BatchPtr& b : batches_) parts_.push_back({dynamic_cast<const MemBatch*>(b.get())});
  }

  // The value of `key` with a non-zero net weight over the batches, if any.
  Status Find(std::string_view key, bool* found, std::string* val) {
    const uint64_t hash = Hash64(key);
    net_.clear();
    for (size_t i = 0; i < parts_.size(); ++i) {
      Part& p = parts_[i];
      if (p.mem != nullptr) {
        if (!p.mem->MayContainKey(hash)) continue;
        p.pos = p.mem->LowerBoundKey(key, p.pos);
        if (p.pos < p.mem->key_count() && p.mem->key(p.pos) == key) {
          for (size_t j = p.mem->vals_begin(p.pos); j < p.mem->vals_end(p.pos); ++j) {
            Add(p.mem->val(j), p.mem->weight(j));
          }
        }
        continue;
      }
      if (!batches_[i]->MayContainKey(hash)) continue;
      if (p.cursor == nullptr) p.cursor = batches_[i]->NewCursor();
      p.cursor->SeekKey(key);
      if (p.cursor->KeyValid() && p.cursor->key() == key) {
        for (; p.cursor->ValValid(); p.cursor->StepVal()) Add(p.cursor->val(), p.cursor->weight());
      }
      SLUICE_RETURN_IF_ERROR(p.cursor->status());
    }
    *found = false;
    for (const auto& [v, w] : net_) {
      if (w != 0) {
        *found = true;
        val->assign(v);
        break;
      }
    }
    return Status::OK();
  }

 private:
  struct Part {
    const MemBatch* mem = nullptr;
    std::unique_ptr<Cursor> cursor;  // batches not in memory
    size_t pos = 0;
  };
  void Add(std::string_view v, Weight w) {
    for (auto& e : net_) {
      if (e.first == v) {
        e.second += w;
        return;
      }
    }
    net_.emplace_back(v, w);
  }

  std::vector<BatchPtr> batches_;
  std::vector<Part> parts_;
  std::vector<std::pair<std::string_view, Weight>> net_;
};

}  // namespace

Status UpsertOp::Eval() {
  SLUICE_RETURN_IF_ERROR(Apply());
  if (!replay_) return Status::OK();
  // Replay: the table as it now is, instead of its change.
  replay_ = false;
  BatchBuilder rows;
  auto c = integral_.NewCursor();
  for (; c->KeyValid(); c->StepKey()) {
    for (; c->ValValid(); c->StepVal()) rows.Push(c->val(), c->weight());
  }
  SLUICE_RETURN_IF_ERROR(c->status());
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr all, rows.Finish());
  output_.set(std::move(all));
  return Status::OK();
}

Status UpsertOp::Apply() {
  const BatchPtr& delta = in_->value();
  if (delta->empty()) {
    output_.set(MemBatch::Empty());
    return Status::OK();
  }
  PointLookup old(integral_.Snapshot());
  auto d = delta->NewCursor();
  BatchBuilder out;
  OrderedBuilder change;  // to the integral: key -> row
  std::string before, after, patched;
  for (; d->KeyValid(); d->StepKey()) {
    std::string_view key = d->key();
    bool had = false, has = false;
    SLUICE_RETURN_IF_ERROR(old.Find(key, &had, &before));
    has = had;
    after = before;
    // Values sort by sequence number: the commands in the order they came.
    for (; d->ValValid(); d->StepVal()) {
      std::string_view cmd = d->val();
      if (cmd.size() < 9 || d->weight() != 1) {
        return Status::InvalidArgument("malformed upsert command for key " + BytesToHex(key));
      }
      char op = cmd[8];
      if (op == static_cast<char>(UpsertOpKind::kInsert)) {
        bool keep = true;
        if (check_) {
          SLUICE_ASSIGN_OR_RETURN(keep, check_(cmd.substr(9)));
        }
        if (keep) {
          after.assign(cmd.substr(9));
          has = true;
        }
      } else if (op == static_cast<char>(UpsertOpKind::kDelete)) {
        has = false;
      } else if (op == static_cast<char>(UpsertOpKind::kUpdate)) {
        if (has) {
          // Patched into a row of its own: one the check refuses leaves `after`.
          SLUICE_RETURN_IF_ERROR(ApplyPatch(cmd.substr(9), after, &patched));
          bool keep = true;
          if (check_) {
            SLUICE_ASSIGN_OR_RETURN(keep, check_(patched));
          }
          if (keep) after.swap(patched);
        }
      } else {
        return Status::InvalidArgument("unknown upsert command '" + std::string(1, op) + "'");
      }
    }
    if (had == has && (!had || before == after)) continue;
    // The integral's change for this key, in value order.
    if (had && has && after < before) {
      SLUICE_RETURN_IF_ERROR(change.Push(key, after, 1));
      SLUICE_RETURN_IF_ERROR(change.Push(key, before, -1));
    } else {
      if (had) SLUICE_RETURN_IF_ERROR(change.Push(key, before, -1));
      if (has) SLUICE_RETURN_IF_ERROR(change.Push(key, after, 1));
    }
    if (had) out.Push(before, -1);
    if (has) out.Push(after, 1);
  }
  SLUICE_RETURN_IF_ERROR(d->status());
  SLUICE_RETURN_IF_ERROR(integral_.Insert(change.Finish()));
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr result, out.Finish());
  output_.set(std::move(result));
  return Status::OK();
}

Stream* Upsert(Circuit& c, Stream* commands, Schema schema, RowCheckFn check) {
  return c
      .Add<UpsertOp>(Exchange(c, commands), std::move(schema), c.context().spine, std::move(check))
      ->output();
}

Status UpsertOp::SaveState(StateWriter& w) const {
  SLUICE_RETURN_IF_ERROR(w.PutSpine(integral_));
  return Status::OK();
}

Status UpsertOp::LoadState(StateReader& r) {
  SLUICE_RETURN_IF_ERROR(r.GetSpine(&integral_));
  return Status::OK();
}

}  // namespace sluice
