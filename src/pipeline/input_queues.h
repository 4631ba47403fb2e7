// The input of a pipeline (one host's share of it) between its arrival and
// the step that takes it: per table, a queue of segments, each the changes
// of one HTTP ingress request or of one batch that an input connector read;
// the tokens of HTTP requests and their completion; the position of each
// input connector after the last changes it queued.
//
// Invariants:
//  1. buffered() is the number of changes in all segments not yet taken.
//  2. A segment is taken in order from `next`. An HTTP segment (source -1)
//     is always taken whole, so that its token completes in one step; a
//     connector's segments give at most its max_batch_size changes to a
//     step.
//  3. Segment ids grow in queueing order and are never reused: they are the
//     input journal's keys. With a journal, a segment is in it before it
//     is queued.
//  4. Tokens are given in order; token t is complete once a step that took
//     every token up to t has been handed over (Completed), and durable
//     once a checkpoint holds it.
//
// The gate says what is admitted: open (running) admits everything; held
// (paused) holds input connectors, and ingress unless forced; closed
// (stopping or failed) refuses everything with its reason and wakes every
// waiter.
//
// Thread safety: every method may be called from any thread; mu_ guards
// the state. `wake` (the step loop's Wake) is called after input was
// queued, without mu_ held. Nothing here calls out with mu_ held but the
// journal (a leaf lock).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "format/format.h"
#include "pipeline/api.h"
#include "pipeline/journal.h"
#include "zset/batch.h"

namespace sluice::pipeline {

class Waterlines;

class InputQueues {
 public:
  using Clock = std::chrono::steady_clock;

  struct Table {
    std::string name;
    bool keyed = false;  // a primary key: its changes become upsert commands
  };
  // An input connector.
  struct Source {
    std::string name;
    std::string table;
    uint64_t max_batch_size = UINT64_MAX;
    uint64_t max_queued_records = UINT64_MAX;
  };
  // Changes [from, to) of one segment, taken by a step.
  struct Range {
    uint64_t segment = 0;
    std::shared_ptr<const format::ChangeBuffer> changes;
    size_t from = 0, to = 0;
  };
  // A step's input, by table.
  using StepInput = std::map<std::string, std::vector<Range>>;
  enum class Gate { kOpen, kHeld, kClosed };

  InputQueues(const std::vector<Table>& tables, std::vector<Source> sources,
              std::function<void()> wake);

  // kClosed: `why` is what refused calls return.
  void SetGate(Gate gate, const Status& why = Status::OK()) EXCLUDES(mu_);
  void SetSourcePaused(size_t source, bool paused) EXCLUDES(mu_);
  bool source_paused(size_t source) const EXCLUDES(mu_);
  // Segments queued from now on are written to `journal` first (null: none).
  void SetJournal(Journal* journal) EXCLUDES(mu_);
  bool has_table(const std::string& table) const { return keyed_.count(table) > 0; }

  // ---- input
  // Queues one HTTP request's changes whole; returns its token. Waits while
  // the gate is held, unless `force`.
  Result<uint64_t> Ingest(const std::string& table,
                          std::shared_ptr<const format::ChangeBuffer> changes, bool force,
                          uint64_t bytes) EXCLUDES(mu_);
  // Counts a rejected request's bad records against `table`.
  void CountParseErrors(const std::string& table, uint64_t errors) EXCLUDES(mu_);
  // An input connector's changes and its position after them. Waits while
  // the gate is held, the source is paused, or its queue is full
  // (max_queued_records; a batch larger than that is admitted into an empty
  // queue). An error when closed (the gate's reason) or when the journal
  // fails.
  Status Enqueue(size_t source, std::shared_ptr<const format::ChangeBuffer> changes,
                 std::string position) EXCLUDES(mu_);

  // ---- steps
  uint64_t buffered() const EXCLUDES(mu_);
  // When the queued input is due for a step: now once `min_records` are
  // queued, else `max_delay` after the oldest arrived; max() with none.
  Clock::time_point DueAt(uint64_t min_records, std::chrono::microseconds max_delay) const
      EXCLUDES(mu_);
  struct Readiness {
    uint64_t buffered = 0;
    bool due = false;
  };
  // Waits up to `wait` for input to be due (DueAt), or the gate to close.
  Readiness WaitDue(uint64_t min_records, std::chrono::microseconds max_delay,
                    std::chrono::milliseconds wait) EXCLUDES(mu_);
  // The next step's input: everything, but at most max_batch_size changes
  // of a connector. `*last_token` is the last token given so far, which the
  // step completes.
  StepInput Take(uint64_t* last_token) EXCLUDES(mu_);
  // Exactly the changes a journaled step took (exactly_once replay).
  Result<StepInput> TakeRecorded(uint64_t step, const std::vector<JournalRecord::Range>& ranges,
                                 uint64_t* last_token) EXCLUDES(mu_);
  // Each table's changes of `input` as one batch per worker of this host,
  // split by the hash the exchange uses; rows of keyed tables become upsert
  // commands, numbered from `*upsert_seq` times `hosts` plus `host`, so
  // that two hosts' commands for one key never consolidate. With
  // `waterlines`, rows it does not admit (late rows) are left out.
  Result<std::map<std::string, std::vector<MemBatchPtr>>> Split(
      const StepInput& input, int workers, uint64_t hosts, uint64_t host, uint64_t* upsert_seq,
      Waterlines* waterlines = nullptr) const;
  // The ranges of `input`, as the journal records them.
  static std::vector<JournalRecord::Range> JournalRanges(const StepInput& input);

