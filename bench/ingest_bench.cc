// HTTP ingest: N JSON insert records POSTed to a pipeline (a table feeding a
// filter view), against simdjson alone parsing the same bytes, in one run.
//
//   ingest_bench [--records N] [--workers W] [--batch R] [--clients C]
//
// The pipeline's rate counts from the first request to the completion of
// the last one: HTTP, parsing into rows, the steps and the view's output.
// The ratio is that rate over the parse-only rate of one thread. The same
// run with the table declared append_only gives a second ratio: what
// checking deletes against the table's rows costs an insert-only load.
#include <httplib.h>
#include <simdjson.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "base/allocator.h"
#include "bench/proc_stats.h"
#include "format/format.h"
#include "pipeline/controller.h"
#include "server/server.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Requests of `batch` records each, as newline-delimited JSON.
std::vector<std::string> MakeRequests(uint64_t records, uint64_t batch) {
  std::vector<std::string> out;
  std::string body;
  char line[256];
  for (uint64_t i = 0; i < records; ++i) {
    int n = std::snprintf(
        line, sizeof line,
        "{\"insert\": {\"id\": %llu, \"customer\": %llu, \"amount\": %llu.%02llu, "
        "\"placed\": \"2026-11-%02llu 10:%02llu:00\", \"note\": \"order %llu\"}}\n",
        static_cast<unsigned long long>(i), static_cast<unsigned long long>(i * 7919 % 100000),
        static_cast<unsigned long long>(i % 1000), static_cast<unsigned long long>(i % 100),
        static_cast<unsigned long long>(1 + i % 28), static_cast<unsigned long long>(i % 60),
        static_cast<unsigned long long>(i));
    body.append(line, static_cast<size_t>(n));
    if ((i + 1) % batch == 0 || i + 1 == records) {
      out.push_back(std::move(body));
      body.clear();
    }
  }
  return out;
}

// simdjson alone: every record parsed and every field read, one thread.
double ParseOnly(const std::vector<std::string>& requests, uint64_t* checksum) {
  simdjson::ondemand::parser parser;
  auto start = Clock::now();
  uint64_t sum = 0;
  for (const std::string& req : requests) {
    simdjson::padded_string buf(req);
    size_t pos = 0;
    while (pos < req.size()) {
      size_t nl = req.find('\n', pos);
      if (nl == std::string::npos) nl = req.size();
      simdjson::padded_string_view psv(buf.data() + pos, nl - pos, buf.size() + 64 - pos);
      simdjson::ondemand::document doc = parser.iterate(psv);
      simdjson::ondemand::object row = doc["insert"].get_object();
      for (auto field : row) {
        simdjson::ondemand::value v = field.value();
        switch (v.type()) {
          case simdjson::ondemand::json_type::number:
            sum += static_cast<uint64_t>(double(v.get_double()));
            break;
          case simdjson::ondemand::json_type::string:
            sum += std::string_view(v.get_string()).size();
            break;
          default:
            break;
        }
      }
      pos = nl + 1;
    }
  }
  *checksum = sum;
  return Seconds(start, Clock::now());
}

// Our JSON decoder alone (records to encoded rows), one thread.
double DecodeOnly(const std::vector<std::string>& requests, const sluice::format::Relation& rel) {
  sluice::format::FormatOptions o;
  auto dec = sluice::format::MakeDecoder(o, rel);
  auto start = Clock::now();
  for (const std::string& req : requests) {
    sluice::format::ChangeBuffer out;
    std::vector<sluice::format::RecordError> errors;
    uint64_t n = 0;
    (*dec)->Decode(req, sluice::format::Position{}, &out, &errors, &n);
    if (n > 0) std::abort();
  }
  return Seconds(start, Clock::now());
}

}  // namespace

