// End-to-end SQL tests: small sqllogictest scripts run through the same
// runner as `sluice slt`, so every query is checked both as a view over
// existing data and as a view maintained while the data arrives.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "sql/binder.h"
#include "sql/catalog.h"
#include "sql/parser.h"
#include "sql/query.h"
#include "sql/slt.h"
#include "types/row_codec.h"

namespace sluice::sql {
namespace {

SltCounts RunScript(const std::string& script, std::string* output) {
  std::string path = ::testing::TempDir() + "/sql_test_" + std::to_string(::getpid()) + ".test";
  {
    std::ofstream out(path);
    out << script;
  }
  char* buf = nullptr;
  size_t len = 0;
  FILE* mem = open_memstream(&buf, &len);
  SltOptions opts;
  opts.workers = 3;
  opts.verbose = true;
  SltCounts c = RunSltFile(path, opts, mem);
  std::fclose(mem);
  *output = std::string(buf, len);
  std::free(buf);
  std::remove(path.c_str());
  return c;
}

void ExpectAllPass(const std::string& script, int64_t expected_records) {
  std::string out;
  SltCounts c = RunScript(script, &out);
  EXPECT_EQ(c.failed, 0) << out;
  EXPECT_EQ(c.passed, expected_records) << out;
}

const char* kTables = R"(
statement ok
CREATE TABLE t1(a INTEGER, b INTEGER, c TEXT)

statement ok
CREATE TABLE t2(x INTEGER PRIMARY KEY, y FLOAT)

statement ok
INSERT INTO t1 VALUES(1, 10, 'one'), (2, 20, 'two'), (3, NULL, 'three')

statement ok
INSERT INTO t1(c, a) VALUES('four', 4)

statement ok
INSERT INTO t2 VALUES(1, 1.5), (2, 2.5), (5, NULL)

)";

TEST(SqlTest, ProjectionsFiltersAndExpressions) {
  ExpectAllPass(std::string(kTables) + R"(
query IIT rowsort
SELECT a, b * 2 + 1, c FROM t1 WHERE a >= 2
----
2
41
two
3
NULL
three
4
NULL
four

query I nosort
SELECT CASE WHEN b IS NULL THEN -1 WHEN b > 10 THEN 1 ELSE 0 END FROM t1 ORDER BY a DESC
----
-1
-1
1
0

query IT rowsort
SELECT a, c FROM t1 WHERE c LIKE 't%' AND a BETWEEN 1 AND 3 AND a NOT IN (3)
----
2
two

query TTTI nosort
SELECT substr('hello', 2, 3), trim('  hi  '), replace('abcabc', 'b', 'XY'), position('c' IN 'abc')
----
ell
hi
aXYcaXYc
3

query TTTT nosort
SELECT split_part('a/b//c', '/', 2), split_part('a/b//c', '/', 3), split_part('a/b//c', '/', -1), split_part('abc', '/', 5)
----
b
(empty)
c
(empty)

query TIIRRRI nosort
SELECT upper(substring('hello' FROM 4)), length('straße'), sign(-4), sqrt(16.0), power(2, 10), floor(-2.5), ceil(2.1)
----
LO
6
-1
4.000
1024.000
-3.000
3

query R nosort
SELECT round(2.5) + round(-2.5) + round(3.14159, 2)
----
3.140

query R nosort
SELECT 7 / 2 + 1.5 * 2
----
6.000

query II nosort
SELECT COALESCE(b, a), NULLIF(a, 2) FROM t1 ORDER BY 1
----
3
3
4
4
10
1
20
NULL

statement error
SELECT sqrt(-1.0)
)",
                15);
}

