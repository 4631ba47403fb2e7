// Ad hoc queries: a SELECT compiled with the same SQL engine, in which every
// materialized table and view is a table holding its integral, run once over
// snapshots that are all taken at one step.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "pipeline/controller.h"
#include "sql/binder.h"
#include "sql/query.h"

namespace sluice::pipeline {

Result<Controller::QueryResult> Controller::Query(std::string_view text) {
  SLUICE_ASSIGN_OR_RETURN(sql::Json tree, sql::ParseSql(text));
  const sql::Json& stmts = tree.value("stmts", sql::Json::array());
  if (stmts.size() != 1 || !stmts[0]["stmt"].contains("SelectStmt")) {
    return Status::InvalidArgument("an ad hoc query is one SELECT statement");
  }
  // Views are read as they are, not recomputed: each relation is a table.
  sql::Catalog catalog;
  for (const auto& [name, info] : relations_) {
    sql::TableDef t;
    t.name = name;
    for (size_t i = 0; i < info.rel.columns.size(); ++i) {
      t.columns.push_back({info.rel.columns[i], info.rel.schema[i]});
    }
    SLUICE_RETURN_IF_ERROR(catalog.AddTable(std::move(t)));
  }
  SLUICE_ASSIGN_OR_RETURN(sql::BoundQuery q,
                          sql::BindSelect(catalog, text, stmts[0]["stmt"]["SelectStmt"]));
  std::vector<std::string> scanned = sql::ScannedRelations(q.plan);
  for (const std::string& r : scanned) {
    const RelationInfo& info = relations_.at(r);
    if (!info.materialized) {
      return Status::InvalidArgument(
          "\"" + r + "\" is not materialized, so ad hoc queries cannot read it: declare it " +
          (info.is_table ? "WITH (materialized = true)" : "as a CREATE MATERIALIZED VIEW"));
    }
  }
  QueryResult result;
  SLUICE_ASSIGN_OR_RETURN(auto snapshots, Snapshots(scanned, &result.step));
  SLUICE_ASSIGN_OR_RETURN(
      result.rows,
      sql::EvaluateOnce(
          q, [&](const std::string& r) -> Result<std::vector<BatchPtr>> { return snapshots.at(r); },
          std::min(config_.workers, 4)));
  sql::SortForPresentation(q, &result.rows);
  for (sql::Row& row : result.rows) row.resize(q.visible);
  result.columns.assign(q.plan->columns.begin(),
                        q.plan->columns.begin() + static_cast<ptrdiff_t>(q.visible));
  return result;
}

}  // namespace sluice::pipeline
