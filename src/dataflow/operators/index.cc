#include "dataflow/operators/index.h"

#include "dataflow/operators/project.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {

Status IndexOp::Eval() {
  const BatchPtr& in = in_->value();
  BatchBuilder out;
  out.Reserve(in->len(), in->byte_size());
  std::vector<std::string_view> fields;
  std::string key, val;
  auto c = in->NewCursor();
  for (; c->KeyValid(); c->StepKey()) {
    for (; c->ValValid(); c->StepVal()) {
      key.clear();
      val.clear();
      SLUICE_RETURN_IF_ERROR(AppendColumns(schema_, c->key(), key_cols_, &fields, &key));
      for (int col : val_cols_) val.append(fields[static_cast<size_t>(col)]);
      out.Push(key, val, c->weight());
    }
  }
  SLUICE_RETURN_IF_ERROR(c->status());
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr b, out.Finish());
  output_.set(std::move(b));
  return Status::OK();
}

Stream* Index(Circuit& c, Stream* in, Schema schema, std::vector<int> key_cols,
              std::vector<int> val_cols) {
  return c.Add<IndexOp>(in, std::move(schema), std::move(key_cols), std::move(val_cols))->output();
}

}  // namespace sluice
