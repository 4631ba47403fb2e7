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
}

const char* kMoved = R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v INTEGER) WITH (materialized = true);
CREATE MATERIALIZED VIEW g AS SELECT v % 10 AS k, COUNT(*) AS n, SUM(v) AS s FROM t GROUP BY v % 10;
CREATE MATERIALIZED VIEW w WITH (connectors = '[{"name": "sink", "send_snapshot": true,
  "transport": {"name": "file_output", "config": {"path": "out.json"}},
  "format": {"name": "json"}}]') AS SELECT id, v FROM t WHERE v % 3 <> 0;
)";

// Restarts `p` with dev_tweaks.view_integrals = `layout`.
void SpawnIn(Pipeline& p, const std::string& layout) {
  setenv("SLUICE_DEV_TWEAKS", ("{\"view_integrals\": \"" + layout + "\"}").c_str(), 1);
  p.Spawn();
  unsetenv("SLUICE_DEV_TWEAKS");
}

// What the test's queries read, in one text.
std::string Contents(Pipeline& p) {
  return p.Query("SELECT * FROM g ORDER BY k", "json") +
         p.Query("SELECT COUNT(*), SUM(v), MIN(id), MAX(id) FROM w", "json") +
         p.Query("SELECT COUNT(*), SUM(v) FROM t", "json");
}

// A restart in the other layout moves every integral, after approval: the
// pipeline waits (with /status saying what moves and why, and reads
// refused rather than empty), then every row is where the new layout puts
// it: reads, snapshots and the changes after them are exact, and the next
// restart keeps the new layout without asking again. Both directions.
TEST(SpreadTest, AMovedLayoutWaitsForApprovalAndKeepsEveryRow) {
  Pipeline p(kMoved, {"--hosts", "3", "--workers", "2", "--storage", "$DIR/st"});
  ASSERT_EQ(p.Terminate(), 0);  // it started in the default layout, with nothing
  std::filesystem::remove_all(p.dir() + "/st");
  SpawnIn(p, "one_host");
  ASSERT_GT(p.port(), 0) << p.log();
  std::map<int, int> model;  // id: v
  std::string rows;
  for (int id = 0; id < 3000; ++id) {
    model[id] = id * 7 % 1000;
    rows += "{\"insert\": {\"id\": " + std::to_string(id) +
            ", \"v\": " + std::to_string(model[id]) + "}}\n";
  }
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", rows)));
  std::string before = Contents(p);
  Json cs = p.Checkpoint();
  ASSERT_TRUE(cs.is_object() && cs["success"].is_number()) << cs.dump() << p.log();
  ASSERT_EQ(p.Terminate(), 0);

  for (const std::string to : {"all_hosts", "one_host"}) {
    const std::string from = to == "all_hosts" ? "one_host" : "all_hosts";
    SCOPED_TRACE(from + " -> " + to);
    SpawnIn(p, to);
    ASSERT_GT(p.port(), 0) << p.log();
    Json st = Json::parse(p.Client().Get("/status")->body);
    EXPECT_EQ(st["state"], "AwaitingApproval") << st.dump();
    ASSERT_TRUE(st["program_changes"].is_object()) << st.dump();
    std::set<std::string> moved;
    for (const Json& r : st["program_changes"]["relations"]) {
      moved.insert(r["name"].get<std::string>());
      EXPECT_EQ(r["reason"], "layout " + from + " -> " + to) << r.dump();
    }
    EXPECT_EQ(moved, (std::set<std::string>{"g", "t", "w"})) << st.dump();
    auto q = p.Client().Get("/query?sql=SELECT+COUNT(*)+FROM+t");
    ASSERT_TRUE(q);
    EXPECT_EQ(q->status, 503) << q->body;
    auto a = p.Client().Post("/approve", "", "text/plain");
    ASSERT_TRUE(a && a->status == 200) << (a ? a->body : "no answer") << p.log();
    st = Json::parse(p.Client().Get("/status")->body);
    EXPECT_EQ(st["state"], "Running") << st.dump();
    EXPECT_EQ(st["layout"], to) << st.dump();
    EXPECT_EQ(st["program_changes"]["status"], "applied") << st.dump();
    EXPECT_EQ(Contents(p), before) << p.log();
    // Every row is in the snapshot, and every change after it lands.
    std::map<std::string, int> w;
    std::istringstream in(p.Query("SELECT id, v FROM w", "json"));
    for (std::string line; std::getline(in, line);) ++w[Json::parse(line).dump()];
    EXPECT_EQ(SnapshotRows(p, "w"), w);
    std::string changes;
    for (int id = 0; id < 3000; id += 7) {
      if (id % 2 == 0) {
        changes += "{\"delete\": {\"id\": " + std::to_string(id) + "}}\n";
        model.erase(id);
      } else {
        model[id] = (model[id] + 1) % 1000;
        changes += "{\"insert\": {\"id\": " + std::to_string(id) +
                   ", \"v\": " + std::to_string(model[id]) + "}}\n";
      }
    }
    ASSERT_TRUE(p.WaitComplete(p.Ingest("t", changes)));
    int64_t sum = 0;
    for (const auto& [id, v] : model) sum += v;
    EXPECT_EQ(p.Query("SELECT COUNT(*) AS n, SUM(v) AS s FROM t", "json"),
              "{\"n\":" + std::to_string(model.size()) + ",\"s\":" + std::to_string(sum) + "}\n");
    std::map<std::string, int> expect_w;
    for (const auto& [id, v] : model) {
      if (v % 3 != 0) ++expect_w[Json{{"id", id}, {"v", v}}.dump()];
    }
    std::map<std::string, int> got;
    std::istringstream in2(p.Query("SELECT id, v FROM w", "json"));
    for (std::string line; std::getline(in2, line);) ++got[Json::parse(line).dump()];
    EXPECT_EQ(got, expect_w);
    // The sink's file replays to the view: its progress was kept.
    std::map<std::string, int> sink;
    for (int i = 0; i < 200; ++i) {
      sink.clear();
      for (const auto& [row, n] : ReplayChanges(p.dir() + "/out.json")) {
        sink[Json::parse(row).dump()] = n;
      }
      if (sink == expect_w) break;
      std::this_thread::sleep_for(25ms);
    }
    EXPECT_EQ(sink, expect_w);
    // The move was checkpointed: the next restart keeps the new layout.
    const std::string after = Contents(p);
    cs = p.Checkpoint();
    ASSERT_TRUE(cs.is_object() && cs["success"].is_number()) << cs.dump() << p.log();
    ASSERT_EQ(p.Terminate(), 0);
    p.Spawn();
    ASSERT_GT(p.port(), 0) << p.log();
    st = Json::parse(p.Client().Get("/status")->body);
    EXPECT_EQ(st["state"], "Running") << st.dump();
    EXPECT_EQ(st["layout"], to) << st.dump();
    EXPECT_EQ(Contents(p), after);
    before = after;
    ASSERT_EQ(p.Terminate(), 0);
  }
}

}  // namespace
}  // namespace sluice::testing
