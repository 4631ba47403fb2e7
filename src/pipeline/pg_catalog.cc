#include "pipeline/pg_catalog.h"

#include <functional>

#include "base/check.h"
#include "types/row_codec.h"
#include "zset/batch_builder.h"

namespace sluice::pipeline {
namespace {

using Rows = std::vector<std::vector<Value>>;

// What the rows are built from.
struct Described {
  const std::map<std::string, RelationInfo>& relations;
  sql::PgOids oids;
  std::vector<std::string> sequences;
};

struct CatalogRelation {
  const char* name;
  std::vector<std::pair<const char*, SqlType>> columns;
  std::function<Rows(const Described&)> rows;  // null: always empty
};

Value Text(std::string s) { return Value::String(std::move(s)); }
Value Int(int64_t i) { return Value::Int(i); }
Value Bool(bool b) { return Value::Bool(b); }
Value Null() { return Value::Null(); }

// An identifier as PostgreSQL prints it: quoted unless it is lower case
// letters, digits and underscores not starting with a digit.
std::string QuoteIdent(const std::string& s) {
  bool plain = !s.empty() && !(s[0] >= '0' && s[0] <= '9');
  for (char c : s) plain = plain && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
  if (plain) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string KeyColumns(const RelationInfo& info) {
  std::string s;
  for (int k : info.rel.key) {
    if (!s.empty()) s += ", ";
    s += QuoteIdent(info.rel.columns[static_cast<size_t>(k)]);
  }
  return s;
}

// ---- information_schema

Rows InformationSchemaTables(const Described& d) {
  Rows rows;
  for (const auto& [name, info] : d.relations) {
    rows.push_back({Text(sql::kPgDatabaseName), Text("public"), Text(name),
                    Text(info.is_table ? "BASE TABLE" : "VIEW"),
                    Text(info.is_table ? "YES" : "NO")});
  }
  return rows;
}

Rows InformationSchemaColumns(const Described& d) {
  Rows rows;
  auto optional_int = [](int v) { return v >= 0 ? Int(v) : Null(); };
  for (const auto& [name, info] : d.relations) {
    for (size_t i = 0; i < info.rel.columns.size(); ++i) {
      const SqlType& t = info.rel.schema[i];
      const bool chars = t.id() == TypeId::kChar || t.id() == TypeId::kVarchar;
      const bool numeric = t.IsInteger() || t.id() == TypeId::kDecimal;
      rows.push_back(
          {Text(sql::kPgDatabaseName), Text("public"), Text(name), Text(info.rel.columns[i]),
           Int(static_cast<int64_t>(i + 1)), Text(t.nullable() ? "YES" : "NO"),
           Text(PostgresDataType(t)), chars ? optional_int(t.precision()) : Null(),
           t.dynamic_scale()             ? Null()
           : t.id() == TypeId::kDecimal  ? optional_int(t.precision())
           : t.id() == TypeId::kTinyInt  ? Int(8)
           : t.id() == TypeId::kSmallInt ? Int(16)
           : t.id() == TypeId::kInteger  ? Int(32)
           : t.id() == TypeId::kBigInt   ? Int(64)
                                         : Null(),
           numeric && !t.dynamic_scale() ? Int(t.id() == TypeId::kDecimal ? t.scale() : 0) : Null(),
           Text(t.WithNullable(true).ToString())});
    }
  }
  return rows;
}

// ---- pg_catalog

constexpr int64_t kHeapAm = 2;
constexpr int64_t kBtreeAm = 403;
constexpr int64_t kDefaultCollation = 100;
constexpr int64_t kDefaultTablespace = 1663;

Rows PgNamespace(const Described&) {
  const Value acl = Null();
  return {{Int(sql::kPgCatalogNamespaceOid), Text("pg_catalog"), Int(sql::kPgUserOid), acl},
          {Int(sql::kPublicNamespaceOid), Text("public"), Int(sql::kPgUserOid), acl},
          {Int(sql::kInformationSchemaNamespaceOid), Text("information_schema"),
           Int(sql::kPgUserOid), acl}};
}

// One pg_class row; `kind` is relkind.
std::vector<Value> ClassRow(int64_t oid, const std::string& name, const char* kind, int64_t am,
                            size_t columns, bool has_index) {
  return {Int(oid),
          Text(name),
          Int(sql::kPublicNamespaceOid),
          Int(0),
          Int(0),
          Int(sql::kPgUserOid),
          Int(am),
          Int(0),
          Int(0),
          Int(0),
          Value::Double(-1),
          Int(0),
          Int(0),
          Bool(has_index),
          Bool(false),
          Text("p"),
          Text(kind),
          Int(static_cast<int64_t>(columns)),
          Int(0),
          Bool(false),
          Bool(false),
          Bool(false),
          Bool(false),
          Bool(false),
          Bool(true),
          Text("d"),
          Bool(false),
          Int(0),
          Null(),
          Null(),
          Null()};
}

Rows PgClass(const Described& d) {
  Rows rows;
  for (const auto& [name, info] : d.relations) {
    const bool keyed = info.is_table && !info.rel.key.empty();
    rows.push_back(ClassRow(d.oids.relations.at(name), name, info.is_table ? "r" : "v",
                            info.is_table ? kHeapAm : 0, info.rel.columns.size(), keyed));
    if (keyed) {
      rows.push_back(ClassRow(d.oids.key_indexes.at(name), sql::PrimaryKeyName(name), "i", kBtreeAm,
                              info.rel.key.size(), false));
    }
  }
  // Sequences (relkind S, as psql's \ds lists them), with PostgreSQL's
  // three columns (last_value, log_cnt, is_called).
  for (const std::string& name : d.sequences) {
    auto it = d.oids.relations.find(name);
    if (it != d.oids.relations.end()) rows.push_back(ClassRow(it->second, name, "S", 0, 3, false));
  }
  return rows;
}

std::vector<Value> AttributeRow(int64_t relation, const std::string& name, const SqlType& t,
                                size_t number, bool not_null) {
  const PgTypeInfo pg = PgTypeOf(t);
  const PgTypeFacts facts = PgTypeFactsOf(pg.oid);
  const bool by_value = pg.size > 0 && pg.size <= 8;
  return {Int(relation),
          Text(name),
          Int(pg.oid),
          Int(-1),
          Int(pg.size),
          Int(static_cast<int64_t>(number)),
          Int(t.id() == TypeId::kArray ? 1 : 0),
          Int(pg.typmod),
          Bool(by_value),
          Text(pg.oid == 1700 ? "m"
               : by_value     ? "p"
                              : "x"),
          Text(""),
          Bool(not_null),
          Bool(false),
          Bool(false),
          Text(""),
          Text(""),
          Bool(false),
          Bool(true),
          Int(0),
          Int(facts.collatable ? kDefaultCollation : 0),
          Null(),
          Null()};
}

Rows PgAttribute(const Described& d) {
  Rows rows;
  for (const auto& [name, info] : d.relations) {
    const int64_t oid = d.oids.relations.at(name);
    for (size_t i = 0; i < info.rel.columns.size(); ++i) {
      rows.push_back(AttributeRow(oid, info.rel.columns[i], info.rel.schema[i], i + 1,
                                  !info.rel.schema[i].nullable()));
    }
    if (info.is_table && !info.rel.key.empty()) {
      const int64_t index = d.oids.key_indexes.at(name);
      for (size_t k = 0; k < info.rel.key.size(); ++k) {
        const size_t c = static_cast<size_t>(info.rel.key[k]);
        rows.push_back(AttributeRow(index, info.rel.columns[c], info.rel.schema[c], k + 1,
                                    !info.rel.schema[c].nullable()));
      }
    }
  }
  return rows;
}

Rows PgType(const Described&) {
  Rows rows;
  for (const auto& [oid, typname] : PgTypes()) {
    const PgTypeFacts f = PgTypeFactsOf(oid);
    rows.push_back({Int(oid),
                    Text(typname),
                    Int(sql::kPgCatalogNamespaceOid),
                    Int(sql::kPgUserOid),
                    Int(f.size),
                    Bool(f.size > 0 && f.size <= 8),
                    Text(oid == 2249 || oid == 2287 ? "p" : "b"),
                    Text(std::string(1, f.category)),
                    Bool(false),
                    Bool(true),
                    Text(","),
                    Int(0),
                    Int(f.element),
                    Int(f.array),
                    Bool(false),
                    Int(0),
                    Int(-1),
                    Int(0),
                    Int(f.collatable ? kDefaultCollation : 0),
                    Null()});
  }
  return rows;
}

Rows PgAm(const Described&) {
  return {{Int(kHeapAm), Text("heap"), Text("t")}, {Int(kBtreeAm), Text("btree"), Text("i")}};
}

Rows PgIndex(const Described& d) {
  Rows rows;
  for (const auto& [name, info] : d.relations) {
    if (!info.is_table || info.rel.key.empty()) continue;
    std::vector<Value> key;
    for (int k : info.rel.key) key.push_back(Int(k + 1));
    const Value n = Int(static_cast<int64_t>(info.rel.key.size()));
    rows.push_back({Int(d.oids.key_indexes.at(name)), Int(d.oids.relations.at(name)), n, n,
                    Bool(true), Bool(false), Bool(true), Bool(false), Bool(true), Bool(false),
                    Bool(true), Bool(false), Bool(true), Bool(true), Bool(false),
                    Value::List(std::move(key)), Null(), Null()});
  }
  return rows;
}

Rows PgConstraint(const Described& d) {
  Rows rows;
  for (const auto& [name, info] : d.relations) {
    if (!info.is_table || info.rel.key.empty()) continue;
    std::vector<Value> key;
    for (int k : info.rel.key) key.push_back(Int(k + 1));
    rows.push_back({Int(d.oids.key_constraints.at(name)),
                    Text(sql::PrimaryKeyName(name)),
                    Int(sql::kPublicNamespaceOid),
                    Text("p"),
                    Bool(false),
                    Bool(false),
                    Bool(true),
                    Int(d.oids.relations.at(name)),
                    Int(0),
                    Int(d.oids.key_indexes.at(name)),
                    Int(0),
                    Int(0),
                    Text(" "),
                    Text(" "),
                    Text(" "),
                    Bool(true),
                    Int(0),
                    Bool(true),
                    Value::List(std::move(key)),
                    Null(),
                    Null()});
  }
  return rows;
}

Rows PgCollation(const Described&) {
  auto row = [](int64_t oid, const char* name, const char* provider, int64_t encoding,
                const char* locale) {
    const Value l = *locale ? Text(locale) : Null();
    return std::vector<Value>{Int(oid),
                              Text(name),
                              Int(sql::kPgCatalogNamespaceOid),
                              Int(sql::kPgUserOid),
                              Text(provider),
                              Bool(true),
                              Int(encoding),
                              l,
                              l};
  };
  return {row(kDefaultCollation, "default", "d", -1, ""), row(950, "C", "c", -1, "C"),
          row(951, "POSIX", "c", -1, "POSIX")};
}

Rows PgDatabase(const Described&) {
  return {{Int(5), Text(sql::kPgDatabaseName), Int(sql::kPgUserOid), Int(6), Text("c"), Bool(false),
           Bool(true), Int(-1), Text("C"), Text("C"), Null(), Null(), Int(kDefaultTablespace)}};
}

Rows PgTablespace(const Described&) {
  return {{Int(kDefaultTablespace), Text("pg_default"), Int(sql::kPgUserOid), Null(), Null()},
          {Int(kDefaultTablespace + 1), Text("pg_global"), Int(sql::kPgUserOid), Null(), Null()}};
}

Rows PgRoles(const Described&) {
  return {{Text(sql::kPgUserName), Bool(true), Bool(true), Bool(true), Bool(true), Bool(true),
           Bool(false), Int(-1), Text("********"), Null(), Bool(false), Null(),
           Int(sql::kPgUserOid)}};
}

const std::vector<CatalogRelation>& Relations() {
  static const auto* relations = [] {
    const SqlType text = SqlType::Varchar(-1, false);
    const SqlType opt_text = SqlType::Varchar();
    const SqlType oid = SqlType::BigInt(false);
    const SqlType int2 = SqlType::SmallInt(false);
    const SqlType int4 = SqlType::Integer(false);
    const SqlType boolean = SqlType::Boolean(false);
    // PostgreSQL's one-byte "char": printed as it is, never padded.
    const SqlType chr = SqlType::Char(-1, false);
    const SqlType int2s = SqlType::Array(SqlType::SmallInt());
    const SqlType texts = SqlType::Array(SqlType::Varchar());
    return new std::vector<CatalogRelation>{
        {"information_schema.tables",
         {{"table_catalog", text},
          {"table_schema", text},
          {"table_name", text},
          {"table_type", text},
          {"is_insertable_into", text}},
         InformationSchemaTables},
        {"information_schema.columns",
         {{"table_catalog", text},
          {"table_schema", text},
          {"table_name", text},
          {"column_name", text},
          {"ordinal_position", int4},
          {"is_nullable", text},
          {"data_type", text},
          {"character_maximum_length", SqlType::Integer()},
          {"numeric_precision", SqlType::Integer()},
          {"numeric_scale", SqlType::Integer()},
          // Sluice's own name of the type.
          {"sql_type", text}},
         InformationSchemaColumns},
        {"pg_catalog.pg_namespace",
         {{"oid", oid}, {"nspname", text}, {"nspowner", oid}, {"nspacl", texts}},
         PgNamespace},
        {"pg_catalog.pg_class",
         {{"oid", oid},
          {"relname", text},
          {"relnamespace", oid},
          {"reltype", oid},
          {"reloftype", oid},
          {"relowner", oid},
          {"relam", oid},
          {"relfilenode", oid},
          {"reltablespace", oid},
          {"relpages", int4},
          {"reltuples", SqlType::Real(false)},
          {"relallvisible", int4},
          {"reltoastrelid", oid},
          {"relhasindex", boolean},
          {"relisshared", boolean},
          {"relpersistence", chr},
          {"relkind", chr},
          {"relnatts", int2},
          {"relchecks", int2},
          {"relhasrules", boolean},
          {"relhastriggers", boolean},
          {"relhassubclass", boolean},
          {"relrowsecurity", boolean},
          {"relforcerowsecurity", boolean},
          {"relispopulated", boolean},
          {"relreplident", chr},
          {"relispartition", boolean},
          {"relrewrite", oid},
          {"relacl", texts},
          {"reloptions", texts},
          {"relpartbound", opt_text}},
         PgClass},
        {"pg_catalog.pg_attribute",
         {{"attrelid", oid},       {"attname", text},          {"atttypid", oid},
          {"attstattarget", int4}, {"attlen", int2},           {"attnum", int2},
          {"attndims", int4},      {"atttypmod", int4},        {"attbyval", boolean},
          {"attstorage", chr},     {"attcompression", chr},    {"attnotnull", boolean},
          {"atthasdef", boolean},  {"atthasmissing", boolean}, {"attidentity", chr},
          {"attgenerated", chr},   {"attisdropped", boolean},  {"attislocal", boolean},
          {"attinhcount", int4},   {"attcollation", oid},      {"attacl", texts},
          {"attoptions", texts}},
         PgAttribute},
        {"pg_catalog.pg_type",
         {{"oid", oid},
          {"typname", text},
          {"typnamespace", oid},
          {"typowner", oid},
          {"typlen", int2},
          {"typbyval", boolean},
          {"typtype", chr},
          {"typcategory", chr},
          {"typispreferred", boolean},
          {"typisdefined", boolean},
          {"typdelim", chr},
          {"typrelid", oid},
          {"typelem", oid},
          {"typarray", oid},
          {"typnotnull", boolean},
          {"typbasetype", oid},
          {"typtypmod", int4},
          {"typndims", int4},
          {"typcollation", oid},
          {"typdefault", opt_text}},
         PgType},
        {"pg_catalog.pg_am", {{"oid", oid}, {"amname", text}, {"amtype", chr}}, PgAm},
        {"pg_catalog.pg_index",
         {{"indexrelid", oid},
          {"indrelid", oid},
          {"indnatts", int2},
          {"indnkeyatts", int2},
          {"indisunique", boolean},
          {"indnullsnotdistinct", boolean},
          {"indisprimary", boolean},
          {"indisexclusion", boolean},
          {"indimmediate", boolean},
          {"indisclustered", boolean},
          {"indisvalid", boolean},
          {"indcheckxmin", boolean},
          {"indisready", boolean},
          {"indislive", boolean},
          {"indisreplident", boolean},
          // int2vector in PostgreSQL (subscripts from 0); an array here.
          {"indkey", int2s},
          {"indexprs", opt_text},
          {"indpred", opt_text}},
         PgIndex},
        {"pg_catalog.pg_constraint",
         {{"oid", oid},
          {"conname", text},
          {"connamespace", oid},
          {"contype", chr},
          {"condeferrable", boolean},
          {"condeferred", boolean},
          {"convalidated", boolean},
          {"conrelid", oid},
          {"contypid", oid},
          {"conindid", oid},
          {"conparentid", oid},
          {"confrelid", oid},
          {"confupdtype", chr},
          {"confdeltype", chr},
          {"confmatchtype", chr},
          {"conislocal", boolean},
          {"coninhcount", int4},
          {"connoinherit", boolean},
          {"conkey", int2s},
          {"confkey", int2s},
          {"conbin", opt_text}},
         PgConstraint},
        {"pg_catalog.pg_attrdef",
         {{"oid", oid}, {"adrelid", oid}, {"adnum", int2}, {"adbin", text}},
         nullptr},
        {"pg_catalog.pg_collation",
         {{"oid", oid},
          {"collname", text},
          {"collnamespace", oid},
          {"collowner", oid},
          {"collprovider", chr},
          {"collisdeterministic", boolean},
          {"collencoding", int4},
          {"collcollate", opt_text},
          {"collctype", opt_text}},
         PgCollation},
        {"pg_catalog.pg_description",
         {{"objoid", oid}, {"classoid", oid}, {"objsubid", int4}, {"description", text}},
         nullptr},
        {"pg_catalog.pg_inherits",
         {{"inhrelid", oid}, {"inhparent", oid}, {"inhseqno", int4}, {"inhdetachpending", boolean}},
         nullptr},
        {"pg_catalog.pg_database",
         {{"oid", oid},
          {"datname", text},
          {"datdba", oid},
          {"encoding", int4},
          {"datlocprovider", chr},
          {"datistemplate", boolean},
          {"datallowconn", boolean},
          {"datconnlimit", int4},
          {"datcollate", text},
          {"datctype", text},
          {"daticulocale", opt_text},
          {"datacl", texts},
          {"dattablespace", oid}},
         PgDatabase},
        {"pg_catalog.pg_tablespace",
         {{"oid", oid},
          {"spcname", text},
          {"spcowner", oid},
          {"spcacl", texts},
          {"spcoptions", texts}},
         PgTablespace},
        {"pg_catalog.pg_auth_members",
         {{"roleid", oid}, {"member", oid}, {"grantor", oid}, {"admin_option", boolean}},
         nullptr},
        {"pg_catalog.pg_roles",
         {{"rolname", text},
          {"rolsuper", boolean},
          {"rolinherit", boolean},
          {"rolcreaterole", boolean},
          {"rolcreatedb", boolean},
          {"rolcanlogin", boolean},
          {"rolreplication", boolean},
          {"rolconnlimit", int4},
          {"rolpassword", text},
          {"rolvaliduntil", SqlType::Timestamp()},
          {"rolbypassrls", boolean},
          {"rolconfig", texts},
          {"oid", oid}},
         PgRoles},
        {"pg_catalog.pg_rewrite",
         {{"oid", oid},
          {"rulename", text},
          {"ev_class", oid},
          {"ev_type", chr},
          {"ev_enabled", chr},
          {"is_instead", boolean},
          {"ev_qual", text},
          {"ev_action", text}},
         nullptr},
        {"pg_catalog.pg_policy",
         {{"oid", oid},
          {"polname", text},
          {"polrelid", oid},
          {"polcmd", chr},
          {"polpermissive", boolean},
          {"polroles", SqlType::Array(SqlType::BigInt())},
          {"polqual", opt_text},
          {"polwithcheck", opt_text}},
         nullptr},
        {"pg_catalog.pg_statistic_ext",
         {{"oid", oid},
          {"stxrelid", oid},
          {"stxname", text},
          {"stxnamespace", oid},
          {"stxowner", oid},
          {"stxstattarget", int4},
          {"stxkeys", int2s},
          {"stxkind", SqlType::Array(SqlType::Char(-1))}},
         nullptr},
        {"pg_catalog.pg_publication",
         {{"oid", oid},
          {"pubname", text},
          {"pubowner", oid},
          {"puballtables", boolean},
          {"pubinsert", boolean},
          {"pubupdate", boolean},
          {"pubdelete", boolean},
          {"pubtruncate", boolean},
          {"pubviaroot", boolean}},
         nullptr},
        {"pg_catalog.pg_publication_namespace",
         {{"oid", oid}, {"pnpubid", oid}, {"pnnspid", oid}},
         nullptr},
        {"pg_catalog.pg_publication_rel",
         {{"oid", oid},
          {"prpubid", oid},
          {"prrelid", oid},
          {"prqual", opt_text},
          {"prattrs", int2s}},
         nullptr},
    };
  }();
  return *relations;
}

const CatalogRelation* Find(const std::string& name) {
  for (const CatalogRelation& r : Relations()) {
    if (name == r.name) return &r;
  }
  return nullptr;
}

}  // namespace

bool IsCatalogRelation(const std::string& name) { return Find(name) != nullptr; }

Status AddCatalogRelations(const std::map<std::string, RelationInfo>& relations,
                           sql::Catalog* catalog) {
  for (const CatalogRelation& r : Relations()) {
    sql::TableDef t;
    t.name = r.name;
    for (const auto& [c, type] : r.columns) t.columns.push_back({c, type});
    SLUICE_RETURN_IF_ERROR(catalog->AddTable(std::move(t)));
  }
  const sql::PgOids oids = sql::AssignPgOids(*catalog);
  sql::Catalog::PgDefinitions defs;
  for (const auto& [name, info] : relations) {
    if (!info.is_table) {
      // As PostgreSQL prints it (sql/deparse.h).
      defs["pg_get_viewdef"][oids.relations.at(name)] = info.pg_definition;
      defs[sql::kPgViewdefPretty][oids.relations.at(name)] = info.pg_definition_pretty;
    } else if (!info.rel.key.empty()) {
      const std::string key = sql::PrimaryKeyName(name);
      defs["pg_get_indexdef"][oids.key_indexes.at(name)] =
          "CREATE UNIQUE INDEX " + QuoteIdent(key) + " ON " + QuoteIdent(name) + " USING btree (" +
          KeyColumns(info) + ")";
      defs["pg_get_constraintdef"][oids.key_constraints.at(name)] =
          "PRIMARY KEY (" + KeyColumns(info) + ")";
    }
  }
  catalog->set_pg_definitions(std::move(defs));
  return Status::OK();
}

Result<std::vector<BatchPtr>> CatalogRows(const std::string& name,
                                          const std::map<std::string, RelationInfo>& relations,
                                          const sql::Catalog& catalog) {
  const CatalogRelation* r = Find(name);
  SLUICE_CHECK(r != nullptr);
  Schema schema;
  for (const auto& [c, type] : r->columns) schema.push_back(type);
  BatchBuilder builder;
  if (r->rows) {
    Described d{relations, sql::AssignPgOids(catalog), {}};
    for (const auto& [name, def] : catalog.sequences()) d.sequences.push_back(name);
    std::string row;
    for (const std::vector<Value>& values : r->rows(d)) {
      row.clear();
      SLUICE_RETURN_IF_ERROR(EncodeRow(schema, values, &row));
      builder.Push(row, 1);
    }
  }
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr b, builder.Finish());
  return std::vector<BatchPtr>{b};
}

}  // namespace sluice::pipeline
