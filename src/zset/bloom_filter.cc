#include "zset/bloom_filter.h"

#include "base/bytes.h"

namespace sluice {

void BloomFilter::EncodeTo(std::string* out) const {
  PutFixed64(out, words_.size());
  for (uint64_t w : words_) PutFixed64(out, w);
}

Result<BloomFilter> BloomFilter::DecodeFrom(std::string_view* in) {
  if (in->size() < 8) return Status::Corruption("Bloom filter truncated");
  const uint64_t n = GetFixed64(in->data());
  in->remove_prefix(8);
  if (n > in->size() / 8) return Status::Corruption("Bloom filter truncated");
  BloomFilter f;
  f.words_.resize(n);
  for (uint64_t i = 0; i < n; ++i) f.words_[i] = GetFixed64(in->data() + 8 * i);
  in->remove_prefix(8 * n);
  return f;
}

}  // namespace sluice
