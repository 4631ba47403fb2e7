#include "types/row_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "types/big_decimal.h"
#include "types/time_tz.h"

namespace sluice {
namespace {

int128 Pow10(int n) {
  int128 p = 1;
  while (n-- > 0) p *= 10;
  return p;
}

std::string Encode(const SqlType& t, const Value& v) {
  std::string out;
  Status s = EncodeValue(t, v, &out);
  EXPECT_TRUE(s.ok()) << s.ToString() << " for " << t.ToString() << " " << v.ToString();
  return out;
}

void ExpectRoundTrip(const SqlType& t, const Value& v, const Value& expected) {
  std::string bytes = Encode(t, v);
  std::string_view in = bytes;
  Value back;
  Status s = DecodeValue(t, &in, &back);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(in.empty()) << t.ToString();
  EXPECT_EQ(back, expected) << t.ToString() << ": " << back.ToString() << " vs "
                            << expected.ToString();
  // Canonical: re-encoding the decoded value gives the same bytes.
  EXPECT_EQ(Encode(t, back), bytes) << t.ToString();
}

void ExpectRoundTrip(const SqlType& t, const Value& v) { ExpectRoundTrip(t, v, v); }

TEST(RowCodecTest, IntegersAtTheirLimits) {
  struct Case {
    SqlType type;
    int64_t lo, hi;
  } cases[] = {
      {SqlType::TinyInt(), -128, 127},
      {SqlType::SmallInt(), -32768, 32767},
      {SqlType::Integer(), std::numeric_limits<int32_t>::min(),
       std::numeric_limits<int32_t>::max()},
      {SqlType::BigInt(), std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()},
  };
  for (const auto& c : cases) {
    for (bool nullable : {true, false}) {
      SqlType t = c.type.WithNullable(nullable);
      for (int64_t v : {c.lo, c.hi, int64_t{0}, int64_t{-1}, int64_t{1}}) {
        ExpectRoundTrip(t, Value::Int(v));
      }
      EXPECT_LT(Encode(t, Value::Int(c.lo)), Encode(t, Value::Int(-1)));
      EXPECT_LT(Encode(t, Value::Int(-1)), Encode(t, Value::Int(0)));
      EXPECT_LT(Encode(t, Value::Int(0)), Encode(t, Value::Int(c.hi)));
    }
    ExpectRoundTrip(c.type, Value::Null());
    if (c.lo > std::numeric_limits<int64_t>::min()) {
      std::string out;
      Status s = EncodeValue(c.type, Value::Int(c.lo - 1), &out);
      EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
      EXPECT_NE(s.message().find("out of range"), std::string::npos) << s.message();
      s = EncodeValue(c.type, Value::Int(c.hi + 1), &out);
      EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    }
  }
}

TEST(RowCodecTest, Decimals) {
  int128 max38 = Pow10(38) - 1;
  for (int scale : {0, 2, 10, 38}) {
    SqlType t = SqlType::Decimal(38, scale);
    ExpectRoundTrip(t, Value::Decimal(max38, scale));
    ExpectRoundTrip(t, Value::Decimal(-max38, scale));
    ExpectRoundTrip(t, Value::Decimal(0, scale));
    ExpectRoundTrip(t, Value::Null());
    std::string out;
    EXPECT_EQ(EncodeValue(t, Value::Decimal(Pow10(38), scale), &out).code(),
              StatusCode::kInvalidArgument);
  }
  SqlType small = SqlType::Decimal(10, 2, false);
  ExpectRoundTrip(small, Value::Decimal(9999999999, 2));
  // Rescaling on assignment, rounding half away from zero.
  ExpectRoundTrip(small, Value::Decimal(12345, 3), Value::Decimal(1235, 2));
  ExpectRoundTrip(small, Value::Decimal(-12345, 3), Value::Decimal(-1235, 2));
  ExpectRoundTrip(small, Value::Decimal(7, 0), Value::Decimal(700, 2));
  EXPECT_LT(Encode(small, Value::Decimal(-1, 2)), Encode(small, Value::Decimal(1, 2)));
  EXPECT_EQ(DecimalToString(-max38, 38), "-0." + std::string(38, '9'));
  EXPECT_EQ(DecimalToString(-5, 2), "-0.05");
}

// NUMERIC keeps each value's scale, and its bytes sort as the values do
// (equal values by their scale), whatever the signs, sizes and scales.
TEST(RowCodecTest, NumericOfDynamicScale) {
  const SqlType t = SqlType::Numeric();
  const int128 max38 = Pow10(38) - 1;
  std::vector<Value> values = {
      Value::DecimalInf(true),  Value::Decimal(-max38, 0), Value::Decimal(-max38, 38),
      Value::Decimal(-150, 2),  Value::Decimal(-15, 1),    Value::Decimal(-1, 38),
      Value::Decimal(0, 0),     Value::Decimal(0, 3),      Value::Decimal(1, 38),
      Value::Decimal(1, 3),     Value::Decimal(15, 1),     Value::Decimal(150, 2),
      Value::Decimal(151, 2),   Value::Decimal(2, 0),      Value::Decimal(100000, 0),
      Value::Decimal(max38, 0), Value::DecimalInf(false),  Value::DecimalNaN()};
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    int128 u = static_cast<int128>(rng() % 2000000) - 1000000;
    for (int k = static_cast<int>(rng() % 4); k > 0; --k)
      u = u * 1000 + static_cast<int>(rng() % 1000);
    values.push_back(Value::Decimal(u, static_cast<int>(rng() % 20)));
  }
  // Values beyond the int128 form: up to 300 digits, scales up to 400, and
  // exponents beyond one byte's range.
  for (int i = 0; i < 600; ++i) {
    std::string digits(1 + rng() % 300, '0');
    for (char& c : digits) c = static_cast<char>('0' + rng() % 10);
    if (rng() % 3 == 0) digits.append(rng() % 40, '0');  // trailing zeros
    values.push_back(
        BigDecimal::FromDigits(rng() % 2, digits, static_cast<int>(rng() % 400)).ToValue());
  }
  values.push_back(BigDecimal::FromDigits(false, "1", 16383).ToValue());
  values.push_back(BigDecimal::FromDigits(true, "1" + std::string(131071, '0'), 0).ToValue());
  for (const Value& v : values) {
    ExpectRoundTrip(t, v);
    ExpectRoundTrip(t.WithNullable(false), v);
  }
  ExpectRoundTrip(t, Value::Null());
  // The expected order, from the values' decimal text: -Infinity, the
  // finite values, Infinity, NaN; equal values by scale (ascending for
  // positives, descending for negatives).
  auto rank = [](const Value& v) {
    return v.decimal_special() == DecimalSpecial::kNegInf   ? 0
           : v.decimal_special() == DecimalSpecial::kPosInf ? 2
           : v.decimal_special() == DecimalSpecial::kNaN    ? 3
                                                            : 1;
  };
  auto order = [&](const Value& a, const Value& b) {
    if (rank(a) != rank(b) || rank(a) != 1) return rank(a) < rank(b) ? -1 : rank(a) > rank(b);
    const int sa = BigDecimal::FromValue(a).sign();
    const int sb = BigDecimal::FromValue(b).sign();
    if (sa != sb) return sa < sb ? -1 : 1;
    // Magnitudes: integer digits, then the digits, as text.
    auto parts = [](const Value& v) {
      std::string t = DecimalValueToString(v);
      if (t[0] == '-') t.erase(0, 1);
      const size_t dot = t.find('.');
      std::string whole = t.substr(0, dot),
                  frac = dot == std::string::npos ? "" : t.substr(dot + 1);
      while (whole.size() > 1 && whole[0] == '0') whole.erase(0, 1);
      while (!frac.empty() && frac.back() == '0') frac.pop_back();
      if (whole == "0") whole.clear();
      return std::make_pair(whole, frac);
    };
    const auto [wa, fa] = parts(a);
    const auto [wb, fb] = parts(b);
    int mag = wa.size() != wb.size() ? (wa.size() < wb.size() ? -1 : 1)
              : wa != wb             ? (wa < wb ? -1 : 1)
              : fa != fb             ? (fa < fb ? -1 : 1)
                                     : 0;
    if (mag == 0) {
      mag = a.decimal_scale() < b.decimal_scale() ? -1 : a.decimal_scale() > b.decimal_scale();
    }
    return sa < 0 ? -mag : mag;
  };
  for (size_t i = 0; i + 1 < values.size(); ++i) {
    const Value& a = values[i];
    const Value& b = values[i + 1];
    const int want = order(a, b);
    const std::string ea = Encode(t, a), eb = Encode(t, b);
    EXPECT_EQ(want < 0, ea < eb) << a.ToString() << " " << b.ToString();
    EXPECT_EQ(want == 0, ea == eb) << a.ToString() << " " << b.ToString();
  }
  // Beyond PostgreSQL's format: 131072 digits before the point.
  std::string out;
  EXPECT_EQ(EncodeValue(
                t, BigDecimal::FromDigits(false, "1" + std::string(131072, '0'), 0).ToValue(), &out)
                .code(),
            StatusCode::kInvalidArgument);
}

TEST(RowCodecTest, DecimalSpecials) {
  for (int p : {10, 38, 210}) {
    SqlType t = SqlType::Decimal(p, 2);
    ExpectRoundTrip(t, Value::DecimalNaN());
    if (p == 38) {  // only the unconstrained numeric holds the infinities
      ExpectRoundTrip(t, Value::DecimalInf(false));
      ExpectRoundTrip(t, Value::DecimalInf(true));
    } else {
      std::string out;
      EXPECT_EQ(EncodeValue(t, Value::DecimalInf(false), &out).code(),
                StatusCode::kInvalidArgument);
    }
  }
  DecimalSpecial sp;
  for (const char* s : {"NaN", "nan", " NAN "}) {
    EXPECT_TRUE(ParseDecimalSpecial(s, &sp)) << s;
    EXPECT_EQ(sp, DecimalSpecial::kNaN);
  }
  for (const char* s : {"Infinity", "inf", "+INF", "+infinity"}) {
    EXPECT_TRUE(ParseDecimalSpecial(s, &sp)) << s;
    EXPECT_EQ(sp, DecimalSpecial::kPosInf);
  }
  for (const char* s : {"-Infinity", "-inf"}) {
    EXPECT_TRUE(ParseDecimalSpecial(s, &sp)) << s;
    EXPECT_EQ(sp, DecimalSpecial::kNegInf);
  }
  for (const char* s : {"-nan", "infinit", "1", ""}) EXPECT_FALSE(ParseDecimalSpecial(s, &sp)) << s;
  EXPECT_EQ(DecimalValueToString(Value::DecimalInf(true)), "-Infinity");
}

TEST(RowCodecTest, WideDecimals) {
  // Up to 1000 declared digits: values of up to 38 digits at the type's
  // scale in the int128 form, larger ones wide.
  SqlType t = SqlType::Decimal(210, 10);
  int128 max38 = Pow10(38) - 1;
  ExpectRoundTrip(t, Value::Decimal(max38, 10));
  ExpectRoundTrip(t, Value::Decimal(-max38, 10));
  ExpectRoundTrip(t, Value::Decimal(12345, 2), Value::Decimal(1234500000000, 10));
  ExpectRoundTrip(t, Value::Null());
  ExpectRoundTrip(t, Value::Decimal(Pow10(37), 0),
                  BigDecimal::FromDigits(false, "1" + std::string(47, '0'), 10).ToValue());
  const Value v200 =
      BigDecimal::FromDigits(true, std::string(200, '9') + "1234567891", 10).ToValue();
  ExpectRoundTrip(t, v200);
  // Rounded to the type's scale on the way in, as PostgreSQL assigns.
  ExpectRoundTrip(t, BigDecimal::FromDigits(false, std::string(60, '7'), 15).ToValue(),
                  BigDecimal::FromDigits(false, std::string(54, '7') + "8", 10).ToValue());
  std::string out;
  Status s =
      EncodeValue(t, BigDecimal::FromDigits(false, std::string(201, '9'), 0).ToValue(), &out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("numeric field overflow"), std::string::npos) << s.ToString();
  SqlType big = SqlType::Decimal(1000, 0, false);
  ExpectRoundTrip(big, Value::Decimal(-7, 0));
  std::string_view bad = "\x09";
  Value v;
  EXPECT_EQ(DecodeValue(big, &bad, &v).code(), StatusCode::kCorruption);
}

// Random decimals of every width, specials among them: memcmp order of the
// encodings is PostgreSQL's order (-Infinity < finite < Infinity < NaN).
TEST(RowCodecTest, DecimalByteOrderIsValueOrder) {
  std::mt19937_64 rng(7);
  for (int p : {18, 38, 39, 1000}) {
    for (bool nullable : {false, true}) {
      SqlType t = SqlType::Decimal(p, 4, nullable);
      const int digits = std::min(p, 38);
      const bool wide = p > 38;
      std::vector<std::pair<Value, std::string>> vals;
      for (int i = 0; i < 3000; ++i) {
        Value v;
        switch (rng() % 8) {
          case 0:
            v = Value::DecimalNaN();
            break;
          case 1:
            v = p == 38 ? Value::DecimalInf(rng() % 2) : Value::DecimalNaN();
            break;
          case 2:
            v = Value::Decimal(0, 4);
            break;
          case 3: {  // near the limits of the width
            int128 u = Pow10(digits) - 1 - static_cast<int128>(rng() % 3);
            v = Value::Decimal(rng() % 2 ? u : -u, 4);
            break;
          }
          case 4:
            if (wide) {  // beyond 38 digits
              std::string d(39 + rng() % static_cast<size_t>(p - 38), '0');
              for (char& c : d) c = static_cast<char>('0' + rng() % 10);
              d[0] = '1';
              if (rng() % 2) d.resize(std::min<size_t>(p, 39 + rng() % 3), '0');  // near int128s
              v = BigDecimal::FromDigits(rng() % 2, d, 4).ToValue();
              break;
            }
            [[fallthrough]];
          default: {
            int128 u = (static_cast<int128>(rng()) << 64 | rng()) % Pow10(digits);
            if (rng() % 2) u = -u;
            v = Value::Decimal(u / Pow10(static_cast<int>(rng() % 30)), 4);
          }
        }
        std::string bytes = Encode(t, v);
        vals.emplace_back(std::move(v), std::move(bytes));
      }
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
      auto cmp = [&](const Value& a, const Value& b) {
        if (rank(a) != rank(b)) return rank(a) < rank(b) ? -1 : 1;
        if (rank(a) != 1) return 0;
        return BigDecimal::Compare(BigDecimal::FromValue(a), BigDecimal::FromValue(b));
      };
      for (size_t i = 0; i + 1 < vals.size(); ++i) {
        const auto& [a, ab] = vals[i];
        const auto& [b, bb] = vals[i + 1];
        int c = cmp(a, b);
        int m = ab < bb ? -1 : ab > bb ? 1 : 0;
        EXPECT_EQ(c, m) << t.ToString() << ": " << a.ToString() << " vs " << b.ToString();
        std::string_view in = ab;
        Value back;
        ASSERT_TRUE(DecodeValue(t, &in, &back).ok());
        EXPECT_EQ(back, a);
      }
    }
  }
}

TEST(RowCodecTest, FloatingPoint) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (SqlType t : {SqlType::Double(), SqlType::Real()}) {
    for (double d : {0.0, 1.5, -1.5, inf, -inf, nan, 1e-300 * (t.id() == TypeId::kDouble)}) {
      ExpectRoundTrip(t, Value::Double(d));
    }
    // -0.0 equals 0.0: one encoding for both.
    EXPECT_EQ(Encode(t, Value::Double(-0.0)), Encode(t, Value::Double(0.0)));
    // Every NaN is one value, and it sorts above infinity, as in PostgreSQL.
    EXPECT_EQ(Encode(t, Value::Double(-nan)), Encode(t, Value::Double(nan)));
    EXPECT_LT(Encode(t, Value::Double(inf)), Encode(t, Value::Double(nan)));
    EXPECT_LT(Encode(t, Value::Double(-inf)), Encode(t, Value::Double(-1e30)));
    EXPECT_LT(Encode(t, Value::Double(-2)), Encode(t, Value::Double(-1)));
    EXPECT_LT(Encode(t, Value::Double(-1)), Encode(t, Value::Double(0)));
    EXPECT_LT(Encode(t, Value::Double(0)), Encode(t, Value::Double(1e-30)));
    ExpectRoundTrip(t, Value::Null());
  }
  ExpectRoundTrip(SqlType::Double(false), Value::Double(std::numeric_limits<double>::max()));
  ExpectRoundTrip(SqlType::Double(false), Value::Double(std::numeric_limits<double>::lowest()));
  ExpectRoundTrip(SqlType::Double(false), Value::Double(std::numeric_limits<double>::denorm_min()));
}

