#pragma once

#include <vector>

#include "dataflow/circuit.h"
#include "types/sql_type.h"

namespace sluice {

// Index (re-key): given a change `a` to a Z-set of rows, emits the indexed
// Z-set sum over (r, w) in a of (key = r[key_cols], value = r[val_cols], w).
// Linear. Joins, aggregates and top-k take their input in this form.
class IndexOp final : public Operator {
 public:
  IndexOp(Stream* in, Schema schema, std::vector<int> key_cols, std::vector<int> val_cols)
      : in_(in),
        schema_(std::move(schema)),
        key_cols_(std::move(key_cols)),
        val_cols_(std::move(val_cols)) {}
  Status Eval() override;
  const char* name() const override { return "index"; }

 private:
  Stream* in_;
  Schema schema_;
  std::vector<int> key_cols_, val_cols_;
};

Stream* Index(Circuit& c, Stream* in, Schema schema, std::vector<int> key_cols,
              std::vector<int> val_cols);

}  // namespace sluice
