#pragma once

#include "dataflow/circuit.h"
#include "types/sql_type.h"

namespace sluice {

// Tumbling and hopping windows over a timestamp column.
//  - hopping: windows of length `size` that start every `hop`, at
//    offset + n * hop for every integer n;
//  - tumbling: hop == size, so every timestamp is in exactly one window.
// Units are the column's (micros for TIMESTAMP, days for DATE, ...).
struct WindowSpec {
  int ts_column = 0;
  int64_t size = 0;
  int64_t hop = 0;  // 0: tumbling (hop = size)
  int64_t offset = 0;
};

// Window: given a change `a` to a Z-set of rows, emits for each row r with
// weight w one row (r, start, end) with weight w for every window
// [start, end) that contains r[ts_column]; start and end have the column's
// type, NOT NULL. Rows with a NULL timestamp belong to no window and are
// dropped. Linear (a flat map): the GROUP BY over (start, end) that usually
// follows is the aggregate operator.
class WindowOp final : public Operator {
 public:
  WindowOp(Stream* in, Schema schema, WindowSpec spec)
      : in_(in), schema_(std::move(schema)), spec_(spec) {}
  Status Eval() override;
  const char* name() const override { return "window"; }

 private:
  Stream* in_;
  Schema schema_;
  WindowSpec spec_;
};

Stream* Window(Circuit& c, Stream* in, Schema schema, WindowSpec spec);

// The schema of WindowOp's output rows.
Schema WindowOutputSchema(const Schema& schema, const WindowSpec& spec);

}  // namespace sluice
