// The Delta Lake sink, end to end: `sluice run` writes a table, and an
// independent reader (tests/oracle/delta_check.mjs, DuckDB) replays its log
// and compares it with the view.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include "pipeline_helper.h"

namespace {

using namespace sluice::testing;
using Json = nlohmann::json;
using namespace std::chrono_literals;

struct OracleResult {
  int exit_code = -1;
  Json report;
};

// Compares the table at `table` with `view` as the pipeline reads it now.
OracleResult CheckTable(Pipeline& p, const std::string& table, const std::string& view) {
  const std::string expected = p.dir() + "/expected.jsonl";
  std::ofstream(expected, std::ios::trunc) << p.Query("SELECT * FROM " + view, "json");
  const std::string cmd = "node " + std::string(SLUICE_ORACLE_DIR) + "/delta_check.mjs '" + table +
                          "' '" + expected + "' 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  std::string out;
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  const int rc = pclose(f);
  OracleResult r;
  r.exit_code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.report = Json::parse(out, nullptr, false);
  if (r.report.is_discarded()) r.report = Json{{"output", out}};
  return r;
}

// CheckTable until the table is the view (it may still be catching up), at
// most `attempts` times `interval` apart; the last check's result.
OracleResult WaitForTable(Pipeline& p, const std::string& table, const std::string& view,
                          int attempts, std::chrono::milliseconds interval) {
  OracleResult r;
  for (int i = 0; i < attempts; ++i) {
    r = CheckTable(p, table, view);
    if (r.exit_code == 0) break;
    std::this_thread::sleep_for(interval);
  }
  return r;
}

// With SLUICE_TEST_DISTRIBUTED (on many hosts), every Delta sink of
// `program` is distributed: a part on every host, one commit per step.
bool Distributed() { return std::getenv("SLUICE_TEST_DISTRIBUTED") != nullptr; }
std::string Sinks(std::string program) {
  if (!Distributed()) return program;
  const std::string sink = "\"transport\": {\"name\": \"delta_table_output\"";
  for (size_t at = program.find(sink); at != std::string::npos;
       at = program.find(sink, at + sink.size() + 30)) {
    program.insert(at, "\"distributed\": true, ");
  }
  return program;
}

// Waits until the table's log has `versions` commits.
bool WaitVersions(const std::string& table, size_t versions) {
  for (int i = 0; i < 400; ++i) {
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(table + "/_delta_log", ec)) {
      const std::string name = e.path().filename().string();
      if (name.size() == 25 && name.substr(20) == ".json") ++n;
    }
    if (n >= versions) return n == versions;
    std::this_thread::sleep_for(25ms);
  }
  return false;
}

const char* kProgram = R"(
CREATE TABLE t (
  id BIGINT NOT NULL PRIMARY KEY, s VARCHAR, d DECIMAL(10,2), dt DATE, ts TIMESTAMP,
  tm TIME, b BOOLEAN, f DOUBLE, xs INTEGER ARRAY, iv INTERVAL, ti TINYINT, si SMALLINT,
  r REAL, big DECIMAL(30,5), nested VARCHAR[], tz TIMESTAMP WITH TIME ZONE);
CREATE MATERIALIZED VIEW everything WITH (connectors = '[{"name": "lake",
  "transport": {"name": "delta_table_output", "config": {"uri": "lake/everything",
    "compression": "snappy"}}}]') AS SELECT * FROM t;
CREATE MATERIALIZED VIEW counts WITH (connectors = '[{"name": "lake_counts",
  "transport": {"name": "delta_table_output", "config": {"uri": "lake/counts"}}}]')
  AS SELECT s, COUNT(*) AS n, SUM(d) AS total FROM t GROUP BY s;
)";

