// Lowering: a logical plan (plan.h) becomes streams and operators of one
// worker's circuit. Every plan node's stream is a Z-set of rows encoded with
// the node's column types; scalar expressions run inside map and filter
// operators over decoded rows.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "dataflow/circuit.h"
#include "sql/plan.h"

namespace sluice::sql {

class Lowering {
 public:
  // `scan` returns the stream of a table's changes (creating its input).
  Lowering(Circuit& circuit, std::function<Stream*(const std::string&)> scan)
      : c_(circuit), scan_(std::move(scan)) {}

  // The stream of `plan`; a node shared by several plans is lowered once.
  Result<Stream*> Lower(const PlanPtr& plan);

 private:
  Result<Stream*> LowerNode(const PlanNode& n);
  Result<Stream*> LowerJoin(const PlanNode& n);
  Result<Stream*> LowerAggregate(const PlanNode& n);
  Result<Stream*> LowerTopK(const PlanNode& n);
  Result<Stream*> LowerSetOp(const PlanNode& n, JoinType type);

  Circuit& c_;
  std::function<Stream*(const std::string&)> scan_;
  std::map<const PlanNode*, Stream*> memo_;
};

}  // namespace sluice::sql
