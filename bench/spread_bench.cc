// Where a materialized view's integral lives on many hosts, measured
// through whole pipelines (`sluice run --hosts H`): a keyed CDC table of
// orders joined with a smaller table of customers into a view, and a
// 90-day rolling aggregate over the view, loaded one transaction per "day"
// (new orders, and updates of earlier ones). Three pipelines take the same
// load, day by day in turn: the view materialized under the one_host
// layout, under all_hosts, and not materialized. For each: uptime, the
// median seconds per day over the last half of the days, each host's
// storage after a final checkpoint (allocated bytes, as du counts them),
// the fullest host over the mean, and the peak of any host's storage after
// a day.
//
//   spread_bench --sluice build/release/sluice [--hosts 3] [--workers 1]
//                [--days 20] [--orders 20000] [--updates 5000]
//                [--customers 20000] [--runs one_host,all_hosts,none]
//
// Prints a table, then one JSON object per run and the ratios.
//
// With --snapshot-rows N instead: a spread view of N rows, and a client
// that ingests one row at a time and waits for its step, for --seconds S
// without a snapshot and then for S while a slow reader (an /egress
// snapshot read at --reader-mbps) streams the whole view: steps per second
// in each, and their ratio (steps go on while a snapshot streams).
#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
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
  int days = 20;
  int orders = 20000;  // new orders a day
  int updates = 5000;  // earlier orders changed a day
  int customers = 20000;
  std::vector<std::string> runs = {"one_host", "all_hosts", "none"};
  int64_t snapshot_rows = 0;
  int seconds = 20;
  double reader_mbps = 2;
};

std::string Program(bool materialized) {
  return std::string(R"(
CREATE TABLE customers (cust BIGINT NOT NULL PRIMARY KEY, region VARCHAR NOT NULL, tier INTEGER);
CREATE TABLE orders (id BIGINT NOT NULL PRIMARY KEY, cust BIGINT NOT NULL, day INTEGER NOT NULL,
                     amount DECIMAL(12,2), note VARCHAR);
CREATE )") +
         (materialized ? "MATERIALIZED " : "") +
         R"(VIEW enriched AS
  SELECT o.id, o.cust, o.day, o.amount, o.note, c.region, c.tier
  FROM orders o JOIN customers c ON o.cust = c.cust;
CREATE VIEW rolling AS
  SELECT cust, day, SUM(amount) OVER (PARTITION BY cust ORDER BY day
                                      RANGE BETWEEN 89 PRECEDING AND CURRENT ROW) AS total
  FROM enriched;
)";
}

// Allocated bytes under `dir`, as du counts them.
uint64_t DiskUsage(const std::string& dir) {
  uint64_t bytes = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    struct stat st;
    if (lstat(it->path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      bytes += static_cast<uint64_t>(st.st_blocks) * 512;
    }
  }
  return bytes;
}

// The pipelines running, killed by Die() so that none outlives the bench.
std::vector<pid_t> g_children;

[[noreturn]] void Die(const std::string& why, const std::string& log = "") {
  for (pid_t pid : g_children) kill(pid, SIGKILL);
  std::fprintf(stderr, "spread_bench: %s\n", why.c_str());
  if (!log.empty()) std::fprintf(stderr, "%s\n", Slurp(log).c_str());
  std::exit(1);
}

// An order (or a change to one), as a JSON insert.
std::string Order(const Options& o, int64_t id, int day, std::mt19937_64& rng) {
  const uint64_t cust = rng() % static_cast<uint64_t>(o.customers);
  const uint64_t cents = rng() % 100000;
  return "{\"insert\": {\"id\": " + std::to_string(id) + ", \"cust\": " + std::to_string(cust) +
         ", \"day\": " + std::to_string(day) + ", \"amount\": " + std::to_string(cents / 100) +
         "." + std::to_string(10 + cents % 90) + ", \"note\": \"order " + std::to_string(id) +
         " of customer " + std::to_string(cust) + "\"}}\n";
}

const char* kSnapshotProgram = R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v BIGINT, s VARCHAR);
CREATE MATERIALIZED VIEW big AS SELECT id, v, s FROM t;
)";

