// SQL/JSON path expressions, after PostgreSQL's jsonpath: the grammar of
// jsonpath_gram.y read by recursive descent, and the evaluation of
// jsonpath_exec.c over parsed documents (JsonNode).
#include "sql/json_path.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <regex>
#include <string>
#include <utility>

#include "types/big_decimal.h"

namespace sluice::sql {

// ---- the tree of a path.

enum class PathOp {
  // An accessor chain: a primary, then its accessors.
  kChain,
  // Primaries.
  kRoot,
  kCurrent,
  kVariable,
  kLast,
  kLiteral,
  // Arithmetic.
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kPlus,
  kMinus,
  // Predicates.
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kAnd,
  kOr,
  kNot,
  kExists,
  kLikeRegex,
  kStartsWith,
  kIsUnknown,
};

struct PathExpr;
using PathExprPtr = std::unique_ptr<PathExpr>;

struct Accessor {
  enum class Kind { kKey, kAnyKey, kSubscripts, kAnyIndex, kRecursive, kFilter, kMethod };
  Kind kind = Kind::kKey;
  std::string name;                                             // the key, or the method
  std::string argument;                                         // .datetime("template")
  std::vector<std::pair<PathExprPtr, PathExprPtr>> subscripts;  // from, to (or null)
  PathExprPtr filter;
  int min_level = 0, max_level = -1;  // .**{m to n}; -1 is last
};

struct PathExpr {
  PathOp op = PathOp::kChain;
  PathExprPtr primary;  // kChain
  std::vector<Accessor> accessors;
  std::string name;       // kVariable; kLikeRegex's pattern
  std::string flags;      // kLikeRegex's, as given
  bool expanded = false;  // the x flag
  JsonNode literal;  // kLiteral
  std::regex regex;  // kLikeRegex
  PathExprPtr left, right;
};

struct JsonPath {
  bool strict = false;
  PathExprPtr expr;
};

namespace {

bool IsPredicate(PathOp op) { return op >= PathOp::kEq; }

// ---- reading a path.

class PathParser {
 public:
  explicit PathParser(std::string_view s) : s_(s) {}

  Result<std::shared_ptr<const JsonPath>> Parse() {
    auto path = std::make_shared<JsonPath>();
    Skip();
    if (Word("strict")) {
      path->strict = true;
    } else {
      Word("lax");
    }
    SLUICE_ASSIGN_OR_RETURN(path->expr, Or());
    Skip();
    if (at_ < s_.size()) return Error("syntax error at or near \"" + Rest() + "\"");
    return std::shared_ptr<const JsonPath>(std::move(path));
  }

