#include "sql/json_value.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sql/datetime.h"
#include "sql/expr.h"

namespace sluice::sql {
namespace {

// A recursive-descent reader of RFC 8259 JSON, as PostgreSQL's json input
// takes it (any value at the top, whitespace around tokens).
class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}

  Status Document(JsonNode* out) {
    SLUICE_RETURN_IF_ERROR(Value(out, 0));
    Space();
    if (at_ != s_.size()) return Error("Expected end of input, but found \"" + Token() + "\".");
    return Status::OK();
  }

 private:
  Status Error(const std::string& detail) const {
    return Status::InvalidArgument("invalid input syntax for type json: " + detail);
  }
  void Space() {
    while (at_ < s_.size() &&
           (s_[at_] == ' ' || s_[at_] == '\t' || s_[at_] == '\n' || s_[at_] == '\r'))
      ++at_;
  }
  std::string Token() const {
    size_t e = at_;
    while (e < s_.size() && e - at_ < 20 && s_[e] != ' ' && s_[e] != ',' && s_[e] != '}' &&
           s_[e] != ']')
      ++e;
    return std::string(s_.substr(at_, std::max<size_t>(e - at_, 1)));
  }
  bool Word(std::string_view w) {
    if (s_.substr(at_, w.size()) != w) return false;
    at_ += w.size();
    return true;
  }

  Status Value(JsonNode* out, int depth) {
    if (depth > 6400) return Error("the document is nested too deeply");
    Space();
    if (at_ >= s_.size()) return Error("The input string ended unexpectedly.");
    out->begin = at_;
    const char c = s_[at_];
    if (c == '{') {
      out->kind = JsonNode::Kind::kObject;
      ++at_;
      Space();
      if (at_ < s_.size() && s_[at_] == '}') {
        ++at_;
      } else {
        for (;;) {
          Space();
          if (at_ >= s_.size() || s_[at_] != '"') {
            return at_ >= s_.size() ? Error("The input string ended unexpectedly.")
                                    : Error("Expected string, but found \"" + Token() + "\".");
          }
          std::string key;
          SLUICE_RETURN_IF_ERROR(String(&key));
          Space();
          if (at_ >= s_.size() || s_[at_] != ':')
            return Error("Expected \":\", but found \"" + Token() + "\".");
          ++at_;
          JsonNode v;
          SLUICE_RETURN_IF_ERROR(Value(&v, depth + 1));
          out->members.emplace_back(std::move(key), std::move(v));
          Space();
          if (at_ < s_.size() && s_[at_] == ',') {
            ++at_;
            continue;
          }
          if (at_ < s_.size() && s_[at_] == '}') {
            ++at_;
            break;
          }
          return at_ >= s_.size()
                     ? Error("The input string ended unexpectedly.")
                     : Error("Expected \",\" or \"}\", but found \"" + Token() + "\".");
        }
      }
    } else if (c == '[') {
      out->kind = JsonNode::Kind::kArray;
      ++at_;
      Space();
      if (at_ < s_.size() && s_[at_] == ']') {
        ++at_;
      } else {
        for (;;) {
          JsonNode v;
          SLUICE_RETURN_IF_ERROR(Value(&v, depth + 1));
          out->items.push_back(std::move(v));
          Space();
          if (at_ < s_.size() && s_[at_] == ',') {
            ++at_;
            continue;
          }
          if (at_ < s_.size() && s_[at_] == ']') {
            ++at_;
            break;
          }
          return at_ >= s_.size()
                     ? Error("The input string ended unexpectedly.")
                     : Error("Expected \",\" or \"]\", but found \"" + Token() + "\".");
        }
      }
    } else if (c == '"') {
      out->kind = JsonNode::Kind::kString;
      SLUICE_RETURN_IF_ERROR(String(&out->text));
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      out->kind = JsonNode::Kind::kNumber;
      const size_t start = at_;
      if (s_[at_] == '-') ++at_;
      auto digits = [&] {
        const size_t b = at_;
        while (at_ < s_.size() && s_[at_] >= '0' && s_[at_] <= '9') ++at_;
        return at_ - b;
      };
      const size_t lead = at_;
      const size_t n = digits();
      if (n == 0 || (n > 1 && s_[lead] == '0')) {
        at_ = start;
        return Error("Token \"" + Token() + "\" is invalid.");
      }
      if (at_ < s_.size() && s_[at_] == '.') {
        ++at_;
        if (digits() == 0) {
          at_ = start;
          return Error("Token \"" + Token() + "\" is invalid.");
        }
      }
      if (at_ < s_.size() && (s_[at_] == 'e' || s_[at_] == 'E')) {
        ++at_;
        if (at_ < s_.size() && (s_[at_] == '+' || s_[at_] == '-')) ++at_;
        if (digits() == 0) {
          at_ = start;
          return Error("Token \"" + Token() + "\" is invalid.");
        }
      }
      out->text = std::string(s_.substr(start, at_ - start));
    } else if (Word("true")) {
      out->kind = JsonNode::Kind::kBool;
      out->boolean = true;
    } else if (Word("false")) {
      out->kind = JsonNode::Kind::kBool;
    } else if (Word("null")) {
      out->kind = JsonNode::Kind::kNull;
    } else {
      return Error("Token \"" + Token() + "\" is invalid.");
    }
    out->end = at_;
    return Status::OK();
  }

