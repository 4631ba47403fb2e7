#include "sql/expr.h"

#include <strings.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "sql/datetime.h"
#include "sql/json_path.h"
#include "sql/json_value.h"
#include "sql/pg_kinds.h"
#include "types/big_decimal.h"
#include "types/row_codec.h"

namespace sluice::sql {
namespace {

// The days from 1970-01-01 to PostgreSQL's end of timestamps,
// 294277-01-01 (exclusive).
constexpr int64_t kPgTimestampEndDays = 106762940;

Status OutOfRange(const SqlType& t) {
  switch (t.id()) {
    case TypeId::kSmallInt:
      return Status::Overflow("smallint out of range");
    case TypeId::kInteger:
      return Status::Overflow("integer out of range");
    case TypeId::kBigInt:
      return Status::Overflow("bigint out of range");
    default:
      return Status::Overflow(t.ToString() + " out of range");
  }
}

bool FitsInt(int128 v, TypeId id) {
  switch (id) {
    case TypeId::kTinyInt:
      return v >= INT8_MIN && v <= INT8_MAX;
    case TypeId::kSmallInt:
      return v >= INT16_MIN && v <= INT16_MAX;
    case TypeId::kInteger:
      return v >= INT32_MIN && v <= INT32_MAX;
    default:
      return v >= INT64_MIN && v <= INT64_MAX;
  }
}

int128 Rescale(int128 u, int from, int to, bool* overflow) {
  return RescaleDecimal(u, from, to, overflow);
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

Status BadInput(const SqlType& to, std::string_view text) {
  std::string name = to.IsInteger()                ? (to.id() == TypeId::kBigInt     ? "bigint"
                                                      : to.id() == TypeId::kSmallInt ? "smallint"
                                                                                     : "integer")
                     : to.id() == TypeId::kDecimal ? "numeric"
                     : to.id() == TypeId::kBoolean ? "boolean"
                                                   : "double precision";
  return Status::InvalidArgument("invalid input syntax for type " + name + ": \"" +
                                 std::string(text) + "\"");
}

const char* IntTypeName(const SqlType& t) {
  switch (t.id()) {
    case TypeId::kSmallInt:
      return "smallint";
    case TypeId::kInteger:
      return "integer";
    case TypeId::kTinyInt:
      return "tinyint";
    default:
      return "bigint";
  }
}

double DecimalToDouble(int128 u, int scale) {
  return static_cast<double>(u) / std::pow(10.0, scale);
}

// PostgreSQL's text of an array element: quoted when it is empty, is the
// word NULL, or holds a delimiter, a quote, a backslash or a space.
std::string QuoteArrayElement(const std::string& text) {
  bool quote = text.empty() || strcasecmp(text.c_str(), "null") == 0;
  for (char c : text) {
    if (c == '{' || c == '}' || c == ',' || c == '"' || c == '\\' ||
        std::isspace(static_cast<unsigned char>(c))) {
      quote = true;
    }
  }
  if (!quote) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Parses the dimensions that may start PostgreSQL's array text,
// "[lower:upper][lower:upper]=" or "[upper]=" (lower 1), from `*pos`.
// None: `lower` and `upper` stay empty.
Status ParseArrayBounds(std::string_view s, size_t* pos, std::vector<int32_t>* lower,
                        std::vector<int32_t>* upper) {
  auto bad = [&](const char* why) {
    return Status::InvalidArgument("malformed array literal: \"" + std::string(s) + "\" (" + why +
                                   ")");
  };
  auto skip_space = [&] {
    while (*pos < s.size() && std::isspace(static_cast<unsigned char>(s[*pos]))) ++*pos;
  };
  bool out_of_range = false;  // a bound past INT, which PostgreSQL names
  auto number = [&](int32_t* out) {
    skip_space();
    const size_t start = *pos;
    if (start >= s.size()) return false;
    if (*pos < s.size() && (s[*pos] == '-' || s[*pos] == '+')) ++*pos;
    while (*pos < s.size() && std::isdigit(static_cast<unsigned char>(s[*pos]))) ++*pos;
    int64_t v = 0;
    const char* first = s.data() + start + (s[start] == '+' ? 1 : 0);
    auto [p, ec] = std::from_chars(first, s.data() + *pos, v);
    if (ec != std::errc() || p != s.data() + *pos) return false;
    if (v < INT32_MIN || v > INT32_MAX) {
      out_of_range = true;
      return false;
    }
    *out = static_cast<int32_t>(v);
    skip_space();
    return true;
  };
  auto bad_bound = [&] {
    return out_of_range ? Status::InvalidArgument("array bound is out of integer range")
                        : bad("\"[\" must introduce explicitly-specified array dimensions.");
  };
  skip_space();
  if (*pos >= s.size() || s[*pos] != '[') return Status::OK();
  while (*pos < s.size() && s[*pos] == '[') {
    ++*pos;
    int32_t lo = 1, hi = 0;
    if (!number(&hi)) return bad_bound();
    if (*pos < s.size() && s[*pos] == ':') {
      ++*pos;
      lo = hi;
      if (!number(&hi)) return bad_bound();
    }
    if (*pos >= s.size() || s[*pos] != ']') return bad("Missing \"]\" after array dimensions.");
    ++*pos;
    if (int64_t{hi} < int64_t{lo} - 1) {
      return Status::InvalidArgument("upper bound cannot be less than lower bound");
    }
    lower->push_back(lo);
    upper->push_back(hi);
    skip_space();
  }
  if (*pos >= s.size() || s[*pos] != '=') return bad("Missing \"=\" after array dimensions.");
  ++*pos;
  return Status::OK();
}

// Parses PostgreSQL's array text ('{1,2,NULL}', '{"a b",c}', '{{1},{2}}')
// from `*pos` into elements of type `elem`.
Status ParseArrayText(std::string_view s, size_t* pos, const SqlType& elem, Value* out) {
  auto bad = [&](const char* why) {
    return Status::InvalidArgument("malformed array literal: \"" + std::string(s) + "\" (" + why +
                                   ")");
  };
  auto skip_space = [&] {
    while (*pos < s.size() && std::isspace(static_cast<unsigned char>(s[*pos]))) ++*pos;
  };
  skip_space();
  if (*pos >= s.size() || s[*pos] != '{') return bad("it must start with \"{\"");
  ++*pos;
  std::vector<Value> items;
  skip_space();
  if (*pos < s.size() && s[*pos] == '}') {
    ++*pos;
    *out = Value::List(std::move(items));
    return Status::OK();
  }
  for (;;) {
    skip_space();
    Value item;
    if (*pos < s.size() && s[*pos] == '{') {
      if (elem.IsSqlArray()) {
        SLUICE_RETURN_IF_ERROR(ParseArrayText(s, pos, elem.children()[0], &item));
      } else if (elem.id() != TypeId::kRow && elem.id() != TypeId::kVariant &&
                 !elem.IsPgArrayKind()) {
        // A sub-array: PostgreSQL's INT[] holds any number of dimensions.
        SLUICE_RETURN_IF_ERROR(ParseArrayText(s, pos, elem, &item));
      } else {
        return Status::Unimplemented(
            "A value with more dimensions than its array type declares is not supported yet: \"" +
            std::string(s) + "\". Declare the type with one [] per dimension.");
      }
    } else {
      std::string text;
      // A quoted or backslash-escaped element is text, never NULL
      // (PostgreSQL's '{null,n\\ull,"null"}' holds one NULL and two 'null').
      bool quoted = false;
      bool escaped = false;
      if (*pos < s.size() && s[*pos] == '"') {
        quoted = true;
        ++*pos;
        while (*pos < s.size() && s[*pos] != '"') {
          if (s[*pos] == '\\' && *pos + 1 < s.size()) ++*pos;
          text += s[(*pos)++];
        }
        if (*pos >= s.size()) return bad("unterminated quote");
        ++*pos;
      } else {
        while (*pos < s.size() && s[*pos] != ',' && s[*pos] != '}') {
          if (s[*pos] == '\\' && *pos + 1 < s.size()) {
            ++*pos;
            escaped = true;
          }
          text += s[(*pos)++];
        }
        text = Trim(text);
        if (text.empty()) return bad("an element is missing");
      }
      if (!quoted && !escaped && strcasecmp(text.c_str(), "null") == 0) {
        item = Value::Null();
      } else if (elem.IsSqlArray()) {
        return Status::Unimplemented(
            "A value with fewer dimensions than its array type declares is not supported yet: \"" +
            std::string(s) + "\". Declare the type with one [] per dimension.");
      } else {
        SLUICE_RETURN_IF_ERROR(CastValue(Value::String(text), SqlType::Varchar(), elem, &item));
      }
    }
    items.push_back(std::move(item));
    skip_space();
    if (*pos < s.size() && s[*pos] == ',') {
      ++*pos;
      continue;
    }
    if (*pos < s.size() && s[*pos] == '}') {
      ++*pos;
      break;
    }
    return bad("expected \",\" or \"}\"");
  }
  *out = Value::List(std::move(items));
  return Status::OK();
}

}  // namespace

std::vector<int64_t> ArrayDims(const Value& v) {
  std::vector<int64_t> dims;
  for (const Value* x = &v; x->kind() == Value::Kind::kList && !x->list().empty();
       x = &x->list()[0]) {
    dims.push_back(static_cast<int64_t>(x->list().size()));
  }
  return dims;
}

namespace {

bool HasDims(const Value& v, const std::vector<int64_t>& dims, size_t level) {
  if (level == dims.size()) return v.kind() != Value::Kind::kList;
  if (v.kind() != Value::Kind::kList || static_cast<int64_t>(v.list().size()) != dims[level])
    return false;
  for (const Value& x : v.list()) {
    if (!HasDims(x, dims, level + 1)) return false;
  }
  return true;
}

}  // namespace

bool IsRectangular(const Value& v) {
  if (v.kind() != Value::Kind::kList || v.list().empty()) return true;
  return HasDims(v, ArrayDims(v), 0);
}

int ArrayTextDimensions(std::string_view text) {
  int n = 0;
  for (char c : text) {
    if (c == '{') {
      ++n;
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      break;
    }
  }
  return n;
}

std::string Expr::ToString() const {
  switch (kind) {
    case ExprKind::kColumn:
      return "$" + std::to_string(column);
    case ExprKind::kLiteral:
      return value.ToString();
    case ExprKind::kDraw:
      return "random@" + std::to_string(column) + "()";
    case ExprKind::kVolatile: {
      // Each call is its own: two calls never print (and compare) alike.
      std::string s = std::string(fn_name) + "#" +
                      std::to_string(reinterpret_cast<uintptr_t>(volatile_fn.get())) + "(";
      for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i]->ToString();
      return s + ")";
    }
    default: {
      std::string s =
          kind == ExprKind::kCall ? fn_name : "op" + std::to_string(static_cast<int>(kind));
      // IS NOT NULL is not IS NULL: expressions that print alike are taken
      // for one (a grouping key, an aggregate computed once).
      if (negated) s += "!";
      if (has_else) s += "+else";
      s += "(";
      for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i]->ToString();
      if (transition) {
        s += std::string(fold_from_first ? "; first, " : "; ") + transition->ToString() + ":" +
             transition->type.ToString();
      }
      if (finish) s += "; " + finish->ToString() + ":" + finish->type.ToString();
      return s + ")";
    }
  }
}

ExprPtr MakeColumn(int index, SqlType type) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kColumn;
  e->column = index;
  e->type = std::move(type);
  return e;
}

