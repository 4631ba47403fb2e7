// PostgreSQL's string functions: padding, case, translation, regular
// expressions, format(), LIKE's ESCAPE, and their math companions. Positions
// and lengths count characters (UTF-8), as PostgreSQL does in a UTF-8
// database.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

#include "base/md5.h"
#include "sql/functions_internal.h"

namespace sluice::sql {

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xE0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

namespace {

SqlType Text() { return SqlType::Varchar(); }

// The characters of a UTF-8 string, each as its bytes.
std::vector<std::string_view> Chars(std::string_view s) {
  std::vector<std::string_view> out;
  for (size_t i = 0; i < s.size();) {
    size_t n = 1;
    while (i + n < s.size() && (static_cast<uint8_t>(s[i + n]) & 0xC0) == 0x80) ++n;
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

std::string Join(const std::vector<std::string_view>& chars, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to && i < chars.size(); ++i) out += chars[i];
  return out;
}

Status TooLong() { return Status::InvalidArgument("requested length too large"); }

// lpad/rpad(string, length [, fill]): truncates to `length` characters, or
// fills on the left/right with `fill` (a space by default) repeated.
Status Pad(bool left, const Value* a, size_t n, Value* out) {
  auto chars = Chars(a[0].string_value());
  const int64_t len = a[1].int_value();
  if (len > 10000000) return TooLong();
  const std::string fill = n == 3 ? a[2].string_value() : " ";
  if (len <= 0) {
    *out = Value::String("");
    return Status::OK();
  }
  const size_t want = static_cast<size_t>(len);
  if (chars.size() >= want || fill.empty()) {
    *out = Value::String(Join(chars, 0, want));
    return Status::OK();
  }
  auto fchars = Chars(fill);
  std::string pad;
  for (size_t i = 0; i < want - chars.size(); ++i) pad += fchars[i % fchars.size()];
  std::string s(a[0].string_value());
  *out = Value::String(left ? pad + s : s + pad);
  return Status::OK();
}
Status Lpad(const SqlType&, const Value* a, size_t n, Value* out) { return Pad(true, a, n, out); }
Status Rpad(const SqlType&, const Value* a, size_t n, Value* out) { return Pad(false, a, n, out); }

Status Repeat(const SqlType&, const Value* a, size_t, Value* out) {
  const std::string& s = a[0].string_value();
  const int64_t n = a[1].int_value();
  if (n > 0 && static_cast<double>(s.size()) * static_cast<double>(n) > 1e9) return TooLong();
  std::string r;
  for (int64_t i = 0; i < n; ++i) r += s;
  *out = Value::String(std::move(r));
  return Status::OK();
}

Status Reverse(const SqlType&, const Value* a, size_t, Value* out) {
  auto chars = Chars(a[0].string_value());
  std::string r;
  for (size_t i = chars.size(); i-- > 0;) r += chars[i];
  *out = Value::String(std::move(r));
  return Status::OK();
}

// initcap: the first letter of each run of letters and digits upper case,
// the others lower case (ASCII letters).
Status Initcap(const SqlType&, const Value* a, size_t, Value* out) {
  std::string s = a[0].string_value();
  bool word = false;
  for (char& c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      c = static_cast<char>(word ? std::tolower(u) : std::toupper(u));
      word = true;
    } else {
      word = false;  // as PostgreSQL in the C locale: other characters end a word
    }
  }
  *out = Value::String(std::move(s));
  return Status::OK();
}

// translate(string, from, to): each character of `from` becomes the one at
// the same place in `to`, or is removed if `to` is shorter.
Status Translate(const SqlType&, const Value* a, size_t, Value* out) {
  auto s = Chars(a[0].string_value()), from = Chars(a[1].string_value()),
       to = Chars(a[2].string_value());
  std::string r;
  for (std::string_view c : s) {
    auto it = std::find(from.begin(), from.end(), c);
    if (it == from.end()) {
      r += c;
    } else if (static_cast<size_t>(it - from.begin()) < to.size()) {
      r += to[static_cast<size_t>(it - from.begin())];
    }
  }
  *out = Value::String(std::move(r));
  return Status::OK();
}

Status Chr(const SqlType&, const Value* a, size_t, Value* out) {
  const int64_t cp = a[0].int_value();
  if (cp == 0) return Status::InvalidArgument("null character not permitted");
  if (cp < 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return Status::InvalidArgument("requested character too large for encoding: " +
                                   std::to_string(cp));
  std::string s;
  AppendUtf8(static_cast<uint32_t>(cp), &s);
  *out = Value::String(std::move(s));
  return Status::OK();
}

Status Ascii(const SqlType&, const Value* a, size_t, Value* out) {
  const std::string& s = a[0].string_value();
  if (s.empty()) {
    *out = Value::Int(0);
    return Status::OK();
  }
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  uint32_t cp = b[0];
  size_t n = cp < 0x80 ? 1 : cp < 0xE0 ? 2 : cp < 0xF0 ? 3 : 4;
  if (n > 1) {
    cp &= (0x7F >> n);
    for (size_t i = 1; i < n && i < s.size(); ++i) cp = (cp << 6) | (b[i] & 0x3F);
  }
  *out = Value::Int(cp);
  return Status::OK();
}

// left/right(string, n): the first/last n characters; a negative n: all but
// the last/first |n|.
Status LeftRight(bool left, const Value* a, Value* out) {
  auto chars = Chars(a[0].string_value());
  const int64_t n = a[1].int_value(), size = static_cast<int64_t>(chars.size());
  int64_t take = n >= 0 ? std::min(n, size) : std::max<int64_t>(0, size + n);
  size_t t = static_cast<size_t>(take);
  *out = Value::String(left ? Join(chars, 0, t) : Join(chars, chars.size() - t, chars.size()));
  return Status::OK();
}
Status Left(const SqlType&, const Value* a, size_t, Value* out) { return LeftRight(true, a, out); }
Status Right(const SqlType&, const Value* a, size_t, Value* out) {
  return LeftRight(false, a, out);
}

// ltrim/rtrim/btrim(string [, characters]).
Status TrimChars(int ends, const Value* a, size_t n, Value* out) {
  auto chars = Chars(a[0].string_value());
  auto set = Chars(n == 2 ? std::string_view(a[1].string_value()) : std::string_view(" "));
  auto in = [&](std::string_view c) { return std::find(set.begin(), set.end(), c) != set.end(); };
  size_t b = 0, e = chars.size();
  if (ends & 1) {
    while (b < e && in(chars[b])) ++b;
  }
  if (ends & 2) {
    while (e > b && in(chars[e - 1])) --e;
  }
  *out = Value::String(Join(chars, b, e));
  return Status::OK();
}
Status Ltrim(const SqlType&, const Value* a, size_t n, Value* out) {
  return TrimChars(1, a, n, out);
}
Status Rtrim(const SqlType&, const Value* a, size_t n, Value* out) {
  return TrimChars(2, a, n, out);
}
Status Btrim(const SqlType&, const Value* a, size_t n, Value* out) {
  return TrimChars(3, a, n, out);
}

Status Md5Fn(const SqlType&, const Value* a, size_t, Value* out) {
  Md5 md5;
  md5.Update(a[0].string_value());
  *out = Value::String(md5.HexDigest());
  return Status::OK();
}

Status StartsWith(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(a[0].string_value().rfind(a[1].string_value(), 0) == 0);
  return Status::OK();
}

Status OctetLength(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Int(static_cast<int64_t>(a[0].string_value().size()));
  return Status::OK();
}
Status BitLength(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Int(static_cast<int64_t>(a[0].string_value().size()) * 8);
  return Status::OK();
}

Status ToHex(const SqlType&, const Value* a, size_t, Value* out) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llx",
                static_cast<unsigned long long>(static_cast<uint64_t>(a[0].int_value())));
  *out = Value::String(buf);
  return Status::OK();
}
Status ToHex32(const SqlType&, const Value* a, size_t, Value* out) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%x", static_cast<uint32_t>(a[0].int_value()));
  *out = Value::String(buf);
  return Status::OK();
}

std::string QuoteLiteral(const std::string& s) {
  bool backslash = s.find('\\') != std::string::npos;
  std::string r = backslash ? "E'" : "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') r += c;
    r += c;
  }
  return r + "'";
}
std::string QuoteIdent(const std::string& s) {
  bool plain = !s.empty() && (std::islower(static_cast<unsigned char>(s[0])) || s[0] == '_');
  for (char c : s) {
    plain &= std::islower(static_cast<unsigned char>(c)) ||
             std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  }
  if (plain) return s;
  std::string r = "\"";
  for (char c : s) {
    if (c == '"') r += c;
    r += c;
  }
  return r + "\"";
}
Status QuoteLiteralFn(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::String(QuoteLiteral(a[0].string_value()));
  return Status::OK();
}
Status QuoteIdentFn(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::String(QuoteIdent(a[0].string_value()));
  return Status::OK();
}
// quote_nullable: quote_literal, or NULL unquoted.
Status QuoteNullable(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::String(a[0].is_null() ? "NULL" : QuoteLiteral(a[0].string_value()));
  return Status::OK();
}

// An argument of concat() or format() as its type's output gives it: text
// as it is, a boolean as t or f (its arguments of other types are cast to
// text first).
std::string OutputText(const Value& v) {
  if (v.kind() == Value::Kind::kBool) return v.bool_value() ? "t" : "f";
  return v.string_value();
}

// concat(...) and concat_ws(separator, ...): NULL arguments are skipped.
Status Concat(const SqlType&, const Value* a, size_t n, Value* out) {
  std::string r;
  for (size_t i = 0; i < n; ++i) {
    if (!a[i].is_null()) r += OutputText(a[i]);
  }
  *out = Value::String(std::move(r));
  return Status::OK();
}
Status ConcatWs(const SqlType&, const Value* a, size_t n, Value* out) {
  if (a[0].is_null()) {
    *out = Value::Null();
    return Status::OK();
  }
  std::string r;
  bool first = true;
  for (size_t i = 1; i < n; ++i) {
    if (a[i].is_null()) continue;
    if (!first) r += a[0].string_value();
    r += OutputText(a[i]);
    first = false;
  }
  *out = Value::String(std::move(r));
  return Status::OK();
}

