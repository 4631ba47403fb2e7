// Black-box tests of `sluice run`: each test starts the binary on a free
// port and talks to it over HTTP, as a user would.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "pipeline_helper.h"

namespace {

using namespace sluice::testing;
using Json = nlohmann::json;
using namespace std::chrono_literals;

// Reads an egress stream on a thread, one JSON line at a time.
class Stream {
 public:
  // Returns once the response has begun (or failed): from then on the
  // stream is subscribed, and sees every step after its start.
  Stream(const Pipeline& p, const std::string& path) {
    thread_ = std::thread([this, port = p.port(), path] {
      httplib::Client c("127.0.0.1", port);
      c.set_read_timeout(60, 0);
      httplib::Request req;
      req.method = "POST";
      req.path = path;
      req.response_handler = [this](const httplib::Response&) {
        std::lock_guard<std::mutex> l(mu_);
        began_ = true;
        cv_.notify_all();
        return true;
      };
      req.content_receiver = [this](const char* data, size_t len, uint64_t, uint64_t) {
        std::lock_guard<std::mutex> l(mu_);
        buf_.append(data, len);
        for (size_t nl; (nl = buf_.find('\n')) != std::string::npos;) {
          lines_.push_back(Json::parse(buf_.substr(0, nl)));
          buf_.erase(0, nl + 1);
        }
        cv_.notify_all();
        return !stop_;
      };
      auto res = c.send(req);
      std::lock_guard<std::mutex> l(mu_);
      status_ = res ? res->status : -1;
      if (res && res->status != 200) lines_.push_back(Json::parse(res->body, nullptr, false));
      ended_ = true;
      cv_.notify_all();
    });
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait_for(l, 30s, [&] { return began_ || ended_; });
  }
  ~Stream() {
    Close();
    thread_.join();
  }
  // Makes the client hang up at the next data it receives.
  void Close() {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  // Waits until `pred` holds over the lines received so far.
  bool WaitFor(const std::function<bool(const std::vector<Json>&)>& pred,
               std::chrono::milliseconds timeout = 20s) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, timeout, [&] { return pred(lines_) || ended_; }) && pred(lines_);
  }
  bool WaitEnded(std::chrono::milliseconds timeout = 20s) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, timeout, [&] { return ended_; });
  }
  std::vector<Json> lines() {
    std::lock_guard<std::mutex> l(mu_);
    return lines_;
  }
  int status() {
    std::lock_guard<std::mutex> l(mu_);
    return status_;
  }

 private:
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string buf_;
  std::vector<Json> lines_;
  bool stop_ = false, began_ = false, ended_ = false;
  int status_ = 0;
};

const char* kProgram = R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v INTEGER, s VARCHAR)
  WITH (materialized = true);
CREATE TABLE plain (a INTEGER, b VARCHAR);
CREATE MATERIALIZED VIEW groups AS
  SELECT id % 5 AS g, COUNT(*) AS n, SUM(v) AS total FROM t GROUP BY id % 5;
CREATE VIEW big AS SELECT id, v FROM t WHERE v > 100;
CREATE MATERIALIZED VIEW plain_count AS SELECT COUNT(*) AS n, MAX(b) AS top FROM plain;
)";

// `sluice run` re-executes itself once with glibc's malloc set up for
// batches (huge pages, one arena: src/base/allocator.h), in the same
// process; a setting the environment gives is left as it is.
TEST(PipelineTest, MallocIsSetUpForBatchesUnlessTheEnvironmentSaysOtherwise) {
  auto tunables = [](pid_t pid) {
    std::string env = Slurp("/proc/" + std::to_string(pid) + "/environ");
    std::replace(env.begin(), env.end(), '\0', '\n');
    std::smatch m;
    std::regex re("(^|\n)GLIBC_TUNABLES=([^\n]*)");
    return std::regex_search(env, m, re) ? m[2].str() : std::string("(none)");
  };
  {
    Pipeline p("CREATE TABLE t (x INTEGER);");
    ASSERT_GT(p.port(), 0) << p.log();
    const std::string t = tunables(p.pid());
    // glibc 2.36 leaves only the first tunable it read in the process's
    // copy of the variable; the huge pages come first, and the rest are
    // set by mallopt as well.
    EXPECT_EQ(t.rfind("glibc.malloc.hugetlb=1", 0), 0u) << t;
  }
  {
    setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=0", 1);
    setenv("MALLOC_ARENA_MAX", "4", 1);
    Pipeline p("CREATE TABLE t (x INTEGER);");
    unsetenv("GLIBC_TUNABLES");
    unsetenv("MALLOC_ARENA_MAX");
    ASSERT_GT(p.port(), 0) << p.log();
    EXPECT_EQ(tunables(p.pid()), "glibc.malloc.hugetlb=0");
  }
}

// SQL functions of the program: inlined in its views, and callable from ad
// hoc queries.
TEST(PipelineTest, ProgramFunctionsInViewsAndAdhocQueries) {
  Pipeline p(R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v BIGINT) WITH (materialized = true);
CREATE FUNCTION with_tax(x BIGINT) RETURNS NUMERIC LANGUAGE SQL RETURN round(x * 1.2, 2);
CREATE FUNCTION big(x BIGINT) RETURNS BOOLEAN AS 'SELECT $1 > 100' LANGUAGE SQL STRICT;
CREATE MATERIALIZED VIEW taxed AS
  SELECT SUM(with_tax(v)) AS total, COUNT(*) FILTER (WHERE big(v)) AS big_ones FROM t;
)",
             {"--workers", "2"});
  ASSERT_GT(p.port(), 0) << p.log();
  std::string tok = p.Ingest("t",
                             "{\"insert\": {\"id\": 1, \"v\": 10}}\n"
                             "{\"insert\": {\"id\": 2, \"v\": 200}}\n");
  ASSERT_TRUE(p.WaitComplete(tok));
  EXPECT_EQ(p.Query("SELECT total, big_ones FROM taxed", "csv"), "252.00,1\n");
  EXPECT_EQ(p.Query("SELECT id, with_tax(v), big(NULL) FROM t ORDER BY id", "csv"),
            "1,12.00,\n2,240.00,\n");
}

// NOW() in a view's WHERE clause is the step clock: rows enter and leave the
// view as it moves, with no new input, and an ad hoc query's NOW() is the
// time it is asked.
TEST(PipelineTest, TemporalFiltersFollowTheStepClock) {
  Pipeline p(R"(
CREATE TABLE events (id INT NOT NULL PRIMARY KEY, ts TIMESTAMP) WITH (materialized = true);
CREATE MATERIALIZED VIEW recent WITH (connectors = '[{"name": "file",
  "transport": {"name": "file_output", "config": {"path": "recent.json"}},
  "format": {"name": "json"}}]')
  AS SELECT id FROM events WHERE ts > NOW() - INTERVAL '4 seconds';
CREATE MATERIALIZED VIEW due AS SELECT id FROM events WHERE ts <= NOW();
CREATE MATERIALIZED VIEW young AS
  SELECT COUNT(*) AS n FROM events WHERE NOW() - ts < INTERVAL '4 seconds';
)",
             {"--workers", "2", "--config", "$DIR/rt.json"},
             {{"rt.json", R"({"clock_resolution_usecs": 100000})"}});
  ASSERT_GT(p.port(), 0) << p.log();
  // 1 is new (due once the clock, which moves in tenths of a second, passes
  // it), 2 comes due in two seconds and a half, 3 is an hour old, 4 has
  // no time (never in any of the views).
  std::string tok = p.Ingest(
      "events", "{\"insert\": {\"id\": 1, \"ts\": \"" + WallClockPlus(-300) + "\"}}\n" +
                    "{\"insert\": {\"id\": 2, \"ts\": \"" + WallClockPlus(2500) + "\"}}\n" +
                    "{\"insert\": {\"id\": 3, \"ts\": \"" + WallClockPlus(-3600 * 1000) +
                    "\"}}\n{\"insert\": {\"id\": 4, \"ts\": null}}\n");
  ASSERT_TRUE(p.WaitComplete(tok));
  EXPECT_EQ(p.Query("SELECT id FROM recent ORDER BY id", "csv"), "1\n2\n");
  EXPECT_EQ(p.Query("SELECT id FROM due ORDER BY id", "csv"), "1\n3\n");
  EXPECT_EQ(p.Query("SELECT n FROM young", "csv"), "2\n");
  auto wait_for = [&](const std::string& query, const std::string& want) {
    for (int i = 0; i < 200 && p.Query(query, "csv") != want; ++i) {
      std::this_thread::sleep_for(50ms);
    }
    return p.Query(query, "csv");
  };
  // With no input at all, 2 comes due, then 1 leaves, then 2 does. A loaded
  // machine may read the view too late to see 2 alone, so the order of the
  // leaving is read from the view's sink, which holds every step.
  EXPECT_EQ(wait_for("SELECT id FROM due ORDER BY id", "1\n2\n3\n"), "1\n2\n3\n");
  EXPECT_EQ(wait_for("SELECT id FROM recent ORDER BY id", ""), "");
  EXPECT_EQ(p.Query("SELECT n FROM young", "csv"), "0\n");
  std::vector<std::string> changes;
  for (int i = 0; i < 200 && changes.size() < 4; ++i) {
    if (i > 0) std::this_thread::sleep_for(50ms);
    changes.clear();
    for (const Json& j : SinkLines(p.dir() + "/recent.json")) changes.push_back(j.dump());
  }
  auto at = [&](const std::string& change) {
    return std::find(changes.begin(), changes.end(), change) - changes.begin();
  };
  const std::string del1 = R"({"delete":{"id":1}})", del2 = R"({"delete":{"id":2}})";
  EXPECT_EQ(changes.size(), 4u) << Slurp(p.dir() + "/recent.json");
  EXPECT_LT(at(R"({"insert":{"id":1}})"), at(del1));
  EXPECT_LT(at(R"({"insert":{"id":2}})"), at(del2));
  EXPECT_LT(at(del1), at(del2)) << Slurp(p.dir() + "/recent.json");
  // A row a second old (due at once, recent for three seconds), and a delete of
  // a row that had left.
  tok = p.Ingest("events", "{\"insert\": {\"id\": 5, \"ts\": \"" + WallClockPlus(-1000) +
                               "\"}}\n{\"delete\": {\"id\": 1}}\n");
  ASSERT_TRUE(p.WaitComplete(tok));
  EXPECT_EQ(p.Query("SELECT id FROM due ORDER BY id", "csv"), "2\n3\n5\n");
  EXPECT_EQ(wait_for("SELECT id FROM recent ORDER BY id", ""), "");
  // Ad hoc: NOW() is the query's own time, one value within the query.
  EXPECT_EQ(p.Query("SELECT COUNT(*) FROM events WHERE ts > NOW() - INTERVAL '1 minute' "
                    "AND NOW() = CURRENT_TIMESTAMP",
                    "csv"),
            "2\n");
  auto stats = Json::parse(p.Client().Get("/stats")->body);
  EXPECT_TRUE(stats["global"]["step_clock"].is_string()) << stats.dump();
}

// NOW() outside a temporal filter (the select list, an aggregate's FILTER)
// reads the clock relation: the view is recomputed as the clock moves, with
// no new input; after a restart from a checkpoint the clock's row is not
// counted twice.
TEST(PipelineTest, NowInTheSelectListFollowsTheStepClock) {
  Pipeline p(R"(
CREATE TABLE events (id INT NOT NULL PRIMARY KEY, ts TIMESTAMP) WITH (materialized = true);
CREATE MATERIALIZED VIEW state AS SELECT id, ts <= NOW() AS due FROM events;
CREATE MATERIALIZED VIEW counts AS
  SELECT COUNT(*) FILTER (WHERE ts <= NOW()) AS due, COUNT(*) AS n,
         MAX(ts) < CURRENT_TIMESTAMP AS all_due FROM events;
)",
             {"--workers", "2", "--storage", "$DIR/st", "--config", "$DIR/rt.json"},
             {{"rt.json", R"({"clock_resolution_usecs": 100000,
                "fault_tolerance": {"model": "at_least_once", "checkpoint_interval_secs": 1}})"}});
  ASSERT_GT(p.port(), 0) << p.log();
  std::string tok = p.Ingest(
      "events", "{\"insert\": {\"id\": 1, \"ts\": \"" + WallClockPlus(-1000) + "\"}}\n" +
                    "{\"insert\": {\"id\": 2, \"ts\": \"" + WallClockPlus(1500) + "\"}}\n");
  ASSERT_TRUE(p.WaitComplete(tok));
  EXPECT_EQ(p.Query("SELECT * FROM state ORDER BY id", "csv"), "1,true\n2,false\n");
  EXPECT_EQ(p.Query("SELECT * FROM counts", "csv"), "1,2,false\n");
  auto wait_for = [&](const std::string& query, const std::string& want) {
    for (int i = 0; i < 200 && p.Query(query, "csv") != want; ++i) {
      std::this_thread::sleep_for(50ms);
    }
    return p.Query(query, "csv");
  };
  // No input: the clock alone moves row 2 along.
  EXPECT_EQ(wait_for("SELECT * FROM state ORDER BY id", "1,true\n2,true\n"), "1,true\n2,true\n");
  EXPECT_EQ(wait_for("SELECT * FROM counts", "2,2,true\n"), "2,2,true\n");
  std::this_thread::sleep_for(1500ms);  // a checkpoint with the clock's row in it
  p.Kill9();
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_EQ(wait_for("SELECT * FROM counts", "2,2,true\n"), "2,2,true\n");
  EXPECT_EQ(p.Query("SELECT * FROM state ORDER BY id", "csv"), "1,true\n2,true\n");
  tok = p.Ingest("events", "{\"insert\": {\"id\": 3, \"ts\": \"" + WallClockPlus(60000) + "\"}}\n");
  ASSERT_TRUE(p.WaitComplete(tok));
  EXPECT_EQ(p.Query("SELECT * FROM counts", "csv"), "2,3,false\n");
}