TEST(RowCodecTest, StringsAndBinary) {
  std::string big(1 << 20, 'x');
  for (size_t i = 0; i < big.size(); i += 4097) big[i] = static_cast<char>(i % 256);
  for (SqlType t : {SqlType::Varchar(), SqlType::Varbinary(), SqlType::Varchar(-1, false)}) {
    ExpectRoundTrip(t, Value::String(""));
    ExpectRoundTrip(t, Value::String(big));
    ExpectRoundTrip(t, Value::String(std::string("a\0b\0\0", 5)));
    ExpectRoundTrip(t, Value::String("\xff\xfe"));
    // Prefixes sort first, and embedded zero bytes keep byte order.
    EXPECT_LT(Encode(t, Value::String("")), Encode(t, Value::String(std::string(1, '\0'))));
    EXPECT_LT(Encode(t, Value::String(std::string(1, '\0'))), Encode(t, Value::String("\x01")));
    EXPECT_LT(Encode(t, Value::String("ab")), Encode(t, Value::String("abc")));
    EXPECT_LT(Encode(t, Value::String("abc")), Encode(t, Value::String("abd")));
  }
  ExpectRoundTrip(SqlType::Varchar(), Value::Null());
  // CHAR(n) drops trailing spaces, so 'ab' and 'ab  ' are one value.
  SqlType c4 = SqlType::Char(4);
  ExpectRoundTrip(c4, Value::String("ab  "), Value::String("ab"));
  std::string out;
  EXPECT_EQ(EncodeValue(SqlType::Varchar(3), Value::String("abcd"), &out).code(),
            StatusCode::kInvalidArgument);
  out.clear();
  // Length counts characters, not bytes.
  EXPECT_TRUE(
      EncodeValue(SqlType::Varchar(3), Value::String("\xc3\xa9\xc3\xa9\xc3\xa9"), &out).ok());
  // As PostgreSQL assigns a string: what is over the length may be spaces,
  // which are cut off; never other characters, nor bytes of binary types.
  ExpectRoundTrip(SqlType::Varchar(3), Value::String("ab    "), Value::String("ab "));
  ExpectRoundTrip(SqlType::Varchar(3), Value::String("\xc3\xa9\xc3\xa9  "),
                  Value::String("\xc3\xa9\xc3\xa9 "));
  ExpectRoundTrip(SqlType::Char(2), Value::String("ab  "), Value::String("ab"));
  out.clear();
  EXPECT_FALSE(EncodeValue(SqlType::Varchar(3), Value::String("ab  x"), &out).ok());
  EXPECT_FALSE(EncodeValue(SqlType::Char(2), Value::String("abc "), &out).ok());
  EXPECT_FALSE(EncodeValue(SqlType::Varbinary(2), Value::String("ab "), &out).ok());
  std::string_view s = "abc  ";
  EXPECT_TRUE(FitString(SqlType::Varchar(4), &s));
  EXPECT_EQ(s, "abc ");
  s = "abc";
  EXPECT_TRUE(FitString(SqlType::Varchar(), &s));
  EXPECT_EQ(s, "abc");
}

