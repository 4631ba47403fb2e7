// A Delta Lake table's log: what a version of the table is (its protocol,
// metadata, live data files with their deletion vectors, and transaction
// versions), replayed from `_delta_log/`, and the writing of a new version.
//
// A version is replayed from the JSON commits `_delta_log/<20 digits>.json`
// in order: an `add` makes a file live (a second `add` of the same path
// replaces it, which is how a file gains a deletion vector), a `remove`
// ends it; `metaData`, `protocol` and `txn` actions replace their earlier
// values. The delta sink (delta.h) and the Delta input (delta_input.h) read
// it.
//
// Log checkpoints: a version V may also be stored whole as a checkpoint,
// `_delta_log/<V, 20 digits>.checkpoint.parquet` (classic) or the parts
// `<V>.checkpoint.<part, 10 digits>.<parts, 10 digits>.parquet`
// (multi-part), Parquet files of one row per action with the struct columns
// `add`, `remove`, `metaData`, `protocol` and `txn` (at most one of them
// non-NULL in a row). `_last_checkpoint` (JSON: `version`, optional
// `parts`) names the newest. Open() starts from the newest complete
// checkpoint at or before the wanted version and replays the commits after
// it; a version before every checkpoint is replayed from the commits if they
// are all still there. V2 checkpoints (`<V>.checkpoint.<uuid>.json|parquet`,
// sidecar files) are not read yet: an Unimplemented error says so.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace sluice::connector {

// A deletion vector descriptor: where a file's deleted row positions are.
struct DeletionVectorRef {
  char storage_type = 'u';     // 'u' relative (by UUID), 'i' inline, 'p' absolute path
  std::string path_or_inline;  // 'u': optional prefix + the UUID in Z85 (20 characters)
  int64_t offset = -1;         // in the file; absent (-1) for inline vectors
  uint64_t size_in_bytes = 0;  // the bitmap's size (before Z85, if inline)
  uint64_t cardinality = 0;    // rows deleted

  // The protocol's uniqueId: a file with another vector is another logical file.
  std::string UniqueId() const;
  // The descriptor as the JSON object of an `add` or `remove` action.
  std::string Json() const;
};

// A live data file of a version.
struct DeltaLiveFile {
  std::string path;  // as the log has it: relative to the table (URL-encoded), or a URI
  uint64_t size = 0;
  int64_t modification_time = 0;
  int64_t num_records = -1;  // from the statistics; -1 when they do not say
  std::string stats;         // Delta's JSON statistics, or empty
  std::vector<std::pair<std::string, std::optional<std::string>>> partition_values;
  std::optional<DeletionVectorRef> deletion_vector;
  uint64_t version = 0;  // the version whose `add` made it live as it is
};

// What one replayed commit did to the live files: each file it made live,
// and each it ended (as it was live before the commit). A file that gained
// a new deletion vector shows as both, under one path.
struct DeltaFileChange {
  DeltaLiveFile file;
  bool added = true;
  bool data_change = true;  // false: a rearrangement (compaction) of the same rows
};

class DeltaLog {
 public:
  // Reads the log of the table at `dir` (which need not exist) up to and
  // including `version` (default: the latest).
  static Result<DeltaLog> Open(const std::string& dir,
                               std::optional<uint64_t> version = std::nullopt);
  // The log of a table at `dir` before its first version.
  static DeltaLog Empty(const std::string& dir) {
    DeltaLog log;
    log.dir_ = dir;
    return log;
  }

  bool exists() const { return next_version_ > 0; }
  // The version after the latest read (or committed) one.
  uint64_t next_version() const { return next_version_; }
  const std::string& dir() const { return dir_; }

  const std::string& schema_string() const { return schema_string_; }
  const std::vector<std::string>& partition_columns() const { return partition_columns_; }
  const std::map<std::string, std::string>& configuration() const { return configuration_; }
  int min_reader_version() const { return min_reader_version_; }
  int min_writer_version() const { return min_writer_version_; }
  const std::vector<std::string>& reader_features() const { return reader_features_; }
  const std::vector<std::string>& writer_features() const { return writer_features_; }

  // The files a reader of the version reads, by path.
  const std::map<std::string, DeltaLiveFile>& live() const { return live_; }
  std::vector<std::string> live_files() const;
  // The latest txn version of `app_id`, or -1.
  int64_t TxnVersion(const std::string& app_id) const;

