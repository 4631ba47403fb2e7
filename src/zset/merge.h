// Merging batches: the sum of several batches as one consolidated batch, in
// memory or, when it is large and a storage directory is given, in a file.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "base/status.h"
#include "zset/batch.h"

namespace sluice {

struct MergeOptions {
  // Where large results go; empty keeps every result in memory.
  std::string storage_dir;
  // A result whose inputs add up to at least this many bytes goes to a file.
  uint64_t spill_threshold_bytes = 64ull << 20;
};

// Returns the consolidated sum of `inputs`.
Result<BatchPtr> MergeBatches(const std::vector<BatchPtr>& inputs, const MergeOptions& options);

// A fresh, unique file name under `dir` for a spilled batch.
std::string NewSpillPath(const std::string& dir);

}  // namespace sluice
