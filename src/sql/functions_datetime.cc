// Date, time, timestamp and interval operators and functions.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "sql/datetime.h"
#include "sql/functions_internal.h"

namespace sluice::sql {
namespace {

SqlType Text() { return SqlType::Varchar(); }

// ---- dates, timestamps, intervals.
Status TsPlusInterval(const SqlType&, const Value* a, size_t, Value* out) {
  int64_t r;
  if (!AddInterval(a[0].int_value(), a[1].interval_value(), +1, &r)) {
    return Status::Overflow("timestamp out of range");
  }
  *out = Value::Int(r);
  return Status::OK();
}
Status TsMinusInterval(const SqlType&, const Value* a, size_t, Value* out) {
  int64_t r;
  if (!AddInterval(a[0].int_value(), a[1].interval_value(), -1, &r)) {
    return Status::Overflow("timestamp out of range");
  }
  *out = Value::Int(r);
  return Status::OK();
}
// time +/- interval and time with time zone +/- interval: the interval's
// time (its months and days ignored, as PostgreSQL's time_pl_interval
// ignores them) moves the time of day around the clock; a zone stays.
// `type` is the result's: TIME or TIME WITH TIME ZONE.
template <int kSign, bool kIntervalFirst>
Status ShiftTime(const SqlType& type, const Value* a, size_t, Value* out) {
  const Value& time = a[kIntervalFirst ? 1 : 0];
  const int64_t by = a[kIntervalFirst ? 0 : 1].interval_value().micros;
  TimeTz t = type.IsTimeTz() ? TimeTz::Decode(time.int_value()) : TimeTz{time.int_value(), 0};
  int64_t r = (t.micros + kSign * (by % kMicrosPerDay)) % kMicrosPerDay;
  t.micros = r < 0 ? r + kMicrosPerDay : r;
  *out = Value::Int(type.IsTimeTz() ? t.Encode() : t.micros);
  return Status::OK();
}
Status IntervalPlusTs(const SqlType& t, const Value* a, size_t n, Value* out) {
  Value swapped[2] = {a[1], a[0]};
  return TsPlusInterval(t, swapped, n, out);
}
Status TsMinusTs(const SqlType&, const Value* a, size_t, Value* out) {
  if (IsInfiniteTimestamp(a[0].int_value()) || IsInfiniteTimestamp(a[1].int_value())) {
    return Status::InvalidArgument("cannot subtract infinite timestamps");
  }
  // PostgreSQL: whole days, and the rest as time.
  int64_t d = a[0].int_value() - a[1].int_value();
  int64_t days = d / kMicrosPerDay;
  *out = Value::MakeInterval(0, static_cast<int32_t>(days), d - days * kMicrosPerDay);
  return Status::OK();
}
Status Age(const SqlType&, const Value* a, size_t, Value* out) {
  if (IsInfiniteTimestamp(a[0].int_value()) || IsInfiniteTimestamp(a[1].int_value())) {
    // PostgreSQL 17 answers an infinite interval, which Sluice does not
    // have; PostgreSQL 15 and 16 answer a meaningless finite one. A row's
    // error (a view drops the row), worded as what is missing.
    return Status::InvalidArgument("age() of an infinite timestamp is not supported yet");
  }
  const Interval iv = TimestampAge(a[0].int_value(), a[1].int_value());
  *out = Value::MakeInterval(iv.months, iv.days, iv.micros);
  return Status::OK();
}
Status DatePlusInt(const SqlType&, const Value* a, size_t, Value* out) {
  *out = IsInfiniteDate(a[0].int_value()) ? a[0] : Value::Int(a[0].int_value() + a[1].int_value());
  return Status::OK();
}
Status DateMinusInt(const SqlType&, const Value* a, size_t, Value* out) {
  *out = IsInfiniteDate(a[0].int_value()) ? a[0] : Value::Int(a[0].int_value() - a[1].int_value());
  return Status::OK();
}
Status DateMinusDate(const SqlType&, const Value* a, size_t, Value* out) {
  if (IsInfiniteDate(a[0].int_value()) || IsInfiniteDate(a[1].int_value())) {
    return Status::InvalidArgument("cannot subtract infinite dates");
  }
  *out = Value::Int(a[0].int_value() - a[1].int_value());
  return Status::OK();
}
Status IntervalAdd(const SqlType&, const Value* a, size_t, Value* out) {
  const Interval& x = a[0].interval_value();
  const Interval& y = a[1].interval_value();
  *out = Value::MakeInterval(x.months + y.months, x.days + y.days, x.micros + y.micros);
  return Status::OK();
}
Status IntervalMul(const SqlType&, const Value* a, size_t, Value* out) {
  return ScaleInterval(a[0].interval_value(), a[1].double_value(), false, out);
}
Status MulIntervalRight(const SqlType&, const Value* a, size_t, Value* out) {
  return ScaleInterval(a[1].interval_value(), a[0].double_value(), false, out);
}
Status IntervalDiv(const SqlType&, const Value* a, size_t, Value* out) {
  return ScaleInterval(a[0].interval_value(), a[1].double_value(), true, out);
}
Status IntervalNeg(const SqlType&, const Value* a, size_t, Value* out) {
  const Interval& x = a[0].interval_value();
  if (x.months == INT32_MIN || x.days == INT32_MIN || x.micros == INT64_MIN) {
    return Status::InvalidArgument("interval out of range");
  }
  *out = Value::MakeInterval(-x.months, -x.days, -x.micros);
  return Status::OK();
}
// interval(x, typmod): x restricted to the typmod's fields and precision
// (PostgreSQL's typmod: range << 16 | precision), as a cast to INTERVAL DAY
// TO SECOND(2) is.
Status IntervalTypmod(const SqlType&, const Value* a, size_t, Value* out) {
  const int64_t typmod = a[1].int_value();
  Interval x = a[0].interval_value();
  if (typmod >= 0) {
    SLUICE_RETURN_IF_ERROR(AdjustIntervalToTypmod(&x, static_cast<int>(typmod >> 16 & 0x7FFF),
                                                  static_cast<int>(typmod & 0xFFFF)));
  }
  *out = Value::MakeInterval(x.months, x.days, x.micros);
  return Status::OK();
}
// timestamp(x, p), timestamptz(x, p) and time(x, p): x rounded to p digits
// after the point of its seconds, as a cast to TIMESTAMP(p) is (PostgreSQL's
// AdjustTimestampForTypmod: halves away from zero); infinities stay.
Status TimeTypmod(const SqlType&, const Value* a, size_t, Value* out) {
  const int64_t p = a[1].int_value();
  int64_t x = a[0].int_value();
  if (p >= 0 && p < 6 && !IsInfiniteTimestamp(x)) {
    const std::optional<int64_t> rounded = RoundMicrosToPrecision(x, static_cast<int>(p));
    if (!rounded) return Status::InvalidArgument("timestamp out of range");
    x = *rounded;
  }
  *out = Value::Int(x);
  return Status::OK();
}
// justify_hours: whole days out of the time; justify_days: whole months (of
// 30 days) out of the days; justify_interval: both, with one sign overall.
// As PostgreSQL does, so that signs come out alike.
Status Justify(const Interval& x, bool hours, bool days_too, Value* out) {
  int64_t months = x.months, days = x.days, time = x.micros;
  constexpr int64_t kDay = 86400000000LL;
  if (hours && days_too && ((days > 0 && time > 0) || (days < 0 && time < 0))) {
    months += days / 30;
    days -= days / 30 * 30;
  }
  if (hours) {
    days += time / kDay;
    time -= time / kDay * kDay;
  }
  if (days_too) {
    months += days / 30;
    days -= days / 30 * 30;
    if (months > 0 && (days < 0 || (days == 0 && hours && time < 0))) {
      days += 30;
      --months;
    } else if (months < 0 && (days > 0 || (days == 0 && hours && time > 0))) {
      days -= 30;
      ++months;
    }
  }
  if (hours) {
    if (days > 0 && time < 0) {
      time += kDay;
      --days;
    } else if (days < 0 && time > 0) {
      time -= kDay;
      ++days;
    }
  }
  if (months != static_cast<int32_t>(months) || days != static_cast<int32_t>(days)) {
    return Status::InvalidArgument("interval out of range");
  }
  *out = Value::MakeInterval(static_cast<int32_t>(months), static_cast<int32_t>(days), time);
  return Status::OK();
}
Status JustifyHours(const SqlType&, const Value* a, size_t, Value* out) {
  return Justify(a[0].interval_value(), true, false, out);
}
Status JustifyDays(const SqlType&, const Value* a, size_t, Value* out) {
  return Justify(a[0].interval_value(), false, true, out);
}
Status JustifyInterval(const SqlType&, const Value* a, size_t, Value* out) {
  return Justify(a[0].interval_value(), true, true, out);
}
// make_date, make_time, make_timestamp: PostgreSQL's checks and errors (a
// negative year is BC; year 0 does not exist; 24:00:00 is a time).
Status CheckedDays(int64_t year, int64_t month, int64_t day, int64_t* days) {
  const int64_t y = year > 0 ? year : year + 1;  // astronomical
  const bool ok = year != 0 && month >= 1 && month <= 12 && day >= 1 &&
                  day <= DaysFromCivil(month == 12 ? y + 1 : y,
                                       static_cast<unsigned>(month == 12 ? 1 : month + 1), 1) -
                             DaysFromCivil(y, static_cast<unsigned>(month), 1);
  if (!ok) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "date field value out of range: %lld-%02lld-%02lld",
                  static_cast<long long>(year), static_cast<long long>(month),
                  static_cast<long long>(day));
    return Status::InvalidArgument(buf);
  }
  *days = DaysFromCivil(y, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return Status::OK();
}
Status CheckedClock(int64_t hour, int64_t min, double sec, int64_t* micros) {
  if (hour < 0 || min < 0 || min > 59 || !(sec >= 0) || sec > 60 || hour > 24 ||
      (hour == 24 && (min > 0 || sec > 0))) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "time field value out of range: %lld:%02lld:%02g",
                  static_cast<long long>(hour), static_cast<long long>(min), sec);
    return Status::InvalidArgument(buf);
  }
  *micros = (hour * 60 + min) * 60000000 + static_cast<int64_t>(std::rint(sec * 1e6));
  return Status::OK();
}
Status MakeDate(const SqlType&, const Value* a, size_t, Value* out) {
  int64_t days;
  SLUICE_RETURN_IF_ERROR(CheckedDays(a[0].int_value(), a[1].int_value(), a[2].int_value(), &days));
  *out = Value::Int(days);
  return Status::OK();
}
Status MakeTime(const SqlType&, const Value* a, size_t, Value* out) {
  int64_t micros;
  SLUICE_RETURN_IF_ERROR(
      CheckedClock(a[0].int_value(), a[1].int_value(), a[2].double_value(), &micros));
  *out = Value::Int(micros);
  return Status::OK();
}
Status MakeTimestamp(const SqlType&, const Value* a, size_t, Value* out) {
  int64_t days, micros;
  SLUICE_RETURN_IF_ERROR(CheckedDays(a[0].int_value(), a[1].int_value(), a[2].int_value(), &days));
  SLUICE_RETURN_IF_ERROR(
      CheckedClock(a[3].int_value(), a[4].int_value(), a[5].double_value(), &micros));
  *out = Value::Int(days * kMicrosPerDay + micros);
  return Status::OK();
}
// make_interval([years [, months [, weeks [, days [, hours [, mins [,
// secs]]]]]]]): the parameters left out are 0.
Status MakeIntervalFn(const SqlType&, const Value* a, size_t n, Value* out) {
  int128 f[6] = {0, 0, 0, 0, 0, 0};
  for (size_t i = 0; i < n && i < 6; ++i) f[i] = a[i].int_value();
  const double secs = n == 7 ? a[6].double_value() : 0;
  const Status range = Status::InvalidArgument("interval out of range");
  if (!std::isfinite(secs) || std::fabs(secs) > 9.3e12) return range;
  const int128 months = f[0] * 12 + f[1], days = f[2] * 7 + f[3];
  const int128 micros =
      f[4] * 3600000000LL + f[5] * 60000000LL + static_cast<int128>(std::nearbyint(secs * 1e6));
  if (months < INT32_MIN || months > INT32_MAX || days < INT32_MIN || days > INT32_MAX ||
      micros < INT64_MIN || micros > INT64_MAX) {
    return range;
  }
  *out = Value::MakeInterval(static_cast<int32_t>(months), static_cast<int32_t>(days),
                             static_cast<int64_t>(micros));
  return Status::OK();
}

