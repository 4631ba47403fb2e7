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
  r REAL, big DECIMAL(30,5), nested VARCHAR[][]);
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
  Pipeline p(kProgram, {"--storage", "$DIR/st", "--workers", "2"});
  ASSERT_GT(p.port(), 0) << p.log();
  const std::string lake = p.dir() + "/lake/everything", counts = p.dir() + "/lake/counts";
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", R"(
{"insert": {"id": 1, "s": "a", "d": 1.25, "dt": "2024-01-31", "ts": "2024-01-31 10:15:00.5", "tm": "10:00:00.000001", "b": true, "f": 0.5, "xs": [1, null, 3], "iv": "1 day 02:00:00", "ti": -5, "si": 300, "r": 2.5, "big": 123456.5, "nested": [["x", null], [], null]}}
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
    saw_stats = true;
  }
  EXPECT_TRUE(saw_stats);
}

// A restart from a checkpoint skips the steps the table already holds; a
// missing or damaged log entry stops the pipeline with a clear error.
TEST(DeltaTest, RestartsSkipCommittedStepsAndRefuseADamagedLog) {
  Pipeline p(kProgram, {"--storage", "$DIR/st"});
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
  Pipeline p(R"(
CREATE TABLE t (id BIGINT NOT NULL, g INTEGER, s VARCHAR) WITH (materialized = true);
CREATE MATERIALIZED VIEW v WITH (connectors = '[{"name": "lake", "send_snapshot": true,
  "transport": {"name": "delta_table_output", "config": {"uri": "lake/v",
    "target_file_size_bytes": 4000000, "threads": 2}}}]') AS SELECT * FROM t;
)");
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
  OracleResult r;
  for (int i = 0; i < 200; ++i) {
    r = CheckTable(p, lake, "v");
    if (r.exit_code == 0) break;
    std::this_thread::sleep_for(100ms);
  }
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
      program, {"--storage", "$DIR/st", "--workers", "2", "--config", "$DIR/rt.json"},
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
  auto http = [&] {
    const int id = http_next++;
    if (!p.Ingest("t", "{\"insert\": {\"id\": " + std::to_string(id) + ", \"v\": 1}}").empty()) {
      ids.insert(id);  // accepted: it must not be lost
    }
  };
  for (int round = 0; round < 8; ++round) {
    const char* failpoint = round == 2   ? "delta_before_commit:2"
                            : round == 5 ? "delta_mid_commit:2"
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
    p.Kill9();
    p.Spawn();
    ASSERT_GT(p.port(), 0) << p.log();
  }
  append(10);
  http();
  const std::string want = std::to_string(ids.size()) + "\n";
  for (int i = 0; i < 400 && p.Query("SELECT COUNT(*) FROM t", "csv") != want; ++i) {
    std::this_thread::sleep_for(25ms);
  }
  ASSERT_EQ(p.Query("SELECT COUNT(*) FROM t", "csv"), want) << p.log();
  EXPECT_EQ(p.Query("SELECT g, s, n FROM sums ORDER BY g", "csv"),
            p.Query("SELECT id % 5, SUM(v), COUNT(*) FROM t GROUP BY 1 ORDER BY 1", "csv"));
  // The Delta table, read independently: exactly the view, no step twice.
  OracleResult r;
  for (int i = 0; i < 100; ++i) {
    r = CheckTable(p, lake, "sums");
    if (r.exit_code == 0) break;
    std::this_thread::sleep_for(50ms);
  }
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

}  // namespace
