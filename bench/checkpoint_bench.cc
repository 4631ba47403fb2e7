// Checkpoint and restore of a pipeline's state, against a plain sequential
// write and read of as many bytes on the same storage, in one run.
//
//   checkpoint_bench [--rows N] [--workers W] [--storage DIR] [--memory-budget-mb M]
//
// The pipeline holds N rows in a materialized table and a GROUP BY view
// over it (whose aggregate keeps its input indexed by group: N more rows of
// state). The checkpoint is timed from POST /checkpoint's request to its
// completion; the restore is the start of a second pipeline on the same
// storage, up to the point where it could take its first step (it checks
// every block's checksum, then loads). The plain write is one file of the
// checkpoint's size in 1 MiB writes and an fsync; the plain read reads it
// back. As root, the page cache is dropped before both reads.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/allocator.h"
#include "format/format.h"
#include "pipeline/controller.h"
#include "types/row_codec.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

uint64_t TreeBytes(const std::string& dir) {
  uint64_t n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) n += it->file_size(ec);
  }
  return n;
}

bool DropCaches() {
  ::sync();
  std::ofstream f("/proc/sys/vm/drop_caches");
  if (!f) return false;
  f << "3\n";
  return static_cast<bool>(f.flush());
}

double PlainWrite(const std::string& path, uint64_t bytes) {
  std::vector<char> buf(1 << 20);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<char>(i * 131 + 7);
  const auto t0 = Clock::now();
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) std::abort();
  for (uint64_t done = 0; done < bytes;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(buf.size(), bytes - done));
    if (::write(fd, buf.data(), n) != static_cast<ssize_t>(n)) std::abort();
    done += n;
  }
  ::fsync(fd);
  ::close(fd);
  return Seconds(t0, Clock::now());
}

double PlainRead(const std::string& path) {
  std::vector<char> buf(1 << 20);
  const auto t0 = Clock::now();
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) std::abort();
  uint64_t sum = 0;
  for (ssize_t n; (n = ::read(fd, buf.data(), buf.size())) > 0;)
    sum += static_cast<uint8_t>(buf[0]);
  ::close(fd);
  const double s = Seconds(t0, Clock::now());
  if (sum == 1) std::puts("");  // keeps the reads
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  sluice::TuneAllocatorAtStart(argv);  // as `sluice run` does
  uint64_t rows = 10000000;
  int workers = 2;
  uint64_t budget_mb = 0;
  std::string storage;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--rows")) rows = std::strtoull(argv[i + 1], nullptr, 10);
    if (!std::strcmp(argv[i], "--workers")) workers = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--storage")) storage = argv[i + 1];
    if (!std::strcmp(argv[i], "--memory-budget-mb")) {
      budget_mb = std::strtoull(argv[i + 1], nullptr, 10);
    }
  }
  bool own_storage = false;
  if (storage.empty()) {
    char tmpl[] = "/tmp/sluice-checkpoint-bench-XXXXXX";
    storage = ::mkdtemp(tmpl);
    own_storage = true;
  }
  const std::string program = R"(
CREATE TABLE t (id BIGINT NOT NULL, g BIGINT NOT NULL, v BIGINT NOT NULL)
  WITH (materialized = true);
CREATE VIEW sums AS SELECT g, SUM(v) AS s, COUNT(*) AS n FROM t GROUP BY g;
)";
  sluice::pipeline::PipelineConfig config;
  config.workers = workers;
  config.storage = storage;
  config.memory_budget_mb = budget_mb;
  config.bootstrap_policy = "allow";
  auto c = sluice::pipeline::Controller::Start(program, config);
  if (!c.ok()) {
    std::fprintf(stderr, "%s\n", c.status().ToString().c_str());
    return 1;
  }
  // Load: rows in requests of 100,000.
  const auto load0 = Clock::now();
  uint64_t token = 0;
  std::string row;
  for (uint64_t i = 0; i < rows;) {
    sluice::format::ChangeBuffer changes;
    const uint64_t n = std::min<uint64_t>(100000, rows - i);
    changes.Reserve(n, n * 27);
    for (uint64_t k = 0; k < n; ++k, ++i) {
      row.clear();
      sluice::AppendInt64(static_cast<int64_t>(i), false, &row);
      sluice::AppendInt64(static_cast<int64_t>(i * 7919 % 100003), false, &row);
      sluice::AppendInt64(static_cast<int64_t>(i % 1000), false, &row);
      changes.Add(sluice::format::ChangeKind::kInsert, "", row);
    }
    auto t = (*c)->Ingest("t", std::move(changes), true, 0);
    if (!t.ok()) {
      std::fprintf(stderr, "%s\n", t.status().ToString().c_str());
      return 1;
    }
    token = *t;
  }
  (*c)->WaitComplete(token, std::chrono::hours(1));
  const double load_s = Seconds(load0, Clock::now());

  const auto cp0 = Clock::now();
  auto seq = (*c)->RequestCheckpoint();
  sluice::Status s = seq.ok() ? (*c)->WaitCheckpoint(*seq, std::chrono::hours(1)) : seq.status();
  const double cp_s = Seconds(cp0, Clock::now());
  if (!s.ok()) {
    std::fprintf(stderr, "checkpoint: %s\n", s.ToString().c_str());
    return 1;
  }
  const uint64_t bytes = TreeBytes(storage + "/checkpoints");
  (*c)->Stop();
  c->reset();

  const bool dropped = DropCaches();
  const auto rs0 = Clock::now();
  auto restored = sluice::pipeline::Controller::Start(program, config);
  const double restore_s = Seconds(rs0, Clock::now());
  if (!restored.ok()) {
    std::fprintf(stderr, "restore: %s\n", restored.status().ToString().c_str());
    return 1;
  }
  uint64_t step = 0;
  auto snap = (*restored)->Snapshots({"t"}, &step);
  uint64_t count = 0;
  if (snap.ok()) {
    for (const auto& b : (*snap)["t"]) count += b->key_count();
  }
  (*restored)->Stop();
  restored->reset();

  const std::string plain = storage + "/plain.bin";
  const double w_s = PlainWrite(plain, bytes);
  DropCaches();
  const double r_s = PlainRead(plain);
  std::filesystem::remove(plain);

  const double mb = static_cast<double>(bytes) / 1e6;
  std::printf(
      "rows %llu, workers %d, memory budget %llu MB, load %.1f s, restored table rows %llu\n",
      static_cast<unsigned long long>(rows), workers, static_cast<unsigned long long>(budget_mb),
      load_s, static_cast<unsigned long long>(count));
  std::printf("checkpoint bytes %.1f MB (page cache %s before reads)\n", mb,
              dropped ? "dropped" : "not dropped (not root)");
  std::printf(
      "checkpoint  %7.2f s  %8.1f MB/s | plain write+fsync %7.2f s %8.1f MB/s | ratio %.2f\n", cp_s,
      mb / cp_s, w_s, mb / w_s, w_s / cp_s);
  std::printf(
      "restore     %7.2f s  %8.1f MB/s | plain read        %7.2f s %8.1f MB/s | ratio %.2f\n",
      restore_s, mb / restore_s, r_s, mb / r_s, r_s / restore_s);
  if (own_storage) std::filesystem::remove_all(storage);
  return count == rows ? 0 : 1;
}
