// The Parquet writer.
//
// File layout (Apache Parquet format, version 2 metadata, data pages v1):
//
//   "PAR1"
//   row group 1: for each leaf column, its column chunk:
//       [dictionary page]  PageHeader + the distinct values, PLAIN
//       data page ...      PageHeader + body; the body is
//                            repetition levels  (if the column repeats)
//                            definition levels  (if it can be missing)
//                            values             PLAIN, or RLE_DICTIONARY
//                          levels are the RLE/bit-packed hybrid with a
//                          4-byte little-endian length in front; the body
//                          is compressed as a whole (zstd, snappy or none)
//   row group 2 ...
//   FileMetaData   (Thrift compact protocol): schema, row groups, each
//                  column chunk's offsets, sizes, encodings and statistics
//   4-byte little-endian length of the FileMetaData, "PAR1"
//
// Schema: the root group, then one field per column in depth-first order.
// A nullable column is OPTIONAL, a NOT NULL one REQUIRED. Types:
//
//   BOOLEAN                 BOOLEAN
//   TINYINT, SMALLINT       INT32 with INTEGER(8|16, signed)
//   INTEGER                 INT32
//   BIGINT                  INT64
//   DECIMAL(p,s)            INT32 (p <= 9), INT64 (p <= 18), else
//                           FIXED_LEN_BYTE_ARRAY of the fewest bytes that
//                           hold p digits, big-endian two's complement;
//                           all with DECIMAL(p,s)
//   REAL, DOUBLE            FLOAT, DOUBLE
//   CHAR, VARCHAR           BYTE_ARRAY with STRING
//   BINARY, VARBINARY       BYTE_ARRAY
//   DATE                    INT32 with DATE (days since 1970-01-01)
//   TIME                    INT64 with TIME(MICROS, not UTC-adjusted)
//   TIMESTAMP               INT64 with TIMESTAMP(MICROS, not UTC-adjusted)
//   TIMESTAMP WITH TIME ZONE  INT64 with TIMESTAMP(MICROS, UTC-adjusted)
//   TIME WITH TIME ZONE     refused (CheckParquetType): no Parquet type
//                           keeps a time's zone
//   INTERVAL                BYTE_ARRAY with STRING: PostgreSQL's text form
//                           ("1 year 2 mons 3 days 04:05:06"), since
//                           Parquet's own INTERVAL holds no microseconds and
//                           no negative parts
//   ARRAY(T)                group (LIST) { repeated group list { T element } }
//   MAP(K,V)                group (MAP) { repeated group key_value {
//                             required K key; V value } }
//   ROW(f1 T1, ...)         group { T1 f1; ... }
//   VARIANT                 BYTE_ARRAY with JSON: the value as JSON text
//
// Nested values are shredded into leaf columns with repetition and
// definition levels (the Dremel encoding). A column chunk uses a dictionary
// when its distinct values are at most half of its values and take at most
// 1 MiB; booleans never do. Each column chunk carries statistics (null
// count, and min and max for types with an order: numbers, strings, binary,
// dates and times), and the footer declares the type-defined column order so
// readers may use them.
#include "format/parquet.h"

#include <snappy-c.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <unordered_map>

#include "format/json.h"
#include "format/parquet_thrift.h"
#include "sql/datetime.h"
#include "storage/file.h"

namespace sluice::format {
namespace {

using uint128 = unsigned __int128;

// ---------------------------------------------------------------- schema

// The format's enums and the Thrift encoder are shared with the reader.
using namespace parquet;  // NOLINT(build/namespaces)
using Thrift = ThriftEncoder;

int DecimalBytes(int precision) {
  // The fewest bytes whose signed range holds 10^precision - 1.
  int bytes = 1;
  while (bytes < 16) {
    const int128 limit = static_cast<int128>(1) << (8 * bytes - 1);
    if (Pow10(precision) - 1 < limit) break;
    ++bytes;
  }
  return bytes;
}

struct Node {
  enum Kind { kLeaf, kRow, kList, kMap, kRepeatedGroup } kind = kLeaf;
  std::string name;
  Repetition repetition = kRequired;
  SqlType type;  // the SQL type this node stands for (leaves: the scalar)
  std::vector<int> children;
  std::vector<int> leaves;  // every leaf under (and including) this node
  int leaf = -1;
  int max_def = 0, max_rep = 0;
};

int BitWidth(uint32_t max) {
  int w = 0;
  while (max > 0) {
    ++w;
    max >>= 1;
  }
  return w;
}

void PutU32(uint32_t v, std::string* out) { out->append(reinterpret_cast<const char*>(&v), 4); }

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// The RLE / bit-packed hybrid encoding of `n` values of `bw` bits: runs of
// 8 or more equal values as RLE runs, the rest bit-packed in groups of 8
// (the last group padded with zeros).
void EncodeHybrid(const uint32_t* vals, size_t n, int bw, std::string* out) {
  std::vector<uint32_t> lit;
  auto flush = [&] {
    if (lit.empty()) return;
    const size_t groups = (lit.size() + 7) / 8;
    PutVarint((groups << 1) | 1, out);
    lit.resize(groups * 8, 0);
    uint64_t acc = 0;
    int bits = 0;
    for (uint32_t v : lit) {
      acc |= static_cast<uint64_t>(v) << bits;
      bits += bw;
      while (bits >= 8) {
        out->push_back(static_cast<char>(acc & 0xff));
        acc >>= 8;
        bits -= 8;
      }
    }
    lit.clear();
  };
  const int value_bytes = (bw + 7) / 8;
  size_t i = 0;
  while (i < n) {
    size_t j = i + 1;
    while (j < n && vals[j] == vals[i]) ++j;
    size_t run = j - i;
    if (lit.size() % 8 != 0) {
      // A bit-packed run holds whole groups of 8: complete the group first.
      const size_t take = std::min(run, 8 - lit.size() % 8);
      lit.insert(lit.end(), take, vals[i]);
      i += take;
      continue;
    }
    if (run >= 8) {
      flush();
      PutVarint(run << 1, out);
      for (int b = 0; b < value_bytes; ++b) out->push_back(static_cast<char>(vals[i] >> (8 * b)));
      i = j;
    } else {
      lit.insert(lit.end(), run, vals[i]);
      i = j;
    }
  }
  flush();
}

void EncodeLevels(const std::vector<uint32_t>& levels, size_t from, size_t to, int max,
                  std::string* out) {
  std::string body;
  EncodeHybrid(levels.data() + from, to - from, BitWidth(static_cast<uint32_t>(max)), &body);
  PutU32(static_cast<uint32_t>(body.size()), out);
  out->append(body);
}

// ---------------------------------------------------------------- leaves

struct Leaf {
  int node = -1;
  Phys phys = kByteArray;
  int type_length = 0;
  SqlType type;
  std::vector<std::string> path;
  bool ordered = true;  // has statistics min/max

