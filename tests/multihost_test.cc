// A pipeline on many hosts (`sluice run --hosts H`), driven over HTTP: what
// only many hosts have (rows from several hosts, lost hosts and
// coordinators, the secret of the coordination API). The black-box suites
// of pipeline_test also run on 3 hosts (tests/CMakeLists.txt).
#include <arpa/inet.h>
#include <dirent.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <fstream>
#include <random>
#include <set>

#include "pipeline_helper.h"

namespace sluice::testing {
namespace {

// The processes whose parent is `parent`.
std::vector<pid_t> Children(pid_t parent) {
  std::vector<pid_t> out;
  DIR* d = opendir("/proc");
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    const pid_t pid = std::atoi(e->d_name);
    if (pid <= 0) continue;
    std::string stat = Slurp("/proc/" + std::to_string(pid) + "/stat");
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && state != 'Z') out.push_back(pid);
  }
  closedir(d);
  return out;
}

// Waits until /status says Failed; returns it (null if it did not).
Json WaitFailed(Pipeline& p, std::chrono::seconds timeout) {
  for (int i = 0; i < timeout.count() * 20; ++i) {
    auto r = p.Client().Get("/status");
    if (r && r->status == 200) {
      Json st = Json::parse(r->body);
      if (st["state"] == "Failed") return st;
    }
    std::this_thread::sleep_for(50ms);
  }
  return Json();
}

const char* kSums = R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v INTEGER) WITH (materialized = true, connectors = '[{
  "name": "t_in", "max_batch_size": 7,
  "transport": {"name": "file_input", "config": {"path": "in.json", "follow": true}},
  "format": {"name": "json"}}]');
CREATE MATERIALIZED VIEW sums WITH (connectors = '[{
  "name": "sums_out", "transport": {"name": "file_output", "config": {"path": "out.json"}},
  "format": {"name": "json"}}]') AS SELECT id % 5 AS g, SUM(v) AS s, COUNT(*) AS n FROM t GROUP BY id % 5;
)";

// The same, fed over HTTP, with exactly_once on 2 hosts.
const char* kHttpSums = R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v INTEGER) WITH (materialized = true);
CREATE MATERIALIZED VIEW sums WITH (connectors = '[{
  "name": "sums_out", "transport": {"name": "file_output", "config": {"path": "out.json"}},
  "format": {"name": "json"}}]') AS SELECT id % 5 AS g, SUM(v) AS s, COUNT(*) AS n FROM t GROUP BY id % 5;
)";
const std::vector<std::string> kExactlyOnceArgs = {
    "--hosts", "2", "--workers", "2", "--storage", "$DIR/st", "--config", "$DIR/runtime.json"};
const std::map<std::string, std::string> kExactlyOnceFiles = {
    {"runtime.json",
     "{\"fault_tolerance\": {\"model\": \"exactly_once\", \"checkpoint_interval_secs\": 3600}}"}};

void Append(const std::string& path, int from, int to) {
  std::ofstream f(path, std::ios::app);
  for (int id = from; id < to; ++id) {
    f << "{\"insert\": {\"id\": " << id << ", \"v\": " << id * 7 % 100 << "}}\n";
  }
}

// The view `sums` equals its recomputation from `t`, and the output file
// out.json, replayed, equals the view (once the sink has written it all).
void ExpectSumsExact(Pipeline& p) {
  EXPECT_EQ(p.Query("SELECT g, s, n FROM sums ORDER BY g", "csv"),
            p.Query("SELECT id % 5, SUM(v), COUNT(*) FROM t GROUP BY 1 ORDER BY 1", "csv"));
  const auto view = p.Rows("SELECT g, s, n FROM sums");
  std::map<std::string, int> replay;
  for (int i = 0; i < 200 && (replay = ReplayChanges(p.dir() + "/out.json")) != view; ++i) {
    std::this_thread::sleep_for(25ms);
  }
  EXPECT_EQ(replay, view);
}

