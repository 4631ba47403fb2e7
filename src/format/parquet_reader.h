// Parquet files: a reader of our own, beside the writer (parquet.h), for
// Delta Lake tables as inputs and for files that other systems wrote.
//
// Usage: Open() a file (its footer is read and checked; columns() is its
// schema as SQL columns), then ReadRowGroup() each row group, all columns
// or some; or Project() the file onto a table's columns by name and read
// with that, values cast where the cast loses nothing.
//
// What it reads (parquet_column.h documents the page layout):
//   physical types  BOOLEAN, INT32, INT64, INT96, FLOAT, DOUBLE, BYTE_ARRAY,
//                   FIXED_LEN_BYTE_ARRAY
//   pages           DATA_PAGE (v1), DATA_PAGE_V2, DICTIONARY_PAGE (index
//                   pages are skipped)
//   encodings       PLAIN, PLAIN_DICTIONARY, RLE_DICTIONARY, RLE (levels and
//                   booleans), BIT_PACKED (levels), DELTA_BINARY_PACKED,
//                   DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY,
//                   BYTE_STREAM_SPLIT
//   compression     UNCOMPRESSED, SNAPPY, GZIP, ZSTD (not LZ4, LZO, BROTLI:
//                   reading such a column is an Unimplemented error)
//   nesting         structs (ROW), lists (ARRAY; the standard three-level
//                   form, the legacy two-level forms and bare repeated
//                   fields), maps (MAP)
//
// Types, from the logical type (or the older converted type) and the
// physical type:
//   BOOLEAN                              BOOLEAN
//   INT(8|16|32|64, signed), plain INT*  TINYINT, SMALLINT, INTEGER, BIGINT
//   INT(8|16|32, unsigned)               SMALLINT, INTEGER, BIGINT
//   INT(64, unsigned)                    DECIMAL(20,0)
//   DECIMAL(p,s), p <= 38                DECIMAL(p,s) (INT32, INT64,
//                                        FIXED_LEN_BYTE_ARRAY, BYTE_ARRAY)
//   FLOAT, FLOAT16; DOUBLE               REAL; DOUBLE
//   STRING, ENUM; UUID                   VARCHAR; VARCHAR (its text form)
//   JSON                                 VARIANT
//   other BYTE_ARRAY; FIXED(n)           VARBINARY; BINARY(n)
//   DATE                                 DATE
//   TIME(MILLIS|MICROS|NANOS)            TIME (microseconds; nanoseconds
//                                        rounded down)
//   TIMESTAMP(any unit, UTC-adjusted or not), INT96
//                                        TIMESTAMP (microseconds; an
//                                        adjusted one is in UTC)
//   INTERVAL (FIXED 12)                  INTERVAL
// A REQUIRED field is NOT NULL. A column of a type not listed (DECIMAL with
// more than 38 digits, say) is still in columns(), as VARBINARY; reading it
// is an Unimplemented error that says why, and other columns read fine.
//
// Statistics: each row group's min, max and null count per top-level
// column of scalar type (Stats()), and over the file (FileStats()), so that
// a filter can skip row groups and files. Min and max come from the
// statistics' min_value/max_value, or from the older min/max where their
// order is the type's (signed numbers); string bounds may be truncated
// values, which still bound the column.
//
// Damaged files: every size, offset and count is checked against the bytes
// that hold it, so a truncated file, damaged Thrift, a bad length or RLE
// run, or a page that fails to decompress gives a Corruption error naming
// the file, the row group, the column and the page; never a crash, and
// never an allocation larger than the page limits of parquet_column.h.
//
// Thread safety: after Open(), every method is const and may be called
// from many threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "format/parquet.h"
#include "types/sql_type.h"
#include "types/value.h"

namespace sluice::format {

// How a file's columns fill a table's columns: for each target column, the
// file column that fills it (-1: the file has none, so NULL), and the types
// on both sides. Project() makes one; ReadRowGroup() reads with it.
struct ParquetProjection {
  std::vector<int> source;
  std::vector<SqlType> from, to;
};

class ParquetReader {
 public:
  // Reads and checks the footer of the file at `path`.
  static Result<std::unique_ptr<ParquetReader>> Open(const std::string& path);
  // The same for a file held in memory; `name` names it in errors.
  static Result<std::unique_ptr<ParquetReader>> FromBytes(std::string name, std::string bytes);
  ~ParquetReader();
  ParquetReader(const ParquetReader&) = delete;
  ParquetReader& operator=(const ParquetReader&) = delete;

  const std::string& path() const;
  // The file's top-level columns as SQL columns (the mapping above).
  const std::vector<ParquetColumn>& columns() const;
  uint64_t rows() const;
  size_t row_groups() const;
  uint64_t row_group_rows(size_t group) const;
  // The footer's created_by ("parquet-mr version ...", "DuckDB ...").
  const std::string& created_by() const;

  // Statistics of top-level column `column` in row group `group`; for a
  // column of composite type, none (has_null_count and has_min_max false).
  ParquetColumnStats Stats(size_t group, size_t column) const;
  // The same over all row groups: a min and max only if every row group
  // has them (or holds only NULLs).
  ParquetColumnStats FileStats(size_t column) const;

  // Reads one column of row group `group`: one value per row.
  Status ReadColumn(size_t group, size_t column, std::vector<Value>* values) const;
  // Reads `columns` (indexes into columns()) of row group `group`,
  // appending one row per record to *rows.
  Status ReadRowGroup(size_t group, const std::vector<size_t>& columns,
                      std::vector<std::vector<Value>>* rows) const;

  // Matches `target` to this file's columns by name (exactly, else
  // ignoring case). A target column the file lacks reads as NULL, unless it
  // is NOT NULL (an error). A file column's type must cast to the target's
  // without loss: integers to wider integers, DECIMAL or DOUBLE that hold
  // them; DECIMAL to a DECIMAL with as many digits before and after the
  // point; REAL to DOUBLE; DATE to TIMESTAMP; VARCHAR to a VARCHAR(n) or
  // CHAR(n) (and BINARY to VARBINARY(n)) where each value fits, and to
  // INTERVAL where each value is an interval's text (as our writer keeps
  // INTERVAL); ARRAY, MAP and ROW by their elements and fields. Else an
  // InvalidArgument error names the column and both types.
  Result<ParquetProjection> Project(const std::vector<ParquetColumn>& target) const;
  // Reads row group `group` into the projection's columns.
  Status ReadRowGroup(size_t group, const ParquetProjection& projection,
                      std::vector<std::vector<Value>>* rows) const;

 private:
  ParquetReader();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::format