ExprPtr MakeLiteral(Value v, SqlType type) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kLiteral;
  e->value = std::move(v);
  e->type = std::move(type);
  return e;
}

ExprPtr MakeCall(ScalarFn fn, const char* name, SqlType type, std::vector<ExprPtr> args,
                 bool strict, bool numeric_specials) {
  // A strict function of a NULL constant is NULL, whatever its other
  // arguments; PostgreSQL folds this while planning, so they are never
  // evaluated (and raise no error).
  for (const ExprPtr& a : args) {
    if (strict && a->kind == ExprKind::kLiteral && a->value.is_null()) {
      return MakeLiteral(Value::Null(), type.WithNullable(true));
    }
  }
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCall;
  e->fn = fn;
  e->fn_name = name;
  e->type = std::move(type);
  e->args = std::move(args);
  e->strict = strict;
  e->numeric_specials = numeric_specials;
  return e;
}

ExprPtr MakeDraw(int site) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kDraw;
  e->column = site;
  e->type = SqlType::Double(false);
  return e;
}

bool ContainsDraw(const Expr& e) {
  if (e.kind == ExprKind::kDraw) return true;
  for (const ExprPtr& a : e.args) {
    if (ContainsDraw(*a)) return true;
  }
  return false;
}

bool ContainsVolatile(const Expr& e) {
  if (e.kind == ExprKind::kVolatile) return true;
  for (const ExprPtr& a : e.args) {
    if (ContainsVolatile(*a)) return true;
  }
  return (e.transition && ContainsVolatile(*e.transition)) ||
         (e.finish && ContainsVolatile(*e.finish));
}

ExprPtr MakeNode(ExprKind kind, SqlType type, std::vector<ExprPtr> args, bool negated) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->type = std::move(type);
  e->args = std::move(args);
  e->negated = negated;
  e->cast_settings = CurrentCastSettings();
  return e;
}

int CompareValues(const Value& a, const Value& b) {
  using K = Value::Kind;
  switch (a.kind()) {
    case K::kBool:
      return static_cast<int>(a.bool_value()) - static_cast<int>(b.bool_value());
    case K::kInt:
      return a.int_value() < b.int_value() ? -1 : a.int_value() > b.int_value();
    case K::kDouble: {
      double x = a.double_value(), y = b.double_value();
      // PostgreSQL: NaN equals NaN and sorts above every other value.
      if (std::isnan(x) || std::isnan(y)) return std::isnan(x) - std::isnan(y);
      return x < y ? -1 : x > y;
    }
    case K::kDecimal: {
      if (a.decimal_is_special() || b.decimal_is_special()) {
        return CompareDecimalSpecials(a, b);
      }
      if (a.decimal_wide() != nullptr || b.decimal_wide() != nullptr) {
        return BigDecimal::Compare(BigDecimal::FromValue(a), BigDecimal::FromValue(b));
      }
      int s = std::max(a.decimal_scale(), b.decimal_scale());
      bool o1 = false, o2 = false;
      int128 x = Rescale(a.decimal_unscaled(), a.decimal_scale(), s, &o1);
      int128 y = Rescale(b.decimal_unscaled(), b.decimal_scale(), s, &o2);
      if (o1 || o2) return BigDecimal::Compare(BigDecimal::FromValue(a), BigDecimal::FromValue(b));
      return x < y ? -1 : x > y;
    }
    case K::kString: {
      int c = a.string_value().compare(b.string_value());
      return c < 0 ? -1 : c > 0;
    }
    case K::kInterval: {
      const Interval& x = a.interval_value();
      const Interval& y = b.interval_value();
      int128 kx = (static_cast<int128>(x.months) * 30 + x.days) * 86400000000LL + x.micros;
      int128 ky = (static_cast<int128>(y.months) * 30 + y.days) * 86400000000LL + y.micros;
      return kx < ky ? -1 : kx > ky;
    }
    case K::kList: {
      // Element by element, a NULL element after every value, then by
      // length (PostgreSQL's array order).
      const auto& x = a.list();
      const auto& y = b.list();
      for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
        // An element or NULL sorts before a sub-array, as the row encoding
        // has them (arrays of different dimensions).
        const bool lx = x[i].kind() == K::kList, ly = y[i].kind() == K::kList;
        if (lx != ly) return lx ? 1 : -1;
        if (x[i].is_null() || y[i].is_null()) {
          int c = static_cast<int>(x[i].is_null()) - static_cast<int>(y[i].is_null());
          if (c != 0) return c;
          continue;
        }
        int c = CompareValues(x[i], y[i]);
        if (c != 0) return c;
      }
      // As the row encoding has them: the shorter first, unless it carries
      // lower bounds (their marker sorts after an element's); of as many
      // elements, none before some, then by their count and values.
      const std::vector<int32_t>& bx = a.lower_bounds();
      const std::vector<int32_t>& by = b.lower_bounds();
      if (x.size() != y.size()) {
        const bool x_first = x.size() < y.size();
        const bool bounded = x_first ? !bx.empty() : !by.empty();
        return (x_first != bounded) ? -1 : 1;
      }
      if (bx.empty() != by.empty()) return bx.empty() ? -1 : 1;
      if (bx.size() != by.size()) return bx.size() < by.size() ? -1 : 1;
      for (size_t i = 0; i < bx.size(); ++i) {
        if (bx[i] != by[i]) return bx[i] < by[i] ? -1 : 1;
      }
      return 0;
    }
    default:
      return a == b ? 0 : (a.ToString() < b.ToString() ? -1 : 1);
  }
}

