// Functions of bytea (binary strings), as PostgreSQL has them: trimming,
// substrings and overlays by byte, LIKE, encode/decode (hex, base64,
// escape), the SHA-2 digests, bits and bytes by position; and unistr().
#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "sql/functions_internal.h"
#include "sql/sql_text.h"

namespace sluice::sql {
namespace {

const SqlType kBytea = SqlType::Varbinary();

Value Bytes(std::string s) { return Value::String(std::move(s)); }

Status ConcatBytes(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Bytes(a[0].string_value() + a[1].string_value());
  return Status::OK();
}

// btrim, ltrim, rtrim(bytes, set): the bytes of `set` taken off the ends.
Status TrimBytes(const Value* a, bool left, bool right, Value* out) {
  const std::string& s = a[0].string_value();
  const std::string& set = a[1].string_value();
  size_t b = 0, e = s.size();
  if (left) {
    while (b < e && set.find(s[b]) != std::string::npos) ++b;
  }
  if (right) {
    while (e > b && set.find(s[e - 1]) != std::string::npos) --e;
  }
  *out = Bytes(s.substr(b, e - b));
  return Status::OK();
}
Status BtrimBytes(const SqlType&, const Value* a, size_t, Value* out) {
  return TrimBytes(a, true, true, out);
}
Status LtrimBytes(const SqlType&, const Value* a, size_t, Value* out) {
  return TrimBytes(a, true, false, out);
}
Status RtrimBytes(const SqlType&, const Value* a, size_t, Value* out) {
  return TrimBytes(a, false, true, out);
}

// The bytes from 1-based `start`, `count` of them (all if count < 0 is not
// given); a start before 1 shortens the count, as PostgreSQL does.
Status Substring(const std::string& s, int64_t start, bool has_count, int64_t count,
                 std::string* out) {
  if (has_count && count < 0)
    return Status::InvalidArgument("negative substring length not allowed");
  int64_t end = has_count ? start + count : INT64_MAX;  // exclusive, 1-based
  if (has_count && count > 0 && start > INT64_MAX - count) end = INT64_MAX;
  const int64_t b = std::max<int64_t>(start, 1);
  const int64_t e = std::min<int64_t>(end, static_cast<int64_t>(s.size()) + 1);
  *out = b >= e || b > static_cast<int64_t>(s.size())
             ? std::string()
             : s.substr(static_cast<size_t>(b - 1), static_cast<size_t>(e - b));
  return Status::OK();
}
Status SubstrBytes(const SqlType&, const Value* a, size_t n, Value* out) {
  std::string r;
  SLUICE_RETURN_IF_ERROR(
      Substring(a[0].string_value(), a[1].int_value(), n == 3, n == 3 ? a[2].int_value() : 0, &r));
  *out = Bytes(std::move(r));
  return Status::OK();
}

// position(sub IN bytes), called as position(bytes, sub) (PostgreSQL's
// byteapos): where sub first starts in bytes, counting from 1; 0 where it
// does not occur; 1 for an empty sub.
Status PositionBytes(const SqlType&, const Value* a, size_t, Value* out) {
  const size_t at = a[0].string_value().find(a[1].string_value());
  *out = Value::Int(at == std::string::npos ? 0 : static_cast<int64_t>(at) + 1);
  return Status::OK();
}

// overlay(bytes PLACING p FROM start [FOR count]): the count bytes from
// start replaced by p (count defaults to p's length).
Status OverlayBytes(const SqlType&, const Value* a, size_t n, Value* out) {
  const std::string& s = a[0].string_value();
  const std::string& p = a[1].string_value();
  const int64_t start = a[2].int_value();
  const int64_t count = n == 4 ? a[3].int_value() : static_cast<int64_t>(p.size());
  if (start < 1) return Status::InvalidArgument("negative substring length not allowed");
  if (count < 0) return Status::InvalidArgument("negative substring length not allowed");
  std::string head, tail;
  SLUICE_RETURN_IF_ERROR(Substring(s, 1, true, start - 1, &head));
  SLUICE_RETURN_IF_ERROR(Substring(s, start + count, false, 0, &tail));
  *out = Bytes(head + p + tail);
  return Status::OK();
}

// LIKE on bytes: % any bytes, _ one byte, \ escapes the next.
bool LikeBytes(std::string_view s, std::string_view p) {
  size_t si = 0, pi = 0, star_p = std::string_view::npos, star_s = 0;
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == '%') {
      star_p = pi++;
      star_s = si;
      continue;
    }
    if (pi < p.size()) {
      char c = p[pi];
      size_t len = 1;
      bool any = c == '_';
      if (c == '\\' && pi + 1 < p.size()) {
        c = p[pi + 1];
        len = 2;
        any = false;
      }
      if (any || c == s[si]) {
        pi += len;
        ++si;
        continue;
      }
    }
    if (star_p == std::string_view::npos) return false;
    pi = star_p + 1;
    si = ++star_s;
  }
  while (pi < p.size() && p[pi] == '%') ++pi;
  return pi == p.size();
}
Status LikeBytesFn(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(LikeBytes(a[0].string_value(), a[1].string_value()));
  return Status::OK();
}
Status NotLikeBytesFn(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(!LikeBytes(a[0].string_value(), a[1].string_value()));
  return Status::OK();
}