// format(formatstr, ...): %s (as text; NULL is empty), %I (an identifier,
// quoted if needed), %L (a literal; NULL unquoted), %%; with an argument
// position n$ and a width (- aligns left; * takes it from an argument).
Status Format(const SqlType&, const Value* a, size_t n, Value* out) {
  if (a[0].is_null()) {
    *out = Value::Null();
    return Status::OK();
  }
  const std::string& f = a[0].string_value();
  std::string r;
  size_t next = 1;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') {
      r += f[i];
      continue;
    }
    if (++i >= f.size()) return Status::InvalidArgument("unterminated format() type specifier");
    if (f[i] == '%') {
      r += '%';
      continue;
    }
    auto number = [&](size_t* v) {
      size_t start = i;
      *v = 0;
      while (i < f.size() && std::isdigit(static_cast<unsigned char>(f[i])))
        *v = *v * 10 + static_cast<size_t>(f[i++] - '0');
      return i > start;
    };
    size_t arg = 0, width = 0, num = 0;
    bool minus = false, has_width = false;
    // [n$][-][width|*[n$]]
    size_t save = i;
    if (number(&num) && i < f.size() && f[i] == '$') {
      if (num == 0)
        return Status::InvalidArgument(
            "format specifies argument 0, but arguments are numbered from 1");
      arg = num;
      ++i;
    } else {
      i = save;
    }
    if (i < f.size() && f[i] == '-') {
      minus = true;
      ++i;
    }
    if (i < f.size() && f[i] == '*') {
      ++i;
      size_t wa = next;
      save = i;
      if (number(&num) && i < f.size() && f[i] == '$') {
        wa = num;
        next = num + 1;  // the value is the argument after the width's
        ++i;
      } else {
        i = save;
        ++next;
      }
      if (wa >= n) return Status::InvalidArgument("too few arguments for format()");
      int64_t w = a[wa].is_null() ? 0 : std::atoll(OutputText(a[wa]).c_str());
      if (w < 0) {
        minus = true;
        w = -w;
      }
      width = static_cast<size_t>(w);
      has_width = true;
    } else if (number(&num)) {
      width = num;
      has_width = true;
    }
    if (i >= f.size()) return Status::InvalidArgument("unterminated format() type specifier");
    const char type = f[i];
    if (type != 's' && type != 'I' && type != 'L') {
      return Status::InvalidArgument(std::string("unrecognized format() type specifier \"") + type +
                                     "\"");
    }
    size_t k = arg ? arg : next++;
    if (arg) next = arg + 1;
    if (k >= n) return Status::InvalidArgument("too few arguments for format()");
    std::string v;
    if (type == 's') {
      v = a[k].is_null() ? "" : OutputText(a[k]);
    } else if (type == 'I') {
      if (a[k].is_null())
        return Status::InvalidArgument("null values cannot be formatted as an SQL identifier");
      v = QuoteIdent(OutputText(a[k]));
    } else {
      v = a[k].is_null() ? "NULL" : QuoteLiteral(OutputText(a[k]));
    }
    if (has_width) {
      size_t len = Chars(v).size();
      if (len < width) {
        std::string pad(width - len, ' ');
        v = minus ? v + pad : pad + v;
      }
    }
    r += v;
  }
  *out = Value::String(std::move(r));
  return Status::OK();
}

// concat, concat_ws and format with VARIADIC: the array's elements are the
// arguments (a NULL array: concat and concat_ws are NULL, format has no
// arguments).
Status VariadicCall(ScalarFn fn, const SqlType& t, const Value* a, size_t fixed, Value* out,
                    bool null_is_null) {
  if (a[fixed].is_null() && null_is_null) {
    *out = Value::Null();
    return Status::OK();
  }
  std::vector<Value> args(a, a + fixed);
  if (!a[fixed].is_null()) {
    for (const Value& e : a[fixed].list()) args.push_back(e);
  }
  return fn(t, args.data(), args.size(), out);
}
Status ConcatVariadic(const SqlType& t, const Value* a, size_t, Value* out) {
  return VariadicCall(Concat, t, a, 0, out, true);
}
Status ConcatWsVariadic(const SqlType& t, const Value* a, size_t, Value* out) {
  return VariadicCall(ConcatWs, t, a, 1, out, true);
}
Status FormatVariadic(const SqlType& t, const Value* a, size_t, Value* out) {
  return VariadicCall(Format, t, a, 1, out, false);
}

// like_escape(pattern, escape): the pattern rewritten for LIKE's default
// escape character, the backslash (what `LIKE p ESCAPE e` means).
Status LikeEscape(const SqlType&, const Value* a, size_t, Value* out) {
  const std::string& p = a[0].string_value();
  auto esc = Chars(a[1].string_value());
  if (esc.size() > 1) return Status::InvalidArgument("invalid escape string");
  std::string r;
  auto chars = Chars(p);
  for (size_t i = 0; i < chars.size(); ++i) {
    std::string_view c = chars[i];
    if (!esc.empty() && c == esc[0]) {
      if (i + 1 == chars.size())
        return Status::InvalidArgument("LIKE pattern must not end with escape character");
      r += '\\';
      r += chars[++i];
    } else if (c == "\\") {
      r += "\\\\";
    } else {
      r += c;
    }
  }
  *out = Value::String(std::move(r));
  return Status::OK();
}

// SQL's regular expression (SIMILAR TO's) `chars` as an ECMAScript one,
// unanchored: % is any string, _ any character, the escape character `esc`
// (none if empty) quotes the next one, and the regular expression
// characters SQL leaves literal (. ^ $ \) are quoted. An escape character
// at the end is dropped, as PostgreSQL does.
std::string SimilarToEcma(const std::vector<std::string_view>& chars, std::string_view esc) {
  std::string r;
  bool in_class = false;
  for (size_t i = 0; i < chars.size(); ++i) {
    std::string_view c = chars[i];
    if (!esc.empty() && c == esc) {
      if (i + 1 == chars.size()) break;
      std::string_view next = chars[++i];
      if (next.size() == 1 && !std::isalnum(static_cast<unsigned char>(next[0]))) r += '\\';
      r += next;
      continue;
    }
    if (in_class) {
      if (c == "]") in_class = false;
      r += c;
    } else if (c == "[") {
      in_class = true;
      r += c;
    } else if (c == "%") {
      r += "[\\s\\S]*";  // any characters, newlines too
    } else if (c == "_") {
      r += "(?:[^\\x80-\\xBF][\\x80-\\xBF]*)";  // one UTF-8 character
    } else if (c == "(") {
      r += "(?:";  // SQL's groups do not capture
    } else if (c == "." || c == "^" || c == "$" || c == "\\") {
      r += '\\';
      r += c;
    } else {
      r += c;
    }
  }
  return r;
}

// The escape character of SIMILAR TO and SQL's substring: one character or
// none.
Result<std::string_view> SimilarEscape(const Value* a, size_t n) {
  if (n < 2) return std::string_view("\\");
  const std::string& esc = a[1].string_value();
  if (Chars(esc).size() > 1) return Status::InvalidArgument("invalid escape string");
  return std::string_view(esc);
}

// A SQL regular expression split at its escape-double-quote separators (#"
// with escape #), one to three parts; a separator inside brackets is text.
Result<std::vector<std::vector<std::string_view>>> SimilarParts(std::string_view pattern,
                                                                std::string_view esc) {
  std::vector<std::vector<std::string_view>> parts(1);
  auto chars = Chars(pattern);
  bool in_class = false;
  for (size_t i = 0; i < chars.size(); ++i) {
    if (!esc.empty() && chars[i] == esc && i + 1 < chars.size()) {
      if (chars[i + 1] == "\"" && !in_class) {
        if (parts.size() == 3) {
          return Status::InvalidArgument(
              "SQL regular expression may not contain more than two escape-double-quote "
              "separators");
        }
        parts.emplace_back();
      } else {
        parts.back().push_back(chars[i]);
        parts.back().push_back(chars[i + 1]);
      }
      ++i;
      continue;
    }
    if (chars[i] == "[") in_class = true;
    if (chars[i] == "]") in_class = false;
    parts.back().push_back(chars[i]);
  }
  return parts;
}

// similar_to_escape(pattern [, escape]): SIMILAR TO's pattern as a regular
// expression matching the whole string (its separators only group).
Status SimilarToEscape(const SqlType&, const Value* a, size_t n, Value* out) {
  SLUICE_ASSIGN_OR_RETURN(std::string_view esc, SimilarEscape(a, n));
  SLUICE_ASSIGN_OR_RETURN(auto parts, SimilarParts(a[0].string_value(), esc));
  std::string r = "^";
  for (const auto& part : parts) r += "(?:" + SimilarToEcma(part, esc) + ")";
  *out = Value::String(r + "$");
  return Status::OK();
}

Status RegexMatchOp(bool icase, bool negate, const Value* a, Value* out);
Status RegexOp(const SqlType&, const Value* a, size_t, Value* out) {
  return RegexMatchOp(false, false, a, out);
}
Status RegexOpNot(const SqlType&, const Value* a, size_t, Value* out) {
  return RegexMatchOp(false, true, a, out);
}
Status RegexOpI(const SqlType&, const Value* a, size_t, Value* out) {
  return RegexMatchOp(true, false, a, out);
}
Status RegexOpNotI(const SqlType&, const Value* a, size_t, Value* out) {
  return RegexMatchOp(true, true, a, out);
}

// ---- regular expressions (POSIX-like, through std::regex's ECMAScript
// grammar, which reads the common forms the same way).

// PostgreSQL's regular expression options (flags): g every match, i and c
// case-insensitive or not, n and m newline-sensitive (^ and $ match at line
// ends, . not a newline), s not (the default), x the expanded syntax
// (blanks and #-comments ignored), q the pattern is literal text.
struct RegexFlags {
  bool global = false, icase = false, newline = false, expanded = false, quoted = false;
};
Result<RegexFlags> ParseFlags(const std::string& flags) {
  RegexFlags f;
  for (char c : flags) {
    if (c == 'g') {
      f.global = true;
    } else if (c == 'i' || c == 'c') {
      f.icase = c == 'i';
    } else if (c == 'n' || c == 'm' || c == 'w' || c == 's' || c == 'p') {
      f.newline = c != 's' && c != 'p';
    } else if (c == 'x') {
      f.expanded = true;
    } else if (c == 'q') {
      f.quoted = true;
    } else if (c == 't' || c == 'e') {
      // tight, extended syntax: the defaults
    } else {
      return Status::InvalidArgument(std::string("invalid regular expression option: \"") + c +
                                     "\"");
    }
  }
  return f;
}

