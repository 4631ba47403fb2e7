// Circuit: one worker's replica of the dataflow graph. Streams carry one batch
// (the change) per step; operators are evaluated once per step, in the order
// they were added, which is a topological order since an operator can only
// take streams that already exist.
//
// Every worker builds the same circuit, so operator i (and exchange j) on one
// worker corresponds to operator i (exchange j) on every other.
//
// Owners. The builder says whose operators it is adding (a table, a view):
// each operator is known by its owner and its ordinal among the owner's
// operators, so that a circuit built from a changed program can still find
// the saved state of every owner whose operators did not change.
//
// Thread safety: a circuit and its operators are used only by the worker
// thread that owns them.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "dataflow/transport.h"
#include "zset/batch.h"
#include "zset/spine.h"

namespace sluice {

class InputOp;
class OutputOp;

// Where a worker stands: its global index among all workers of all hosts.
// Host h owns workers [h * workers_per_host, (h + 1) * workers_per_host).
struct WorkerContext {
  int worker = 0;
  int workers = 1;  // total, over every host
  Transport* transport = nullptr;
  SpineOptions spine;  // how this worker's integrals store and merge batches
};

// A stream: the current step's change of one relation.
class Stream {
 public:
  const BatchPtr& value() const { return value_; }
  void set(BatchPtr b) { value_ = std::move(b); }

 private:
  BatchPtr value_ = MemBatch::Empty();
};

class StateWriter;
class StateReader;

// A table's check of the rows that enter it (its CHECK constraints): true
// keeps the row, false refuses it (the check has counted why), and an error
// fails the step. Empty: every row is kept.
using RowCheckFn = std::function<Result<bool>(std::string_view row)>;

// The time each operator of a circuit has spent evaluating its steps, in the
// order the operators were added (Circuit::Timed). Shared, so that a reader
// on another thread may hold it beyond the circuit's life; only the
// counters change, and they are read and added to relaxed.
struct OperatorTimes {
  struct Op {
    std::string key;   // its state key: "<owner>/<ordinal among its owner's>"
    std::string name;  // Operator::name()
  };
  std::vector<Op> ops;
  std::unique_ptr<std::atomic<uint64_t>[]> nanos;  // one per op
};

class Operator {
 public:
  virtual ~Operator() = default;
  // Computes this step's output from this step's inputs.
  virtual Status Eval() = 0;
  virtual const char* name() const = 0;
  // Checkpoints: the state an operator keeps from one step to the next,
  // written and read back at a step boundary (none by default).
  virtual bool has_state() const { return false; }
  virtual Status SaveState(StateWriter&) const { return Status::OK(); }
  virtual Status LoadState(StateReader&) { return Status::OK(); }
  // Replay (bootstrapping a changed program): an operator that holds the
  // integral of its own output emits that integral as its change in the next
  // step, so that new operators downstream see everything it ever emitted.
  // Returns false if it holds no such integral.
  virtual bool Replay() { return false; }
  Stream* output() { return &output_; }

 protected:
  Stream output_;
};

class Circuit {
 public:
  explicit Circuit(WorkerContext ctx) : ctx_(std::move(ctx)) {}
  Circuit(const Circuit&) = delete;
  Circuit& operator=(const Circuit&) = delete;

  // Adds an operator; returns it (owned by the circuit).
  template <typename Op, typename... Args>
  Op* Add(Args&&... args) {
    auto op = std::make_unique<Op>(std::forward<Args>(args)...);
    Op* p = op.get();
    ops_.push_back(std::move(op));
    owner_of_.push_back(owner_);
    poisoned_.push_back(false);
    return p;
  }
  // Operators added from now on belong to `owner`. With `fails_alone`, an
  // error of one of them fails the owner, not the step (TakeStepFailures).
  void SetOwner(std::string owner, bool fails_alone = false);
  // The owner of the operators added now ("" before any SetOwner).
  const std::string& owner() const { return owners_[owner_]; }

  // Evaluates every operator once. An error names the operator. An operator
  // whose owner fails alone and that met an error gives empty changes from
  // then on, and the step goes on; so do those of a skipped owner.
  Status Step();
  // The owners that failed alone in the last step, each with its error.
  std::vector<std::pair<std::string, Status>> TakeStepFailures();
  // From the next step on, the operators of `owner` are not evaluated (every
  // worker must skip the same owners from the same step: they exchange).
  void SkipOwner(const std::string& owner);
  // The state of every stateful operator, between steps (state.h).
  Status SaveState(StateWriter& w) const;
  // Reads the state of every stateful operator whose owner `select` accepts
  // (all when it is null); the others keep their empty state. With `select`
  // the saved state may hold owners this circuit does not have.
  using OwnerFilter = std::function<bool(const std::string& owner)>;
  Status LoadState(StateReader& r, const OwnerFilter& select = nullptr);
  // Asks every operator of the owners `select` accepts to replay its
  // integral in the next step (Operator::Replay); returns how many will.
  size_t Replay(const OwnerFilter& select);

  const WorkerContext& context() const { return ctx_; }
  // From now on, Step() times each operator added so far (two reads of the
  // steady clock per operator and step); the times are in what it returns.
  std::shared_ptr<const OperatorTimes> Timed();
  // The names of the operators that `owner` added, in the order added: which
  // variant of an operator the lowering chose, for tests and diagnostics.
  std::vector<std::string> OperatorNames(const std::string& owner) const;
  int NewExchangeId() { return next_exchange_++; }
  // `n` exchange ids for a circuit of its own (a recursive query's step):
  // the first; that circuit starts its ids there (StartExchangeIdsAt).
  int ReserveExchangeIds(int n) {
    const int first = next_exchange_;
    next_exchange_ += n;
    return first;
  }
  void StartExchangeIdsAt(int first) { next_exchange_ = first; }
  int next_exchange_id() const { return next_exchange_; }

  // Named inputs and outputs, so that the runtime can feed and read them.
  void RegisterInput(const std::string& name, InputOp* op) { inputs_[name] = op; }
  void RegisterOutput(const std::string& name, OutputOp* op) { outputs_[name] = op; }
  InputOp* input(const std::string& name) const;
  OutputOp* output(const std::string& name) const;
  const std::map<std::string, InputOp*>& inputs() const { return inputs_; }

 private:
  WorkerContext ctx_;
  // The state key of operator i: "<owner>/<ordinal among its owner's>".
  std::string StateKey(size_t i) const;

  std::vector<std::unique_ptr<Operator>> ops_;
  std::vector<size_t> owner_of_;         // per operator, an index into owners_
  std::vector<std::string> owners_{""};  // in order of first use
  std::vector<bool> fails_alone_{false};  // per owner
  std::vector<bool> skipped_{false};      // per owner (SkipOwner)
  std::vector<bool> poisoned_;            // per operator: it met an error
  std::vector<std::pair<std::string, Status>> step_failures_;
  size_t owner_ = 0;
  std::map<std::string, InputOp*> inputs_;
  std::map<std::string, OutputOp*> outputs_;
  int next_exchange_ = 0;
  std::shared_ptr<OperatorTimes> times_;  // null: not timed
};

}  // namespace sluice
