// Spine: the integral of a stream, kept as a log-structured list of batches
// (an LSM tree without a memtable, as in Differential Dataflow and dbsp).
//
// Inserting a batch appends it; background threads merge adjacent batches so
// that sizes shrink geometrically from the oldest batch to the newest, which
// keeps O(log n) batches and makes every pair take part in O(log n) merges.
// Batches larger than the spill threshold (merged results, and inserted
// batches that no merge is about to rewrite) are written to files under the
// storage directory, so an integral may exceed memory. Readers take a
// Snapshot() (a list of batch pointers) and read it through a cursor that
// sums the batches; a snapshot is never changed by later inserts or merges.
//
// Invariants:
//  1. The sum of the batches in `slots_` equals the sum of every batch ever
//     inserted (merges replace two adjacent batches by their sum).
//  2. Once no merge runs, levels (floor(log2(len))) strictly decrease from the
//     oldest batch to the newest, so there are at most 64 batches; Insert()
//     waits for merges rather than let the count grow past twice log2(n)+4.
//
// Thread safety: Insert() is called by one thread (the worker that owns the
// spine); Snapshot(), NewCursor() and the size accessors may be called from
// any thread. `mu_` guards the slots, the merge count and the error.
#pragma once

#include <memory>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "zset/batch.h"
#include "zset/cursor.h"
#include "zset/merge.h"

namespace sluice {

class MergePool;

struct SpineOptions {
  MergeOptions merge;
  // False merges inside Insert(), on the caller's thread (deterministic, for
  // tests and small integrals).
  bool background = true;
  MergePool* pool = nullptr;  // null: MergePool::Default()
};

class Spine {
 public:
  explicit Spine(SpineOptions options = {});
  ~Spine();  // waits for this spine's running merges
  Spine(const Spine&) = delete;
  Spine& operator=(const Spine&) = delete;

  // Adds `batch` to the integral. Returns the error of a failed merge, if one
  // failed since the last call (the integral is still whole: a failed merge
  // keeps its inputs).
  Status Insert(BatchPtr batch);

  std::vector<BatchPtr> Snapshot() const;
  std::unique_ptr<Cursor> NewCursor() const { return NewCursorOver(Snapshot()); }

  // Pairs over all batches, before they are consolidated with each other.
  uint64_t len() const;
  size_t batch_count() const;
  uint64_t byte_size() const;
  // From now on, merges leave out the keys for which `retain` returns false:
  // the owner promises that no later change or lookup touches them (they lie
  // behind a waterline). Keys not yet merged stay until a merge reaches
  // them. Since merges that drop most of their keys leave newer batches
  // small, an old batch might never be merged again: so a batch is also
  // rewritten alone once as many pairs as it holds were inserted after it
  // (amortized, each inserted pair pays for O(1) rewritten ones per
  // batch), and the integral's memory follows its live keys. `retain` is
  // called from merge threads.
  void SetRetain(std::function<bool(std::string_view key)> retain);
  // The same for single values: merges leave out the (key, value) pairs for
  // which `retain` returns false (rows of a join's side that no later row
  // of the other side can match, whatever their key).
  void SetRetainValues(std::function<bool(std::string_view key, std::string_view val)> retain);
  // Counts `pairs` changes elsewhere that move what the retain functions
  // reject (changes to the other side of a join, which move the waterline
  // that decides this side's rows) towards the rewrites above, as inserted
  // pairs count: a side that takes no more rows still drops the ones behind
  // the other side's waterline. Returns the error of a failed merge, as
  // Insert() does.
  Status Tick(uint64_t pairs);
  // Blocks until no merge is running or wanted.
  Status WaitForMerges();
  // The whole integral as one batch.
  Result<BatchPtr> Consolidated() const;
  // Where this spine's files keep their decoded blocks (may be null).
  const std::shared_ptr<BlockCache>& block_cache() const { return options_.merge.block_cache; }

 private:
  struct Slot {
    BatchPtr batch;
    bool merging = false;
    // inserted_ when the batch came in or was last rewritten, for the
    // rewrites that drop the keys retain rejects.
    uint64_t inserted_at = 0;
  };
  void ScheduleMergesLocked() REQUIRES(mu_);
  // Whether slot j would merge with a neighbour now (which rewrites it anyway).
  bool MergesWithNeighbourLocked(size_t j) const REQUIRES(mu_);
  // Without background merges: rewrites, in line, each batch that as many
  // pairs as it holds came after (as ScheduleMergesLocked does).
  Status RewriteInlineLocked() REQUIRES(mu_);
  // Rewrites slot j's batch alone with `options`, on the pool.
  void RewriteAloneLocked(size_t j, MergeOptions options) REQUIRES(mu_);
  // Replaces the adjacent slots holding `inputs` by `merged`.
  void FinishMergeLocked(const std::vector<BatchPtr>& inputs, Result<BatchPtr> merged)
      REQUIRES(mu_);
  bool ShouldSpill(const Batch& b) const;
  // Counts a batch coming into (+1) or leaving (-1) the slots against the
  // memory budget: what it holds in memory (Batch::memory_bytes).
  void AccountLocked(const Batch& b, int sign) REQUIRES(mu_);
  size_t MaxBatchesLocked() const REQUIRES(mu_);

  const SpineOptions options_;
  MergePool* const pool_;
  mutable Mutex mu_;
  MergeOptions merge_ GUARDED_BY(mu_);  // options_.merge, with the retain function
  CondVar cv_;
  std::vector<Slot> slots_ GUARDED_BY(mu_);  // oldest first
  int64_t mem_bytes_ GUARDED_BY(mu_) = 0;    // memory_bytes of the batches in slots_
  int running_ GUARDED_BY(mu_) = 0;          // merges in flight
  uint64_t inserted_ GUARDED_BY(mu_) = 0;    // pairs inserted, ever
  bool closing_ GUARDED_BY(mu_) = false;
  Status bg_error_ GUARDED_BY(mu_);
};

}  // namespace sluice