  // Replays one commit's text (JSON lines) as version `version`, which
  // must be next_version(). `where` names it in errors.
  Status ApplyCommit(uint64_t version, const std::string& text, const std::string& where);
  // The changes of the last commit ApplyCommit replayed (empty after a
  // checkpoint), in the commit's order.
  const std::vector<DeltaFileChange>& last_changes() const { return last_changes_; }
  // The commit's time (milliseconds since the epoch) of the last commit
  // replayed: its commitInfo's inCommitTimestamp, else its timestamp; -1
  // when it has neither.
  int64_t last_commit_timestamp() const { return last_commit_timestamp_; }

  // OK if a reader that understands deletion vectors, timestampNtz and
  // column mapping by name can read the table; else an Unimplemented error
  // that names the protocol version or the reader feature.
  Status CheckReadable() const;
  // The column mapping mode (`delta.columnMapping.mode`): "none", "name" or
  // "id".
  std::string column_mapping_mode() const;
  // The table's columns, logical name -> name in the data files (and in
  // the statistics and partition values): the same name unless column
  // mapping by name gives another.
  Result<std::map<std::string, std::string>> PhysicalNames() const;

  // Commits `actions` (JSON lines, without the commitInfo) as the next
  // version. A conflict (another writer took that version) is an error that
  // says so.
  Status Commit(const std::vector<std::string>& actions, const std::string& operation);

  // The local path of a file of the table (`path` as in the log).
  std::string LocalPath(const std::string& path) const;
  // The deleted row positions of a live file (none without a vector),
  // ascending; read from the log (inline) or the vector's file.
  Result<std::vector<uint64_t>> DeletedRows(const DeltaLiveFile& file) const;
  // The local path of a vector's file (empty for an inline vector).
  Result<std::string> DeletionVectorPath(const DeletionVectorRef& dv) const;

  // Delta's VACUUM: deletes the files in the table's directory that the
  // latest version does not read (data files and deletion vector files;
  // never the log, nor files or directories whose names begin with `_` or
  // `.`): a file a commit removed once `retention_ms` have passed since
  // (the remove's deletionTimestamp), a file no commit names (written by a
  // commit that never happened) once it is `untracked_ms` old by its
  // modification time. Readers of versions younger than the retention still
  // find their files.
  struct VacuumResult {
    uint64_t files = 0, bytes = 0;
  };
  Result<VacuumResult> Vacuum(int64_t now_ms, int64_t retention_ms, int64_t untracked_ms) const;

 private:
  void NoteTxn(const std::string& app_id, int64_t version);
  // A remove of `path` (as in the log) with vector `dv`, at `at` ms.
  void NoteRemoved(const std::string& path, const std::optional<DeletionVectorRef>& dv, int64_t at);
  Status ReadCheckpoint(const std::vector<std::string>& parts, uint64_t version);
  // Replays actions (JSON lines) of `version`; a checkpoint's (`checkpoint`)
  // are the whole table: its removes are only tombstones.
  Status ApplyActions(uint64_t version, const std::string& text, const std::string& where,
                      bool checkpoint);

  std::vector<DeltaFileChange> last_changes_;
  int64_t last_commit_timestamp_ = -1;

  std::string dir_;
  uint64_t next_version_ = 0;
  std::string schema_string_;
  std::vector<std::string> partition_columns_;
  std::map<std::string, std::string> configuration_;
  int min_reader_version_ = 0;
  int min_writer_version_ = 0;
  std::vector<std::string> reader_features_;
  std::vector<std::string> writer_features_;
  std::map<std::string, DeltaLiveFile> live_;
  // Files (data and vector files, by local path) that removes ended, with
  // the latest deletionTimestamp.
  std::map<std::string, int64_t> removed_;
  std::vector<std::pair<std::string, int64_t>> txns_;
};

// The log file of a version: `_delta_log/<20 digits>.json`.
std::string DeltaCommitName(uint64_t version);

// The latest version of the table at `dir` committed at or before
// `timestamp_ms` (milliseconds since the epoch), by the commits' own
// timestamps (commitInfo inCommitTimestamp, else timestamp, else the commit
// file's modification time). NotFound if every commit still in the log is
// later.
Result<uint64_t> DeltaVersionAt(const std::string& dir, int64_t timestamp_ms);

// A version 4 UUID in its canonical text; its 16 bytes in `*bytes` if given.
std::string DeltaNewUuid(std::string* bytes = nullptr);
// Milliseconds since the epoch, as the log's timestamps are.
int64_t DeltaNowMillis();
// `bytes` random bytes as hexadecimal text.
std::string DeltaRandomHex(size_t bytes);

// Writes `data` as the file `path`, synced (created exclusively when
// `exclusive`).
Status DeltaWriteFile(const std::string& path, const std::string& data, bool exclusive);

}  // namespace sluice::connector