// The pattern of the expanded syntax without its blanks and comments (which
// run from # to the end of a line), outside brackets and escapes.
std::string Unexpand(const std::string& p) {
  std::string r;
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      r += c;
      r += p[++i];
    } else if (in_class) {
      in_class = c != ']';
      r += c;
    } else if (c == '[') {
      in_class = true;
      r += c;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      continue;
    } else if (c == '#') {
      while (i + 1 < p.size() && p[i + 1] != '\n') ++i;
    } else {
      r += c;
    }
  }
  return r;
}

// Literal text as a pattern that matches it.
std::string QuoteRegex(const std::string& p) {
  std::string r;
  for (char c : p) {
    if (std::strchr("\\^$.|?*+()[]{}/", c) != nullptr && c != '\0') r += '\\';
    r += c;
  }
  return r;
}

// The last few patterns compiled on this thread, most recent first: a
// query usually applies one to three patterns (SQL's substring compiles
// three) to every row.
// A PostgreSQL pattern in ECMAScript's terms: its `.` matches a newline
// unless the newline-sensitive flag is given (ECMAScript's never does: each
// `.` outside brackets and escapes becomes a class of every character), and
// a `]` first in a bracket expression is one of its characters (ECMAScript
// reads `[]` as an empty class).
std::string EcmaPattern(const std::string& p, bool dot_all) {
  std::string r;
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      r += c;
      r += p[++i];
    } else if (in_class) {
      r += c;
      if (c == '[' && i + 1 < p.size() && (p[i + 1] == ':' || p[i + 1] == '.' || p[i + 1] == '=')) {
        // [:alpha:], [.x.], [=x=]: up to their own closing bracket.
        const size_t close = p.find(std::string{p[i + 1], ']'}, i + 2);
        if (close != std::string::npos) {
          r.append(p, i + 1, close + 2 - (i + 1));
          i = close + 1;
        }
      } else if (c == ']') {
        in_class = false;
      }
    } else if (c == '[') {
      r += c;
      in_class = true;
      // A `]` first in the class (after any `^`) is one of its characters.
      if (i + 1 < p.size() && p[i + 1] == '^') r += p[++i];
      if (i + 1 < p.size() && p[i + 1] == ']') {
        r += "\\]";
        ++i;
      }
    } else if (c == '.' && dot_all) {
      r += "[\\s\\S]";
    } else {
      r += c;
    }
  }
  return r;
}

Result<const std::regex*> Compile(const std::string& pattern, const RegexFlags& f) {
  // By the pattern's ECMAScript text and the flags it is compiled with.
  using Key = std::tuple<std::string, bool, bool>;
  thread_local RecentlyUsed<Key, std::unique_ptr<std::regex>> cache;
  std::string text = f.quoted ? QuoteRegex(pattern) : f.expanded ? Unexpand(pattern) : pattern;
  if (!f.quoted && text.find_first_of(".[") != std::string::npos) {
    text = EcmaPattern(text, !f.newline);
  }
  Key key{std::move(text), f.icase, f.newline};
  if (const auto* re = cache.Find(key)) return re->get();
  std::unique_ptr<std::regex> re;
  try {
    auto flags = std::regex::ECMAScript;
    if (f.icase) flags |= std::regex::icase;
    if (f.newline) flags |= std::regex::multiline;
    re = std::make_unique<std::regex>(std::get<0>(key), flags);
  } catch (const std::regex_error& err) {
    return Status::InvalidArgument("invalid regular expression: " + std::string(err.what()));
  }
  return cache.Add(std::move(key), std::move(re))->get();
}
Result<const std::regex*> Compile(const std::string& pattern, bool icase) {
  RegexFlags f;
  f.icase = icase;
  return Compile(pattern, f);
}

Status RegexMatchOp(bool icase, bool negate, const Value* a, Value* out) {
  SLUICE_ASSIGN_OR_RETURN(const std::regex* re, Compile(a[1].string_value(), icase));
  *out = Value::Bool(std::regex_search(a[0].string_value(), *re) != negate);
  return Status::OK();
}

// substring(string FROM pattern): the part the regular expression matches,
// or its first parenthesized group if it has one; NULL without a match.
Status RegexSubstring(const SqlType&, const Value* a, size_t, Value* out) {
  SLUICE_ASSIGN_OR_RETURN(const std::regex* re, Compile(a[1].string_value(), false));
  std::smatch m;
  const std::string& s = a[0].string_value();
  if (!std::regex_search(s, m, *re)) {
    *out = Value::Null();
  } else if (m.size() > 1) {
    *out = m[1].matched ? Value::String(m[1].str()) : Value::Null();
  } else {
    *out = Value::String(m[0].str());
  }
  return Status::OK();
}

// substring(string SIMILAR pattern ESCAPE escape), also written
// substring(string FROM pattern FOR escape): the pattern must match the
// whole string (else NULL). Two escape-double-quote separators (#" with
// escape #) split it in three parts, and the result is the text the middle
// one matches, with the first part matching as little as it can and the
// middle one as much as it can then; with one separator, the text after
// it; with none, the whole string.
Status SimilarSubstring(const SqlType&, const Value* a, size_t, Value* out) {
  const std::string& s = a[0].string_value();
  SLUICE_ASSIGN_OR_RETURN(std::string_view esc, SimilarEscape(a + 1, 2));
  SLUICE_ASSIGN_OR_RETURN(auto parts, SimilarParts(a[1].string_value(), esc));
  std::vector<const std::regex*> res;
  for (const auto& part : parts) {
    SLUICE_ASSIGN_OR_RETURN(const std::regex* re,
                            Compile("^(?:" + SimilarToEcma(part, esc) + ")$", false));
    res.push_back(re);
  }
  // Character boundaries, the only places a part may start or end.
  std::vector<size_t> at;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || (static_cast<uint8_t>(s[i]) & 0xC0) != 0x80) at.push_back(i);
  }
  auto matches = [&](const std::regex* re, size_t from, size_t to) {
    return std::regex_match(s.begin() + static_cast<std::ptrdiff_t>(from),
                            s.begin() + static_cast<std::ptrdiff_t>(to), *re);
  };
  *out = Value::Null();
  if (res.size() == 1) {
    if (matches(res[0], 0, s.size())) *out = Value::String(s);
    return Status::OK();
  }
  // The last part's possible starts, when there are three.
  std::vector<bool> last_from(at.size(), true);
  if (res.size() == 3) {
    for (size_t j = 0; j < at.size(); ++j) last_from[j] = matches(res[2], at[j], s.size());
  }
  for (size_t i = 0; i < at.size(); ++i) {
    if (!matches(res[0], 0, at[i])) continue;
    if (res.size() == 2) {
      if (matches(res[1], at[i], s.size())) {
        *out = Value::String(s.substr(at[i]));
        return Status::OK();
      }
      continue;
    }
    for (size_t j = at.size(); j-- > i;) {
      if (last_from[j] && matches(res[1], at[i], at[j])) {
        *out = Value::String(s.substr(at[i], at[j] - at[i]));
        return Status::OK();
      }
    }
  }
  return Status::OK();
}

// PostgreSQL's replacement text: \1..\9 the groups, \& the match, \\ a
// backslash; ECMAScript's: $1, $&, $$.
std::string EcmaReplacement(const std::string& r) {
  std::string out;
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i] == '$') {
      out += "$$";
    } else if (r[i] == '\\' && i + 1 < r.size()) {
      char c = r[++i];
      if (std::isdigit(static_cast<unsigned char>(c))) {
        out += '$';
        out += c;
      } else if (c == '&') {
        out += "$&";
      } else if (c == '\\') {
        out += '\\';
      } else {
        // Any other backslash is itself, and the character after it is
        // read as usual.
        out += '\\';
        --i;
      }
    } else {
      out += r[i];
    }
  }
  return out;
}

Status RegexpReplace(const SqlType&, const Value* a, size_t n, Value* out) {
  RegexFlags f;
  if (n == 4) {
    SLUICE_ASSIGN_OR_RETURN(f, ParseFlags(a[3].string_value()));
  }
  SLUICE_ASSIGN_OR_RETURN(const std::regex* re, Compile(a[1].string_value(), f));
  auto mode =
      f.global ? std::regex_constants::format_default : std::regex_constants::format_first_only;
  *out = Value::String(
      std::regex_replace(a[0].string_value(), *re, EcmaReplacement(a[2].string_value()), mode));
  return Status::OK();
}

Status RegexpLike(const SqlType&, const Value* a, size_t n, Value* out) {
  RegexFlags f;
  if (n == 3) {
    SLUICE_ASSIGN_OR_RETURN(f, ParseFlags(a[2].string_value()));
  }
  SLUICE_ASSIGN_OR_RETURN(const std::regex* re, Compile(a[1].string_value(), f));
  *out = Value::Bool(std::regex_search(a[0].string_value(), *re));
  return Status::OK();
}

Status RegexpCount(const SqlType&, const Value* a, size_t, Value* out) {
  SLUICE_ASSIGN_OR_RETURN(const std::regex* re, Compile(a[1].string_value(), false));
  const std::string& s = a[0].string_value();
  auto b = std::sregex_iterator(s.begin(), s.end(), *re);
  *out = Value::Int(static_cast<int64_t>(std::distance(b, std::sregex_iterator())));
  return Status::OK();
}

// ---- regexp_count, regexp_instr, regexp_substr and regexp_replace with
// a start position and a match number (PostgreSQL 15): positions count
// characters, from 1.

// The byte where character `c` (from 0) of UTF-8 `s` starts: s.size() for
// the character after the last, more for any later.
size_t ByteOfChar(const std::string& s, int64_t c) {
  size_t i = 0;
  for (; c > 0 && i < s.size(); --c) {
    ++i;
    while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
  }
  return c > 0 ? s.size() + 1 : i;
}

