// Delta Lake output (transport `delta_table_output`): the changes of a view
// as a Delta table in a local directory, one commit per step.
//
//   {"transport": {"name": "delta_table_output", "config": {
//      "uri": "lake/orders",            a directory (relative: to the program's)
//      "mode": "append",                | "truncate" | "error_if_exists"
//      "update_mode": "cdc",            | "merge" (the table is the view)
//      "index": "v_key",                merge: the view's key (CREATE INDEX)
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
// With update_mode merge the table holds the view's current rows, one per
// key of the view's index (delta_merge.h): a step's commit adds files for
// the rows it inserts and gives the files holding the rows it deletes new
// deletion vectors (protocol reader 3, writer 7, feature deletionVectors).
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
#include "connector/delta_log.h"
#include "connector/delta_merge.h"
#include "format/parquet.h"

namespace sluice::connector {

// The Delta schema string of a relation's columns (cdc: plus __sluice_op and
// __sluice_step).
std::string DeltaSchemaString(const format::Relation& rel, bool cdc);

// Refuses, when the pipeline starts, a column that Delta's Parquet files
// cannot hold (format::CheckParquetType).
Result<std::unique_ptr<OutputConnector>> MakeDeltaOutput(const ConnectorSpec& spec,
                                                         const format::Relation& rel);
// OK if a Delta table can hold every column of `rel`; else the error,
// naming the connector.
Status CheckDeltaColumns(const ConnectorSpec& spec, const format::Relation& rel);

}  // namespace sluice::connector
