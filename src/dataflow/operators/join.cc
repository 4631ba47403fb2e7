#include "dataflow/operators/join.h"

#include "base/hash.h"
#include "dataflow/operators/exchange.h"
#include "dataflow/state.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {

// The output being built, with scratch space for one pair.
class JoinOp::Emitter {
 public:
  BatchBuilder builder_;
  std::string k_, v_;
};

namespace {

std::vector<BatchPtr> Plus(std::vector<BatchPtr> v, const BatchPtr& b) {
  if (!b->empty()) v.push_back(b);
  return v;
}

// True if the cursor holds key `k` (seeking forward to it).
Status MulWeights(Weight x, Weight y, Weight* w) {
  if (__builtin_mul_overflow(x, y, w)) return Status::Overflow("weight overflow in join");
  return Status::OK();
}

// (A point lookup: batches whose Bloom filters rule `k` out are not read.)
bool HasKey(Cursor& c, std::string_view k) { return c.SeekKeyPresent(k, Hash64(k)); }

}  // namespace

Status JoinOp::JoinDelta(const Batch& d, Cursor& other, bool d_is_left, Emitter& out) {
  auto c = d.NewCursor();
  for (; c->KeyValid(); c->StepKey()) {
    if (!HasKey(other, c->key())) continue;
    for (; c->ValValid(); c->StepVal()) {
      other.RewindVals();
      for (; other.ValValid(); other.StepVal()) {
        out.k_.clear();
        out.v_.clear();
        std::string_view va = d_is_left ? c->val() : other.val();
        std::string_view vb = d_is_left ? other.val() : c->val();
        SLUICE_RETURN_IF_ERROR(spec_.matched(c->key(), va, vb, &out.k_, &out.v_));
        Weight w;
        SLUICE_RETURN_IF_ERROR(MulWeights(c->weight(), other.weight(), &w));
        out.builder_.Push(out.k_, out.v_, w);
      }
    }
  }
  SLUICE_RETURN_IF_ERROR(c->status());
  return other.status();
}

Status JoinOp::Unmatched(const BatchPtr& d_side, const BatchPtr& d_other,
                         const std::vector<BatchPtr>& side_prev,
                         const std::vector<BatchPtr>& other_prev, bool anti, const PadFn* pad,
                         Emitter& out) {
  // Keys touched by either change, in order.
  std::vector<std::string> keys;
  {
    auto x = d_side->NewCursor();
    auto y = d_other->NewCursor();
    while (x->KeyValid() || y->KeyValid()) {
      if (!y->KeyValid() || (x->KeyValid() && x->key() < y->key())) {
        keys.emplace_back(x->key());
        x->StepKey();
      } else if (!x->KeyValid() || y->key() < x->key()) {
        keys.emplace_back(y->key());
        y->StepKey();
      } else {
        keys.emplace_back(x->key());
        x->StepKey();
        y->StepKey();
      }
    }
    SLUICE_RETURN_IF_ERROR(x->status());
    SLUICE_RETURN_IF_ERROR(y->status());
  }
  auto other_old = NewCursorOver(other_prev);
  auto other_new = NewCursorOver(Plus(other_prev, d_other));
  auto side_old = NewCursorOver(side_prev);
  auto side_new = NewCursorOver(Plus(side_prev, d_side));
  auto side_delta = d_side->NewCursor();

  // Emits `sign` times the rows of `c` at key k (padded when `pad` is set).
  auto emit_rows = [&](Cursor& c, std::string_view k, int sign) -> Status {
    if (!HasKey(c, k)) return Status::OK();
    for (; c.ValValid(); c.StepVal()) {
      out.k_.clear();
      out.v_.clear();
      if (pad) {
        SLUICE_RETURN_IF_ERROR((*pad)(k, c.val(), &out.k_, &out.v_));
      } else {
        out.k_.assign(k);
        out.v_.assign(c.val());
      }
      out.builder_.Push(out.k_, out.v_, sign * c.weight());
    }
    return Status::OK();
  };

  for (const std::string& k : keys) {
    bool before = HasKey(*other_old, k);
    bool after = HasKey(*other_new, k);
    // Unmatched rows (anti join, outer padding) exist while the other side is
    // absent; matched rows (semi join) while it is present.
    bool want_before = anti ? !before : before;
    bool want_after = anti ? !after : after;
    if (want_before && want_after) {
      SLUICE_RETURN_IF_ERROR(emit_rows(*side_delta, k, +1));
    } else if (want_before) {
      SLUICE_RETURN_IF_ERROR(emit_rows(*side_old, k, -1));
    } else if (want_after) {
      SLUICE_RETURN_IF_ERROR(emit_rows(*side_new, k, +1));
    }
  }
  for (Cursor* c :
       {other_old.get(), other_new.get(), side_old.get(), side_new.get(), side_delta.get()}) {
    SLUICE_RETURN_IF_ERROR(c->status());
  }
  return Status::OK();
}