int64_t CharOfByte(const std::string& s, size_t b) {
  int64_t c = 0;
  for (size_t i = 0; i < b && i < s.size(); ++i)
    c += (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
  return c;
}

Status BadParameter(const char* name, int64_t v) {
  return Status::InvalidArgument(std::string("invalid value for parameter \"") + name +
                                 "\": " + std::to_string(v));
}

// The matches of `re` in `s` from character `start` (from 1), in order.
Result<std::vector<std::smatch>> MatchesFrom(const std::string& s, const std::regex& re,
                                             int64_t start) {
  if (start < 1) return BadParameter("start", start);
  std::vector<std::smatch> out;
  const size_t from = ByteOfChar(s, start - 1);
  if (from > s.size()) return out;
  const auto flags =
      from > 0 ? std::regex_constants::match_prev_avail : std::regex_constants::match_default;
  for (auto it = std::sregex_iterator(s.begin() + static_cast<ptrdiff_t>(from), s.end(), re, flags);
       it != std::sregex_iterator(); ++it) {
    out.push_back(*it);
  }
  return out;
}

Result<RegexFlags> NoGlobal(const std::string& flags, const char* fn) {
  SLUICE_ASSIGN_OR_RETURN(RegexFlags f, ParseFlags(flags));
  if (f.global)
    return Status::InvalidArgument(std::string(fn) + "() does not support the \"global\" option");
  return f;
}

// regexp_count(string, pattern, start [, flags])
Status RegexpCountFrom(const SqlType&, const Value* a, size_t n, Value* out) {
  RegexFlags f;
  if (n == 4) {
    SLUICE_ASSIGN_OR_RETURN(f, NoGlobal(a[3].string_value(), "regexp_count"));
  }
  SLUICE_ASSIGN_OR_RETURN(const std::regex* re, Compile(a[1].string_value(), f));
  SLUICE_ASSIGN_OR_RETURN(auto m, MatchesFrom(a[0].string_value(), *re, a[2].int_value()));
  *out = Value::Int(static_cast<int64_t>(m.size()));
  return Status::OK();
}

// regexp_instr(string, pattern [, start [, N [, endoption [, flags [, subexpr]]]]]):
// where the N'th match (or its subexpr'th group) starts, or (endoption 1)
// the character after it ends; 0 without one.
Status RegexpInstr(const SqlType&, const Value* a, size_t n, Value* out) {
  const int64_t start = n > 2 ? a[2].int_value() : 1, nth = n > 3 ? a[3].int_value() : 1,
                end = n > 4 ? a[4].int_value() : 0, sub = n > 6 ? a[6].int_value() : 0;
  if (nth < 1) return BadParameter("n", nth);
  if (end != 0 && end != 1) return BadParameter("endoption", end);
  if (sub < 0) return BadParameter("subexpr", sub);
  RegexFlags f;
  if (n > 5) {
    SLUICE_ASSIGN_OR_RETURN(f, NoGlobal(a[5].string_value(), "regexp_instr"));
  }
  SLUICE_ASSIGN_OR_RETURN(const std::regex* re, Compile(a[1].string_value(), f));
  const std::string& s = a[0].string_value();
  SLUICE_ASSIGN_OR_RETURN(auto m, MatchesFrom(s, *re, start));
  *out = Value::Int(0);
  if (static_cast<size_t>(nth) > m.size()) return Status::OK();
  const std::smatch& x = m[static_cast<size_t>(nth - 1)];
  if (static_cast<size_t>(sub) >= x.size() || !x[static_cast<size_t>(sub)].matched)
    return Status::OK();
  const auto& g = x[static_cast<size_t>(sub)];
  const size_t b = static_cast<size_t>((end ? g.second : g.first) - s.begin());
  *out = Value::Int(CharOfByte(s, b) + 1);
  return Status::OK();
}

// regexp_substr(string, pattern [, start [, N [, flags [, subexpr]]]]): the
// N'th match (or its subexpr'th group); NULL without one.
Status RegexpSubstr(const SqlType&, const Value* a, size_t n, Value* out) {
  const int64_t start = n > 2 ? a[2].int_value() : 1, nth = n > 3 ? a[3].int_value() : 1,
                sub = n > 5 ? a[5].int_value() : 0;
  if (nth < 1) return BadParameter("n", nth);
  if (sub < 0) return BadParameter("subexpr", sub);
  RegexFlags f;
  if (n > 4) {
    SLUICE_ASSIGN_OR_RETURN(f, NoGlobal(a[4].string_value(), "regexp_substr"));
  }
  SLUICE_ASSIGN_OR_RETURN(const std::regex* re, Compile(a[1].string_value(), f));
  SLUICE_ASSIGN_OR_RETURN(auto m, MatchesFrom(a[0].string_value(), *re, start));
  *out = Value::Null();
  if (static_cast<size_t>(nth) > m.size()) return Status::OK();
  const std::smatch& x = m[static_cast<size_t>(nth - 1)];
  if (static_cast<size_t>(sub) >= x.size() || !x[static_cast<size_t>(sub)].matched)
    return Status::OK();
  *out = Value::String(x[static_cast<size_t>(sub)].str());
  return Status::OK();
}

// regexp_replace(string, pattern, replacement, start [, N [, flags]]): the
// N'th match at or after start replaced, or every one (N 0, or flag g).
Status RegexpReplaceFrom(const SqlType&, const Value* a, size_t n, Value* out) {
  const int64_t nth = n > 4 ? a[4].int_value() : 1;
  if (nth < 0) return BadParameter("n", nth);
  RegexFlags f;
  if (n > 5) {
    SLUICE_ASSIGN_OR_RETURN(f, ParseFlags(a[5].string_value()));
  }
  SLUICE_ASSIGN_OR_RETURN(const std::regex* re, Compile(a[1].string_value(), f));
  const std::string& s = a[0].string_value();
  SLUICE_ASSIGN_OR_RETURN(auto m, MatchesFrom(s, *re, a[3].int_value()));
  const std::string replacement = EcmaReplacement(a[2].string_value());
  // N wins over the g flag; only N = 0 replaces every match.
  const bool all = nth == 0;
  std::string result;
  size_t at = 0;
  for (size_t i = 0; i < m.size(); ++i) {
    if (!all && i + 1 != static_cast<size_t>(nth)) continue;
    const size_t b = static_cast<size_t>(m[i][0].first - s.begin());
    result.append(s, at, b - at);
    result += m[i].format(replacement);
    at = static_cast<size_t>(m[i][0].second - s.begin());
  }
  result.append(s, at, std::string::npos);
  *out = Value::String(std::move(result));
  return Status::OK();
}

// regexp_match(string, pattern [, flags]): the first match's groups (or the
// whole match if there are none) as text[]; NULL if there is no match.
Status RegexpMatch(const SqlType&, const Value* a, size_t n, Value* out) {
  RegexFlags f;
  if (n == 3) {
    SLUICE_ASSIGN_OR_RETURN(f, ParseFlags(a[2].string_value()));
  }
  SLUICE_ASSIGN_OR_RETURN(const std::regex* re, Compile(a[1].string_value(), f));
  std::smatch m;
  const std::string& s = a[0].string_value();
  if (!std::regex_search(s, m, *re)) {
    *out = Value::Null();
    return Status::OK();
  }
  std::vector<Value> groups;
  if (m.size() == 1) {
    groups.push_back(Value::String(m[0].str()));
  } else {
    for (size_t i = 1; i < m.size(); ++i)
      groups.push_back(m[i].matched ? Value::String(m[i].str()) : Value::Null());
  }
  *out = Value::List(std::move(groups));
  return Status::OK();
}

// regexp_matches(string, pattern [, flags]) as the array of its rows: the
// first match (every match, with flag g) as text[] of its groups, or of the
// whole match if the pattern has none; a group that took no part is NULL.
Status RegexpMatches(const SqlType&, const Value* a, size_t n, Value* out) {
  RegexFlags f;
  if (n == 3) {
    SLUICE_ASSIGN_OR_RETURN(f, ParseFlags(a[2].string_value()));
  }
  SLUICE_ASSIGN_OR_RETURN(const std::regex* re, Compile(a[1].string_value(), f));
  const std::string& s = a[0].string_value();
  std::vector<Value> rows;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), *re); it != std::sregex_iterator();
       ++it) {
    const std::smatch& m = *it;
    std::vector<Value> groups;
    if (m.size() == 1) groups.push_back(Value::String(m[0].str()));
    for (size_t i = 1; i < m.size(); ++i)
      groups.push_back(m[i].matched ? Value::String(m[i].str()) : Value::Null());
    rows.push_back(Value::List(std::move(groups)));
    if (!f.global) break;
  }
  *out = Value::List(std::move(rows));
  return Status::OK();
}

Status RegexpSplitToArray(const SqlType&, const Value* a, size_t n, Value* out) {
  RegexFlags f;
  if (n == 3) {
    SLUICE_ASSIGN_OR_RETURN(f, ParseFlags(a[2].string_value()));
  }
  SLUICE_ASSIGN_OR_RETURN(const std::regex* re, Compile(a[1].string_value(), f));
  const std::string& s = a[0].string_value();
  std::vector<Value> parts;
  size_t at = 0;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), *re); it != std::sregex_iterator();
       ++it) {
    size_t p = static_cast<size_t>(it->position()), len = static_cast<size_t>(it->length());
    if (len == 0) {  // an empty match splits between characters
      if (p >= s.size() || p == 0) continue;
    }
    if (len == 0 && p == at) continue;
    parts.push_back(Value::String(s.substr(at, p - at)));
    at = p + len;
  }
  parts.push_back(Value::String(s.substr(at)));
  *out = Value::List(std::move(parts));
  return Status::OK();
}

// string_to_array(string, delimiter [, null string]): a NULL delimiter
// splits into characters, an empty one gives the whole string.
Status StringToArray(const SqlType&, const Value* a, size_t n, Value* out) {
  if (a[0].is_null()) {
    *out = Value::Null();
    return Status::OK();
  }
  const std::string& s = a[0].string_value();
  std::vector<Value> parts;
  auto add = [&](std::string p) {
    if (n == 3 && !a[2].is_null() && p == a[2].string_value()) {
      parts.push_back(Value::Null());
    } else {
      parts.push_back(Value::String(std::move(p)));
    }
  };
  if (s.empty()) {
    *out = Value::List({});
    return Status::OK();
  }
  if (a[1].is_null()) {
    for (std::string_view c : Chars(s)) add(std::string(c));
  } else if (a[1].string_value().empty()) {
    add(s);
  } else {
    const std::string& d = a[1].string_value();
    size_t at = 0;
    for (size_t p; (p = s.find(d, at)) != std::string::npos; at = p + d.size())
      add(s.substr(at, p - at));
    add(s.substr(at));
  }
  *out = Value::List(std::move(parts));
  return Status::OK();
}

