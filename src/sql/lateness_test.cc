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
  EXPECT_NE(Message("CREATE TABLE t (tz TIMETZ LATENESS INTERVAL 1 HOURS);")
                .find("LATENESS on a column of type TIME WITH TIME ZONE is not supported yet"),
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
    // Merges on the workers' threads, at the same points in every run, so
    // that what the checkpoints hold does not depend on their timing.
    opts.spine.background = false;
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

// Joins whose keys are not the time, with a filter that bounds one side's
// time by the other's (Nexmark q4, q7 and q9): each side forgets the rows
// that no later row of the other side can pass the filter with. Both tables
// take deletes, of rows of any age that are not behind the waterline.
const char* kRangeTables = R"(
CREATE TABLE auc (id BIGINT, cat BIGINT, ts TIMESTAMP NOT NULL LATENESS INTERVAL 10 SECONDS,
                  expires TIMESTAMP);
CREATE TABLE bid (auction BIGINT, price BIGINT, ts TIMESTAMP NOT NULL LATENESS INTERVAL 10 SECONDS);
)";
const char* kRangeJoins = R"(
CREATE VIEW q9_like AS
  SELECT a.id, a.ts, b.price, b.ts AS bts FROM auc a JOIN bid b ON a.id = b.auction
  WHERE b.ts BETWEEN a.ts AND a.expires;
CREATE VIEW q7_like AS
  SELECT b.auction, b.price, b.ts FROM bid b JOIN (
    SELECT MAX(price) AS maxprice, w.window_end AS endtime
    FROM bid, tumble(ts, INTERVAL '5 seconds') AS w GROUP BY w.window_end) m
  ON b.price = m.maxprice
  WHERE b.ts >= m.endtime - INTERVAL '5 seconds' AND b.ts < m.endtime;
CREATE VIEW shifted AS
  SELECT a.id, b.price FROM auc a, bid b
  WHERE a.cat = b.auction % 3 AND a.ts + INTERVAL '3 seconds' > b.ts
    AND b.ts - INTERVAL '1 second' >= a.ts;
)";
// What keeps its state (grouped by the auction, outer), computed the same.
const char* kRangeOthers = R"(
CREATE VIEW q4_like AS
  SELECT a.cat, MAX(b.price) AS final FROM auc a JOIN bid b ON a.id = b.auction
  WHERE b.ts BETWEEN a.ts AND a.expires GROUP BY a.id, a.cat;
CREATE VIEW left_range AS
  SELECT a.id, b.price FROM auc a LEFT JOIN bid b
  ON a.id = b.auction AND b.ts BETWEEN a.ts AND a.expires;
)";

struct RangeRun {
  std::map<std::string, Model> got, want;
  uint64_t held = 0, kept = 0;  // state bytes with and without forgetting
};