// Every type with NULLs, updates and deletes over many steps, and a
// transaction: after each, DuckDB reads the table as the view.
TEST(DeltaTest, TheTableIsTheViewAfterEveryKindOfChange) {
  Pipeline p(Sinks(kProgram), {"--storage", "$DIR/st", "--workers", "2"});
  ASSERT_GT(p.port(), 0) << p.log();
  const std::string lake = p.dir() + "/lake/everything", counts = p.dir() + "/lake/counts";
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", R"(
{"insert": {"id": 1, "s": "a", "d": 1.25, "dt": "2024-01-31", "ts": "2024-01-31 10:15:00.5", "tm": "10:00:00.000001", "b": true, "f": 0.5, "xs": [1, null, 3], "iv": "1 day 02:00:00", "ti": -5, "si": 300, "r": 2.5, "big": 123456.5, "nested": ["x", null, ""], "tz": "2024-01-31 10:15:00.25+02"}}
{"insert": {"id": 2, "s": null, "d": null, "dt": null, "ts": null, "tm": null, "b": null, "f": null, "xs": null, "iv": null}}
{"insert": {"id": 3, "s": "b", "d": -7.5, "xs": []}})")));
  ASSERT_TRUE(WaitVersions(lake, 2));  // the table's creation, then step 1
  OracleResult r = CheckTable(p, lake, "everything");
  EXPECT_EQ(r.exit_code, 0) << r.report.dump(1);
  EXPECT_EQ(r.report["rows"], 3) << r.report.dump();
  // Updates and deletes, one step each.
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", R"({"insert": {"id": 1, "s": "b", "d": 2.5}})")));
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", R"({"delete": {"id": 3}})")));
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", R"({"update": {"id": 2, "s": "c"}})")));
  ASSERT_TRUE(WaitVersions(lake, 5));
  r = CheckTable(p, lake, "everything");
  EXPECT_EQ(r.exit_code, 0) << r.report.dump(1);
  // A transaction commits once, however many steps it spans.
  ASSERT_EQ(p.Client().Post("/start_transaction", "", "text/plain")->status, 200);
  // (Completion waits for the commit: each request gets a step of its own.)
  for (int id = 10; id < 13; ++id) {
    ASSERT_FALSE(
        p.Ingest("t", "{\"insert\": {\"id\": " + std::to_string(id) + ", \"s\": \"t\", \"d\": 1}}")
            .empty());
    std::this_thread::sleep_for(100ms);
  }
  auto commit = p.Client().Post("/commit_transaction", "", "text/plain");
  ASSERT_EQ(commit->status, 200) << commit->body;
  ASSERT_TRUE(WaitVersions(lake, 6));
  r = CheckTable(p, lake, "everything");
  EXPECT_EQ(r.exit_code, 0) << r.report.dump(1);
  EXPECT_EQ(r.report["steps"].back(), Json::parse(commit->body)["step"]) << r.report.dump();
  OracleResult rc = CheckTable(p, counts, "counts");
  EXPECT_EQ(rc.exit_code, 0) << rc.report.dump(1);
  // A step with no change to a view writes no commit to its table.
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", R"({"update": {"id": 1, "f": 9.5}})")));
  ASSERT_TRUE(WaitVersions(lake, 7));
  EXPECT_TRUE(WaitVersions(counts, 6)) << "counts did not change";
  // Statistics in the add actions.
  std::ifstream v1(lake + "/_delta_log/00000000000000000001.json");
  bool saw_stats = false;
  for (std::string line; std::getline(v1, line);) {
    Json a = Json::parse(line);
    if (!a.contains("add")) continue;
    Json st = Json::parse(a["add"]["stats"].get<std::string>());
    EXPECT_EQ(st["numRecords"], 3);
    EXPECT_EQ(st["minValues"]["id"], 1);
    EXPECT_EQ(st["maxValues"]["id"], 3);
    EXPECT_EQ(st["nullCount"]["s"], 1);
    EXPECT_EQ(st["minValues"]["ts"], "2024-01-31T10:15:00.500");
    EXPECT_EQ(st["minValues"]["tz"], "2024-01-31T08:15:00.250Z");
    saw_stats = true;
  }
  EXPECT_TRUE(saw_stats);
}

// A restart from a checkpoint skips the steps the table already holds; a
// missing or damaged log entry stops the pipeline with a clear error.
TEST(DeltaTest, RestartsSkipCommittedStepsAndRefuseADamagedLog) {
  Pipeline p(Sinks(kProgram), {"--storage", "$DIR/st"});
  ASSERT_GT(p.port(), 0) << p.log();
  const std::string lake = p.dir() + "/lake/everything";
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", R"({"insert": {"id": 1, "s": "a"}})")));
  ASSERT_TRUE(p.Checkpoint()["success"].is_number());
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", R"({"insert": {"id": 2, "s": "b"}})")));
  ASSERT_TRUE(WaitVersions(lake, 3));
  const std::string id = Json::parse(p.Client().Get("/status")->body)["pipeline_id"];
  p.Kill9();
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_EQ(Json::parse(p.Client().Get("/status")->body)["pipeline_id"], id);
  // The HTTP record after the checkpoint is lost to the pipeline (as
  // documented) but was committed: it is sent again, and replaces itself.
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", R"({"insert": {"id": 2, "s": "b"}})")));
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", R"({"insert": {"id": 3, "s": "c"}})")));
  EXPECT_EQ(p.Query("SELECT COUNT(*) FROM everything", "csv"), "3\n");
  ASSERT_TRUE(p.Checkpoint()["success"].is_number());
  p.Kill9();
  // A missing commit: the pipeline refuses to start, and says which.
  std::filesystem::rename(lake + "/_delta_log/00000000000000000001.json", p.dir() + "/v1.json");
  p.Spawn();
  EXPECT_EQ(p.exit_code(), 1) << p.log();
  EXPECT_NE(p.log().find("missing version 1"), std::string::npos) << p.log();
  OracleResult r = CheckTable(p, lake, "everything");
  EXPECT_EQ(r.exit_code, 2) << r.report.dump();
  // A damaged one: the same.
  std::filesystem::rename(p.dir() + "/v1.json", lake + "/_delta_log/00000000000000000001.json");
  std::ofstream(lake + "/_delta_log/00000000000000000002.json", std::ios::app) << "{\"add\": {\n";
  p.Spawn();
  EXPECT_EQ(p.exit_code(), 1) << p.log();
  EXPECT_NE(p.log().find("is not a JSON action"), std::string::npos) << p.log();
}

