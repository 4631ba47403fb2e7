// The catalog: the tables and views that a program declares.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sql/plan.h"

namespace sluice::sql {

struct TableDef {
  std::string name;
  std::vector<Column> columns;
  std::vector<int> primary_key;  // column indices; empty: no key
  bool materialized = false;
  // WITH ('append_only' = 'true'): rows are only ever inserted, so no
  // state is kept to check deletes against (the ingest refuses them).
  bool append_only = false;
  std::string connectors;  // the JSON text of WITH (connectors = '...')
  // What identifies its definition across programs: a hash of its columns,
  // types and key (not its options), and its CREATE TABLE statement.
  uint64_t definition_hash = 0;
  std::string sql;
};

struct ViewDef {
  std::string name;
  BoundQuery query;
  bool materialized = false;
  std::string connectors;
  // A hash of its query as written (without locations or options), and the
  // tables and views it reads: it is unchanged from one program to the next
  // if its hash is the same and none of its inputs changed.
  uint64_t definition_hash = 0;
  std::vector<std::string> inputs;
};

// CREATE INDEX name ON relation(columns): gives a view (or table) a key, for
// sinks that need one.
struct IndexDef {
  std::string name;
  std::string relation;
  std::vector<std::string> columns;
};

// Names are case-insensitive unless quoted, as in PostgreSQL: the parser
// lower-cases unquoted names, and the catalog stores them as given.
class Catalog {
 public:
  const TableDef* FindTable(const std::string& name) const;
  const ViewDef* FindView(const std::string& name) const;
  Status AddTable(TableDef table);
  Status AddView(ViewDef view);
  Status DropTable(const std::string& name);
  Status DropView(const std::string& name);
  Status AddIndex(IndexDef index);
  Status DropIndex(const std::string& name);
  const std::map<std::string, IndexDef>& indexes() const { return indexes_; }
  const std::map<std::string, TableDef>& tables() const { return tables_; }
  const std::map<std::string, ViewDef>& views() const { return views_; }

 private:
  std::map<std::string, TableDef> tables_;
  std::map<std::string, ViewDef> views_;
  std::map<std::string, IndexDef> indexes_;
};

}  // namespace sluice::sql