// overlay(string placing new from start [for count]).
Status Overlay(const SqlType&, const Value* a, size_t n, Value* out) {
  auto chars = Chars(a[0].string_value());
  const int64_t start = a[2].int_value();
  const int64_t count =
      n == 4 ? a[3].int_value() : static_cast<int64_t>(Chars(a[1].string_value()).size());
  if (start < 1) return Status::InvalidArgument("negative substring length not allowed");
  size_t b = static_cast<size_t>(std::min<int64_t>(start - 1, static_cast<int64_t>(chars.size())));
  size_t e = static_cast<size_t>(std::clamp<int64_t>(start - 1 + std::max<int64_t>(count, 0), 0,
                                                     static_cast<int64_t>(chars.size())));
  *out = Value::String(Join(chars, 0, b) + a[1].string_value() + Join(chars, e, chars.size()));
  return Status::OK();
}

// ---- math beyond the basics, on doubles.
Status DoubleFn(double (*f)(double), const Value* a, Value* out) {
  double r = f(a[0].double_value());
  if (std::isnan(r) && !std::isnan(a[0].double_value()))
    return Status::InvalidArgument("input is out of range");
  *out = Value::Double(r);
  return Status::OK();
}
#define SLUICE_DOUBLE_FN(Name, expr)                                \
  Status Name(const SqlType&, const Value* a, size_t, Value* out) { \
    return DoubleFn([](double x) { return expr; }, a, out);         \
  }
SLUICE_DOUBLE_FN(Sin, std::sin(x))
SLUICE_DOUBLE_FN(Cos, std::cos(x))
SLUICE_DOUBLE_FN(Tan, std::tan(x))
SLUICE_DOUBLE_FN(Cot, 1.0 / std::tan(x))
SLUICE_DOUBLE_FN(Asin, std::asin(x))
SLUICE_DOUBLE_FN(Acos, std::acos(x))
SLUICE_DOUBLE_FN(Atan, std::atan(x))
SLUICE_DOUBLE_FN(Sinh, std::sinh(x))
SLUICE_DOUBLE_FN(Cosh, std::cosh(x))
SLUICE_DOUBLE_FN(Tanh, std::tanh(x))
SLUICE_DOUBLE_FN(Asinh, std::asinh(x))
SLUICE_DOUBLE_FN(Acosh, std::acosh(x))
SLUICE_DOUBLE_FN(Atanh, std::atanh(x))
SLUICE_DOUBLE_FN(Cbrt, std::cbrt(x))
SLUICE_DOUBLE_FN(Degrees, x / (M_PI / 180.0))
SLUICE_DOUBLE_FN(Radians, x*(M_PI / 180.0))
#undef SLUICE_DOUBLE_FN

// Trigonometry in degrees, exact at the special angles as PostgreSQL's
// float.c makes it: the argument is reduced to [0, 90], and each value is
// scaled by the computed value at 30, 45 or 60 degrees, so that sind(30) is
// 0.5 and tand(45) is 1 exactly.
// NaN in, NaN out.
Status NanOf(Value* out) {
  *out = Value::Double(std::nan(""));
  return Status::OK();
}

namespace degrees {
constexpr double kRadiansPerDegree = M_PI / 180.0;
// Computed at run time, as the scaled values are, so that the quotients at
// the special angles are exactly 1.
double Sin30() {
  static const volatile double v = std::sin(30.0 * kRadiansPerDegree);
  return v;
}
double OneMinusCos60() {
  static const volatile double v = 1.0 - std::cos(60.0 * kRadiansPerDegree);
  return v;
}
double Asin05() {
  static const volatile double v = std::asin(0.5);
  return v;
}
double Acos05() {
  static const volatile double v = std::acos(0.5);
  return v;
}
double Atan1() {
  static const volatile double v = std::atan(1.0);
  return v;
}
double Sin0To30(double x) {
  const volatile double sin_x = std::sin(x * kRadiansPerDegree);
  return (sin_x / Sin30()) / 2.0;
}
double Cos0To60(double x) {
  const volatile double one_minus_cos_x = 1.0 - std::cos(x * kRadiansPerDegree);
  return 1.0 - (one_minus_cos_x / OneMinusCos60()) / 2.0;
}
double SinQ1(double x) { return x <= 30.0 ? Sin0To30(x) : Cos0To60(90.0 - x); }
double CosQ1(double x) { return x <= 60.0 ? Cos0To60(x) : Sin0To30(90.0 - x); }
double Tan45() {
  static const volatile double v = SinQ1(45.0) / CosQ1(45.0);
  return v;
}
double Cot45() {
  static const volatile double v = CosQ1(45.0) / SinQ1(45.0);
  return v;
}
double AsinQ1(double x) {
  if (x <= 0.5) {
    const volatile double asin_x = std::asin(x);
    return (asin_x / Asin05()) * 30.0;
  }
  const volatile double acos_x = std::acos(x);
  return 90.0 - (acos_x / Acos05()) * 60.0;
}
double AcosQ1(double x) {
  if (x <= 0.5) {
    const volatile double asin_x = std::asin(x);
    return 90.0 - (asin_x / Asin05()) * 30.0;
  }
  const volatile double acos_x = std::acos(x);
  return (acos_x / Acos05()) * 60.0;
}
// Reduces `x` (finite) to [0, 90] for a function that is odd (sind, tand,
// cotd: sign flips with x), and whose value at 180 - x is `mirror` times
// its value at x.
double Reduce(double x, int mirror, bool odd_at_360, int* sign) {
  x = std::fmod(x, 360.0);
  *sign = 1;
  if (x < 0.0) {
    x = -x;
    if (odd_at_360) *sign = -*sign;
  }
  if (x > 180.0) {
    x = 360.0 - x;
    if (odd_at_360) *sign = -*sign;
  }
  if (x > 90.0) {
    x = 180.0 - x;
    *sign *= mirror;
  }
  return x;
}
Status Periodic(const Value* a, Value* out, double (*f)(double, int)) {
  const double x = a[0].double_value();
  if (std::isnan(x)) return NanOf(out);
  if (std::isinf(x)) return Status::InvalidArgument("input is out of range");
  *out = Value::Double(f(x, 0));
  return Status::OK();
}
}  // namespace degrees

Status Sind(const SqlType&, const Value* a, size_t, Value* out) {
  return degrees::Periodic(a, out, [](double x, int) {
    int sign;
    x = degrees::Reduce(x, 1, true, &sign);
    return sign * degrees::SinQ1(x);
  });
}
Status Cosd(const SqlType&, const Value* a, size_t, Value* out) {
  return degrees::Periodic(a, out, [](double x, int) {
    int sign;
    x = degrees::Reduce(x, -1, false, &sign);
    return sign * degrees::CosQ1(x);
  });
}
Status Tand(const SqlType&, const Value* a, size_t, Value* out) {
  return degrees::Periodic(a, out, [](double x, int) {
    int sign;
    x = degrees::Reduce(x, -1, true, &sign);
    const volatile double tan_x = degrees::SinQ1(x) / degrees::CosQ1(x);
    double r = sign * (tan_x / degrees::Tan45());
    return r == 0.0 ? 0.0 : r;  // no -0
  });
}
Status Cotd(const SqlType&, const Value* a, size_t, Value* out) {
  return degrees::Periodic(a, out, [](double x, int) {
    int sign;
    x = degrees::Reduce(x, -1, true, &sign);
    const volatile double cot_x = degrees::CosQ1(x) / degrees::SinQ1(x);
    double r = sign * (cot_x / degrees::Cot45());
    return r == 0.0 ? 0.0 : r;
  });
}
// asind, acosd: defined on [-1, 1] only.
Status Asind(const SqlType&, const Value* a, size_t, Value* out) {
  const double x = a[0].double_value();
  if (std::isnan(x)) return NanOf(out);
  if (x < -1.0 || x > 1.0) return Status::InvalidArgument("input is out of range");
  *out = Value::Double(x >= 0.0 ? degrees::AsinQ1(x) : -degrees::AsinQ1(-x));
  return Status::OK();
}
Status Acosd(const SqlType&, const Value* a, size_t, Value* out) {
  const double x = a[0].double_value();
  if (std::isnan(x)) return NanOf(out);
  if (x < -1.0 || x > 1.0) return Status::InvalidArgument("input is out of range");
  *out = Value::Double(x >= 0.0 ? degrees::AcosQ1(x) : 90.0 + degrees::AsinQ1(-x));
  return Status::OK();
}
Status Atand(const SqlType&, const Value* a, size_t, Value* out) {
  const double x = a[0].double_value();
  if (std::isnan(x)) return NanOf(out);
  const volatile double atan_x = std::atan(x);
  *out = Value::Double((atan_x / degrees::Atan1()) * 45.0);
  return Status::OK();
}
Status Atan2d(const SqlType&, const Value* a, size_t, Value* out) {
  const double y = a[0].double_value(), x = a[1].double_value();
  if (std::isnan(x) || std::isnan(y)) return NanOf(out);
  const volatile double atan2_yx = std::atan2(y, x);
  *out = Value::Double((atan2_yx / degrees::Atan1()) * 45.0);
  return Status::OK();
}

Status Atan2(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Double(std::atan2(a[0].double_value(), a[1].double_value()));
  return Status::OK();
}
Status Pi(const SqlType&, const Value*, size_t, Value* out) {
  *out = Value::Double(M_PI);
  return Status::OK();
}
Status Log10(const SqlType&, const Value* a, size_t, Value* out) {
  double x = a[0].double_value();
  if (x == 0) return Status::InvalidArgument("cannot take logarithm of zero");
  if (x < 0) return Status::InvalidArgument("cannot take logarithm of a negative number");
  *out = Value::Double(std::log10(x));
  return Status::OK();
}
Status LogBase(const SqlType&, const Value* a, size_t, Value* out) {
  double b = a[0].double_value(), x = a[1].double_value();
  if (b == 0 || x == 0) return Status::InvalidArgument("cannot take logarithm of zero");
  if (b < 0 || x < 0) return Status::InvalidArgument("cannot take logarithm of a negative number");
  if (b == 1) return Status::InvalidArgument("division by zero");
  *out = Value::Double(std::log(x) / std::log(b));
  return Status::OK();
}