Status IsFiniteDate(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(!IsInfiniteDate(a[0].int_value()));
  return Status::OK();
}
Status IsFiniteTimestamp(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(!IsInfiniteTimestamp(a[0].int_value()));
  return Status::OK();
}
Status IsFiniteInterval(const SqlType&, const Value*, size_t, Value* out) {
  *out = Value::Bool(true);  // PostgreSQL 15's intervals are always finite
  return Status::OK();
}
Status IntervalSub(const SqlType&, const Value* a, size_t, Value* out) {
  const Interval& x = a[0].interval_value();
  const Interval& y = a[1].interval_value();
  *out = Value::MakeInterval(x.months - y.months, x.days - y.days, x.micros - y.micros);
  return Status::OK();
}
// date_bin(stride, source, origin): the start of the stride-long bin that
// holds source, counting bins from origin (tumbling windows).
Status DateBin(const SqlType&, const Value* a, size_t, Value* out) {
  const Interval& iv = a[0].interval_value();
  if (iv.months != 0) {
    return Status::InvalidArgument(
        "timestamps cannot be binned into intervals containing months or years");
  }
  int64_t stride = iv.days * kMicrosPerDay + iv.micros;
  if (stride <= 0) return Status::InvalidArgument("stride must be greater than zero");
  int64_t diff = a[1].int_value() - a[2].int_value();
  int64_t bins = diff / stride - (diff % stride < 0);
  *out = Value::Int(a[2].int_value() + bins * stride);
  return Status::OK();
}
// A timestamp taken apart: its day, time of day and calendar date.
struct Civil {
  int64_t days, clock, y;
  unsigned m, d;
};
Civil Split(int64_t ts) {
  Civil c;
  c.days = ts / kMicrosPerDay - (ts % kMicrosPerDay < 0);
  c.clock = ts - c.days * kMicrosPerDay;
  CivilFromDays(c.days, &c.y, &c.m, &c.d);
  return c;
}
std::string LowerCase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A unit's name as date_trunc() takes it, in any of PostgreSQL's spellings
// (years, yr, mins, usec...): its canonical name, or itself if unknown.
std::string TruncUnit(const std::string& s) {
  static const std::map<std::string, std::string, std::less<>> kAliases = {
      {"y", "year"},
      {"years", "year"},
      {"yr", "year"},
      {"yrs", "year"},
      {"mon", "month"},
      {"mons", "month"},
      {"months", "month"},
      {"d", "day"},
      {"days", "day"},
      {"h", "hour"},
      {"hours", "hour"},
      {"hr", "hour"},
      {"hrs", "hour"},
      {"m", "minute"},
      {"min", "minute"},
      {"mins", "minute"},
      {"minutes", "minute"},
      {"s", "second"},
      {"sec", "second"},
      {"secs", "second"},
      {"seconds", "second"},
      {"ms", "millisecond"},
      {"msec", "millisecond"},
      {"msecs", "millisecond"},
      {"milliseconds", "millisecond"},
      {"msecond", "millisecond"},
      {"mseconds", "millisecond"},
      {"us", "microsecond"},
      {"usec", "microsecond"},
      {"usecs", "microsecond"},
      {"microseconds", "microsecond"},
      {"usecond", "microsecond"},
      {"useconds", "microsecond"},
      {"w", "week"},
      {"weeks", "week"},
      {"qtr", "quarter"},
      {"dec", "decade"},
      {"decades", "decade"},
      {"decs", "decade"},
      {"c", "century"},
      {"cent", "century"},
      {"centuries", "century"},
      {"mil", "millennium"},
      {"millennia", "millennium"},
      {"mils", "millennium"}};
  auto it = kAliases.find(s);
  return it == kAliases.end() ? s : it->second;
}