namespace {

// bytea as PostgreSQL prints it (hex) and reads it (hex or escape).
std::string ByteaToHex(std::string_view bytes) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "\\x";
  for (unsigned char c : bytes) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

Status ByteaFromText(std::string_view s, std::string* out) {
  out->clear();
  if (s.size() >= 2 && s[0] == '\\' && s[1] == 'x') {
    // Hex: pairs of digits, with blanks allowed between them.
    auto digit = [](char c) {
      return c >= '0' && c <= '9'   ? c - '0'
             : c >= 'a' && c <= 'f' ? c - 'a' + 10
             : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                    : -1;
    };
    for (size_t i = 2; i < s.size();) {
      if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
        ++i;
        continue;
      }
      const int hi = digit(s[i]);
      if (hi < 0) {
        return Status::InvalidArgument("invalid hexadecimal digit: \"" + std::string(1, s[i]) +
                                       "\"");
      }
      if (i + 1 >= s.size()) {
        return Status::InvalidArgument("invalid hexadecimal data: odd number of digits");
      }
      const int lo = digit(s[i + 1]);
      if (lo < 0) {
        return Status::InvalidArgument("invalid hexadecimal digit: \"" + std::string(1, s[i + 1]) +
                                       "\"");
      }
      out->push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    }
    return Status::OK();
  }
  // Escape: a backslash is written \\ and any byte \nnn (octal).
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out->push_back(s[i]);
    } else if (i + 1 < s.size() && s[i + 1] == '\\') {
      out->push_back('\\');
      ++i;
    } else if (i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' &&
               s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
      out->push_back(
          static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0')));
      i += 3;
    } else {
      return Status::InvalidArgument("invalid input syntax for type bytea");
    }
  }
  return Status::OK();
}

// The shortest text that reads back as the same value, laid out as
// PostgreSQL 12+ does: plain digits while the first digit's exponent is in
// [-4, 15) (REAL: [-4, 6)), else d.ddde+XX.
std::string FloatText(double d, bool real) {
  char buf[64];
  auto r = real ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(d),
                                std::chars_format::scientific)
                : std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  const std::string sci(buf, r.ptr);
  const size_t e = sci.find('e');
  const int exp = std::atoi(sci.c_str() + e + 1);
  const bool negative = sci[0] == '-';
  std::string digits;
  for (size_t i = negative ? 1 : 0; i < e; ++i) {
    if (sci[i] != '.') digits += sci[i];
  }
  std::string out = negative ? "-" : "";
  if (exp >= -4 && exp < (real ? 6 : 15)) {
    if (exp < 0) {
      out += "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
    } else if (static_cast<size_t>(exp) + 1 >= digits.size()) {
      out += digits + std::string(static_cast<size_t>(exp) + 1 - digits.size(), '0');
    } else {
      out += digits.substr(0, static_cast<size_t>(exp) + 1) + "." +
             digits.substr(static_cast<size_t>(exp) + 1);
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  char ebuf[16];
  std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
  return out + ebuf;
}

// bytea in PostgreSQL's escape output: printable ASCII as it is, a
// backslash doubled, other bytes as \ooo.
std::string ByteaToEscape(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c < 0x20 || c > 0x7e) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string ValueText(const Value& v, const SqlType& type, bool pg_output,
                      const OutputStyle& style) {
  switch (v.kind()) {
    case Value::Kind::kNull:
      return "NULL";
    case Value::Kind::kBool:
      if (pg_output) return v.bool_value() ? "t" : "f";
      return v.bool_value() ? "true" : "false";
    case Value::Kind::kInt:
      switch (type.id()) {
        case TypeId::kDate:
          return FormatDate(v.int_value());
        case TypeId::kTime:
          return type.with_time_zone() ? FormatTimeTz(TimeTz::Decode(v.int_value()))
                                       : FormatTime(v.int_value());
        case TypeId::kTimestamp:
          return type.with_time_zone() ? FormatTimestampTz(v.int_value())
                                       : FormatTimestamp(v.int_value());
        default:
          if (type.pg_kind() == PgKind::kMoney) return MoneyText(v.int_value());
          return std::to_string(v.int_value());
      }
    case Value::Kind::kInterval:
      return FormatInterval(v.interval_value(), style.interval);
    case Value::Kind::kDecimal:
      return DecimalValueToString(v);
    case Value::Kind::kDouble: {
      double d = v.double_value();
      if (std::isnan(d)) return "NaN";
      if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
      if (style.extra_float_digits < 1) {
        const int digits =
            std::max(1, (type.id() == TypeId::kReal ? 6 : 15) + style.extra_float_digits);
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.*g", digits, d);
        return buf;
      }
      return FloatText(d, type.id() == TypeId::kReal);
    }
    case Value::Kind::kString:
      if (pg_output && type.IsBinary()) {
        return style.bytea_escape ? ByteaToEscape(v.string_value()) : ByteaToHex(v.string_value());
      }
      if (pg_output && type.id() == TypeId::kChar && type.length() > 0) {
        // CHAR(n) is kept without its trailing blanks and printed with them.
        size_t len = 0;  // characters: bytes that do not continue one
        for (char c : v.string_value()) len += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
        const auto n = static_cast<size_t>(type.length());
        if (len < n) return v.string_value() + std::string(n - len, ' ');
      }
      return v.string_value();
    case Value::Kind::kList:
      if (type.pg_kind() == PgKind::kPoint) {
        const SqlType coordinate = SqlType::Double();
        return "(" + ValueText(v.list()[0], coordinate, pg_output, style) + "," +
               ValueText(v.list()[1], coordinate, pg_output, style) + ")";
      }
      if (type.IsPgArrayKind()) return PgVectorText(v);
      if (type.id() == TypeId::kArray) {
        const SqlType& elem = type.children()[0];
        std::string out;
        if (!v.lower_bounds().empty()) {  // "[0:1][1:2]={{...}}"
          const std::vector<int64_t> dims = ArrayDims(v);
          for (size_t i = 0; i < dims.size() && i < v.lower_bounds().size(); ++i) {
            const int64_t lo = v.lower_bounds()[i];
            out += "[" + std::to_string(lo) + ":" + std::to_string(lo + dims[i] - 1) + "]";
          }
          out += "=";
        }
        out += "{";
        for (size_t i = 0; i < v.list().size(); ++i) {
          const Value& x = v.list()[i];
          if (i > 0) out += ',';
          if (x.is_null()) {
            out += "NULL";
          } else if (elem.IsSqlArray()) {
            out += ValueText(x, elem, pg_output, style);
          } else if (x.kind() == Value::Kind::kList && ArrayHoldsSubArrays(type)) {
            out += ValueText(x, type, pg_output, style);
          } else {
            out += QuoteArrayElement(ValueText(x, elem, pg_output, style));
          }
        }
        return out + "}";
      }
      if (type.id() == TypeId::kRow) {
        // PostgreSQL's record_out: a NULL field is empty; a field that is
        // empty or holds quotes, backslashes, parentheses, commas or spaces
        // is quoted, with its quotes and backslashes doubled.
        std::string out = "(";
        for (size_t i = 0; i < v.list().size(); ++i) {
          const Value& x = v.list()[i];
          if (i > 0) out += ',';
          if (x.is_null()) continue;
          const std::string text = ValueText(x, type.children()[i], pg_output, style);
          bool quote = text.empty();
          for (char c : text) {
            if (c == '"' || c == '\\' || c == '(' || c == ')' || c == ',' ||
                std::isspace(static_cast<unsigned char>(c))) {
              quote = true;
            }
          }
          if (!quote) {
            out += text;
            continue;
          }
          out += '"';
          for (char c : text) {
            if (c == '"' || c == '\\') out += c;
            out += c;
          }
          out += '"';
        }
        return out + ")";
      }
      return v.ToString();
    default:
      return v.ToString();
  }
}

// A cast of a finite value to DECIMAL in arbitrary precision: for values
// and types beyond the int128 form.
Status CastToWideDecimal(const Value& v, const SqlType& from, const SqlType& to, Value* out) {
  using K = Value::Kind;
  BigDecimal b;
  switch (v.kind()) {
    case K::kDecimal:
      b = BigDecimal::FromValue(v);
      break;
    case K::kInt:
      b = BigDecimal::FromInt128(v.int_value(), 0);
      break;
    case K::kString:
      if (!BigDecimal::Parse(Trim(v.string_value()), &b)) return BadInput(to, v.string_value());
      break;
    case K::kDouble: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.*g", from.id() == TypeId::kReal ? 6 : 15, v.double_value());
      if (!BigDecimal::Parse(buf, &b)) return BadInput(to, buf);
      break;
    }
    default:
      return Status::InvalidArgument("cannot cast " + from.ToString() + " to " + to.ToString());
  }
  if (!to.dynamic_scale()) {
    b = b.Round(to.scale());
    if (b.DigitCount() > to.precision()) return Status::Overflow("numeric field overflow");
  }
  if (!BigDecimalInFormat(b)) return Status::Overflow("value overflows numeric format");
  *out = b.ToValue();
  return Status::OK();
}

}  // namespace

