// psql's describe commands, as psql 15 sends them (captured with psql -E
// from a PostgreSQL 15 server holding the same tables and views), bound and
// run as ad hoc queries over the catalog relations of a small program.
#include "pipeline/pg_catalog.h"

#include <gtest/gtest.h>

#include "pipeline/adhoc.h"
#include "sql/expr.h"

namespace sluice::pipeline {
namespace {

constexpr const char* kProgram = R"(
CREATE TABLE person (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(20), balance DECIMAL(10,2),
                     born DATE) WITH ('materialized' = 'true');
CREATE TABLE event (person_id BIGINT, at TIMESTAMP NOT NULL, kind VARCHAR);
CREATE VIEW rich AS SELECT id, name FROM person WHERE balance > 100;
CREATE MATERIALIZED VIEW counts AS
  SELECT person_id, count(*) AS n FROM event GROUP BY person_id;
)";

class PgCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto program = sql::CompileProgram(kProgram);
    ASSERT_TRUE(program.ok()) << program.status().message();
    auto info = DescribeProgram(*program, ".");
    ASSERT_TRUE(info.ok()) << info.status().message();
    relations_ = info->relations;
  }

  // The query's rows as psql -A prints them: values joined by '|', NULL as
  // an empty field.
  std::vector<std::string> Run(const std::string& text) {
    auto q = BindAdhoc(relations_, text);
    EXPECT_TRUE(q.ok()) << q.status().message();
    if (!q.ok()) return {};
    EXPECT_TRUE(q->scanned.empty());
    auto result = EvaluateAdhoc(*q, {}, 2);
    EXPECT_TRUE(result.ok()) << result.status().message();
    if (!result.ok()) return {};
    std::vector<std::string> out;
    for (const sql::Row& row : result->rows) {
      std::string line;
      for (size_t i = 0; i < row.size(); ++i) {
        if (i > 0) line += "|";
        if (!row[i].is_null()) line += sql::ValueToPgText(row[i], result->columns[i].type);
      }
      out.push_back(line);
    }
    return out;
  }

  // psql's first query of \d NAME: the relation's OID.
  std::string OidOf(const std::string& name) {
    auto rows = Run(R"(SELECT c.oid,
  n.nspname,
  c.relname
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relname OPERATOR(pg_catalog.~) '^()" +
                    name +
                    R"()$' COLLATE pg_catalog.default
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY 2, 3;)");
    EXPECT_EQ(rows.size(), 1u);
    if (rows.size() != 1) return "0";
    const std::string oid = rows[0].substr(0, rows[0].find('|'));
    EXPECT_EQ(rows[0], oid + "|public|" + name);
    return oid;
  }

  std::map<std::string, RelationInfo> relations_;
};

std::string ListQuery(const std::string& kinds) {
  return R"(SELECT n.nspname as "Schema",
  c.relname as "Name",
  CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'i' THEN 'index' WHEN 'S' THEN 'sequence' WHEN 't' THEN 'TOAST table' WHEN 'f' THEN 'foreign table' WHEN 'p' THEN 'partitioned table' WHEN 'I' THEN 'partitioned index' END as "Type",
  pg_catalog.pg_get_userbyid(c.relowner) as "Owner"
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam
WHERE c.relkind IN ()" +
         kinds + R"()
      AND n.nspname <> 'pg_catalog'
      AND n.nspname !~ '^pg_toast'
      AND n.nspname <> 'information_schema'
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY 1,2;)";
}

TEST_F(PgCatalogTest, ListTables) {  // \dt
  EXPECT_EQ(Run(ListQuery("'r','p',''")),
            (std::vector<std::string>{"public|event|table|sluice", "public|person|table|sluice"}));
}

TEST_F(PgCatalogTest, ListViews) {  // \dv: every view, materialized or not
  EXPECT_EQ(Run(ListQuery("'v',''")),
            (std::vector<std::string>{"public|counts|view|sluice", "public|rich|view|sluice"}));
  EXPECT_TRUE(Run(ListQuery("'m',''")).empty());  // \dm
}

TEST_F(PgCatalogTest, ListRelations) {  // \d
  EXPECT_EQ(Run(ListQuery("'r','p','v','m','S','f',''")),
            (std::vector<std::string>{"public|counts|view|sluice", "public|event|table|sluice",
                                      "public|person|table|sluice", "public|rich|view|sluice"}));
}

