#include "zset/spine.h"

#include <algorithm>

#include "zset/merge_pool.h"

namespace sluice {
namespace {

int Level(const Batch& b) { return 63 - __builtin_clzll(std::max<uint64_t>(b.len(), 1)); }

}  // namespace

Spine::Spine(SpineOptions options)
    : options_(std::move(options)),
      pool_(options_.pool ? options_.pool : &MergePool::Default()),
      merge_(options_.merge) {}

void Spine::SetRetain(std::function<bool(std::string_view key)> retain) {
  MutexLock l(&mu_);
  merge_.retain = std::move(retain);
}

void Spine::SetRetainValues(
    std::function<bool(std::string_view key, std::string_view val)> retain) {
  MutexLock l(&mu_);
  merge_.retain_value = std::move(retain);
}

Spine::~Spine() {
  MutexLock l(&mu_);
  closing_ = true;
  while (running_ != 0) cv_.Wait(&mu_);
  if (options_.merge.budget != nullptr) options_.merge.budget->Add(-mem_bytes_);
}

void Spine::AccountLocked(const Batch& b, int sign) {
  const int64_t n = sign * static_cast<int64_t>(b.memory_bytes());
  mem_bytes_ += n;
  if (options_.merge.budget != nullptr) options_.merge.budget->Add(n);
}

Status Spine::Insert(BatchPtr batch) {
  if (batch->empty()) return Status::OK();
  MutexLock l(&mu_);
  if (!bg_error_.ok()) {
    Status s = bg_error_;
    bg_error_ = Status::OK();
    return s;
  }
  AccountLocked(*batch, +1);
  inserted_ += batch->len();
  slots_.push_back(Slot{std::move(batch), false, inserted_});
  if (!options_.background) {
    // Merge inline until the levels strictly decrease.
    while (true) {
      size_t i = slots_.size();
      for (size_t j = slots_.size(); j-- > 1;) {
        if (Level(*slots_[j - 1].batch) <= Level(*slots_[j].batch)) {
          i = j - 1;
          break;
        }
      }
      if (i == slots_.size()) break;
      BatchPtr a = slots_[i].batch, b = slots_[i + 1].batch;
      SLUICE_ASSIGN_OR_RETURN(BatchPtr merged, MergeBatches({a, b}, merge_));
      AccountLocked(*a, -1);
      AccountLocked(*b, -1);
      slots_.erase(slots_.begin() + static_cast<ptrdiff_t>(i) + 1);
      if (merged->empty()) {
        slots_.erase(slots_.begin() + static_cast<ptrdiff_t>(i));
      } else {
        AccountLocked(*merged, +1);
        slots_[i].batch = std::move(merged);
        slots_[i].inserted_at = inserted_;
      }
    }
    SLUICE_RETURN_IF_ERROR(RewriteInlineLocked());
    MergeOptions to_file = merge_;
    to_file.spill_threshold_bytes = 0;
    for (Slot& slot : slots_) {
      if (!ShouldSpill(*slot.batch)) continue;
      SLUICE_ASSIGN_OR_RETURN(BatchPtr spilled, MergeBatches({slot.batch}, to_file));
      AccountLocked(*slot.batch, -1);
      AccountLocked(*spilled, +1);
      slot.batch = std::move(spilled);
    }
    return Status::OK();
  }
  ScheduleMergesLocked();
  // Backpressure: if merging falls behind, wait rather than let lookups slow
  // down with an ever longer list of batches.
  while (slots_.size() > MaxBatchesLocked() && bg_error_.ok()) cv_.Wait(&mu_);
  Status s = bg_error_;
  bg_error_ = Status::OK();
  return s;
}

Status Spine::RewriteInlineLocked() {
  if (!merge_.forgets()) return Status::OK();
  for (size_t j = 0; j < slots_.size();) {
    Slot& slot = slots_[j];
    if (inserted_ - slot.inserted_at < std::max<uint64_t>(slot.batch->len(), 1024)) {
      ++j;
      continue;
    }
    SLUICE_ASSIGN_OR_RETURN(BatchPtr rewritten, MergeBatches({slot.batch}, merge_));
    AccountLocked(*slot.batch, -1);
    if (rewritten->empty()) {
      slots_.erase(slots_.begin() + static_cast<ptrdiff_t>(j));
      continue;
    }
    AccountLocked(*rewritten, +1);
    slot.batch = std::move(rewritten);
    slot.inserted_at = inserted_;
    ++j;
  }
  return Status::OK();
}

Status Spine::Tick(uint64_t pairs) {
  MutexLock l(&mu_);
  if (pairs == 0 || !merge_.forgets()) return Status::OK();
  inserted_ += pairs;
  if (!options_.background) return RewriteInlineLocked();
  if (!bg_error_.ok()) {
    Status s = bg_error_;
    bg_error_ = Status::OK();
    return s;
  }
  ScheduleMergesLocked();
  return Status::OK();
}

size_t Spine::MaxBatchesLocked() const {
  uint64_t total = 0;
  for (const Slot& s : slots_) total += s.batch->len();
  return 2 * static_cast<size_t>(64 - __builtin_clzll(std::max<uint64_t>(total, 1))) + 4;
}

bool Spine::ShouldSpill(const Batch& b) const {
  // Over the memory budget, any batch but the smallest moves to storage.
  constexpr uint64_t kMinBudgetSpill = 64 << 10;
  const MemoryBudget* budget = options_.merge.budget;
  return !options_.merge.storage_dir.empty() && !b.on_storage() &&
         (b.byte_size() >= options_.merge.spill_threshold_bytes ||
          (budget != nullptr && budget->Over(0) && b.byte_size() >= kMinBudgetSpill));
}

bool Spine::MergesWithNeighbourLocked(size_t j) const {
  const Slot& slot = slots_[j];
  return (j > 0 && !slots_[j - 1].merging &&
          Level(*slots_[j - 1].batch) <= Level(*slot.batch)) ||
         (j + 1 < slots_.size() && !slots_[j + 1].merging &&
          Level(*slot.batch) <= Level(*slots_[j + 1].batch));
}

void Spine::RewriteAloneLocked(size_t j, MergeOptions options) {
  Slot& slot = slots_[j];
  slot.merging = true;
  slot.inserted_at = inserted_;
  ++running_;
  BatchPtr b = slot.batch;
  pool_->Submit(
      [this, b, options] {
        Result<BatchPtr> rewritten = MergeBatches({b}, options);
        MutexLock l(&mu_);
        FinishMergeLocked({b}, std::move(rewritten));
      },
      b->len());
}

void Spine::ScheduleMergesLocked() {
  if (closing_) return;
  // A large batch that arrived in memory moves to storage on its own when no
  // merge is about to rewrite it anyway.
  for (size_t j = 0; j < slots_.size(); ++j) {
    const Slot& slot = slots_[j];
    if (slot.merging || !ShouldSpill(*slot.batch) || MergesWithNeighbourLocked(j)) continue;
    MergeOptions to_file = merge_;
    to_file.spill_threshold_bytes = 0;
    RewriteAloneLocked(j, to_file);
  }
  // A batch that merges no longer reach drops what retain rejects once as
  // many pairs came after it as it holds.
  if (merge_.forgets()) {
    for (size_t j = 0; j < slots_.size(); ++j) {
      const Slot& slot = slots_[j];
      if (slot.merging ||
          inserted_ - slot.inserted_at < std::max<uint64_t>(slot.batch->len(), 1024) ||
          MergesWithNeighbourLocked(j)) {
        continue;
      }
      RewriteAloneLocked(j, merge_);
    }
  }
  // Newest pairs first: they are the cheapest and unblock the most.
  for (size_t j = slots_.size(); j-- > 1;) {
    Slot& a = slots_[j - 1];
    Slot& b = slots_[j];
    if (a.merging || b.merging || Level(*a.batch) > Level(*b.batch)) continue;
    a.merging = b.merging = true;
    ++running_;
    BatchPtr ba = a.batch, bb = b.batch;
    pool_->Submit(
        [this, ba, bb, mo = merge_] {
          Result<BatchPtr> merged = MergeBatches({ba, bb}, mo);
          MutexLock l(&mu_);
          FinishMergeLocked({ba, bb}, std::move(merged));
        },
        ba->len() + bb->len());
    --j;  // b's older neighbour is now busy too
  }
}

void Spine::FinishMergeLocked(const std::vector<BatchPtr>& inputs, Result<BatchPtr> merged) {
  // The inputs are still adjacent: only merges remove slots, and these were
  // marked as merging.
  size_t i = 0;
  while (slots_[i].batch != inputs[0]) ++i;
  auto first = slots_.begin() + static_cast<ptrdiff_t>(i);
  if (merged.ok()) {
    for (const BatchPtr& in : inputs) AccountLocked(*in, -1);
    slots_.erase(first + 1, first + static_cast<ptrdiff_t>(inputs.size()));
    if ((*merged)->empty()) {
      slots_.erase(first);
    } else {
      AccountLocked(**merged, +1);
      *first = Slot{std::move(merged).value(), false, inserted_};
    }
  } else {
    for (size_t j = 0; j < inputs.size(); ++j) slots_[i + j].merging = false;
    bg_error_ = merged.status().WithContext("background merge");
  }
  --running_;
  if (bg_error_.ok()) ScheduleMergesLocked();
  cv_.SignalAll();
}

std::vector<BatchPtr> Spine::Snapshot() const {
  MutexLock l(&mu_);
  std::vector<BatchPtr> out;
  out.reserve(slots_.size());
  for (const Slot& s : slots_) out.push_back(s.batch);
  return out;
}

uint64_t Spine::len() const {
  MutexLock l(&mu_);
  uint64_t n = 0;
  for (const Slot& s : slots_) n += s.batch->len();
  return n;
}

size_t Spine::batch_count() const {
  MutexLock l(&mu_);
  return slots_.size();
}

uint64_t Spine::byte_size() const {
  MutexLock l(&mu_);
  uint64_t n = 0;
  for (const Slot& s : slots_) n += s.batch->byte_size();
  return n;
}

Status Spine::WaitForMerges() {
  MutexLock l(&mu_);
  while (running_ != 0) cv_.Wait(&mu_);
  Status s = bg_error_;
  bg_error_ = Status::OK();
  return s;
}

Result<BatchPtr> Spine::Consolidated() const {
  MergeOptions mo;
  {
    MutexLock l(&mu_);
    mo = merge_;
  }
  return MergeBatches(Snapshot(), mo);
}

}  // namespace sluice
