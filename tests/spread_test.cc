// Views spread over every host (the all_hosts layout): snapshots assembled
// from every host's share, leases that outlive slow sinks, hosts that die
// while a snapshot streams, and the layout kept across restarts.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "pipeline_helper.h"

namespace sluice::testing {
namespace {

// A view of every SQL type the language has, NULLs, NaN, infinities and
// -0.0 among them.
const char* kEveryType = R"(
CREATE TABLE t (
  id BIGINT NOT NULL PRIMARY KEY, s VARCHAR, d DECIMAL(10,2), dt DATE, ts TIMESTAMP,
  tm TIME, b BOOLEAN, f DOUBLE, xs INTEGER ARRAY, iv INTERVAL, ti TINYINT, si SMALLINT,
  r REAL, big DECIMAL(38,10), nested VARCHAR[][], bytes VARBINARY)
  WITH (materialized = true);
CREATE MATERIALIZED VIEW everything WITH (connectors = '[{"name": "copy", "send_snapshot": true,
  "transport": {"name": "file_output", "config": {"path": "copy.json"}},
  "format": {"name": "json"}}]') AS
  SELECT *, CASE WHEN id % 5 = 0 THEN CAST('NaN' AS DOUBLE)
                 WHEN id % 5 = 1 THEN CAST('-Infinity' AS DOUBLE)
                 WHEN id % 5 = 2 THEN -0.0 ELSE f END AS special
  FROM t;
)";

// `n` rows of every type (every 7th all NULL but its key).
std::string EveryTypeRows(int from, int n) {
  std::mt19937 rng(static_cast<unsigned>(from));
  std::string out;
  for (int id = from; id < from + n; ++id) {
    if (id % 7 == 0) {
      out += "{\"insert\": {\"id\": " + std::to_string(id) + "}}\n";
      continue;
    }
    const int k = static_cast<int>(rng() % 1000);
    out += "{\"insert\": {\"id\": " + std::to_string(id) + ", \"s\": \"r\\u00e9" +
           std::to_string(k) + "\\\"q\", \"d\": " + std::to_string(k) + ".25, \"dt\": \"2024-0" +
           std::to_string(1 + k % 9) + "-1" + std::to_string(k % 9) +
           "\", \"ts\": \"2024-01-31 10:15:0" + std::to_string(k % 10) +
           ".5\", \"tm\": \"10:00:00.000001\", \"b\": " + (k % 2 ? "true" : "false") +
           ", \"f\": " + std::to_string(k) + ".5, \"xs\": [1, null, " + std::to_string(k) +
           "], \"iv\": \"1 day 02:00:0" + std::to_string(k % 10) +
           "\", \"ti\": " + std::to_string(k % 100 - 50) + ", \"si\": " + std::to_string(k * 30) +
           ", \"r\": 2.5, \"big\": 12345678901234567890123456.123456789" + std::to_string(k % 10) +
           ", \"nested\": [[\"x\", null], [], null], \"bytes\": [0, 255, " +
           std::to_string(k % 256) + "]}}\n";
  }
  return out;
}

// The rows of a snapshot (all its lines), as a multiset of JSON text.
std::map<std::string, int> SnapshotRows(Pipeline& p, const std::string& view,
                                        uint64_t* step = nullptr) {
  auto r = p.Client().Post("/egress/" + view + "?mode=snapshot", "", "text/plain");
  EXPECT_TRUE(r && r->status == 200) << (r ? r->body : "no answer");
  std::map<std::string, int> rows;
  if (!r) return rows;
  std::istringstream in(r->body);
  for (std::string line; std::getline(in, line);) {
    Json j = Json::parse(line);
    EXPECT_TRUE(j.contains("json_data")) << line;
    EXPECT_EQ(j["snapshot"], true) << line;
    if (step != nullptr) *step = j["step"];
    for (const Json& rec : j["json_data"]) ++rows[rec["insert"].dump()];
  }
  return rows;
}

