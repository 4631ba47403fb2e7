// Ad hoc queries: a SELECT compiled with the same SQL engine, in which every
// materialized table and view is a table holding its integral, run once over
// snapshots that are all taken at one step. Shared by the controller (one
// host) and the coordinator (which reads every host's part).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/api.h"
#include "sql/binder.h"
#include "sql/sequences.h"

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
// (pg_catalog.h), as PostgreSQL's do, with the SQL functions and sequences
// that `program_text` declares; an error if it is not one SELECT or reads a
// relation that is not materialized. Its calls of nextval() and its kin
// reach `sequences`; without it (a query only described) they bind, and
// fail if evaluated.
Result<AdhocQuery> BindAdhoc(const std::map<std::string, RelationInfo>& relations,
                             std::string_view text, std::string_view program_text = {},
                             std::shared_ptr<const sql::SequenceAccess> sequences = nullptr);
// Runs it once over `snapshots` (every scanned relation's batches).
Result<QueryResult> EvaluateAdhoc(const AdhocQuery& q,
                                  const std::map<std::string, std::vector<BatchPtr>>& snapshots,
                                  int workers);

// The sequences of a pipeline, kept by what runs its ad hoc queries and
// statements (the controller on one host, the coordinator on many): those
// `catalog` declares, continued from the newer (by version) of
// `checkpoint_state` (a checkpoint's; may be empty) and
// `<storage>/sequences.json`, which every value handed out is logged to
// first (sql::Sequences). Without storage they live in memory only.
Result<std::shared_ptr<sql::Sequences>> OpenSequences(const sql::Catalog& catalog,
                                                      const std::string& storage,
                                                      const std::string& checkpoint_state);

}  // namespace sluice::pipeline
