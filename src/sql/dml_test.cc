#include "sql/dml.h"

#include <gtest/gtest.h>

#include <map>

namespace sluice::sql {
namespace {

TEST(DmlTest, ClausesOfEachStatement) {
  auto ins = ParseInsert("INSERT INTO public.t AS x (a, \"B)\") SELECT 1, 2 -- two\n");
  ASSERT_TRUE(ins.ok()) << ins.status().ToString();
  EXPECT_EQ(ins->table, "t");
  EXPECT_EQ(ins->alias, "x");
  EXPECT_EQ(ins->columns, (std::vector<std::string>{"a", "B)"}));
  EXPECT_EQ(ins->source, "SELECT 1, 2 -- two");
  auto ret = ParseInsert("INSERT INTO t VALUES (1), (2) RETURNING a + 1 AS b, *");
  ASSERT_TRUE(ret.ok());
  EXPECT_EQ(ret->source, "VALUES (1), (2)");
  EXPECT_EQ(ret->returning, "a + 1 AS b, *");
  EXPECT_EQ(ret->returning_offset, 40u);
  EXPECT_FALSE(ParseInsert("INSERT INTO other.t VALUES (1)").ok());
  auto upsert = ParseInsert(
      "INSERT INTO t VALUES (1, 2) ON CONFLICT (k) DO UPDATE SET v = excluded.v, w = t.w + 1 "
      "WHERE t.v <> excluded.v RETURNING k");
  ASSERT_TRUE(upsert.ok()) << upsert.status().ToString();
  EXPECT_EQ(upsert->source, "VALUES (1, 2)");
  EXPECT_TRUE(upsert->do_update);
  EXPECT_EQ(upsert->conflict_columns, (std::vector<std::string>{"k"}));
  ASSERT_EQ(upsert->conflict_sets.size(), 2u);
  EXPECT_EQ(upsert->conflict_sets[1].expr, "t.w + 1");
  EXPECT_EQ(upsert->conflict_where, "t.v <> excluded.v");
  EXPECT_EQ(upsert->returning, "k");
  EXPECT_EQ(ParseInsert("INSERT INTO t VALUES (1) ON CONFLICT ON CONSTRAINT c DO NOTHING")
                .status()
                .code(),
            StatusCode::kUnimplemented);

  auto del = ParseDelete("DELETE FROM t WHERE (a = 1) OR b IN (SELECT c FROM u WHERE d = 2);");
  ASSERT_TRUE(del.ok());
  EXPECT_EQ(del->where, "(a = 1) OR b IN (SELECT c FROM u WHERE d = 2)");
  auto using_ = ParseDelete("DELETE FROM y AS z USING t WHERE t.a = z.a RETURNING z.a");
  ASSERT_TRUE(using_.ok());
  EXPECT_EQ(using_->alias, "z");
  EXPECT_EQ(using_->using_, "t");
  EXPECT_EQ(using_->where, "t.a = z.a");
  EXPECT_EQ(using_->returning, "z.a");

  auto up = ParseUpdate("UPDATE t SET a = f(1, 2), \"B\" = 'x, y' || (SELECT 1) WHERE a = (1) ;");
  ASSERT_TRUE(up.ok()) << up.status().ToString();
  EXPECT_EQ(up->table, "t");
  ASSERT_EQ(up->sets.size(), 2u);
  EXPECT_EQ(up->sets[0].column, "a");
  EXPECT_EQ(up->sets[0].expr, "f(1, 2)");
  EXPECT_EQ(up->sets[1].column, "B");
  EXPECT_EQ(up->sets[1].expr, "'x, y' || (SELECT 1)");
  EXPECT_EQ(up->where, "a = (1)");
  EXPECT_EQ(ParseUpdate("UPDATE t SET a = 1")->where, "");
  // SET (a, b) = (...) is one item per column; a[i] and c.f name a place
  // in the column.
  auto multi = ParseUpdate(
      "UPDATE t SET (a, b) = (1, ARRAY[2, 3]), c[1:2][3] = '{4}', d.f = 5, (e) = (SELECT 6)");
  ASSERT_TRUE(multi.ok()) << multi.status().ToString();
  ASSERT_EQ(multi->sets.size(), 5u);
  EXPECT_EQ(multi->sets[1].column, "b");
  EXPECT_EQ(multi->sets[1].expr, "ARRAY[2, 3]");
  ASSERT_EQ(multi->sets[2].path.size(), 1u);
  EXPECT_TRUE(multi->sets[2].path[0].slice);
  EXPECT_EQ(multi->sets[2].path[0].subscripts,
            (std::vector<std::pair<std::string, std::string>>{{"1", "2"}, {"1", "3"}}));
  ASSERT_EQ(multi->sets[3].path.size(), 1u);
  EXPECT_EQ(multi->sets[3].path[0].field, "f");
  EXPECT_NE(multi->sets[4].expr.find("SELECT 6"), std::string::npos);
  EXPECT_FALSE(ParseUpdate("UPDATE t SET (a, b) = (1, 2, 3)").ok());
  EXPECT_FALSE(ParseUpdate("UPDATE t SET (a, b) = (SELECT 1)").ok());
  // FROM in a SET expression is not the FROM clause.
  auto from =
      ParseUpdate("UPDATE y SET a = y.a IS DISTINCT FROM t.a FROM t WHERE y.a > 20 RETURNING y.a");
  ASSERT_TRUE(from.ok()) << from.status().ToString();
  EXPECT_EQ(from->sets[0].expr, "y.a IS DISTINCT FROM t.a");
  EXPECT_EQ(from->from, "t");
  EXPECT_EQ(from->where, "y.a > 20");
  EXPECT_EQ(from->returning, "y.a");
}

// An environment whose queries are answered from a list, recording what
// was asked.
struct FakeEnv {
  std::vector<std::string> asked;
  std::map<std::string, QueryRows> answers;  // by the query's last words
  DmlEnv env() {
    DmlEnv e;
    e.query = [this](const std::string& q) -> Result<QueryRows> {
      asked.push_back(q);
      for (const auto& [end, rows] : answers) {
        if (q.size() >= end.size() && q.compare(q.size() - end.size(), end.size(), end) == 0)
          return rows;
      }
      return Status::InvalidArgument("line 1, column " + std::to_string(q.size()) + ": no answer");
    };
    e.table = [](const std::string& name) -> Result<DmlTable> {
      if (name != "y") return Status::InvalidArgument("relation \"" + name + "\" does not exist");
      return DmlTable{{{"a", SqlType::Integer()}, {"b", SqlType::Varchar()}}, false};
    };
    return e;
  }
};

TEST(DmlTest, WithQueriesSeeWhatTheOnesBeforeReturned) {
  FakeEnv fake;
  QueryRows deleted{{{"a", SqlType::Integer()}, {"b", SqlType::Varchar()}},
                    {{Value::Int(1), Value::String("it's")}, {Value::Int(2), Value::Null()}}};
  fake.answers["WHERE y.a < 3"] = deleted;
  fake.answers["FROM d"] =
      QueryRows{{{"a", SqlType::Integer()}}, {{Value::Int(1)}, {Value::Int(2)}}};
  auto out =
      RunDml("WITH d AS (DELETE FROM y WHERE y.a < 3 RETURNING *) SELECT a FROM d", fake.env());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(fake.asked.size(), 2u);
  EXPECT_EQ(fake.asked[0], "SELECT \"y\".* FROM \"y\" AS \"y\" WHERE y.a < 3");
  // The rows it deleted, as the query that found them (over the same
  // snapshot).
  EXPECT_EQ(fake.asked[1],
            "WITH \"d\"(\"a\", \"b\") AS (SELECT \"y\".* FROM \"y\" AS \"y\" WHERE y.a < 3) "
            "SELECT a FROM d");
  ASSERT_EQ(out->changes.size(), 1u);
  EXPECT_EQ(out->changes[0].table, "y");
  EXPECT_EQ(out->changes[0].deleted.size(), 2u);
  EXPECT_TRUE(out->returns_rows);
  EXPECT_EQ(out->returned.rows.size(), 2u);
  EXPECT_EQ(out->tag, "SELECT 2");

  // A part with a WITH of its own: its rows as a constant.
  fake.asked.clear();
  out = RunDml(
      "WITH d AS (WITH k AS (SELECT 3) DELETE FROM y WHERE y.a < 3 RETURNING *) SELECT a FROM d",
      fake.env());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(fake.asked.size(), 2u);
  EXPECT_EQ(fake.asked[1],
            "WITH \"d\"(\"a\", \"b\") AS (VALUES (CAST('1' AS INTEGER), CAST('it''s' AS VARCHAR)), "
            "(CAST('2' AS INTEGER), CAST(NULL AS VARCHAR))) SELECT a FROM d");
}

TEST(DmlTest, ErrorsPointIntoTheStatement) {
  FakeEnv fake;
  // The fake answers nothing: its error's position is in the user's WHERE.
  auto out = RunDml("DELETE FROM y\nWHERE a < 3", fake.env());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message().substr(0, 26), "line 2, column 11: no answ");
  auto missing = RunDml("INSERT INTO z VALUES (1)", fake.env());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message().substr(0, 46),
            "line 1, column 13: relation \"z\" does not exist");
}

}  // namespace
}  // namespace sluice::sql