// A recursive view whose rows live on every worker (and host) is kept up to
// date across a kill -9: the restart reads each worker's share of it from the
// checkpoint and replays the journal, and later changes (a deletion that
// splits the chain, an edge that closes a cycle) keep it right.
TEST(PipelineTest, ARecursiveViewKeepsItsShareOnEveryWorkerAcrossARestart) {
  Pipeline p(R"(
CREATE TABLE e (a INT, b INT);
CREATE MATERIALIZED VIEW reach AS WITH RECURSIVE r(a, b) AS (
  SELECT a, b FROM e UNION SELECT r.a, e.b FROM r JOIN e ON r.b = e.a) SELECT * FROM r;
CREATE MATERIALIZED VIEW n AS SELECT count(*) AS pairs FROM reach;
)",
             {"--workers", "2", "--storage", "$DIR/st", "--config", "$DIR/rt.json"},
             {{"rt.json", R"({"fault_tolerance": {"model": "exactly_once",
                "checkpoint_interval_secs": 1}})"}});
  ASSERT_GT(p.port(), 0) << p.log();
  std::string chain;  // 1 -> 2 -> ... -> 31
  for (int i = 1; i <= 30; ++i) {
    chain +=
        "{\"insert\": {\"a\": " + std::to_string(i) + ", \"b\": " + std::to_string(i + 1) + "}}\n";
  }
  ASSERT_TRUE(p.WaitComplete(p.Ingest("e", chain)));
  EXPECT_EQ(p.Query("SELECT pairs FROM n", "csv"), "465\n");
  std::this_thread::sleep_for(1500ms);  // a checkpoint
  ASSERT_TRUE(p.WaitComplete(p.Ingest("e", "{\"insert\": {\"a\": 31, \"b\": 32}}\n")));
  p.Kill9();  // the last change is in the journal only
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_EQ(p.Query("SELECT pairs FROM n", "csv"), "496\n");
  EXPECT_EQ(p.Query("SELECT count(*) FROM reach WHERE a = 1", "csv"), "31\n");
  ASSERT_TRUE(p.WaitComplete(p.Ingest("e", "{\"delete\": {\"a\": 15, \"b\": 16}}\n")));
  // 1..15 (105 pairs) and 16..32 (136).
  EXPECT_EQ(p.Query("SELECT pairs FROM n", "csv"), "241\n");
  ASSERT_TRUE(p.WaitComplete(p.Ingest("e", "{\"insert\": {\"a\": 30, \"b\": 1}}\n")));
  // Each of 16..29 now reaches 1..15 too: 14 * 15 more; 30 reaches 1..15.
  EXPECT_EQ(p.Query("SELECT pairs FROM n", "csv"), std::to_string(241 + 14 * 15 + 15) + "\n");
  const Json stats = Json::parse(p.Client().Get("/stats")->body);
  EXPECT_TRUE(stats["global"]["recursive_queries"].contains("reach.r")) << stats.dump();
}

// A restart replays the journal's steps with the step clock they had: the
// file sink of a temporal view holds each change once, and the view is what
// the clock says after the restart.
TEST(PipelineTest, TemporalFiltersReplayWithTheirClock) {
  Pipeline p(R"(
CREATE TABLE events (id INT NOT NULL PRIMARY KEY, ts TIMESTAMP) WITH (materialized = true);
CREATE MATERIALIZED VIEW due WITH (connectors = '[{"name": "file",
  "transport": {"name": "file_output", "config": {"path": "due.json"}},
  "format": {"name": "json"}}]')
  AS SELECT id FROM events WHERE ts <= NOW() AND ts > NOW() - INTERVAL '3 seconds';
)",
             {"--workers", "2", "--storage", "$DIR/st", "--config", "$DIR/rt.json"},
             {{"rt.json", R"({"clock_resolution_usecs": 100000,
                "fault_tolerance": {"model": "exactly_once", "checkpoint_interval_secs": 1}})"}});
  ASSERT_GT(p.port(), 0) << p.log();
  // Rows that come due over the next two seconds and leave three after.
  std::string rows;
  for (int i = 0; i < 20; ++i) {
    rows += "{\"insert\": {\"id\": " + std::to_string(i) + ", \"ts\": \"" + WallClockPlus(100 * i) +
            "\"}}\n";
  }
  ASSERT_TRUE(p.WaitComplete(p.Ingest("events", rows)));
  std::this_thread::sleep_for(1500ms);
  // What came due before the crash. A slow restart may let the clock pass the
  // whole window of the last rows: they never were in the view, and the sink
  // rightly never holds them.
  std::set<std::string> due_before;
  for (const Json& j : SinkLines(p.dir() + "/due.json")) {
    if (j.contains("insert")) due_before.insert(j["insert"].dump());
  }
  EXPECT_FALSE(due_before.empty());
  p.Kill9();
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  for (int i = 0; i < 200 && !p.Query("SELECT id FROM due", "csv").empty(); ++i) {
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(p.Query("SELECT id FROM due", "csv"), "");
  // The sink, replayed, is the view.
  EXPECT_TRUE(ReplayChanges(p.dir() + "/due.json").empty());
  // Every row that came due left, once each, and the replay wrote none twice.
  std::map<std::string, int> inserts, deletes;
  for (const Json& j : SinkLines(p.dir() + "/due.json")) {
    if (j.contains("insert")) ++inserts[j["insert"].dump()];
    if (j.contains("delete")) ++deletes[j["delete"].dump()];
  }
  EXPECT_EQ(inserts, deletes) << Slurp(p.dir() + "/due.json");
  for (const auto& [row, n] : inserts) EXPECT_EQ(n, 1) << row;
  for (const std::string& row : due_before) EXPECT_EQ(inserts.count(row), 1u) << row;
  EXPECT_LE(inserts.size(), 20u);
}

// random() in a view draws the same values when a restart replays the
// journal's steps: the sink, which skips the steps it already wrote, never
// sees a row's value change, and a later delete retracts exactly the value
// the sink holds.
TEST(PipelineTest, RandomDrawsReplayTheSameValues) {
  Pipeline p(R"(
CREATE TABLE t (id INT NOT NULL PRIMARY KEY, v INT) WITH (materialized = true);
CREATE MATERIALIZED VIEW v WITH (connectors = '[{"name": "file",
  "transport": {"name": "file_output", "config": {"path": "v.json"}},
  "format": {"name": "json"}}]')
  AS SELECT id, random() AS r FROM t WHERE random() < 2;
)",
             {"--workers", "2", "--storage", "$DIR/st", "--config", "$DIR/rt.json"},
             {{"rt.json", R"({"fault_tolerance": {"model": "exactly_once",
                "checkpoint_interval_secs": 3600}})"}});
  ASSERT_GT(p.port(), 0) << p.log();
  auto ingest = [&](int from, int to, const char* op) {
    std::string rows;
    for (int i = from; i < to; ++i) {
      rows += std::string("{\"") + op + "\": {\"id\": " + std::to_string(i) + ", \"v\": 1}}\n";
    }
    return p.WaitComplete(p.Ingest("t", rows));
  };
  ASSERT_TRUE(ingest(0, 10, "insert"));
  Json cs = p.Checkpoint();
  ASSERT_TRUE(cs.is_object() && cs["success"].is_number()) << cs.dump() << p.log();
  // Steps after the checkpoint, which the restart replays from the journal.
  ASSERT_TRUE(ingest(10, 20, "insert"));
  ASSERT_TRUE(ingest(20, 30, "insert"));
  auto read_sink = [&] {
    // id -> (r -> weight) over the sink's lines.
    std::map<int, std::map<double, int>> rows;
    for (const Json& j : SinkLines(p.dir() + "/v.json")) {
      for (const char* op : {"insert", "delete"}) {
        if (j.contains(op)) {
          rows[j[op]["id"].get<int>()][j[op]["r"].get<double>()] += op[0] == 'i' ? 1 : -1;
        }
      }
    }
    return rows;
  };
  for (int i = 0; i < 200 && read_sink().size() < 30; ++i) std::this_thread::sleep_for(25ms);
  const auto before = read_sink();
  ASSERT_EQ(before.size(), 30u);
  p.Kill9();
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  // Deletes of rows inserted before the checkpoint and of replayed ones.
  ASSERT_TRUE(ingest(5, 25, "delete"));
  const std::string view = p.Query("SELECT id, r FROM v ORDER BY id", "json");
  const auto after = read_sink();
  ASSERT_EQ(after.size(), 30u) << Slurp(p.dir() + "/v.json");
  for (const auto& [id, values] : after) {
    // One value per row, ever: the replay drew the value the sink holds,
    // and the delete retracted it.
    ASSERT_EQ(values.size(), 1u) << "row " << id
                                 << " changed its value: " << Slurp(p.dir() + "/v.json");
    const auto& [r, w] = *values.begin();
    EXPECT_EQ(before.at(id).begin()->first, r);
    EXPECT_EQ(w, id >= 5 && id < 25 ? 0 : 1) << "row " << id;
    EXPECT_GE(r, 0.0);
    EXPECT_LT(r, 1.0);
  }
  EXPECT_EQ(std::count(view.begin(), view.end(), '\n'), 10) << view;
}

// A pipeline's sequences outlive a restart: from a checkpoint they go on
// exactly where they were; after a kill -9 that followed values handed out
// since, they go on past every one of them (logged ahead, so some may be
// skipped, as in PostgreSQL), never handing one out twice. On many hosts the
// coordinator keeps them: each value once, whichever host would compute the
// query. A view may not call them.
TEST(PipelineTest, SequencesContinueAcrossRestarts) {
  Pipeline p(R"(
CREATE SEQUENCE s START 5;
CREATE TABLE t (id SERIAL PRIMARY KEY, v INT) WITH (materialized = true);
)",
             {"--workers", "2", "--storage", "$DIR/st"});
  ASSERT_GT(p.port(), 0) << p.log();
  auto next = [&] {
    const std::string r = p.Query("SELECT nextval('s')", "csv");
    EXPECT_FALSE(r.empty() || r[0] < '0' || r[0] > '9') << r;
    return std::atoll(r.c_str());
  };
  EXPECT_EQ(next(), 5);
  EXPECT_EQ(p.Query("SELECT nextval('s'), nextval('s') FROM generate_series(1, 2)", "csv"),
            "6,7\n8,9\n");
  // currval() belongs to a session: an HTTP query is one of its own.
  EXPECT_NE(p.Query("SELECT currval('s')", "csv").find("not yet defined in this session"),
            std::string::npos);
  Json cs = p.Checkpoint();
  ASSERT_TRUE(cs.is_object() && cs["success"].is_number()) << cs.dump() << p.log();
  p.Kill9();
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_EQ(next(), 10);
  EXPECT_EQ(p.Query("SELECT setval('s', 100)", "csv"), "100\n");
  const int64_t last = next();
  EXPECT_EQ(last, 101);
  p.Kill9();
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  const int64_t after = next();
  EXPECT_GT(after, last);
  EXPECT_LE(after, last + 32);
  // A SERIAL column's sequence is there too.
  EXPECT_EQ(p.Query("SELECT nextval('t_id_seq')", "csv"), "1\n");
}

// A view cannot call nextval(): the program is refused, pointing at it.
TEST(PipelineTest, ViewsRefuseSequenceCalls) {
  Pipeline p(R"(
CREATE SEQUENCE s;
CREATE TABLE t (v INT);
CREATE VIEW v AS SELECT v, nextval('s') AS n FROM t;
)",
             {});
  EXPECT_EQ(p.port(), 0);
  EXPECT_NE(p.log().find("nextval() in a view is not supported yet"), std::string::npos) << p.log();
}

// A view whose evaluation fails (here, a standard deviation of more than 38
// digits after the point) stops with the views that read it; the tables and the other views
// run on, and the failed views stay stopped across a restart.
TEST(PipelineTest, AFailingViewFailsAlone) {
  Pipeline p(R"(
CREATE TABLE t (id INT NOT NULL PRIMARY KEY, x NUMERIC) WITH (materialized = true);
CREATE MATERIALIZED VIEW sd AS SELECT stddev(x) AS sd, count(*) AS n FROM t;
CREATE MATERIALIZED VIEW sd_plus AS SELECT n + 1 AS n1 FROM sd;
CREATE MATERIALIZED VIEW total AS SELECT count(*) AS n, sum(x) AS s FROM t;
)",
             {"--workers", "2", "--storage", "$DIR/st", "--config", "$DIR/rt.json"},
             {{"rt.json", R"({"fault_tolerance": {"model": "exactly_once"}})"}});
  ASSERT_GT(p.port(), 0) << p.log();
  ASSERT_TRUE(p.WaitStep(1));  // the step at start
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", R"({"insert": {"id": 1, "x": 4}})")));
  EXPECT_EQ(p.Query("SELECT n1 FROM sd_plus", "csv"), "2\n");
  const std::string wide = p.Ingest("t", R"({"insert": {"id": 2, "x": 1.00000000000000000001}})");
  ASSERT_FALSE(wide.empty());
  if (std::getenv("SLUICE_TEST_HOSTS") != nullptr) {
    // On many hosts the hosts would have to agree on it: the pipeline fails.
    std::string answer;
    for (int i = 0; i < 200; ++i) {
      answer = p.Query("SELECT n FROM total", "csv");
      if (answer.find("not supported yet") != std::string::npos) break;
      std::this_thread::sleep_for(50ms);
    }
    EXPECT_NE(answer.find("not supported yet"), std::string::npos) << answer;
    return;
  }
  ASSERT_TRUE(p.WaitComplete(wide));
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", R"({"insert": {"id": 3, "x": 5}})")));
  EXPECT_EQ(p.Query("SELECT n, s FROM total", "csv"), "3,10.00000000000000000001\n");
  auto failed = [&] {
    Json stats = Json::parse(p.Client().Get("/stats")->body);
    return stats["global"]["failed_views"];
  };
  const Json f = failed();
  ASSERT_EQ(f.size(), 2u) << f.dump();
  EXPECT_NE(f["sd"].get<std::string>().find("view sd failed at step 3: step 3, worker"),
            std::string::npos)
      << f.dump();
  EXPECT_NE(f["sd"].get<std::string>().find("more than 38 digits after the point"),
            std::string::npos);
  EXPECT_NE(f["sd_plus"].get<std::string>().find("it reads view sd, which failed"),
            std::string::npos);
  EXPECT_NE(p.Query("SELECT * FROM sd").find("view sd failed at step 3"), std::string::npos);
  EXPECT_NE(p.Query("SELECT * FROM sd_plus").find("view sd_plus stopped at step 3"),
            std::string::npos);
  auto sub = p.Client().Post("/egress/sd?mode=snapshot", "", "text/plain");
  ASSERT_TRUE(sub);
  EXPECT_NE(sub->body.find("view sd failed"), std::string::npos) << sub->body;
  // A restart replays the steps since the checkpoint: the view fails again.
  ASSERT_FALSE(p.Checkpoint().is_null());
  p.Kill9();
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", R"({"delete": {"id": 2}})")));
  EXPECT_EQ(p.Query("SELECT n, s FROM total", "csv"), "2,9\n");
  EXPECT_EQ(failed().size(), 2u);
  EXPECT_NE(p.Query("SELECT * FROM sd").find("view sd failed at step 3"), std::string::npos);
}

// A fresh pipeline runs its first step at once: before any input, a count
// is one row of 0 and a constant view holds its row, in queries and sinks.
TEST(PipelineTest, ViewsHoldTheirAnswerOverEmptyTablesAtStart) {
  Pipeline p(R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v INTEGER);
CREATE MATERIALIZED VIEW c WITH (connectors = '[{
  "name": "c_out", "transport": {"name": "file_output", "config": {"path": "c.json"}},
  "format": {"name": "json"}}]') AS SELECT COUNT(*) AS n, SUM(v) AS s FROM t;
CREATE MATERIALIZED VIEW one AS SELECT 1 AS x;
)");
  ASSERT_GT(p.port(), 0) << p.log();
  p.WaitStep(1, 5s);
  EXPECT_EQ(Json::parse(p.Client().Get("/status")->body)["step"], 1);
  EXPECT_EQ(p.Query("SELECT n, s FROM c", "csv"), "0,\n");
  EXPECT_EQ(p.Query("SELECT x FROM one", "csv"), "1\n");
  std::vector<Json> lines;
  for (int i = 0; i < 200 && (lines = SinkLines(p.dir() + "/c.json")).empty(); ++i) {
    std::this_thread::sleep_for(25ms);
  }
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], Json::parse(R"({"insert": {"n": 0, "s": null}})"));
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", R"({"insert": {"id": 1, "v": 7}})")));
  EXPECT_EQ(p.Query("SELECT n, s FROM c", "csv"), "1,7\n");
}