// After a restart: every row of the file is in, the view equals its
// recomputation, and the output file replayed equals the view.
void ExpectExact(Pipeline& p, int rows) {
  const std::string want = std::to_string(rows) + "\n";
  for (int i = 0; i < 400 && p.Query("SELECT COUNT(*) FROM t", "csv") != want; ++i) {
    std::this_thread::sleep_for(25ms);
  }
  ASSERT_EQ(p.Query("SELECT COUNT(*) FROM t", "csv"), want) << p.log();
  EXPECT_EQ(p.Rows("SELECT g, s, n FROM sums").size(), 5u);
  ExpectSumsExact(p);
}

// Two input connectors, which run on two hosts, deliver the same keyed rows:
// the exchange takes each row to the worker that owns its key, so there is
// one row per key, as on one host.
TEST(MultihostTest, KeyedRowsFromTwoHostsAreOneRowPerKey) {
  const std::string program = R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v INTEGER) WITH (materialized = true, connectors = '[
  {"name": "a", "transport": {"name": "file_input", "config": {"path": "a.json"}}, "format": {"name": "json"}},
  {"name": "b", "transport": {"name": "file_input", "config": {"path": "b.json"}}, "format": {"name": "json"}}]');
CREATE MATERIALIZED VIEW n AS SELECT COUNT(*) AS n, SUM(v) AS s FROM t;
)";
  std::string rows;
  for (int id = 0; id < 500; ++id) {
    rows += "{\"insert\": {\"id\": " + std::to_string(id) + ", \"v\": 1}}\n";
  }
  Pipeline p(program, {"--hosts", "2", "--workers", "2"}, {{"a.json", rows}, {"b.json", rows}});
  ASSERT_GT(p.port(), 0) << p.log();
  for (int i = 0; i < 400; ++i) {
    Json st = Json::parse(p.Client().Get("/stats")->body);
    uint64_t read = 0;
    for (const Json& in : st["inputs"]) read += in.value("records", uint64_t{0});
    if (read == 1000 && st["global"]["buffered_records"] == 0) break;
    std::this_thread::sleep_for(25ms);
  }
  Json st = Json::parse(p.Client().Get("/stats")->body);
  std::set<int> hosts;
  for (const Json& in : st["inputs"]) {
    if (in["transport"] == "file_input") hosts.insert(in["host"].get<int>());
  }
  EXPECT_EQ(hosts.size(), 2u) << st.dump();
  for (int i = 0; i < 200 && p.Query("SELECT n, s FROM n", "csv") != "500,500\n"; ++i) {
    std::this_thread::sleep_for(25ms);
  }
  EXPECT_EQ(p.Query("SELECT n, s FROM n", "csv"), "500,500\n");
  EXPECT_EQ(p.Query("SELECT COUNT(*), COUNT(DISTINCT id) FROM t", "csv"), "500,500\n");
}