 private:
  Status Error(const std::string& what) const {
    return Status::InvalidArgument(what + " of jsonpath input");
  }
  std::string Rest() const { return std::string(s_.substr(at_, 12)); }
  void Skip() {
    while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_]))) ++at_;
  }
  bool Peek(std::string_view t) {
    Skip();
    return s_.substr(at_, t.size()) == t;
  }
  bool Take(std::string_view t) {
    if (!Peek(t)) return false;
    at_ += t.size();
    return true;
  }
  static bool IdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
  // A keyword as a whole word.
  bool Word(std::string_view w) {
    Skip();
    if (s_.substr(at_, w.size()) != w) return false;
    if (at_ + w.size() < s_.size() && IdentChar(s_[at_ + w.size()])) return false;
    at_ += w.size();
    return true;
  }
  std::string Ident() {
    Skip();
    const size_t start = at_;
    while (at_ < s_.size() && IdentChar(s_[at_])) ++at_;
    return std::string(s_.substr(start, at_ - start));
  }
  Result<std::string> QuotedString() {
    // After the opening quote.
    std::string out;
    while (at_ < s_.size() && s_[at_] != '"') {
      char c = s_[at_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_ >= s_.size()) break;
      c = s_[at_++];
      switch (c) {
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'v':
          out += '\v';
          break;
        case 'x':
        case 'u': {
          // \xHH, \uHHHH, \u{H...}: a code point, written as UTF-8.
          const bool braces = c == 'u' && at_ < s_.size() && s_[at_] == '{';
          if (braces) ++at_;
          size_t len = 0;
          while (at_ + len < s_.size() &&
                 std::isxdigit(static_cast<unsigned char>(s_[at_ + len])) &&
                 (braces ? len < 6 : len < (c == 'x' ? 2u : 4u)))
            ++len;
          if (len == 0 || (!braces && c == 'u' && len != 4) ||
              (braces && (at_ + len >= s_.size() || s_[at_ + len] != '}')))
            return Error("invalid Unicode escape sequence");
          const unsigned long cp =
              std::strtoul(std::string(s_.substr(at_, len)).c_str(), nullptr, 16);
          at_ += len + (braces ? 1 : 0);
          if (cp == 0 || cp > 0x10FFFF) return Error("invalid Unicode escape sequence");
          if (cp < 0x80) {
            out += static_cast<char>(cp);
          } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          } else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          } else {
            out += static_cast<char>(0xF0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          }
          break;
        }
        default:
          out += c;
      }
    }
    if (at_ >= s_.size()) return Error("unexpected end of quoted string");
    ++at_;
    return out;
  }

  Result<PathExprPtr> Or() {
    return LeftAssociative({{"||", PathOp::kOr}}, &PathParser::And, /*predicates=*/true);
  }
  Result<PathExprPtr> And() {
    return LeftAssociative({{"&&", PathOp::kAnd}}, &PathParser::Not, /*predicates=*/true);
  }
  Result<PathExprPtr> Not() {
    if (Peek("!") && !Peek("!=")) {
      Take("!");
      SLUICE_ASSIGN_OR_RETURN(PathExprPtr x, Not());
      if (!IsPredicate(x->op)) return Error("syntax error at or near \"!\"");
      auto n = std::make_unique<PathExpr>();
      n->op = PathOp::kNot;
      n->left = std::move(x);
      return n;
    }
    return Comparison();
  }
  // Both sides of && and || are predicates; both of a comparison and of
  // arithmetic are not.
  Result<PathExprPtr> Binary(PathOp op, PathExprPtr l, PathExprPtr r, bool predicates) {
    if (IsPredicate(l->op) != predicates || IsPredicate(r->op) != predicates)
      return Error("syntax error at or near \"" + Rest() + "\"");
    auto n = std::make_unique<PathExpr>();
    n->op = op;
    n->left = std::move(l);
    n->right = std::move(r);
    return n;
  }
  Result<PathExprPtr> Comparison() {
    SLUICE_ASSIGN_OR_RETURN(PathExprPtr l, Additive());
    static const std::pair<const char*, PathOp> kOps[] = {
        {"==", PathOp::kEq}, {"!=", PathOp::kNe}, {"<>", PathOp::kNe}, {"<=", PathOp::kLe},
        {">=", PathOp::kGe}, {"<", PathOp::kLt},  {">", PathOp::kGt}};
    for (const auto& [t, op] : kOps) {
      if (Take(t)) {
        SLUICE_ASSIGN_OR_RETURN(PathExprPtr r, Additive());
        return Binary(op, std::move(l), std::move(r), false);
      }
    }
    if (Word("starts")) {
      if (!Word("with")) return Error("syntax error at or near \"" + Rest() + "\"");
      SLUICE_ASSIGN_OR_RETURN(PathExprPtr r, Additive());
      return Binary(PathOp::kStartsWith, std::move(l), std::move(r), false);
    }
    if (Word("like_regex")) {
      if (IsPredicate(l->op) || !Take("\""))
        return Error("syntax error at or near \"" + Rest() + "\"");
      auto n = std::make_unique<PathExpr>();
      n->op = PathOp::kLikeRegex;
      n->left = std::move(l);
      SLUICE_ASSIGN_OR_RETURN(n->name, QuotedString());
      std::string flags;
      if (Word("flag")) {
        if (!Take("\"")) return Error("syntax error at or near \"" + Rest() + "\"");
        SLUICE_ASSIGN_OR_RETURN(flags, QuotedString());
      }
      n->flags = flags;
      SLUICE_RETURN_IF_ERROR(CompileRegex(n.get(), flags));
      return n;
    }
    return l;
  }
  // XQuery's flags, as PostgreSQL reads them: i ignores case, s lets . match
  // a newline, m anchors ^ and $ at lines, q takes the pattern literally.
  Status CompileRegex(PathExpr* n, const std::string& flags) {
    bool icase = false, dotall = false, multiline = false, quote = false;
    for (char c : flags) {
      if (c == 'i') {
        icase = true;
      } else if (c == 's') {
        dotall = true;
      } else if (c == 'm') {
        multiline = true;
      } else if (c == 'q') {
        quote = true;
      } else if (c == 'x') {
        n->expanded = true;  // refused when the predicate runs, as PostgreSQL does
      } else {
        return Status::InvalidArgument(std::string("invalid input syntax for type jsonpath: ") +
                                       "Unrecognized flag character \"" + c +
                                       "\" in LIKE_REGEX predicate.");
      }
    }
    std::string pattern;
    for (size_t i = 0; i < n->name.size(); ++i) {
      const char c = n->name[i];
      if (quote && std::strchr("\\^$.|?*+()[]{}/", c) != nullptr) {
        pattern += '\\';
        pattern += c;
      } else if (!quote && c == '\\' && i + 1 < n->name.size()) {
        // The escapes that mean other things in ECMAScript: \b a backspace,
        // \B a backslash, \y and \Y (not) at a word's edge.
        const char e = n->name[++i];
        pattern += e == 'b'   ? std::string("\\x08")
                   : e == 'B' ? std::string("\\\\")
                   : e == 'y' ? std::string("\\b")
                   : e == 'Y' ? std::string("\\B")
                              : std::string{c, e};
      } else if (!quote && c == '.' && dotall) {
        pattern += "[\\s\\S]";
      } else {
        pattern += c;
      }
    }
    try {
      auto options = std::regex::ECMAScript;
      if (icase) options |= std::regex::icase;
      if (multiline) options |= std::regex::multiline;
      n->regex = std::regex(pattern, options);
    } catch (const std::regex_error& e) {
      return Status::InvalidArgument("invalid regular expression: " + std::string(e.what()));
    }
    return Status::OK();
  }
  Result<PathExprPtr> Additive() {
    return LeftAssociative({{"+", PathOp::kAdd}, {"-", PathOp::kSub}}, &PathParser::Multiplicative,
                           /*predicates=*/false);
  }
  Result<PathExprPtr> Multiplicative() {
    return LeftAssociative({{"*", PathOp::kMul}, {"/", PathOp::kDiv}, {"%", PathOp::kMod}},
                           &PathParser::Unary, /*predicates=*/false);
  }
  // One level of binary operators (of predicates, or of arithmetic):
  // operands of the level below, joined by this level's operators, from the
  // left.
  Result<PathExprPtr> LeftAssociative(
      std::initializer_list<std::pair<std::string_view, PathOp>> ops,
      Result<PathExprPtr> (PathParser::*operand)(), bool predicates) {
    SLUICE_ASSIGN_OR_RETURN(PathExprPtr l, (this->*operand)());
    for (;;) {
      const auto op =
          std::find_if(ops.begin(), ops.end(), [&](const auto& o) { return Take(o.first); });
      if (op == ops.end()) return l;
      SLUICE_ASSIGN_OR_RETURN(PathExprPtr r, (this->*operand)());
      SLUICE_ASSIGN_OR_RETURN(l, Binary(op->second, std::move(l), std::move(r), predicates));
    }
  }
  Result<PathExprPtr> Unary() {
    if (Peek("+") || Peek("-")) {
      const PathOp op = s_[at_] == '+' ? PathOp::kPlus : PathOp::kMinus;
      ++at_;
      SLUICE_ASSIGN_OR_RETURN(PathExprPtr x, Unary());
      if (IsPredicate(x->op)) return Error("syntax error at or near \"" + Rest() + "\"");
      if (x->op == PathOp::kLiteral && x->literal.kind == JsonNode::Kind::kNumber) {
        // A signed number is a number, as PostgreSQL folds it.
        if (op == PathOp::kMinus) {
          BigDecimal d;
          BigDecimal::Parse(x->literal.text, &d);
          x->literal.text = d.Negated().ToString();
        }
        return x;
      }
      auto n = std::make_unique<PathExpr>();
      n->op = op;
      n->left = std::move(x);
      return n;
    }
    return Chain();
  }
  Result<PathExprPtr> Number() {
    // PostgreSQL's forms: 1, 1.5, 1. and .5, each with an exponent or not.
    const size_t start = at_;
    auto digit = [&](size_t i) {
      return i < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i]));
    };
    while (digit(at_)) ++at_;
    if (at_ < s_.size() && s_[at_] == '.') {
      const size_t next = at_ + 1;
      const bool exponent =
          next < s_.size() && (s_[next] == 'e' || s_[next] == 'E') &&
          (digit(next + 1) || ((next + 1 < s_.size()) &&
                               (s_[next + 1] == '+' || s_[next + 1] == '-') && digit(next + 2)));
      // "1.x" is 1 and the key x; any other "1." is the number 1.
      if (digit(next) || exponent || next >= s_.size() || !IdentChar(s_[next])) {
        ++at_;
        while (digit(at_)) ++at_;
      }
    }
    if (at_ < s_.size() && (s_[at_] == 'e' || s_[at_] == 'E')) {
      size_t e = at_ + 1;
      if (e < s_.size() && (s_[e] == '+' || s_[e] == '-')) ++e;
      if (e < s_.size() && std::isdigit(static_cast<unsigned char>(s_[e]))) {
        at_ = e;
        while (at_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[at_]))) ++at_;
      }
    }
    if (at_ < s_.size() && IdentChar(s_[at_])) return Error("trailing junk after numeric literal");
    BigDecimal d;
    if (!BigDecimal::Parse(s_.substr(start, at_ - start), &d)) return Error("syntax error");
    auto n = std::make_unique<PathExpr>();
    n->op = PathOp::kLiteral;
    n->literal.kind = JsonNode::Kind::kNumber;
    n->literal.text = d.ToString();
    return n;
  }
  Result<PathExprPtr> Primary() {
    Skip();
    auto n = std::make_unique<PathExpr>();
    if (at_ >= s_.size()) return Error("syntax error at end");
    const char c = s_[at_];
    if (c == '$') {
      ++at_;
      if (at_ < s_.size() && s_[at_] == '"') {
        ++at_;
        n->op = PathOp::kVariable;
        SLUICE_ASSIGN_OR_RETURN(n->name, QuotedString());
      } else if (at_ < s_.size() && IdentChar(s_[at_])) {
        n->op = PathOp::kVariable;
        n->name = Ident();
      } else {
        n->op = PathOp::kRoot;
      }
      return n;
    }
    if (c == '@') {
      ++at_;
      if (filter_depth_ == 0) return Error("@ is not allowed in root expressions");
      n->op = PathOp::kCurrent;
      return n;
    }
    if (c == '"') {
      ++at_;
      n->op = PathOp::kLiteral;
      n->literal.kind = JsonNode::Kind::kString;
      SLUICE_ASSIGN_OR_RETURN(n->literal.text, QuotedString());
      return n;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && at_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[at_ + 1]))))
      return Number();
    if (c == '(') {
      ++at_;
      SLUICE_ASSIGN_OR_RETURN(PathExprPtr x, Or());
      if (!Take(")")) return Error("syntax error at or near \"" + Rest() + "\"");
      if (Word("is")) {
        if (!Word("unknown") || !IsPredicate(x->op))
          return Error("syntax error at or near \"" + Rest() + "\"");
        n->op = PathOp::kIsUnknown;
        n->left = std::move(x);
        return n;
      }
      return x;
    }
    if (Word("exists")) {
      if (!Take("(")) return Error("syntax error at or near \"" + Rest() + "\"");
      SLUICE_ASSIGN_OR_RETURN(PathExprPtr x, Or());
      if (!Take(")") || IsPredicate(x->op))
        return Error("syntax error at or near \"" + Rest() + "\"");
      n->op = PathOp::kExists;
      n->left = std::move(x);
      return n;
    }
    const bool is_true = Word("true");
    if (is_true || Word("false")) {
      n->op = PathOp::kLiteral;
      n->literal.kind = JsonNode::Kind::kBool;
      n->literal.boolean = is_true;
      return n;
    }
    if (Word("null")) {
      n->op = PathOp::kLiteral;
      return n;
    }
    if (Word("last")) {
      if (subscript_depth_ == 0) return Error("LAST is allowed only in array subscripts");
      n->op = PathOp::kLast;
      return n;
    }
    return Error("syntax error at or near \"" + Rest() + "\"");
  }
  Result<PathExprPtr> Chain() {
    SLUICE_ASSIGN_OR_RETURN(PathExprPtr primary, Primary());
    // A predicate in parentheses may be followed by accessors: they read
    // its boolean.
    auto chain = std::make_unique<PathExpr>();
    chain->primary = std::move(primary);
    for (;;) {
      Skip();
      if (Take(".")) {
        Accessor a;
        if (Take("**")) {
          a.kind = Accessor::Kind::kRecursive;
          if (Take("{")) {
            SLUICE_ASSIGN_OR_RETURN(a.min_level, Level());
            a.max_level = a.min_level;
            if (Word("to")) {
              SLUICE_ASSIGN_OR_RETURN(a.max_level, Level());
            }
            if (!Take("}")) return Error("syntax error at or near \"" + Rest() + "\"");
          }
        } else if (Take("*")) {
          a.kind = Accessor::Kind::kAnyKey;
        } else if (Take("\"")) {
          SLUICE_ASSIGN_OR_RETURN(a.name, QuotedString());
        } else {
          Skip();
          if (at_ < s_.size() && s_[at_] == '$') {
            return Error("syntax error at or near \"" + Rest() + "\"");
          }
          a.name = Ident();
          if (a.name.empty()) return Error("syntax error at or near \"" + Rest() + "\"");
          if (Take("(")) {
            // .datetime("template") takes a template.
            if (a.name == "datetime" && Take("\"")) {
              SLUICE_ASSIGN_OR_RETURN(a.argument, QuotedString());
            }
            if (!Take(")")) return Error("syntax error at or near \"" + Rest() + "\"");
            static const char* kMethods[] = {"type",  "size", "double",   "ceiling",
                                             "floor", "abs",  "keyvalue", "datetime"};
            bool known = false;
            for (const char* m : kMethods) known = known || a.name == m;
            if (!known) return Error("syntax error at or near \"" + a.name + "(\"");
            a.kind = Accessor::Kind::kMethod;
          }
        }
        chain->accessors.push_back(std::move(a));
      } else if (Take("[")) {
        Accessor a;
        if (Take("*")) {
          if (!Take("]")) return Error("syntax error at or near \"" + Rest() + "\"");
          a.kind = Accessor::Kind::kAnyIndex;
        } else {
          a.kind = Accessor::Kind::kSubscripts;
          ++subscript_depth_;
          for (;;) {
            SLUICE_ASSIGN_OR_RETURN(PathExprPtr from, Or());
            PathExprPtr to;
            if (Word("to")) {
              SLUICE_ASSIGN_OR_RETURN(to, Or());
            }
            a.subscripts.emplace_back(std::move(from), std::move(to));
            if (Take(",")) continue;
            if (Take("]")) break;
            return Error("syntax error at or near \"" + Rest() + "\"");
          }
          --subscript_depth_;
        }
        chain->accessors.push_back(std::move(a));
      } else if (Peek("?") && !Peek("?|") && !Peek("?&")) {
        Take("?");
        if (!Take("(")) return Error("syntax error at or near \"" + Rest() + "\"");
        ++filter_depth_;
        SLUICE_ASSIGN_OR_RETURN(PathExprPtr p, Or());
        --filter_depth_;
        if (!Take(")")) return Error("syntax error at or near \"" + Rest() + "\"");
        if (!IsPredicate(p->op)) return Error("syntax error at or near \")\"");
        Accessor a;
        a.kind = Accessor::Kind::kFilter;
        a.filter = std::move(p);
        chain->accessors.push_back(std::move(a));
      } else {
        break;
      }
    }
    if (chain->accessors.empty()) return std::move(chain->primary);
    return chain;
  }
  Result<int> Level() {
    if (Word("last")) return -1;
    Skip();
    const size_t start = at_;
    while (at_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[at_]))) ++at_;
    if (start == at_) return Error("syntax error at or near \"" + Rest() + "\"");
    return std::atoi(std::string(s_.substr(start, at_ - start)).c_str());
  }

  std::string_view s_;
  size_t at_ = 0;
  int filter_depth_ = 0, subscript_depth_ = 0;
};

