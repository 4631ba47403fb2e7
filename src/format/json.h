// JSON records (see json.cc for the layout of input records and values).
#pragma once

#include <memory>
#include <string>

#include "format/format.h"
#include "types/value.h"

namespace sluice::format {

std::unique_ptr<Decoder> MakeJsonDecoder(const FormatOptions& options, const Relation& rel);
std::unique_ptr<Encoder> MakeJsonEncoder(const Relation& rel, std::string terminator);

// Appends `v` of `type` as a JSON value: numbers as numbers (DECIMAL with
// all its digits), dates, times, timestamps and intervals as PostgreSQL's
// text, BINARY as an array of bytes, ARRAY as an array, MAP and ROW as
// objects.
void AppendJsonValue(const Value& v, const SqlType& type, std::string* out);
void AppendJsonString(std::string_view s, std::string* out);

// Parses one JSON value (the whole of `text`) as a value of `type`, as a
// JSON record's field would be read (a VARIANT takes any value).
Status ParseJsonValue(std::string_view text, const SqlType& type, Value* out);

}  // namespace sluice::format