TEST(PipelineTest, IngressCompletionAndQueries) {
  Pipeline p(kProgram, {"--workers", "2"});
  ASSERT_GT(p.port(), 0) << p.log();
  std::string t1 = p.Ingest("t",
                            "{\"insert\": {\"id\": 1, \"v\": 10, \"s\": \"one\"}}\n"
                            "{\"insert\": {\"id\": 2, \"v\": 20, \"s\": \"two\"}}\n"
                            "{\"insert\": {\"id\": 6, \"v\": 60}}\n");
  ASSERT_FALSE(t1.empty());
  ASSERT_TRUE(p.WaitComplete(t1));
  EXPECT_EQ(p.Query("SELECT g, n, total FROM groups ORDER BY g"),
            " g | n | total \n---+---+-------\n 1 | 2 |    70\n 2 | 1 |    20\n(2 rows)\n");
  // Updates change some columns; deletes need the key; CSV works too.
  std::string t2 = p.Ingest("t",
                            "{\"update\": {\"id\": 6, \"v\": 61}}\n"
                            "{\"delete\": {\"id\": 2}}\n");
  std::string t3 = p.Ingest("t", "7,700,seven\n", "?format=csv");
  ASSERT_FALSE(t2.empty());
  ASSERT_FALSE(t3.empty());
  ASSERT_TRUE(p.WaitComplete(t3));
  EXPECT_EQ(p.Query("SELECT id, v, s FROM t ORDER BY id", "json"),
            "{\"id\":1,\"v\":10,\"s\":\"one\"}\n{\"id\":6,\"v\":61,\"s\":null}\n"
            "{\"id\":7,\"v\":700,\"s\":\"seven\"}\n");
  EXPECT_EQ(p.Query("SELECT g, total FROM groups ORDER BY g", "csv"), "1,71\n2,700\n");
  // Raw rows and arrays of records, into a table without a key.
  std::string t4 = p.Ingest("plain", "[{\"a\": 1, \"b\": \"x\"}, {\"a\": 1, \"b\": \"x\"}]",
                            "?update_format=raw&array=true");
  ASSERT_TRUE(p.WaitComplete(t4));
  EXPECT_EQ(p.Query("SELECT * FROM plain_count"), " n | top \n---+-----\n 2 | x\n(1 row)\n");
  // Errors are JSON with a code.
  auto r = p.Client().Get("/completion_status?token=999");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(Json::parse(r->body)["error_code"], "UnknownToken");
  Json q = Json::parse(p.Query("SELECT * FROM big"));
  EXPECT_EQ(q["error_code"], "QueryError");
  EXPECT_NE(q["message"].get<std::string>().find("\"big\" is not materialized"), std::string::npos)
      << q.dump();
  q = Json::parse(p.Query("SELECT nope FROM t"));
  EXPECT_NE(q["message"].get<std::string>().find("column \"nope\" does not exist"),
            std::string::npos)
      << q.dump();
  auto status = p.Client().Get("/status");
  ASSERT_TRUE(status);
  EXPECT_EQ(Json::parse(status->body)["state"], "Running");
  auto stats = p.Client().Get("/stats");
  ASSERT_TRUE(stats);
  Json st = Json::parse(stats->body);
  EXPECT_GE(st["global"]["processed_records"].get<int>(), 8);
  EXPECT_EQ(p.Terminate(), 0);
}

TEST(PipelineTest, BadRequestsIngestNothing) {
  Pipeline p(kProgram, {"--max-request-mib", "1"});
  ASSERT_GT(p.port(), 0) << p.log();
  Json err;
  EXPECT_EQ(p.Ingest("t",
                     "{\"insert\": {\"id\": 1, \"v\": 10}}\n"
                     "{\"insert\": {\"id\": 2, \"v\": }}\n"
                     "{\"insert\": {\"id\": 3, \"v\": \"many\"}}\n"
                     "{\"insert\": {\"id\": 4, \"w\": 1}}\n",
                     "", &err),
            "");
  EXPECT_EQ(err["error_code"], "ParseErrors");
  ASSERT_EQ(err["details"]["errors"].size(), 3u) << err.dump();
  EXPECT_EQ(err["details"]["errors"][0]["record"], 2);
  EXPECT_EQ(err["details"]["errors"][0]["line"], 2);
  EXPECT_EQ(err["details"]["errors"][1]["line"], 3);
  EXPECT_NE(err["details"]["errors"][1]["reason"].get<std::string>().find("column \"v\""),
            std::string::npos);
  EXPECT_NE(err["details"]["errors"][2]["reason"].get<std::string>().find("unknown column \"w\""),
            std::string::npos);
  EXPECT_EQ(p.Ingest("t", "1,2,x\n2,oops,y\n", "?format=csv", &err), "");
  EXPECT_EQ(err["details"]["errors"][0]["column"], 3);
  EXPECT_EQ(p.Ingest("nope", "{}", "", &err), "");
  EXPECT_EQ(err["error_code"], "UnknownTable");
  EXPECT_EQ(p.Ingest("t", "{}", "?format=xml", &err), "");
  EXPECT_EQ(err["error_code"], "InvalidParameter");
  std::string big(2 << 20, ' ');
  EXPECT_EQ(p.Ingest("t", big, "", &err), "");
  EXPECT_EQ(err["error_code"], "RequestTooLarge");
  // None of it arrived; a good request still does.
  std::string ok = p.Ingest("t", "{\"insert\": {\"id\": 9, \"v\": 1}}");
  ASSERT_TRUE(p.WaitComplete(ok));
  EXPECT_EQ(p.Query("SELECT id FROM t", "csv"), "9\n");
  Json st = Json::parse(p.Client().Get("/stats")->body);
  bool found = false;
  for (const Json& in : st["inputs"]) {
    if (in["name"] == "t.http") {
      found = true;
      EXPECT_EQ(in["parse_errors"], 4);
    }
  }
  EXPECT_TRUE(found) << st.dump();
  // Snapshots exist only for materialized relations.
  auto r = p.Client().Post("/egress/big?mode=snapshot", "", "text/plain");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(Json::parse(r->body)["error_code"], "NotMaterialized");
}

// The snapshot plus the following changes equal the view at every step,
// while another client keeps changing the table.
TEST(PipelineTest, SnapshotAndFollowUnderConcurrentIngest) {
  Pipeline p(kProgram, {"--workers", "3"});
  ASSERT_GT(p.port(), 0) << p.log();
  std::atomic<int> sent{0};
  std::string last_token;
  std::thread writer([&] {
    std::mt19937 rng(7);
    for (int i = 0; i < 150; ++i) {
      std::string body;
      for (int j = 0; j < 5; ++j) {
        int id = static_cast<int>(rng() % 40);
        if (rng() % 4 == 0) {
          body += "{\"delete\": {\"id\": " + std::to_string(id) + "}}\n";
        } else {
          body += "{\"insert\": {\"id\": " + std::to_string(id) +
                  ", \"v\": " + std::to_string(rng() % 100) + "}}\n";
        }
      }
      last_token = p.Ingest("t", body);
      ASSERT_FALSE(last_token.empty());
      ++sent;
    }
  });
  while (sent < 40) std::this_thread::sleep_for(5ms);
  Stream s(p, "/egress/groups?mode=snapshot_and_follow&backpressure=true");
  writer.join();
  ASSERT_TRUE(p.WaitComplete(last_token));
  Json done = Json::parse(p.Client().Get("/status")->body);
  const uint64_t final_step = done["step"];
  // Wait for a line at (or after) the final step.
  ASSERT_TRUE(s.WaitFor([&](const std::vector<Json>& lines) {
    return !lines.empty() && lines.back().contains("step") &&
           lines.back()["step"].get<uint64_t>() >= final_step &&
           !lines.back().contains("heartbeat");
  }) || s.WaitFor([&](const std::vector<Json>& lines) {
    return !lines.empty() && lines.back().contains("heartbeat");
  })) << p.log();
  std::map<std::string, int> rows;
  uint64_t snapshot_step = 0, last = 0;
  bool seen_snapshot = false;
  for (const Json& line : s.lines()) {
    if (line.contains("heartbeat")) continue;
    ASSERT_TRUE(line.contains("json_data")) << line.dump();
    uint64_t step = line["step"];
    if (line["snapshot"]) {
      ASSERT_TRUE(!seen_snapshot || step == snapshot_step);
      seen_snapshot = true;
      snapshot_step = step;
    } else {
      ASSERT_TRUE(seen_snapshot) << "changes before the snapshot";
      EXPECT_GT(step, snapshot_step);
      EXPECT_GE(step, last);
    }
    last = step;
    for (const Json& rec : line["json_data"]) {
      if (rec.contains("insert")) ++rows[rec["insert"].dump()];
      if (rec.contains("delete")) --rows[rec["delete"].dump()];
    }
  }
  EXPECT_TRUE(seen_snapshot);
  std::map<std::string, int> expected;
  std::istringstream view(p.Query("SELECT g, n, total FROM groups", "json"));
  for (std::string line; std::getline(view, line);) ++expected[Json::parse(line).dump()];
  for (auto it = rows.begin(); it != rows.end();) it = it->second == 0 ? rows.erase(it) : ++it;
  EXPECT_EQ(rows, expected);
}

TEST(PipelineTest, TransactionsReachSinksAtCommit) {
  Pipeline p(kProgram);
  ASSERT_GT(p.port(), 0) << p.log();
  Stream s(p, "/egress/big?mode=follow");
  auto start = p.Client().Post("/start_transaction", "", "text/plain");
  ASSERT_TRUE(start && start->status == 200);
  std::string a = p.Ingest("t", "{\"insert\": {\"id\": 1, \"v\": 500}}");
  std::string b = p.Ingest("t", "{\"insert\": {\"id\": 2, \"v\": 600}}");
  std::this_thread::sleep_for(300ms);
  auto c = p.Client().Get("/completion_status?token=" + b);
  EXPECT_EQ(Json::parse(c->body)["status"], "inprogress");
  for (const Json& line : s.lines()) EXPECT_FALSE(line.contains("json_data")) << line.dump();
  auto commit = p.Client().Post("/commit_transaction", "", "text/plain");
  ASSERT_TRUE(commit && commit->status == 200) << (commit ? commit->body : "");
  uint64_t step = Json::parse(commit->body)["step"];
  ASSERT_TRUE(s.WaitFor([](const std::vector<Json>& lines) {
    for (const Json& l : lines) {
      if (l.contains("json_data")) return true;
    }
    return false;
  }));
  int chunks = 0;
  for (const Json& line : s.lines()) {
    if (!line.contains("json_data")) continue;
    ++chunks;
    EXPECT_EQ(line["step"], step);
    EXPECT_EQ(line["json_data"].size(), 2u);
  }
  EXPECT_EQ(chunks, 1);
  EXPECT_TRUE(p.WaitComplete(b));
  auto again = p.Client().Post("/commit_transaction", "", "text/plain");
  EXPECT_EQ(again->status, 400);
}

TEST(PipelineTest, PausedPipelineHoldsIngressUnlessForced) {
  Pipeline p(kProgram);
  ASSERT_GT(p.port(), 0) << p.log();
  ASSERT_EQ(Json::parse(p.Client().Post("/pause", "", "text/plain")->body)["state"], "Paused");
  std::atomic<bool> returned{false};
  std::string held;
  std::thread t([&] {
    held = p.Ingest("t", "{\"insert\": {\"id\": 1, \"v\": 1}}");
    returned = true;
  });
  std::string forced = p.Ingest("t", "{\"insert\": {\"id\": 2, \"v\": 2}}", "?force=true");
  EXPECT_FALSE(forced.empty());
  std::this_thread::sleep_for(300ms);
  EXPECT_FALSE(returned);
  auto c = p.Client().Get("/completion_status?token=" + forced);
  EXPECT_EQ(Json::parse(c->body)["status"], "inprogress");
  p.Client().Post("/start", "", "text/plain");
  t.join();
  ASSERT_TRUE(p.WaitComplete(held));
  EXPECT_EQ(p.Query("SELECT COUNT(*) FROM t", "csv"), "2\n");
}

TEST(PipelineTest, ClientsMayLeaveAndStreamsEndOnShutdown) {
  Pipeline p(kProgram);
  ASSERT_GT(p.port(), 0) << p.log();
  {
    Stream gone(p, "/egress/groups?mode=snapshot_and_follow");
    ASSERT_TRUE(gone.WaitFor([](const std::vector<Json>& l) { return !l.empty(); }));
    gone.Close();
    p.Ingest("t", "{\"insert\": {\"id\": 1, \"v\": 1}}");
    ASSERT_TRUE(gone.WaitEnded());
  }
  // The pipeline goes on without it.
  std::string tok = p.Ingest("t", "{\"insert\": {\"id\": 2, \"v\": 2}}");
  ASSERT_TRUE(p.WaitComplete(tok));
  Stream s(p, "/egress/groups?mode=follow");
  ASSERT_TRUE(s.WaitFor([](const std::vector<Json>& l) { return !l.empty(); }, 10s));
  EXPECT_EQ(p.Terminate(), 0) << p.log();
  ASSERT_TRUE(s.WaitEnded());
  std::vector<Json> lines = s.lines();
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back()["error"]["error_code"], "StreamEnded") << lines.back().dump();
  EXPECT_NE(p.log().find("SIGTERM received, stopping"), std::string::npos) << p.log();
}

TEST(PipelineTest, FileConnectors) {
  const std::string program = R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v INTEGER) WITH (connectors = '[{
  "name": "t_in", "transport": {"name": "file_input", "config": {"path": "in.json"}},
  "format": {"name": "json"}}]');
CREATE VIEW doubled WITH (connectors = '[{
  "name": "d_out", "transport": {"name": "file_output", "config": {"path": "out.csv"}},
  "format": {"name": "csv"}}]') AS SELECT id, v * 2 AS v2 FROM t;
)";
  Pipeline p(program, {},
             {{"in.json",
               "{\"insert\": {\"id\": 1, \"v\": 5}}\n{\"insert\": {\"id\": oops}}\n"
               "{\"insert\": {\"id\": 2, \"v\": 7}}\n{\"insert\": {\"id\": 1, \"v\": 6}}\n"}});
  ASSERT_GT(p.port(), 0) << p.log();
  Json in, out;
  for (int i = 0; i < 200; ++i) {
    Json st = Json::parse(p.Client().Get("/stats")->body);
    for (const Json& c : st["inputs"]) {
      if (c["name"] == "t_in") in = c;
    }
    for (const Json& c : st["outputs"]) {
      if (c["name"] == "d_out") out = c;
    }
    if (in.value("end_of_input", false) && out.value("records", 0) >= 2) break;
    std::this_thread::sleep_for(25ms);
  }
  EXPECT_EQ(in["records"], 3);
  EXPECT_EQ(in["parse_errors"], 1);
  EXPECT_NE(in["last_error"].get<std::string>().find("record 2 (line 2"), std::string::npos)
      << in.dump();
  // One step took the whole file: id 1 is replaced within it.
  EXPECT_EQ(Slurp(p.dir() + "/out.csv"), "1,12,1\n2,14,1\n");
}

// file_input with follow, a send_snapshot file_output that is paused and
// reset, and a CSV snapshot over HTTP.
TEST(PipelineTest, FollowPauseResetAndCsvSnapshots) {
  const std::string program = R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v INTEGER) WITH (connectors = '[{
  "name": "t_in", "transport": {"name": "file_input", "config": {"path": "in.json", "follow": true}},
  "format": {"name": "json"}}]');