// Many rows in files of about the target size, written on several threads;
// reset starts the table over with the view's snapshot.
TEST(DeltaTest, AMillionRowSnapshot) {
  Pipeline p(Sinks(R"(
CREATE TABLE t (id BIGINT NOT NULL, g INTEGER, s VARCHAR) WITH (materialized = true);
CREATE MATERIALIZED VIEW v WITH (connectors = '[{"name": "lake", "send_snapshot": true,
  "transport": {"name": "delta_table_output", "config": {"uri": "lake/v",
    "target_file_size_bytes": 4000000, "threads": 2}}}]') AS SELECT * FROM t;
)"));
  ASSERT_GT(p.port(), 0) << p.log();
  const std::string lake = p.dir() + "/lake/v";
  std::string body, token;
  for (int i = 0; i < 1000000; ++i) {
    body += "{\"insert\": {\"id\": " + std::to_string(i) + ", \"g\": " + std::to_string(i % 100) +
            ", \"s\": \"row " + std::to_string(i % 5000) + "\"}}\n";
    if ((i + 1) % 250000 == 0) {
      token = p.Ingest("t", body);
      ASSERT_FALSE(token.empty());
      body.clear();
    }
  }
  ASSERT_TRUE(p.WaitComplete(token, 300s));
  EXPECT_EQ(p.Query("SELECT COUNT(*) FROM v", "csv"), "1000000\n");
  // The snapshot: the table starts over with the view's contents at once.
  ASSERT_EQ(p.Client().Post("/output_endpoints/lake/reset", "", "text/plain")->status, 200);
  OracleResult r = WaitForTable(p, lake, "v", 200, 100ms);
  EXPECT_EQ(r.exit_code, 0) << r.report.dump(1);
  EXPECT_EQ(r.report["rows"], 1000000);
  EXPECT_GE(r.report["files"], 4) << r.report.dump();
}

// Every file in `dir` whose name ends with `suffix`.
size_t CountFiles(const std::string& dir, const std::string& suffix) {
  size_t n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      ++n;
    }
  }
  return n;
}

// exactly_once: kill -9 at random points, and at failpoints between a
// step's data files and its commit and in the middle of a commit. Every
// restart replays the journal's steps as they were, so the Delta table and
// the file sink hold every change exactly once, and no accepted HTTP input
// is lost.
TEST(DeltaTest, ExactlyOnceAcrossKillsAtRandomPoints) {
  const std::string program = R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v INTEGER) WITH (materialized = true,
  connectors = '[{"name": "t_in", "max_batch_size": 7,
  "transport": {"name": "file_input", "config": {"path": "in.json", "follow": true}},
  "format": {"name": "json"}}]');
CREATE MATERIALIZED VIEW sums WITH (connectors = '[
  {"name": "lake", "transport": {"name": "delta_table_output", "config": {"uri": "lake/sums"}}},
  {"name": "file", "transport": {"name": "file_output", "config": {"path": "out.json"}},
   "format": {"name": "json"}}]')
  AS SELECT id % 5 AS g, SUM(v) AS s, COUNT(*) AS n FROM t GROUP BY id % 5;
)";
  Pipeline p(
      Sinks(program), {"--storage", "$DIR/st", "--workers", "2", "--config", "$DIR/rt.json"},
      {{"in.json", ""},
       {"rt.json",
        R"({"fault_tolerance": {"model": "exactly_once", "checkpoint_interval_secs": 1}})"}});
  ASSERT_GT(p.port(), 0) << p.log();
  const std::string lake = p.dir() + "/lake/sums";
  std::mt19937 rng(11);
  int written = 0, http_next = 1000000;
  std::set<int> ids;
  auto append = [&](int n) {
    std::ofstream f(p.dir() + "/in.json", std::ios::app);
    for (int i = 0; i < n; ++i, ++written) {
      // New keys, and updates of earlier ones.
      const int id = written % 3 == 2 ? static_cast<int>(rng() % (written + 1)) : written;
      ids.insert(id);
      f << "{\"insert\": {\"id\": " << id << ", \"v\": " << rng() % 100 << "}}\n";
    }
  };
  // HTTP rows: one whose request was answered 200 must not be lost, one
  // answered with an error must not be taken; a request killed before its
  // answer may have been taken or not (as a commit whose connection drops).
  std::set<int> http_taken, http_unsure;
  auto http = [&] {
    const int id = http_next++;
    auto r = p.Client().Post("/ingress/t",
                             "{\"insert\": {\"id\": " + std::to_string(id) + ", \"v\": 1}}",
                             "application/json");
    if (r && r->status == 200) {
      ids.insert(id);
      http_taken.insert(id);
    } else if (!r) {
      http_unsure.insert(id);
    }
  };
  for (int round = 0; round < 8; ++round) {
    // Distributed: also the leader killed after a commit before it answers
    // the parts, and a part killed between writing its files and reporting
    // them.
    const char* failpoint = round == 2                    ? "delta_before_commit:2"
                            : round == 5                  ? "delta_mid_commit:2"
                            : round == 3 && Distributed() ? "delta_leader_after_commit:2"
                            : round == 6 && Distributed() ? "delta_part_before_report:3"
                                                          : nullptr;
    // A kill -9 in an earlier round may have left a commit aside too.
    size_t aside_before = 0;
    if (failpoint != nullptr) {
      // The next process ends itself at the failpoint.
      p.Kill9();
      aside_before = CountFiles(lake + "/_delta_log", ".json.tmp");
      setenv("SLUICE_FAILPOINTS", failpoint, 1);
      p.Spawn();
      unsetenv("SLUICE_FAILPOINTS");
      ASSERT_GT(p.port(), 0) << p.log();
    }
    append(20 + static_cast<int>(rng() % 40));
    for (int k = 0; k < 3; ++k) http();
    std::this_thread::sleep_for(std::chrono::milliseconds(100 + rng() % 200));
    if (round % 3 == 1) {
      p.Client().Post("/checkpoint", "", "text/plain");
      std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 20));  // maybe mid-checkpoint
    }
    if (round == 2) {
      EXPECT_GT(CountFiles(lake, ".parquet"), 0u);
    }
    if (round == 5) {
      std::this_thread::sleep_for(500ms);
      EXPECT_EQ(CountFiles(lake + "/_delta_log", ".json.tmp"), aside_before + 1)
          << "the failpoint did not fire";
    }
    if (failpoint != nullptr && Distributed()) {
      const std::string fired =
          "failpoint " + std::string(failpoint).substr(0, std::string(failpoint).find(':'));
      for (int i = 0; i < 100 && p.log().find(fired) == std::string::npos; ++i) {
        std::this_thread::sleep_for(20ms);
      }
      EXPECT_NE(p.log().find(fired), std::string::npos) << "round " << round << ": " << p.log();
    }
    p.Kill9();
    p.Spawn();
    ASSERT_GT(p.port(), 0) << p.log();
  }
  append(10);
  http();
  // The file's rows and the acknowledged HTTP rows, each once; of the
  // unanswered requests, those the pipeline took.
  const std::string http_rows = "SELECT id FROM t WHERE id >= 1000000 ORDER BY id";
  auto count_without_http = [&] {
    return p.Query("SELECT COUNT(*) FROM t WHERE id < 1000000", "csv");
  };
  const std::string want = std::to_string(ids.size() - http_taken.size()) + "\n";
  std::string taken;
  for (int i = 0; i < 400; ++i) {
    taken = p.Query(http_rows, "csv");
    const bool last_in =
        http_taken.empty() || taken.find(std::to_string(*http_taken.rbegin())) != std::string::npos;
    if (count_without_http() == want && last_in) {
      break;
    }
    std::this_thread::sleep_for(25ms);
  }
  ASSERT_EQ(count_without_http(), want) << p.log();
  std::set<int> in_table;
  {
    std::istringstream in(taken);
    for (std::string line; std::getline(in, line);) in_table.insert(std::stoi(line));
  }
  for (int id : http_taken)
    EXPECT_EQ(in_table.count(id), 1u) << "acknowledged row " << id << " lost";
  for (int id : in_table) {
    EXPECT_TRUE(http_taken.count(id) + http_unsure.count(id) == 1)
        << "row " << id << " taken though its request was refused";
  }
  EXPECT_EQ(p.Query("SELECT g, s, n FROM sums ORDER BY g", "csv"),
            p.Query("SELECT id % 5, SUM(v), COUNT(*) FROM t GROUP BY 1 ORDER BY 1", "csv"));
  // The Delta table, read independently: exactly the view, no step twice.
  OracleResult r = WaitForTable(p, lake, "sums", 100, 50ms);
  EXPECT_EQ(r.exit_code, 0) << r.report.dump(1);
  // The file sink, replayed, is the view.
  std::map<std::string, int> view, replay;
  {
    std::istringstream in(p.Query("SELECT g, s, n FROM sums", "json"));
    for (std::string line; std::getline(in, line);) ++view[Json::parse(line).dump()];
  }
  for (int i = 0; i < 100; ++i) {
    replay.clear();
    std::istringstream in(Slurp(p.dir() + "/out.json"));
    for (std::string line; std::getline(in, line);) {
      Json j = Json::parse(line);
      if (j.contains("insert")) ++replay[j["insert"].dump()];
      if (j.contains("delete")) --replay[j["delete"].dump()];
    }
    for (auto it = replay.begin(); it != replay.end();)
      it = it->second == 0 ? replay.erase(it) : ++it;
    if (replay == view) break;
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(replay, view);
}

