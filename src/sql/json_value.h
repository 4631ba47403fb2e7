// JSON and JSONB values (PostgreSQL's json and jsonb): a document kept as
// its text. A JSON value is the text it was given (checked); a JSONB value
// is its canonical text, as PostgreSQL's jsonb prints it: object keys
// sorted by length, then bytes, a repeated key's last value kept, numbers
// as NUMERIC prints them, ", " and ": " between items.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "types/sql_type.h"
#include "types/value.h"

namespace sluice::sql {

// A parsed document. Numbers keep their text; strings are decoded.
struct JsonNode {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  std::string text;  // a number's text, a string's value
  std::vector<JsonNode> items;
  std::vector<std::pair<std::string, JsonNode>> members;  // in the text's order
  size_t begin = 0, end = 0;                              // its span in the text
};

// The kind of a node as jsonb_typeof names it ("object", "number", ...);
// with `cast_words`, as PostgreSQL's cast errors do ("numeric").
const char* JsonKindName(const JsonNode& n, bool cast_words = false);

// Parses `text`, or says where it is not JSON, in PostgreSQL's words.
Status ParseJson(std::string_view text, JsonNode* out);
// A node's text: as JSONB prints it (", " and ": " between items), compact
// (as json_strip_nulls writes json: no spaces), or as jsonb_pretty does.
// For JSONB, a node's members must be in order already (Canonicalize).
enum class JsonStyle { kJsonb, kCompact, kPretty };
std::string JsonText(const JsonNode& node, JsonStyle style);
inline std::string JsonbText(const JsonNode& node) { return JsonText(node, JsonStyle::kJsonb); }
// Sorts an object's members as JSONB does (length, then bytes; the last of
// a repeated key kept) and writes numbers as NUMERIC does, at every level.
Status Canonicalize(JsonNode* node);

// Text to a JSON (`binary` false: checked, kept as it is) or JSONB value.
Status JsonFromText(std::string_view text, bool binary, std::string* out);
// A SQL value of type `from` as a JSON document (to_jsonb, and the values
// of jsonb_build_object): numbers, booleans, strings, dates and times as
// strings in ISO form, arrays as arrays, rows as objects, JSON as itself.
Status ToJsonb(const Value& v, const SqlType& from, std::string* out);
// The same as JSON (to_json): as PostgreSQL writes it, without spaces in
// arrays and rows, keys in their order, a JSON value as it is.
Status ToJson(const Value& v, const SqlType& from, std::string* out);

// A JSON string literal for `s`, escaped as PostgreSQL escapes it.
std::string JsonQuote(std::string_view s);

}  // namespace sluice::sql
