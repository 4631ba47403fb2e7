#include "pgwire/codec.h"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>

#include "sql/expr.h"
#include "types/time_tz.h"

namespace sluice::pgwire {
namespace {

// PostgreSQL counts dates and timestamps from 2000-01-01.
constexpr int64_t kPgEpochDays = 10957;
constexpr int64_t kPgEpochMicros = kPgEpochDays * 86400LL * 1000000LL;

void Put16(int16_t v, std::string* out) {
  const auto u = static_cast<uint16_t>(v);
  out->push_back(static_cast<char>(u >> 8));
  out->push_back(static_cast<char>(u & 0xff));
}
void Put32(int32_t v, std::string* out) {
  const auto u = static_cast<uint32_t>(v);
  for (int s = 24; s >= 0; s -= 8) out->push_back(static_cast<char>((u >> s) & 0xff));
}
void Put64(int64_t v, std::string* out) {
  const auto u = static_cast<uint64_t>(v);
  for (int s = 56; s >= 0; s -= 8) out->push_back(static_cast<char>((u >> s) & 0xff));
}
uint64_t Get(std::string_view b, size_t at, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(b[at + i]);
  return v;
}

// NUMERIC's binary form from its text ("-12.340", "NaN"): base-10000
// digits, the weight of the first, the sign and the display scale.
void EncodeNumericText(std::string_view text, std::string* out) {
  if (text == "NaN" || text == "Infinity" || text == "-Infinity") {
    Put16(0, out);
    Put16(0, out);
    Put16(static_cast<int16_t>(text == "NaN" ? 0xC000 : text[0] == '-' ? 0xF000 : 0xD000), out);
    Put16(0, out);
    return;
  }
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) text.remove_prefix(1);
  const size_t dot = text.find('.');
  std::string whole(text.substr(0, dot));
  std::string frac(dot == std::string_view::npos ? "" : text.substr(dot + 1));
  const auto dscale = static_cast<int16_t>(frac.size());
  whole.insert(0, (4 - whole.size() % 4) % 4, '0');
  frac.append((4 - frac.size() % 4) % 4, '0');
  std::vector<int16_t> digits;
  for (size_t i = 0; i < whole.size(); i += 4)
    digits.push_back(static_cast<int16_t>(std::stoi(whole.substr(i, 4))));
  for (size_t i = 0; i < frac.size(); i += 4)
    digits.push_back(static_cast<int16_t>(std::stoi(frac.substr(i, 4))));
  int weight = static_cast<int>(whole.size() / 4) - 1;
  size_t first = 0;
  while (first < digits.size() && digits[first] == 0) {
    ++first;
    --weight;
  }
  size_t last = digits.size();
  while (last > first && digits[last - 1] == 0) --last;
  if (first == last) weight = 0;
  Put16(static_cast<int16_t>(last - first), out);
  Put16(static_cast<int16_t>(weight), out);
  Put16(static_cast<int16_t>(negative && first != last ? 0x4000 : 0), out);
  Put16(dscale, out);
  for (size_t i = first; i < last; ++i) Put16(digits[i], out);
}

Result<std::string> DecodeNumeric(std::string_view b) {
  if (b.size() < 8) return Status::InvalidArgument("a binary numeric is at least 8 bytes");
  const size_t n = Get(b, 0, 2);
  const auto weight = static_cast<int16_t>(Get(b, 2, 2));
  const uint64_t sign = Get(b, 4, 2);
  const auto dscale = static_cast<int>(Get(b, 6, 2));
  if (b.size() != 8 + 2 * n)
    return Status::InvalidArgument("a binary numeric's length does not match its digits");
  if (sign == 0xC000) return std::string("NaN");
  if (sign == 0xD000) return std::string("Infinity");
  if (sign == 0xF000) return std::string("-Infinity");
  std::string whole, frac;
  for (int i = 0; i <= weight; ++i) {
    const uint64_t d = static_cast<size_t>(i) < n ? Get(b, 8 + 2 * static_cast<size_t>(i), 2) : 0;
    char buf[8];
    std::snprintf(buf, sizeof buf, whole.empty() ? "%u" : "%04u", static_cast<unsigned>(d));
    whole += buf;
  }
  if (whole.empty()) whole = "0";
  for (int i = weight + 1; static_cast<int>(frac.size()) < dscale; ++i) {
    const uint64_t d =
        i >= 0 && static_cast<size_t>(i) < n ? Get(b, 8 + 2 * static_cast<size_t>(i), 2) : 0;
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04u", static_cast<unsigned>(d));
    frac += buf;
  }
  frac.resize(static_cast<size_t>(dscale));
  std::string s = (sign == 0x4000 ? "-" : "") + whole;
  if (dscale > 0) s += "." + frac;
  return s;
}

}  // namespace