// A view with a temporal filter into Delta Lake, killed after steps that the
// clock moved were committed: the restart replays those steps with the clock
// they had (the sink skips them), so the rows they let in leave later, and
// the table ends as the view does.
TEST(DeltaTest, TemporalViewReplaysItsStepsWithTheirClock) {
  Pipeline p(Sinks(R"(
CREATE TABLE events (id INT NOT NULL PRIMARY KEY, ts TIMESTAMP) WITH (materialized = true);
CREATE MATERIALIZED VIEW due WITH (connectors = '[
  {"name": "lake", "transport": {"name": "delta_table_output", "config": {"uri": "lake/due"}}}]')
  AS SELECT id, ts FROM events WHERE ts <= NOW() AND ts > NOW() - INTERVAL '2 seconds';
)"),
             {"--workers", "2", "--storage", "$DIR/st", "--config", "$DIR/rt.json"},
             {{"rt.json", R"({"clock_resolution_usecs": 100000,
                "fault_tolerance": {"model": "exactly_once", "checkpoint_interval_secs": 60}})"}});
  ASSERT_GT(p.port(), 0) << p.log();
  std::string rows;
  for (int i = 0; i < 20; ++i) {
    rows += "{\"insert\": {\"id\": " + std::to_string(i) + ", \"ts\": \"" +
            WallClockPlus(300 + 50 * i) + "\"}}\n";
  }
  ASSERT_TRUE(p.WaitComplete(p.Ingest("events", rows)));
  // The checkpoint is from before any row came due; the steps after it let
  // rows in, and are committed, before the kill.
  Json cp = p.Checkpoint();
  ASSERT_TRUE(cp.is_object() && cp["failure"].is_null()) << cp.dump() << p.log();
  std::this_thread::sleep_for(1000ms);
  p.Kill9();
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  for (int i = 0; i < 200 && !p.Query("SELECT id FROM due", "csv").empty(); ++i) {
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(p.Query("SELECT id FROM due", "csv"), "");
  OracleResult r = WaitForTable(p, p.dir() + "/lake/due", "due", 100, 50ms);
  EXPECT_EQ(r.exit_code, 0) << r.report.dump(1) << p.log();
}

// ---------------------------------------------------------------- distributed

// The add actions of commit `version` of the table at `table`.
std::vector<Json> Adds(const std::string& table, int version) {
  char name[32];
  std::snprintf(name, sizeof name, "%020d.json", version);
  std::vector<Json> adds;
  std::istringstream in(Slurp(table + "/_delta_log/" + name));
  for (std::string line; std::getline(in, line);) {
    Json j = Json::parse(line, nullptr, false);
    if (j.contains("add")) adds.push_back(j["add"]);
  }
  return adds;
}

const char* kMergeProgram = R"(
CREATE TABLE t (
  id BIGINT NOT NULL PRIMARY KEY, s VARCHAR, d DECIMAL(10,2), dt DATE, ts TIMESTAMP,
  tm TIME, f DOUBLE, xs INTEGER ARRAY, iv INTERVAL) WITH (materialized = true);
CREATE MATERIALIZED VIEW cur WITH (connectors = '[{"name": "lake_cur", "send_snapshot": true,
  "transport": {"name": "delta_table_output", "config": {"uri": "lake/cur",
    "update_mode": "merge", "index": "cur_id", "target_file_size_bytes": 8000,
    "compact_min_files": 4, "vacuum_retention_hours": 0}}}]')
  AS SELECT * FROM t;
CREATE INDEX cur_id ON cur (id);
CREATE MATERIALIZED VIEW bys WITH (connectors = '[{"name": "lake_bys",
  "transport": {"name": "delta_table_output", "config": {"uri": "lake/bys",
    "update_mode": "merge"}}}]')
  AS SELECT s, COUNT(*) AS n, SUM(d) AS total FROM t GROUP BY s;
