#include "dataflow/operators/project.h"

#include "types/row_codec.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {

Status AppendColumns(const Schema& schema, std::string_view row, const std::vector<int>& cols,
                     std::vector<std::string_view>* scratch, std::string* out) {
  SLUICE_RETURN_IF_ERROR(SplitRowOrMisfit(schema, row, scratch, "projection"));
  for (int col : cols) out->append((*scratch)[static_cast<size_t>(col)]);
  return Status::OK();
}

Status ProjectOp::Eval() {
  const BatchPtr& in = in_->value();
  BatchBuilder out;
  std::vector<std::string_view> fields;
  std::string row;
  auto c = in->NewCursor();
  for (; c->KeyValid(); c->StepKey()) {
    for (; c->ValValid(); c->StepVal()) {
      row.clear();
      SLUICE_RETURN_IF_ERROR(AppendColumns(schema_, c->key(), cols_, &fields, &row));
      out.Push(row, c->weight());
    }
  }
  SLUICE_RETURN_IF_ERROR(c->status());
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr b, out.Finish());
  output_.set(std::move(b));
  return Status::OK();
}

Stream* Project(Circuit& c, Stream* in, Schema schema, std::vector<int> cols) {
  return c.Add<ProjectOp>(in, std::move(schema), std::move(cols))->output();
}

}  // namespace sluice
