// A Delta table kept as a view's current rows (the Delta sink's
// `update_mode: merge`): one row per key of the view's index.
//
// The table knows where each key's row is (a data file and the row's
// position in it) and which rows of each file are deleted. A step's change
// becomes: new data files holding the rows it inserts (an update is a
// delete and an insert of the same key), and for each file holding rows it
// deletes, a new deletion vector (all of a step's vectors in one vector
// file, `deletion_vector_<uuid>.bin`, stored by UUID). A file whose rows
// are mostly deleted is rewritten: its live rows go into the step's new
// files and the file is removed. Nothing changes in memory until the step
// is committed (Commit), so that a failed commit can be tried again.
//
// The key index lives in memory: 127 bytes per row for a BIGINT key
// (bench/run merge). At start it is rebuilt from the table's live files (their key
// columns only) and deletion vectors.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "connector/delta_log.h"
#include "format/format.h"
#include "format/parquet.h"
#include "zset/batch.h"

namespace sluice::connector {

// One action of a commit (see delta.h): a new data file, a file's new
// deletion vector, or a file removed.
struct DeltaFile {
  enum class Action : uint8_t { kAdd, kDeletionVector, kRemove };
  Action action = Action::kAdd;
  std::string path;  // relative to the table's directory
  uint64_t size = 0;
  uint64_t rows = 0;
  std::string stats;  // Delta's JSON statistics
  // kDeletionVector: the new vector; it and kRemove: the one it replaces
  // (descriptor JSON, empty for none).
  std::string deletion_vector;
  std::string old_deletion_vector;
  bool data_change = true;  // false: a compaction, which changes no row
};

class DeltaMergeTable {
 public:
  // Writes rows (in the file columns' types) as data files of about the
  // target size, in order: the files' `rows` add up to rows.size().
  using WriteRows =
      std::function<Result<std::vector<DeltaFile>>(std::vector<std::vector<Value>> rows)>;

  // `key`: the key columns (indexes into rel's). `files` are the data
  // files' columns; `mine` tells the files of this part of the table (all
  // of them, unless the sink is distributed).
  DeltaMergeTable(std::string dir, format::Relation rel, std::vector<int> key,
                  std::vector<format::ParquetColumn> files,
                  std::function<bool(const std::string&)> mine);
  ~DeltaMergeTable();

  // Rebuilds the index from the live files of `log`.
  Status Load(const DeltaLog& log);
  // The table emptied (a reset).
  void Clear();

  // A snapshot: the change replaces every row (the files of the table are
  // removed in its commit).
  void ReplaceAll();
  // Takes a step's change (or a part of a snapshot), writing the rows it
  // inserts. A row the table lacks deleted, or a key inserted twice, is an
  // InvalidArgument error: the view's index is not a unique key.
  Status Stage(const std::vector<BatchPtr>& batches, const WriteRows& write);
  // The commit's actions for what was staged: new deletion vectors (one
  // vector file), removed and rewritten files, new files. A file with more
  // than `rewrite_fraction` of its rows deleted is rewritten. Once it
  // succeeded, it gives the same actions until Commit or Abort.
  Result<std::vector<DeltaFile>> Finish(const WriteRows& write, double rewrite_fraction);
  // A compaction, when at least `min_files` files are smaller than
  // `small_bytes`: the smallest of them (at most 2 * min_files, at most
  // `max_bytes`) rewritten as new files, as actions that change no row
  // (nothing when there are fewer). Nothing may be staged; Commit or Abort
  // follows, as for a step.
  Result<std::vector<DeltaFile>> StageCompaction(const WriteRows& write, uint64_t small_bytes,
                                                 size_t min_files, uint64_t max_bytes);
  // The staged change is in the table / is dropped (its files removed).
  void Commit();
  void Abort();
  bool staged() const { return staged_ != nullptr; }
  bool finished() const;

  uint64_t rows() const { return index_.size(); }
  uint64_t files() const { return files_.size(); }

 private:
  struct FileState;
  struct Staged;
  // Where a key's row is: file id in the high 24 bits, position below.
  using Location = uint64_t;

  // Takes written `files` (holding the rows of `keys`, in order) into the
  // staged change.
  Status Adopt(std::vector<DeltaFile> files, const std::vector<std::string>& keys,
               std::vector<DeltaFile>* actions);
  Result<std::string> KeyOf(const std::vector<Value>& row) const;
  std::string DescribeKey(const std::vector<Value>& row) const;
  // The live rows of a file being rewritten (in the file columns' types)
  // and their positions.
  Status ReadLiveRows(const FileState& f, const std::vector<uint64_t>& deleted,
                      std::vector<std::vector<Value>>* rows) const;

  const std::string dir_;
  const format::Relation rel_;
  const std::vector<int> key_;
  Schema key_schema_;
  const std::vector<format::ParquetColumn> file_columns_;
  const std::function<bool(const std::string&)> mine_;
  std::unordered_map<std::string, Location> index_;
  std::map<uint32_t, FileState> files_;  // by id
  std::unordered_map<std::string, uint32_t> ids_;  // by path
  uint32_t next_id_ = 0;
  std::unique_ptr<Staged> staged_;
};

}  // namespace sluice::connector
