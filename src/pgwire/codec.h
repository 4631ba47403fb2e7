// Values in PostgreSQL's formats: the binary format of result columns and
// parameters (text is sql::ValueToPgText), and COPY's text format.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "types/sql_type.h"
#include "types/value.h"

namespace sluice::pgwire {

// Appends `v` (not NULL) of type `t` in PostgreSQL's binary format (without
// the length word). Booleans, integers, REAL and DOUBLE, NUMERIC, strings,
// bytea, DATE, TIME, TIME WITH TIME ZONE (an int64 of microseconds since
// midnight, then an int32 of the zone's seconds west of UTC, both big
// endian), TIMESTAMP, INTERVAL, json (MAP, VARIANT) and arrays of those; ROW
// has no binary form here (ask for text).
Status EncodeBinary(const Value& v, const SqlType& t, std::string* out);

// A parameter sent in binary format, as the text PostgreSQL would read for
// it, for type `oid` (one of PgTypes(), or 0 / unknown: the bytes as they
// are).
Result<std::string> BinaryParamToText(uint32_t oid, std::string_view bytes);

// One line of COPY's text format (without its newline) split at
// `delimiter` and unescaped; `null` marks a NULL field (\N by default).
struct CopyField {
  std::string text;
  bool null = false;
};
Status ParseCopyTextLine(std::string_view line, char delimiter, std::string_view null_marker,
                         std::vector<CopyField>* fields);
// Appends `s` escaped for COPY's text format.
void AppendCopyText(std::string_view s, char delimiter, std::string* out);
// Appends a CSV field: quoted when it holds the delimiter, a quote, a
// newline or is empty; a NULL is an empty unquoted field.
void AppendCsvField(const CopyField& f, char delimiter, std::string* out);

}  // namespace sluice::pgwire
