#include "types/value.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace sluice {
namespace {

uint64_t NormalizedBits(double d) {
  if (d == 0) d = 0.0;
  if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return bits;
}

}  // namespace

bool Value::operator==(const Value& other) const {
  if (kind() != other.kind()) return false;
  switch (kind()) {
    case Kind::kNull:
    case Kind::kJsonNull:
      return true;
    case Kind::kBool:
      return bool_value() == other.bool_value();
    case Kind::kInt:
      return int_value() == other.int_value();
    case Kind::kDecimal:
      return decimal_special() == other.decimal_special() &&
             decimal_unscaled() == other.decimal_unscaled() &&
             decimal_scale() == other.decimal_scale();
    case Kind::kDouble:
      return NormalizedBits(double_value()) == NormalizedBits(other.double_value());
    case Kind::kString:
      return string_value() == other.string_value();
    case Kind::kInterval:
      return interval_value() == other.interval_value();
    case Kind::kList:
      return list() == other.list();
    case Kind::kMap:
      return map_keys() == other.map_keys() && map_values() == other.map_values();
  }
  return false;
}

int128 RescaleDecimal(int128 u, int from, int to, bool* overflow) {
  if (u == 0 || to == from) return u;
  if (to > from) {
    if (to - from > 38) {
      *overflow = true;
      return 0;
    }
    // The largest value that 10^k may multiply, for every k (no division
    // per call: this runs for every decimal read).
    static const auto kLimits = [] {
      std::array<int128, 39> l{};
      for (size_t k = 0; k < l.size(); ++k) {
        l[k] = std::numeric_limits<int128>::max() / Pow10(static_cast<int>(k));
      }
      return l;
    }();
    int128 f = Pow10(to - from);
    int128 limit = kLimits[static_cast<size_t>(to - from)];
    if (u > limit || u < -limit) {
      *overflow = true;
      return 0;
    }
    return u * f;
  }
  if (from - to > 38) return 0;  // |u| < 10^39 rounds to 0
  int128 f = Pow10(from - to);
  int128 q = u / f, r = u % f;
  if (r * 2 >= f) ++q;
  if (r * 2 <= -f) --q;
  return q;
}

bool ParseDecimal(std::string_view s, int scale, int128* out) {
  bool neg = false;
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  int128 v = 0;
  int frac = 0, first_dropped = -1;
  bool any = false, dot = false;
  const int128 limit = Pow10(37);
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '.' && !dot) {
      dot = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    any = true;
    if (v >= limit) {
      // Digits after the point beyond the 38th only round: keeping the
      // first 38 rounds the same at any scale that has fewer of them (a
      // remainder of kept digits is at least half iff the true one is);
      // at the scale of the kept digits, the first dropped one rounds.
      if (!dot) return false;
      if (first_dropped < 0) first_dropped = c - '0';
      continue;
    }
    v = v * 10 + (c - '0');
    if (dot) ++frac;
  }
  if (!any) return false;
  int exp = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    auto r = std::from_chars(s.data() + i + 1, s.data() + s.size(), exp);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size() || exp > 1000 || exp < -1000) {
      return false;
    }
    i = s.size();
  }
  if (i != s.size()) return false;
  bool overflow = false;
  int128 u = RescaleDecimal(v, frac - exp, scale, &overflow);
  if (overflow) return false;
  if (first_dropped >= 0 && scale > frac - exp) return false;  // the dropped digits count
  if (first_dropped >= 5 && scale == frac - exp && ++u >= Pow10(kMaxDecimalDigits)) return false;
  *out = neg ? -u : u;
  return true;
}

bool IsDecimalText(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  bool any = false, dot = false;
  for (; i < s.size(); ++i) {
    if (s[i] == '.' && !dot) {
      dot = true;
    } else if (s[i] >= '0' && s[i] <= '9') {
      any = true;
    } else {
      break;
    }
  }
  if (!any) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (i == s.size()) return false;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  }
  return i == s.size();
}

