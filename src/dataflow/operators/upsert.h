#pragma once

#include <string>
#include <string_view>

#include "dataflow/circuit.h"
#include "zset/spine.h"

namespace sluice {

// The commands of a table with a primary key, as its input carries them:
// indexed by the key's encoded fields, each value is
//   8 bytes  sequence number, big-endian (the order the commands arrived in)
//   1 byte   'i' (insert, replacing any row with that key) or 'd' (delete)
//   the row  (for 'i'; empty for 'd')
// with weight 1.
enum class UpsertOpKind : char { kInsert = 'i', kDelete = 'd' };
std::string EncodeUpsertCommand(uint64_t seq, UpsertOpKind op, std::string_view row);

// Upsert: turns keyed commands into the change of the table, which holds at
// most one row per key. It keeps the table's integral indexed by key (key ->
// its row). For each key in the support of the change, it starts from the
// integral's row, applies the key's commands in sequence order (an insert
// replaces the row, a delete removes it), and emits -old +new when they
// differ. Work per step follows the commands, not the table.
//
// REQUIRES: the input is sharded by key (Upsert() adds the exchange).
class UpsertOp final : public Operator {
 public:
  UpsertOp(Stream* in, const SpineOptions& opts) : in_(in), integral_(opts) {}
  Status Eval() override;
  const char* name() const override { return "upsert"; }

 private:
  Stream* in_;
  Spine integral_;
};

Stream* Upsert(Circuit& c, Stream* commands);

}  // namespace sluice