TEST_F(PgCatalogTest, ListWithDetails) {  // \dt+, \dv+
  auto query = [](const std::string& kinds, const std::string& am) {
    return R"(SELECT n.nspname as "Schema",
  c.relname as "Name",
  CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'i' THEN 'index' WHEN 'S' THEN 'sequence' WHEN 't' THEN 'TOAST table' WHEN 'f' THEN 'foreign table' WHEN 'p' THEN 'partitioned table' WHEN 'I' THEN 'partitioned index' END as "Type",
  pg_catalog.pg_get_userbyid(c.relowner) as "Owner",
  CASE c.relpersistence WHEN 'p' THEN 'permanent' WHEN 't' THEN 'temporary' WHEN 'u' THEN 'unlogged' END as "Persistence",
)" + am + R"(  pg_catalog.pg_size_pretty(pg_catalog.pg_table_size(c.oid)) as "Size",
  pg_catalog.obj_description(c.oid, 'pg_class') as "Description"
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam
WHERE c.relkind IN ()" +
           kinds + R"()
      AND n.nspname <> 'pg_catalog'
      AND n.nspname !~ '^pg_toast'
      AND n.nspname <> 'information_schema'
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY 1,2;)";
  };
  // The size of an integral is not the catalog's to know: no Size.
  EXPECT_EQ(Run(query("'r','p',''", "  am.amname as \"Access method\",\n")),
            (std::vector<std::string>{"public|event|table|sluice|permanent|heap||",
                                      "public|person|table|sluice|permanent|heap||"}));
  EXPECT_EQ(Run(query("'v',''", "")),
            (std::vector<std::string>{"public|counts|view|sluice|permanent||",
                                      "public|rich|view|sluice|permanent||"}));
  EXPECT_EQ(Run("SELECT pg_size_pretty(x) FROM (VALUES (0), (10239), (10240), (1048575), "
                "(1073741824), (-20000)) v(x) ORDER BY x"),
            (std::vector<std::string>{"-20 kB", "0 bytes", "10239 bytes", "10 kB", "1024 kB",
                                      "1024 MB"}));
}

TEST_F(PgCatalogTest, ListIndexes) {  // \di
  EXPECT_EQ(Run(R"(SELECT n.nspname as "Schema",
  c.relname as "Name",
  CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'i' THEN 'index' WHEN 'S' THEN 'sequence' WHEN 't' THEN 'TOAST table' WHEN 'f' THEN 'foreign table' WHEN 'p' THEN 'partitioned table' WHEN 'I' THEN 'partitioned index' END as "Type",
  pg_catalog.pg_get_userbyid(c.relowner) as "Owner",
  c2.relname as "Table"
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam
     LEFT JOIN pg_catalog.pg_index i ON i.indexrelid = c.oid
     LEFT JOIN pg_catalog.pg_class c2 ON i.indrelid = c2.oid
WHERE c.relkind IN ('i','I','')
      AND n.nspname <> 'pg_catalog'
      AND n.nspname !~ '^pg_toast'
      AND n.nspname <> 'information_schema'
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY 1,2;)"),
            (std::vector<std::string>{"public|person_pkey|index|sluice|person"}));
}

TEST_F(PgCatalogTest, ListRolesAndTypes) {  // \du, \dT
  EXPECT_EQ(Run(R"(SELECT r.rolname, r.rolsuper, r.rolinherit,
  r.rolcreaterole, r.rolcreatedb, r.rolcanlogin,
  r.rolconnlimit, r.rolvaliduntil,
  ARRAY(SELECT b.rolname
        FROM pg_catalog.pg_auth_members m
        JOIN pg_catalog.pg_roles b ON (m.roleid = b.oid)
        WHERE m.member = r.oid) as memberof
, r.rolreplication
, r.rolbypassrls
FROM pg_catalog.pg_roles r
WHERE r.rolname !~ '^pg_'
ORDER BY 1;)"),
            (std::vector<std::string>{"sluice|t|t|t|t|t|-1||{}|f|f"}));
  // Every type is pg_catalog's: \dT lists none, as PostgreSQL's does.
  EXPECT_TRUE(Run(R"(SELECT n.nspname as "Schema",
  pg_catalog.format_type(t.oid, NULL) AS "Name",
  pg_catalog.obj_description(t.oid, 'pg_type') as "Description"
FROM pg_catalog.pg_type t
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
WHERE (t.typrelid = 0 OR (SELECT c.relkind = 'c' FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid))
  AND NOT EXISTS(SELECT 1 FROM pg_catalog.pg_type el WHERE el.oid = t.typelem AND el.typarray = t.oid)
      AND n.nspname <> 'pg_catalog'
      AND n.nspname <> 'information_schema'
  AND pg_catalog.pg_type_is_visible(t.oid)
ORDER BY 1, 2;)")
                  .empty());
  EXPECT_EQ(Run("SELECT count(*) FROM pg_type WHERE typname IN ('int4', '_int4', 'varchar')"),
            (std::vector<std::string>{"3"}));
}