// `deletes`: both tables take deletes (and keep their rows for them, which
// hides what the joins forget); else they are append-only.
RangeRun RunRangeJoins(std::string sql, const std::vector<std::string>& views, uint64_t seed,
                       bool deletes) {
  if (!deletes) {
    for (size_t at = 0; (at = sql.find("LATENESS INTERVAL 10 SECONDS", at)) != std::string::npos;) {
      at = sql.find(");", at);
      sql.insert(at + 1, " WITH (append_only = true)");
    }
  }
  RangeRun out;
  auto program = CompileProgram(sql);
  EXPECT_TRUE(program.ok()) << program.status().message();
  if (!program.ok()) return out;
  const Schema auc_schema = {SqlType::BigInt(), SqlType::BigInt(), SqlType::Timestamp(false),
                             SqlType::Timestamp()};
  const Schema bid_schema = {SqlType::BigInt(), SqlType::BigInt(), SqlType::Timestamp(false)};
  constexpr int64_t kSecond = 1000000, kLateness = 10 * kSecond;
  std::mt19937_64 rng(seed);
  auto auc_w = std::make_shared<Waterline>(), bid_w = std::make_shared<Waterline>();
  TableWaterlines waterlines = {{"auc", {2, auc_w}}, {"bid", {2, bid_w}}};
  RuntimeOptions opts;
  opts.workers = 1 + static_cast<int>(seed % 3);
  opts.spine.background = false;  // as above
  EvalErrors errors;
  auto forgetting = Runtime::Start(opts, [&](Circuit& c) {
    return BuildProgram(*program, c, &errors, nullptr, nullptr, &waterlines);
  });
  auto keeping = Runtime::Start(
      opts, [&](Circuit& c) { return BuildProgram(*program, c, &errors, nullptr, nullptr); });
  EXPECT_TRUE(forgetting.ok() && keeping.ok());
  if (!forgetting.ok() || !keeping.ok()) return out;
  int64_t auc_max = 0, bid_max = 0;
  // Rows inserted and not deleted yet, with their times.
  std::vector<std::pair<std::string, int64_t>> aucs, bids;
  auto delete_some = [&](std::vector<std::pair<std::string, int64_t>>* live, int64_t waterline,
                         BatchBuilder* b) {
    if (!deletes) return;
    for (size_t i = 0; i < live->size();) {
      // Rows behind the waterline are late: a delete of one would be dropped.
      if ((*live)[i].second >= waterline && rng() % 8 == 0) {
        b->Push((*live)[i].first, -1);
        (*live)[i] = live->back();
        live->pop_back();
        continue;
      }
      ++i;
    }
    if (live->size() > 2000) live->erase(live->begin(), live->begin() + 500);
  };
  for (int step = 0; step < 300; ++step) {
    BatchBuilder auc, bid;
    delete_some(&aucs, auc_max - kLateness, &auc);
    delete_some(&bids, bid_max - kLateness, &bid);
    int64_t auc_top = auc_max, bid_top = bid_max;
    // A clock of one second a step, and rows up to 9 seconds behind it: the
    // promise holds, as the largest time so far is at most the clock.
    auto timely = [&] {
      return (step + 10) * kSecond - static_cast<int64_t>(rng() % 10) * kSecond;
    };
    for (int i = 0; i < 5; ++i) {
      const int64_t ts = timely();
      auc_top = std::max(auc_top, ts);
      const bool open = rng() % 10 != 0;  // else expires is NULL
      std::string row;
      EXPECT_TRUE(EncodeRow(auc_schema,
                            {Value::Int(step * 5 + i), Value::Int(static_cast<int64_t>(rng() % 3)),
                             Value::Int(ts),
                             open ? Value::Int(ts + static_cast<int64_t>(rng() % 20) * kSecond)
                                  : Value::Null()},
                            &row)
                      .ok());
      auc.Push(row, 1);
      aucs.push_back({row, ts});
    }
    for (int i = 0; i < 30; ++i) {
      const int64_t ts = timely();
      bid_top = std::max(bid_top, ts);
      // Auctions of the last few steps, mostly.
      const int64_t auction = std::max<int64_t>(0, step * 5 - static_cast<int64_t>(rng() % 40));
      std::string row;
      EXPECT_TRUE(EncodeRow(bid_schema,
                            {Value::Int(auction), Value::Int(static_cast<int64_t>(rng() % 30)),
                             Value::Int(ts)},
                            &row)
                      .ok());
      bid.Push(row, 1);
      bids.push_back({row, ts});
    }
    BatchPtr auc_batch = *auc.Finish(), bid_batch = *bid.Finish();
    for (auto* rt : {&*forgetting, &*keeping}) {
      EXPECT_TRUE((*rt)->Push("auc", auc_batch).ok());
      EXPECT_TRUE((*rt)->Push("bid", bid_batch).ok());
      EXPECT_TRUE((*rt)->Step().ok());
    }
    for (const std::string& v : views) {
      auto a = (*forgetting)->Output(v);
      auto b = (*keeping)->Output(v);
      EXPECT_TRUE(a.ok() && b.ok());
      if (!a.ok() || !b.ok()) return out;
      for (const auto& [kv, w] : ReadAll(**a)) AddTo(&out.got[v], kv.first, kv.second, w);
      for (const auto& [kv, w] : ReadAll(**b)) AddTo(&out.want[v], kv.first, kv.second, w);
    }
    // What the controller does at a step's end.
    auc_max = auc_top;
    bid_max = bid_top;
    auc_w->Advance(auc_max - kLateness);
    bid_w->Advance(bid_max - kLateness);
  }
  const std::string dir =
      ::testing::TempDir() + "/lateness_range_test_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir + "/a");
  std::filesystem::create_directories(dir + "/b");
  EXPECT_TRUE((*forgetting)->SaveState(dir + "/a").ok());
  EXPECT_TRUE((*keeping)->SaveState(dir + "/b").ok());
  out.held = DirectoryBytes(dir + "/a");
  out.kept = DirectoryBytes(dir + "/b");
  std::filesystem::remove_all(dir);
  return out;
}

