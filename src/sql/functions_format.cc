// PostgreSQL's data type formatting functions (section 9.8 of its manual):
// to_char of numbers, timestamps, dates and intervals, and their inverses
// to_number, to_date and to_timestamp, with PostgreSQL's template patterns,
// modifiers, spacing and errors, in the C locale (English names, `.` and
// `,`, a blank currency symbol), as the test clusters run.
//
// A template is read into a list of FormatNodes once per call: a pattern
// (a keyword with its FM/TM/TH/th/SP modifiers) or a literal character.
// Date templates and number templates have their own keywords; both quote
// text in double quotes, where a backslash quotes the next character.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "sql/datetime.h"
#include "sql/functions_internal.h"
#include "sql/sql_text.h"

namespace sluice::sql {
namespace {

SqlType Text() { return SqlType::Varchar(); }

Status FormatError(std::string msg) { return Status::InvalidArgument(std::move(msg)); }

// The Julian day of a calendar date, as PostgreSQL computes it (months and
// days out of range roll over, which intervals rely on).
int64_t Date2J(int64_t y, int64_t m, int64_t d) {
  if (m > 2) {
    m += 1;
    y += 4800;
  } else {
    m += 13;
    y += 4799;
  }
  const int64_t century = y / 100;
  int64_t julian = y * 365 - 32167;
  julian += y / 4 - century + century / 4;
  julian += 7834 * m / 256 + d;
  return julian;
}
constexpr int64_t kUnixEpochJulian = 2440588;  // 1970-01-01
// PostgreSQL's timestamps, in days from 1970-01-01: from 4714-11-24 BC
// (Julian day 0) to before 294277-01-01.
constexpr int64_t kMinTimestampDay = -kUnixEpochJulian;
constexpr int64_t kEndTimestampDay = 109203528 - kUnixEpochJulian;

// Day of the week of a Julian day, 0 = Sunday.
int J2Day(int64_t j) {
  int64_t d = (j + 1) % 7;
  return static_cast<int>(d < 0 ? d + 7 : d);
}

// ISO 8601 week-numbering, PostgreSQL's way (also applied, as it does, to
// the fields of an interval).
int64_t IsoWeek1Monday(int64_t year) {
  const int64_t day4 = Date2J(year, 1, 4);
  return day4 - J2Day(day4 - 1);
}
int64_t IsoYear(int64_t y, int64_t m, int64_t d) {
  const int64_t dayn = Date2J(y, m, d);
  if (dayn < IsoWeek1Monday(y)) return y - 1;
  if ((dayn - IsoWeek1Monday(y)) / 7 + 1 >= 52 && dayn >= IsoWeek1Monday(y + 1)) return y + 1;
  return y;
}
int64_t IsoWeek(int64_t y, int64_t m, int64_t d) {
  const int64_t dayn = Date2J(y, m, d);
  return (dayn - IsoWeek1Monday(IsoYear(y, m, d))) / 7 + 1;
}
int64_t IsoYearDay(int64_t y, int64_t m, int64_t d) {
  return Date2J(y, m, d) - IsoWeek1Monday(IsoYear(y, m, d)) + 1;
}
bool IsLeap(int64_t y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }
int DaysInMonth(int64_t y, int64_t m) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",  "Jul",
                               "Aug", "Sep", "Oct", "Nov", "Dec", nullptr};
const char* const kMonthsFull[] = {"January",  "February", "March",  "April",     "May",
                                   "June",     "July",     "August", "September", "October",
                                   "November", "December", nullptr};
const char* const kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", nullptr};
const char* const kDaysFull[] = {"Sunday",   "Monday", "Tuesday",  "Wednesday",
                                 "Thursday", "Friday", "Saturday", nullptr};
// Roman month numbers, December first (PostgreSQL's order).
const char* const kRomanMonthsUpper[] = {"XII", "XI", "X",   "IX", "VIII", "VII",  "VI",
                                         "V",   "IV", "III", "II", "I",    nullptr};
const char* const kRomanMonthsLower[] = {"xii", "xi", "x",   "ix", "viii", "vii",  "vi",
                                         "v",   "iv", "iii", "ii", "i",    nullptr};
const char* const kAmPm[] = {"am", "pm", "AM", "PM", nullptr};
const char* const kAmPmLong[] = {"a.m.", "p.m.", "A.M.", "P.M.", nullptr};
const char* const kAdBc[] = {"ad", "bc", "AD", "BC", nullptr};
const char* const kAdBcLong[] = {"a.d.", "b.c.", "A.D.", "B.C.", nullptr};

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// printf into a std::string.
template <typename... Args>
std::string Printf(const char* fmt, Args... args) {
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, fmt, args...);
  if (n < 0) return "";
  if (static_cast<size_t>(n) < sizeof buf) return std::string(buf, static_cast<size_t>(n));
  std::string s(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(s.data(), s.size(), fmt, args...);
  s.resize(static_cast<size_t>(n));
  return s;
}

// ---- templates.

enum class NodeType : uint8_t { kAction, kChar, kSpace, kSeparator };

// Date/time patterns (PostgreSQL's keyword list: the longer of two
// keywords that share a prefix comes first, so that it wins).
// clang-format off
enum Dch : uint8_t {
  kA_D, kA_M, kAD, kAM, kB_C, kBC, kCC, kDAY, kDDD, kDD, kDY, kDay, kDy, kD, kFF1, kFF2, kFF3,
  kFF4, kFF5, kFF6, kFX, kHH24, kHH12, kHH, kIDDD, kID, kIW, kIYYY, kIYY, kIY, kI, kJ, kMI, kMM,
  kMONTH, kMON, kMS, kMonth, kMon, kOF, kP_M, kPM, kQ, kRM, kSSSS, kSS, kTZH, kTZM, kTZ, kUS, kWW,
  kW, kY_YYY, kYYYY, kYYY, kYY, kY, ka_d, ka_m, kad, kam, kb_c, kbc, kday, kdy, kmonth, kmon, kp_m,
  kpm, krm, ktz
};
// clang-format on
// Which calendar a parsed field belongs to: mixing them is an error.
enum class DateMode : uint8_t { kNone, kGregorian, kIsoWeek };

// A template pattern: its text, as matched (case matters), and for
// to_timestamp whether it reads a number and which calendar it belongs to.
struct Keyword {
  const char* name;
  uint8_t len;
  uint8_t id;
  bool is_digit;  // a numeric field (for to_timestamp's field widths)
  DateMode mode;
};

constexpr DateMode G = DateMode::kGregorian, I = DateMode::kIsoWeek, N = DateMode::kNone;
// clang-format off
const Keyword kDateKeywords[] = {
    {"A.D.", 4, kA_D, false, N}, {"A.M.", 4, kA_M, false, N}, {"AD", 2, kAD, false, N},
    {"AM", 2, kAM, false, N}, {"B.C.", 4, kB_C, false, N}, {"BC", 2, kBC, false, N},
    {"CC", 2, kCC, true, N}, {"DAY", 3, kDAY, false, N}, {"DDD", 3, kDDD, true, G},
    {"DD", 2, kDD, true, G}, {"DY", 2, kDY, false, N}, {"Day", 3, kDay, false, N},
    {"Dy", 2, kDy, false, N}, {"D", 1, kD, true, G}, {"FF1", 3, kFF1, true, N},
    {"FF2", 3, kFF2, true, N}, {"FF3", 3, kFF3, true, N}, {"FF4", 3, kFF4, true, N},
    {"FF5", 3, kFF5, true, N}, {"FF6", 3, kFF6, true, N}, {"FX", 2, kFX, false, N},
    {"HH24", 4, kHH24, true, N}, {"HH12", 4, kHH12, true, N}, {"HH", 2, kHH, true, N},
    {"IDDD", 4, kIDDD, true, I}, {"ID", 2, kID, true, I}, {"IW", 2, kIW, true, I},
    {"IYYY", 4, kIYYY, true, I}, {"IYY", 3, kIYY, true, I}, {"IY", 2, kIY, true, I},
    {"I", 1, kI, true, I}, {"J", 1, kJ, true, N}, {"MI", 2, kMI, true, N}, {"MM", 2, kMM, true, G},
    {"MONTH", 5, kMONTH, false, G}, {"MON", 3, kMON, false, G}, {"MS", 2, kMS, true, N},
    {"Month", 5, kMonth, false, G}, {"Mon", 3, kMon, false, G}, {"OF", 2, kOF, false, N},
    {"P.M.", 4, kP_M, false, N}, {"PM", 2, kPM, false, N}, {"Q", 1, kQ, true, N},
    {"RM", 2, kRM, false, G}, {"SSSSS", 5, kSSSS, true, N}, {"SSSS", 4, kSSSS, true, N},
    {"SS", 2, kSS, true, N}, {"TZH", 3, kTZH, false, N}, {"TZM", 3, kTZM, true, N},
    {"TZ", 2, kTZ, false, N}, {"US", 2, kUS, true, N}, {"WW", 2, kWW, true, G},
    {"W", 1, kW, true, G}, {"Y,YYY", 5, kY_YYY, true, G}, {"YYYY", 4, kYYYY, true, G},
    {"YYY", 3, kYYY, true, G}, {"YY", 2, kYY, true, G}, {"Y", 1, kY, true, G},
    {"a.d.", 4, ka_d, false, N}, {"a.m.", 4, ka_m, false, N}, {"ad", 2, kad, false, N},
    {"am", 2, kam, false, N}, {"b.c.", 4, kb_c, false, N}, {"bc", 2, kbc, false, N},
    {"cc", 2, kCC, true, N}, {"day", 3, kday, false, N}, {"ddd", 3, kDDD, true, G},
    {"dd", 2, kDD, true, G}, {"dy", 2, kdy, false, N}, {"d", 1, kD, true, G},
    {"ff1", 3, kFF1, true, N}, {"ff2", 3, kFF2, true, N}, {"ff3", 3, kFF3, true, N},
    {"ff4", 3, kFF4, true, N}, {"ff5", 3, kFF5, true, N}, {"ff6", 3, kFF6, true, N},
    {"fx", 2, kFX, false, N}, {"hh24", 4, kHH24, true, N}, {"hh12", 4, kHH12, true, N},
    {"hh", 2, kHH, true, N}, {"iddd", 4, kIDDD, true, I}, {"id", 2, kID, true, I},
    {"iw", 2, kIW, true, I}, {"iyyy", 4, kIYYY, true, I}, {"iyy", 3, kIYY, true, I},
    {"iy", 2, kIY, true, I}, {"i", 1, kI, true, I}, {"j", 1, kJ, true, N}, {"mi", 2, kMI, true, N},
    {"mm", 2, kMM, true, G}, {"month", 5, kmonth, false, G}, {"mon", 3, kmon, false, G},
    {"ms", 2, kMS, true, N}, {"of", 2, kOF, false, N}, {"p.m.", 4, kp_m, false, N},
    {"pm", 2, kpm, false, N}, {"q", 1, kQ, true, N}, {"rm", 2, krm, false, G},
    {"sssss", 5, kSSSS, true, N}, {"ssss", 4, kSSSS, true, N}, {"ss", 2, kSS, true, N},
    {"tzh", 3, kTZH, false, N}, {"tzm", 3, kTZM, true, N}, {"tz", 2, ktz, false, N},
    {"us", 2, kUS, true, N}, {"ww", 2, kWW, true, G}, {"w", 1, kW, true, G},
    {"y,yyy", 5, kY_YYY, true, G}, {"yyyy", 4, kYYYY, true, G}, {"yyy", 3, kYYY, true, G},
    {"yy", 2, kYY, true, G}, {"y", 1, kY, true, G},
};
// clang-format on

// Number patterns.
// clang-format off
enum Num : uint8_t {
  kComma, kDec, k0, k9, kB, kC, kNumD, kE, kFM, kG, kL, kNumMI, kPL, kPR, kRN, kSG, kSP, kS, kTH,
  kV, krn, kth
};
// clang-format on
// clang-format off
const Keyword kNumKeywords[] = {
    {",", 1, kComma, false, N}, {".", 1, kDec, false, N}, {"0", 1, k0, false, N},
    {"9", 1, k9, false, N}, {"B", 1, kB, false, N}, {"C", 1, kC, false, N},
    {"D", 1, kNumD, false, N}, {"EEEE", 4, kE, false, N}, {"FM", 2, kFM, false, N},
    {"G", 1, kG, false, N}, {"L", 1, kL, false, N}, {"MI", 2, kNumMI, false, N},
    {"PL", 2, kPL, false, N}, {"PR", 2, kPR, false, N}, {"RN", 2, kRN, false, N},
    {"SG", 2, kSG, false, N}, {"SP", 2, kSP, false, N}, {"S", 1, kS, false, N},
    {"TH", 2, kTH, false, N}, {"V", 1, kV, false, N}, {"b", 1, kB, false, N},
    {"c", 1, kC, false, N}, {"d", 1, kNumD, false, N}, {"eeee", 4, kE, false, N},
    {"fm", 2, kFM, false, N}, {"g", 1, kG, false, N}, {"l", 1, kL, false, N},
    {"mi", 2, kNumMI, false, N}, {"pl", 2, kPL, false, N}, {"pr", 2, kPR, false, N},
    {"rn", 2, krn, false, N}, {"sg", 2, kSG, false, N}, {"sp", 2, kSP, false, N},
    {"s", 1, kS, false, N}, {"th", 2, kth, false, N}, {"v", 1, kV, false, N},
};
// clang-format on

// Modifiers of date patterns.
constexpr int kSuffixFM = 1, kSuffixTM = 2, kSuffixTH = 4, kSuffixth = 8, kSuffixSP = 16;

// One element of a parsed template: a pattern with its modifiers, or one
// literal character (a space, a separator, or other text).
struct FormatNode {
  NodeType type = NodeType::kChar;
  const Keyword* key = nullptr;  // kAction
  int suffix = 0;
  std::string text;  // the literal character (one UTF-8 character)
};

template <size_t K>
const Keyword* FindKeyword(std::string_view s, const Keyword (&table)[K]) {
  // The first keyword, in table order, that starts the text; the table
  // lists the longer of two alike keywords first.
  for (const Keyword& k : table) {
    if (k.name[0] != s[0]) continue;
    if (s.substr(0, k.len) == std::string_view(k.name, k.len)) return &k;
  }
  return nullptr;
}

size_t CharLen(std::string_view s, size_t i) {
  size_t n = 1;
  while (i + n < s.size() && (static_cast<uint8_t>(s[i + n]) & 0xC0) == 0x80) ++n;
  return n;
}

// ASCII punctuation: what a date template treats as a separator.
bool IsSeparator(char c) {
  return c > 0x20 && c < 0x7F && !std::isalnum(static_cast<unsigned char>(c));
}

template <size_t K>
std::vector<FormatNode> ParseTemplate(std::string_view s, const Keyword (&table)[K], bool date) {
  std::vector<FormatNode> out;
  size_t i = 0;
  while (i < s.size()) {
    int suffix = 0;
    if (date && s.size() - i >= 2) {
      std::string_view p = s.substr(i, 2);
      if (p == "FM" || p == "fm")
        suffix = kSuffixFM, i += 2;
      else if (p == "TM" || p == "tm")
        suffix = kSuffixTM, i += 2;
    }
    if (i >= s.size()) break;
    if (const Keyword* k = FindKeyword(s.substr(i), table)) {
      FormatNode n;
      n.type = NodeType::kAction;
      n.key = k;
      i += k->len;
      if (date && s.size() - i >= 2) {
        std::string_view p = s.substr(i, 2);
        if (p == "TH")
          suffix |= kSuffixTH, i += 2;
        else if (p == "th")
          suffix |= kSuffixth, i += 2;
        else if (p == "SP")
          suffix |= kSuffixSP, i += 2;
      }
      n.suffix = suffix;
      out.push_back(std::move(n));
      continue;
    }
    if (s[i] == '"') {
      // Quoted text: every character literal; a backslash quotes the next.
      ++i;
      while (i < s.size()) {
        if (s[i] == '"') {
          ++i;
          break;
        }
        if (s[i] == '\\' && i + 1 < s.size()) ++i;
        size_t len = CharLen(s, i);
        FormatNode n;
        n.type = NodeType::kChar;
        n.text = std::string(s.substr(i, len));
        out.push_back(std::move(n));
        i += len;
      }
      continue;
    }
    // Outside quotes, a backslash is special only before a double quote.
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '"') ++i;
    size_t len = CharLen(s, i);
    FormatNode n;
    n.type = date && IsSeparator(s[i])                        ? NodeType::kSeparator
             : std::isspace(static_cast<unsigned char>(s[i])) ? NodeType::kSpace
                                                              : NodeType::kChar;
    n.text = std::string(s.substr(i, len));
    out.push_back(std::move(n));
    i += len;
  }
  return out;
}

