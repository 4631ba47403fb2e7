#include "types/big_decimal.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "types/big_decimal_math.h"

namespace sluice {
namespace {

BigDecimal Parse(const std::string& s) {
  BigDecimal b;
  EXPECT_TRUE(BigDecimal::Parse(s, &b)) << s;
  return b;
}

std::string RandomDigits(std::mt19937_64& rng, int n) {
  std::string s(static_cast<size_t>(n), '0');
  for (char& c : s) c = static_cast<char>('0' + rng() % 10);
  if (n > 0 && s[0] == '0') s[0] = '1';
  return s;
}

TEST(BigDecimalTest, TextRoundTrips) {
  for (const char* s :
       {"0", "1", "-1", "0.5", "-0.05", "123456789012345678901234567890.1234567890", "1000000000",
        "999999999.999999999", "0.000000000000000000000000000000001"}) {
    EXPECT_EQ(Parse(s).ToString(), s);
  }
  EXPECT_EQ(Parse("1.5e3").ToString(), "1500");
  EXPECT_EQ(Parse("1.5e-3").ToString(), "0.0015");
  EXPECT_EQ(Parse("+00012.50").ToString(), "12.50");
  EXPECT_EQ(Parse("-0.00").ToString(), "0.00");
  BigDecimal b;
  for (const char* s : {"", "-", "1e", "1.2.3", "abc", "1e5x"}) {
    EXPECT_FALSE(BigDecimal::Parse(s, &b)) << s;
  }
}

TEST(BigDecimalTest, Int128AndValueForms) {
  const BigDecimal a = BigDecimal::FromInt128(-12345, 2);
  EXPECT_EQ(a.ToString(), "-123.45");
  int128 u;
  ASSERT_TRUE(a.ToInt128(&u));
  EXPECT_TRUE(u == -12345);
  const Value small = a.ToValue();
  EXPECT_EQ(small.decimal_wide(), nullptr);
  EXPECT_TRUE(small.decimal_unscaled() == -12345);
  // 39 digits, or a scale above 38: the wide form.
  const Value wide = Parse("123456789012345678901234567890123456789").ToValue();
  ASSERT_NE(wide.decimal_wide(), nullptr);
  EXPECT_EQ(DecimalValueToString(wide), "123456789012345678901234567890123456789");
  const Value fine = Parse("0.0000000000000000000000000000000000000001").ToValue();
  ASSERT_NE(fine.decimal_wide(), nullptr);
  EXPECT_EQ(fine.decimal_scale(), 40);
  EXPECT_EQ(fine, Parse("1e-40").ToValue());
  EXPECT_FALSE(fine == Parse("1.0e-40").ToValue());  // another scale
}

// Sums, differences, products and quotients against int128 arithmetic on
// values that fit it, and identities on values that do not.
TEST(BigDecimalTest, ArithmeticAgainstInt128) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 3000; ++i) {
    const int64_t x = static_cast<int64_t>(rng() % 2000000000001ULL) - 1000000000000LL;
    int64_t y = static_cast<int64_t>(rng() % 2000001) - 1000000;
    if (y == 0) y = 7;
    const int sx = static_cast<int>(rng() % 6), sy = static_cast<int>(rng() % 6);
    const BigDecimal a = BigDecimal::FromInt128(x, sx), b = BigDecimal::FromInt128(y, sy);
    const int s = std::max(sx, sy);
    const int128 ax = static_cast<int128>(x) * Pow10(s - sx),
                 by = static_cast<int128>(y) * Pow10(s - sy);
    EXPECT_EQ(BigDecimal::Add(a, b).ToString(), DecimalToString(ax + by, s));
    EXPECT_EQ(BigDecimal::Sub(a, b).ToString(), DecimalToString(ax - by, s));
    EXPECT_EQ(BigDecimal::Mul(a, b).ToString(),
              DecimalToString(static_cast<int128>(x) * y, sx + sy));
    EXPECT_EQ(BigDecimal::Compare(a, b), ax < by ? -1 : ax > by);
    const int scale = static_cast<int>(rng() % 12);
    int128 q;
    ASSERT_TRUE(DivideDecimal(x, sx, y, sy, scale, &q));
    EXPECT_EQ(BigDecimal::Div(a, b, scale).ToString(), DecimalToString(q, scale))
        << a.ToString() << " / " << b.ToString();
    EXPECT_EQ(BigDecimal::Mod(a, b).ToString(), DecimalToString(ax % by, s));
    EXPECT_EQ(BigDecimal::DivScale(a, b), NumericDivScale(x, sx, y, sy));
  }
  for (int i = 0; i < 300; ++i) {
    const BigDecimal a = BigDecimal::FromDigits(rng() % 2, RandomDigits(rng, 1 + rng() % 200),
                                                static_cast<int>(rng() % 50));
    const BigDecimal b = BigDecimal::FromDigits(rng() % 2, RandomDigits(rng, 1 + rng() % 120),
                                                static_cast<int>(rng() % 50));
    // (a + b) - b = a; (a * b) / b = a exactly at a's scale; a = q * b + r.
    EXPECT_EQ(BigDecimal::Compare(BigDecimal::Sub(BigDecimal::Add(a, b), b), a), 0);
    EXPECT_EQ(BigDecimal::Div(BigDecimal::Mul(a, b), b, a.scale()).ToString(), a.ToString());
    const BigDecimal q = BigDecimal::Div(a, b, 0, /*round=*/false);
    const BigDecimal r = BigDecimal::Mod(a, b);
    EXPECT_EQ(BigDecimal::Compare(BigDecimal::Add(BigDecimal::Mul(q, b), r), a), 0);
    EXPECT_LT(BigDecimal::Compare(r.Abs(), b.Abs()), 0);
    EXPECT_TRUE(r.is_zero() || r.negative() == a.negative());
  }
}

