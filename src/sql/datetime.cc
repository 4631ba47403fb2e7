#include "sql/datetime.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace sluice::sql {
namespace {

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned DaysInMonth(int64_t y, unsigned m) {
  static const unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// Reads an unsigned number of at most `max` digits.
bool Digits(std::string_view* s, size_t min, size_t max, int64_t* out) {
  size_t n = 0;
  int64_t v = 0;
  while (n < s->size() && n < max && std::isdigit(static_cast<unsigned char>((*s)[n]))) {
    v = v * 10 + ((*s)[n] - '0');
    ++n;
  }
  if (n < min) return false;
  s->remove_prefix(n);
  *out = v;
  return true;
}

bool Expect(std::string_view* s, char c) {
  if (s->empty() || (*s)[0] != c) return false;
  s->remove_prefix(1);
  return true;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// HH:MM[:SS[.ffffff]]
bool ParseClock(std::string_view* s, int64_t* micros) {
  int64_t h, m, sec = 0, frac = 0;
  if (!Digits(s, 1, 2, &h) || !Expect(s, ':') || !Digits(s, 2, 2, &m)) return false;
  if (Expect(s, ':')) {
    if (!Digits(s, 2, 2, &sec)) return false;
    if (Expect(s, '.')) {
      size_t before = s->size();
      int64_t f;
      if (!Digits(s, 1, 6, &f)) return false;
      size_t n = before - s->size();
      for (size_t i = n; i < 6; ++i) f *= 10;
      frac = f;
      while (!s->empty() && std::isdigit(static_cast<unsigned char>((*s)[0]))) s->remove_prefix(1);
    }
  }
  if (h > 24 || m > 59 || sec > 60) return false;
  *micros = ((h * 60 + m) * 60 + sec) * 1000000 + frac;
  return *micros <= kMicrosPerDay;
}

}  // namespace

// Howard Hinnant's days_from_civil.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = FloorDiv(y, 400);
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = FloorDiv(z, 146097);
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2);
}

bool ParseDate(std::string_view s, int64_t* days) {
  s = Trim(s);
  int64_t y, m, d;
  if (!Digits(&s, 1, 6, &y) || !Expect(&s, '-') || !Digits(&s, 1, 2, &m) || !Expect(&s, '-') ||
      !Digits(&s, 1, 2, &d) || !s.empty()) {
    return false;
  }
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, static_cast<unsigned>(m))) return false;
  *days = DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  return true;
}

bool ParseTime(std::string_view s, int64_t* micros) {
  s = Trim(s);
  return ParseClock(&s, micros) && s.empty() && *micros < kMicrosPerDay;
}

bool ParseTimestamp(std::string_view s, int64_t* micros) {
  s = Trim(s);
  size_t sep = s.find_first_of(" T");
  int64_t days, clock = 0;
  if (!ParseDate(s.substr(0, sep), &days)) return false;
  if (sep != std::string_view::npos) {
    std::string_view rest = Trim(s.substr(sep + 1));
    if (!ParseClock(&rest, &clock) || !rest.empty()) return false;
  }
  *micros = days * kMicrosPerDay + clock;
  return true;
}

bool ParseTimestampInput(std::string_view s, int64_t* micros) {
  s = Trim(s);
  const size_t sep = s.find_first_of(" T");
  int64_t offset = 0;  // microseconds east of UTC
  if (sep != std::string_view::npos && !s.empty() && (s.back() == 'Z' || s.back() == 'z')) {
    s.remove_suffix(1);
  } else if (const size_t sign = s.find_last_of("+-");
             sep != std::string_view::npos && sign != std::string_view::npos && sign > sep) {
    std::string_view zone = s.substr(sign + 1);
    auto two = [&](int64_t* v) {
      if (zone.size() < 2 || !std::isdigit(static_cast<unsigned char>(zone[0])) ||
          !std::isdigit(static_cast<unsigned char>(zone[1]))) {
        return false;
      }
      *v = (zone[0] - '0') * 10 + (zone[1] - '0');
      zone.remove_prefix(2);
      return true;
    };
    int64_t hours = 0, minutes = 0;
    if (!two(&hours) || hours > 15) return false;
    if (!zone.empty() && zone[0] == ':') zone.remove_prefix(1);
    if (!zone.empty() && (!two(&minutes) || minutes > 59)) return false;
    if (!zone.empty()) return false;
    offset = (hours * 60 + minutes) * 60 * 1000000;
    if (s[sign] == '-') offset = -offset;
    s = Trim(s.substr(0, sign));
  }
  if (!ParseTimestamp(s, micros)) return false;
  *micros -= offset;
  return true;
}