class Run {
 public:
  Run(const Options& o, const std::string& name) : o_(o), name_(name) {
    char tmpl[] = "/tmp/sluice-spread-XXXXXX";
    dir_ = mkdtemp(tmpl);
    std::ofstream(dir_ + "/program.sql")
        << (o.snapshot_rows > 0 ? kSnapshotProgram : Program(name != "none"));
    log_ = dir_ + "/log";
  }

  // Steps per second of one-row transactions, without and then during a
  // slow snapshot of the whole view.
  Json Snapshot() {
    Start();
    std::string body;
    constexpr int64_t kChunk = 500000;
    for (int64_t from = 0; from < o_.snapshot_rows; from += kChunk) {
      body.clear();
      for (int64_t id = from; id < std::min(o_.snapshot_rows, from + kChunk); ++id) {
        body += "{\"insert\": {\"id\": " + std::to_string(id) +
                ", \"v\": " + std::to_string(id * 7) + ", \"s\": \"row " + std::to_string(id) +
                "\"}}\n";
      }
      Wait(Ingest("t", body));
    }
    int64_t next = o_.snapshot_rows;
    auto steps_for = [&](std::chrono::seconds span) {
      const uint64_t first = Json::parse(Client().Get("/status")->body).at("step");
      const auto until = Clock::now() + span;
      const auto t0 = Clock::now();
      while (Clock::now() < until) {
        Wait(Ingest("t", "{\"insert\": {\"id\": " + std::to_string(next) + ", \"v\": 1}}\n"));
        ++next;
      }
      const uint64_t last = Json::parse(Client().Get("/status")->body).at("step");
      return static_cast<double>(last - first) /
             std::chrono::duration<double>(Clock::now() - t0).count();
    };
    const double without = steps_for(std::chrono::seconds(o_.seconds));
    // The slow reader: reads the snapshot at about reader_mbps.
    std::atomic<uint64_t> read{0};
    std::atomic<bool> stop{false};
    std::thread reader([&] {
      httplib::Client c = Client();
      const auto t0 = Clock::now();
      httplib::Request req;
      req.method = "POST";
      req.path = "/egress/big?mode=snapshot&backpressure=true";
      req.content_receiver = [&](const char*, size_t n, uint64_t, uint64_t) {
        read += n;
        const double due = static_cast<double>(read.load()) / (o_.reader_mbps * 1e6);
        const auto at = t0 + std::chrono::duration<double>(due);
        while (Clock::now() < at && !stop) {
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        return !stop.load();
      };
      httplib::Response res;
      httplib::Error error = httplib::Error::Success;
      c.send(req, res, error);
    });
    std::this_thread::sleep_for(std::chrono::seconds(1));  // under way
    const uint64_t read_before = read;
    const double during = steps_for(std::chrono::seconds(o_.seconds));
    const uint64_t read_during = read - read_before;
    stop = true;
    reader.join();
    Stop();
    return Json{{"run", name_},
                {"snapshot_rows", o_.snapshot_rows},
                {"steps_per_sec_without", without},
                {"steps_per_sec_during_snapshot", during},
                {"ratio", without > 0 ? during / without : 0.0},
                {"snapshot_bytes_read_while_measured", read_during}};
  }
  ~Run() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // The phases of a run, which main() interleaves over the runs day by
  // day, so that each day's figures of the three come from the same minute
  // of a shared machine.
  void Begin(const std::string& customers) {
    Start();
    began_ = Clock::now();
    Wait(Ingest("customers", customers));
  }
  void Day(const std::string& orders) {
    const auto t0 = Clock::now();
    Post("/start_transaction");
    const std::string token = Ingest("orders", orders);
    Post("/commit_transaction");
    Wait(token);
    day_secs_.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    for (int h = 0; h < o_.hosts; ++h) peak_ = std::max(peak_, HostBytes(h));
  }
  Json Finish() {
    const double uptime = std::chrono::duration<double>(Clock::now() - began_).count();
    // A checkpoint, then each host's storage.
    const Json cp = Json::parse(Post("/checkpoint"));
    const uint64_t seq = cp.at("checkpoint_sequence_number");
    for (int i = 0;; ++i) {
      auto r = Client().Get("/checkpoint_status");
      if (r && r->status == 200) {
        const Json st = Json::parse(r->body);
        if (st["success"].is_number() && st["success"].get<uint64_t>() >= seq) break;
      }
      if (i > 6000) Die("checkpoint " + std::to_string(seq) + " did not complete", log_);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::vector<uint64_t> hosts;
    uint64_t total = 0;
    for (int h = 0; h < o_.hosts; ++h) {
      hosts.push_back(HostBytes(h));
      total += hosts.back();
      peak_ = std::max(peak_, hosts.back());
    }
    const double mean = static_cast<double>(total) / o_.hosts;
    // The median day of the last half: a shared machine's pauses land on
    // single days.
    std::vector<double> last(day_secs_.begin() + static_cast<long>(day_secs_.size() / 2),
                             day_secs_.end());
    std::sort(last.begin(), last.end());
    const double median = last.empty() ? 0 : last[last.size() / 2];
    Stop();
    return Json{
        {"run", name_},
        {"uptime_secs", uptime},
        {"secs_per_day_median_last_half", median},
        {"secs_per_day", day_secs_},
        {"host_bytes", hosts},
        {"fullest_over_mean",
         mean > 0 ? static_cast<double>(*std::max_element(hosts.begin(), hosts.end())) / mean
                  : 0.0},
        {"peak_host_bytes", peak_}};
  }

 private:
  uint64_t HostBytes(int h) const { return DiskUsage(dir_ + "/st/host-" + std::to_string(h)); }

  void Start() {
    std::vector<std::pair<std::string, std::string>> env;
    if (name_ != "none")
      env.emplace_back("SLUICE_DEV_TWEAKS", "{\"view_integrals\": \"" + name_ + "\"}");
    port_ =
        sluice::bench::StartAndWaitForPort({o_.sluice, "run", dir_ + "/program.sql", "--port", "0",
                                            "--hosts", std::to_string(o_.hosts), "--workers",
                                            std::to_string(o_.workers), "--storage", dir_ + "/st"},
                                           log_, env, &pid_);
    g_children.push_back(pid_);
    if (port_ == 0) Die("sluice run did not start", log_);
  }

  void Stop() {
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  httplib::Client Client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(3600, 0);
    c.set_write_timeout(3600, 0);
    return c;
  }

  std::string Post(const std::string& path, const std::string& body = "") {
    auto r = Client().Post(path, body, "application/json");
    if (!r || r->status != 200) {
      Die("POST " + path + ": " + (r ? r->body : httplib::to_string(r.error())), log_);
    }
    return r->body;
  }

  std::string Ingest(const std::string& table, const std::string& body) {
    return Json::parse(Post("/ingress/" + table, body)).at("token");
  }

  void Wait(const std::string& token) {
    for (;;) {
      auto r = Client().Get("/completion_status?token=" + token);
      if (!r || r->status != 200) Die("completion of " + token + " failed", log_);
      if (Json::parse(r->body).value("status", "") == "complete") return;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  const Options& o_;
  const std::string name_;
  std::string dir_, log_;
  pid_t pid_ = -1;
  int port_ = 0;
  Clock::time_point began_;
  std::vector<double> day_secs_;
  uint64_t peak_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--sluice") {
      o.sluice = v;
    } else if (k == "--hosts") {
      o.hosts = std::atoi(v.c_str());
    } else if (k == "--workers") {
      o.workers = std::atoi(v.c_str());
    } else if (k == "--days") {
      o.days = std::atoi(v.c_str());
    } else if (k == "--orders") {
      o.orders = std::atoi(v.c_str());
    } else if (k == "--updates") {
      o.updates = std::atoi(v.c_str());
    } else if (k == "--customers") {
      o.customers = std::atoi(v.c_str());
    } else if (k == "--snapshot-rows") {
      o.snapshot_rows = std::atoll(v.c_str());
    } else if (k == "--seconds") {
      o.seconds = std::atoi(v.c_str());
    } else if (k == "--reader-mbps") {
      o.reader_mbps = std::atof(v.c_str());
    } else if (k == "--runs") {
      o.runs.clear();
      std::stringstream ss(v);
      for (std::string r; std::getline(ss, r, ',');) o.runs.push_back(r);
    } else {
      Die("unknown option " + k);
    }
  }
  if (o.hosts < 2 || o.days < 1 || o.orders < 1 || o.customers < 1) Die("bad options");
  if (o.snapshot_rows > 0) {
    Run run(o, "all_hosts");
    const Json r = run.Snapshot();
    std::printf(
        "steps/s without a snapshot: %.1f; during a %lld-row snapshot read at %.1f MB/s: "
        "%.1f; ratio %.3f\n",
        r["steps_per_sec_without"].get<double>(), static_cast<long long>(o.snapshot_rows),
        o.reader_mbps, r["steps_per_sec_during_snapshot"].get<double>(), r["ratio"].get<double>());
    std::printf("%s\n", r.dump().c_str());
    return 0;
  }
  std::vector<Json> results;
  std::printf("%-10s %10s %12s %28s %12s %14s\n", "run", "uptime s", "s/day",
              "storage per host (MB)", "fullest/mean", "peak host MB");
  std::vector<std::unique_ptr<Run>> runs;
  for (const std::string& name : o.runs) {
    if (name != "one_host" && name != "all_hosts" && name != "none") {
      Die("--runs: one_host, all_hosts or none, not " + name);
    }
    runs.push_back(std::make_unique<Run>(o, name));
  }
  std::mt19937_64 rng(42);
  std::string body;
  for (int c = 0; c < o.customers; ++c) {
    body += "{\"insert\": {\"cust\": " + std::to_string(c) + ", \"region\": \"region " +
            std::to_string(c % 40) + "\", \"tier\": " + std::to_string(c % 5) + "}}\n";
  }
  for (auto& r : runs) r->Begin(body);
  int64_t next = 0;
  for (int day = 1; day <= o.days; ++day) {
    body.clear();
    for (int i = 0; i < o.orders; ++i, ++next) body += Order(o, next, day, rng);
    for (int i = 0; i < o.updates && next > 0; ++i) {
      // A change to an earlier order: the CDC stream's update.
      const int64_t id = static_cast<int64_t>(rng() % static_cast<uint64_t>(next));
      body += Order(o, id, std::max(1, day - static_cast<int>(rng() % 30)), rng);
    }
    for (auto& r : runs) r->Day(body);
  }
  for (auto& run : runs) {
    Json r = run->Finish();
    std::string per_host;
    for (const Json& b : r["host_bytes"]) {
      per_host += (per_host.empty() ? "" : "/") + std::to_string(b.get<uint64_t>() >> 20);
    }
    std::printf("%-10s %10.1f %12.3f %28s %12.3f %14llu\n", r["run"].get<std::string>().c_str(),
                r["uptime_secs"].get<double>(), r["secs_per_day_median_last_half"].get<double>(),
                per_host.c_str(), r["fullest_over_mean"].get<double>(),
                static_cast<unsigned long long>(r["peak_host_bytes"].get<uint64_t>() >> 20));
    std::fflush(stdout);
    results.push_back(r);
  }
  Json out = {{"benchmark", "spread"},      {"hosts", o.hosts},
              {"workers", o.workers},       {"days", o.days},
              {"orders_per_day", o.orders}, {"updates_per_day", o.updates},
              {"customers", o.customers},   {"runs", results}};
  // The materialized view's cost over not materializing it, per layout.
  double none = 0;
  for (const Json& r : results) {
    if (r["run"] == "none") none = r["secs_per_day_median_last_half"];
  }
  if (none > 0) {
    for (const Json& r : results) {
      if (r["run"] == "none") continue;
      const double ratio = r["secs_per_day_median_last_half"].get<double>() / none;
      out["materialized_over_none_" + r["run"].get<std::string>()] = ratio;
      std::printf("materialized (%s) / not materialized, s/day: %.3f\n",
                  r["run"].get<std::string>().c_str(), ratio);
    }
  }
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
