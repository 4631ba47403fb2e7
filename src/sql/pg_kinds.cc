#include "sql/pg_kinds.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

namespace sluice::sql {
namespace {

// PostgreSQL's FUNC_MAX_ARGS: the most elements an int2vector or oidvector
// holds.
constexpr size_t kMaxVectorElements = 100;

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// One element of an int2vector (smallint) or oidvector (oid), as
// PostgreSQL's int2in and oidin read it; an oid given negative wraps
// around, as there ('-2' is 4294967294).
Status VectorElement(std::string_view token, bool oid, Value* out) {
  const char* type = oid ? "oid" : "smallint";
  const char* first = token.data();
  const char* last = token.data() + token.size();
  if (first != last && *first == '+') ++first;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(first, last, v);
  if (ec == std::errc() && p == last) {
    const bool fits =
        oid ? (v >= INT32_MIN && v <= int64_t{UINT32_MAX}) : (v >= INT16_MIN && v <= INT16_MAX);
    if (fits) {
      *out = Value::Int(oid && v < 0 ? v + (int64_t{1} << 32) : v);
      return Status::OK();
    }
  }
  if ((ec == std::errc() || ec == std::errc::result_out_of_range) && p == last) {
    return Status::Overflow("value \"" + std::string(token) + "\" is out of range for type " +
                            type);
  }
  return Status::InvalidArgument(std::string("invalid input syntax for type ") + type + ": \"" +
                                 std::string(token) + "\"");
}

Status VectorFromText(std::string_view text, bool oid, Value* out) {
  std::vector<Value> items;
  size_t pos = 0;
  while (true) {
    while (pos < text.size() && IsSpace(text[pos])) ++pos;
    if (pos == text.size()) break;
    const size_t start = pos;
    while (pos < text.size() && !IsSpace(text[pos])) ++pos;
    if (items.size() == kMaxVectorElements) {
      return Status::InvalidArgument(std::string(oid ? "oidvector" : "int2vector") +
                                     " has too many elements");
    }
    Value item;
    SLUICE_RETURN_IF_ERROR(VectorElement(text.substr(start, pos - start), oid, &item));
    items.push_back(std::move(item));
  }
  // Subscripts from 0, as PostgreSQL's vectors have them.
  *out = items.empty() ? Value::List({}) : Value::BoundedList(std::move(items), {0});
  return Status::OK();
}

// One coordinate of a point from text[*pos], as PostgreSQL's float8in
// reads a number inside other text (strtod's syntax: NaN, Infinity and
// their abbreviations in any case, exponents). False if none is there.
Status Coordinate(const std::string& text, size_t* pos, bool* found, double* out) {
  const char* start = text.c_str() + *pos;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(start, &end);
  *found = end != start;
  if (!*found) return Status::OK();
  if (errno == ERANGE && (v == 0.0 || std::isinf(v))) {
    return Status::Overflow("\"" + std::string(start, static_cast<size_t>(end - start)) +
                            "\" is out of range for type double precision");
  }
  *out = v;
  *pos += static_cast<size_t>(end - start);
  return Status::OK();
}

// PostgreSQL's point_in: '(x,y)' or 'x,y', spaces around any part.
Status PointFromText(std::string_view in, Value* out) {
  const std::string text(in);
  auto bad = [&] {
    return Status::InvalidArgument("invalid input syntax for type point: \"" + text + "\"");
  };
  size_t pos = 0;
  auto skip = [&] {
    while (pos < text.size() && IsSpace(text[pos])) ++pos;
  };
  skip();
  const bool paren = pos < text.size() && text[pos] == '(';
  if (paren) ++pos;
  double xy[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    bool found = false;
    SLUICE_RETURN_IF_ERROR(Coordinate(text, &pos, &found, &xy[i]));
    if (!found) return bad();
    skip();
    if (i == 0) {
      if (pos >= text.size() || text[pos] != ',') return bad();
      ++pos;
    }
  }
  if (paren) {
    if (pos >= text.size() || text[pos] != ')') return bad();
    ++pos;
    skip();
  }
  if (pos != text.size()) return bad();
  *out = MakePoint(xy[0], xy[1]);
  return Status::OK();
}

// PostgreSQL's FPeq: equal, or within its EPSILON of each other.
bool FuzzyEqual(double a, double b) { return a == b || std::fabs(a - b) <= 1.0e-6; }

// float8_eq: NaN equals NaN.
bool FloatEqual(double a, double b) { return std::isnan(a) ? std::isnan(b) : a == b; }

}  // namespace

Status MoneyFromText(std::string_view in, Value* out) {
  const std::string text(in);
  auto bad = [&] {
    return Status::InvalidArgument("invalid input syntax for type money: \"" + text + "\"");
  };
  auto range = [&] {
    return Status::Overflow("value \"" + text + "\" is out of range for type money");
  };
  size_t i = 0;
  auto skip = [&] {
    while (i < text.size() && IsSpace(text[i])) ++i;
  };
  auto take = [&](char c) {
    if (i < text.size() && text[i] == c) {
      ++i;
      return true;
    }
    return false;
  };
  bool negative = false;
  // A currency sign, then a sign ('-', '(' or '+'), then a currency sign
  // again, each with spaces around.
  skip();
  take('$');
  skip();
  if (take('-') || take('(')) {
    negative = true;
  } else {
    take('+');
  }
  skip();
  take('$');
  skip();
  // Digits (commas between them ignored) and at most two after the point;
  // kept as a negative number, so that the most negative value fits.
  int64_t value = 0;
  int decimals = 0;
  bool seen_point = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9' && (!seen_point || decimals < 2)) {
      if (__builtin_mul_overflow(value, 10, &value) ||
          __builtin_sub_overflow(value, c - '0', &value)) {
        return range();
      }
      if (seen_point) ++decimals;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else if (c != ',') {
      break;
    }
  }
  // A third decimal of 5 or more rounds the cents up.
  if (i < text.size() && text[i] >= '5' && text[i] <= '9' &&
      __builtin_sub_overflow(value, 1, &value)) {
    return range();
  }
  for (; decimals < 2; ++decimals) {
    if (__builtin_mul_overflow(value, 10, &value)) return range();
  }
  // Then further digits (dropped), and spaces, ')', signs and currency
  // signs.
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '-') {
      negative = true;
    } else if (!IsSpace(c) && c != ')' && c != '+' && c != '$') {
      return bad();
    }
  }
  if (!negative) {
    if (value == INT64_MIN) return range();
    value = -value;
  }
  *out = Value::Int(value);
  return Status::OK();
}