bool ParseIntervalWithRange(std::string_view s, int range, Interval* out) {
  constexpr int kYear = 4, kMonth = 2, kDay = 8, kHour = 1024, kMinute = 2048, kSecond = 4096;
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  const int last = (range & kSecond)   ? kSecond
                   : (range & kMinute) ? kMinute
                   : (range & kHour)   ? kHour
                   : (range & kDay)    ? kDay
                   : (range & kMonth)  ? kMonth
                   : (range & kYear)   ? kYear
                                       : kSecond;
  auto plain_number = [](std::string_view t) {
    size_t i = (!t.empty() && (t[0] == '-' || t[0] == '+')) ? 1 : 0;
    bool digits = false, point = false;
    for (; i < t.size(); ++i) {
      if (std::isdigit(static_cast<unsigned char>(t[i]))) {
        digits = true;
      } else if (t[i] == '.' && !point) {
        point = true;
      } else {
        return false;
      }
    }
    return digits;
  };
  Interval iv;
  if (plain_number(s)) {
    const double n = std::strtod(std::string(s).c_str(), nullptr);
    switch (last) {
      case kYear:
        iv.months = static_cast<int32_t>(n * 12);
        break;
      case kMonth:
        iv.months = static_cast<int32_t>(n);
        break;
      case kDay:
        iv.days = static_cast<int32_t>(n);
        break;
      case kHour:
        iv.micros = static_cast<int64_t>(std::llround(n * 3600e6));
        break;
      case kMinute:
        iv.micros = static_cast<int64_t>(std::llround(n * 60e6));
        break;
      default:
        iv.micros = static_cast<int64_t>(std::llround(n * 1e6));
    }
  } else if (range == (kYear | kMonth) && s.find('-', 1) != std::string_view::npos) {
    // 'Y-M'
    const bool negative = s.front() == '-';
    std::string_view t = negative ? s.substr(1) : s;
    const size_t dash = t.find('-');
    if (!plain_number(t.substr(0, dash)) || !plain_number(t.substr(dash + 1))) return false;
    const int64_t m = std::atoll(std::string(t.substr(0, dash)).c_str()) * 12 +
                      std::atoll(std::string(t.substr(dash + 1)).c_str());
    iv.months = static_cast<int32_t>(negative ? -m : m);
  } else if (!ParseInterval(s, &iv)) {
    return false;
  }
  // The fields after the restriction's last are dropped.
  constexpr int64_t kHourMicros = 3600000000, kMinuteMicros = 60000000;
  if (last == kYear) iv.months = iv.months / 12 * 12;
  if (last == kYear || last == kMonth) iv.days = 0;
  if (last == kYear || last == kMonth || last == kDay) iv.micros = 0;
  if (last == kHour) iv.micros = iv.micros / kHourMicros * kHourMicros;
  if (last == kMinute) iv.micros = iv.micros / kMinuteMicros * kMinuteMicros;
  *out = iv;
  return true;
}