Status EncodeBinary(const Value& v, const SqlType& t, std::string* out) {
  switch (t.id()) {
    case TypeId::kBoolean:
      out->push_back(v.bool_value() ? 1 : 0);
      return Status::OK();
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
      Put16(static_cast<int16_t>(v.int_value()), out);
      return Status::OK();
    case TypeId::kInteger:
      Put32(static_cast<int32_t>(v.int_value()), out);
      return Status::OK();
    case TypeId::kBigInt:
      if (t.pg_kind() == PgKind::kOid) {  // oid: 4 bytes, unsigned
        Put32(static_cast<int32_t>(static_cast<uint32_t>(v.int_value())), out);
        return Status::OK();
      }
      Put64(v.int_value(), out);
      return Status::OK();
    case TypeId::kReal: {
      const auto f = static_cast<float>(v.double_value());
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      Put32(static_cast<int32_t>(bits), out);
      return Status::OK();
    }
    case TypeId::kDouble: {
      const double d = v.double_value();
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      Put64(static_cast<int64_t>(bits), out);
      return Status::OK();
    }
    case TypeId::kDecimal:
      EncodeNumericText(sql::ValueToPgText(v, t), out);
      return Status::OK();
    case TypeId::kChar:
    case TypeId::kVarchar:
    case TypeId::kBinary:
    case TypeId::kVarbinary:
      // jsonb's and jsonpath's binary form: a version, then the text.
      if (t.is_jsonb() || t.pg_kind() == PgKind::kJsonPath) out->push_back(1);
      out->append(v.string_value());
      return Status::OK();
    case TypeId::kDate: {
      const int64_t d = v.int_value();
      // Infinite dates are INT32_MIN and INT32_MAX in both.
      const bool finite =
          d > std::numeric_limits<int32_t>::min() && d < std::numeric_limits<int32_t>::max();
      Put32(static_cast<int32_t>(finite ? d - kPgEpochDays : d), out);
      return Status::OK();
    }
    case TypeId::kTime:
      if (t.IsTimeTz()) {  // timetz: microseconds since midnight, then seconds west of UTC
        const TimeTz tz = TimeTz::Decode(v.int_value());
        Put64(tz.micros, out);
        Put32(tz.zone_west, out);
        return Status::OK();
      }
      Put64(v.int_value(), out);
      return Status::OK();
    case TypeId::kTimestamp: {
      const int64_t us = v.int_value();
      const bool finite =
          us > std::numeric_limits<int64_t>::min() && us < std::numeric_limits<int64_t>::max();
      Put64(finite ? us - kPgEpochMicros : us, out);
      return Status::OK();
    }
    case TypeId::kInterval: {
      const Interval& i = v.interval_value();
      Put64(i.micros, out);
      Put32(i.days, out);
      Put32(i.months, out);
      return Status::OK();
    }
    case TypeId::kMap:
    case TypeId::kVariant:
      out->append(sql::ValueToPgText(v, t));
      return Status::OK();
    case TypeId::kArray: {
      if (t.pg_kind() == PgKind::kPoint) {  // point: x, then y, as float8s
        for (const Value& c : v.list())
          SLUICE_RETURN_IF_ERROR(EncodeBinary(c, t.children()[0], out));
        return Status::OK();
      }
      // Dimensions from the nesting of the first elements; PostgreSQL's
      // arrays are rectangular. int2vector and oidvector are arrays of
      // one dimension, and elements of an array of them.
      std::vector<int32_t> dims;
      const Value* level = &v;
      const SqlType* type = &t;
      while (type->id() == TypeId::kArray && (type == &t || !type->IsPgArrayKind()) &&
             !level->is_null()) {
        dims.push_back(static_cast<int32_t>(level->list().size()));
        if (level->list().empty()) break;
        level = &level->list()[0];
        // A type that holds sub-arrays is the type of each of its levels.
        if (!(ArrayHoldsSubArrays(*type) && level->kind() == Value::Kind::kList)) {
          type = &type->children()[0];
        }
      }
      while (type->IsSqlArray() || (type == &t && t.IsPgArrayKind())) {
        type = &type->children()[0];
      }
      if (type->id() == TypeId::kRow) {
        return Status::Unimplemented("arrays of rows have no binary format here; ask for text");
      }
      // An int2vector or oidvector always has one dimension, from 0, even
      // when empty, as PostgreSQL sends it.
      const bool vector = t.IsPgArrayKind();
      if (!dims.empty() && dims.back() == 0 && !vector) dims = {};
      std::string body;
      bool has_null = false;
      std::function<Status(const Value&, size_t)> walk = [&](const Value& x,
                                                             size_t depth) -> Status {
        if (depth == dims.size()) {
          if (x.is_null()) {
            has_null = true;
            Put32(-1, &body);
            return Status::OK();
          }
          std::string e;
          SLUICE_RETURN_IF_ERROR(EncodeBinary(x, *type, &e));
          Put32(static_cast<int32_t>(e.size()), &body);
          body += e;
          return Status::OK();
        }
        if (x.is_null() || x.list().size() != static_cast<size_t>(dims[depth])) {
          return Status::InvalidArgument(
              "a multidimensional array must have sub-arrays of one size");
        }
        for (const Value& y : x.list()) SLUICE_RETURN_IF_ERROR(walk(y, depth + 1));
        return Status::OK();
      };
      if (!dims.empty()) SLUICE_RETURN_IF_ERROR(walk(v, 0));
      Put32(static_cast<int32_t>(dims.size()), out);
      Put32(has_null ? 1 : 0, out);
      Put32(static_cast<int32_t>(PgTypeOf(*type).oid), out);
      for (size_t i = 0; i < dims.size(); ++i) {
        Put32(dims[i], out);
        Put32(i < v.lower_bounds().size() ? v.lower_bounds()[i] : vector ? 0 : 1, out);
      }
      out->append(body);
      return Status::OK();
    }
    case TypeId::kRow:
      break;
  }
  return Status::Unimplemented("values of type " + t.ToString() +
                               " have no binary format here; ask for text");
}