  int max_def = 0, max_rep = 0;
  int width = 0;  // bytes of each PLAIN value; 0: BYTE_ARRAY

  // This row group's values. Levels are kept only where they can vary.
  uint64_t count = 0;             // level entries (values and missing ones)
  uint64_t nvalues = 0;           // values present
  std::vector<uint32_t> defs;     // if max_def > 0
  std::vector<uint32_t> reps;     // if max_rep > 0
  std::string values;             // PLAIN bytes of the values (BYTE_ARRAY: no length)
  std::vector<uint32_t> offsets;  // BYTE_ARRAY: start of each value, and the end
  uint64_t nulls = 0;
  bool has_mm = false;
  std::string min, max;  // PLAIN bytes of the smallest and largest value

  uint32_t Def(size_t i) const { return max_def > 0 ? defs[i] : 0; }
  uint32_t Rep(size_t i) const { return max_rep > 0 ? reps[i] : 0; }
  void PushLevels(int def, int rep) {
    if (max_def > 0) defs.push_back(static_cast<uint32_t>(def));
    if (max_rep > 0) reps.push_back(static_cast<uint32_t>(rep));
    ++count;
  }
  std::string_view Plain(size_t i) const {
    if (width > 0) return std::string_view(values.data() + i * width, static_cast<size_t>(width));
    return std::string_view(values.data() + offsets[i], offsets[i + 1] - offsets[i]);
  }
  void Clear() {
    count = nvalues = 0;
    defs.clear();
    reps.clear();
    values.clear();
    offsets.assign(1, 0);
    nulls = 0;
    has_mm = false;
  }
};

template <typename T>
bool LessAs(std::string_view a, std::string_view b) {
  T x, y;
  std::memcpy(&x, a.data(), sizeof(T));
  std::memcpy(&y, b.data(), sizeof(T));
  return x < y;
}

// a < b in the column's order, on PLAIN bytes.
bool Less(const Leaf& l, std::string_view a, std::string_view b) {
  switch (l.phys) {
    case kBoolean:
      return a[0] < b[0];
    case kInt32:
      return LessAs<int32_t>(a, b);
    case kInt64:
      return LessAs<int64_t>(a, b);
    case kFloat:
      return LessAs<float>(a, b);
    case kDouble:
      return LessAs<double>(a, b);
    case kFixed:  // big-endian two's complement: flip the sign bit
      if ((a[0] ^ b[0]) & 0x80) return (a[0] & 0x80) != 0;
      return a < b;
    case kByteArray:
      return a < b;  // unsigned bytes
    case kInt96:     // never written
      break;
  }
  return false;
}

bool IsNaN(const Leaf& l, std::string_view v) {
  if (l.phys == kFloat) {
    float f;
    std::memcpy(&f, v.data(), 4);
    return f != f;
  }
  if (l.phys == kDouble) {
    double d;
    std::memcpy(&d, v.data(), 8);
    return d != d;
  }
  return false;
}

std::string Compress(ParquetCompression c, int level, const std::string& in) {
  std::string out;
  switch (c) {
    case ParquetCompression::kNone:
      return in;
    case ParquetCompression::kZstd: {
      out.resize(ZSTD_compressBound(in.size()));
      const size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), level);
      out.resize(ZSTD_isError(n) ? 0 : n);
      return out;
    }
    case ParquetCompression::kSnappy: {
      size_t n = snappy_max_compressed_length(in.size());
      out.resize(n);
      if (snappy_compress(in.data(), in.size(), out.data(), &n) != SNAPPY_OK) n = 0;
      out.resize(n);
      return out;
    }
  }
  return in;
}

int CodecId(ParquetCompression c) {
  switch (c) {
    case ParquetCompression::kNone:
      return kUncompressed;
    case ParquetCompression::kSnappy:
      return kSnappy;
    case ParquetCompression::kZstd:
      return kZstd;
  }
  return kUncompressed;
}

