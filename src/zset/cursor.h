// Cursor: reads a batch, or the sum of several, in (key, value) order.
//
// A cursor is positioned on a key (KeyValid) and, within it, on a value
// (ValValid). Seeks only move forward, which is what sorted probes need and
// what lets them gallop. Cursors that read storage may fail: they then become
// invalid and status() says why, as LevelDB's iterators do, so a caller
// checks status() once after a loop.
//
// Thread safety: a cursor is used by one thread.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "zset/batch.h"

namespace sluice {

class Cursor {
 public:
  virtual ~Cursor() = default;

  virtual bool KeyValid() const = 0;
  virtual bool ValValid() const = 0;
  // REQUIRES: KeyValid(); ValValid() for val() and weight().
  virtual std::string_view key() const = 0;
  virtual std::string_view val() const = 0;
  virtual Weight weight() const = 0;

  // Moves to the next key, positioned on its first value.
  virtual void StepKey() = 0;
  virtual void StepVal() = 0;
  // Moves forward to the first key >= `key` (never backward).
  virtual void SeekKey(std::string_view key) = 0;
  // Moves forward, within the current key, to the first value >= `val`.
  virtual void SeekVal(std::string_view val) = 0;
  virtual void RewindKeys() = 0;
  virtual void RewindVals() = 0;

  // Whether the batch read may hold the key whose Hash64 is `hash`
  // (Batch::MayContainKey).
  virtual bool MayContainKey(uint64_t /*hash*/) const { return true; }
  // A point lookup, for sorted probes of keys that are often absent: if
  // `key` is there, moves forward to it and returns true. Otherwise returns
  // false, and may have left the cursor where it was rather than read what
  // a seek would (a Bloom filter said no), so that the position is
  // unspecified until the next seek. `hash` is Hash64(key).
  virtual bool SeekKeyPresent(std::string_view key, uint64_t hash) {
    if (!MayContainKey(hash)) return false;
    SeekKey(key);
    return KeyValid() && this->key() == key;
  }

  virtual Status status() const { return Status::OK(); }
};

class MemCursor final : public Cursor {
 public:
  explicit MemCursor(const MemBatch& batch) : b_(batch) { RewindKeys(); }

  bool KeyValid() const override { return k_ < nk_; }
  bool ValValid() const override { return v_ < vend_; }
  std::string_view key() const override { return b_.key(k_); }
  std::string_view val() const override { return b_.val(v_); }
  Weight weight() const override { return b_.weight(v_); }
  void StepKey() override { SetKey(k_ + 1); }
  void StepVal() override { ++v_; }
  void SeekKey(std::string_view key) override;
  void SeekVal(std::string_view val) override;
  void RewindKeys() override { SetKey(0); }
  void RewindVals() override { v_ = k_ < nk_ ? b_.vals_begin(k_) : 0; }
  bool MayContainKey(uint64_t hash) const override { return b_.MayContainKey(hash); }

 private:
  void SetKey(size_t k) {
    k_ = k;
    if (k_ < nk_) {
      v_ = b_.vals_begin(k_);
      vend_ = b_.vals_end(k_);
    } else {
      v_ = vend_ = 0;
    }
  }
  const MemBatch& b_;
  size_t nk_ = b_.key_count();
  size_t k_ = 0, v_ = 0, vend_ = 0;
};

// The sum of several cursors, consolidated on the fly: a value's weight is the
// sum of its weights in every input, values whose weights sum to zero are
// skipped, and so are keys left with no value. Owns its inputs.
class MergedCursor final : public Cursor {
 public:
  // `pins` keeps the batches that the inputs read alive as long as the cursor.
  explicit MergedCursor(std::vector<std::unique_ptr<Cursor>> inputs,
                        std::vector<BatchPtr> pins = {});

  bool KeyValid() const override { return key_valid_; }
  bool ValValid() const override { return val_valid_; }
  std::string_view key() const override { return inputs_[active_[0]]->key(); }
  std::string_view val() const override { return inputs_[val_src_]->val(); }
  Weight weight() const override { return weight_; }
  void StepKey() override;
  void StepVal() override;
  void SeekKey(std::string_view key) override;
  void SeekVal(std::string_view val) override;
  void RewindKeys() override;
  void RewindVals() override;
  // Seeks only the inputs whose batches may hold the key; the others stay
  // behind until the next seek or step catches them up.
  bool SeekKeyPresent(std::string_view key, uint64_t hash) override;
  Status status() const override;

 private:
  // Positions on the smallest key at or after the inputs' positions that has
  // a non-zero value.
  void FindKey();
  // Positions on the smallest value at or after the active inputs' value
  // positions whose summed weight is non-zero; returns false if none is left.
  bool FindVal();

  std::vector<std::unique_ptr<Cursor>> inputs_;
  std::vector<BatchPtr> pins_;
  std::vector<size_t> active_;  // inputs positioned on the current key
  std::vector<size_t> at_val_;  // active inputs positioned on the current value
  bool key_valid_ = false;
  bool val_valid_ = false;
  // Some inputs were left before the current key by SeekKeyPresent.
  bool lagging_ = false;
  size_t val_src_ = 0;
  Weight weight_ = 0;
  Status status_;
};

// A cursor over the sum of `batches` (one batch needs no merging). The cursor
// holds a reference to each batch, so it stays valid whatever happens to the
// spine or stream that `batches` came from.
std::unique_ptr<Cursor> NewCursorOver(const std::vector<BatchPtr>& batches);

}  // namespace sluice