std::string ValueToText(const Value& v, const SqlType& type, bool pg_output) {
  return ValueText(v, type, pg_output, OutputStyle());
}

std::string ValueToPgText(const Value& v, const SqlType& type, const OutputStyle& style) {
  return ValueText(v, type, /*pg_output=*/true, style);
}

namespace {
thread_local bool g_bytea_escape = false;  // the rest are datetime.h's
}  // namespace

CastSettings CurrentCastSettings() {
  return {CurrentDateOrder(), CurrentIntervalStyle(), g_bytea_escape};
}
CastSettingsScope::CastSettingsScope(const CastSettings& settings)
    : date_order_(settings.date_order),
      interval_style_(settings.interval_style),
      saved_bytea_escape_(g_bytea_escape) {
  g_bytea_escape = settings.bytea_escape;
}
CastSettingsScope::~CastSettingsScope() { g_bytea_escape = saved_bytea_escape_; }

namespace {

// Casts to and from JSON and JSONB: text is read as a document; a document
// is text, or (JSONB) a number or boolean as one of those types; any other
// value becomes its document (to_jsonb: the casts the binder adds for
// to_jsonb and jsonb_build_object; a user's cast from a non-text type is
// refused before it gets here).
Status CastJson(const Value& v, const SqlType& from, const SqlType& to, Value* out) {
  const char* to_name = to.is_jsonb() ? "jsonb" : "json";
  if (to.is_json()) {
    std::string doc;
    if (from.is_json()) {
      if (to.is_jsonb() && !from.is_jsonb()) {
        SLUICE_RETURN_IF_ERROR(JsonFromText(v.string_value(), true, &doc));
        *out = Value::String(std::move(doc));
      } else {
        *out = v;
      }
      return Status::OK();
    }
    if (from.IsString() && v.kind() == Value::Kind::kString) {
      SLUICE_RETURN_IF_ERROR(JsonFromText(v.string_value(), to.is_jsonb(), &doc));
    } else if (to.is_jsonb()) {
      SLUICE_RETURN_IF_ERROR(ToJsonb(v, from, &doc));
    } else {
      SLUICE_RETURN_IF_ERROR(ToJson(v, from, &doc));
    }
    *out = Value::String(std::move(doc));
    return Status::OK();
  }
  // From a document.
  const char* from_name = from.is_jsonb() ? "jsonb" : "json";
  if (to.IsString()) return CastValue(v, SqlType::Varchar(), to, out);
  JsonNode n;
  SLUICE_RETURN_IF_ERROR(ParseJson(v.string_value(), &n));
  if (!from.is_jsonb() ||
      (!to.IsInteger() && to.id() != TypeId::kDecimal && to.id() != TypeId::kReal &&
       to.id() != TypeId::kDouble && to.id() != TypeId::kBoolean)) {
    return Status::InvalidArgument(std::string("cannot cast type ") + from_name + " to " +
                                   PostgresDataType(to));
  }
  (void)to_name;
  if (n.kind == JsonNode::Kind::kNull) {
    *out = Value::Null();
    return Status::OK();
  }
  const bool want_bool = to.id() == TypeId::kBoolean;
  if ((want_bool && n.kind != JsonNode::Kind::kBool) ||
      (!want_bool && n.kind != JsonNode::Kind::kNumber)) {
    return Status::InvalidArgument(std::string("cannot cast jsonb ") + JsonKindName(n, true) +
                                   " to type " + PostgresDataType(to));
  }
  if (want_bool) {
    *out = Value::Bool(n.boolean);
    return Status::OK();
  }
  if (to.IsInteger()) {
    // Through numeric, which rounds: '12.5'::jsonb::int is 13.
    Value num;
    SLUICE_RETURN_IF_ERROR(
        CastValue(Value::String(n.text), SqlType::Varchar(), SqlType::Numeric(), &num));
    return CastValue(num, SqlType::Numeric(), to, out);
  }
  return CastValue(Value::String(n.text), SqlType::Varchar(), to, out);
}

}  // namespace

// A ROW value from PostgreSQL's text of a record, "(1,foo,,"a ""b"" c")":
// fields between commas, an empty one NULL, double quotes around a field
// that holds commas, parentheses, quotes or spaces ("" and \ escape
// within), each field's text cast to its type.
Status RecordFromText(const std::string& text, const SqlType& to, Value* out) {
  auto malformed = [&](const char* why) {
    return Status::InvalidArgument("malformed record literal: \"" + text + "\" (" + why + ")");
  };
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i >= text.size() || text[i] != '(') return malformed("Missing left parenthesis.");
  ++i;
  const size_t n = to.children().size();
  std::vector<Value> fields;
  for (size_t f = 0;; ++f) {
    if (f >= n) return malformed("Too many columns.");
    std::string field;
    bool quoted_any = false, in_quotes = false;
    while (i < text.size()) {
      const char c = text[i];
      if (!in_quotes && (c == ',' || c == ')')) break;
      if (c == '\\' && i + 1 < text.size()) {
        field.push_back(text[i + 1]);
        i += 2;
      } else if (c == '"' && in_quotes && i + 1 < text.size() && text[i + 1] == '"') {
        field.push_back('"');
        i += 2;
      } else if (c == '"') {
        in_quotes = !in_quotes;
        quoted_any = true;
        ++i;
      } else {
        field.push_back(c);
        ++i;
      }
    }
    if (i >= text.size()) return malformed("Unexpected end of input.");
    const SqlType& type = to.children()[f];
    if (field.empty() && !quoted_any) {
      fields.push_back(Value::Null());
    } else {
      Value x;
      SLUICE_RETURN_IF_ERROR(
          CastValue(Value::String(std::move(field)), SqlType::Varchar(), type, &x));
      fields.push_back(std::move(x));
    }
    if (text[i++] == ')') break;
  }
  if (fields.size() < n) return malformed("Too few columns.");
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i != text.size()) return malformed("Junk after right parenthesis.");
  *out = Value::List(std::move(fields));
  return Status::OK();
}

namespace {

// Casts to and from money (a BIGINT of cents), as PostgreSQL has them:
// from text, integers and numeric (rounded to the cent, half away from
// zero); to text and numeric. No others: not from floats, not to integers.
Status CastMoney(const Value& v, const SqlType& from, const SqlType& to, Value* out) {
  auto no_cast = [&] {
    return Status::InvalidArgument("cannot cast type " + PgTypeOf(from).name + " to " +
                                   PgTypeOf(to).name);
  };
  if (to.pg_kind() == from.pg_kind()) {
    *out = v;
    return Status::OK();
  }
  if (to.pg_kind() == PgKind::kMoney) {
    if (v.kind() == Value::Kind::kString) return MoneyFromText(v.string_value(), out);
    if (v.kind() == Value::Kind::kInt && from.IsInteger()) {
      int64_t cents;
      if (__builtin_mul_overflow(v.int_value(), int64_t{100}, &cents)) {
        return Status::Overflow("money out of range");
      }
      *out = Value::Int(cents);
      return Status::OK();
    }
    if (v.kind() == Value::Kind::kDecimal) {
      if (v.decimal_is_special()) {
        return Status::InvalidArgument(
            std::string("cannot convert ") +
            (v.decimal_special() == DecimalSpecial::kNaN ? "NaN" : "infinity") + " to bigint");
      }
      Value at_cents;
      const Status st = CastValue(v, from, SqlType::Decimal(38, 2), &at_cents);
      if (!st.ok() || at_cents.decimal_unscaled() > INT64_MAX ||
          at_cents.decimal_unscaled() < INT64_MIN) {
        return Status::Overflow("bigint out of range");
      }
      *out = Value::Int(static_cast<int64_t>(at_cents.decimal_unscaled()));
      return Status::OK();
    }
    return no_cast();
  }
  if (to.IsString()) {
    *out = Value::String(MoneyText(v.int_value()));
    return Status::OK();
  }
  if (to.id() == TypeId::kDecimal) {
    return CastValue(Value::Decimal(v.int_value(), 2), SqlType::Decimal(38, 2), to, out);
  }
  return no_cast();
}

}  // namespace

