// A view's query printed back as PostgreSQL 15's pg_get_viewdef prints it:
// the analyzed query, not the text as written: `*` expanded, every column
// qualified by the name of its FROM item, constants labelled with their
// types, implicit casts shown, output columns named with AS where the name
// is not the column's own, and the clauses laid out on lines of their own
// with PostgreSQL's indentation. BindCreateView calls it once per view;
// pg_get_viewdef reads the result (catalog.h, ViewDef).
//
// It works from the parse tree and the catalog (the columns and types of
// tables and views), inferring the types it needs to print; a construct it
// cannot print faithfully is an error, and the caller falls back to the
// query as written.
//
// Thread safety: a pure function of its arguments.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sql/catalog.h"
#include "sql/parser.h"

namespace sluice::sql {

// The text of `select` (the object inside {"SelectStmt": ...}, parsed from
// `sql`), whose output columns are named `names`, as pg_get_viewdef(view,
// pretty) gives it: a leading space, lines joined by '\n', a closing ';'.
// `pretty` leaves out the parentheses that operator precedence makes
// redundant, as PostgreSQL's pretty flag does; both forms are indented.
Result<std::string> DeparseView(const Catalog& catalog, std::string_view sql, const Json& select,
                                const std::vector<std::string>& names, bool pretty);

}  // namespace sluice::sql