Status DateTrunc(const SqlType&, const Value* a, size_t, Value* out) {
  const std::string unit = TruncUnit(LowerCase(a[0].string_value()));
  if (IsInfiniteTimestamp(a[1].int_value())) {
    *out = a[1];
    return Status::OK();
  }
  const auto [days, clock, y, m, d] = Split(a[1].int_value());
  int64_t r;
  if (unit == "millennium" || unit == "century" || unit == "decade") {
    // The first year of the millennium (1001, 2001), century (1901, 2001)
    // or decade (1990, 2000) of the year; years are astronomical here (0 is
    // 1 BC), so for BC years the span runs the other way, as in PostgreSQL.
    const int64_t n = unit == "millennium" ? 1000 : unit == "century" ? 100 : 10;
    int64_t first;
    if (unit == "decade") {
      first = y > 0 ? y / 10 * 10 : -((8 - (y - 1)) / 10) * 10;
    } else {
      first = y > 0 ? (y + n - 1) / n * n - (n - 1) : -((n - 1 - (y - 1)) / n) * n + 1;
    }
    r = DaysFromCivil(first, 1, 1) * kMicrosPerDay;
  } else if (unit == "microsecond") {
    r = a[1].int_value();
  } else if (unit == "year") {
    r = DaysFromCivil(y, 1, 1) * kMicrosPerDay;
  } else if (unit == "quarter") {
    r = DaysFromCivil(y, (m - 1) / 3 * 3 + 1, 1) * kMicrosPerDay;
  } else if (unit == "month") {
    r = DaysFromCivil(y, m, 1) * kMicrosPerDay;
  } else if (unit == "week") {
    int64_t dow = ((days + 3) % 7 + 7) % 7;  // 0 = Monday
    r = (days - dow) * kMicrosPerDay;
  } else if (unit == "day") {
    r = days * kMicrosPerDay;
  } else if (unit == "hour" || unit == "minute" || unit == "second" || unit == "milliseconds" ||
             unit == "millisecond") {
    int64_t q = unit == "hour"     ? 3600000000LL
                : unit == "minute" ? 60000000LL
                : unit == "second" ? 1000000
                                   : 1000;
    r = days * kMicrosPerDay + clock / q * q;
  } else {
    return Status::InvalidArgument("unit \"" + unit + "\" not recognized for type timestamp");
  }
  *out = Value::Int(r);
  return Status::OK();
}
// date_trunc(unit, interval), PostgreSQL's interval_trunc: the interval as
// years, months (under 12), days, hours, minutes, seconds and microseconds,
// each the same sign as what it comes from, with the fields below the unit
// zeroed (a decade keeps whole decades of years, a quarter whole quarters of
// months). A week is refused, as months hold no whole number of them.
Status DateTruncInterval(const SqlType&, const Value* a, size_t, Value* out) {
  const std::string unit = TruncUnit(LowerCase(a[0].string_value()));
  const Interval& v = a[1].interval_value();
  int64_t years = v.months / 12, months = v.months % 12, days = v.days;
  int64_t hours = v.micros / 3600000000LL, rest = v.micros % 3600000000LL;
  int64_t minutes = rest / 60000000, seconds = rest % 60000000 / 1000000, micros = rest % 1000000;
  static const char* const kOrder[] = {"millennium", "century", "decade", "year",   "quarter",
                                       "month",      "day",     "hour",   "minute", "second"};
  int level = -1;
  for (int i = 0; i < 10; ++i) {
    if (unit == kOrder[i]) level = i;
  }
  if (level >= 0) {
    // Each unit zeroes its own fields and those of every smaller unit.
    if (level <= 0) years = years / 1000 * 1000;
    if (level <= 1) years = years / 100 * 100;
    if (level <= 2) years = years / 10 * 10;
    if (level <= 3) months = 0;
    if (level <= 4) months = months / 3 * 3;
    if (level <= 5) days = 0;
    if (level <= 6) hours = 0;
    if (level <= 7) minutes = 0;
    if (level <= 8) seconds = 0;
    micros = 0;
  } else if (unit == "millisecond") {
    micros = micros / 1000 * 1000;
  } else if (unit == "week") {
    return Status::InvalidArgument(
        "interval units \"week\" not supported because months usually have fractional weeks");
  } else if (unit != "microsecond") {
    return Status::InvalidArgument("unit \"" + unit + "\" not recognized for type interval");
  }
  *out = Value::MakeInterval(static_cast<int32_t>(years * 12 + months), static_cast<int32_t>(days),
                             ((hours * 60 + minutes) * 60 + seconds) * 1000000 + micros);
  return Status::OK();
}