CREATE MATERIALIZED VIEW m WITH (connectors = '[{
  "name": "m_out", "send_snapshot": true,
  "transport": {"name": "file_output", "config": {"path": "out.json"}},
  "format": {"name": "json"}}]') AS SELECT id, v FROM t WHERE v > 0;
)";
  Pipeline p(program, {}, {{"in.json", "{\"insert\": {\"id\": 1, \"v\": 5}}\n"}});
  ASSERT_GT(p.port(), 0) << p.log();
  const std::string out = p.dir() + "/out.json";
  auto wait_for = [&](const std::string& want) {
    for (int i = 0; i < 200 && Slurp(out) != want; ++i) std::this_thread::sleep_for(25ms);
    return Slurp(out);
  };
  const std::string one = "{\"insert\":{\"id\":1,\"v\":5}}\n";
  const std::string two = "{\"insert\":{\"id\":2,\"v\":7}}\n";
  EXPECT_EQ(wait_for(one), one);
  // The input file grows: the new record arrives.
  std::ofstream(p.dir() + "/in.json", std::ios::app) << "{\"insert\": {\"id\": 2, \"v\": 7}}\n";
  EXPECT_EQ(wait_for(one + two), one + two);
  // Reset: the file starts over with the view's snapshot.
  auto r = p.Client().Post("/output_endpoints/m_out/reset", "", "text/plain");
  ASSERT_TRUE(r && r->status == 200) << (r ? r->body : "");
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(wait_for(one + two), one + two);
  // Paused, the connector writes nothing; started, it catches up.
  ASSERT_EQ(p.Client().Post("/output_endpoints/m_out/pause", "", "text/plain")->status, 200);
  std::string tok = p.Ingest("t", "{\"update\": {\"id\": 1, \"v\": 6}}");
  ASSERT_TRUE(p.WaitComplete(tok));
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(Slurp(out), one + two);
  ASSERT_EQ(p.Client().Post("/output_endpoints/m_out/start", "", "text/plain")->status, 200);
  const std::string after =
      one + two + "{\"delete\":{\"id\":1,\"v\":5}}\n{\"insert\":{\"id\":1,\"v\":6}}\n";
  EXPECT_EQ(wait_for(after), after);
  // A CSV snapshot: each record ends with its weight.
  auto snap = p.Client().Post("/egress/m?mode=snapshot&format=csv", "", "text/plain");
  ASSERT_TRUE(snap && snap->status == 200);
  Json line = Json::parse(snap->body.substr(0, snap->body.find('\n')));
  EXPECT_EQ(line["text_data"], "1,6,1\n2,7,1\n");
  EXPECT_EQ(line["snapshot"], true);
  EXPECT_EQ(line["step"], Json::parse(p.Client().Get("/status")->body)["step"]);
  // With headers=true, the first records follow a header line.
  snap = p.Client().Post("/egress/m?mode=snapshot&format=csv&headers=true", "", "text/plain");
  ASSERT_TRUE(snap && snap->status == 200);
  line = Json::parse(snap->body.substr(0, snap->body.find('\n')));
  EXPECT_EQ(line["text_data"], "id,v,weight\n1,6,1\n2,7,1\n");
  snap = p.Client().Post("/egress/m?mode=snapshot&headers=true", "", "text/plain");
  ASSERT_TRUE(snap);
  EXPECT_EQ(snap->status, 400) << snap->body;
}

// Without backpressure, a client that does not read is cut off with an
// error chunk, and the pipeline goes on without waiting for it.
TEST(PipelineTest, SlowClientWithoutBackpressureIsCutOff) {
  const std::string program =
      "CREATE TABLE t (id BIGINT NOT NULL, s VARCHAR);\n"
      "CREATE VIEW all_rows AS SELECT id, s FROM t;\n";
  Pipeline p(program);
  ASSERT_GT(p.port(), 0) << p.log();
  // A raw connection that asks for the stream and then reads nothing.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(p.port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  const std::string req =
      "POST /egress/all_rows?backpressure=false&max_queued_records=1000 HTTP/1.1\r\n"
      "Host: localhost\r\nContent-Length: 0\r\n\r\n";
  ASSERT_EQ(send(fd, req.data(), req.size(), 0), static_cast<ssize_t>(req.size()));
  std::this_thread::sleep_for(200ms);
  // About 40 MB of changes: more than the socket buffers hold. Each request
  // is its own step, so the view's output reaches the stream as four chunks:
  // the first is being written, the second waits in the queue, the third
  // overflows it. (Requests that shared a step would make one chunk, which
  // a queue that is empty takes whatever its size.)
  const std::string pad(300, 'x');
  for (int r = 0; r < 4; ++r) {
    std::string body;
    for (int i = 0; i < 30000; ++i) {
      body +=
          "{\"insert\": {\"id\": " + std::to_string(r * 30000 + i) + ", \"s\": \"" + pad + "\"}}\n";
    }
    const std::string token = p.Ingest("t", body);
    ASSERT_FALSE(token.empty());
    // Every request completes although the client has read nothing.
    ASSERT_TRUE(p.WaitComplete(token)) << p.log();
  }
  // Now read: the stream ends with the error chunk. A stream that never
  // ends fails the test instead of hanging it.
  timeval tv{};
  tv.tv_sec = 60;
  ASSERT_EQ(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv), 0);
  std::string got;
  char buf[1 << 16];
  for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;) got.append(buf, static_cast<size_t>(n));
  close(fd);
  EXPECT_NE(got.find("\"ConsumerFellBehind\""), std::string::npos) << got.substr(0, 300);
}

// A connector gives a step at most max_batch_size records.
TEST(PipelineTest, MaxBatchSizeSpreadsAFileOverSteps) {
  const std::string program = R"(
CREATE TABLE t (id BIGINT NOT NULL, v INTEGER) WITH (materialized = true, connectors = '[{
  "name": "t_in", "max_batch_size": 3,
  "transport": {"name": "file_input", "config": {"path": "in.csv"}},
  "format": {"name": "csv"}}]');
)";
  std::string csv;
  for (int i = 0; i < 10; ++i) csv += std::to_string(i) + "," + std::to_string(i * i) + "\n";
  Pipeline p(program, {}, {{"in.csv", csv}});
  ASSERT_GT(p.port(), 0) << p.log();
  for (int i = 0; i < 200 && p.Query("SELECT COUNT(*) FROM t", "csv") != "10\n"; ++i) {
    std::this_thread::sleep_for(25ms);
  }
  EXPECT_EQ(p.Query("SELECT COUNT(*), SUM(v) FROM t", "csv"), "10,285\n");
  // 3 + 3 + 3 + 1 rows, after the step at start if the file's first rows
  // came after it.
  const int steps = Json::parse(p.Client().Get("/status")->body)["step"];
  EXPECT_TRUE(steps == 4 || steps == 5) << steps;
}

// A step waits for min_batch_size_records (or the buffering delay).
TEST(PipelineTest, MinBatchSizeHoldsSmallInput) {
  Pipeline p(kProgram, {"--config", "$DIR/runtime.json"},
             {{"runtime.json",
               "{\"min_batch_size_records\": 5, \"max_buffering_delay_usecs\": 100000000}"}});
  ASSERT_GT(p.port(), 0) << p.log();
  ASSERT_TRUE(p.WaitStep(1));  // the step at start
  std::string a = p.Ingest("t", "{\"insert\": {\"id\": 1}}\n{\"insert\": {\"id\": 2}}");
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(Json::parse(p.Client().Get("/completion_status?token=" + a)->body)["status"],
            "inprogress");
  std::string b = p.Ingest("t",
                           "{\"insert\": {\"id\": 3}}\n{\"insert\": {\"id\": 4}}\n"
                           "{\"insert\": {\"id\": 5}}");
  ASSERT_TRUE(p.WaitComplete(b));
  ASSERT_TRUE(p.WaitComplete(a));
  // The step at start, then one for all five rows.
  EXPECT_EQ(Json::parse(p.Client().Get("/status")->body)["step"], 2);
}

// A checkpoint, kill -9, and a restart on the same storage: tables and
// views are as they were at the checkpoint's step, the file input goes on
// from its recorded position, and the file output holds every change of the
// view exactly once. A corrupted newest checkpoint falls back to the one
// before; a changed program is refused.
TEST(PipelineTest, CheckpointKillAndRestart) {
  const std::string program = R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v INTEGER) WITH (materialized = true, connectors = '[{
  "name": "t_in", "transport": {"name": "file_input", "config": {"path": "in.json", "follow": true}},
  "format": {"name": "json"}}]');
CREATE MATERIALIZED VIEW sums WITH (connectors = '[{
  "name": "sums_out", "transport": {"name": "file_output", "config": {"path": "out.json"}},
  "format": {"name": "json"}}]') AS SELECT id % 3 AS g, SUM(v) AS s FROM t GROUP BY id % 3;
)";
  Pipeline p(program, {"--storage", "$DIR/st", "--workers", "2"},
             {{"in.json", "{\"insert\": {\"id\": 1, \"v\": 10}}\n"}});
  ASSERT_GT(p.port(), 0) << p.log();
  auto query = [&] { return p.Query("SELECT g, s FROM sums ORDER BY g", "csv"); };
  for (int i = 0; i < 200 && query() != "1,10\n"; ++i) std::this_thread::sleep_for(25ms);
  std::string tok = p.Ingest("t", "{\"insert\": {\"id\": 2, \"v\": 20}}");
  ASSERT_TRUE(p.WaitComplete(tok));
  auto checkpoint = [&]() -> uint64_t {
    Json cs = p.Checkpoint();
    EXPECT_TRUE(cs.is_object() && cs["success"].is_number()) << cs.dump() << p.log();
    return cs.is_object() && cs["success"].is_number() ? cs["success"].get<uint64_t>() : 0;
  };
  checkpoint();
  const std::string at_checkpoint = Slurp(p.dir() + "/out.json");
  EXPECT_EQ(Json::parse(p.Client().Get("/completion_status?token=" + tok)->body)["durable"], true);
  // After the checkpoint: more from the file and over HTTP, then kill -9.
  std::ofstream(p.dir() + "/in.json", std::ios::app) << "{\"insert\": {\"id\": 3, \"v\": 30}}\n";
  std::string lost = p.Ingest("t", "{\"insert\": {\"id\": 4, \"v\": 40}}");
  ASSERT_TRUE(p.WaitComplete(lost));
  for (int i = 0; i < 200 && query() != "0,30\n1,50\n2,20\n"; ++i) {
    std::this_thread::sleep_for(25ms);
  }
  ASSERT_EQ(query(), "0,30\n1,50\n2,20\n");
  EXPECT_EQ(Json::parse(p.Client().Get("/completion_status?token=" + lost)->body)["durable"],
            false);
  p.Kill9();
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_NE(p.log().find("resumed from checkpoint"), std::string::npos) << p.log();
  // The file's record 3 is read again (it came after the checkpoint); the
  // HTTP record 4 is lost, as documented.
  for (int i = 0; i < 200 && query() != "0,30\n1,10\n2,20\n"; ++i) {
    std::this_thread::sleep_for(25ms);
  }
  EXPECT_EQ(query(), "0,30\n1,10\n2,20\n");
  EXPECT_EQ(p.Query("SELECT COUNT(*) FROM t", "csv"), "3\n");
  // The output file: what it held at the checkpoint, then the change that
  // record 3 made, once.
  std::string out = Slurp(p.dir() + "/out.json");
  ASSERT_EQ(out.compare(0, at_checkpoint.size(), at_checkpoint), 0) << out;
  EXPECT_EQ(out.substr(at_checkpoint.size()), "{\"insert\":{\"g\":0,\"s\":30}}\n");
  Json list = Json::parse(p.Client().Get("/checkpoints")->body);
  ASSERT_EQ(list.size(), 1u);
  // A second checkpoint; then its manifest is corrupted: the restart falls
  // back to the first.
  uint64_t second = checkpoint();
  ASSERT_EQ(second, 2u);
  p.Kill9();
  char name[64];
  std::snprintf(name, sizeof name, "/st/checkpoints/%010llu/pipeline.json",
                static_cast<unsigned long long>(second));
  {
    std::string m = Slurp(p.dir() + name);
    ASSERT_FALSE(m.empty());
    m[m.size() / 2] ^= 0x20;
    std::ofstream(p.dir() + name) << m;
  }
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_NE(p.log().find("skipping checkpoint"), std::string::npos) << p.log();
  EXPECT_NE(p.log().find("0000000001 at step"), std::string::npos) << p.log();
  // Record 3 read again first, so that the third checkpoint holds a batch of
  // its own (until then its state is the first one's, every file linked).
  for (int i = 0; i < 200 && query() != "0,30\n1,10\n2,20\n"; ++i) {
    std::this_thread::sleep_for(25ms);
  }
  ASSERT_EQ(query(), "0,30\n1,10\n2,20\n");
  // A third checkpoint, with one byte of a batch file flipped: skipped too.
  uint64_t third = checkpoint();
  p.Kill9();
  std::string victim;
  std::snprintf(name, sizeof name, "/st/checkpoints/%010llu",
                static_cast<unsigned long long>(third));
  // (A batch file that did not change since the first checkpoint is the
  // same file in both, linked: flipping it would damage both. The victim is
  // one of this checkpoint's own.)
  for (const auto& e : std::filesystem::directory_iterator(p.dir() + name)) {
    if (e.path().extension() == ".batch" && std::filesystem::hard_link_count(e.path()) == 1 &&
        (victim.empty() || e.file_size() > std::filesystem::file_size(victim))) {
      victim = e.path().string();
    }
  }
  ASSERT_FALSE(victim.empty());
  {
    std::fstream f(victim, std::ios::in | std::ios::out | std::ios::binary);
    char c = 0;
    f.seekg(10);
    f.get(c);
    f.seekp(10);
    f.put(static_cast<char>(c ^ 0x5a));
  }
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_NE(p.log().find("skipping checkpoint"), std::string::npos) << p.log();
  // Record 3 comes again from the file, as after the first restart.
  for (int i = 0; i < 200 && query() != "0,30\n1,10\n2,20\n"; ++i) {
    std::this_thread::sleep_for(25ms);
  }
  EXPECT_EQ(query(), "0,30\n1,10\n2,20\n");
}

// Lines of a file, sorted (a JSON file sink's records of one step come in
// no set order).
std::vector<std::string> SortedLines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) lines.push_back(l);
  std::sort(lines.begin(), lines.end());
  return lines;
}

// A restart with a changed program keeps unchanged views as they were and
// rebuilds new and changed ones from the tables, after approval.
TEST(PipelineTest, ProgramChangeRebuildsOnlyWhatChanged) {
  const std::string tables = R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v INTEGER);
CREATE TABLE u (x INTEGER, y VARCHAR) WITH (materialized = true);
)";
  const std::string v1 = tables + R"(
CREATE MATERIALIZED VIEW sums WITH (connectors = '[{
  "name": "sums_out", "transport": {"name": "file_output", "config": {"path": "sums.json"}},
  "format": {"name": "json"}}]') AS SELECT id % 3 AS g, SUM(v) AS s FROM t GROUP BY id % 3;
