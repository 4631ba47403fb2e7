#include "types/value.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "types/big_decimal.h"

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

Value Value::BoundedList(std::vector<Value> items, std::vector<int32_t> lower) {
  for (int32_t b : lower) {
    if (b != 1) return Value(BoundedRep{std::move(items), std::move(lower)});
  }
  return Value(std::move(items));
}

const std::vector<int32_t>& Value::lower_bounds() const {
  static const std::vector<int32_t> kNone;
  const auto* b = std::get_if<BoundedRep>(&v_);
  return b ? b->lower : kNone;
}

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
      if (decimal_wide() != nullptr || other.decimal_wide() != nullptr) {
        return decimal_wide() != nullptr && other.decimal_wide() != nullptr &&
               decimal_scale() == other.decimal_scale() &&
               BigDecimal::Compare(*decimal_wide(), *other.decimal_wide()) == 0;
      }
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
      return list() == other.list() && lower_bounds() == other.lower_bounds();
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

NumericHead NumericHeadOf(std::string_view digits, int scale) {
  NumericHead h;
  const int n = static_cast<int>(digits.size());
  if (n == 0 || digits == "0") return h;
  const int e = n - 1 - scale;  // the first digit's power of ten
  h.weight = e >= 0 ? e / 4 : -((-e + 3) / 4);
  // The digit at power p, 0 outside the digits.
  auto at = [&](int p) {
    const int i = n - 1 - scale - p;
    return i >= 0 && i < n ? digits[static_cast<size_t>(i)] - '0' : 0;
  };
  auto group = [&](int w) {
    int g = 0;
    for (int p = 4 * w + 3; p >= 4 * w; --p) g = g * 10 + at(p);
    return g;
  };
  h.d0 = group(h.weight);
  h.d1 = group(h.weight - 1);
  // Digits below the first group: the power of the last nonzero digit.
  int last = n - 1;
  while (last > 0 && digits[static_cast<size_t>(last)] == '0') --last;
  h.more = n - 1 - scale - last < 4 * h.weight;
  return h;
}

namespace {

std::string MagnitudeDigits(int128 u) {
  std::string d = DecimalToString(u, 0);
  if (!d.empty() && d[0] == '-') d.erase(0, 1);
  return d;
}

}  // namespace

NumericHead NumericHeadOf(int128 u, int scale) { return NumericHeadOf(MagnitudeDigits(u), scale); }

int NumericDivScale(std::string_view x_digits, int sx, std::string_view y_digits, int sy) {
  const NumericHead x = NumericHeadOf(x_digits, sx), y = NumericHeadOf(y_digits, sy);
  int qweight = x.weight - y.weight;
  if (x.d0 <= y.d0) --qweight;
  int scale = 16 - qweight * 4;
  scale = std::max({scale, sx, sy, 0});
  return std::min(scale, 1000);
}

int NumericDivScale(int128 x, int sx, int128 y, int sy) {
  return NumericDivScale(MagnitudeDigits(x), sx, MagnitudeDigits(y), sy);
}

Value DecimalWithoutTrailingZeros(const Value& v) {
  if (v.decimal_is_special()) return v;
  if (v.decimal_wide() != nullptr) return v.decimal_wide()->StripTrailingZeros().ToValue();
  int128 u = v.decimal_unscaled();
  int s = v.decimal_scale();
  while (s > 0 && u % 10 == 0) {
    u /= 10;
    --s;
  }
  return Value::Decimal(u, s);
}

namespace {

using u128 = unsigned __int128;

// A 256-bit unsigned integer, hi * 2^128 + lo.
struct U256Pair {
  u128 hi = 0, lo = 0;
};

U256Pair MulFull(u128 a, u128 b) {
  const uint64_t a0 = static_cast<uint64_t>(a), a1 = static_cast<uint64_t>(a >> 64);
  const uint64_t b0 = static_cast<uint64_t>(b), b1 = static_cast<uint64_t>(b >> 64);
  const u128 p00 = static_cast<u128>(a0) * b0, p01 = static_cast<u128>(a0) * b1;
  const u128 p10 = static_cast<u128>(a1) * b0, p11 = static_cast<u128>(a1) * b1;
  const u128 mid = (p00 >> 64) + static_cast<uint64_t>(p01) + static_cast<uint64_t>(p10);
  U256Pair r;
  r.lo = (mid << 64) | static_cast<uint64_t>(p00);
  r.hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
  return r;
}

// n / d, false if the quotient does not fit 128 bits. REQUIRES: 0 < d < 2^127.
bool DivFull(U256Pair n, u128 d, u128* q) {
  if (n.hi >= d) return false;
  u128 r = n.hi, quo = 0;
  for (int i = 127; i >= 0; --i) {
    r = (r << 1) | ((n.lo >> i) & 1);
    quo <<= 1;
    if (r >= d) {
      r -= d;
      quo |= 1;
    }
  }
  *q = quo;
  return true;
}

}  // namespace

