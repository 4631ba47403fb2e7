#include "dataflow/operators/recursive.h"

#include "base/bytes.h"
#include "dataflow/operators/exchange.h"
#include "dataflow/operators/input.h"
#include "dataflow/operators/output.h"
#include "dataflow/state.h"
#include "dataflow/transport.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {
namespace {

using Rows = RecursiveOp::Rows;
using RowSet = RecursiveOp::RowSet;

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

// Adds `w` to `row`'s weight in `rows`, dropping it at 0.
void AddRow(std::string_view row, Weight w, Rows* rows) {
  auto it = rows->find(row);
  if (it == rows->end()) {
    rows->emplace(std::string(row), w);
    return;
  }
  it->second += w;
  if (it->second == 0) rows->erase(it);
}

Weight WeightOf(const Rows& rows, std::string_view row) {
  auto it = rows.find(row);
  return it == rows.end() ? 0 : it->second;
}

// `sign` times `rows`, as a batch.
Result<MemBatchPtr> ToBatch(const Rows& rows, Weight sign) {
  BatchBuilder b;
  for (const auto& [row, w] : rows) b.Push(row, sign * w);
  return b.Finish();
}

// The rows of `rows` (with their multiplicities) and their bytes.
void Measure(const Rows& rows, uint64_t* count, uint64_t* bytes) {
  *count = *bytes = 0;
  for (const auto& [row, n] : rows) {
    *count += static_cast<uint64_t>(n);
    *bytes += row.size() * static_cast<uint64_t>(n);
  }
}

// The step turned out not to be monotone: the caller computes from scratch.
Status NotMonotone() { return Status::Aborted("the recursive term is not monotone"); }

}  // namespace

// The step's circuit that lives across steps: its W is all of R, so the
// integral of its output, `y`, is step(R); `base` is base's integral.
struct RecursiveOp::Live {
  std::unique_ptr<Circuit> circuit;
  InputOp* w = nullptr;
  std::vector<InputOp*> others;
  OutputOp* out = nullptr;
  Rows y, base;
};

RecursiveOp::RecursiveOp(std::vector<Stream*> inputs, RecursiveSpec spec, const WorkerContext& ctx,
                         RecursiveExchangeIds ids)
    : inputs_(std::move(inputs)), spec_(std::move(spec)), ctx_(ctx), ids_(ids), opts_(ctx.spine) {
  for (size_t i = 0; i < inputs_.size(); ++i) integrals_.push_back(std::make_unique<Spine>(opts_));
}

RecursiveOp::~RecursiveOp() = default;

Status RecursiveOp::Eval() {
  Status s = EvalOnWorkers();
  // The other workers would wait for this one's next round: the step fails
  // on all of them.
  if (!s.ok() && ctx_.workers > 1 && ctx_.transport != nullptr) ctx_.transport->Abort(s);
  return s;
}

Result<std::unique_ptr<Circuit>> RecursiveOp::BuildStep() {
  auto step = std::make_unique<Circuit>(ctx_);
  step->StartExchangeIdsAt(ids_.step_first);
  SLUICE_RETURN_IF_ERROR(spec_.build(*step));
  return step;
}

Result<Rows> RecursiveOp::ToOwners(const Rows& mine) {
  if (ctx_.workers == 1) return mine;
  std::vector<BatchBuilder> parts(static_cast<size_t>(ctx_.workers));
  for (const auto& [row, w] : mine)
    parts[static_cast<size_t>(WorkerForKey(row, ctx_.workers))].Push(row, w);
  for (int to = 0; to < ctx_.workers; ++to) {
    SLUICE_ASSIGN_OR_RETURN(MemBatchPtr part, parts[static_cast<size_t>(to)].Finish());
    SLUICE_RETURN_IF_ERROR(ctx_.transport->Send(ids_.rows, ctx_.worker, to, std::move(part)));
  }
  std::vector<BatchPtr> received;
  SLUICE_RETURN_IF_ERROR(ctx_.transport->Receive(ids_.rows, ctx_.worker, &received));
  Rows owned;
  for (const BatchPtr& b : received) SLUICE_RETURN_IF_ERROR(AddRows(*b, 1, &owned));
  return owned;
}