// A template read once per thread, not once per row: a view formats its
// rows with one template or a few. `parse` turns the text into a Parsed;
// each call site (each Parse type) has its own few entries.
// REQUIRES: the reference returned is not held across another call of the
// same site on the thread (no caller nests them).
template <typename Parsed, typename Parse>
const Parsed& Cached(std::string_view fmt, const Parse& parse) {
  struct Entry {
    std::string text;
    Parsed parsed;
  };
  constexpr size_t kEntries = 8;
  thread_local std::vector<Entry> entries;
  thread_local size_t next = 0;
  for (const Entry& e : entries) {
    if (e.text == fmt) return e.parsed;
  }
  if (entries.size() < kEntries) {
    entries.push_back(Entry{std::string(fmt), parse(fmt)});
    return entries.back().parsed;
  }
  Entry& e = entries[next++ % kEntries];
  e.text = std::string(fmt);
  e.parsed = parse(fmt);
  return e.parsed;
}

const std::vector<FormatNode>& DateTemplate(std::string_view fmt) {
  return Cached<std::vector<FormatNode>>(
      fmt, [](std::string_view f) { return ParseTemplate(f, kDateKeywords, true); });
}

// The English ordinal suffix of the number that ends `num`.
Status OrdinalSuffix(const std::string& num, bool upper, std::string* out) {
  if (num.empty() || !std::isdigit(static_cast<unsigned char>(num.back()))) {
    return Status::InvalidArgument("\"" + num + "\" is not a number");
  }
  char last = num.back();
  if (num.size() > 1 && num[num.size() - 2] == '1') last = '0';  // the teens
  const char* s = last == '1' ? "st" : last == '2' ? "nd" : last == '3' ? "rd" : "th";
  *out = upper ? Upper(s) : s;
  return Status::OK();
}

// ---- to_char of timestamps, dates and intervals.

// A moment taken apart, as PostgreSQL's struct tm: for a timestamp its
// calendar fields (year <= 0 is BC: 0 is 1 BC); for an interval its fields
// (years, months, days, hours, ... each with the sign of its part).
struct Tm {
  int64_t year = 0, mon = 0, mday = 0, hour = 0, min = 0, sec = 0, usec = 0;
  int64_t wday = 0, yday = 0;
  const char* zone = nullptr;  // a zone's name, for TZ; none without time zone
};

Tm TimestampTm(int64_t ts) {
  Tm tm;
  int64_t days = ts / kMicrosPerDay - (ts % kMicrosPerDay < 0);
  int64_t clock = ts - days * kMicrosPerDay;
  unsigned m, d;
  CivilFromDays(days, &tm.year, &m, &d);
  tm.mon = m;
  tm.mday = d;
  tm.hour = clock / 3600000000LL;
  tm.min = clock / 60000000 % 60;
  tm.sec = clock / 1000000 % 60;
  tm.usec = clock % 1000000;
  const int64_t j = days + kUnixEpochJulian;
  tm.wday = J2Day(j);
  tm.yday = j - Date2J(tm.year, 1, 1) + 1;
  return tm;
}

Tm IntervalTm(const Interval& iv) {
  Tm tm;
  tm.year = iv.months / 12;
  tm.mon = iv.months % 12;
  tm.mday = iv.days;
  int64_t t = iv.micros;
  tm.hour = t / 3600000000LL;
  t -= tm.hour * 3600000000LL;
  tm.min = t / 60000000;
  t -= tm.min * 60000000;
  tm.sec = t / 1000000;
  tm.usec = t - tm.sec * 1000000;
  tm.yday = (tm.year * 12 + tm.mon) * 30 + tm.mday;
  return tm;
}

Status NotForInterval() {
  return FormatError("invalid format specification for an interval value");
}