// One column chunk's place in the file, for the footer.
struct ChunkMeta {
  int64_t data_page_offset = 0;
  int64_t dictionary_page_offset = -1;
  int64_t num_values = 0;
  int64_t uncompressed = 0, compressed = 0;
  bool dictionary = false;
  uint64_t nulls = 0;
  bool has_mm = false;
  std::string min, max;
};

struct RowGroupMeta {
  std::vector<ChunkMeta> chunks;
  int64_t rows = 0;
  int64_t bytes = 0;
  int64_t offset = 0;
};

}  // namespace

Result<ParquetCompression> ParseParquetCompression(const std::string& name) {
  if (name == "zstd") return ParquetCompression::kZstd;
  if (name == "snappy") return ParquetCompression::kSnappy;
  if (name == "none" || name == "uncompressed") return ParquetCompression::kNone;
  return Status::InvalidArgument("unknown compression \"" + name +
                                 "\" (expected zstd, snappy or none)");
}

const char* ParquetCompressionName(ParquetCompression c) {
  switch (c) {
    case ParquetCompression::kNone:
      return "none";
    case ParquetCompression::kSnappy:
      return "snappy";
    case ParquetCompression::kZstd:
      return "zstd";
  }
  return "?";
}

struct ParquetWriter::Impl {
  std::vector<ParquetColumn> columns;
  ParquetOptions options;
  std::vector<Node> nodes;  // depth-first; nodes[0] is the root
  std::vector<Leaf> leaves;
  std::vector<int> top;  // the node of each column
  uint64_t rows = 0, group_rows = 0, group_bytes = 0, file_bytes = 0;
  uint64_t added = 0;  // bytes the current row added
  std::string path;
  std::unique_ptr<WritableFile> file;
  uint64_t offset = 0;
  std::vector<RowGroupMeta> groups;
  Status failed;

  // Adds the node of `type` and its descendants; with `bare`, only a group
  // node (the repeated group inside a LIST or MAP).
  int AddNode(const std::string& name, const SqlType& type, Repetition rep, int parent_def,
              int parent_rep, bool bare = false) {
    const int id = static_cast<int>(nodes.size());
    nodes.emplace_back();
    nodes[id].name = name;
    nodes[id].type = FileType(type);
    nodes[id].repetition = rep;
    nodes[id].max_def = parent_def + (rep != kRequired ? 1 : 0);
    nodes[id].max_rep = parent_rep + (rep == kRepeated ? 1 : 0);
    const int def = nodes[id].max_def, r = nodes[id].max_rep;
    auto child = [&](const std::string& n, const SqlType& t, Repetition cr) {
      const int c = AddNode(n, t, cr, def, r);
      nodes[id].children.push_back(c);
      nodes[id].leaves.insert(nodes[id].leaves.end(), nodes[c].leaves.begin(),
                              nodes[c].leaves.end());
      return c;
    };
    auto opt = [](const SqlType& t) { return t.nullable() ? kOptional : kRequired; };
    if (bare) {
      nodes[id].kind = Node::kRepeatedGroup;
      return id;
    }
    switch (type.id()) {
      case TypeId::kArray: {
        nodes[id].kind = Node::kList;
        const int list = AddNode("list", type, kRepeated, def, r, true);
        nodes[id].children.push_back(list);
        const int elem = AddNode("element", type.children()[0], opt(type.children()[0]),
                                 nodes[list].max_def, nodes[list].max_rep);
        nodes[list].children.push_back(elem);
        nodes[list].leaves = nodes[elem].leaves;
        nodes[id].leaves = nodes[elem].leaves;
        break;
      }
      case TypeId::kMap: {
        nodes[id].kind = Node::kMap;
        const int kv = AddNode("key_value", type, kRepeated, def, r, true);
        nodes[id].children.push_back(kv);
        const int k = AddNode("key", type.children()[0].WithNullable(false), kRequired,
                              nodes[kv].max_def, nodes[kv].max_rep);
        const int v = AddNode("value", type.children()[1], opt(type.children()[1]),
                              nodes[kv].max_def, nodes[kv].max_rep);
        nodes[kv].children = {k, v};
        nodes[kv].leaves = nodes[k].leaves;
        nodes[kv].leaves.insert(nodes[kv].leaves.end(), nodes[v].leaves.begin(),
                                nodes[v].leaves.end());
        nodes[id].leaves = nodes[kv].leaves;
        break;
      }
      case TypeId::kRow:
        nodes[id].kind = Node::kRow;
        for (size_t i = 0; i < type.children().size(); ++i) {
          child(type.field_names()[i], type.children()[i], opt(type.children()[i]));
        }
        break;
      default: {
        nodes[id].kind = Node::kLeaf;
        Leaf l;
        l.node = id;
        l.type = FileType(type);
        switch (type.id()) {
          case TypeId::kBoolean:
            l.phys = kBoolean;
            break;
          case TypeId::kTinyInt:
          case TypeId::kSmallInt:
          case TypeId::kInteger:
          case TypeId::kDate:
            l.phys = kInt32;
            break;
          case TypeId::kBigInt:
          case TypeId::kTime:
          case TypeId::kTimestamp:
            l.phys = kInt64;
            break;
          case TypeId::kDecimal:
            l.phys = type.precision() <= 9 ? kInt32 : type.precision() <= 18 ? kInt64 : kFixed;
            if (l.phys == kFixed) l.type_length = DecimalBytes(type.precision());
            break;
          case TypeId::kReal:
            l.phys = kFloat;
            break;
          case TypeId::kDouble:
            l.phys = kDouble;
            break;
          case TypeId::kInterval:
          case TypeId::kVariant:
            l.phys = kByteArray;
            l.ordered = false;
            break;
          default:
            l.phys = kByteArray;
        }
        l.offsets.assign(1, 0);
        l.max_def = nodes[id].max_def;
        l.max_rep = nodes[id].max_rep;
        l.width = l.phys == kBoolean                      ? 1
                  : l.phys == kInt32 || l.phys == kFloat  ? 4
                  : l.phys == kInt64 || l.phys == kDouble ? 8
                  : l.phys == kFixed                      ? l.type_length
                                                          : 0;
        nodes[id].leaf = static_cast<int>(leaves.size());
        nodes[id].leaves = {nodes[id].leaf};
        leaves.push_back(std::move(l));
      }
    }
    return id;
  }

