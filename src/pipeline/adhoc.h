// Ad hoc queries: a SELECT compiled with the same SQL engine, in which every
// materialized table and view is a table holding its integral, run once over
// snapshots that are all taken at one step. Shared by the controller (one
// host) and the coordinator (which reads every host's part).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/api.h"
#include "sql/binder.h"

namespace sluice::pipeline {

struct AdhocQuery {
  sql::BoundQuery query;
  std::vector<std::string> scanned;  // the relations it reads
  // The rows of the catalog relations it reads (information_schema and
  // pg_catalog: pg_catalog.h), which describe `relations` and are not in
  // `scanned`.
  std::map<std::string, std::vector<BatchPtr>> catalog_rows;
};

// Binds `text` over `relations` and the catalog relations that describe them
// (pg_catalog.h), as PostgreSQL's do, with the SQL functions that
// `program_text` declares; an error if it is not one SELECT or reads a
// relation that is not materialized.
Result<AdhocQuery> BindAdhoc(const std::map<std::string, RelationInfo>& relations,
                             std::string_view text, std::string_view program_text = {});
// Runs it once over `snapshots` (every scanned relation's batches).
Result<QueryResult> EvaluateAdhoc(const AdhocQuery& q,
                                  const std::map<std::string, std::vector<BatchPtr>>& snapshots,
                                  int workers);

}  // namespace sluice::pipeline