// Writes `tm` by the template's date patterns.
Status FormatDateTime(const std::vector<FormatNode>& nodes, const Tm& tm, bool interval,
                      std::string* out) {
  std::string& s = *out;
  const bool pm = tm.hour % 24 >= 12;
  const int64_t adj_year = interval ? tm.year : (tm.year <= 0 ? 1 - tm.year : tm.year);
  auto iso_year = [&] {
    const int64_t y = IsoYear(tm.year, tm.mon, tm.mday);
    return interval ? y : (y <= 0 ? 1 - y : y);
  };
  for (const FormatNode& n : nodes) {
    if (n.type != NodeType::kAction) {
      s += n.text;
      continue;
    }
    const bool fm = n.suffix & kSuffixFM, tmode = n.suffix & kSuffixTM;
    // A number: zero-padded to `width` (one more if negative) unless FM,
    // then an ordinal suffix if asked.
    // `sign_width`: a negative number gets one more place for its sign.
    auto number = [&](int64_t v, int width, bool sign_width = true) -> Status {
      std::string text = Printf("%0*lld", fm ? 0 : (v >= 0 || !sign_width ? width : width + 1),
                                static_cast<long long>(v));
      if (n.suffix & (kSuffixTH | kSuffixth)) {
        std::string th;
        SLUICE_RETURN_IF_ERROR(OrdinalSuffix(text, n.suffix & kSuffixTH, &th));
        text += th;
      }
      s += text;
      return Status::OK();
    };
    auto plain = [&](int64_t v) -> Status {  // no padding
      std::string text = std::to_string(v);
      if (n.suffix & (kSuffixTH | kSuffixth)) {
        std::string th;
        SLUICE_RETURN_IF_ERROR(OrdinalSuffix(text, n.suffix & kSuffixTH, &th));
        text += th;
      }
      s += text;
      return Status::OK();
    };
    // A name padded to 9 characters unless FM or TM.
    auto name = [&](std::string v) {
      if (!fm && !tmode && v.size() < 9) v.resize(9, ' ');
      s += v;
    };
    const int id = n.key->id;
    switch (id) {
      case kA_M:
      case kP_M:
        s += pm ? "P.M." : "A.M.";
        break;
      case kAM:
      case kPM:
        s += pm ? "PM" : "AM";
        break;
      case ka_m:
      case kp_m:
        s += pm ? "p.m." : "a.m.";
        break;
      case kam:
      case kpm:
        s += pm ? "pm" : "am";
        break;
      case kHH:
      case kHH12:
        SLUICE_RETURN_IF_ERROR(number(tm.hour % 12 == 0 ? 12 : tm.hour % 12, 2));
        break;
      case kHH24:
        SLUICE_RETURN_IF_ERROR(number(tm.hour, 2));
        break;
      case kMI:
        SLUICE_RETURN_IF_ERROR(number(tm.min, 2));
        break;
      case kSS:
        SLUICE_RETURN_IF_ERROR(number(tm.sec, 2));
        break;
      case kFF1:
      case kFF2:
      case kFF3:
      case kFF4:
      case kFF5:
      case kFF6:
      case kMS:
      case kUS: {
        const int digits = id == kMS ? 3 : id == kUS ? 6 : id - kFF1 + 1;
        int64_t v = tm.usec;
        for (int i = digits; i < 6; ++i) v /= 10;
        std::string text = Printf("%0*d", digits, static_cast<int>(v));
        if (n.suffix & (kSuffixTH | kSuffixth)) {
          std::string th;
          SLUICE_RETURN_IF_ERROR(OrdinalSuffix(text, n.suffix & kSuffixTH, &th));
          text += th;
        }
        s += text;
        break;
      }
      case kSSSS:
        SLUICE_RETURN_IF_ERROR(plain(tm.hour * 3600 + tm.min * 60 + tm.sec));
        break;
      case ktz:
      case kTZ:
        if (interval) return NotForInterval();
        if (tm.zone) s += id == ktz ? AsciiLower(tm.zone) : std::string(tm.zone);
        break;
      case kTZH:
        if (interval) return NotForInterval();
        s += "+00";  // the session's zone is UTC
        break;
      case kTZM:
        if (interval) return NotForInterval();
        s += "00";
        break;
      case kOF:
        if (interval) return NotForInterval();
        s += fm ? "+0" : "+00";
        break;
      case kA_D:
      case kB_C:
        if (interval) return NotForInterval();
        s += tm.year <= 0 ? "B.C." : "A.D.";
        break;
      case kAD:
      case kBC:
        if (interval) return NotForInterval();
        s += tm.year <= 0 ? "BC" : "AD";
        break;
      case ka_d:
      case kb_c:
        if (interval) return NotForInterval();
        s += tm.year <= 0 ? "b.c." : "a.d.";
        break;
      case kad:
      case kbc:
        if (interval) return NotForInterval();
        s += tm.year <= 0 ? "bc" : "ad";
        break;
      case kMONTH:
      case kMonth:
      case kmonth:
      case kMON:
      case kMon:
      case kmon: {
        if (interval) return NotForInterval();
        if (tm.mon == 0) break;
        const bool full = id == kMONTH || id == kMonth || id == kmonth;
        std::string v = (full ? kMonthsFull : kMonths)[tm.mon - 1];
        if (id == kMONTH || id == kMON) v = Upper(v);
        if (id == kmonth || id == kmon) v = AsciiLower(v);
        if (full) {
          name(v);
        } else {
          s += v;
        }
        break;
      }
      case kMM:
        SLUICE_RETURN_IF_ERROR(number(tm.mon, 2));
        break;
      case kDAY:
      case kDay:
      case kday:
      case kDY:
      case kDy:
      case kdy: {
        if (interval) return NotForInterval();
        const bool full = id == kDAY || id == kDay || id == kday;
        std::string v = (full ? kDaysFull : kDays)[tm.wday];
        if (id == kDAY || id == kDY) v = Upper(v);
        if (id == kday || id == kdy) v = AsciiLower(v);
        if (full) {
          name(v);
        } else {
          s += v;
        }
        break;
      }
      case kDDD:
        SLUICE_RETURN_IF_ERROR(number(tm.yday, 3, false));
        break;
      case kIDDD:
        SLUICE_RETURN_IF_ERROR(number(IsoYearDay(tm.year, tm.mon, tm.mday), 3, false));
        break;
      case kDD:
        SLUICE_RETURN_IF_ERROR(number(tm.mday, 2, false));
        break;
      case kD:
        if (interval) return NotForInterval();
        SLUICE_RETURN_IF_ERROR(plain(tm.wday + 1));
        break;
      case kID:
        if (interval) return NotForInterval();
        SLUICE_RETURN_IF_ERROR(plain(tm.wday == 0 ? 7 : tm.wday));
        break;
      case kWW:
        SLUICE_RETURN_IF_ERROR(number((tm.yday - 1) / 7 + 1, 2, false));
        break;
      case kIW:
        SLUICE_RETURN_IF_ERROR(number(IsoWeek(tm.year, tm.mon, tm.mday), 2, false));
        break;
      case kQ:
        if (tm.mon == 0) break;
        SLUICE_RETURN_IF_ERROR(plain((tm.mon - 1) / 3 + 1));
        break;
      case kCC: {
        const int64_t c = interval      ? tm.year / 100
                          : tm.year > 0 ? (tm.year - 1) / 100 + 1
                                        : tm.year / 100 - 1;
        if (c <= 99 && c >= -99) {
          SLUICE_RETURN_IF_ERROR(number(c, 2));
        } else {
          SLUICE_RETURN_IF_ERROR(plain(c));
        }
        break;
      }
      case kY_YYY: {
        const int64_t k = adj_year / 1000;
        std::string text = Printf("%lld,%03lld", static_cast<long long>(k),
                                  static_cast<long long>(adj_year - k * 1000));
        if (n.suffix & (kSuffixTH | kSuffixth)) {
          std::string th;
          SLUICE_RETURN_IF_ERROR(OrdinalSuffix(text, n.suffix & kSuffixTH, &th));
          text += th;
        }
        s += text;
        break;
      }
      case kYYYY:
      case kIYYY:
        SLUICE_RETURN_IF_ERROR(number(id == kYYYY ? adj_year : iso_year(), 4));
        break;
      case kYYY:
      case kIYY:
        SLUICE_RETURN_IF_ERROR(number((id == kYYY ? adj_year : iso_year()) % 1000, 3));
        break;
      case kYY:
      case kIY:
        SLUICE_RETURN_IF_ERROR(number((id == kYY ? adj_year : iso_year()) % 100, 2));
        break;
      case kY:
      case kI:
        SLUICE_RETURN_IF_ERROR(plain((id == kY ? adj_year : iso_year()) % 10));
        break;
      case kRM:
      case krm: {
        if (tm.mon == 0 && tm.year == 0) break;
        // December first; an interval of whole years counts as XII (or I
        // when negative), a negative month from December down.
        const int64_t i = tm.mon == 0  ? (tm.year >= 0 ? 0 : 11)
                          : tm.mon < 0 ? -(tm.mon + 1)
                                       : 12 - tm.mon;
        std::string v = (id == kRM ? kRomanMonthsUpper : kRomanMonthsLower)[i];
        if (!fm && v.size() < 4) v.resize(4, ' ');
        s += v;
        break;
      }
      case kW:
        SLUICE_RETURN_IF_ERROR(plain((tm.mday - 1) / 7 + 1));
        break;
      case kJ:
        SLUICE_RETURN_IF_ERROR(plain(Date2J(tm.year, tm.mon, tm.mday)));
        break;
      default:  // FX: nothing to write
        break;
    }
  }
  return Status::OK();
}

Status ToCharDateTime(const Value& fmt, const Tm& tm, bool interval, Value* out) {
  const std::string& f = fmt.string_value();
  if (f.empty()) {
    *out = Value::Null();
    return Status::OK();
  }
  std::string s;
  SLUICE_RETURN_IF_ERROR(FormatDateTime(DateTemplate(f), tm, interval, &s));
  *out = Value::String(std::move(s));
  return Status::OK();
}

// Of an infinite timestamp or date, to_char is NULL, as in PostgreSQL.
Status ToCharTimestamp(const SqlType&, const Value* a, size_t, Value* out) {
  if (IsInfiniteTimestamp(a[0].int_value())) {
    *out = Value::Null();
    return Status::OK();
  }
  return ToCharDateTime(a[1], TimestampTm(a[0].int_value()), false, out);
}
// A timestamp with time zone, in the session's zone, UTC.
Status ToCharTimestampTz(const SqlType&, const Value* a, size_t, Value* out) {
  if (IsInfiniteTimestamp(a[0].int_value())) {
    *out = Value::Null();
    return Status::OK();
  }
  Tm tm = TimestampTm(a[0].int_value());
  tm.zone = "UTC";
  return ToCharDateTime(a[1], tm, false, out);
}
// A date is a timestamp with time zone to to_char (PostgreSQL's preferred
// cast), at midnight in the session's zone, UTC.
Status ToCharDate(const SqlType&, const Value* a, size_t, Value* out) {
  const int64_t days = a[0].int_value();
  if (IsInfiniteDate(days)) {
    *out = Value::Null();
    return Status::OK();
  }
  if (days < kMinTimestampDay || days >= kEndTimestampDay) {
    return Status::Overflow("date out of range for timestamp");
  }
  Tm tm = TimestampTm(days * kMicrosPerDay);
  tm.zone = "UTC";
  return ToCharDateTime(a[1], tm, false, out);
}
Status ToCharInterval(const SqlType&, const Value* a, size_t, Value* out) {
  return ToCharDateTime(a[1], IntervalTm(a[0].interval_value()), true, out);
}
// A time of day is an interval to to_char, as in PostgreSQL.
Status ToCharTime(const SqlType&, const Value* a, size_t, Value* out) {
  return ToCharDateTime(a[1], IntervalTm(Interval{0, 0, a[0].int_value()}), true, out);
}

// ---- to_timestamp and to_date: text read by a date template.

// The fields read from the text, before they make a date and time.
struct FromChar {
  DateMode mode = DateMode::kNone;
  int hh = 0, pm = 0, mi = 0, ss = 0, ssss = 0, d = 0, dd = 0, ddd = 0, mm = 0, ms = 0;
  int year = 0, bc = 0, ww = 0, w = 0, cc = 0, j = 0, us = 0, yysz = 0, ff = 0;
  int tzsign = 0, tzh = 0, tzm = 0;
  bool clock12 = false;
};

// Reads text by a date template into FromChar, as PostgreSQL's to_date
// and to_timestamp do: outside FX mode, spaces before fields are skipped
// and one separator of the template matches one of the text or none; a
// number takes its field's width, or every digit there is before a
// separator or with FM. One reader per call, on the caller's thread.
class DateReader {
 public:
  DateReader(const std::vector<FormatNode>& nodes, const std::string& in)
      : nodes_(nodes), in_(in) {}

  Status Read(FromChar* out);

 private:
  char At(size_t i) const { return i < in_.size() ? in_[i] : '\0'; }
  static const char* Name(const FormatNode& n) { return n.key->name; }
  bool NextIsSeparator(size_t i) const;
  Status SetInt(int* dest, int value, const FormatNode& n);
  Status ParseInt(int* dest, size_t len, size_t i, int* used);
  Status Search(const char* const* names, size_t i, int* value);

