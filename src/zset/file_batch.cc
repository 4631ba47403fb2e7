#include "zset/file_batch.h"

#include <cstring>

#include "base/bytes.h"
#include "base/hash.h"
#include "storage/file.h"
#include "zset/batch_codec.h"
#include "zset/cursor.h"

namespace sluice {
namespace {

constexpr uint64_t kFileMagic = 0x464245434955'4c53ULL;  // "SLUICEBF" little-endian
constexpr size_t kTrailer = 40;

// Reads a FileBatch block by block, holding one block in memory.
class FileCursor final : public Cursor {
 public:
  explicit FileCursor(const FileBatch& batch) : f_(batch) { RewindKeys(); }

  bool KeyValid() const override { return cur_ && cur_->KeyValid(); }
  bool ValValid() const override { return cur_ && cur_->ValValid(); }
  std::string_view key() const override { return cur_->key(); }
  std::string_view val() const override { return cur_->val(); }
  Weight weight() const override { return cur_->weight(); }
  void StepKey() override {
    cur_->StepKey();
    // A scan (a merge, a snapshot) reads each block once: it neither
    // fills the cache nor pushes out what seeks keep there.
    if (!cur_->KeyValid()) Load(block_ + 1, /*use_cache=*/false);
  }
  void StepVal() override { cur_->StepVal(); }
  void SeekKey(std::string_view key) override {
    if (!KeyValid()) return;
    size_t b = f_.FindBlock(key, block_);
    if (b != block_) Load(b);
    if (!cur_) return;
    cur_->SeekKey(key);
    // The key may lie past the end of this block: then it is the next one's first.
    if (!cur_->KeyValid()) Load(block_ + 1);
  }
  void SeekVal(std::string_view val) override {
    if (cur_) cur_->SeekVal(val);
  }
  void RewindKeys() override { Load(0); }
  void RewindVals() override {
    if (cur_) cur_->RewindVals();
  }
  bool MayContainKey(uint64_t hash) const override { return f_.MayContainKey(hash); }
  Status status() const override { return status_; }

 private:
  void Load(size_t b, bool use_cache = true) {
    cur_.reset();
    block_ = b;
    if (b >= f_.block_count() || !status_.ok()) return;
    auto r = f_.ReadBlock(b, use_cache);
    if (!r.ok()) {
      status_ = r.status();
      return;
    }
    data_ = std::move(r).value();
    cur_ = std::make_unique<MemCursor>(*data_);
  }