Status Gcd(const SqlType&, const Value* a, size_t, Value* out) {
  int64_t x = a[0].int_value(), y = a[1].int_value();
  if ((x == INT64_MIN && (y == 0 || y == INT64_MIN)) || (y == INT64_MIN && x == 0))
    return Status::Overflow("bigint out of range");
  *out = Value::Int(std::gcd(x, y));
  return Status::OK();
}
Status Lcm(const SqlType&, const Value* a, size_t, Value* out) {
  int64_t x = a[0].int_value(), y = a[1].int_value();
  if (x == 0 || y == 0) {
    *out = Value::Int(0);
    return Status::OK();
  }
  int128 r = static_cast<int128>(x / std::gcd(x, y)) * y;
  if (r < 0) r = -r;
  if (r > INT64_MAX) return Status::Overflow("bigint out of range");
  *out = Value::Int(static_cast<int64_t>(r));
  return Status::OK();
}
// gcd and lcm of NUMERIC values, as PostgreSQL's: of their digits at the
// larger of their scales, never negative; NaN when either is NaN or
// infinite.
Status GcdLcmDecimal(bool lcm, const Value* a, Value* out) {
  if (a[0].decimal_is_special() || a[1].decimal_is_special()) {
    *out = Value::DecimalNaN();
    return Status::OK();
  }
  if (a[0].decimal_wide() != nullptr || a[1].decimal_wide() != nullptr)
    return Status::Unimplemented(std::string(lcm ? "lcm" : "gcd") +
                                 " of numeric values of more than 38 digits is not supported yet");
  const int scale = std::max(a[0].decimal_scale(), a[1].decimal_scale());
  bool overflow = false;
  int128 x = RescaleDecimal(a[0].decimal_unscaled(), a[0].decimal_scale(), scale, &overflow);
  int128 y = RescaleDecimal(a[1].decimal_unscaled(), a[1].decimal_scale(), scale, &overflow);
  if (overflow) return Status::Overflow("value overflows numeric format");
  if (x < 0) x = -x;
  if (y < 0) y = -y;
  int128 g = x, h = y;
  while (h != 0) {
    const int128 t = g % h;
    g = h;
    h = t;
  }
  int128 r = g;
  if (lcm) {
    if (x == 0 || y == 0) {
      r = 0;
    } else if (__builtin_mul_overflow(x / g, y, &r) || r >= Pow10(kMaxDecimalDigits)) {
      return Status::Overflow("value overflows numeric format");
    }
  }
  *out = Value::Decimal(r, scale);
  return Status::OK();
}
Status GcdDecimal(const SqlType&, const Value* a, size_t, Value* out) {
  return GcdLcmDecimal(false, a, out);
}
Status LcmDecimal(const SqlType&, const Value* a, size_t, Value* out) {
  return GcdLcmDecimal(true, a, out);
}

// The integer bitwise operators, of the result type's width: & | # (xor),
// ~ (not), and the shifts by an INTEGER count, which wrap as PostgreSQL's
// do (a count taken modulo the width of a C int or long).
int64_t ToWidth(const SqlType& t, int64_t v) {
  switch (t.id()) {
    case TypeId::kTinyInt:
      return static_cast<int8_t>(v);
    case TypeId::kSmallInt:
      return static_cast<int16_t>(v);
    case TypeId::kInteger:
      return static_cast<int32_t>(v);
    default:
      return v;
  }
}
Status BitAnd(const SqlType& t, const Value* a, size_t, Value* out) {
  *out = Value::Int(ToWidth(t, a[0].int_value() & a[1].int_value()));
  return Status::OK();
}
Status BitOr(const SqlType& t, const Value* a, size_t, Value* out) {
  *out = Value::Int(ToWidth(t, a[0].int_value() | a[1].int_value()));
  return Status::OK();
}
Status BitXor(const SqlType& t, const Value* a, size_t, Value* out) {
  *out = Value::Int(ToWidth(t, a[0].int_value() ^ a[1].int_value()));
  return Status::OK();
}
Status BitNot(const SqlType& t, const Value* a, size_t, Value* out) {
  *out = Value::Int(ToWidth(t, ~a[0].int_value()));
  return Status::OK();
}
Status ShiftLeft(const SqlType& t, const Value* a, size_t, Value* out) {
  const int bits = t.id() == TypeId::kBigInt ? 64 : 32;
  const auto by = static_cast<unsigned>(a[1].int_value() & (bits - 1));
  const auto x = static_cast<uint64_t>(a[0].int_value());
  *out = Value::Int(
      ToWidth(t, static_cast<int64_t>(bits == 64 ? x << by : static_cast<uint32_t>(x) << by)));
  return Status::OK();
}
Status ShiftRight(const SqlType& t, const Value* a, size_t, Value* out) {
  const int bits = t.id() == TypeId::kBigInt ? 64 : 32;
  const auto by = static_cast<unsigned>(a[1].int_value() & (bits - 1));
  *out = Value::Int(ToWidth(t, a[0].int_value() >> by));  // arithmetic, as C's on signed
  return Status::OK();
}

Status Factorial(const SqlType&, const Value* a, size_t, Value* out) {
  int64_t n = a[0].int_value();
  if (n < 0) return Status::InvalidArgument("factorial of a negative number is undefined");
  // 32177! is the largest within numeric's 131072 digits before the point.
  if (n > 32177) return Status::Overflow("value overflows numeric format");
  int128 r = 1;
  int64_t i = 2;
  for (; i <= n && !__builtin_mul_overflow(r, i, &r) && r < Pow10(38); ++i) {
  }
  if (i > n) {
    *out = Value::Decimal(r, 0);
    return Status::OK();
  }
  // Beyond 38 digits: the rest of the product in arbitrary precision.
  BigDecimal big = BigDecimal::FromInt128(1, 0);
  for (int64_t k = 2; k <= n; ++k) big = BigDecimal::Mul(big, BigDecimal::FromInt128(k, 0));
  *out = big.ToValue();
  return Status::OK();
}
// div(x, y): the integral quotient, truncated toward zero.
Status DivTrunc(const SqlType&, const Value* a, size_t, Value* out) {
  if (a[0].decimal_is_special() || a[1].decimal_is_special()) {
    // PostgreSQL's numeric_div_trunc: NaN in, NaN out; an infinity over a
    // finite nonzero value is an infinity, over an infinity NaN; a finite
    // value over an infinity is 0.
    if (IsNaN(a[0]) || IsNaN(a[1])) {
      *out = Value::DecimalNaN();
    } else if (InfSign(a[0]) != 0) {
      if (a[1].decimal_is_special()) {
        *out = Value::DecimalNaN();
      } else if (FiniteSign(a[1]) == 0) {
        return Status::InvalidArgument("division by zero");
      } else {
        *out = Value::DecimalInf(InfSign(a[0]) * FiniteSign(a[1]) < 0);
      }
    } else {
      *out = Value::Decimal(0, 0);
    }
    return Status::OK();
  }
  if (a[0].decimal_wide() != nullptr || a[1].decimal_wide() != nullptr ||
      std::abs(a[0].decimal_scale() - a[1].decimal_scale()) > 0) {
    const BigDecimal x = BigDecimal::FromValue(a[0]), y = BigDecimal::FromValue(a[1]);
    if (y.is_zero()) return Status::InvalidArgument("division by zero");
    *out = BigDecimal::Div(x, y, 0, /*round=*/false).ToValue();
    return Status::OK();
  }
  int s = std::max(a[0].decimal_scale(), a[1].decimal_scale());
  int128 x = a[0].decimal_unscaled() * Pow10(s - a[0].decimal_scale());
  int128 y = a[1].decimal_unscaled() * Pow10(s - a[1].decimal_scale());
  if (y == 0) return Status::InvalidArgument("division by zero");
  *out = Value::Decimal(x / y, 0);
  return Status::OK();
}
// width_bucket(x, low, high, count): the bucket of x among `count` equal
// buckets over [low, high); 0 below, count + 1 above.
Status WidthBucket(const SqlType&, const Value* a, size_t, Value* out) {
  double x = a[0].double_value(), lo = a[1].double_value(), hi = a[2].double_value();
  int64_t n = a[3].int_value();
  if (n <= 0) return Status::InvalidArgument("count must be greater than zero");
  if (lo == hi) return Status::InvalidArgument("lower bound cannot equal upper bound");
  if (std::isnan(x) || std::isnan(lo) || std::isnan(hi))
    return Status::InvalidArgument("operand, lower bound, and upper bound cannot be NaN");
  if (std::isinf(lo) || std::isinf(hi)) {
    return Status::InvalidArgument("lower and upper bounds must be finite");
  }
  // x's share of the way from `from` to `to`: halved first where the span
  // overflows a double (bounds near +-1.8e308), as PostgreSQL 16 does.
  auto share = [](double x, double from, double to) {
    return std::isinf(to - from) ? (x / 2 - from / 2) / (to / 2 - from / 2)
                                 : (x - from) / (to - from);
  };
  // Rounding may put an x just below the upper bound in bucket n + 1.
  auto bucket = [n](double share) {
    return std::min(static_cast<int64_t>(share * static_cast<double>(n)), n - 1) + 1;
  };
  int64_t r;
  if (lo < hi) {
    r = x < lo ? 0 : x >= hi ? n + 1 : bucket(share(x, lo, hi));
  } else {
    r = x > lo ? 0 : x <= hi ? n + 1 : bucket(share(x, lo, hi));
  }
  if (r > INT32_MAX) return Status::InvalidArgument("integer out of range");
  *out = Value::Int(r);
  return Status::OK();
}
// scale(numeric): the digits after the point.
// scale and min_scale of NaN and the infinities are NULL; trim_scale and
// trunc leave them as they are.
Status ScaleFn(const SqlType&, const Value* a, size_t, Value* out) {
  if (a[0].decimal_is_special()) {
    *out = Value::Null();
    return Status::OK();
  }
  *out = Value::Int(a[0].decimal_scale());
  return Status::OK();
}
// min_scale(numeric): the fewest digits after the point that keep the value.
Status MinScale(const SqlType&, const Value* a, size_t, Value* out) {
  if (a[0].decimal_is_special()) {
    *out = Value::Null();
    return Status::OK();
  }
  *out = Value::Int(DecimalWithoutTrailingZeros(a[0]).decimal_scale());
  return Status::OK();
}
Status TrimScale(const SqlType&, const Value* a, size_t, Value* out) {
  *out = DecimalWithoutTrailingZeros(a[0]);
  return Status::OK();
}
// trunc(numeric, n): toward zero at n digits after the point (n may be
// negative).
Status TruncDec(const SqlType&, const Value* a, size_t n, Value* out) {
  if (a[0].decimal_is_special()) {
    *out = a[0];
    return Status::OK();
  }
  const int64_t to64 = n == 2 ? a[1].int_value() : 0;
  if (a[0].decimal_wide() != nullptr || to64 > 37 || to64 < -37) {
    return RoundOrTruncBig(a[0], to64, /*trunc=*/true, out);
  }
  int to = static_cast<int>(to64);
  int from = a[0].decimal_scale();
  int128 u = a[0].decimal_unscaled();
  WidenDecimalScale(to, &u, &from);
  if (to > from) return RoundOrTruncBig(a[0], to64, /*trunc=*/true, out);
  if (to < from) {
    int keep = std::max(to, 0);
    u /= Pow10(from - keep);
    from = keep;
    if (to < 0) u = u / Pow10(-to) * Pow10(-to);
  }
  *out = Value::Decimal(u, from);
  return Status::OK();
}
Status TruncD(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Double(std::trunc(a[0].double_value()));
  return Status::OK();
}

}  // namespace