TEST_F(PgCatalogTest, ListSchemas) {  // \dn
  EXPECT_EQ(Run(R"(SELECT n.nspname AS "Name",
  pg_catalog.pg_get_userbyid(n.nspowner) AS "Owner"
FROM pg_catalog.pg_namespace n
WHERE n.nspname !~ '^pg_' AND n.nspname <> 'information_schema'
ORDER BY 1;)"),
            (std::vector<std::string>{"public|sluice"}));
  EXPECT_EQ(Run(R"(SELECT n.nspname AS "Name",
  pg_catalog.pg_get_userbyid(n.nspowner) AS "Owner",
  pg_catalog.array_to_string(n.nspacl, E'\n') AS "Access privileges",
  pg_catalog.obj_description(n.oid, 'pg_namespace') AS "Description"
FROM pg_catalog.pg_namespace n
WHERE n.nspname !~ '^pg_' AND n.nspname <> 'information_schema'
ORDER BY 1;)"),
            (std::vector<std::string>{"public|sluice||"}));  // \dn+
}

TEST_F(PgCatalogTest, ListDatabases) {  // \l
  EXPECT_EQ(Run(R"(SELECT d.datname as "Name",
       pg_catalog.pg_get_userbyid(d.datdba) as "Owner",
       pg_catalog.pg_encoding_to_char(d.encoding) as "Encoding",
       d.datcollate as "Collate",
       d.datctype as "Ctype",
       d.daticulocale as "ICU Locale",
       CASE d.datlocprovider WHEN 'c' THEN 'libc' WHEN 'i' THEN 'icu' END AS "Locale Provider",
       pg_catalog.array_to_string(d.datacl, E'\n') AS "Access privileges"
FROM pg_catalog.pg_database d
ORDER BY 1;)"),
            (std::vector<std::string>{"sluice|sluice|UTF8|C|C||libc|"}));
  EXPECT_EQ(Run(R"(SELECT d.datname as "Name",
       pg_catalog.pg_get_userbyid(d.datdba) as "Owner",
       pg_catalog.pg_encoding_to_char(d.encoding) as "Encoding",
       d.datcollate as "Collate",
       d.datctype as "Ctype",
       d.daticulocale as "ICU Locale",
       CASE d.datlocprovider WHEN 'c' THEN 'libc' WHEN 'i' THEN 'icu' END AS "Locale Provider",
       pg_catalog.array_to_string(d.datacl, E'\n') AS "Access privileges",
       CASE WHEN pg_catalog.has_database_privilege(d.datname, 'CONNECT')
            THEN pg_catalog.pg_size_pretty(pg_catalog.pg_database_size(d.datname))
            ELSE 'No Access'
       END as "Size",
       t.spcname as "Tablespace",
       pg_catalog.shobj_description(d.oid, 'pg_database') as "Description"
FROM pg_catalog.pg_database d
  JOIN pg_catalog.pg_tablespace t on d.dattablespace = t.oid
ORDER BY 1;)"),
            (std::vector<std::string>{"sluice|sluice|UTF8|C|C||libc|||pg_default|"}));  // \l+
}

// The queries of \d NAME that every relation kind runs.
std::string RelationQuery(const std::string& oid) {
  return R"(SELECT c.relchecks, c.relkind, c.relhasindex, c.relhasrules, c.relhastriggers, c.relrowsecurity, c.relforcerowsecurity, false AS relhasoids, c.relispartition, '', c.reltablespace, CASE WHEN c.reloftype = 0 THEN '' ELSE c.reloftype::pg_catalog.regtype::pg_catalog.text END, c.relpersistence, c.relreplident, am.amname
FROM pg_catalog.pg_class c
 LEFT JOIN pg_catalog.pg_class tc ON (c.reltoastrelid = tc.oid)
LEFT JOIN pg_catalog.pg_am am ON (c.relam = am.oid)
WHERE c.oid = ')" +
         oid + "';";
}

