#include "sql/sql_text.h"

#include <strings.h>

#include <cctype>

namespace sluice::sql {
namespace {
constexpr size_t npos = std::string::npos;
}  // namespace

size_t SkipSpace(std::string_view s, size_t i) {
  for (;;) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (s.compare(i, 2, "--") == 0) {
      i = s.find('\n', i);
      if (i == npos) return s.size();
      continue;
    }
    if (s.compare(i, 2, "/*") == 0) {
      i = s.find("*/", i + 2);
      if (i == npos) return s.size();
      i += 2;
      continue;
    }
    return i;
  }
}

bool WordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         static_cast<unsigned char>(c) >= 0x80;
}

// The end of the token at `i`: a quoted identifier or string, a
// dollar-quoted string, a word, or one character.
size_t TokenEnd(std::string_view s, size_t i) {
  if (i >= s.size()) return i;
  const char c = s[i];
  if (c == '"' || c == '\'') {
    for (size_t j = i + 1; j < s.size(); ++j) {
      if (s[j] != c) continue;
      if (j + 1 < s.size() && s[j + 1] == c) {
        ++j;
        continue;
      }
      return j + 1;
    }
    return s.size();
  }
  if (c == '$') {
    size_t j = i + 1;
    while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
    if (j < s.size() && s[j] == '$' && !std::isdigit(static_cast<unsigned char>(s[i + 1]))) {
      const std::string_view tag = s.substr(i, j + 1 - i);
      const size_t end = s.find(tag, j + 1);
      return end == npos ? s.size() : end + tag.size();
    }
  }
  if (WordChar(c)) {
    size_t j = i;
    while (j < s.size() && WordChar(s[j])) ++j;
    return j;
  }
  return i + 1;
}

size_t MatchingParen(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; (i = SkipSpace(s, i)) < s.size(); i = TokenEnd(s, i)) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')' && --depth == 0) return i;
  }
  return npos;
}

// Where keyword `kw` is, outside parentheses, from `i` on.
size_t FindKeyword(std::string_view s, size_t i, std::string_view kw) {
  int depth = 0;
  for (; (i = SkipSpace(s, i)) < s.size(); i = TokenEnd(s, i)) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')') --depth;
    const size_t e = TokenEnd(s, i);
    if (depth == 0 && e - i == kw.size() && strncasecmp(s.data() + i, kw.data(), kw.size()) == 0) {
      return i;
    }
  }
  return npos;
}

// The end of a possibly qualified, possibly quoted name at `i`.
size_t NameEnd(std::string_view s, size_t i) {
  for (;;) {
    i = TokenEnd(s, i);
    const size_t j = SkipSpace(s, i);
    if (j < s.size() && s[j] == '.') {
      i = SkipSpace(s, j + 1);
      continue;
    }
    return i;
  }
}

std::string TrimEnd(std::string_view s) {
  while (!s.empty() && (std::isspace(static_cast<unsigned char>(s.back())) || s.back() == ';')) {
    s.remove_suffix(1);
  }
  return std::string(s);
}

std::string Unquote(std::string_view name) {
  if (name.size() >= 2 && name.front() == '"') {
    std::string out;
    for (size_t i = 1; i + 1 < name.size(); ++i) {
      out.push_back(name[i]);
      if (name[i] == '"') ++i;
    }
    return out;
  }
  return AsciiLower(name);
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string QuoteIdentifier(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

std::string QuoteString(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
  }
  return out + "'";
}

}  // namespace sluice::sql