// like_escape(pattern, escape) on bytes: the pattern rewritten for the
// default escape, the backslash (what `LIKE p ESCAPE e` means).
Status LikeEscapeBytes(const SqlType&, const Value* a, size_t, Value* out) {
  const std::string& p = a[0].string_value();
  const std::string& esc = a[1].string_value();
  if (esc.size() > 1) return Status::InvalidArgument("invalid escape string");
  std::string r;
  for (size_t i = 0; i < p.size(); ++i) {
    if (!esc.empty() && p[i] == esc[0]) {
      if (i + 1 == p.size()) {
        return Status::InvalidArgument("LIKE pattern must not end with escape character");
      }
      r += '\\';
      r += p[++i];
    } else if (p[i] == '\\') {
      r += "\\\\";
    } else {
      r += p[i];
    }
  }
  *out = Bytes(std::move(r));
  return Status::OK();
}

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// encode(bytes, format): hex, base64 (lines of 76 characters, as
// PostgreSQL writes them) or escape (NUL, high bytes and backslash escaped).
Status Encode(const SqlType&, const Value* a, size_t, Value* out) {
  const std::string& s = a[0].string_value();
  const std::string fmt = AsciiLower(a[1].string_value());
  std::string r;
  if (fmt == "hex") {
    static const char kHex[] = "0123456789abcdef";
    for (unsigned char c : s) {
      r += kHex[c >> 4];
      r += kHex[c & 15];
    }
  } else if (fmt == "base64") {
    size_t line = 0;
    for (size_t i = 0; i < s.size(); i += 3) {
      uint32_t v = static_cast<unsigned char>(s[i]) << 16;
      if (i + 1 < s.size()) v |= static_cast<unsigned char>(s[i + 1]) << 8;
      if (i + 2 < s.size()) v |= static_cast<unsigned char>(s[i + 2]);
      if (line == 76) {
        r += '\n';
        line = 0;
      }
      r += kBase64[v >> 18 & 63];
      r += kBase64[v >> 12 & 63];
      r += i + 1 < s.size() ? kBase64[v >> 6 & 63] : '=';
      r += i + 2 < s.size() ? kBase64[v & 63] : '=';
      line += 4;
    }
  } else if (fmt == "escape") {
    for (unsigned char c : s) {
      if (c == '\\') {
        r += "\\\\";
      } else if (c == 0 || c >= 0x80) {
        r += '\\';
        r += static_cast<char>('0' + (c >> 6));
        r += static_cast<char>('0' + (c >> 3 & 7));
        r += static_cast<char>('0' + (c & 7));
      } else {
        r += static_cast<char>(c);
      }
    }
  } else {
    return Status::InvalidArgument("unrecognized encoding: \"" + a[1].string_value() + "\"");
  }
  *out = Value::String(std::move(r));
  return Status::OK();
}

