#include "zset/batch_builder.h"

#include <algorithm>
#include <cstring>

#include "base/bytes.h"
#include "base/check.h"

namespace sluice {

void OrderedBuilder::Reserve(size_t keys, size_t vals, size_t key_bytes, size_t val_bytes) {
  batch_->key_off_.reserve(keys + 1);
  batch_->key_prefix_.reserve(keys);
  batch_->key_vals_.reserve(keys + 1);
  batch_->key_data_.reserve(key_bytes);
  batch_->val_off_.reserve(vals + 1);
  batch_->weights_.reserve(vals);
  batch_->val_data_.reserve(val_bytes);
}

void OrderedBuilder::ExpectKeysWithin(std::string_view lo, std::string_view hi) {
  SLUICE_DCHECK(batch_->key_count() == 0);
  skip_ = SharedPrefixLength(lo, hi);
}

Status OrderedBuilder::Push(std::string_view key, std::string_view val, Weight w) {
  if (w == 0) return Status::OK();
  MemBatch& b = *batch_;
  size_t nk = b.key_count();
  if (nk > 0 && b.key(nk - 1) == key) {
    size_t nv = b.len();
    if (nv > b.key_vals_[nk - 1] && b.val(nv - 1) == val) {
      Weight& last = b.weights_.back();
      if (__builtin_add_overflow(last, w, &last)) {
        return Status::Overflow("weight overflow for key " + BytesToHex(key) + ", value " +
                                BytesToHex(val));
      }
      if (last == 0) {
        // The pair cancelled out: drop it, and the key if it has no value left.
        b.weights_.pop_back();
        b.val_off_.pop_back();
        b.val_data_.resize(b.val_off_.back());
        b.key_vals_.back() = b.weights_.size();
        if (b.key_vals_[nk] == b.key_vals_[nk - 1]) {
          b.key_vals_.pop_back();
          b.key_off_.pop_back();
          b.key_prefix_.pop_back();
          b.key_data_.resize(b.key_off_.back());
        }
      }
      return Status::OK();
    }
    SLUICE_DCHECK(nv == b.key_vals_[nk - 1] || b.val(nv - 1) < val);
  } else {
    SLUICE_DCHECK(nk == 0 || b.key(nk - 1) < key);
    b.key_data_.append(key);
    b.key_off_.push_back(b.key_data_.size());
    b.key_prefix_.push_back(BytePrefixAfter(key, skip_));
    b.key_vals_.push_back(b.weights_.size());
  }
  b.val_data_.append(val);
  b.val_off_.push_back(b.val_data_.size());
  b.weights_.push_back(w);
  b.key_vals_.back() = b.weights_.size();
  return Status::OK();
}

void OrderedBuilder::AppendKey(const MemBatch& src, size_t k) {
  MemBatch& b = *batch_;
  SLUICE_DCHECK(b.key_count() == 0 || b.key(b.key_count() - 1) < src.key(k));
  b.key_data_.append(src.key(k));
  b.key_off_.push_back(b.key_data_.size());
  b.key_prefix_.push_back(src.key_skip_ == skip_ ? src.key_prefix_[k]
                                                 : BytePrefixAfter(src.key(k), skip_));
  size_t vb = src.vals_begin(k), ve = src.vals_end(k);
  uint64_t base = src.val_off_[vb];
  uint64_t shift = b.val_data_.size();
  b.val_data_.append(src.val_data_, base, src.val_off_[ve] - base);
  for (size_t j = vb + 1; j <= ve; ++j) b.val_off_.push_back(src.val_off_[j] - base + shift);
  b.weights_.insert(b.weights_.end(), src.weights_.begin() + static_cast<ptrdiff_t>(vb),
                    src.weights_.begin() + static_cast<ptrdiff_t>(ve));
  b.key_vals_.push_back(b.weights_.size());
}

MemBatchPtr OrderedBuilder::Finish() {
  MemBatch& b = *batch_;
  const size_t nk = b.key_count();
  // Keys are sorted, so the bytes the first and last share are every key's.
  const size_t skip = nk == 0 ? 0 : SharedPrefixLength(b.key(0), b.key(nk - 1));
  if (skip != skip_) {
    for (size_t i = 0; i < nk; ++i) b.key_prefix_[i] = BytePrefixAfter(b.key(i), skip);
  }
  b.key_skip_ = skip;
  MemBatchPtr out = std::move(batch_);
  batch_ = std::make_shared<MemBatch>();
  skip_ = 0;
  return out;
}

void BatchBuilder::Push(std::string_view key, std::string_view val, Weight w) {
  if (w == 0) return;
  Entry e;
  e.prefix = BytePrefix(key);
  e.key_off = arena_.size();
  e.key_len = static_cast<uint32_t>(key.size());
  arena_.append(key);
  e.val_off = arena_.size();
  e.val_len = static_cast<uint32_t>(val.size());
  arena_.append(val);
  e.w = w;
  entries_.push_back(e);
  key_bytes_ += key.size();
  val_bytes_ += val.size();
}

Result<MemBatchPtr> BatchBuilder::Finish() {
  const char* base = arena_.data();
  auto cmp = [base](const Entry& a, const Entry& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    size_t n = std::min(a.key_len, b.key_len);
    int c = std::memcmp(base + a.key_off, base + b.key_off, n);
    if (c != 0) return c < 0;
    if (a.key_len != b.key_len) return a.key_len < b.key_len;
    n = std::min(a.val_len, b.val_len);
    c = std::memcmp(base + a.val_off, base + b.val_off, n);
    if (c != 0) return c < 0;
    return a.val_len < b.val_len;
  };
  std::sort(entries_.begin(), entries_.end(), cmp);
  OrderedBuilder out;
  out.Reserve(entries_.size(), entries_.size(), key_bytes_, val_bytes_);
  if (!entries_.empty()) {
    const Entry &lo = entries_.front(), &hi = entries_.back();
    out.ExpectKeysWithin(std::string_view(base + lo.key_off, lo.key_len),
                         std::string_view(base + hi.key_off, hi.key_len));
  }
  for (const Entry& e : entries_) {
    SLUICE_RETURN_IF_ERROR(out.Push(std::string_view(base + e.key_off, e.key_len),
                                    std::string_view(base + e.val_off, e.val_len), e.w));
  }
  entries_.clear();
  arena_.clear();
  key_bytes_ = val_bytes_ = 0;
  return out.Finish();
}

}  // namespace sluice