Status CastValue(const Value& v, const SqlType& from, const SqlType& to, Value* out) {
  if (v.is_null()) {
    *out = Value::Null();
    return Status::OK();
  }
  if (to.is_json() || from.is_json()) return CastJson(v, from, to, out);
  if (to.IsPgArrayKind() || from.pg_kind() == PgKind::kPoint) {
    // int2vector, oidvector and point read text and cast to text (below);
    // a vector is also an array of its elements (its subscripts from 0),
    // as PostgreSQL's binary-coercible casts have it, but not the reverse.
    if (to.IsPgArrayKind() && v.kind() == Value::Kind::kString) {
      return PgKindFromText(v.string_value(), to, out);
    }
    if (to.pg_kind() == from.pg_kind()) {
      *out = v;
      return Status::OK();
    }
    if (!to.IsString()) {
      return Status::InvalidArgument("cannot cast type " + PgTypeOf(from).name + " to " +
                                     PgTypeOf(to).name);
    }
  }
  if (to.pg_kind() == PgKind::kMoney || from.pg_kind() == PgKind::kMoney) {
    return CastMoney(v, from, to, out);
  }
  if (to.pg_kind() == PgKind::kJsonPath && from.pg_kind() != PgKind::kJsonPath) {
    // Text read as a path, kept as PostgreSQL prints it.
    if (v.kind() != Value::Kind::kString || !from.IsString()) {
      return Status::InvalidArgument("cannot cast type " + PgTypeOf(from).name + " to jsonpath");
    }
    SLUICE_ASSIGN_OR_RETURN(std::string text, JsonPathText(v.string_value()));
    *out = Value::String(std::move(text));
    return Status::OK();
  }
  const TypeId t = to.id();
  using K = Value::Kind;
  if (t == TypeId::kArray) {
    const SqlType& elem = to.children()[0];
    if (v.kind() == K::kString) {
      const std::string text = v.string_value();  // `out` may be `v`
      size_t pos = 0;
      std::vector<int32_t> lower, upper;
      SLUICE_RETURN_IF_ERROR(ParseArrayBounds(text, &pos, &lower, &upper));
      SLUICE_RETURN_IF_ERROR(ParseArrayText(text, &pos, elem, out));
      while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
      if (pos != text.size()) {
        return Status::InvalidArgument("malformed array literal: \"" + text +
                                       "\" (junk after the closing \"}\")");
      }
      if ((elem.IsSqlArray() || ArrayHoldsSubArrays(to)) && !IsRectangular(*out)) {
        return Status::InvalidArgument(
            "malformed array literal: \"" + text +
            "\" (multidimensional arrays must have sub-arrays with matching dimensions)");
      }
      if (!lower.empty()) {
        // An array of rows has one dimension; its rows are lists too.
        const std::vector<int64_t> dims =
            elem.id() == TypeId::kRow
                ? std::vector<int64_t>{static_cast<int64_t>(out->list().size())}
                : ArrayDims(*out);
        bool match = dims.size() == lower.size();
        for (size_t i = 0; match && i < dims.size(); ++i) {
          match = int64_t{upper[i]} - lower[i] + 1 == dims[i];
        }
        if (!match) {
          return Status::InvalidArgument(
              "malformed array literal: \"" + text +
              "\" (Specified array dimensions do not match array contents.)");
        }
        if (!ArrayHoldsSubArrays(to)) {
          for (int32_t b : lower) {
            if (b != 1) {
              return Status::Unimplemented("Lower bounds of an array of " + elem.ToString() +
                                           " are not supported yet");
            }
          }
        }
        *out = Value::BoundedList(std::vector<Value>(out->list()), std::move(lower));
      }
      return Status::OK();
    }
    if (v.kind() == K::kList && from.id() == TypeId::kArray) {
      std::vector<Value> items;
      const std::vector<Value> in = v.list();  // `out` may be `v`
      std::vector<int32_t> lower = v.lower_bounds();
      if (!ArrayHoldsSubArrays(to)) lower.clear();
      const bool sub_arrays = ArrayHoldsSubArrays(from);
      for (const Value& x : in) {
        Value y;
        if (sub_arrays && x.kind() == K::kList) {
          SLUICE_RETURN_IF_ERROR(CastValue(x, from, to, &y));
          items.push_back(std::move(y));
          continue;
        }
        SLUICE_RETURN_IF_ERROR(CastValue(x, from.children()[0], elem, &y));
        items.push_back(std::move(y));
      }
      *out = Value::BoundedList(std::move(items), std::move(lower));
      return Status::OK();
    }
    return Status::InvalidArgument("cannot cast type " + from.ToString() + " to " + to.ToString());
  }
  if (t == TypeId::kRow && v.kind() == K::kString) return RecordFromText(v.string_value(), to, out);
  if (t == TypeId::kRow && from.id() == TypeId::kRow && v.kind() == K::kList &&
      from.children().size() == to.children().size()) {
    std::vector<Value> fields;
    const std::vector<Value> in = v.list();  // `out` may be `v`
    for (size_t i = 0; i < in.size(); ++i) {
      Value y;
      SLUICE_RETURN_IF_ERROR(CastValue(in[i], from.children()[i], to.children()[i], &y));
      fields.push_back(std::move(y));
    }
    *out = Value::List(std::move(fields));
    return Status::OK();
  }
  if (to.IsTimeTz() || (t == TypeId::kTime && from.IsTimeTz())) {
    // TIME WITH TIME ZONE: from text, a TIME (in the session's zone, UTC)
    // or a timestamp with time zone (its time of day in UTC); to a TIME,
    // its time of day, the zone dropped, as PostgreSQL casts them.
    TimeTz x;
    if (v.kind() == K::kString && to.IsTimeTz()) {
      if (!ParseTimeTz(v.string_value(), &x)) {
        return Status::InvalidArgument("invalid input syntax for type time with time zone: \"" +
                                       v.string_value() + "\"");
      }
    } else if (v.kind() == K::kInt && from.IsTimeTz()) {
      x = TimeTz::Decode(v.int_value());
    } else if (v.kind() == K::kInt && from.id() == TypeId::kTime) {
      x.micros = v.int_value();
    } else if (v.kind() == K::kInt && from.id() == TypeId::kTimestamp && from.with_time_zone()) {
      if (IsInfiniteTimestamp(v.int_value())) {  // no time of day: NULL, as in PostgreSQL
        *out = Value::Null();
        return Status::OK();
      }
      const int64_t r = v.int_value() % kMicrosPerDay;
      x.micros = r < 0 ? r + kMicrosPerDay : r;
    } else {
      return Status::InvalidArgument("cannot cast type " + PostgresDataType(from) + " to " +
                                     PostgresDataType(to));
    }
    *out = Value::Int(to.IsTimeTz() ? x.Encode() : x.micros);
    return Status::OK();
  }
  if (t == TypeId::kDate || t == TypeId::kTime || t == TypeId::kTimestamp) {
    const char* name = t == TypeId::kDate    ? "date"
                       : t == TypeId::kTime  ? "time"
                       : to.with_time_zone() ? "timestamp with time zone"
                                             : "timestamp";
    int64_t x = 0;
    if (v.kind() == K::kString) {
      bool ok = t == TypeId::kDate    ? ParseDate(v.string_value(), &x)
                : t == TypeId::kTime  ? ParseTime(v.string_value(), &x)
                : to.with_time_zone() ? ParseTimestampTz(v.string_value(), &x)
                                      : ParseTimestamp(v.string_value(), &x);
      if (!ok) {
        // A date that reads, past the timestamps' range, is out of range.
        const std::string& text = v.string_value();
        int64_t days;
        if (t == TypeId::kTimestamp &&
            ParseDate(std::string_view(text).substr(0, text.find_first_of(" T")), &days) &&
            !IsInfiniteDate(days) && (days > 106751990 || days < -106751990)) {
          // PostgreSQL counts microseconds from 2000, so its timestamps
          // reach 30 years further than ours, which count them from 1970.
          if (days > 0 && days < kPgTimestampEndDays) {
            return Status::Unimplemented("timestamp \"" + text +
                                         "\": a timestamp after 294247-01-10 04:00:54.775807 "
                                         "is not supported yet");
          }
          return Status::Overflow(std::string(name) + " out of range: \"" + text + "\"");
        }
        return Status::InvalidArgument(std::string("invalid input syntax for type ") + name +
                                       ": \"" + text + "\"");
      }
    } else if (v.kind() == K::kInt && from.id() == t) {
      x = v.int_value();
    } else if (v.kind() == K::kInt && from.id() == TypeId::kDate && t == TypeId::kTimestamp) {
      x = IsInfiniteDate(v.int_value()) ? (v.int_value() > 0 ? kTsPosInfinity : kTsNegInfinity)
                                        : v.int_value() * kMicrosPerDay;
    } else if (v.kind() == K::kInt && from.id() == TypeId::kTimestamp && t == TypeId::kDate) {
      int64_t ts = v.int_value();
      x = IsInfiniteTimestamp(ts) ? (ts > 0 ? kDatePosInfinity : kDateNegInfinity)
                                  : ts / kMicrosPerDay - (ts % kMicrosPerDay < 0);
    } else if (v.kind() == K::kInt && from.id() == TypeId::kTimestamp && t == TypeId::kTime) {
      if (IsInfiniteTimestamp(v.int_value())) {  // no time of day: NULL, as in PostgreSQL
        *out = Value::Null();
        return Status::OK();
      }
      int64_t r = v.int_value() % kMicrosPerDay;
      x = r < 0 ? r + kMicrosPerDay : r;
    } else {
      return Status::InvalidArgument("cannot cast " + from.ToString() + " to " + to.ToString());
    }
    *out = Value::Int(x);
    return Status::OK();
  }
  if (t == TypeId::kInterval) {
    if (v.kind() == K::kInterval) {
      *out = v;
      return Status::OK();
    }
    Interval iv;
    if (v.kind() != K::kString) {
      return Status::InvalidArgument("invalid input syntax for type interval: \"" +
                                     ValueToText(v, from) + "\"");
    }
    SLUICE_RETURN_IF_ERROR(
        ParseIntervalTypmod(v.string_value(), kIntervalFullRange, kIntervalFullPrecision, &iv));
    *out = Value::MakeInterval(iv.months, iv.days, iv.micros);
    return Status::OK();
  }
  if (to.IsInteger()) {
    int128 x;
    switch (v.kind()) {
      case K::kInt:
        x = v.int_value();
        break;
      case K::kDouble: {
        double d = v.double_value();
        if (std::isnan(d) || std::isinf(d) || std::fabs(d) > 9.3e18) return OutOfRange(to);
        x = static_cast<int128>(std::nearbyint(d));  // round half to even, as rint()
        break;
      }
      case K::kDecimal: {
        if (v.decimal_is_special()) {
          return Status::InvalidArgument(
              std::string("cannot convert ") +
              (v.decimal_special() == DecimalSpecial::kNaN ? "NaN" : "infinity") + " to " +
              IntTypeName(to));
        }
        if (v.decimal_wide() != nullptr) {
          int128 u;
          if (!v.decimal_wide()->Round(0).ToInt128(&u)) return OutOfRange(to);
          x = u;
          break;
        }
        bool overflow = false;
        x = Rescale(v.decimal_unscaled(), v.decimal_scale(), 0, &overflow);
        break;
      }
      case K::kBool:
        if (t != TypeId::kInteger)
          return Status::InvalidArgument("cannot cast boolean to " + to.ToString());
        x = v.bool_value();
        break;
      case K::kString: {
        std::string s = Trim(v.string_value());
        int64_t i;
        auto r = std::from_chars(s.data() + (s.size() && s[0] == '+'), s.data() + s.size(), i);
        if (r.ec == std::errc::result_out_of_range) return OutOfRange(to);
        if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty())
          return BadInput(to, v.string_value());
        x = i;
        break;
      }
      default:
        return Status::InvalidArgument("cannot cast " + from.ToString() + " to " + to.ToString());
    }
    if (to.pg_kind() == PgKind::kOid && from.pg_kind() != PgKind::kOid) {
      // An oid from an integer: a negative int4 wraps around, as in
      // PostgreSQL (-1 is 4294967295).
      if (x < 0 && x >= INT32_MIN) x += int128{1} << 32;
      if (x < 0 || x > UINT32_MAX) return Status::Overflow("OID out of range");
    }
    if (!FitsInt(x, t)) return OutOfRange(to);
    *out = Value::Int(static_cast<int64_t>(x));
    return Status::OK();
  }
  if (t == TypeId::kDouble || t == TypeId::kReal) {
    double d;
    switch (v.kind()) {
      case K::kInt:
        d = static_cast<double>(v.int_value());
        break;
      case K::kDouble:
        d = v.double_value();
        break;
      case K::kDecimal:
        d = v.decimal_special() == DecimalSpecial::kNaN      ? std::nan("")
            : v.decimal_special() == DecimalSpecial::kPosInf ? INFINITY
            : v.decimal_special() == DecimalSpecial::kNegInf ? -INFINITY
            : v.decimal_wide() != nullptr
                ? v.decimal_wide()->ToDouble()
                : DecimalToDouble(v.decimal_unscaled(), v.decimal_scale());
        break;
      case K::kString: {
        std::string s = Trim(v.string_value());
        if (s == "NaN" || s == "nan") {
          d = std::nan("");
          break;
        }
        if (s == "Infinity" || s == "inf") {
          d = INFINITY;
          break;
        }
        if (s == "-Infinity" || s == "-inf") {
          d = -INFINITY;
          break;
        }
        const char* first = s.data() + (s.size() && s[0] == '+');
        std::from_chars_result r;
        if (t == TypeId::kReal) {
          // Straight to single precision: through a double, the text would
          // be rounded twice ('7038531e-32' would lose its last bit).
          float f = 0;
          r = std::from_chars(first, s.data() + s.size(), f);
          d = f;
          // Out of single precision's range: the double says how (below).
          if (r.ec == std::errc::result_out_of_range)
            r = std::from_chars(first, s.data() + s.size(), d);
        } else {
          r = std::from_chars(first, s.data() + s.size(), d);
        }
        if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty())
          return BadInput(to, v.string_value());
        break;
      }
      default:
        return Status::InvalidArgument("cannot cast " + from.ToString() + " to " + to.ToString());
    }
    if (t == TypeId::kReal) {
      float f = static_cast<float>(d);
      if (std::isinf(f) && !std::isinf(d)) return Status::Overflow("value out of range: overflow");
      d = f;
    }
    *out = Value::Double(d);
    return Status::OK();
  }
  if (t == TypeId::kDecimal) {
    int scale = to.scale();
    int128 u = 0;
    bool overflow = false;
    DecimalSpecial special = DecimalSpecial::kFinite;
    if (v.kind() == K::kDecimal) special = v.decimal_special();
    if (v.kind() == K::kString) ParseDecimalSpecial(v.string_value(), &special);
    if (v.kind() == K::kDouble && !std::isfinite(v.double_value())) {
      special = std::isnan(v.double_value()) ? DecimalSpecial::kNaN
                : v.double_value() > 0       ? DecimalSpecial::kPosInf
                                             : DecimalSpecial::kNegInf;
    }
    if (special != DecimalSpecial::kFinite) {
      if (special != DecimalSpecial::kNaN && !DecimalHoldsInfinity(to)) {
        return Status::Overflow("numeric field overflow: a field with precision " +
                                std::to_string(to.precision()) + ", scale " +
                                std::to_string(to.scale()) + " cannot hold an infinite value");
      }
      *out = Value::DecimalSpecialValue(special);
      return Status::OK();
    }
    // Arbitrary precision: wide inputs, text beyond 38 digits, and types
    // of more than 38 digits.
    const bool wide_in =
        (v.kind() == K::kDecimal && v.decimal_wide() != nullptr) ||
        (v.kind() == K::kString && to.precision() > kMaxDecimalDigits) ||
        (v.kind() == K::kDecimal && !to.dynamic_scale() && to.precision() > kMaxDecimalDigits);
    if (wide_in) return CastToWideDecimal(v, from, to, out);
    switch (v.kind()) {
      case K::kInt:
        if (to.dynamic_scale()) scale = 0;
        u = Rescale(v.int_value(), 0, scale, &overflow);
        break;
      case K::kDecimal:
        if (to.dynamic_scale()) scale = v.decimal_scale();
        u = Rescale(v.decimal_unscaled(), v.decimal_scale(), scale, &overflow);
        break;
      case K::kDouble: {
        // As PostgreSQL: the float's text to its type's significant digits
        // (15 of a DOUBLE, 6 of a REAL), read as a numeric, so 12.25 rounds
        // to 12.3 at scale 1 and 0.1 is 0.1.
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.*g", from.id() == TypeId::kReal ? 6 : 15,
                      v.double_value());
        if (to.dynamic_scale()) scale = DecimalTextScale(buf);
        if (!ParseDecimal(buf, scale, &u)) overflow = true;
        break;
      }
      case K::kString: {
        const std::string text = Trim(v.string_value());
        if (to.dynamic_scale() && IsDecimalText(text)) scale = DecimalTextScale(text);
        if (!ParseDecimal(text, scale, &u)) {
          if (!IsDecimalText(text)) return BadInput(to, v.string_value());
          // A number too large (or small) for an int128.
          return CastToWideDecimal(Value::String(text), from, to, out);
        }
        break;
      }
      default:
        return Status::InvalidArgument("cannot cast " + from.ToString() + " to " + to.ToString());
    }
    const int digits = std::min(to.precision(), kMaxDecimalDigits);
    if (overflow || u >= Pow10(digits) || u <= -Pow10(digits) || scale > kMaxDecimalDigits) {
      // Beyond the int128 form: the unconstrained numeric takes it wide, a
      // constrained one of p <= 38 overflows as in PostgreSQL.
      if (to.dynamic_scale() || (v.kind() == K::kDecimal && overflow)) {
        return CastToWideDecimal(v, from, to, out);
      }
      return Status::Overflow("numeric field overflow");
    }
    *out = Value::Decimal(u, scale);
    return Status::OK();
  }
  if (t == TypeId::kBoolean) {
    if (v.kind() == K::kBool) {
      *out = v;
      return Status::OK();
    }
    if (v.kind() == K::kInt) {
      *out = Value::Bool(v.int_value() != 0);
      return Status::OK();
    }
    if (v.kind() == K::kString) {
      std::string s = Trim(v.string_value());
      for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      // PostgreSQL's words, or any prefix of them that is not ambiguous
      // ("o" is; "of" is off).
      auto prefix_of = [&](std::string_view word, size_t min) {
        return s.size() >= min && word.substr(0, s.size()) == s;
      };
      if (prefix_of("true", 1) || prefix_of("yes", 1) || prefix_of("on", 2) || s == "1") {
        *out = Value::Bool(true);
        return Status::OK();
      }
      if (prefix_of("false", 1) || prefix_of("no", 1) || prefix_of("off", 2) || s == "0") {
        *out = Value::Bool(false);
        return Status::OK();
      }
      return BadInput(to, v.string_value());
    }
    return Status::InvalidArgument("cannot cast " + from.ToString() + " to boolean");
  }
  if (to.IsBinary() && from.IsString()) {
    std::string bytes;
    SLUICE_RETURN_IF_ERROR(ByteaFromText(v.string_value(), &bytes));
    *out = Value::String(std::move(bytes));
    return Status::OK();
  }
  if (to.IsString() || to.IsBinary()) {
    const CastSettings settings = CurrentCastSettings();  // as the cast was bound
    OutputStyle style;
    style.interval = settings.interval_style;
    style.bytea_escape = settings.bytea_escape;
    std::string s = ValueText(v, from, /*pg_output=*/to.IsString() && from.IsBinary(), style);
    if (to.length() >= 0) {
      // Explicit casts truncate to the declared length, as PostgreSQL does.
      size_t chars = 0, i = 0;
      for (; i < s.size(); ++i) {
        if ((static_cast<uint8_t>(s[i]) & 0xC0) != 0x80) {
          if (chars == static_cast<size_t>(to.length())) break;
          ++chars;
        }
      }
      s.resize(i);
    }
    *out = Value::String(std::move(s));
    return Status::OK();
  }
  if (from.id() == t) {
    *out = v;
    return Status::OK();
  }
  return Status::Unimplemented("cast from " + from.ToString() + " to " + to.ToString() +
                               " is not supported yet");
}