// Of an infinite timestamp, PostgreSQL's fields that only grow with time are
// infinite too; the others are NULL.
bool GrowsWithTime(const std::string& field) {
  return field == "epoch" || field == "year" || field == "decade" || field == "century" ||
         field == "millennium" || field == "julian" || field == "isoyear";
}

Status Extract(const SqlType& t, const Value* a, size_t n, Value* out) {
  const std::string field = TruncUnit(LowerCase(a[0].string_value()));
  const int64_t ts = a[1].int_value();
  if (IsInfiniteTimestamp(ts)) {
    const Value finite[2] = {a[0], Value::Int(0)};
    SLUICE_RETURN_IF_ERROR(Extract(t, finite, n, out));  // a field it knows?
    if (GrowsWithTime(field)) {
      *out = Value::DecimalInf(ts < 0);
      return Status::OK();
    }
    *out = Value::Null();
    return Status::OK();
  }
  const auto [days, clock, y, m, d] = Split(ts);
  int128 v;  // at scale 6
  if (field == "year") {
    v = static_cast<int128>(y > 0 ? y : y - 1) * 1000000;  // no year 0: 1 BC is -1
  } else if (field == "month") {
    v = static_cast<int128>(m) * 1000000;
  } else if (field == "day") {
    v = static_cast<int128>(d) * 1000000;
  } else if (field == "hour") {
    v = static_cast<int128>(clock / 3600000000LL) * 1000000;
  } else if (field == "minute") {
    v = static_cast<int128>(clock / 60000000 % 60) * 1000000;
  } else if (field == "second") {
    v = clock % 60000000;
  } else if (field == "dow") {
    v = static_cast<int128>(((days + 4) % 7 + 7) % 7) * 1000000;  // 0 = Sunday
  } else if (field == "doy") {
    v = static_cast<int128>(days - DaysFromCivil(y, 1, 1) + 1) * 1000000;
  } else if (field == "epoch") {
    v = ts;
  } else if (field == "quarter") {
    v = static_cast<int128>((m - 1) / 3 + 1) * 1000000;
  } else if (field == "decade") {
    v = static_cast<int128>(y >= 0 ? y / 10 : -((9 - y) / 10)) * 1000000;
  } else if (field == "century") {
    v = static_cast<int128>(y > 0 ? (y + 99) / 100 : -((99 - (y - 1)) / 100)) * 1000000;
  } else if (field == "millennium") {
    v = static_cast<int128>(y > 0 ? (y + 999) / 1000 : -((999 - (y - 1)) / 1000)) * 1000000;
  } else if (field == "microseconds" || field == "microsecond") {
    v = static_cast<int128>(clock % 60000000) * 1000000;
  } else if (field == "milliseconds" || field == "millisecond") {
    v = static_cast<int128>(clock % 60000000) * 1000;
  } else if (field == "isodow") {
    v = static_cast<int128>(((days + 3) % 7 + 7) % 7 + 1) * 1000000;  // 1 = Monday
  } else if (field == "week" || field == "isoyear") {
    // ISO 8601: weeks start on Monday; week 1 holds the year's first Thursday.
    const int64_t dow = ((days + 3) % 7 + 7) % 7;  // 0 = Monday
    const int64_t thursday = days - dow + 3;
    int64_t ty;
    unsigned tm, td;
    CivilFromDays(thursday, &ty, &tm, &td);
    const int64_t week = (thursday - DaysFromCivil(ty, 1, 1)) / 7 + 1;
    v = static_cast<int128>(field == "week" ? week : ty > 0 ? ty : ty - 1) * 1000000;
  } else if (field == "julian") {
    // Julian day number, with the time of day as a fraction.
    v = static_cast<int128>(days + 2440588) * 1000000 + static_cast<int128>(clock) / 86400;
  } else {
    return Status::InvalidArgument("unit \"" + LowerCase(a[0].string_value()) +
                                   "\" not recognized for type timestamp");
  }
  *out = Value::Decimal(v, 6);
  return Status::OK();
}

