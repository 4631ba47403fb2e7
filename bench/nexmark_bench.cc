// One Nexmark query over N generated events: bench/run nexmark runs it for
// each query in bench/nexmark/.
//
//   nexmark_bench --tables bench/nexmark/tables.sql --query bench/nexmark/q4.sql
//                 [--events N] [--workers W] [--rate R] [--side-input FILE]
//                 [--hosts H] [--output FILE] [--state DIR]
//
// Starts a pipeline with the generator's tables and the query's views, and
// times it from start until every generated event has been processed. With
// --hosts H, the pipeline runs on H hosts of W workers, each a host server
// (`sluice host`) in this process on its own 127.0.0.x address, with a
// coordinator driving them over HTTP and the exchange over TCP, as separate
// processes would. With --output FILE, the query's view writes its changes
// to FILE (JSON lines), so that two runs' results can be compared. With
// --state DIR (one host), the pipeline keeps its state under DIR and takes a
// checkpoint at the end: state_bytes is its size, the operators' state
// without the memory that queues and the allocator add to peak RSS.
// Prints one JSON object: query, events, workers, seconds, events_per_sec,
// events_per_sec_per_worker, peak_rss_bytes, eval_errors, late_rows (rows
// dropped behind a LATENESS waterline, over all tables), top_operators (the
// six operators that took the most of the workers' time, with their share).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/allocator.h"
#include "bench/proc_stats.h"
#include "coordinator/coordinator.h"
#include "pipeline/controller.h"
#include "runtime/tcp_transport.h"
#include "server/host_server.h"

namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void ReplaceAll(std::string* s, const std::string& from, const std::string& to) {
  for (size_t p = s->find(from); p != std::string::npos; p = s->find(from, p + to.size())) {
    s->replace(p, from.size(), to);
  }
}

}  // namespace