bool ResolveStringSet(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r) {
  const size_t n = args.size();
  auto text_at = [&](size_t i) { return i < n && args[i].IsString(); };
  if (name == "regexp_matches" && (n == 2 || n == 3) && text_at(0) && text_at(1) &&
      (n == 2 || text_at(2))) {
    return Resolve(r, RegexpMatches, "regexp_matches", SqlType::Array(SqlType::Array(Text())),
                   std::vector<SqlType>(n, Text()));
  }
  // The tables of string_to_array() and regexp_split_to_array().
  if (name == "string_to_table" && ResolveString("string_to_array", args, r)) {
    r->name = "string_to_table";
    return true;
  }
  if (name == "regexp_split_to_table" && ResolveString("regexp_split_to_array", args, r)) {
    r->name = "regexp_split_to_table";
    return true;
  }
  return false;
}

bool ResolveString(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r) {
  auto text_at = [&](size_t i) { return i < args.size() && args[i].IsString(); };
  auto int_at = [&](size_t i) { return i < args.size() && args[i].IsInteger(); };
  const size_t n = args.size();
  if ((name == "lpad" || name == "rpad") && (n == 2 || n == 3) && text_at(0) && int_at(1) &&
      (n == 2 || text_at(2))) {
    std::vector<SqlType> at = {Text(), SqlType::Integer()};
    if (n == 3) at.push_back(Text());
    return Resolve(r, name == "lpad" ? Lpad : Rpad, name == "lpad" ? "lpad" : "rpad", Text(), at);
  }
  if (name == "repeat" && n == 2 && text_at(0) && int_at(1))
    return Resolve(r, Repeat, "repeat", Text(), {Text(), SqlType::Integer()});
  if (name == "reverse" && n == 1 && text_at(0))
    return Resolve(r, Reverse, "reverse", Text(), {Text()});
  if (name == "initcap" && n == 1 && text_at(0))
    return Resolve(r, Initcap, "initcap", Text(), {Text()});
  if (name == "translate" && n == 3 && text_at(0) && text_at(1) && text_at(2))
    return Resolve(r, Translate, "translate", Text(), {Text(), Text(), Text()});
  if (name == "chr" && n == 1 && int_at(0))
    return Resolve(r, Chr, "chr", Text(), {SqlType::Integer()});
  if (name == "ascii" && n == 1 && text_at(0))
    return Resolve(r, Ascii, "ascii", SqlType::Integer(), {Text()});
  if ((name == "left" || name == "right") && n == 2 && text_at(0) && int_at(1)) {
    return Resolve(r, name == "left" ? Left : Right, name == "left" ? "left" : "right", Text(),
                   {Text(), SqlType::Integer()});
  }
  if ((name == "ltrim" || name == "rtrim" || name == "btrim") && (n == 1 || n == 2) && text_at(0) &&
      (n == 1 || text_at(1))) {
    std::vector<SqlType> at(n, Text());
    return Resolve(r,
                   name == "ltrim"   ? Ltrim
                   : name == "rtrim" ? Rtrim
                                     : Btrim,
                   name == "ltrim"   ? "ltrim"
                   : name == "rtrim" ? "rtrim"
                                     : "btrim",
                   Text(), at);
  }
  if (name == "md5" && n == 1 && (text_at(0) || args[0].id() == TypeId::kVarbinary))
    return Resolve(r, Md5Fn, "md5", Text(), {args[0].IsString() ? Text() : args[0]});
  if (name == "starts_with" && n == 2 && text_at(0) && text_at(1))
    return Resolve(r, StartsWith, "starts_with", SqlType::Boolean(), {Text(), Text()});
  if (name == "octet_length" && n == 1 && text_at(0))
    return Resolve(r, OctetLength, "octet_length", SqlType::Integer(), {Text()});
  if (name == "bit_length" && n == 1 && text_at(0))
    return Resolve(r, BitLength, "bit_length", SqlType::Integer(), {Text()});
  // Of bytea, in bytes (length, octet_length) or bits.
  if ((name == "length" || name == "octet_length" || name == "bit_length") && n == 1 &&
      args[0].IsBinary()) {
    return Resolve(r, name == "bit_length" ? BitLength : OctetLength,
                   name == "bit_length"     ? "bit_length"
                   : name == "octet_length" ? "octet_length"
                                            : "length",
                   SqlType::Integer(), {SqlType::Varbinary()});
  }
  if (name == "to_hex" && n == 1 && int_at(0)) {
    if (args[0].id() == TypeId::kBigInt)
      return Resolve(r, ToHex, "to_hex", Text(), {SqlType::BigInt()});
    return Resolve(r, ToHex32, "to_hex", Text(), {SqlType::Integer()});
  }
  if (name == "quote_literal" && n == 1)
    return Resolve(r, QuoteLiteralFn, "quote_literal", Text(), {Text()});
  if (name == "quote_ident" && n == 1 && text_at(0))
    return Resolve(r, QuoteIdentFn, "quote_ident", Text(), {Text()});
  if (name == "quote_nullable" && n == 1) {
    Resolve(r, QuoteNullable, "quote_nullable", Text(), {Text()});
    r->strict = false;
    return true;
  }
  // Their arguments as text, but booleans as their output gives them (t, f).
  auto output_types = [&](size_t from) {
    std::vector<SqlType> types(n, Text());
    for (size_t i = from; i < n; ++i) {
      if (args[i].id() == TypeId::kBoolean) types[i] = args[i];
    }
    return types;
  };
  if ((name == "concat" && n >= 1) || (name == "concat_ws" && n >= 2)) {
    Resolve(r, name == "concat" ? Concat : ConcatWs, name == "concat" ? "concat" : "concat_ws",
            Text(), output_types(name == "concat" ? 0 : 1));
    r->strict = false;
    return true;
  }
  if (name == "format" && n >= 1 && text_at(0)) {
    Resolve(r, Format, "format", Text(), output_types(1));
    r->strict = false;
    return true;
  }
  // concat(VARIADIC a), concat_ws(sep, VARIADIC a), format(f, VARIADIC a): the
  // binder names them so; the array's elements are text, or booleans.
  if ((name == "concat variadic" && n == 1) || (name == "concat_ws variadic" && n == 2) ||
      (name == "format variadic" && n == 2 && text_at(0))) {
    if (args[n - 1].id() != TypeId::kArray) return false;
    std::vector<SqlType> types(n, Text());
    types[n - 1] =
        args[n - 1].children()[0].id() == TypeId::kBoolean ? args[n - 1] : SqlType::Array(Text());
    const std::string base(name.substr(0, name.find(' ')));
    Resolve(r,
            base == "concat"      ? ConcatVariadic
            : base == "concat_ws" ? ConcatWsVariadic
                                  : FormatVariadic,
            base == "concat"      ? "concat"
            : base == "concat_ws" ? "concat_ws"
                                  : "format",
            Text(), types);
    r->strict = false;
    return true;
  }
  if (name == "substring" && n == 2 && text_at(0) && text_at(1)) {
    return Resolve(r, RegexSubstring, "substring", Text(), {Text(), Text()});
  }
  if (name == "substring" && n == 3 && text_at(0) && text_at(1) && text_at(2))
    return Resolve(r, SimilarSubstring, "substring", Text(), {Text(), Text(), Text()});
  if (name == "similar_to_escape" && (n == 1 || n == 2) && text_at(0) && (n == 1 || text_at(1)))
    return Resolve(r, SimilarToEscape, "similar_to_escape", Text(),
                   std::vector<SqlType>(n, Text()));
  if ((name == "~" || name == "!~" || name == "~*" || name == "!~*") && n == 2 && text_at(0) &&
      text_at(1)) {
    ScalarFn fn = name == "~"    ? RegexOp
                  : name == "!~" ? RegexOpNot
                  : name == "~*" ? RegexOpI
                                 : RegexOpNotI;
    return Resolve(r, fn,
                   name == "~"    ? "~"
                   : name == "!~" ? "!~"
                   : name == "~*" ? "~*"
                                  : "!~*",
                   SqlType::Boolean(), {Text(), Text()});
  }
  if (name == "like_escape" && n == 2 && text_at(0) && text_at(1))
    return Resolve(r, LikeEscape, "like_escape", Text(), {Text(), Text()});
  if (name == "regexp_replace" && (n == 3 || n == 4) && text_at(0) && text_at(1) && text_at(2) &&
      (n == 3 || text_at(3))) {
    return Resolve(r, RegexpReplace, "regexp_replace", Text(), std::vector<SqlType>(n, Text()));
  }
  if (name == "regexp_like" && (n == 2 || n == 3) && text_at(0) && text_at(1) &&
      (n == 2 || text_at(2))) {
    return Resolve(r, RegexpLike, "regexp_like", SqlType::Boolean(),
                   std::vector<SqlType>(n, Text()));
  }
  if (name == "regexp_count" && n == 2 && text_at(0) && text_at(1))
    return Resolve(r, RegexpCount, "regexp_count", SqlType::Integer(), {Text(), Text()});
  if (name == "regexp_count" && (n == 3 || n == 4) && text_at(0) && text_at(1) && int_at(2) &&
      (n == 3 || text_at(3))) {
    return Resolve(r, RegexpCountFrom, "regexp_count", SqlType::Integer(),
                   n == 3 ? std::vector<SqlType>{Text(), Text(), SqlType::BigInt()}
                          : std::vector<SqlType>{Text(), Text(), SqlType::BigInt(), Text()});
  }
  // regexp_instr and regexp_substr: integers, then flags, then an integer.
  if ((name == "regexp_instr" || name == "regexp_substr") && n >= 2 && text_at(0) && text_at(1)) {
    const bool instr = name == "regexp_instr";
    const size_t flags_at = instr ? 5 : 4;
    if (n > flags_at + 2) return false;
    std::vector<SqlType> types = {Text(), Text()};
    for (size_t i = 2; i < n; ++i) {
      if (i == flags_at ? !text_at(i) : !int_at(i)) return false;
      types.push_back(i == flags_at ? Text() : SqlType::BigInt());
    }
    return instr ? Resolve(r, RegexpInstr, "regexp_instr", SqlType::Integer(), std::move(types))
                 : Resolve(r, RegexpSubstr, "regexp_substr", Text(), std::move(types));
  }
  if (name == "regexp_replace" && n >= 4 && n <= 6 && text_at(0) && text_at(1) && text_at(2) &&
      int_at(3) && (n < 5 || int_at(4)) && (n < 6 || text_at(5))) {
    std::vector<SqlType> types = {Text(), Text(), Text(), SqlType::BigInt()};
    if (n > 4) types.push_back(SqlType::BigInt());
    if (n > 5) types.push_back(Text());
    return Resolve(r, RegexpReplaceFrom, "regexp_replace", Text(), std::move(types));
  }
  if (name == "regexp_match" && (n == 2 || n == 3) && text_at(0) && text_at(1) &&
      (n == 2 || text_at(2))) {
    return Resolve(r, RegexpMatch, "regexp_match", SqlType::Array(Text()),
                   std::vector<SqlType>(n, Text()));
  }
  if (name == "regexp_split_to_array" && (n == 2 || n == 3) && text_at(0) && text_at(1) &&
      (n == 2 || text_at(2))) {
    return Resolve(r, RegexpSplitToArray, "regexp_split_to_array", SqlType::Array(Text()),
                   std::vector<SqlType>(n, Text()));
  }
  if (name == "string_to_array" && (n == 2 || n == 3) && text_at(0) && text_at(1) &&
      (n == 2 || text_at(2))) {
    Resolve(r, StringToArray, "string_to_array", SqlType::Array(Text()),
            std::vector<SqlType>(n, Text()));
    r->strict = false;
    return true;
  }
  if (name == "overlay" && (n == 3 || n == 4) && text_at(0) && text_at(1) && int_at(2) &&
      (n == 3 || int_at(3))) {
    std::vector<SqlType> at = {Text(), Text(), SqlType::Integer()};
    if (n == 4) at.push_back(SqlType::Integer());
    return Resolve(r, Overlay, "overlay", Text(), at);
  }
  return false;
}

