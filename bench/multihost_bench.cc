// The cost of crossing TCP instead of memory, in one run: Nexmark queries on
// one host of two workers against two hosts of one worker each (two
// runtimes in this process, joined by TcpTransport over loopback).
//
//   multihost_bench [--events N] [--queries q0,q4,...] [--nexmark DIR]
//
// Both configurations take the same generated events in the same steps
// (100,000 events a step); the time is the steps' (generating the events
// is not counted). Prints, per query, events/s for each and the ratio
// (2 hosts x 1 over 1 host x 2).
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <future>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/allocator.h"
#include "connector/nexmark.h"
#include "dataflow/operators/exchange.h"
#include "process.h"
#include "runtime/loopback_cluster.h"
#include "sql/program.h"
#include "zset/batch_builder.h"

namespace {

using Clock = std::chrono::steady_clock;

using sluice::bench::Slurp;

}  // namespace

int main(int argc, char** argv) {
  sluice::TuneAllocatorAtStart(argv);  // as `sluice run` does
  uint64_t events = 2000000;
  std::string queries = "q0,q1,q2,q3,q4,q7,q8,q9", dir = SLUICE_SOURCE_DIR "/bench/nexmark";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--events")) events = std::strtoull(argv[i + 1], nullptr, 10);
    if (!std::strcmp(argv[i], "--queries")) queries = argv[i + 1];
    if (!std::strcmp(argv[i], "--nexmark")) dir = argv[i + 1];
  }
  std::string tables = Slurp(dir + "/tables.sql");
  for (const char* p : {"EVENTS", "RATE"}) {
    for (size_t at; (at = tables.find(p)) != std::string::npos;)
      tables.replace(at, std::strlen(p), "1");
  }
  // The events, as each step's batches per table.
  const char* names[] = {"person", "auction", "bid"};
  auto base = sluice::sql::CompileProgram(tables);
  if (!base.ok()) {
    std::fprintf(stderr, "%s\n", base.status().ToString().c_str());
    return 1;
  }
  std::vector<std::map<std::string, sluice::BatchPtr>> steps;
  std::string row;
  for (uint64_t from = 0; from < events; from += 100000) {
    sluice::BatchBuilder b[3];
    for (uint64_t n = from; n < std::min(events, from + 100000); ++n) {
      const int kind = sluice::connector::NexmarkEventKind(n);
      sluice::Schema schema;
      for (const auto& c : base->catalog.FindTable(names[kind])->columns) schema.push_back(c.type);
      row.clear();
      sluice::connector::NexmarkRow(n, 0, 1e7, schema, &row);
      b[kind].Push(row, 1);
    }
    std::map<std::string, sluice::BatchPtr> step;
    for (int k = 0; k < 3; ++k) step[names[k]] = *b[k].Finish();
    steps.push_back(std::move(step));
  }
  std::printf("%-5s %16s %16s %8s\n", "query", "1x2 events/s", "2x1 events/s", "ratio");
  std::stringstream qs(queries);
  for (std::string q; std::getline(qs, q, ',');) {
    auto program = sluice::sql::CompileProgram(tables + Slurp(dir + "/" + q + ".sql"));
    if (!program.ok()) {
      std::fprintf(stderr, "%s: %s\n", q.c_str(), program.status().ToString().c_str());
      continue;
    }
    sluice::sql::EvalErrors errors;
    auto build = [&](sluice::Circuit& c) {
      return sluice::sql::BuildProgram(*program, c, &errors);
    };
    // One host, two workers.
    sluice::RuntimeOptions one;
    one.workers = 2;
    auto single = sluice::Runtime::Start(one, build);
    if (!single.ok()) return 1;
    auto t0 = Clock::now();
    for (const auto& step : steps) {
      for (const auto& [table, batch] : step) {
        if (!(*single)->Push(table, batch).ok()) return 1;
      }
      if (!(*single)->Step().ok()) return 1;
    }
    const double one_s = std::chrono::duration<double>(Clock::now() - t0).count();
    single->reset();
    // Two hosts, one worker each.
    auto cluster =
        sluice::LoopbackCluster::Start(2, 1, [&](int, sluice::Circuit& c) { return build(c); });
    if (!cluster.ok()) return 1;
    t0 = Clock::now();
    for (const auto& step : steps) {
      for (const auto& [table, batch] : step) {
        if (!(*cluster)->Push(table, batch).ok()) return 1;
      }
      if (!(*cluster)->Step().ok()) return 1;
    }
    const double two_s = std::chrono::duration<double>(Clock::now() - t0).count();
    cluster->reset();
    const double e = static_cast<double>(events);
    std::printf("%-5s %16.0f %16.0f %8.2f\n", q.c_str(), e / one_s, e / two_s, one_s / two_s);
    std::fflush(stdout);
  }
  return 0;
}