  // ---- tokens
  // A step that took every token up to `last_token` was handed over.
  void Completed(uint64_t last_token, uint64_t step) EXCLUDES(mu_);
  // A checkpoint holds every token up to `token`.
  void Durable(uint64_t token) EXCLUDES(mu_);
  // `current_step` is reported for a token not complete yet.
  Result<Completion> CompletionOf(uint64_t token, uint64_t current_step) const EXCLUDES(mu_);
  // Tokens stay unique across restarts: they are reserved in blocks by
  // `reserve(upto)` (which makes every token up to `upto` given, durably),
  // and after a restart the next token follows the last reserved one,
  // `reserved`. Tokens after the checkpoint's and up to `reserved` were
  // given before the restart: with `replayed` (a journal), their changes
  // are queued again; else they were lost, and say so.
  Status ResumeTokens(uint64_t reserved, bool replayed,
                      std::function<Status(uint64_t upto)> reserve) EXCLUDES(mu_);
  static constexpr uint64_t kTokenBlock = 1 << 20;
  bool WaitComplete(uint64_t token, std::chrono::milliseconds timeout) const EXCLUDES(mu_);
  uint64_t last_token() const EXCLUDES(mu_);

  // ---- checkpoints
  // What a checkpoint keeps of the queues, taken at a step boundary.
  struct Saved {
    std::string queues;                            // queues.bin (below)
    std::map<std::string, std::string> positions;  // by connector, JSON text
    uint64_t next_token = 1;
    uint64_t next_segment = 1;
  };
  // Saves the queues; with a journal, input queued from now on goes to its
  // file `rotate_to` (atomically with the save).
  Result<Saved> Save(uint64_t rotate_to) EXCLUDES(mu_);
  // Puts a checkpoint's queues, positions and counters back. With a
  // changed program, segments of tables it no longer has are dropped, and
  // changes queued for a table in `changed_tables` (which cannot be carried
  // into its new definition) refuse the restore.
  Status Restore(const Saved& saved, bool changed_program,
                 const std::set<std::string>& changed_tables) EXCLUDES(mu_);
  // A segment that the journal recorded (exactly_once replay), queued again
  // with its id.
  Status QueueRecorded(const std::string& table, const std::string& source,
                       const std::string& position,
                       std::shared_ptr<const format::ChangeBuffer> changes, uint64_t id)
      EXCLUDES(mu_);
  std::string position(size_t source) const EXCLUDES(mu_);

  // ---- figures
  uint64_t processed() const EXCLUDES(mu_);
  uint64_t queued(size_t source) const EXCLUDES(mu_);
  // The HTTP ingress of each table that got requests (InputStats without
  // the connector fields).
  std::vector<InputStats> IngressStats() const EXCLUDES(mu_);

 private:
  struct Segment {
    uint64_t id = 0;
    int source = -1;  // -1: HTTP
    std::shared_ptr<const format::ChangeBuffer> changes;
    size_t next = 0;  // changes already taken
  };
  struct Counters {
    uint64_t requests = 0, records = 0, bytes = 0, parse_errors = 0;
  };
  struct SourceState {
    uint64_t queued = 0;  // changes not yet taken
    std::string position;
    bool paused = false;
  };
  // Queues a segment (`id` 0: a new one) of which `taken` changes were
  // taken already (a restored checkpoint's).
  Status QueueLocked(const std::string& table, int source,
                     std::shared_ptr<const format::ChangeBuffer> changes, uint64_t id,
                     size_t taken = 0) REQUIRES(mu_);
  int SourceIndex(const std::string& name) const;

  const std::map<std::string, bool> keyed_;  // by table
  const std::vector<Source> sources_;
  const std::function<void()> wake_;

  mutable Mutex mu_;
  // Input was queued, or the gate changed.
  mutable CondVar arrived_;
  // A step took input, a source was resumed, or the gate changed.
  CondVar space_;
  // A step was handed over.
  mutable CondVar completed_cv_;
  Gate gate_ GUARDED_BY(mu_) = Gate::kOpen;
  Status closed_why_ GUARDED_BY(mu_);
  Journal* journal_ GUARDED_BY(mu_) = nullptr;
  std::map<std::string, std::deque<Segment>> queues_ GUARDED_BY(mu_);
  std::vector<SourceState> source_state_ GUARDED_BY(mu_);
  std::map<std::string, Counters> ingress_ GUARDED_BY(mu_);
  uint64_t buffered_ GUARDED_BY(mu_) = 0;
  Clock::time_point first_buffered_ GUARDED_BY(mu_);
  uint64_t processed_ GUARDED_BY(mu_) = 0;
  uint64_t next_segment_ GUARDED_BY(mu_) = 1;
  uint64_t next_token_ GUARDED_BY(mu_) = 1;
  uint64_t reserved_token_ GUARDED_BY(mu_) = UINT64_MAX;  // given up to here
  std::function<Status(uint64_t)> reserve_tokens_ GUARDED_BY(mu_);
  uint64_t lost_from_ GUARDED_BY(mu_) = 0, lost_to_ GUARDED_BY(mu_) = 0;  // [from, to)
  uint64_t replay_gap_from_ GUARDED_BY(mu_) = 0;                          // ResumeTokens
  uint64_t done_token_ GUARDED_BY(mu_) = 0;
  uint64_t durable_token_ GUARDED_BY(mu_) = 0;
  std::deque<std::pair<uint64_t, uint64_t>> completed_ GUARDED_BY(mu_);  // (last token, step)
};

}  // namespace sluice::pipeline
