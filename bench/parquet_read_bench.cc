// The Parquet reader's speed: every column of every row group of the given
// files, read into rows of Values on one thread (as a Delta input reads a
// file). Prints one JSON line: rows, seconds, rows per second.
// bench/run parquet compares it with DuckDB reading the same file.
//
//   parquet_read_bench [--rounds R] FILE...
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "format/parquet_reader.h"

using namespace sluice;          // NOLINT(build/namespaces)
using namespace sluice::format;  // NOLINT(build/namespaces)

int main(int argc, char** argv) {
  int rounds = 1;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else {
      files.push_back(argv[i]);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: parquet_read_bench [--rounds R] FILE...\n");
    return 2;
  }
  double best = 0;
  uint64_t rows = 0, values = 0;
  for (int r = 0; r < rounds; ++r) {
    const auto start = std::chrono::steady_clock::now();
    rows = values = 0;
    for (const std::string& f : files) {
      auto reader = ParquetReader::Open(f);
      if (!reader.ok()) {
        std::fprintf(stderr, "%s\n", reader.status().ToString().c_str());
        return 1;
      }
      std::vector<size_t> all((*reader)->columns().size());
      for (size_t c = 0; c < all.size(); ++c) all[c] = c;
      for (size_t g = 0; g < (*reader)->row_groups(); ++g) {
        std::vector<std::vector<Value>> batch;
        Status s = (*reader)->ReadRowGroup(g, all, &batch);
        if (!s.ok()) {
          std::fprintf(stderr, "%s\n", s.ToString().c_str());
          return 1;
        }
        rows += batch.size();
        values += batch.size() * all.size();
      }
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r == 0 || secs < best) best = secs;
  }
  std::printf("{\"rows\": %llu, \"values\": %llu, \"seconds\": %.3f, \"rows_per_s\": %.0f}\n",
              static_cast<unsigned long long>(rows), static_cast<unsigned long long>(values), best,
              static_cast<double>(rows) / best);
  return 0;
}