bool DivideDecimal(int128 x, int sx, int128 y, int sy, int scale, int128* out) {
  if (y == 0) return false;
  const bool neg = (x < 0) != (y < 0);
  u128 n = x < 0 ? -static_cast<u128>(x) : static_cast<u128>(x);
  u128 d = y < 0 ? -static_cast<u128>(y) : static_cast<u128>(y);
  // |x| / |y| at scale + 1: |x| * 10^shift / |y| (or over |y| * 10^-shift).
  const int shift = scale + 1 + sy - sx;
  U256Pair num{0, n};
  if (shift > 0) {
    if (shift > 2 * kMaxDecimalDigits) return false;
    const int first = std::min(shift, kMaxDecimalDigits);
    num = MulFull(n, static_cast<u128>(Pow10(first)));
    if (shift > first) {
      if (num.hi != 0) return false;
      num = MulFull(num.lo, static_cast<u128>(Pow10(shift - first)));
    }
  } else if (shift < 0) {
    if (-shift > kMaxDecimalDigits || MulFull(d, static_cast<u128>(Pow10(-shift))).hi != 0) {
      *out = 0;  // |y| * 10^-shift exceeds any |x|: the quotient rounds to 0
      return true;
    }
    d *= static_cast<u128>(Pow10(-shift));
    if (d >> 127) {
      *out = 0;
      return true;
    }
  }
  u128 q;
  if (!DivFull(num, d, &q)) return false;
  const bool up = q % 10 >= 5;
  q = q / 10 + (up ? 1 : 0);
  if (q >= static_cast<u128>(Pow10(kMaxDecimalDigits))) return false;
  *out = neg ? -static_cast<int128>(q) : static_cast<int128>(q);
  return true;
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
    const size_t at = i + 1 + (i + 1 < s.size() && s[i + 1] == '+' ? 1 : 0);
    auto r = std::from_chars(s.data() + at, s.data() + s.size(), exp);
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

int DecimalTextScale(std::string_view s) {
  int frac = 0;
  size_t i = s.find('.');
  if (i != std::string_view::npos) {
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) ++frac;
  }
  const size_t e = s.find_first_of("eE");
  long exp = 0;
  if (e != std::string_view::npos) {
    size_t j = e + 1;
    if (j < s.size() && s[j] == '+') ++j;
    std::from_chars(s.data() + j, s.data() + s.size(), exp);
  }
  return static_cast<int>(std::max(0L, static_cast<long>(frac) - exp));
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
  if (v.decimal_wide() != nullptr) return v.decimal_wide()->ToString();
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

// interval * factor and interval / factor as PostgreSQL computes them: the
// whole months and days scaled, their fractions carried down (a month is 30
// days, a day 86400 s, each rounded to the microsecond), the time scaled and
// rounded to the microsecond.
Status ScaleInterval(const Interval& x, double factor, bool divide, Value* out) {
  if (divide && factor == 0) return Status::InvalidArgument("division by zero");
  auto scaled = [&](double v) { return divide ? v / factor : v * factor; };
  auto fits32 = [](double v) { return !std::isnan(v) && v >= -2147483648.0 && v < 2147483648.0; };
  auto ts_round = [](double v) { return std::rint(v * 1e6) / 1e6; };
  const Status range = Status::InvalidArgument("interval out of range");
  const double m = scaled(x.months), d = scaled(x.days);
  if (!fits32(m) || !fits32(d)) return range;
  int64_t months = static_cast<int32_t>(m), days = static_cast<int32_t>(d);
  const double month_days = ts_round((m - static_cast<double>(months)) * 30);
  double secs = ts_round((d - static_cast<double>(days) + month_days -
                          static_cast<double>(static_cast<int>(month_days))) *
                         86400);
  if (std::fabs(secs) >= 86400) {
    days += static_cast<int>(secs / 86400);
    secs -= static_cast<double>(static_cast<int>(secs / 86400)) * 86400;
  }
  days += static_cast<int32_t>(month_days);
  const double micros = std::rint(scaled(static_cast<double>(x.micros)) + secs * 1e6);
  if (std::isnan(micros) || std::fabs(micros) >= 9.2233720368547758e18 ||
      days != static_cast<int32_t>(days)) {
    return range;
  }
  *out = Value::MakeInterval(static_cast<int32_t>(months), static_cast<int32_t>(days),
                             static_cast<int64_t>(micros));
  return Status::OK();
}

}  // namespace sluice