CREATE MATERIALIZED VIEW counts WITH (connectors = '[{
  "name": "counts_out", "transport": {"name": "file_output", "config": {"path": "counts.json"}},
  "format": {"name": "json"}}]') AS SELECT y, COUNT(*) AS n FROM u GROUP BY y;
)";
  Pipeline p(v1, {"--storage", "$DIR/st", "--workers", "2"});
  ASSERT_GT(p.port(), 0) << p.log();
  std::string rows;
  for (int id = 1; id <= 6; ++id) {
    rows += "{\"insert\": {\"id\": " + std::to_string(id) + ", \"v\": " + std::to_string(id * 10) +
            "}}\n";
  }
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", rows)));
  ASSERT_TRUE(p.WaitComplete(p.Ingest("u", R"({"insert": {"x": 1, "y": "a"}}
{"insert": {"x": 2, "y": "a"}}
{"insert": {"x": 3, "y": "b"}})")));
  Json cs = p.Checkpoint();
  ASSERT_EQ(cs["success"], 1) << cs.dump() << p.log();
  const uint64_t checkpoint_step = cs["step"];
  const std::string sums_at_checkpoint = Slurp(p.dir() + "/sums.json");
  p.Kill9();

  // sums is the same query, written differently; counts changes; joined is new.
  std::ofstream(p.dir() + "/program.sql", std::ios::trunc) << tables + R"(
-- the same view as before
CREATE MATERIALIZED VIEW sums WITH (connectors = '[{
  "name": "sums_out", "transport": {"name": "file_output", "config": {"path": "sums.json"}},
  "format": {"name": "json"}}]') AS
  SELECT id % 3 AS g,
         SUM(v) AS s
  FROM t GROUP BY id % 3;
CREATE MATERIALIZED VIEW counts WITH (connectors = '[{
  "name": "counts_out", "transport": {"name": "file_output", "config": {"path": "counts.json"}},
  "format": {"name": "json"}}]') AS SELECT y, COUNT(*) AS n, SUM(x) AS total FROM u GROUP BY y;
CREATE MATERIALIZED VIEW joined AS
  SELECT u.y, SUM(t.v) AS s FROM t JOIN u ON t.id = u.x GROUP BY u.y;
CREATE MATERIALIZED VIEW big_sums AS SELECT g FROM sums WHERE s > 60;
)";
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  Json status = Json::parse(p.Client().Get("/status")->body);
  EXPECT_EQ(status["state"], "AwaitingApproval") << status.dump();
  std::map<std::string, std::string> reasons;
  for (const Json& r : status["program_changes"]["relations"]) reasons[r["name"]] = r["reason"];
  EXPECT_EQ(reasons, (std::map<std::string, std::string>{{"counts", "its definition changed"},
                                                         {"joined", "new view"},
                                                         {"big_sums", "new view"}}))
      << status.dump();
  // Nothing goes in or out until then.
  Json error;
  EXPECT_EQ(p.Ingest("t", R"({"insert": {"id": 9, "v": 1}})", "", &error), "");
  EXPECT_EQ(error["error_code"], "AwaitingApproval") << error.dump();
  EXPECT_EQ(p.Client().Get("/query?sql=SELECT%201")->status, 503);
  auto approve = p.Client().Post("/approve", "", "text/plain");
  ASSERT_TRUE(approve && approve->status == 200) << (approve ? approve->body : "") << p.log();
  EXPECT_EQ(Json::parse(approve->body)["state"], "Running");
  EXPECT_NE(p.log().find("rebuilt 3 views"), std::string::npos) << p.log();
  EXPECT_EQ(p.Query("SELECT * FROM sums ORDER BY g", "csv"), "0,90\n1,50\n2,70\n");
  EXPECT_EQ(p.Query("SELECT * FROM counts ORDER BY y", "csv"), "a,2,3\nb,1,3\n");
  EXPECT_EQ(p.Query("SELECT * FROM joined ORDER BY y", "csv"), "a,30\nb,30\n");
  EXPECT_EQ(p.Query("SELECT * FROM big_sums ORDER BY g", "csv"), "0\n2\n");
  status = Json::parse(p.Client().Get("/status")->body);
  EXPECT_EQ(status["program_changes"]["status"], "applied");
  EXPECT_EQ(status["step"], checkpoint_step + 1) << status.dump();

  // Every view goes on from there.
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", R"({"insert": {"id": 7, "v": 70}}
{"insert": {"id": 1, "v": 11}})")));
  ASSERT_TRUE(p.WaitComplete(p.Ingest("u", R"({"insert": {"x": 7, "y": "b"}})")));
  EXPECT_EQ(p.Query("SELECT * FROM sums ORDER BY g", "csv"), "0,90\n1,121\n2,70\n");
  EXPECT_EQ(p.Query("SELECT * FROM counts ORDER BY y", "csv"), "a,2,3\nb,2,10\n");
  EXPECT_EQ(p.Query("SELECT * FROM joined ORDER BY y", "csv"), "a,31\nb,100\n");
  EXPECT_EQ(p.Query("SELECT * FROM big_sums ORDER BY g", "csv"), "0\n1\n2\n");
  // The unchanged view's sink went on where it was; the changed one's
  // started over with the view's new contents.
  const std::string sums = Slurp(p.dir() + "/sums.json");
  ASSERT_EQ(sums.compare(0, sums_at_checkpoint.size(), sums_at_checkpoint), 0) << sums;
  EXPECT_EQ(
      SortedLines(sums.substr(sums_at_checkpoint.size())),
      (std::vector<std::string>{R"({"delete":{"g":1,"s":50}})", R"({"insert":{"g":1,"s":121}})"}));
  EXPECT_EQ(
      SortedLines(Slurp(p.dir() + "/counts.json")),
      (std::vector<std::string>{
          R"({"delete":{"y":"b","n":1,"total":3}})", R"({"insert":{"y":"a","n":2,"total":3}})",
          R"({"insert":{"y":"b","n":1,"total":3}})", R"({"insert":{"y":"b","n":2,"total":10}})"}));
  // The changed program checkpointed at once: another restart rebuilds
  // nothing and needs no approval.
  ASSERT_TRUE(p.Checkpoint()["success"].is_number());
  p.Kill9();
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_EQ(Json::parse(p.Client().Get("/status")->body)["state"], "Running");
  EXPECT_EQ(p.Query("SELECT * FROM joined ORDER BY y", "csv"), "a,31\nb,100\n");
}