  static void Utf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  Status String(std::string* out) {
    ++at_;  // the opening quote
    for (;;) {
      if (at_ >= s_.size()) return Error("The input string ended unexpectedly.");
      const unsigned char c = static_cast<unsigned char>(s_[at_]);
      if (c == '"') {
        ++at_;
        return Status::OK();
      }
      if (c < 0x20) {
        return Error("Character with value 0x" + std::string(1, "0123456789abcdef"[c >> 4]) +
                     std::string(1, "0123456789abcdef"[c & 15]) + " must be escaped.");
      }
      if (c != '\\') {
        out->push_back(static_cast<char>(c));
        ++at_;
        continue;
      }
      if (++at_ >= s_.size()) return Error("The input string ended unexpectedly.");
      const char e = s_[at_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out->push_back(e);
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          auto hex4 = [&](uint32_t* v) {
            if (at_ + 4 > s_.size()) return false;
            *v = 0;
            for (int i = 0; i < 4; ++i) {
              const char h = s_[at_ + static_cast<size_t>(i)];
              *v <<= 4;
              if (h >= '0' && h <= '9') {
                *v |= static_cast<uint32_t>(h - '0');
              } else if (h >= 'a' && h <= 'f') {
                *v |= static_cast<uint32_t>(h - 'a' + 10);
              } else if (h >= 'A' && h <= 'F') {
                *v |= static_cast<uint32_t>(h - 'A' + 10);
              } else {
                return false;
              }
            }
            at_ += 4;
            return true;
          };
          uint32_t cp;
          if (!hex4(&cp)) return Error("\"\\u\" must be followed by four hexadecimal digits.");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t lo;
            if (at_ + 2 > s_.size() || s_[at_] != '\\' || s_[at_ + 1] != 'u' ||
                (at_ += 2, !hex4(&lo)) || lo < 0xDC00 || lo > 0xDFFF) {
              return Error("Unicode high surrogate must not follow a high surrogate.");
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return Error("Unicode low surrogate must follow a high surrogate.");
          }
          if (cp == 0) return Status::InvalidArgument("unsupported Unicode escape sequence");
          Utf8(cp, out);
          break;
        }
        default:
          return Error("Escape sequence \"\\" + std::string(1, e) + "\" is invalid.");
      }
    }
  }

  std::string_view s_;
  size_t at_ = 0;
};

void Indent(int level, std::string* out) {
  out->push_back('\n');
  out->append(static_cast<size_t>(level) * 4, ' ');
}

