// Merging batches: the sum of several batches as one consolidated batch, in
// memory or, when it is large and a storage directory is given, in a file.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "zset/batch.h"
#include "zset/block_cache.h"

namespace sluice {

// A limit on the bytes that in-memory batches of spines may hold, shared by
// the spines of a pipeline: over it, merged results go to files, and the
// spines move their in-memory batches to files.
class MemoryBudget {
 public:
  // A limit no spine reaches: the budget only counts.
  static constexpr uint64_t kUnlimited = uint64_t{1} << 62;

  explicit MemoryBudget(uint64_t limit_bytes) : limit_(limit_bytes) {}
  void Add(int64_t bytes) { used_.fetch_add(bytes, std::memory_order_relaxed); }
  // Whether `more` bytes would go over the limit.
  bool Over(uint64_t more) const {
    return used_.load(std::memory_order_relaxed) + static_cast<int64_t>(more) >
           static_cast<int64_t>(limit_);
  }
  int64_t used() const { return used_.load(std::memory_order_relaxed); }
  uint64_t limit() const { return limit_; }

 private:
  std::atomic<int64_t> used_{0};
  const uint64_t limit_;
};

struct MergeOptions {
  // Where large results go; empty keeps every result in memory.
  std::string storage_dir;
  // A result whose inputs add up to at least this many bytes goes to a file.
  uint64_t spill_threshold_bytes = 64ull << 20;
  // If set (and storage_dir is), results that would take the budget over
  // its limit go to files too. Not owned.
  MemoryBudget* budget = nullptr;
  // If set, the files written keep their decoded blocks here (shared by
  // the spines of a pipeline).
  std::shared_ptr<BlockCache> block_cache;
  // If set, keys for which it returns false are left out of the result:
  // state behind a waterline that no later change can touch (Spine::
  // SetRetain). Called from merge threads.
  std::function<bool(std::string_view key)> retain;
  // If set, (key, value) pairs for which it returns false are left out of
  // the result too: the same promise for single values of a key (a join's
  // rows that no later row of the other side can match; Spine::
  // SetRetainValues). Called from merge threads.
  std::function<bool(std::string_view key, std::string_view val)> retain_value;

  bool forgets() const { return retain || retain_value; }
};

// Writing a spill file that fails for lack of storage (an IOError) is not
// fatal: the result stays in memory. Such failures are counted here, for
// /stats.
struct SpillFailures {
  uint64_t count = 0;
  std::string last;
};
void RecordSpillFailure(const Status& s);
SpillFailures GetSpillFailures();

// Returns the consolidated sum of `inputs`.
Result<BatchPtr> MergeBatches(const std::vector<BatchPtr>& inputs, const MergeOptions& options);

// A piece of the sum of `inputs`: its (key, value) pairs with keys after
// `after` (or from the first, with `from_start`), in order, without those
// that sum to nothing, until their bytes reach `max_bytes` (whole keys: a
// piece ends at a key's end). Empty when none are left. Reading a relation
// in such pieces, each after the previous one's last key, reads all of it
// once.
Result<MemBatchPtr> ConsolidatedPiece(const std::vector<BatchPtr>& inputs, bool from_start,
                                      std::string_view after, uint64_t max_bytes);

// A fresh, unique file name under `dir` for a spilled batch.
std::string NewSpillPath(const std::string& dir);

}  // namespace sluice