Result<std::vector<uint64_t>> RecursiveOp::SumOverWorkers(std::vector<uint64_t> mine) {
  if (ctx_.workers == 1) return mine;
  // One row: the values, 8 bytes each.
  std::string row;
  for (uint64_t v : mine) PutFixed64(&row, v);
  BatchBuilder b;
  b.Push(row, 1);
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr batch, b.Finish());
  for (int to = 0; to < ctx_.workers; ++to) {
    SLUICE_RETURN_IF_ERROR(ctx_.transport->Send(ids_.sums, ctx_.worker, to, batch));
  }
  std::vector<BatchPtr> received;
  SLUICE_RETURN_IF_ERROR(ctx_.transport->Receive(ids_.sums, ctx_.worker, &received));
  std::vector<uint64_t> sums(mine.size(), 0);
  for (const BatchPtr& got : received) {
    std::unique_ptr<Cursor> c = got->NewCursor();
    std::string_view key = c->KeyValid() ? c->key() : std::string_view();
    if (key.size() != 8 * sums.size()) {
      return Status::Corruption("a recursive query's sums from another worker are malformed");
    }
    for (uint64_t& sum : sums) {
      uint64_t v = 0;
      ConsumeFixed64(&key, &v);
      sum += v;
    }
  }
  return sums;
}

Result<bool> RecursiveOp::OnAnyWorker(bool mine) {
  SLUICE_ASSIGN_OR_RETURN(std::vector<uint64_t> n, SumOverWorkers({mine ? 1u : 0u}));
  return n[0] > 0;
}

Status RecursiveOp::EvalOnWorkers() {
  bool changed = false;
  std::vector<BatchPtr> changes;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const BatchPtr& d = inputs_[i]->value();
    changes.push_back(d);
    if (d->empty()) continue;
    changed = true;
    SLUICE_RETURN_IF_ERROR(integrals_[i]->Insert(d));
  }
  output_.set(MemBatch::Empty());
  passed_limit_ = false;
  SLUICE_ASSIGN_OR_RETURN(changed, OnAnyWorker(changed));
  if (!changed) return Status::OK();
  iterations_ = 0;
  Rows delta;
  if (live_ != nullptr) {
    Result<Rows> d = Incremental(changes);
    if (d.ok()) {
      delta = std::move(d).value();
    } else if (d.status().code() == StatusCode::kAborted || passed_limit_) {
      live_.reset();  // spent: from scratch
      passed_limit_ = false;
    } else {
      return d.status();
    }
  }
  if (live_ == nullptr) {
    // A linear step computes R from nothing through the circuit that then
    // lives on (the iteration over each round's new rows); else R is
    // computed from scratch, and that circuit built from it after.
    SLUICE_ASSIGN_OR_RETURN(const bool some_r, OnAnyWorker(!r_.empty()));
    bool built = spec_.linear && !some_r;
    Result<Rows> r = built ? Load() : FixedPoint();
    if (built && !r.ok() && r.status().code() == StatusCode::kAborted) {
      // Not monotone after all: from scratch.
      live_.reset();
      iterations_ = 0;
      built = false;
      r = FixedPoint();
    }
    if (spec_.on_step && ctx_.worker == 0) spec_.on_step(/*from_scratch=*/true, iterations_);
    if (!r.ok()) {
      if (!passed_limit_) return r.status();
      // Not the step's failure: the query's. R stays as it was.
      live_.reset();
      if (spec_.on_error && ctx_.worker == 0) spec_.on_error(r.status());
      return Status::OK();
    }
    delta = *r;
    for (const auto& [row, w] : r_) AddRow(row, -w, &delta);
    r_ = std::move(r).value();
    Measure(r_, &r_rows_, &r_bytes_);
    // Kept up to date from here on.
    if (!built && spec_.linear) SLUICE_RETURN_IF_ERROR(Rebuild(r_));
  } else {
    if (spec_.on_step && ctx_.worker == 0) spec_.on_step(/*from_scratch=*/false, iterations_);
    for (const auto& [row, w] : delta) {
      AddRow(row, w, &r_);
      r_rows_ += static_cast<uint64_t>(w);
      r_bytes_ += row.size() * static_cast<uint64_t>(w);
    }
  }
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr out, ToBatch(delta, 1));
  output_.set(std::move(out));
  return Status::OK();
}