// A changed materialized table keeps its rows, carried into its new
// columns by name; with bootstrap_policy "allow" nothing waits.
TEST(PipelineTest, ChangedMaterializedTableKeepsItsRows) {
  const std::map<std::string, std::string> config = {
      {"runtime.json", R"({"bootstrap_policy": "allow"})"}};
  Pipeline p(R"(
CREATE TABLE u (x INTEGER, y VARCHAR) WITH (materialized = true);
CREATE TABLE k (id INTEGER NOT NULL PRIMARY KEY, name VARCHAR) WITH (materialized = true);
CREATE MATERIALIZED VIEW big AS SELECT x FROM u WHERE x > 1;
)",
             {"--storage", "$DIR/st", "--config", "$DIR/runtime.json"}, config);
  ASSERT_GT(p.port(), 0) << p.log();
  ASSERT_TRUE(p.WaitComplete(p.Ingest("u", R"({"insert": {"x": 1, "y": "a"}}
{"insert": {"x": 2, "y": "b"}}
{"insert": {"x": 2, "y": "b"}})")));
  ASSERT_TRUE(p.WaitComplete(p.Ingest("k", R"({"insert": {"id": 1, "name": "one"}}
{"insert": {"id": 2, "name": "two"}})")));
  ASSERT_TRUE(p.Checkpoint()["success"].is_number());
  p.Kill9();
  std::ofstream(p.dir() + "/program.sql", std::ios::trunc) << R"(
CREATE TABLE u (x BIGINT, y VARCHAR, z INTEGER) WITH (materialized = true);
CREATE TABLE k (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR, extra BOOLEAN)
  WITH (materialized = true);
CREATE MATERIALIZED VIEW big AS SELECT x FROM u WHERE x > 1;
)";
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  Json status = Json::parse(p.Client().Get("/status")->body);
  EXPECT_EQ(status["state"], "Running") << status.dump();
  std::map<std::string, std::string> reasons;
  for (const Json& r : status["program_changes"]["relations"]) reasons[r["name"]] = r["reason"];
  EXPECT_EQ(reasons, (std::map<std::string, std::string>{{"u", "its columns, types or key changed"},
                                                         {"k", "its columns, types or key changed"},
                                                         {"big", "its input u changed"}}))
      << status.dump();
  EXPECT_EQ(p.Query("SELECT * FROM u ORDER BY x", "csv"), "1,a,\n2,b,\n2,b,\n");
  EXPECT_EQ(p.Query("SELECT * FROM big", "csv"), "2\n2\n");
  // The keyed table still holds one row per key.
  ASSERT_TRUE(
      p.WaitComplete(p.Ingest("k", R"({"insert": {"id": 1, "name": "uno", "extra": true}})")));
  EXPECT_EQ(p.Query("SELECT * FROM k ORDER BY id", "csv"), "1,uno,true\n2,two,\n");
  ASSERT_TRUE(p.WaitComplete(p.Ingest("u", R"({"delete": {"x": 2, "y": "b", "z": null}})")));
  EXPECT_EQ(p.Query("SELECT * FROM big", "csv"), "2\n");
}

// Changes that cannot be rebuilt are refused at start, with the reason.
TEST(PipelineTest, ProgramChangesThatCannotBeRebuiltAreRefused) {
  const std::string v1 = R"(
CREATE TABLE w (x INTEGER) WITH (append_only = true);
CREATE TABLE m (x INTEGER) WITH (materialized = true);
CREATE TABLE u (x INTEGER);
CREATE VIEW wv AS SELECT x FROM w;
)";
  const std::map<std::string, std::string> config = {
      {"runtime.json", R"({"bootstrap_policy": "allow"})"}};
  Pipeline p(v1, {"--storage", "$DIR/st", "--config", "$DIR/runtime.json"}, config);
  ASSERT_GT(p.port(), 0) << p.log();
  ASSERT_TRUE(p.WaitComplete(p.Ingest("w", R"({"insert": {"x": 1}})")));
  ASSERT_TRUE(p.WaitComplete(p.Ingest("m", R"({"insert": {"x": 1}})")));
  ASSERT_TRUE(p.WaitComplete(p.Ingest("u", R"({"insert": {"x": 5}}
{"insert": {"x": 5}}
{"insert": {"x": 6}})")));
  ASSERT_TRUE(p.Checkpoint()["success"].is_number());
  p.Kill9();
  auto start_with = [&](const std::string& program) {
    std::ofstream(p.dir() + "/program.sql", std::ios::trunc) << program;
    p.Spawn();
    EXPECT_EQ(p.exit_code(), 1) << p.log();
    return p.log();
  };
  // A new view over a table whose rows were not kept.
  EXPECT_NE(start_with(v1 + "CREATE VIEW c AS SELECT COUNT(*) AS n FROM w;\n")
                .find("read table w, whose rows were not kept"),
            std::string::npos)
      << p.log();
  // A changed table that was not materialized.
  std::string changed = v1;
  changed.replace(changed.find("w (x INTEGER)"), 13, "w (x BIGINT)");
  EXPECT_NE(start_with(changed).find("table w changed"), std::string::npos) << p.log();
  // A new NOT NULL column: the old rows have no value for it.
  changed = v1;
  changed.replace(changed.find("m (x INTEGER)"), 13, "m (x INTEGER, y INTEGER NOT NULL)");
  EXPECT_NE(start_with(changed).find("y is NOT NULL"), std::string::npos) << p.log();
  // The checkpoint is untouched: the old program still starts from it.
  std::ofstream(p.dir() + "/program.sql", std::ios::trunc) << v1;
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_EQ(p.Query("SELECT * FROM m", "csv"), "1\n");
  // A table that is neither keyed nor append-only keeps its rows (to check
  // deletes against), so a new view over it is built from them.
  ASSERT_EQ(p.Terminate(), 0);
  std::ofstream(p.dir() + "/program.sql", std::ios::trunc)
      << v1 << "CREATE MATERIALIZED VIEW uc AS SELECT x, COUNT(*) AS n FROM u GROUP BY x;\n";
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_EQ(p.Query("SELECT * FROM uc ORDER BY x", "csv"), "5,2\n6,1\n");
}

// The Nexmark generator: its proportions, id spaces and foreign keys, and
// the same events whatever the number of threads that generate them.
TEST(PipelineTest, NexmarkGeneratorIsTheStandardStreamAndDeterministic) {
  auto program = [](int threads) {
    const std::string gen =
        "\"transport\": {\"name\": \"nexmark\", \"config\": {\"events\": 50000, "
        "\"threads\": " +
        std::to_string(threads) + "}}";
    return R"(
CREATE TABLE person (id BIGINT, name VARCHAR, email_address VARCHAR, credit_card VARCHAR,
  city VARCHAR, state VARCHAR, date_time TIMESTAMP, extra VARCHAR)
  WITH (materialized = true, connectors = '[{)" +
           gen + R"(}]');
CREATE TABLE auction (id BIGINT, item_name VARCHAR, description VARCHAR, initial_bid BIGINT,
  reserve BIGINT, date_time TIMESTAMP, expires TIMESTAMP, seller BIGINT, category BIGINT,
  extra VARCHAR) WITH (materialized = true, connectors = '[{)" +
           gen + R"(}]');
CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
  date_time TIMESTAMP, extra VARCHAR) WITH (materialized = true, connectors = '[{)" +
           gen + R"(}]');
)";
  };
  const std::string summary = R"(
SELECT (SELECT COUNT(*) FROM person), (SELECT COUNT(*) FROM auction), (SELECT COUNT(*) FROM bid),
       (SELECT MIN(id) FROM person), (SELECT MAX(id) FROM person),
       (SELECT MIN(id) FROM auction), (SELECT MAX(id) FROM auction),
       (SELECT COUNT(*) FROM bid b JOIN auction a ON b.auction = a.id),
       (SELECT COUNT(*) FROM auction a JOIN person p ON a.seller = p.id),
       (SELECT MIN(category) FROM auction), (SELECT MAX(category) FROM auction),
       (SELECT SUM(price) FROM bid), (SELECT SUM(length(extra)) FROM bid),
       (SELECT COUNT(DISTINCT channel) FROM bid WHERE channel NOT LIKE 'channel-%'))";
  std::string first;
  for (int threads : {1, 3}) {
    Pipeline p(program(threads));
    ASSERT_GT(p.port(), 0) << p.log();
    std::string got;
    for (int i = 0; i < 400; ++i) {
      got = p.Query(summary, "csv");
      if (got.rfind("1000,3000,46000,", 0) == 0) break;
      std::this_thread::sleep_for(25ms);
    }
    std::vector<std::string> f;
    std::stringstream ss(got);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    ASSERT_EQ(f.size(), 14u) << got;
    // 1:3:46, ids from 1000, five categories, four hot channels.
    EXPECT_EQ(f[0], "1000");
    EXPECT_EQ(f[1], "3000");
    EXPECT_EQ(f[2], "46000");
    EXPECT_EQ(f[3], "1000");
    EXPECT_EQ(f[4], "1999");
    EXPECT_EQ(f[5], "1000");
    EXPECT_EQ(f[6], "3999");
    EXPECT_GT(std::stoll(f[7]), 46000 * 95 / 100);  // nearly every bid is for a known auction
    EXPECT_GT(std::stoll(f[8]), 3000 * 95 / 100);   // and every auction's seller a known person
    EXPECT_EQ(f[9], "10");
    EXPECT_EQ(f[10], "14");
    EXPECT_EQ(f[13], "4\n");
    if (first.empty()) {
      first = got;
    } else {
      EXPECT_EQ(got, first) << "the generator's output depends on its threads";
    }
  }
}

// exactly_once: when the newest checkpoint is damaged, the restart falls
// back to the one before and replays both checkpoints' journals; the next
// checkpoints take new journal files, so later restarts replay exactly
// what came after them.
TEST(PipelineTest, ExactlyOnceFallsBackPastADamagedCheckpoint) {
  const std::string program = R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v INTEGER) WITH (materialized = true);
CREATE MATERIALIZED VIEW s AS SELECT COUNT(*) AS n, SUM(v) AS total FROM t;
)";
  Pipeline p(program, {"--storage", "$DIR/st", "--config", "$DIR/rt.json"},
             {{"rt.json", R"({"fault_tolerance": {"model": "exactly_once",
                              "checkpoint_interval_secs": 3600}})"}});
  ASSERT_GT(p.port(), 0) << p.log();
  int next = 0;
  auto add = [&](int n) {
    std::string body;
    for (int i = 0; i < n; ++i, ++next) {
      body += "{\"insert\": {\"id\": " + std::to_string(next) + ", \"v\": 1}}\n";
    }
    ASSERT_TRUE(p.WaitComplete(p.Ingest("t", body))) << p.log();
  };
  auto expect_all = [&] {
    EXPECT_EQ(p.Query("SELECT n, total FROM s", "csv"),
              std::to_string(next) + "," + std::to_string(next) + "\n")
        << p.log();
  };
  add(10);
  ASSERT_TRUE(p.Checkpoint()["success"].is_number());
  add(10);
  const Json second = p.Checkpoint();
  ASSERT_TRUE(second["success"].is_number());
  add(10);
  p.Kill9();
  // Damage the newest checkpoint's manifest.
  char name[64];
  std::snprintf(name, sizeof name, "/st/checkpoints/%010llu/pipeline.json",
                static_cast<unsigned long long>(second["success"].get<uint64_t>()));
  {
    std::string m = Slurp(p.dir() + name);
    m[m.size() / 2] ^= 0x20;
    std::ofstream(p.dir() + name) << m;
  }
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_NE(p.log().find("skipping checkpoint"), std::string::npos) << p.log();
  expect_all();  // the journals of both checkpoints replayed
  add(10);
  const Json third = p.Checkpoint();
  ASSERT_TRUE(third["success"].is_number()) << third.dump();
  EXPECT_GT(third["success"].get<uint64_t>(), second["success"].get<uint64_t>());
  add(10);
  p.Kill9();
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  expect_all();
  add(5);
  expect_all();
}

// fault_tolerance takes checkpoints every checkpoint_interval_secs, when
// something changed; it needs storage.
// With storage and no fault tolerance configured, a clean stop (SIGTERM)
// still keeps everything: it takes a checkpoint, and the log says so, as
// the next start says where it resumed. Tokens never repeat over restarts:
// one given before a kill -9 whose changes no checkpoint held answers
// "lost", not "unknown", and the next token is new.
TEST(PipelineTest, ACleanStopKeepsEverythingAndTokensNeverRepeat) {
  Pipeline p(kProgram, {"--storage", "$DIR/st"});
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_NE(p.log().find("starting empty"), std::string::npos) << p.log();
  const std::string a = p.Ingest("t",
                                 "{\"insert\": {\"id\": 1, \"v\": 1}}\n"
                                 "{\"insert\": {\"id\": 2, \"v\": 2}}\n"
                                 "{\"insert\": {\"id\": 3, \"v\": 3}}");
  ASSERT_TRUE(p.WaitComplete(a));
  ASSERT_EQ(p.Terminate(), 0);
  EXPECT_NE(p.log().find("taken at stop"), std::string::npos) << p.log();
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_NE(p.log().find("resumed"), std::string::npos) << p.log();
  EXPECT_EQ(p.Query("SELECT COUNT(*) AS n FROM t", "json"), "{\"n\":3}\n");
  auto st = p.Client().Get("/completion_status?token=" + a);
  ASSERT_TRUE(st && st->status == 200) << (st ? st->body : "");
  EXPECT_EQ(Json::parse(st->body)["status"], "complete") << st->body;
  EXPECT_EQ(Json::parse(st->body)["durable"], true) << st->body;
  const std::string b = p.Ingest("t", "{\"insert\": {\"id\": 4, \"v\": 4}}");
  ASSERT_TRUE(p.WaitComplete(b));
  EXPECT_NE(b, a);
  p.Kill9();  // b's row is in no checkpoint
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_EQ(p.Query("SELECT COUNT(*) AS n FROM t", "json"), "{\"n\":3}\n");
  st = p.Client().Get("/completion_status?token=" + b);
  ASSERT_TRUE(st && st->status == 200) << (st ? st->body : "");
  EXPECT_EQ(Json::parse(st->body)["status"], "lost") << st->body;
  const std::string c = p.Ingest("t", "{\"insert\": {\"id\": 5, \"v\": 5}}");
  ASSERT_TRUE(p.WaitComplete(c));
  EXPECT_NE(c, a);
  EXPECT_NE(c, b);
  EXPECT_GT(std::stoull(c), std::stoull(b));
  st = p.Client().Get("/completion_status?token=" + std::to_string(std::stoull(c) + 100000));
  ASSERT_TRUE(st);
  EXPECT_EQ(st->status, 404) << st->body;
}

// A table's CHECK constraints hold for what its inputs bring: a record
// whose row fails one is refused in its step and counted among the
// evaluation errors, and the table keeps what it had (an update of a key
// keeps the key's row; a later delete of a refused row finds nothing).
TEST(PipelineTest, RowsThatFailACheckConstraintAreRefused) {
  Pipeline p(R"(
CREATE TABLE item (id INT PRIMARY KEY, qty INT CHECK (qty >= 0), note VARCHAR)
  WITH ('materialized' = 'true');
CREATE TABLE plain (a INT, b VARCHAR, CHECK (a > 0 AND b <> 'no')) WITH ('materialized' = 'true');
CREATE TABLE log (a INT CONSTRAINT not_zero CHECK (a <> 0)) WITH ('append_only' = 'true', 'materialized' = 'true');
CREATE MATERIALIZED VIEW stock AS SELECT COUNT(*) AS n, SUM(qty) AS qty FROM item;
)");
  ASSERT_GT(p.port(), 0) << p.log();
  std::string t = p.Ingest("item", R"({"insert": {"id": 1, "qty": 5, "note": "a"}}
{"insert": {"id": 2, "qty": -1, "note": "b"}}
{"insert": {"id": 3, "qty": 2, "note": "c"}})");
  ASSERT_TRUE(p.WaitComplete(t));
  EXPECT_EQ(p.Query("SELECT * FROM stock", "json"), "{\"n\":2,\"qty\":7}\n");
  // An update whose row fails keeps the row; one whose row passes applies.
  t = p.Ingest("item", R"({"update": {"id": 1, "qty": -3}}
{"update": {"id": 3, "qty": 4, "note": "d"}}
{"insert": {"id": 3, "qty": -9, "note": "e"}})");
  ASSERT_TRUE(p.WaitComplete(t));
  EXPECT_EQ(p.Query("SELECT id, qty, note FROM item ORDER BY id", "json"),
            "{\"id\":1,\"qty\":5,\"note\":\"a\"}\n{\"id\":3,\"qty\":4,\"note\":\"d\"}\n");
  EXPECT_EQ(p.Query("SELECT * FROM stock", "json"), "{\"n\":2,\"qty\":9}\n");
  t = p.Ingest("plain", R"({"insert": {"a": 1, "b": "yes"}}
{"insert": {"a": -1, "b": "yes"}}
{"insert": {"a": 2, "b": "no"}}
{"insert": {"a": 3, "b": null}})");
  ASSERT_TRUE(p.WaitComplete(t));
  EXPECT_EQ(p.Query("SELECT a FROM plain ORDER BY a", "json"), "{\"a\":1}\n{\"a\":3}\n");
  t = p.Ingest("plain", R"({"delete": {"a": -1, "b": "yes"}})");
  ASSERT_TRUE(p.WaitComplete(t));
  auto done = p.Client().Get("/completion_status?token=" + t);
  ASSERT_TRUE(done && done->status == 200);
  EXPECT_EQ(Json::parse(done->body)["ignored_deletes"], Json::parse(R"({"plain": 1})"))
      << done->body;
  t = p.Ingest("log", "1\n0\n2\n", "?format=csv");
  ASSERT_TRUE(p.WaitComplete(t));
  EXPECT_EQ(p.Query("SELECT a FROM log ORDER BY a", "json"), "{\"a\":1}\n{\"a\":2}\n");
  Json stats = Json::parse(p.Client().Get("/stats")->body);
  EXPECT_EQ(stats["global"]["eval_errors"], 6) << stats;
  EXPECT_NE(stats["global"]["eval_error_samples"].dump().find(
                R"(new row for relation \"item\" violates check constraint \"item_qty_check\")"),
            std::string::npos)
      << stats;
  EXPECT_NE(stats["global"]["eval_error_samples"].dump().find(R"(\"not_zero\")"), std::string::npos)
      << stats;
}

// A table without a primary key never holds a negative count: a delete of
// a row that is not there, or of more copies than there are, deletes what
// there is; what found nothing is counted in /stats and in the completion of
// the request. An append-only table refuses deletes at ingest.
TEST(PipelineTest, DeletesOfRowsThatAreNotThereChangeNothing) {
  Pipeline p(R"(
CREATE TABLE plain (a INTEGER, b VARCHAR) WITH ('materialized' = 'true');
CREATE TABLE log (a INTEGER) WITH ('append_only' = 'true', 'materialized' = 'true');
CREATE MATERIALIZED VIEW n AS SELECT COUNT(*) AS n FROM plain;
CREATE MATERIALIZED VIEW per_b AS SELECT b, COUNT(*) AS n FROM plain GROUP BY b;
)",
             {"--storage", "$DIR/st"});
  ASSERT_GT(p.port(), 0) << p.log();
  auto completion = [&](const std::string& token) {
    auto r = p.Client().Get("/completion_status?token=" + token);
    return r && r->status == 200 ? Json::parse(r->body) : Json();
  };
  std::string t = p.Ingest("plain", R"({"delete": {"a": 1, "b": "x"}})");
  ASSERT_TRUE(p.WaitComplete(t));
  EXPECT_EQ(completion(t)["ignored_deletes"], Json::parse(R"({"plain": 1})")) << completion(t);
  EXPECT_EQ(p.Query("SELECT COUNT(*) AS n FROM plain", "json"), "{\"n\":0}\n");
  EXPECT_EQ(p.Query("SELECT * FROM plain", "json"), "");
  EXPECT_EQ(p.Query("SELECT * FROM n", "json"), "{\"n\":0}\n");
  // Two copies, then three deletes: none is left, one found nothing.
  t = p.Ingest("plain", R"({"insert": {"a": 2, "b": "y"}}
{"insert": {"a": 2, "b": "y"}})");
  ASSERT_TRUE(p.WaitComplete(t));
  EXPECT_FALSE(completion(t).contains("ignored_deletes")) << completion(t);
  t = p.Ingest("plain", R"({"delete": {"a": 2, "b": "y"}}
{"delete": {"a": 2, "b": "y"}}
{"delete": {"a": 2, "b": "y"}}
{"insert": {"a": 3, "b": "y"}})");
  ASSERT_TRUE(p.WaitComplete(t));
  EXPECT_EQ(completion(t)["ignored_deletes"], Json::parse(R"({"plain": 1})")) << completion(t);
  EXPECT_EQ(p.Query("SELECT a, b FROM plain", "json"), "{\"a\":3,\"b\":\"y\"}\n");
  EXPECT_EQ(p.Query("SELECT * FROM per_b", "json"), "{\"b\":\"y\",\"n\":1}\n");
  // A snapshot holds no delete.
  auto snap = p.Client().Post("/egress/plain?mode=snapshot", "", "text/plain");
  ASSERT_TRUE(snap && snap->status == 200);
  EXPECT_EQ(snap->body.find("delete"), std::string::npos) << snap->body;
  Json stats = Json::parse(p.Client().Get("/stats")->body);
  EXPECT_EQ(stats["global"]["ignored_deletes"], Json::parse(R"({"plain": 2})")) << stats;
  // The rows that a delete is checked against survive a restart.
  ASSERT_EQ(p.Terminate(), 0);
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  t = p.Ingest("plain", R"({"delete": {"a": 3, "b": "y"}}
{"delete": {"a": 3, "b": "y"}})");
  ASSERT_TRUE(p.WaitComplete(t));
  EXPECT_EQ(completion(t)["ignored_deletes"], Json::parse(R"({"plain": 1})")) << completion(t);
  EXPECT_EQ(p.Query("SELECT * FROM n", "json"), "{\"n\":0}\n");
  // An append-only table takes no deletes (JSON or CSV), and nothing of the
  // request is ingested.
  Json error;
  EXPECT_EQ(p.Ingest("log", R"({"insert": {"a": 1}}
{"delete": {"a": 1}})",
                     "", &error),
            "");
  EXPECT_NE(error.dump().find("append_only: it takes no deletes"), std::string::npos) << error;
  EXPECT_EQ(p.Ingest("log", "1,1\n1,-1\n", "?format=csv", &error), "");
  EXPECT_NE(error.dump().find("append_only"), std::string::npos) << error;
  t = p.Ingest("log", R"({"insert": {"a": 1}})");
  ASSERT_TRUE(p.WaitComplete(t));
  EXPECT_EQ(p.Query("SELECT COUNT(*) AS n FROM log", "json"), "{\"n\":1}\n");
}

