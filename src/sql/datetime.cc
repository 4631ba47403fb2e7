#include "sql/datetime.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
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

// Where `a` or `b` first (last) occurs in `s`, or npos. (The standard
// find_first_of and find_last_of call memchr once per character: too slow
// for every timestamp of a JSON or CSV input.)
size_t FindFirstOf(std::string_view s, char a, char b) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == a || s[i] == b) return i;
  }
  return std::string_view::npos;
}
size_t FindLastOf(std::string_view s, char a, char b) {
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] == a || s[i] == b) return i;
  }
  return std::string_view::npos;
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
      // Digits beyond the microsecond round it.
      if (!s->empty() && (*s)[0] >= '5' && (*s)[0] <= '9') ++frac;
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
thread_local DateOrder g_date_order = DateOrder::kMDY;
thread_local IntervalStyle g_interval_style = IntervalStyle::kPostgres;
thread_local std::optional<int64_t> g_transaction_time;
}  // namespace

int64_t TransactionTime() {
  if (g_transaction_time) return *g_transaction_time;
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

TransactionTimeScope::TransactionTimeScope(std::optional<int64_t> micros)
    : saved_(g_transaction_time) {
  if (micros) g_transaction_time = micros;
}
TransactionTimeScope::~TransactionTimeScope() { g_transaction_time = saved_; }

IntervalStyle CurrentIntervalStyle() { return g_interval_style; }

IntervalStyleScope::IntervalStyleScope(IntervalStyle style) : saved_(g_interval_style) {
  g_interval_style = style;
}
IntervalStyleScope::~IntervalStyleScope() { g_interval_style = saved_; }

DateOrder CurrentDateOrder() { return g_date_order; }

DateOrderScope::DateOrderScope(DateOrder order) : saved_(g_date_order) { g_date_order = order; }
DateOrderScope::~DateOrderScope() { g_date_order = saved_; }

const char* DateOrderName(DateOrder order) {
  switch (order) {
    case DateOrder::kDMY:
      return "DMY";
    case DateOrder::kYMD:
      return "YMD";
    default:
      return "MDY";
  }
}

bool DateOrderFromStyle(std::string_view style, DateOrder current, DateOrder* out) {
  // PostgreSQL's check_datestyle: words separated by commas or spaces; an
  // output style (ISO, SQL, Postgres, German) may come with an order; SQL
  // and Postgres alone keep the order, German alone means DMY.
  *out = current;
  bool have_order = false, german = false;
  std::string word;
  auto take = [&](const std::string& w) {
    if (w.empty()) return true;
    DateOrder o;
    if (w == "ymd") {
      o = DateOrder::kYMD;
    } else if (w == "dmy" || w == "euro" || w == "european") {
      o = DateOrder::kDMY;
    } else if (w == "mdy" || w == "us" || w == "noneuropean" || w == "non-european") {
      o = DateOrder::kMDY;
    } else if (w == "iso" || w == "sql" || w == "postgres" || w == "default") {
      return true;
    } else if (w == "german") {
      german = true;
      return true;
    } else {
      return false;
    }
    if (have_order && o != *out) return false;
    have_order = true;
    *out = o;
    return true;
  };
  for (char c : style) {
    if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
      if (!take(word)) return false;
      word.clear();
    } else {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (!take(word)) return false;
  if (german && !have_order) *out = DateOrder::kDMY;
  return true;
}

namespace {

// PostgreSQL's other date forms (DateStyle ISO, MDY): month names and
// abbreviations ('January 8, 1999', '8 Jan 1999', '08-Jan-1999',
// '1999-Jan-08'), weekday names (ignored), numbers separated by - / . or
// spaces (year first if it has more than two digits, else month, day,
// year), YYYYMMDD, two-digit years (70-99: 19xx, else 20xx), and BC/AD.
bool ParseDateWords(std::string_view s, int64_t* days) {
  {
    // PostgreSQL reads "1999-08-Jan" as the field "1999-08-" (a date led by
    // numbers takes only numbers after its second separator) and a word,
    // and refuses it.
    size_t i = 0;
    auto digits = [&] {
      size_t from = i;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      return i > from;
    };
    if (digits() && i < s.size() && (s[i] == '-' || s[i] == '/' || s[i] == '.')) {
      const char delim = s[i++];
      if (digits() && i + 1 < s.size() && s[i] == delim &&
          std::isalpha(static_cast<unsigned char>(s[i + 1]))) {
        return false;
      }
    }
  }
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
  int64_t y = 0, m = 0, d = 0;
  (void)month_at;
  if (nums.size() == 2 && month == 0 && nums[0].digits >= 3 && nums[1].digits == 3) {
    // YYYY.DDD: a day of the year.
    y = bc ? 1 - nums[0].v : nums[0].v;
    const int64_t doy = nums[1].v;
    const int64_t first = DaysFromCivil(y, 1, 1);
    if (doy < 1 || doy > DaysFromCivil(y + 1, 1, 1) - first) return false;
    *days = first + doy - 1;
    return true;
  }
  if (nums.size() == 1 && month == 0 && (nums[0].digits == 8 || nums[0].digits == 6)) {
    int64_t v = nums[0].v;
    d = v % 100;
    m = v / 100 % 100;
    y = nums[0].digits == 8 ? v / 10000 : year_of(Num{v / 10000, 2});
  } else {
    // PostgreSQL's DecodeNumber: each number takes the field that the
    // fields before it and the date order leave for it.
    const DateOrder order = CurrentDateOrder();
    bool have_y = false, have_m = month != 0, have_d = false, two_digit_year = false;
    m = month;
    for (const Num& n : nums) {
      enum { kY, kM, kD } field;
      if (!have_y && !have_m && !have_d) {
        field = n.digits >= 3 || order == DateOrder::kYMD ? kY : order == DateOrder::kDMY ? kD : kM;
      } else if (have_y && !have_m && !have_d) {
        field = kM;
      } else if (!have_y && have_m && !have_d) {
        field = month != 0 && (n.digits >= 3 || order == DateOrder::kYMD) ? kY : kD;
      } else if (have_y && have_m && !have_d) {
        field = kD;
        if (month != 0 && n.digits >= 3 && two_digit_year) {
          // DD-MON-YYYY in YMD: the first number was the day after all.
          d = y;
          y = n.v;
          two_digit_year = false;
          have_d = true;
          continue;
        }
      } else if (!have_y && !have_m && have_d) {
        field = kM;
      } else if (!have_y && have_m && have_d) {
        field = kY;
      } else {
        return false;
      }
      if (field == kY) {
        y = n.v;
        have_y = true;
        two_digit_year = n.digits <= 2;
      } else if (field == kM) {
        m = n.v;
        have_m = true;
      } else {
        d = n.v;
        have_d = true;
      }
    }
    if (!have_y || !have_m || !have_d) return false;
    if (two_digit_year && !bc) y = y < 70 ? 2000 + y : 1900 + y;
  }
  if (bc) {
    if (y < 1) return false;
    y = 1 - y;
  }
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, static_cast<unsigned>(m))) return false;
  *days = DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  return true;
}

// The timestamp of a day and a time of day; false past the range of
// microseconds since 1970 (about 294,247 AD; PostgreSQL's reaches 294,276)
// or on the values that stand for infinity.
bool TimestampOfDay(int64_t days, int64_t clock, int64_t* micros) {
  int64_t x;
  if (__builtin_mul_overflow(days, kMicrosPerDay, &x) || __builtin_add_overflow(x, clock, &x) ||
      IsInfiniteTimestamp(x))
    return false;
  *micros = x;
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
    return TimestampOfDay(days, 0, micros);
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
  return TimestampOfDay(days, clock, micros);
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

// 'now', 'today', 'tomorrow' and 'yesterday' (any case): read as the
// current time (UTC) when the text is read, or the transaction's time that
// a TransactionTimeScope sets, as PostgreSQL does; false for other text.
bool RelativeNow(std::string_view s, bool whole_days, int64_t* micros) {
  // Most text is a date: it is turned away before anything is copied or
  // the clock is read (every JSON or CSV timestamp comes through here).
  if (s.size() < 3 || s.size() > 9 || !std::isalpha(static_cast<unsigned char>(s[0]))) {
    return false;
  }
  char w[9];
  for (size_t i = 0; i < s.size(); ++i) {
    w[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
  }
  const std::string_view word(w, s.size());
  if (word != "now" && word != "today" && word != "tomorrow" && word != "yesterday") return false;
  const int64_t now = TransactionTime();
  const int64_t today = FloorDiv(now, kMicrosPerDay) * kMicrosPerDay;
  if (word == "now") {
    *micros = whole_days ? today : now;
  } else if (word == "today") {
    *micros = today;
  } else if (word == "tomorrow") {
    *micros = today + kMicrosPerDay;
  } else {
    *micros = today - kMicrosPerDay;
  }
  return true;
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
  if (int64_t micros; RelativeNow(s, /*whole_days=*/true, &micros)) {
    *days = micros / kMicrosPerDay;
    return true;
  }
  if (s.size() > 1 && (s[0] == 'J' || s[0] == 'j')) {
    // A Julian day number: J2440588 is 1970-01-01.
    std::string_view rest = s.substr(1);
    int64_t julian = 0;
    if (Digits(&rest, 1, 9, &julian) && rest.empty()) {
      *days = julian - 2440588;
      return true;
    }
  }
  std::string_view all = s;
  int64_t y, m, d;
  size_t year_digits = 0;
  while (year_digits < s.size() && std::isdigit(static_cast<unsigned char>(s[year_digits]))) {
    ++year_digits;
  }
  // A year of one or two digits is read as PostgreSQL reads it (the date
  // order, and 70-99 as 19xx), by the general reader.
  if (year_digits < 3 || !Digits(&s, 1, 6, &y) || !Expect(&s, '-') || !Digits(&s, 1, 2, &m) ||
      !Expect(&s, '-') || !Digits(&s, 1, 2, &d) || !s.empty()) {
    return ParseDateWords(all, days);
  }
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, static_cast<unsigned>(m))) return false;
  *days = DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  return true;
}

bool ParseTime(std::string_view s, int64_t* micros) {
  s = Trim(s);
  std::string_view all = s;
  // As PostgreSQL's, the clock runs to 24:00:00 inclusive.
  if (ParseClock(&s, micros) && s.empty()) return true;
  // A date before the time, or a zone after it: PostgreSQL ignores both.
  int64_t ts;
  if (all.find(':') == std::string_view::npos || !ParseTimestampWords(all, &ts)) {
    std::string_view t = all;
    if (t.find(' ') == std::string_view::npos) return false;
    t = Trim(t.substr(0, t.find(' ')));
    return ParseClock(&t, micros) && t.empty();
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
  if (RelativeNow(s, /*whole_days=*/false, micros)) return true;
  std::string_view all = s;
  size_t sep = FindFirstOf(s, ' ', 'T');
  int64_t days, clock = 0;
  if (!ParseDate(s.substr(0, sep), &days)) return ParseTimestampWords(all, micros, allow_zone);
  if (sep != std::string_view::npos) {
    std::string_view rest = Trim(s.substr(sep + 1));
    if (!ParseClock(&rest, &clock) || !rest.empty()) {
      return ParseTimestampWords(all, micros, allow_zone);
    }
  }
  return TimestampOfDay(days, clock, micros);
}

}  // namespace

bool ParseTimestamp(std::string_view s, int64_t* micros) {
  return ParseTimestampImpl(s, micros, /*allow_zone=*/true);
}

bool ParseTimestampInput(std::string_view s, int64_t* micros) {
  s = Trim(s);
  if (InfinitySign(s) != 0 || IsEpoch(s)) return ParseTimestampImpl(s, micros, false);
  const size_t sep = FindFirstOf(s, ' ', 'T');
  int64_t offset = 0;  // microseconds east of UTC
  if (sep != std::string_view::npos && !s.empty() && (s.back() == 'Z' || s.back() == 'z')) {
    s.remove_suffix(1);
  } else if (const size_t sign = FindLastOf(s, '+', '-');
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

namespace {

// Time zone abbreviations of PostgreSQL's default set (its
// timezone_abbreviations "Default") that name one fixed offset, in
// seconds east of UTC; lower case, sorted.
struct ZoneAbbreviation {
  std::string_view name;
  int32_t seconds;
};
constexpr int32_t H(int32_t h, int32_t m = 0) { return (h * 60 + (h < 0 ? -m : m)) * 60; }
constexpr ZoneAbbreviation kZoneAbbreviations[] = {
    {"acdt", H(10, 30)}, {"acst", H(9, 30)}, {"adt", H(-3)},   {"aedt", H(11)},
    {"aest", H(10)},     {"akdt", H(-8)},    {"akst", H(-9)},  {"art", H(-3)},
    {"ast", H(-4)},      {"awst", H(8)},     {"brst", H(-2)},  {"brt", H(-3)},
    {"bst", H(1)},       {"cct", H(8)},      {"cdt", H(-5)},   {"cest", H(2)},
    {"cet", H(1)},       {"cetdst", H(2)},   {"clst", H(-3)},  {"clt", H(-4)},
    {"cot", H(-5)},      {"cst", H(-6)},     {"eat", H(3)},    {"edt", H(-4)},
    {"eest", H(3)},      {"eet", H(2)},      {"eetdst", H(3)}, {"est", H(-5)},
    {"gmt", 0},          {"hkt", H(8)},      {"hst", H(-10)},  {"ict", H(7)},
    {"idt", H(3)},       {"irt", H(3, 30)},  {"ist", H(2)},    {"jst", H(9)},
    {"kst", H(9)},       {"mdt", H(-6)},     {"mest", H(2)},   {"mesz", H(2)},
    {"met", H(1)},       {"metdst", H(2)},   {"mez", H(1)},    {"msd", H(4)},
    {"msk", H(3)},       {"mst", H(-7)},     {"myt", H(8)},    {"ndt", H(-2, 30)},
    {"npt", H(5, 45)},   {"nst", H(-3, 30)}, {"nzdt", H(13)},  {"nzst", H(12)},
    {"nzt", H(12)},      {"pdt", H(-7)},     {"pet", H(-5)},   {"pht", H(8)},
    {"pkt", H(5)},       {"pst", H(-8)},     {"sast", H(2)},   {"sgt", H(8)},
    {"uct", 0},          {"ut", 0},          {"utc", 0},       {"uyt", H(-3)},
    {"wat", H(1)},       {"wet", 0},         {"wetdst", H(1)}, {"z", 0},
    {"zulu", 0},
};

// A numeric zone offset without its sign: H, HH, HHMM, HH:MM or HH:MM:SS,
// at most 15:59:59 as PostgreSQL's; in seconds.
bool ParseOffsetDigits(std::string_view z, int32_t* seconds) {
  int64_t h = 0, m = 0, sec = 0;
  size_t digits = 0;
  while (digits < z.size() && std::isdigit(static_cast<unsigned char>(z[digits]))) ++digits;
  if (digits == 0) return false;
  std::string_view d = z.substr(0, digits);
  z.remove_prefix(digits);
  if (digits <= 2) {
    h = std::stoi(std::string(d));
    auto field = [&](int64_t* v) {
      if (z.size() < 3 || z[0] != ':' || !std::isdigit(static_cast<unsigned char>(z[1])) ||
          !std::isdigit(static_cast<unsigned char>(z[2])))
        return false;
      *v = (z[1] - '0') * 10 + (z[2] - '0');
      z.remove_prefix(3);
      return *v < 60;
    };
    if (!z.empty() && !field(&m)) return false;
    if (!z.empty() && !field(&sec)) return false;
  } else if (digits == 4) {
    h = (d[0] - '0') * 10 + (d[1] - '0');
    m = (d[2] - '0') * 10 + (d[3] - '0');
    if (m >= 60) return false;
  } else {
    return false;
  }
  if (!z.empty() || h > 15) return false;
  *seconds = static_cast<int32_t>((h * 60 + m) * 60 + sec);
  return true;
}

}  // namespace

bool ParseZone(std::string_view zone, int32_t* seconds_east) {
  zone = Trim(zone);
  if (zone.empty()) return false;
  if (zone[0] == '+' || zone[0] == '-') {
    int32_t x;
    if (!ParseOffsetDigits(zone.substr(1), &x)) return false;
    *seconds_east = zone[0] == '-' ? -x : x;
    return true;
  }
  std::string lower(zone);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto it =
      std::lower_bound(std::begin(kZoneAbbreviations), std::end(kZoneAbbreviations), lower,
                       [](const ZoneAbbreviation& a, const std::string& n) { return a.name < n; });
  if (it == std::end(kZoneAbbreviations) || it->name != lower) return false;
  *seconds_east = it->seconds;
  return true;
}

bool ParseTimestampTz(std::string_view s, int64_t* micros) {
  s = Trim(s);
  if (InfinitySign(s) != 0 || IsEpoch(s) || RelativeNow(s, /*whole_days=*/false, micros)) {
    return ParseTimestampImpl(s, micros, /*allow_zone=*/false);
  }
  int32_t offset = 0;
  // BC or AD after the zone ("0044-03-15 12:00:00+02 BC") belong to the
  // date: read the zone before them.
  std::string era;
  if (s.size() > 3 && s[s.size() - 3] == ' ') {
    std::string last(s.substr(s.size() - 2));
    for (char& c : last) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (last == "bc" || last == "ad") {
      era = " " + last;
      s = Trim(s.substr(0, s.size() - 3));
    }
  }
  std::string_view rest = s;
  // A zone of letters at the end ("... PST", "...Z"): not AM/PM, BC/AD.
  size_t b = s.size();
  while (b > 0 && std::isalpha(static_cast<unsigned char>(s[b - 1]))) --b;
  const size_t sep = FindFirstOf(s, ' ', 'T');
  if (b < s.size() && b > 0) {
    std::string word(s.substr(b));
    for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (word != "am" && word != "pm" && word != "bc" && word != "ad" && ParseZone(word, &offset))
      rest = Trim(s.substr(0, b));
  } else if (const size_t sign = FindLastOf(s, '+', '-');
             sign != std::string_view::npos && s.find(':') != std::string_view::npos &&
             sep != std::string_view::npos && sign > sep && sign > s.find(':') &&
             ParseZone(s.substr(sign), &offset)) {
    // A signed offset after the clock ("10:23:54+01", "10:23:54 -08:00").
    rest = Trim(s.substr(0, sign));
  }
  if (!ParseTimestampImpl(era.empty() ? rest : std::string(rest) + era, micros,
                          /*allow_zone=*/false))
    return false;
  *micros -= static_cast<int64_t>(offset) * 1000000;
  return true;
}

bool ParseTimeTz(std::string_view s, TimeTz* out) {
  s = Trim(s);
  int32_t east = 0;
  std::string_view rest = s;
  // A zone of letters at the end ("1:00 PST", "11:00Z"), not AM or PM; or
  // a signed offset after the clock ("11:00-08", "2001-10-19 10:23:54+01").
  size_t b = s.size();
  while (b > 0 && std::isalpha(static_cast<unsigned char>(s[b - 1]))) --b;
  const size_t colon = s.find(':');
  if (b < s.size() && b > 0) {
    std::string word(s.substr(b));
    for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (word != "am" && word != "pm") {
      if (!ParseZone(word, &east)) return false;
      rest = Trim(s.substr(0, b));
    }
  } else if (const size_t sign = FindLastOf(s, '+', '-');
             sign != std::string_view::npos && colon != std::string_view::npos && sign > colon) {
    if (!ParseZone(s.substr(sign), &east)) return false;
    rest = Trim(s.substr(0, sign));
  }
  int64_t micros;
  if (!ParseTime(rest, &micros)) return false;
  out->micros = micros;
  out->zone_west = -east;
  return true;
}

std::string FormatTimeTz(const TimeTz& t) {
  std::string out = FormatTime(t.micros);
  const int32_t east = -t.zone_west;
  const int32_t a = east < 0 ? -east : east;
  char buf[16];
  std::snprintf(buf, sizeof buf, "%c%02d", east < 0 ? '-' : '+', a / 3600);
  out += buf;
  if (a % 3600 != 0) {
    std::snprintf(buf, sizeof buf, ":%02d", a / 60 % 60);
    out += buf;
  }
  if (a % 60 != 0) {
    std::snprintf(buf, sizeof buf, ":%02d", a % 60);
    out += buf;
  }
  return out;
}

std::string FormatTimestampTz(int64_t micros) {
  if (IsInfiniteTimestamp(micros)) return micros > 0 ? "infinity" : "-infinity";
  std::string ts = FormatTimestamp(micros);
  const size_t bc = ts.find(" BC");
  if (bc != std::string::npos) return ts.substr(0, bc) + "+00 BC";
  return ts + "+00";
}

namespace {

// Interval input, as PostgreSQL reads it. The text is split into fields
// (numbers, clocks, words, signed numbers), which are then read from the
// right, so that a unit applies to the number before it and a bare number
// takes the unit its right neighbour implies. Whole numbers are exact; a
// fraction of a field spills into the finer fields (1.5 years is 1 year 6
// mons, 1.5 months 1 mon 15 days, 1.5 days 1 day 12:00:00).

enum class FieldKind { kNumber, kDate, kTime, kSigned, kWord };

struct Field {
  FieldKind kind;
  std::string text;
};

enum class ReadError { kNone, kBadFormat, kFieldOverflow };

// Splits `s` into fields; false for a character no field can hold.
bool SplitIntervalFields(std::string_view s, std::vector<Field>* out) {
  auto digit = [&](size_t i) {
    return i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]));
  };
  auto alpha = [&](size_t i) {
    return i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]));
  };
  auto lower = [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  };
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (std::isspace(c)) {
      ++i;
      continue;
    }
    Field f;
    if (std::isdigit(c)) {
      while (digit(i)) f.text += s[i++];
      if (i < s.size() && s[i] == ':') {
        f.kind = FieldKind::kTime;
        while (digit(i) || (i < s.size() && (s[i] == ':' || s[i] == '.'))) f.text += s[i++];
      } else if (i < s.size() && (s[i] == '-' || s[i] == '/' || s[i] == '.')) {
        const char delim = s[i];
        f.text += s[i++];
        if (digit(i)) {
          f.kind = delim == '.' ? FieldKind::kNumber : FieldKind::kDate;
          while (digit(i)) f.text += s[i++];
          if (i < s.size() && s[i] == delim) {
            f.kind = FieldKind::kDate;
            while (digit(i) || (i < s.size() && s[i] == delim)) f.text += s[i++];
          }
        } else {
          f.kind = FieldKind::kDate;
          while (i < s.size() &&
                 (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == delim)) {
            f.text += lower(s[i++]);
          }
        }
      } else {
        f.kind = FieldKind::kNumber;
      }
    } else if (c == '.') {
      f.kind = FieldKind::kNumber;
      f.text += s[i++];
      while (digit(i)) f.text += s[i++];
    } else if (std::isalpha(c)) {
      f.kind = FieldKind::kWord;
      while (alpha(i)) f.text += lower(s[i++]);
      // A word run into a date or a zone name is not an interval's: keep it
      // whole, and let the reading refuse it.
      if (i < s.size() && (s[i] == '-' || s[i] == '/' || s[i] == '.' || s[i] == '+' || digit(i))) {
        f.kind = FieldKind::kDate;
        while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) ||
                                std::string_view("+-/_.:").find(s[i]) != std::string_view::npos)) {
          f.text += lower(s[i++]);
        }
      }
    } else if (c == '+' || c == '-') {
      f.text += s[i++];
      while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
      if (digit(i)) {
        f.kind = FieldKind::kSigned;
        while (digit(i) || (i < s.size() && (s[i] == ':' || s[i] == '.' || s[i] == '-'))) {
          f.text += s[i++];
        }
      } else if (alpha(i)) {
        f.kind = FieldKind::kWord;
        while (alpha(i)) f.text += lower(s[i++]);
      } else {
        return false;
      }
    } else if (std::ispunct(c)) {
      ++i;  // '@' and other punctuation only separate fields
      continue;
    } else {
      return false;
    }
    out->push_back(std::move(f));
  }
  return true;
}