// LATENESS on many hosts: each host admits only its own input, but every
// host's waterline is the largest value over all of them, so a row that is
// late only by another host's input is dropped where it comes in, and every
// host forgets by the same waterline. The table's two files are read on two
// hosts.
TEST(MultihostTest, WaterlinesAreAgreedOverEveryHost) {
  const std::string program = R"(
CREATE TABLE ev (id BIGINT, ts TIMESTAMP NOT NULL LATENESS INTERVAL 1 HOURS)
  WITH (append_only = true, materialized = true, connectors = '[
  {"name": "a", "transport": {"name": "file_input", "config": {"path": "a.json", "follow": true}},
   "format": {"name": "json"}},
  {"name": "b", "transport": {"name": "file_input", "config": {"path": "b.json", "follow": true}},
   "format": {"name": "json"}}]');
CREATE MATERIALIZED VIEW per_hour AS
  SELECT w.window_start AS h, COUNT(*) AS n FROM ev, tumble(ts, INTERVAL '1 hour') AS w
  GROUP BY w.window_start;
)";
  Pipeline p(program, {"--hosts", "3", "--workers", "2"}, {{"a.json", ""}, {"b.json", ""}});
  ASSERT_GT(p.port(), 0) << p.log();
  auto wait_rows = [&](const std::string& want) {
    for (int i = 0; i < 400 && p.Query("SELECT COUNT(*) FROM ev", "csv") != want; ++i) {
      std::this_thread::sleep_for(25ms);
    }
    return p.Query("SELECT COUNT(*) FROM ev", "csv");
  };
  std::ofstream(p.dir() + "/a.json", std::ios::app)
      << R"({"insert": {"id": 1, "ts": "2024-01-01 10:00:00"}})"
      << "\n";
  ASSERT_EQ(wait_rows("1\n"), "1\n");
  // b's host took nothing yet: by its own input nothing would be late.
  std::ofstream(p.dir() + "/b.json", std::ios::app)
      << R"({"insert": {"id": 2, "ts": "2024-01-01 08:30:00"}})"
      << "\n"
      << R"({"insert": {"id": 3, "ts": "2024-01-01 09:30:00"}})"
      << "\n";
  ASSERT_EQ(wait_rows("2\n"), "2\n");
  for (int i = 0; i < 200; ++i) {
    if (Json::parse(p.Client().Get("/stats")->body)["global"]["late_rows"]["ev"] == 1) break;
    std::this_thread::sleep_for(25ms);
  }
  const Json st = Json::parse(p.Client().Get("/stats")->body);
  std::set<int> hosts;
  for (const Json& in : st["inputs"]) hosts.insert(in["host"].get<int>());
  EXPECT_EQ(hosts.size(), 2u) << st.dump();
  EXPECT_EQ(st["global"]["late_rows"], Json::parse(R"({"ev": 1})")) << st.dump();
  EXPECT_EQ(st["global"]["waterlines"], Json::parse(R"({"ev": "2024-01-01 09:00:00"})"))
      << st.dump();
  EXPECT_EQ(p.Query("SELECT id FROM ev ORDER BY id", "csv"), "1\n3\n");
  EXPECT_EQ(p.Query("SELECT h, n FROM per_hour ORDER BY h", "csv"),
            "2024-01-01 09:00:00,1\n2024-01-01 10:00:00,1\n");
}

// kill -9 of one host: the pipeline fails, saying which host, within the
// timeouts; a restart resumes from the last complete checkpoint with exact
// views and an output file that holds every change once.
TEST(MultihostTest, AKilledHostFailsThePipelineAndARestartResumes) {
  Pipeline p(kSums, {"--hosts", "3", "--workers", "2", "--storage", "$DIR/st"}, {{"in.json", ""}});
  ASSERT_GT(p.port(), 0) << p.log();
  Append(p.dir() + "/in.json", 0, 40);
  for (int i = 0; i < 400 && p.Query("SELECT COUNT(*) FROM t", "csv") != "40\n"; ++i) {
    std::this_thread::sleep_for(25ms);
  }
  Json cs = p.Checkpoint();
  ASSERT_TRUE(cs.is_object() && cs["success"] == 1) << cs.dump() << p.log();
  Append(p.dir() + "/in.json", 40, 70);
  for (int i = 0; i < 400 && p.Query("SELECT COUNT(*) FROM t", "csv") != "70\n"; ++i) {
    std::this_thread::sleep_for(25ms);
  }
  std::vector<pid_t> hosts = Children(p.pid());
  ASSERT_EQ(hosts.size(), 3u);
  const auto killed_at = std::chrono::steady_clock::now();
  kill(hosts[1], SIGKILL);
  Json st = WaitFailed(p, 20s);
  ASSERT_FALSE(st.is_null()) << p.log();
  EXPECT_LT(std::chrono::steady_clock::now() - killed_at, 15s);
  EXPECT_NE(st["error"].get<std::string>().find("host "), std::string::npos) << st.dump();
  EXPECT_NE(st["error"].get<std::string>().find(
                "restart the pipeline (the coordinator and every host); it resumes from "
                "checkpoint 1, at step"),
            std::string::npos)
      << st.dump();
  bool unreachable = false;
  for (const Json& h : st["hosts"]) unreachable = unreachable || h["state"] == "Unreachable";
  EXPECT_TRUE(unreachable) << st.dump();
  EXPECT_EQ(p.Terminate(), 0);
  Append(p.dir() + "/in.json", 70, 90);
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_NE(p.log().find("resumed every host from checkpoint 1"), std::string::npos) << p.log();
  ExpectExact(p, 90);
}

