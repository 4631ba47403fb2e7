// A small lexer over SQL text, enough to find the clauses of a statement
// whose ends its parse tree does not give (where an expression ends), and
// to quote names for the statements built from them.
#pragma once

#include <string>
#include <string_view>

namespace sluice::sql {

// The first character at or after `i` that is not space or a comment.
size_t SkipSpace(std::string_view s, size_t i);

// Whether `c` may be part of a word (an unquoted name or keyword).
bool WordChar(char c);

// The end of the token at `i`: a quoted identifier or string, a
// dollar-quoted string, a word, or one character.
size_t TokenEnd(std::string_view s, size_t i);

// The `)` that closes the `(` at `open`; npos if none.
size_t MatchingParen(std::string_view s, size_t open);

// Where keyword `kw` (lower case) is, outside parentheses, from `i` on;
// npos if it is not.
size_t FindKeyword(std::string_view s, size_t i, std::string_view kw);

// The end of a possibly qualified, possibly quoted name at `i`.
size_t NameEnd(std::string_view s, size_t i);

// `s` without its trailing space and semicolons.
std::string TrimEnd(std::string_view s);

// `s` in lower case (ASCII letters only, as SQL folds keywords and names).
std::string AsciiLower(std::string_view s);

// A name as SQL reads it: a quoted one as written, others in lower case.
std::string Unquote(std::string_view name);

// `name` in double quotes, its quotes doubled.
std::string QuoteIdentifier(const std::string& name);

// `s` as a string constant: in quotes, each quote doubled.
std::string QuoteString(std::string_view s);

}  // namespace sluice::sql