enum class Unit {
  kNone,
  kMicrosecond,
  kMillisecond,
  kSecond,
  kMinute,
  kHour,
  kDay,
  kWeek,
  kMonth,
  kYear,
  kDecade,
  kCentury,
  kMillennium,
  kAgo,
  kUnknown
};

// A unit's word, its spellings compared on their first ten letters.
Unit UnitOfWord(std::string w) {
  if (w.size() > 10) w.resize(10);
  static const std::pair<const char*, Unit> kUnits[] = {
      {"ago", Unit::kAgo},
      {"c", Unit::kCentury},
      {"cent", Unit::kCentury},
      {"centuries", Unit::kCentury},
      {"century", Unit::kCentury},
      {"d", Unit::kDay},
      {"day", Unit::kDay},
      {"days", Unit::kDay},
      {"dec", Unit::kDecade},
      {"decade", Unit::kDecade},
      {"decades", Unit::kDecade},
      {"decs", Unit::kDecade},
      {"h", Unit::kHour},
      {"hour", Unit::kHour},
      {"hours", Unit::kHour},
      {"hr", Unit::kHour},
      {"hrs", Unit::kHour},
      {"m", Unit::kMinute},
      {"microsecon", Unit::kMicrosecond},
      {"mil", Unit::kMillennium},
      {"millennia", Unit::kMillennium},
      {"millennium", Unit::kMillennium},
      {"millisecon", Unit::kMillisecond},
      {"mils", Unit::kMillennium},
      {"min", Unit::kMinute},
      {"mins", Unit::kMinute},
      {"minute", Unit::kMinute},
      {"minutes", Unit::kMinute},
      {"mon", Unit::kMonth},
      {"mons", Unit::kMonth},
      {"month", Unit::kMonth},
      {"months", Unit::kMonth},
      {"ms", Unit::kMillisecond},
      {"msec", Unit::kMillisecond},
      {"msecond", Unit::kMillisecond},
      {"mseconds", Unit::kMillisecond},
      {"msecs", Unit::kMillisecond},
      {"s", Unit::kSecond},
      {"sec", Unit::kSecond},
      {"second", Unit::kSecond},
      {"seconds", Unit::kSecond},
      {"secs", Unit::kSecond},
      {"us", Unit::kMicrosecond},
      {"usec", Unit::kMicrosecond},
      {"usecond", Unit::kMicrosecond},
      {"useconds", Unit::kMicrosecond},
      {"usecs", Unit::kMicrosecond},
      {"w", Unit::kWeek},
      {"week", Unit::kWeek},
      {"weeks", Unit::kWeek},
      {"y", Unit::kYear},
      {"year", Unit::kYear},
      {"years", Unit::kYear},
      {"yr", Unit::kYear},
      {"yrs", Unit::kYear},
  };
  for (const auto& [word, unit] : kUnits) {
    if (w == word) return unit;
  }
  return Unit::kUnknown;
}