// decode(text, format): the inverse of encode.
Status Decode(const SqlType&, const Value* a, size_t, Value* out) {
  const std::string& s = a[0].string_value();
  const std::string fmt = AsciiLower(a[1].string_value());
  std::string r;
  if (fmt == "hex") {
    auto digit = [](char c) {
      return c >= '0' && c <= '9'   ? c - '0'
             : c >= 'a' && c <= 'f' ? c - 'a' + 10
             : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                    : -1;
    };
    for (size_t i = 0; i < s.size();) {
      if (std::isspace(static_cast<unsigned char>(s[i]))) {
        ++i;
        continue;
      }
      const int hi = digit(s[i]);
      if (hi < 0)
        return Status::InvalidArgument("invalid hexadecimal digit: \"" + s.substr(i, 1) + "\"");
      if (i + 1 >= s.size())
        return Status::InvalidArgument("invalid hexadecimal data: odd number of digits");
      const int lo = digit(s[i + 1]);
      if (lo < 0) {
        return Status::InvalidArgument("invalid hexadecimal digit: \"" + s.substr(i + 1, 1) + "\"");
      }
      r += static_cast<char>(hi * 16 + lo);
      i += 2;
    }
  } else if (fmt == "base64") {
    uint32_t acc = 0;
    int bits = 0, pad = 0;
    for (char c : s) {
      if (std::isspace(static_cast<unsigned char>(c))) continue;
      if (c == '=') {
        ++pad;
        continue;
      }
      const char* p = std::strchr(kBase64, c);
      if (p == nullptr || c == '\0' || pad > 0) {
        return Status::InvalidArgument(std::string("invalid symbol \"") + c +
                                       "\" found while decoding base64 sequence");
      }
      acc = acc << 6 | static_cast<uint32_t>(p - kBase64);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        r += static_cast<char>(acc >> bits & 0xFF);
      }
    }
    if (bits >= 6 || pad > 2) {
      return Status::InvalidArgument("invalid base64 end sequence");
    }
  } else if (fmt == "escape") {
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] != '\\') {
        r += s[i];
      } else if (i + 1 < s.size() && s[i + 1] == '\\') {
        r += '\\';
        ++i;
      } else if (i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' &&
                 s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
        r += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
        i += 3;
      } else {
        return Status::InvalidArgument("invalid input syntax for type bytea");
      }
    }
  } else {
    return Status::InvalidArgument("unrecognized encoding: \"" + a[1].string_value() + "\"");
  }
  *out = Bytes(std::move(r));
  return Status::OK();
}