// Every type comes through the pieces a snapshot is assembled from, on
// every host, exactly: the snapshot on 3 hosts equals the view as /query
// reads it, equals the snapshot of the same rows on one host, and the file
// sink that got it replays to the view.
TEST(SpreadTest, EveryTypeRoundTripsThroughASnapshotFromEveryHost) {
  Pipeline spread(kEveryType, {"--hosts", "3", "--workers", "2"});
  Pipeline one(kEveryType, {"--workers", "2"});
  ASSERT_GT(spread.port(), 0) << spread.log();
  ASSERT_GT(one.port(), 0) << one.log();
  Json st = Json::parse(spread.Client().Get("/status")->body);
  EXPECT_EQ(st["layout"], "all_hosts") << st.dump();
  for (int from = 0; from < 600; from += 200) {
    const std::string rows = EveryTypeRows(from, 200);
    ASSERT_TRUE(spread.WaitComplete(spread.Ingest("t", rows)));
    ASSERT_TRUE(one.WaitComplete(one.Ingest("t", rows)));
  }
  std::map<std::string, int> view;
  std::istringstream q(spread.Query("SELECT * FROM everything", "json"));
  for (std::string line; std::getline(q, line);) ++view[Json::parse(line).dump()];
  ASSERT_EQ(view.size(), 600u);
  EXPECT_EQ(SnapshotRows(spread, "everything"), view);
  EXPECT_EQ(SnapshotRows(one, "everything"), view);
  std::map<std::string, int> copy;
  for (int i = 0; i < 200; ++i) {
    copy.clear();
    for (const auto& [row, n] : ReplayChanges(spread.dir() + "/copy.json")) {
      copy[Json::parse(row).dump()] = n;
    }
    if (copy == view) break;
    std::this_thread::sleep_for(25ms);
  }
  EXPECT_EQ(copy, view);
}

// A snapshot that waits behind a slow sink for longer than a host keeps an
// untouched lease still completes: its reader touches the leases while it
// waits.
TEST(SpreadTest, ASnapshotBehindASlowSinkOutlivesTheLeaseIdleLimit) {
  setenv("SLUICE_DEV_TWEAKS", "{\"lease_idle_timeout_ms\": 500, \"lease_touch_interval_ms\": 100}",
         1);
  Pipeline p(R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, pad VARCHAR) WITH (materialized = true);
CREATE MATERIALIZED VIEW v AS SELECT id, pad FROM t;
)",
             {"--hosts", "3", "--workers", "1"});
  unsetenv("SLUICE_DEV_TWEAKS");
  ASSERT_GT(p.port(), 0) << p.log();
  const std::string pad(500, 'x');
  for (int from = 0; from < 60000; from += 10000) {
    std::string body;
    for (int id = from; id < from + 10000; ++id) {
      body += "{\"insert\": {\"id\": " + std::to_string(id) + ", \"pad\": \"" + pad + "\"}}\n";
    }
    ASSERT_TRUE(p.WaitComplete(p.Ingest("t", body)));
  }
  // 30 MB of rows (more than the sockets between the processes hold)
  // through queues of 200 records, read at about 10 MB/s: the snapshot
  // waits behind the client for longer than a lease may stay untouched.
  httplib::Client c("127.0.0.1", p.port());
  c.set_read_timeout(60, 0);
  httplib::Request req;
  req.method = "POST";
  req.path = "/egress/v?mode=snapshot&backpressure=true&max_queued_records=200";
  std::string body;
  const auto began = std::chrono::steady_clock::now();
  req.content_receiver = [&](const char* data, size_t len, uint64_t, uint64_t) {
    body.append(data, len);
    std::this_thread::sleep_for(std::chrono::microseconds(len / 10));
    return true;
  };
  auto res = c.send(req);
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_GT(std::chrono::steady_clock::now() - began, 2s) << "the sink was not slow";
  std::set<int64_t> ids;
  std::istringstream in(body);
  for (std::string line; std::getline(in, line);) {
    Json j = Json::parse(line);
    ASSERT_FALSE(j.contains("error")) << line << p.log();
    for (const Json& rec : j["json_data"]) ids.insert(rec["insert"]["id"].get<int64_t>());
  }
  EXPECT_EQ(ids.size(), 60000u);
}

const char* kSnapshotSink = R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v INTEGER) WITH (materialized = true, connectors = '[{
  "name": "t_in", "transport": {"name": "file_input", "config": {"path": "in.json", "follow": true}},
  "format": {"name": "json"}}]');
CREATE MATERIALIZED VIEW v WITH (connectors = '[{"name": "sink", "send_snapshot": true,
  "transport": {"name": "file_output", "config": {"path": "out.json"}},
  "format": {"name": "json"}}]') AS SELECT id, v FROM t;
)";