TEST(BigDecimalTest, RoundingAndRoots) {
  EXPECT_EQ(Parse("2.5").Round(0).ToString(), "3");
  EXPECT_EQ(Parse("-2.5").Round(0).ToString(), "-3");
  EXPECT_EQ(Parse("-2.5").Trunc(0).ToString(), "-2");
  EXPECT_EQ(Parse("1.25").Round(5).ToString(), "1.25000");
  EXPECT_EQ(Parse("999999999999999999999999999999999999999.5").Round(0).ToString(),
            "1000000000000000000000000000000000000000");
  EXPECT_EQ(BigDecimal::Div(Parse("1"), Parse("3"), 40).ToString(),
            "0.3333333333333333333333333333333333333333");
  EXPECT_EQ(BigDecimal::Div(Parse("2"), Parse("3"), 40).ToString(),
            "0.6666666666666666666666666666666666666667");
  EXPECT_EQ(Parse("2").Sqrt(50).ToString(), "1.41421356237309504880168872420969807856967187537695");
  EXPECT_EQ(Parse("1e100").Sqrt(0).ToString(), "1" + std::string(50, '0'));
  EXPECT_EQ(Parse("0").Sqrt(3).ToString(), "0.000");
  // More digits than the root's scale needs.
  EXPECT_EQ(Parse("0.1000000000000000000000000000000000000000000000001").Sqrt(3).ToString(), "0.316");
  EXPECT_EQ(Parse("123.4500").StripTrailingZeros().ToString(), "123.45");
  EXPECT_EQ(Parse("1e50").Exponent(), 51);
  EXPECT_EQ(Parse("0.001").Exponent(), -2);
}

// Against Python's decimal module (correctly rounded, half up).
TEST(BigDecimalTest, ExpLnAndPowers) {
  EXPECT_EQ(BigExp(Parse("1"), 50).ToString(),
            "2.71828182845904523536028747135266249775724709369996");
  EXPECT_EQ(BigExp(Parse("-100"), 60).ToString(),
            "0.000000000000000000000000000000000000000000037200759760208360");
  EXPECT_EQ(BigExp(Parse("0"), 3).ToString(), "1.000");
  EXPECT_EQ(BigLn(Parse("2"), 50).ToString(),
            "0.69314718055994530941723212145817656807550013436026");
  EXPECT_EQ(BigLn(Parse("1e-300"), 40).ToString(), "-690.7755278982137052053974364053092622803304");
  EXPECT_EQ(BigLn(Parse("0.999999999999"), 40).ToString(),
            "-0.0000000000010000000000005000000000003333");
  EXPECT_EQ(BigLn(Parse("12345678901234567890123456789012345678901234567890"), 30).ToString(),
            "113.037390579023891077936582990022");
  EXPECT_EQ(BigLn(Parse("1"), 5).ToString(), "0.00000");
  EXPECT_EQ(BigLn(Parse("1e100"), 14).ToString(), "230.25850929940457");
  EXPECT_EQ(BigPowInt(Parse("1.5"), 100, 20).ToString(), "406561177535215237.39727970756704167101");
  EXPECT_EQ(BigPowInt(Parse("123.456"), -7, 40).ToString(),
            "0.0000000000000022877817361500421740771802");
  EXPECT_EQ(BigPowInt(Parse("-2"), 3, 0).ToString(), "-8");
  EXPECT_EQ(BigPowInt(Parse("10"), 200, 0).ToString(), "1" + std::string(200, '0'));
}

}  // namespace
}  // namespace sluice