  const std::vector<FormatNode>& nodes_;
  const std::string& in_;
  size_t s_ = 0;
};

// Whether the field after node i cannot be a digit, so that node i's number
// takes all the digits there are.
bool DateReader::NextIsSeparator(size_t i) const {
  const FormatNode& n = nodes_[i];
  if (n.type == NodeType::kAction && (n.suffix & (kSuffixTH | kSuffixth))) return true;
  if (i + 1 >= nodes_.size()) return true;
  const FormatNode& next = nodes_[i + 1];
  if (next.type == NodeType::kAction) return !next.key->is_digit;
  return !(next.text.size() == 1 && std::isdigit(static_cast<unsigned char>(next.text[0])));
}

Status DateReader::SetInt(int* dest, int value, const FormatNode& n) {
  if (*dest != 0 && *dest != value) {
    return FormatError(std::string("conflicting values for \"") + Name(n) +
                       "\" field in formatting string");
  }
  *dest = value;
  return Status::OK();
}

// Reads an integer of at most `len` characters (any number of them with FM
// or before a separator) for node i.
Status DateReader::ParseInt(int* dest, size_t len, size_t i, int* used) {
  const FormatNode& n = nodes_[i];
  const size_t init = s_;
  while (s_ < in_.size() && std::isspace(static_cast<unsigned char>(in_[s_]))) ++s_;
  std::string copy = in_.substr(s_, len);
  long result;
  errno = 0;
  if ((n.suffix & kSuffixFM) || NextIsSeparator(i)) {
    char* end;
    result = std::strtol(in_.c_str() + init, &end, 10);
    s_ = static_cast<size_t>(end - in_.c_str());
  } else {
    if (copy.size() < len) {
      return FormatError(std::string("source string too short for \"") + Name(n) +
                         "\" formatting field");
    }
    char* last;
    result = std::strtol(copy.c_str(), &last, 10);
    const size_t got = static_cast<size_t>(last - copy.c_str());
    if (got > 0 && got < len) {
      return FormatError("invalid value \"" + copy + "\" for \"" + Name(n) + "\"");
    }
    s_ += got;
  }
  if (s_ == init) return FormatError("invalid value \"" + copy + "\" for \"" + Name(n) + "\"");
  if (errno == ERANGE || result < INT32_MIN || result > INT32_MAX) {
    return Status::Overflow(std::string("value for \"") + Name(n) +
                            "\" in source string is out of range");
  }
  if (dest != nullptr) SLUICE_RETURN_IF_ERROR(SetInt(dest, static_cast<int>(result), n));
  if (used) *used = static_cast<int>(s_ - init);
  return Status::OK();
}

// Reads one of `names` (any case) for node i.
Status DateReader::Search(const char* const* names, size_t i, int* value) {
  for (int k = 0; names[k] != nullptr; ++k) {
    const size_t len = std::strlen(names[k]);
    if (s_ + len > in_.size()) continue;
    bool match = true;
    for (size_t c = 0; c < len && match; ++c) {
      match = std::tolower(static_cast<unsigned char>(in_[s_ + c])) ==
              std::tolower(static_cast<unsigned char>(names[k][c]));
    }
    if (match) {
      s_ += len;
      *value = k;
      return Status::OK();
    }
  }
  std::string word = in_.substr(s_);
  size_t sp = word.find_first_of(" \t\n\r\f\v");
  if (sp != std::string::npos) word.resize(sp);
  return FormatError("invalid value \"" + word + "\" for \"" + Name(nodes_[i]) + "\"");
}

Status DateReader::Read(FromChar* out) {
  bool fx = false;
  int extra_skip = 0;
  auto skip_th = [&](const FormatNode& n) {
    if (n.suffix & (kSuffixTH | kSuffixth)) {
      for (int k = 0; k < 2 && s_ < in_.size(); ++k) s_ += CharLen(in_, s_);
    }
  };
  for (size_t i = 0; i < nodes_.size() && s_ < in_.size(); ++i) {
    const FormatNode& n = nodes_[i];
    const bool is_fx = n.type == NodeType::kAction && n.key->id == kFX;
    if (!fx && !is_fx && (n.type == NodeType::kAction || i == 0)) {
      while (s_ < in_.size() && std::isspace(static_cast<unsigned char>(in_[s_]))) {
        ++s_;
        ++extra_skip;
      }
    }
    if (n.type == NodeType::kSpace || n.type == NodeType::kSeparator) {
      if (!fx) {
        // One space or separator of the template matches one of the text,
        // or nothing.
        --extra_skip;
        if (std::isspace(static_cast<unsigned char>(At(s_))) || IsSeparator(At(s_))) {
          ++s_;
          ++extra_skip;
        }
      } else {
        s_ += CharLen(in_, s_);
      }
      continue;
    }
    if (n.type != NodeType::kAction) {
      // Other text of the template skips a character, whatever it is.
      if (!fx && extra_skip > 0) {
        --extra_skip;
      } else {
        s_ += CharLen(in_, s_);
      }
      continue;
    }
    if (n.key->mode != DateMode::kNone) {
      if (out->mode == DateMode::kNone) {
        out->mode = n.key->mode;
      } else if (out->mode != n.key->mode) {
        return FormatError("invalid combination of date conventions");
      }
    }
    int value = 0, len = 0;
    switch (n.key->id) {
      case kFX:
        fx = true;
        break;
      case kA_M:
      case kP_M:
      case ka_m:
      case kp_m:
        SLUICE_RETURN_IF_ERROR(Search(kAmPmLong, i, &value));
        SLUICE_RETURN_IF_ERROR(SetInt(&out->pm, value % 2, n));
        out->clock12 = true;
        break;
      case kAM:
      case kPM:
      case kam:
      case kpm:
        SLUICE_RETURN_IF_ERROR(Search(kAmPm, i, &value));
        SLUICE_RETURN_IF_ERROR(SetInt(&out->pm, value % 2, n));
        out->clock12 = true;
        break;
      case kHH:
      case kHH12:
        SLUICE_RETURN_IF_ERROR(ParseInt(&out->hh, 2, i, nullptr));
        out->clock12 = true;
        skip_th(n);
        break;
      case kHH24:
        SLUICE_RETURN_IF_ERROR(ParseInt(&out->hh, 2, i, nullptr));
        skip_th(n);
        break;
      case kMI:
        SLUICE_RETURN_IF_ERROR(ParseInt(&out->mi, n.key->len, i, nullptr));
        skip_th(n);
        break;
      case kSS:
        SLUICE_RETURN_IF_ERROR(ParseInt(&out->ss, n.key->len, i, nullptr));
        skip_th(n);
        break;
      case kMS:
        SLUICE_RETURN_IF_ERROR(ParseInt(&out->ms, 3, i, &len));
        // 25 is 0.25 and 250 too; 025 is 0.025.
        out->ms *= len == 1 ? 100 : len == 2 ? 10 : 1;
        skip_th(n);
        break;
      case kFF1:
      case kFF2:
      case kFF3:
      case kFF4:
      case kFF5:
      case kFF6:
      case kUS: {
        if (n.key->id != kUS) out->ff = n.key->id - kFF1 + 1;
        SLUICE_RETURN_IF_ERROR(
            ParseInt(&out->us, n.key->id == kUS ? 6 : static_cast<size_t>(out->ff), i, &len));
        for (int k = len; k < 6; ++k) out->us *= 10;
        skip_th(n);
        break;
      }
      case kSSSS:
        SLUICE_RETURN_IF_ERROR(ParseInt(&out->ssss, n.key->len, i, nullptr));
        skip_th(n);
        break;
      case ktz:
      case kTZ:
      case kOF:
        return Status::Unimplemented(std::string("formatting field \"") + Name(n) +
                                     "\" is only supported in to_char");
      case kTZH:
        if (At(s_) == '+' || At(s_) == '-' || At(s_) == ' ') {
          out->tzsign = At(s_) == '-' ? -1 : +1;
          ++s_;
        } else {
          // A minus taken for a separator was the zone's sign.
          out->tzsign = extra_skip > 0 && s_ > 0 && in_[s_ - 1] == '-' ? -1 : +1;
        }
        SLUICE_RETURN_IF_ERROR(ParseInt(&out->tzh, 2, i, nullptr));
        break;
      case kTZM:
        if (!out->tzsign) out->tzsign = +1;
        SLUICE_RETURN_IF_ERROR(ParseInt(&out->tzm, 2, i, nullptr));
        break;
      case kA_D:
      case kB_C:
      case ka_d:
      case kb_c:
        SLUICE_RETURN_IF_ERROR(Search(kAdBcLong, i, &value));
        SLUICE_RETURN_IF_ERROR(SetInt(&out->bc, value % 2, n));
        break;
      case kAD:
      case kBC:
      case kad:
      case kbc:
        SLUICE_RETURN_IF_ERROR(Search(kAdBc, i, &value));
        SLUICE_RETURN_IF_ERROR(SetInt(&out->bc, value % 2, n));
        break;
      case kMONTH:
      case kMonth:
      case kmonth:
        SLUICE_RETURN_IF_ERROR(Search(kMonthsFull, i, &value));
        SLUICE_RETURN_IF_ERROR(SetInt(&out->mm, value + 1, n));
        break;
      case kMON:
      case kMon:
      case kmon:
        SLUICE_RETURN_IF_ERROR(Search(kMonths, i, &value));
        SLUICE_RETURN_IF_ERROR(SetInt(&out->mm, value + 1, n));
        break;
      case kMM:
        SLUICE_RETURN_IF_ERROR(ParseInt(&out->mm, n.key->len, i, nullptr));
        skip_th(n);
        break;
      case kDAY:
      case kDay:
      case kday:
        SLUICE_RETURN_IF_ERROR(Search(kDaysFull, i, &value));
        SLUICE_RETURN_IF_ERROR(SetInt(&out->d, value, n));
        out->d++;
        break;
      case kDY:
      case kDy:
      case kdy:
        SLUICE_RETURN_IF_ERROR(Search(kDays, i, &value));
        SLUICE_RETURN_IF_ERROR(SetInt(&out->d, value, n));
        out->d++;
        break;
      case kDDD:
        SLUICE_RETURN_IF_ERROR(ParseInt(&out->ddd, n.key->len, i, nullptr));
        skip_th(n);
        break;
      case kIDDD:
        SLUICE_RETURN_IF_ERROR(ParseInt(&out->ddd, 3, i, nullptr));
        skip_th(n);
        break;
      case kDD:
        SLUICE_RETURN_IF_ERROR(ParseInt(&out->dd, n.key->len, i, nullptr));
        skip_th(n);
        break;
      case kD:
        SLUICE_RETURN_IF_ERROR(ParseInt(&out->d, n.key->len, i, nullptr));
        skip_th(n);
        break;
      case kID:
        SLUICE_RETURN_IF_ERROR(ParseInt(&out->d, 1, i, nullptr));
        if (++out->d > 7) out->d = 1;  // Sunday is 1, as in the Gregorian D
        skip_th(n);
        break;
      case kWW:
      case kIW:
        SLUICE_RETURN_IF_ERROR(ParseInt(&out->ww, n.key->len, i, nullptr));
        skip_th(n);
        break;
      case kQ:  // read, and ignored: a quarter does not say which month
        SLUICE_RETURN_IF_ERROR(ParseInt(nullptr, n.key->len, i, nullptr));
        skip_th(n);
        break;
      case kCC:
        SLUICE_RETURN_IF_ERROR(ParseInt(&out->cc, n.key->len, i, nullptr));
        skip_th(n);
        break;
      case kY_YYY: {
        int millennia = 0, years = 0, nch = 0;
        if (std::sscanf(in_.c_str() + s_, "%d,%03d%n", &millennia, &years, &nch) < 2) {
          return FormatError("invalid input string for \"Y,YYY\"");
        }
        SLUICE_RETURN_IF_ERROR(SetInt(&out->year, years + millennia * 1000, n));
        out->yysz = 4;
        s_ += static_cast<size_t>(nch);
        skip_th(n);
        break;
      }
      case kYYYY:
      case kIYYY:
        SLUICE_RETURN_IF_ERROR(ParseInt(&out->year, n.key->len, i, nullptr));
        out->yysz = 4;
        skip_th(n);
        break;
      case kYYY:
      case kIYY:
      case kYY:
      case kIY:
      case kY:
      case kI: {
        SLUICE_RETURN_IF_ERROR(ParseInt(&out->year, n.key->len, i, &len));
        if (len < 4) {
          // Toward 2020: 69 is 2069, 70 is 1970, 519 is 2519, 520 is 1520.
          int& y = out->year;
          y = y < 70 ? y + 2000 : y < 100 ? y + 1900 : y < 520 ? y + 2000 : y < 1000 ? y + 1000 : y;
        }
        out->yysz = static_cast<int>(n.key->len);
        skip_th(n);
        break;
      }
      case kRM:
      case krm:
        SLUICE_RETURN_IF_ERROR(Search(kRomanMonthsLower, i, &value));
        SLUICE_RETURN_IF_ERROR(SetInt(&out->mm, 12 - value, n));
        break;
      case kW:
        SLUICE_RETURN_IF_ERROR(ParseInt(&out->w, n.key->len, i, nullptr));
        skip_th(n);
        break;
      case kJ:
        SLUICE_RETURN_IF_ERROR(ParseInt(&out->j, n.key->len, i, nullptr));
        skip_th(n);
        break;
      default:
        break;
    }
    if (!fx) {  // spaces after a field are skipped
      extra_skip = 0;
      while (s_ < in_.size() && std::isspace(static_cast<unsigned char>(in_[s_]))) {
        ++s_;
        ++extra_skip;
      }
    }
  }
  return Status::OK();
}