// A host killed while another reads its share for a snapshot (a failpoint
// in its scan): the snapshot's HTTP stream ends with the error, the
// pipeline fails naming the host, and a restart resumes with the view and
// the snapshot's sink exact (the unfinished snapshot is not half there).
TEST(SpreadTest, AHostKilledWhileASnapshotStreams) {
  std::string rows;
  for (int id = 0; id < 20000; ++id) {
    rows += "{\"insert\": {\"id\": " + std::to_string(id) + ", \"v\": " + std::to_string(id % 97) +
            "}}\n";
  }
  Pipeline p(kSnapshotSink, {"--hosts", "3", "--workers", "1", "--storage", "$DIR/st"},
             {{"in.json", rows}});
  ASSERT_GT(p.port(), 0) << p.log();
  for (int i = 0; i < 400 && p.Query("SELECT COUNT(*) FROM v", "csv") != "20000\n"; ++i) {
    std::this_thread::sleep_for(25ms);
  }
  ASSERT_EQ(p.Query("SELECT COUNT(*) FROM v", "csv"), "20000\n");
  Json cs = p.Checkpoint();
  ASSERT_TRUE(cs.is_object() && cs["success"].is_number()) << cs.dump() << p.log();
  ASSERT_EQ(p.Terminate(), 0);
  // Again, with hosts that die at their second scan.
  setenv("SLUICE_FAILPOINTS", "host_scan:2", 1);
  p.Spawn();
  unsetenv("SLUICE_FAILPOINTS");
  ASSERT_GT(p.port(), 0) << p.log();
  auto r = p.Client().Post("/egress/v?mode=snapshot", "", "text/plain");
  ASSERT_TRUE(r);
  bool error = false;
  std::istringstream in(r->body);
  for (std::string line; std::getline(in, line);) {
    error = error || Json::parse(line, nullptr, false).contains("error");
  }
  EXPECT_TRUE(error || r->status != 200) << r->body.substr(0, 500);
  Json st;
  for (int i = 0; i < 300; ++i) {
    st = Json::parse(p.Client().Get("/status")->body);
    if (st["state"] == "Failed") break;
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_EQ(st["state"], "Failed") << st.dump();
  EXPECT_NE(st["error"].get<std::string>().find("host "), std::string::npos) << st.dump();
  EXPECT_EQ(p.Terminate(), 0);
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_EQ(p.Query("SELECT COUNT(*), SUM(v) FROM v", "csv"),
            p.Query("SELECT COUNT(*), SUM(v) FROM t", "csv"));
  const auto view = p.Rows("SELECT id, v FROM v");
  std::map<std::string, int> replay;
  for (int i = 0; i < 200 && (replay = ReplayChanges(p.dir() + "/out.json")) != view; ++i) {
    std::this_thread::sleep_for(25ms);
  }
  EXPECT_EQ(replay, view);
}

// A restart keeps the layout its checkpoints were taken in: all_hosts for
// a new pipeline, one_host for one started so; asking for the other over
// existing checkpoints is refused with what to do.
TEST(SpreadTest, ARestartKeepsTheLayout) {
  Pipeline p(kSnapshotSink, {"--hosts", "2", "--workers", "1", "--storage", "$DIR/st"},
             {{"in.json", "{\"insert\": {\"id\": 1, \"v\": 1}}\n"}});
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_EQ(Json::parse(p.Client().Get("/status")->body)["layout"], "all_hosts");
  Json cs = p.Checkpoint();
  ASSERT_TRUE(cs.is_object() && cs["success"].is_number()) << cs.dump() << p.log();
  ASSERT_EQ(p.Terminate(), 0);
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_EQ(Json::parse(p.Client().Get("/status")->body)["layout"], "all_hosts");
  ASSERT_EQ(p.Terminate(), 0);
  setenv("SLUICE_DEV_TWEAKS", "{\"view_integrals\": \"one_host\"}", 1);
  p.Spawn();
  unsetenv("SLUICE_DEV_TWEAKS");
  EXPECT_EQ(p.exit_code(), 1) << p.log();
  EXPECT_NE(p.log().find("kept in layout all_hosts"), std::string::npos) << p.log();

  Pipeline old(kSnapshotSink, {"--hosts", "2", "--workers", "1", "--storage", "$DIR/st"},
               {{"in.json", ""}});
  setenv("SLUICE_DEV_TWEAKS", "{\"view_integrals\": \"one_host\"}", 1);
  old.Terminate();
  old.Spawn();
  unsetenv("SLUICE_DEV_TWEAKS");
  ASSERT_GT(old.port(), 0) << old.log();
  EXPECT_EQ(Json::parse(old.Client().Get("/status")->body)["layout"], "one_host");
  cs = old.Checkpoint();
  ASSERT_TRUE(cs.is_object() && cs["success"].is_number()) << cs.dump() << old.log();
  ASSERT_EQ(old.Terminate(), 0);
  old.Spawn();
  ASSERT_GT(old.port(), 0) << old.log();
  EXPECT_EQ(Json::parse(old.Client().Get("/status")->body)["layout"], "one_host");
}

}  // namespace
}  // namespace sluice::testing
