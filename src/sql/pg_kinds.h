// Text input and output of the PostgreSQL types that Sluice keeps as the
// values of another type (PgKind in types/sql_type.h): int2vector,
// oidvector, point and money. CastValue and ValueText (expr.h) call these.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "types/sql_type.h"
#include "types/value.h"

namespace sluice::sql {

// Reads PostgreSQL's text of type `to` (IsPgArrayKind()): int2vector and
// oidvector as integers separated by spaces ('11 22 33'), point as '(x,y)'
// or 'x,y'. Errors are PostgreSQL's ("invalid input syntax for type
// smallint: \"a\"", "invalid input syntax for type point: \"x\"").
Status PgKindFromText(std::string_view text, const SqlType& to, Value* out);

// A value of int2vector or oidvector as PostgreSQL prints it: its elements
// separated by spaces. REQUIRES: `v` is a list of integers.
std::string PgVectorText(const Value& v);

// The value of a point: a list of x and y, subscripts from 0.
Value MakePoint(double x, double y);

// PostgreSQL's ~= of points (point_eq): each coordinate equal within 1e-6,
// NaN equal to NaN.
bool PointsSame(const Value& a, const Value& b);

// PostgreSQL's <-> of points: their Euclidean distance, computed as its
// pg_hypot does (so the last digit agrees).
double PointDistance(const Value& a, const Value& b);

// PostgreSQL's money input (cash_in) in the C locale: '$1,000.00',
// '-$3', '(12.30)', '12-', a third decimal rounding the cents half up;
// the result in cents. "invalid input syntax for type money: ..." and
// "value ... is out of range for type money" as there.
Status MoneyFromText(std::string_view text, Value* out);

// Text of `cents` as PostgreSQL's money prints it in the C locale:
// "$1,000.00", "-$0.05".
std::string MoneyText(int64_t cents);

}  // namespace sluice::sql
