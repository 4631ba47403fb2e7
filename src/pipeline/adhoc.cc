#include "pipeline/adhoc.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "pipeline/controller.h"
#include "sql/query.h"
#include "types/row_codec.h"
#include "zset/batch_builder.h"

namespace sluice::pipeline {
namespace {

constexpr const char* kTables = "information_schema.tables";
constexpr const char* kColumns = "information_schema.columns";

sql::TableDef CatalogTable(const std::string& name,
                           const std::vector<std::pair<std::string, SqlType>>& columns) {
  sql::TableDef t;
  t.name = name;
  for (const auto& [c, type] : columns) t.columns.push_back({c, type});
  return t;
}

sql::TableDef TablesDef() {
  const SqlType text = SqlType::Varchar(-1, false);
  return CatalogTable(kTables, {{"table_catalog", text},
                                {"table_schema", text},
                                {"table_name", text},
                                {"table_type", text},
                                {"is_insertable_into", text}});
}

sql::TableDef ColumnsDef() {
  const SqlType text = SqlType::Varchar(-1, false);
  return CatalogTable(kColumns, {{"table_catalog", text},
                                 {"table_schema", text},
                                 {"table_name", text},
                                 {"column_name", text},
                                 {"ordinal_position", SqlType::Integer(false)},
                                 {"is_nullable", text},
                                 {"data_type", text},
                                 {"character_maximum_length", SqlType::Integer()},
                                 {"numeric_precision", SqlType::Integer()},
                                 {"numeric_scale", SqlType::Integer()},
                                 // Sluice's own name of the type.
                                 {"sql_type", text}});
}

// information_schema's rows for `relations`.
Result<std::vector<BatchPtr>> CatalogRows(const std::string& which,
                                          const std::map<std::string, RelationInfo>& relations) {
  const bool tables = which == kTables;
  const sql::TableDef def = tables ? TablesDef() : ColumnsDef();
  Schema schema;
  for (const sql::Column& c : def.columns) schema.push_back(c.type);
  BatchBuilder rows;
  std::string row;
  auto push = [&](const std::vector<Value>& values) -> Status {
    row.clear();
    SLUICE_RETURN_IF_ERROR(EncodeRow(schema, values, &row));
    rows.Push(row, 1);
    return Status::OK();
  };
  auto text = [](std::string s) { return Value::String(std::move(s)); };
  auto optional_int = [](int v) { return v >= 0 ? Value::Int(v) : Value::Null(); };
  for (const auto& [name, info] : relations) {
    const std::vector<Value> head = {text("sluice"), text("public"), text(name)};
    if (tables) {
      std::vector<Value> r = head;
      r.push_back(text(info.is_table ? "BASE TABLE" : "VIEW"));
      r.push_back(text(info.is_table ? "YES" : "NO"));
      SLUICE_RETURN_IF_ERROR(push(r));
      continue;
    }
    for (size_t i = 0; i < info.rel.columns.size(); ++i) {
      const SqlType& t = info.rel.schema[i];
      const bool chars = t.id() == TypeId::kChar || t.id() == TypeId::kVarchar;
      const bool numeric = t.IsInteger() || t.id() == TypeId::kDecimal;
      std::vector<Value> r = head;
      r.push_back(text(info.rel.columns[i]));
      r.push_back(Value::Int(static_cast<int64_t>(i + 1)));
      r.push_back(text(t.nullable() ? "YES" : "NO"));
      r.push_back(text(PostgresDataType(t)));
      r.push_back(chars ? optional_int(t.precision()) : Value::Null());
      r.push_back(t.id() == TypeId::kDecimal    ? optional_int(t.precision())
                  : t.id() == TypeId::kTinyInt  ? Value::Int(8)
                  : t.id() == TypeId::kSmallInt ? Value::Int(16)
                  : t.id() == TypeId::kInteger  ? Value::Int(32)
                  : t.id() == TypeId::kBigInt   ? Value::Int(64)
                                                : Value::Null());
      r.push_back(numeric ? Value::Int(t.id() == TypeId::kDecimal ? t.scale() : 0) : Value::Null());
      r.push_back(text(t.WithNullable(true).ToString()));
      SLUICE_RETURN_IF_ERROR(push(r));
    }
  }
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr b, rows.Finish());
  return std::vector<BatchPtr>{b};
}

}  // namespace

Result<AdhocQuery> BindAdhoc(const std::map<std::string, RelationInfo>& relations,
                             std::string_view text) {
  SLUICE_ASSIGN_OR_RETURN(sql::Json tree, sql::ParseSql(text));
  const sql::Json& stmts = tree.value("stmts", sql::Json::array());
  if (stmts.size() != 1 || !stmts[0]["stmt"].contains("SelectStmt")) {
    return Status::InvalidArgument("an ad hoc query is one SELECT statement");
  }
  // Views are read as they are, not recomputed: each relation is a table.
  sql::Catalog catalog;
  for (const auto& [name, info] : relations) {
    sql::TableDef t;
    t.name = name;
    for (size_t i = 0; i < info.rel.columns.size(); ++i) {
      t.columns.push_back({info.rel.columns[i], info.rel.schema[i]});
    }
    SLUICE_RETURN_IF_ERROR(catalog.AddTable(std::move(t)));
  }
  SLUICE_RETURN_IF_ERROR(catalog.AddTable(TablesDef()));
  SLUICE_RETURN_IF_ERROR(catalog.AddTable(ColumnsDef()));
  AdhocQuery out;
  SLUICE_ASSIGN_OR_RETURN(out.query,
                          sql::BindSelect(catalog, text, stmts[0]["stmt"]["SelectStmt"]));
  for (const std::string& r : sql::ScannedRelations(out.query.plan)) {
    if (r == kTables || r == kColumns) {
      SLUICE_ASSIGN_OR_RETURN(out.catalog_rows[r], CatalogRows(r, relations));
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
  for (sql::Row& row : result.rows) row.resize(q.visible);
  result.columns.assign(q.plan->columns.begin(),
                        q.plan->columns.begin() + static_cast<ptrdiff_t>(q.visible));
  return result;
}

Result<QueryResult> Controller::Query(std::string_view text) {
  SLUICE_ASSIGN_OR_RETURN(AdhocQuery q, BindAdhoc(relations_, text));
  uint64_t step = 0;
  SLUICE_ASSIGN_OR_RETURN(auto snapshots, Snapshots(q.scanned, &step));
  SLUICE_ASSIGN_OR_RETURN(QueryResult result,
                          EvaluateAdhoc(q, snapshots, std::min(config_.workers, 4)));
  result.step = step;
  return result;
}

}  // namespace sluice::pipeline
