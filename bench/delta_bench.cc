// Parquet encoding and the Delta Lake sink, in one run:
//
//   delta_bench [--rows N] [--threads T] [--snapshot-rows M] [--dir DIR]
//
// 1. Parquet: N rows of a typical schema (BIGINT, INTEGER, VARCHAR,
//    DECIMAL(12,2), TIMESTAMP, DOUBLE) written with zstd by one writer, and
//    by T writers on T threads (a file each). The rate is the values' plain
//    bytes (what the columns hold before encoding) per second. Against it:
//    zstd alone (level 3, 1 MiB pages, as the writer uses) compressing the
//    same plain column bytes on one thread.
// 2. The sink end to end: a pipeline whose materialized table holds M rows
//    resets its Delta connector, which writes the view's snapshot as one
//    commit (T threads, 128 MiB files); the time runs from the reset to the
//    commit, and the commit's files are counted.
#include <zstd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "base/allocator.h"
#include "bench/proc_stats.h"
#include "format/parquet.h"
#include "pipeline/controller.h"
#include "types/row_codec.h"

namespace {

using Clock = std::chrono::steady_clock;
using sluice::bench::Seconds;
using sluice::SqlType;
using sluice::Value;

std::vector<Value> MakeRow(uint64_t i) {
  return {Value::Int(static_cast<int64_t>(i)),
          Value::Int(static_cast<int64_t>(i * 7919 % 1000)),
          Value::String("customer-" + std::to_string(i * 31 % 50000)),
          Value::Decimal(static_cast<sluice::int128>(i * 37 % 1000000), 2),
          Value::Int(static_cast<int64_t>(1700000000000000 + i * 1000003)),
          Value::Double(static_cast<double>(i % 10007) / 7.0)};
}

const std::vector<sluice::format::ParquetColumn>& Columns() {
  static const std::vector<sluice::format::ParquetColumn> kColumns = {
      {"id", SqlType::BigInt(false)},   {"grp", SqlType::Integer()},
      {"customer", SqlType::Varchar()}, {"amount", SqlType::Decimal(12, 2)},
      {"placed", SqlType::Timestamp()}, {"score", SqlType::Double()}};
  return kColumns;
}

// The rows' plain column bytes (one buffer per column), as Parquet's PLAIN
// encoding lays them out.
std::vector<std::string> PlainColumns(uint64_t rows) {
  std::vector<std::string> cols(6);
  for (uint64_t i = 0; i < rows; ++i) {
    const std::vector<Value> r = MakeRow(i);
    const int64_t id = r[0].int_value();
    const int32_t grp = static_cast<int32_t>(r[1].int_value());
    const uint32_t len = static_cast<uint32_t>(r[2].string_value().size());
    const int64_t amount = static_cast<int64_t>(r[3].decimal_unscaled());
    const int64_t placed = r[4].int_value();
    const double score = r[5].double_value();
    cols[0].append(reinterpret_cast<const char*>(&id), 8);
    cols[1].append(reinterpret_cast<const char*>(&grp), 4);
    cols[2].append(reinterpret_cast<const char*>(&len), 4);
    cols[2].append(r[2].string_value());
    cols[3].append(reinterpret_cast<const char*>(&amount), 8);
    cols[4].append(reinterpret_cast<const char*>(&placed), 8);
    cols[5].append(reinterpret_cast<const char*>(&score), 8);
  }
  return cols;
}

double WriteFile(const std::string& path, uint64_t from, uint64_t rows, uint64_t* file_bytes) {
  const auto t0 = Clock::now();
  auto w = sluice::format::ParquetWriter::Create(path, Columns(), {});
  if (!w.ok()) std::abort();
  for (uint64_t i = from; i < from + rows; ++i) {
    if (!(*w)->Add(MakeRow(i)).ok()) std::abort();
  }
  auto info = (*w)->Finish();
  if (!info.ok()) std::abort();
  *file_bytes = info->bytes;
  return Seconds(t0, Clock::now());
}

// Time to build the rows alone (subtracted: they are the bench's input).
double MakeRowsTime(uint64_t from, uint64_t rows) {
  const auto t0 = Clock::now();
  uint64_t sink = 0;
  for (uint64_t i = from; i < from + rows; ++i) sink += MakeRow(i).size();
  const double s = Seconds(t0, Clock::now());
  if (sink == 1) std::puts("");
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  sluice::TuneAllocatorAtStart(argv);  // as `sluice run` does
  uint64_t rows = 2000000, snapshot_rows = 10000000;
  int threads = 2;
  std::string dir;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--rows")) rows = std::strtoull(argv[i + 1], nullptr, 10);
    if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--snapshot-rows")) {
      snapshot_rows = std::strtoull(argv[i + 1], nullptr, 10);
    }
    if (!std::strcmp(argv[i], "--dir")) dir = argv[i + 1];
  }
  bool own_dir = false;
  if (dir.empty()) {
    char tmpl[] = "/tmp/sluice-delta-bench-XXXXXX";
    dir = ::mkdtemp(tmpl);
    own_dir = true;
  }

  // ---- 1. Parquet encoding against zstd alone
  const std::vector<std::string> plain = PlainColumns(rows);
  uint64_t plain_bytes = 0;
  for (const std::string& c : plain) plain_bytes += c.size();
  const double mb = static_cast<double>(plain_bytes) / 1e6;
  uint64_t file_bytes = 0;
  const double make = MakeRowsTime(0, rows);
  const double one = WriteFile(dir + "/one.parquet", 0, rows, &file_bytes) - make;
  // zstd alone, in 1 MiB pieces.
  std::vector<char> out(ZSTD_compressBound(1 << 20));
  uint64_t zstd_bytes = 0;
  const auto z0 = Clock::now();
  for (const std::string& c : plain) {
    for (size_t at = 0; at < c.size(); at += 1 << 20) {
      const size_t n = std::min<size_t>(1 << 20, c.size() - at);
      zstd_bytes += ZSTD_compress(out.data(), out.size(), c.data() + at, n, 3);
    }
  }
  const double zs = Seconds(z0, Clock::now());
  // T writers at once.
  std::vector<std::thread> pool;
  std::vector<double> times(static_cast<size_t>(threads));
  std::vector<uint64_t> sizes(static_cast<size_t>(threads));
  const uint64_t per = rows / static_cast<uint64_t>(threads);
  const auto p0 = Clock::now();
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      times[static_cast<size_t>(t)] =
          WriteFile(dir + "/part-" + std::to_string(t) + ".parquet", per * static_cast<uint64_t>(t),
                    per, &sizes[static_cast<size_t>(t)]);
    });
  }
  for (std::thread& t : pool) t.join();
  const double parallel = Seconds(p0, Clock::now()) - make / threads;
  std::printf("parquet: %llu rows, %.1f MB of plain column bytes -> %.1f MB file (zstd)\n",
              static_cast<unsigned long long>(rows), mb, static_cast<double>(file_bytes) / 1e6);
  std::printf("  1 writer:     %6.2f s  %7.1f MB/s\n", one, mb / one);
  std::printf("  %d writers:    %6.2f s  %7.1f MB/s in all, %.1f MB/s per thread\n", threads,
              parallel, mb / parallel, mb / parallel / threads);
  std::printf("  zstd alone:   %6.2f s  %7.1f MB/s (-> %.1f MB)\n", zs, mb / zs,
              static_cast<double>(zstd_bytes) / 1e6);
  std::printf("  ratio parquet (1 writer) / zstd alone: %.2f\n", (mb / one) / (mb / zs));

  // ---- 2. a snapshot through the Delta sink
  const std::string program = R"(
