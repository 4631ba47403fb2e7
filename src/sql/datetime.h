// Dates, times, timestamps and intervals: their text forms (PostgreSQL's
// ISO style) and calendar arithmetic. DATE is days since 1970-01-01, TIME
// microseconds since midnight, TIMESTAMP microseconds since 1970-01-01
// 00:00:00, all on the proleptic Gregorian calendar.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "types/time_tz.h"
#include "types/value.h"

namespace sluice::sql {

constexpr int64_t kMicrosPerDay = 86400LL * 1000000LL;

// 'infinity' and '-infinity', as PostgreSQL keeps them: the extreme values of
// its 32-bit dates and 64-bit timestamps, so that they sort after and before
// every other value. Arithmetic leaves them as they are.
constexpr int64_t kDateNegInfinity = INT32_MIN, kDatePosInfinity = INT32_MAX;
constexpr int64_t kTsNegInfinity = INT64_MIN, kTsPosInfinity = INT64_MAX;
inline bool IsInfiniteDate(int64_t d) { return d == kDateNegInfinity || d == kDatePosInfinity; }
inline bool IsInfiniteTimestamp(int64_t t) { return t == kTsNegInfinity || t == kTsPosInfinity; }

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d);
void CivilFromDays(int64_t days, int64_t* y, unsigned* m, unsigned* d);

// PostgreSQL's DateStyle input order: how the numbers of a date that is
// not YYYY-MM-DD read ('1/8/1999' is January 8 in MDY, August 1 in DMY;
// '01/02/03' is 2001-02-03 in YMD). The parsers below read the order of
// their thread, MDY unless a DateOrderScope says otherwise, so that a
// session's setting reaches every date the binder reads for it.
enum class DateOrder : uint8_t { kMDY, kDMY, kYMD };
DateOrder CurrentDateOrder();
// Sets the thread's date order while it lives.
class DateOrderScope {
 public:
  explicit DateOrderScope(DateOrder order);
  ~DateOrderScope();
  DateOrderScope(const DateOrderScope&) = delete;
  DateOrderScope& operator=(const DateOrderScope&) = delete;

 private:
  DateOrder saved_;
};
// The start of the current transaction, which 'now', 'today', 'tomorrow'
// and 'yesterday' in text read (PostgreSQL reads transaction_timestamp()):
// microseconds since the epoch, UTC, while a TransactionTimeScope of the
// thread sets it; the clock otherwise.
class TransactionTimeScope {
 public:
  explicit TransactionTimeScope(std::optional<int64_t> micros);
  ~TransactionTimeScope();
  TransactionTimeScope(const TransactionTimeScope&) = delete;
  TransactionTimeScope& operator=(const TransactionTimeScope&) = delete;

 private:
  std::optional<int64_t> saved_;
};
// The thread's transaction time (a TransactionTimeScope's), else the
// clock's: microseconds since the epoch, UTC.
int64_t TransactionTime();
// The order a DateStyle value names ("ISO, DMY", "dmy", "euro", "us",
// "German"...), or `current` if it names none; false if a word is unknown
// or two orders conflict.
bool DateOrderFromStyle(std::string_view style, DateOrder current, DateOrder* out);
// "MDY", "DMY" or "YMD".
const char* DateOrderName(DateOrder order);

// Each returns false for text that is not a valid value.
bool ParseDate(std::string_view s, int64_t* days);
bool ParseTime(std::string_view s, int64_t* micros);
bool ParseTimestamp(std::string_view s, int64_t* micros);
// The same, as input formats take it (JSON, as JavaScript's toISOString()
// and most producers write timestamps): also a zone after the time, `Z`,
// `+HH`, `+HH:MM` or `+HHMM` (or `-`), and the result converted to UTC.
bool ParseTimestampInput(std::string_view s, int64_t* micros);
// TIMESTAMP WITH TIME ZONE text as PostgreSQL reads it: a timestamp in any
// form ParseTimestamp reads, then a zone, which converts it to UTC (the
// session's zone, UTC, without one): a signed offset after the clock
// (+HH, +HHMM, +HH:MM, +HH:MM:SS, or -) or an abbreviation (Z, UTC, GMT,
// PST, CEST, ... : PostgreSQL's default set, those of one fixed offset).
bool ParseTimestampTz(std::string_view s, int64_t* micros);
// A zone as ParseTimestampTz reads it, alone: seconds east of UTC.
bool ParseZone(std::string_view zone, int32_t* seconds_east);
// TIME WITH TIME ZONE text as PostgreSQL reads it: a time in any form
// ParseTime reads (a date before it is ignored), then a zone as
// ParseTimestampTz reads one ("11:00-08", "11:00:00+05:30", "1:00 PST",
// "11:00Z"); without one, the session's zone, UTC.
bool ParseTimeTz(std::string_view s, TimeTz* out);
// An interval's typmod, as PostgreSQL keeps it: the fields it is
// restricted to (INTERVAL DAY TO SECOND: YEAR 4, MONTH 2, DAY 8, HOUR 1024,
// MINUTE 2048, SECOND 4096) and its seconds' precision (0-6).
constexpr int kIntervalFullRange = 0x7FFF;
constexpr int kIntervalFullPrecision = 0xFFFF;

