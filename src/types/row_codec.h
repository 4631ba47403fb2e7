// The row encoding: one canonical, order-preserving byte string per row.
//
// Properties every caller relies on:
//  1. Canonical: two rows are equal as SQL values iff their bytes are equal,
//     so hashing and equality work on bytes (-0.0 is stored as 0.0, every NaN
//     as one NaN, CHAR(n) without its trailing spaces, MAP entries sorted).
//     Two kinds of values that compare equal print differently and so stay
//     distinct: NUMERIC values of one value but different scales (1.5,
//     1.50) and INTERVALs of one length but different fields.
//  2. Order-preserving: memcmp order of two encodings of the same schema is
//     the SQL order of the rows, column by column, with NULLs last
//     (PostgreSQL's default ASC NULLS LAST) and strings in byte (C collation)
//     order. A batch sorted by bytes is therefore sorted by value, which is
//     what MIN, MAX, top-k and range windows read.
//  3. Self-delimiting: each field's encoding is prefix-free, so a row is the
//     concatenation of its fields, a projection is a concatenation of field
//     slices, and the bitwise complement of a field sorts in descending order
//     (DESC; NULLs then come first, as PostgreSQL's DESC default).
//
// Field layout, byte by byte (integers big-endian):
//   null tag       only when the type is nullable: 0x01 then the value, or
//                  0x02 alone for NULL
//   BOOLEAN        1 byte: 0x00 false, 0x01 true
//   TINYINT..BIGINT  1, 2, 4, 8 bytes: two's complement with the sign bit
//                  flipped
//   NUMERIC        (unconstrained: each value with its own scale) a class
//                  byte, then the exponent and significant digits, then the
//                  display scale; see PutNumeric in row_codec.cc. Values
//                  equal but for their scale (1.5, 1.50) are distinct here,
//                  as PostgreSQL keeps them distinct in output
//   DECIMAL(p,s)   the unscaled integer at scale s: 8 bytes (p <= 18) or 16
//                  bytes, sign bit flipped. The special numerics take
//                  integers no finite value reaches: -Infinity the
//                  smallest, Infinity the largest but one, NaN the largest.
//                  Precision above 38: a tag byte, then for tag 0x02 the
//                  16 bytes of DECIMAL(38,s); see WideDecimalTag in
//                  row_codec.cc for the tags
//   REAL, DOUBLE   4 or 8 bytes: IEEE bits; positive values get the sign bit
//                  set, negative ones have every bit inverted
//   CHAR..VARBINARY  the bytes, with 0x00 written as 0x00 0xFF, then the
//                  terminator 0x00 0x01
//   DATE           4 bytes (days); TIME, TIMESTAMP 8 bytes (microseconds)
//   INTERVAL       16 bytes: months*30 days + days + micros, in microseconds,
//                  as PostgreSQL orders intervals; then 4 bytes months and
//                  4 bytes days (micros is derived). '1 month' and '30 days'
//                  order equal but are distinct values here.
//   ARRAY          per element 0x01 and the element (0x02 and a sub-array,
//                  where the type holds them); 0x03, a count byte and 4
//                  bytes per lower bound, if not all are 1; then 0x00.
//                  OIDVECTOR: 4 bytes of its length before all that, so
//                  that it sorts by length first, as in PostgreSQL
//   MAP            entries sorted by key bytes, per entry 0x01, key, value;
//                  then 0x00
//   ROW            the fields, concatenated
//   VARIANT        a kind byte, then: 0x01 JSON null; 0x02 BOOLEAN; 0x03
//                  BIGINT; 0x04 scale byte and 16-byte DECIMAL (specials
//                  as in DECIMAL, scale 0); 0x05 DOUBLE;
//                  0x06 string; 0x07 list of VARIANT (as ARRAY); 0x08 map
//                  VARIANT -> VARIANT (as MAP); 0x09 INTERVAL
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "types/sql_type.h"
#include "types/value.h"

namespace sluice {

// Appends the encoding of `v` as `type` to `out`. A value that does not fit
// (out of range, too long, NULL in a NOT NULL column, wrong kind) is an
// InvalidArgument error naming the type and value; `out` is then unspecified.
Status EncodeValue(const SqlType& type, const Value& v, std::string* out);

// Decodes one value of `type` from the front of `*in` and advances `*in` past
// it. Malformed bytes are a Corruption error.
Status DecodeValue(const SqlType& type, std::string_view* in, Value* out);

// Advances `*in` past one value of `type` without decoding it.
Status SkipValue(const SqlType& type, std::string_view* in);

Status EncodeRow(const Schema& schema, const std::vector<Value>& row, std::string* out);
// Decodes a whole row; trailing bytes are a Corruption error.
Result<std::vector<Value>> DecodeRow(const Schema& schema, std::string_view row);

// Splits `row` into its fields' byte slices (each with its null tag). The
// slices point into `row`.
Status SplitRow(const Schema& schema, std::string_view row, std::vector<std::string_view>* fields);

// Like SplitRow, but a row that does not split is an InvalidArgument error
// saying that `what` received a row that does not fit `schema`.
Status SplitRowOrMisfit(const Schema& schema, std::string_view row,
                        std::vector<std::string_view>* fields, std::string_view what);

// Bytes of the value (after the null tag) of an integer, DATE, TIME or
// TIMESTAMP field.
int IntWidth(TypeId id);

// Direct encoders for input parsers, without a Value: each appends one
// field of `type` (with its null tag) and returns false, appending nothing,
// if the value does not fit (then EncodeValue says why).
//   AppendIntField: integer types, DATE (days), TIME and TIMESTAMP (micros)
//   AppendDecimalField: DECIMAL(p,s), `unscaled` already at the type's scale
//   AppendStringField: CHAR, VARCHAR, BINARY, VARBINARY
bool AppendIntField(const SqlType& type, int64_t v, std::string* out);
bool AppendDecimalField(const SqlType& type, int128 unscaled, std::string* out);
//   AppendNumericField: NUMERIC (dynamic scale), `unscaled` at `scale`
bool AppendNumericField(const SqlType& type, int128 unscaled, int scale, std::string* out);
bool AppendStringField(const SqlType& type, std::string_view s, std::string* out);

// A string as a column of `type` (CHAR, VARCHAR, BINARY, VARBINARY) takes
// it, by PostgreSQL's rule for assignment: CHAR drops trailing spaces; a
// string longer than the type's length fits only when what is over is
// spaces, which are cut off (never for the binary types). False when `*s`
// does not fit; else `*s` is what the column holds.
bool FitString(const SqlType& type, std::string_view* s);

// Fast paths for the common fixed-width fields, used by operators.
// Appends a BIGINT (nullable or not as `nullable` says).
void AppendInt64(int64_t v, bool nullable, std::string* out);
void AppendNull(std::string* out);
// True if `field` (one encoded field of `type`) is NULL.
inline bool FieldIsNull(const SqlType& type, std::string_view field) {
  return type.nullable() && !field.empty() && field[0] == 0x02;
}
// Reads an integer field of the given type id at the front of `*in`;
// returns false for NULL. REQUIRES: well-formed bytes of an integer, DATE,
// TIME or TIMESTAMP type.
bool ReadInt(TypeId id, bool nullable, std::string_view* in, int64_t* out);

// Replaces every byte with its complement: an ascending field encoding
// becomes a descending one.
void InvertBytes(char* data, size_t len);

// Human-readable row, e.g. "(1, 'ab', NULL)"; for messages and tests.
std::string RowToString(const Schema& schema, std::string_view row);

}  // namespace sluice