Status Digest(const EVP_MD* md, const Value& v, Value* out) {
  unsigned char buf[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  const std::string& s = v.string_value();
  if (EVP_Digest(s.data(), s.size(), buf, &len, md, nullptr) != 1) {
    return Status::Internal("the digest failed");
  }
  *out = Bytes(std::string(reinterpret_cast<const char*>(buf), len));
  return Status::OK();
}
Status Sha224(const SqlType&, const Value* a, size_t, Value* out) {
  return Digest(EVP_sha224(), a[0], out);
}
Status Sha256(const SqlType&, const Value* a, size_t, Value* out) {
  return Digest(EVP_sha256(), a[0], out);
}
Status Sha384(const SqlType&, const Value* a, size_t, Value* out) {
  return Digest(EVP_sha384(), a[0], out);
}
Status Sha512(const SqlType&, const Value* a, size_t, Value* out) {
  return Digest(EVP_sha512(), a[0], out);
}

Status OutOfRange(int64_t n, int64_t max) {
  return Status::InvalidArgument("index " + std::to_string(n) + " out of valid range, 0.." +
                                 std::to_string(max));
}
// get_bit and set_bit number the bits from the first byte's lowest.
Status GetBit(const SqlType&, const Value* a, size_t, Value* out) {
  const std::string& s = a[0].string_value();
  const int64_t n = a[1].int_value();
  if (n < 0 || n >= static_cast<int64_t>(s.size()) * 8) {
    return OutOfRange(n, static_cast<int64_t>(s.size()) * 8 - 1);
  }
  *out = Value::Int(static_cast<unsigned char>(s[static_cast<size_t>(n / 8)]) >> (n % 8) & 1);
  return Status::OK();
}
Status SetBit(const SqlType&, const Value* a, size_t, Value* out) {
  std::string s = a[0].string_value();
  const int64_t n = a[1].int_value(), bit = a[2].int_value();
  if (n < 0 || n >= static_cast<int64_t>(s.size()) * 8) {
    return OutOfRange(n, static_cast<int64_t>(s.size()) * 8 - 1);
  }
  if (bit != 0 && bit != 1) return Status::InvalidArgument("new bit must be 0 or 1");
  unsigned char& c = reinterpret_cast<unsigned char&>(s[static_cast<size_t>(n / 8)]);
  c = static_cast<unsigned char>(bit ? c | (1u << (n % 8)) : c & ~(1u << (n % 8)));
  *out = Bytes(std::move(s));
  return Status::OK();
}
Status GetByte(const SqlType&, const Value* a, size_t, Value* out) {
  const std::string& s = a[0].string_value();
  const int64_t n = a[1].int_value();
  if (n < 0 || n >= static_cast<int64_t>(s.size())) {
    return OutOfRange(n, static_cast<int64_t>(s.size()) - 1);
  }
  *out = Value::Int(static_cast<unsigned char>(s[static_cast<size_t>(n)]));
  return Status::OK();
}
Status SetByte(const SqlType&, const Value* a, size_t, Value* out) {
  std::string s = a[0].string_value();
  const int64_t n = a[1].int_value();
  if (n < 0 || n >= static_cast<int64_t>(s.size())) {
    return OutOfRange(n, static_cast<int64_t>(s.size()) - 1);
  }
  s[static_cast<size_t>(n)] = static_cast<char>(a[2].int_value() & 0xFF);
  *out = Bytes(std::move(s));
  return Status::OK();
}
Status BitCount(const SqlType&, const Value* a, size_t, Value* out) {
  int64_t bits = 0;
  for (unsigned char c : a[0].string_value()) bits += __builtin_popcount(c);
  *out = Value::Int(bits);
  return Status::OK();
}

// unistr(text): \XXXX, \+XXXXXX, \uXXXX and \UXXXXXXXX are the Unicode
// code points they name (UTF-16 surrogate pairs joined), \\ a backslash.
Status Unistr(const SqlType&, const Value* a, size_t, Value* out) {
  const std::string& s = a[0].string_value();
  std::string r;
  uint32_t high = 0;  // a pending high surrogate
  auto invalid = [] {
    return Status::InvalidArgument(
        "invalid Unicode escape: must be \\XXXX, \\+XXXXXX, \\uXXXX, or \\UXXXXXXXX");
  };
  for (size_t i = 0; i < s.size();) {
    if (s[i] != '\\') {
      if (high != 0) return Status::InvalidArgument("invalid Unicode surrogate pair");
      r += s[i++];
      continue;
    }
    if (i + 1 < s.size() && s[i + 1] == '\\') {
      if (high != 0) return Status::InvalidArgument("invalid Unicode surrogate pair");
      r += '\\';
      i += 2;
      continue;
    }
    size_t skip = 1, digits = 4;
    if (i + 1 < s.size() && s[i + 1] == '+') {
      skip = 2;
      digits = 6;
    } else if (i + 1 < s.size() && s[i + 1] == 'u') {
      skip = 2;
    } else if (i + 1 < s.size() && s[i + 1] == 'U') {
      skip = 2;
      digits = 8;
    }
    if (i + skip + digits > s.size()) return invalid();
    uint32_t cp = 0;
    for (size_t k = 0; k < digits; ++k) {
      const char c = s[i + skip + k];
      if (!std::isxdigit(static_cast<unsigned char>(c))) return invalid();
      cp = cp * 16 +
           static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(c))
                                     ? c - '0'
                                     : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
    }
    i += skip + digits;
    if (cp > 0x10FFFF)
      return Status::InvalidArgument("invalid Unicode code point: " + std::to_string(cp));
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (high != 0) return Status::InvalidArgument("invalid Unicode surrogate pair");
      high = cp;
      continue;
    }
    if (cp >= 0xDC00 && cp <= 0xDFFF) {
      if (high == 0) return Status::InvalidArgument("invalid Unicode surrogate pair");
      cp = 0x10000 + ((high - 0xD800) << 10) + (cp - 0xDC00);
      high = 0;
    } else if (high != 0) {
      return Status::InvalidArgument("invalid Unicode surrogate pair");
    }
    if (cp == 0) return Status::InvalidArgument("invalid Unicode code point: 0");
    AppendUtf8(cp, &r);
  }
  if (high != 0) return Status::InvalidArgument("invalid Unicode surrogate pair");
  *out = Value::String(std::move(r));
  return Status::OK();
}

}  // namespace