CREATE INDEX bys_s ON bys (s);
CREATE MATERIALIZED VIEW dup WITH (connectors = '[{"name": "lake_dup",
  "transport": {"name": "delta_table_output", "config": {"uri": "lake/dup",
    "update_mode": "merge", "index": "dup_s"}}}]')
  AS SELECT s, id FROM t;
CREATE INDEX dup_s ON dup (s);
)";

// The actions of every commit of a table, in order.
std::vector<Json> Actions(const std::string& table) {
  std::vector<Json> out;
  for (size_t v = 0;; ++v) {
    char name[32];
    std::snprintf(name, sizeof name, "%020zu.json", v);
    std::ifstream in(table + "/_delta_log/" + name);
    if (!in) break;
    for (std::string line; std::getline(in, line);) out.push_back(Json::parse(line));
  }
  return out;
}

// The files of a table that its latest version does not read: data files
// no live add names, and deletion vector files beyond as many as the live
// files' distinct vectors.
std::vector<std::string> UnreadFiles(const std::string& table) {
  std::map<std::string, std::string> live;  // path -> its vector's pathOrInlineDv
  for (const Json& a : Actions(table)) {
    if (a.contains("remove")) live.erase(a["remove"]["path"].get<std::string>());
    if (a.contains("add")) {
      const Json& add = a["add"];
      live[add["path"]] =
          add.contains("deletionVector") ? add["deletionVector"]["pathOrInlineDv"] : Json("");
    }
  }
  std::set<std::string> vectors;
  for (const auto& [path, dv] : live) {
    if (!dv.empty()) vectors.insert(dv);
  }
  std::vector<std::string> out;
  size_t vector_files = 0;
  for (const auto& e : std::filesystem::directory_iterator(table)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("deletion_vector_", 0) == 0 && ++vector_files > vectors.size()) {
      out.push_back(name);
    }
    if (name.size() > 8 && name.substr(name.size() - 8) == ".parquet" && live.count(name) == 0) {
      out.push_back(name);
    }
  }
  return out;
}