// `style`'s separators: JSONB's ", " and ": ", or none (compact); pretty
// puts each item on a line of its own, indented four spaces a level, as
// jsonb_pretty does (an empty array is "[", a line, "]").
void Write(const JsonNode& n, JsonStyle style, int level, std::string* out) {
  const bool pretty = style == JsonStyle::kPretty;
  const char* comma = style == JsonStyle::kJsonb ? ", " : ",";
  const char* colon = style == JsonStyle::kCompact ? ":" : ": ";
  switch (n.kind) {
    case JsonNode::Kind::kNull:
      *out += "null";
      return;
    case JsonNode::Kind::kBool:
      *out += n.boolean ? "true" : "false";
      return;
    case JsonNode::Kind::kNumber:
    case JsonNode::Kind::kString:
      *out += n.kind == JsonNode::Kind::kString ? JsonQuote(n.text) : n.text;
      return;
    case JsonNode::Kind::kArray:
    case JsonNode::Kind::kObject: {
      const bool array = n.kind == JsonNode::Kind::kArray;
      *out += array ? '[' : '{';
      const size_t size = array ? n.items.size() : n.members.size();
      for (size_t i = 0; i < size; ++i) {
        if (i) *out += comma;
        if (pretty) Indent(level + 1, out);
        if (!array) {
          *out += JsonQuote(n.members[i].first);
          *out += colon;
        }
        Write(array ? n.items[i] : n.members[i].second, style, level + 1, out);
      }
      if (pretty) Indent(level, out);
      *out += array ? ']' : '}';
      return;
    }
  }
}

}  // namespace

Status ParseJson(std::string_view text, JsonNode* out) { return Reader(text).Document(out); }

const char* JsonKindName(const JsonNode& n, bool cast_words) {
  switch (n.kind) {
    case JsonNode::Kind::kNull:
      return "null";
    case JsonNode::Kind::kBool:
      return "boolean";
    case JsonNode::Kind::kNumber:
      return cast_words ? "numeric" : "number";
    case JsonNode::Kind::kString:
      return "string";
    case JsonNode::Kind::kArray:
      return "array";
    case JsonNode::Kind::kObject:
      return "object";
  }
  return "null";
}

std::string JsonQuote(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(ch);
        }
    }
  }
  return out + "\"";
}

Status Canonicalize(JsonNode* n) {
  switch (n->kind) {
    case JsonNode::Kind::kNumber: {
      // As NUMERIC prints it: 1e2 is 100, -0 is 0, 1.50 stays 1.50.
      Value v;
      SLUICE_RETURN_IF_ERROR(
          CastValue(Value::String(n->text), SqlType::Varchar(), SqlType::Numeric(), &v));
      n->text = DecimalValueToString(v);
      return Status::OK();
    }
    case JsonNode::Kind::kArray:
      for (JsonNode& i : n->items) SLUICE_RETURN_IF_ERROR(Canonicalize(&i));
      return Status::OK();
    case JsonNode::Kind::kObject: {
      for (auto& [k, v] : n->members) SLUICE_RETURN_IF_ERROR(Canonicalize(&v));
      // Sorted, stably, so that of a repeated key the last stays last.
      std::stable_sort(n->members.begin(), n->members.end(), [](const auto& a, const auto& b) {
        return a.first.size() != b.first.size() ? a.first.size() < b.first.size()
                                                : a.first < b.first;
      });
      std::vector<std::pair<std::string, JsonNode>> unique;
      for (auto& m : n->members) {
        if (!unique.empty() && unique.back().first == m.first) {
          unique.back() = std::move(m);
        } else {
          unique.push_back(std::move(m));
        }
      }
      n->members = std::move(unique);
      return Status::OK();
    }
    default:
      return Status::OK();
  }
}

std::string JsonText(const JsonNode& node, JsonStyle style) {
  std::string out;
  Write(node, style, 0, &out);
  return out;
}

