#include "sql/datetime.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

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

namespace {

// PostgreSQL's other date forms (DateStyle ISO, MDY): month names and
// abbreviations ('January 8, 1999', '8 Jan 1999', '08-Jan-1999',
// '1999-Jan-08'), weekday names (ignored), numbers separated by - / . or
// spaces (year first if it has more than two digits, else month, day,
// year), YYYYMMDD, two-digit years (70-99: 19xx, else 20xx), and BC/AD.
bool ParseDateWords(std::string_view s, int64_t* days) {
  static const char* kMonths[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                  "jul", "aug", "sep", "oct", "nov", "dec"};
  static const char* kDays[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};
  struct Num {
    int64_t v;
    size_t digits;
  };
  std::vector<Num> nums;
  int month = 0;
  size_t month_at = 0;  // how many numbers came before the month name
  bool bc = false;
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (std::isspace(c) || c == '-' || c == '/' || c == '.' || c == ',') {
      ++i;
      continue;
    }
    if (std::isdigit(c)) {
      Num n{0, 0};
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
        if (n.digits > 9) return false;
        n.v = n.v * 10 + (s[i++] - '0');
        ++n.digits;
      }
      nums.push_back(n);
      continue;
    }
    if (!std::isalpha(c)) return false;
    std::string w;
    while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i])))
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(s[i++])));
    if (w == "bc") {
      bc = true;
      continue;
    }
    if (w == "ad") continue;
    bool known = false;
    for (int m = 0; m < 12 && !known; ++m) {
      std::string full = kMonths[m];
      if (w.size() >= 3 && w.compare(0, 3, full) == 0) {
        static const char* kFull[] = {"january",   "february", "march",    "april",
                                      "may",       "june",     "july",     "august",
                                      "september", "october",  "november", "december"};
        if (w.size() == 3 || std::string(kFull[m]).rfind(w, 0) == 0 || w == "sept") {
          if (month != 0) return false;
          month = m + 1;
          month_at = nums.size();
          known = true;
        }
      }
    }
    for (int d = 0; d < 7 && !known; ++d) known = w.compare(0, 3, kDays[d]) == 0;
    if (!known) return false;
  }
  auto year_of = [&](const Num& n) {
    if (n.digits <= 2 && !bc) return n.v < 70 ? 2000 + n.v : 1900 + n.v;
    return n.v;
  };
  int64_t y, m, d;
  if (month != 0) {
    if (nums.size() != 2) return false;
    m = month;
    // The number with more than two digits is the year; else the day comes
    // first, except when both numbers precede the month (YYYY Mon DD has
    // been taken by the digit count).
    if (nums[0].digits > 2 || nums[0].v > 31) {
      y = year_of(nums[0]);
      d = nums[1].v;
    } else {
      d = nums[0].v;
      y = year_of(nums[1]);
    }
    (void)month_at;
  } else if (nums.size() == 1 && (nums[0].digits == 8 || nums[0].digits == 6)) {
    int64_t v = nums[0].v;
    d = v % 100;
    m = v / 100 % 100;
    y = nums[0].digits == 8 ? v / 10000 : year_of(Num{v / 10000, 2});
  } else if (nums.size() == 3) {
    if (nums[0].digits > 2) {  // Y M D
      y = nums[0].v;
      m = nums[1].v;
      d = nums[2].v;
    } else {  // M D Y
      m = nums[0].v;
      d = nums[1].v;
      y = year_of(nums[2]);
    }
  } else {
    return false;
  }
  if (bc) {
    if (y < 1) return false;
    y = 1 - y;
  }
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, static_cast<unsigned>(m))) return false;
  *days = DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  return true;
}