// update_mode merge: the table is the view (one row per key) after every
// kind of change: inserts, updates and deletes as deletion vectors, files
// mostly deleted rewritten, a restart that reloads the key index, and a key
// that is not unique stops only its own sink, with the reason.
TEST(DeltaTest, MergeKeepsTheViewWithDeletionVectors) {
  // The fourth Delta commit of the process fails once (as a full disk
  // would make it fail): it is tried again, with the same actions.
  setenv("SLUICE_FAILPOINTS", "delta_commit:4:error", 1);
  Pipeline p(Sinks(kMergeProgram), {"--storage", "$DIR/st", "--workers", "2"});
  unsetenv("SLUICE_FAILPOINTS");
  ASSERT_GT(p.port(), 0) << p.log();
  const std::string cur = p.dir() + "/lake/cur", bys = p.dir() + "/lake/bys";
  auto check = [&](const std::string& what) {
    for (const auto& [table, view] : {std::pair{cur, "cur"}, std::pair{bys, "bys"}}) {
      OracleResult r = WaitForTable(p, table, view, 100, 50ms);
      EXPECT_EQ(r.exit_code, 0) << what << ", " << view << ": " << r.report.dump(1);
      EXPECT_EQ(r.report["merge"], true) << r.report.dump();
    }
  };
  std::string rows;
  for (int id = 0; id < 300; ++id) {
    rows += "{\"insert\": {\"id\": " + std::to_string(id) + ", \"s\": \"g" +
            std::to_string(id % 7) + "\", \"d\": " + std::to_string(id) +
            ".25, \"dt\": \"2024-02-29\", \"ts\": \"2024-01-01 00:00:01.5\", \"tm\": \"01:02:03\", "
            "\"f\": 0.5, \"xs\": [1, null], \"iv\": \"1 day\"}}\n";
  }
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", rows)));
  check("inserts");
  // Updates and deletes of a few rows: deletion vectors, not rewrites.
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", R"({"update": {"id": 5, "s": "changed", "d": 1}}
{"delete": {"id": 7}}
{"update": {"id": 200, "xs": null, "tm": null}})")));
  check("a few updates");
  bool vector = false;
  for (const Json& a : Actions(cur)) {
    if (a.contains("add") && a["add"].contains("deletionVector")) vector = true;
    if (a.contains("protocol")) {
      EXPECT_EQ(a["protocol"]["minReaderVersion"], 3);
      EXPECT_NE(a["protocol"]["readerFeatures"].dump().find("deletionVectors"), std::string::npos);
    }
  }
  EXPECT_TRUE(vector) << "no deletion vector in the log of " << cur;
  // Most rows deleted: their files are rewritten (or removed), not kept
  // with vectors that delete most of them.
  std::string dels;
  for (int id = 0; id < 260; ++id) {
    if (id != 5 && id != 7) dels += "{\"delete\": {\"id\": " + std::to_string(id) + "}}\n";
  }
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", dels)));
  check("most rows deleted");
  OracleResult r = CheckTable(p, cur, "cur");
  EXPECT_LE(r.report.value("deleted", 1000), r.report.value("rows", 0) + 1) << r.report.dump();
  // A transaction of several steps is one commit.
  ASSERT_EQ(p.Client().Post("/start_transaction", "", "text/plain")->status, 200);
  for (int id = 1000; id < 1003; ++id) {
    ASSERT_FALSE(p.Ingest("t", "{\"insert\": {\"id\": " + std::to_string(id) + ", \"s\": \"tx\"}}")
                     .empty());
  }
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", R"({"update": {"id": 270, "s": "tx"}})")) || true);
  auto commit = p.Client().Post("/commit_transaction", "", "text/plain");
  ASSERT_EQ(commit->status, 200) << commit->body;
  check("a transaction");
  EXPECT_NE(p.log().find("failpoint delta_commit: failing once"), std::string::npos) << p.log();
  // Small files of one-row steps are compacted, in commits of their own
  // (on many hosts, each part its own).
  for (int i = 0; i < (Distributed() ? 12 : 6); ++i) {
    ASSERT_TRUE(p.WaitComplete(p.Ingest(
        "t", "{\"update\": {\"id\": " + std::to_string(290 + i) + ", \"s\": \"small\"}}")));
  }
  check("small steps");
  int compactions = 0;
  for (const Json& a : Actions(cur)) {
    if (a.contains("commitInfo") && a["commitInfo"]["operation"] == "OPTIMIZE") ++compactions;
    if (a.contains("add") && a["add"]["dataChange"] == false) {
      EXPECT_EQ(a["add"].count("deletionVector"), 0u) << a.dump();
    }
  }
  EXPECT_GT(compactions, 0);
  // With no retention, VACUUM deletes what the commits removed (rewritten,
  // deleted and compacted files, and replaced vectors) once the sink is idle.
  std::vector<std::string> unread = UnreadFiles(cur);
  for (int i = 0; i < 200 && !unread.empty(); ++i) {
    std::this_thread::sleep_for(25ms);
    unread = UnreadFiles(cur);
  }
  EXPECT_TRUE(unread.empty()) << unread.size() << " files, the first " << unread.front();
  EXPECT_NE(p.log().find("vacuum deleted"), std::string::npos) << p.log();
  EXPECT_FALSE(UnreadFiles(bys).empty()) << "the default retention keeps removed files";
  // A restart from a checkpoint: the index comes back from the table.
  ASSERT_TRUE(p.Checkpoint()["success"].is_number());
  p.Kill9();
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", R"({"update": {"id": 280, "s": "after", "d": 9}}
{"delete": {"id": 281}}
{"insert": {"id": 2000, "s": "new"}})")));
  check("after a restart");
  // The view whose index is not unique: its sink says so and stops; the
  // others go on. (A distributed sink's parts each check their host's
  // rows: rows of one key on two hosts are not seen.)
  const Json stats = Json::parse(p.Client().Get("/stats")->body);
  std::string dup_error;
  std::set<int> cur_hosts;
  for (const Json& o : stats["outputs"]) {
    if (o["name"] == "lake_dup") dup_error += o.value("last_error", std::string());
    if (o["name"] == "lake_cur" && o.contains("host")) cur_hosts.insert(o["host"].get<int>());
  }
  if (Distributed()) {
    EXPECT_EQ(cur_hosts.size(), 3u) << stats.dump(1);
    return;
  }
  EXPECT_NE(dup_error.find("not a unique key"), std::string::npos) << stats.dump(1);
  EXPECT_NE(dup_error.find("dup"), std::string::npos) << dup_error;
}

