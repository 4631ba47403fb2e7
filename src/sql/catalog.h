// The catalog: the tables and views that a program declares.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sql/plan.h"

namespace sluice::sql {

struct TableDef {
  std::string name;
  std::vector<Column> columns;
  std::vector<int> primary_key;  // column indices; empty: no key
  // Per column (or empty: none has one), the value a row gets when an
  // INSERT or an input record leaves the column out: its DEFAULT, NULL
  // when it has none.
  std::vector<Value> defaults;
  bool materialized = false;
  // WITH ('append_only' = 'true'): rows are only ever inserted, so no
  // state is kept to check deletes against (the ingest refuses them).
  bool append_only = false;
  std::string connectors;  // the JSON text of WITH (connectors = '...')
  // A column declared with LATENESS (-1: none), and the lateness in the
  // column's unit (microseconds for TIMESTAMP and TIME, days for DATE, the
  // integer for integer types): rows may arrive at most that far behind the
  // largest value seen (dataflow/waterline.h).
  int lateness_column = -1;
  int64_t lateness = 0;
  // What identifies its definition across programs: a hash of its columns,
  // types and key (not its options), and its CREATE TABLE statement.
  uint64_t definition_hash = 0;
  std::string sql;
};

// The key of Catalog::PgDefinitions that lists pg_get_viewdef(view, true).
inline constexpr const char* kPgViewdefPretty = "pg_get_viewdef pretty";

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
  // Its query as written.
  std::string query_sql;
  // Its query as pg_get_viewdef(view) and pg_get_viewdef(view, true) print
  // it (sql/deparse.h): PostgreSQL's analyzed form, or, where that cannot
  // be printed yet, the query as written.
  std::string pg_definition;
  std::string pg_definition_pretty;
};

// CREATE FUNCTION name(args) RETURNS type LANGUAGE SQL ...: a function whose
// body is a query, inlined where it is called (its arguments put in place
// of its parameters), as PostgreSQL inlines simple SQL functions. Types and
// the body are kept as parse trees in JSON text (sql/parser.h).
struct FunctionDef {
  std::string name;
  std::vector<std::string> arg_names;  // "" for an unnamed parameter
  std::vector<std::string> arg_types;  // each a TypeName parse tree
  // Each parameter's DEFAULT, a parse tree; "" for none. The parameters
  // after one with a default have one too.
  std::vector<std::string> arg_defaults;
  std::string return_type;             // a TypeName parse tree
  bool returns_set = false;            // SETOF or TABLE: a FROM item
  std::vector<std::string> columns;    // RETURNS TABLE (...): the columns' names
  bool strict = false;                 // NULL if an argument is NULL
  // A SelectStmt parse tree; for LANGUAGE plpgsql, the PL/pgSQL body with
  // its expressions' parse trees, compiled where it is called (plpgsql.h).
  std::string body;
  bool plpgsql = false;
  // LANGUAGE internal WINDOW AS 'window_nth_value': the built-in window
  // function it names (nth_value), called with the arguments in the order
  // of its parameters.
  std::string window_builtin;
  // Not empty for a function Sluice cannot run (another language than SQL,
  // or a body it does not take): calls are refused with this reason.
  std::string unsupported;
};