// A timestamp in PostgreSQL's other forms: the date (as ParseDateWords
// reads it) and a clock anywhere among its words, with AM/PM; a zone after
// it is ignored, as PostgreSQL does for TIMESTAMP WITHOUT TIME ZONE.
bool ParseTimestampWords(std::string_view s, int64_t* micros, bool allow_zone = true) {
  size_t colon = s.find(':');
  if (colon == std::string_view::npos) {
    int64_t days;
    if (!ParseDateWords(s, &days)) return false;
    *micros = days * kMicrosPerDay;
    return true;
  }
  size_t b = colon;
  while (b > 0 && std::isdigit(static_cast<unsigned char>(s[b - 1]))) --b;
  std::string_view clock_text = s.substr(b);
  int64_t clock;
  std::string_view c = clock_text;
  if (!ParseClock(&c, &clock)) return false;
  std::string rest(c);
  for (char& ch : rest) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  std::string_view r = Trim(rest);
  if (r.rfind("am", 0) == 0 || r.rfind("pm", 0) == 0) {
    int64_t h = clock / 3600000000LL;
    if (h < 1 || h > 12) return false;
    if (r[0] == 'p' && h != 12) clock += 12 * 3600000000LL;
    if (r[0] == 'a' && h == 12) clock -= 12 * 3600000000LL;
    r = Trim(r.substr(2));
  }
  std::string date(s.substr(0, b));
  // A zone: letters (PST, UTC, Z) or a signed offset, ignored; BC/AD after
  // the time belong to the date.
  std::string tail;
  while (!r.empty()) {
    size_t e = r.find(' ');
    std::string_view word = r.substr(0, e);
    if (word == "bc" || word == "ad") {
      tail += " " + std::string(word);
    } else if (!allow_zone) {
      return false;
    }
    r = e == std::string_view::npos ? std::string_view() : Trim(r.substr(e));
  }
  int64_t days;
  if (!ParseDateWords(date + tail, &days)) return false;
  *micros = days * kMicrosPerDay + clock;
  return true;
}

}  // namespace

namespace {

// 'infinity' or '-infinity' (any case; PostgreSQL 15 takes no '+'): +1 or
// -1; 0 otherwise.
int InfinitySign(std::string_view s) {
  int sign = 1;
  if (!s.empty() && s[0] == '-') {
    sign = -1;
    s.remove_prefix(1);
  }
  if (s.size() != 8) return 0;
  for (size_t i = 0; i < 8; ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != "infinity"[i]) return 0;
  }
  return sign;
}

bool IsEpoch(std::string_view s) {
  if (s.size() != 5) return false;
  for (size_t i = 0; i < 5; ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != "epoch"[i]) return false;
  }
  return true;
}

}  // namespace

bool ParseDate(std::string_view s, int64_t* days) {
  s = Trim(s);
  if (int inf = InfinitySign(s); inf != 0) {
    *days = inf > 0 ? kDatePosInfinity : kDateNegInfinity;
    return true;
  }
  if (IsEpoch(s)) {
    *days = 0;
    return true;
  }
  std::string_view all = s;
  int64_t y, m, d;
  if (!Digits(&s, 1, 6, &y) || !Expect(&s, '-') || !Digits(&s, 1, 2, &m) || !Expect(&s, '-') ||
      !Digits(&s, 1, 2, &d) || !s.empty()) {
    return ParseDateWords(all, days);
  }
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, static_cast<unsigned>(m))) return false;
  *days = DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  return true;
}

bool ParseTime(std::string_view s, int64_t* micros) {
  s = Trim(s);
  std::string_view all = s;
  if (ParseClock(&s, micros) && s.empty() && *micros < kMicrosPerDay) return true;
  // A date before the time, or a zone after it: PostgreSQL ignores both.
  int64_t ts;
  if (all.find(':') == std::string_view::npos || !ParseTimestampWords(all, &ts)) {
    std::string_view t = all;
    if (t.find(' ') == std::string_view::npos) return false;
    t = Trim(t.substr(0, t.find(' ')));
    return ParseClock(&t, micros) && t.empty() && *micros < kMicrosPerDay;
  }
  *micros = ts - FloorDiv(ts, kMicrosPerDay) * kMicrosPerDay;
  return true;
}

