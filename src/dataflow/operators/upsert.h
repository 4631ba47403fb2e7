#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dataflow/circuit.h"
#include "types/sql_type.h"
#include "zset/spine.h"

namespace sluice {

// The commands of a table with a primary key, as its input carries them:
// indexed by the key's encoded fields, each value is
//   8 bytes  sequence number, big-endian (the order the commands arrived in)
//   1 byte   'i' (insert, replacing any row with that key), 'd' (delete) or
//            'u' (update some columns of the key's row)
//   payload  'i': the row; 'd': nothing; 'u': a patch (EncodeUpdatePatch)
// with weight 1.
enum class UpsertOpKind : char { kInsert = 'i', kDelete = 'd', kUpdate = 'u' };
std::string EncodeUpsertCommand(uint64_t seq, UpsertOpKind op, std::string_view payload);

// A patch: a bitmap of the columns it sets (column i is bit i % 8 of byte
// i / 8), then those columns' encoded fields, in column order.
std::string EncodeUpdatePatch(const std::vector<bool>& present, std::string_view fields);

// Upsert: turns keyed commands into the change of the table, which holds at
// most one row per key. It keeps the table's integral indexed by key (key ->
// its row). For each key in the support of the change, it starts from the
// integral's row, applies the key's commands in sequence order (an insert
// replaces the row, a delete removes it), and emits -old +new when they
// differ. An update of a key without a row does nothing, as SQL's UPDATE of
// no row. With `check`, an insert or update whose row it refuses does
// nothing either: the key keeps the row it had. Work per step follows the
// commands, not the table.
//
// REQUIRES: the input is sharded by key (Upsert() adds the exchange).
class UpsertOp final : public Operator {
 public:
  UpsertOp(Stream* in, Schema schema, const SpineOptions& opts, RowCheckFn check)
      : in_(in), schema_(std::move(schema)), integral_(opts), check_(std::move(check)) {}
  Status Eval() override;
  const char* name() const override { return "upsert"; }
  bool has_state() const override { return true; }
  Status SaveState(StateWriter& w) const override;
  Status LoadState(StateReader& r) override;
  bool Replay() override {
    replay_ = true;
    return true;
  }

 private:
  // Applies this step's commands; the output is the table's change.
  Status Apply();
  // `row` with the columns `patch` sets replaced, into `out`.
  Status ApplyPatch(std::string_view patch, std::string_view row, std::string* out) const;

  Stream* in_;
  Schema schema_;  // of the table's rows
  Spine integral_;
  RowCheckFn check_;
  bool replay_ = false;
};

Stream* Upsert(Circuit& c, Stream* commands, Schema schema, RowCheckFn check = nullptr);

}  // namespace sluice