// kill -9 of the coordinator takes its hosts with it; a restart resumes as
// above.
TEST(MultihostTest, AKilledCoordinatorTakesItsHostsAndARestartResumes) {
  Pipeline p(kSums, {"--hosts", "2", "--workers", "2", "--storage", "$DIR/st"}, {{"in.json", ""}});
  ASSERT_GT(p.port(), 0) << p.log();
  Append(p.dir() + "/in.json", 0, 30);
  for (int i = 0; i < 400 && p.Query("SELECT COUNT(*) FROM t", "csv") != "30\n"; ++i) {
    std::this_thread::sleep_for(25ms);
  }
  ASSERT_TRUE(p.Checkpoint()["success"] == 1) << p.log();
  Append(p.dir() + "/in.json", 30, 50);
  std::this_thread::sleep_for(100ms);
  std::vector<pid_t> hosts = Children(p.pid());
  ASSERT_EQ(hosts.size(), 2u);
  p.Kill9();
  for (int i = 0; i < 100 && (kill(hosts[0], 0) == 0 || kill(hosts[1], 0) == 0); ++i) {
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_NE(kill(hosts[0], 0), 0);
  EXPECT_NE(kill(hosts[1], 0), 0);
  Append(p.dir() + "/in.json", 50, 60);
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  ExpectExact(p, 60);
  // And again with a checkpoint in between, then a clean stop and start.
  ASSERT_TRUE(p.Checkpoint()["success"].is_number()) << p.log();
  EXPECT_EQ(p.Terminate(), 0);
  Append(p.dir() + "/in.json", 60, 75);
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  ExpectExact(p, 75);
}

// exactly_once on many hosts: HTTP input accepted by any host survives kill
// -9 of a host or of the coordinator, and the steps after the checkpoint run
// again as they ran (each host replays its own journal, together), so the
// output file holds every change exactly once.
TEST(MultihostTest, ExactlyOnceAcrossKilledHostsAndCoordinators) {
  Pipeline p(kHttpSums, kExactlyOnceArgs, kExactlyOnceFiles);
  ASSERT_GT(p.port(), 0) << p.log();
  std::mt19937 rng(11);
  std::map<int, int> rows;  // what the table must hold
  int next = 0;
  for (int round = 0; round < 5; ++round) {
    for (int r = 0; r < 6; ++r) {
      std::string body;
      for (int i = 0; i < 5; ++i) {
        // New keys, and updates of earlier ones.
        const int id = next > 0 && rng() % 3 == 0 ? static_cast<int>(rng() % next) : next++;
        const int v = static_cast<int>(rng() % 100);
        body += "{\"insert\": {\"id\": " + std::to_string(id) + ", \"v\": " + std::to_string(v) +
                "}}\n";
        rows[id] = v;
      }
      ASSERT_FALSE(p.Ingest("t", body).empty()) << p.log();
      if (round % 2 == 0 && r == 2) {
        ASSERT_TRUE(p.Checkpoint()["success"].is_number()) << p.log();
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 100));
    if (round % 2 == 0) {
      std::vector<pid_t> hosts = Children(p.pid());
      ASSERT_EQ(hosts.size(), 2u);
      kill(hosts[rng() % 2], SIGKILL);
      ASSERT_FALSE(WaitFailed(p, 20s).is_null()) << p.log();
      EXPECT_EQ(p.Terminate(), 0);
    } else {
      p.Kill9();
    }
    p.Spawn();
    ASSERT_GT(p.port(), 0) << p.log();
  }
  std::string want;
  for (const auto& [id, v] : rows) want += std::to_string(id) + "," + std::to_string(v) + "\n";
  for (int i = 0; i < 200 && p.Query("SELECT id, v FROM t ORDER BY id", "csv") != want; ++i) {
    std::this_thread::sleep_for(25ms);
  }
  ASSERT_EQ(p.Query("SELECT id, v FROM t ORDER BY id", "csv"), want) << p.log();
  ExpectSumsExact(p);
}

// A checkpoint that every host wrote but the coordinator never recorded
// (it died first: failpoint coordinator_checkpoint_parts_written) does not
// count; the restart goes back to the one before, and the next checkpoint
// gets a new number, so that the journal files of the cut-short one (which
// hold input from before the restart) are never appended to as if new. Two
// restarts later, every row is there once.
TEST(MultihostTest, ACheckpointCutShortIsNeitherUsedNorReused) {
  setenv("SLUICE_FAILPOINTS", "coordinator_checkpoint_parts_written:1", 1);
  Pipeline p(kHttpSums, kExactlyOnceArgs, kExactlyOnceFiles);
  unsetenv("SLUICE_FAILPOINTS");
  ASSERT_GT(p.port(), 0) << p.log();
  int next = 0;
  auto ingest = [&](int n) {
    for (int i = 0; i < n; ++i, ++next) {
      const std::string tok =
          p.Ingest("t", "{\"insert\": {\"id\": " + std::to_string(next) + ", \"v\": 1}}");
      ASSERT_FALSE(tok.empty()) << p.log();
      ASSERT_TRUE(p.WaitComplete(tok)) << p.log();
    }
  };
  ingest(10);
  // The coordinator ends itself once both hosts wrote their parts.
  p.Client().Post("/checkpoint", "", "text/plain");
  for (int i = 0; i < 200 && kill(p.pid(), 0) == 0; ++i) {
    int status;
    if (waitpid(p.pid(), &status, WNOHANG) == p.pid()) break;
    std::this_thread::sleep_for(25ms);
  }
  p.Kill9();
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_EQ(p.log().find("resumed every host from checkpoint"), std::string::npos) << p.log();
  ingest(10);
  Json cs = p.Checkpoint();
  ASSERT_TRUE(cs.is_object() && cs["success"].is_number()) << cs.dump() << p.log();
  EXPECT_GT(cs["success"].get<uint64_t>(), 1u) << "checkpoint 1 was begun before";
  ingest(10);
  p.Kill9();
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_NE(p.log().find("resumed every host from checkpoint " + cs["success"].dump()),
            std::string::npos)
      << p.log();
  ingest(5);
  EXPECT_EQ(p.Query("SELECT COUNT(*), COUNT(DISTINCT id), SUM(v) FROM t", "csv"), "35,35,35\n");
  ExpectSumsExact(p);
}

// The directory of the certificates that `sluice run --hosts` made.
std::string CertificateDir(const Pipeline& p) {
  const std::string marker = "certificates made for this run in ";
  const std::string log = p.log();
  const size_t at = log.find(marker);
  if (at == std::string::npos) return "";
  const size_t from = at + marker.size();
  return log.substr(from, log.find('\n', from) - from);
}

// Calls to a host's coordination API without the pipeline's secret, or
// with another, get 401 and change nothing; a call without TLS, or with a
// certificate of another CA, gets no answer at all.
TEST(MultihostTest, CoordinationCallsNeedTheSecretAndTheCertificates) {
  Pipeline p("CREATE TABLE t (id BIGINT) WITH (materialized = true);",
             {"--hosts", "2", "--workers", "1"});
  ASSERT_GT(p.port(), 0) << p.log();
  Json st = Json::parse(p.Client().Get("/status")->body);
  ASSERT_EQ(st["hosts"].size(), 2u) << st.dump();
  const std::string address = st["hosts"][0]["address"];
  const std::string ip = address.substr(0, address.find(':'));
  const int port = std::atoi(address.c_str() + address.find(':') + 1);
  const std::string certs = CertificateDir(p);
  ASSERT_FALSE(certs.empty()) << p.log();
  httplib::SSLClient host(ip, port, certs + "/coordinator.pem", certs + "/coordinator.key");
  host.set_ca_cert_path(certs + "/ca.pem");
  host.enable_server_certificate_verification(true);
  host.set_read_timeout(5, 0);
  auto r = host.Get("/coordination/hello");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(Json::parse(r->body)["error_code"], "Unauthorized");
  host.set_bearer_token_auth("not-the-secret");
  r = host.Post("/coordination/step", "{\"step\": 1}", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  r = host.Post("/coordination/activate", "{}", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  r = host.Post("/coordination/ingest?table=t", "", "application/octet-stream");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  // Plain HTTP to a TLS host: no answer, promptly, and the host goes on.
  httplib::Client plain(ip, port);
  plain.set_read_timeout(5, 0);
  const auto began = std::chrono::steady_clock::now();
  auto pr = plain.Get("/coordination/hello");
  EXPECT_FALSE(pr && pr->status == 200);
  EXPECT_LT(std::chrono::steady_clock::now() - began, 6s);
  // A client certificate from another CA: refused in the handshake.
  char tmpl[] = "/tmp/sluice-rogue-XXXXXX";
  const std::string rogue = mkdtemp(tmpl);
  ASSERT_EQ(std::system(("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
                         "-days 2 -subj /CN=rogue -keyout " +
                         rogue + "/rogue.key -out " + rogue + "/rogue.pem >/dev/null 2>&1")
                            .c_str()),
            0);
  httplib::SSLClient stranger(ip, port, rogue + "/rogue.pem", rogue + "/rogue.key");
  stranger.set_ca_cert_path(certs + "/ca.pem");
  stranger.enable_server_certificate_verification(true);
  stranger.set_read_timeout(5, 0);
  auto sr = stranger.Get("/coordination/hello");
  EXPECT_FALSE(sr) << sr->status;
  std::filesystem::remove_all(rogue);
  // The pipeline goes on.
  ASSERT_TRUE(p.WaitStep(1));  // the step at start
  std::string tok = p.Ingest("t", "{\"insert\": {\"id\": 1}}");
  ASSERT_TRUE(p.WaitComplete(tok));
  EXPECT_EQ(p.Query("SELECT COUNT(*) FROM t", "csv"), "1\n");
  // The step at start, then the one of the insert.
  EXPECT_EQ(Json::parse(p.Client().Get("/status")->body)["step"], 2);
}

// A distributed sink's leader takes a report only from the host it names
// (over TLS, the client's certificate must name that host's address) and
// only of that host's data files in the table: a forged report cannot
// complete a step, and the pipeline goes on.
TEST(MultihostTest, AForgedPartReportIsRefused) {
  setenv("SLUICE_SECRET", "the-secret", 1);
  Pipeline p(R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v INTEGER);
CREATE VIEW v WITH (connectors = '[{"name": "lake", "distributed": true,
  "transport": {"name": "delta_table_output", "config": {"uri": "lake/v"}}}]')
  AS SELECT id, v FROM t;
)",
             {"--hosts", "2", "--workers", "1"});
  unsetenv("SLUICE_SECRET");
  ASSERT_GT(p.port(), 0) << p.log();
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", R"({"insert": {"id": 1, "v": 1}})")));
  const Json st = Json::parse(p.Client().Get("/status")->body);
  const std::string certs = CertificateDir(p);
  ASSERT_FALSE(certs.empty()) << p.log();
  // A report of the step after the last, which no host has run.
  const uint64_t next_step = st["step"].get<uint64_t>() + 1;
  // Ask both hosts: the leader answers about the report, the other says
  // it does not lead.
  auto report = [&](int to, const std::string& cert, int from, const std::string& path) {
    const std::string address = st["hosts"][to]["address"];
    httplib::SSLClient c(address.substr(0, address.find(':')),
                         std::atoi(address.c_str() + address.find(':') + 1),
                         certs + "/" + cert + ".pem", certs + "/" + cert + ".key");
    c.set_ca_cert_path(certs + "/ca.pem");
    c.enable_server_certificate_verification(true);
    c.set_bearer_token_auth("the-secret");
    c.set_read_timeout(15, 0);
    const Json files = Json::array({{{"path", path}, {"size", 10}, {"rows", 1}, {"stats", "{}"}}});
    auto r = c.Post("/coordination/part_report",
                    Json{{"connector", "lake"},
                         {"host", from},
                         {"from", next_step},
                         {"step", next_step},
                         {"files", files.dump()},
                         {"snapshot", false},
                         {"compaction", false}}
                        .dump(),
                    "application/json");
    return r ? std::to_string(r->status) + " " + r->body : std::string("no answer");
  };
  char step_digits[24];
  std::snprintf(step_digits, sizeof step_digits, "%020llu",
                static_cast<unsigned long long>(next_step));
  const std::string good_name =
      "part-" + std::string(step_digits) + "-h1-0123456789abcdef.zstd.parquet";
  std::string answers;
  for (int to = 0; to < 2; ++to) {
    // From the coordinator's certificate, claiming to be host 1.
    answers += report(to, "coordinator", 1, good_name) + "\n";
    // From host 1's own certificate: a path outside the table, then a file
    // that is not there.
    answers += report(to, "host-1", 1, "../../etc/passwd") + "\n";
    answers += report(to, "host-1", 1, good_name) + "\n";
  }
  EXPECT_NE(answers.find("whose certificate does not name it"), std::string::npos) << answers;
  EXPECT_NE(answers.find("which is not one of its data files"), std::string::npos) << answers;
  EXPECT_NE(answers.find("which the table does not hold"), std::string::npos) << answers;
  EXPECT_EQ(answers.find("200 "), std::string::npos) << answers;
  // The pipeline and the connector go on.
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", R"({"insert": {"id": 2, "v": 2}})")));
  EXPECT_EQ(Json::parse(p.Client().Get("/status")->body)["state"], "Running");
  uint64_t records = 0;
  for (int i = 0; i < 200 && records < 2; ++i) {
    records = 0;
    const Json stats = Json::parse(p.Client().Get("/stats")->body);
    for (const Json& o : stats["outputs"]) {
      if (o["name"] == "lake") records += o.value("records", uint64_t{0});
    }
    std::this_thread::sleep_for(25ms);
  }
  EXPECT_EQ(records, 2u) << p.Client().Get("/stats")->body;
}

