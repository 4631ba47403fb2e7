// SQL types (DESIGN.md section 3). Every type may be nullable or NOT NULL;
// composite types (ARRAY, MAP, ROW) hold their element types as children.
//
// A Schema is the list of a row's column types. Rows are encoded by
// row_codec.h; this file only describes types.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sluice {

enum class TypeId : uint8_t {
  kBoolean,
  kTinyInt,
  kSmallInt,
  kInteger,
  kBigInt,
  kDecimal,  // precision 1..1000, scale 0..min(precision, 38); or NUMERIC
             // unconstrained: precision 38, each value with its own scale
  kReal,
  kDouble,
  kChar,     // CHAR(n): compared and stored without trailing spaces
  kVarchar,  // VARCHAR(n), or unbounded when length is -1
  kBinary,
  kVarbinary,
  kDate,       // days since 1970-01-01
  kTime,       // microseconds since midnight; WITH TIME ZONE (with_time_zone()),
               // a time and its zone as types/time_tz.h encodes them
  kTimestamp,  // microseconds since 1970-01-01 00:00:00: no time zone, or,
               // WITH TIME ZONE (with_time_zone()), since that instant in UTC
  kInterval,   // months, days and microseconds, as PostgreSQL's interval
  kArray,      // children: [element]
  kMap,        // children: [key, value]
  kRow,        // children: the fields; field_names: their names
  kVariant,    // a JSON-like dynamically typed value
};

// PostgreSQL types that Sluice keeps as the values of another type, told
// apart by SqlType::pg_kind(): they differ from that type in their text,
// their PostgreSQL name and OID, and in which operators apply.
enum class PgKind : uint8_t {
  kNone,
  // int2vector and oidvector: a one-dimensional ARRAY of SMALLINT and of
  // OID, subscripts from 0 (a BoundedList with lower bound 0 unless
  // empty); text '11 22 33'. A scalar to ARRAY[] and ARRAY(subquery): an
  // array of them is an array of vectors, not a 2-D array.
  kInt2Vector,
  kOidVector,
  // oid (as oidvector's element): a BIGINT from 0 to 2^32 - 1.
  kOid,
  // point: an ARRAY of two DOUBLEs, x and y, subscripts [0] and [1]; text
  // '(x,y)'. No order and no equality besides ~= (same as, within 1e-6).
  kPoint,
  // money: a BIGINT of cents; text '$1,000.00' (lc_monetary C). Not a
  // number to SQL: only money's own operators apply.
  kMoney,
  // jsonpath: a VARCHAR holding the path as PostgreSQL prints it (keys
  // quoted, operators spaced); only the path functions read it.
  kJsonPath,
};

class SqlType {
 public:
  SqlType() = default;

