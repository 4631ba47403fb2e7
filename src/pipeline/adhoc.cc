#include "pipeline/adhoc.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "pipeline/controller.h"
#include "pipeline/pg_catalog.h"
#include "sql/program.h"
#include "sql/query.h"
#include "storage/file.h"

namespace sluice::pipeline {

Result<AdhocQuery> BindAdhoc(const std::map<std::string, RelationInfo>& relations,
                             std::string_view text, std::string_view program_text,
                             std::shared_ptr<const sql::SequenceAccess> sequences) {
  SLUICE_ASSIGN_OR_RETURN(sql::Json tree, sql::ParseSql(text));
  const sql::Json& stmts = tree.value("stmts", sql::Json::array());
  if (stmts.size() != 1 || !stmts[0]["stmt"].contains("SelectStmt")) {
    return Status::InvalidArgument("an ad hoc query is one SELECT statement");
  }
  // Views are read as they are, not recomputed: each relation is a table.
  sql::Catalog catalog;
  // NOW() is when the query is asked (PostgreSQL's: when its transaction
  // began), not the step clock of the views it reads.
  catalog.set_now(std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count());
  for (const auto& [name, info] : relations) {
    sql::TableDef t;
    t.name = name;
    for (size_t i = 0; i < info.rel.columns.size(); ++i) {
      t.columns.push_back({info.rel.columns[i], info.rel.schema[i]});
    }
    if (info.is_table) t.primary_key = info.rel.key;
    SLUICE_RETURN_IF_ERROR(catalog.AddTable(std::move(t)));
  }
  SLUICE_RETURN_IF_ERROR(AddCatalogRelations(relations, &catalog));
  SLUICE_RETURN_IF_ERROR(sql::AddProgramDefinitions(program_text, &catalog));
  if (sequences == nullptr) {
    sequences = std::make_shared<sql::SequenceAccess>(sql::SequenceAccess{
        std::make_shared<sql::Sequences>(), std::make_shared<sql::SequenceSession>()});
  }
  catalog.set_sequence_access(std::move(sequences));
  AdhocQuery out;
  SLUICE_ASSIGN_OR_RETURN(out.query,
                          sql::BindSelect(catalog, text, stmts[0]["stmt"]["SelectStmt"]));
  sql::DeferVolatileItems(&out.query);
  for (const std::string& r : sql::ScannedRelations(out.query.plan)) {
    if (IsCatalogRelation(r)) {
      SLUICE_ASSIGN_OR_RETURN(out.catalog_rows[r], CatalogRows(r, relations, catalog));
    } else {
      out.scanned.push_back(r);
    }
  }
  for (const std::string& r : out.scanned) {
    const RelationInfo& info = relations.at(r);
    if (!info.materialized) {
      return Status::InvalidArgument(
          "\"" + r + "\" is not materialized, so ad hoc queries cannot read it: declare it " +
          (info.is_table ? "WITH (materialized = true)" : "as a CREATE MATERIALIZED VIEW"));
    }
  }
  return out;
}

Result<QueryResult> EvaluateAdhoc(const AdhocQuery& a,
                                  const std::map<std::string, std::vector<BatchPtr>>& snapshots,
                                  int workers) {
  const sql::BoundQuery& q = a.query;
  QueryResult result;
  SLUICE_ASSIGN_OR_RETURN(result.rows,
                          sql::EvaluateOnce(
                              q,
                              [&](const std::string& r) -> Result<std::vector<BatchPtr>> {
                                auto it = a.catalog_rows.find(r);
                                return it != a.catalog_rows.end() ? it->second : snapshots.at(r);
                              },
                              workers));
  sql::SortForPresentation(q, &result.rows);
  SLUICE_RETURN_IF_ERROR(sql::ComputeDeferred(q, &result.rows));
  for (sql::Row& row : result.rows) row.resize(q.visible);
  result.columns.assign(q.plan->columns.begin(),
                        q.plan->columns.begin() + static_cast<ptrdiff_t>(q.visible));
  for (const auto& [c, e] : q.deferred) result.columns[c].type = e->type;
  return result;
}

Result<std::shared_ptr<sql::Sequences>> OpenSequences(const sql::Catalog& catalog,
                                                      const std::string& storage,
                                                      const std::string& checkpoint_state) {
  auto sequences = std::make_shared<sql::Sequences>();
  sequences->Define(catalog.sequences());
  std::string state = checkpoint_state;
  if (!storage.empty()) {
    const std::string path = storage + "/sequences.json";
    if (std::filesystem::exists(path)) {
      SLUICE_ASSIGN_OR_RETURN(std::string logged, ReadWholeFile(path));
      if (sql::Sequences::VersionOf(logged) >= sql::Sequences::VersionOf(state)) state = logged;
    }
    sequences->set_log([path](const std::string& s) { return ReplaceFile(path, s); });
  }
  if (!state.empty()) SLUICE_RETURN_IF_ERROR(sequences->Restore(state).WithContext("sequences"));
  return sequences;
}

Result<QueryResult> Controller::Query(std::string_view text,
                                      std::shared_ptr<sql::SequenceSession> session) {
  if (session == nullptr) session = std::make_shared<sql::SequenceSession>();
  SLUICE_ASSIGN_OR_RETURN(
      AdhocQuery q,
      BindAdhoc(relations_, text, program_text_,
                std::make_shared<sql::SequenceAccess>(sql::SequenceAccess{sequences_, session})));
  for (const std::string& r : q.scanned) SLUICE_RETURN_IF_ERROR(ViewFailure(r));
  uint64_t step = 0;
  SLUICE_ASSIGN_OR_RETURN(auto snapshots, Snapshots(q.scanned, &step));
  SLUICE_ASSIGN_OR_RETURN(QueryResult result,
                          EvaluateAdhoc(q, snapshots, std::min(config_.workers, 4)));
  result.step = step;
  return result;
}

}  // namespace sluice::pipeline
