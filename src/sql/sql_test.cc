// SQL tests that look inside: errors with their caret, and the plan's scan
// prefixes. The end-to-end scripts are files in tests/slt/ (a ctest each,
// run by `sluice slt`) and tests/sql/ (checked against PostgreSQL).
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

// Equalities on the leading columns read only the rows that start with
// them (a seek in each batch); the answers must be those of a scan.

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
