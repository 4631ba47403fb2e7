// The storage backend: plain files in a directory, written through a
// temporary name and renamed into place, so a reader never sees a torn file
// under its final name.
//
// Thread safety: a WritableFile is used by one thread; a RandomAccessFile may
// be read from many threads at once (pread only).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"

namespace sluice {

class WritableFile {
 public:
  // Creates (or truncates) `path`.
  static Result<std::unique_ptr<WritableFile>> Create(const std::string& path);
  ~WritableFile();
  WritableFile(const WritableFile&) = delete;
  WritableFile& operator=(const WritableFile&) = delete;

  Status Append(const void* data, size_t len);
  Status Append(const std::string& s) { return Append(s.data(), s.size()); }
  // Flushes to the device (fdatasync).
  Status Sync();
  Status Close();
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  WritableFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_;
  uint64_t size_ = 0;
};

class RandomAccessFile {
 public:
  static Result<std::unique_ptr<RandomAccessFile>> Open(const std::string& path);
  ~RandomAccessFile();
  RandomAccessFile(const RandomAccessFile&) = delete;
  RandomAccessFile& operator=(const RandomAccessFile&) = delete;

  // Reads exactly `len` bytes at `offset` into `out`; a short read is an
  // error that names the file (it was truncated).
  Status Read(uint64_t offset, size_t len, std::string* out) const;
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  RandomAccessFile(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}
  std::string path_;
  int fd_;
  uint64_t size_;
};

// Renames `from` to `to` atomically (rename(2)), then syncs the directory.
Status RenameFile(const std::string& from, const std::string& to);
// The whole of `path` (NotFound if it is not there, IOError if it cannot
// be read).
Result<std::string> ReadWholeFile(const std::string& path);
// Writes `data` as the whole of `path` and syncs it.
Status WriteWholeFile(const std::string& path, const std::string& data);
// Replaces `path` with `data` atomically: written and synced beside it,
// then renamed over it, so that a crash leaves the old or the new file.
Status ReplaceFile(const std::string& path, const std::string& data);
Status RemoveFile(const std::string& path);
Status CreateDirs(const std::string& path);
bool FileExists(const std::string& path);

}  // namespace sluice
