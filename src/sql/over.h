// Window functions over one partition: each call's value for each row, given
// the partition's rows in their window order (PostgreSQL's semantics of
// peers, frames and exclusions).
#pragma once

#include <optional>
#include <vector>

#include "dataflow/operators/over.h"
#include "sql/plan.h"

namespace sluice::sql {

struct PartitionRows {
  std::vector<Row> rows;     // in window order, one per copy of a row
  std::vector<size_t> peer;  // each row's peer group (rows with equal order keys), from 0
  // The RANGE key of each row (the one ORDER BY value as a number), or
  // nullopt for NULL; empty when no call has a RANGE frame with an offset.
  std::vector<std::optional<long double>> range_key;
  bool desc = false;  // the ORDER BY key descends
  // The RANGE key is a date, in days (a timestamp's is in microseconds):
  // how an offset's months move it.
  bool range_key_days = false;
};

// Appends to out[i] the value of each call for row i.
Status EvalWindowCalls(const std::vector<WindowCall>& calls, const PartitionRows& p,
                       std::vector<Row>* out);

// How far a change reaches when `calls` are computed together: each row's
// values depend only on the rows within the reach (LAG and LEAD by a
// constant offset; aggregates and FIRST_VALUE, LAST_VALUE and NTH_VALUE
// over ROWS frames bounded by constant offsets, any EXCLUDE). nullopt when
// some call may read the whole partition: the ranks, NTILE, PERCENT_RANK,
// CUME_DIST, UNBOUNDED bounds, RANGE and GROUPS frames, a LAG offset that
// varies by row.
std::optional<OverReach> WindowReach(const std::vector<WindowCall>& calls);

// A RANGE key or offset as a number in the key's unit: integers and
// decimals as they are, dates in days, times and timestamps in microseconds,
// intervals of days and time in microseconds (or days, for a date key),
// without their months (WindowFrame keeps those apart); over an interval key,
// intervals as their span in microseconds, a month as 30 days.
std::optional<long double> RangeNumber(const Value& v, const SqlType& type);

}  // namespace sluice::sql
