// Test support for the Parquet reader's fuzz tests (format_test and
// tests/parquet_test): damaged copies of valid files, each read whole. The
// reader must give an error or rows for every one, never a crash.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "format/parquet_reader.h"

namespace sluice::format {

// Whether every row group of `bytes` reads without an error (its
// statistics and the file's are read too).
inline bool ReadsWhole(const std::string& bytes) {
  auto r = ParquetReader::FromBytes("damaged.parquet", bytes);
  if (!r.ok()) return false;
  std::vector<size_t> all((*r)->columns().size());
  for (size_t c = 0; c < all.size(); ++c) all[c] = c;
  bool ok = true;
  for (size_t g = 0; g < (*r)->row_groups(); ++g) {
    std::vector<std::vector<Value>> rows;
    ok = (*r)->ReadRowGroup(g, all, &rows).ok() && ok;
    for (size_t c = 0; c < all.size(); ++c) (void)(*r)->Stats(g, c);
  }
  for (size_t c = 0; c < all.size(); ++c) (void)(*r)->FileStats(c);
  return ok;
}

struct DamageCount {
  uint64_t variants = 0;
  uint64_t read_whole = 0;
};

// Reads `file` cut short at every `stride` bytes, then `flips` copies of
// it with 1 to 4 bytes replaced (from `rng`), counting into `*count`.
inline void Damage(const std::string& file, size_t stride, int flips, std::mt19937_64& rng,
                   DamageCount* count) {
  for (size_t n = 0; n < file.size(); n += stride) {
    count->read_whole += ReadsWhole(file.substr(0, n));
    ++count->variants;
  }
  for (int k = 0; k < flips; ++k) {
    std::string b = file;
    for (int j = static_cast<int>(rng() % 4); j >= 0; --j) {
      b[rng() % b.size()] = static_cast<char>(rng());
    }
    count->read_whole += ReadsWhole(b);
    ++count->variants;
  }
}

}  // namespace sluice::format