Status RecursiveOp::Limit(int64_t iteration, uint64_t rows, uint64_t bytes) {
  if (iteration < spec_.max_iterations && rows <= spec_.max_rows && bytes <= spec_.max_bytes) {
    return Status::OK();
  }
  passed_limit_ = true;
  // Which bound, as the view option that sets it.
  const auto [option, value] =
      iteration >= spec_.max_iterations
          ? std::pair("max_recursion_iterations", static_cast<uint64_t>(spec_.max_iterations))
      : rows > spec_.max_rows ? std::pair("max_recursion_rows", spec_.max_rows)
                              : std::pair("max_recursion_mb", spec_.max_bytes >> 20);
  const std::string raise = std::string("It passed ") + option + " = " + std::to_string(value) +
                            "; if it does end, raise that in the view's options (CREATE VIEW v "
                            "WITH (" +
                            option + " = ...) AS ...).";
  if (!spec_.runaway_error.empty()) {
    return Status::Unimplemented(spec_.runaway_error + "\n" + raise);
  }
  return Status::InvalidArgument("recursive query \"" + spec_.name +
                                 "\" did not end (its recursive term keeps yielding new rows); "
                                 "its view keeps its previous rows. " +
                                 raise);
}

Result<Rows> RecursiveOp::FixedPoint() {
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<Circuit> built, BuildStep());
  Circuit& step = *built;
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
  uint64_t r_rows, r_bytes;
  Measure(r, &r_rows, &r_bytes);
  for (int64_t iteration = 0;; ++iteration) {
    SLUICE_ASSIGN_OR_RETURN(std::vector<uint64_t> all, SumOverWorkers({w.size(), r_rows, r_bytes}));
    if (all[0] == 0) break;
    SLUICE_RETURN_IF_ERROR(Limit(iteration, all[1], all[2]));
    ++iterations_;
    Rows change = w;  // W's change since the last iteration
    for (const auto& [row, n] : fed) AddRow(row, -n, &change);
    SLUICE_ASSIGN_OR_RETURN(MemBatchPtr c, ToBatch(change, 1));
    w_in->Push(std::move(c));
    fed = w;
    SLUICE_RETURN_IF_ERROR(step.Step());
    Rows mine;
    SLUICE_RETURN_IF_ERROR(AddRows(*out->output()->value(), 1, &mine));
    SLUICE_ASSIGN_OR_RETURN(Rows owned, ToOwners(mine));
    for (const auto& [row, n] : owned) AddRow(row, n, &yielded);
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
  return r;
}

Result<Rows> RecursiveOp::Load() {
  SLUICE_RETURN_IF_ERROR(Rebuild(Rows()));
  // All of base comes in, with what step yields over no rows (nothing, for
  // a linear step), each round feeding its new rows to the next.
  const Rows base = live_->base, y = live_->y;
  return spec_.set ? IncrementalSet(base, y, {}) : IncrementalBag(base, y);
}

Status RecursiveOp::Rebuild(const Rows& w) {
  live_.reset();
  auto live = std::make_unique<Live>();
  SLUICE_ASSIGN_OR_RETURN(live->circuit, BuildStep());
  live->w = live->circuit->input("w");
  live->out = live->circuit->output("out");
  if (live->w == nullptr || live->out == nullptr) {
    return Status::Internal("the step of a recursive query lacks its input or output");
  }
  for (size_t i = 1; i < inputs_.size(); ++i) {
    InputOp* in = live->circuit->input("in" + std::to_string(i - 1));
    if (in == nullptr) return Status::Internal("the step of a recursive query lacks an input");
    SLUICE_ASSIGN_OR_RETURN(BatchPtr all, integrals_[i]->Consolidated());
    in->Push(std::move(all));
    live->others.push_back(in);
  }
  SLUICE_ASSIGN_OR_RETURN(BatchPtr base, integrals_[0]->Consolidated());
  SLUICE_RETURN_IF_ERROR(AddRows(*base, 1, &live->base));
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr all, ToBatch(w, 1));
  live->w->Push(std::move(all));
  SLUICE_RETURN_IF_ERROR(live->circuit->Step());
  Rows mine;
  SLUICE_RETURN_IF_ERROR(AddRows(*live->out->output()->value(), 1, &mine));
  SLUICE_ASSIGN_OR_RETURN(live->y, ToOwners(mine));
  live_ = std::move(live);
  return Status::OK();
}