TEST(SqlTest, JoinsAggregatesAndSetOperations) {
  ExpectAllPass(std::string(kTables) + R"(
query IR rowsort
SELECT a, y FROM t1 JOIN t2 ON a = x
----
1
1.500
2
2.500

query IR rowsort
SELECT a, y FROM t1 LEFT JOIN t2 ON t1.a = t2.x WHERE a > 1
----
2
2.500
3
NULL
4
NULL

query II rowsort
SELECT x, a FROM t1 RIGHT JOIN t2 ON a = x
----
1
1
2
2
5
NULL

query IIIR nosort
SELECT COUNT(*), COUNT(b), SUM(b), AVG(b) FROM t1
----
4
2
30
15.000

query II rowsort
SELECT b IS NULL, COUNT(*) FROM t1 GROUP BY b IS NULL HAVING COUNT(*) > 1
----
0
2
1
2

query I nosort
SELECT COUNT(*) FROM t1 WHERE a > 100
----
0

query I rowsort
SELECT a FROM t1 UNION SELECT x FROM t2
----
1
2
3
4
5

query I rowsort
SELECT a FROM t1 EXCEPT SELECT x FROM t2
----
3
4

query I rowsort
SELECT a FROM t1 INTERSECT SELECT x FROM t2
----
1
2

query I rowsort
SELECT a % 2 FROM t1 EXCEPT ALL SELECT x % 2 FROM t2 WHERE x < 3
----
0
1

query I rowsort
SELECT a % 2 FROM t1 INTERSECT ALL SELECT x % 2 FROM t2
----
0
1
1

query II rowsort
WITH big(n, m) AS (SELECT a, b FROM t1 WHERE b > 5), twice AS (SELECT n * 2 AS n2 FROM big)
SELECT n, (SELECT MAX(n2) FROM twice) FROM big
----
1
4
2
4

query I nosort
SELECT a FROM t1 ORDER BY a DESC LIMIT 2
----
4
3

query IIT rowsort
SELECT x, y, c FROM (
  SELECT b IS NULL AS x, a AS y, c, ROW_NUMBER() OVER (PARTITION BY b IS NULL ORDER BY a DESC) AS rn
  FROM t1) s
WHERE rn <= 1
----
0
2
two
1
4
four

query II rowsort
SELECT g, r FROM (
  SELECT a % 2 AS g, RANK() OVER (PARTITION BY a % 2 ORDER BY b IS NULL) AS r FROM t1) s
WHERE r <= 1
----
0
1
1
1

query II rowsort
SELECT n, d FROM (SELECT b IS NULL AS n, DENSE_RANK() OVER (ORDER BY b IS NULL) AS d FROM t1) s
WHERE d <= 2
----
0
1
0
1
1
2
1
2

query I nosort
SELECT a FROM t1 ORDER BY a LIMIT 2 OFFSET 1
----
2
3
)",
                22);
}

TEST(SqlTest, SubqueriesAndDml) {
  ExpectAllPass(std::string(kTables) + R"(
query I rowsort
SELECT a FROM t1 WHERE a IN (SELECT x FROM t2)
----
1
2

query I rowsort
SELECT a FROM t1 WHERE a NOT IN (SELECT x FROM t2 WHERE x < 5)
----
3
4

query II rowsort
SELECT a, (SELECT MAX(x) FROM t2) FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE x > 4)
----
1
5
2
5
3
5
4
5

statement ok
DELETE FROM t1 WHERE b IS NULL

statement ok
UPDATE t1 SET b = b + 1 WHERE a = 1

query II rowsort
SELECT a, b FROM t1
----
1
11
2
20

statement ok
CREATE VIEW v AS SELECT a, b FROM t1 WHERE b > 15

query I nosort
SELECT a FROM v
----
2

query TTT nosort
SELECT NULL IN (SELECT x FROM t2), NULLIF(NULL, 1), NULL IS DISTINCT FROM 1
----
NULL
NULL
true

query I nosort
SELECT COUNT(*) FROM t1 WHERE NULL NOT IN (SELECT x FROM t2 WHERE x > 100)
----
2

statement error
INSERT INTO t2 VALUES(1, 0.5)

statement error
SELECT nope FROM t1
)",
                17);
}

TEST(SqlTest, DatesTimesAndTumblingWindows) {
  ExpectAllPass(R"(
statement ok
CREATE TABLE ev(id INTEGER, ts TIMESTAMP, d DATE)

statement ok
INSERT INTO ev VALUES (1, '2024-01-31 10:15:00', '2024-02-29'), (2, TIMESTAMP '2024-01-31 11:45:30.5', DATE '2023-12-31'), (3, NULL, NULL)

query TIT rowsort
SELECT date_bin(INTERVAL '1 hour', ts, TIMESTAMP '2000-01-01'), COUNT(*), MIN(d) FROM ev WHERE ts IS NOT NULL GROUP BY 1
----
2024-01-31 10:00:00
1
2024-02-29
2024-01-31 11:00:00
1
2023-12-31

query TTTT nosort
SELECT ts + INTERVAL '1 month', d - 1, CAST(d AS TIMESTAMP), ts - TIMESTAMP '2024-01-30 00:00:00' FROM ev WHERE id = 1
----
2024-02-29 10:15:00
2024-02-28
2024-02-29 00:00:00
1 day 10:15:00

query RIT nosort
SELECT EXTRACT(hour FROM ts), d - DATE '2024-01-01', date_trunc('month', ts) FROM ev WHERE id = 2
----
11.000
-1
2024-01-01 00:00:00

query I nosort
SELECT COUNT(*) FROM ev WHERE ts > '2024-01-31 11:00' AND d < DATE '2024-01-01'
----
1
)",
                6);
}

