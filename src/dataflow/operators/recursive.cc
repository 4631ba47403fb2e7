#include "dataflow/operators/recursive.h"

#include <map>

#include "dataflow/operators/exchange.h"
#include "dataflow/operators/input.h"
#include "dataflow/operators/output.h"
#include "dataflow/state.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {
namespace {

// A relation as rows and their multiplicities, in row order.
using Rows = std::map<std::string, Weight, std::less<>>;

// Adds `sign` times the rows of `b` (keys; their values are empty) to `rows`.
Status AddRows(const Batch& b, Weight sign, Rows* rows) {
  std::unique_ptr<Cursor> c = b.NewCursor();
  for (; c->KeyValid(); c->StepKey()) {
    Weight w = 0;
    for (; c->ValValid(); c->StepVal()) w += c->weight();
    if (w == 0) continue;
    auto it = rows->try_emplace(std::string(c->key()), 0).first;
    it->second += sign * w;
    if (it->second == 0) rows->erase(it);
  }
  return c->status();
}

// Pushes `sign` times `rows` into `b`.
void PushRows(const Rows& rows, Weight sign, BatchBuilder* b) {
  for (const auto& [row, w] : rows) b->Push(row, sign * w);
}

}  // namespace

RecursiveOp::RecursiveOp(std::vector<Stream*> inputs, RecursiveSpec spec, const SpineOptions& opts)
    : inputs_(std::move(inputs)), spec_(std::move(spec)), opts_(opts), result_(MemBatch::Empty()) {
  for (size_t i = 0; i < inputs_.size(); ++i) integrals_.push_back(std::make_unique<Spine>(opts));
}

Status RecursiveOp::Eval() {
  bool changed = false;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const BatchPtr& d = inputs_[i]->value();
    if (d->empty()) continue;
    changed = true;
    SLUICE_RETURN_IF_ERROR(integrals_[i]->Insert(d));
  }
  output_.set(MemBatch::Empty());
  if (!changed) return Status::OK();
  Result<BatchPtr> r = FixedPoint();
  if (!r.ok()) {
    // Not the step's failure: the query's. R stays as it was.
    if (spec_.on_error) spec_.on_error(r.status());
    return Status::OK();
  }
  BatchBuilder delta;
  for (const auto& [batch, sign] : {std::pair{*r, Weight{1}}, std::pair{result_, Weight{-1}}}) {
    std::unique_ptr<Cursor> c = batch->NewCursor();
    for (; c->KeyValid(); c->StepKey()) {
      for (; c->ValValid(); c->StepVal()) delta.Push(c->key(), c->val(), sign * c->weight());
    }
    SLUICE_RETURN_IF_ERROR(c->status());
  }
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr out, delta.Finish());
  result_ = std::move(r).value();
  output_.set(std::move(out));
  return Status::OK();
}

Result<BatchPtr> RecursiveOp::FixedPoint() {
  WorkerContext ctx;
  ctx.spine = opts_;
  Circuit step(ctx);
  SLUICE_RETURN_IF_ERROR(spec_.build(step));
  InputOp* w_in = step.input("w");
  OutputOp* out = step.output("out");
  if (w_in == nullptr || out == nullptr) {
    return Status::Internal("the step of a recursive query lacks its input or output");
  }
  for (size_t i = 1; i < inputs_.size(); ++i) {
    InputOp* in = step.input("in" + std::to_string(i - 1));
    if (in == nullptr) return Status::Internal("the step of a recursive query lacks an input");
    SLUICE_ASSIGN_OR_RETURN(BatchPtr all, integrals_[i]->Consolidated());
    in->Push(std::move(all));
  }
  SLUICE_ASSIGN_OR_RETURN(BatchPtr base, integrals_[0]->Consolidated());
  Rows w;
  SLUICE_RETURN_IF_ERROR(AddRows(*base, 1, &w));
  for (auto it = w.begin(); it != w.end();) {
    // Rows of a relation only; UNION makes them a set.
    if (it->second <= 0) {
      it = w.erase(it);
      continue;
    }
    if (spec_.set) it->second = 1;
    ++it;
  }
  Rows r = w, fed, yielded;  // R; what "w" has been fed in all; step(W)
  uint64_t r_rows = 0, r_bytes = 0;
  for (const auto& [row, n] : r) {
    r_rows += static_cast<uint64_t>(n);
    r_bytes += row.size() * static_cast<uint64_t>(n);
  }
  for (int64_t iteration = 0; !w.empty(); ++iteration) {
    if (iteration >= spec_.max_iterations || r_rows > spec_.max_rows || r_bytes > spec_.max_bytes) {
      if (!spec_.runaway_error.empty()) return Status::Unimplemented(spec_.runaway_error);
      return Status::InvalidArgument(
          "recursive query \"" + spec_.name + "\" did not end within " +
          (iteration >= spec_.max_iterations ? std::to_string(spec_.max_iterations) + " iterations"
           : r_rows > spec_.max_rows         ? std::to_string(spec_.max_rows) + " rows"
                                             : std::to_string(spec_.max_bytes >> 20) + " MiB") +
          " (its recursive term keeps yielding new rows); its view keeps its previous rows");
    }
    BatchBuilder change;  // W's change since the last iteration
    PushRows(w, 1, &change);
    PushRows(fed, -1, &change);
    SLUICE_ASSIGN_OR_RETURN(MemBatchPtr c, change.Finish());
    w_in->Push(std::move(c));
    fed = w;
    SLUICE_RETURN_IF_ERROR(step.Step());
    SLUICE_RETURN_IF_ERROR(AddRows(*out->output()->value(), 1, &yielded));
    Rows next;
    for (const auto& [row, n] : yielded) {
      if (n <= 0) continue;
      if (spec_.set) {
        if (r.emplace(row, 1).second) {
          next.emplace(row, 1);
          ++r_rows;
          r_bytes += row.size();
        }
      } else {
        next.emplace(row, n);
        r[row] += n;
        r_rows += static_cast<uint64_t>(n);
        r_bytes += row.size() * static_cast<uint64_t>(n);
      }
    }
    w = std::move(next);
  }
  BatchBuilder b;
  PushRows(r, 1, &b);
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr all, b.Finish());
  return BatchPtr(std::move(all));
}

Status RecursiveOp::SaveState(StateWriter& w) const {
  for (const auto& s : integrals_) SLUICE_RETURN_IF_ERROR(w.PutSpine(*s));
  return w.PutBatch(result_);
}

Status RecursiveOp::LoadState(StateReader& r) {
  for (auto& s : integrals_) SLUICE_RETURN_IF_ERROR(r.GetSpine(s.get()));
  SLUICE_ASSIGN_OR_RETURN(result_, r.GetBatch());
  return Status::OK();
}

Stream* Recursive(Circuit& c, Stream* base, const std::vector<Stream*>& others,
                  RecursiveSpec spec) {
  std::vector<Stream*> ins = {ExchangeTo(c, base, 0, 1)};
  for (Stream* s : others) ins.push_back(ExchangeTo(c, s, 0, 1));
  return c.Add<RecursiveOp>(std::move(ins), std::move(spec), c.context().spine)->output();
}

}  // namespace sluice