TEST(RowCodecTest, DatesTimesIntervals) {
  ExpectRoundTrip(SqlType::Date(), Value::Int(-719162));  // 0001-01-01
  ExpectRoundTrip(SqlType::Date(), Value::Int(2932896));  // 9999-12-31
  ExpectRoundTrip(SqlType::Time(), Value::Int(0));
  ExpectRoundTrip(SqlType::Time(), Value::Int(86400LL * 1000000 - 1));
  ExpectRoundTrip(SqlType::Time(), Value::Int(86400LL * 1000000));  // 24:00:00
  std::string out;
  EXPECT_FALSE(EncodeValue(SqlType::Time(), Value::Int(86400LL * 1000000 + 1), &out).ok());
  EXPECT_FALSE(EncodeValue(SqlType::Time(), Value::Int(-1), &out).ok());
  ExpectRoundTrip(SqlType::Timestamp(), Value::Int(std::numeric_limits<int64_t>::min()));
  ExpectRoundTrip(SqlType::Timestamp(), Value::Int(std::numeric_limits<int64_t>::max()));
  SqlType iv = SqlType::Interval();
  ExpectRoundTrip(iv, Value::MakeInterval(14, -3, 123456789));
  ExpectRoundTrip(iv, Value::MakeInterval(std::numeric_limits<int32_t>::min(),
                                          std::numeric_limits<int32_t>::min(),
                                          std::numeric_limits<int64_t>::min()));
  ExpectRoundTrip(iv, Value::MakeInterval(std::numeric_limits<int32_t>::max(),
                                          std::numeric_limits<int32_t>::max(),
                                          std::numeric_limits<int64_t>::max()));
  ExpectRoundTrip(iv, Value::Null());
  // Ordered as PostgreSQL orders intervals: 1 month (30 days) < 31 days.
  EXPECT_LT(Encode(iv, Value::MakeInterval(1, 0, 0)), Encode(iv, Value::MakeInterval(0, 31, 0)));
  EXPECT_GT(Encode(iv, Value::MakeInterval(1, 0, 0)), Encode(iv, Value::MakeInterval(0, 29, 0)));
}

