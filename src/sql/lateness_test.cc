#include "sql/lateness.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include "dataflow/waterline.h"
#include "runtime/runtime.h"
#include "sql/program.h"
#include "types/row_codec.h"
#include "zset/batch_builder.h"
#include "zset/test_util.h"

namespace sluice::sql {
namespace {

std::string Message(const std::string& sql) {
  auto p = CompileProgram(sql);
  return p.ok() ? std::string("compiled") : p.status().message();
}

const TableDef& Table(const Result<Program>& p, const std::string& name) {
  return *p->catalog.FindTable(name);
}

// Feldera's unquoted form with plural units, PostgreSQL's forms, the
// statement form, and integer and DATE columns all declare a lateness in
// the column's unit.
TEST(LatenessTest, FormsOfTheDeclaration) {
  constexpr int64_t kHour = 3600LL * 1000000;
  for (const char* form :
       {"INTERVAL 1 HOURS", "INTERVAL 1 HOUR", "INTERVAL '1' HOUR", "INTERVAL '1 hour'",
        "interval '60 minutes'", "INTERVAL '1:00' HOUR TO MINUTE", "INTERVAL 60 MINUTES"}) {
    auto p = CompileProgram(std::string("CREATE TABLE t (id INT, ts TIMESTAMP NOT NULL LATENESS ") +
                            form + ", x INT);");
    ASSERT_TRUE(p.ok()) << form << ": " << p.status().message();
    EXPECT_EQ(Table(p, "t").lateness_column, 1) << form;
    EXPECT_EQ(Table(p, "t").lateness, kHour) << form;
    EXPECT_EQ(Table(p, "t").columns.size(), 3u);
  }
  auto p = CompileProgram(
      "CREATE TABLE t (n BIGINT LATENESS 10, d DATE);\n"
      "CREATE TABLE u (d DATE, x INT);\n"
      "CREATE VIEW v AS SELECT d, COUNT(*) AS c FROM u GROUP BY d;\n"
      "LATENESS u.d INTERVAL 2 DAYS;\n");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(Table(p, "t").lateness_column, 0);
  EXPECT_EQ(Table(p, "t").lateness, 10);
  EXPECT_EQ(Table(p, "u").lateness_column, 0);
  EXPECT_EQ(Table(p, "u").lateness, 2);
  // A column named lateness is a column, and the word in a string is text.
  p = CompileProgram(
      "CREATE TABLE t (lateness INT, s VARCHAR DEFAULT 'LATENESS 1');\n"
      "CREATE VIEW v AS SELECT lateness FROM t WHERE s <> 'lateness';");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(Table(p, "t").lateness_column, -1);
  // The lateness is part of the table's definition.
  auto a = CompileProgram("CREATE TABLE t (ts TIMESTAMP LATENESS INTERVAL 1 HOURS);");
  auto b = CompileProgram("CREATE TABLE t (ts TIMESTAMP LATENESS INTERVAL 2 HOURS);");
  auto c = CompileProgram("CREATE TABLE t (ts TIMESTAMP);");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_NE(Table(a, "t").definition_hash, Table(b, "t").definition_hash);
  EXPECT_NE(Table(a, "t").definition_hash, Table(c, "t").definition_hash);
}

TEST(LatenessTest, WhatIsRefusedSaysWhereAndWhy) {
  EXPECT_EQ(Message("CREATE TABLE t (ts TIMESTAMP LATENESS INTERVAL 1 MONTH);"),
            "line 1, column 39: LATENESS of ts must be a constant INTERVAL of days, hours, "
            "minutes or seconds (INTERVAL 1 HOURS, INTERVAL '1' HOUR or INTERVAL '1 hour'): a "
            "month has no fixed length\n"
            "  CREATE TABLE t (ts TIMESTAMP LATENESS INTERVAL 1 MONTH);\n"
            "                                        ^");
  EXPECT_NE(Message("CREATE TABLE t (s VARCHAR LATENESS 1);")
                .find("column 27: LATENESS on a column of type VARCHAR is not supported yet"),
            std::string::npos);
  EXPECT_NE(Message("CREATE TABLE t (ts TIMESTAMP LATENESS 'soon');").find("LATENESS of ts must"),
            std::string::npos);
  EXPECT_NE(Message("CREATE TABLE t (n INT LATENESS -1);").find("it is negative"),
            std::string::npos);
  EXPECT_NE(Message("CREATE TABLE t (ts TIMESTAMP LATENESS INTERVAL 1 HOURSS);")
                .find("\"hourss\" is not a unit of time"),
            std::string::npos);
  EXPECT_NE(Message("CREATE TABLE t (id INT PRIMARY KEY, ts TIMESTAMP LATENESS INTERVAL 1 HOURS);")
                .find("LATENESS on a table with a PRIMARY KEY is not supported yet"),
            std::string::npos);
  EXPECT_NE(Message("CREATE TABLE t (a INT LATENESS 1, b INT LATENESS 2);")
                .find("already has a LATENESS column (a)"),
            std::string::npos);
  EXPECT_EQ(Message("CREATE TABLE t (ts TIMESTAMP);\nCREATE VIEW v AS SELECT ts FROM t;\n"
                    "LATENESS v.ts INTERVAL 1 HOURS;"),
            "line 3, column 1: LATENESS on a view's column is not supported yet: declare it on "
            "the column of the table it comes from\n"
            "  LATENESS v.ts INTERVAL 1 HOURS;\n"
            "  ^");
  EXPECT_NE(
      Message("CREATE TABLE t (ts TIMESTAMP);\nLATENESS t.nope 1;").find("has no column nope"),
      std::string::npos);
  EXPECT_NE(Message("LATENESS w.ts 1;").find("no table or view is named w"), std::string::npos);
  // WATERMARK stays Feldera's syntax that we do not have.
  EXPECT_NE(Message("CREATE TABLE t (ts TIMESTAMP WATERMARK INTERVAL '1' HOUR);")
                .find("WATERMARK (a column annotation of Feldera's time-series SQL) is not "
                      "supported yet"),
            std::string::npos);
}

// The operators that forget state behind a waterline compute what they
// would without forgetting, on streams that keep the lateness promise.
const char* kProgram = R"(
CREATE TABLE ev (id BIGINT, k BIGINT, v BIGINT, ts TIMESTAMP NOT NULL LATENESS INTERVAL 10 SECONDS)
  WITH (append_only = true);
CREATE TABLE other (k BIGINT, ts TIMESTAMP LATENESS INTERVAL '10 seconds', w BIGINT);
CREATE VIEW per_window AS
  SELECT w.window_start, w.window_end, COUNT(*) AS n, SUM(v) AS s, MAX(v) AS m
  FROM ev, tumble(ev.ts, INTERVAL '5 seconds') AS w GROUP BY w.window_start, w.window_end;
CREATE VIEW per_key_hop AS
  SELECT k, w.window_start AS start, COUNT(*) AS n, MIN(v) AS lo
  FROM ev, hop(ev.ts, INTERVAL '2 seconds', INTERVAL '6 seconds') AS w GROUP BY k, w.window_start;
CREATE VIEW hottest AS
  SELECT c.k, c.start, c.n FROM per_key_hop c
  JOIN (SELECT start, MAX(n) AS maxn FROM per_key_hop GROUP BY start) m ON c.start = m.start
  WHERE c.n >= m.maxn;
CREATE VIEW per_ts AS SELECT ts, k, COUNT(*) AS n FROM ev WHERE v > 10 GROUP BY ts, k;
CREATE VIEW joined AS
  SELECT e.id, o.w, e.ts FROM ev e JOIN other o ON e.ts = o.ts AND e.k = o.k;
CREATE VIEW left_joined AS
  SELECT e.id, o.w FROM (SELECT id, k, ts FROM ev WHERE v < 90) e LEFT JOIN other o ON e.ts = o.ts;
CREATE VIEW distinct_ts AS SELECT DISTINCT ts, k FROM ev WHERE v > 50;
CREATE VIEW top_per_window AS
  SELECT k, v, s, rn FROM (
    SELECT k, v, w.window_start AS s,
           ROW_NUMBER() OVER (PARTITION BY w.window_start ORDER BY v DESC, id) AS rn
    FROM ev, tumble(ev.ts, INTERVAL '5 seconds') AS w) x
  WHERE rn <= 2;
CREATE VIEW both_times AS
  SELECT ts, COUNT(*) AS n FROM (SELECT ts FROM ev UNION ALL SELECT ts FROM other) u GROUP BY ts;
)";
const std::vector<std::string> kViews = {"per_window",  "per_key_hop",    "hottest",
                                         "per_ts",      "joined",         "left_joined",
                                         "distinct_ts", "top_per_window", "both_times"};

uint64_t DirectoryBytes(const std::string& dir) {
  uint64_t n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) n += e.file_size();
  }
  return n;
}

