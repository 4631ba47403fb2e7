// The Parquet reader's footer: the FileMetaData (Thrift compact protocol)
// read into the schema's elements and the row groups' column chunks, and
// how a leaf's physical and logical types map to SQL types (the table in
// parquet_reader.h). parquet_reader.cc builds the schema tree from these.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "format/parquet_column.h"

namespace sluice::format::parquet {

// One SchemaElement of the footer.
struct Element {
  int32_t type = -1;  // physical type; -1 for a group
  int32_t type_length = 0;
  int32_t repetition = -1;
  std::string name;
  int32_t num_children = 0;
  int32_t converted = -1;
  int32_t scale = 0, precision = 0;
  // The logical type: the union's field id (0: none), and its parameters.
  int logical = 0;
  int32_t l_scale = 0, l_precision = 0;
  bool l_adjusted = false;
  int l_unit = 0;  // 1 MILLIS, 2 MICROS, 3 NANOS
  int l_bits = 0;
  bool l_signed = true;

  std::vector<int> children;
  int max_def = 0, max_rep = 0;
};

// Logical type ids (the LogicalType union's field ids).
enum Logical {
  kLString = 1,
  kLMap = 2,
  kLList = 3,
  kLEnum = 4,
  kLDecimal = 5,
  kLDate = 6,
  kLTime = 7,
  kLTimestamp = 8,
  kLInteger = 10,
  kLUnknown = 11,
  kLJson = 12,
  kLBson = 13,
  kLUuid = 14,
  kLFloat16 = 15
};

// One row group of the footer.
struct RowGroup {
  int64_t rows = 0;
  std::vector<ParquetChunkMeta> chunks;
  std::vector<std::vector<std::string>> paths;
};

struct FileMeta {
  std::vector<Element> elements;  // the schema, depth first; [0] is the root
  int64_t rows = 0;
  std::vector<RowGroup> groups;
  std::string created_by;
};

// Reads a FileMetaData. Checks what the row groups need to be read
// (a schema, row counts that add up); BuildSchema checks the tree.
Status ParseFooter(std::string_view footer, FileMeta* meta);

// The SQL type of leaf element `e` and how its values convert; a type the
// reader does not take sets `l->unsupported`.
void MapLeaf(const Element& e, ParquetLeaf* l);

}  // namespace sluice::format::parquet