// EXTRACT from an interval: each field of its months, days and
// microseconds (truncated toward zero, as PostgreSQL does); the epoch
// counts a year as 365.25 days and a month as 30.
Status ExtractInterval(const SqlType&, const Value* a, size_t, Value* out) {
  const std::string field = TruncUnit(LowerCase(a[0].string_value()));
  const Interval& iv = a[1].interval_value();
  const int64_t years = iv.months / 12, months = iv.months % 12;
  int128 v;  // at scale 6
  auto whole = [](int64_t n) { return static_cast<int128>(n) * 1000000; };
  if (field == "millennium") {
    v = whole(years / 1000);
  } else if (field == "century") {
    v = whole(years / 100);
  } else if (field == "decade") {
    v = whole(years / 10);
  } else if (field == "year") {
    v = whole(years);
  } else if (field == "quarter") {
    v = whole(months / 3 + 1);
  } else if (field == "month") {
    v = whole(months);
  } else if (field == "day") {
    v = whole(iv.days);
  } else if (field == "hour") {
    v = whole(iv.micros / 3600000000LL);
  } else if (field == "minute") {
    v = whole(iv.micros / 60000000 % 60);
  } else if (field == "second") {
    v = iv.micros % 60000000;
  } else if (field == "milliseconds" || field == "millisecond") {
    v = static_cast<int128>(iv.micros % 60000000) * 1000;
  } else if (field == "microseconds" || field == "microsecond") {
    v = whole(iv.micros % 60000000);
  } else if (field == "epoch") {
    // PostgreSQL: years of 365.25 days, months of 30 days, in seconds.
    v = static_cast<int128>(years) * 36525 * 864 * 1000000 +
        static_cast<int128>(months) * 30 * 86400 * 1000000 +
        static_cast<int128>(iv.days) * 86400 * 1000000 + iv.micros;
  } else {
    return Status::InvalidArgument("unit \"" + LowerCase(a[0].string_value()) +
                                   "\" not supported for type interval");
  }
  *out = Value::Decimal(v, 6);
  return Status::OK();
}

