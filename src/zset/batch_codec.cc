#include "zset/batch_codec.h"

#include <cstring>

#include "base/bytes.h"
#include "base/hash.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {
namespace {

constexpr char kMagic[4] = {'S', 'Z', 'B', '1'};
constexpr size_t kHeader = 24;

template <typename T>
void AppendArray(const std::vector<T>& v, std::string* out) {
  out->append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

template <typename T>
bool ReadArray(std::string_view* in, size_t n, std::vector<T>* v) {
  if (n > in->size() / sizeof(T)) return false;
  v->resize(n);
  if (n > 0) std::memcpy(v->data(), in->data(), n * sizeof(T));
  in->remove_prefix(n * sizeof(T));
  return true;
}

bool Monotone(const std::vector<uint64_t>& v, uint64_t last, bool strict) {
  if (v.empty() || v.front() != 0 || v.back() != last) return false;
  for (size_t i = 1; i < v.size(); ++i) {
    if (strict ? v[i] <= v[i - 1] : v[i] < v[i - 1]) return false;
  }
  return true;
}

}  // namespace

void EncodeBatch(const MemBatch& b, std::string* out) {
  size_t start = out->size();
  out->append(kMagic, 4);
  PutFixed32(out, 0);
  PutFixed64(out, 0);  // checksum, filled in below
  PutFixed64(out, 0);  // payload length, filled in below
  uint64_t nk = b.key_count(), nv = b.len();
  PutFixed64(out, nk);
  PutFixed64(out, nv);
  // Offsets and key data are read through the public accessors so that the
  // codec relies only on the batch's invariants.
  uint64_t key_bytes =
      nk ? static_cast<uint64_t>(b.key(nk - 1).data() + b.key(nk - 1).size() - b.key(0).data()) : 0;
  uint64_t val_bytes =
      nv ? static_cast<uint64_t>(b.val(nv - 1).data() + b.val(nv - 1).size() - b.val(0).data()) : 0;
  PutFixed64(out, key_bytes);
  PutFixed64(out, val_bytes);
  const char* key_base = nk ? b.key(0).data() : nullptr;
  const char* val_base = nv ? b.val(0).data() : nullptr;
  PutFixed64(out, 0);
  for (uint64_t i = 0; i < nk; ++i) {
    PutFixed64(out, static_cast<uint64_t>(b.key(i).data() + b.key(i).size() - key_base));
  }
  for (uint64_t i = 0; i < nk; ++i) PutFixed64(out, b.vals_begin(i));
  PutFixed64(out, nv);
  PutFixed64(out, 0);
  for (uint64_t j = 0; j < nv; ++j) {
    PutFixed64(out, static_cast<uint64_t>(b.val(j).data() + b.val(j).size() - val_base));
  }
  for (uint64_t j = 0; j < nv; ++j) PutFixed64(out, static_cast<uint64_t>(b.weight(j)));
  if (key_base) out->append(key_base, key_bytes);
  if (val_base) out->append(val_base, val_bytes);
  uint64_t payload = out->size() - start - kHeader;
  uint64_t sum = Checksum64(out->data() + start + kHeader, payload);
  std::memcpy(out->data() + start + 8, &sum, 8);
  std::memcpy(out->data() + start + 16, &payload, 8);
}

Result<MemBatchPtr> DecodeBatch(std::string_view chunk) {
  if (chunk.size() < kHeader + 32 || std::memcmp(chunk.data(), kMagic, 4) != 0) {
    return Status::Corruption(
        "not a batch chunk (bad magic or too short: " + std::to_string(chunk.size()) + " bytes)");
  }
  // No flags are defined: a chunk with any set is from a newer writer, or
  // damaged (the checksum does not cover the header).
  if (GetFixed32(chunk.data() + 4) != 0) {
    return Status::Corruption("batch chunk has unknown flags " +
                              std::to_string(GetFixed32(chunk.data() + 4)));
  }
  uint64_t sum = GetFixed64(chunk.data() + 8);
  uint64_t payload = GetFixed64(chunk.data() + 16);
  if (payload != chunk.size() - kHeader) {
    return Status::Corruption("batch chunk is torn: header says " + std::to_string(payload) +
                              " payload bytes, chunk has " +
                              std::to_string(chunk.size() - kHeader));
  }
  if (Checksum64(chunk.data() + kHeader, payload) != sum) {
    return Status::Corruption("batch chunk checksum mismatch");
  }
  std::string_view in = chunk.substr(kHeader);
  uint64_t nk = GetFixed64(in.data()), nv = GetFixed64(in.data() + 8);
  uint64_t key_bytes = GetFixed64(in.data() + 16), val_bytes = GetFixed64(in.data() + 24);
  in.remove_prefix(32);
  auto b = std::make_shared<MemBatch>();
  auto bad = [](const char* what) {
    return Status::Corruption(std::string("batch chunk has ") + what);
  };
  if (nk > in.size() || nv > in.size()) return bad("impossible counts");
  if (!ReadArray(&in, nk + 1, &b->key_off_) || !ReadArray(&in, nk + 1, &b->key_vals_) ||
      !ReadArray(&in, nv + 1, &b->val_off_) || !ReadArray(&in, nv, &b->weights_)) {
    return bad("truncated index arrays");
  }
  if (in.size() != key_bytes + val_bytes) return bad("wrong data length");
  b->key_data_.assign(in.data(), key_bytes);
  b->val_data_.assign(in.data() + key_bytes, val_bytes);
  if (!Monotone(b->key_off_, key_bytes, false) || !Monotone(b->val_off_, val_bytes, false) ||
      !Monotone(b->key_vals_, nv, true)) {
    return bad("inconsistent offsets");
  }
  // (If the keys are out of order, the batch is rejected below; until
  // then the prefixes need only not read out of bounds.)
  b->key_skip_ = nk == 0 ? 0 : SharedPrefixLength(b->key(0), b->key(nk - 1));
  b->key_prefix_.reserve(nk);
  for (uint64_t i = 0; i < nk; ++i) {
    b->key_prefix_.push_back(BytePrefixAfter(b->key(i), b->key_skip_));
    if (i > 0 && !(b->key(i - 1) < b->key(i))) return bad("keys out of order");
    for (uint64_t j = b->vals_begin(i) + 1; j < b->vals_end(i); ++j) {
      if (!(b->val(j - 1) < b->val(j))) return bad("values out of order");
    }
  }
  for (Weight w : b->weights_) {
    if (w == 0) return bad("a zero weight");
  }
  return MemBatchPtr(std::move(b));
}

Status EncodeAnyBatch(const Batch& batch, std::string* out) {
  if (auto* mem = dynamic_cast<const MemBatch*>(&batch)) {
    EncodeBatch(*mem, out);
    return Status::OK();
  }
  OrderedBuilder b;
  auto c = batch.NewCursor();
  for (; c->KeyValid(); c->StepKey()) {
    for (; c->ValValid(); c->StepVal())
      SLUICE_RETURN_IF_ERROR(b.Push(c->key(), c->val(), c->weight()));
  }
  SLUICE_RETURN_IF_ERROR(c->status());
  EncodeBatch(*b.Finish(), out);
  return Status::OK();
}

}  // namespace sluice
