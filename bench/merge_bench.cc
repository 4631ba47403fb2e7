// The Delta sink's update_mode merge against cdc, in one run:
//
//   merge_bench [--rows N] [--changes K] [--dir DIR]
//
// For each mode, a pipeline in this process whose materialized table of N
// rows (BIGINT key, INTEGER, VARCHAR, DECIMAL, TIMESTAMP, DOUBLE) feeds a
// view written to a Delta table: the load (each step committed as it
// comes), then K steps that each update one row. Per mode: the time from a
// one-row update's ingest until its commit is in the log (median), and the
// bytes each such commit adds to the table's directory (median). Then, for
// merge, the key index rebuilt from the table as a restart does: its time
// and the memory it takes per row.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "base/allocator.h"
#include "bench/proc_stats.h"
#include "connector/delta_merge.h"
#include "pipeline/controller.h"
#include "types/row_codec.h"

namespace {

using Clock = std::chrono::steady_clock;
using sluice::bench::Seconds;
using sluice::SqlType;
using sluice::Value;

uint64_t DirBytes(const std::string& dir) {
  uint64_t total = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) total += it->file_size(ec);
  }
  return total;
}

size_t Versions(const std::string& table) {
  size_t n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(table + "/_delta_log", ec)) {
    n += e.path().extension() == ".json";
  }
  return n;
}

const sluice::Schema& RowSchema() {
  static const sluice::Schema kSchema = {SqlType::BigInt(false), SqlType::Integer(),
                                         SqlType::Varchar(),      SqlType::Decimal(12, 2),
                                         SqlType::Timestamp(),    SqlType::Double()};
  return kSchema;
}

// The table's key (its primary key's columns, encoded).
std::string Key(uint64_t i) {
  std::string out;
  if (!sluice::EncodeRow({SqlType::BigInt(false)}, {Value::Int(static_cast<int64_t>(i))}, &out)
           .ok()) {
    std::abort();
  }
  return out;
}

std::string Row(uint64_t i, uint64_t version) {
  std::string out;
  const std::vector<Value> v = {
      Value::Int(static_cast<int64_t>(i)), Value::Int(static_cast<int64_t>(version)),
      Value::String("customer-" + std::to_string(i % 50000)),
      Value::Decimal(static_cast<sluice::int128>(i * 37 % 1000000), 2),
      Value::Int(static_cast<int64_t>(1700000000000000 + i * 1000003)),
      Value::Double(static_cast<double>(i % 10007) / 7.0)};
  if (!sluice::EncodeRow(RowSchema(), v, &out).ok()) std::abort();
  return out;
}

struct ModeResult {
  double load_s = 0;
  double median_commit_ms = 0;
  uint64_t median_bytes = 0;
  uint64_t table_bytes = 0;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

ModeResult Run(const std::string& mode, const std::string& dir, uint64_t rows, int changes) {
  const std::string table = dir + "/" + mode;
  const std::string config =
      mode == "merge" ? R"("update_mode": "merge", "index": "v_id")" : R"("update_mode": "cdc")";
  const std::string program = R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, version INTEGER, customer VARCHAR,
                amount DECIMAL(12,2), placed TIMESTAMP, score DOUBLE) WITH (materialized = true);
CREATE MATERIALIZED VIEW v WITH (connectors = '[{"name": "lake",
  "transport": {"name": "delta_table_output", "config": {"uri": ")" +
                              table + R"(", )" + config + R"(}}}]') AS SELECT * FROM t;