bool ResolveBytea(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r) {
  const size_t n = args.size();
  auto bytes_at = [&](size_t i) { return i < n && args[i].IsBinary(); };
  // A text argument where bytes are expected is read as bytea's text (the
  // untyped constants of `sha256('abc')`, `encode('\x12', 'hex')`).
  auto bytes_or_text = [&](size_t i) {
    return i < n && (args[i].IsBinary() || args[i].IsString());
  };
  auto int_at = [&](size_t i) { return i < n && args[i].IsInteger(); };
  const SqlType text = SqlType::Varchar(), i64 = SqlType::BigInt(), i32 = SqlType::Integer();
  if (name == "||" && n == 2 && bytes_at(0) && bytes_at(1)) {
    return Resolve(r, ConcatBytes, "||", kBytea, {kBytea, kBytea});
  }
  if ((name == "btrim" || name == "ltrim" || name == "rtrim") && n == 2 && bytes_at(0) &&
      bytes_or_text(1)) {
    return Resolve(r,
                   name == "btrim"   ? BtrimBytes
                   : name == "ltrim" ? LtrimBytes
                                     : RtrimBytes,
                   name == "btrim"   ? "btrim"
                   : name == "ltrim" ? "ltrim"
                                     : "rtrim",
                   kBytea, {kBytea, kBytea});
  }
  if ((name == "substring" || name == "substr") && (n == 2 || n == 3) && bytes_at(0) && int_at(1) &&
      (n == 2 || int_at(2))) {
    std::vector<SqlType> types = {kBytea, i64};
    if (n == 3) types.push_back(i64);
    return Resolve(r, SubstrBytes, name == "substr" ? "substr" : "substring", kBytea, types);
  }
  if (name == "position" && n == 2 && bytes_at(0) && bytes_at(1)) {
    return Resolve(r, PositionBytes, "position", i32, {kBytea, kBytea});
  }
  if (name == "overlay" && (n == 3 || n == 4) && bytes_at(0) && bytes_or_text(1) && int_at(2) &&
      (n == 3 || int_at(3))) {
    std::vector<SqlType> types = {kBytea, kBytea, i64};
    if (n == 4) types.push_back(i64);
    return Resolve(r, OverlayBytes, "overlay", kBytea, types);
  }
  if ((name == "~~" || name == "!~~") && n == 2 && bytes_at(0) && bytes_or_text(1)) {
    return Resolve(r, name == "~~" ? LikeBytesFn : NotLikeBytesFn, name == "~~" ? "~~" : "!~~",
                   SqlType::Boolean(), {kBytea, kBytea});
  }
  if (name == "like_escape" && n == 2 && bytes_at(0) && bytes_or_text(1)) {
    return Resolve(r, LikeEscapeBytes, "like_escape", kBytea, {kBytea, kBytea});
  }
  if (name == "encode" && n == 2 && bytes_or_text(0) && args[1].IsString()) {
    return Resolve(r, Encode, "encode", text, {kBytea, text});
  }
  if (name == "decode" && n == 2 && args[0].IsString() && args[1].IsString()) {
    return Resolve(r, Decode, "decode", kBytea, {text, text});
  }
  if ((name == "sha224" || name == "sha256" || name == "sha384" || name == "sha512") && n == 1 &&
      bytes_or_text(0)) {
    const ScalarFn fn = name == "sha224"   ? Sha224
                        : name == "sha256" ? Sha256
                        : name == "sha384" ? Sha384
                                           : Sha512;
    return Resolve(r, fn,
                   name == "sha224"   ? "sha224"
                   : name == "sha256" ? "sha256"
                   : name == "sha384" ? "sha384"
                                      : "sha512",
                   kBytea, {kBytea});
  }
  if (name == "get_bit" && n == 2 && bytes_at(0) && int_at(1)) {
    return Resolve(r, GetBit, "get_bit", i32, {kBytea, i64});
  }
  if (name == "set_bit" && n == 3 && bytes_at(0) && int_at(1) && int_at(2)) {
    return Resolve(r, SetBit, "set_bit", kBytea, {kBytea, i64, i32});
  }
  if (name == "get_byte" && n == 2 && bytes_at(0) && int_at(1)) {
    return Resolve(r, GetByte, "get_byte", i32, {kBytea, i32});
  }
  if (name == "set_byte" && n == 3 && bytes_at(0) && int_at(1) && int_at(2)) {
    return Resolve(r, SetByte, "set_byte", kBytea, {kBytea, i32, i32});
  }
  if (name == "bit_count" && n == 1 && bytes_at(0)) {
    return Resolve(r, BitCount, "bit_count", i64, {kBytea});
  }
  if (name == "unistr" && n == 1 && args[0].IsString()) {
    return Resolve(r, Unistr, "unistr", text, {text});
  }
  return false;
}

}  // namespace sluice::sql