int main(int argc, char** argv) {
  sluice::TuneAllocatorAtStart(argv);  // as `sluice run` does
  uint64_t records = 10000000, batch = 100000;
  int workers = 2, clients = 2;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() { return i + 1 < argc ? std::strtoull(argv[++i], nullptr, 10) : 0ull; };
    if (a == "--records") {
      records = next();
    } else if (a == "--batch") {
      batch = next();
    } else if (a == "--workers") {
      workers = static_cast<int>(next());
    } else if (a == "--clients") {
      clients = static_cast<int>(next());
    } else if (a.rfind("--benchmark", 0) == 0) {
      // scripts/bench passes Google Benchmark flags to every program.
    } else {
      std::fprintf(stderr, "ingest_bench: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  if (records == 0 || batch == 0 || workers < 1 || clients < 1) {
    std::fprintf(stderr, "ingest_bench: sizes must be positive\n");
    return 2;
  }
  std::vector<std::string> requests = MakeRequests(records, batch);
  uint64_t bytes = 0;
  for (const std::string& r : requests) bytes += r.size();

  uint64_t checksum = 0;
  const double parse_s = ParseOnly(requests, &checksum);
  sluice::format::Relation rel;
  rel.name = "orders";
  rel.columns = {"id", "customer", "amount", "placed", "note"};
  rel.schema = {sluice::SqlType::BigInt(false), sluice::SqlType::BigInt(false),
                sluice::SqlType::Decimal(10, 2), sluice::SqlType::Timestamp(),
                sluice::SqlType::Varchar()};
  const double decode_s = DecodeOnly(requests, rel);

  // One pipeline run over `requests`, its table declared with `options`.
  struct Run {
    double seconds = 0, step_s = 0;
    uint64_t steps = 0;
    std::atomic<uint64_t> out_records{0};
  };
  auto pipeline = [&](const std::string& options, Run* run) -> bool {
    sluice::pipeline::PipelineConfig config;
    config.workers = workers;
    auto controller = sluice::pipeline::Controller::Start(
        "CREATE TABLE orders (id BIGINT NOT NULL, customer BIGINT NOT NULL, amount DECIMAL(10, 2),"
        " placed TIMESTAMP, note VARCHAR)" +
            options +
            ";\n"
            "CREATE VIEW big_orders AS SELECT id, customer, amount FROM orders WHERE amount > "
            "990;\n",
        config);
    if (!controller.ok()) {
      std::fprintf(stderr, "ingest_bench: %s\n", controller.status().ToString().c_str());
      return false;
    }
    sluice::server::ServerOptions so;
    so.port = 0;
    sluice::server::Server server(controller->get(), so);
    if (!server.Start().ok()) return false;
    auto sub = (*controller)->Subscribe("big_orders", false, true, true, 1ull << 40);
    std::atomic<uint64_t>& out_records = run->out_records;
    std::thread drain([&] {
      sluice::connector::OutputChunk c;
      while (sub->queue->Pop(&c, std::chrono::milliseconds(100)) !=
             sluice::connector::OutputQueue::PopResult::kClosed) {
        out_records += c.records();
      }
    });

    std::atomic<size_t> next{0};
    std::atomic<uint64_t> last_token{0};
    std::atomic<bool> failed{false};
    auto start = Clock::now();
    std::vector<std::thread> senders;
    for (int c = 0; c < clients; ++c) {
      senders.emplace_back([&] {
        httplib::Client cli("127.0.0.1", server.port());
        cli.set_read_timeout(600, 0);
        cli.set_write_timeout(600, 0);
        for (size_t i; (i = next++) < requests.size();) {
          auto r = cli.Post("/ingress/orders", requests[i], "application/json");
          if (!r || r->status != 200) {
            std::fprintf(stderr, "ingest_bench: request failed: %s\n", r ? r->body.c_str() : "");
            failed = true;
            return;
          }
          uint64_t t = std::strtoull(r->body.c_str() + std::strlen("{\"token\":\""), nullptr, 10);
          uint64_t prev = last_token.load();
          while (t > prev && !last_token.compare_exchange_weak(prev, t)) {
          }
        }
      });
    }
    for (std::thread& t : senders) t.join();
    if (failed) return false;
    (*controller)->WaitComplete(last_token, std::chrono::minutes(30));
    run->seconds = Seconds(start, Clock::now());
    run->steps = (*controller)->step();
    run->step_s = static_cast<double>((*controller)->step_usecs()) / 1e6;
    (*controller)->Unsubscribe(sub->id);
    drain.join();
    (*controller)->Stop();
    server.Stop();
    return true;
  };
  // A table without a primary key keeps its rows to check deletes against
  // (an insert-only change passes without a lookup); an append-only table
  // keeps nothing.
  // Each twice, alternating, the faster run of each counting (the first
  // run of a process pays for warming the allocator).
  Run checked, append_only, checked2, append_only2;
  if (!pipeline("", &checked) || !pipeline(" WITH ('append_only' = 'true')", &append_only) ||
      !pipeline("", &checked2) || !pipeline(" WITH ('append_only' = 'true')", &append_only2)) {
    return 1;
  }
  if (checked2.seconds < checked.seconds) {
    checked.seconds = checked2.seconds;
    checked.steps = checked2.steps;
    checked.step_s = checked2.step_s;
  }
  append_only.seconds = std::min(append_only.seconds, append_only2.seconds);
  const double pipeline_s = checked.seconds;
  const uint64_t steps = checked.steps;
  const double step_s = checked.step_s;
  const std::atomic<uint64_t>& out_records = checked.out_records;

  const double parse_rate = static_cast<double>(records) / parse_s;
  const double rate = static_cast<double>(records) / pipeline_s;
  std::printf("records        %llu (%.1f MB of JSON, %zu requests of %llu)\n",
              static_cast<unsigned long long>(records), static_cast<double>(bytes) / 1e6,
              requests.size(), static_cast<unsigned long long>(batch));
  std::printf("simdjson alone %10.0f records/s  (%.2f s, 1 thread, %.0f MB/s)\n", parse_rate,
              parse_s, static_cast<double>(bytes) / 1e6 / parse_s);
  std::printf("decoder alone  %10.0f records/s  (%.2f s, 1 thread: JSON to encoded rows)\n",
              static_cast<double>(records) / decode_s, decode_s);
  std::printf("pipeline       %10.0f records/s  (%.2f s, %d workers, %d clients, %llu steps)\n",
              rate, pipeline_s, workers, clients, static_cast<unsigned long long>(steps));
  std::printf("per worker     %10.0f records/s\n", rate / workers);
  std::printf("append_only    %10.0f records/s  (%.2f s; the default over it: %.3f)\n",
              static_cast<double>(records) / append_only.seconds, append_only.seconds,
              append_only.seconds / pipeline_s);
  std::printf("steps          %.2f s of the %.2f s (taking queued changes to outputs)\n", step_s,
              pipeline_s);
  std::printf("ratio          %10.2f  (pipeline / simdjson alone)\n", rate / parse_rate);
  std::printf("view rows out  %llu; peak RSS %.0f MB\n",
              static_cast<unsigned long long>(out_records.load()),
              static_cast<double>(sluice::bench::PeakRssBytes()) / 1e6);
  return 0;
}