// Interval text in every form PostgreSQL reads: "1 year 2 mons 3 days
// 04:05:06.5", "@ 90 minutes ago", "1-2", "-1 +02:03", ISO 8601's "P1Y2M" and
// "P0001-02-03T04:05:06". With a field restriction, a bare number counts in
// its last field and "H:MM" is "MM:SS" in MINUTE TO SECOND; the fields after
// the last are dropped and the seconds rounded to the precision. The error
// is PostgreSQL's.
Status ParseIntervalTypmod(std::string_view s, int range, int precision, Interval* out);
bool ParseInterval(std::string_view s, Interval* out);  // no restriction
// Drops the fields after the range's last and rounds the seconds to the
// precision (half away from zero), as a cast to INTERVAL(p) fields does.
Status AdjustIntervalToTypmod(Interval* iv, int range, int precision);
// age(t1, t2): t1 - t2 in years, months, days and time, as the calendar
// counts them (PostgreSQL's timestamp_age): the fields are subtracted one
// by one, and a negative field borrows from the next, a day borrowing the
// length of the earlier timestamp's month. Both finite.
Interval TimestampAge(int64_t t1, int64_t t2);
// `micros` rounded to `precision` (0 to 6) digits after the point of its
// seconds, halves away from zero, as PostgreSQL rounds to a TIMESTAMP(p),
// TIME(p) or INTERVAL SECOND(p); nullopt if the rounded value is past the
// int64 range (PostgreSQL: "interval out of range").
std::optional<int64_t> RoundMicrosToPrecision(int64_t micros, int precision);

std::string FormatDate(int64_t days);
std::string FormatTime(int64_t micros);
std::string FormatTimestamp(int64_t micros);
// In UTC, the session's zone: "2000-10-19 09:23:54+00".
std::string FormatTimestampTz(int64_t micros);
// The time as FormatTime prints it, then its own zone as PostgreSQL prints
// it: "11:00:00-08", "11:00:00.5+05:30", "10:00:00+05:30:15".
std::string FormatTimeTz(const TimeTz& t);
// PostgreSQL's IntervalStyle: postgres ("1 year 2 mons -3 days +04:05:06"),
// postgres_verbose ("@ 1 year 2 mons -3 days 4 hours 5 mins 6 secs"),
// sql_standard ("+1-2 -3 +4:05:06") and iso_8601 ("P1Y2M-3DT4H5M6S").
enum class IntervalStyle { kPostgres, kPostgresVerbose, kSqlStandard, kIso8601 };
std::string FormatInterval(const Interval& iv, IntervalStyle style = IntervalStyle::kPostgres);
// The IntervalStyle that interval input is read in: in sql_standard, a
// leading sign applies to every field when no other field has one ('-1
// 2:00:00' is -1 days -2 hours), as PostgreSQL reads it. The parsers read
// their thread's, postgres unless an IntervalStyleScope says otherwise.
IntervalStyle CurrentIntervalStyle();
// Sets the thread's interval style while it lives.
class IntervalStyleScope {
 public:
  explicit IntervalStyleScope(IntervalStyle style);
  ~IntervalStyleScope();
  IntervalStyleScope(const IntervalStyleScope&) = delete;
  IntervalStyleScope& operator=(const IntervalStyleScope&) = delete;

 private:
  IntervalStyle saved_;
};

// timestamp + interval: months first (clamping the day to the month's
// length), then days, then microseconds, as PostgreSQL does.
bool AddInterval(int64_t ts, const Interval& iv, int sign, int64_t* out);

}  // namespace sluice::sql