TEST(SqlTest, RollingAggregates) {
  ExpectAllPass(R"(
statement ok
CREATE TABLE m(p INTEGER, ts TIMESTAMP, x INTEGER)

statement ok
INSERT INTO m VALUES (1, '2024-01-01 00:00', 1), (1, '2024-01-01 00:30', 2), (1, '2024-01-01 01:15', 4)

statement ok
INSERT INTO m VALUES (2, '2024-01-01 00:10', 8), (1, '2024-01-01 02:00', 16)

query III rowsort
SELECT p, x, SUM(x) OVER (PARTITION BY p ORDER BY ts RANGE BETWEEN INTERVAL '1 hour' PRECEDING AND CURRENT ROW) FROM m
----
1
1
1
1
16
20
1
2
3
1
4
6
2
8
8

query II rowsort
SELECT x, COUNT(*) OVER (ORDER BY x RANGE BETWEEN 3 PRECEDING AND CURRENT ROW) FROM m
----
1
1
16
1
2
2
4
3
8
1

statement ok
DELETE FROM m WHERE x = 2

query II rowsort
SELECT x, MAX(x) OVER (PARTITION BY p ORDER BY ts RANGE BETWEEN INTERVAL '45 minutes' PRECEDING AND CURRENT ROW) FROM m WHERE p = 1
----
1
1
16
16
4
4
)",
                7);
}

TEST(SqlTest, HoppingAndTumblingWindows) {
  ExpectAllPass(R"(
statement ok
CREATE TABLE ev(id INTEGER, ts TIMESTAMP, d DATE)

statement ok
INSERT INTO ev VALUES (1, '2024-01-31 10:15:00', '2024-02-29'), (2, '2024-01-31 11:45:30.5', '2024-03-01'), (3, NULL, NULL), (4, '2024-01-31 10:40:00', '2024-02-29')

query TTI rowsort
SELECT w.window_start, w.window_end, COUNT(*) FROM ev, hop(ev.ts, INTERVAL '30 minutes', INTERVAL '1 hour') AS w GROUP BY 1, 2
----
2024-01-31 09:30:00
2024-01-31 10:30:00
1
2024-01-31 10:00:00
2024-01-31 11:00:00
2
2024-01-31 10:30:00
2024-01-31 11:30:00
1
2024-01-31 11:00:00
2024-01-31 12:00:00
1
2024-01-31 11:30:00
2024-01-31 12:30:00
1

query IT rowsort
SELECT id, s FROM ev, tumble(ts + INTERVAL '5 minutes', INTERVAL '1 hour', TIMESTAMP '2000-01-01 00:30') AS t(s, e) WHERE e > TIMESTAMP '2024-01-31 11:00'
----
2
2024-01-31 11:30:00
4
2024-01-31 10:30:00

query TI rowsort
SELECT window_start, SUM(id) FROM ev, hop(d, INTERVAL '1 day', INTERVAL '2 days') GROUP BY window_start
----
2024-02-28 00:00:00
5
2024-02-29 00:00:00
7
2024-03-01 00:00:00
2

statement ok
CREATE TABLE n(x INTEGER)

statement ok
INSERT INTO n VALUES (7), (-3)

query III rowsort
SELECT x, window_start, window_end FROM n, hop(x, 5, 10)
----
-3
-10
0
-3
-5
5
7
0
10
7
5
15

statement error
SELECT * FROM ev, hop(ts, INTERVAL '1 month', INTERVAL '2 months')

statement error
SELECT * FROM ev, generate_series(1, 3)

statement error
SELECT * FROM ev, n, hop(id + x, 1, 2)
)",
                11);
}

TEST(SqlTest, Arrays) {
  ExpectAllPass(R"(
statement ok
CREATE TABLE a(id INTEGER, xs INTEGER[], tags TEXT ARRAY)

statement ok
INSERT INTO a VALUES (1, '{1,2,3}', '{"a b",c}'), (2, ARRAY[4, NULL], ARRAY['x']), (3, NULL, '{}'), (4, '{1,2,3}', NULL)

query ITT rowsort
SELECT id, xs, tags FROM a
----
1
{1,2,3}
{"a b",c}
2
{4,NULL}
{x}
3
NULL
{}
4
{1,2,3}
NULL

query IIIIT rowsort
SELECT id, xs[1], xs[5], cardinality(xs), array_to_string(tags, '|') FROM a
----
1
1
NULL
3
a b|c
2
4
NULL
2
x
3
NULL
NULL
NULL
(empty)
4
1
NULL
3
NULL

query TI rowsort
SELECT xs, COUNT(*) FROM a GROUP BY xs
----
NULL
1
{1,2,3}
2
{4,NULL}
1

query II rowsort
SELECT x.id, y.id FROM a x JOIN a y ON x.xs = y.xs AND x.id < y.id
----
1
4

query TII nosort
SELECT ARRAY[id, id * 2], array_length(xs, 1), array_position(xs, 2) FROM a WHERE id = 1
----
{1,2}
3
2

query I rowsort
SELECT id FROM a WHERE xs < ARRAY[2] AND xs > '{1,1}'
----
1
4

statement error
SELECT ARRAY[]

statement error
SELECT id[1] FROM a

statement error
INSERT INTO a VALUES (5, '{1,', NULL)
)",
                11);
}