TEST(LatenessTest, ForgettingChangesNoOutputOnTimelyStreams) {
  auto program = CompileProgram(kProgram);
  ASSERT_TRUE(program.ok()) << program.status().message();
  const Schema ev_schema = {SqlType::BigInt(), SqlType::BigInt(), SqlType::BigInt(),
                            SqlType::Timestamp(false)};
  const Schema other_schema = {SqlType::BigInt(), SqlType::Timestamp(), SqlType::BigInt()};
  constexpr int64_t kSecond = 1000000, kLateness = 10 * kSecond;
  for (uint64_t seed : {1, 2, 3}) {
    std::mt19937_64 rng(seed);
    const int workers = 1 + static_cast<int>(seed % 3);
    auto ev_w = std::make_shared<Waterline>(), other_w = std::make_shared<Waterline>();
    TableWaterlines waterlines = {{"ev", {3, ev_w}}, {"other", {1, other_w}}};
    RuntimeOptions opts;
    opts.workers = workers;
    EvalErrors errors;
    auto forgetting = Runtime::Start(opts, [&](Circuit& c) {
      return BuildProgram(*program, c, &errors, nullptr, nullptr, &waterlines);
    });
    auto keeping = Runtime::Start(
        opts, [&](Circuit& c) { return BuildProgram(*program, c, &errors, nullptr, nullptr); });
    ASSERT_TRUE(forgetting.ok() && keeping.ok());
    std::map<std::string, Model> got, want;
    int64_t ev_max = 0, other_max = 0;
    std::vector<std::pair<std::string, int64_t>> last_other;  // the last step's rows of `other`
    for (int step = 0; step < 300; ++step) {
      // Rows up to 9 seconds behind the largest time before this step: the
      // promise of 10 seconds holds. Some rows of `other` of the last step
      // are deleted again, if they are not behind the waterline.
      BatchBuilder ev, other;
      for (const auto& [row, ts] : last_other) {
        if (ts >= other_max - kLateness && rng() % 4 == 0) other.Push(row, -1);
      }
      last_other.clear();
      int64_t ev_top = ev_max, other_top = other_max;
      for (int i = 0; i < 30; ++i) {
        const int64_t ts =
            std::max<int64_t>(0, ev_max + static_cast<int64_t>(rng() % 12) * kSecond - 9 * kSecond);
        ev_top = std::max(ev_top, ts);
        std::string row;
        ASSERT_TRUE(
            EncodeRow(ev_schema,
                      {Value::Int(step * 100 + i), Value::Int(static_cast<int64_t>(rng() % 4)),
                       Value::Int(static_cast<int64_t>(rng() % 100)), Value::Int(ts)},
                      &row)
                .ok());
        ev.Push(row, 1);
      }
      for (int i = 0; i < 10; ++i) {
        const int64_t ts = std::max<int64_t>(
            0, other_max + static_cast<int64_t>(rng() % 12) * kSecond - 9 * kSecond);
        const bool null = rng() % 20 == 0;
        if (!null) other_top = std::max(other_top, ts);
        std::string row;
        ASSERT_TRUE(EncodeRow(other_schema,
                              {Value::Int(static_cast<int64_t>(rng() % 4)),
                               null ? Value::Null() : Value::Int(ts),
                               Value::Int(static_cast<int64_t>(rng() % 3))},
                              &row)
                        .ok());
        other.Push(row, 1);
        last_other.push_back({row, null ? std::numeric_limits<int64_t>::max() : ts});
      }
      BatchPtr ev_batch = *ev.Finish(), other_batch = *other.Finish();
      for (auto* rt : {&*forgetting, &*keeping}) {
        ASSERT_TRUE((*rt)->Push("ev", ev_batch).ok());
        ASSERT_TRUE((*rt)->Push("other", other_batch).ok());
        ASSERT_TRUE((*rt)->Step().ok());
      }
      for (const std::string& v : kViews) {
        auto a = (*forgetting)->Output(v);
        auto b = (*keeping)->Output(v);
        ASSERT_TRUE(a.ok() && b.ok());
        for (const auto& [kv, w] : ReadAll(**a)) AddTo(&got[v], kv.first, kv.second, w);
        for (const auto& [kv, w] : ReadAll(**b)) AddTo(&want[v], kv.first, kv.second, w);
      }
      // What the controller does at a step's end.
      ev_max = ev_top;
      other_max = other_top;
      ev_w->Advance(ev_max - kLateness);
      other_w->Advance(other_max - kLateness);
    }
    for (const std::string& v : kViews) {
      EXPECT_EQ(got[v], want[v]) << "view " << v << ", seed " << seed;
      EXPECT_FALSE(want[v].empty()) << v;
    }
    // And the forgetting circuit holds much less.
    const std::string dir = ::testing::TempDir() + "/lateness_test_" + std::to_string(::getpid());
    std::filesystem::create_directories(dir + "/a");
    std::filesystem::create_directories(dir + "/b");
    ASSERT_TRUE((*forgetting)->SaveState(dir + "/a").ok());
    ASSERT_TRUE((*keeping)->SaveState(dir + "/b").ok());
    const uint64_t held = DirectoryBytes(dir + "/a"), kept = DirectoryBytes(dir + "/b");
    EXPECT_LT(held * 3, kept) << "forgetting " << held << " bytes, keeping " << kept;
    std::filesystem::remove_all(dir);
  }
}

}  // namespace
}  // namespace sluice::sql