// ---- evaluating a path.

enum class Truth { kFalse, kTrue, kUnknown };

using Items = std::vector<JsonNode>;

JsonNode Bool(bool b) {
  JsonNode n;
  n.kind = JsonNode::Kind::kBool;
  n.boolean = b;
  return n;
}
JsonNode Number(const BigDecimal& d) {
  JsonNode n;
  n.kind = JsonNode::Kind::kNumber;
  n.text = d.ToString();
  return n;
}
JsonNode String(std::string s) {
  JsonNode n;
  n.kind = JsonNode::Kind::kString;
  n.text = std::move(s);
  return n;
}
BigDecimal Decimal(const JsonNode& n) {
  BigDecimal d;
  BigDecimal::Parse(n.text, &d);
  return d;
}

const char* OpText(PathOp op) {
  switch (op) {
    case PathOp::kAdd:
    case PathOp::kPlus:
      return "+";
    case PathOp::kSub:
    case PathOp::kMinus:
      return "-";
    case PathOp::kMul:
      return "*";
    case PathOp::kDiv:
      return "/";
    default:
      return "%";
  }
}

class Evaluator {
 public:
  Evaluator(bool strict, const JsonNode& root, const JsonNode* vars, const PathExpr* exists_only)
      : strict_(strict), root_(root), vars_(vars), exists_only_(exists_only) {}