// The date and time that text read by a template stands for, as
// PostgreSQL's to_date and to_timestamp make them: `*days` since
// 1970-01-01 and `*clock` microseconds into the day, local time; `*offset`
// the zone's offset east of UTC in seconds (0 if none was read). Out of
// PostgreSQL's range for a date (`for_date`) or a timestamp, an error.
Status ReadDateTime(const std::string& text, const std::string& fmt, bool for_date, int64_t* days,
                    int64_t* clock, int64_t* offset, int* fprec) {
  FromChar f;
  if (!fmt.empty()) {
    DateReader reader(DateTemplate(fmt), text);
    SLUICE_RETURN_IF_ERROR(reader.Read(&f));
  }
  auto out_of_range = [&] {
    return Status::Overflow("date/time field value out of range: \"" + text + "\"");
  };
  int64_t year = 0, mon = 1, mday = 1, hour = 0, min = 0, sec = 0;
  if (f.ssss) {
    hour = f.ssss / 3600;
    min = f.ssss % 3600 / 60;
    sec = f.ssss % 60;
  }
  if (f.ss) sec = f.ss;
  if (f.mi) min = f.mi;
  if (f.hh) hour = f.hh;
  if (f.clock12) {
    if (hour < 1 || hour > 12) {
      return FormatError("hour \"" + std::to_string(hour) + "\" is invalid for the 12-hour clock");
    }
    if (f.pm && hour < 12) hour += 12;
    if (!f.pm && hour == 12) hour = 0;
  }
  bool has_year = false, has_month = false, has_day = false;
  if (f.year) {
    if (f.cc && f.yysz <= 2) {
      // CC with YY: YY are the low digits of a year in that century.
      int cc = f.bc ? -f.cc : f.cc;
      year = f.year % 100;
      if (year) {
        year = cc >= 0 ? year + (cc - 1) * 100 : (cc + 1) * 100 - year + 1;
      } else {
        year = cc * 100 + (cc >= 0 ? 0 : 1);
      }
    } else {
      year = f.bc ? -f.year : f.year;
      if (year < 0) ++year;  // 1 BC is year 0
    }
    has_year = true;
  } else if (f.cc) {
    const int cc = f.bc ? -f.cc : f.cc;
    year = cc >= 0 ? (cc - 1) * 100 + 1 : cc * 100 + 1;
    has_year = true;
  }
  auto from_julian = [&](int64_t j) {
    unsigned m, d;
    CivilFromDays(j - kUnixEpochJulian, &year, &m, &d);
    mon = m;
    mday = d;
  };
  if (f.j) {
    from_julian(f.j);
    has_year = has_month = has_day = true;
  }
  int ddd = f.ddd, dd = f.dd;
  if (f.ww) {
    if (f.mode == DateMode::kIsoWeek) {
      // The ISO week's Monday, plus the day of the week if given (Sunday 1).
      int64_t j = IsoWeek1Monday(year) + (f.ww - 1) * 7;
      if (f.d) j += f.d == 1 ? 6 : f.d - 2;
      from_julian(j);
      has_year = has_month = has_day = true;
    } else {
      ddd = (f.ww - 1) * 7 + 1;
    }
  }
  if (f.w) dd = (f.w - 1) * 7 + 1;
  if (dd) {
    mday = dd;
    has_day = true;
  }
  if (f.mm) {
    mon = f.mm;
    has_month = true;
  }
  if (ddd && (mon <= 1 || mday <= 1)) {
    if (!year && !f.bc) return FormatError("cannot calculate day of year without year information");
    if (f.mode == DateMode::kIsoWeek) {
      from_julian(IsoWeek1Monday(year) - 1 + ddd);
    } else {
      int64_t month = 1, before = 0;
      while (month < 12 && ddd > before + DaysInMonth(year, month))
        before += DaysInMonth(year, month++);
      if (mon <= 1) mon = month;
      if (mday <= 1) mday = ddd - before;
    }
    has_month = has_day = true;
  }
  int64_t fsec = static_cast<int64_t>(f.ms) * 1000 + f.us;
  if (fprec) *fprec = f.ff;
  if (has_year || has_month || has_day) {
    if (has_month && (mon < 1 || mon > 12)) return out_of_range();
    if (has_day && (mday < 1 || mday > 31)) return out_of_range();
    if (has_year && has_month && has_day && mday > DaysInMonth(year, mon)) return out_of_range();
  }
  if (hour < 0 || hour >= 24 || min < 0 || min >= 60 || sec < 0 || sec >= 60 || fsec < 0 ||
      fsec >= 1000000) {
    return out_of_range();
  }
  *offset = 0;
  if (f.tzsign) {
    if (f.tzh < 0 || f.tzh > 15 || f.tzm < 0 || f.tzm >= 60) {
      return Status::Overflow("time zone displacement out of range: \"" + text + "\"");
    }
    *offset = f.tzsign * (f.tzh * 3600 + f.tzm * 60);
  }
  // PostgreSQL's calendar starts at 4714-11-24 BC; its dates end in
  // 5874897 AD and its timestamps in 294276 AD.
  const bool julian = (year > -4713 || (year == -4713 && mon >= 11)) && year < 5874898;
  if (!julian && for_date) return Status::Overflow("date out of range: \"" + text + "\"");
  *days = Date2J(year, mon, mday) - kUnixEpochJulian;
  if (!for_date && (!julian || *days < kMinTimestampDay || *days >= kEndTimestampDay)) {
    return Status::Overflow("timestamp out of range");
  }
  *clock = ((hour * 60 + min) * 60 + sec) * 1000000 + fsec;
  return Status::OK();
}

// to_timestamp(text, template): a timestamp with time zone, the zone the
// text names or else the session's (UTC).
Status ToTimestamp(const SqlType&, const Value* a, size_t, Value* out) {
  int64_t days, clock, offset;
  int fprec = 0;
  SLUICE_RETURN_IF_ERROR(ReadDateTime(a[0].string_value(), a[1].string_value(), false, &days,
                                      &clock, &offset, &fprec));
  int64_t micros = days * kMicrosPerDay + clock - offset * 1000000;
  if (fprec > 0 && fprec < 6) {
    int64_t unit = 1;
    for (int i = fprec; i < 6; ++i) unit *= 10;
    micros =
        micros >= 0 ? (micros + unit / 2) / unit * unit : -((-micros + unit / 2) / unit * unit);
  }
  *out = Value::Int(micros);
  return Status::OK();
}

Status ToDate(const SqlType&, const Value* a, size_t, Value* out) {
  int64_t days, clock, offset;
  SLUICE_RETURN_IF_ERROR(ReadDateTime(a[0].string_value(), a[1].string_value(), true, &days, &clock,
                                      &offset, nullptr));
  *out = Value::Int(days);
  return Status::OK();
}

// to_timestamp(seconds since 1970-01-01 UTC).
Status ToTimestampEpoch(const SqlType&, const Value* a, size_t, Value* out) {
  const double s = a[0].double_value();
  if (std::isnan(s)) return FormatError("timestamp cannot be NaN");
  // PostgreSQL's range: 4714-11-24 BC to 294276 AD.
  if (!(s >= -210866803200.0 && s < 9224318016000.0)) {
    return Status::Overflow(Printf("timestamp out of range: \"%g\"", s));
  }
  // Rounded to microseconds from 2000-01-01, as PostgreSQL does.
  constexpr int64_t kPgEpochSeconds = 946684800;
  const double us = std::nearbyint((s - static_cast<double>(kPgEpochSeconds)) * 1e6);
  *out = Value::Int(static_cast<int64_t>(us) + kPgEpochSeconds * 1000000);
  return Status::OK();
}

// ---- numbers.

constexpr uint32_t kFlagDecimal = 1 << 1, kFlagLDecimal = 1 << 2, kFlagZero = 1 << 3,
                   kFlagBlank = 1 << 4, kFlagFill = 1 << 5, kFlagLSign = 1 << 6,
                   kFlagBracket = 1 << 7, kFlagMinus = 1 << 8, kFlagPlus = 1 << 9,
                   kFlagRoman = 1 << 10, kFlagMulti = 1 << 11, kFlagPlusPost = 1 << 12,
                   kFlagMinusPost = 1 << 13, kFlagEEEE = 1 << 14;
enum class LSign : uint8_t { kNone, kPre, kPost };

// What a number template asks for: digits before and after the point, and
// its flags.
struct NumDesc {
  int pre = 0, post = 0, multi = 0, zero_start = 0, zero_end = 0, pre_lsign_num = 0;
  uint32_t flags = 0;
  LSign lsign = LSign::kNone;
  bool Has(uint32_t f) const { return (flags & f) != 0; }
};

Status SyntaxError(const std::string& msg) { return FormatError(msg); }