// A process of our own (`sluice host`, `sluice coordinator`), its output in
// a file; killed when it goes out of scope.
struct Process {
  pid_t pid = -1;
  std::string log;
  Process(std::vector<std::string> argv, const std::string& log_path, const std::string& secret)
      : log(log_path) {
    pid = fork();
    if (pid == 0) {
      int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      setenv("SLUICE_SECRET", secret.c_str(), 1);
      std::vector<char*> cargv;
      for (std::string& a : argv) cargv.push_back(a.data());
      cargv.push_back(nullptr);
      execv(cargv[0], cargv.data());
      _exit(127);
    }
  }
  // Exit code, or -1 if it has not ended within `timeout`.
  int Wait(std::chrono::milliseconds timeout) {
    for (auto end = std::chrono::steady_clock::now() + timeout;
         std::chrono::steady_clock::now() < end;) {
      int status;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        pid = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(20ms);
    }
    return -1;
  }
  ~Process() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
};

// A TCP port on 127.0.0.1 that nothing listens on now.
int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

int Shell(const std::string& command) {
  return std::system((command + " >/dev/null 2>&1").c_str());
}

// A host in a network namespace of its own, joined to the others by a veth
// pair, is cut off (its link goes down): the coordinator's calls time out,
// the pipeline fails cleanly naming the host, nothing hangs (the coordinator
// answers and stops at once), and the cut-off host stops itself when it no
// longer hears from its coordinator. Needs root (skipped otherwise).
TEST(MultihostTest, AHostCutOffInItsNetworkNamespaceFailsCleanly) {
  const std::string ns = "sluice-test-" + std::to_string(getpid());
  const std::string a = "sl" + std::to_string(getpid() % 100000) + "a";
  const std::string b = "sl" + std::to_string(getpid() % 100000) + "b";
  if (geteuid() != 0 || Shell("ip netns add " + ns) != 0) {
    GTEST_SKIP() << "cannot make a network namespace here (needs root and iproute2)";
  }
  struct Cleanup {
    std::string ns, a;
    ~Cleanup() {
      Shell("ip link del " + a);
      Shell("ip netns del " + ns);
    }
  } cleanup{ns, a};
  const std::string net = "10.213." + std::to_string(getpid() % 200 + 1);
  ASSERT_EQ(Shell("ip link add " + a + " type veth peer name " + b), 0);
  ASSERT_EQ(Shell("ip link set " + b + " netns " + ns), 0);
  ASSERT_EQ(Shell("ip addr add " + net + ".1/24 dev " + a), 0);
  ASSERT_EQ(Shell("ip link set " + a + " up"), 0);
  ASSERT_EQ(Shell("ip netns exec " + ns + " ip addr add " + net + ".2/24 dev " + b), 0);
  ASSERT_EQ(Shell("ip netns exec " + ns + " ip link set " + b + " up"), 0);
  ASSERT_EQ(Shell("ip netns exec " + ns + " ip link set lo up"), 0);

  char tmpl[] = "/tmp/sluice-netns-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  std::ofstream(dir + "/program.sql") << R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v INTEGER) WITH (materialized = true);
CREATE MATERIALIZED VIEW s AS SELECT SUM(v) AS s FROM t;
)";
  const std::string secret = "netns-secret";
  const int api_port = FreePort();
  // Over TLS, with certificates from `sluice certs`, as on a real cluster.
  ASSERT_EQ(
      Shell(std::string(SLUICE_BINARY) + " certs " + dir + "/tls " + net + ".1 " + net + ".2"), 0);
  auto tls = [&](const std::string& who) {
    return std::vector<std::string>{"--tls-cert", dir + "/tls/" + who + ".pem",
                                    "--tls-key",  dir + "/tls/" + who + ".key",
                                    "--tls-ca",   dir + "/tls/ca.pem"};
  };
  auto with = [](std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  Process host0(with({SLUICE_BINARY, "host", "--listen", net + ".1:17100", "--exchange",
                      net + ".1:17101", "--exchange-timeout-ms", "2000"},
                     tls("host-0")),
                dir + "/host0.log", secret);
  Process host1(with({"/usr/sbin/ip", "netns", "exec", ns, SLUICE_BINARY, "host", "--listen",
                      net + ".2:17100", "--exchange", net + ".2:17101", "--exchange-timeout-ms",
                      "2000", "--coordinator-timeout-ms", "3000"},
                     tls("host-1")),
                dir + "/host1.log", secret);
  Process coordinator(
      with({SLUICE_BINARY, "coordinator", dir + "/program.sql", "--host-list",
            net + ".1:17100," + net + ".2:17100", "--port", std::to_string(api_port), "--workers",
            "2", "--request-timeout-ms", "2000"},
           tls("coordinator")),
      dir + "/coordinator.log", secret);
  httplib::Client api("127.0.0.1", api_port);
  api.set_read_timeout(10, 0);
  bool up = false;
  for (int i = 0; i < 200 && !up; ++i) {
    auto r = api.Get("/status");
    up = r && r->status == 200;
    if (!up) std::this_thread::sleep_for(50ms);
  }
  ASSERT_TRUE(up) << Slurp(dir + "/coordinator.log") << Slurp(dir + "/host1.log");
  // Rows in, through the table's host.
  for (int i = 0; i < 4; ++i) {
    auto r = api.Post("/ingress/t", "{\"insert\": {\"id\": " + std::to_string(i) + ", \"v\": 1}}",
                      "application/json");
    ASSERT_TRUE(r && r->status == 200);
  }
  std::string sum;
  for (int i = 0; i < 200 && sum != "4\n"; ++i) {
    auto r = api.Get("/query?format=csv&sql=SELECT%20s%20FROM%20s");
    sum = r ? r->body : "";
    if (sum != "4\n") std::this_thread::sleep_for(25ms);
  }
  ASSERT_EQ(sum, "4\n");
  // Cut host 1 off.
  const auto cut = std::chrono::steady_clock::now();
  ASSERT_EQ(Shell("ip netns exec " + ns + " ip link set " + b + " down"), 0);
  Json st;
  for (int i = 0; i < 300; ++i) {
    auto r = api.Get("/status");
    ASSERT_TRUE(r) << "the coordinator does not answer";
    st = Json::parse(r->body);
    if (st["state"] == "Failed") break;
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_EQ(st["state"], "Failed") << st.dump();
  EXPECT_LT(std::chrono::steady_clock::now() - cut, 10s);
  EXPECT_NE(st["error"].get<std::string>().find("host 1 (" + net + ".2:17100)"), std::string::npos)
      << st.dump();
  // The cut-off host stops itself; the coordinator stops at once.
  EXPECT_EQ(host1.Wait(15s), 1) << Slurp(dir + "/host1.log");
  EXPECT_NE(Slurp(dir + "/host1.log").find("lost the coordinator"), std::string::npos)
      << Slurp(dir + "/host1.log");
  kill(coordinator.pid, SIGTERM);
  EXPECT_EQ(coordinator.Wait(10s), 0) << Slurp(dir + "/coordinator.log");
  EXPECT_EQ(host0.Wait(10s), 0) << Slurp(dir + "/host0.log");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sluice::testing
