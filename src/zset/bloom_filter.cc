#include "zset/bloom_filter.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "base/bytes.h"

namespace sluice {

BloomFilter::BloomFilter(uint64_t keys) {
  Allocate(std::max<uint64_t>(1, (keys * kBitsPerKey + 511) / 512));
}

void BloomFilter::Allocate(uint64_t blocks) {
  const uint64_t bytes = blocks * kBlockWords * sizeof(uint64_t);
  void* p = std::aligned_alloc(64, bytes);
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  words_.reset(static_cast<uint64_t*>(p));
  blocks_ = blocks;
}

void BloomFilter::EncodeTo(std::string* out) const {
  const uint64_t n = blocks_ * kBlockWords;
  PutFixed64(out, kBlockedTag | n);
  for (uint64_t i = 0; i < n; ++i) PutFixed64(out, words_[i]);
}

Result<BloomFilter> BloomFilter::DecodeFrom(std::string_view* in) {
  if (in->size() < 8) return Status::Corruption("Bloom filter truncated");
  const uint64_t head = GetFixed64(in->data());
  const uint64_t n = head & ~kBlockedTag;
  in->remove_prefix(8);
  if (n > in->size() / 8) return Status::Corruption("Bloom filter truncated");
  BloomFilter f;
  if ((head & kBlockedTag) != 0) {
    if (n == 0 || n % kBlockWords != 0) {
      return Status::Corruption("Bloom filter is not a whole number of blocks");
    }
    f.Allocate(n / kBlockWords);
    for (uint64_t i = 0; i < n; ++i) f.words_[i] = GetFixed64(in->data() + 8 * i);
  }
  // Else a classic filter, from before filters were blocked: skipped, and
  // the empty filter stands in for it.
  in->remove_prefix(8 * n);
  return f;
}

}  // namespace sluice