std::string ColumnsQuery(const std::string& oid) {
  return R"(SELECT a.attname,
  pg_catalog.format_type(a.atttypid, a.atttypmod),
  (SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid, true)
   FROM pg_catalog.pg_attrdef d
   WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef),
  a.attnotnull,
  (SELECT c.collname FROM pg_catalog.pg_collation c, pg_catalog.pg_type t
   WHERE c.oid = a.attcollation AND t.oid = a.atttypid AND a.attcollation <> t.typcollation) AS attcollation,
  a.attidentity,
  a.attgenerated
FROM pg_catalog.pg_attribute a
WHERE a.attrelid = ')" +
         oid + R"(' AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum;)";
}

TEST_F(PgCatalogTest, DescribeTable) {  // \d person
  const std::string oid = OidOf("person");
  EXPECT_EQ(Run(RelationQuery(oid)), (std::vector<std::string>{"0|r|t|f|f|f|f|f|f||0||p|d|heap"}));
  EXPECT_EQ(Run(ColumnsQuery(oid)),
            (std::vector<std::string>{"id|bigint||t|||", "name|character varying(20)||f|||",
                                      "balance|numeric(10,2)||f|||", "born|date||f|||"}));
  // \d+ person's columns: storage, compression, statistics target too.
  EXPECT_EQ(
      Run(R"(SELECT a.attname,
  pg_catalog.format_type(a.atttypid, a.atttypmod),
  (SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid, true)
   FROM pg_catalog.pg_attrdef d
   WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef),
  a.attnotnull,
  (SELECT c.collname FROM pg_catalog.pg_collation c, pg_catalog.pg_type t
   WHERE c.oid = a.attcollation AND t.oid = a.atttypid AND a.attcollation <> t.typcollation) AS attcollation,
  a.attidentity,
  a.attgenerated,
  a.attstorage,
  a.attcompression AS attcompression,
  CASE WHEN a.attstattarget=-1 THEN NULL ELSE a.attstattarget END AS attstattarget,
  pg_catalog.col_description(a.attrelid, a.attnum)
FROM pg_catalog.pg_attribute a
WHERE a.attrelid = ')" +
          oid + R"(' AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum;)"),
      (std::vector<std::string>{"id|bigint||t||||p|||", "name|character varying(20)||f||||x|||",
                                "balance|numeric(10,2)||f||||m|||", "born|date||f||||p|||"}));
  // Indexes: "person_pkey" PRIMARY KEY, btree (id)
  EXPECT_EQ(
      Run(R"(SELECT c2.relname, i.indisprimary, i.indisunique, i.indisclustered, i.indisvalid, pg_catalog.pg_get_indexdef(i.indexrelid, 0, true),
  pg_catalog.pg_get_constraintdef(con.oid, true), contype, condeferrable, condeferred, i.indisreplident, c2.reltablespace
FROM pg_catalog.pg_class c, pg_catalog.pg_class c2, pg_catalog.pg_index i
  LEFT JOIN pg_catalog.pg_constraint con ON (conrelid = i.indrelid AND conindid = i.indexrelid AND contype IN ('p','u','x'))
WHERE c.oid = ')" +
          oid + R"(' AND c.oid = i.indrelid AND i.indexrelid = c2.oid
ORDER BY i.indisprimary DESC, c2.relname;)"),
      (std::vector<std::string>{"person_pkey|t|t|f|t|CREATE UNIQUE INDEX person_pkey ON person "
                                "USING btree (id)|PRIMARY KEY (id)|p|f|f|f|0"}));
  // Policies, statistics objects, publications, inheritance: none.
  EXPECT_TRUE(Run(R"(SELECT pol.polname, pol.polpermissive,
  CASE WHEN pol.polroles = '{0}' THEN NULL ELSE pg_catalog.array_to_string(array(select rolname from pg_catalog.pg_roles where oid = any (pol.polroles) order by 1),',') END,
  pg_catalog.pg_get_expr(pol.polqual, pol.polrelid),
  pg_catalog.pg_get_expr(pol.polwithcheck, pol.polrelid),
  CASE pol.polcmd
    WHEN 'r' THEN 'SELECT'
    WHEN 'a' THEN 'INSERT'
    WHEN 'w' THEN 'UPDATE'
    WHEN 'd' THEN 'DELETE'
    END AS cmd
FROM pg_catalog.pg_policy pol
WHERE pol.polrelid = ')" +
                  oid + R"(' ORDER BY 1;)")
                  .empty());
  EXPECT_TRUE(
      Run(R"(SELECT oid, stxrelid::pg_catalog.regclass, stxnamespace::pg_catalog.regnamespace::pg_catalog.text AS nsp, stxname,
pg_catalog.pg_get_statisticsobjdef_columns(oid) AS columns,
  'd' = any(stxkind) AS ndist_enabled,
  'f' = any(stxkind) AS deps_enabled,
  'm' = any(stxkind) AS mcv_enabled,
stxstattarget
FROM pg_catalog.pg_statistic_ext
WHERE stxrelid = ')" +
          oid + R"('
ORDER BY nsp, stxname;)")
          .empty());
  EXPECT_TRUE(Run(R"(SELECT pubname
     , NULL
     , NULL
FROM pg_catalog.pg_publication p
     JOIN pg_catalog.pg_publication_namespace pn ON p.oid = pn.pnpubid
     JOIN pg_catalog.pg_class pc ON pc.relnamespace = pn.pnnspid
WHERE pc.oid =')" +
                  oid + R"(' and pg_catalog.pg_relation_is_publishable(')" + oid + R"(')
UNION
SELECT pubname
     , pg_get_expr(pr.prqual, c.oid)
     , (CASE WHEN pr.prattrs IS NOT NULL THEN
         (SELECT string_agg(attname, ', ')
           FROM pg_catalog.generate_series(0, pg_catalog.array_upper(pr.prattrs::pg_catalog.int2[], 1)) s,
                pg_catalog.pg_attribute
          WHERE attrelid = pr.prrelid AND attnum = prattrs[s])
        ELSE NULL END) FROM pg_catalog.pg_publication p
     JOIN pg_catalog.pg_publication_rel pr ON p.oid = pr.prpubid
     JOIN pg_catalog.pg_class c ON c.oid = pr.prrelid
WHERE pr.prrelid = ')" +
                  oid + R"('
UNION
SELECT pubname
     , NULL
     , NULL
FROM pg_catalog.pg_publication p
WHERE p.puballtables AND pg_catalog.pg_relation_is_publishable(')" +
                  oid + R"(')
ORDER BY 1;)")
                  .empty());
  EXPECT_TRUE(Run(R"(SELECT c.oid::pg_catalog.regclass
FROM pg_catalog.pg_class c, pg_catalog.pg_inherits i
WHERE c.oid = i.inhparent AND i.inhrelid = ')" +
                  oid + R"('
  AND c.relkind != 'p' AND c.relkind != 'I'
ORDER BY inhseqno;)")
                  .empty());
  EXPECT_TRUE(
      Run(R"(SELECT c.oid::pg_catalog.regclass, c.relkind, inhdetachpending, pg_catalog.pg_get_expr(c.relpartbound, c.oid)
FROM pg_catalog.pg_class c, pg_catalog.pg_inherits i
WHERE c.oid = i.inhrelid AND i.inhparent = ')" +
          oid + R"('
ORDER BY pg_catalog.pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT', c.oid::pg_catalog.regclass::pg_catalog.text;)")
          .empty());
}

TEST_F(PgCatalogTest, DescribeView) {  // \d rich, \d+ rich
  const std::string oid = OidOf("rich");
  EXPECT_EQ(Run(RelationQuery(oid)), (std::vector<std::string>{"0|v|f|f|f|f|f|f|f||0||p|d|"}));
  EXPECT_EQ(Run(ColumnsQuery(oid)),
            // Unlike PostgreSQL's views, Sluice's know that a column is never NULL.
            (std::vector<std::string>{"id|bigint||t|||", "name|character varying(20)||f|||"}));
  EXPECT_EQ(
      Run(R"(SELECT a.attname,
  pg_catalog.format_type(a.atttypid, a.atttypmod),
  (SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid, true)
   FROM pg_catalog.pg_attrdef d
   WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef),
  a.attnotnull,
  (SELECT c.collname FROM pg_catalog.pg_collation c, pg_catalog.pg_type t
   WHERE c.oid = a.attcollation AND t.oid = a.atttypid AND a.attcollation <> t.typcollation) AS attcollation,
  a.attidentity,
  a.attgenerated,
  a.attstorage,
  pg_catalog.col_description(a.attrelid, a.attnum)
FROM pg_catalog.pg_attribute a
WHERE a.attrelid = ')" +
          oid + R"(' AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum;)"),
      (std::vector<std::string>{"id|bigint||t||||p|", "name|character varying(20)||f||||x|"}));
  // \d+ reads the relation's options too.
  EXPECT_EQ(
      Run(R"(SELECT c.relchecks, c.relkind, c.relhasindex, c.relhasrules, c.relhastriggers, c.relrowsecurity, c.relforcerowsecurity, false AS relhasoids, c.relispartition, pg_catalog.array_to_string(c.reloptions || array(select 'toast.' || x from pg_catalog.unnest(tc.reloptions) x), ', ')
, c.reltablespace, CASE WHEN c.reloftype = 0 THEN '' ELSE c.reloftype::pg_catalog.regtype::pg_catalog.text END, c.relpersistence, c.relreplident, am.amname
FROM pg_catalog.pg_class c
 LEFT JOIN pg_catalog.pg_class tc ON (c.reltoastrelid = tc.oid)
LEFT JOIN pg_catalog.pg_am am ON (c.relam = am.oid)
WHERE c.oid = ')" +
          oid + "';"),
      (std::vector<std::string>{"0|v|f|f|f|f|f|f|f||0||p|d|"}));
  EXPECT_EQ(Run("SELECT pg_catalog.pg_get_viewdef('" + oid + "'::pg_catalog.oid, true);"),
            (std::vector<std::string>{" SELECT person.id,\n    person.name\n   FROM person\n  "
                                      "WHERE person.balance > 100::numeric;"}));
  // Not pretty, by name: every operator in parentheses, as PostgreSQL prints it.
  EXPECT_EQ(Run("SELECT pg_get_viewdef('rich');"),
            (std::vector<std::string>{" SELECT person.id,\n    person.name\n   FROM person\n  "
                                      "WHERE (person.balance > (100)::numeric);"}));
  EXPECT_TRUE(
      Run(R"(SELECT r.rulename, trim(trailing ';' from pg_catalog.pg_get_ruledef(r.oid, true))
FROM pg_catalog.pg_rewrite r
WHERE r.ev_class = ')" +
          oid + R"(' AND r.rulename != '_RETURN' ORDER BY 1;)")
          .empty());
  // A view has no index.
  EXPECT_EQ(Run("SELECT count(*) FROM pg_index WHERE indrelid = " + oid),
            (std::vector<std::string>{"0"}));
}

