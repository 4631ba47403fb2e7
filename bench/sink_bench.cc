// A Delta Lake sink on many hosts, distributed or not, measured through
// whole pipelines (`sluice run --hosts H`): a stream of orders into a
// materialized view spread over every host (the all_hosts layout), written
// to a Delta table by a sink on one host (the view's change gathered there)
// and by a distributed sink (a part on every host, one commit per step
// through the leader). The two pipelines take the same load in turn.
//
//   sink_bench --sluice build/release/sluice [--hosts 3] [--workers 1]
//              [--rows 2000000] [--batch 100000] [--rounds 2]
//
// For each: rows per second from the first request until the table holds
// every row (its commits counted by the sink), the bytes the hosts sent each
// other over the exchange, and the data files per commit. The runs
// alternate, --rounds times each, and the fastest of each counts. Prints a
// table, one JSON object per run, and the ratio distributed / single.
#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "process.h"

namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;
using sluice::bench::Slurp;

struct Options {
  std::string sluice = "build/release/sluice";
  int hosts = 3;
  int workers = 1;
  int64_t rows = 2000000;
  int64_t batch = 100000;
  int rounds = 2;
};

[[noreturn]] void Die(const std::string& why, const std::string& log = "") {
  std::fprintf(stderr, "sink_bench: %s\n", why.c_str());
  if (!log.empty()) std::fprintf(stderr, "%s\n", Slurp(log).c_str());
  std::exit(1);
}

struct Result {
  std::string run;
  double seconds = 0;
  uint64_t exchange_bytes = 0;
  double files_per_commit = 0;
  uint64_t commits = 0;
};