// An interval being read, in PostgreSQL's input fields.
struct IntervalParts {
  int32_t years = 0, months = 0, days = 0;
  int64_t micros = 0;

  // Adds frac (|frac| < 1) times `scale` microseconds, rounded half away.
  bool AddFractionMicros(double frac, int64_t scale) {
    if (frac == 0) return true;
    frac *= static_cast<double>(scale);
    int64_t us = static_cast<int64_t>(frac);
    frac -= static_cast<double>(us);
    if (frac > 0.5) ++us;
    if (frac < -0.5) --us;
    return !__builtin_add_overflow(micros, us, &micros);
  }
  bool AddFractionDays(double frac, int scale) {
    if (frac == 0) return true;
    frac *= scale;
    const int extra = static_cast<int>(frac);
    if (__builtin_add_overflow(days, extra, &days)) return false;
    return AddFractionMicros(frac - extra, kMicrosPerDay);
  }
  bool AddFractionYears(double frac, int scale) {
    const int extra = static_cast<int>(std::rint(frac * scale * 12));
    return !__builtin_add_overflow(months, extra, &months);
  }
  bool AddMicros(int64_t val, double frac, int64_t scale) {
    int64_t p;
    if (__builtin_mul_overflow(val, scale, &p) || __builtin_add_overflow(micros, p, &micros)) {
      return false;
    }
    return AddFractionMicros(frac, scale);
  }
  bool AddDays(int64_t val, int scale) {
    int32_t d;
    if (val < INT32_MIN || val > INT32_MAX) return false;
    return !__builtin_mul_overflow(static_cast<int32_t>(val), scale, &d) &&
           !__builtin_add_overflow(days, d, &days);
  }
  bool AddMonths(int64_t val) {
    if (val < INT32_MIN || val > INT32_MAX) return false;
    return !__builtin_add_overflow(months, static_cast<int32_t>(val), &months);
  }
  bool AddYears(int64_t val, int scale) {
    int32_t y;
    if (val < INT32_MIN || val > INT32_MAX) return false;
    return !__builtin_mul_overflow(static_cast<int32_t>(val), scale, &y) &&
           !__builtin_add_overflow(years, y, &years);
  }
  // Adds val + frac of `unit`.
  bool Add(Unit unit, int64_t val, double frac) {
    constexpr int64_t kSec = 1000000;
    switch (unit) {
      case Unit::kMicrosecond:
        return AddMicros(val, frac, 1);
      case Unit::kMillisecond:
        return AddMicros(val, frac, 1000);
      case Unit::kSecond:
        return AddMicros(val, frac, kSec);
      case Unit::kMinute:
        return AddMicros(val, frac, 60 * kSec);
      case Unit::kHour:
        return AddMicros(val, frac, 3600 * kSec);
      case Unit::kDay:
        return AddDays(val, 1) && AddFractionMicros(frac, kMicrosPerDay);
      case Unit::kWeek:
        return AddDays(val, 7) && AddFractionDays(frac, 7);
      case Unit::kMonth:
        return AddMonths(val) && AddFractionDays(frac, 30);
      case Unit::kYear:
        return AddYears(val, 1) && AddFractionYears(frac, 1);
      case Unit::kDecade:
        return AddYears(val, 10) && AddFractionYears(frac, 10);
      case Unit::kCentury:
        return AddYears(val, 100) && AddFractionYears(frac, 100);
      case Unit::kMillennium:
        return AddYears(val, 1000) && AddFractionYears(frac, 1000);
      default:
        return false;
    }
  }
};