// Adds node `n` to the template's description, with PostgreSQL's checks.
Status Describe(NumDesc* d, const FormatNode& n) {
  if (n.type != NodeType::kAction) return Status::OK();
  const int id = n.key->id;
  if (d->Has(kFlagEEEE) && id != kE) return SyntaxError("\"EEEE\" must be the last pattern used");
  switch (id) {
    case k9:
      if (d->Has(kFlagBracket)) return SyntaxError("\"9\" must be ahead of \"PR\"");
      if (d->Has(kFlagMulti)) {
        ++d->multi;
      } else if (d->Has(kFlagDecimal)) {
        ++d->post;
      } else {
        ++d->pre;
      }
      break;
    case k0:
      if (d->Has(kFlagBracket)) return SyntaxError("\"0\" must be ahead of \"PR\"");
      if (!d->Has(kFlagZero) && !d->Has(kFlagDecimal)) {
        d->flags |= kFlagZero;
        d->zero_start = d->pre + 1;
      }
      if (!d->Has(kFlagDecimal)) {
        ++d->pre;
      } else {
        ++d->post;
      }
      d->zero_end = d->pre + d->post;
      break;
    case kB:
      if (d->pre == 0 && d->post == 0 && !d->Has(kFlagZero)) d->flags |= kFlagBlank;
      break;
    case kNumD:
    case kDec:
      if (id == kNumD) d->flags |= kFlagLDecimal;
      if (d->Has(kFlagDecimal)) return SyntaxError("multiple decimal points");
      if (d->Has(kFlagMulti)) return SyntaxError("cannot use \"V\" and decimal point together");
      d->flags |= kFlagDecimal;
      break;
    case kFM:
      d->flags |= kFlagFill;
      break;
    case kS:
      if (d->Has(kFlagLSign)) return SyntaxError("cannot use \"S\" twice");
      if (d->Has(kFlagPlus) || d->Has(kFlagMinus) || d->Has(kFlagBracket)) {
        return SyntaxError("cannot use \"S\" and \"PL\"/\"MI\"/\"SG\"/\"PR\" together");
      }
      if (!d->Has(kFlagDecimal)) {
        d->lsign = LSign::kPre;
        d->pre_lsign_num = d->pre;
        d->flags |= kFlagLSign;
      } else if (d->lsign == LSign::kNone) {
        d->lsign = LSign::kPost;
        d->flags |= kFlagLSign;
      }
      break;
    case kNumMI:
      if (d->Has(kFlagLSign)) return SyntaxError("cannot use \"S\" and \"MI\" together");
      d->flags |= kFlagMinus;
      if (d->Has(kFlagDecimal)) d->flags |= kFlagMinusPost;
      break;
    case kPL:
      if (d->Has(kFlagLSign)) return SyntaxError("cannot use \"S\" and \"PL\" together");
      d->flags |= kFlagPlus;
      if (d->Has(kFlagDecimal)) d->flags |= kFlagPlusPost;
      break;
    case kSG:
      if (d->Has(kFlagLSign)) return SyntaxError("cannot use \"S\" and \"SG\" together");
      d->flags |= kFlagMinus | kFlagPlus;
      break;
    case kPR:
      if (d->Has(kFlagLSign) || d->Has(kFlagPlus) || d->Has(kFlagMinus)) {
        return SyntaxError("cannot use \"PR\" and \"S\"/\"PL\"/\"MI\"/\"SG\" together");
      }
      d->flags |= kFlagBracket;
      break;
    case kRN:
    case krn:
      d->flags |= kFlagRoman;
      break;
    case kV:
      if (d->Has(kFlagDecimal)) return SyntaxError("cannot use \"V\" and decimal point together");
      d->flags |= kFlagMulti;
      break;
    case kE:
      if (d->Has(kFlagEEEE)) return SyntaxError("cannot use \"EEEE\" twice");
      if (d->Has(kFlagBlank) || d->Has(kFlagFill) || d->Has(kFlagLSign) || d->Has(kFlagBracket) ||
          d->Has(kFlagMinus) || d->Has(kFlagPlus) || d->Has(kFlagRoman) || d->Has(kFlagMulti)) {
        return SyntaxError("\"EEEE\" is incompatible with other formats");
      }
      d->flags |= kFlagEEEE;
      break;
    default:
      break;
  }
  return Status::OK();
}

// A number template: its nodes and what they ask for, or why it is wrong.
struct NumTemplate {
  std::vector<FormatNode> nodes;
  NumDesc desc;
  Status status;
};

const NumTemplate& ParseNumTemplate(std::string_view fmt) {
  return Cached<NumTemplate>(fmt, [](std::string_view f) {
    NumTemplate t;
    t.nodes = ParseTemplate(f, kNumKeywords, false);
    for (const FormatNode& n : t.nodes) {
      t.status = Describe(&t.desc, n);
      if (!t.status.ok()) break;
    }
    return t;
  });
}

// Writes a number by a number template, as PostgreSQL's to_char does.
// `number` holds the digits (and point) of the magnitude, already rounded
// to the template's digits after the point, or '#'s when it does not fit;
// `pre_spaces` is how many of the template's digit places before the point
// it leaves empty. One writer per call (Write once), on the caller's thread.
class NumberWriter {
 public:
  NumberWriter(const std::vector<FormatNode>& nodes, NumDesc d, std::string number, int pre_spaces,
               char sign)
      : nodes_(nodes), d_(d), number_(std::move(number)), pre_spaces_(pre_spaces), sign_(sign) {}

  Status Write(std::string* out);

 private:
  char NumberAt(size_t i) const { return i < number_.size() ? number_[i] : '\0'; }
  bool LastRelevantIsPoint() const { return last_relevant_ >= 0 && number_[last_relevant_] == '.'; }
  // "0.1" by "9.9" is " .1": a zero before the point is a blank.
  bool PredecimalSpace() const {
    return !d_.Has(kFlagZero) && np_ == 0 && NumberAt(0) == '0' && d_.post != 0;
  }
  void Digit(int id);

  const std::vector<FormatNode>& nodes_;
  NumDesc d_;
  std::string number_;
  int pre_spaces_;
  char sign_;
  std::string out_;
  size_t np_ = 0;           // the next character of number_
  int last_relevant_ = -1;  // FM: the last digit worth writing after the point
  int num_count_ = 0, num_curr_ = 0;
  bool sign_wrote_ = false, num_in_ = false;
};

void NumberWriter::Digit(int id) {
  num_in_ = false;
  // The sign goes before the first digit that is written.
  if (!sign_wrote_ &&
      (num_curr_ >= pre_spaces_ || (d_.Has(kFlagZero) && d_.zero_start == num_curr_)) &&
      (!PredecimalSpace() || LastRelevantIsPoint())) {
    if (d_.Has(kFlagLSign)) {
      if (d_.lsign == LSign::kPre) {
        out_ += sign_ == '-' ? '-' : '+';
        sign_wrote_ = true;
      }
    } else if (d_.Has(kFlagBracket)) {
      out_ += sign_ == '+' ? ' ' : '<';
      sign_wrote_ = true;
    } else if (sign_ == '+') {
      if (!d_.Has(kFlagFill)) out_ += ' ';
      sign_wrote_ = true;
    } else if (sign_ == '-') {
      out_ += '-';
      sign_wrote_ = true;
    }
  }
  if (num_curr_ < pre_spaces_ && (d_.zero_start > num_curr_ || !d_.Has(kFlagZero))) {
    if (!d_.Has(kFlagFill)) out_ += ' ';
  } else if (d_.Has(kFlagZero) && num_curr_ < pre_spaces_ && d_.zero_start <= num_curr_) {
    out_ += '0';
    num_in_ = true;
  } else {
    if (NumberAt(np_) == '.') {
      if (!LastRelevantIsPoint() || d_.Has(kFlagFill)) out_ += '.';
    } else if (last_relevant_ >= 0 && static_cast<int>(np_) > last_relevant_ && id != k0) {
      // FM: no trailing zeros after the point
    } else if (PredecimalSpace()) {
      if (!d_.Has(kFlagFill)) {
        out_ += ' ';
      } else if (LastRelevantIsPoint()) {
        out_ += '0';
      }
    } else {
      // Past the end of the number this writes a NUL, which ends the text
      // (as in PostgreSQL).
      out_ += NumberAt(np_);
      num_in_ = true;
    }
    if (np_ < number_.size()) ++np_;
  }
  int end = num_count_ + (pre_spaces_ ? 1 : 0) + (d_.Has(kFlagDecimal) ? 1 : 0);
  if (last_relevant_ >= 0 && last_relevant_ == static_cast<int>(np_)) end = num_curr_;
  if (num_curr_ + 1 == end) {
    if (sign_wrote_ && d_.Has(kFlagBracket)) {
      out_ += sign_ == '+' ? ' ' : '>';
    } else if (d_.Has(kFlagLSign) && d_.lsign == LSign::kPost) {
      out_ += sign_ == '-' ? '-' : '+';
    }
  }
  ++num_curr_;
  (void)id;
}

Status NumberWriter::Write(std::string* out) {
  if (d_.zero_start) --d_.zero_start;
  if (d_.Has(kFlagEEEE)) {
    *out = number_;
    return Status::OK();
  }
  if (d_.Has(kFlagRoman)) {
    d_.lsign = LSign::kNone;
    d_.pre_lsign_num = d_.post = d_.pre = pre_spaces_ = 0;
    sign_ = 0;
    d_.flags = (d_.Has(kFlagFill) ? kFlagFill : 0) | kFlagRoman;
  }
  if (d_.Has(kFlagPlus) || d_.Has(kFlagMinus)) {
    // MI, PL, SG write the sign themselves (PL alone also leaves its place).
    sign_wrote_ = !(d_.Has(kFlagPlus) && !d_.Has(kFlagMinus));
  } else {
    if (sign_ != '-' && d_.Has(kFlagBracket) && d_.Has(kFlagFill)) d_.flags &= ~kFlagBracket;
    sign_wrote_ = sign_ == '+' && d_.Has(kFlagFill) && !d_.Has(kFlagLSign);
    if (d_.lsign == LSign::kPre && d_.pre == d_.pre_lsign_num) d_.lsign = LSign::kPost;
  }
  num_count_ = d_.post + d_.pre - 1;
  if (d_.Has(kFlagFill) && d_.Has(kFlagDecimal)) {
    size_t point = number_.find('.');
    if (point != std::string::npos) {
      last_relevant_ = static_cast<int>(point);
      for (size_t i = point + 1; i < number_.size(); ++i) {
        if (number_[i] != '0') last_relevant_ = static_cast<int>(i);
      }
      // Keep the digits that the template's 0s ask for.
      if (d_.zero_end > pre_spaces_) {
        int last_zero = std::min(static_cast<int>(number_.size()) - 1, d_.zero_end - pre_spaces_);
        if (last_relevant_ < last_zero) last_relevant_ = last_zero;
      }
    }
  }
  if (!sign_wrote_ && pre_spaces_ == 0) ++num_count_;

  for (const FormatNode& n : nodes_) {
    if (n.type != NodeType::kAction) {
      out_ += n.text;
      continue;
    }
    const bool fill = d_.Has(kFlagFill);
    switch (n.key->id) {
      case k9:
      case k0:
      case kDec:
      case kNumD:
        Digit(n.key->id);
        break;
      case kComma:
      case kG:
        if (!num_in_) {
          if (!fill) out_ += ' ';
        } else {
          out_ += ',';
        }
        break;
      case kL:
        out_ += ' ';  // the C locale has no currency symbol
        break;
      case kRN:
      case krn: {
        std::string r = n.key->id == krn ? AsciiLower(number_) : number_;
        if (!fill && r.size() < 15) r.insert(0, 15 - r.size(), ' ');
        out_ += r;
        break;
      }
      case kth:
      case kTH: {
        if (d_.Has(kFlagRoman) || NumberAt(0) == '#' || sign_ == '-' || d_.Has(kFlagDecimal)) break;
        std::string th;
        SLUICE_RETURN_IF_ERROR(OrdinalSuffix(number_, n.key->id == kTH, &th));
        out_ += th;
        break;
      }
      case kNumMI:
        if (sign_ == '-') {
          out_ += '-';
        } else if (!fill) {
          out_ += ' ';
        }
        break;
      case kPL:
        if (sign_ == '+') {
          out_ += '+';
        } else if (!fill) {
          out_ += ' ';
        }
        break;
      case kSG:
        out_ += sign_;
        break;
      default:
        break;
    }
  }
  size_t nul = out_.find('\0');
  if (nul != std::string::npos) out_.resize(nul);
  *out = std::move(out_);
  return Status::OK();
}