// CREATE AGGREGATE name (argtypes) (SFUNC = f, STYPE = t, ...): an aggregate
// that folds its transition function `sfunc` over a group's rows, from
// INITCOND (cast to STYPE; NULL if there is none), then applies FINALFUNC to
// the last state (binder_aggregate.cc says how it is computed and
// maintained). Types are kept as TypeName parse trees in JSON text.
struct AggregateDef {
  std::string name;
  // One per argument; empty for name(*), which takes no value per row.
  std::vector<std::string> arg_types;
  std::string sfunc;       // a SQL function's name, or a built-in function's
  std::string state_type;  // STYPE
  std::string final_func;  // FINALFUNC; "" for none
  std::optional<std::string> initcond;
  // MSFUNC, MSTYPE, MFINALFUNC and MINITCOND ("" and nullopt: none): what
  // PostgreSQL computes a window aggregate with when its frame's start
  // moves. Its MINVFUNC is not needed: each frame is folded from its start.
  std::string msfunc, mstate_type, mfinal_func;
  std::optional<std::string> minitcond;
  // Not empty for an aggregate Sluice cannot compute (FINALFUNC_EXTRA, an
  // ordered-set aggregate): calls are refused with this reason.
  std::string unsupported;
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
  TableDef* MutableTable(const std::string& name) {
    auto it = tables_.find(name);
    return it == tables_.end() ? nullptr : &it->second;
  }
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
  // CREATE [OR REPLACE] FUNCTION; one function per name.
  Status AddFunction(FunctionDef f, bool replace);
  const FunctionDef* FindFunction(const std::string& name) const;
  Status DropFunction(const std::string& name);
  // CREATE [OR REPLACE] AGGREGATE; one aggregate per name.
  Status AddAggregate(AggregateDef a, bool replace);
  const AggregateDef* FindAggregate(const std::string& name) const;
  Status DropAggregate(const std::string& name);
  bool has_aggregates() const { return !aggregates_.empty(); }
  // CREATE TYPE name AS (field type, ...): a named ROW type.
  Status AddType(const std::string& name, SqlType type);
  const SqlType* FindType(const std::string& name) const;
  Status DropType(const std::string& name);
  // The name of a type it defines, or else of a table, whose rows have the
  // fields of `row` (names and types); "" when none.
  std::string RowTypeName(const SqlType& row) const;

  // The text that pg_get_viewdef, pg_get_indexdef and pg_get_constraintdef
  // give for an object's OID (PgOids), by function name. Ad hoc queries set
  // it (pipeline/pg_catalog.h); the binder turns a call of one of these
  // functions into a lookup in it.
  // pg_get_viewdef's pretty form is listed under kPgViewdefPretty.
  using PgDefinitions = std::map<std::string, std::map<int64_t, std::string>>;
  void set_pg_definitions(PgDefinitions d) { pg_definitions_ = std::move(d); }
  const PgDefinitions& pg_definitions() const { return pg_definitions_; }

  // NOW() in an ad hoc query: the time it was asked, in microseconds since
  // 1970 (UTC), a constant. Unset for programs: in a view, NOW() is the step
  // clock, and only a temporal filter may read it (plan.h, kTemporalFilter).
  void set_now(int64_t micros) { now_ = micros; }
  const std::optional<int64_t>& now() const { return now_; }

 private:
  std::map<std::string, TableDef> tables_;
  std::map<std::string, ViewDef> views_;
  std::map<std::string, IndexDef> indexes_;
  std::map<std::string, FunctionDef> functions_;
  std::map<std::string, AggregateDef> aggregates_;
  std::map<std::string, SqlType> types_;
  PgDefinitions pg_definitions_;
  std::optional<int64_t> now_;
};

// The OIDs that pg_catalog gives a catalog's objects: every table and view
// (not the schema-qualified relations of information_schema and pg_catalog),
// and the index and the constraint behind each primary key. An OID is a hash
// of the object's name, from 16384 up (PostgreSQL's first OID for user
// objects), so it is the same at every start of a program and does not move
// when another relation is added; a name whose OID is taken (rare) moves on to
// the next free one, names taken in order, so the result is deterministic.
struct PgOids {
  std::map<std::string, int64_t> relations;        // table or view -> pg_class.oid
  std::map<std::string, int64_t> key_indexes;      // table -> its primary key's index
  std::map<std::string, int64_t> key_constraints;  // table -> its pg_constraint.oid
};
PgOids AssignPgOids(const Catalog& catalog);
// The name PostgreSQL gives a table's primary key (index and constraint).
inline std::string PrimaryKeyName(const std::string& table) { return table + "_pkey"; }
// Fixed OIDs of pg_catalog's own objects, as PostgreSQL numbers them.
inline constexpr int64_t kPgCatalogNamespaceOid = 11;
inline constexpr int64_t kPgUserOid = 10;  // the one role: owner of everything
inline constexpr const char* kPgUserName = "sluice";
inline constexpr const char* kPgDatabaseName = "sluice";
inline constexpr int64_t kPublicNamespaceOid = 2200;
inline constexpr int64_t kInformationSchemaNamespaceOid = 13207;  // as PostgreSQL 15 numbers it

}  // namespace sluice::sql