CREATE INDEX v_id ON v (id);
)";
  sluice::pipeline::PipelineConfig pc;
  pc.workers = 2;
  auto c = sluice::pipeline::Controller::Start(program, pc);
  if (!c.ok()) {
    std::fprintf(stderr, "merge_bench: %s\n", c.status().ToString().c_str());
    std::exit(1);
  }
  ModeResult r;
  const auto l0 = Clock::now();
  uint64_t token = 0;
  for (uint64_t i = 0; i < rows;) {
    sluice::format::ChangeBuffer b;
    for (uint64_t k = 0; k < 100000 && i < rows; ++k, ++i) {
      b.Add(sluice::format::ChangeKind::kInsert, Key(i), Row(i, 0));
    }
    token = *(*c)->Ingest("t", std::move(b), true, 0);
  }
  (*c)->WaitComplete(token, std::chrono::hours(1));
  for (size_t last = 0;;) {  // the load's commits
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const size_t n = Versions(table);
    if (n == last) break;
    last = n;
  }
  r.load_s = Seconds(l0, Clock::now());
  std::vector<double> ms, bytes;
  for (int k = 0; k < changes; ++k) {
    const size_t before = Versions(table);
    const uint64_t size_before = DirBytes(table);
    const uint64_t id = (static_cast<uint64_t>(k) * 7919) % rows;
    sluice::format::ChangeBuffer b;
    b.Add(sluice::format::ChangeKind::kInsert, Key(id), Row(id, static_cast<uint64_t>(k) + 1));
    const auto t0 = Clock::now();
    token = *(*c)->Ingest("t", std::move(b), true, 0);
    while (Versions(table) == before) std::this_thread::sleep_for(std::chrono::microseconds(200));
    ms.push_back(Seconds(t0, Clock::now()) * 1000);
    (*c)->WaitComplete(token, std::chrono::minutes(1));
    bytes.push_back(static_cast<double>(DirBytes(table) - size_before));
  }
  (*c)->Stop();
  r.median_commit_ms = Median(ms);
  r.median_bytes = static_cast<uint64_t>(Median(bytes));
  r.table_bytes = DirBytes(table);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  sluice::TuneAllocatorAtStart(argv);  // as `sluice run` does
  uint64_t rows = 1000000;
  int changes = 30;
  std::string dir;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--rows") rows = std::strtoull(argv[i + 1], nullptr, 10);
    if (a == "--changes") changes = std::atoi(argv[i + 1]);
    if (a == "--dir") dir = argv[i + 1];
  }
  const bool own_dir = dir.empty();
  if (own_dir) {
    char tmpl[] = "/tmp/sluice-merge-bench-XXXXXX";
    dir = mkdtemp(tmpl);
  }
  const ModeResult cdc = Run("cdc", dir, rows, changes);
  const ModeResult merge = Run("merge", dir, rows, changes);
  for (const auto& [name, r] : {std::pair{"cdc", cdc}, std::pair{"merge", merge}}) {
    std::printf(
        "%-5s  load %llu rows %.1f s; a one-row update: %.2f ms to its commit, %llu bytes "
        "written (median of %d); table %.1f MB\n",
        name, static_cast<unsigned long long>(rows), r.load_s, r.median_commit_ms,
        static_cast<unsigned long long>(r.median_bytes), changes,
        static_cast<double>(r.table_bytes) / 1e6);
  }
  std::printf("ratio merge / cdc: commit time %.2f, bytes per update %.2f\n",
              merge.median_commit_ms / cdc.median_commit_ms,
              static_cast<double>(merge.median_bytes) / static_cast<double>(cdc.median_bytes));
  // The key index as a restart rebuilds it.
  auto log = sluice::connector::DeltaLog::Open(dir + "/merge");
  if (!log.ok()) return 1;
  sluice::format::Relation rel;
  rel.name = "v";
  rel.columns = {"id", "version", "customer", "amount", "placed", "score"};
  rel.schema = RowSchema();
  std::vector<sluice::format::ParquetColumn> columns;
  for (size_t i = 0; i < rel.columns.size(); ++i) columns.push_back({rel.columns[i], rel.schema[i]});
  sluice::connector::DeltaMergeTable index(dir + "/merge", rel, {0}, columns,
                                           [](const std::string&) { return true; });
  const uint64_t rss0 = sluice::bench::ResidentBytes();
  const auto i0 = Clock::now();
  sluice::Status s = index.Load(*log);
  const double load_s = Seconds(i0, Clock::now());
  const uint64_t rss1 = sluice::bench::ResidentBytes();
  if (!s.ok()) {
    std::fprintf(stderr, "merge_bench: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf(
      "merge  key index rebuilt from %llu files: %llu keys in %.2f s (%.0f keys/s), %.0f bytes "
      "of resident memory per key\n",
      static_cast<unsigned long long>(index.files()), static_cast<unsigned long long>(index.rows()),
      load_s, static_cast<double>(index.rows()) / load_s,
      static_cast<double>(rss1 > rss0 ? rss1 - rss0 : 0) / static_cast<double>(index.rows()));
  if (own_dir) std::filesystem::remove_all(dir);
  return index.rows() == rows ? 0 : 1;
}