  // The items of `e` over the current item `at`; `unwrap`: in lax mode,
  // an array result gives its elements (as operands of comparisons and
  // arithmetic are read).
  Status Eval(const PathExpr& e, const JsonNode& at, Items* out, bool unwrap = false) {
    if (IsPredicate(e.op)) {
      SLUICE_ASSIGN_OR_RETURN(Truth t, Predicate(e, at));
      JsonNode n;
      if (t != Truth::kUnknown) n = Bool(t == Truth::kTrue);
      out->push_back(std::move(n));
      return Status::OK();
    }
    Items items;
    switch (e.op) {
      case PathOp::kChain: {
        // Depth first, as PostgreSQL goes: what an error stops short of
        // has its items already (a silent call answers those).
        Items starts;
        SLUICE_RETURN_IF_ERROR(Eval(*e.primary, at, &starts));
        for (const JsonNode& x : starts) SLUICE_RETURN_IF_ERROR(Follow(e, 0, x, out, unwrap));
        return Status::OK();
      }
      case PathOp::kRoot:
        items.push_back(root_);
        break;
      case PathOp::kCurrent:
        items.push_back(at);
        break;
      case PathOp::kVariable: {
        const JsonNode* v = nullptr;
        if (vars_ != nullptr) {
          for (const auto& [k, x] : vars_->members) {
            if (k == e.name) v = &x;
          }
        }
        // Not an error of the path's own: raised even in a filter, and
        // when the call is silent, as PostgreSQL raises it.
        if (v == nullptr)
          return Status::NotFound("could not find jsonpath variable \"" + e.name + "\"");
        items.push_back(*v);
        break;
      }
      case PathOp::kLast: {
        if (!in_subscript_)
          return Status::InvalidArgument("evaluating jsonpath LAST outside of array subscript");
        BigDecimal d;
        BigDecimal::Parse(std::to_string(last_), &d);
        items.push_back(Number(d));
        break;
      }
      case PathOp::kLiteral:
        items.push_back(e.literal);
        break;
      case PathOp::kPlus:
      case PathOp::kMinus: {
        Items xs;
        SLUICE_RETURN_IF_ERROR(Eval(*e.left, at, &xs, true));
        for (JsonNode& x : xs) {
          if (x.kind != JsonNode::Kind::kNumber) {
            // Asked only whether the path gives anything, PostgreSQL passes
            // over what its last step cannot take.
            if (&e == exists_only_ && !strict_) continue;
            return Status::InvalidArgument(std::string("operand of unary jsonpath operator ") +
                                           OpText(e.op) + " is not a numeric value");
          }
          Emit(e.op == PathOp::kMinus ? Number(Decimal(x).Negated()) : std::move(x), out, unwrap);
        }
        return Status::OK();
      }
      default: {
        // Binary arithmetic: one number on each side.
        Items l, r;
        SLUICE_RETURN_IF_ERROR(Eval(*e.left, at, &l, true));
        SLUICE_RETURN_IF_ERROR(Eval(*e.right, at, &r, true));
        if (l.size() != 1 || l[0].kind != JsonNode::Kind::kNumber) {
          return Status::InvalidArgument(std::string("left operand of jsonpath operator ") +
                                         OpText(e.op) + " is not a single numeric value");
        }
        if (r.size() != 1 || r[0].kind != JsonNode::Kind::kNumber) {
          return Status::InvalidArgument(std::string("right operand of jsonpath operator ") +
                                         OpText(e.op) + " is not a single numeric value");
        }
        const BigDecimal a = Decimal(l[0]), b = Decimal(r[0]);
        if ((e.op == PathOp::kDiv || e.op == PathOp::kMod) && b.is_zero())
          return Status::InvalidArgument("division by zero");
        BigDecimal v = e.op == PathOp::kAdd   ? BigDecimal::Add(a, b)
                       : e.op == PathOp::kSub ? BigDecimal::Sub(a, b)
                       : e.op == PathOp::kMul ? BigDecimal::Mul(a, b)
                       : e.op == PathOp::kDiv ? BigDecimal::Div(a, b, BigDecimal::DivScale(a, b))
                                              : BigDecimal::Mod(a, b);
        items.push_back(Number(v));
      }
    }
    for (JsonNode& x : items) Emit(std::move(x), out, unwrap);
    return Status::OK();
  }