// EXTRACT from a DATE: the date's fields as whole numbers (scale 0), as in
// PostgreSQL; a time of day's are an error.
Status ExtractDate(const SqlType& t, const Value* a, size_t n, Value* out) {
  const std::string field = TruncUnit(LowerCase(a[0].string_value()));
  if (field == "hour" || field == "minute" || field == "second" || field == "milliseconds" ||
      field == "millisecond" || field == "microseconds" || field == "microsecond") {
    return Status::InvalidArgument("unit \"" + LowerCase(a[0].string_value()) +
                                   "\" not supported for type date");
  }
  const int64_t days = a[1].int_value();
  const Value ts[2] = {a[0], Value::Int(days == kDatePosInfinity   ? kTsPosInfinity
                                        : days == kDateNegInfinity ? kTsNegInfinity
                                                                   : days * kMicrosPerDay)};
  SLUICE_RETURN_IF_ERROR(Extract(t, ts, n, out));
  if (!out->is_null() && out->decimal_special() == DecimalSpecial::kFinite) {
    *out = Value::Decimal(out->decimal_unscaled() / 1000000, 0);
  }
  return Status::OK();
}

Status DatePart(const SqlType& t, const Value* a, size_t n, Value* out) {
  const int64_t ts = a[1].int_value();
  if (IsInfiniteTimestamp(ts) && GrowsWithTime(TruncUnit(LowerCase(a[0].string_value())))) {
    *out = Value::Double(ts > 0 ? HUGE_VAL : -HUGE_VAL);
    return Status::OK();
  }
  SLUICE_RETURN_IF_ERROR(Extract(t, a, n, out));
  if (out->is_null()) return Status::OK();
  *out = Value::Double(static_cast<double>(out->decimal_unscaled()) / 1e6);
  return Status::OK();
}

// A TIME's fields are a day's: hour, minute, second (and its milli- and
// microseconds) and the epoch (seconds since midnight), as an interval of
// that many microseconds gives them.
Status ExtractTime(const SqlType& t, const Value* a, size_t n, Value* out) {
  const std::string field = TruncUnit(LowerCase(a[0].string_value()));
  if (field != "hour" && field != "minute" && field != "second" && field != "milliseconds" &&
      field != "millisecond" && field != "microseconds" && field != "microsecond" &&
      field != "epoch") {
    return Status::InvalidArgument("unit \"" + LowerCase(a[0].string_value()) +
                                   "\" not supported for type time without time zone");
  }
  const Value as_interval[2] = {a[0], Value::MakeInterval(0, 0, a[1].int_value())};
  return ExtractInterval(t, as_interval, n, out);
}

// A TIME WITH TIME ZONE's fields: those of its time of day, but the epoch
// is of its UTC time (seconds since midnight UTC, not wrapped around the
// day), and the zone's own: timezone (seconds east of UTC), timezone_hour
// and timezone_minute, as PostgreSQL's timetz_part gives them.
Status ExtractTimeTz(const SqlType& t, const Value* a, size_t n, Value* out) {
  const std::string field = TruncUnit(LowerCase(a[0].string_value()));
  const TimeTz tz = TimeTz::Decode(a[1].int_value());
  const int64_t east = -static_cast<int64_t>(tz.zone_west);
  if (field == "timezone" || field == "timezone_hour" || field == "timezone_minute") {
    const int64_t x = field == "timezone"        ? east
                      : field == "timezone_hour" ? east / 3600
                                                 : east / 60 % 60;
    *out = Value::Decimal(static_cast<int128>(x) * 1000000, 6);
    return Status::OK();
  }
  if (field != "hour" && field != "minute" && field != "second" && field != "milliseconds" &&
      field != "millisecond" && field != "microseconds" && field != "microsecond" &&
      field != "epoch") {
    return Status::InvalidArgument("unit \"" + LowerCase(a[0].string_value()) +
                                   "\" not supported for type time with time zone");
  }
  const int64_t micros =
      field == "epoch" ? tz.micros + static_cast<int64_t>(tz.zone_west) * 1000000 : tz.micros;
  const Value as_interval[2] = {a[0], Value::MakeInterval(0, 0, micros)};
  return ExtractInterval(t, as_interval, n, out);
}

Status DatePartTimeTz(const SqlType& t, const Value* a, size_t n, Value* out) {
  SLUICE_RETURN_IF_ERROR(ExtractTimeTz(t, a, n, out));
  *out = Value::Double(static_cast<double>(out->decimal_unscaled()) / 1e6);
  return Status::OK();
}

Status DatePartTime(const SqlType& t, const Value* a, size_t n, Value* out) {
  SLUICE_RETURN_IF_ERROR(ExtractTime(t, a, n, out));
  *out = Value::Double(static_cast<double>(out->decimal_unscaled()) / 1e6);
  return Status::OK();
}

