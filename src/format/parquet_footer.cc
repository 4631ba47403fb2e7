#include "format/parquet_footer.h"

#include "format/parquet_thrift.h"

namespace sluice::format::parquet {
namespace {

Status Bad(std::string what) { return Status::Corruption(std::move(what)); }

// Reads a struct's fields with `field(id, type)`, which returns false for
// a field it does not take (skipped).
template <typename F>
void Fields(ThriftDecoder& d, F field) {
  int16_t id;
  uint8_t type;
  while (d.NextField(&id, &type)) {
    if (!field(id, type)) d.Skip(type);
  }
}

// Reads a struct-typed value with `field`.
template <typename F>
void Struct(ThriftDecoder& d, F field) {
  d.BeginStruct();
  Fields(d, field);
  d.EndStruct();
}

// Reads a list of structs, each with `elem(i)` which reads its fields.
template <typename F>
void StructList(ThriftDecoder& d, uint8_t type, F elem) {
  if (type != thrift::kList) {
    d.Skip(type);
    return;
  }
  uint8_t et;
  uint32_t n;
  d.ReadListHeader(&et, &n);
  for (uint32_t i = 0; i < n && d.ok(); ++i) {
    if (et != thrift::kStruct) {
      d.Skip(et);
      continue;
    }
    d.BeginStruct();
    elem(i);
    d.EndStruct();
  }
}

bool I32(ThriftDecoder& d, uint8_t type, int32_t* v) {
  if (type != thrift::kI32) return false;
  d.ReadI32(v);
  return true;
}
bool I64(ThriftDecoder& d, uint8_t type, int64_t* v) {
  if (type != thrift::kI64) return false;
  d.ReadI64(v);
  return true;
}
bool Bin(ThriftDecoder& d, uint8_t type, std::string* v) {
  if (type != thrift::kBinary) return false;
  d.ReadBinary(v);
  return true;
}

void ReadLogical(ThriftDecoder& d, Element* e) {
  Struct(d, [&](int16_t id, uint8_t type) {
    if (type != thrift::kStruct) return false;
    e->logical = id;
    Struct(d, [&](int16_t f, uint8_t t) {
      switch (id) {
        case kLDecimal:
          return f == 1 ? I32(d, t, &e->l_scale) : f == 2 ? I32(d, t, &e->l_precision) : false;
        case kLTime:
        case kLTimestamp:
          if (f == 1 && (t == thrift::kTrue || t == thrift::kFalse)) {
            e->l_adjusted = d.BoolOf(t);
            return true;
          }
          if (f == 2 && t == thrift::kStruct) {
            Struct(d, [&](int16_t u, uint8_t ut) {
              if (ut != thrift::kStruct) return false;
              e->l_unit = u;
              d.Skip(ut);
              return true;
            });
            return true;
          }
          return false;
        case kLInteger:
          if (f == 1 && t == thrift::kByte) {
            int8_t b;
            d.ReadByte(&b);
            e->l_bits = b;
            return true;
          }
          if (f == 2 && (t == thrift::kTrue || t == thrift::kFalse)) {
            e->l_signed = d.BoolOf(t);
            return true;
          }
          return false;
        default:
          return false;
      }
    });
    return true;
  });
}

void ReadStatistics(ThriftDecoder& d, ParquetChunkMeta* m) {
  std::string old_min, old_max;
  bool has_old_min = false, has_old_max = false;
  Struct(d, [&](int16_t id, uint8_t type) {
    switch (id) {
      case 1:
        return has_old_max = Bin(d, type, &old_max);
      case 2:
        return has_old_min = Bin(d, type, &old_min);
      case 3:
        return m->has_null_count = I64(d, type, &m->null_count);
      case 5:
        return m->has_max = Bin(d, type, &m->max);
      case 6:
        return m->has_min = Bin(d, type, &m->min);
    }
    return false;
  });
  // The older fields, where the newer are not: valid only for some types
  // (see OldOrderHolds).
  if (!m->has_min && !m->has_max && has_old_min && has_old_max) {
    m->has_min = m->has_max = m->min_max_deprecated = true;
    m->min = std::move(old_min);
    m->max = std::move(old_max);
  }
}

}  // namespace

Status ParseFooter(std::string_view footer, FileMeta* meta) {
  std::vector<Element>& elements = meta->elements;
  std::vector<RowGroup>& groups = meta->groups;
  int64_t& rows = meta->rows;
  std::string& created_by = meta->created_by;
  ThriftDecoder d(reinterpret_cast<const uint8_t*>(footer.data()), footer.size());
  bool has_schema = false, has_rows = false;
  Fields(d, [&](int16_t id, uint8_t type) {
    switch (id) {
      case 2:
        has_schema = true;
        StructList(d, type, [&](uint32_t) {
          elements.emplace_back();
          Element& e = elements.back();
          Fields(d, [&](int16_t f, uint8_t t) {
            switch (f) {
              case 1:
                return I32(d, t, &e.type);
              case 2:
                return I32(d, t, &e.type_length);
              case 3:
                return I32(d, t, &e.repetition);
              case 4:
                return Bin(d, t, &e.name);
              case 5:
                return I32(d, t, &e.num_children);
              case 6:
                return I32(d, t, &e.converted);
              case 7:
                return I32(d, t, &e.scale);
              case 8:
                return I32(d, t, &e.precision);
              case 10:
                if (t != thrift::kStruct) return false;
                ReadLogical(d, &e);
                return true;
            }
            return false;
          });
        });
        return true;
      case 3:
        return has_rows = I64(d, type, &rows);
      case 4:
        StructList(d, type, [&](uint32_t) {
          groups.emplace_back();
          RowGroup& g = groups.back();
          Fields(d, [&](int16_t f, uint8_t t) {
            if (f == 3) return I64(d, t, &g.rows);
            if (f != 1) return false;
            StructList(d, t, [&](uint32_t) {
              g.chunks.emplace_back();
              g.paths.emplace_back();
              ParquetChunkMeta& m = g.chunks.back();
              Fields(d, [&](int16_t cf, uint8_t ct) {
                if (cf == 1 && ct == thrift::kBinary) {
                  std::string other;
                  d.ReadBinary(&other);
                  if (!other.empty()) d.Fail("column chunks in other files are not supported");
                  return true;
                }
                if (cf != 3 || ct != thrift::kStruct) return false;
                Struct(d, [&](int16_t mf, uint8_t mt) {
                  switch (mf) {
                    case 3: {
                      if (mt != thrift::kList) return false;
                      uint8_t et;
                      uint32_t n;
                      d.ReadListHeader(&et, &n);
                      for (uint32_t i = 0; i < n && d.ok(); ++i) {
                        if (et != thrift::kBinary) {
                          d.Skip(et);
                          continue;
                        }
                        g.paths.back().emplace_back();
                        d.ReadBinary(&g.paths.back().back());
                      }
                      return true;
                    }
                    case 4:
                      return I32(d, mt, &m.codec);
                    case 5:
                      return I64(d, mt, &m.num_values);
                    case 7:
                      return I64(d, mt, &m.total_compressed_size);
                    case 9:
                      return I64(d, mt, &m.data_page_offset);
                    case 11:
                      return I64(d, mt, &m.dictionary_page_offset);
                    case 12:
                      if (mt != thrift::kStruct) return false;
                      ReadStatistics(d, &m);
                      return true;
                  }
                  return false;
                });
                return true;
              });
            });
            return true;
          });
        });
        return true;
      case 6:
        return Bin(d, type, &created_by);
    }
    return false;
  });
  SLUICE_RETURN_IF_ERROR(d.status());
  if (!has_schema || elements.empty()) return Bad("no schema");
  if (!has_rows || rows < 0) return Bad("no row count");
  int64_t sum = 0;
  for (const RowGroup& g : groups) {
    if (g.rows < 0 || g.rows > rows - sum) return Bad("row groups hold more rows than the file");
    sum += g.rows;
  }
  if (sum != rows) {
    return Bad("row groups hold " + std::to_string(sum) + " rows, the file " +
               std::to_string(rows));
  }
  return Status::OK();
}

// How a leaf's physical and logical type map to SQL (see the header).
void MapLeaf(const Element& e, ParquetLeaf* l) {
  l->phys = static_cast<Phys>(e.type);
  l->type_length = e.type_length;
  const bool nullable = e.repetition != kRequired;
  auto set = [&](SqlType t, Conversion c) {
    l->type = t.WithNullable(nullable);
    l->conversion = c;
  };
  auto unsupported = [&](const std::string& why) {
    set(SqlType::Varbinary(), Conversion::kBytes);
    l->unsupported = "column " + e.name + ": " + why;
  };
  int logical = e.logical;
  // The older converted type, where there is no logical type.
  int bits = e.l_bits;
  bool is_signed = e.l_signed;
  int unit = e.l_unit;
  int precision = e.l_precision, scale = e.l_scale;
  if (logical == 0) {
    switch (e.converted) {
      case kUtf8:
        logical = kLString;
        break;
      case kEnum:
        logical = kLEnum;
        break;
      case kDecimal:
        logical = kLDecimal;
        precision = e.precision;
        scale = e.scale;
        break;
      case kDate:
        logical = kLDate;
        break;
      case kTimeMillis:
      case kTimeMicros:
        logical = kLTime;
        unit = e.converted == kTimeMillis ? 1 : 2;
        break;
      case kTimestampMillis:
      case kTimestampMicros:
        logical = kLTimestamp;
        unit = e.converted == kTimestampMillis ? 1 : 2;
        break;
      case kUint8:
      case kUint16:
      case kUint32:
      case kUint64:
        logical = kLInteger;
        bits = 8 << (e.converted - kUint8);
        is_signed = false;
        break;
      case kInt8:
      case kInt16:
      case kInt32Converted:
      case kInt64Converted:
        logical = kLInteger;
        bits = 8 << (e.converted - kInt8);
        is_signed = true;
        break;
      case kJson:
        logical = kLJson;
        break;
      case kBson:
        logical = kLBson;
        break;
      case kInterval:
        logical = kInterval + 100;  // no logical type of its own
        break;
      default:
        break;
    }
  }
  if (logical == kLDecimal) {
    if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
      return unsupported("DECIMAL(" + std::to_string(precision) + "," + std::to_string(scale) +
                         ") (at most 38 digits are supported)");
    }
    const bool fits =
        (l->phys == kInt32 && precision <= 9) || (l->phys == kInt64 && precision <= 18) ||
        (l->phys == kFixed && l->type_length >= 1 && l->type_length <= 16) || l->phys == kByteArray;
    if (!fits)
      return unsupported("DECIMAL(" + std::to_string(precision) + ") in this physical type");
    return set(SqlType::Decimal(precision, scale), Conversion::kDecimal);
  }
  switch (l->phys) {
    case kBoolean:
      return set(SqlType::Boolean(), Conversion::kBool);
    case kInt32:
      if (logical == kLDate) return set(SqlType::Date(), Conversion::kInt);
      if (logical == kLTime) {
        if (unit != 1) return unsupported("TIME in INT32 other than MILLIS");
        return set(SqlType::Time(), Conversion::kMillisToMicros);
      }
      if (logical == kLInteger && !is_signed) {
        if (bits == 8) return set(SqlType::SmallInt(), Conversion::kInt);
        if (bits == 16) return set(SqlType::Integer(), Conversion::kInt);
        return set(SqlType::BigInt(), Conversion::kUInt32);
      }
      if (logical == kLInteger && bits == 8) return set(SqlType::TinyInt(), Conversion::kInt);
      if (logical == kLInteger && bits == 16) return set(SqlType::SmallInt(), Conversion::kInt);
      return set(SqlType::Integer(), Conversion::kInt);
    case kInt64:
      if (logical == kLTime || logical == kLTimestamp) {
        const SqlType t = logical == kLTime ? SqlType::Time() : SqlType::Timestamp();
        if (unit == 1) return set(t, Conversion::kMillisToMicros);
        if (unit == 3) return set(t, Conversion::kNanosToMicros);
        return set(t, Conversion::kInt);
      }
      if (logical == kLInteger && !is_signed && bits == 64) {
        return set(SqlType::Decimal(20, 0), Conversion::kUInt64);
      }
      return set(SqlType::BigInt(), Conversion::kInt);
    case kInt96:
      return set(SqlType::Timestamp(), Conversion::kInt);
    case kFloat:
      return set(SqlType::Real(), Conversion::kFloat);
    case kDouble:
      return set(SqlType::Double(), Conversion::kFloat);
    case kByteArray:
      if (logical == kLString || logical == kLEnum)
        return set(SqlType::Varchar(), Conversion::kBytes);
      if (logical == kLJson) return set(SqlType::Variant(), Conversion::kJson);
      return set(SqlType::Varbinary(), Conversion::kBytes);
    case kFixed:
      if (l->type_length < 1 || l->type_length > (1 << 20)) {
        return unsupported("FIXED_LEN_BYTE_ARRAY of " + std::to_string(l->type_length) + " bytes");
      }
      if (logical == kLUuid && l->type_length == 16)
        return set(SqlType::Varchar(), Conversion::kUuid);
      if (logical == kLFloat16 && l->type_length == 2)
        return set(SqlType::Real(), Conversion::kFloat16);
      if (logical == kInterval + 100 && l->type_length == 12) {
        return set(SqlType::Interval(), Conversion::kInterval);
      }
      return set(SqlType::Binary(l->type_length), Conversion::kBytes);
    default:
      return unsupported("physical type " + std::to_string(e.type));
  }
}

}  // namespace sluice::format::parquet
