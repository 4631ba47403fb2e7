// The Parquet reader's lower half: one column chunk's pages decoded into
// repetition levels, definition levels and SQL values. parquet_reader.cc
// reads the footer, finds the chunks and assembles rows from these.
//
// A column chunk is a sequence of pages, each a Thrift PageHeader and a
// body of compressed_page_size bytes:
//   DICTIONARY_PAGE  the distinct values, PLAIN (at most one, first)
//   DATA_PAGE (v1)   the body, compressed as a whole, holds
//                      repetition levels  (if max_rep > 0)
//                      definition levels  (if max_def > 0)
//                    each RLE (4-byte little-endian length, then the
//                    RLE/bit-packed hybrid) or the deprecated BIT_PACKED;
//                    then the values
//   DATA_PAGE_V2     repetition and definition levels first, never
//                    compressed and without a length in front (the header
//                    holds their lengths); then the values, compressed
//                    unless is_compressed is false
//   INDEX_PAGE       skipped
// Values: PLAIN, PLAIN_DICTIONARY / RLE_DICTIONARY (a bit width byte, then
// hybrid-encoded indexes into the dictionary), RLE (booleans),
// DELTA_BINARY_PACKED (INT32, INT64), DELTA_LENGTH_BYTE_ARRAY,
// DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT.
//
// Every length and count is checked against the bytes that hold it before
// anything is allocated for it; a damaged chunk is a Corruption error that
// names the page and its offset.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "format/parquet_thrift.h"
#include "types/sql_type.h"
#include "types/value.h"

namespace sluice::format::parquet {

// How a leaf's physical values become Values of its SQL type.
enum class Conversion : uint8_t {
  kBool,            // BOOLEAN
  kInt,             // INT32/INT64 as they are (and DATE: days)
  kUInt32,          // INT32 read as unsigned
  kUInt64,          // INT64 read as unsigned, to DECIMAL(20,0)
  kDecimal,         // INT32, INT64, or big-endian FIXED/BYTE_ARRAY, unscaled
  kMillisToMicros,  // TIME(MILLIS), TIMESTAMP(MILLIS)
  kNanosToMicros,   // TIME(NANOS), TIMESTAMP(NANOS): rounded down
  kInt96,           // INT96 timestamp: nanos of the day, then Julian day
  kFloat,           // FLOAT, DOUBLE
  kFloat16,         // FIXED_LEN_BYTE_ARRAY(2) FLOAT16
  kBytes,           // BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY: the bytes
  kUuid,            // FIXED_LEN_BYTE_ARRAY(16) UUID: its text
  kInterval,        // FIXED_LEN_BYTE_ARRAY(12) INTERVAL: months, days, millis
  kJson,            // BYTE_ARRAY JSON: parsed to VARIANT
};

// A leaf column of a file's schema and what its values become.
struct ParquetLeaf {
  Phys phys = kByteArray;
  int32_t type_length = 0;  // FIXED_LEN_BYTE_ARRAY's bytes
  int max_def = 0, max_rep = 0;
  SqlType type;  // of its values
  Conversion conversion = Conversion::kBytes;
  // Why this leaf's values cannot be read (an unsupported type), or empty.
  std::string unsupported;
};

// What the footer says of one column chunk.
struct ParquetChunkMeta {
  int32_t codec = kUncompressed;
  int64_t num_values = 0;
  int64_t data_page_offset = -1;
  int64_t dictionary_page_offset = -1;
  int64_t total_compressed_size = 0;
  // Statistics as written (PLAIN bytes), for ParquetReader's stats.
  bool has_null_count = false;
  int64_t null_count = 0;
  bool has_min = false, has_max = false;
  std::string min, max;
  // From the older min/max fields, whose order is signed bytes.
  bool min_max_deprecated = false;
};

// One column chunk, decoded. The level vectors are empty when the leaf's
// maximum level is 0 (every entry is then at level 0 / present).
struct ParquetColumnData {
  size_t count = 0;  // level entries
  std::vector<uint8_t> defs, reps;
  std::vector<Value> values;  // one per entry at max_def
};

// Decodes the pages of the chunk held in `bytes`, which starts at file
// offset `offset`. Errors say which page, at which file offset.
Status DecodeColumnChunk(const ParquetLeaf& leaf, const ParquetChunkMeta& meta,
                         std::string_view bytes, uint64_t offset, ParquetColumnData* out);

// Converts one PLAIN-encoded value of `leaf` (statistics' min and max).
Status DecodePlainValue(const ParquetLeaf& leaf, std::string_view plain, Value* out);

// Limits on what a page may declare, so that a damaged header cannot make
// the reader allocate without bound.
constexpr uint64_t kMaxPageBytes = 1ull << 30;
constexpr uint64_t kMaxPageValues = 1ull << 27;

}  // namespace sluice::format::parquet
