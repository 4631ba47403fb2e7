// Parquet files: a writer of our own (no Parquet library is packaged for
// this platform). parquet.cc documents the layout it writes and how every
// SQL type maps to Parquet's physical and logical types.
//
// Usage: Create() a writer for a path and the columns, Add() rows (values in
// column order, as DecodeRow gives them), then Finish(). Rows are held
// (encoded) until a row group fills, which is then written; Finish writes
// the last one and the footer. A file that fails to write, or that is never
// finished, is removed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "types/sql_type.h"
#include "types/value.h"

namespace sluice::format {

enum class ParquetCompression { kNone, kSnappy, kZstd };
// "none", "snappy", "zstd".
// The type a column of `t` is written as: Parquet's and Delta's DECIMAL has
// one scale per column, so an unconstrained NUMERIC (each value with its
// own scale) is written as DECIMAL(38,10), its values rounded to 10 digits
// after the point. Other types are themselves.
constexpr int kNumericFileScale = 10;
inline SqlType FileType(const SqlType& t) {
  return t.dynamic_scale() ? SqlType::Decimal(38, kNumericFileScale, t.nullable()) : t;
}

// OK if Parquet can hold column `name` of type `t` (at any depth); else
// Unimplemented, saying what it cannot hold, so that a sink refuses the
// column when it starts rather than writing values a reader would misread.
// TIME WITH TIME ZONE is refused: Parquet's TIME keeps no zone, and one
// adjusted to UTC would lose it.
Status CheckParquetType(const std::string& name, const SqlType& t);

Result<ParquetCompression> ParseParquetCompression(const std::string& name);
const char* ParquetCompressionName(ParquetCompression c);

struct ParquetColumn {
  std::string name;
  SqlType type;
};

struct ParquetOptions {
  ParquetCompression compression = ParquetCompression::kZstd;
  int zstd_level = 3;
  // A row group is written once its encoded values reach this many bytes.
  uint64_t row_group_bytes = 64ull << 20;
  // Values per data page, at most about this many bytes (uncompressed).
  uint64_t page_bytes = 1ull << 20;
};

// The statistics of one top-level column of scalar type, over a file (or,
// as the reader gives them, over a row group).
struct ParquetColumnStats {
  bool has_null_count = true;  // false when a file read says nothing of NULLs
  uint64_t null_count = 0;
  bool has_min_max = false;  // false when every value is NULL (or NaN)
  Value min, max;
};

struct ParquetFileInfo {
  uint64_t rows = 0;
  uint64_t bytes = 0;
  uint64_t row_groups = 0;
  // Per column; columns of composite type have null_count only.
  std::vector<ParquetColumnStats> stats;
};

class ParquetWriter {
 public:
  static Result<std::unique_ptr<ParquetWriter>> Create(const std::string& path,
                                                       std::vector<ParquetColumn> columns,
                                                       ParquetOptions options);
  ~ParquetWriter();  // removes the file unless Finish() succeeded
  ParquetWriter(const ParquetWriter&) = delete;
  ParquetWriter& operator=(const ParquetWriter&) = delete;

  // Adds one row. An error (a value that does not fit its column) fails
  // the writer: the file cannot be finished.
  Status Add(const std::vector<Value>& row);
  uint64_t rows() const;
  // The bytes of the values so far, before compression (for sizing files).
  uint64_t bytes() const;
  // Writes the last row group and the footer, and syncs the file.
  Result<ParquetFileInfo> Finish();

 private:
  ParquetWriter();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::format
