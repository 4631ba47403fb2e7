#include "sql/plpgsql.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sql/program.h"
#include "sql/session.h"

namespace sluice::sql {
namespace {

// The values of `query`'s one row, as text, run once over the data and
// once incrementally; an error's message instead.
std::vector<std::string> OneRow(SqlSession& s, const std::string& query) {
  auto q = s.Bind(query);
  if (!q.ok()) return {q.status().message()};
  std::vector<std::string> out[2];
  for (int incremental = 0; incremental < 2; ++incremental) {
    auto rows = s.Evaluate(*q, incremental == 1);
    if (!rows.ok()) return {rows.status().message()};
    if (rows->size() != 1) return {"rows: " + std::to_string(rows->size())};
    for (const Value& v : (*rows)[0]) out[incremental].push_back(v.ToString());
  }
  EXPECT_EQ(out[0], out[1]) << query;
  return out[0];
}

TEST(PlpgsqlTest, RefusesWhatItDoesNotCompile) {
  const std::pair<const char*, const char*> cases[] = {
      {"FOR i IN 1..3 LOOP x := x + i; END LOOP; RETURN x;", "FOR loops"},
      {"WHILE x < 3 LOOP x := x + 1; END LOOP; RETURN x;", "WHILE loops"},
      {"LOOP EXIT; END LOOP; RETURN x;", "LOOP"},
      {"FOREACH x IN ARRAY ARRAY[1] LOOP NULL; END LOOP; RETURN x;", "FOREACH loops"},
      {"EXECUTE 'select 1'; RETURN x;", "EXECUTE"},
      {"PERFORM 1; RETURN x;", "PERFORM"},
      {"SELECT 1 INTO x; RETURN x;", "SQL statements"},
      {"INSERT INTO t VALUES (1); RETURN x;", "SQL statements"},
      {"RETURN x; EXCEPTION WHEN others THEN RETURN 0;", "EXCEPTION blocks"},
      {"GET DIAGNOSTICS x = ROW_COUNT; RETURN x;", "GET DIAGNOSTICS"},
      {"DECLARE x int := 2; BEGIN RETURN x; END; RETURN x;", "DECLARE in an inner block"},
  };
  for (const auto& [body, what] : cases) {
    SqlSession s;
    ASSERT_TRUE(s.Statement("CREATE TABLE t (a INT)").ok());
    const std::string create = std::string(
                                   "CREATE FUNCTION f(x int) RETURNS int LANGUAGE plpgsql "
                                   "AS $$ BEGIN ") +
                               body + " END $$";
    // Kept, so that its calls say why they are refused.
    ASSERT_TRUE(s.Statement(create).ok()) << create;
    auto q = s.Bind("SELECT f(1)");
    ASSERT_FALSE(q.ok()) << body;
    EXPECT_EQ(q.status().code(), StatusCode::kUnimplemented) << q.status().message();
    EXPECT_EQ(q.status().message().find(std::string("line 1, column 8: ") + what), 0u)
        << q.status().message();
    EXPECT_NE(q.status().message().find(" in a plpgsql function (function f) is not supported yet"),
              std::string::npos)
        << q.status().message();
  }
}

TEST(PlpgsqlTest, ProgramsRefuseAtCreateFunction) {
  auto p = CompileProgram(
      "CREATE TABLE t (a INT);\n"
      "CREATE FUNCTION f(x int) RETURNS int LANGUAGE plpgsql AS $$\n"
      "BEGIN IF x > 0 THEN RETURN x; END IF; RETURN -x; END $$;\n"
      "CREATE VIEW v AS SELECT f(a) FROM t;");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_NE(p->catalog.FindFunction("f"), nullptr);
  EXPECT_TRUE(p->catalog.FindFunction("f")->plpgsql);
  auto e = CompileProgram(
      "CREATE FUNCTION f(x int) RETURNS int LANGUAGE plpgsql AS $$\n"
      "BEGIN FOR i IN 1..x LOOP END LOOP; RETURN 1; END $$;");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find(
                "FOR loops in a plpgsql function (function f) is not supported yet"),
            std::string::npos)
      << e.status().message();
  // PostgreSQL checks the body's syntax when the function is created.
  auto syntax = CompileProgram(
      "CREATE FUNCTION f(x int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN x END $$;");
  ASSERT_FALSE(syntax.ok());
  EXPECT_NE(syntax.status().message().find("the body of function f"), std::string::npos)
      << syntax.status().message();
}

TEST(PlpgsqlTest, FieldAssignmentBuildsARowOfTheType) {
  SqlSession s;
  ASSERT_TRUE(s.Statement("CREATE TYPE pair AS (a int, b text)").ok());
  ASSERT_TRUE(s.Statement(R"(CREATE FUNCTION f(x int) RETURNS pair LANGUAGE plpgsql AS $$
    DECLARE p pair;
    BEGIN
      p.b := 'x' || x;   -- a field of a NULL row: the other fields stay NULL
      IF x > 1 THEN p.a = x * 10; END IF;
      RETURN p;
    END $$)")
                  .ok());
  EXPECT_EQ(OneRow(s, "SELECT (f(1)).a IS NULL, (f(1)).b, (f(2)).a, (f(2)).b"),
            (std::vector<std::string>{"true", "'x1'", "20", "'x2'"}));
}

TEST(PlpgsqlTest, TypeOfAVariableAndRowTypeOfATable) {
  SqlSession s;
  ASSERT_TRUE(s.Statement("CREATE TABLE t (a int, b text)").ok());
  ASSERT_TRUE(s.Statement(R"(CREATE FUNCTION f(x int) RETURNS text LANGUAGE plpgsql AS $$
    DECLARE y x%TYPE := 2.6; r t%ROWTYPE;
    BEGIN
      r.b := 'b' || y;
      RETURN r;
    END $$)")
                  .ok());
  EXPECT_EQ(OneRow(s, "SELECT f(0)"), (std::vector<std::string>{"'(,b3)'"}));
}

TEST(PlpgsqlTest, LabelQualifiedAssignmentIsNotAField) {
  SqlSession s;
  ASSERT_TRUE(s.Statement(R"(CREATE FUNCTION f(x int) RETURNS int LANGUAGE plpgsql AS $$
    <<blk>>
    DECLARE y int := 1;
    BEGIN
      blk.y := y + x;
      f.x := 100;
      RETURN blk.y + x;
    END $$)")
                  .ok());
  EXPECT_EQ(OneRow(s, "SELECT f(5)"), (std::vector<std::string>{"106"}));
}

TEST(PlpgsqlTest, NegativeConstantsInBodies) {
  SqlSession s;
  ASSERT_TRUE(s.Statement("CREATE FUNCTION f(x int) RETURNS int LANGUAGE plpgsql AS $$ "
                          "BEGIN IF x < -2 THEN RETURN -7; END IF; RETURN - - 3; END $$")
                  .ok());
  ASSERT_TRUE(s.Statement("CREATE FUNCTION g(x int DEFAULT -4) RETURNS int LANGUAGE sql "
                          "AS 'SELECT x * -1'")
                  .ok());
  EXPECT_EQ(OneRow(s, "SELECT f(-3), f(0), g(), g(2)"),
            (std::vector<std::string>{"-7", "3", "4", "-2"}));
}

TEST(PlpgsqlTest, ErrorsWhereTheirPathIsTaken) {
  SqlSession s;
  ASSERT_TRUE(s.Statement(R"(CREATE FUNCTION f(x int) RETURNS int LANGUAGE plpgsql AS $$
    BEGIN
      RAISE NOTICE 'only a notice';
      IF x = 0 THEN RAISE EXCEPTION 'zero: %, %', x, NULL; END IF;
      ASSERT x <> 1, 'one';
      CASE x WHEN 2 THEN RETURN 2; WHEN 3 THEN NULL; END CASE;
    END $$)")
                  .ok());
  EXPECT_EQ(OneRow(s, "SELECT f(2)"), (std::vector<std::string>{"2"}));
  EXPECT_EQ(OneRow(s, "SELECT f(0)"), (std::vector<std::string>{"zero: 0, <NULL>"}));
  EXPECT_EQ(OneRow(s, "SELECT f(1)"), (std::vector<std::string>{"one"}));
  EXPECT_EQ(OneRow(s, "SELECT f(3)"),
            (std::vector<std::string>{"control reached end of function without RETURN"}));
  EXPECT_EQ(OneRow(s, "SELECT f(4)"), (std::vector<std::string>{"case not found"}));
}

TEST(PlpgsqlTest, BoundsThePathsThroughIfs) {
  // Each IF runs the rest of the body once per branch: 13 in a row make
  // 2^13 paths.
  std::string body;
  for (int i = 0; i < 13; ++i)
    body += "IF x > " + std::to_string(i) + " THEN x := x + 1; END IF;\n";
  SqlSession s;
  ASSERT_TRUE(s.Statement("CREATE FUNCTION f(x int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN " +
                          body + " RETURN x; END $$")
                  .ok());
  auto q = s.Bind("SELECT f(1)");
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find("paths through IF and CASE statements"), std::string::npos)
      << q.status().message();
}

}  // namespace
}  // namespace sluice::sql