int main(int argc, char** argv) {
  sluice::TuneAllocatorAtStart(argv);  // as `sluice run` does
  std::string tables, query, side_input, output, state;
  uint64_t events = 1000000;
  int workers = 2, hosts = 0;
  std::string rate = "10000000";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--tables") tables = argv[i + 1];
    if (a == "--query") query = argv[i + 1];
    if (a == "--events") events = std::strtoull(argv[i + 1], nullptr, 10);
    if (a == "--workers") workers = std::atoi(argv[i + 1]);
    if (a == "--rate") rate = argv[i + 1];
    if (a == "--side-input") side_input = argv[i + 1];
    if (a == "--hosts") hosts = std::atoi(argv[i + 1]);
    if (a == "--output") output = argv[i + 1];
    if (a == "--state") state = argv[i + 1];
  }
  if (tables.empty() || query.empty()) {
    std::fprintf(stderr, "usage: nexmark_bench --tables FILE --query FILE [--events N] ...\n");
    return 2;
  }
  std::string program = Slurp(tables) + "\n" + Slurp(query);
  ReplaceAll(&program, "EVENTS", std::to_string(events));
  ReplaceAll(&program, "RATE", rate);
  ReplaceAll(&program, "SIDE_INPUT", side_input);
  std::string name = query.substr(query.find_last_of('/') + 1);
  name = name.substr(0, name.find('.'));
  if (!output.empty()) {
    ReplaceAll(&program, "CREATE VIEW " + name + " AS",
               "CREATE VIEW " + name + " WITH (connectors = '[{\"name\": \"result\", " +
                   "\"transport\": {\"name\": \"file_output\", \"config\": {\"path\": \"" + output +
                   "\"}}, \"format\": {\"name\": \"json\"}}]') AS");
  }

  sluice::pipeline::PipelineConfig config;
  config.workers = workers;
  config.storage = state;
  const auto t0 = std::chrono::steady_clock::now();
  // One host: a controller. Many: host servers and a coordinator.
  std::unique_ptr<sluice::pipeline::Controller> controller;
  std::vector<std::unique_ptr<sluice::server::HostServer>> host_servers;
  std::unique_ptr<sluice::coordinator::Coordinator> coordinator;
  sluice::pipeline::PipelineApi* api = nullptr;
  if (hosts == 0) {
    auto c = sluice::pipeline::Controller::Start(program, config);
    if (!c.ok()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), c.status().ToString().c_str());
      return 1;
    }
    controller = std::move(*c);
    api = controller.get();
  } else {
    sluice::coordinator::CoordinatorOptions co;
    co.secret = "nexmark-bench";
    for (int h = 0; h < hosts; ++h) {
      const std::string ip = "127.0.0." + std::to_string(2 + h);
      sluice::server::HostOptions ho;
      ho.http_address = ip;
      ho.exchange_address = ip + ":0";
      ho.secret = co.secret;
      host_servers.push_back(std::make_unique<sluice::server::HostServer>(ho));
      if (!host_servers.back()->Start().ok()) return 1;
      sluice::coordinator::HostAddress a;
      a.index = h;
      a.ip = ip;
      a.port = host_servers.back()->port();
      co.hosts.push_back(a);
    }
    auto c = sluice::coordinator::Coordinator::Start(program, config, "", co);
    if (!c.ok()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), c.status().ToString().c_str());
      return 1;
    }
    coordinator = std::move(*c);
    api = coordinator.get();
  }
  auto idle = [&] { return controller ? controller->Idle() : coordinator->Idle(); };
  // Done: every input at its end, nothing queued, no step running.
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(hosts == 0 ? 2 : 20));
    const sluice::pipeline::PipelineStats stats = api->Stats();
    bool ended = true;
    for (const auto& in : stats.inputs) {
      if (in.end_of_input && !*in.end_of_input) ended = false;
    }
    if (stats.global.state == "Failed") {
      std::fprintf(stderr, "%s: %s\n", name.c_str(),
                   api->CurrentStatus().error.value_or("failed").c_str());
      return 1;
    }
    if (ended && idle()) break;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const sluice::pipeline::PipelineStats stats = api->Stats();
  uint64_t state_bytes = 0;
  if (controller && !state.empty()) {
    auto seq = controller->RequestCheckpoint();
    if (!seq.ok() || !controller->WaitCheckpoint(*seq, std::chrono::minutes(10)).ok()) {
      std::fprintf(stderr, "%s: the checkpoint failed\n", name.c_str());
      return 1;
    }
    for (const auto& c : controller->Checkpoints()) {
      if (c.checkpoint_sequence_number == *seq) state_bytes = c.size_bytes;
    }
  }
  if (controller) controller->Stop();
  if (coordinator) coordinator->Stop();
  for (auto& h : host_servers) h->Stop();
  workers *= std::max(hosts, 1);
  uint64_t late_rows = 0;
  for (const auto& [table, n] : stats.global.late_rows) late_rows += n;
  nlohmann::json out = {{"query", name},
                        {"events", events},
                        {"workers", workers},
                        {"hosts", std::max(hosts, 1)},
                        {"seconds", secs},
                        {"events_per_sec", static_cast<double>(events) / secs},
                        {"events_per_sec_per_worker", static_cast<double>(events) / secs / workers},
                        {"peak_rss_bytes", sluice::bench::PeakRssBytes()},
                        {"eval_errors", stats.global.eval_errors},
                        {"late_rows", late_rows}};
  if (!state.empty()) out["state_bytes"] = state_bytes;
  // Where the workers' time went: the operators that took most of it
  // (/stats operator_usecs), with their share of all operators' time.
  std::vector<std::pair<uint64_t, std::string>> ops;
  uint64_t total = 0;
  for (const auto& [op, usecs] : stats.global.operator_usecs) {
    ops.emplace_back(usecs, op);
    total += usecs;
  }
  std::sort(ops.rbegin(), ops.rend());
  nlohmann::json top = nlohmann::json::array();
  for (size_t i = 0; i < ops.size() && i < 6; ++i) {
    top.push_back({{"operator", ops[i].second},
                   {"usecs", ops[i].first},
                   {"share", total == 0 ? 0.0 : static_cast<double>(ops[i].first) / total}});
  }
  out["top_operators"] = top;
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