  // Paths of every leaf (names from the column down).
  void Paths(int node, std::vector<std::string> prefix) {
    prefix.push_back(nodes[node].name);
    if (nodes[node].leaf >= 0) leaves[nodes[node].leaf].path = prefix;
    for (int c : nodes[node].children) Paths(c, prefix);
  }

  // An INT32 or INT64 column's value: an integer, or a DECIMAL's unscaled
  // value at the column's scale.
  static int64_t IntOf(const Leaf& l, const Value& v) {
    if (l.type.id() != TypeId::kDecimal) return v.int_value();
    bool overflow = false;
    return static_cast<int64_t>(
        RescaleDecimal(v.decimal_unscaled(), v.decimal_scale(), l.type.scale(), &overflow));
  }

  // The PLAIN bytes of scalar `v` for `leaf`.
  Status Plain(Leaf& l, const Value& v) {
    std::string& out = l.values;
    // Parquet's DECIMAL is a plain integer; it has no NaN or infinities.
    if (v.kind() == Value::Kind::kDecimal && v.decimal_is_special()) {
      return Status::Unimplemented(std::string("writing numeric ") +
                                   DecimalSpecialName(v.decimal_special()) +
                                   " to Parquet (whose DECIMAL has no such value) is not "
                                   "supported yet");
    }
    if (v.kind() == Value::Kind::kDecimal && v.decimal_wide() != nullptr) {
      return Status::Unimplemented("writing numeric value " + DecimalValueToString(v) +
                                   " of more than 38 digits to Parquet is not supported yet");
    }
    switch (l.phys) {
      case kBoolean:
        out.push_back(v.bool_value() ? 1 : 0);
        break;
      case kInt32: {
        const int32_t y = static_cast<int32_t>(IntOf(l, v));
        out.append(reinterpret_cast<const char*>(&y), 4);
        break;
      }
      case kInt64: {
        const int64_t x = IntOf(l, v);
        out.append(reinterpret_cast<const char*>(&x), 8);
        break;
      }
      case kFloat: {
        const float f = static_cast<float>(v.double_value());
        out.append(reinterpret_cast<const char*>(&f), 4);
        break;
      }
      case kDouble: {
        const double d = v.double_value();
        out.append(reinterpret_cast<const char*>(&d), 8);
        break;
      }
      case kFixed: {
        bool overflow = false;
        const int128 u =
            RescaleDecimal(v.decimal_unscaled(), v.decimal_scale(), l.type.scale(), &overflow);
        if (overflow || u >= Pow10(kMaxDecimalDigits) || u <= -Pow10(kMaxDecimalDigits)) {
          return Status::InvalidArgument("numeric value " + DecimalValueToString(v) +
                                         " does not fit the file's " + l.type.ToString());
        }
        for (int b = l.type_length - 1; b >= 0; --b) {
          out.push_back(static_cast<char>(static_cast<uint128>(u) >> (8 * b)));
        }
        break;
      }
      case kInt96:  // never written
        return Status::Internal("parquet: INT96 is never written");
      case kByteArray:
        if (l.type.id() == TypeId::kInterval) {
          out.append(sql::FormatInterval(v.interval_value()));
        } else if (l.type.id() == TypeId::kVariant) {
          AppendJsonValue(v, l.type, &out);
        } else {
          out.append(v.string_value());
        }
        break;
    }
    const size_t start = l.width > 0 ? l.nvalues * static_cast<size_t>(l.width) : l.offsets.back();
    if (l.width == 0) l.offsets.push_back(static_cast<uint32_t>(out.size()));
    ++l.nvalues;
    added += out.size() - start + 1;
    const std::string_view bytes(out.data() + start, out.size() - start);
    if (l.ordered && !IsNaN(l, bytes)) {
      // (assign() reuses the strings' memory: no allocation per row.)
      if (!l.has_mm) {
        l.min.assign(bytes.data(), bytes.size());
        l.max.assign(bytes.data(), bytes.size());
        l.has_mm = true;
      } else if (Less(l, bytes, l.min)) {
        l.min.assign(bytes.data(), bytes.size());
      } else if (Less(l, l.max, bytes)) {
        l.max.assign(bytes.data(), bytes.size());
      }
    }
    return Status::OK();
  }

  void Missing(int node, int def, int rep) {
    for (int li : nodes[node].leaves) {
      Leaf& l = leaves[static_cast<size_t>(li)];
      l.PushLevels(def, rep);
      ++l.nulls;
      ++added;
    }
  }