TEST(SqlTest, ErrorsPointAtTheSpot) {
  auto r = ParseSql("SELECT a\nFROM t1 WHERE a >");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.status().message(),
      "line 2, column 18: syntax error at end of input\n  FROM t1 WHERE a >\n                   ^");
  std::string out;
  SltCounts c = RunScript(std::string(kTables) + R"(
query I nosort
SELECT a + c FROM t1
----
1
)",
                          &out);
  EXPECT_EQ(c.failed, 1);
  EXPECT_NE(out.find("operator does not exist: integer + text"), std::string::npos) << out;
  EXPECT_NE(out.find("^"), std::string::npos) << out;
}

}  // namespace
}  // namespace sluice::sql

namespace sluice::sql {
namespace {

// Equalities on the leading columns read only the rows that start with
// them (a seek in each batch); the answers must be those of a scan.
TEST(SqlTest, EqualityOnLeadingColumnsSeeks) {
  ExpectAllPass(R"(
statement ok
CREATE TABLE p (a INTEGER, b VARCHAR, c INTEGER)

statement ok
INSERT INTO p VALUES (1, 'x', 10), (1, 'x', 10), (1, 'y', 11), (2, 'x', 12), (NULL, 'x', 13), (10, 'x', 14), (-1, 'z', 15)

query I rowsort
SELECT c FROM p WHERE a = 1
----
10
10
11

query I rowsort
SELECT c FROM p WHERE b = 'x' AND a = 1 AND c > 0
----
10
10

query I rowsort
SELECT c FROM p WHERE a = -1
----
15

query I rowsort
SELECT c FROM p WHERE a = 1.0
----
10
10
11

query I rowsort
SELECT c FROM p WHERE a = CAST('2' AS INTEGER)
----
12

query I rowsort
SELECT c FROM p WHERE a = NULL
----

query I rowsort
SELECT p1.c FROM p p1 JOIN p p2 ON p1.c = p2.c WHERE p1.a = 2
----
12

query I rowsort
SELECT c FROM p WHERE a = 3
----
)",
                10);
}

TEST(SqlTest, ScanPrefixesAreTheLeadingColumnsCompared) {
  Catalog catalog;
  TableDef t;
  t.name = "p";
  t.columns = {{"a", SqlType::Integer()}, {"b", SqlType::Varchar()}, {"c", SqlType::Integer()}};
  ASSERT_TRUE(catalog.AddTable(t).ok());
  auto prefixes = [&](const std::string& sql) {
    auto tree = ParseSql(sql);
    EXPECT_TRUE(tree.ok());
    auto q = BindSelect(catalog, sql, (*tree)["stmts"][0]["stmt"]["SelectStmt"]);
    EXPECT_TRUE(q.ok()) << q.status().ToString();
    return ScanPrefixes(q->plan);
  };
  std::string both;
  ASSERT_TRUE(EncodeValue(SqlType::Integer(), Value::Int(1), &both).ok());
  const std::string one = both;
  ASSERT_TRUE(EncodeValue(SqlType::Varchar(), Value::String("x"), &both).ok());
  EXPECT_EQ(prefixes("SELECT c FROM p WHERE b = 'x' AND a = 1")["p"], both);
  EXPECT_EQ(prefixes("SELECT c FROM p WHERE a = 1 AND c = 3")["p"], one);
  // Not the leading column, not an equality, or the relation read twice:
  // no prefix.
  EXPECT_TRUE(prefixes("SELECT c FROM p WHERE b = 'x'").empty());
  EXPECT_TRUE(prefixes("SELECT c FROM p WHERE a > 1").empty());
  EXPECT_TRUE(prefixes("SELECT c FROM p WHERE a = 1 OR a = 2").empty());
  EXPECT_TRUE(prefixes("SELECT p1.c FROM p p1, p p2 WHERE p1.a = 1").empty());
}

}  // namespace
}  // namespace sluice::sql