// One pipeline: started, loaded, measured, stopped.
Result RunOnce(const Options& o, bool distributed, const std::vector<std::string>& bodies) {
  char tmpl[] = "/tmp/sluice-sink-bench-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string log = dir + "/log.txt";
  std::ofstream(dir + "/program.sql")
      << "CREATE TABLE orders (id BIGINT NOT NULL, customer BIGINT NOT NULL, amount "
         "DECIMAL(12,2), note VARCHAR) WITH (append_only = true);\n"
         "CREATE MATERIALIZED VIEW big WITH (connectors = '[{\"name\": \"lake\", "
         "\"distributed\": "
      << (distributed ? "true" : "false")
      << ", \"transport\": {\"name\": \"delta_table_output\", \"config\": {\"uri\": "
         "\"lake/big\"}}}]') AS SELECT id, customer, amount, note FROM orders WHERE amount > 10;\n";
  pid_t pid = -1;
  const int port = sluice::bench::StartAndWaitForPort(
      {o.sluice, "run", dir + "/program.sql", "--port", "0", "--hosts", std::to_string(o.hosts),
       "--workers", std::to_string(o.workers)},
      log, {}, &pid);
  if (port == 0) {
    kill(pid, SIGKILL);
    Die("sluice run did not start", log);
  }
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(3600, 0);
  c.set_write_timeout(3600, 0);
  auto stats = [&] {
    auto r = c.Get("/stats");
    if (!r || r->status != 200) Die("GET /stats failed", log);
    return Json::parse(r->body);
  };
  // Rows in the view: every row whose amount is over 10.
  uint64_t want = 0;
  for (const std::string& b : bodies) {
    for (size_t at = b.find("\"amount\": "); at != std::string::npos;
         at = b.find("\"amount\": ", at + 1)) {
      if (std::atof(b.c_str() + at + 10) > 10) ++want;
    }
  }
  const uint64_t bytes_before = stats()["global"].value("exchange_bytes_sent", uint64_t{0});
  const auto began = Clock::now();
  for (const std::string& body : bodies) {
    auto r = c.Post("/ingress/orders", body, "application/json");
    if (!r || r->status != 200) Die("ingest failed", log);
  }
  uint64_t written = 0;
  while (written < want) {
    written = 0;
    const Json s = stats();
    for (const Json& out : s["outputs"]) {
      if (out.value("name", "") == "lake") written += out.value("records", uint64_t{0});
    }
    if (written < want) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (Clock::now() - began > std::chrono::minutes(30)) Die("the sink did not catch up", log);
  }
  Result r;
  r.run = distributed ? "distributed" : "single";
  r.seconds = std::chrono::duration<double>(Clock::now() - began).count();
  r.exchange_bytes = stats()["global"].value("exchange_bytes_sent", uint64_t{0}) - bytes_before;
  uint64_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/lake/big/_delta_log")) {
    std::istringstream in(Slurp(e.path().string()));
    uint64_t adds = 0;
    for (std::string line; std::getline(in, line);) adds += line.rfind("{\"add\"", 0) == 0;
    if (adds > 0) {
      files += adds;
      ++r.commits;
    }
  }
  r.files_per_commit = r.commits > 0 ? static_cast<double>(files) / r.commits : 0;
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  std::filesystem::remove_all(dir);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) Die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--sluice") {
      o.sluice = next();
    } else if (a == "--hosts") {
      o.hosts = std::atoi(next().c_str());
    } else if (a == "--workers") {
      o.workers = std::atoi(next().c_str());
    } else if (a == "--rows") {
      o.rows = std::atoll(next().c_str());
    } else if (a == "--batch") {
      o.batch = std::atoll(next().c_str());
    } else if (a == "--rounds") {
      o.rounds = std::atoi(next().c_str());
    } else if (a.rfind("--benchmark", 0) == 0) {
      // scripts/bench passes Google Benchmark flags to every program.
    } else {
      Die("unknown argument " + a);
    }
  }
  if (o.hosts < 2 || o.workers < 1 || o.rows < 1 || o.batch < 1 || o.rounds < 1) {
    Die("needs --hosts 2 or more and positive sizes");
  }
  std::vector<std::string> bodies;
  std::string body;
  char line[256];
  for (int64_t i = 0; i < o.rows; ++i) {
    std::snprintf(line, sizeof line,
                  "{\"insert\": {\"id\": %lld, \"customer\": %lld, \"amount\": %lld.%02lld, "
                  "\"note\": \"order %lld\"}}\n",
                  static_cast<long long>(i), static_cast<long long>(i % 9973),
                  static_cast<long long>(i % 1000), static_cast<long long>(i % 100),
                  static_cast<long long>(i));
    body += line;
    if ((i + 1) % o.batch == 0 || i + 1 == o.rows) {
      bodies.push_back(std::move(body));
      body.clear();
    }
  }
  Result best[2];
  for (int round = 0; round < o.rounds; ++round) {
    for (int d = 0; d < 2; ++d) {
      Result r = RunOnce(o, d == 1, bodies);
      if (round == 0 || r.seconds < best[d].seconds) best[d] = r;
    }
  }
  std::printf("%-12s %12s %10s %16s %16s\n", "sink", "rows/s", "seconds", "exchange MB",
              "files/commit");
  for (const Result& r : best) {
    std::printf("%-12s %12.0f %10.2f %16.1f %16.2f\n", r.run.c_str(),
                static_cast<double>(o.rows) / r.seconds, r.seconds,
                static_cast<double>(r.exchange_bytes) / 1e6, r.files_per_commit);
  }
  for (const Result& r : best) {
    std::printf("%s\n", Json{{"run", r.run},
                             {"hosts", o.hosts},
                             {"workers", o.workers},
                             {"rows", o.rows},
                             {"seconds", r.seconds},
                             {"rows_per_sec", static_cast<double>(o.rows) / r.seconds},
                             {"exchange_bytes", r.exchange_bytes},
                             {"commits", r.commits},
                             {"files_per_commit", r.files_per_commit}}
                            .dump()
                            .c_str());
  }
  std::printf("ratio distributed / single: rows/s %.3f, exchange bytes %.3f\n",
              best[0].seconds / best[1].seconds,
              best[0].exchange_bytes > 0 ? static_cast<double>(best[1].exchange_bytes) /
                                               static_cast<double>(best[0].exchange_bytes)
                                         : 0.0);
  return 0;
}