Result<std::string> BinaryParamToText(uint32_t oid, std::string_view b) {
  auto need = [&](size_t n) -> Status {
    if (b.size() != n) {
      return Status::InvalidArgument("a binary " + PgTypeName(oid) + " parameter is " +
                                     std::to_string(n) + " bytes, not " + std::to_string(b.size()));
    }
    return Status::OK();
  };
  switch (oid) {
    case 16:
      SLUICE_RETURN_IF_ERROR(need(1));
      return std::string(b[0] ? "true" : "false");
    case 21:
      SLUICE_RETURN_IF_ERROR(need(2));
      return std::to_string(static_cast<int16_t>(Get(b, 0, 2)));
    case 23:
      SLUICE_RETURN_IF_ERROR(need(4));
      return std::to_string(static_cast<int32_t>(Get(b, 0, 4)));
    case 20:
      SLUICE_RETURN_IF_ERROR(need(8));
      return std::to_string(static_cast<int64_t>(Get(b, 0, 8)));
    case 700: {
      SLUICE_RETURN_IF_ERROR(need(4));
      const auto bits = static_cast<uint32_t>(Get(b, 0, 4));
      float f;
      std::memcpy(&f, &bits, 4);
      char buf[32];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, f);
      return std::string(buf, end);
    }
    case 701: {
      SLUICE_RETURN_IF_ERROR(need(8));
      const uint64_t bits = Get(b, 0, 8);
      double d;
      std::memcpy(&d, &bits, 8);
      char buf[32];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
      return std::string(buf, end);
    }
    case 1700:
      return DecodeNumeric(b);
    case 17: {
      static const char* kHex = "0123456789abcdef";
      std::string s = "\\x";
      for (unsigned char c : b) {
        s.push_back(kHex[c >> 4]);
        s.push_back(kHex[c & 15]);
      }
      return s;
    }
    case 1082: {
      SLUICE_RETURN_IF_ERROR(need(4));
      const auto d = static_cast<int32_t>(Get(b, 0, 4));
      if (d == std::numeric_limits<int32_t>::max()) return std::string("infinity");
      if (d == std::numeric_limits<int32_t>::min()) return std::string("-infinity");
      return sql::ValueToPgText(Value::Int(d + kPgEpochDays), SqlType::Date());
    }
    case 1083:
      SLUICE_RETURN_IF_ERROR(need(8));
      return sql::ValueToPgText(Value::Int(static_cast<int64_t>(Get(b, 0, 8))), SqlType::Time());
    case 1266: {
      SLUICE_RETURN_IF_ERROR(need(12));
      TimeTz tz;
      tz.micros = static_cast<int64_t>(Get(b, 0, 8));
      tz.zone_west = static_cast<int32_t>(Get(b, 8, 4));
      if (tz.micros < 0 || tz.micros > TimeTz::kMicrosPerDay ||
          tz.zone_west < -TimeTz::kMaxZoneSeconds || tz.zone_west > TimeTz::kMaxZoneSeconds) {
        return Status::InvalidArgument("time with time zone out of range");
      }
      return sql::ValueToPgText(Value::Int(tz.Encode()), SqlType::TimeTz());
    }
    case 1114:
    case 1184: {
      SLUICE_RETURN_IF_ERROR(need(8));
      const auto us = static_cast<int64_t>(Get(b, 0, 8));
      if (us == std::numeric_limits<int64_t>::max()) return std::string("infinity");
      if (us == std::numeric_limits<int64_t>::min()) return std::string("-infinity");
      return sql::ValueToPgText(Value::Int(us + kPgEpochMicros),
                                oid == 1184 ? SqlType::TimestampTz() : SqlType::Timestamp());
    }
    case 1186: {
      SLUICE_RETURN_IF_ERROR(need(16));
      return sql::ValueToPgText(Value::MakeInterval(static_cast<int32_t>(Get(b, 12, 4)),
                                                    static_cast<int32_t>(Get(b, 8, 4)),
                                                    static_cast<int64_t>(Get(b, 0, 8))),
                                SqlType::Interval());
    }
    case 0:
    case 25:
    case 114:
    case 705:  // unknown
    case 1042:
    case 1043:
    case 19:    // name
    case 3802:  // jsonb and jsonpath: a version byte, then the text
    case 4072:
      if ((oid == 3802 || oid == 4072) && !b.empty() && b[0] == 1) b.remove_prefix(1);
      return std::string(b);
    default:
      break;
  }
  return Status::Unimplemented(
      "binary parameters of type " +
      (PgTypeName(oid).empty() ? "OID " + std::to_string(oid) : PgTypeName(oid)) +
      " are not supported; send it as text");
}

