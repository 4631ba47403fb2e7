// Delta Lake input (transport `delta_table_input`): a Delta table in a
// local directory read into a table.
//
//   {"transport": {"name": "delta_table_input", "config": {
//      "uri": "lake/orders",          a directory (relative: to the program's)
//      "mode": "snapshot",            | "follow" | "snapshot_and_follow"
//      "version": 12,                 the start version (default: the latest);
//      "timestamp": "2026-01-02 10:00:00",  or the latest committed by then
//                                     (UTC; or milliseconds since the epoch)
//      "filter": "region = 'eu'",     a SQL condition on the table's columns
//      "poll_interval_ms": 1000}}}    follow: how often to look for commits
//
// snapshot: the live files of the start version, less the rows their
// deletion vectors delete, as inserts; partition columns are filled from
// the log's partition values. follow: every commit after the start version,
// as changes: an added file's rows are inserts, a removed file's live rows
// deletes, a file whose deletion vector grew deletes the newly deleted rows;
// a commit whose actions say dataChange false (a compaction) changes
// nothing. snapshot_and_follow: the snapshot, then the commits after it.
//
// Data files are read with format/parquet_reader.h and matched to the
// table's columns by name (through column mapping by name, if the table
// has it); a table column the files lack is NULL. The filter skips files
// and row groups by their statistics (delta_filter.h) and drops rows.
//
// Position (kept in checkpoints): {"version": V, "snapshot": S, "unit": U,
// "row": R}: the next thing to read is the snapshot of version V (S true)
// or commit V (S false), from its U-th file (in an order fixed by the log)
// and that file's R-th row. Changes go to the pipeline in pieces of at
// most max_batch_size, each with the position after it, so a restart goes
// on exactly where the checkpoint's queued changes end.
//
// Errors (a missing table, a damaged commit, an unreadable data file, a
// type that does not fit a column) are shown in the connector's /stats and
// retried every poll interval (at least a second) from the last position;
// nothing of a piece that failed is queued.
#pragma once

#include <memory>

#include "connector/connector.h"

namespace sluice::connector {

// A bad config (filter, start point) is an InvalidArgument error.
Result<std::unique_ptr<InputConnector>> MakeDeltaInput(const ConnectorSpec& spec,
                                                       const format::Relation& rel);

}  // namespace sluice::connector