  static SqlType Boolean(bool nullable = true) { return Scalar(TypeId::kBoolean, nullable); }
  static SqlType TinyInt(bool nullable = true) { return Scalar(TypeId::kTinyInt, nullable); }
  static SqlType SmallInt(bool nullable = true) { return Scalar(TypeId::kSmallInt, nullable); }
  static SqlType Integer(bool nullable = true) { return Scalar(TypeId::kInteger, nullable); }
  static SqlType BigInt(bool nullable = true) { return Scalar(TypeId::kBigInt, nullable); }
  static SqlType Decimal(int precision, int scale, bool nullable = true);
  // PostgreSQL's unconstrained NUMERIC: every value keeps its own scale (its
  // display scale: 1.50 stays 1.50, 3 stays 3), as PostgreSQL's numeric
  // does. scale() is kDynamicScale; the value's scale is its own.
  static SqlType Numeric(bool nullable = true);
  static SqlType Real(bool nullable = true) { return Scalar(TypeId::kReal, nullable); }
  static SqlType Double(bool nullable = true) { return Scalar(TypeId::kDouble, nullable); }
  static SqlType Char(int length, bool nullable = true);
  static SqlType Varchar(int length = -1, bool nullable = true);
  static SqlType Binary(int length, bool nullable = true);
  static SqlType Varbinary(int length = -1, bool nullable = true);
  static SqlType Date(bool nullable = true) { return Scalar(TypeId::kDate, nullable); }
  static SqlType Time(bool nullable = true) { return Scalar(TypeId::kTime, nullable); }
  static SqlType Timestamp(bool nullable = true) { return Scalar(TypeId::kTimestamp, nullable); }
  // TIMESTAMP WITH TIME ZONE (PostgreSQL's timestamptz): an instant, kept
  // as microseconds since 1970-01-01 00:00:00 UTC. It is a TIMESTAMP in
  // every operation (Sluice's sessions run in UTC, where the two agree);
  // they differ in their text (input converts a zone to UTC, output says
  // +00), in their PostgreSQL type and in Parquet's and Delta's types.
  static SqlType TimestampTz(bool nullable = true) {
    SqlType t = Scalar(TypeId::kTimestamp, nullable);
    t.with_time_zone_ = true;
    return t;
  }
  // TIME WITH TIME ZONE (PostgreSQL's timetz): a time of day and its UTC
  // offset, one int64 as TimeTz encodes it (types/time_tz.h). Unlike
  // timestamptz it is not the same value as its type without a zone: it
  // differs in order, equality, text and arithmetic, so code that reads a
  // TIME's microseconds must check with_time_zone() first.
  static SqlType TimeTz(bool nullable = true) {
    SqlType t = Scalar(TypeId::kTime, nullable);
    t.with_time_zone_ = true;
    return t;
  }
  static SqlType Interval(bool nullable = true) { return Scalar(TypeId::kInterval, nullable); }
  // PostgreSQL's json (`binary` false: the text as given) and jsonb (its
  // canonical text): a VARCHAR that holds a JSON document (sql/json_value.h).
  // Not a string to functions and operators, which take JSON's own.
  static SqlType Json(bool binary, bool nullable = true) {
    SqlType t = Scalar(TypeId::kVarchar, nullable);
    t.json_ = binary ? 2 : 1;
    return t;
  }
  // PostgreSQL's int2vector, oidvector, oid, point and money (PgKind).
  static SqlType Int2Vector(bool nullable = true);
  static SqlType OidVector(bool nullable = true);
  static SqlType Oid(bool nullable = true) {
    SqlType t = Scalar(TypeId::kBigInt, nullable);
    t.pg_kind_ = PgKind::kOid;
    return t;
  }
  static SqlType Point(bool nullable = true);
  static SqlType JsonPath(bool nullable = true) {
    SqlType t = Varchar(-1, nullable);
    t.pg_kind_ = PgKind::kJsonPath;
    return t;
  }
  static SqlType Money(bool nullable = true) {
    SqlType t = Scalar(TypeId::kBigInt, nullable);
    t.pg_kind_ = PgKind::kMoney;
    return t;
  }
  // A bool where a length belongs would silently become a length.
  static SqlType Char(bool) = delete;
  static SqlType Varchar(bool) = delete;
  static SqlType Binary(bool) = delete;
  static SqlType Varbinary(bool) = delete;
  static SqlType Array(SqlType element, bool nullable = true);
  static SqlType Map(SqlType key, SqlType value, bool nullable = true);
  static SqlType Row(std::vector<std::string> names, std::vector<SqlType> fields,
                     bool nullable = true);
  static SqlType Variant(bool nullable = true) { return Scalar(TypeId::kVariant, nullable); }

  TypeId id() const { return id_; }
  bool nullable() const { return nullable_; }
  // DECIMAL: precision; CHAR/VARCHAR/BINARY/VARBINARY: length (-1 = unbounded).
  int precision() const { return precision_; }
  int length() const { return precision_; }
  int scale() const { return scale_; }
  // TIMESTAMP WITH TIME ZONE or TIME WITH TIME ZONE.
  bool with_time_zone() const { return with_time_zone_; }
  // JSON or JSONB; JSONB.
  bool is_json() const { return json_ != 0; }
  bool is_jsonb() const { return json_ == 2; }
  PgKind pg_kind() const { return pg_kind_; }
  // int2vector, oidvector or point: an ARRAY that is a scalar to SQL.
  bool IsPgArrayKind() const { return id_ == TypeId::kArray && pg_kind_ != PgKind::kNone; }
  // An ARRAY type as SQL sees one (not IsPgArrayKind()).
  bool IsSqlArray() const { return id_ == TypeId::kArray && pg_kind_ == PgKind::kNone; }
  const std::vector<SqlType>& children() const { return children_; }
  const std::vector<std::string>& field_names() const { return field_names_; }

  SqlType WithNullable(bool nullable) const {
    SqlType t = *this;
    t.nullable_ = nullable;
    return t;
  }
  // NUMERIC without a declared precision and scale (Numeric()).
  bool dynamic_scale() const { return id_ == TypeId::kDecimal && scale_ == kDynamicScale; }
  static constexpr int kDynamicScale = -1;
  bool IsInteger() const { return id_ >= TypeId::kTinyInt && id_ <= TypeId::kBigInt; }
  bool IsString() const { return (id_ == TypeId::kChar || id_ == TypeId::kVarchar) && json_ == 0; }
  // A string whose input text is its value as given: not a jsonpath, whose
  // text is read (and kept as PostgreSQL prints it).
  bool IsVerbatimText() const { return IsString() && pg_kind_ != PgKind::kJsonPath; }
  bool IsBinary() const { return id_ == TypeId::kBinary || id_ == TypeId::kVarbinary; }
  // TIME WITH TIME ZONE.
  bool IsTimeTz() const { return id_ == TypeId::kTime && with_time_zone_; }

