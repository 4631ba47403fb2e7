#include "types/row_codec.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "types/big_decimal.h"
#include "types/time_tz.h"

namespace sluice {
namespace {

constexpr char kPresent = 0x01;
constexpr char kNullTag = 0x02;
constexpr char kMore = 0x01;
constexpr char kEnd = 0x00;
// In an array whose type holds sub-arrays (ArrayHoldsSubArrays): a
// sub-array follows, encoded as the array itself is. It sorts after an
// element, so arrays compare level by level, an element (or NULL) before a
// sub-array.
constexpr char kSubArray = 0x02;
// Last in an array whose lower bounds are not all 1 (Value::lower_bounds()):
// a byte with their count, then each bound as 4 signed bytes, outermost
// first. Such an array sorts after one without, of the same elements.
constexpr char kBounds = 0x03;

enum VariantKind : uint8_t {
  kVJsonNull = 1,
  kVBool = 2,
  kVInt = 3,
  kVDecimal = 4,
  kVDouble = 5,
  kVString = 6,
  kVList = 7,
  kVMap = 8,
  kVInterval = 9,
};

constexpr int64_t kMicrosPerDay = 86400LL * 1000000LL;

void PutBigEndian(uint64_t v, int width, std::string* out) {
  // The low `width` bytes, most significant first: one byte swap.
  const uint64_t be = __builtin_bswap64(v << (64 - 8 * width));
  char buf[8];
  std::memcpy(buf, &be, sizeof be);
  out->append(buf, static_cast<size_t>(width));
}

uint64_t GetBigEndian(const char* p, int width) {
  if (width == 8) {
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return __builtin_bswap64(v);
  }
  uint64_t v = 0;
  for (int i = 0; i < width; ++i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

void PutSigned(int64_t v, int width, std::string* out) {
  uint64_t u = static_cast<uint64_t>(v) ^ (uint64_t{1} << (8 * width - 1));
  PutBigEndian(u, width, out);
}

int64_t GetSigned(const char* p, int width) {
  uint64_t u = GetBigEndian(p, width) ^ (uint64_t{1} << (8 * width - 1));
  // Sign-extend from `width` bytes.
  int shift = 64 - 8 * width;
  return static_cast<int64_t>(u << shift) >> shift;
}

void PutInt128(int128 v, std::string* out) {
  unsigned __int128 u =
      static_cast<unsigned __int128>(v) ^ (static_cast<unsigned __int128>(1) << 127);
  PutBigEndian(static_cast<uint64_t>(u >> 64), 8, out);
  PutBigEndian(static_cast<uint64_t>(u), 8, out);
}

int128 GetInt128(const char* p) {
  unsigned __int128 u =
      (static_cast<unsigned __int128>(GetBigEndian(p, 8)) << 64) | GetBigEndian(p + 8, 8);
  return static_cast<int128>(u ^ (static_cast<unsigned __int128>(1) << 127));
}

void PutDouble(double d, std::string* out) {
  if (d == 0) d = 0.0;  // -0.0 == 0.0 in SQL, so both get one encoding
  if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  bits = (bits >> 63) ? ~bits : bits | (uint64_t{1} << 63);
  PutBigEndian(bits, 8, out);
}

double GetDouble(const char* p) {
  uint64_t bits = GetBigEndian(p, 8);
  bits = (bits >> 63) ? bits & ~(uint64_t{1} << 63) : ~bits;
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

void PutFloat(float f, std::string* out) {
  if (f == 0) f = 0.0f;
  if (std::isnan(f)) f = std::numeric_limits<float>::quiet_NaN();
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  bits = (bits >> 31) ? ~bits : bits | (uint32_t{1} << 31);
  PutBigEndian(bits, 4, out);
}

float GetFloat(const char* p) {
  uint32_t bits = static_cast<uint32_t>(GetBigEndian(p, 4));
  bits = (bits >> 31) ? bits & ~(uint32_t{1} << 31) : ~bits;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

void PutBytes(std::string_view s, std::string* out) {
  size_t start = 0;
  while (true) {
    const void* z = std::memchr(s.data() + start, 0, s.size() - start);
    if (z == nullptr) break;
    size_t pos = static_cast<size_t>(static_cast<const char*>(z) - s.data());
    out->append(s.data() + start, pos - start);
    out->push_back('\x00');
    out->push_back('\xff');
    start = pos + 1;
  }
  out->append(s.data() + start, s.size() - start);
  out->push_back('\x00');
  out->push_back('\x01');
}

Status Truncated(const SqlType& type) {
  return Status::Corruption("row bytes end inside a " + type.ToString() + " value");
}

// Reads escaped bytes; `out` may be null to skip.
Status GetBytes(const SqlType& type, std::string_view* in, std::string* out) {
  size_t pos = 0;
  while (true) {
    const void* z = std::memchr(in->data() + pos, 0, in->size() - pos);
    if (z == nullptr || static_cast<const char*>(z) + 1 >= in->data() + in->size()) {
      return Truncated(type);
    }
    size_t zpos = static_cast<size_t>(static_cast<const char*>(z) - in->data());
    if (out) out->append(in->data() + pos, zpos - pos);
    char next = (*in)[zpos + 1];
    if (next == '\x01') {
      in->remove_prefix(zpos + 2);
      return Status::OK();
    }
    if (next != '\xff') return Status::Corruption("bad escape in a " + type.ToString() + " value");
    if (out) out->push_back('\x00');
    pos = zpos + 2;
  }
}

Status Misfit(const SqlType& type, const Value& v, std::string_view why) {
  return Status::InvalidArgument("value " + v.ToString() + " does not fit " + type.ToString() +
                                 ": " + std::string(why));
}

int128 IntervalKey(const Interval& iv) {
  return (static_cast<int128>(iv.months) * 30 + iv.days) * kMicrosPerDay + iv.micros;
}

Status EncodeVariant(const Value& v, std::string* out);

Status EncodeVariantList(const std::vector<Value>& items, std::string* out) {
  for (const Value& item : items) {
    out->push_back(kMore);
    SLUICE_RETURN_IF_ERROR(EncodeVariant(item, out));
  }
  out->push_back(kEnd);
  return Status::OK();
}

// Encodes map entries sorted by encoded key; `encode_key` and `encode_val`
// append one key or value. A repeated key is an error.
template <typename EncodeKey, typename EncodeVal>
Status EncodeMapEntries(const Value& v, EncodeKey encode_key, EncodeVal encode_val,
                        std::string* out) {
  const auto& keys = v.map_keys();
  const auto& vals = v.map_values();
  if (keys.size() != vals.size()) return Status::InvalidArgument("map has unequal keys and values");
  std::vector<std::pair<std::string, size_t>> encoded(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    SLUICE_RETURN_IF_ERROR(encode_key(keys[i], &encoded[i].first));
    encoded[i].second = i;
  }
  std::sort(encoded.begin(), encoded.end());
  for (size_t i = 0; i < encoded.size(); ++i) {
    if (i > 0 && encoded[i].first == encoded[i - 1].first) {
      return Status::InvalidArgument("map has the key " + keys[encoded[i].second].ToString() +
                                     " twice");
    }
    out->push_back(kMore);
    out->append(encoded[i].first);
    SLUICE_RETURN_IF_ERROR(encode_val(vals[encoded[i].second], out));
  }
  out->push_back(kEnd);
  return Status::OK();
}

// The special numerics take the integers that no finite DECIMAL uses (a
// finite one has |unscaled| < 10^18 in 8 bytes, < 10^38 in 16), so the
// width and the fast paths of finite values stay as they were, and memcmp
// order stays PostgreSQL's: -Infinity is the smallest integer, Infinity
// the second largest and NaN the largest.
int128 DecimalSpecialBits(DecimalSpecial sp, int width) {
  const int128 max = width == 8 ? int128{INT64_MAX} : std::numeric_limits<int128>::max();
  const int128 min = width == 8 ? int128{INT64_MIN} : std::numeric_limits<int128>::min();
  switch (sp) {
    case DecimalSpecial::kNaN:
      return max;
    case DecimalSpecial::kPosInf:
      return max - 1;
    case DecimalSpecial::kNegInf:
      return min;
    case DecimalSpecial::kFinite:
      break;
  }
  return 0;
}

// A DECIMAL of precision above 38 starts with a tag byte that orders its
// forms: 0x00 -Infinity; 0x01 a negative value of more than 38 digits (at
// the type's scale); 0x02 a value of at most 38 digits, then its 16-byte
// unscaled integer as in DECIMAL(38,s); 0x03 a positive value of more than
// 38 digits; 0x04 Infinity; 0x05 NaN. Tags 0x01 and 0x03 are followed by
// the exponent and digits of NUMERIC (PutNumericBody, complemented for
// negative values), without a scale: the type has it. A value of more than
// 38 digits lies beyond every value of tag 0x02, so the tags keep order.
constexpr uint8_t kWideNegative = 0x01, kWideFinite = 0x02, kWidePositive = 0x03;

uint8_t WideDecimalTag(DecimalSpecial sp) {
  switch (sp) {
    case DecimalSpecial::kNegInf:
      return 0x00;
    case DecimalSpecial::kPosInf:
      return 0x04;
    case DecimalSpecial::kNaN:
      return 0x05;
    case DecimalSpecial::kFinite:
      break;
  }
  return kWideFinite;
}

// NUMERIC (dynamic scale) by its value first, then its display scale:
//   class byte: 0x01 -Infinity, 0x02 negative, 0x03 zero, 0x04 positive,
//               0x05 Infinity, 0x06 NaN (PostgreSQL orders NaN last);
//   negative and positive: the decimal exponent E of the first significant
//               digit as one byte 0x80 + E (the value is 0.d1d2... x 10^E),
//               then the significant digits without trailing zeros, two a
//               byte as nibbles d + 1, closed by a 0 nibble (a whole 0x00
//               byte after an even count); a negative value's exponent and
//               digit bytes are complemented, so larger magnitudes sort first;
//   finite values then end with the display scale, 2 bytes big-endian
//               (complemented for negative values).
// The digits have no fixed width, so values of any size fit the layout.
// Values equal but for their display scale (1.5 and 1.50) are distinct
// byte strings: they group apart, as intervals of equal length do.
constexpr uint8_t kNumNegInf = 0x01, kNumNeg = 0x02, kNumZero = 0x03, kNumPos = 0x04,
                  kNumPosInf = 0x05, kNumNaN = 0x06;

// The decimal exponent E of a NUMERIC: one byte 0x80 + E for |E| <= 126;
// beyond, 0x01 (E < -126) or 0xFF (E > 126) and then E + 2^31 in 4 bytes
// big-endian, so the bytes keep E's order. Values of at most 38 digits and
// scale only take the one-byte form.
void PutNumericExponent(int e, std::string* body) {
  if (e >= -126 && e <= 126) {
    body->push_back(static_cast<char>(0x80 + e));
    return;
  }
  body->push_back(static_cast<char>(e < 0 ? 0x01 : 0xFF));
  const uint32_t biased = static_cast<uint32_t>(e) + 0x80000000u;
  for (int shift = 24; shift >= 0; shift -= 8) {
    body->push_back(static_cast<char>((biased >> shift) & 0xFF));
  }
}

// The exponent and digits of a nonzero magnitude, given by its `n` digits
// (values 0..9, most significant first) at `scale`; complemented if `neg`.
void PutNumericBody(bool neg, const char* digits, int n, int scale, std::string* out) {
  const uint8_t mask = neg ? 0xFF : 0x00;
  const int e = n - scale;
  if (e >= -126 && e <= 126) {
    out->push_back(static_cast<char>(static_cast<uint8_t>(0x80 + e) ^ mask));
  } else {
    std::string exp;
    PutNumericExponent(e, &exp);
    for (char c : exp) out->push_back(static_cast<char>(static_cast<uint8_t>(c) ^ mask));
  }
  int high = n;
  while (digits[high - 1] == 0) --high;  // trailing zeros, not stored
  int i = 0;
  for (; i + 1 < high; i += 2) {
    const uint8_t byte = static_cast<uint8_t>((digits[i] + 1) << 4 | (digits[i + 1] + 1));
    out->push_back(static_cast<char>(byte ^ mask));
  }
  // The closing 0 nibble: after the last digit, or a whole 0 byte.
  const uint8_t last = i < high ? static_cast<uint8_t>((digits[i] + 1) << 4) : 0;
  out->push_back(static_cast<char>(last ^ mask));
}

void PutNumericScale(bool neg, int scale, std::string* out) {
  uint8_t sc[2] = {static_cast<uint8_t>(scale >> 8), static_cast<uint8_t>(scale & 0xFF)};
  for (uint8_t c : sc) out->push_back(static_cast<char>(neg ? static_cast<uint8_t>(~c) : c));
}

void PutNumeric(int128 u, int scale, std::string* out) {
  if (u == 0) {
    out->push_back(static_cast<char>(kNumZero));
    PutNumericScale(false, scale, out);
    return;
  }
  const bool neg = u < 0;
  unsigned __int128 m =
      neg ? -static_cast<unsigned __int128>(u) : static_cast<unsigned __int128>(u);
  char buf[48];
  int pos = 48;
  for (; m != 0; m /= 10) buf[--pos] = static_cast<char>(m % 10);  // from the least significant
  out->push_back(static_cast<char>(neg ? kNumNeg : kNumPos));
  PutNumericBody(neg, buf + pos, 48 - pos, scale, out);
  PutNumericScale(neg, scale, out);
}

// The digits of a wide value's magnitude as PutNumericBody takes them.
std::string NumericDigitValues(const BigDecimal& b) {
  std::string d = b.Digits();
  for (char& c : d) c = static_cast<char>(c - '0');
  return d;
}

void PutWideNumeric(const BigDecimal& b, std::string* out) {
  if (b.is_zero()) {
    out->push_back(static_cast<char>(kNumZero));
    PutNumericScale(false, b.scale(), out);
    return;
  }
  const std::string d = NumericDigitValues(b);
  out->push_back(static_cast<char>(b.negative() ? kNumNeg : kNumPos));
  PutNumericBody(b.negative(), d.data(), static_cast<int>(d.size()), b.scale(), out);
  PutNumericScale(b.negative(), b.scale(), out);
}

// The slow paths of EncodeValue for values and types beyond the int128
// form, apart so that the common path stays small.
[[gnu::noinline]] Status PutWideNumericField(const SqlType& type, const Value& v,
                                             std::string* out) {
  if (!BigDecimalInFormat(*v.decimal_wide())) {
    return Misfit(type, v, "value overflows numeric format");
  }
  PutWideNumeric(*v.decimal_wide(), out);
  return Status::OK();
}

// The unscaled int128 of a DECIMAL(p,s) field in its type's form: 8 bytes
// up to 18 digits, else 16, behind the finite tag when p is beyond 38.
void PutDecimalUnscaled(const SqlType& type, int128 u, std::string* out) {
  if (type.precision() <= 18) {
    PutSigned(static_cast<int64_t>(u), 8, out);
  } else {
    if (type.precision() > kMaxDecimalDigits) out->push_back(kWideFinite);
    PutInt128(u, out);
  }
}

// A finite value into DECIMAL(p,s): rounded to s, as PostgreSQL does on
// assignment; values of at most 38 digits at s take the int128 form.
[[gnu::noinline]] Status PutWideDecimalField(const SqlType& type, const Value& v,
                                             std::string* out) {
  const BigDecimal b = BigDecimal::FromValue(v).Round(type.scale());
  if (b.DigitCount() > type.precision()) return Misfit(type, v, "numeric field overflow");
  const bool wide = type.precision() > kMaxDecimalDigits;
  int128 u;
  if (b.ToInt128(&u)) {
    PutDecimalUnscaled(type, u, out);
    return Status::OK();
  }
  if (!wide) return Misfit(type, v, "numeric field overflow");
  const std::string d = NumericDigitValues(b);
  out->push_back(static_cast<char>(b.negative() ? kWideNegative : kWidePositive));
  PutNumericBody(b.negative(), d.data(), static_cast<int>(d.size()), b.scale(), out);
  return Status::OK();
}

// Reads the exponent and digits that PutNumericBody wrote from the front
// of `*in`: the value is 0.digits x 10^*exponent. The digits go to *small
// while they fit an int128 (*count <= 38), else all of them to *wide (as
// ASCII). False if malformed.
bool GetNumericBody(std::string_view* in, bool neg, int* exponent, int128* small, int* count,
                    std::string* wide) {
  auto byte_at = [&](size_t i) {
    const uint8_t b = static_cast<uint8_t>((*in)[i]);
    return neg ? static_cast<uint8_t>(~b) : b;
  };
  if (in->empty()) return false;
  size_t i = 1;
  const uint8_t e0 = byte_at(0);
  if (e0 == 0x01 || e0 == 0xFF) {
    if (in->size() < 5) return false;
    uint32_t biased = 0;
    for (size_t k = 1; k <= 4; ++k) biased = biased << 8 | byte_at(k);
    *exponent = static_cast<int>(static_cast<int64_t>(biased) - 0x80000000LL);
    i = 5;
  } else {
    *exponent = static_cast<int>(e0) - 0x80;
  }
  *small = 0;
  *count = 0;
  for (bool done = false; !done; ++i) {
    if (i >= in->size()) return false;
    const uint8_t b = byte_at(i);
    for (uint8_t d : {static_cast<uint8_t>(b >> 4), static_cast<uint8_t>(b & 0x0F)}) {
      if (d == 0) {
        done = true;
        break;
      }
      if (d > 10) return false;
      if (*count < kMaxDecimalDigits) {
        *small = *small * 10 + (d - 1);
      } else {
        if (*count == kMaxDecimalDigits) *wide = DecimalToString(*small, 0);
        wide->push_back(static_cast<char>('0' + d - 1));
      }
      ++*count;
    }
  }
  in->remove_prefix(i);
  return true;
}

// The value 0.digits x 10^exponent at `scale` (GetNumericBody's output).
// False if it has digits below the scale or is out of range.
bool NumericFromBody(bool neg, int exponent, int128 small, int count, const std::string& wide,
                     int scale, Value* out) {
  const int shift = exponent - count + scale;  // zeros after the digits
  if (shift < 0 || exponent > kMaxNumericIntegerDigits + 1) return false;
  if (count + shift <= kMaxDecimalDigits && scale <= kMaxDecimalDigits) {
    if (out) *out = Value::Decimal((neg ? -small : small) * Pow10(shift), scale);
    return true;
  }
  if (out) {
    std::string digits = count > kMaxDecimalDigits ? wide : DecimalToString(small, 0);
    digits.append(static_cast<size_t>(shift), '0');
    *out = BigDecimal::FromDigits(neg, digits, scale).ToValue();
  }
  return true;
}

uint8_t NumericSpecialClass(DecimalSpecial sp) {
  return sp == DecimalSpecial::kNaN      ? kNumNaN
         : sp == DecimalSpecial::kPosInf ? kNumPosInf
                                         : kNumNegInf;
}

bool GetNumericScale(std::string_view* in, bool neg, int* scale) {
  if (in->size() < 2) return false;
  uint8_t a = static_cast<uint8_t>((*in)[0]), b = static_cast<uint8_t>((*in)[1]);
  if (neg) a = static_cast<uint8_t>(~a), b = static_cast<uint8_t>(~b);
  *scale = a << 8 | b;
  in->remove_prefix(2);
  return *scale <= kMaxNumericScale;
}

// A NUMERIC's value beyond the int128 form, from its body (after the class
// byte): the slow path of GetNumeric, apart so that the common one stays
// small.
[[gnu::noinline]] Status GetWideNumeric(std::string_view* in, bool neg, Value* out) {
  int exponent = 0, count = 0;
  int128 small = 0;
  std::string wide;
  int scale;
  if (!GetNumericBody(in, neg, &exponent, &small, &count, &wide) ||
      !GetNumericScale(in, neg, &scale) ||
      !NumericFromBody(neg, exponent, small, count, wide, scale, out)) {
    return Status::Corruption("malformed NUMERIC value");
  }
  return Status::OK();
}

[[gnu::noinline]] Value WideZero(int scale) { return BigDecimal().Widen(scale).ToValue(); }

// Reads one NUMERIC field's value (after its null tag) from the front of
// `*in`; `out` may be null (skipping).
Status GetNumeric(std::string_view* in, Value* out) {
  auto corrupt = [] { return Status::Corruption("malformed NUMERIC value"); };
  if (in->empty()) return corrupt();
  const uint8_t cls = static_cast<uint8_t>((*in)[0]);
  in->remove_prefix(1);
  switch (cls) {
    case kNumNegInf:
    case kNumPosInf:
    case kNumNaN:
      if (out) {
        *out = Value::DecimalSpecialValue(cls == kNumNaN      ? DecimalSpecial::kNaN
                                          : cls == kNumPosInf ? DecimalSpecial::kPosInf
                                                              : DecimalSpecial::kNegInf);
      }
      return Status::OK();
    case kNumZero: {
      int scale;
      if (!GetNumericScale(in, false, &scale)) return corrupt();
      if (out) *out = scale <= kMaxDecimalDigits ? Value::Decimal(0, scale) : WideZero(scale);
      return Status::OK();
    }
    case kNumNeg:
    case kNumPos:
      break;
    default:
      return corrupt();
  }
  const bool neg = cls == kNumNeg;
  const std::string_view body = *in;
  auto byte_at = [&](size_t i) {
    const uint8_t b = static_cast<uint8_t>((*in)[i]);
    return neg ? static_cast<uint8_t>(~b) : b;
  };
  if (in->empty()) return corrupt();
  const uint8_t e0 = byte_at(0);
  if (e0 == 0x01 || e0 == 0xFF) return GetWideNumeric(in, neg, out);  // a 5-byte exponent
  const int exponent = static_cast<int>(e0) - 0x80;
  int128 digits = 0;
  int count = 0;
  size_t i = 1;
  for (bool done = false; !done; ++i) {
    if (i >= in->size()) return corrupt();
    const uint8_t b = byte_at(i);
    for (uint8_t d : {static_cast<uint8_t>(b >> 4), static_cast<uint8_t>(b & 0x0F)}) {
      if (d == 0) {
        done = true;
        break;
      }
      if (d > 10) return corrupt();
      if (count >= kMaxDecimalDigits) {
        *in = body;
        return GetWideNumeric(in, neg, out);
      }
      digits = digits * 10 + (d - 1);
      ++count;
    }
  }
  in->remove_prefix(i);
  int scale;
  if (!GetNumericScale(in, neg, &scale)) return corrupt();
  // The value is 0.digits x 10^exponent: unscaled at `scale`, digits x
  // 10^(exponent - count + scale).
  const int shift = exponent - count + scale;
  if (shift < 0) return corrupt();
  if (count + shift > kMaxDecimalDigits || scale > kMaxDecimalDigits) {
    *in = body;
    return GetWideNumeric(in, neg, out);
  }
  if (out) *out = Value::Decimal((neg ? -digits : digits) * Pow10(shift), scale);
  return Status::OK();
}

// A DECIMAL(p,s) field of p > 38 (after its null tag; see WideDecimalTag),
// apart from DecodeValue's common path.
[[gnu::noinline]] Status GetWideDecimalField(const SqlType& type, std::string_view* in,
                                             Value* out) {
    if (in->empty()) return Truncated(type);
    const uint8_t tag = static_cast<uint8_t>((*in)[0]);
    if (tag == kWideFinite) {
      if (in->size() < 17) return Truncated(type);
      if (out) {
        const int128 u = GetInt128(in->data() + 1);
        *out = type.scale() <= kMaxDecimalDigits
                   ? Value::Decimal(u, type.scale())
                   : BigDecimal::FromInt128(u, type.scale()).ToValue();
      }
      in->remove_prefix(17);
      return Status::OK();
    }
    if (tag == kWideNegative || tag == kWidePositive) {
      in->remove_prefix(1);
      const bool neg = tag == kWideNegative;
      int exponent = 0, count = 0;
      int128 small = 0;
      std::string digits;
      if (!GetNumericBody(in, neg, &exponent, &small, &count, &digits) ||
          !NumericFromBody(neg, exponent, small, count, digits, type.scale(), out)) {
        return Status::Corruption("malformed " + type.ToString() + " value");
      }
      return Status::OK();
    }
    DecimalSpecial sp = DecimalSpecial::kFinite;
    for (DecimalSpecial s :
         {DecimalSpecial::kNaN, DecimalSpecial::kPosInf, DecimalSpecial::kNegInf}) {
      if (tag == WideDecimalTag(s)) sp = s;
    }
    if (sp == DecimalSpecial::kFinite) {
      return Status::Corruption("bad tag " + std::to_string(tag) + " of a " + type.ToString());
    }
    if (out) *out = Value::DecimalSpecialValue(sp);
    in->remove_prefix(1);
    return Status::OK();
}

void PutDecimalSpecial(DecimalSpecial sp, int width, std::string* out) {
  int128 bits = DecimalSpecialBits(sp, width);
  if (width == 8) {
    PutSigned(static_cast<int64_t>(bits), 8, out);
  } else {
    PutInt128(bits, out);
  }
}

DecimalSpecial DecimalSpecialOf(int128 u, int width) {
  // One test for the finite values, which every decimal read makes.
  const int128 limit = width == 8 ? int128{INT64_MAX} - 1 : std::numeric_limits<int128>::max() - 1;
  if (u < limit && u > -limit - 2) return DecimalSpecial::kFinite;  // above the minimum
  if (u == limit + 1) return DecimalSpecial::kNaN;
  return u == limit ? DecimalSpecial::kPosInf : DecimalSpecial::kNegInf;
}

void PutInterval(const Interval& iv, std::string* out) {
  PutInt128(IntervalKey(iv), out);
  PutSigned(iv.months, 4, out);
  PutSigned(iv.days, 4, out);
}

Interval GetInterval(const char* p) {
  Interval iv;
  int128 key = GetInt128(p);
  iv.months = static_cast<int32_t>(GetSigned(p + 16, 4));
  iv.days = static_cast<int32_t>(GetSigned(p + 20, 4));
  iv.micros =
      static_cast<int64_t>(key - (static_cast<int128>(iv.months) * 30 + iv.days) * kMicrosPerDay);
  return iv;
}

Status EncodeVariant(const Value& v, std::string* out) {
  switch (v.kind()) {
    case Value::Kind::kNull:
    case Value::Kind::kJsonNull:
      out->push_back(kVJsonNull);
      return Status::OK();
    case Value::Kind::kBool:
      out->push_back(kVBool);
      out->push_back(v.bool_value() ? 1 : 0);
      return Status::OK();
    case Value::Kind::kInt:
      out->push_back(kVInt);
      PutSigned(v.int_value(), 8, out);
      return Status::OK();
    case Value::Kind::kDecimal:
      if (v.decimal_wide() != nullptr) {
        return Status::Unimplemented(
            "numeric values of more than 38 digits in a VARIANT are not supported yet");
      }
      out->push_back(kVDecimal);
      out->push_back(static_cast<char>(v.decimal_scale()));
      if (v.decimal_is_special()) {
        PutDecimalSpecial(v.decimal_special(), 16, out);
      } else {
        PutInt128(v.decimal_unscaled(), out);
      }
      return Status::OK();
    case Value::Kind::kDouble:
      out->push_back(kVDouble);
      PutDouble(v.double_value(), out);
      return Status::OK();
    case Value::Kind::kString:
      out->push_back(kVString);
      PutBytes(v.string_value(), out);
      return Status::OK();
    case Value::Kind::kInterval:
      out->push_back(kVInterval);
      PutInterval(v.interval_value(), out);
      return Status::OK();
    case Value::Kind::kList:
      out->push_back(kVList);
      return EncodeVariantList(v.list(), out);
    case Value::Kind::kMap:
      out->push_back(kVMap);
      return EncodeMapEntries(
          v, [](const Value& k, std::string* o) { return EncodeVariant(k, o); },
          [](const Value& x, std::string* o) { return EncodeVariant(x, o); }, out);
  }
  return Status::Internal("unknown value kind");
}

Status DecodeVariant(std::string_view* in, Value* out);

Status DecodeVariantSeq(std::string_view* in, std::vector<Value>* items) {
  static const SqlType kVariantType = SqlType::Variant();
  while (true) {
    if (in->empty()) return Truncated(kVariantType);
    char marker = (*in)[0];
    in->remove_prefix(1);
    if (marker == kEnd) return Status::OK();
    if (marker != kMore) return Status::Corruption("bad list marker in a VARIANT value");
    Value item;
    SLUICE_RETURN_IF_ERROR(DecodeVariant(in, &item));
    items->push_back(std::move(item));
  }
}

Status DecodeVariant(std::string_view* in, Value* out) {
  static const SqlType kVariantType = SqlType::Variant();
  if (in->empty()) return Truncated(kVariantType);
  uint8_t kind = static_cast<uint8_t>((*in)[0]);
  in->remove_prefix(1);
  auto need = [&](size_t n) { return in->size() >= n ? Status::OK() : Truncated(kVariantType); };
  switch (kind) {
    case kVJsonNull:
      *out = Value::JsonNull();
      return Status::OK();
    case kVBool:
      SLUICE_RETURN_IF_ERROR(need(1));
      *out = Value::Bool((*in)[0] != 0);
      in->remove_prefix(1);
      return Status::OK();
    case kVInt:
      SLUICE_RETURN_IF_ERROR(need(8));
      *out = Value::Int(GetSigned(in->data(), 8));
      in->remove_prefix(8);
      return Status::OK();
    case kVDecimal:
      SLUICE_RETURN_IF_ERROR(need(17));
      {
        int128 u = GetInt128(in->data() + 1);
        DecimalSpecial sp = DecimalSpecialOf(u, 16);
        *out = sp == DecimalSpecial::kFinite
                   ? Value::Decimal(u, static_cast<uint8_t>((*in)[0]))
                   : Value::DecimalSpecialValue(sp);
      }
      in->remove_prefix(17);
      return Status::OK();
    case kVDouble:
      SLUICE_RETURN_IF_ERROR(need(8));
      *out = Value::Double(GetDouble(in->data()));
      in->remove_prefix(8);
      return Status::OK();
    case kVString: {
      std::string s;
      SLUICE_RETURN_IF_ERROR(GetBytes(kVariantType, in, &s));
      *out = Value::String(std::move(s));
      return Status::OK();
    }
    case kVInterval: {
      SLUICE_RETURN_IF_ERROR(need(24));
      Interval iv = GetInterval(in->data());
      *out = Value::MakeInterval(iv.months, iv.days, iv.micros);
      in->remove_prefix(24);
      return Status::OK();
    }
    case kVList: {
      std::vector<Value> items;
      SLUICE_RETURN_IF_ERROR(DecodeVariantSeq(in, &items));
      *out = Value::List(std::move(items));
      return Status::OK();
    }
    case kVMap: {
      std::vector<Value> keys, vals;
      while (true) {
        SLUICE_RETURN_IF_ERROR(need(1));
        char marker = (*in)[0];
        in->remove_prefix(1);
        if (marker == kEnd) break;
        if (marker != kMore) return Status::Corruption("bad map marker in a VARIANT value");
        Value k, v;
        SLUICE_RETURN_IF_ERROR(DecodeVariant(in, &k));
        SLUICE_RETURN_IF_ERROR(DecodeVariant(in, &v));
        keys.push_back(std::move(k));
        vals.push_back(std::move(v));
      }
      *out = Value::Map(std::move(keys), std::move(vals));
      return Status::OK();
    }
    default:
      return Status::Corruption("unknown VARIANT kind byte " + std::to_string(kind));
  }
}

Status EncodeNonNull(const SqlType& type, const Value& v, std::string* out) {
  using K = Value::Kind;
  auto expect = [&](K kind) {
    return v.kind() == kind ? Status::OK() : Misfit(type, v, "wrong kind of value");
  };
  switch (type.id()) {
    case TypeId::kBoolean:
      SLUICE_RETURN_IF_ERROR(expect(K::kBool));
      out->push_back(v.bool_value() ? 1 : 0);
      return Status::OK();
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kBigInt:
    case TypeId::kDate:
    case TypeId::kTime:
    case TypeId::kTimestamp: {
      SLUICE_RETURN_IF_ERROR(expect(K::kInt));
      int width = IntWidth(type.id());
      int64_t i = v.int_value();
      if (width < 8) {
        int64_t lim = int64_t{1} << (8 * width - 1);
        if (i < -lim || i >= lim) return Misfit(type, v, "out of range");
      }
      if (type.IsTimeTz()) {
        if (!TimeTz::IsValidEncoding(i)) {
          return Misfit(type, v, "not a time of day with a zone within 15:59:59 of UTC");
        }
      } else if (type.id() == TypeId::kTime && (i < 0 || i > kMicrosPerDay)) {
        // 24:00:00 is a TIME, as in PostgreSQL.
        return Misfit(type, v, "a TIME must lie within one day (00:00:00 to 24:00:00)");
      }
      PutSigned(i, width, out);
      return Status::OK();
    }
    case TypeId::kDecimal: {
      SLUICE_RETURN_IF_ERROR(expect(K::kDecimal));
      if (type.dynamic_scale()) {
        if (v.decimal_is_special()) {
          out->push_back(static_cast<char>(NumericSpecialClass(v.decimal_special())));
          return Status::OK();
        }
        if (v.decimal_wide() != nullptr) return PutWideNumericField(type, v, out);
        PutNumeric(v.decimal_unscaled(), v.decimal_scale(), out);
        return Status::OK();
      }
      const bool wide = type.precision() > kMaxDecimalDigits;
      if (v.decimal_is_special()) {
        if (v.decimal_special() != DecimalSpecial::kNaN && !DecimalHoldsInfinity(type)) {
          return Misfit(type, v, "numeric field overflow (it cannot hold an infinite value)");
        }
        if (wide) {
          out->push_back(static_cast<char>(WideDecimalTag(v.decimal_special())));
        } else {
          PutDecimalSpecial(v.decimal_special(), type.precision() <= 18 ? 8 : 16, out);
        }
        return Status::OK();
      }
      if (v.decimal_wide() != nullptr) return PutWideDecimalField(type, v, out);
      int128 u = v.decimal_unscaled();
      int from = v.decimal_scale(), to = type.scale();
      if (from < to) {
        int128 f = Pow10(to - from);
        if (u > std::numeric_limits<int128>::max() / f ||
            u < std::numeric_limits<int128>::min() / f) {
          return wide ? PutWideDecimalField(type, v, out)
                      : Misfit(type, v, "numeric field overflow");
        }
        u *= f;
      } else if (from > to) {
        // Round half away from zero, as PostgreSQL does on assignment.
        int128 f = Pow10(from - to);
        int128 q = u / f, r = u % f;
        if (r * 2 >= f) ++q;
        if (r * 2 <= -f) --q;
        u = q;
      }
      int128 limit = Pow10(std::min(type.precision(), kMaxDecimalDigits));
      if (u >= limit || u <= -limit) {
        return wide ? PutWideDecimalField(type, v, out)
                    : Misfit(type, v, "numeric field overflow");
      }
      PutDecimalUnscaled(type, u, out);
      return Status::OK();
    }
    case TypeId::kReal:
      SLUICE_RETURN_IF_ERROR(expect(K::kDouble));
      PutFloat(static_cast<float>(v.double_value()), out);
      return Status::OK();
    case TypeId::kDouble:
      SLUICE_RETURN_IF_ERROR(expect(K::kDouble));
      PutDouble(v.double_value(), out);
      return Status::OK();
    case TypeId::kChar:
    case TypeId::kVarchar:
    case TypeId::kBinary:
    case TypeId::kVarbinary: {
      SLUICE_RETURN_IF_ERROR(expect(K::kString));
      std::string_view s = v.string_value();
      if (!FitString(type, &s)) return Misfit(type, v, "value too long");
      PutBytes(s, out);
      return Status::OK();
    }
    case TypeId::kInterval:
      SLUICE_RETURN_IF_ERROR(expect(K::kInterval));
      PutInterval(v.interval_value(), out);
      return Status::OK();
    case TypeId::kArray: {
      SLUICE_RETURN_IF_ERROR(expect(K::kList));
      // oidvector sorts by its length first, as PostgreSQL's oidvector
      // comparisons do: 4 bytes of it lead.
      if (type.pg_kind() == PgKind::kOidVector) {
        PutSigned(static_cast<int64_t>(v.list().size()), 4, out);
      }
      const bool sub_arrays = ArrayHoldsSubArrays(type);
      for (const Value& item : v.list()) {
        if (sub_arrays && item.kind() == K::kList) {
          out->push_back(kSubArray);
          SLUICE_RETURN_IF_ERROR(EncodeNonNull(type, item, out));
          continue;
        }
        out->push_back(kMore);
        SLUICE_RETURN_IF_ERROR(EncodeValue(type.children()[0], item, out));
      }
      if (!v.lower_bounds().empty()) {
        if (!ArrayMayHaveBounds(type)) {
          return Misfit(type, v, "lower bounds of an array of this type");
        }
        out->push_back(kBounds);
        out->push_back(static_cast<char>(v.lower_bounds().size()));
        for (int32_t b : v.lower_bounds()) PutSigned(b, 4, out);
      }
      out->push_back(kEnd);
      return Status::OK();
    }
    case TypeId::kMap: {
      SLUICE_RETURN_IF_ERROR(expect(K::kMap));
      const SqlType& kt = type.children()[0];
      const SqlType& vt = type.children()[1];
      return EncodeMapEntries(
          v, [&](const Value& k, std::string* o) { return EncodeValue(kt, k, o); },
          [&](const Value& x, std::string* o) { return EncodeValue(vt, x, o); }, out);
    }
    case TypeId::kRow: {
      SLUICE_RETURN_IF_ERROR(expect(K::kList));
      if (v.list().size() != type.children().size()) {
        return Misfit(type, v, "wrong number of fields");
      }
      for (size_t i = 0; i < v.list().size(); ++i) {
        SLUICE_RETURN_IF_ERROR(EncodeValue(type.children()[i], v.list()[i], out));
      }
      return Status::OK();
    }
    case TypeId::kVariant:
      return EncodeVariant(v, out);
  }
  return Status::Internal("unknown type");
}

// Decodes (out != null) or skips (out == null) a non-null value.
Status DecodeNonNull(const SqlType& type, std::string_view* in, Value* out) {
  auto need = [&](size_t n) { return in->size() >= n ? Status::OK() : Truncated(type); };
  switch (type.id()) {
    case TypeId::kBoolean:
      SLUICE_RETURN_IF_ERROR(need(1));
      if (out) *out = Value::Bool((*in)[0] != 0);
      in->remove_prefix(1);
      return Status::OK();
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kBigInt:
    case TypeId::kDate:
    case TypeId::kTime:
    case TypeId::kTimestamp: {
      int w = IntWidth(type.id());
      SLUICE_RETURN_IF_ERROR(need(static_cast<size_t>(w)));
      if (out) *out = Value::Int(GetSigned(in->data(), w));
      in->remove_prefix(static_cast<size_t>(w));
      return Status::OK();
    }
    case TypeId::kDecimal: {
      if (type.dynamic_scale()) return GetNumeric(in, out);
      if (type.precision() > kMaxDecimalDigits) return GetWideDecimalField(type, in, out);
      size_t w = type.precision() <= 18 ? 8 : 16;
      SLUICE_RETURN_IF_ERROR(need(w));
      if (out) {
        int128 u = w == 8 ? GetSigned(in->data(), 8) : GetInt128(in->data());
        DecimalSpecial sp = DecimalSpecialOf(u, static_cast<int>(w));
        *out = sp == DecimalSpecial::kFinite ? Value::Decimal(u, type.scale())
                                             : Value::DecimalSpecialValue(sp);
      }
      in->remove_prefix(w);
      return Status::OK();
    }
    case TypeId::kReal:
      SLUICE_RETURN_IF_ERROR(need(4));
      if (out) *out = Value::Double(GetFloat(in->data()));
      in->remove_prefix(4);
      return Status::OK();
    case TypeId::kDouble:
      SLUICE_RETURN_IF_ERROR(need(8));
      if (out) *out = Value::Double(GetDouble(in->data()));
      in->remove_prefix(8);
      return Status::OK();
    case TypeId::kChar:
    case TypeId::kVarchar:
    case TypeId::kBinary:
    case TypeId::kVarbinary: {
      if (!out) return GetBytes(type, in, nullptr);
      std::string s;
      SLUICE_RETURN_IF_ERROR(GetBytes(type, in, &s));
      *out = Value::String(std::move(s));
      return Status::OK();
    }
    case TypeId::kInterval: {
      SLUICE_RETURN_IF_ERROR(need(24));
      if (out) {
        Interval iv = GetInterval(in->data());
        *out = Value::MakeInterval(iv.months, iv.days, iv.micros);
      }
      in->remove_prefix(24);
      return Status::OK();
    }
    case TypeId::kArray: {
      std::vector<Value> items;
      std::vector<int32_t> lower;
      if (type.pg_kind() == PgKind::kOidVector) {  // its length, which leads
        SLUICE_RETURN_IF_ERROR(need(4));
        in->remove_prefix(4);
      }
      while (true) {
        SLUICE_RETURN_IF_ERROR(need(1));
        char marker = (*in)[0];
        in->remove_prefix(1);
        if (marker == kEnd) break;
        if (marker == kSubArray && ArrayHoldsSubArrays(type)) {
          Value sub;
          SLUICE_RETURN_IF_ERROR(DecodeNonNull(type, in, out ? &sub : nullptr));
          if (out) items.push_back(std::move(sub));
          continue;
        }
        if (marker == kBounds && ArrayMayHaveBounds(type)) {
          SLUICE_RETURN_IF_ERROR(need(1));
          const size_t n = static_cast<uint8_t>((*in)[0]);
          SLUICE_RETURN_IF_ERROR(need(1 + 4 * n));
          for (size_t i = 0; i < n; ++i) {
            lower.push_back(static_cast<int32_t>(GetSigned(in->data() + 1 + 4 * i, 4)));
          }
          in->remove_prefix(1 + 4 * n);
          continue;
        }
        if (marker != kMore) return Status::Corruption("bad element marker in " + type.ToString());
        Value item;
        SLUICE_RETURN_IF_ERROR(out ? DecodeValue(type.children()[0], in, &item)
                                   : SkipValue(type.children()[0], in));
        if (out) items.push_back(std::move(item));
      }
      if (out) *out = Value::BoundedList(std::move(items), std::move(lower));
      return Status::OK();
    }
    case TypeId::kMap: {
      std::vector<Value> keys, vals;
      while (true) {
        SLUICE_RETURN_IF_ERROR(need(1));
        char marker = (*in)[0];
        in->remove_prefix(1);
        if (marker == kEnd) break;
        if (marker != kMore) return Status::Corruption("bad entry marker in " + type.ToString());
        Value k, v;
        if (out) {
          SLUICE_RETURN_IF_ERROR(DecodeValue(type.children()[0], in, &k));
          SLUICE_RETURN_IF_ERROR(DecodeValue(type.children()[1], in, &v));
          keys.push_back(std::move(k));
          vals.push_back(std::move(v));
        } else {
          SLUICE_RETURN_IF_ERROR(SkipValue(type.children()[0], in));
          SLUICE_RETURN_IF_ERROR(SkipValue(type.children()[1], in));
        }
      }
      if (out) *out = Value::Map(std::move(keys), std::move(vals));
      return Status::OK();
    }
    case TypeId::kRow: {
      std::vector<Value> fields(out ? type.children().size() : 0);
      for (size_t i = 0; i < type.children().size(); ++i) {
        SLUICE_RETURN_IF_ERROR(out ? DecodeValue(type.children()[i], in, &fields[i])
                                   : SkipValue(type.children()[i], in));
      }
      if (out) *out = Value::List(std::move(fields));
      return Status::OK();
    }
    case TypeId::kVariant: {
      Value tmp;
      SLUICE_RETURN_IF_ERROR(DecodeVariant(in, out ? out : &tmp));
      return Status::OK();
    }
  }
  return Status::Internal("unknown type");
}

// Returns true if the field is NULL (and consumes its tag either way).
Status ReadNullTag(const SqlType& type, std::string_view* in, bool* is_null) {
  *is_null = false;
  if (!type.nullable()) return Status::OK();
  if (in->empty()) return Truncated(type);
  char tag = (*in)[0];
  in->remove_prefix(1);
  if (tag == kNullTag) {
    *is_null = true;
  } else if (tag != kPresent) {
    return Status::Corruption("bad null tag in a " + type.ToString() + " value");
  }
  return Status::OK();
}

}  // namespace

bool AppendIntField(const SqlType& type, int64_t v, std::string* out) {
  const int width = IntWidth(type.id());
  if (width < 8) {
    const int64_t lim = int64_t{1} << (8 * width - 1);
    if (v < -lim || v >= lim) return false;
  }
  if (type.IsTimeTz()) {
    if (!TimeTz::IsValidEncoding(v)) return false;
  } else if (type.id() == TypeId::kTime && (v < 0 || v >= kMicrosPerDay)) {
    return false;
  }
  if (type.nullable()) out->push_back(kPresent);
  PutSigned(v, width, out);
  return true;
}

bool AppendNumericField(const SqlType& type, int128 unscaled, int scale, std::string* out) {
  const int128 limit = Pow10(kMaxDecimalDigits);
  if (unscaled >= limit || unscaled <= -limit || scale < 0 || scale > kMaxDecimalDigits) {
    return false;
  }
  if (type.nullable()) out->push_back(kPresent);
  PutNumeric(unscaled, scale, out);
  return true;
}

bool AppendDecimalField(const SqlType& type, int128 unscaled, std::string* out) {
  const int128 limit = Pow10(std::min(type.precision(), kMaxDecimalDigits));
  if (unscaled >= limit || unscaled <= -limit) return false;
  if (type.nullable()) out->push_back(kPresent);
  PutDecimalUnscaled(type, unscaled, out);
  return true;
}

bool FitString(const SqlType& type, std::string_view* s) {
  if (type.id() == TypeId::kChar) {
    while (!s->empty() && s->back() == ' ') s->remove_suffix(1);
  }
  if (type.length() < 0) return true;
  const size_t n = static_cast<size_t>(type.length());
  if (!type.IsString()) return s->size() <= n;
  // The byte where the (n+1)th character starts, if there is one.
  size_t chars = 0, cut = 0;
  for (; cut < s->size(); ++cut) {
    if ((static_cast<uint8_t>((*s)[cut]) & 0xC0) == 0x80) continue;
    if (chars++ == n) break;
  }
  if (cut == s->size()) return true;
  if (s->find_first_not_of(' ', cut) != std::string_view::npos) return false;
  *s = s->substr(0, cut);
  return true;
}

bool AppendStringField(const SqlType& type, std::string_view s, std::string* out) {
  if (!FitString(type, &s)) return false;
  if (type.nullable()) out->push_back(kPresent);
  PutBytes(s, out);
  return true;
}

Status EncodeValue(const SqlType& type, const Value& v, std::string* out) {
  if (v.is_null()) {
    if (!type.nullable()) {
      return Status::InvalidArgument("NULL does not fit " + type.ToString());
    }
    out->push_back(kNullTag);
    return Status::OK();
  }
  if (type.nullable()) out->push_back(kPresent);
  return EncodeNonNull(type, v, out);
}

Status DecodeValue(const SqlType& type, std::string_view* in, Value* out) {
  bool is_null;
  SLUICE_RETURN_IF_ERROR(ReadNullTag(type, in, &is_null));
  if (is_null) {
    *out = Value::Null();
    return Status::OK();
  }
  return DecodeNonNull(type, in, out);
}

Status SkipValue(const SqlType& type, std::string_view* in) {
  bool is_null;
  SLUICE_RETURN_IF_ERROR(ReadNullTag(type, in, &is_null));
  if (is_null) return Status::OK();
  return DecodeNonNull(type, in, nullptr);
}

Status EncodeRow(const Schema& schema, const std::vector<Value>& row, std::string* out) {
  if (row.size() != schema.size()) {
    return Status::InvalidArgument("row has " + std::to_string(row.size()) + " values, schema " +
                                   SchemaToString(schema) + " has " +
                                   std::to_string(schema.size()) + " columns");
  }
  for (size_t i = 0; i < row.size(); ++i) {
    Status s = EncodeValue(schema[i], row[i], out);
    if (!s.ok()) return s.WithContext("column " + std::to_string(i + 1));
  }
  return Status::OK();
}

Result<std::vector<Value>> DecodeRow(const Schema& schema, std::string_view row) {
  std::vector<Value> values(schema.size());
  for (size_t i = 0; i < schema.size(); ++i) {
    Status s = DecodeValue(schema[i], &row, &values[i]);
    if (!s.ok()) return s.WithContext("column " + std::to_string(i + 1));
  }
  if (!row.empty()) {
    return Status::Corruption(std::to_string(row.size()) + " bytes left after a row of " +
                              SchemaToString(schema));
  }
  return values;
}

Status SplitRow(const Schema& schema, std::string_view row, std::vector<std::string_view>* fields) {
  fields->clear();
  for (const SqlType& t : schema) {
    const char* start = row.data();
    SLUICE_RETURN_IF_ERROR(SkipValue(t, &row));
    fields->emplace_back(start, static_cast<size_t>(row.data() - start));
  }
  if (!row.empty())
    return Status::Corruption("bytes left after a row of " + SchemaToString(schema));
  return Status::OK();
}

int IntWidth(TypeId id) {
  switch (id) {
    case TypeId::kTinyInt:
      return 1;
    case TypeId::kSmallInt:
      return 2;
    case TypeId::kInteger:
    case TypeId::kDate:
      return 4;
    default:
      return 8;
  }
}

Status SplitRowOrMisfit(const Schema& schema, std::string_view row,
                        std::vector<std::string_view>* fields, std::string_view what) {
  Status s = SplitRow(schema, row, fields);
  if (s.ok()) return s;
  return Status::InvalidArgument(std::string(what) + " received a row that does not fit " +
                                 SchemaToString(schema) + ": " + s.message());
}

void AppendInt64(int64_t v, bool nullable, std::string* out) {
  if (nullable) out->push_back(kPresent);
  PutSigned(v, 8, out);
}

void AppendNull(std::string* out) { out->push_back(kNullTag); }

bool ReadInt(TypeId id, bool nullable, std::string_view* in, int64_t* out) {
  if (nullable) {
    char tag = (*in)[0];
    in->remove_prefix(1);
    if (tag == kNullTag) return false;
  }
  int w = IntWidth(id);
  *out = GetSigned(in->data(), w);
  in->remove_prefix(static_cast<size_t>(w));
  return true;
}

void InvertBytes(char* data, size_t len) {
  for (size_t i = 0; i < len; ++i) data[i] = static_cast<char>(~data[i]);
}

std::string RowToString(const Schema& schema, std::string_view row) {
  auto decoded = DecodeRow(schema, row);
  if (!decoded.ok()) return "<" + decoded.status().ToString() + ">";
  std::string s = "(";
  for (size_t i = 0; i < decoded->size(); ++i) {
    if (i > 0) s += ", ";
    s += (*decoded)[i].ToString();
  }
  return s + ")";
}

}  // namespace sluice