TEST_F(PgCatalogTest, OidsAreStableAndNamed) {
  const std::string person = OidOf("person");
  EXPECT_GE(std::stoll(person), 16384);
  // The same program gives the same OIDs; another relation moves none.
  EXPECT_EQ(Run("SELECT 'person'::regclass, 'public.person'::pg_catalog.regclass::oid"),
            (std::vector<std::string>{person + "|" + person}));
  relations_["zebra"] = relations_.at("event");
  EXPECT_EQ(OidOf("person"), person);
  EXPECT_EQ(Run("SELECT c.oid::regclass, c.oid::regclass::text FROM pg_class c WHERE c.oid = '" +
                person + "'"),
            (std::vector<std::string>{"person|person"}));
  EXPECT_EQ(Run("SELECT 'int4'::regtype, 23::regtype::text, 'character varying'::regtype::oid"),
            (std::vector<std::string>{"23|integer|1043"}));
  // Unqualified names read pg_catalog, as PostgreSQL's search path does.
  EXPECT_EQ(Run("SELECT relname FROM pg_class WHERE relkind = 'i'"),
            (std::vector<std::string>{"person_pkey"}));
  auto bad = BindAdhoc(relations_, "SELECT 'nobody'::regclass");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("relation \"nobody\" does not exist"), std::string::npos)
      << bad.status().message();
  EXPECT_EQ(Run("SELECT current_user, current_database(), current_schema(), "
                "pg_catalog.version() LIKE 'PostgreSQL 15%'"),
            (std::vector<std::string>{"sluice|sluice|public|t"}));
}

TEST_F(PgCatalogTest, InformationSchemaAgrees) {
  EXPECT_EQ(Run("SELECT table_name, table_type FROM information_schema.tables ORDER BY 1"),
            (std::vector<std::string>{"counts|VIEW", "event|BASE TABLE", "person|BASE TABLE",
                                      "rich|VIEW"}));
  EXPECT_EQ(Run("SELECT c.column_name, format_type(a.atttypid, a.atttypmod) "
                "FROM information_schema.columns c JOIN pg_class r ON r.relname = c.table_name "
                "JOIN pg_attribute a ON a.attrelid = r.oid AND a.attname = c.column_name "
                "WHERE c.table_name = 'person' ORDER BY c.ordinal_position"),
            (std::vector<std::string>{"id|bigint", "name|character varying(20)",
                                      "balance|numeric(10,2)", "born|date"}));
}

}  // namespace
}  // namespace sluice::pipeline