  Status Write(int id, const Value& v, int def, int rep) {
    const Node& n = nodes[id];
    if (v.is_null()) {
      if (n.repetition == kRequired) {
        return Status::InvalidArgument("NULL in the NOT NULL field " + n.name);
      }
      Missing(id, def, rep);
      return Status::OK();
    }
    if (n.repetition == kOptional) ++def;
    switch (n.kind) {
      case Node::kLeaf: {
        // A sub-array of an INT[] value (ArrayHoldsSubArrays).
        if (v.kind() == Value::Kind::kList && n.type.id() != TypeId::kVariant) {
          return Status::Unimplemented(
              "Parquet output of multidimensional arrays is not supported yet (field " + n.name +
              ")");
        }
        Leaf& l = leaves[static_cast<size_t>(n.leaf)];
        l.PushLevels(def, rep);
        return Plain(l, v);
      }
      case Node::kRow: {
        const std::vector<Value>& fields = v.list();
        for (size_t i = 0; i < n.children.size(); ++i) {
          static const Value kNull;
          SLUICE_RETURN_IF_ERROR(
              Write(n.children[i], i < fields.size() ? fields[i] : kNull, def, rep));
        }
        return Status::OK();
      }
      case Node::kList:
      case Node::kMap: {
        const int group = n.children[0];
        const Node& g = nodes[group];
        const size_t count = n.kind == Node::kList ? v.list().size() : v.map_keys().size();
        if (count == 0) {
          Missing(group, def, rep);
          // An empty list is not a NULL: take back the null counts.
          for (int li : g.leaves) --leaves[static_cast<size_t>(li)].nulls;
          return Status::OK();
        }
        for (size_t i = 0; i < count; ++i) {
          const int r = i == 0 ? rep : g.max_rep;
          if (n.kind == Node::kList) {
            SLUICE_RETURN_IF_ERROR(Write(g.children[0], v.list()[i], def + 1, r));
          } else {
            SLUICE_RETURN_IF_ERROR(Write(g.children[0], v.map_keys()[i], def + 1, r));
            SLUICE_RETURN_IF_ERROR(Write(g.children[1], v.map_values()[i], def + 1, r));
          }
        }
        return Status::OK();
      }
      case Node::kRepeatedGroup:
        break;
    }
    return Status::Internal("parquet: unexpected node");
  }

  // Writes the buffered rows as one row group.
  Status FlushGroup() {
    if (group_rows == 0) return Status::OK();
    UpdateStats();
    RowGroupMeta g;
    g.rows = static_cast<int64_t>(group_rows);
    g.offset = static_cast<int64_t>(offset);
    std::string out;
    for (Leaf& l : leaves) {
      ChunkMeta c;
      SLUICE_RETURN_IF_ERROR(WriteChunk(l, &out, &c));
      g.bytes += c.uncompressed;
      g.chunks.push_back(std::move(c));
      l.Clear();
    }
    SLUICE_RETURN_IF_ERROR(file->Append(out));
    offset += out.size();
    groups.push_back(std::move(g));
    group_rows = 0;
    group_bytes = 0;
    return Status::OK();
  }

  void PageHeader(int type, size_t raw, size_t packed, std::string* out,
                  const std::function<void(Thrift&)>& body) {
    Thrift t;
    t.I32(1, type);
    t.I32(2, static_cast<int32_t>(raw));
    t.I32(3, static_cast<int32_t>(packed));
    body(t);
    t.out().push_back(0);  // end of PageHeader
    out->append(t.out());
  }