// What update_mode merge needs is checked at start, with the reason.
TEST(DeltaTest, MergeNeedsAKey) {
  auto start = [](const std::string& config, const std::string& index) {
    Pipeline p(R"(
CREATE TABLE t (id BIGINT NOT NULL, tm TIME, s VARCHAR);
CREATE MATERIALIZED VIEW v WITH (connectors = '[{"name": "lake",
  "transport": {"name": "delta_table_output", "config": {"uri": "lake/v",
    "update_mode": "merge")" + config + R"(}}}]') AS SELECT * FROM t;
)" + index);
    EXPECT_EQ(p.exit_code(), 1) << p.log();
    return p.log();
  };
  EXPECT_NE(start("", "").find("needs a unique key of view v"), std::string::npos);
  EXPECT_NE(start(", \"index\": \"nope\"", "").find("index \"nope\" does not exist"),
            std::string::npos);
  EXPECT_NE(start("", "CREATE INDEX a ON v (id); CREATE INDEX b ON v (s);")
                .find("name the one that is its unique key"),
            std::string::npos);
  EXPECT_NE(start("", "CREATE INDEX a ON v (tm);").find("type TIME"), std::string::npos);
}

// Parquet has no time with a zone: a Delta sink or source of a TIME WITH
// TIME ZONE column is refused when the pipeline starts, and says why.
TEST(DeltaTest, ATimeWithTimeZoneIsRefusedAtStart) {
  Pipeline out(R"(
CREATE TABLE t (id BIGINT NOT NULL, tz TIMETZ);
CREATE MATERIALIZED VIEW v WITH (connectors = '[{"name": "lake",
  "transport": {"name": "delta_table_output", "config": {"uri": "lake/v"}}}]')
  AS SELECT id, tz FROM t;
)");
  EXPECT_EQ(out.exit_code(), 1) << out.log();
  EXPECT_NE(out.log().find("connector \"lake\": column tz of type TIME WITH TIME ZONE"),
            std::string::npos)
      << out.log();
  EXPECT_NE(out.log().find("not supported yet"), std::string::npos) << out.log();
  Pipeline in(R"(
CREATE TABLE t (id BIGINT NOT NULL, tz TIME WITH TIME ZONE) WITH (connectors = '[{"name": "src",
  "transport": {"name": "delta_table_input", "config": {"uri": "lake/t"}}}]');
)");
  EXPECT_EQ(in.exit_code(), 1) << in.log();
  EXPECT_NE(in.log().find("connector \"src\": column tz of type TIME WITH TIME ZONE"),
            std::string::npos)
      << in.log();
}

// These start their own hosts: the multihost runs of the suite skip them.
#define SKIP_IN_MULTIHOST_RUNS()                     \
  if (std::getenv("SLUICE_TEST_HOSTS") != nullptr) { \
    GTEST_SKIP() << "runs its own hosts";            \
  }

// A distributed sink: a part on every host writes its host's rows, and the
// leader commits each step once, with one file per host (the single-host
// sink beside it: one file per step).
TEST(DistributedDeltaTest, OneCommitPerStepWithOneFilePerHost) {
  SKIP_IN_MULTIHOST_RUNS();
  Pipeline p(R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v INTEGER, s VARCHAR);
CREATE MATERIALIZED VIEW big WITH (connectors = '[
  {"name": "lake", "distributed": true,
   "transport": {"name": "delta_table_output", "config": {"uri": "lake/big"}}},
  {"name": "one", "transport": {"name": "delta_table_output", "config": {"uri": "lake/one"}}},
  {"name": "counted", "distributed": true, "transport": {"name": "null_output"}}]')
  AS SELECT id, v, s FROM t WHERE v > 10;
)",
             {"--hosts", "3", "--workers", "2", "--storage", "$DIR/st"});
  ASSERT_GT(p.port(), 0) << p.log();
  const std::string lake = p.dir() + "/lake/big", one = p.dir() + "/lake/one";
  for (int step = 0; step < 3; ++step) {
    std::string body;
    for (int i = 0; i < 3000; ++i) {
      const int id = step * 3000 + i;
      body += "{\"insert\": {\"id\": " + std::to_string(id) +
              ", \"v\": " + std::to_string(id % 50) + ", \"s\": \"r" + std::to_string(id) +
              "\"}}\n";
    }
    ASSERT_TRUE(p.WaitComplete(p.Ingest("t", body)));
    ASSERT_TRUE(WaitVersions(lake, static_cast<size_t>(step) + 2)) << p.log();
    ASSERT_TRUE(WaitVersions(one, static_cast<size_t>(step) + 2)) << p.log();
    EXPECT_EQ(Adds(lake, step + 1).size(), 3u) << "step " << step;
    EXPECT_EQ(Adds(one, step + 1).size(), 1u) << "step " << step;
  }
  // Updates and deletes too; then DuckDB reads both tables as the view.
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", R"({"update": {"id": 11, "v": 5}}
{"delete": {"id": 12}}
{"insert": {"id": 13, "v": 40, "s": "new"}})")));
  for (const std::string& table : {lake, one}) {
    OracleResult r = WaitForTable(p, table, "big", 100, 50ms);
    EXPECT_EQ(r.exit_code, 0) << table << ": " << r.report.dump(1);
  }
  // Each host's part of each connector in /stats; their records add up to
  // the view's changes.
  const Json stats = Json::parse(p.Client().Get("/stats")->body);
  std::map<std::string, std::set<int>> hosts;
  std::map<std::string, uint64_t> records;
  for (const Json& o : stats["outputs"]) {
    if (!o.contains("host")) continue;
    hosts[o["name"]].insert(o["host"].get<int>());
    records[o["name"]] += o.value("records", uint64_t{0});
  }
  EXPECT_EQ(hosts["lake"], (std::set<int>{0, 1, 2})) << stats.dump();
  EXPECT_EQ(hosts["counted"], (std::set<int>{0, 1, 2})) << stats.dump();
  EXPECT_EQ(hosts["one"].size(), 1u) << stats.dump();
  EXPECT_EQ(records["lake"], records["one"]) << stats.dump();
  EXPECT_EQ(records["counted"], records["one"]) << stats.dump();
}