namespace {

bool ParseTimestampImpl(std::string_view s, int64_t* micros, bool allow_zone) {
  s = Trim(s);
  if (int inf = InfinitySign(s); inf != 0) {
    *micros = inf > 0 ? kTsPosInfinity : kTsNegInfinity;
    return true;
  }
  if (IsEpoch(s)) {
    *micros = 0;
    return true;
  }
  std::string_view all = s;
  size_t sep = s.find_first_of(" T");
  int64_t days, clock = 0;
  if (!ParseDate(s.substr(0, sep), &days)) return ParseTimestampWords(all, micros, allow_zone);
  if (sep != std::string_view::npos) {
    std::string_view rest = Trim(s.substr(sep + 1));
    if (!ParseClock(&rest, &clock) || !rest.empty()) {
      return ParseTimestampWords(all, micros, allow_zone);
    }
  }
  *micros = days * kMicrosPerDay + clock;
  return true;
}

}  // namespace

bool ParseTimestamp(std::string_view s, int64_t* micros) {
  return ParseTimestampImpl(s, micros, /*allow_zone=*/true);
}

bool ParseTimestampInput(std::string_view s, int64_t* micros) {
  s = Trim(s);
  if (InfinitySign(s) != 0 || IsEpoch(s)) return ParseTimestampImpl(s, micros, false);
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
  // A zone named by letters is not converted here: refuse it rather than
  // ignore it.
  if (!ParseTimestampImpl(s, micros, /*allow_zone=*/false)) return false;
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

namespace {

// An interval being read: whole months and days, and microseconds; a
// fraction of a coarser field spills into the finer ones (1.5 years is 1 year
// 6 mons, 1.5 months 1 mon 15 days, 1.5 days 1 day 12:00:00), as PostgreSQL
// does.
struct IntervalSum {
  long double months = 0, days = 0, micros = 0;
  void AddMonths(long double m) {
    long double whole = std::trunc(m);
    months += whole;
    AddDays((m - whole) * 30);
  }
  void AddDays(long double d) {
    long double whole = std::trunc(d);
    days += whole;
    micros += (d - whole) * 86400e6L;
  }
  bool Finish(Interval* out) const {
    long double us = std::nearbyint(micros);
    if (std::fabs(months) > INT32_MAX || std::fabs(days) > INT32_MAX ||
        std::fabs(us) > 9.2233720368547758e18L) {
      return false;
    }
    out->months = static_cast<int32_t>(months);
    out->days = static_cast<int32_t>(days);
    out->micros = static_cast<int64_t>(us);
    return true;
  }
};

// Adds `n` of `unit` (singular, lower case); false for an unknown unit.
bool AddUnit(IntervalSum* sum, long double n, const std::string& unit) {
  if (unit == "millennium" || unit == "millennia" || unit == "mil") {
    sum->AddMonths(n * 12000);
  } else if (unit == "century" || unit == "centurie" || unit == "c" || unit == "cent") {
    sum->AddMonths(n * 1200);
  } else if (unit == "decade" || unit == "dec") {
    sum->AddMonths(n * 120);
  } else if (unit == "year" || unit == "y" || unit == "yr") {
    sum->AddMonths(n * 12);
  } else if (unit == "mon" || unit == "month") {
    sum->AddMonths(n);
  } else if (unit == "week" || unit == "w") {
    sum->AddDays(n * 7);
  } else if (unit == "day" || unit == "d") {
    sum->AddDays(n);
  } else if (unit == "hour" || unit == "h" || unit == "hr") {
    sum->micros += n * 3600e6L;
  } else if (unit == "minute" || unit == "min" || unit == "m") {
    sum->micros += n * 60e6L;
  } else if (unit == "second" || unit == "sec" || unit == "s" || unit.empty()) {
    sum->micros += n * 1e6L;
  } else if (unit == "millisecond" || unit == "msec" || unit == "ms") {
    sum->micros += n * 1e3L;
  } else if (unit == "microsecond" || unit == "usec" || unit == "us") {
    sum->micros += n;
  } else {
    return false;
  }
  return true;
}

// [-]H+:MM[:SS[.f]], hours unbounded: into microseconds.
bool ParseIntervalClock(std::string_view* s, long double* micros) {
  int64_t h, m, sec = 0;
  long double frac = 0;
  if (!Digits(s, 1, 18, &h) || !Expect(s, ':') || !Digits(s, 1, 2, &m)) return false;
  if (Expect(s, ':')) {
    if (!Digits(s, 1, 2, &sec)) return false;
    if (Expect(s, '.')) {
      long double scale = 0.1L;
      while (!s->empty() && std::isdigit(static_cast<unsigned char>((*s)[0]))) {
        frac += ((*s)[0] - '0') * scale;
        scale /= 10;
        s->remove_prefix(1);
      }
    }
  }
  if (m > 59 || sec > 60) return false;
  *micros = ((static_cast<long double>(h) * 60 + m) * 60 + sec + frac) * 1e6L;
  return true;
}

// ISO 8601: P[nY][nM][nW][nD][T[nH][nM][nS]], numbers may have fractions and
// signs; or the alternative form PYYYY-MM-DDTHH:MM:SS.
bool ParseIsoInterval(std::string_view s, Interval* out) {
  IntervalSum sum;
  s.remove_prefix(1);  // P
  if (s.empty()) return false;
  if (s.size() >= 4 && std::isdigit(static_cast<unsigned char>(s[0])) &&
      s.find('-') != std::string_view::npos) {
    int64_t y, mo, d = 0;
    if (!Digits(&s, 1, 9, &y) || !Expect(&s, '-') || !Digits(&s, 1, 2, &mo)) return false;
    if (Expect(&s, '-') && !Digits(&s, 1, 2, &d)) return false;
    sum.AddMonths(static_cast<long double>(y * 12 + mo));
    sum.AddDays(static_cast<long double>(d));
    if (Expect(&s, 't')) {
      long double us;
      if (!ParseIntervalClock(&s, &us)) return false;
      sum.micros += us;
    }
    return s.empty() && sum.Finish(out);
  }
  bool time = false, any = false;
  while (!s.empty()) {
    if (s[0] == 't') {
      if (time) return false;
      time = true;
      s.remove_prefix(1);
      continue;
    }
    double n = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), n);
    if (r.ec != std::errc() || r.ptr == s.data() + s.size()) return false;
    char unit = *r.ptr;
    s.remove_prefix(static_cast<size_t>(r.ptr - s.data()) + 1);
    const char* name = nullptr;
    if (!time) {
      name = unit == 'y'   ? "year"
             : unit == 'm' ? "mon"
             : unit == 'w' ? "week"
             : unit == 'd' ? "day"
                           : nullptr;
    } else {
      name = unit == 'h' ? "hour" : unit == 'm' ? "minute" : unit == 's' ? "second" : nullptr;
    }
    if (name == nullptr || !AddUnit(&sum, n, name)) return false;
    any = true;
  }
  return any && sum.Finish(out);
}

}  // namespace