  Status WriteChunk(Leaf& l, std::string* out, ChunkMeta* c) {
    const size_t start = out->size();
    const Node& n = nodes[l.node];
    const size_t count = l.count;
    const size_t nvalues = l.nvalues;
    c->num_values = static_cast<int64_t>(count);
    c->nulls = l.nulls;
    c->has_mm = l.has_mm;
    c->min = l.min;
    c->max = l.max;
    auto value = [&](size_t i) { return l.Plain(i); };
    auto plain = [&](size_t i, std::string* o) {
      const std::string_view v = l.Plain(i);
      if (l.phys == kByteArray) PutU32(static_cast<uint32_t>(v.size()), o);
      o->append(v);
    };
    // A dictionary, if it pays.
    std::vector<uint32_t> index;
    std::string dict;
    size_t dict_size = 0;
    if (l.phys != kBoolean && nvalues > 0) {
      std::unordered_map<std::string_view, uint32_t> ids;
      ids.reserve(std::min<size_t>(nvalues, 1 << 16));
      index.reserve(nvalues);
      bool pays = true;
      for (size_t i = 0; i < nvalues && pays; ++i) {
        auto [it, is_new] = ids.emplace(value(i), static_cast<uint32_t>(ids.size()));
        if (is_new) {
          plain(i, &dict);
          pays = dict.size() <= (1u << 20) && ids.size() <= 65536 && ids.size() * 2 <= nvalues + 1;
        }
        index.push_back(it->second);
        // Mostly distinct values early on: no dictionary.
        if (i + 1 == 4096 && ids.size() * 2 > 4096) pays = false;
      }
      pays = pays && ids.size() * 2 <= nvalues;
      if (pays) {
        dict_size = ids.size();
      } else {
        index.clear();
        dict.clear();
      }
    }
    if (dict_size > 0) {
      c->dictionary = true;
      c->dictionary_page_offset = static_cast<int64_t>(offset + out->size());
      const std::string packed = Compress(options.compression, options.zstd_level, dict);
      PageHeader(kDictionaryPage, dict.size(), packed.size(), out, [&](Thrift& t) {
        t.BeginStruct(7);  // dictionary_page_header
        t.I32(1, static_cast<int32_t>(dict_size));
        t.I32(2, kPlain);
        t.EndStruct();
      });
      out->append(packed);
      c->uncompressed += static_cast<int64_t>(dict.size());
    }
    c->data_page_offset = static_cast<int64_t>(offset + out->size());
    // Data pages of about page_bytes of values, cut where a record starts.
    const int bw = dict_size > 0 ? std::max(1, BitWidth(static_cast<uint32_t>(dict_size - 1))) : 0;
    size_t level = 0, val = 0;
    while (level < count || (count == 0 && level == 0)) {
      size_t lend = level, vend = val;
      uint64_t bytes = 0;
      while (lend < count) {
        if (lend > level && bytes >= options.page_bytes && l.Rep(lend) == 0) break;
        if (l.Def(lend) == static_cast<uint32_t>(n.max_def)) {
          bytes += l.Plain(vend).size() + 4;
          ++vend;
        } else {
          bytes += 1;
        }
        ++lend;
      }
      std::string body;
      if (n.max_rep > 0) EncodeLevels(l.reps, level, lend, n.max_rep, &body);
      if (n.max_def > 0) EncodeLevels(l.defs, level, lend, n.max_def, &body);
      if (dict_size > 0) {
        body.push_back(static_cast<char>(bw));
        EncodeHybrid(index.data() + val, vend - val, bw, &body);
      } else if (l.phys == kBoolean) {
        uint8_t acc = 0;
        int bits = 0;
        for (size_t i = val; i < vend; ++i) {
          acc = static_cast<uint8_t>(acc | ((l.values[i] & 1) << bits));
          if (++bits == 8) {
            body.push_back(static_cast<char>(acc));
            acc = 0;
            bits = 0;
          }
        }
        if (bits > 0) body.push_back(static_cast<char>(acc));
      } else if (l.width > 0) {
        body.append(l.values, val * static_cast<size_t>(l.width),
                    (vend - val) * static_cast<size_t>(l.width));
      } else {
        for (size_t i = val; i < vend; ++i) plain(i, &body);
      }
      const std::string packed = Compress(options.compression, options.zstd_level, body);
      if (packed.empty() && !body.empty()) {
        return Status::Internal("parquet: compressing a page failed");
      }
      PageHeader(kDataPage, body.size(), packed.size(), out, [&](Thrift& t) {
        t.BeginStruct(5);  // data_page_header
        t.I32(1, static_cast<int32_t>(lend - level));
        t.I32(2, dict_size > 0 ? kRleDictionary : kPlain);
        t.I32(3, kRle);
        t.I32(4, kRle);
        t.EndStruct();
      });
      out->append(packed);
      c->uncompressed += static_cast<int64_t>(body.size());
      level = lend;
      val = vend;
      if (count == 0) break;
    }
    c->compressed = static_cast<int64_t>(out->size() - start);
    return Status::OK();
  }

  void SchemaElement(Thrift& t, int id) {
    const Node& n = nodes[id];
    t.BeginStructElem();
    if (n.leaf >= 0) {
      const Leaf& l = leaves[static_cast<size_t>(n.leaf)];
      t.I32(1, l.phys);
      if (l.phys == kFixed) t.I32(2, l.type_length);
    }
    if (id != 0) t.I32(3, n.repetition);
    t.Binary(4, n.name);
    if (!n.children.empty() || id == 0) t.I32(5, static_cast<int32_t>(n.children.size()));
    // Converted type (6), decimal scale and precision (7, 8), logical type (10).
    const SqlType& ty = n.type;
    auto logical = [&](const std::function<void()>& body) {
      t.BeginStruct(10);
      body();
      t.EndStruct();
    };
    if (n.kind == Node::kList) {
      t.I32(6, kList);
      logical([&] { t.Empty(3); });
    } else if (n.kind == Node::kMap) {
      t.I32(6, kMap);
      logical([&] { t.Empty(2); });
    } else if (n.kind == Node::kLeaf) {
      switch (ty.id()) {
        case TypeId::kTinyInt:
        case TypeId::kSmallInt: {
          const int bits = ty.id() == TypeId::kTinyInt ? 8 : 16;
          t.I32(6, bits == 8 ? kInt8 : kInt16);
          logical([&] {
            t.BeginStruct(10);
            t.Byte(1, static_cast<int8_t>(bits));
            t.Bool(2, true);
            t.EndStruct();
          });
          break;
        }
        case TypeId::kDecimal:
          t.I32(6, kDecimal);
          t.I32(7, ty.scale());
          t.I32(8, ty.precision());
          logical([&] {
            t.BeginStruct(5);
            t.I32(1, ty.scale());
            t.I32(2, ty.precision());
            t.EndStruct();
          });
          break;
        case TypeId::kChar:
        case TypeId::kVarchar:
        case TypeId::kInterval:
          t.I32(6, kUtf8);
          logical([&] { t.Empty(1); });
          break;
        case TypeId::kVariant:
          t.I32(6, kJson);
          logical([&] { t.Empty(12); });
          break;
        case TypeId::kDate:
          t.I32(6, kDate);
          logical([&] { t.Empty(6); });
          break;
        case TypeId::kTime:
        case TypeId::kTimestamp:
          // TIME (7) or TIMESTAMP (8) in MICROS: adjusted to UTC for a
          // TIMESTAMP WITH TIME ZONE.
          if (ty.id() == TypeId::kTime) t.I32(6, kTimeMicros);
          logical([&] {
            t.BeginStruct(ty.id() == TypeId::kTime ? 7 : 8);
            t.Bool(1, ty.with_time_zone());
            t.BeginStruct(2);
            t.Empty(2);
            t.EndStruct();
            t.EndStruct();
          });
          break;
        default:
          break;
      }
    }
    t.EndStruct();
    for (int c : n.children) SchemaElement(t, c);
  }

