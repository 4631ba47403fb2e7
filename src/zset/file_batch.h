// FileBatch: a batch that lives in a file on storage, read block by block
// through the same Cursor interface as a MemBatch. Spines put their large
// batches here, so an integral may be much larger than memory.
//
// File layout, little-endian:
//   blocks     each a batch chunk (batch_codec.h, with its own checksum);
//              a block holds whole keys, about `block_bytes` of them
//   index      u64 block count N, then per block: u64 offset, u64 length,
//              u64 key count, u64 value count, u32 first-key length, first key;
//              then a Bloom filter of the keys (bloom_filter.h), absent in
//              files written before there was one
//   trailer    40 bytes: u64 index offset, u64 index length, u64 index
//              checksum (XXH3), u64 total pairs, u64 magic "SLUICEBF"
//
// The writer writes to `<path>.tmp`, syncs, and renames to `<path>`, so a file
// under its final name is always whole. Open() checks the trailer and the
// index checksum; each block is checked as it is read. A torn or corrupted
// file is a Corruption error that names the file, never wrong data.
//
// The index stays in memory while the batch is open, so a seek finds its
// key's block by a binary search of the blocks' first keys and reads that
// block alone; the Bloom filter answers that a key is absent without
// reading any. Decoded blocks go through the pipeline's BlockCache, if the
// batch was opened with one.
//
// Thread safety: immutable once written; cursors on different threads may read
// one FileBatch at once.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "zset/batch.h"
#include "zset/batch_builder.h"
#include "zset/block_cache.h"
#include "zset/bloom_filter.h"

namespace sluice {

class RandomAccessFile;
class WritableFile;

class FileBatch final : public Batch {
 public:
  // Opens a finished file. With `remove_on_drop`, the file is deleted when
  // the last reference to the batch goes away (spill files); otherwise it is
  // kept (checkpoints).
  // Blocks read are kept in `cache`, if given.
  static Result<std::shared_ptr<const FileBatch>> Open(const std::string& path, bool remove_on_drop,
                                                       std::shared_ptr<BlockCache> cache = nullptr);
  ~FileBatch() override;

  std::unique_ptr<Cursor> NewCursor() const override;
  uint64_t len() const override { return len_; }
  uint64_t key_count() const override { return key_count_; }
  uint64_t byte_size() const override { return file_size_; }
  bool on_storage() const override { return true; }
  uint64_t memory_bytes() const override { return memory_bytes_; }
  // From the file's Bloom filter (always true for a file without one).
  bool MayContainKey(uint64_t hash) const override { return filter_.MayContain(hash); }
  bool has_filter() const { return !filter_.empty(); }
  const std::string& path() const { return path_; }

  size_t block_count() const { return blocks_.size(); }
  // Block i, from the cache or else read, checked and decoded (and then
  // cached); without `use_cache`, read past the cache.
  Result<MemBatchPtr> ReadBlock(size_t i, bool use_cache = true) const;
  // Index of the last block whose first key is <= key (0 if none).
  size_t FindBlock(std::string_view key, size_t from) const;

 private:
  struct BlockInfo {
    uint64_t offset, length, keys, vals;
    std::string first_key;
  };
  FileBatch() = default;

  std::string path_;
  bool remove_on_drop_ = false;
  std::unique_ptr<RandomAccessFile> file_;
  std::vector<BlockInfo> blocks_;
  BloomFilter filter_;
  std::shared_ptr<BlockCache> cache_;  // may be null
  const uint64_t id_ = BlockCache::NewFileId();
  uint64_t len_ = 0, key_count_ = 0, file_size_ = 0;
  uint64_t memory_bytes_ = 0;  // of blocks_ and filter_
};

// Writes a FileBatch from pairs pushed in sorted order.
class FileBatchWriter {
 public:
  static constexpr uint64_t kDefaultBlockBytes = 4 << 10;

  // `expected_keys` (an upper bound, or 0 if unknown) sizes the Bloom filter.
  static Result<std::unique_ptr<FileBatchWriter>> Create(const std::string& path,
                                                         uint64_t block_bytes = kDefaultBlockBytes,
                                                         uint64_t expected_keys = 0);
  ~FileBatchWriter();

  // REQUIRES: (key, val) >= the previous pair pushed.
  Status Push(std::string_view key, std::string_view val, Weight w);
  // Writes the index and trailer, syncs, renames into place and opens it
  // (with `cache`, as Open).
  Result<std::shared_ptr<const FileBatch>> Finish(bool remove_on_drop,
                                                  std::shared_ptr<BlockCache> cache = nullptr);

 private:
  FileBatchWriter(std::string path, std::unique_ptr<WritableFile> file, uint64_t block_bytes,
                  uint64_t expected_keys);
  Status FlushBlock();

  std::string path_;
  std::unique_ptr<WritableFile> file_;
  uint64_t block_bytes_;
  OrderedBuilder block_;
  std::string index_;
  uint64_t block_count_ = 0, total_pairs_ = 0;
  // The keys' filter, when their count was known; else their hashes, for
  // one built at the end.
  BloomFilter filter_;
  std::vector<uint64_t> hashes_;
  std::string scratch_;
  bool finished_ = false;
};

}  // namespace sluice