bool ParseInterval(std::string_view text, Interval* out) {
  std::string low(Trim(text));
  for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view s = low;
  if (!s.empty() && s[0] == '@') s = Trim(s.substr(1));
  if (!s.empty() && s[0] == 'p') return ParseIsoInterval(s, out);
  bool ago = false;
  if (s.size() >= 3 && s.substr(s.size() - 3) == "ago" &&
      (s.size() == 3 || std::isspace(static_cast<unsigned char>(s[s.size() - 4])))) {
    ago = true;
    s = Trim(s.substr(0, s.size() - 3));
  }
  IntervalSum sum;
  bool any = false;
  while (!s.empty()) {
    bool neg = false;
    if (s[0] == '-' || s[0] == '+') {
      neg = s[0] == '-';
      s = Trim(s.substr(1));
    }
    // A clock: H:MM[:SS[.f]].
    size_t colon = s.find(':'), space = s.find(' ');
    if (colon != std::string_view::npos && (space == std::string_view::npos || colon < space)) {
      long double us;
      if (!ParseIntervalClock(&s, &us)) return false;
      sum.micros += neg ? -us : us;
      s = Trim(s);
      any = true;
      continue;
    }
    // Years and months: Y-M.
    size_t dash = s.find('-');
    if (dash != std::string_view::npos && dash > 0 &&
        (space == std::string_view::npos || dash < space)) {
      std::string_view t = s;
      int64_t y, m;
      if (Digits(&t, 1, 9, &y) && Expect(&t, '-') && Digits(&t, 1, 2, &m) &&
          (t.empty() || t[0] == ' ')) {
        sum.AddMonths(static_cast<long double>(neg ? -(y * 12 + m) : y * 12 + m));
        s = Trim(t);
        any = true;
        continue;
      }
    }
    double num = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), num);
    if (r.ec != std::errc()) return false;
    if (neg) num = -num;
    s = Trim(s.substr(static_cast<size_t>(r.ptr - s.data())));
    size_t end = 0;
    while (end < s.size() && std::isalpha(static_cast<unsigned char>(s[end]))) ++end;
    std::string unit(s.substr(0, end));
    s = Trim(s.substr(end));
    if (unit.empty()) {
      // A bare number before a clock counts days ('1 2:03'); else seconds.
      std::string_view next = s;
      if (!next.empty() && (next[0] == '-' || next[0] == '+')) next = Trim(next.substr(1));
      size_t c = next.find(':'), sp = next.find(' ');
      if (c != std::string_view::npos && (sp == std::string_view::npos || c < sp)) unit = "day";
    }
    if (unit == "centuries") unit = "century";
    if (unit == "millennia" || unit == "millenniums") unit = "millennium";
    if (unit.size() > 2 && unit.back() == 's') unit.pop_back();  // plurals
    if (!AddUnit(&sum, num, unit)) return false;
    any = true;
  }
  if (!any) return false;
  if (ago) {
    sum.months = -sum.months;
    sum.days = -sum.days;
    sum.micros = -sum.micros;
  }
  return sum.Finish(out);
}

