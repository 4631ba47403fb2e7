#pragma once

#include "dataflow/circuit.h"
#include "dataflow/operators/aggregator.h"
#include "types/sql_type.h"
#include "zset/batch_builder.h"
#include "zset/spine.h"

namespace sluice {

// The window of a rolling aggregate: for a row whose order key is t, the rows
// of its partition with order key in [t - range, t] (RANGE BETWEEN range
// PRECEDING AND CURRENT ROW; rows with order key t itself are peers and are
// all inside).
struct RollingSpec {
  int64_t range = 0;  // in the order key's unit (days for DATE, micros for TIMESTAMP)
  AggSpec agg;        // over a column of the value schema
};

// Rolling aggregate: the input is indexed by partition; its values are rows
// of `val_schema` whose first column is the order key (an integer, DATE, TIME
// or TIMESTAMP, NOT NULL). The output is indexed by partition, with each
// input row extended by the aggregate over its window.
//
// Given a change `a` to A, it emits roll(A + a) - roll(A). A change at order
// key t alters only the outputs of rows with order key in [t, t + range], so
// for each touched partition it merges those intervals, reads the rows in
// [lo - range, hi] of the integral before and after the change (a seek, since
// values sort by order key), slides the window over them (adding and removing
// rows for COUNT/SUM/AVG, a monotonic deque for MIN/MAX) and emits the new
// outputs minus the old. Work follows the rows within range of the change,
// never the partition's size.
//
// REQUIRES: the input is sharded by partition (RollingAggregate() adds the
// exchange).
class RollingAggregateOp final : public Operator {
 public:
  RollingAggregateOp(Stream* in, Schema val_schema, RollingSpec spec, const SpineOptions& opts)
      : in_(in), val_schema_(std::move(val_schema)), spec_(spec), integral_(opts) {}
  Status Eval() override;
  const char* name() const override { return "rolling_aggregate"; }
  bool has_state() const override { return true; }
  Status SaveState(StateWriter& w) const override;
  Status LoadState(StateReader& r) override;

 private:
  struct Row;
  Status ReadRange(Cursor& c, std::string_view part, int64_t from, int64_t to,
                   std::vector<Row>* rows, std::string* arena);
  Status EmitRange(std::string_view part, const std::vector<Row>& rows, const std::string& arena,
                   int64_t lo, int64_t hi, Weight sign, BatchBuilder& out);

  Stream* in_;
  Schema val_schema_;
  RollingSpec spec_;
  Spine integral_;
};

Stream* RollingAggregate(Circuit& c, Stream* in, Schema val_schema, RollingSpec spec);

}  // namespace sluice
