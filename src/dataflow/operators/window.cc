#include "dataflow/operators/window.h"

#include "types/row_codec.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {
namespace {

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

}  // namespace

Schema WindowOutputSchema(const Schema& schema, const WindowSpec& spec) {
  Schema out = schema;
  SqlType t = schema[static_cast<size_t>(spec.ts_column)].WithNullable(false);
  out.push_back(t);
  out.push_back(t);
  return out;
}

Status WindowOp::Eval() {
  const int64_t size = spec_.size, hop = spec_.hop == 0 ? spec_.size : spec_.hop;
  if (size <= 0 || hop <= 0) {
    return Status::InvalidArgument("window size and hop must be positive");
  }
  if (spec_.ts_column < 0 || static_cast<size_t>(spec_.ts_column) >= schema_.size()) {
    return Status::InvalidArgument("window timestamp column is not in " + SchemaToString(schema_));
  }
  const SqlType& ts_type = schema_[static_cast<size_t>(spec_.ts_column)];
  const SqlType bound_type = ts_type.WithNullable(false);
  // The output is in order as it is made: keys in the input's order, each
  // followed by its window bounds in ascending order (row encodings are
  // prefix-free, so a key's suffix never reorders it against the next
  // key), and each key's values in order. So it needs no sort, and its size
  // is known up front: at most size/hop windows per row.
  const BatchPtr& input = in_->value();
  const uint64_t windows = static_cast<uint64_t>((size + hop - 1) / hop);
  const uint64_t bounds = 16;  // two bounds of at most 8 bytes
  OrderedBuilder out;
  out.Reserve(input->key_count() * windows, input->len() * windows,
              (input->byte_size() + input->key_count() * bounds) * windows, 0);
  std::vector<std::string_view> fields;
  std::string row;
  auto c = input->NewCursor();
  for (; c->KeyValid(); c->StepKey()) {
    SLUICE_RETURN_IF_ERROR(SplitRowOrMisfit(schema_, c->key(), &fields, "window"));
    std::string_view f = fields[static_cast<size_t>(spec_.ts_column)];
    if (FieldIsNull(ts_type, f)) continue;
    int64_t ts;
    ReadInt(ts_type.id(), ts_type.nullable(), &f, &ts);
    // The last window start at or before ts, then earlier ones while the
    // window still covers ts.
    int64_t shifted;
    if (__builtin_sub_overflow(ts, spec_.offset, &shifted)) {
      return Status::Overflow("window start out of range for timestamp " + std::to_string(ts));
    }
    int64_t last = FloorDiv(shifted, hop) * hop + spec_.offset;
    int64_t first = last;
    while (first - hop > ts - size) first -= hop;
    for (int64_t start = first; start <= last; start += hop) {
      int64_t end;
      if (__builtin_add_overflow(start, size, &end)) {
        return Status::Overflow("window end out of range for timestamp " + std::to_string(ts));
      }
      if (end <= ts) continue;  // a hop longer than the window leaves gaps
      row.assign(c->key());
      Status e1 = EncodeValue(bound_type, Value::Int(start), &row);
      Status e2 = EncodeValue(bound_type, Value::Int(end), &row);
      if (!e1.ok() || !e2.ok()) return (e1.ok() ? e2 : e1).WithContext("window bounds");
      for (; c->ValValid(); c->StepVal()) {
        SLUICE_RETURN_IF_ERROR(out.Push(row, c->val(), c->weight()));
      }
      c->RewindVals();
    }
  }
  SLUICE_RETURN_IF_ERROR(c->status());
  output_.set(out.Finish());
  return Status::OK();
}

Stream* Window(Circuit& c, Stream* in, Schema schema, WindowSpec spec) {
  return c.Add<WindowOp>(in, std::move(schema), spec)->output();
}

}  // namespace sluice