// A table column with LATENESS: a row behind the waterline (the largest
// time seen minus the lateness, as of the step's start) is dropped and
// counted per table, the other rows of its request are taken, and a restart
// from a checkpoint resumes the waterline and the count.
TEST(PipelineTest, LateRowsAreDroppedAndCounted) {
  Pipeline p(R"(
CREATE TABLE ev (id BIGINT, ts TIMESTAMP NOT NULL LATENESS INTERVAL 1 HOURS)
  WITH (append_only = true, materialized = true);
CREATE MATERIALIZED VIEW per_hour AS
  SELECT w.window_start AS h, COUNT(*) AS n FROM ev, tumble(ts, INTERVAL '1 hour') AS w
  GROUP BY w.window_start;
)",
             {"--storage", "$DIR/st"});
  ASSERT_GT(p.port(), 0) << p.log();
  auto ingest = [&](const std::string& body) {
    std::string t = p.Ingest("ev", body);
    ASSERT_TRUE(p.WaitComplete(t)) << p.log();
  };
  auto stats = [&] { return Json::parse(p.Client().Get("/stats")->body)["global"]; };
  ingest(R"({"insert": {"id": 1, "ts": "2024-01-01 10:00:00"}})");
  EXPECT_EQ(stats()["late_rows"], Json::parse(R"({"ev": 0})")) << stats();
  EXPECT_EQ(stats()["waterlines"], Json::parse(R"({"ev": "2024-01-01 09:00:00"})")) << stats();
  // 08:59 is behind 09:00; 09:00 is not.
  ingest(R"({"insert": {"id": 2, "ts": "2024-01-01 08:59:59"}}
{"insert": {"id": 3, "ts": "2024-01-01 09:00:00"}}
{"insert": {"id": 4, "ts": "2024-01-01 10:30:00"}})");
  EXPECT_EQ(stats()["late_rows"], Json::parse(R"({"ev": 1})")) << stats();
  EXPECT_EQ(stats()["waterlines"], Json::parse(R"({"ev": "2024-01-01 09:30:00"})")) << stats();
  EXPECT_EQ(p.Query("SELECT id FROM ev ORDER BY id", "csv"), "1\n3\n4\n");
  EXPECT_EQ(p.Query("SELECT h, n FROM per_hour ORDER BY h", "csv"),
            "2024-01-01 09:00:00,1\n2024-01-01 10:00:00,2\n");
  auto metrics = p.Client().Get("/metrics");
  ASSERT_TRUE(metrics && metrics->status == 200);
  EXPECT_NE(metrics->body.find("sluice_late_rows_total{table=\"ev\"} 1"), std::string::npos)
      << metrics->body;
  // A restart resumes the waterline, and the count, from the checkpoint.
  ASSERT_TRUE(p.Checkpoint()["success"].is_number()) << p.log();
  p.Kill9();
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_EQ(stats()["waterlines"], Json::parse(R"({"ev": "2024-01-01 09:30:00"})")) << stats();
  ingest(R"({"insert": {"id": 5, "ts": "2024-01-01 09:29:00"}}
{"insert": {"id": 6, "ts": "2024-01-01 09:45:00"}})");
  EXPECT_EQ(stats()["late_rows"], Json::parse(R"({"ev": 2})")) << stats();
  EXPECT_EQ(p.Query("SELECT id FROM ev ORDER BY id", "csv"), "1\n3\n4\n6\n");
  EXPECT_EQ(p.Query("SELECT h, n FROM per_hour ORDER BY h", "csv"),
            "2024-01-01 09:00:00,2\n2024-01-01 10:00:00,2\n");
}

// Query strings are decoded exactly (every '=', '&' and '%' inside a value,
// '+' as a space, %XX, non-ASCII text), and POST /query takes SQL of any
// length as its body, or as a form's field.
TEST(PipelineTest, QueryStringsAreDecodedExactly) {
  Pipeline p(kProgram, {});
  ASSERT_GT(p.port(), 0) << p.log();
  auto get = [&](const std::string& query) {
    httplib::Client c = p.Client();
    c.set_url_encode(false);  // the target goes as written here, as a browser sends it
    auto r = c.Get("/query?format=json&sql=" + query);
    return r ? std::to_string(r->status) + " " + r->body : std::string("no answer");
  };
  EXPECT_EQ(get("SELECT+1=1+AS+a"), "200 {\"a\":true}\n");
  EXPECT_EQ(get("SELECT+1%3D1+AS+a,+2%3E1+AS+b"), "200 {\"a\":true,\"b\":true}\n");
  EXPECT_EQ(get("SELECT+'x%26y=z'+AS+s"), "200 {\"s\":\"x&y=z\"}\n");
  EXPECT_EQ(get("SELECT+'a%25b'+AS+s"), "200 {\"s\":\"a%b\"}\n");
  EXPECT_EQ(get("SELECT+'100%'+AS+s"), "200 {\"s\":\"100%\"}\n");
  EXPECT_EQ(get("SELECT+1%2B2+AS+n"), "200 {\"n\":3}\n");
  EXPECT_EQ(get("SELECT+'it''s'+AS+s"), "200 {\"s\":\"it's\"}\n");
  const std::string text = get("SELECT+'h%C3%A9llo+w%C3%B6rld'+AS+s");
  ASSERT_EQ(text.substr(0, 4), "200 ") << text;
  EXPECT_EQ(Json::parse(text.substr(4))["s"], "h\xC3\xA9llo w\xC3\xB6rld") << text;
  // The SQL as the body: any length.
  std::string sql = "SELECT COUNT(*) AS n FROM t WHERE id >= 0";
  while (sql.size() < 200000) sql += " AND (v = v OR v IS NULL OR v <> 1 + 1)";
  auto r = p.Client().Post("/query?format=json", sql, "text/plain");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body.substr(0, 300);
  EXPECT_EQ(r->body, "{\"n\":0}\n");
  // As a form (curl -d 'sql=...' or curl -d 'SELECT ...').
  r = p.Client().Post("/query?format=json", "sql=SELECT+1%3D1+AS+a%2C+'x%3Dy'+AS+s",
                      "application/x-www-form-urlencoded");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "{\"a\":true,\"s\":\"x=y\"}\n");
  r = p.Client().Post("/query?format=json", "SELECT 2 AS b", "application/x-www-form-urlencoded");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "{\"b\":2}\n");
  r = p.Client().Post("/query", "", "text/plain");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400) << r->body;
}

// A typo in a parameter, a method or a name gets an answer that says what
// to use instead, never a silent default.
TEST(PipelineTest, TyposAreErrorsThatSayWhatToUse) {
  Pipeline p(kProgram, {});
  ASSERT_GT(p.port(), 0) << p.log();
  auto body = [](const httplib::Result& r) {
    return r ? std::to_string(r->status) + " " + r->body : std::string("no answer");
  };
  std::string r = body(p.Client().Get("/query?fromat=csv&sql=SELECT+1"));
  EXPECT_NE(r.find("400 "), std::string::npos) << r;
  EXPECT_NE(r.find("unknown parameter \\\"fromat\\\" for /query (did you mean format?); it takes: "
                   "sql, format"),
            std::string::npos)
      << r;
  r = body(p.Client().Post("/egress/groups?mdoe=snapshot", "", "text/plain"));
  EXPECT_NE(r.find("400 "), std::string::npos) << r;
  EXPECT_NE(r.find("did you mean mode?"), std::string::npos) << r;
  r = body(p.Client().Post("/ingress/t?format=json&frce=true", "{\"insert\": {\"id\": 1}}",
                           "application/json"));
  EXPECT_NE(r.find("did you mean force?"), std::string::npos) << r;
  r = body(p.Client().Post("/checkpoint?now=1", "", "text/plain"));
  EXPECT_NE(r.find("it takes none"), std::string::npos) << r;
  r = body(p.Client().Get("/query?format=xml&sql=SELECT+1"));
  EXPECT_NE(r.find("format=xml is not one of: text, json, csv"), std::string::npos) << r;
  // A POST-only endpoint asked with GET, and the other way round.
  r = body(p.Client().Get("/checkpoint"));
  EXPECT_NE(r.find("405 "), std::string::npos) << r;
  EXPECT_NE(r.find("use POST /checkpoint"), std::string::npos) << r;
  r = body(p.Client().Get("/ingress/t"));
  EXPECT_NE(r.find("use POST /ingress/t"), std::string::npos) << r;
  r = body(p.Client().Post("/completion_status?token=1", "", "text/plain"));
  EXPECT_NE(r.find("use GET /completion_status"), std::string::npos) << r;
  // Misspelled tables and views.
  r = body(p.Client().Post("/ingress/tt", "{\"insert\": {\"id\": 1}}", "application/json"));
  EXPECT_NE(r.find("404 "), std::string::npos) << r;
  EXPECT_NE(r.find("(did you mean t?)"), std::string::npos) << r;
  r = body(p.Client().Post("/ingress/groups", "{\"insert\": {\"g\": 1}}", "application/json"));
  EXPECT_NE(r.find("groups is a view"), std::string::npos) << r;
  r = body(p.Client().Post("/egress/gropus?mode=snapshot", "", "text/plain"));
  EXPECT_NE(r.find("(did you mean groups?)"), std::string::npos) << r;
  // What is right still works; CSV may start with the column names.
  r = body(p.Client().Get("/query?format=csv&sql=SELECT%201%20AS%20a"));
  EXPECT_EQ(r, "200 1\n");
  r = body(p.Client().Get(
      "/query?format=csv&headers=true&sql=SELECT%201%20AS%20a,%20'x,y'%20AS%20%22b%20c%22"));
  EXPECT_EQ(r, "200 a,b c\n1,\"x,y\"\n");
  r = body(p.Client().Get("/query?format=csv&headers=yes&sql=SELECT%201"));
  EXPECT_NE(r.find("headers=yes is not one of: false, true"), std::string::npos) << r;
}

// /metrics in Prometheus' text format, /schema, and /stats?pretty.
TEST(PipelineTest, MetricsSchemaAndPrettyStats) {
  Pipeline p(kProgram, {});
  ASSERT_GT(p.port(), 0) << p.log();
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(p.WaitComplete(p.Ingest(
        "t", "{\"insert\": {\"id\": " + std::to_string(i) + ", \"v\": 1, \"s\": \"a\"}}")));
  }
  // The step count of /metrics is compared with /status's: read both until
  // no step (on many hosts, one the coordinator starts) falls between.
  auto step = [&]() -> uint64_t { return Json::parse(p.Client().Get("/status")->body)["step"]; };
  uint64_t steps = 0;
  auto r = p.Client().Get("/metrics");
  for (int i = 0; i < 20; ++i) {
    const uint64_t before = step();
    r = p.Client().Get("/metrics");
    ASSERT_TRUE(r && r->status == 200);
    steps = step();
    if (steps == before) break;
  }
  EXPECT_NE(r->get_header_value("Content-Type").find("version=0.0.4"), std::string::npos);
  const std::regex sample(R"(^[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? -?[0-9.e+]+$)");
  std::map<std::string, double> values;
  std::istringstream in(r->body);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# HELP ", 0) == 0 || line.rfind("# TYPE ", 0) == 0) continue;
    EXPECT_TRUE(std::regex_match(line, sample)) << line;
    const size_t space = line.rfind(' ');
    values[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  EXPECT_GE(steps, 3u);
  EXPECT_EQ(values["sluice_steps_total"], static_cast<double>(steps));
  EXPECT_EQ(values["sluice_step_duration_seconds_count"], static_cast<double>(steps));
  EXPECT_EQ(values["sluice_step_duration_seconds_bucket{le=\"+Inf\"}"], static_cast<double>(steps));
  EXPECT_EQ(values["sluice_records_processed_total"], 3);
  EXPECT_EQ(
      values
          ["sluice_input_records_total{connector=\"t.http\",table=\"t\",transport=\"http_input\"}"],
      3)
      << r->body;
  r = p.Client().Get("/schema");
  ASSERT_TRUE(r && r->status == 200);
  const Json schema = Json::parse(r->body);
  ASSERT_EQ(schema["tables"].size(), 2u) << schema.dump();
  const Json& t = schema["tables"][0]["name"] == "t" ? schema["tables"][0] : schema["tables"][1];
  EXPECT_EQ(t["primary_key"], Json::array({"id"}));
  EXPECT_EQ(t["materialized"], true);
  EXPECT_EQ(t["columns"][1]["name"], "v");
  EXPECT_EQ(t["columns"][1]["nullable"], true);
  EXPECT_EQ(schema["views"].size(), 3u) << schema.dump();
  r = p.Client().Get("/stats?pretty");
  ASSERT_TRUE(r && r->status == 200);
  EXPECT_EQ(r->body.substr(0, 4), "{\n  ") << r->body.substr(0, 20);
  // information_schema, as PostgreSQL's, joined with the pipeline's data.
  EXPECT_EQ(p.Query("SELECT table_name, table_type FROM information_schema.tables "
                    "WHERE table_schema = 'public' ORDER BY table_name",
                    "csv"),
            "big,VIEW\ngroups,VIEW\nplain,BASE TABLE\nplain_count,VIEW\nt,BASE TABLE\n");
  EXPECT_EQ(p.Query("SELECT column_name, ordinal_position, data_type, is_nullable "
                    "FROM information_schema.columns WHERE table_name = 't' "
                    "ORDER BY ordinal_position",
                    "csv"),
            "id,1,bigint,NO\nv,2,integer,YES\ns,3,text,YES\n");
  EXPECT_EQ(p.Query("SELECT c.column_name, COUNT(*) AS n FROM information_schema.columns c "
                    "JOIN public.t ON c.table_name = 't' AND c.ordinal_position = 1 "
                    "GROUP BY c.column_name",
                    "csv"),
            "id,3\n");
  EXPECT_NE(p.Query("SELECT * FROM pg_nothing.t")
                .find("does not exist (there are public, pg_catalog and information_schema)"),
            std::string::npos);
  // pg_catalog, as psql's \d commands read it: tables, views and the index
  // of t's primary key, then t's columns with PostgreSQL's types.
  EXPECT_EQ(p.Query("SELECT relname, relkind FROM pg_class "
                    "WHERE relnamespace = 'public'::regnamespace ORDER BY relname",
                    "csv"),
            "big,v\ngroups,v\nplain,r\nplain_count,v\nt,r\nt_pkey,i\n");
  EXPECT_EQ(p.Query("SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), "
                    "CASE WHEN a.attnotnull THEN 'not null' END "
                    "FROM pg_catalog.pg_attribute a WHERE a.attrelid = 't'::regclass "
                    "ORDER BY a.attnum",
                    "csv"),
            "id,bigint,not null\nv,integer,\ns,text,\n");
}

TEST(PipelineTest, PeriodicCheckpoints) {
  const std::map<std::string, std::string> config = {
      {"runtime.json",
       "{\"fault_tolerance\": {\"model\": \"exactly_once\", \"checkpoint_interval_secs\": 1}}"}};
  Pipeline no_storage(kProgram, {"--config", "$DIR/runtime.json"}, config);
  EXPECT_EQ(no_storage.exit_code(), 1);
  EXPECT_NE(no_storage.log().find("needs storage"), std::string::npos) << no_storage.log();
  Pipeline p(kProgram, {"--config", "$DIR/runtime.json", "--storage", "$DIR/st"}, config);
  ASSERT_GT(p.port(), 0) << p.log();
  ASSERT_TRUE(p.WaitStep(1));  // the step at start
  std::string tok = p.Ingest("t", "{\"insert\": {\"id\": 1, \"v\": 1}}");
  ASSERT_TRUE(p.WaitComplete(tok));
  // A checkpoint of the insert's step (2: the step at start is 1) comes
  // within the interval; one of step 1 may come before it, if the insert
  // came more than a second after the start.
  Json list;
  for (int i = 0; i < 200; ++i) {
    list = Json::parse(p.Client().Get("/checkpoints")->body);
    if (!list.empty() && list.back()["step"] == 2) break;
    std::this_thread::sleep_for(25ms);
  }
  ASSERT_FALSE(list.empty());
  ASSERT_LE(list.size(), 2u) << list.dump();
  EXPECT_EQ(list.back()["step"], 2) << list.dump();
  EXPECT_GT(list.back()["size_bytes"].get<uint64_t>(), 0u);
  // Nothing changed since: no more checkpoints.
  std::this_thread::sleep_for(1500ms);
  EXPECT_EQ(Json::parse(p.Client().Get("/checkpoints")->body).size(), list.size());
}