  std::string Footer() {
    Thrift t;
    t.I32(1, 2);  // version
    t.BeginList(2, thrift::kStruct, nodes.size());
    SchemaElement(t, 0);
    t.I64(3, static_cast<int64_t>(rows));
    t.BeginList(4, thrift::kStruct, groups.size());
    for (const RowGroupMeta& g : groups) {
      t.BeginStructElem();
      t.BeginList(1, thrift::kStruct, g.chunks.size());
      int64_t compressed = 0;
      for (size_t i = 0; i < g.chunks.size(); ++i) {
        const ChunkMeta& c = g.chunks[i];
        const Leaf& l = leaves[i];
        compressed += c.compressed;
        t.BeginStructElem();  // ColumnChunk
        t.I64(2, c.dictionary ? c.dictionary_page_offset : c.data_page_offset);
        t.BeginStruct(3);  // ColumnMetaData
        t.I32(1, l.phys);
        const bool bool_col = l.phys == kBoolean;
        t.BeginList(2, thrift::kI32, c.dictionary ? 3 : 2);
        t.I32Elem(kRle);
        t.I32Elem(kPlain);
        if (c.dictionary) t.I32Elem(kRleDictionary);
        (void)bool_col;
        t.BeginList(3, thrift::kBinary, l.path.size());
        for (const std::string& p : l.path) t.BinaryElem(p);
        t.I32(4, CodecId(options.compression));
        t.I64(5, c.num_values);
        t.I64(6, c.uncompressed);
        t.I64(7, c.compressed);
        t.I64(9, c.data_page_offset);
        if (c.dictionary) t.I64(11, c.dictionary_page_offset);
        t.BeginStruct(12);  // Statistics
        t.I64(3, static_cast<int64_t>(c.nulls));
        if (c.has_mm) {
          t.Binary(5, c.max);
          t.Binary(6, c.min);
        }
        t.EndStruct();
        t.EndStruct();  // ColumnMetaData
        t.EndStruct();  // ColumnChunk
      }
      t.I64(2, g.bytes);
      t.I64(3, g.rows);
      t.I64(5, g.offset);
      t.I64(6, compressed);
      t.EndStruct();
    }
    t.Binary(6, "sluice");
    // Column orders: every leaf by its type's order.
    t.BeginList(7, thrift::kStruct, leaves.size());
    for (size_t i = 0; i < leaves.size(); ++i) {
      t.BeginStructElem();
      t.Empty(1);  // TYPE_ORDER
      t.EndStruct();
    }
    t.out().push_back(0);
    return t.out();
  }

  // File-level statistics of the top-level columns, from this row group.
  void UpdateStats() {
    for (size_t ci = 0; ci < top.size(); ++ci) {
      const Node& n = nodes[static_cast<size_t>(top[ci])];
      FileStat& s = file_stats[ci];
      if (n.leaf < 0) {
        // A composite column is NULL where its first leaf is missing at the
        // column's own level.
        const Leaf& l = leaves[static_cast<size_t>(n.leaves[0])];
        if (n.repetition == kOptional) {
          for (size_t i = 0; i < l.count; ++i) {
            if (l.Rep(i) == 0 && l.Def(i) < static_cast<uint32_t>(n.max_def)) ++s.nulls;
          }
        }
        continue;
      }
      const Leaf& l = leaves[static_cast<size_t>(n.leaf)];
      s.nulls += l.nulls;
      if (!l.has_mm) continue;
      if (!s.has || Less(l, l.min, s.min)) s.min = l.min;
      if (!s.has || Less(l, s.max, l.max)) s.max = l.max;
      s.has = true;
    }
  }

  // A PLAIN value of `l` as a Value (for statistics).
  static Value Decode(const Leaf& l, const std::string& b) {
    switch (l.phys) {
      case kBoolean:
        return Value::Bool(b[0] != 0);
      case kInt32: {
        int32_t x;
        std::memcpy(&x, b.data(), 4);
        return l.type.id() == TypeId::kDecimal ? Value::Decimal(x, l.type.scale()) : Value::Int(x);
      }
      case kInt64: {
        int64_t x;
        std::memcpy(&x, b.data(), 8);
        return l.type.id() == TypeId::kDecimal ? Value::Decimal(x, l.type.scale()) : Value::Int(x);
      }
      case kFloat: {
        float f;
        std::memcpy(&f, b.data(), 4);
        return Value::Double(f);
      }
      case kDouble: {
        double d;
        std::memcpy(&d, b.data(), 8);
        return Value::Double(d);
      }
      case kFixed: {
        uint128 u = (b[0] & 0x80) ? ~static_cast<uint128>(0) : 0;
        for (char ch : b) u = (u << 8) | static_cast<uint8_t>(ch);
        return Value::Decimal(static_cast<int128>(u), l.type.scale());
      }
      case kByteArray:
        return Value::String(b);
      case kInt96:  // never written
        break;
    }
    return Value();
  }

  struct FileStat {
    uint64_t nulls = 0;
    bool has = false;
    std::string min, max;
  };
  std::vector<FileStat> file_stats;
};