  void Emit(JsonNode x, Items* out, bool unwrap) {
    if (unwrap && !strict_ && x.kind == JsonNode::Kind::kArray) {
      for (JsonNode& y : x.items) out->push_back(std::move(y));
    } else {
      out->push_back(std::move(x));
    }
  }

  // Accessor k of chain `e` and those after it, over item `x`.
  Status Follow(const PathExpr& e, size_t k, const JsonNode& x, Items* out, bool unwrap) {
    if (k == e.accessors.size()) {
      Emit(x, out, unwrap);
      return Status::OK();
    }
    Items next;
    const Status s = Access(e.accessors[k], x, &next);
    for (const JsonNode& y : next) SLUICE_RETURN_IF_ERROR(Follow(e, k + 1, y, out, unwrap));
    return s;
  }

  Result<Truth> Predicate(const PathExpr& e, const JsonNode& at) {
    switch (e.op) {
      case PathOp::kAnd: {
        SLUICE_ASSIGN_OR_RETURN(Truth l, Predicate(*e.left, at));
        if (l == Truth::kFalse) return Truth::kFalse;
        SLUICE_ASSIGN_OR_RETURN(Truth r, Predicate(*e.right, at));
        if (r == Truth::kTrue) return l;
        return r;
      }
      case PathOp::kOr: {
        SLUICE_ASSIGN_OR_RETURN(Truth l, Predicate(*e.left, at));
        if (l == Truth::kTrue) return Truth::kTrue;
        SLUICE_ASSIGN_OR_RETURN(Truth r, Predicate(*e.right, at));
        if (r == Truth::kFalse) return l;
        return r;
      }
      case PathOp::kNot: {
        SLUICE_ASSIGN_OR_RETURN(Truth x, Predicate(*e.left, at));
        return x == Truth::kUnknown ? x : x == Truth::kTrue ? Truth::kFalse : Truth::kTrue;
      }
      case PathOp::kIsUnknown: {
        SLUICE_ASSIGN_OR_RETURN(Truth x, Predicate(*e.left, at));
        return x == Truth::kUnknown ? Truth::kTrue : Truth::kFalse;
      }
      case PathOp::kExists: {
        Items xs;
        Status s = Eval(*e.left, at, &xs);
        if (Fatal(s)) return s;
        if (!s.ok()) return Truth::kUnknown;
        return xs.empty() ? Truth::kFalse : Truth::kTrue;
      }
      default:
        break;
    }
    // Comparisons and the string predicates: over every pair of the
    // sides' items; an error of either side, or a pair that cannot be
    // compared, is unknown (at once in strict mode).
    if (e.op == PathOp::kLikeRegex && e.expanded) {
      return Status::Unimplemented(
          "the flag \"x\" of like_regex (expanded regular expressions) is not supported yet");
    }
    Items l, r;
    Status s = Eval(*e.left, at, &l, true);
    if (s.ok() && e.right != nullptr) s = Eval(*e.right, at, &r, true);
    if (Fatal(s)) return s;
    if (!s.ok()) return Truth::kUnknown;
    if (e.op == PathOp::kLikeRegex) r.push_back(JsonNode());
    if (e.op == PathOp::kStartsWith && (r.size() != 1 || r[0].kind != JsonNode::Kind::kString))
      return Truth::kUnknown;
    bool found = false, error = false;
    for (const JsonNode& x : l) {
      for (const JsonNode& y : r) {
        const Truth t = Compare(e, x, y);
        if (t == Truth::kUnknown) {
          if (strict_) return Truth::kUnknown;
          error = true;
        } else if (t == Truth::kTrue) {
          if (!strict_) return Truth::kTrue;
          found = true;
        }
      }
    }
    return found ? Truth::kTrue : error ? Truth::kUnknown : Truth::kFalse;
  }