// A TIME WITH TIME ZONE's bytes sort as PostgreSQL's timetz_cmp: by the
// UTC-adjusted time (not wrapped around the day), then by the zone (seconds
// west of UTC), on random times and zones against that comparison itself.
TEST(RowCodecTest, TimeWithTimeZoneOrderIsPostgresqls) {
  const SqlType tz = SqlType::TimeTz();
  const int64_t day = TimeTz::kMicrosPerDay;
  const int32_t lim = TimeTz::kMaxZoneSeconds;
  std::mt19937_64 rng(7);
  std::vector<TimeTz> values = {{0, -lim}, {0, lim}, {day, -lim}, {day, lim}, {0, 0}, {day, 0}};
  for (int i = 0; i < 3000; ++i) {
    TimeTz t;
    // Whole hours and zones often, so that equal UTC times meet.
    t.micros = rng() % 2 ? static_cast<int64_t>(rng() % 25) * 3600000000
                         : static_cast<int64_t>(rng() % static_cast<uint64_t>(day + 1));
    t.zone_west = rng() % 2 ? static_cast<int32_t>(rng() % 31) * 3600 - 15 * 3600
                            : static_cast<int32_t>(rng() % (2 * lim + 1)) - lim;
    values.push_back(t);
  }
  auto cmp = [](const TimeTz& a, const TimeTz& b) {  // PostgreSQL's timetz_cmp_internal
    const int64_t x = a.micros + a.zone_west * int64_t{1000000};
    const int64_t y = b.micros + b.zone_west * int64_t{1000000};
    if (x != y) return x < y ? -1 : 1;
    if (a.zone_west != b.zone_west) return a.zone_west < b.zone_west ? -1 : 1;
    return 0;
  };
  std::vector<std::string> bytes;
  for (const TimeTz& t : values) {
    const TimeTz back = TimeTz::Decode(t.Encode());
    ASSERT_EQ(back.micros, t.micros);
    ASSERT_EQ(back.zone_west, t.zone_west);
    ExpectRoundTrip(tz, Value::Int(t.Encode()));
    bytes.push_back(Encode(tz, Value::Int(t.Encode())));
  }
  for (size_t i = 0; i + 1 < values.size(); ++i) {
    const int c = cmp(values[i], values[i + 1]);
    EXPECT_EQ(c < 0, bytes[i] < bytes[i + 1]) << i;
    EXPECT_EQ(c == 0, bytes[i] == bytes[i + 1]) << i;
  }
  // '00:00+01' is before '23:00-00': 23:00 UTC of the day before.
  EXPECT_LT(TimeTz({0, -3600}).Encode(), TimeTz({23 * 3600000000LL, 0}).Encode());
  // Neither a time past 24:00:00 nor a zone past 15:59:59 is a value.
  std::string out;
  EXPECT_FALSE(EncodeValue(tz, Value::Int(TimeTz{day + 1, 0}.Encode()), &out).ok());
  EXPECT_FALSE(EncodeValue(tz, Value::Int(TimeTz{-1, 0}.Encode()), &out).ok());
  EXPECT_FALSE(EncodeValue(tz, Value::Int(TimeTz{0, lim + 1}.Encode()), &out).ok());
}

