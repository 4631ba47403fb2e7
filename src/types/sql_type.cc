#include "types/sql_type.h"

#include "base/check.h"

namespace sluice {

SqlType SqlType::Decimal(int precision, int scale, bool nullable) {
  SLUICE_CHECK(precision >= 1 && precision <= 38 && scale >= 0 && scale <= precision);
  SqlType t = Scalar(TypeId::kDecimal, nullable);
  t.precision_ = precision;
  t.scale_ = scale;
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
      s = "BIGINT";
      break;
    case TypeId::kDecimal:
      s = "DECIMAL(" + std::to_string(precision_) + "," + std::to_string(scale_) + ")";
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
      s = with_length("VARCHAR");
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
      s = "TIME";
      break;
    case TypeId::kTimestamp:
      s = "TIMESTAMP";
      break;
    case TypeId::kInterval:
      s = "INTERVAL";
      break;
    case TypeId::kArray:
      s = children_[0].ToString() + " ARRAY";
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
      return "bigint";
    case TypeId::kDecimal:
      return "numeric";
    case TypeId::kReal:
      return "real";
    case TypeId::kDouble:
      return "double precision";
    case TypeId::kChar:
      return "character";
    case TypeId::kVarchar:
      return t.precision() >= 0 ? "character varying" : "text";
    case TypeId::kBinary:
    case TypeId::kVarbinary:
      return "bytea";
    case TypeId::kDate:
      return "date";
    case TypeId::kTime:
      return "time without time zone";
    case TypeId::kTimestamp:
      return "timestamp without time zone";
    case TypeId::kInterval:
      return "interval";
    case TypeId::kArray:
      return "ARRAY";
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

}  // namespace sluice