// Reads a signed 64-bit integer at the front of `s`; false on overflow.
bool ReadInt(std::string_view* s, int64_t* out, bool* overflow) {
  size_t i = 0;
  const bool neg = !s->empty() && (*s)[0] == '-';
  if (!s->empty() && ((*s)[0] == '-' || (*s)[0] == '+')) ++i;
  int64_t v = 0;
  const size_t first = i;
  for (; i < s->size() && std::isdigit(static_cast<unsigned char>((*s)[i])); ++i) {
    const int d = (*s)[i] - '0';
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, neg ? -d : d, &v)) {
      *overflow = true;
      return false;
    }
  }
  *out = v;
  s->remove_prefix(i);
  return i > first || first == 0;  // "-" alone reads nothing
}

// A fraction: '.' and digits to the end of the text.
bool ReadFraction(std::string_view s, double* frac) {
  if (s.size() == 1) {
    *frac = 0;
    return true;
  }
  for (size_t i = 1; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  *frac = std::strtod(std::string(s).c_str(), nullptr);
  return true;
}

constexpr int kYearBit = 4, kMonthBit = 2, kDayBit = 8, kHourBit = 1024, kMinuteBit = 2048,
              kSecondBit = 4096;

// H:MM[:SS[.f]] or MM:SS.f (and H:MM as MM:SS in a MINUTE TO SECOND
// interval): microseconds.
ReadError ReadIntervalClock(std::string_view s, int range, int64_t* out) {
  bool overflow = false;
  int64_t h, m, sec = 0;
  int64_t fsec = 0;
  if (!ReadInt(&s, &h, &overflow))
    return overflow ? ReadError::kFieldOverflow : ReadError::kBadFormat;
  if (s.empty() || s[0] != ':') return ReadError::kBadFormat;
  s.remove_prefix(1);
  if (!ReadInt(&s, &m, &overflow) || m > INT32_MAX) {
    return overflow || m > INT32_MAX ? ReadError::kFieldOverflow : ReadError::kBadFormat;
  }
  auto fraction = [&](std::string_view f) {
    double frac;
    if (!ReadFraction(f, &frac)) return false;
    fsec = static_cast<int64_t>(std::rint(frac * 1000000));
    return true;
  };
  auto as_minutes = [&]() {
    if (h > INT32_MAX || h < INT32_MIN) return false;
    sec = m;
    m = h;
    h = 0;
    return true;
  };
  if (s.empty()) {
    if (range == (kMinuteBit | kSecondBit) && !as_minutes()) return ReadError::kFieldOverflow;
  } else if (s[0] == '.') {
    if (!fraction(s)) return ReadError::kBadFormat;
    if (!as_minutes()) return ReadError::kFieldOverflow;
  } else if (s[0] == ':') {
    s.remove_prefix(1);
    if (!ReadInt(&s, &sec, &overflow)) {
      return overflow ? ReadError::kFieldOverflow : ReadError::kBadFormat;
    }
    if (!s.empty()) {
      if (s[0] != '.' || !fraction(s)) return ReadError::kBadFormat;
    }
  } else {
    return ReadError::kBadFormat;
  }
  if (h < 0 || m < 0 || m > 59 || sec < 0 || sec > 60 || fsec < 0 || fsec > 1000000) {
    return ReadError::kFieldOverflow;
  }
  constexpr int64_t kSec = 1000000;
  int64_t us = fsec, p;
  if (__builtin_mul_overflow(h, 3600 * kSec, &p) || __builtin_add_overflow(us, p, &us) ||
      __builtin_add_overflow(us, m * 60 * kSec + sec * kSec, &us)) {
    return ReadError::kFieldOverflow;
  }
  *out = us;
  return ReadError::kNone;
}

// The unit of a bare number at the right end: the restriction's last field.
Unit LastFieldUnit(int range) {
  if (range == kYearBit) return Unit::kYear;
  if (range == kMonthBit || range == (kYearBit | kMonthBit)) return Unit::kMonth;
  if (range == kDayBit) return Unit::kDay;
  if (range == kHourBit || range == (kDayBit | kHourBit)) return Unit::kHour;
  if (range == kMinuteBit || range == (kHourBit | kMinuteBit) ||
      range == (kDayBit | kHourBit | kMinuteBit)) {
    return Unit::kMinute;
  }
  return Unit::kSecond;
}

// Each unit's bit in the mask of fields already given (a field may not come
// twice).
int UnitMask(Unit u, bool fraction) {
  switch (u) {
    case Unit::kMicrosecond:
      return 1 << 0;
    case Unit::kMillisecond:
      return 1 << 1;
    case Unit::kSecond:
      return fraction ? 7 : 4;  // with a fraction, also ms and us
    case Unit::kMinute:
      return 1 << 3;
    case Unit::kHour:
      return 1 << 4;
    case Unit::kDay:
      return 1 << 5;
    case Unit::kWeek:
      return 1 << 6;
    case Unit::kMonth:
      return 1 << 7;
    case Unit::kYear:
      return 1 << 8;
    case Unit::kDecade:
      return 1 << 9;
    case Unit::kCentury:
      return 1 << 10;
    case Unit::kMillennium:
      return 1 << 11;
    default:
      return 0;
  }
}
constexpr int kClockMask = 0x1F;  // hours to microseconds

ReadError ReadIntervalFields(const std::vector<Field>& fields, int range, IntervalParts* iv) {
  Unit next = Unit::kNone;  // the unit of a number, from its right
  bool ago = false;
  int seen = 0;
  for (size_t k = fields.size(); k-- > 0;) {
    const Field& f = fields[k];
    if (f.kind == FieldKind::kWord) {
      const Unit u = UnitOfWord(f.text);
      if (u == Unit::kUnknown) return ReadError::kBadFormat;
      if (u == Unit::kAgo) {
        ago = true;
        next = Unit::kUnknown;  // a number right before "ago" has no unit
      } else {
        next = u;
      }
      continue;
    }
    int mask = 0;
    bool clock = false;
    if (f.kind == FieldKind::kTime ||
        (f.kind == FieldKind::kSigned && f.text.find(':') != std::string::npos)) {
      const bool signed_field = f.kind == FieldKind::kSigned;
      int64_t us;
      const ReadError e =
          ReadIntervalClock(std::string_view(f.text).substr(signed_field ? 1 : 0), range, &us);
      if (e == ReadError::kNone) {
        // As PostgreSQL does, the clock sets the time rather than adding to
        // it (any other time field conflicts with it anyway).
        iv->micros = f.text[0] == '-' ? -us : us;
        mask = kClockMask;
        next = Unit::kDay;
        clock = true;
      } else if (!signed_field) {
        return e;  // a signed field that is no clock may be a number
      }
    }
    if (!clock) {
      Unit unit = next == Unit::kNone ? LastFieldUnit(range) : next;
      std::string_view t = f.text;
      int64_t val = 0;
      double frac = 0;
      bool overflow = false;
      if (!ReadInt(&t, &val, &overflow)) {
        return overflow ? ReadError::kFieldOverflow : ReadError::kBadFormat;
      }
      if (!t.empty() && t[0] == '-') {  // years-months
        t.remove_prefix(1);
        int64_t mon = 0;
        ReadInt(&t, &mon, &overflow);
        if (overflow || mon < 0 || mon >= 12) return ReadError::kFieldOverflow;
        if (!t.empty()) return ReadError::kBadFormat;
        if (f.text[0] == '-') mon = -mon;
        if (__builtin_mul_overflow(val, 12, &val) || __builtin_add_overflow(val, mon, &val)) {
          return ReadError::kFieldOverflow;
        }
        unit = Unit::kMonth;
      } else if (!t.empty() && t[0] == '.') {
        if (!ReadFraction(t, &frac)) return ReadError::kBadFormat;
        if (f.text[0] == '-') frac = -frac;
      } else if (!t.empty()) {
        return ReadError::kBadFormat;
      }
      if (unit == Unit::kUnknown) return ReadError::kBadFormat;
      if (!iv->Add(unit, val, frac)) return ReadError::kFieldOverflow;
      mask = UnitMask(unit, frac != 0);
      next = unit == Unit::kHour ? Unit::kDay : unit;
    }
    if (mask & seen) return ReadError::kBadFormat;
    seen |= mask;
  }
  if (seen == 0) return ReadError::kBadFormat;
  if (ago) {
    if (iv->micros == INT64_MIN || iv->days == INT32_MIN || iv->months == INT32_MIN ||
        iv->years == INT32_MIN) {
      return ReadError::kFieldOverflow;
    }
    iv->micros = -iv->micros;
    iv->days = -iv->days;
    iv->months = -iv->months;
    iv->years = -iv->years;
  }
  return ReadError::kNone;
}

// An ISO 8601 number: its whole part (exact up to 10^15) and fraction.
ReadError ReadIsoNumber(std::string_view* s, int64_t* whole, double* frac) {
  if (s->empty() ||
      !(std::isdigit(static_cast<unsigned char>((*s)[0])) || (*s)[0] == '-' || (*s)[0] == '.')) {
    return ReadError::kBadFormat;
  }
  const std::string text(*s);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || errno != 0) return ReadError::kBadFormat;
  if (std::isnan(v) || v < -1.0e15 || v > 1.0e15) return ReadError::kFieldOverflow;
  *whole = v >= 0 ? static_cast<int64_t>(std::floor(v)) : -static_cast<int64_t>(std::floor(-v));
  *frac = v - static_cast<double>(*whole);
  s->remove_prefix(static_cast<size_t>(end - text.c_str()));
  return ReadError::kNone;
}