bool ParseInterval(std::string_view s, Interval* out) {
  s = Trim(s);
  Interval iv;
  bool any = false;
  while (!s.empty()) {
    bool neg = false;
    if (s[0] == '-' || s[0] == '+') {
      neg = s[0] == '-';
      s.remove_prefix(1);
    }
    // A clock part: [-]HH:MM[:SS[.f]]
    size_t colon = s.find(':'), space = s.find(' ');
    if (colon != std::string_view::npos && (space == std::string_view::npos || colon < space)) {
      int64_t micros;
      std::string_view c = s.substr(0, space);
      if (!ParseClock(&c, &micros) || !c.empty()) return false;
      iv.micros += neg ? -micros : micros;
      s = Trim(s.substr(c.data() - s.data()));
      any = true;
      continue;
    }
    double num = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), num);
    if (r.ec != std::errc()) return false;
    if (neg) num = -num;
    s = Trim(s.substr(static_cast<size_t>(r.ptr - s.data())));
    size_t end = 0;
    while (end < s.size() && std::isalpha(static_cast<unsigned char>(s[end]))) ++end;
    std::string unit(s.substr(0, end));
    for (char& ch : unit) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    s = Trim(s.substr(end));
    if (unit.size() > 2 && unit.back() == 's') unit.pop_back();  // plurals
    auto micros = [&](double per) { iv.micros += static_cast<int64_t>(num * per); };
    if (unit == "year" || unit == "y") {
      iv.months += static_cast<int32_t>(num * 12);
    } else if (unit == "mon" || unit == "month") {
      iv.months += static_cast<int32_t>(num);
    } else if (unit == "week" || unit == "w") {
      iv.days += static_cast<int32_t>(num * 7);
    } else if (unit == "day" || unit == "d") {
      iv.days += static_cast<int32_t>(num);
    } else if (unit == "hour" || unit == "h") {
      micros(3600e6);
    } else if (unit == "minute" || unit == "min" || unit == "m") {
      micros(60e6);
    } else if (unit == "second" || unit == "sec" || unit == "s" || unit.empty()) {
      micros(1e6);
    } else if (unit == "millisecond" || unit == "ms") {
      micros(1e3);
    } else if (unit == "microsecond" || unit == "us") {
      micros(1);
    } else {
      return false;
    }
    any = true;
  }
  if (!any) return false;
  *out = iv;
  return true;
}

std::string FormatDate(int64_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  char buf[32];
  if (y > 0) {
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u", static_cast<long long>(y), m, d);
  } else {
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u BC", static_cast<long long>(1 - y), m, d);
  }
  return buf;
}

std::string FormatTime(int64_t micros) {
  int64_t sec = micros / 1000000, frac = micros % 1000000;
  char buf[32];
  int n = std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld", static_cast<long long>(sec / 3600),
                        static_cast<long long>(sec / 60 % 60), static_cast<long long>(sec % 60));
  std::string out(buf, static_cast<size_t>(n));
  if (frac != 0) {
    std::snprintf(buf, sizeof buf, ".%06lld", static_cast<long long>(frac));
    std::string f(buf);
    while (f.back() == '0') f.pop_back();
    out += f;
  }
  return out;
}

std::string FormatTimestamp(int64_t micros) {
  int64_t days = FloorDiv(micros, kMicrosPerDay);
  std::string date = FormatDate(days);
  std::string clock = FormatTime(micros - days * kMicrosPerDay);
  size_t bc = date.find(" BC");
  if (bc != std::string::npos) return date.substr(0, bc) + " " + clock + " BC";
  return date + " " + clock;
}

std::string FormatInterval(const Interval& iv) {
  std::string out;
  auto part = [&](int64_t n, const char* one, const char* many) {
    if (n == 0) return;
    if (!out.empty()) out += ' ';
    out += std::to_string(n) + " " + (n == 1 || n == -1 ? one : many);
  };
  part(iv.months / 12, "year", "years");
  part(iv.months % 12, "mon", "mons");
  part(iv.days, "day", "days");
  if (iv.micros != 0 || out.empty()) {
    if (!out.empty()) out += ' ';
    int64_t m = iv.micros < 0 ? -iv.micros : iv.micros;
    if (iv.micros < 0) out += '-';
    out += FormatTime(m);  // hours may exceed 24, as PostgreSQL prints them
  }
  return out;
}

bool AddInterval(int64_t ts, const Interval& iv, int sign, int64_t* out) {
  int64_t days = FloorDiv(ts, kMicrosPerDay);
  int64_t clock = ts - days * kMicrosPerDay;
  if (iv.months != 0) {
    int64_t y;
    unsigned m, d;
    CivilFromDays(days, &y, &m, &d);
    int64_t total = y * 12 + (m - 1) + sign * static_cast<int64_t>(iv.months);
    y = FloorDiv(total, 12);
    m = static_cast<unsigned>(total - y * 12 + 1);
    d = std::min(d, DaysInMonth(y, m));
    days = DaysFromCivil(y, m, d);
  }
  int128 r = static_cast<int128>(days + sign * static_cast<int64_t>(iv.days)) * kMicrosPerDay +
             clock + sign * static_cast<int128>(iv.micros);
  if (r > INT64_MAX || r < INT64_MIN) return false;
  *out = static_cast<int64_t>(r);
  return true;
}

}  // namespace sluice::sql
