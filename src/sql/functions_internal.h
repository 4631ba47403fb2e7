// Families of scalar functions, each resolved on its own; ResolveFunction
// (functions.h) asks each in turn.
#pragma once

#include <string_view>
#include <vector>

#include "sql/functions.h"

namespace sluice::sql {

// Each returns true and fills `r` if it has `name` for `args`.
bool ResolveDateTime(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r);
bool ResolveTextAndMath(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r);
bool ResolveArray(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r);
bool ResolveString(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r);
bool ResolveMath(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r);
// to_char, to_number, to_date, to_timestamp (functions_format.cc).
bool ResolveFormat(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r);
// The functions of pg_catalog that catalog queries call (functions_catalog.cc).
bool ResolveCatalog(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r);

}  // namespace sluice::sql