std::string FormatDate(int64_t days) {
  if (IsInfiniteDate(days)) return days > 0 ? "infinity" : "-infinity";
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
  if (IsInfiniteTimestamp(micros)) return micros > 0 ? "infinity" : "-infinity";
  int64_t days = FloorDiv(micros, kMicrosPerDay);
  std::string date = FormatDate(days);
  std::string clock = FormatTime(micros - days * kMicrosPerDay);
  size_t bc = date.find(" BC");
  if (bc != std::string::npos) return date.substr(0, bc) + " " + clock + " BC";
  return date + " " + clock;
}

std::string FormatInterval(const Interval& iv) {
  // PostgreSQL's style: each field with its sign; after a negative field, a
  // positive one shows "+"; the clock has hours beyond 24.
  std::string out;
  bool before_negative = false;
  auto part = [&](int64_t n, const char* one, const char* many) {
    if (n == 0) return;
    if (!out.empty()) out += ' ';
    out += (before_negative && n > 0 ? "+" : "") + std::to_string(n) + " " + (n == 1 ? one : many);
    before_negative = n < 0;
  };
  part(iv.months / 12, "year", "years");
  part(iv.months % 12, "mon", "mons");
  part(iv.days, "day", "days");
  if (iv.micros != 0 || out.empty()) {
    if (!out.empty()) out += ' ';
    uint64_t m =
        iv.micros < 0 ? 0 - static_cast<uint64_t>(iv.micros) : static_cast<uint64_t>(iv.micros);
    out += iv.micros < 0 ? "-" : before_negative ? "+" : "";
    char buf[64];
    uint64_t secs = m / 1000000, frac = m % 1000000;
    int n = std::snprintf(buf, sizeof buf, "%02llu:%02llu:%02llu",
                          static_cast<unsigned long long>(secs / 3600),
                          static_cast<unsigned long long>(secs / 60 % 60),
                          static_cast<unsigned long long>(secs % 60));
    if (frac != 0) {
      n += std::snprintf(buf + n, sizeof buf - static_cast<size_t>(n), ".%06llu",
                         static_cast<unsigned long long>(frac));
      while (buf[n - 1] == '0') buf[--n] = '\0';
    }
    out += buf;
  }
  return out;
}

bool AddInterval(int64_t ts, const Interval& iv, int sign, int64_t* out) {
  if (IsInfiniteTimestamp(ts)) {
    *out = ts;
    return true;
  }
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