TEST(LatenessTest, RangeJoinsForgetWithoutChangingTheirOutput) {
  for (uint64_t seed : {1, 2, 3}) {
    const std::vector<std::string> views = {"q9_like", "q7_like", "shifted"};
    for (bool deletes : {true, false}) {
      RangeRun run = RunRangeJoins(std::string(kRangeTables) + kRangeJoins, views, seed, deletes);
      for (const std::string& v : views) {
        EXPECT_EQ(run.got[v], run.want[v]) << "view " << v << ", seed " << seed;
        EXPECT_FALSE(run.want[v].empty()) << v;
      }
      // The joins' sides hold only the rows of the last seconds (tables
      // that take deletes keep theirs).
      if (!deletes) {
        EXPECT_LT(run.held * 4, run.kept)
            << "forgetting " << run.held << " bytes, keeping " << run.kept;
      }
    }
  }
}

// A WHERE over `a JOIN b ON ...` is a filter per conjunct, stacked over the
// join; the range that they bound together is that of one filter, so both
// sides forget as they do under `FROM a, b WHERE ...`. The auctions' side is
// what a bound from the second conjunct alone (`b.ts <= a.expires`) drops.
TEST(LatenessTest, ARangeSplitOverStackedFiltersForgetsAsOne) {
  const char* one_filter = R"(
CREATE VIEW v AS SELECT a.id, a.ts, b.price FROM auc a, bid b
  WHERE a.id = b.auction AND b.ts BETWEEN a.ts AND a.expires;
)";
  const char* stacked = R"(
CREATE VIEW v AS SELECT a.id, a.ts, b.price FROM auc a JOIN bid b ON a.id = b.auction
  WHERE b.ts BETWEEN a.ts AND a.expires;
)";
  for (uint64_t seed : {6, 7}) {
    for (bool deletes : {false, true}) {
      RangeRun one = RunRangeJoins(std::string(kRangeTables) + one_filter, {"v"}, seed, deletes);
      RangeRun two = RunRangeJoins(std::string(kRangeTables) + stacked, {"v"}, seed, deletes);
      EXPECT_EQ(two.got["v"], two.want["v"]) << "seed " << seed;
      EXPECT_EQ(two.got["v"], one.got["v"]) << "seed " << seed;
      EXPECT_FALSE(two.want["v"].empty());
      // (Tables that take deletes keep their rows, which hides the joins'.)
      // A side that forgets nothing holds some 5 times as much.
      if (!deletes) {
        EXPECT_LT(two.held * 4, one.held * 5)
            << "stacked filters hold " << two.held << " bytes, one filter " << one.held;
      }
    }
  }
}

TEST(LatenessTest, WhatARangeCannotBoundComputesTheSame) {
  for (uint64_t seed : {4, 5}) {
    const std::vector<std::string> views = {"q4_like", "left_range"};
    RangeRun run = RunRangeJoins(std::string(kRangeTables) + kRangeOthers, views, seed, true);
    for (const std::string& v : views) {
      EXPECT_EQ(run.got[v], run.want[v]) << "view " << v << ", seed " << seed;
      EXPECT_FALSE(run.want[v].empty()) << v;
    }
  }
}

}  // namespace
}  // namespace sluice::sql