  // An error that no predicate turns into unknown: a missing variable, or
  // what is not supported yet.
  static bool Fatal(const Status& s) {
    return s.code() == StatusCode::kNotFound || s.code() == StatusCode::kUnimplemented;
  }

  Truth Compare(const PathExpr& e, const JsonNode& x, const JsonNode& y) {
    if (e.op == PathOp::kLikeRegex) {
      if (x.kind != JsonNode::Kind::kString) return Truth::kUnknown;
      return std::regex_search(x.text, e.regex) ? Truth::kTrue : Truth::kFalse;
    }
    if (e.op == PathOp::kStartsWith) {
      if (x.kind != JsonNode::Kind::kString) return Truth::kUnknown;
      return x.text.compare(0, y.text.size(), y.text) == 0 ? Truth::kTrue : Truth::kFalse;
    }
    if (x.kind != y.kind) {
      // Null against anything else: unequal; other kinds do not compare.
      if (x.kind == JsonNode::Kind::kNull || y.kind == JsonNode::Kind::kNull)
        return e.op == PathOp::kNe ? Truth::kTrue : Truth::kFalse;
      return Truth::kUnknown;
    }
    int cmp = 0;
    switch (x.kind) {
      case JsonNode::Kind::kNull:
        break;
      case JsonNode::Kind::kBool:
        cmp = x.boolean == y.boolean ? 0 : x.boolean ? 1 : -1;
        break;
      case JsonNode::Kind::kNumber:
        cmp = BigDecimal::Compare(Decimal(x), Decimal(y));
        break;
      case JsonNode::Kind::kString:
        cmp = x.text.compare(y.text);  // by bytes: UTF-8's code point order
        break;
      default:
        return Truth::kUnknown;  // arrays and objects do not compare
    }
    bool r = false;
    switch (e.op) {
      case PathOp::kEq:
        r = cmp == 0;
        break;
      case PathOp::kNe:
        r = cmp != 0;
        break;
      case PathOp::kLt:
        r = cmp < 0;
        break;
      case PathOp::kLe:
        r = cmp <= 0;
        break;
      case PathOp::kGt:
        r = cmp > 0;
        break;
      default:
        r = cmp >= 0;
    }
    return r ? Truth::kTrue : Truth::kFalse;
  }

  // A structural error: an empty result in lax mode.
  Status Structural(const std::string& what) {
    if (strict_) return Status::InvalidArgument(what);
    return Status::OK();
  }

  // `unwrapped`: x is an element of an array that lax mode unwrapped, which
  // is not unwrapped again.
  Status Access(const Accessor& a, const JsonNode& x, Items* out, bool unwrapped = false) {
    using Kind = JsonNode::Kind;
    const bool array = x.kind == Kind::kArray;
    switch (a.kind) {
      case Accessor::Kind::kKey:
      case Accessor::Kind::kAnyKey:
        if (array && !strict_ && !unwrapped) {
          for (const JsonNode& y : x.items) SLUICE_RETURN_IF_ERROR(Access(a, y, out, true));
          return Status::OK();
        }
        if (x.kind != Kind::kObject) {
          return Structural(a.kind == Accessor::Kind::kKey
                                ? "jsonpath member accessor can only be applied to an object"
                                : "jsonpath wildcard member accessor can only be applied to an "
                                  "object");
        }
        if (a.kind == Accessor::Kind::kAnyKey) {
          for (const auto& [k, v] : x.members) out->push_back(v);
          return Status::OK();
        }
        for (const auto& [k, v] : x.members) {
          if (k == a.name) {
            out->push_back(v);
            return Status::OK();
          }
        }
        return Structural("JSON object does not contain key \"" + a.name + "\"");
      case Accessor::Kind::kAnyIndex:
        if (!array) {
          if (strict_) {
            return Structural("jsonpath wildcard array accessor can only be applied to an array");
          }
          out->push_back(x);
          return Status::OK();
        }
        for (const JsonNode& y : x.items) out->push_back(y);
        return Status::OK();
      case Accessor::Kind::kSubscripts: {
        if (!array && strict_)
          return Structural("jsonpath array accessor can only be applied to an array");
        // In lax mode a scalar or object is an array of one.
        const std::vector<JsonNode> one =
            array ? std::vector<JsonNode>{} : std::vector<JsonNode>{x};
        const std::vector<JsonNode>& elems = array ? x.items : one;
        const int64_t size = static_cast<int64_t>(elems.size());
        const int64_t saved = last_;
        const bool saved_in = in_subscript_;
        last_ = size - 1;
        in_subscript_ = true;
        for (const auto& [from, to] : a.subscripts) {
          auto lo_or = Index(*from, x);
          auto hi_or = to != nullptr ? Index(*to, x) : lo_or;
          if (!lo_or.ok() || !hi_or.ok()) {
            last_ = saved;
            in_subscript_ = saved_in;
            return !lo_or.ok() ? lo_or.status() : hi_or.status();
          }
          int64_t lo = *lo_or, hi = *hi_or;
          if (lo < 0 || hi >= size || lo > hi) {
            if (strict_) {
              last_ = saved;
              in_subscript_ = saved_in;
              return Status::InvalidArgument("jsonpath array subscript is out of bounds");
            }
            lo = std::max<int64_t>(lo, 0);
            hi = std::min<int64_t>(hi, size - 1);
          }
          for (int64_t i = lo; i <= hi; ++i) out->push_back(elems[static_cast<size_t>(i)]);
        }
        last_ = saved;
        in_subscript_ = saved_in;
        return Status::OK();
      }
      case Accessor::Kind::kRecursive:
        Recurse(a, x, 0, out);
        return Status::OK();
      case Accessor::Kind::kFilter: {
        if (array && !strict_ && !unwrapped) {
          for (const JsonNode& y : x.items) SLUICE_RETURN_IF_ERROR(Access(a, y, out, true));
          return Status::OK();
        }
        SLUICE_ASSIGN_OR_RETURN(Truth t, Predicate(*a.filter, x));
        if (t == Truth::kTrue) out->push_back(x);
        return Status::OK();
      }
      case Accessor::Kind::kMethod:
        return Method(a.name, x, out, unwrapped);
    }
    return Status::OK();
  }