Status JoinOp::Eval() {
  const BatchPtr& da = a_->value();
  const BatchPtr& db = b_->value();
  Emitter out;
  if (!da->empty() || !db->empty()) {
    std::vector<BatchPtr> a_prev = ia_.Snapshot(), b_prev = ib_.Snapshot();
    JoinType t = spec_.type;
    if (t == JoinType::kInner || t == JoinType::kLeft || t == JoinType::kRight ||
        t == JoinType::kFull) {
      // a x (B + b) + A x b
      if (!da->empty()) {
        auto b_new = NewCursorOver(Plus(b_prev, db));
        SLUICE_RETURN_IF_ERROR(JoinDelta(*da, *b_new, true, out));
      }
      if (!db->empty()) {
        auto a_old = NewCursorOver(a_prev);
        SLUICE_RETURN_IF_ERROR(JoinDelta(*db, *a_old, false, out));
      }
    }
    if (t == JoinType::kLeft || t == JoinType::kFull) {
      SLUICE_RETURN_IF_ERROR(Unmatched(da, db, a_prev, b_prev, true, &spec_.left_pad, out));
    }
    if (t == JoinType::kRight || t == JoinType::kFull) {
      SLUICE_RETURN_IF_ERROR(Unmatched(db, da, b_prev, a_prev, true, &spec_.right_pad, out));
    }
    if (t == JoinType::kSemi || t == JoinType::kAnti) {
      SLUICE_RETURN_IF_ERROR(Unmatched(da, db, a_prev, b_prev, t == JoinType::kAnti, nullptr, out));
    }
  }
  // Semi and anti joins read only A's integral, but keep B's to know presence.
  SLUICE_RETURN_IF_ERROR(ia_.Insert(da));
  SLUICE_RETURN_IF_ERROR(ib_.Insert(db));
  // Each side's changes move the waterline that decides what the other
  // side keeps: they count towards its rewrites too, so that a side that
  // takes no more rows still drops the ones no later row can match.
  SLUICE_RETURN_IF_ERROR(ia_.Tick(db->len()));
  SLUICE_RETURN_IF_ERROR(ib_.Tick(da->len()));
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr result, out.builder_.Finish());
  output_.set(std::move(result));
  return Status::OK();
}

Stream* Join(Circuit& c, Stream* a, Stream* b, JoinSpec spec) {
  Stream* ea = Exchange(c, a);
  Stream* eb = Exchange(c, b);
  return c.Add<JoinOp>(ea, eb, std::move(spec), c.context().spine)->output();
}

Status JoinOp::SaveState(StateWriter& w) const {
  SLUICE_RETURN_IF_ERROR(w.PutSpine(ia_));
  SLUICE_RETURN_IF_ERROR(w.PutSpine(ib_));
  return Status::OK();
}

Status JoinOp::LoadState(StateReader& r) {
  SLUICE_RETURN_IF_ERROR(r.GetSpine(&ia_));
  SLUICE_RETURN_IF_ERROR(r.GetSpine(&ib_));
  return Status::OK();
}

}  // namespace sluice