// kill -9 at random points, while a file grows, during steps and during
// checkpoints; after each restart the pipeline goes on from its last
// checkpoint. In the end the view equals its recomputation from the table,
// and the output file, replayed, equals the view: no change lost or doubled.
TEST(PipelineTest, KilledAtRandomPointsLosesAndDoublesNothing) {
  const std::string program = R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v INTEGER) WITH (materialized = true, connectors = '[{
  "name": "t_in", "max_batch_size": 7,
  "transport": {"name": "file_input", "config": {"path": "in.json", "follow": true}},
  "format": {"name": "json"}}]');
CREATE MATERIALIZED VIEW sums WITH (connectors = '[{
  "name": "sums_out", "transport": {"name": "file_output", "config": {"path": "out.json"}},
  "format": {"name": "json"}}]') AS SELECT id % 5 AS g, SUM(v) AS s, COUNT(*) AS n FROM t GROUP BY id % 5;
)";
  Pipeline p(program, {"--storage", "$DIR/st", "--workers", "2"}, {{"in.json", ""}});
  ASSERT_GT(p.port(), 0) << p.log();
  std::mt19937 rng(5);
  int written = 0;
  auto append = [&](int n) {
    std::ofstream f(p.dir() + "/in.json", std::ios::app);
    for (int i = 0; i < n; ++i, ++written) {
      // Inserts of new keys, and updates that replace earlier ones.
      int id = written % 3 == 2 ? static_cast<int>(rng() % (written + 1)) : written;
      f << "{\"insert\": {\"id\": " << id << ", \"v\": " << rng() % 100 << "}}\n";
    }
  };
  for (int round = 0; round < 6; ++round) {
    append(20 + static_cast<int>(rng() % 40));
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 150));
    if (round % 2 == 0) {
      p.Client().Post("/checkpoint", "", "text/plain");
      std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 20));  // maybe mid-checkpoint
    }
    p.Kill9();
    p.Spawn();
    ASSERT_GT(p.port(), 0) << p.log();
  }
  append(10);
  // Everything in the file is read once more at most: wait for the last.
  auto count_ids = [&] { return p.Query("SELECT COUNT(*) FROM t", "csv"); };
  std::set<int> ids;
  {
    std::istringstream in(Slurp(p.dir() + "/in.json"));
    for (std::string line; std::getline(in, line);)
      ids.insert(Json::parse(line)["insert"]["id"].get<int>());
  }
  const std::string want = std::to_string(ids.size()) + "\n";
  for (int i = 0; i < 400 && count_ids() != want; ++i) std::this_thread::sleep_for(25ms);
  ASSERT_EQ(count_ids(), want);
  // The view against its recomputation from the table.
  EXPECT_EQ(p.Query("SELECT g, s, n FROM sums ORDER BY g", "csv"),
            p.Query("SELECT id % 5, SUM(v), COUNT(*) FROM t GROUP BY 1 ORDER BY 1", "csv"));
  // The output file replayed against the view, once it has written all.
  std::map<std::string, int> view;
  {
    std::istringstream in(p.Query("SELECT g, s, n FROM sums", "json"));
    for (std::string line; std::getline(in, line);) ++view[Json::parse(line).dump()];
  }
  std::map<std::string, int> replay;
  for (int i = 0; i < 200 && (replay = ReplayChanges(p.dir() + "/out.json")) != view; ++i) {
    std::this_thread::sleep_for(25ms);
  }
  EXPECT_EQ(replay, view);
}

// A full disk: spills stay in memory and checkpoints fail, with clear
// errors; once there is room again, checkpoints work. Needs root to mount a
// small tmpfs (skipped otherwise).
TEST(PipelineTest, FullDiskIsAnErrorThePipelineSurvives) {
  char tmpl[] = "/tmp/sluice-full-XXXXXX";
  const std::string mnt = mkdtemp(tmpl);
  const std::string mount = "mount -t tmpfs -o size=1m tmpfs " + mnt + " 2>/dev/null";
  if (geteuid() != 0 || std::system(mount.c_str()) != 0) {
    std::filesystem::remove_all(mnt);
    GTEST_SKIP() << "cannot mount a tmpfs here";
  }
  struct Unmount {
    std::string dir;
    ~Unmount() {
      // Host processes (SLUICE_TEST_HOSTS) end just after their coordinator.
      for (int i = 0; i < 100; ++i) {
        if (std::system(("umount " + dir + " 2>/dev/null").c_str()) == 0) break;
        std::this_thread::sleep_for(50ms);
      }
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } unmount{mnt};
  Pipeline p(kProgram, {"--storage", mnt, "--config", "$DIR/runtime.json"},
             {{"runtime.json", "{\"memory_budget_mb\": 1}"}});
  ASSERT_GT(p.port(), 0) << p.log();
  // About 6 MB of state, more than the 1 MB file system holds.
  const std::string pad(100, 'x');
  std::string tok;
  for (int r = 0; r < 6; ++r) {
    std::string body;
    for (int i = 0; i < 10000; ++i) {
      body += "{\"insert\": {\"id\": " + std::to_string(r * 10000 + i) + ", \"v\": 1, \"s\": \"" +
              pad + "\"}}\n";
    }
    tok = p.Ingest("t", body);
    ASSERT_FALSE(tok.empty()) << p.log();
  }
  ASSERT_TRUE(p.WaitComplete(tok)) << p.log();
  EXPECT_EQ(p.Query("SELECT COUNT(*) FROM t", "csv"), "60000\n");
  Json st = Json::parse(p.Client().Get("/stats")->body);
  EXPECT_GT(st["global"]["spill_failures"].get<uint64_t>(), 0u) << st.dump();
  Json failed = p.Checkpoint();
  ASSERT_FALSE(failed["failure"].is_null()) << failed.dump();
  EXPECT_NE(failed["failure"]["error"].get<std::string>().find("No space left"), std::string::npos)
      << failed.dump();
  // Room again: the next checkpoint works.
  ASSERT_EQ(std::system(("mount -o remount,size=256m " + mnt).c_str()), 0);
  Json ok = p.Checkpoint();
  EXPECT_EQ(ok["success"], 2) << ok.dump();
  EXPECT_EQ(Json::parse(p.Client().Get("/status")->body)["state"], "Running");
}

// The API over HTTPS with --tls-cert and --tls-key: a client that checks
// the certificate against its CA is answered; plain HTTP is not.
TEST(PipelineTest, TheApiOverHttps) {
  char tmpl[] = "/tmp/sluice-https-XXXXXX";
  const std::string certs = mkdtemp(tmpl);
  ASSERT_EQ(std::system(
                (std::string(SLUICE_BINARY) + " certs " + certs + " 127.0.0.1 >/dev/null").c_str()),
            0);
  Pipeline p("CREATE TABLE t (id BIGINT) WITH (materialized = true);",
             {"--tls-cert", certs + "/host-0.pem", "--tls-key", certs + "/host-0.key"});
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_NE(p.log().find("listening on https://127.0.0.1:"), std::string::npos) << p.log();
  httplib::SSLClient api("127.0.0.1", p.port());
  api.set_ca_cert_path(certs + "/ca.pem");
  api.enable_server_certificate_verification(true);
  auto r = api.Post("/ingress/t", "{\"insert\": {\"id\": 5}}", "application/json");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  ASSERT_EQ(r->status, 200) << r->body;
  for (int i = 0; i < 200; ++i) {
    r = api.Get("/query?sql=SELECT%20id%20FROM%20t&format=csv");
    if (r && r->body == "5\n") break;
    std::this_thread::sleep_for(25ms);
  }
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "5\n");
  auto plain = p.Client().Get("/status");
  EXPECT_FALSE(plain && plain->status == 200);
  // A key that is not the certificate's: an error at start that names it.
  Pipeline bad("CREATE TABLE t (id BIGINT);",
               {"--tls-cert", certs + "/host-0.pem", "--tls-key", certs + "/coordinator.key"});
  EXPECT_EQ(bad.exit_code(), 1) << bad.log();
  EXPECT_NE(bad.log().find("cannot serve HTTPS"), std::string::npos) << bad.log();
  Pipeline missing("CREATE TABLE t (id BIGINT);", {"--tls-cert", certs + "/host-0.pem"});
  EXPECT_EQ(missing.exit_code(), 2) << missing.log();
  EXPECT_NE(missing.log().find("needs both --tls-cert and --tls-key"), std::string::npos)
      << missing.log();
  std::filesystem::remove_all(certs);
}

TEST(PipelineTest, APortInUseIsAnError) {
  Pipeline first(kProgram);
  ASSERT_GT(first.port(), 0) << first.log();
  Pipeline second(kProgram, {"--port", std::to_string(first.port())});
  EXPECT_EQ(second.exit_code(), 1) << second.log();
  EXPECT_NE(second.log().find("is the port in use?"), std::string::npos) << second.log();
  // Unknown endpoints and bad ad hoc queries answer with JSON errors.
  auto r = first.Client().Get("/nope");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(Json::parse(r->body)["error_code"], "UnknownEndpoint");
  Json q = Json::parse(first.Query("DELETE FROM t"));
  EXPECT_EQ(q["error_code"], "QueryError");
  q = Json::parse(first.Query("SELEC 1"));
  EXPECT_NE(q["message"].get<std::string>().find("syntax error"), std::string::npos) << q.dump();
  EXPECT_EQ(first.Query("SELECT 1 + 1 AS two", "csv"), "2\n");
}

TEST(PipelineTest, BadConfigurationIsAnErrorThatNamesIt) {
  Pipeline bad_sql("CREATE TABLE t (a INT);\nCREATE VIEW v AS SELECT b FROM t;");
  EXPECT_EQ(bad_sql.exit_code(), 1);
  EXPECT_NE(bad_sql.log().find("line 2, column 25: column \"b\" does not exist"), std::string::npos)
      << bad_sql.log();
  Pipeline bad_connector(
      "CREATE TABLE t (a INT) WITH (connectors = '[{\"transport\": {\"name\": "
      "\"kafka_input\"}}]');");
  EXPECT_EQ(bad_connector.exit_code(), 1);
  EXPECT_NE(bad_connector.log().find("unknown transport \"kafka_input\""), std::string::npos)
      << bad_connector.log();
  Pipeline missing_file(
      "CREATE TABLE t (a INT) WITH (connectors = '[{\"transport\": {\"name\": \"file_input\", "
      "\"config\": {\"path\": \"nope.json\"}}}]');");
  EXPECT_EQ(missing_file.exit_code(), 1);
  EXPECT_NE(missing_file.log().find("cannot open"), std::string::npos) << missing_file.log();
  Pipeline bad_config("CREATE TABLE t (a INT);", {"--config", "$DIR/runtime.json"},
                      {{"runtime.json", "{\"workers\": 2, \"colour\": \"red\"}"}});
  EXPECT_EQ(bad_config.exit_code(), 1);
  EXPECT_NE(bad_config.log().find("unknown key \"colour\""), std::string::npos) << bad_config.log();
  // A config that is not JSON says where; a program that cannot be read
  // says why.
  Pipeline bad_json("CREATE TABLE t (a INT);", {"--config", "$DIR/runtime.json"},
                    {{"runtime.json", "{\"workers\": 2,\n \"storage\": }"}});
  EXPECT_EQ(bad_json.exit_code(), 1);
  EXPECT_NE(bad_json.log().find("runtime config: not valid JSON at line 2, column 13"),
            std::string::npos)
      << bad_json.log();
  Pipeline directory("CREATE TABLE t (a INT);", {"--config", "$DIR"});
  EXPECT_EQ(directory.exit_code(), 1);
  EXPECT_NE(directory.log().find(": it is a directory"), std::string::npos) << directory.log();
}

}  // namespace

// The web console's files come from the binary, with their types and
// ETags; the API calls it relies on: /program, /query's column header and
// the place of an error, and (on many hosts) each host's figures in /stats.
TEST(PipelineTest, ConsoleAndTheCallsItUses) {
  Pipeline p(kProgram, {});
  ASSERT_GT(p.port(), 0) << p.log();
  auto r = p.Client().Get("/");
  ASSERT_TRUE(r && r->status == 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(r->body.find("/console/js/app.js"), std::string::npos) << r->body;
  const std::string etag = r->get_header_value("ETag");
  ASSERT_FALSE(etag.empty());
  EXPECT_EQ(r->get_header_value("Cache-Control"), "no-cache");
  r = p.Client().Get("/", {{"If-None-Match", etag}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 304);
  EXPECT_TRUE(r->body.empty());
  r = p.Client().Get("/console/js/app.js");
  ASSERT_TRUE(r && r->status == 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_NE(r->get_header_value("ETag"), etag);
  r = p.Client().Get("/console/console.css");
  ASSERT_TRUE(r && r->status == 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/css; charset=utf-8");
  r = p.Client().Get("/console/nothing.js");
  ASSERT_TRUE(r && r->status == 404);
  EXPECT_EQ(Json::parse(r->body)["error_code"], "UnknownEndpoint");
  // The API is unchanged beside it.
  r = p.Client().Get("/nothing");
  ASSERT_TRUE(r && r->status == 404);
  EXPECT_EQ(Json::parse(r->body)["error_code"], "UnknownEndpoint");

  r = p.Client().Get("/program");
  ASSERT_TRUE(r && r->status == 200);
  EXPECT_EQ(r->body, kProgram);

  ASSERT_TRUE(
      p.WaitComplete(p.Ingest("t", "{\"insert\": {\"id\": 1, \"v\": 10, \"s\": \"one\"}}")));
  const std::string answer = p.Query("SELECT id, s AS \"the s\" FROM t", "json&headers=true");
  const size_t head_end = answer.find('\n');
  ASSERT_NE(head_end, std::string::npos) << answer;
  const Json head = Json::parse(answer.substr(0, head_end));
  EXPECT_EQ(head["columns"], Json::parse(R"([{"name": "id", "type": "BIGINT NOT NULL"},
                                             {"name": "the s", "type": "VARCHAR"}])"));
  EXPECT_GE(head["step"].get<uint64_t>(), 1u);
  EXPECT_EQ(answer.substr(head_end + 1), "{\"id\":1,\"the s\":\"one\"}\n");
  Json e = Json::parse(p.Query("SELECT id\nFROM t\nWHERE id 1"));
  EXPECT_EQ(e["error_code"], "QueryError");
  EXPECT_EQ(e["details"]["line"], 3) << e.dump();
  EXPECT_EQ(e["details"]["column"], 10) << e.dump();
  e = Json::parse(p.Query("SELECT * FROM gruops"));
  EXPECT_NE(e["message"].get<std::string>().find("(did you mean groups?)"), std::string::npos)
      << e.dump();

  const Json stats = Json::parse(p.Client().Get("/stats")->body);
  // Step time in microseconds too: a step often takes less than 1 ms.
  const uint64_t usecs = stats["global"]["step_usecs"];
  EXPECT_GT(usecs, 0u);
  EXPECT_EQ(usecs / 1000, stats["global"]["step_msecs"].get<uint64_t>());
  if (const char* hosts = std::getenv("SLUICE_TEST_HOSTS")) {
    ASSERT_EQ(stats["hosts"].size(), static_cast<size_t>(std::atoi(hosts))) << stats.dump();
    uint64_t processed = 0;
    for (const Json& h : stats["hosts"]) {
      EXPECT_GT(h["rss_bytes"].get<uint64_t>(), 0u);
      processed += h["processed_records"].get<uint64_t>();
    }
    EXPECT_EQ(processed, stats["global"]["processed_records"].get<uint64_t>());
  } else {
    EXPECT_FALSE(stats.contains("hosts")) << stats.dump();
  }
}
