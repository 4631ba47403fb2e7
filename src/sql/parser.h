// Parsing SQL text with libpg_query (PostgreSQL's own grammar), into its JSON
// parse tree, and turning a position in the text into a message that a user
// can act on.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "base/status.h"

namespace sluice::sql {

using Json = nlohmann::json;

// Parses `sql` (one or more statements). A syntax error is an InvalidArgument
// error formatted by FormatSqlError.
// An error shows the line of `shown` (default: `sql`), which must have the
// same length and lines (the program as written, when `sql` is a rewrite).
Result<Json> ParseSql(std::string_view sql, std::string_view shown = {});

// "line L, column C: <message>" followed by the offending line and a caret
// under the spot. `offset` is a byte offset into `sql` (or -1 if unknown).
std::string FormatSqlError(std::string_view sql, int offset, std::string_view message);

// An error about the node at `location` (a parse tree node's "location").
Status SqlError(std::string_view sql, const Json& node, std::string_view message);
Status SqlUnsupported(std::string_view sql, const Json& node, std::string_view feature);
// The same, followed by a sentence that says what is supported instead.
Status SqlUnsupported(std::string_view sql, const Json& node, std::string_view feature,
                      std::string_view instead);

// Writes the value of every negative integer constant of `tree`, parsed from
// `sql`, into the tree: libpg_query 15-4's JSON leaves them out (as it
// leaves out zero), and the binder reads them from the text, which a tree
// without locations (a function's body, inlined) no longer has.
void FillNegativeConstants(Json* tree, std::string_view sql);

// Sets every "location" of `tree` to -1: a tree that is no longer read
// against its text (a function's body, inlined where it is called), so
// that an error in it points at the call.
void DropLocations(Json* tree);

// The node's "location" field; for a node without one (a cast, a JOIN),
// where its text starts; -1 if nothing in it has a location.
int Location(const Json& node);

}  // namespace sluice::sql
