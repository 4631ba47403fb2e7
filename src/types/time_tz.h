// A TIME WITH TIME ZONE value (PostgreSQL's timetz): a time of day and the
// UTC offset it was written with, both kept, as PostgreSQL keeps them.
//
// A row holds it as one int64 (TypeId::kTime with with_time_zone()) whose
// integer order is PostgreSQL's (timetz_cmp): first the UTC-adjusted time,
// then the zone. So sorting, grouping, joins, MIN/MAX and RANGE frames work
// on the int64 as on any other integer. The layout, from the high bits:
//
//   utc_micros * 2^17 + (zone_west + 2^16)
//
// where utc_micros = micros + zone_west * 1,000,000 (PostgreSQL's "true
// (GMT-equivalent) time"; not wrapped around the day, so it lies within
// -16 h and 40 h) and zone_west is the offset in seconds west of UTC, as
// PostgreSQL stores it (-08 is 28800), within +-15:59:59. The magnitudes fit:
// |utc_micros| < 2^38, so the product stays below 2^55.
//
// Thread safety: plain values.
#pragma once

#include <cstdint>

namespace sluice {

struct TimeTz {
  // Microseconds since midnight of the local time of day, 0 to 24:00:00.
  int64_t micros = 0;
  // Seconds west of UTC: PostgreSQL's sign, the opposite of the "+05:30"
  // written after the time.
  int32_t zone_west = 0;

  static constexpr int kZoneBits = 17;
  static constexpr int32_t kZoneBias = 1 << 16;
  // PostgreSQL's limit of a zone's offset: 15:59:59 either way.
  static constexpr int32_t kMaxZoneSeconds = 15 * 3600 + 59 * 60 + 59;
  static constexpr int64_t kMicrosPerDay = 86400LL * 1000000LL;

  int64_t Encode() const {
    const int64_t utc = micros + static_cast<int64_t>(zone_west) * 1000000;
    return utc * (int64_t{1} << kZoneBits) + (zone_west + kZoneBias);
  }
  static TimeTz Decode(int64_t v) {
    constexpr int64_t kUnit = int64_t{1} << kZoneBits;
    int64_t utc = v / kUnit, low = v % kUnit;
    if (low < 0) low += kUnit, --utc;  // floor division
    TimeTz t;
    t.zone_west = static_cast<int32_t>(low - kZoneBias);
    t.micros = utc - static_cast<int64_t>(t.zone_west) * 1000000;
    return t;
  }
  // Whether `v` is the encoding of a time within the day and a zone within
  // PostgreSQL's limits.
  static bool IsValidEncoding(int64_t v) {
    const TimeTz t = Decode(v);
    return t.micros >= 0 && t.micros <= kMicrosPerDay && t.zone_west >= -kMaxZoneSeconds &&
           t.zone_west <= kMaxZoneSeconds;
  }
};

}  // namespace sluice