Status JsonFromText(std::string_view text, bool binary, std::string* out) {
  JsonNode n;
  Status s = ParseJson(text, &n);
  if (!s.ok()) {
    const std::string type = binary ? "jsonb" : "json";
    std::string msg = s.message();
    const std::string from = "for type json";
    if (const size_t at = msg.find(from); at != std::string::npos) {
      msg.replace(at, from.size(), "for type " + type);
    }
    return Status::InvalidArgument(msg + " (in \"" + std::string(text.substr(0, 60)) +
                                   (text.size() > 60 ? "...\")" : "\")"));
  }
  if (!binary) {
    *out = std::string(text);
    return Status::OK();
  }
  SLUICE_RETURN_IF_ERROR(Canonicalize(&n));
  *out = JsonbText(n);
  return Status::OK();
}

namespace {

Status ToDocument(const Value& v, const SqlType& from, bool binary, std::string* out) {
  if (v.is_null() || v.kind() == Value::Kind::kJsonNull) {
    *out = "null";
    return Status::OK();
  }
  if (from.is_json()) {
    if (from.is_jsonb() || !binary) {
      *out = v.string_value();
      return Status::OK();
    }
    return JsonFromText(v.string_value(), true, out);
  }
  switch (from.id()) {
    case TypeId::kBoolean:
      *out = v.bool_value() ? "true" : "false";
      return Status::OK();
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kBigInt:
      *out = std::to_string(v.int_value());
      return Status::OK();
    case TypeId::kDecimal:
      if (v.kind() == Value::Kind::kDecimal && v.decimal_is_special()) {
        *out = JsonQuote(ValueToText(v, from));
      } else {
        *out = ValueToText(v, from);
      }
      return Status::OK();
    case TypeId::kReal:
    case TypeId::kDouble: {
      const double d = v.double_value();
      *out = std::isfinite(d) ? ValueToText(v, from) : JsonQuote(ValueToText(v, from));
      return Status::OK();
    }
    case TypeId::kDate:
      *out = JsonQuote(ValueToText(v, from));
      return Status::OK();
    case TypeId::kTimestamp: {
      // ISO 8601, as PostgreSQL writes a timestamp into JSON.
      std::string t = FormatTimestamp(v.int_value());
      if (!IsInfiniteTimestamp(v.int_value()) && t.size() > 10 && t[10] == ' ') t[10] = 'T';
      if (from.with_time_zone() && !IsInfiniteTimestamp(v.int_value())) t += "+00:00";
      *out = JsonQuote(t);
      return Status::OK();
    }
    case TypeId::kArray: {
      const SqlType& elem = from.children()[0];
      const bool nested = ArrayHoldsSubArrays(from);
      std::string s = "[";
      const auto& items = v.list();
      for (size_t i = 0; i < items.size(); ++i) {
        if (i) s += binary ? ", " : ",";
        std::string x;
        SLUICE_RETURN_IF_ERROR(ToDocument(
            items[i], nested && items[i].kind() == Value::Kind::kList ? from : elem, binary, &x));
        s += x;
      }
      *out = s + "]";
      return Status::OK();
    }
    case TypeId::kRow: {
      JsonNode obj;
      obj.kind = JsonNode::Kind::kObject;
      std::string s = "{";
      const auto& fields = v.list();
      // Built as text, then put in JSONB's order.
      for (size_t i = 0; i < fields.size() && i < from.children().size(); ++i) {
        if (i) s += binary ? ", " : ",";
        std::string x;
        SLUICE_RETURN_IF_ERROR(ToDocument(fields[i], from.children()[i], binary, &x));
        s += JsonQuote(from.field_names()[i]) + (binary ? ": " : ":") + x;
      }
      if (!binary) {
        *out = s + "}";
        return Status::OK();
      }
      return JsonFromText(s + "}", true, out);
    }
    case TypeId::kChar:
    case TypeId::kVarchar:
    default:
      *out = JsonQuote(ValueToText(v, from));
      return Status::OK();
  }
}

}  // namespace

Status ToJsonb(const Value& v, const SqlType& from, std::string* out) {
  return ToDocument(v, from, true, out);
}

Status ToJson(const Value& v, const SqlType& from, std::string* out) {
  return ToDocument(v, from, false, out);
}

}  // namespace sluice::sql
