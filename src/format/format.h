// Input and output formats: JSON and CSV records decoded into encoded rows
// (and keyed commands), and rows encoded back into records.
//
// A decoder turns a chunk of complete records into a ChangeBuffer; a record
// that cannot be decoded is reported with its number, line, column and
// reason, and adds nothing (callers that need a request to be atomic discard
// the whole buffer when any record failed).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "types/sql_type.h"
#include "types/value.h"

namespace sluice::format {

// A table or view as formats see it.
struct Relation {
  std::string name;
  std::vector<std::string> columns;
  Schema schema;
  std::vector<int> key;      // primary key columns; empty: the table takes row changes
  bool append_only = false;  // a table that takes no deletes
  // Per column (or empty: none): what a record that leaves the column out
  // inserts, the column's DEFAULT (NULL when it has none).
  std::vector<Value> defaults;
};

enum class ChangeKind : uint8_t { kInsert, kDelete, kUpdate };

// Decoded changes to one relation, in arrival order, in one arena:
//  - a relation without a key: `payload` is the encoded row;
//  - with a key: `key` is the encoded key columns, and `payload` is the row
//    (insert), nothing (delete) or an update patch (EncodeUpdatePatch).
class ChangeBuffer {
 public:
  void Add(ChangeKind kind, std::string_view key, std::string_view payload);
  // Adds a change written in place, sparing a copy: the caller appends its
  // key and then its payload to the string StartChange returns, then calls
  // FinishChange, or CancelChange to drop what it appended.
  // REQUIRES: nothing else changes the buffer in between.
  std::string* StartChange() {
    start_ = arena_.size();
    return &arena_;
  }
  void FinishChange(ChangeKind kind, size_t key_len) {
    entries_.push_back({kind, static_cast<uint32_t>(key_len),
                        static_cast<uint32_t>(arena_.size() - start_ - key_len), start_});
  }
  void CancelChange() { arena_.resize(start_); }
  void Append(const ChangeBuffer& other);
  // Keeps the first `n` changes.
  void Truncate(size_t n);
  void Reserve(size_t changes, size_t bytes) {
    entries_.reserve(changes);
    arena_.reserve(bytes);
  }
  // Room for `changes` more changes of `bytes` in all, growing at least
  // twofold (a buffer filled piece by piece is copied a bounded number of
  // times).
  void ReserveMore(size_t changes, size_t bytes) {
    if (entries_.capacity() < entries_.size() + changes) {
      entries_.reserve(std::max(2 * entries_.capacity(), entries_.size() + changes));
    }
    if (arena_.capacity() < arena_.size() + bytes) {
      arena_.reserve(std::max(2 * arena_.capacity(), arena_.size() + bytes));
    }
  }
  void Clear();

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  size_t bytes() const { return arena_.size(); }
  ChangeKind kind(size_t i) const { return entries_[i].kind; }
  std::string_view key(size_t i) const {
    return std::string_view(arena_).substr(entries_[i].offset, entries_[i].key_len);
  }
  std::string_view payload(size_t i) const {
    return std::string_view(arena_).substr(entries_[i].offset + entries_[i].key_len,
                                           entries_[i].payload_len);
  }

 private:
  struct Entry {
    ChangeKind kind;
    uint32_t key_len;
    uint32_t payload_len;
    uint64_t offset;
  };
  std::string arena_;
  std::vector<Entry> entries_;
  uint64_t start_ = 0;  // of the change being written in place
};

// Where a chunk starts in its stream, for error positions.
struct Position {
  uint64_t record = 1;  // number of the chunk's first record
  uint64_t line = 1;    // line of the chunk's first byte
};

struct RecordError {
  uint64_t record = 0;
  uint64_t line = 0;
  uint64_t column = 0;  // 1-based byte column in the line
  std::string reason;

  std::string ToString() const;
};

class Decoder {
 public:
  virtual ~Decoder() = default;
  // Decodes `data`, which holds whole records. Returns the position after
  // them. Bad records go to `errors` (at most `max_errors` are kept; the
  // count is complete).
  virtual Position Decode(std::string_view data, Position at, ChangeBuffer* out,
                          std::vector<RecordError>* errors, uint64_t* error_count) = 0;
  // The same, for `data` followed by at least kPadding readable bytes,
  // which spares a decoder that reads ahead (JSON) a copy of it.
  static constexpr size_t kPadding = 64;
  virtual Position DecodePadded(std::string_view data, Position at, ChangeBuffer* out,
                                std::vector<RecordError>* errors, uint64_t* error_count) {
    return Decode(data, at, out, errors, error_count);
  }
  // The length of the longest prefix of `data` that holds whole records
  // (for streams that arrive in pieces).
  virtual size_t CompleteRecords(std::string_view data) const;

  static constexpr size_t kMaxErrors = 100;
};

class Encoder {
 public:
  virtual ~Encoder() = default;
  // Appends the records of one encoded row with its weight: |weight|
  // inserts (weight > 0) or deletes, each followed by the encoder's
  // terminator.
  virtual Status Encode(std::string_view row, int64_t weight, std::string* out) = 0;
};

// Options of the formats, from a connector's `format.config` or from the
// query string of an HTTP request.
struct FormatOptions {
  std::string name = "json";                    // json | csv
  std::string update_format = "insert_delete";  // json: insert_delete | raw
  bool array = false;                           // json: one array of records
  char delimiter = ',';                         // csv
  bool headers = false;                         // csv: the first line names columns (skipped)
  bool weights = true;  // csv: a record may end with its weight (PostgreSQL's COPY: no)
};

// Reads FormatOptions from a JSON object (`format.config`); unknown keys
// are an error that names them.
Result<FormatOptions> ParseFormatOptions(const std::string& name, std::string_view config_json);

Result<std::unique_ptr<Decoder>> MakeDecoder(const FormatOptions& options, const Relation& rel);
// `terminator` follows every record: "\n" for files, "," inside a JSON
// array.
Result<std::unique_ptr<Encoder>> MakeEncoder(const FormatOptions& options, const Relation& rel,
                                             std::string terminator = "\n");

}  // namespace sluice::format