  // SQL spelling, e.g. "DECIMAL(10,2) NOT NULL", "ROW(a INTEGER, b VARCHAR) ARRAY".
  std::string ToString() const;

  bool operator==(const SqlType& other) const = default;

 private:
  static SqlType Scalar(TypeId id, bool nullable) {
    SqlType t;
    t.id_ = id;
    t.nullable_ = nullable;
    return t;
  }

  TypeId id_ = TypeId::kBoolean;
  bool nullable_ = true;
  int precision_ = -1;
  int scale_ = 0;
  bool with_time_zone_ = false;
  uint8_t json_ = 0;  // 1: JSON, 2: JSONB
  PgKind pg_kind_ = PgKind::kNone;
  std::vector<SqlType> children_;
  std::vector<std::string> field_names_;
};

using Schema = std::vector<SqlType>;

// Whether values of array type `t` may hold sub-arrays: PostgreSQL's array
// types do not count dimensions (INT[][] is INT[]), so an INT[] value is a
// rectangular array of any number of dimensions, a list of lists with one
// level per dimension. Arrays of arrays, rows and variants are the
// exception: their elements are lists themselves, so each of their
// dimensions is a level of the type.
// int2vector, oidvector and point (IsPgArrayKind()) are one-dimensional;
// an array of them holds them as elements.
inline bool ArrayHoldsSubArrays(const SqlType& t) {
  if (!t.IsSqlArray()) return false;
  const TypeId e = t.children()[0].id();
  return e != TypeId::kArray && e != TypeId::kRow && e != TypeId::kVariant;
}

// Whether an array of type `t` may carry lower bounds (Value::lower_bounds()):
// one that holds sub-arrays, and int2vector, oidvector and point, whose
// subscripts start at 0.
inline bool ArrayMayHaveBounds(const SqlType& t) {
  return ArrayHoldsSubArrays(t) || t.IsPgArrayKind();
}

// The type's name as PostgreSQL's information_schema.columns.data_type
// gives it ("integer", "character varying", "timestamp without time zone",
// "ARRAY", ...).
std::string PostgresDataType(const SqlType& t);

std::string SchemaToString(const Schema& schema);

// Whether a DECIMAL type may hold Infinity and -Infinity. PostgreSQL's
// unconstrained numeric may and a numeric(p,s) may not (NaN fits both).
// Sluice gives the unconstrained numeric, and every numeric that it infers,
// precision 38, so another declared precision is the constrained kind.
inline bool DecimalHoldsInfinity(const SqlType& t) { return t.precision() == 38; }

}  // namespace sluice

namespace sluice {

// How PostgreSQL names a type on the wire and in pg_catalog: its type OID
// (pg_type.oid), the typmod (-1, or what a length, precision or scale adds:
// VARCHAR(n) is n + 4, NUMERIC(p,s) is (p << 16 | s) + 4), the size of its
// values (-1: variable) and format_type()'s spelling ("character
// varying(20)", "numeric(10,2)", "integer[]"). TINYINT is smallint (PostgreSQL
// has no one-byte integer); MAP and VARIANT are json, as their text is.
struct PgTypeInfo {
  uint32_t oid = 0;
  int32_t typmod = -1;
  int16_t size = -1;
  std::string name;  // format_type(oid, typmod)
};
PgTypeInfo PgTypeOf(const SqlType& t);
// The base name of type `oid` as pg_type.typname holds it ("int4",
// "varchar", "_int4"); empty for an OID that no SQL type maps to.
std::string PgTypeName(uint32_t oid);
// Every OID that PgTypeOf gives, with its pg_type.typname, in OID order.
const std::vector<std::pair<uint32_t, std::string>>& PgTypes();
// format_type(oid, typmod): "character varying(20)", "numeric(10,2)",
// "integer[]"; "???" for an OID that no SQL type maps to, as PostgreSQL says
// of an unknown one. Without a typmod (format_type(oid, NULL), a regtype's
// text), CHAR is "character"; with typmod -1 it is "bpchar", as PostgreSQL
// spells both.
std::string PgFormatType(uint32_t oid, int32_t typmod, bool has_typmod = true);
// What pg_type holds of type `oid` beyond its name: typlen (-1: variable),
// typelem (an array's element type, else 0), typarray (a base type's array
// type, else 0), typcategory, and whether it takes a collation (text types).
struct PgTypeFacts {
  int16_t size = -1;
  uint32_t element = 0;
  uint32_t array = 0;
  char category = 'U';
  bool collatable = false;
};
// REQUIRES: `oid` is one of PgTypes().
PgTypeFacts PgTypeFactsOf(uint32_t oid);

}  // namespace sluice
