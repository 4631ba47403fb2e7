#include "sql/plpgsql.h"

#include <pg_query.h>

#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sql/plpgsql_internal.h"

namespace sluice::sql {
namespace plpgsql {
namespace {

// ---------------------------------------------------------------- scanning

bool IdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool IdentChar(char c) {
  return IdentStart(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '$';
}

// A token of PL/pgSQL text: an identifier (`text` its name: lower-cased
// unless quoted), a literal or a punctuation mark. Comments are skipped.
struct Token {
  enum Kind { kIdent, kLiteral, kPunct } kind;
  std::string text;
  size_t begin, end;
};

std::vector<Token> Tokenize(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const size_t e = s.find("*/", i + 2);
      i = e == std::string_view::npos ? s.size() : e + 2;
    } else if (c == '\'' || ((c == 'e' || c == 'E') && i + 1 < s.size() && s[i + 1] == '\'')) {
      const bool escapes = c != '\'';
      const size_t b = i;
      i += escapes ? 2 : 1;
      while (i < s.size()) {
        if (escapes && s[i] == '\\') {
          i += 2;
        } else if (s[i] == '\'') {
          if (i + 1 < s.size() && s[i + 1] == '\'') {
            i += 2;
          } else {
            ++i;
            break;
          }
        } else {
          ++i;
        }
      }
      out.push_back({Token::kLiteral, "", b, std::min(i, s.size())});
    } else if (c == '$' && i + 1 < s.size() &&
               !std::isdigit(static_cast<unsigned char>(s[i + 1]))) {
      // $tag$ ... $tag$
      size_t j = i + 1;
      while (j < s.size() && IdentChar(s[j]) && s[j] != '$') ++j;
      if (j < s.size() && s[j] == '$') {
        const std::string_view tag = s.substr(i, j - i + 1);
        const size_t e = s.find(tag, j + 1);
        const size_t end = e == std::string_view::npos ? s.size() : e + tag.size();
        out.push_back({Token::kLiteral, "", i, end});
        i = end;
      } else {
        out.push_back({Token::kPunct, "$", i, i + 1});
        ++i;
      }
    } else if (c == '"') {
      std::string name;
      const size_t b = i++;
      while (i < s.size()) {
        if (s[i] == '"') {
          if (i + 1 < s.size() && s[i + 1] == '"') {
            name += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        name += s[i++];
      }
      out.push_back({Token::kIdent, name, b, i});
    } else if (IdentStart(c)) {
      const size_t b = i;
      while (i < s.size() && IdentChar(s[i])) ++i;
      std::string name(s.substr(b, i - b));
      for (char& x : name) x = static_cast<char>(std::tolower(static_cast<unsigned char>(x)));
      out.push_back({Token::kIdent, name, b, i});
    } else {
      static const char* kTwo[] = {":=", "<<", ">>", "::", "=>", "<=", ">=", "<>", "!="};
      size_t n = 1;
      for (const char* two : kTwo) {
        if (s.substr(i, 2) == two) n = 2;
      }
      out.push_back({Token::kPunct, std::string(s.substr(i, n)), i, i + n});
      i += n;
    }
  }
  return out;
}

// libpg_query's PL/pgSQL parser knows no types, so every variable is a
// scalar to it and `rec.field := e` does not parse. Such an assignment at
// the start of a statement is rewritten as `rec['field'] := e`, which
// CompilePlpgsqlFunction reads back as a field assignment when rec is a
// composite variable. `rec` may not be a block label (or the function's
// name, the outermost label): `label.var := e` is kept.
std::string RewriteFieldAssignments(std::string_view body, const std::string& function) {
  const std::vector<Token> t = Tokenize(body);
  std::set<std::string> labels{function};
  for (size_t i = 0; i + 2 < t.size(); ++i) {
    if (t[i].text == "<<" && t[i + 1].kind == Token::kIdent && t[i + 2].text == ">>")
      labels.insert(t[i + 1].text);
  }
  static const std::set<std::string> kBeforeStatement = {";",    "begin", "then",   "else",
                                                         "loop", ">>",    "declare"};
  std::string out(body);
  for (size_t i = t.size(); i-- > 0;) {
    if (i + 3 >= t.size() || t[i].kind != Token::kIdent || t[i + 1].text != "." ||
        t[i + 2].kind != Token::kIdent || (t[i + 3].text != ":=" && t[i + 3].text != "=")) {
      continue;
    }
    if (i > 0 && (t[i - 1].kind != Token::kPunct && t[i - 1].kind != Token::kIdent)) continue;
    if (i > 0 && kBeforeStatement.count(t[i - 1].text) == 0) continue;
    if (labels.count(t[i].text)) continue;
    std::string field;
    for (char c : t[i + 2].text) {
      field += c;
      if (c == '\'') field += '\'';
    }
    out.replace(t[i + 1].begin, t[i + 2].end - t[i + 1].begin, "['" + field + "']");
  }
  return out;
}

// ------------------------------------------------------------ parse phase

// Checks the statements of a body, as libpg_query's PL/pgSQL parser gives
// them, and parses each expression's text (a PLpgSQL_expr's "query") into
// its parse tree, kept beside the text as "tree". ParseFunction uses one
// per CREATE FUNCTION; the first statement Sluice does not compile is
// recorded (unsupported()), a syntax error is returned.
// Thread safety: none needed, it lives on one thread.
class BodyParser {
 public:
  BodyParser(std::string_view sql, const Json& create, const std::string& name)
      : sql_(sql), create_(create), name_(name) {}

  // `SELECT <text>`: its one value's expression, or a scalar subquery.
  Status ParseExpr(const std::string& text, Json* out) {
    const std::string query = "SELECT " + text;
    auto tree = ParseSql(query);
    if (!tree.ok()) {
      return SqlError(sql_, create_,
                      "function " + name_ + ": cannot parse the expression \"" + text + "\"");
    }
    const Json& stmts = (*tree)["stmts"];
    if (stmts.size() != 1 || !stmts[0]["stmt"].contains("SelectStmt")) {
      return SqlError(sql_, create_,
                      "function " + name_ + ": \"" + text + "\" is not an expression");
    }
    Json select = stmts[0]["stmt"]["SelectStmt"];
    FillNegativeConstants(&select, query);
    DropLocations(&select);
    size_t keys = 0;
    for (const char* k : {"targetList", "limitOption", "op"}) keys += select.contains(k) ? 1 : 0;
    if (keys == select.size() && select["targetList"].size() == 1 &&
        !select["targetList"][0]["ResTarget"].contains("name")) {
      *out = select["targetList"][0]["ResTarget"]["val"];
    } else {
      *out = Json{{"SubLink",
                   {{"subLinkType", "EXPR_SUBLINK"},
                    {"subselect", {{"SelectStmt", select}}},
                    {"location", -1}}}};
    }
    return Status::OK();
  }

  Status ParseQuery(const std::string& text, Json* out) {
    auto tree = ParseSql(text);
    if (!tree.ok()) {
      return SqlError(sql_, create_, "function " + name_ + ": cannot parse \"" + text + "\"");
    }
    const Json& stmts = (*tree)["stmts"];
    if (stmts.size() != 1 || !stmts[0]["stmt"].contains("SelectStmt")) {
      return Unsupported("RETURN QUERY of anything but a SELECT");
    }
    *out = stmts[0]["stmt"]["SelectStmt"];
    FillNegativeConstants(out, text);
    DropLocations(out);
    return Status::OK();
  }

  // An expression node {"PLpgSQL_expr": {"query": ...}}: its tree beside.
  Status Expr(Json* e) {
    if (!e->is_object() || !e->contains("PLpgSQL_expr")) return Status::OK();
    Json& body = (*e)["PLpgSQL_expr"];
    return ParseExpr(body.value("query", ""), &body["tree"]);
  }

  // "target := value" (or "target = value"): the target's tree and the
  // value's.
  Status Assign(Json* stmt) {
    Json& e = (*stmt)["expr"]["PLpgSQL_expr"];
    const std::string text = e.value("query", "");
    size_t at = std::string::npos;
    size_t len = 0;
    int depth = 0;
    for (const Token& t : Tokenize(text)) {
      if (t.text == "[" || t.text == "(") ++depth;
      if (t.text == "]" || t.text == ")") --depth;
      if (depth == 0 && (t.text == ":=" || t.text == "=")) {
        at = t.begin;
        len = t.end - t.begin;
        break;
      }
    }
    if (at == std::string::npos) {
      return SqlError(sql_, create_, "function " + name_ + ": cannot parse \"" + text + "\"");
    }
    SLUICE_RETURN_IF_ERROR(ParseExpr(text.substr(0, at), &e["target"]));
    return ParseExpr(text.substr(at + len), &e["tree"]);
  }

  // Checks a statement and adds its expressions' trees; sets unsupported_
  // for one Sluice does not compile.
  Status Statement(Json* stmt) {
    const std::string k = stmt->begin().key();
    Json& s = stmt->begin().value();
    static const std::map<std::string, std::string> kRefused = {
        {"PLpgSQL_stmt_loop", "LOOP"},
        {"PLpgSQL_stmt_while", "WHILE loops"},
        {"PLpgSQL_stmt_fori", "FOR loops"},
        {"PLpgSQL_stmt_fors", "FOR loops"},
        {"PLpgSQL_stmt_forc", "FOR loops"},
        {"PLpgSQL_stmt_dynfors", "FOR loops"},
        {"PLpgSQL_stmt_foreach_a", "FOREACH loops"},
        {"PLpgSQL_stmt_exit", "EXIT and CONTINUE"},
        {"PLpgSQL_stmt_dynexecute", "EXECUTE"},
        {"PLpgSQL_stmt_perform", "PERFORM"},
        {"PLpgSQL_stmt_call", "CALL"},
        {"PLpgSQL_stmt_commit", "COMMIT"},
        {"PLpgSQL_stmt_rollback", "ROLLBACK"},
        {"PLpgSQL_stmt_open", "cursors"},
        {"PLpgSQL_stmt_fetch", "cursors"},
        {"PLpgSQL_stmt_close", "cursors"},
        {"PLpgSQL_stmt_getdiag", "GET DIAGNOSTICS"},
        {"PLpgSQL_stmt_execsql", "SQL statements (SELECT INTO, INSERT, UPDATE, DELETE)"},
    };
    if (auto it = kRefused.find(k); it != kRefused.end()) return Unsupported(it->second);
    if (k == "PLpgSQL_stmt_block") {
      if (s.contains("exceptions")) return Unsupported("EXCEPTION blocks");
      return List(s, "body");
    }
    if (k == "PLpgSQL_stmt_assign") return Assign(&s);
    if (k == "PLpgSQL_stmt_if") {
      SLUICE_RETURN_IF_ERROR(Expr(s, "cond"));
      SLUICE_RETURN_IF_ERROR(List(s, "then_body"));
      if (s.contains("elsif_list")) {
        for (Json& e : s["elsif_list"]) {
          Json& b = e["PLpgSQL_if_elsif"];
          SLUICE_RETURN_IF_ERROR(Expr(b, "cond"));
          SLUICE_RETURN_IF_ERROR(List(b, "stmts"));
        }
      }
      return List(s, "else_body");
    }
    if (k == "PLpgSQL_stmt_case") {
      SLUICE_RETURN_IF_ERROR(Expr(s, "t_expr"));
      if (s.contains("case_when_list")) {
        for (Json& w : s["case_when_list"]) {
          Json& b = w["PLpgSQL_case_when"];
          SLUICE_RETURN_IF_ERROR(Expr(b, "expr"));
          SLUICE_RETURN_IF_ERROR(List(b, "stmts"));
        }
      }
      return List(s, "else_stmts");
    }
    if (k == "PLpgSQL_stmt_return" || k == "PLpgSQL_stmt_return_next") return Expr(s, "expr");
    if (k == "PLpgSQL_stmt_return_query") {
      if (!s.contains("query")) return Unsupported("RETURN QUERY EXECUTE");
      Json& q = s["query"]["PLpgSQL_expr"];
      return ParseQuery(q.value("query", ""), &q["tree"]);
    }
    if (k == "PLpgSQL_stmt_raise") {
      if (!s.contains("message") && !s.contains("condname") && !s.contains("options")) {
        return Unsupported("RAISE without a message");
      }
      if (s.contains("params")) {
        for (Json& p : s["params"]) SLUICE_RETURN_IF_ERROR(Expr(&p));
      }
      if (s.contains("options")) {
        for (Json& o : s["options"])
          SLUICE_RETURN_IF_ERROR(Expr(o["PLpgSQL_raise_option"], "expr"));
      }
      return Status::OK();
    }
    if (k == "PLpgSQL_stmt_assert") {
      SLUICE_RETURN_IF_ERROR(Expr(s, "cond"));
      return Expr(s, "message");
    }
    return Unsupported("statements of kind " + k);
  }

  // The expression at `key` of `node`, if any.
  Status Expr(Json& node, const char* key) {
    return node.contains(key) ? Expr(&node[key]) : Status::OK();
  }

  // The statements at `key` of `node`, if any.
  Status List(Json& node, const char* key) {
    if (!node.contains(key) || !node[key].is_array()) return Status::OK();
    for (Json& s : node[key]) {
      SLUICE_RETURN_IF_ERROR(Statement(&s));
      if (!unsupported_.empty()) return Status::OK();
    }
    return Status::OK();
  }

  Status Unsupported(const std::string& what) {
    if (unsupported_.empty()) unsupported_ = what + " in a plpgsql function";
    return Status::OK();
  }

  const std::string& unsupported() const { return unsupported_; }

 private:
  std::string_view sql_;
  const Json& create_;
  std::string name_;
  std::string unsupported_;
};

std::string Quoted(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + "\"";
}

Status ParseFunction(std::string_view sql, const Json& create, const std::string& source,
                     FunctionDef* f) {
  // libpg_query parses the body given a CREATE FUNCTION statement, of which
  // it reads the parameters' names and modes and whether it returns a set.
  std::string tag = "$sluice_plpgsql$";
  while (source.find(tag) != std::string::npos) tag.insert(tag.size() - 1, "_");
  std::string text = "CREATE FUNCTION " + Quoted(f->name) + "(";
  Json params = Json::array();
  int in_params = 0;
  const Json& parameters = create.value("parameters", Json::array());
  for (size_t i = 0; i < parameters.size(); ++i) {
    const Json& fp = parameters[i]["FunctionParameter"];
    const std::string mode = fp.value("mode", "FUNC_PARAM_DEFAULT");
    const bool out = mode == "FUNC_PARAM_OUT" || mode == "FUNC_PARAM_TABLE";
    if (i > 0) text += ", ";
    if (out) text += "OUT ";
    // libpg_query numbers only named parameters among the variables.
    text += Quoted(fp.value("name", "$" + std::to_string(i + 1))) + " int";
    Json type = fp["argType"];
    DropLocations(&type);
    params.push_back(Json{{"out", out}, {"in", out ? 0 : ++in_params}, {"type", type}});
  }
  text += std::string(") RETURNS ") + (f->returns_set ? "SETOF " : "") + "int AS " + tag +
          RewriteFieldAssignments(source, f->name) + tag + " LANGUAGE plpgsql";
  PgQueryPlpgsqlParseResult parsed = pg_query_parse_plpgsql(text.c_str());
  if (parsed.error != nullptr) {
    const std::string message = parsed.error->message;
    pg_query_free_plpgsql_parse_result(parsed);
    return SqlError(sql, create, "the body of function " + f->name + ": " + message);
  }
  Json functions = Json::parse(parsed.plpgsql_funcs, nullptr, /*allow_exceptions=*/false);
  pg_query_free_plpgsql_parse_result(parsed);
  if (!functions.is_array() || functions.size() != 1 ||
      !functions[0].contains("PLpgSQL_function")) {
    return SqlError(sql, create, "the body of function " + f->name + " does not parse");
  }
  Json function = std::move(functions[0]["PLpgSQL_function"]);
  BodyParser parser(sql, create, f->name);

  Json action = function["action"];
  SLUICE_RETURN_IF_ERROR(parser.Statement(&action));
  {
    // The variables of every block are set when the function starts (a
    // block runs at most once, there being no loops), and a name means
    // one variable throughout: so an inner block may not declare any.
    const std::vector<Token> tokens = Tokenize(source);
    const size_t first = tokens.size() > 3 && tokens[0].text == "<<" ? 3 : 0;
    for (size_t i = first + 1; i < tokens.size(); ++i) {
      if (tokens[i].kind == Token::kIdent && tokens[i].text == "declare") {
        SLUICE_RETURN_IF_ERROR(parser.Unsupported("DECLARE in an inner block"));
      }
    }
  }
  // The variables, in the order of their numbers (varno): the parameters,
  // FOUND, then those DECLAREd.
  Json vars = Json::array();
  const Json& datums = function["datums"];
  for (size_t i = 0; i < datums.size() && parser.unsupported().empty(); ++i) {
    if (!datums[i].contains("PLpgSQL_var")) {
      SLUICE_RETURN_IF_ERROR(parser.Unsupported("variables of this kind"));
      break;
    }
    const Json& d = datums[i]["PLpgSQL_var"];
    Json v{{"name", d.value("refname", "")}};
    if (i < params.size()) {
      v.update(params[i]);
    } else if (i == params.size()) {
      v["init"] = BoolConst(false);  // FOUND: set by SQL statements only
      v["type"] = Json{{"names", Json::array({StrNode("bool")})}, {"typemod", -1}};
    } else if (d.contains("datatype")) {
      std::string type = d["datatype"]["PLpgSQL_type"].value("typname", "");
      while (!type.empty() && std::isspace(static_cast<unsigned char>(type.back())))
        type.pop_back();
      std::string lower = type;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      const size_t percent = lower.find('%');
      if (type == "record") {
        v["type"] = nullptr;
      } else if (percent != std::string::npos && lower.substr(percent) == "%type") {
        // name%TYPE: another variable's type.
        const std::string of = lower.substr(0, percent);
        for (const Json& earlier : vars) {
          if (earlier.value("name", "") == of && earlier.contains("type"))
            v["type"] = earlier["type"];
        }
        if (!v.contains("type")) {
          SLUICE_RETURN_IF_ERROR(parser.Unsupported("%TYPE of anything but a variable"));
        }
      } else if (percent != std::string::npos && lower.substr(percent) == "%rowtype") {
        // table%ROWTYPE: the table's row type, which is named as the table.
        v["type"] =
            Json{{"names", Json::array({StrNode(lower.substr(0, percent))})}, {"typemod", -1}};
      } else {
        Json cast;
        SLUICE_RETURN_IF_ERROR(parser.ParseExpr("NULL::" + type, &cast));
        if (!cast.contains("TypeCast")) {
          return SqlError(sql, create, "function " + f->name + ": unknown type " + type);
        }
        v["type"] = cast["TypeCast"]["typeName"];
      }
      if (d.contains("default_val")) {
        SLUICE_RETURN_IF_ERROR(
            parser.ParseExpr(d["default_val"]["PLpgSQL_expr"].value("query", ""), &v["default"]));
      }
    }
    vars.push_back(std::move(v));
  }
  if (!parser.unsupported().empty()) {
    f->unsupported = parser.unsupported();
    return Status::OK();
  }
  f->plpgsql = true;
  f->body = Json{{"vars", vars}, {"action", action}}.dump();
  return Status::OK();
}

}  // namespace
}  // namespace plpgsql

Status ParsePlpgsqlFunction(std::string_view sql, const Json& create, const std::string& source,
                            FunctionDef* f) {
  return plpgsql::ParseFunction(sql, create, source, f);
}

}  // namespace sluice::sql
