// Window functions over one partition: each call's value for each row, given
// the partition's rows in their window order (PostgreSQL's semantics of
// peers, frames and exclusions).
#pragma once

#include <optional>
#include <vector>

#include "sql/plan.h"

namespace sluice::sql {

struct PartitionRows {
  std::vector<Row> rows;     // in window order, one per copy of a row
  std::vector<size_t> peer;  // each row's peer group (rows with equal order keys), from 0
  // The RANGE key of each row (the one ORDER BY value as a number), or
  // nullopt for NULL; empty when no call has a RANGE frame with an offset.
  std::vector<std::optional<long double>> range_key;
  bool desc = false;  // the ORDER BY key descends
};

// Appends to out[i] the value of each call for row i.
Status EvalWindowCalls(const std::vector<WindowCall>& calls, const PartitionRows& p,
                       std::vector<Row>* out);

// A RANGE key or offset as a number in the key's unit: integers and
// decimals as they are, dates in days, times and timestamps in microseconds,
// intervals of days and time in microseconds (or days, for a date key).
std::optional<long double> RangeNumber(const Value& v, const SqlType& type);

}  // namespace sluice::sql
