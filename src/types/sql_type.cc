#include "types/sql_type.h"

#include <algorithm>

#include "base/check.h"
#include "types/value.h"

namespace sluice {

SqlType SqlType::Decimal(int precision, int scale, bool nullable) {
  SLUICE_CHECK(precision >= 1 && precision <= kMaxDecimalPrecision && scale >= 0 &&
               scale <= precision && scale <= kMaxDecimalDigits);
  SqlType t = Scalar(TypeId::kDecimal, nullable);
  t.precision_ = precision;
  t.scale_ = scale;
  return t;
}

SqlType SqlType::Numeric(bool nullable) {
  SqlType t = Scalar(TypeId::kDecimal, nullable);
  t.precision_ = kMaxDecimalDigits;
  t.scale_ = kDynamicScale;
  return t;
}

SqlType SqlType::Char(int length, bool nullable) {
  SqlType t = Scalar(TypeId::kChar, nullable);
  t.precision_ = length;
  return t;
}

SqlType SqlType::Varchar(int length, bool nullable) {
  SqlType t = Scalar(TypeId::kVarchar, nullable);
  t.precision_ = length;
  return t;
}

SqlType SqlType::Binary(int length, bool nullable) {
  SqlType t = Scalar(TypeId::kBinary, nullable);
  t.precision_ = length;
  return t;
}

SqlType SqlType::Varbinary(int length, bool nullable) {
  SqlType t = Scalar(TypeId::kVarbinary, nullable);
  t.precision_ = length;
  return t;
}

SqlType SqlType::Array(SqlType element, bool nullable) {
  SqlType t = Scalar(TypeId::kArray, nullable);
  t.children_.push_back(std::move(element));
  return t;
}

SqlType SqlType::Int2Vector(bool nullable) {
  SqlType t = Array(SmallInt(), nullable);
  t.pg_kind_ = PgKind::kInt2Vector;
  return t;
}

SqlType SqlType::OidVector(bool nullable) {
  SqlType t = Array(Oid(), nullable);
  t.pg_kind_ = PgKind::kOidVector;
  return t;
}

SqlType SqlType::Point(bool nullable) {
  SqlType t = Array(Double(), nullable);
  t.pg_kind_ = PgKind::kPoint;
  return t;
}

SqlType SqlType::Map(SqlType key, SqlType value, bool nullable) {
  SqlType t = Scalar(TypeId::kMap, nullable);
  t.children_.push_back(std::move(key));
  t.children_.push_back(std::move(value));
  return t;
}

SqlType SqlType::Row(std::vector<std::string> names, std::vector<SqlType> fields, bool nullable) {
  SLUICE_CHECK(names.size() == fields.size());
  SqlType t = Scalar(TypeId::kRow, nullable);
  t.field_names_ = std::move(names);
  t.children_ = std::move(fields);
  return t;
}

std::string SqlType::ToString() const {
  auto with_length = [this](const char* name) {
    std::string s = name;
    if (precision_ >= 0) s += "(" + std::to_string(precision_) + ")";
    return s;
  };
  std::string s;
  switch (id_) {
    case TypeId::kBoolean:
      s = "BOOLEAN";
      break;
    case TypeId::kTinyInt:
      s = "TINYINT";
      break;
    case TypeId::kSmallInt:
      s = "SMALLINT";
      break;
    case TypeId::kInteger:
      s = "INTEGER";
      break;
    case TypeId::kBigInt:
      s = pg_kind_ == PgKind::kOid ? "OID" : pg_kind_ == PgKind::kMoney ? "MONEY" : "BIGINT";
      break;
    case TypeId::kDecimal:
      s = dynamic_scale()
              ? "NUMERIC"
              : "DECIMAL(" + std::to_string(precision_) + "," + std::to_string(scale_) + ")";
      break;
    case TypeId::kReal:
      s = "REAL";
      break;
    case TypeId::kDouble:
      s = "DOUBLE";
      break;
    case TypeId::kChar:
      s = with_length("CHAR");
      break;
    case TypeId::kVarchar:
      s = json_ == 2                      ? "JSONB"
          : json_ == 1                    ? "JSON"
          : pg_kind_ == PgKind::kJsonPath ? "JSONPATH"
                                          : with_length("VARCHAR");
      break;
    case TypeId::kBinary:
      s = with_length("BINARY");
      break;
    case TypeId::kVarbinary:
      s = with_length("VARBINARY");
      break;
    case TypeId::kDate:
      s = "DATE";
      break;
    case TypeId::kTime:
      s = with_time_zone_ ? "TIME WITH TIME ZONE" : "TIME";
      break;
    case TypeId::kTimestamp:
      s = with_time_zone_ ? "TIMESTAMP WITH TIME ZONE" : "TIMESTAMP";
      break;
    case TypeId::kInterval:
      s = "INTERVAL";
      break;
    case TypeId::kArray:
      s = pg_kind_ == PgKind::kInt2Vector  ? "INT2VECTOR"
          : pg_kind_ == PgKind::kOidVector ? "OIDVECTOR"
          : pg_kind_ == PgKind::kPoint     ? "POINT"
                                           : children_[0].ToString() + " ARRAY";
      break;
    case TypeId::kMap:
      s = "MAP<" + children_[0].ToString() + ", " + children_[1].ToString() + ">";
      break;
    case TypeId::kRow:
      s = "ROW(";
      for (size_t i = 0; i < children_.size(); ++i) {
        if (i > 0) s += ", ";
        s += field_names_[i] + " " + children_[i].ToString();
      }
      s += ")";
      break;
    case TypeId::kVariant:
      s = "VARIANT";
      break;
  }
  if (!nullable_) s += " NOT NULL";
  return s;
}

std::string PostgresDataType(const SqlType& t) {
  switch (t.id()) {
    case TypeId::kBoolean:
      return "boolean";
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
      return "smallint";
    case TypeId::kInteger:
      return "integer";
    case TypeId::kBigInt:
      return t.pg_kind() == PgKind::kOid     ? "oid"
             : t.pg_kind() == PgKind::kMoney ? "money"
                                             : "bigint";
    case TypeId::kDecimal:
      return "numeric";
    case TypeId::kReal:
      return "real";
    case TypeId::kDouble:
      return "double precision";
    case TypeId::kChar:
      return "character";
    case TypeId::kVarchar:
      if (t.is_json()) return t.is_jsonb() ? "jsonb" : "json";
      if (t.pg_kind() == PgKind::kJsonPath) return "jsonpath";
      return t.precision() >= 0 ? "character varying" : "text";
    case TypeId::kBinary:
    case TypeId::kVarbinary:
      return "bytea";
    case TypeId::kDate:
      return "date";
    case TypeId::kTime:
      return t.with_time_zone() ? "time with time zone" : "time without time zone";
    case TypeId::kTimestamp:
      return t.with_time_zone() ? "timestamp with time zone" : "timestamp without time zone";
    case TypeId::kInterval:
      return "interval";
    case TypeId::kArray:
      return t.pg_kind() == PgKind::kInt2Vector  ? "int2vector"
             : t.pg_kind() == PgKind::kOidVector ? "oidvector"
             : t.pg_kind() == PgKind::kPoint     ? "point"
                                                 : "ARRAY";
    case TypeId::kRow:
      return "record";
    case TypeId::kMap:
    case TypeId::kVariant:
      return "USER-DEFINED";
  }
  return "USER-DEFINED";
}

std::string SchemaToString(const Schema& schema) {
  std::string s = "(";
  for (size_t i = 0; i < schema.size(); ++i) {
    if (i > 0) s += ", ";
    s += schema[i].ToString();
  }
  return s + ")";
}

namespace {

struct PgBase {
  uint32_t oid, array_oid;
  const char* typname;
  const char* array_typname;
  const char* formatted;  // format_type's spelling without a typmod
  int16_t size;
};

constexpr PgBase kPgBases[] = {
    {16, 1000, "bool", "_bool", "boolean", 1},
    {17, 1001, "bytea", "_bytea", "bytea", -1},
    {20, 1016, "int8", "_int8", "bigint", 8},
    {21, 1005, "int2", "_int2", "smallint", 2},
    {22, 1006, "int2vector", "_int2vector", "int2vector", -1},
    {23, 1007, "int4", "_int4", "integer", 4},
    {25, 1009, "text", "_text", "text", -1},
    {26, 1028, "oid", "_oid", "oid", 4},
    {30, 1013, "oidvector", "_oidvector", "oidvector", -1},
    {114, 199, "json", "_json", "json", -1},
    {600, 1017, "point", "_point", "point", 16},
    {790, 791, "money", "_money", "money", 8},
    {700, 1021, "float4", "_float4", "real", 4},
    {701, 1022, "float8", "_float8", "double precision", 8},
    {1042, 1014, "bpchar", "_bpchar", "character", -1},
    {1043, 1015, "varchar", "_varchar", "character varying", -1},
    {1082, 1182, "date", "_date", "date", 4},
    {1083, 1183, "time", "_time", "time without time zone", 8},
    {1114, 1115, "timestamp", "_timestamp", "timestamp without time zone", 8},
    {1184, 1185, "timestamptz", "_timestamptz", "timestamp with time zone", 8},
    {1186, 1187, "interval", "_interval", "interval", 16},
    {1266, 1270, "timetz", "_timetz", "time with time zone", 12},
    {1700, 1231, "numeric", "_numeric", "numeric", -1},
    {2249, 2287, "record", "_record", "record", -1},
    {3802, 3807, "jsonb", "_jsonb", "jsonb", -1},
    {4072, 4073, "jsonpath", "_jsonpath", "jsonpath", -1},
};

const PgBase& BaseOf(const SqlType& t) {
  auto find = [](uint32_t oid) -> const PgBase& {
    for (const PgBase& b : kPgBases) {
      if (b.oid == oid) return b;
    }
    return kPgBases[0];
  };
  switch (t.id()) {
    case TypeId::kBoolean:
      return find(16);
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
      return find(21);
    case TypeId::kInteger:
      return find(23);
    case TypeId::kBigInt:
      return find(t.pg_kind() == PgKind::kOid ? 26 : t.pg_kind() == PgKind::kMoney ? 790 : 20);
    case TypeId::kDecimal:
      return find(1700);
    case TypeId::kReal:
      return find(700);
    case TypeId::kDouble:
      return find(701);
    case TypeId::kChar:
      return find(1042);
    case TypeId::kVarchar:
      if (t.is_json()) return find(t.is_jsonb() ? 3802 : 114);
      if (t.pg_kind() == PgKind::kJsonPath) return find(4072);
      return find(t.length() >= 0 ? 1043 : 25);
    case TypeId::kBinary:
    case TypeId::kVarbinary:
      return find(17);
    case TypeId::kDate:
      return find(1082);
    case TypeId::kTime:
      return find(t.with_time_zone() ? 1266 : 1083);
    case TypeId::kTimestamp:
      return find(t.with_time_zone() ? 1184 : 1114);
    case TypeId::kInterval:
      return find(1186);
    case TypeId::kRow:
      return find(2249);
    case TypeId::kArray:
      // Other arrays are resolved to their element.
      if (t.pg_kind() == PgKind::kInt2Vector) return find(22);
      if (t.pg_kind() == PgKind::kOidVector) return find(30);
      if (t.pg_kind() == PgKind::kPoint) return find(600);
      return find(114);
    case TypeId::kMap:
    case TypeId::kVariant:
      return find(114);
  }
  return find(114);
}

}  // namespace

PgTypeInfo PgTypeOf(const SqlType& t) {
  PgTypeInfo info;
  if (t.IsSqlArray()) {
    // PostgreSQL has one array type per element type, whatever the number
    // of dimensions.
    const SqlType* element = &t;
    while (element->IsSqlArray()) element = &element->children()[0];
    const PgTypeInfo e = PgTypeOf(*element);
    const PgBase& b = BaseOf(*element);
    info.oid = b.array_oid;
    info.typmod = e.typmod;
    info.name = e.name + "[]";
    return info;
  }
  const PgBase& b = BaseOf(t);
  info.oid = b.oid;
  info.size = b.size;
  info.name = b.formatted;
  if ((t.id() == TypeId::kChar || t.id() == TypeId::kVarchar) && t.length() >= 0) {
    info.typmod = t.length() + 4;
    info.name += "(" + std::to_string(t.length()) + ")";
  } else if (t.id() == TypeId::kDecimal && t.precision() > 0 && !t.dynamic_scale()) {
    info.typmod = ((t.precision() << 16) | t.scale()) + 4;
    info.name += "(" + std::to_string(t.precision()) + "," + std::to_string(t.scale()) + ")";
  }
  return info;
}

std::string PgTypeName(uint32_t oid) {
  for (const PgBase& b : kPgBases) {
    if (b.oid == oid) return b.typname;
    if (b.array_oid == oid) return b.array_typname;
  }
  return "";
}

const std::vector<std::pair<uint32_t, std::string>>& PgTypes() {
  static const auto* types = [] {
    auto* v = new std::vector<std::pair<uint32_t, std::string>>;
    for (const PgBase& b : kPgBases) {
      v->emplace_back(b.oid, b.typname);
      v->emplace_back(b.array_oid, b.array_typname);
    }
    std::sort(v->begin(), v->end());
    return v;
  }();
  return *types;
}

namespace {

const PgBase* FindBase(uint32_t oid, bool* is_array) {
  for (const PgBase& b : kPgBases) {
    if (b.oid == oid || b.array_oid == oid) {
      *is_array = b.array_oid == oid;
      return &b;
    }
  }
  return nullptr;
}

// pg_type.typcategory of a base type: PostgreSQL's letters.
char CategoryOf(uint32_t oid) {
  switch (oid) {
    case 16:
      return 'B';
    case 17:
      return 'U';
    case 20:
    case 21:
    case 23:
    case 26:
    case 790:
    case 700:
    case 701:
    case 1700:
      return 'N';
    case 25:
    case 1042:
    case 1043:
      return 'S';
    case 1082:
    case 1083:
    case 1114:
    case 1184:
    case 1266:
      return 'D';
    case 1186:
      return 'T';
    case 2249:
      return 'P';
    case 22:
    case 30:
      return 'A';
    case 600:
      return 'G';
    default:
      return 'U';
  }
}

}  // namespace

std::string PgFormatType(uint32_t oid, int32_t typmod, bool has_typmod) {
  bool is_array = false;
  const PgBase* b = FindBase(oid, &is_array);
  if (b == nullptr) return "???";
  std::string s = b->formatted;
  if (typmod >= 4 && (b->oid == 1042 || b->oid == 1043)) {
    s += "(" + std::to_string(typmod - 4) + ")";
  } else if (typmod >= 4 && b->oid == 1700) {
    const int32_t m = typmod - 4;
    s += "(" + std::to_string(m >> 16) + "," + std::to_string(m & 0xffff) + ")";
  } else if (has_typmod && typmod < 0 && b->oid == 1042) {
    s = "bpchar";  // character without a length is PostgreSQL's bpchar
  }
  return is_array ? s + "[]" : s;
}

PgTypeFacts PgTypeFactsOf(uint32_t oid) {
  bool is_array = false;
  const PgBase* b = FindBase(oid, &is_array);
  PgTypeFacts f;
  if (b == nullptr) return f;
  if (is_array) {
    f.element = b->oid;
    f.category = 'A';
  } else {
    f.size = b->size;
    f.array = b->array_oid;
    // The vectors and point are subscripted as arrays of these.
    f.element = b->oid == 22 ? 21 : b->oid == 30 ? 26 : b->oid == 600 ? 701 : 0;
    f.category = CategoryOf(b->oid);
  }
  f.collatable = b->oid == 25 || b->oid == 1042 || b->oid == 1043;
  return f;
}

}  // namespace sluice
