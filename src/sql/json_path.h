// SQL/JSON path expressions (PostgreSQL's jsonpath): parsed once, then
// evaluated over a document as PostgreSQL's jsonb_path_query does, in lax
// mode (arrays unwrapped for member accessors and filters, a scalar read as
// an array of one, structural errors an empty result) or strict mode.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sql/json_value.h"

namespace sluice::sql {

struct JsonPath;

// Parses `text`, or says where it is not a path, in PostgreSQL's words.
Result<std::shared_ptr<const JsonPath>> ParseJsonPath(std::string_view text);
// The path of `text` as PostgreSQL prints a jsonpath value ('$.a ? (@>1)'
// is $."a"?(@ > 1)): the text of the type jsonpath.
Result<std::string> JsonPathText(std::string_view text);

// What a path gives over `doc`: its items (a predicate path gives one, a
// boolean or null for unknown). `vars` (an object, or nullptr) names the
// values of $name. With `silent`, an error ends the result instead of
// failing it (the items found before it stay) and sets `failed`.
// `exists_only`: only whether there are items is asked (jsonb_path_exists).
struct JsonPathItems {
  std::vector<JsonNode> items;
  bool failed = false;
};
Result<JsonPathItems> EvalJsonPath(const JsonPath& path, const JsonNode& doc, const JsonNode* vars,
                                   bool silent, bool exists_only = false);

}  // namespace sluice::sql
