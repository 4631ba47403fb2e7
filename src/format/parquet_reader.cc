// The Parquet reader: the file's schema as a tree of SQL-shaped nodes, and
// rows assembled from the leaf columns that parquet_column.cc decodes
// (parquet_footer.cc reads the footer).
//
// File layout: "PAR1", the row groups' column chunks, the FileMetaData
// (Thrift compact protocol), its length as 4 little-endian bytes, "PAR1".
//
// Rows are assembled from the leaves' levels (the Dremel encoding): a node
// of the schema is present when its first leaf's definition level reaches
// the node's own; a list continues while that leaf's next repetition level
// is the list's. When a node is missing, every leaf below it holds exactly
// one level entry for it.
#include "format/parquet_reader.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>

#include "format/parquet_column.h"
#include "format/parquet_footer.h"
#include "format/parquet_thrift.h"
#include "sql/datetime.h"
#include "sql/expr.h"
#include "storage/file.h"
#include "types/row_codec.h"

namespace sluice::format {

using namespace parquet;  // NOLINT(build/namespaces)

namespace {

Status Bad(std::string what) { return Status::Corruption(std::move(what)); }

// A node of a top-level column, shaped as its SQL type.
struct Node {
  enum Kind { kLeaf, kRow, kList, kMap } kind = kLeaf;
  bool nullable = false;
  int def = 0;       // the definition level at which it is present
  int elem_def = 0;  // kList, kMap: the level at which it has an element
  int rep = 0;       // kList, kMap: the repetition level of its elements
  std::vector<int> children;
  std::vector<std::string> names;  // kRow
  int leaf = -1;
  std::vector<int> leaves;  // every leaf below (and including) it
  SqlType type;
  std::string path;  // for messages
};

// UTF-8 characters in `s`.
size_t Utf8Length(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xc0) != 0x80;
  return n;
}

int IntDigits(TypeId id) {
  switch (id) {
    case TypeId::kTinyInt:
      return 3;
    case TypeId::kSmallInt:
      return 5;
    case TypeId::kInteger:
      return 10;
    default:
      return 19;
  }
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Whether every value of `from` casts to `to` without loss (value checks
// aside: lengths, NULLs in NOT NULL, interval text).
bool Lossless(const SqlType& from, const SqlType& to) {
  const TypeId f = from.id(), t = to.id();
  if (from.WithNullable(true) == to.WithNullable(true)) return true;
  // A Parquet column is not read as an int2vector, oidvector, point, oid
  // or money yet (the vectors' subscripts start at 0, a list's at 1; money
  // is cents).
  if (from.pg_kind() != PgKind::kNone || to.pg_kind() != PgKind::kNone) return false;
  if (from.IsInteger() && to.IsInteger()) return f <= t;
  // A NUMERIC keeps each value's own scale: every integer and decimal fits.
  if ((from.IsInteger() || f == TypeId::kDecimal) && to.dynamic_scale()) {
    return from.IsInteger() || from.precision() <= kMaxDecimalDigits;
  }
  if (from.IsInteger() && t == TypeId::kDecimal) return IntDigits(f) <= to.precision() - to.scale();
  if (from.IsInteger() && t == TypeId::kDouble) return f != TypeId::kBigInt;
  if (from.IsInteger() && t == TypeId::kReal) return f <= TypeId::kSmallInt;
  if (f == TypeId::kDecimal && t == TypeId::kDecimal) {
    return to.scale() >= from.scale() &&
           to.precision() - to.scale() >= from.precision() - from.scale();
  }
  if (f == TypeId::kReal && t == TypeId::kDouble) return true;
  if (f == TypeId::kDate && t == TypeId::kTimestamp) return true;
  if (from.IsString() && (to.IsString() || t == TypeId::kInterval)) return true;
  if (from.IsBinary() && to.IsBinary()) return true;
  if (f == TypeId::kArray && t == TypeId::kArray)
    return Lossless(from.children()[0], to.children()[0]);
  if (f == TypeId::kMap && t == TypeId::kMap) {
    return Lossless(from.children()[0], to.children()[0]) &&
           Lossless(from.children()[1], to.children()[1]);
  }
  if (f == TypeId::kRow && t == TypeId::kRow) {
    if (from.children().size() != to.children().size()) return false;
    for (size_t i = 0; i < from.children().size(); ++i) {
      if (Lower(from.field_names()[i]) != Lower(to.field_names()[i]) ||
          !Lossless(from.children()[i], to.children()[i])) {
        return false;
      }
    }
    return true;
  }
  return false;
}

// Casts `v` of `from` to `to` (REQUIRES: Lossless(from, to)).
Status Cast(const Value& v, const SqlType& from, const SqlType& to, Value* out) {
  if (v.is_null()) {
    if (!to.nullable()) return Status::InvalidArgument("NULL in a NOT NULL column");
    *out = Value();
    return Status::OK();
  }
  const TypeId f = from.id(), t = to.id();
  switch (t) {
    case TypeId::kDecimal:
      if (to.dynamic_scale()) {
        *out = from.IsInteger() ? Value::Decimal(v.int_value(), 0) : v;
      } else if (from.IsInteger()) {
        *out = Value::Decimal(v.int_value() * Pow10(to.scale()), to.scale());
      } else {
        *out = Value::Decimal(v.decimal_unscaled() * Pow10(to.scale() - v.decimal_scale()),
                              to.scale());
      }
      return Status::OK();
    case TypeId::kDouble:
    case TypeId::kReal:
      *out = from.IsInteger() ? Value::Double(static_cast<double>(v.int_value())) : v;
      return Status::OK();
    case TypeId::kTimestamp: {
      if (f != TypeId::kDate) {
        *out = v;
        return Status::OK();
      }
      int64_t micros;
      if (__builtin_mul_overflow(v.int_value(), sql::kMicrosPerDay, &micros)) {
        return Status::InvalidArgument("date " + std::to_string(v.int_value()) +
                                       " is out of TIMESTAMP's range");
      }
      *out = Value::Int(micros);
      return Status::OK();
    }
    case TypeId::kChar:
    case TypeId::kVarchar:
    case TypeId::kBinary:
    case TypeId::kVarbinary: {
      std::string_view s = v.string_value();
      if (!FitString(to, &s)) {
        const size_t len = to.IsString() ? Utf8Length(v.string_value()) : v.string_value().size();
        return Status::InvalidArgument("a value of length " + std::to_string(len) + " for " +
                                       to.ToString());
      }
      *out = s.size() == v.string_value().size() ? v : Value::String(std::string(s));
      return Status::OK();
    }
    case TypeId::kInterval: {
      if (f == TypeId::kInterval) {
        *out = v;
        return Status::OK();
      }
      Interval iv;
      if (!sql::ParseInterval(v.string_value(), &iv)) {
        return Status::InvalidArgument("\"" + v.string_value() + "\" is not an interval");
      }
      *out = Value::MakeInterval(iv.months, iv.days, iv.micros);
      return Status::OK();
    }
    case TypeId::kArray:
    case TypeId::kRow: {
      std::vector<Value> items(v.list().size());
      for (size_t i = 0; i < items.size(); ++i) {
        const SqlType& fe = t == TypeId::kArray ? from.children()[0] : from.children()[i];
        const SqlType& te = t == TypeId::kArray ? to.children()[0] : to.children()[i];
        SLUICE_RETURN_IF_ERROR(Cast(v.list()[i], fe, te, &items[i]));
      }
      *out = Value::List(std::move(items));
      return Status::OK();
    }
    case TypeId::kMap: {
      std::vector<Value> k(v.map_keys().size()), x(v.map_values().size());
      for (size_t i = 0; i < k.size(); ++i) {
        SLUICE_RETURN_IF_ERROR(Cast(v.map_keys()[i], from.children()[0], to.children()[0], &k[i]));
      }
      for (size_t i = 0; i < x.size(); ++i) {
        SLUICE_RETURN_IF_ERROR(
            Cast(v.map_values()[i], from.children()[1], to.children()[1], &x[i]));
      }
      *out = Value::Map(std::move(k), std::move(x));
      return Status::OK();
    }
    default:
      *out = v;  // integers widen as they are
      return Status::OK();
  }
}

}  // namespace

struct ParquetReader::Impl {
  std::string path;
  std::string bytes;  // the whole file, when read from memory
  std::unique_ptr<RandomAccessFile> file;
  uint64_t size = 0;
  uint64_t data_end = 0;  // where the footer starts

  std::vector<Element> elements;
  std::vector<ParquetLeaf> leaves;
  std::vector<std::vector<std::string>> leaf_paths;
  std::vector<Node> nodes;
  std::vector<int> top;  // the node of each column
  std::vector<ParquetColumn> columns;
  int64_t rows = 0;
  std::vector<RowGroup> groups;
  std::string created_by;

  Status Read(uint64_t offset, size_t len, std::string* out) const {
    if (offset > size || len > size - offset) {
      return Bad("bytes " + std::to_string(offset) + ".." + std::to_string(offset + len) +
                 " are past the end of the file (" + std::to_string(size) + " bytes)");
    }
    if (file == nullptr) {
      out->assign(bytes, static_cast<size_t>(offset), len);
      return Status::OK();
    }
    return file->Read(offset, len, out);
  }

  Status Init() {
    if (size < 12) return Bad("not a Parquet file: " + std::to_string(size) + " bytes");
    std::string head, tail;
    SLUICE_RETURN_IF_ERROR(Read(0, 4, &head));
    SLUICE_RETURN_IF_ERROR(Read(size - 8, 8, &tail));
    if (tail.substr(4) == "PARE")
      return Status::Unimplemented("encrypted Parquet files are not supported");
    if (head != "PAR1" || tail.substr(4) != "PAR1")
      return Bad("not a Parquet file (no PAR1 magic)");
    uint32_t len;
    std::memcpy(&len, tail.data(), 4);
    if (len > size - 12) {
      return Bad("footer of " + std::to_string(len) + " bytes in a file of " +
                 std::to_string(size));
    }
    data_end = size - 8 - len;
    std::string footer;
    SLUICE_RETURN_IF_ERROR(Read(data_end, len, &footer));
    FileMeta meta;
    SLUICE_RETURN_IF_ERROR(ParseFooter(footer, &meta).WithContext("footer"));
    elements = std::move(meta.elements);
    rows = meta.rows;
    groups = std::move(meta.groups);
    created_by = std::move(meta.created_by);
    return BuildSchema().WithContext("schema");
  }

  // Element `ei` and below: their levels and children; *next: the element
  // after them.
  Status Tree(int ei, int def, int rep, int depth, int* next) {
    if (depth > 64) return Bad("nested more than 64 deep");
    Element& e = elements[static_cast<size_t>(ei)];
    if (ei != 0) {
      if (e.repetition < kRequired || e.repetition > kRepeated) {
        return Bad("field " + e.name + " has no repetition");
      }
      if (e.repetition != kRequired) ++def;
      if (e.repetition == kRepeated) ++rep;
    }
    e.max_def = def;
    e.max_rep = rep;
    *next = ei + 1;
    if (ei == 0 || e.type < 0) {
      if (e.num_children <= 0) return Bad("group " + e.name + " has no fields");
      if (static_cast<size_t>(e.num_children) > elements.size() - static_cast<size_t>(*next)) {
        return Bad("group " + e.name + " has more fields than the schema");
      }
      for (int i = 0; i < e.num_children; ++i) {
        if (static_cast<size_t>(*next) >= elements.size()) return Bad("truncated schema");
        e.children.push_back(*next);
        SLUICE_RETURN_IF_ERROR(Tree(*next, def, rep, depth + 1, next));
      }
    } else if (e.num_children > 0) {
      return Bad("a field of a physical type with fields: " + e.name);
    }
    return Status::OK();
  }

  // The SQL-shaped node of element `ei`. With `as_element`, a repeated
  // element is taken as the element of its list (NOT NULL).
  int BuildNode(int ei, int parent_def, bool as_element, const std::string& path) {
    const Element& e = elements[static_cast<size_t>(ei)];
    const int id = static_cast<int>(nodes.size());
    nodes.emplace_back();
    nodes[id].path = path.empty() ? e.name : path + "." + e.name;
    if (e.repetition == kRepeated && !as_element) {
      // A bare repeated field: a NOT NULL list of NOT NULL elements.
      nodes[id].kind = Node::kList;
      nodes[id].def = parent_def;
      nodes[id].elem_def = e.max_def;
      nodes[id].rep = e.max_rep;
      const int c = BuildNode(ei, parent_def, true, path);
      Adopt(id, c);
      nodes[id].type = SqlType::Array(nodes[c].type, false);
      return id;
    }
    Node& n = nodes[id];
    n.nullable = e.repetition == kOptional;
    n.def = e.max_def;
    const std::string p = n.path;
    if (e.type >= 0) {
      n.kind = Node::kLeaf;
      n.leaf = static_cast<int>(leaves.size());
      n.leaves = {n.leaf};
      ParquetLeaf l;
      MapLeaf(e, &l);
      l.max_def = e.max_def;
      l.max_rep = e.max_rep;
      if (as_element) l.type = l.type.WithNullable(false);
      n.type = l.type;
      leaves.push_back(std::move(l));
      return id;
    }
    const bool list = e.converted == kList || e.logical == kLList;
    const bool map = e.converted == kMap || e.converted == kMapKeyValue || e.logical == kLMap;
    if ((list || map) && e.children.size() == 1) {
      const Element& r = elements[static_cast<size_t>(e.children[0])];
      if (r.repetition == kRepeated) {
        nodes[id].elem_def = r.max_def;
        nodes[id].rep = r.max_rep;
        if (map && r.type < 0 && r.children.size() == 2) {
          nodes[id].kind = Node::kMap;
          const int k = BuildNode(r.children[0], r.max_def, false, p);
          const int v = BuildNode(r.children[1], r.max_def, false, p);
          Adopt(id, k);
          Adopt(id, v);
          // The key is REQUIRED, but a MAP's key type is spelled nullable in
          // SQL (MAP<VARCHAR, INTEGER>): so it is here too.
          nodes[id].type = SqlType::Map(nodes[k].type.WithNullable(true), nodes[v].type,
                                        e.repetition == kOptional);
          return id;
        }
        if (list) {
          nodes[id].kind = Node::kList;
          // Three levels (list -> repeated group -> element), unless the
          // repeated field is itself the element (the legacy forms).
          const bool three = r.type < 0 && r.children.size() == 1 && r.name != "array" &&
                             r.name != e.name + "_tuple";
          const int c = three ? BuildNode(r.children[0], r.max_def, false, p)
                              : BuildNode(e.children[0], r.max_def, true, p);
          Adopt(id, c);
          nodes[id].type = SqlType::Array(nodes[c].type, e.repetition == kOptional);
          return id;
        }
      }
    }
    // A struct (and any group not shaped as its annotation says).
    nodes[id].kind = Node::kRow;
    std::vector<SqlType> types;
    for (int c : e.children) {
      const int k = BuildNode(c, e.max_def, false, p);
      Adopt(id, k);
      nodes[id].names.push_back(elements[static_cast<size_t>(c)].name);
      types.push_back(nodes[k].type);
    }
    nodes[id].type = SqlType::Row(nodes[id].names, std::move(types),
                                  as_element ? false : e.repetition == kOptional);
    return id;
  }

  void Adopt(int parent, int child) {
    nodes[parent].children.push_back(child);
    nodes[parent].leaves.insert(nodes[parent].leaves.end(), nodes[child].leaves.begin(),
                                nodes[child].leaves.end());
  }

  Status BuildSchema() {
    int next = 0;
    SLUICE_RETURN_IF_ERROR(Tree(0, 0, 0, 0, &next));
    if (static_cast<size_t>(next) != elements.size())
      return Bad("schema elements after the last field");
    for (const Element& e : elements) {
      if (e.max_def > 250 || e.max_rep > 250) return Bad("nested too deep");
    }
    nodes.reserve(elements.size() * 2);
    for (int c : elements[0].children) {
      const int id = BuildNode(c, 0, false, "");
      top.push_back(id);
      columns.push_back(
          {elements[static_cast<size_t>(c)].name, nodes[static_cast<size_t>(id)].type});
    }
    std::vector<std::string> prefix;
    LeafPaths(0, &prefix);
    for (size_t g = 0; g < groups.size(); ++g) {
      RowGroup& rg = groups[g];
      if (rg.chunks.size() != leaves.size()) {
        return Bad("row group " + std::to_string(g) + " has " + std::to_string(rg.chunks.size()) +
                   " column chunks for " + std::to_string(leaves.size()) + " leaf columns");
      }
      // Each chunk names its leaf: a chunk in another place is damage.
      for (size_t li = 0; li < leaves.size(); ++li) {
        if (!rg.paths[li].empty() && rg.paths[li] != leaf_paths[li]) {
          return Bad("row group " + std::to_string(g) + ": column chunk " + std::to_string(li) +
                     " is not for the schema's leaf in that place");
        }
      }
    }
    return Status::OK();
  }

  // The bytes of leaf `li`'s chunk in row group `g`.
  Status ChunkBytes(size_t g, size_t li, std::string* out, uint64_t* start) const {
    const ParquetChunkMeta& m = groups[g].chunks[li];
    int64_t s = m.data_page_offset;
    if (m.dictionary_page_offset > 0 && m.dictionary_page_offset < s) s = m.dictionary_page_offset;
    if (s < 4 || static_cast<uint64_t>(s) > data_end || m.total_compressed_size < 0 ||
        static_cast<uint64_t>(m.total_compressed_size) > data_end - static_cast<uint64_t>(s)) {
      return Bad("column chunk at " + std::to_string(s) + " of " +
                 std::to_string(m.total_compressed_size) + " bytes is outside the data");
    }
    *start = static_cast<uint64_t>(s);
    return Read(*start, static_cast<size_t>(m.total_compressed_size), out);
  }

  std::string Where(size_t g, size_t li) const {
    std::string p;
    for (const std::string& n : leaf_paths[li]) p += (p.empty() ? "" : ".") + n;
    return path + ": row group " + std::to_string(g) + ", column " + p;
  }

  // The names from the root down to each leaf, in leaf order.
  void LeafPaths(int ei, std::vector<std::string>* prefix) {
    const Element& e = elements[static_cast<size_t>(ei)];
    if (ei != 0) prefix->push_back(e.name);
    if (ei != 0 && e.type >= 0) leaf_paths.push_back(*prefix);
    for (int c : e.children) LeafPaths(c, prefix);
    if (ei != 0) prefix->pop_back();
  }

  struct Cursor {
    ParquetColumnData* d = nullptr;
    size_t pos = 0, vpos = 0;
    int max_def = 0, max_rep = 0;
    int Def() const { return max_def > 0 ? d->defs[pos] : 0; }
    int Rep() const { return max_rep > 0 ? d->reps[pos] : 0; }
  };

  // One column of a row group, decoded, read row by row with Next().
  struct ColumnRead {
    const Node* node = nullptr;
    int base = 0;  // the column's first leaf (its leaves are consecutive)
    std::vector<ParquetColumnData> data;
    std::vector<Cursor> cur;
    Cursor& At(int leaf) { return cur[static_cast<size_t>(leaf - base)]; }
  };

  Status Assemble(const Node& n, ColumnRead& col, Value* out) const {
    Cursor& c = col.At(n.leaves[0]);
    if (c.pos >= c.d->count) return Bad("a column ran out of values in " + n.path);
    const int d = c.Def();
    if (d < n.def) {
      if (!n.nullable) return Bad("a missing value in the required field " + n.path);
      for (int li : n.leaves) {
        Cursor& o = col.At(li);
        if (o.pos >= o.d->count) return Bad("a column ran out of values in " + n.path);
        ++o.pos;
      }
      *out = Value();
      return Status::OK();
    }
    switch (n.kind) {
      case Node::kLeaf:
        if (c.vpos >= c.d->values.size()) return Bad("a column ran out of values in " + n.path);
        *out = std::move(c.d->values[c.vpos++]);
        ++c.pos;
        return Status::OK();
      case Node::kRow: {
        std::vector<Value> fields(n.children.size());
        for (size_t i = 0; i < n.children.size(); ++i) {
          SLUICE_RETURN_IF_ERROR(
              Assemble(nodes[static_cast<size_t>(n.children[i])], col, &fields[i]));
        }
        *out = Value::List(std::move(fields));
        return Status::OK();
      }
      case Node::kList:
      case Node::kMap: {
        std::vector<Value> items, values;
        if (d < n.elem_def) {
          for (int li : n.leaves) {
            Cursor& o = col.At(li);
            if (o.pos >= o.d->count) return Bad("a column ran out of values in " + n.path);
            ++o.pos;
          }
        } else {
          // How many elements: entries at the list's level up to the next
          // entry above it.
          size_t count = 1;
          for (size_t j = c.pos + 1; j < c.d->count && c.d->reps[j] >= n.rep; ++j) {
            count += c.d->reps[j] == n.rep;
          }
          items.reserve(count);
          if (n.kind == Node::kMap) values.reserve(count);
          do {
            items.emplace_back();
            SLUICE_RETURN_IF_ERROR(
                Assemble(nodes[static_cast<size_t>(n.children[0])], col, &items.back()));
            if (n.kind == Node::kMap) {
              values.emplace_back();
              SLUICE_RETURN_IF_ERROR(
                  Assemble(nodes[static_cast<size_t>(n.children[1])], col, &values.back()));
            }
          } while (c.pos < c.d->count && c.Rep() == n.rep);
        }
        *out = n.kind == Node::kList ? Value::List(std::move(items))
                                     : Value::Map(std::move(items), std::move(values));
        return Status::OK();
      }
    }
    return Status::Internal("parquet: unknown node");
  }

  // Decodes column `column` of row group `g`, ready for Next().
  Status Load(size_t g, size_t column, ColumnRead* col) const {
    if (g >= groups.size() || column >= top.size()) {
      return Status::InvalidArgument(path + ": no row group " + std::to_string(g) + " column " +
                                     std::to_string(column));
    }
    const Node& n = nodes[static_cast<size_t>(top[column])];
    col->node = &n;
    col->base = n.leaves[0];
    col->data.assign(n.leaves.size(), ParquetColumnData());
    col->cur.assign(n.leaves.size(), Cursor());
    std::string bytes;
    for (size_t k = 0; k < n.leaves.size(); ++k) {
      const size_t li = static_cast<size_t>(n.leaves[k]);
      uint64_t start = 0;
      Status s = ChunkBytes(g, li, &bytes, &start);
      if (s.ok()) {
        s = DecodeColumnChunk(leaves[li], groups[g].chunks[li], bytes, start, &col->data[k]);
      }
      if (!s.ok()) return s.WithContext(Where(g, li));
      Cursor& c = col->At(static_cast<int>(li));
      c.d = &col->data[k];
      c.max_def = leaves[li].max_def;
      c.max_rep = leaves[li].max_rep;
    }
    if (n.kind == Node::kLeaf && col->data[0].count != static_cast<size_t>(groups[g].rows)) {
      // A flat column has a level entry per row.
      return Bad(Where(g, static_cast<size_t>(n.leaf)) + ": " + std::to_string(col->data[0].count) +
                 " values for " + std::to_string(groups[g].rows) + " rows");
    }
    return Status::OK();
  }

  // The column's value in the next row.
  Status Next(size_t g, ColumnRead& col, Value* out) const {
    const Node& n = *col.node;
    Cursor& c = col.cur[0];
    if (c.pos >= c.d->count) {
      return Bad(path + ": row group " + std::to_string(g) + ": column " + n.path +
                 " holds fewer rows than the row group");
    }
    if (n.kind == Node::kLeaf) {
      if (c.Def() == c.max_def) {
        if (c.vpos >= c.d->values.size()) {
          return Bad(Where(g, static_cast<size_t>(n.leaf)) + ": values missing");
        }
        *out = std::move(c.d->values[c.vpos++]);
      } else {
        *out = Value();
      }
      ++c.pos;
      return Status::OK();
    }
    if (c.Rep() != 0) {
      return Bad(path + ": column " + n.path + ": a row does not start at repetition level 0");
    }
    Status s = Assemble(n, col, out);
    if (!s.ok()) return s.WithContext(path + ": row group " + std::to_string(g));
    return Status::OK();
  }

  // After the last row: every level and value was read.
  Status Finish(size_t g, const ColumnRead& col) const {
    for (size_t k = 0; k < col.cur.size(); ++k) {
      const Cursor& c = col.cur[k];
      if (c.pos != c.d->count || c.vpos != c.d->values.size()) {
        return Bad(Where(g, static_cast<size_t>(col.base) + k) +
                   ": values left over after the row group's rows");
      }
    }
    return Status::OK();
  }

  Status ReadColumn(size_t g, size_t column, std::vector<Value>* values) const {
    ColumnRead col;
    SLUICE_RETURN_IF_ERROR(Load(g, column, &col));
    const size_t n = static_cast<size_t>(groups[g].rows);
    values->clear();
    values->resize(n);
    for (size_t r = 0; r < n; ++r) SLUICE_RETURN_IF_ERROR(Next(g, col, &(*values)[r]));
    return Finish(g, col);
  }

  // Reads `columns` of row group `g` into rows of `width` values, column k
  // at slots[k] (or at k without slots), each value passed through
  // `cast(row, k, value)` if there is one. Slots not filled stay NULL.
  Status ReadRows(size_t g, const std::vector<size_t>& columns, size_t width,
                  const std::vector<size_t>* slots,
                  const std::function<Status(size_t, size_t, Value*)>& cast,
                  std::vector<std::vector<Value>>* rows) const {
    std::vector<ColumnRead> cols(columns.size());
    for (size_t k = 0; k < columns.size(); ++k)
      SLUICE_RETURN_IF_ERROR(Load(g, columns[k], &cols[k]));
    const size_t n = g < groups.size() ? static_cast<size_t>(groups[g].rows) : 0;
    const size_t base = rows->size();
    rows->resize(base + n);
    for (size_t r = 0; r < n; ++r) {
      std::vector<Value>& row = (*rows)[base + r];
      row.resize(width);
      for (size_t k = 0; k < columns.size(); ++k) {
        Value& v = row[slots != nullptr ? (*slots)[k] : k];
        Status s = Next(g, cols[k], &v);
        if (s.ok() && cast) s = cast(r, k, &v);
        if (!s.ok()) {
          rows->resize(base);
          return s;
        }
      }
    }
    for (size_t k = 0; k < columns.size(); ++k) {
      Status s = Finish(g, cols[k]);
      if (!s.ok()) {
        rows->resize(base);
        return s;
      }
    }
    return Status::OK();
  }

  // Which statistics of leaf `l` are valid min/max: min_value/max_value
  // always; the older min/max only where their (signed) order is the type's.
  bool OldOrderHolds(const ParquetLeaf& l) const {
    switch (l.phys) {
      case kBoolean:
      case kInt32:
      case kInt64:
      case kFloat:
      case kDouble:
        return l.conversion != Conversion::kUInt32 && l.conversion != Conversion::kUInt64;
      default:
        return false;
    }
  }

  ParquetColumnStats Stats(size_t g, size_t column) const {
    ParquetColumnStats s;
    s.has_null_count = false;
    if (g >= groups.size() || column >= top.size()) return s;
    const Node& n = nodes[static_cast<size_t>(top[column])];
    if (n.kind != Node::kLeaf) return s;
    const ParquetLeaf& l = leaves[static_cast<size_t>(n.leaf)];
    const ParquetChunkMeta& m = groups[g].chunks[static_cast<size_t>(n.leaf)];
    s.has_null_count = m.has_null_count && m.null_count >= 0;
    s.null_count = s.has_null_count ? static_cast<uint64_t>(m.null_count) : 0;
    if (!l.unsupported.empty() || l.conversion == Conversion::kJson ||
        l.conversion == Conversion::kInterval || l.conversion == Conversion::kFloat16 ||
        l.phys == kInt96) {
      return s;
    }
    if (!m.has_min || !m.has_max || (m.min_max_deprecated && !OldOrderHolds(l))) return s;
    auto bound = [&](const std::string& raw, Value* v) {
      if (!DecodePlainValue(l, raw, v).ok()) return false;
      return !(v->kind() == Value::Kind::kDouble && v->double_value() != v->double_value());
    };
    const bool have_min = bound(m.min, &s.min);
    const bool have_max = bound(m.max, &s.max);
    s.has_min_max = have_min && have_max;
    if (!s.has_min_max) s.min = s.max = Value();
    return s;
  }
};

ParquetReader::ParquetReader() : impl_(std::make_unique<Impl>()) {}
ParquetReader::~ParquetReader() = default;

Result<std::unique_ptr<ParquetReader>> ParquetReader::Open(const std::string& path) {
  std::unique_ptr<ParquetReader> r(new ParquetReader());
  SLUICE_ASSIGN_OR_RETURN(r->impl_->file, RandomAccessFile::Open(path));
  r->impl_->path = path;
  r->impl_->size = r->impl_->file->size();
  Status s = r->impl_->Init();
  if (!s.ok()) return s.WithContext(path);
  return r;
}

Result<std::unique_ptr<ParquetReader>> ParquetReader::FromBytes(std::string name,
                                                                std::string bytes) {
  std::unique_ptr<ParquetReader> r(new ParquetReader());
  r->impl_->path = std::move(name);
  r->impl_->bytes = std::move(bytes);
  r->impl_->size = r->impl_->bytes.size();
  Status s = r->impl_->Init();
  if (!s.ok()) return s.WithContext(r->impl_->path);
  return r;
}

const std::string& ParquetReader::path() const { return impl_->path; }
const std::vector<ParquetColumn>& ParquetReader::columns() const { return impl_->columns; }
uint64_t ParquetReader::rows() const { return static_cast<uint64_t>(impl_->rows); }
size_t ParquetReader::row_groups() const { return impl_->groups.size(); }
uint64_t ParquetReader::row_group_rows(size_t group) const {
  return group < impl_->groups.size() ? static_cast<uint64_t>(impl_->groups[group].rows) : 0;
}
const std::string& ParquetReader::created_by() const { return impl_->created_by; }

ParquetColumnStats ParquetReader::Stats(size_t group, size_t column) const {
  return impl_->Stats(group, column);
}

ParquetColumnStats ParquetReader::FileStats(size_t column) const {
  ParquetColumnStats f;
  f.has_null_count = true;
  bool bounds = true, any = false;
  for (size_t g = 0; g < impl_->groups.size(); ++g) {
    const ParquetColumnStats s = Stats(g, column);
    f.has_null_count = f.has_null_count && s.has_null_count;
    f.null_count += s.null_count;
    if (!s.has_min_max) {
      const bool all_null =
          s.has_null_count && s.null_count == static_cast<uint64_t>(impl_->groups[g].rows);
      bounds = bounds && all_null;
      continue;
    }
    if (!any || sql::CompareValues(s.min, f.min) < 0) f.min = s.min;
    if (!any || sql::CompareValues(s.max, f.max) > 0) f.max = s.max;
    any = true;
  }
  if (!f.has_null_count) f.null_count = 0;
  f.has_min_max = bounds && any;
  if (!f.has_min_max) f.min = f.max = Value();
  return f;
}

Status ParquetReader::ReadColumn(size_t group, size_t column, std::vector<Value>* values) const {
  return impl_->ReadColumn(group, column, values);
}

Status ParquetReader::ReadRowGroup(size_t group, const std::vector<size_t>& columns,
                                   std::vector<std::vector<Value>>* rows) const {
  return impl_->ReadRows(group, columns, columns.size(), nullptr, nullptr, rows);
}

Result<ParquetProjection> ParquetReader::Project(const std::vector<ParquetColumn>& target) const {
  ParquetProjection p;
  const std::vector<ParquetColumn>& file = impl_->columns;
  for (const ParquetColumn& t : target) {
    int src = -1;
    for (size_t i = 0; i < file.size() && src < 0; ++i) {
      if (file[i].name == t.name) src = static_cast<int>(i);
    }
    for (size_t i = 0; i < file.size() && src < 0; ++i) {
      if (Lower(file[i].name) == Lower(t.name)) src = static_cast<int>(i);
    }
    if (src < 0) {
      if (!t.type.nullable()) {
        return Status::InvalidArgument(impl_->path + ": no column " + t.name +
                                       " for the NOT NULL column of that name");
      }
      p.source.push_back(-1);
      p.from.push_back(t.type);
      p.to.push_back(t.type);
      continue;
    }
    const SqlType& from = file[static_cast<size_t>(src)].type;
    if (!Lossless(from, t.type)) {
      return Status::InvalidArgument(impl_->path + ": column " + t.name + " of type " +
                                     from.ToString() + " does not cast to " + t.type.ToString() +
                                     " without loss");
    }
    p.source.push_back(src);
    p.from.push_back(from);
    p.to.push_back(t.type);
  }
  return p;
}

Status ParquetReader::ReadRowGroup(size_t group, const ParquetProjection& projection,
                                   std::vector<std::vector<Value>>* rows) const {
  // Columns the file has are read; the others stay NULL.
  std::vector<size_t> read;
  std::vector<size_t> slot;
  for (size_t k = 0; k < projection.source.size(); ++k) {
    if (projection.source[k] >= 0) {
      read.push_back(static_cast<size_t>(projection.source[k]));
      slot.push_back(k);
    }
  }
  auto cast = [&](size_t r, size_t k, Value* v) -> Status {
    const SqlType& from = projection.from[slot[k]];
    const SqlType& to = projection.to[slot[k]];
    if (from == to) return Status::OK();
    Value out;
    Status s = Cast(*v, from, to, &out);
    if (!s.ok()) {
      return s.WithContext(impl_->path + ": row group " + std::to_string(group) + ", row " +
                           std::to_string(r) + ", column " + impl_->columns[read[k]].name);
    }
    *v = std::move(out);
    return Status::OK();
  };
  return impl_->ReadRows(group, read, projection.source.size(), &slot, cast, rows);
}

}  // namespace sluice::format