  // An array subscript: one number, truncated to an integer.
  Result<int64_t> Index(const PathExpr& e, const JsonNode& at) {
    Items xs;
    SLUICE_RETURN_IF_ERROR(Eval(e, at, &xs, true));
    if (xs.size() != 1 || xs[0].kind != JsonNode::Kind::kNumber)
      return Status::InvalidArgument("jsonpath array subscript is not a single numeric value");
    const BigDecimal d = Decimal(xs[0]).Trunc(0);
    int128 v = 0;
    if (!d.ToInt128(&v) || v > INT32_MAX || v < INT32_MIN)
      return Status::InvalidArgument("jsonpath array subscript is out of integer range");
    return static_cast<int64_t>(v);
  }

  // .** : the item itself (level 0) and every value within it, each before
  // what it holds, at the levels asked for.
  void Recurse(const Accessor& a, const JsonNode& x, int level, Items* out) {
    // {last} alone: the values that hold none, at whatever level.
    const bool leaf = x.kind != JsonNode::Kind::kArray && x.kind != JsonNode::Kind::kObject;
    const bool in_range =
        a.min_level < 0 ? leaf : level >= a.min_level && (a.max_level < 0 || level <= a.max_level);
    if (in_range) out->push_back(x);
    if (a.max_level >= 0 && level >= a.max_level) return;
    if (x.kind == JsonNode::Kind::kArray) {
      for (const JsonNode& y : x.items) Recurse(a, y, level + 1, out);
    } else if (x.kind == JsonNode::Kind::kObject) {
      for (const auto& [k, v] : x.members) Recurse(a, v, level + 1, out);
    }
  }

  Status Method(const std::string& m, const JsonNode& x, Items* out, bool unwrapped = false) {
    using Kind = JsonNode::Kind;
    if (m == "type") {
      out->push_back(String(JsonKindName(x)));
      return Status::OK();
    }
    if (m == "size") {
      if (x.kind != Kind::kArray) {
        if (strict_)
          return Status::InvalidArgument(
              "jsonpath item method .size() can only be applied to an array");
        out->push_back(Number(BigDecimal::FromInt128(1, 0)));
        return Status::OK();
      }
      out->push_back(Number(BigDecimal::FromInt128(static_cast<int128>(x.items.size()), 0)));
      return Status::OK();
    }
    if (x.kind == Kind::kArray && !strict_ && !unwrapped) {
      for (const JsonNode& y : x.items) SLUICE_RETURN_IF_ERROR(Method(m, y, out, true));
      return Status::OK();
    }
    if (m == "double") {
      double d = 0;
      if (x.kind == Kind::kNumber || x.kind == Kind::kString) {
        char* end = nullptr;
        d = std::strtod(x.text.c_str(), &end);
        if (x.text.empty() || *end != '\0') {
          return Status::InvalidArgument(
              "string argument of jsonpath item method .double() is not a valid representation "
              "of a double precision number");
        }
      } else {
        return Status::InvalidArgument(
            "jsonpath item method .double() can only be applied to a string or numeric value");
      }
      if (!std::isfinite(d))
        return Status::InvalidArgument(
            "NaN or Infinity is not allowed for jsonpath item method .double()");
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", d);
      // The shortest text that reads back as d, as float8 prints it.
      for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, d);
        if (std::strtod(buf, nullptr) == d) break;
      }
      BigDecimal v;
      BigDecimal::Parse(buf, &v);
      out->push_back(Number(v));
      return Status::OK();
    }
    if (m == "abs" || m == "floor" || m == "ceiling") {
      if (x.kind != Kind::kNumber) {
        return Status::InvalidArgument("jsonpath item method ." + m +
                                       "() can only be applied to a numeric value");
      }
      const BigDecimal d = Decimal(x);
      if (m == "abs") {
        out->push_back(Number(d.Abs()));
      } else {
        BigDecimal t = d.Trunc(0);
        const int c = BigDecimal::Compare(d, t);
        if (m == "floor" && c < 0) t = BigDecimal::Sub(t, BigDecimal::FromInt128(1, 0));
        if (m == "ceiling" && c > 0) t = BigDecimal::Add(t, BigDecimal::FromInt128(1, 0));
        out->push_back(Number(t));
      }
      return Status::OK();
    }
    return Status::Unimplemented("the jsonpath item method ." + m + "() is not supported yet");
  }

 private:
  bool strict_;
  const JsonNode& root_;
  const JsonNode* vars_;
  const PathExpr* exists_only_;  // the path's top, when only its existence is asked
  int64_t last_ = -1;
  bool in_subscript_ = false;
};

// ---- printing a path, as PostgreSQL's jsonpath_out does: keys quoted,
// operators spaced, parentheses where the operators' priorities need them.

int Priority(PathOp op) {
  switch (op) {
    case PathOp::kOr:
      return 0;
    case PathOp::kAnd:
      return 1;
    case PathOp::kEq:
    case PathOp::kNe:
    case PathOp::kLt:
    case PathOp::kLe:
    case PathOp::kGt:
    case PathOp::kGe:
    case PathOp::kStartsWith:
      return 2;
    case PathOp::kAdd:
    case PathOp::kSub:
      return 3;
    case PathOp::kMul:
    case PathOp::kDiv:
    case PathOp::kMod:
      return 4;
    case PathOp::kPlus:
    case PathOp::kMinus:
      return 5;
    default:
      return 6;
  }
}