namespace {

// float4send and float8send: the value's bits, big-endian, as bytea.
Status Float4Send(const SqlType&, const Value* a, size_t, Value* out) {
  const float f = static_cast<float>(a[0].double_value());
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  std::string s(4, '\0');
  for (int i = 0; i < 4; ++i) s[static_cast<size_t>(i)] = static_cast<char>(bits >> (24 - 8 * i));
  *out = Value::String(std::move(s));
  return Status::OK();
}
Status Float8Send(const SqlType&, const Value* a, size_t, Value* out) {
  const double f = a[0].double_value();
  uint64_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[static_cast<size_t>(i)] = static_cast<char>(bits >> (56 - 8 * i));
  *out = Value::String(std::move(s));
  return Status::OK();
}

}  // namespace

bool ResolveMath(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r) {
  const size_t n = args.size();
  auto num_at = [&](size_t i) { return i < n && IsNumeric(args[i]); };
  const SqlType d = SqlType::Double();
  if (name == "float4send" && n == 1 && num_at(0)) {
    return Resolve(r, Float4Send, "float4send", SqlType::Varbinary(), {SqlType::Real()});
  }
  if (name == "float8send" && n == 1 && num_at(0)) {
    return Resolve(r, Float8Send, "float8send", SqlType::Varbinary(), {d});
  }
  struct Named {
    const char* name;
    ScalarFn fn;
  };
  static const Named kOne[] = {
      {"sin", Sin},         {"cos", Cos},         {"tan", Tan},     {"cot", Cot},    {"asin", Asin},
      {"acos", Acos},       {"atan", Atan},       {"sinh", Sinh},   {"cosh", Cosh},  {"tanh", Tanh},
      {"asinh", Asinh},     {"acosh", Acosh},     {"atanh", Atanh}, {"cbrt", Cbrt},  {"||/", Cbrt},
      {"degrees", Degrees}, {"radians", Radians}, {"sind", Sind},   {"cosd", Cosd},  {"tand", Tand},
      {"cotd", Cotd},       {"asind", Asind},     {"acosd", Acosd}, {"atand", Atand}};
  if (n == 1 && num_at(0)) {
    for (const Named& f : kOne) {
      if (name == f.name) return Resolve(r, f.fn, f.name, d, {d});
    }
  }
  if (name == "|/" && n == 1 && num_at(0)) {
    // PostgreSQL's |/ is of double precision only (sqrt() has a numeric
    // form too).
    ResolvedFn sq;
    if (ResolveTextAndMath("sqrt", {d}, &sq)) {
      *r = sq;
      return true;
    }
  }
  if (name == "^" && n == 2 && num_at(0) && num_at(1)) {
    return ResolveTextAndMath("power", args, r);
  }
  if (name == "atan2" && n == 2 && num_at(0) && num_at(1))
    return Resolve(r, Atan2, "atan2", d, {d, d});
  if (name == "atan2d" && n == 2 && num_at(0) && num_at(1))
    return Resolve(r, Atan2d, "atan2d", d, {d, d});
  if (name == "pi" && n == 0) return Resolve(r, Pi, "pi", d, {});
  if ((name == "log" || name == "log10") && n == 1 && num_at(0))
    return Resolve(r, Log10, "log", d, {d});
  auto exact = [&](size_t i) {
    return num_at(i) && args[i].id() != TypeId::kReal && args[i].id() != TypeId::kDouble;
  };
  if (name == "log" && n == 2 && exact(0) && exact(1)) return Resolve(r, LogBase, "log", d, {d, d});
  if ((name == "gcd" || name == "lcm") && n == 2 && args[0].IsInteger() && args[1].IsInteger()) {
    SqlType t = args[0].id() == TypeId::kBigInt || args[1].id() == TypeId::kBigInt
                    ? SqlType::BigInt()
                    : SqlType::Integer();
    return Resolve(r, name == "gcd" ? Gcd : Lcm, name == "gcd" ? "gcd" : "lcm", t, {t, t});
  }
  if ((name == "gcd" || name == "lcm") && n == 2 && exact(0) && exact(1)) {
    const SqlType t = SqlType::Numeric();
    return Resolve(r, name == "gcd" ? GcdDecimal : LcmDecimal, name == "gcd" ? "gcd" : "lcm", t,
                   {t, t});
  }
  if ((name == "&" || name == "|" || name == "#") && n == 2 && args[0].IsInteger() &&
      args[1].IsInteger()) {
    const SqlType& t = args[0].id() >= args[1].id() ? args[0] : args[1];
    const SqlType w = t.WithNullable(true);
    return Resolve(r,
                   name == "&"   ? BitAnd
                   : name == "|" ? BitOr
                                 : BitXor,
                   name == "&"   ? "&"
                   : name == "|" ? "|"
                                 : "#",
                   w, {w, w});
  }
  if (name == "~" && n == 1 && args[0].IsInteger()) {
    const SqlType w = args[0].WithNullable(true);
    return Resolve(r, BitNot, "~", w, {w});
  }
  if ((name == "<<" || name == ">>") && n == 2 && args[0].IsInteger() && args[1].IsInteger()) {
    const SqlType w = args[0].WithNullable(true);
    return Resolve(r, name == "<<" ? ShiftLeft : ShiftRight, name == "<<" ? "<<" : ">>", w,
                   {w, SqlType::Integer()});
  }
  if (name == "factorial" && n == 1 && args[0].IsInteger())
    return Resolve(r, Factorial, "factorial", SqlType::Numeric(), {SqlType::BigInt()});
  if (name == "div" && n == 2 && num_at(0) && num_at(1) && args[0].id() != TypeId::kReal &&
      args[0].id() != TypeId::kDouble && args[1].id() != TypeId::kReal &&
      args[1].id() != TypeId::kDouble) {
    auto dec = [](const SqlType& t) {
      return t.id() == TypeId::kDecimal ? t : SqlType::Decimal(38, 0);
    };
    return Resolve(r, DivTrunc, "div", SqlType::Numeric(), {dec(args[0]), dec(args[1])});
  }
  if (name == "width_bucket" && n == 4 && num_at(0) && num_at(1) && num_at(2) &&
      args[3].IsInteger()) {
    return Resolve(r, WidthBucket, "width_bucket", SqlType::Integer(),
                   {d, d, d, SqlType::Integer()});
  }
  // Of an integer, as of the numeric it casts to.
  const bool numeric_arg = n == 1 && (args[0].id() == TypeId::kDecimal || args[0].IsInteger());
  const SqlType as_numeric =
      n == 1 && args[0].IsInteger() ? SqlType::Decimal(38, 0) : (n == 1 ? args[0] : d);
  if ((name == "scale" || name == "min_scale") && numeric_arg) {
    return Resolve(r, name == "scale" ? ScaleFn : MinScale, name == "scale" ? "scale" : "min_scale",
                   SqlType::Integer(), {as_numeric});
  }
  if (name == "trim_scale" && numeric_arg)
    return Resolve(r, TrimScale, "trim_scale", SqlType::Numeric(), {as_numeric});
  if (name == "trunc" && (n == 1 || n == 2) && args[0].id() == TypeId::kDecimal &&
      (n == 1 || args[1].IsInteger())) {
    std::vector<SqlType> at = {args[0]};
    if (n == 2) at.push_back(SqlType::Integer());
    const bool wide = args[0].dynamic_scale() || args[0].precision() > kMaxDecimalDigits;
    return Resolve(r, TruncDec, "trunc",
                   n == 1 && !wide ? SqlType::Decimal(38, 0) : SqlType::Numeric(), at);
  }
  if (name == "trunc" && n == 2 && args[0].IsInteger() && args[1].IsInteger()) {
    return Resolve(r, TruncDec, "trunc", SqlType::Numeric(),
                   {SqlType::Decimal(38, 0), SqlType::Integer()});
  }
  if (name == "trunc" && n == 1 &&
      (args[0].id() == TypeId::kReal || args[0].id() == TypeId::kDouble))
    return Resolve(r, TruncD, "trunc", d, {d});
  return false;
}

}  // namespace sluice::sql