CREATE TABLE t (id BIGINT NOT NULL, grp INTEGER, customer VARCHAR, amount DECIMAL(12,2),
                placed TIMESTAMP, score DOUBLE) WITH (materialized = true);
CREATE MATERIALIZED VIEW v WITH (connectors = '[{"name": "lake", "send_snapshot": true,
  "transport": {"name": "delta_table_output", "config": {"uri": ")" +
                              dir + R"(/lake", "threads": )" + std::to_string(threads) +
                              R"(}}}]') AS SELECT * FROM t;
)";
  sluice::pipeline::PipelineConfig config;
  config.workers = 2;
  auto c = sluice::pipeline::Controller::Start(program, config);
  if (!c.ok()) {
    std::fprintf(stderr, "%s\n", c.status().ToString().c_str());
    return 1;
  }
  sluice::Schema schema;
  for (const auto& col : Columns()) schema.push_back(col.type);
  schema[0] = SqlType::BigInt(false);
  const auto l0 = Clock::now();
  uint64_t token = 0;
  std::string row;
  for (uint64_t i = 0; i < snapshot_rows;) {
    sluice::format::ChangeBuffer changes;
    for (uint64_t k = 0; k < 100000 && i < snapshot_rows; ++k, ++i) {
      row.clear();
      if (!sluice::EncodeRow(schema, MakeRow(i), &row).ok()) std::abort();
      changes.Add(sluice::format::ChangeKind::kInsert, "", row);
    }
    token = *(*c)->Ingest("t", std::move(changes), true, 0);
  }
  (*c)->WaitComplete(token, std::chrono::hours(1));
  const double load_s = Seconds(l0, Clock::now());
  // Wait for the load's own commits, then reset: the snapshot commit.
  auto versions = [&] {
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir + "/lake/_delta_log", ec)) {
      n += e.path().extension() == ".json";
    }
    return n;
  };
  for (size_t last = 0;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const size_t n = versions();
    if (n == last) break;
    last = n;
  }
  const size_t before = versions();
  const auto s0 = Clock::now();
  if (!(*c)->ResetOutput("lake").ok()) return 1;
  // The reset's commits: one removes the files, the next holds the snapshot.
  size_t files = 0;
  uint64_t committed_rows = 0, bytes = 0;
  double snap_s = 0;
  for (size_t v = before; committed_rows < snapshot_rows;) {
    char name[64];
    std::snprintf(name, sizeof name, "/lake/_delta_log/%020zu.json", v);
    if (!std::filesystem::exists(dir + name)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    snap_s = Seconds(s0, Clock::now());
    files = 0;
    committed_rows = bytes = 0;
    std::ifstream commit(dir + name);
    for (std::string line; std::getline(commit, line);) {
      auto a = nlohmann::json::parse(line);
      if (!a.contains("add")) continue;
      ++files;
      bytes += a["add"]["size"].get<uint64_t>();
      committed_rows +=
          nlohmann::json::parse(a["add"]["stats"].get<std::string>())["numRecords"].get<uint64_t>();
    }
    ++v;
  }
  (*c)->Stop();
  std::printf(
      "delta sink: loading %llu rows, each step committed as it came: %.1f s, %.0f rows/s\n",
      static_cast<unsigned long long>(snapshot_rows), load_s,
      static_cast<double>(snapshot_rows) / load_s);
  std::printf(
      "delta sink: %llu-row snapshot: %.2f s, %.0f rows/s, %zu files in its commit, %.1f MB, "
      "%llu rows committed\n",
      static_cast<unsigned long long>(snapshot_rows), snap_s,
      static_cast<double>(snapshot_rows) / snap_s, files, static_cast<double>(bytes) / 1e6,
      static_cast<unsigned long long>(committed_rows));
  if (own_dir) std::filesystem::remove_all(dir);
  return committed_rows == snapshot_rows ? 0 : 1;
}