std::string Roman(int64_t v) {
  if (v < 1 || v > 3999) return std::string(15, '#');
  static const char* const kOnes[] = {"", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"};
  static const char* const kTens[] = {"", "X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"};
  static const char* const kHundreds[] = {"",  "C",  "CC",  "CCC",  "CD",
                                          "D", "DC", "DCC", "DCCC", "CM"};
  return std::string(static_cast<size_t>(v / 1000), 'M') + kHundreds[v / 100 % 10] +
         kTens[v / 10 % 10] + kOnes[v % 10];
}

// A decimal magnitude as digits with `scale` of them after the point.
struct DecimalText {
  std::string digits;  // at least scale + 1 of them
  int scale = 0;
  bool negative = false;
};

DecimalText ToDecimalText(int128 u, int scale) {
  DecimalText t;
  t.negative = u < 0;
  unsigned __int128 mag =
      t.negative ? -static_cast<unsigned __int128>(u) : static_cast<unsigned __int128>(u);
  do {
    t.digits.insert(t.digits.begin(), static_cast<char>('0' + static_cast<int>(mag % 10)));
    mag /= 10;
  } while (mag != 0);
  t.scale = scale;
  while (static_cast<int>(t.digits.size()) <= t.scale) t.digits.insert(t.digits.begin(), '0');
  return t;
}

// Rounds (half away from zero) or pads to `scale` digits after the point.
void Rescale(DecimalText* t, int scale) {
  if (scale >= t->scale) {
    t->digits.append(static_cast<size_t>(scale - t->scale), '0');
  } else {
    const size_t keep = t->digits.size() - static_cast<size_t>(t->scale - scale);
    const bool up = t->digits[keep] >= '5';
    t->digits.resize(keep);
    if (up) {
      size_t i = keep;
      while (i > 0 && t->digits[i - 1] == '9') t->digits[--i] = '0';
      if (i == 0) {
        t->digits.insert(t->digits.begin(), '1');
      } else {
        ++t->digits[i - 1];
      }
    }
  }
  t->scale = scale;
  while (static_cast<int>(t->digits.size()) <= t->scale) t->digits.insert(t->digits.begin(), '0');
  // No leading zeros before the point but one.
  size_t z = 0;
  while (z + 1 + static_cast<size_t>(t->scale) < t->digits.size() && t->digits[z] == '0') ++z;
  t->digits.erase(0, z);
}

std::string WithPoint(const DecimalText& t) {
  if (t.scale == 0) return t.digits;
  std::string s = t.digits;
  s.insert(s.size() - static_cast<size_t>(t.scale), ".");
  return s;
}

// "1.235e+04", PostgreSQL's scientific form of an exact decimal: one digit
// before the point, `post` after it (rounded half away from zero; 9.99 by
// one digit is 10.0e+00), and a two-digit exponent at least.
std::string Scientific(const DecimalText& value, int post) {
  DecimalText t = value;
  size_t first = t.digits.find_first_not_of('0');
  int exponent = 0;
  if (first != std::string::npos) {
    exponent = static_cast<int>(t.digits.size() - first) - 1 - t.scale;
  }
  // value / 10^exponent: the same digits with the point moved.
  t.scale += exponent;
  if (t.scale < 0) {
    t.digits.append(static_cast<size_t>(-t.scale), '0');
    t.scale = 0;
  }
  while (static_cast<int>(t.digits.size()) <= t.scale) t.digits.insert(t.digits.begin(), '0');
  Rescale(&t, std::max(post, 0));
  return (value.negative ? "-" : "") + WithPoint(t) + Printf("e%+03d", exponent);
}

// The number's digits and sign, prepared for NumberWriter, as PostgreSQL's
// to_char of each type does.
struct Prepared {
  std::string number;
  int pre_spaces = 0;
  char sign = '+';
};

// Fits digits "123.45" to the template: how many places before the point
// stay empty, or all '#' when the number has more digits than places.
void Fit(const NumDesc& d, Prepared* p) {
  size_t point = p->number.find('.');
  const int pre_len = static_cast<int>(point == std::string::npos ? p->number.size() : point);
  if (pre_len < d.pre) {
    p->pre_spaces = d.pre - pre_len;
  } else if (pre_len > d.pre) {
    p->number = std::string(static_cast<size_t>(d.pre + d.post + 1), '#');
    p->number[static_cast<size_t>(d.pre)] = '.';
  }
}

// EEEE of NaN or infinity: '#'s where the digits would be.
std::string HashScientific(const NumDesc& d) {
  std::string s(static_cast<size_t>(d.pre + d.post + 6), '#');
  s[0] = ' ';
  s[static_cast<size_t>(d.pre + 1)] = '.';
  return s;
}

// An exact decimal (DECIMAL or an integer type) to_char'ed.
Status PrepareDecimal(const DecimalText& value, bool int32, NumDesc* d, Prepared* p) {
  if (d->Has(kFlagRoman)) {
    DecimalText t = value;
    Rescale(&t, 0);
    int64_t v = 0;
    if (t.digits.size() > 10) return Status::Overflow("integer out of range");
    v = std::stoll(t.digits) * (t.negative ? -1 : 1);
    if (v > INT32_MAX || v < INT32_MIN) return Status::Overflow("integer out of range");
    p->number = Roman(v);
    return Status::OK();
  }
  if (d->Has(kFlagEEEE)) {
    p->number = Scientific(value, d->post);
    if (p->number[0] != '-') p->number.insert(0, " ");
    return Status::OK();
  }
  DecimalText t = value;
  if (d->Has(kFlagMulti)) {  // V: times 10^multi
    t.scale -= d->multi;
    if (t.scale < 0) {
      t.digits.append(static_cast<size_t>(-t.scale), '0');
      t.scale = 0;
    }
    d->pre += d->multi;
    if (int32 && t.digits.size() > 10) return Status::Overflow("integer out of range");
  }
  Rescale(&t, d->post);
  // A value that rounds to zero has no sign, as in PostgreSQL's numeric.
  p->sign = t.negative && t.digits.find_first_not_of('0') != std::string::npos ? '-' : '+';
  p->number = WithPoint(t);
  Fit(*d, p);
  return Status::OK();
}

Status PrepareDouble(double v, bool real, NumDesc* d, Prepared* p) {
  if (d->Has(kFlagRoman)) {
    p->number = Roman(static_cast<int64_t>(std::nearbyint(v)));
    return Status::OK();
  }
  if (d->Has(kFlagEEEE)) {
    if (std::isnan(v) || std::isinf(v)) {
      p->number = HashScientific(*d);
    } else {
      p->number = real ? Printf("%+.*e", d->post, static_cast<double>(static_cast<float>(v)))
                       : Printf("%+.*e", d->post, v);
      if (p->number[0] == '+') p->number[0] = ' ';
    }
    return Status::OK();
  }
  double val = real ? static_cast<float>(v) : v;
  if (d->Has(kFlagMulti)) {
    val =
        real ? static_cast<float>(val * std::pow(10.0, d->multi)) : val * std::pow(10.0, d->multi);
    d->pre += d->multi;
  }
  // PostgreSQL's printf spells the non-finite values "NaN", "Infinity"
  // and "-Infinity".
  auto fixed = [](int digits, double x) {
    if (std::isnan(x)) return std::string("NaN");
    if (std::isinf(x)) return std::string(x < 0 ? "-Infinity" : "Infinity");
    return Printf("%.*f", digits, x);
  };
  // Only as many digits as the type holds (FLT_DIG, DBL_DIG).
  const int max_digits = real ? 6 : 15;
  const int pre_len = static_cast<int>(fixed(0, std::fabs(val)).size());
  if (pre_len >= max_digits) {
    d->post = 0;
  } else if (pre_len + d->post > max_digits) {
    d->post = max_digits - pre_len;
  }
  std::string s = fixed(d->post, val);
  if (s[0] == '-') {
    p->sign = '-';
    s.erase(0, 1);
  }
  p->number = s;
  Fit(*d, p);
  return Status::OK();
}

template <typename Prepare>
Status ToCharNumber(const Value& fmt, const Prepare& prepare, Value* out) {
  const std::string& f = fmt.string_value();
  if (f.empty()) {
    *out = Value::Null();
    return Status::OK();
  }
  const NumTemplate& t = ParseNumTemplate(f);
  SLUICE_RETURN_IF_ERROR(t.status);
  NumDesc d = t.desc;
  Prepared p;
  SLUICE_RETURN_IF_ERROR(prepare(&d, &p));
  std::string s;
  SLUICE_RETURN_IF_ERROR(NumberWriter(t.nodes, d, p.number, p.pre_spaces, p.sign).Write(&s));
  *out = Value::String(std::move(s));
  return Status::OK();
}

Status ToCharInt(const Value* a, bool int32, Value* out) {
  const int64_t v = a[0].int_value();
  return ToCharNumber(
      a[1],
      [&](NumDesc* d, Prepared* p) {
        if (int32 && d->Has(kFlagEEEE)) {  // an integer goes through a double
          p->number = Printf("%+.*e", d->post, static_cast<double>(v));
          if (p->number[0] == '+') p->number[0] = ' ';
          return Status::OK();
        }
        return PrepareDecimal(ToDecimalText(v, 0), int32, d, p);
      },
      out);
}
Status ToCharInt4(const SqlType&, const Value* a, size_t, Value* out) {
  return ToCharInt(a, true, out);
}
Status ToCharInt8(const SqlType&, const Value* a, size_t, Value* out) {
  return ToCharInt(a, false, out);
}
Status ToCharNumeric(const SqlType&, const Value* a, size_t, Value* out) {
  if (a[0].decimal_is_special()) {
    // NaN and the infinities as float8's to_char writes them, as
    // PostgreSQL's numeric_to_char does.
    const DecimalSpecial sp = a[0].decimal_special();
    const double v = sp == DecimalSpecial::kNaN      ? std::nan("")
                     : sp == DecimalSpecial::kPosInf ? HUGE_VAL
                                                     : -HUGE_VAL;
    return ToCharNumber(
        a[1], [&](NumDesc* d, Prepared* p) { return PrepareDouble(v, false, d, p); }, out);
  }
  DecimalText t;
  if (const BigDecimal* w = a[0].decimal_wide()) {
    t.digits = w->is_zero() ? "0" : w->Digits();
    t.scale = w->scale();
    t.negative = w->negative();
    if (static_cast<int>(t.digits.size()) <= t.scale) {
      t.digits.insert(0, static_cast<size_t>(t.scale + 1) - t.digits.size(), '0');
    }
  } else {
    t = ToDecimalText(a[0].decimal_unscaled(), a[0].decimal_scale());
  }
  return ToCharNumber(
      a[1], [&](NumDesc* d, Prepared* p) { return PrepareDecimal(t, false, d, p); }, out);
}
Status ToCharFloat8(const SqlType&, const Value* a, size_t, Value* out) {
  const double v = a[0].double_value();
  return ToCharNumber(
      a[1], [&](NumDesc* d, Prepared* p) { return PrepareDouble(v, false, d, p); }, out);
}
Status ToCharFloat4(const SqlType&, const Value* a, size_t, Value* out) {
  const double v = a[0].double_value();
  return ToCharNumber(
      a[1], [&](NumDesc* d, Prepared* p) { return PrepareDouble(v, true, d, p); }, out);
}

// ---- to_number: text read by a number template.

// Reads text by a number template, as PostgreSQL's to_number does: each
// digit place takes a digit (or the point), a sign is read before the
// first digit or after the last, and other template characters skip one
// character of the text whatever it is. One reader per call (Read once), on
// the caller's thread.
class NumberReader {
 public:
  NumberReader(const std::vector<FormatNode>& nodes, const NumDesc& d, const std::string& in)
      : nodes_(nodes), d_(d), in_(in) {}

  // The number read, as text "[-+ ]digits[.digits]", and its digits after
  // the point.
  Status Read(std::string* number, int* scale);

 private:
  bool Over() const { return p_ >= in_.size(); }
  char At(size_t i) const { return i < in_.size() ? in_[i] : '\0'; }
  void Digit(int id);
  void SkipNonData(int n) {
    while (n-- > 0 && !Over() && std::strchr("0123456789.,+-", in_[p_]) == nullptr) {
      p_ += CharLen(in_, p_);
    }
  }

  const std::vector<FormatNode>& nodes_;
  const NumDesc& d_;
  const std::string& in_;
  size_t p_ = 0;
  std::string number_ = " ";  // the sign, then the digits
  int read_pre_ = 0, read_post_ = 0;
  bool read_dec_ = false;
};

void NumberReader::Digit(int id) {
  if (Over()) return;
  if (in_[p_] == ' ') ++p_;
  if (Over()) return;
  // A sign before the first digit.
  if (number_[0] == ' ' && (id == k0 || id == k9) && read_pre_ + read_post_ == 0) {
    if (d_.Has(kFlagLSign) && d_.lsign == LSign::kPre) {
      if (in_[p_] == '-' || in_[p_] == '+') number_[0] = in_[p_++];
    } else if (in_[p_] == '-' || (d_.Has(kFlagBracket) && in_[p_] == '<')) {
      number_[0] = '-';
      ++p_;
    } else if (in_[p_] == '+') {
      number_[0] = '+';
      ++p_;
    }
  }
  if (Over()) return;
  bool read = false;
  if (std::isdigit(static_cast<unsigned char>(in_[p_]))) {
    if (read_dec_ && read_post_ == d_.post) return;
    number_ += in_[p_];
    (read_dec_ ? read_post_ : read_pre_)++;
    read = true;
  } else if (d_.Has(kFlagDecimal) && !read_dec_ && in_[p_] == '.') {
    number_ += '.';
    read_dec_ = true;
    read = true;
  }
  if (Over()) return;
  // A sign after the last digit.
  if (number_[0] == ' ' && read_pre_ + read_post_ > 0) {
    if (d_.Has(kFlagLSign) && read && p_ + 1 < in_.size() &&
        !std::isdigit(static_cast<unsigned char>(in_[p_ + 1]))) {
      const char c = in_[p_ + 1];
      if (c == '-' || c == '+') {
        number_[0] = c;
        ++p_;
      }
    } else if (!read && !d_.Has(kFlagLSign) && (d_.Has(kFlagPlus) || d_.Has(kFlagMinus))) {
      if (in_[p_] == '-' || in_[p_] == '+') number_[0] = in_[p_];
    }
  }
}

Status NumberReader::Read(std::string* number, int* scale) {
  if (d_.Has(kFlagEEEE)) return Status::Unimplemented("\"EEEE\" not supported for input");
  if (d_.Has(kFlagRoman)) return Status::Unimplemented("\"RN\" not supported for input");
  for (const FormatNode& n : nodes_) {
    if (Over()) break;
    if (n.type != NodeType::kAction) {
      p_ += CharLen(in_, p_);  // skips a character, whatever it is
      continue;
    }
    const bool fill = d_.Has(kFlagFill);
    switch (n.key->id) {
      case k9:
      case k0:
      case kDec:
      case kNumD:
        Digit(n.key->id);
        ++p_;
        break;
      case kComma:
      case kG:
        if (fill) break;
        if (At(p_) == ',') ++p_;
        break;
      case kL:
        SkipNonData(1);
        break;
      case kth:
      case kTH:
        if (d_.Has(kFlagDecimal)) break;
        SkipNonData(2);
        break;
      case kNumMI:
      case kPL:
      case kSG: {
        const char c = At(p_);
        const bool minus = n.key->id != kPL, plus = n.key->id != kNumMI;
        if ((minus && c == '-') || (plus && c == '+')) {
          number_[0] = c;
          ++p_;
        } else {
          SkipNonData(1);
        }
        break;
      }
      default:
        break;
    }
  }
  if (!number_.empty() && number_.back() == '.') number_.pop_back();
  *number = number_;
  *scale = read_post_;
  return Status::OK();
}

// Reads `text` by `fmt` into a decimal: its unscaled value and its scale
// (the digits read after the point, plus V's).
Status ReadNumber(const std::string& text, const std::string& fmt, int128* unscaled, int* scale,
                  bool* is_null) {
  *is_null = fmt.empty();
  if (*is_null) return Status::OK();
  const NumTemplate& t = ParseNumTemplate(fmt);
  SLUICE_RETURN_IF_ERROR(t.status);
  const NumDesc& d = t.desc;
  std::string number;
  int s = 0;
  SLUICE_RETURN_IF_ERROR(NumberReader(t.nodes, d, text).Read(&number, &s));
  std::string digits = number.substr(number[0] == ' ' ? 1 : 0);
  size_t first = digits.find_first_not_of(" +-");
  if (first == std::string::npos || digits.find_first_of("0123456789") == std::string::npos) {
    return FormatError("invalid input syntax for type numeric: \"" + number + "\"");
  }
  std::string plain;
  for (char c : digits) {
    if (c != '.') plain += c;
  }
  int128 u;
  std::string unsigned_digits = plain.substr(plain[0] == '-' || plain[0] == '+' ? 1 : 0);
  size_t nz = unsigned_digits.find_first_not_of('0');
  if (nz != std::string::npos && unsigned_digits.size() - nz > 38) {
    return Status::Overflow("numeric field overflow");
  }
  if (!ParseDecimal(plain, 0, &u)) {
    return FormatError("invalid input syntax for type numeric: \"" + number + "\"");
  }
  if (d.Has(kFlagMulti)) {
    // Times 10^-multi, which PostgreSQL computes at scale 16 (0 past it).
    if (d.multi > 16 || __builtin_mul_overflow(u, Pow10(16 - d.multi), &u)) {
      if (d.multi <= 16) return Status::Overflow("numeric field overflow");
      u = 0;
    }
    s += 16;
  }
  *unscaled = u;
  *scale = s;
  return Status::OK();
}

Status ToNumber(const SqlType& t, const Value* a, size_t, Value* out) {
  int128 u;
  int scale;
  bool is_null;
  SLUICE_RETURN_IF_ERROR(
      ReadNumber(a[0].string_value(), a[1].string_value(), &u, &scale, &is_null));
  if (is_null) {
    *out = Value::Null();
    return Status::OK();
  }
  (void)t;
  *out = Value::Decimal(u, scale);
  return Status::OK();
}

}  // namespace

