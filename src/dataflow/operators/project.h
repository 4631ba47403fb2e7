#pragma once

#include <string>
#include <vector>

#include "dataflow/circuit.h"
#include "types/sql_type.h"

namespace sluice {

// Appends the encoded fields `cols` of `row` (of `schema`) to `out`. Fields
// are self-delimiting, so this copies byte slices and decodes nothing.
// `scratch` holds the split row between calls.
Status AppendColumns(const Schema& schema, std::string_view row, const std::vector<int>& cols,
                     std::vector<std::string_view>* scratch, std::string* out);

// Project: given a change `a` to a Z-set of rows, emits
// sum over (r, w) in a of (r[cols], w). Linear. Rows that become equal
// after projection are consolidated (their weights add).
class ProjectOp final : public Operator {
 public:
  ProjectOp(Stream* in, Schema schema, std::vector<int> cols)
      : in_(in), schema_(std::move(schema)), cols_(std::move(cols)) {}
  Status Eval() override;
  const char* name() const override { return "project"; }

 private:
  Stream* in_;
  Schema schema_;
  std::vector<int> cols_;
};

Stream* Project(Circuit& c, Stream* in, Schema schema, std::vector<int> cols);

}  // namespace sluice
