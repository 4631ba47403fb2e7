// Delta Lake output (transport `delta_table_output`): the changes of a view
// as a Delta table in a local directory, one commit per step.
//
//   {"transport": {"name": "delta_table_output", "config": {
//      "uri": "lake/orders",            a directory (relative: to the program's)
//      "mode": "append",                | "truncate" | "error_if_exists"
//      "update_mode": "cdc",            the only mode so far
//      "target_file_size_bytes": 134217728,
//      "threads": 1,                    data files encoded in parallel
//      "compression": "zstd"}}}         | "snappy" | "none"
//
// With update_mode cdc the table is the view's change log: every row has the
// view's columns plus `__sluice_op` ('i' insert, 'd' delete) and
// `__sluice_step` (the step that made the change). A step's change is
// written as Parquet files (format/parquet.h) of about the target size, then
// committed as one Delta commit: `_delta_log/<version, 20 digits>.json` with
// `commitInfo`, a `txn` action {appId: the pipeline's id, version: the step},
// and an `add` action per file with its statistics. The commit file is
// created exclusively (written aside, then linked into place), so of two
// writers of one version one wins and the other gets a conflict error.
// Steps without output commit nothing; a transaction commits once.
//
// Exactly once: on restart from a checkpoint, the sink reads the latest
// `txn` version of its appId in the table and skips every step up to it.
// Data files of a step that never committed are left unreferenced (Delta
// readers ignore them); they are named after the step with a random part,
// so a retry never overwrites them.
//
// Encoding and committing are separate steps (EncodeFiles, then
// DeltaLog::Commit), so that a distributed sink can encode on every host
// and commit on one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "connector/connector.h"
#include "format/parquet.h"

namespace sluice::connector {

// The Delta schema string of a relation's columns (cdc: plus __sluice_op and
// __sluice_step).
std::string DeltaSchemaString(const format::Relation& rel, bool cdc);

// One data file of a commit.
struct DeltaFile {
  std::string path;  // relative to the table's directory
  uint64_t size = 0;
  uint64_t rows = 0;
  std::string stats;  // Delta's JSON statistics
};

// The log of one table: what a commit needs to know, read from
// `_delta_log/`. Only JSON commits are read (tables this sink wrote, or
// others without log checkpoints).
class DeltaLog {
 public:
  // Reads the log of the table at `dir` (which need not exist).
  static Result<DeltaLog> Open(const std::string& dir);

  bool exists() const { return next_version_ > 0; }
  uint64_t next_version() const { return next_version_; }
  const std::string& schema_string() const { return schema_string_; }
  // The files a reader of the latest version reads.
  const std::vector<std::string>& live_files() const { return live_; }
  // The latest txn version of `app_id`, or -1.
  int64_t TxnVersion(const std::string& app_id) const;

  // Commits `actions` (JSON lines, without the commitInfo) as the next
  // version. A conflict (another writer took that version) is an error that
  // says so.
  Status Commit(const std::vector<std::string>& actions, const std::string& operation);

  const std::string& dir() const { return dir_; }

 private:
  void NoteTxn(const std::string& app_id, int64_t version);

  std::string dir_;
  uint64_t next_version_ = 0;
  std::string schema_string_;
  std::vector<std::string> live_;
  std::vector<std::pair<std::string, int64_t>> txns_;
};

std::unique_ptr<OutputConnector> MakeDeltaOutput(const ConnectorSpec& spec,
                                                 const format::Relation& rel);

}  // namespace sluice::connector