std::string DecimalToString(int128 unscaled, int scale) {
  bool neg = unscaled < 0;
  // Work on the magnitude as unsigned so that the most negative value is safe.
  unsigned __int128 mag =
      neg ? -static_cast<unsigned __int128>(unscaled) : static_cast<unsigned __int128>(unscaled);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(mag % 10)));
    mag /= 10;
  } while (mag != 0);
  if (scale > 0) {
    while (static_cast<int>(digits.size()) <= scale) digits.insert(digits.begin(), '0');
    digits.insert(digits.end() - scale, '.');
  }
  return neg ? "-" + digits : digits;
}

bool ParseDecimalSpecial(std::string_view s, DecimalSpecial* out) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  bool neg = false, signed_ = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    signed_ = true;
    s.remove_prefix(1);
  }
  auto is = [&](std::string_view word) {
    if (s.size() != word.size()) return false;
    for (size_t i = 0; i < s.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(s[i])) != word[i]) return false;
    }
    return true;
  };
  if (is("nan")) {
    if (signed_) return false;  // PostgreSQL has no signed NaN
    *out = DecimalSpecial::kNaN;
    return true;
  }
  if (is("infinity") || is("inf")) {
    *out = neg ? DecimalSpecial::kNegInf : DecimalSpecial::kPosInf;
    return true;
  }
  return false;
}

const char* DecimalSpecialName(DecimalSpecial s) {
  switch (s) {
    case DecimalSpecial::kNaN:
      return "NaN";
    case DecimalSpecial::kPosInf:
      return "Infinity";
    case DecimalSpecial::kNegInf:
      return "-Infinity";
    case DecimalSpecial::kFinite:
      break;
  }
  return "?";
}

int CompareDecimalSpecials(const Value& a, const Value& b) {
  auto rank = [](const Value& v) {
    switch (v.decimal_special()) {
      case DecimalSpecial::kNegInf:
        return 0;
      case DecimalSpecial::kFinite:
        return 1;
      case DecimalSpecial::kPosInf:
        return 2;
      case DecimalSpecial::kNaN:
        return 3;
    }
    return 1;
  };
  int x = rank(a), y = rank(b);
  return x < y ? -1 : x > y;
}

std::string DecimalValueToString(const Value& v) {
  if (v.decimal_is_special()) return DecimalSpecialName(v.decimal_special());
  return DecimalToString(v.decimal_unscaled(), v.decimal_scale());
}

std::string Value::ToString() const {
  switch (kind()) {
    case Kind::kNull:
      return "NULL";
    case Kind::kJsonNull:
      return "null";
    case Kind::kBool:
      return bool_value() ? "true" : "false";
    case Kind::kInt:
      return std::to_string(int_value());
    case Kind::kDecimal:
      return DecimalValueToString(*this);
    case Kind::kDouble: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", double_value());
      return buf;
    }
    case Kind::kString: {
      if (string_value().size() > 64) {
        return "'" + string_value().substr(0, 61) + "...' (" +
               std::to_string(string_value().size()) + " bytes)";
      }
      return "'" + string_value() + "'";
    }
    case Kind::kInterval: {
      const Interval& iv = interval_value();
      return "interval(" + std::to_string(iv.months) + " months, " + std::to_string(iv.days) +
             " days, " + std::to_string(iv.micros) + " us)";
    }
    case Kind::kList: {
      std::string s = "[";
      for (size_t i = 0; i < list().size(); ++i) {
        if (i > 0) s += ", ";
        s += list()[i].ToString();
      }
      return s + "]";
    }
    case Kind::kMap: {
      std::string s = "{";
      for (size_t i = 0; i < map_keys().size(); ++i) {
        if (i > 0) s += ", ";
        s += map_keys()[i].ToString() + ": " + map_values()[i].ToString();
      }
      return s + "}";
    }
  }
  return "?";
}

}  // namespace sluice
