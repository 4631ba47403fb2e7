// The catalog relations of ad hoc queries: information_schema's tables and
// columns, and the part of pg_catalog that clients read to describe a
// database (psql's \d commands, drivers' type lookups). Their rows are built
// from the program's relations for each query that reads them, so they
// always describe the running program; nothing about them is stored.
//
// What they hold (docs/api.md says it for users):
//  - one database (sluice), one role (sluice, OID 10, owner of everything),
//    the schemas pg_catalog, public and information_schema;
//  - every table (relkind 'r') and view (relkind 'v', materialized or not:
//    a Sluice view is always up to date, which is what a PostgreSQL view
//    promises and a PostgreSQL materialized view does not) in public, with
//    OIDs from sql::AssignPgOids;
//  - a table's primary key as PostgreSQL has one: a unique btree index
//    NAME_pkey (pg_class, pg_index) and its constraint (pg_constraint);
//  - every column (pg_attribute) with PostgreSQL's type OID and typmod, and
//    every type a column can have (pg_type);
//  - the relations that describe what Sluice has none of (defaults,
//    comments, inheritance, rules, policies, statistics objects,
//    publications) are empty, with PostgreSQL's columns.
// The catalog relations do not describe themselves.
//
// Thread safety: free functions over their arguments.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "pipeline/api.h"
#include "sql/catalog.h"

namespace sluice::pipeline {

// Whether `name` (as the catalog holds it: "pg_catalog.pg_class") is one of
// the relations this file makes.
bool IsCatalogRelation(const std::string& name);

// Adds the catalog relations to `catalog`, which already holds `relations`
// (each a table, with its key), and the text of views, indexes and
// constraints that pg_get_viewdef and its kin give.
Status AddCatalogRelations(const std::map<std::string, RelationInfo>& relations,
                           sql::Catalog* catalog);

// The rows of catalog relation `name` for `relations`.
// REQUIRES: IsCatalogRelation(name), `catalog` as AddCatalogRelations left it.
Result<std::vector<BatchPtr>> CatalogRows(const std::string& name,
                                          const std::map<std::string, RelationInfo>& relations,
                                          const sql::Catalog& catalog);

}  // namespace sluice::pipeline