Status EvalToNumber(const std::string& text, const std::string& fmt, Value* out) {
  int128 u;
  int scale;
  bool is_null;
  SLUICE_RETURN_IF_ERROR(ReadNumber(text, fmt, &u, &scale, &is_null));
  *out = is_null ? Value::Null() : Value::Decimal(u, scale);
  return Status::OK();
}

bool ResolveFormat(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r) {
  const size_t n = args.size();
  if (name == "to_char" && n == 2 && args[1].IsString()) {
    const SqlType& x = args[0];
    switch (x.id()) {
      case TypeId::kTinyInt:
      case TypeId::kSmallInt:
      case TypeId::kInteger:
        return Resolve(r, ToCharInt4, "to_char", Text(), {SqlType::Integer(), Text()});
      case TypeId::kBigInt:
        return Resolve(r, ToCharInt8, "to_char", Text(), {SqlType::BigInt(), Text()});
      case TypeId::kDecimal:
        return Resolve(r, ToCharNumeric, "to_char", Text(), {x, Text()});
      case TypeId::kReal:
        return Resolve(r, ToCharFloat4, "to_char", Text(), {SqlType::Real(), Text()});
      case TypeId::kDouble:
        return Resolve(r, ToCharFloat8, "to_char", Text(), {SqlType::Double(), Text()});
      case TypeId::kTimestamp:
        return x.with_time_zone()
                   ? Resolve(r, ToCharTimestampTz, "to_char", Text(),
                             {x.WithNullable(true), Text()})
                   : Resolve(r, ToCharTimestamp, "to_char", Text(), {x.WithNullable(true), Text()});
      case TypeId::kDate:
        return Resolve(r, ToCharDate, "to_char", Text(), {SqlType::Date(), Text()});
      case TypeId::kInterval:
        return Resolve(r, ToCharInterval, "to_char", Text(), {SqlType::Interval(), Text()});
      case TypeId::kTime:
        // PostgreSQL has no to_char of a time with time zone.
        if (x.IsTimeTz()) return false;
        return Resolve(r, ToCharTime, "to_char", Text(), {SqlType::Time(), Text()});
      default:
        return false;
    }
  }
  if (name == "to_number" && n == 2 && args[0].IsString() && args[1].IsString()) {
    // NUMERIC with as many digits after the point as it read.
    return Resolve(r, ToNumber, "to_number", SqlType::Numeric(), {Text(), Text()});
  }
  if (name == "to_date" && n == 2 && args[0].IsString() && args[1].IsString()) {
    return Resolve(r, ToDate, "to_date", SqlType::Date(), {Text(), Text()});
  }
  if (name == "to_timestamp" && n == 2 && args[0].IsString() && args[1].IsString()) {
    return Resolve(r, ToTimestamp, "to_timestamp", SqlType::TimestampTz(), {Text(), Text()});
  }
  if (name == "to_timestamp" && n == 1 && IsNumeric(args[0])) {
    return Resolve(r, ToTimestampEpoch, "to_timestamp", SqlType::TimestampTz(),
                   {SqlType::Double()});
  }
  return false;
}

}  // namespace sluice::sql