// The snapshot of a distributed sink that starts paused, and a transaction
// around its start: every row arrives once (the rows before the start
// included).
TEST(DistributedDeltaTest, ASnapshotStartingPausedKeepsEveryRow) {
  SKIP_IN_MULTIHOST_RUNS();
  Pipeline p(R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v INTEGER);
CREATE MATERIALIZED VIEW v WITH (connectors = '[{"name": "lake", "distributed": true,
  "send_snapshot": true, "paused": true,
  "transport": {"name": "delta_table_output", "config": {"uri": "lake/v"}}}]')
  AS SELECT id, v FROM t;
)",
             {"--hosts", "2", "--workers", "2"});
  ASSERT_GT(p.port(), 0) << p.log();
  const std::string lake = p.dir() + "/lake/v";
  std::string body;
  for (int i = 0; i < 300; ++i) {
    body += "{\"insert\": {\"id\": " + std::to_string(i) + ", \"v\": " + std::to_string(i) + "}}\n";
  }
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", body)));
  ASSERT_EQ(p.Client().Post("/start_transaction", "", "text/plain")->status, 200);
  body.clear();
  for (int i = 300; i < 310; ++i) {
    body += "{\"insert\": {\"id\": " + std::to_string(i) + ", \"v\": 1}}\n";
  }
  const std::string token = p.Ingest("t", body);
  ASSERT_FALSE(token.empty());
  ASSERT_EQ(p.Client().Post("/output_endpoints/lake/start", "", "text/plain")->status, 200);
  std::this_thread::sleep_for(200ms);
  auto commit = p.Client().Post("/commit_transaction", "", "text/plain");
  ASSERT_TRUE(commit && commit->status == 200) << (commit ? commit->body : "");
  ASSERT_TRUE(p.WaitComplete(token));
  EXPECT_EQ(p.Query("SELECT COUNT(*) FROM v", "csv"), "310\n");
  OracleResult r = WaitForTable(p, lake, "v", 200, 50ms);
  EXPECT_EQ(r.exit_code, 0) << r.report.dump(1);
  EXPECT_EQ(r.report["rows"], 310) << r.report.dump(1);
  // A reset on every host at one step: the table starts over with one
  // snapshot of both hosts' shares, in one commit.
  ASSERT_EQ(p.Client().Post("/output_endpoints/lake/reset", "", "text/plain")->status, 200);
  r = WaitForTable(p, lake, "v", 200, 50ms);
  EXPECT_EQ(r.exit_code, 0) << r.report.dump(1);
  EXPECT_EQ(r.report["rows"], 310) << r.report.dump(1);
}

// What a distributed connector needs is checked at start, with the reason;
// a transport that cannot run as parts runs on one host, with a warning.
TEST(DistributedDeltaTest, WhatItNeedsIsCheckedAtStart) {
  SKIP_IN_MULTIHOST_RUNS();
  const std::string snapshot = R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v INTEGER);
CREATE MATERIALIZED VIEW v WITH (connectors = '[{"name": "lake", "distributed": true,
  "send_snapshot": true,
  "transport": {"name": "delta_table_output", "config": {"uri": "lake/v"}}}]')
  AS SELECT id, v FROM t;
)";
  setenv("SLUICE_DEV_TWEAKS", R"({"view_integrals": "one_host"})", 1);
  Pipeline one_host(snapshot, {"--hosts", "2"});
  unsetenv("SLUICE_DEV_TWEAKS");
  EXPECT_EQ(one_host.exit_code(), 1) << one_host.log();
  EXPECT_NE(one_host.log().find("set dev_tweaks.view_integrals to all_hosts"), std::string::npos)
      << one_host.log();
  // On one host, "distributed" changes nothing.
  Pipeline single(snapshot, {});
  EXPECT_GT(single.port(), 0) << single.log();
  std::string truncate = snapshot;
  truncate.replace(truncate.find("\"uri\": \"lake/v\""), 15,
                   "\"uri\": \"lake/v\", \"mode\": \"truncate\"");
  Pipeline modes(truncate, {"--hosts", "2"});
  EXPECT_EQ(modes.exit_code(), 1) << modes.log();
  EXPECT_NE(modes.log().find("a distributed Delta sink takes mode append"), std::string::npos)
      << modes.log();
  Pipeline file(R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v INTEGER);
CREATE VIEW v WITH (connectors = '[{"name": "out", "distributed": true,
  "transport": {"name": "file_output", "config": {"path": "out.json"}},
  "format": {"name": "json"}}]') AS SELECT id, v FROM t;
)",
                {"--hosts", "2"});
  ASSERT_GT(file.port(), 0) << file.log();
  EXPECT_NE(file.log().find("this file_output connector runs on one host"), std::string::npos)
      << file.log();
  ASSERT_TRUE(file.WaitComplete(file.Ingest("t", R"({"insert": {"id": 1, "v": 2}})")));
  for (int i = 0; i < 200 && Slurp(file.dir() + "/out.json").empty(); ++i) {
    std::this_thread::sleep_for(25ms);
  }
  EXPECT_EQ(Slurp(file.dir() + "/out.json"), "{\"insert\":{\"id\":1,\"v\":2}}\n");
}

}  // namespace