size_t IsoIntegerWidth(std::string_view s) {
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  size_t n = 0;
  while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n]))) ++n;
  return n;
}

// ISO 8601 durations: P[nY][nM][nW][nD][T[nH][nM][nS]] (numbers may have
// fractions and signs), and the alternative forms PYYYY-MM-DDTHH:MM:SS and
// PYYYYMMDDTHHMMSS.
ReadError ReadIsoInterval(std::string_view s, IntervalParts* iv) {
  constexpr int64_t kSec = 1000000;
  if (s.size() < 2 || s[0] != 'P') return ReadError::kBadFormat;
  s.remove_prefix(1);
  bool date_part = true, have_field = false;
  auto overflow_unless = [](bool ok) { return ok ? ReadError::kNone : ReadError::kFieldOverflow; };
  while (!s.empty()) {
    if (s[0] == 'T') {
      date_part = false;
      have_field = false;
      s.remove_prefix(1);
      continue;
    }
    const std::string_view start = s;
    int64_t val;
    double frac;
    if (ReadError e = ReadIsoNumber(&s, &val, &frac); e != ReadError::kNone) return e;
    const char unit = s.empty() ? '\0' : s[0];
    if (!s.empty()) s.remove_prefix(1);
    if (date_part) {
      switch (unit) {
        case 'Y':
          if (!iv->Add(Unit::kYear, val, frac)) return ReadError::kFieldOverflow;
          break;
        case 'M':
          if (!iv->Add(Unit::kMonth, val, frac)) return ReadError::kFieldOverflow;
          break;
        case 'W':
          if (!iv->Add(Unit::kWeek, val, frac)) return ReadError::kFieldOverflow;
          break;
        case 'D':
          if (!iv->Add(Unit::kDay, val, frac)) return ReadError::kFieldOverflow;
          break;
        case 'T':
        case '\0':
          if (IsoIntegerWidth(start) == 8 && !have_field) {  // YYYYMMDD
            if (!iv->AddYears(val / 10000, 1) || !iv->AddMonths(val / 100 % 100) ||
                !iv->AddDays(val % 100, 1) || !iv->AddFractionMicros(frac, kMicrosPerDay)) {
              return ReadError::kFieldOverflow;
            }
            if (unit == '\0') return ReadError::kNone;
            date_part = false;
            have_field = false;
            continue;
          }
          [[fallthrough]];
        case '-': {  // YYYY-MM-DD
          if (have_field) return ReadError::kBadFormat;
          if (!iv->Add(Unit::kYear, val, frac)) return ReadError::kFieldOverflow;
          if (unit == '\0') return ReadError::kNone;
          if (unit == 'T') {
            date_part = false;
            have_field = false;
            continue;
          }
          if (ReadError e = ReadIsoNumber(&s, &val, &frac); e != ReadError::kNone) return e;
          if (!iv->Add(Unit::kMonth, val, frac)) return ReadError::kFieldOverflow;
          if (s.empty()) return ReadError::kNone;
          if (s[0] == 'T') {
            date_part = false;
            have_field = false;
            s.remove_prefix(1);
            continue;
          }
          if (s[0] != '-') return ReadError::kBadFormat;
          s.remove_prefix(1);
          if (ReadError e = ReadIsoNumber(&s, &val, &frac); e != ReadError::kNone) return e;
          if (!iv->Add(Unit::kDay, val, frac)) return ReadError::kFieldOverflow;
          if (s.empty()) return ReadError::kNone;
          if (s[0] == 'T') {
            date_part = false;
            have_field = false;
            s.remove_prefix(1);
            continue;
          }
          return ReadError::kBadFormat;
        }
        default:
          return ReadError::kBadFormat;
      }
    } else {
      switch (unit) {
        case 'H':
          if (!iv->AddMicros(val, frac, 3600 * kSec)) return ReadError::kFieldOverflow;
          break;
        case 'M':
          if (!iv->AddMicros(val, frac, 60 * kSec)) return ReadError::kFieldOverflow;
          break;
        case 'S':
          if (!iv->AddMicros(val, frac, kSec)) return ReadError::kFieldOverflow;
          break;
        case '\0':
          if (IsoIntegerWidth(start) == 6 && !have_field) {  // HHMMSS
            return overflow_unless(iv->AddMicros(val / 10000, 0, 3600 * kSec) &&
                                   iv->AddMicros(val / 100 % 100, 0, 60 * kSec) &&
                                   iv->AddMicros(val % 100, 0, kSec) &&
                                   iv->AddFractionMicros(frac, 1));
          }
          [[fallthrough]];
        case ':': {  // HH:MM:SS
          if (have_field) return ReadError::kBadFormat;
          if (!iv->AddMicros(val, frac, 3600 * kSec)) return ReadError::kFieldOverflow;
          if (unit == '\0') return ReadError::kNone;
          if (ReadError e = ReadIsoNumber(&s, &val, &frac); e != ReadError::kNone) return e;
          if (!iv->AddMicros(val, frac, 60 * kSec)) return ReadError::kFieldOverflow;
          if (s.empty()) return ReadError::kNone;
          if (s[0] != ':') return ReadError::kBadFormat;
          s.remove_prefix(1);
          if (ReadError e = ReadIsoNumber(&s, &val, &frac); e != ReadError::kNone) return e;
          if (!iv->AddMicros(val, frac, kSec)) return ReadError::kFieldOverflow;
          return s.empty() ? ReadError::kNone : ReadError::kBadFormat;
        }
        default:
          return ReadError::kBadFormat;
      }
    }
    have_field = true;
  }
  return ReadError::kNone;
}

}  // namespace