Result<Rows> RecursiveOp::Feed(const Rows& w) {
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr b, ToBatch(w, 1));
  live_->w->Push(std::move(b));
  SLUICE_RETURN_IF_ERROR(live_->circuit->Step());
  Rows mine;
  SLUICE_RETURN_IF_ERROR(AddRows(*live_->out->output()->value(), 1, &mine));
  SLUICE_ASSIGN_OR_RETURN(Rows dy, ToOwners(mine));
  for (const auto& [row, n] : dy) AddRow(row, n, &live_->y);
  return dy;
}

Result<Rows> RecursiveOp::Incremental(const std::vector<BatchPtr>& changes) {
  Rows base_change, y_change;
  RowSet lost;  // rows of Y that lost a derivation
  SLUICE_RETURN_IF_ERROR(AddRows(*changes[0], 1, &base_change));
  for (const auto& [row, n] : base_change) AddRow(row, n, &live_->base);
  // Each other input's deletions, then its insertions, on their own: in
  // one change, a derivation lost and one gained would cancel out of Y, and
  // a row whose only derivation left goes through itself would stay.
  for (size_t i = 1; i < changes.size(); ++i) {
    SLUICE_ASSIGN_OR_RETURN(const bool changed, OnAnyWorker(!changes[i]->empty()));
    if (!changed) continue;
    Rows part;
    SLUICE_RETURN_IF_ERROR(AddRows(*changes[i], 1, &part));
    for (const Weight sign : {Weight{-1}, Weight{1}}) {
      Rows one;
      for (const auto& [row, n] : part) {
        if ((n < 0) == (sign < 0)) one.emplace(row, n);
      }
      SLUICE_ASSIGN_OR_RETURN(const bool some, OnAnyWorker(!one.empty()));
      if (!some) continue;
      SLUICE_ASSIGN_OR_RETURN(MemBatchPtr b, ToBatch(one, 1));
      live_->others[i - 1]->Push(std::move(b));
      SLUICE_ASSIGN_OR_RETURN(Rows dy, Feed(Rows()));
      for (const auto& [row, n] : dy) {
        AddRow(row, n, &y_change);
        if (n < 0) lost.insert(row);
      }
    }
  }
  return spec_.set ? IncrementalSet(base_change, y_change, lost)
                   : IncrementalBag(base_change, y_change);
}

Result<Rows> RecursiveOp::IncrementalBag(const Rows& base_change, const Rows& y_change) {
  // R = base + Y: each change of R is fed back as W's until none is left.
  Rows delta, w = base_change;
  for (const auto& [row, n] : y_change) AddRow(row, n, &w);
  uint64_t rows = r_rows_, bytes = r_bytes_;
  while (true) {
    SLUICE_ASSIGN_OR_RETURN(std::vector<uint64_t> all, SumOverWorkers({w.size(), rows, bytes}));
    if (all[0] == 0) break;
    SLUICE_RETURN_IF_ERROR(Limit(iterations_, all[1], all[2]));
    ++iterations_;
    for (const auto& [row, n] : w) {
      AddRow(row, n, &delta);
      if (n > 0) {
        rows += static_cast<uint64_t>(n);
        bytes += row.size() * static_cast<uint64_t>(n);
      }
    }
    SLUICE_ASSIGN_OR_RETURN(w, Feed(w));
  }
  return delta;
}

