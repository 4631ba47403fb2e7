#include "zset/cursor.h"

namespace sluice {

void MemCursor::SeekKey(std::string_view key) {
  if (k_ >= nk_) return;
  size_t k = b_.LowerBoundKey(key, k_);
  if (k != k_) SetKey(k);
}

void MemCursor::SeekVal(std::string_view val) {
  if (k_ >= nk_ || v_ >= vend_) return;
  v_ = b_.LowerBoundVal(k_, val, v_);
}

MergedCursor::MergedCursor(std::vector<std::unique_ptr<Cursor>> inputs, std::vector<BatchPtr> pins)
    : inputs_(std::move(inputs)), pins_(std::move(pins)) {
  FindKey();
}

void MergedCursor::FindKey() {
  while (true) {
    active_.clear();
    std::string_view min;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (!inputs_[i]->KeyValid()) continue;
      std::string_view k = inputs_[i]->key();
      if (active_.empty() || k < min) {
        active_.clear();
        active_.push_back(i);
        min = k;
      } else if (k == min) {
        active_.push_back(i);
      }
    }
    if (active_.empty()) {
      active_.clear();
      key_valid_ = val_valid_ = false;
      return;
    }
    if (FindVal()) {
      key_valid_ = true;
      return;
    }
    if (!status_.ok()) {
      key_valid_ = false;
      return;
    }
    for (size_t i : active_) inputs_[i]->StepKey();
  }
}

bool MergedCursor::FindVal() {
  while (true) {
    at_val_.clear();
    std::string_view min;
    for (size_t i : active_) {
      if (!inputs_[i]->ValValid()) continue;
      std::string_view v = inputs_[i]->val();
      if (at_val_.empty() || v < min) {
        at_val_.clear();
        at_val_.push_back(i);
        min = v;
      } else if (v == min) {
        at_val_.push_back(i);
      }
    }
    if (at_val_.empty()) {
      val_valid_ = false;
      return false;
    }
    Weight sum = 0;
    for (size_t i : at_val_) {
      if (__builtin_add_overflow(sum, inputs_[i]->weight(), &sum)) {
        status_ = Status::Overflow("weight overflow while adding batches");
        val_valid_ = false;
        return false;
      }
    }
    if (sum != 0) {
      val_src_ = at_val_[0];
      weight_ = sum;
      val_valid_ = true;
      return true;
    }
    for (size_t i : at_val_) inputs_[i]->StepVal();
  }
}

void MergedCursor::StepKey() {
  if (lagging_) {
    // Inputs left behind by SeekKeyPresent catch up to the current key
    // first (those on it are not moved).
    const std::string key(this->key());
    for (auto& in : inputs_) in->SeekKey(key);
    lagging_ = false;
  }
  for (size_t i : active_) inputs_[i]->StepKey();
  FindKey();
}

bool MergedCursor::SeekKeyPresent(std::string_view key, uint64_t hash) {
  if (key_valid_ && this->key() == key) return true;
  active_.clear();
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (inputs_[i]->SeekKeyPresent(key, hash)) active_.push_back(i);
  }
  lagging_ = true;
  key_valid_ = !active_.empty() && FindVal();
  if (!key_valid_) val_valid_ = false;
  return key_valid_;
}

void MergedCursor::StepVal() {
  for (size_t i : at_val_) inputs_[i]->StepVal();
  FindVal();
}

void MergedCursor::SeekKey(std::string_view key) {
  if (key_valid_ && !(this->key() < key)) return;
  for (auto& in : inputs_) in->SeekKey(key);
  lagging_ = false;
  FindKey();
}

void MergedCursor::SeekVal(std::string_view val) {
  if (!key_valid_) return;
  for (size_t i : active_) inputs_[i]->SeekVal(val);
  FindVal();
}

void MergedCursor::RewindKeys() {
  for (auto& in : inputs_) in->RewindKeys();
  lagging_ = false;
  FindKey();
}

void MergedCursor::RewindVals() {
  if (!key_valid_) return;
  for (size_t i : active_) inputs_[i]->RewindVals();
  FindVal();
}

Status MergedCursor::status() const {
  if (!status_.ok()) return status_;
  for (const auto& in : inputs_) {
    Status s = in->status();
    if (!s.ok()) return s;
  }
  return Status::OK();
}

namespace {

// One batch's cursor, holding a reference to the batch.
class PinnedCursor final : public Cursor {
 public:
  explicit PinnedCursor(BatchPtr batch) : batch_(std::move(batch)), c_(batch_->NewCursor()) {}
  bool KeyValid() const override { return c_->KeyValid(); }
  bool ValValid() const override { return c_->ValValid(); }
  std::string_view key() const override { return c_->key(); }
  std::string_view val() const override { return c_->val(); }
  Weight weight() const override { return c_->weight(); }
  void StepKey() override { c_->StepKey(); }
  void StepVal() override { c_->StepVal(); }
  void SeekKey(std::string_view key) override { c_->SeekKey(key); }
  void SeekVal(std::string_view val) override { c_->SeekVal(val); }
  void RewindKeys() override { c_->RewindKeys(); }
  void RewindVals() override { c_->RewindVals(); }
  bool MayContainKey(uint64_t hash) const override { return c_->MayContainKey(hash); }
  bool SeekKeyPresent(std::string_view key, uint64_t hash) override {
    return c_->SeekKeyPresent(key, hash);
  }
  Status status() const override { return c_->status(); }

 private:
  BatchPtr batch_;
  std::unique_ptr<Cursor> c_;
};

}  // namespace

std::unique_ptr<Cursor> NewCursorOver(const std::vector<BatchPtr>& batches) {
  if (batches.empty()) return std::make_unique<PinnedCursor>(MemBatch::Empty());
  if (batches.size() == 1) return std::make_unique<PinnedCursor>(batches[0]);
  std::vector<std::unique_ptr<Cursor>> cursors;
  cursors.reserve(batches.size());
  for (const BatchPtr& b : batches) cursors.push_back(b->NewCursor());
  return std::make_unique<MergedCursor>(std::move(cursors), batches);
}

}  // namespace sluice
