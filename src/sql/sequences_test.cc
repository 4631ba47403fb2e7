#include "sql/sequences.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

namespace sluice::sql {
namespace {

SequenceDef Def(const std::string& name, int64_t increment = 1, int64_t min = 1,
                int64_t max = 1000000, bool cycle = false) {
  SequenceDef d;
  d.name = name;
  d.increment = increment;
  d.min_value = min;
  d.max_value = max;
  d.start = increment > 0 ? min : max;
  d.cycle = cycle;
  return d;
}

TEST(SequencesTest, HandsOutValuesInOrderToTheBounds) {
  Sequences s;
  ASSERT_TRUE(s.Create(Def("s", 2, 1, 5)).ok());
  EXPECT_EQ(*s.NextVal("s"), 1);
  EXPECT_EQ(*s.NextVal("s"), 3);
  EXPECT_EQ(*s.NextVal("s"), 5);
  auto end = s.NextVal("s");
  ASSERT_FALSE(end.ok());
  EXPECT_EQ(end.status().message(), "nextval: reached maximum value of sequence \"s\" (5)");
  ASSERT_TRUE(s.Create(Def("c", -1, -2, 0, /*cycle=*/true)).ok());
  EXPECT_EQ(*s.NextVal("c"), 0);
  EXPECT_EQ(*s.NextVal("c"), -1);
  EXPECT_EQ(*s.NextVal("c"), -2);
  EXPECT_EQ(*s.NextVal("c"), 0);  // cycled
  EXPECT_FALSE(s.NextVal("nosuch").ok());
}

TEST(SequencesTest, SetValAndRestart) {
  Sequences s;
  ASSERT_TRUE(s.Create(Def("s")).ok());
  EXPECT_EQ(*s.SetVal("s", 10, true), 10);
  EXPECT_EQ(*s.NextVal("s"), 11);
  EXPECT_EQ(*s.SetVal("s", 10, false), 10);
  EXPECT_EQ(*s.NextVal("s"), 10);
  EXPECT_EQ(s.SetVal("s", 0, true).status().message(),
            "setval: value 0 is out of bounds for sequence \"s\" (1..1000000)");
  ASSERT_TRUE(s.Alter(Def("s"), 7).ok());
  EXPECT_EQ(*s.NextVal("s"), 7);
}

// A restart from the log never hands out a value again, and skips at most
// the values logged ahead; a flushed state continues exactly.
TEST(SequencesTest, RestartFromTheLogNeverRepeatsAValue) {
  std::string log;
  int writes = 0;
  Sequences s;
  s.set_log([&](const std::string& state) {
    log = state;
    ++writes;
    return Status::OK();
  });
  ASSERT_TRUE(s.Create(Def("s")).ok());
  std::set<int64_t> seen;
  for (int i = 0; i < 100; ++i) seen.insert(*s.NextVal("s"));
  EXPECT_EQ(seen.size(), 100u);
  EXPECT_LE(writes, 4);  // logged ahead, not once per value
  Sequences again;
  ASSERT_TRUE(again.Create(Def("s")).ok());
  ASSERT_TRUE(again.Restore(log).ok());
  const int64_t next = *again.NextVal("s");
  EXPECT_GT(next, 100);
  EXPECT_LE(next, 100 + 32);
  // A flush logs the exact state.
  ASSERT_TRUE(s.Flush().ok());
  Sequences exact;
  ASSERT_TRUE(exact.Create(Def("s")).ok());
  ASSERT_TRUE(exact.Restore(log).ok());
  EXPECT_EQ(*exact.NextVal("s"), 101);
  EXPECT_GT(Sequences::VersionOf(log), 0u);
  // A log that fails hands out nothing.
  Sequences failing;
  failing.set_log([](const std::string&) { return Status::IOError("disk full"); });
  ASSERT_TRUE(failing.Create(Def("s")).ok());
  EXPECT_FALSE(failing.NextVal("s").ok());
  failing.set_log(nullptr);
  EXPECT_EQ(*failing.NextVal("s"), 1);
}

TEST(SequencesTest, SessionValues) {
  SequenceSession session;
  EXPECT_EQ(session.CurrVal("s").status().message(),
            "currval of sequence \"s\" is not yet defined in this session");
  EXPECT_EQ(session.LastVal().status().message(), "lastval is not yet defined in this session");
  session.Saw("s", 4);
  session.Saw("t", 9);
  EXPECT_EQ(*session.CurrVal("s"), 4);
  EXPECT_EQ(*session.LastVal(), 9);
}

TEST(SequencesTest, OptionsAsPostgreSQLReadsThem) {
  auto def = [](const std::string& sql) -> Result<SequenceDef> {
    SLUICE_ASSIGN_OR_RETURN(Json tree, ParseSql(sql));
    return BindCreateSequence(sql, tree["stmts"][0]["stmt"]["CreateSeqStmt"]);
  };
  auto d = def("CREATE SEQUENCE s INCREMENT BY -2 MINVALUE -10 START WITH -3");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->increment, -2);
  EXPECT_EQ(d->min_value, -10);
  EXPECT_EQ(d->max_value, -1);
  EXPECT_EQ(d->start, -3);
  d = def("CREATE SEQUENCE s AS smallint");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->max_value, 32767);
  EXPECT_NE(
      def("CREATE SEQUENCE s INCREMENT 0").status().message().find("INCREMENT must not be zero"),
      std::string::npos);
  EXPECT_NE(def("CREATE SEQUENCE s MINVALUE 5 MAXVALUE 5")
                .status()
                .message()
                .find("MINVALUE (5) must be less than MAXVALUE (5)"),
            std::string::npos);
  EXPECT_NE(def("CREATE SEQUENCE s AS smallint MAXVALUE 40000")
                .status()
                .message()
                .find("MAXVALUE (40000) is out of range for sequence data type smallint"),
            std::string::npos);
  EXPECT_NE(def("CREATE SEQUENCE s START 0")
                .status()
                .message()
                .find("START value (0) cannot be less than MINVALUE (1)"),
            std::string::npos);
  EXPECT_NE(def("CREATE SEQUENCE s AS text")
                .status()
                .message()
                .find("sequence type must be smallint, integer, or bigint"),
            std::string::npos);
}

}  // namespace
}  // namespace sluice::sql