  const FileBatch& f_;
  size_t block_ = 0;
  MemBatchPtr data_;
  std::unique_ptr<MemCursor> cur_;
  Status status_;
};

}  // namespace

Result<std::shared_ptr<const FileBatch>> FileBatch::Open(const std::string& path,
                                                         bool remove_on_drop,
                                                         std::shared_ptr<BlockCache> cache) {
  auto fb = std::shared_ptr<FileBatch>(new FileBatch());
  fb->path_ = path;
  fb->cache_ = std::move(cache);
  SLUICE_ASSIGN_OR_RETURN(fb->file_, RandomAccessFile::Open(path));
  fb->file_size_ = fb->file_->size();
  auto corrupt = [&](const std::string& what) {
    return Status::Corruption("batch file " + path + ": " + what);
  };
  if (fb->file_size_ < kTrailer) return corrupt("too short to hold a trailer (torn file?)");
  std::string trailer;
  SLUICE_RETURN_IF_ERROR(fb->file_->Read(fb->file_size_ - kTrailer, kTrailer, &trailer));
  if (GetFixed64(trailer.data() + 32) != kFileMagic)
    return corrupt("bad trailer magic (torn file?)");
  uint64_t index_off = GetFixed64(trailer.data()), index_len = GetFixed64(trailer.data() + 8);
  uint64_t index_sum = GetFixed64(trailer.data() + 16);
  fb->len_ = GetFixed64(trailer.data() + 24);
  if (index_off > fb->file_size_ - kTrailer || index_len != fb->file_size_ - kTrailer - index_off) {
    return corrupt("index position out of bounds");
  }
  std::string index;
  SLUICE_RETURN_IF_ERROR(fb->file_->Read(index_off, index_len, &index));
  if (Checksum64(index.data(), index.size()) != index_sum)
    return corrupt("index checksum mismatch");
  std::string_view in = index;
  if (in.size() < 8) return corrupt("index too short");
  uint64_t n = GetFixed64(in.data());
  in.remove_prefix(8);
  uint64_t pairs = 0, expected_off = 0;
  for (uint64_t i = 0; i < n; ++i) {
    if (in.size() < 36) return corrupt("index truncated");
    BlockInfo b;
    b.offset = GetFixed64(in.data());
    b.length = GetFixed64(in.data() + 8);
    b.keys = GetFixed64(in.data() + 16);
    b.vals = GetFixed64(in.data() + 24);
    uint32_t klen = GetFixed32(in.data() + 32);
    in.remove_prefix(36);
    if (in.size() < klen) return corrupt("index truncated");
    b.first_key.assign(in.data(), klen);
    in.remove_prefix(klen);
    if (b.offset != expected_off) return corrupt("blocks are not contiguous");
    expected_off = b.offset + b.length;
    pairs += b.vals;
    fb->key_count_ += b.keys;
    fb->blocks_.push_back(std::move(b));
  }
  if (!in.empty()) {
    auto filter = BloomFilter::DecodeFrom(&in);
    if (!filter.ok()) return corrupt(filter.status().message());
    fb->filter_ = std::move(filter).value();
  }
  if (expected_off != index_off) return corrupt("blocks do not end at the index");
  fb->memory_bytes_ = fb->filter_.byte_size() + fb->blocks_.capacity() * sizeof(BlockInfo);
  for (const BlockInfo& b : fb->blocks_) fb->memory_bytes_ += b.first_key.capacity();
  if (pairs != fb->len_) return corrupt("pair count mismatch");
  fb->remove_on_drop_ = remove_on_drop;
  return std::shared_ptr<const FileBatch>(std::move(fb));
}

FileBatch::~FileBatch() {
  if (cache_) cache_->EraseFile(id_, blocks_.size());
  if (remove_on_drop_) (void)RemoveFile(path_);
}

std::unique_ptr<Cursor> FileBatch::NewCursor() const { return std::make_unique<FileCursor>(*this); }

Result<MemBatchPtr> FileBatch::ReadBlock(size_t i, bool use_cache) const {
  if (cache_ && use_cache) {
    if (MemBatchPtr hit = cache_->Lookup(id_, i)) return hit;
  }
  const BlockInfo& b = blocks_[i];
  std::string chunk;
  SLUICE_RETURN_IF_ERROR(file_->Read(b.offset, b.length, &chunk));
  auto batch = DecodeBatch(chunk);
  if (!batch.ok()) {
    return batch.status().WithContext("batch file " + path_ + " block " + std::to_string(i));
  }
  if ((*batch)->key_count() != b.keys || (*batch)->len() != b.vals ||
      (b.keys > 0 && (*batch)->key(0) != b.first_key)) {
    return Status::Corruption("batch file " + path_ + " block " + std::to_string(i) +
                              " does not match its index entry");
  }
  if (cache_ && use_cache) cache_->Insert(id_, i, *batch);
  return batch;
}

size_t FileBatch::FindBlock(std::string_view key, size_t from) const {
  // Last block in [from, n) whose first key is <= key.
  size_t lo = from, hi = blocks_.size();
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (blocks_[mid].first_key <= key) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

Result<std::unique_ptr<FileBatchWriter>> FileBatchWriter::Create(const std::string& path,
                                                                 uint64_t block_bytes,
                                                                 uint64_t expected_keys) {
  SLUICE_ASSIGN_OR_RETURN(auto file, WritableFile::Create(path + ".tmp"));
  return std::unique_ptr<FileBatchWriter>(
      new FileBatchWriter(path, std::move(file), block_bytes, expected_keys));
}

FileBatchWriter::FileBatchWriter(std::string path, std::unique_ptr<WritableFile> file,
                                 uint64_t block_bytes, uint64_t expected_keys)
    : path_(std::move(path)), file_(std::move(file)), block_bytes_(block_bytes) {
  if (expected_keys > 0) filter_ = BloomFilter(expected_keys);
}

FileBatchWriter::~FileBatchWriter() {
  if (!finished_) {
    (void)file_->Close();
    (void)RemoveFile(path_ + ".tmp");
  }
}

Status FileBatchWriter::Push(std::string_view key, std::string_view val, Weight w) {
  const bool new_key = !block_.has_key() || block_.last_key() != key;
  if (new_key) {
    const uint64_t h = Hash64(key);
    if (filter_.empty()) {
      hashes_.push_back(h);
    } else {
      filter_.Add(h);
    }
  }
  // Blocks end only between keys, so a key's values never span two blocks.
  if (block_.byte_size() >= block_bytes_ && new_key && block_.has_key()) {
    SLUICE_RETURN_IF_ERROR(FlushBlock());
  }
  return block_.Push(key, val, w);
}

Status FileBatchWriter::FlushBlock() {
  MemBatchPtr b = block_.Finish();
  if (b->empty()) return Status::OK();
  scratch_.clear();
  EncodeBatch(*b, &scratch_);
  PutFixed64(&index_, file_->size());
  PutFixed64(&index_, scratch_.size());
  PutFixed64(&index_, b->key_count());
  PutFixed64(&index_, b->len());
  PutFixed32(&index_, static_cast<uint32_t>(b->key(0).size()));
  index_.append(b->key(0));
  ++block_count_;
  total_pairs_ += b->len();
  return file_->Append(scratch_);
}

Result<std::shared_ptr<const FileBatch>> FileBatchWriter::Finish(
    bool remove_on_drop, std::shared_ptr<BlockCache> cache) {
  SLUICE_RETURN_IF_ERROR(FlushBlock());
  if (filter_.empty()) {
    filter_ = BloomFilter(hashes_.size());
    for (uint64_t h : hashes_) filter_.Add(h);
    hashes_ = {};
  }
  std::string index;
  PutFixed64(&index, block_count_);
  index += index_;
  filter_.EncodeTo(&index);
  uint64_t index_off = file_->size();
  std::string trailer;
  PutFixed64(&trailer, index_off);
  PutFixed64(&trailer, index.size());
  PutFixed64(&trailer, Checksum64(index.data(), index.size()));
  PutFixed64(&trailer, total_pairs_);
  PutFixed64(&trailer, kFileMagic);
  SLUICE_RETURN_IF_ERROR(file_->Append(index));
  SLUICE_RETURN_IF_ERROR(file_->Append(trailer));
  // Spill files die with the process that wrote them; only kept files are
  // made durable.
  if (!remove_on_drop) SLUICE_RETURN_IF_ERROR(file_->Sync());
  SLUICE_RETURN_IF_ERROR(file_->Close());
  SLUICE_RETURN_IF_ERROR(RenameFile(path_ + ".tmp", path_));
  finished_ = true;
  return FileBatch::Open(path_, remove_on_drop, std::move(cache));
}

}  // namespace sluice