Result<Rows> RecursiveOp::IncrementalSet(const Rows& base_change, const Rows& y_change,
                                         RowSet lost) {
  // Rows whose membership of R is decided here (true: in), over r_.
  std::unordered_map<std::string, bool, RecursiveOp::RowHash, std::equal_to<>> now;
  auto in_r = [&](const std::string& row) {
    auto it = now.find(row);
    return it != now.end() ? it->second : r_.count(row) != 0;
  };
  auto in_base = [&](const std::string& row) { return WeightOf(live_->base, row) > 0; };
  auto in_y = [&](const std::string& row) { return WeightOf(live_->y, row) > 0; };
  // Every row that may come in or go, and those that lost a base row or a
  // derivation.
  RowSet touched = lost;
  for (const auto& [row, n] : base_change) {
    touched.insert(row);
    if (n < 0) lost.insert(row);
  }
  for (const auto& [row, n] : y_change) touched.insert(row);
  uint64_t rows = r_rows_, bytes = r_bytes_;
  // Take out every row of R (not in base) that lost a derivation, then those
  // that lost one through them.
  RowSet out;
  for (const std::string& row : lost) {
    if (in_r(row) && !in_base(row)) out.insert(row);
  }
  bool grew = false;  // a row taken out yielded a row: not monotone
  while (true) {
    SLUICE_ASSIGN_OR_RETURN(std::vector<uint64_t> all,
                            SumOverWorkers({out.size(), rows, bytes, grew ? 1u : 0u}));
    if (all[3] > 0) return NotMonotone();
    if (all[0] == 0) break;
    SLUICE_RETURN_IF_ERROR(Limit(iterations_, all[1], all[2]));
    ++iterations_;
    Rows w;
    for (const std::string& row : out) {
      now[row] = false;
      w.emplace(row, -1);
    }
    SLUICE_ASSIGN_OR_RETURN(Rows dy, Feed(w));
    out.clear();
    for (const auto& [row, n] : dy) {
      grew = grew || n > 0;
      touched.insert(row);
      if (in_r(row) && !in_base(row)) out.insert(row);
    }
  }
  // Put back what base or Y still holds, bring in what is new, and what
  // they derive.
  RowSet in;
  for (const auto& [row, present] : now) {
    if (!present && (in_base(row) || in_y(row))) in.insert(row);
  }
  for (const std::string& row : touched) {
    if (!in_r(row) && (in_base(row) || in_y(row))) in.insert(row);
  }
  bool shrank = false;  // a row brought in took a row away: not monotone
  while (true) {
    SLUICE_ASSIGN_OR_RETURN(std::vector<uint64_t> all,
                            SumOverWorkers({in.size(), rows, bytes, shrank ? 1u : 0u}));
    if (all[3] > 0) return NotMonotone();
    if (all[0] == 0) break;
    SLUICE_RETURN_IF_ERROR(Limit(iterations_, all[1], all[2]));
    ++iterations_;
    Rows w;
    for (const std::string& row : in) {
      now[row] = true;
      w.emplace(row, 1);
      ++rows;
      bytes += row.size();
    }
    SLUICE_ASSIGN_OR_RETURN(Rows dy, Feed(w));
    in.clear();
    for (const auto& [row, n] : dy) {
      shrank = shrank || n < 0;
      if (!in_r(row) && in_y(row)) in.insert(row);
    }
  }
  Rows delta;
  for (const auto& [row, present] : now) {
    const bool was = r_.count(row) != 0;
    if (present != was) delta.emplace(row, present ? 1 : -1);
  }
  return delta;
}

Status RecursiveOp::SaveState(StateWriter& w) const {
  for (const auto& s : integrals_) SLUICE_RETURN_IF_ERROR(w.PutSpine(*s));
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr r, ToBatch(r_, 1));
  return w.PutBatch(std::move(r));
}

Status RecursiveOp::LoadState(StateReader& r) {
  for (auto& s : integrals_) SLUICE_RETURN_IF_ERROR(r.GetSpine(s.get()));
  SLUICE_ASSIGN_OR_RETURN(BatchPtr result, r.GetBatch());
  r_.clear();
  SLUICE_RETURN_IF_ERROR(AddRows(*result, 1, &r_));
  Measure(r_, &r_rows_, &r_bytes_);
  // Built again at the next change, from scratch.
  live_.reset();
  return Status::OK();
}

Stream* Recursive(Circuit& c, Stream* base, const std::vector<Stream*>& others,
                  RecursiveSpec spec) {
  // Each row of base on its owner; the other inputs where they are (the
  // step's circuit exchanges what it joins).
  std::vector<Stream*> ins = {Exchange(c, base)};
  for (Stream* s : others) ins.push_back(s);
  RecursiveExchangeIds ids;
  ids.rows = c.NewExchangeId();
  ids.sums = c.NewExchangeId();
  if (c.context().workers > 1) {
    // As many ids as the step's circuit takes: it is built the same way on
    // every worker, each time. (A step that fails to build fails in Eval.)
    Circuit probe(c.context());
    if (spec.build(probe).ok()) ids.step_first = c.ReserveExchangeIds(probe.next_exchange_id());
  }
  return c.Add<RecursiveOp>(std::move(ins), std::move(spec), c.context(), ids)->output();
}

}  // namespace sluice