Status AssignValue(const Value& v, const SqlType& from, const SqlType& to, Value* out) {
  if (!to.IsString() || to.length() < 0 || v.is_null()) return CastValue(v, from, to, out);
  Value text;
  SLUICE_RETURN_IF_ERROR(CastValue(v, from, SqlType::Varchar(), &text));
  const std::string& t = text.string_value();
  size_t chars = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    if ((static_cast<unsigned char>(t[i]) & 0xC0) == 0x80) continue;  // a UTF-8 continuation
    if (++chars > static_cast<size_t>(to.length()) && t[i] != ' ') {
      return Status::InvalidArgument(
          std::string("value too long for type ") +
          (to.id() == TypeId::kChar ? "character(" : "character varying(") +
          std::to_string(to.length()) + ")");
    }
  }
  return CastValue(text, SqlType::Varchar(), to, out);
}

ExprPtr MakeCast(ExprPtr e, const SqlType& to) {
  if (e->type.id() == to.id() && e->type.precision() == to.precision() &&
      e->type.scale() == to.scale() && e->type.with_time_zone() == to.with_time_zone() &&
      e->type.pg_kind() == to.pg_kind() && e->type.children() == to.children() &&
      e->type.is_json() == to.is_json() && e->type.is_jsonb() == to.is_jsonb()) {
    if (e->type.field_names() == to.field_names()) return e;
    // A ROW cast to a composite type with the same fields' types: the same
    // values, the type's field names.
    auto renamed = std::make_shared<Expr>(*e);
    renamed->type = to;
    return renamed;
  }
  if (e->kind == ExprKind::kLiteral) {
    Value v;
    if (CastValue(e->value, e->type, to, &v).ok()) return MakeLiteral(std::move(v), to);
  }
  return MakeNode(ExprKind::kCast, to, {std::move(e)});
}