std::string MoneyText(int64_t cents) {
  const bool negative = cents < 0;
  uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(cents) : static_cast<uint64_t>(cents);
  // Right to left: two decimals, the point, then groups of three digits.
  std::string reversed;
  for (int d = 0; d < 2; ++d) {
    reversed += static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
  }
  reversed += '.';
  int in_group = 0;
  do {
    if (in_group == 3) {
      reversed += ',';
      in_group = 0;
    }
    reversed += static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
    ++in_group;
  } while (magnitude != 0);
  std::string out = negative ? "-$" : "$";
  out.append(reversed.rbegin(), reversed.rend());
  return out;
}

Status PgKindFromText(std::string_view text, const SqlType& to, Value* out) {
  switch (to.pg_kind()) {
    case PgKind::kInt2Vector:
      return VectorFromText(text, /*oid=*/false, out);
    case PgKind::kOidVector:
      return VectorFromText(text, /*oid=*/true, out);
    case PgKind::kPoint:
      return PointFromText(text, out);
    default:
      return Status::Internal("not a PostgreSQL array kind: " + to.ToString());
  }
}

std::string PgVectorText(const Value& v) {
  std::string out;
  for (const Value& x : v.list()) {
    if (!out.empty()) out += ' ';
    out += std::to_string(x.int_value());
  }
  return out;
}

Value MakePoint(double x, double y) {
  return Value::BoundedList({Value::Double(x), Value::Double(y)}, {0});
}

bool PointsSame(const Value& a, const Value& b) {
  const double ax = a.list()[0].double_value(), ay = a.list()[1].double_value();
  const double bx = b.list()[0].double_value(), by = b.list()[1].double_value();
  return (FuzzyEqual(ax, bx) && FuzzyEqual(ay, by)) || (FloatEqual(ax, bx) && FloatEqual(ay, by));
}

double PointDistance(const Value& a, const Value& b) {
  double x = a.list()[0].double_value() - b.list()[0].double_value();
  double y = a.list()[1].double_value() - b.list()[1].double_value();
  // pg_hypot: the larger side times sqrt(1 + (smaller / larger)^2), which
  // neither overflows nor underflows where the result does not.
  if (std::isinf(x) || std::isinf(y)) return INFINITY;
  if (std::isnan(x) || std::isnan(y)) return std::nan("");
  x = std::fabs(x);
  y = std::fabs(y);
  if (x < y) std::swap(x, y);
  if (y == 0.0) return x;
  const double yx = y / x;
  return x * std::sqrt(1.0 + yx * yx);
}

}  // namespace sluice::sql