const char* BinaryText(PathOp op) {
  switch (op) {
    case PathOp::kOr:
      return "||";
    case PathOp::kAnd:
      return "&&";
    case PathOp::kEq:
      return "==";
    case PathOp::kNe:
      return "!=";
    case PathOp::kLt:
      return "<";
    case PathOp::kLe:
      return "<=";
    case PathOp::kGt:
      return ">";
    case PathOp::kGe:
      return ">=";
    case PathOp::kStartsWith:
      return "starts with";
    default:
      return OpText(op);
  }
}

void Print(const PathExpr& e, bool brackets, std::string* out);

void PrintOperand(const PathExpr& operand, PathOp op, std::string* out) {
  Print(operand, Priority(operand.op) <= Priority(op), out);
}

void PrintAccessor(const Accessor& a, std::string* out) {
  switch (a.kind) {
    case Accessor::Kind::kKey:
      *out += "." + JsonQuote(a.name);
      return;
    case Accessor::Kind::kAnyKey:
      *out += ".*";
      return;
    case Accessor::Kind::kAnyIndex:
      *out += "[*]";
      return;
    case Accessor::Kind::kSubscripts:
      *out += '[';
      for (size_t i = 0; i < a.subscripts.size(); ++i) {
        if (i) *out += ',';
        Print(*a.subscripts[i].first, false, out);
        if (a.subscripts[i].second != nullptr) {
          *out += " to ";
          Print(*a.subscripts[i].second, false, out);
        }
      }
      *out += ']';
      return;
    case Accessor::Kind::kRecursive: {
      auto level = [](int l) { return l < 0 ? std::string("last") : std::to_string(l); };
      *out += ".**";
      if (a.min_level == 0 && a.max_level < 0) return;
      if (a.min_level == a.max_level) {
        *out += "{" + level(a.min_level) + "}";
      } else {
        *out += "{" + level(a.min_level) + " to " + level(a.max_level) + "}";
      }
      return;
    }
    case Accessor::Kind::kFilter:
      *out += "?(";
      Print(*a.filter, false, out);
      *out += ')';
      return;
    case Accessor::Kind::kMethod:
      *out += "." + a.name + "(" + (a.argument.empty() ? "" : JsonQuote(a.argument)) + ")";
      return;
  }
}

void Print(const PathExpr& e, bool brackets, std::string* out) {
  switch (e.op) {
    case PathOp::kChain: {
      // A number, or an operator, before accessors is in parentheses.
      const PathExpr& p = *e.primary;
      if (p.op == PathOp::kLiteral && p.literal.kind == JsonNode::Kind::kNumber) {
        *out += "(" + p.literal.text + ")";
      } else {
        Print(p, Priority(p.op) < 6 || IsPredicate(p.op), out);
      }
      for (const Accessor& a : e.accessors) PrintAccessor(a, out);
      return;
    }
    case PathOp::kRoot:
      *out += '$';
      return;
    case PathOp::kCurrent:
      *out += '@';
      return;
    case PathOp::kLast:
      *out += "last";
      return;
    case PathOp::kVariable:
      *out += "$" + JsonQuote(e.name);
      return;
    case PathOp::kLiteral:
      *out += e.literal.kind == JsonNode::Kind::kString ? JsonQuote(e.literal.text)
                                                        : JsonText(e.literal, JsonStyle::kJsonb);
      return;
    case PathOp::kNot:
      *out += "!(";
      Print(*e.left, false, out);
      *out += ')';
      return;
    case PathOp::kIsUnknown:
      *out += '(';
      Print(*e.left, false, out);
      *out += ") is unknown";
      return;
    case PathOp::kExists:
      *out += "exists (";
      Print(*e.left, false, out);
      *out += ')';
      return;
    case PathOp::kPlus:
    case PathOp::kMinus:
      if (brackets) *out += '(';
      *out += e.op == PathOp::kPlus ? '+' : '-';
      PrintOperand(*e.left, e.op, out);
      if (brackets) *out += ')';
      return;
    case PathOp::kLikeRegex: {
      if (brackets) *out += '(';
      PrintOperand(*e.left, e.op, out);
      *out += " like_regex " + JsonQuote(e.name);
      std::string flags;
      for (char f : {'i', 's', 'm', 'x', 'q'}) {
        if (e.flags.find(f) != std::string::npos) flags += f;
      }
      if (!flags.empty()) *out += " flag \"" + flags + "\"";
      if (brackets) *out += ')';
      return;
    }
    default:
      if (brackets) *out += '(';
      PrintOperand(*e.left, e.op, out);
      *out += std::string(" ") + BinaryText(e.op) + " ";
      PrintOperand(*e.right, e.op, out);
      if (brackets) *out += ')';
  }
}

}  // namespace

Result<std::string> JsonPathText(std::string_view text) {
  SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<const JsonPath> path, ParseJsonPath(text));
  std::string out = path->strict ? "strict " : "";
  Print(*path->expr, true, &out);
  return out;
}

Result<std::shared_ptr<const JsonPath>> ParseJsonPath(std::string_view text) {
  auto r = PathParser(text).Parse();
  if (!r.ok() && r.status().code() == StatusCode::kInvalidArgument &&
      r.status().message().find("jsonpath") == std::string::npos) {
    return Status::InvalidArgument(r.status().message());
  }
  return r;
}

Result<JsonPathItems> EvalJsonPath(const JsonPath& path, const JsonNode& doc, const JsonNode* vars,
                                   bool silent, bool exists_only) {
  if (vars != nullptr && vars->kind != JsonNode::Kind::kObject)
    return Status::InvalidArgument("\"vars\" argument is not an object");
  Evaluator ev(path.strict, doc, vars, exists_only ? path.expr.get() : nullptr);
  JsonPathItems out;
  Status s = ev.Eval(*path.expr, doc, &out.items);
  if (!s.ok()) {
    if (!silent || Evaluator::Fatal(s)) {
      if (s.code() == StatusCode::kNotFound) return Status::InvalidArgument(s.message());
      return s;
    }
    out.failed = true;  // the items so far stay, as PostgreSQL's do
  }
  return out;
}

}  // namespace sluice::sql