namespace {

Status EvalFold(const Expr& e, const Row& row, Value* out) {
  Value state, list;
  SLUICE_RETURN_IF_ERROR(Eval(*e.args[0], row, &state));
  SLUICE_RETURN_IF_ERROR(Eval(*e.args[1], row, &list));
  static const std::vector<Value> kNone;
  const std::vector<Value>& elements = list.is_null() ? kNone : list.list();
  size_t i = 0;
  if (e.fold_from_first && state.is_null() && !elements.empty()) {
    const SqlType& element = e.args[1]->type.children()[0];
    SLUICE_RETURN_IF_ERROR(CastValue(elements[0].list()[0], element.children()[0], e.type, &state));
    i = 1;
  }
  // One row for every call: the state, then the element's fields.
  Row call;
  for (; i < elements.size(); ++i) {
    const std::vector<Value>& fields = elements[i].list();
    call.resize(fields.size() + 1);
    call[0] = std::move(state);
    std::copy(fields.begin(), fields.end(), call.begin() + 1);
    SLUICE_RETURN_IF_ERROR(Eval(*e.transition, call, &state));
  }
  if (e.finish) return Eval(*e.finish, Row{std::move(state)}, out);
  *out = std::move(state);
  return Status::OK();
}

}  // namespace

Status Eval(const Expr& e, const Row& row, Value* out) {
  switch (e.kind) {
    case ExprKind::kColumn:
      *out = row[static_cast<size_t>(e.column)];
      return Status::OK();
    case ExprKind::kLiteral:
      *out = e.value;
      return Status::OK();
    case ExprKind::kCall: {
      Value buf[8];
      std::vector<Value> heap;
      Value* args = buf;
      size_t n = e.args.size();
      if (n > 8) {
        heap.resize(n);
        args = heap.data();
      }
      for (size_t i = 0; i < n; ++i) {
        SLUICE_RETURN_IF_ERROR(Eval(*e.args[i], row, &args[i]));
        if (args[i].is_null() && e.strict) {
          *out = Value::Null();
          return Status::OK();
        }
        if (args[i].kind() == Value::Kind::kDecimal && !e.numeric_specials &&
            args[i].decimal_is_special()) {
          return Status::Unimplemented(std::string(e.fn_name) + " of numeric " +
                                       DecimalSpecialName(args[i].decimal_special()) +
                                       " is not supported yet");
        }
      }
      return e.fn(e.type, args, n, out);
    }
    case ExprKind::kCast: {
      Value v;
      SLUICE_RETURN_IF_ERROR(Eval(*e.args[0], row, &v));
      if (e.cast_settings != CurrentCastSettings()) {
        CastSettingsScope settings(e.cast_settings);
        return CastValue(v, e.args[0]->type, e.type, out);
      }
      return CastValue(v, e.args[0]->type, e.type, out);
    }
    case ExprKind::kAnd:
    case ExprKind::kOr: {
      const bool is_and = e.kind == ExprKind::kAnd;
      bool saw_null = false;
      for (const ExprPtr& a : e.args) {
        Value v;
        SLUICE_RETURN_IF_ERROR(Eval(*a, row, &v));
        if (v.is_null()) {
          saw_null = true;
        } else if (v.bool_value() != is_and) {
          *out = Value::Bool(!is_and);
          return Status::OK();
        }
      }
      *out = saw_null ? Value::Null() : Value::Bool(is_and);
      return Status::OK();
    }
    case ExprKind::kNot: {
      Value v;
      SLUICE_RETURN_IF_ERROR(Eval(*e.args[0], row, &v));
      *out = v.is_null() ? Value::Null() : Value::Bool(!v.bool_value());
      return Status::OK();
    }
    case ExprKind::kIsNull: {
      Value v;
      SLUICE_RETURN_IF_ERROR(Eval(*e.args[0], row, &v));
      *out = Value::Bool(v.is_null() != e.negated);
      return Status::OK();
    }
    case ExprKind::kCase: {
      size_t pairs = (e.args.size() - (e.has_else ? 1 : 0)) / 2;
      for (size_t i = 0; i < pairs; ++i) {
        Value c;
        SLUICE_RETURN_IF_ERROR(Eval(*e.args[2 * i], row, &c));
        if (!c.is_null() && c.bool_value()) return Eval(*e.args[2 * i + 1], row, out);
      }
      if (e.has_else) return Eval(*e.args.back(), row, out);
      *out = Value::Null();
      return Status::OK();
    }
    case ExprKind::kArray: {
      std::vector<Value> items(e.args.size());
      for (size_t i = 0; i < e.args.size(); ++i) {
        SLUICE_RETURN_IF_ERROR(Eval(*e.args[i], row, &items[i]));
      }
      if (ArrayHoldsSubArrays(e.type) && !e.args.empty() &&
          e.args[0]->type.id() == TypeId::kArray) {
        // ARRAY[sub-array, ...]: one more dimension. The sub-arrays must
        // match in lengths and lower bounds; NULL and empty ones are none,
        // allowed only if all are, as in PostgreSQL.
        std::vector<Value> subs;
        const Value* first = nullptr;
        bool empty = false;
        for (const Value& x : items) {
          if (x.is_null() || x.list().empty()) {
            empty = true;
            continue;
          }
          if (first == nullptr) {
            first = &x;
          } else if (ArrayDims(x) != ArrayDims(*first) ||
                     x.lower_bounds() != first->lower_bounds()) {
            return Status::InvalidArgument(
                "multidimensional arrays must have array expressions with matching dimensions");
          }
          subs.push_back(Value::List(x.list()));
        }
        if (first == nullptr) {
          *out = Value::List({});
          return Status::OK();
        }
        if (empty) {
          return Status::InvalidArgument(
              "multidimensional arrays must have array expressions with matching dimensions");
        }
        std::vector<int32_t> lower;
        if (!first->lower_bounds().empty()) {
          lower.push_back(1);
          lower.insert(lower.end(), first->lower_bounds().begin(), first->lower_bounds().end());
        }
        *out = Value::BoundedList(std::move(subs), std::move(lower));
        if (!IsRectangular(*out)) {
          return Status::InvalidArgument(
              "multidimensional arrays must have array expressions with matching dimensions");
        }
        return Status::OK();
      }
      *out = Value::List(std::move(items));
      if ((e.type.children()[0].IsSqlArray() || ArrayHoldsSubArrays(e.type)) &&
          !IsRectangular(*out)) {
        return Status::InvalidArgument(
            "multidimensional arrays must have array expressions with matching dimensions");
      }
      return Status::OK();
    }
    case ExprKind::kRow: {
      std::vector<Value> fields(e.args.size());
      for (size_t i = 0; i < e.args.size(); ++i) {
        SLUICE_RETURN_IF_ERROR(Eval(*e.args[i], row, &fields[i]));
      }
      *out = Value::List(std::move(fields));
      return Status::OK();
    }
    case ExprKind::kField: {
      Value r;
      SLUICE_RETURN_IF_ERROR(Eval(*e.args[0], row, &r));
      *out = r.is_null() ? Value::Null() : r.list()[static_cast<size_t>(e.column)];
      return Status::OK();
    }
    case ExprKind::kCoalesce:
      for (const ExprPtr& a : e.args) {
        SLUICE_RETURN_IF_ERROR(Eval(*a, row, out));
        if (!out->is_null()) return Status::OK();
      }
      *out = Value::Null();
      return Status::OK();
    case ExprKind::kInList: {
      Value x;
      SLUICE_RETURN_IF_ERROR(Eval(*e.args[0], row, &x));
      if (x.is_null()) {
        *out = Value::Null();
        return Status::OK();
      }
      bool saw_null = false;
      for (size_t i = 1; i < e.args.size(); ++i) {
        Value y;
        SLUICE_RETURN_IF_ERROR(Eval(*e.args[i], row, &y));
        if (y.is_null()) {
          saw_null = true;
        } else if (CompareValues(x, y) == 0) {
          *out = Value::Bool(!e.negated);
          return Status::OK();
        }
      }
      *out = saw_null ? Value::Null() : Value::Bool(e.negated);
      return Status::OK();
    }
    case ExprKind::kIsDistinct: {
      Value a, b;
      SLUICE_RETURN_IF_ERROR(Eval(*e.args[0], row, &a));
      SLUICE_RETURN_IF_ERROR(Eval(*e.args[1], row, &b));
      bool distinct = a.is_null() != b.is_null() || (!a.is_null() && CompareValues(a, b) != 0);
      *out = Value::Bool(distinct != e.negated);
      return Status::OK();
    }
    case ExprKind::kFold:
      return EvalFold(e, row, out);
    case ExprKind::kDraw:
      return Status::Internal("random() was not lifted into a draw");
    case ExprKind::kVolatile: {
      Value args[4];
      if (e.args.size() > 4) return Status::Internal("too many arguments of a volatile call");
      for (size_t i = 0; i < e.args.size(); ++i) {
        SLUICE_RETURN_IF_ERROR(Eval(*e.args[i], row, &args[i]));
      }
      return e.volatile_fn->Call(args, e.args.size(), out);
    }
  }
  return Status::Internal("unknown expression kind");
}

Status EvalPredicate(const Expr& e, const Row& row, bool* out) {
  Value v;
  SLUICE_RETURN_IF_ERROR(Eval(e, row, &v));
  *out = !v.is_null() && v.bool_value();
  return Status::OK();
}

Status CheckRow(const std::string& table, const std::vector<CheckConstraint>& checks,
                const Schema& types, const Row& row) {
  for (const CheckConstraint& c : checks) {
    Value v;
    SLUICE_RETURN_IF_ERROR(Eval(*c.predicate, row, &v));
    if (v.is_null() || v.bool_value()) continue;
    // The row as PostgreSQL's detail writes it: each value as its output
    // function writes it (a bytea in hex, a boolean t or f), "null".
    std::string text;
    for (size_t i = 0; i < row.size() && i < types.size(); ++i) {
      text += (i ? ", " : "") + (row[i].is_null() ? "null" : ValueToPgText(row[i], types[i]));
    }
    return Status::InvalidArgument("new row for relation \"" + table +
                                   "\" violates check constraint \"" + c.name +
                                   "\" (failing row contains (" + text + "))");
  }
  return Status::OK();
}

}  // namespace sluice::sql