TEST(RowCodecTest, Composites) {
  SqlType row_type = SqlType::Row({"id", "name", "score"},
                                  {SqlType::Integer(false), SqlType::Varchar(), SqlType::Double()});
  SqlType arr = SqlType::Array(row_type);
  Value v = Value::List({
      Value::List({Value::Int(1), Value::String("a"), Value::Double(0.5)}),
      Value::Null(),
      Value::List({Value::Int(-7), Value::Null(), Value::Null()}),
  });
  ExpectRoundTrip(arr, v);
  ExpectRoundTrip(arr, Value::List({}));
  ExpectRoundTrip(arr, Value::Null());
  ExpectRoundTrip(SqlType::Array(SqlType::Array(SqlType::BigInt())),
                  Value::List({Value::List({}), Value::List({Value::Int(3), Value::Null()})}));

  SqlType map = SqlType::Map(SqlType::Varchar(-1, false), SqlType::BigInt());
  // Entries are stored sorted by key, whatever order they came in.
  ExpectRoundTrip(
      map, Value::Map({Value::String("b"), Value::String("a")}, {Value::Int(2), Value::Null()}),
      Value::Map({Value::String("a"), Value::String("b")}, {Value::Null(), Value::Int(2)}));
  std::string out;
  Status dup = EncodeValue(
      map, Value::Map({Value::String("k"), Value::String("k")}, {Value::Int(1), Value::Int(2)}),
      &out);
  EXPECT_EQ(dup.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(dup.message().find("twice"), std::string::npos);

  SqlType var = SqlType::Variant();
  Value doc = Value::Map(
      {Value::String("list"), Value::String("n"), Value::String("s"), Value::String("x")},
      {Value::List({Value::Int(1), Value::Double(2.5), Value::Bool(true), Value::JsonNull()}),
       Value::Decimal(12345, 2), Value::String("text"), Value::JsonNull()});
  ExpectRoundTrip(var, doc);
  ExpectRoundTrip(var, Value::Null());
  ExpectRoundTrip(var, Value::JsonNull());
  ExpectRoundTrip(var, Value::MakeInterval(1, 2, 3));
  EXPECT_NE(Encode(var, Value::Null()), Encode(var, Value::JsonNull()));
}

// An INT[] value has any number of dimensions (lists of lists), and may
// carry lower bounds; both round-trip, and the bytes order arrays as
// they compare: element by element, an element (or NULL) before a
// sub-array, the shorter first, bounds after none.
TEST(RowCodecTest, ArraysOfAnyDimensions) {
  for (bool nullable : {true, false}) {
    const SqlType t = SqlType::Array(SqlType::Integer(nullable));
    auto ints = [&](std::vector<int64_t> xs) {
      std::vector<Value> items;
      for (int64_t x : xs) items.push_back(Value::Int(x));
      return Value::List(std::move(items));
    };
    const Value two_d = Value::List({ints({1, 2}), ints({3, 4})});
    const Value three_d = Value::List({Value::List({ints({1}), ints({2})})});
    const Value bounded = Value::BoundedList({ints({1, 2}), ints({3, 4})}, {0, -3});
    ExpectRoundTrip(t, two_d);
    ExpectRoundTrip(t, three_d);
    ExpectRoundTrip(t, bounded);
    ExpectRoundTrip(t, Value::BoundedList(ints({7, 8}).list(), {2}));
    // Bounds of 1 are no bounds: one value, one encoding.
    EXPECT_EQ(Value::BoundedList(ints({7}).list(), {1}), ints({7}));
    EXPECT_EQ(Encode(t, Value::BoundedList(ints({7}).list(), {1})), Encode(t, ints({7})));
    EXPECT_NE(Encode(t, bounded), Encode(t, two_d));
    EXPECT_NE(Encode(t, ints({1, 2, 3, 4})), Encode(t, two_d));
    if (nullable) {
      ExpectRoundTrip(t, Value::List({Value::List({Value::Null(), Value::Int(1)})}));
    }
    const std::vector<Value> ordered = {
        ints({1}),
        ints({1, 2, 3, 4}),
        Value::BoundedList(ints({1}).list(), {0}),
        Value::BoundedList(ints({1}).list(), {2}),
        ints({2}),
        two_d,
        bounded,
        Value::List({ints({1, 2}), ints({3, 5})}),
        Value::List({ints({1, 2, 3})}),
        three_d,
    };
    for (size_t i = 0; i + 1 < ordered.size(); ++i) {
      EXPECT_LT(Encode(t, ordered[i]), Encode(t, ordered[i + 1]))
          << ordered[i].ToString() << " < " << ordered[i + 1].ToString();
    }
  }
  // An array of rows keeps its rows: a row is no sub-array, and has no
  // bounds to keep.
  const SqlType rows = SqlType::Array(SqlType::Row({"a"}, {SqlType::Integer()}));
  ExpectRoundTrip(rows, Value::List({Value::List({Value::Int(1)})}));
  std::string out;
  EXPECT_FALSE(
      EncodeValue(rows, Value::BoundedList({Value::List({Value::Int(1)})}, {0}), &out).ok());
}

// int2vector, oidvector and point: arrays subscripted from 0, which an
// array of them holds as elements; an oidvector sorts by length first.
TEST(RowCodecTest, PostgresArrayKinds) {
  auto ints = [](std::vector<int64_t> xs) {
    std::vector<Value> items;
    for (int64_t x : xs) items.push_back(Value::Int(x));
    return Value::BoundedList(std::move(items), {0});
  };
  ExpectRoundTrip(SqlType::Int2Vector(), ints({11, 22, 33}));
  ExpectRoundTrip(SqlType::Int2Vector(), Value::List({}));
  ExpectRoundTrip(SqlType::OidVector(), ints({4294967295, 0}));
  const Value point = Value::BoundedList({Value::Double(1.5), Value::Double(-2)}, {0});
  ExpectRoundTrip(SqlType::Point(), point);
  const SqlType vectors = SqlType::Array(SqlType::Int2Vector());
  ExpectRoundTrip(vectors, Value::List({ints({1, 2}), ints({3}), Value::Null()}));
  // Longer oidvectors after shorter ones; int2vectors element by element.
  const SqlType oids = SqlType::OidVector();
  EXPECT_LT(Encode(oids, Value::List({})), Encode(oids, ints({7})));
  EXPECT_LT(Encode(oids, ints({4294967295})), Encode(oids, ints({1, 2})));
  EXPECT_LT(Encode(oids, ints({1, 2})), Encode(oids, ints({1, 3})));
  EXPECT_LT(Encode(SqlType::Int2Vector(), ints({1, 2})), Encode(SqlType::Int2Vector(), ints({3})));
  // A truncated oidvector is corrupt, not read past its end.
  std::string bytes = Encode(oids, ints({1, 2}));
  std::string_view torn = std::string_view(bytes).substr(0, 2);
  Value back;
  EXPECT_FALSE(DecodeValue(oids, &torn, &back).ok());
}

TEST(RowCodecTest, RowsAndErrors) {
  Schema schema = {SqlType::BigInt(false), SqlType::Varchar(), SqlType::Boolean()};
  std::string row;
  ASSERT_TRUE(EncodeRow(schema, {Value::Int(5), Value::String("hi"), Value::Null()}, &row).ok());
  EXPECT_EQ(RowToString(schema, row), "(5, 'hi', NULL)");
  std::vector<std::string_view> fields;
  ASSERT_TRUE(SplitRow(schema, row, &fields).ok());
  ASSERT_EQ(fields.size(), 3u);
  EXPECT_EQ(std::string(fields[0]) + std::string(fields[1]) + std::string(fields[2]), row);

  std::string bad;
  Status s = EncodeRow(schema, {Value::Null(), Value::String("x"), Value::Bool(true)}, &bad);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("column 1"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("NOT NULL"), std::string::npos) << s.message();
  EXPECT_EQ(EncodeRow(schema, {Value::Int(1)}, &bad).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(EncodeRow(schema, {Value::String("1"), Value::Null(), Value::Null()}, &bad).code(),
            StatusCode::kInvalidArgument);

  // Every truncation of a valid row is detected as corruption, never misread.
  for (size_t len = 0; len < row.size(); ++len) {
    auto r = DecodeRow(schema, std::string_view(row).substr(0, len));
    EXPECT_FALSE(r.ok()) << len;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
    }
  }
  auto extra = DecodeRow(schema, row + "z");
  EXPECT_EQ(extra.status().code(), StatusCode::kCorruption);
}

// The byte order of encoded rows is the SQL order of the rows.
TEST(RowCodecTest, ByteOrderIsValueOrder) {
  Schema schema = {SqlType::Integer(), SqlType::Double(false), SqlType::Varchar()};
  std::mt19937_64 rng(42);
  struct R {
    std::optional<int32_t> a;
    double b;
    std::optional<std::string> c;
    std::string bytes;
  };
  std::vector<R> rows;
  for (int i = 0; i < 2000; ++i) {
    R r;
    if (rng() % 5) r.a = static_cast<int32_t>(rng() % 7) - 3;
    r.b = static_cast<double>(static_cast<int>(rng() % 9) - 4) / 2;
    if (rng() % 5) r.c = std::string(rng() % 3, static_cast<char>('a' + rng() % 2));
    std::vector<Value> vals = {r.a ? Value::Int(*r.a) : Value::Null(), Value::Double(r.b),
                               r.c ? Value::String(*r.c) : Value::Null()};
    ASSERT_TRUE(EncodeRow(schema, vals, &r.bytes).ok());
    rows.push_back(std::move(r));
  }
  // NULLS LAST, column by column.
  auto less = [](const R& x, const R& y) {
    if (x.a != y.a) return !y.a ? bool(x.a) : (x.a && *x.a < *y.a);
    if (x.b != y.b) return x.b < y.b;
    if (x.c != y.c) return !y.c ? bool(x.c) : (x.c && *x.c < *y.c);
    return false;
  };
  for (size_t i = 0; i + 1 < rows.size(); ++i) {
    const R& x = rows[i];
    const R& y = rows[i + 1];
    EXPECT_EQ(less(x, y), x.bytes < y.bytes);
    EXPECT_EQ(!less(x, y) && !less(y, x), x.bytes == y.bytes);
  }
  // Inverted fields sort descending.
  std::string a = rows[0].bytes, b = rows[1].bytes;
  InvertBytes(a.data(), a.size());
  InvertBytes(b.data(), b.size());
  EXPECT_EQ(rows[0].bytes < rows[1].bytes, b < a);
}

}  // namespace
}  // namespace sluice