ParquetWriter::ParquetWriter() : impl_(std::make_unique<Impl>()) {}

ParquetWriter::~ParquetWriter() {
  if (impl_->file != nullptr) {
    (void)impl_->file->Close();
    (void)RemoveFile(impl_->path);
  }
}

Status CheckParquetType(const std::string& name, const SqlType& t) {
  if (t.IsTimeTz()) {
    return Status::Unimplemented(
        "column " + name +
        " of type TIME WITH TIME ZONE is not supported yet in Parquet files and Delta tables, "
        "which have no time with a zone (cast it to TEXT to keep the zone)");
  }
  if (t.pg_kind() == PgKind::kMoney) {
    return Status::Unimplemented("column " + name +
                                 " of type MONEY is not supported yet in Parquet files and Delta "
                                 "tables (cast it to NUMERIC)");
  }
  for (const SqlType& c : t.children()) SLUICE_RETURN_IF_ERROR(CheckParquetType(name, c));
  return Status::OK();
}

Result<std::unique_ptr<ParquetWriter>> ParquetWriter::Create(const std::string& path,
                                                             std::vector<ParquetColumn> columns,
                                                             ParquetOptions options) {
  std::unique_ptr<ParquetWriter> w(new ParquetWriter());
  Impl& m = *w->impl_;
  m.columns = std::move(columns);
  m.options = options;
  m.nodes.emplace_back();
  m.nodes[0].kind = Node::kRow;
  m.nodes[0].name = "schema";
  // Parquet's DECIMAL is an integer of a fixed width and readers take at
  // most 38 digits: a column of more is refused here, up front, rather than
  // written as text that a reader would take for a string.
  std::function<bool(const SqlType&)> too_wide = [&](const SqlType& t) {
    if (t.id() == TypeId::kDecimal) return t.precision() > kMaxDecimalDigits;
    for (const SqlType& c : t.children()) {
      if (too_wide(c)) return true;
    }
    return false;
  };
  for (const ParquetColumn& c : m.columns) {
    SLUICE_RETURN_IF_ERROR(CheckParquetType(c.name, c.type));
    if (too_wide(c.type)) {
      return Status::Unimplemented("column " + c.name + " of type " + c.type.ToString() +
                                   ": Parquet DECIMAL of more than 38 digits is not supported yet");
    }
  }
  for (const ParquetColumn& c : m.columns) {
    const int id = m.AddNode(c.name, c.type, c.type.nullable() ? kOptional : kRequired, 0, 0);
    m.nodes[0].children.push_back(id);
    m.top.push_back(id);
  }
  for (int c : m.nodes[0].children) m.Paths(c, {});
  m.file_stats.resize(m.columns.size());
  SLUICE_ASSIGN_OR_RETURN(m.file, WritableFile::Create(path));
  m.path = path;
  SLUICE_RETURN_IF_ERROR(m.file->Append("PAR1", 4));
  m.offset = 4;
  return w;
}

Status ParquetWriter::Add(const std::vector<Value>& row) {
  Impl& m = *impl_;
  if (!m.failed.ok()) return m.failed;
  if (row.size() != m.columns.size()) {
    return m.failed = Status::InvalidArgument("parquet: a row of " + std::to_string(row.size()) +
                                              " values for " + std::to_string(m.columns.size()) +
                                              " columns");
  }
  m.added = 0;
  for (size_t i = 0; i < row.size(); ++i) {
    Status s = m.Write(m.top[i], row[i], 0, 0);
    if (!s.ok()) return m.failed = s.WithContext("column " + m.columns[i].name);
  }
  m.group_bytes += m.added;
  m.file_bytes += m.added;
  ++m.rows;
  ++m.group_rows;
  if (m.group_bytes >= m.options.row_group_bytes) {
    Status s = m.FlushGroup();
    if (!s.ok()) return m.failed = s;
  }
  return Status::OK();
}

uint64_t ParquetWriter::rows() const { return impl_->rows; }
uint64_t ParquetWriter::bytes() const { return impl_->file_bytes; }

Result<ParquetFileInfo> ParquetWriter::Finish() {
  Impl& m = *impl_;
  if (!m.failed.ok()) return m.failed;
  SLUICE_RETURN_IF_ERROR(m.FlushGroup());
  const std::string footer = m.Footer();
  std::string tail = footer;
  PutU32(static_cast<uint32_t>(footer.size()), &tail);
  tail.append("PAR1");
  SLUICE_RETURN_IF_ERROR(m.file->Append(tail));
  SLUICE_RETURN_IF_ERROR(m.file->Sync());
  SLUICE_RETURN_IF_ERROR(m.file->Close());
  m.file.reset();
  ParquetFileInfo info;
  info.rows = m.rows;
  info.bytes = m.offset + tail.size();
  info.row_groups = m.groups.size();
  for (size_t ci = 0; ci < m.top.size(); ++ci) {
    const Impl::FileStat& fs = m.file_stats[ci];
    ParquetColumnStats s;
    s.null_count = fs.nulls;
    const Node& n = m.nodes[static_cast<size_t>(m.top[ci])];
    if (fs.has && n.leaf >= 0) {
      s.has_min_max = true;
      s.min = Impl::Decode(m.leaves[static_cast<size_t>(n.leaf)], fs.min);
      s.max = Impl::Decode(m.leaves[static_cast<size_t>(n.leaf)], fs.max);
    }
    info.stats.push_back(std::move(s));
  }
  return info;
}

}  // namespace sluice::format