Status DatePartInterval(const SqlType& t, const Value* a, size_t n, Value* out) {
  SLUICE_RETURN_IF_ERROR(ExtractInterval(t, a, n, out));
  *out = Value::Double(static_cast<double>(out->decimal_unscaled()) / 1e6);
  return Status::OK();
}

}  // namespace

std::string CanonicalDateUnit(std::string_view unit) {
  return TruncUnit(LowerCase(std::string(unit)));
}

bool ResolveDateTime(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r) {
  auto fn = [&](ScalarFn f, const char* fn_name, std::vector<SqlType> arg_types, SqlType res) {
    return Resolve(r, f, fn_name, std::move(res), std::move(arg_types));
  };
  const SqlType iv = SqlType::Interval();
  auto number = [](const SqlType& t) {
    return t.IsInteger() || t.id() == TypeId::kDecimal || t.id() == TypeId::kDouble ||
           t.id() == TypeId::kReal;
  };
  if (name == "-" && args.size() == 1 && args[0].id() == TypeId::kInterval) {
    return fn(IntervalNeg, "-", {iv}, iv);
  }
  if (args.size() == 2 && (name == "*" || name == "/")) {
    if (args[0].id() == TypeId::kInterval && number(args[1])) {
      return fn(name == "*" ? IntervalMul : IntervalDiv, name == "*" ? "*" : "/",
                {iv, SqlType::Double()}, iv);
    }
    if (name == "*" && number(args[0]) && args[1].id() == TypeId::kInterval) {
      return fn(MulIntervalRight, "*", {SqlType::Double(), iv}, iv);
    }
  }
  auto integers = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      if (!args[i].IsInteger()) return false;
    }
    return true;
  };
  const SqlType i32 = SqlType::Integer(), f64 = SqlType::Double();
  if (name == "make_date" && args.size() == 3 && integers(0, 3)) {
    return fn(MakeDate, "make_date", {i32, i32, i32}, SqlType::Date());
  }
  if (name == "make_interval" && args.size() <= 7 &&
      integers(0, std::min<size_t>(args.size(), 6)) && (args.size() < 7 || number(args[6]))) {
    std::vector<SqlType> types(args.size(), i32);
    if (args.size() == 7) types[6] = f64;
    return fn(MakeIntervalFn, "make_interval", types, SqlType::Interval());
  }
  if (name == "make_time" && args.size() == 3 && integers(0, 2) && number(args[2])) {
    return fn(MakeTime, "make_time", {i32, i32, f64}, SqlType::Time());
  }
  if (name == "make_timestamp" && args.size() == 6 && integers(0, 5) && number(args[5])) {
    return fn(MakeTimestamp, "make_timestamp", {i32, i32, i32, i32, i32, f64},
              SqlType::Timestamp());
  }
  if (name == "isfinite" && args.size() == 1) {
    const SqlType b = SqlType::Boolean();
    if (args[0].id() == TypeId::kDate) return fn(IsFiniteDate, "isfinite", {args[0]}, b);
    if (args[0].id() == TypeId::kTimestamp) {
      return fn(IsFiniteTimestamp, "isfinite", {args[0]}, b);
    }
    if (args[0].id() == TypeId::kInterval) return fn(IsFiniteInterval, "isfinite", {iv}, b);
  }
  if ((name == "timestamp" || name == "timestamptz" || name == "time") && args.size() == 2 &&
      (args[0].id() == TypeId::kTimestamp ||
       (args[0].id() == TypeId::kTime && !args[0].with_time_zone())) &&
      args[0].with_time_zone() == (name == "timestamptz") && args[1].IsInteger()) {
    const char* typmod_name = name == "time"          ? "time"
                              : name == "timestamptz" ? "timestamptz"
                                                      : "timestamp";
    return fn(TimeTypmod, typmod_name, {args[0], i32}, args[0]);
  }
  if (name == "interval" && args.size() == 2 && args[0].id() == TypeId::kInterval &&
      args[1].IsInteger()) {
    return fn(IntervalTypmod, "interval", {iv, i32}, iv);
  }
  if (args.size() == 1 && args[0].id() == TypeId::kInterval) {
    if (name == "justify_hours") return fn(JustifyHours, "justify_hours", {iv}, iv);
    if (name == "justify_days") return fn(JustifyDays, "justify_days", {iv}, iv);
    if (name == "justify_interval") return fn(JustifyInterval, "justify_interval", {iv}, iv);
  }
  if ((name == "+" || name == "-") && args.size() == 2) {
    const TypeId x = args[0].id(), y = args[1].id();
    const bool plus = name == "+";
    auto dt = [&](ScalarFn fn, SqlType a0, SqlType a1, SqlType res) {
      r->fn = fn;
      r->name = plus ? "+" : "-";
      r->arg_types = {a0, a1};
      r->result = res;
      return true;
    };
    // timestamp with time zone in, timestamp with time zone out.
    const SqlType ts = args[0].with_time_zone() || args[1].with_time_zone() ? SqlType::TimestampTz()
                                                                            : SqlType::Timestamp();
    const SqlType iv = SqlType::Interval(), date = SqlType::Date();
    if ((x == TypeId::kTimestamp || x == TypeId::kDate) && y == TypeId::kInterval) {
      return dt(plus ? TsPlusInterval : TsMinusInterval, ts, iv, ts);
    }
    if (plus && x == TypeId::kInterval && (y == TypeId::kTimestamp || y == TypeId::kDate)) {
      return dt(IntervalPlusTs, iv, ts, ts);
    }
    if (!plus && x == TypeId::kTimestamp && y == TypeId::kTimestamp)
      return dt(TsMinusTs, ts, ts, iv);
    if (x == TypeId::kDate && args[1].IsInteger()) {
      return dt(plus ? DatePlusInt : DateMinusInt, date, SqlType::Integer(), date);
    }
    if (!plus && x == TypeId::kDate && y == TypeId::kDate)
      return dt(DateMinusDate, date, date, SqlType::Integer());
    if (x == TypeId::kInterval && y == TypeId::kInterval)
      return dt(plus ? IntervalAdd : IntervalSub, iv, iv, iv);
    if (x == TypeId::kTime && y == TypeId::kInterval) {
      const SqlType time = args[0].IsTimeTz() ? SqlType::TimeTz() : SqlType::Time();
      return dt(plus ? ShiftTime<+1, false> : ShiftTime<-1, false>, time, iv, time);
    }
    if (plus && x == TypeId::kInterval && y == TypeId::kTime) {
      const SqlType time = args[1].IsTimeTz() ? SqlType::TimeTz() : SqlType::Time();
      return dt(ShiftTime<+1, true>, iv, time, time);
    }
  }
  if (name == "age" && args.size() == 2 &&
      std::all_of(args.begin(), args.end(), [](const SqlType& t) {
        return t.id() == TypeId::kTimestamp || t.id() == TypeId::kDate;
      })) {
    // A DATE is a timestamp with time zone, as PostgreSQL resolves it.
    const bool tz = std::any_of(args.begin(), args.end(), [](const SqlType& t) {
      return t.id() == TypeId::kDate || t.with_time_zone();
    });
    const SqlType ts = tz ? SqlType::TimestampTz() : SqlType::Timestamp();
    return Resolve(r, Age, "age", SqlType::Interval(), {ts, ts});
  }
  if (name == "date_bin" && args.size() == 3 && args[0].id() == TypeId::kInterval) {
    r->fn = DateBin;
    r->name = "date_bin";
    const SqlType ts = args[1].with_time_zone() || args[2].with_time_zone() ? SqlType::TimestampTz()
                                                                            : SqlType::Timestamp();
    r->arg_types = {SqlType::Interval(), ts, ts};
    r->result = ts;
    return true;
  }
  if (name == "date_trunc" && args.size() == 2 && args[0].IsString() &&
      (args[1].id() == TypeId::kTimestamp || args[1].id() == TypeId::kDate)) {
    r->fn = DateTrunc;
    r->name = "date_trunc";
    // A DATE is a timestamp with time zone here, as PostgreSQL resolves it
    // (the preferred type of its category).
    const SqlType ts = args[1].id() == TypeId::kDate || args[1].with_time_zone()
                           ? SqlType::TimestampTz()
                           : SqlType::Timestamp();
    r->arg_types = {Text(), ts};
    r->result = ts;
    return true;
  }
  if (name == "date_trunc" && args.size() == 2 && args[0].IsString() &&
      args[1].id() == TypeId::kInterval) {
    return Resolve(r, DateTruncInterval, "date_trunc", SqlType::Interval(),
                   {Text(), SqlType::Interval()});
  }
  if ((name == "extract" || name == "date_part") && args.size() == 2 && args[0].IsString() &&
      args[1].id() == TypeId::kInterval) {
    r->fn = ExtractInterval;
    r->name = "extract";
    r->arg_types = {Text(), SqlType::Interval()};
    r->result = SqlType::Decimal(38, 6);
    if (name == "date_part") {
      r->fn = DatePartInterval;
      r->name = "date_part";
      r->result = SqlType::Double();
    }
    return true;
  }
  if ((name == "extract" || name == "date_part") && args.size() == 2 && args[0].IsString() &&
      args[1].IsTimeTz()) {
    const bool part = name == "date_part";
    return fn(part ? DatePartTimeTz : ExtractTimeTz, part ? "date_part" : "extract",
              {Text(), SqlType::TimeTz()}, part ? SqlType::Double() : SqlType::Decimal(38, 6));
  }
  if ((name == "extract" || name == "date_part") && args.size() == 2 && args[0].IsString() &&
      args[1].id() == TypeId::kTime) {
    const bool part = name == "date_part";
    return fn(part ? DatePartTime : ExtractTime, part ? "date_part" : "extract",
              {Text(), SqlType::Time()}, part ? SqlType::Double() : SqlType::Decimal(38, 6));
  }
  if (name == "extract" && args.size() == 2 && args[0].IsString() &&
      args[1].id() == TypeId::kDate) {
    return fn(ExtractDate, "extract", {Text(), SqlType::Date()}, SqlType::Decimal(38, 0));
  }
  if ((name == "extract" || name == "date_part") && args.size() == 2 && args[0].IsString() &&
      (args[1].id() == TypeId::kTimestamp || args[1].id() == TypeId::kDate)) {
    r->fn = Extract;
    r->name = "extract";
    r->arg_types = {Text(), SqlType::Timestamp()};
    r->result = SqlType::Decimal(38, 6);
    if (name == "date_part") {  // date_part() is double precision in PostgreSQL
      r->fn = DatePart;
      r->name = "date_part";
      r->result = SqlType::Double();
    }
    return true;
  }
  return false;
}

}  // namespace sluice::sql