namespace sluice {

TEST(PgTypeTest, OidsTypmodsAndNames) {
  EXPECT_EQ(PgTypeOf(SqlType::Integer()).oid, 23u);
  EXPECT_EQ(PgTypeOf(SqlType::TinyInt()).oid, 21u);
  EXPECT_EQ(PgTypeOf(SqlType::Varchar()).oid, 25u);
  const PgTypeInfo v = PgTypeOf(SqlType::Varchar(20));
  EXPECT_EQ(v.oid, 1043u);
  EXPECT_EQ(v.typmod, 24);
  EXPECT_EQ(v.name, "character varying(20)");
  const PgTypeInfo d = PgTypeOf(SqlType::Decimal(10, 2));
  EXPECT_EQ(d.oid, 1700u);
  EXPECT_EQ(d.typmod, (10 << 16 | 2) + 4);
  EXPECT_EQ(d.name, "numeric(10,2)");
  const PgTypeInfo a = PgTypeOf(SqlType::Array(SqlType::Array(SqlType::BigInt())));
  EXPECT_EQ(a.oid, 1016u);
  EXPECT_EQ(a.name, "bigint[]");
  EXPECT_EQ(PgTypeOf(SqlType::Timestamp()).size, 8);
  EXPECT_EQ(PgTypeName(1016), "_int8");
  EXPECT_EQ(PgTypeName(1114), "timestamp");
  EXPECT_EQ(PgTypeName(9999), "");
  EXPECT_EQ(PgTypes().front().first, 16u);
  EXPECT_EQ(PgTypeOf(SqlType::Int2Vector()).oid, 22u);
  EXPECT_EQ(PgTypeOf(SqlType::OidVector()).oid, 30u);
  EXPECT_EQ(PgTypeOf(SqlType::Point()).oid, 600u);
  EXPECT_EQ(PgTypeOf(SqlType::Point()).size, 16);
  EXPECT_EQ(PgTypeOf(SqlType::Oid()).oid, 26u);
  EXPECT_EQ(PgTypeOf(SqlType::Money()).oid, 790u);
  EXPECT_EQ(PgTypeOf(SqlType::Money()).name, "money");
  EXPECT_EQ(PgTypeFactsOf(790).category, 'N');
  // An array of vectors is the vector's array type, not a 2-D int2[].
  const PgTypeInfo vs = PgTypeOf(SqlType::Array(SqlType::Int2Vector()));
  EXPECT_EQ(vs.oid, 1006u);
  EXPECT_EQ(vs.name, "int2vector[]");
  EXPECT_EQ(PgTypeName(1017), "_point");
  EXPECT_EQ(PgFormatType(30, -1), "oidvector");
  EXPECT_EQ(PgTypeFactsOf(22).element, 21u);
  EXPECT_FALSE(ArrayHoldsSubArrays(SqlType::Int2Vector()));
  EXPECT_FALSE(ArrayHoldsSubArrays(SqlType::Array(SqlType::Point())));
}

}  // namespace sluice