Status ParseCopyTextLine(std::string_view line, char delimiter, std::string_view null_marker,
                         std::vector<CopyField>* fields) {
  fields->clear();
  fields->emplace_back();
  std::string raw;  // the field as it was written, to compare with the NULL marker
  auto finish = [&]() {
    if (raw == null_marker) {
      fields->back().null = true;
      fields->back().text.clear();
    }
    raw.clear();
  };
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == delimiter) {
      finish();
      fields->emplace_back();
      continue;
    }
    std::string& f = fields->back().text;
    if (c != '\\') {
      f.push_back(c);
      raw.push_back(c);
      continue;
    }
    if (i + 1 >= line.size()) return Status::InvalidArgument("a line ends with a lone backslash");
    const char e = line[++i];
    raw.push_back('\\');
    raw.push_back(e);
    switch (e) {
      case 'b':
        f.push_back('\b');
        break;
      case 'f':
        f.push_back('\f');
        break;
      case 'n':
        f.push_back('\n');
        break;
      case 'r':
        f.push_back('\r');
        break;
      case 't':
        f.push_back('\t');
        break;
      case 'v':
        f.push_back('\v');
        break;
      case 'x': {
        int v = 0, n = 0;
        while (n < 2 && i + 1 < line.size() &&
               std::isxdigit(static_cast<unsigned char>(line[i + 1]))) {
          const char h = line[++i];
          raw.push_back(h);
          v = v * 16 + (std::isdigit(static_cast<unsigned char>(h)) ? h - '0'
                                                                    : (std::tolower(h) - 'a' + 10));
          ++n;
        }
        if (n == 0) {
          f.push_back('x');
        } else {
          f.push_back(static_cast<char>(v));
        }
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          int v = e - '0', n = 1;
          while (n < 3 && i + 1 < line.size() && line[i + 1] >= '0' && line[i + 1] <= '7') {
            raw.push_back(line[i + 1]);
            v = v * 8 + (line[++i] - '0');
            ++n;
          }
          f.push_back(static_cast<char>(v));
        } else {
          f.push_back(e);  // \\, \. and any other character stand for themselves
        }
    }
  }
  finish();
  return Status::OK();
}

void AppendCopyText(std::string_view s, char delimiter, std::string* out) {
  for (char c : s) {
    switch (c) {
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      default:
        if (c == delimiter) {
          out->push_back('\\');
        }
        out->push_back(c);
    }
  }
}

void AppendCsvField(const CopyField& f, char delimiter, std::string* out) {
  if (f.null) return;
  const bool quote = f.text.empty() || f.text.find_first_of(std::string{delimiter, '"', '\n',
                                                                        '\r'}) != std::string::npos;
  if (!quote) {
    out->append(f.text);
    return;
  }
  out->push_back('"');
  for (char c : f.text) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

}  // namespace sluice::pgwire