std::optional<int64_t> RoundMicrosToPrecision(int64_t micros, int precision) {
  uint64_t scale = 1;
  for (int i = precision; i < 6; ++i) scale *= 10;
  // Halves away from zero, over the magnitude (which INT64_MIN's fits).
  const uint64_t m =
      micros >= 0 ? static_cast<uint64_t>(micros) : 0 - static_cast<uint64_t>(micros);
  const uint64_t rounded = (m + scale / 2) / scale * scale;
  if (rounded > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  return micros >= 0 ? static_cast<int64_t>(rounded) : -static_cast<int64_t>(rounded);
}

Status AdjustIntervalToTypmod(Interval* iv, int range, int precision) {
  constexpr int64_t kHourMicros = 3600000000, kMinuteMicros = 60000000;
  if (range == kYearBit) {
    iv->months = iv->months / 12 * 12;
    iv->days = 0;
    iv->micros = 0;
  } else if (range == kMonthBit || range == (kYearBit | kMonthBit)) {
    iv->days = 0;
    iv->micros = 0;
  } else if (range == kDayBit) {
    iv->micros = 0;
  } else if (range == kHourBit || range == (kDayBit | kHourBit)) {
    iv->micros = iv->micros / kHourMicros * kHourMicros;
  } else if (range == kMinuteBit || range == (kDayBit | kHourBit | kMinuteBit) ||
             range == (kHourBit | kMinuteBit)) {
    iv->micros = iv->micros / kMinuteMicros * kMinuteMicros;
  } else if (range != kIntervalFullRange && range != kSecondBit &&
             range != (kDayBit | kHourBit | kMinuteBit | kSecondBit) &&
             range != (kHourBit | kMinuteBit | kSecondBit) && range != (kMinuteBit | kSecondBit)) {
    return Status::InvalidArgument("unrecognized interval field restriction " +
                                   std::to_string(range));
  }
  if (precision != kIntervalFullPrecision) {
    if (precision < 0 || precision > 6) {
      return Status::InvalidArgument("interval(" + std::to_string(precision) +
                                     ") precision must be between 0 and 6");
    }
    const std::optional<int64_t> rounded = RoundMicrosToPrecision(iv->micros, precision);
    if (!rounded) return Status::InvalidArgument("interval out of range");
    iv->micros = *rounded;
  }
  return Status::OK();
}

Status ParseIntervalTypmod(std::string_view text, int range, int precision, Interval* out) {
  std::vector<Field> fields;
  IntervalParts parts;
  ReadError e = ReadError::kBadFormat;
  if (SplitIntervalFields(text, &fields)) {
    if (g_interval_style == IntervalStyle::kSqlStandard && !fields.empty() &&
        fields[0].text[0] == '-' &&
        std::none_of(fields.begin() + 1, fields.end(),
                     [](const Field& f) { return f.text[0] == '-' || f.text[0] == '+'; })) {
      // SQL's reading: the leading sign is every field's.
      for (Field& f : fields) {
        if (f.kind == FieldKind::kWord || f.text[0] == '-') continue;
        f.text = "-" + f.text;
        f.kind = FieldKind::kSigned;
      }
    }
    e = ReadIntervalFields(fields, range, &parts);
  }
  if (e == ReadError::kBadFormat) {
    parts = IntervalParts();
    e = ReadIsoInterval(text, &parts);
  }
  const std::string quoted = "\"" + std::string(text) + "\"";
  if (e == ReadError::kBadFormat) {
    return Status::InvalidArgument("invalid input syntax for type interval: " + quoted);
  }
  if (e == ReadError::kFieldOverflow) {
    return Status::InvalidArgument("interval field value out of range: " + quoted);
  }
  int32_t months;
  if (__builtin_mul_overflow(parts.years, 12, &months) ||
      __builtin_add_overflow(months, parts.months, &months)) {
    return Status::InvalidArgument("interval out of range");
  }
  Interval iv{months, parts.days, parts.micros};
  SLUICE_RETURN_IF_ERROR(AdjustIntervalToTypmod(&iv, range, precision));
  *out = iv;
  return Status::OK();
}

bool ParseInterval(std::string_view s, Interval* out) {
  return ParseIntervalTypmod(s, kIntervalFullRange, kIntervalFullPrecision, out).ok();
}

Interval TimestampAge(int64_t t1, int64_t t2) {
  struct Fields {
    int64_t year, mon, mday, hour, min, sec, usec;
  };
  auto fields = [](int64_t t) {
    const int64_t day = FloorDiv(t, kMicrosPerDay);
    const int64_t tod = t - day * kMicrosPerDay;
    int64_t y = 0;
    unsigned m = 0, d = 0;
    CivilFromDays(day, &y, &m, &d);
    return Fields{
        y, m, d, tod / 3600000000, tod / 60000000 % 60, tod / 1000000 % 60, tod % 1000000};
  };
  const Fields a = fields(t1), b = fields(t2);
  Fields r{a.year - b.year, a.mon - b.mon, a.mday - b.mday, a.hour - b.hour,
           a.min - b.min,   a.sec - b.sec, a.usec - b.usec};
  const bool flip = t1 < t2;  // borrow over the positive difference
  auto negate = [&] {
    for (int64_t* f : {&r.year, &r.mon, &r.mday, &r.hour, &r.min, &r.sec, &r.usec}) *f = -*f;
  };
  if (flip) negate();
  auto borrow = [](int64_t* f, int64_t* next, int64_t unit) {
    while (*f < 0) {
      *f += unit;
      --*next;
    }
  };
  borrow(&r.usec, &r.sec, 1000000);
  borrow(&r.sec, &r.min, 60);
  borrow(&r.min, &r.hour, 60);
  borrow(&r.hour, &r.mday, 24);
  const Fields& earlier = flip ? a : b;
  borrow(&r.mday, &r.mon, DaysInMonth(earlier.year, static_cast<unsigned>(earlier.mon)));
  borrow(&r.mon, &r.year, 12);
  if (flip) negate();
  Interval out;
  out.months = static_cast<int32_t>(r.year * 12 + r.mon);
  out.days = static_cast<int32_t>(r.mday);
  out.micros = ((r.hour * 60 + r.min) * 60 + r.sec) * 1000000 + r.usec;
  return out;
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

std::string FormatInterval(const Interval& iv, IntervalStyle style) {
  // Its fields as PostgreSQL splits them: each keeps the sign of what it
  // came from (months, days, microseconds).
  const int64_t year = iv.months / 12, mon = iv.months % 12, mday = iv.days;
  const int64_t hour = iv.micros / 3600000000LL;
  const int64_t min = iv.micros / 60000000LL % 60, sec = iv.micros / 1000000 % 60;
  const int64_t fsec = iv.micros % 1000000;
  // Seconds and their fraction, without trailing zeros; two digits at least
  // if `pad`.
  auto seconds = [](int64_t s, int64_t f, bool pad) {
    char buf[32];
    int n = std::snprintf(buf, sizeof buf, pad ? "%02lld" : "%lld",
                          static_cast<long long>(s < 0 ? -s : s));
    if (f != 0) {
      n += std::snprintf(buf + n, sizeof buf - static_cast<size_t>(n), ".%06lld",
                         static_cast<long long>(f < 0 ? -f : f));
      while (buf[n - 1] == '0') buf[--n] = '\0';
    }
    return std::string(buf, static_cast<size_t>(n));
  };
  auto abs64 = [](int64_t v) {
    return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  };
  const bool has_time = hour != 0 || min != 0 || sec != 0 || fsec != 0;
  std::string out;
  char buf[96];
  switch (style) {
    case IntervalStyle::kSqlStandard: {
      const bool negative = year < 0 || mon < 0 || mday < 0 || iv.micros < 0;
      const bool positive = year > 0 || mon > 0 || mday > 0 || iv.micros > 0;
      const bool year_month = year != 0 || mon != 0;
      const bool day_time = mday != 0 || has_time;
      const bool standard = !(negative && positive) && !(year_month && day_time);
      if (!negative && !positive) return "0";
      if (!standard) {
        // Mixed signs or both kinds of fields: every part signed.
        std::snprintf(buf, sizeof buf,
                      "%c%llu-%llu %c%llu %c%llu:%02llu:", year < 0 || mon < 0 ? '-' : '+',
                      static_cast<unsigned long long>(abs64(year)),
                      static_cast<unsigned long long>(abs64(mon)), mday < 0 ? '-' : '+',
                      static_cast<unsigned long long>(abs64(mday)), iv.micros < 0 ? '-' : '+',
                      static_cast<unsigned long long>(abs64(hour)),
                      static_cast<unsigned long long>(abs64(min)));
        return buf + seconds(sec, fsec, true);
      }
      const std::string sign = negative ? "-" : "";
      if (year_month) {
        return sign + std::to_string(abs64(year)) + "-" + std::to_string(abs64(mon));
      }
      std::snprintf(buf, sizeof buf, "%llu:%02llu:", static_cast<unsigned long long>(abs64(hour)),
                    static_cast<unsigned long long>(abs64(min)));
      out = sign + (mday != 0 ? std::to_string(abs64(mday)) + " " : "") + buf;
      return out + seconds(sec, fsec, true);
    }
    case IntervalStyle::kIso8601: {
      if (year == 0 && mon == 0 && mday == 0 && !has_time) return "PT0S";
      out = "P";
      auto part = [&](int64_t v, char unit) {
        if (v != 0) out += std::to_string(v) + unit;
      };
      part(year, 'Y');
      part(mon, 'M');
      part(mday, 'D');
      if (has_time) out += 'T';
      part(hour, 'H');
      part(min, 'M');
      if (sec != 0 || fsec != 0) {
        if (sec < 0 || fsec < 0) out += '-';
        out += seconds(sec, fsec, false) + "S";
      }
      return out;
    }
    case IntervalStyle::kPostgresVerbose: {
      // "@ 1 year 2 mons -3 days ago": the first nonzero field's sign
      // becomes "ago", and the others are printed relative to it.
      bool zero = true, before = false;
      out = "@";
      auto part = [&](int64_t v, const char* unit) {
        if (v == 0) return;
        if (zero) {
          before = v < 0;
          v = v < 0 ? -v : v;
        } else if (before) {
          v = -v;
        }
        out += " " + std::to_string(v) + " " + unit + (v == 1 ? "" : "s");
        zero = false;
      };
      part(year, "year");
      part(mon, "mon");
      part(mday, "day");
      part(hour, "hour");
      part(min, "min");
      if (sec != 0 || fsec != 0) {
        out += ' ';
        if (sec < 0 || (sec == 0 && fsec < 0)) {
          if (zero) {
            before = true;
          } else if (!before) {
            out += '-';
          }
        } else if (before) {
          out += '-';
        }
        out +=
            seconds(sec, fsec, false) + " sec" + ((sec != 1 && sec != -1) || fsec != 0 ? "s" : "");
        zero = false;
      }
      if (zero) out += " 0";
      if (before) out += " ago";
      return out;
    }
    case IntervalStyle::kPostgres:
      break;
  }
  // PostgreSQL's default style: each field with its sign; after a negative
  // field, a positive one shows "+"; the clock has hours beyond 24.
  bool before = false;
  auto part = [&](int64_t v, const char* unit) {
    if (v == 0) return;
    if (!out.empty()) out += ' ';
    out += (before && v > 0 ? "+" : "") + std::to_string(v) + " " + unit + (v != 1 ? "s" : "");
    before = v < 0;
  };
  part(year, "year");
  part(mon, "mon");
  part(mday, "day");
  if (out.empty() || has_time) {
    const bool minus = iv.micros < 0;
    std::snprintf(buf, sizeof buf, "%s%s%02llu:%02llu:", out.empty() ? "" : " ",
                  minus    ? "-"
                  : before ? "+"
                           : "",
                  static_cast<unsigned long long>(abs64(hour)),
                  static_cast<unsigned long long>(abs64(min)));
    out += buf + seconds(sec, fsec, true);
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
