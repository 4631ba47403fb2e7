#include "sql/plpgsql.h"

#include <pg_query.h>

#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace sluice::sql {

namespace {

// PostgreSQL's elog levels (utils/elog.h) that RAISE takes: below ERROR a
// message only.
constexpr int kErrorLevel = 21;
// Each IF runs the rest of the body once per branch: a bound on the paths.
constexpr int kMaxPaths = 4096;

// ------------------------------------------------------------ parse trees

Json StrNode(const std::string& s) { return Json{{"String", {{"sval", s}}}}; }

std::string StrOf(const Json& n) {
  if (n.is_object() && n.contains("String")) return n["String"].value("sval", "");
  return "";
}

void DropLocations(Json* n) {
  if (n->is_object()) {
    if (n->contains("location")) (*n)["location"] = -1;
    for (auto it = n->begin(); it != n->end(); ++it) DropLocations(&it.value());
  } else if (n->is_array()) {
    for (Json& x : *n) DropLocations(&x);
  }
}

Json Cast(Json arg, const Json& type) {
  return Json{{"TypeCast", {{"arg", std::move(arg)}, {"typeName", type}, {"location", -1}}}};
}

Json NullConst() { return Json{{"A_Const", {{"isnull", true}, {"location", -1}}}}; }

Json NullOf(const Json& type) { return type.is_null() ? NullConst() : Cast(NullConst(), type); }

Json TextConst(const std::string& s) {
  return Json{{"A_Const", {{"sval", {{"sval", s}}}, {"location", -1}}}};
}

Json BoolConst(bool b) {
  return Json{
      {"A_Const", {{"boolval", b ? Json{{"boolval", true}} : Json::object()}, {"location", -1}}}};
}

Json Op(const std::string& op, Json l, Json r) {
  return Json{{"A_Expr",
               {{"kind", "AEXPR_OP"},
                {"name", Json::array({StrNode(op)})},
                {"lexpr", std::move(l)},
                {"rexpr", std::move(r)},
                {"location", -1}}}};
}

Json Call(const std::string& name, Json args) {
  return Json{{"FuncCall",
               {{"funcname", Json::array({StrNode(name)})},
                {"args", std::move(args)},
                {"funcformat", "COERCE_EXPLICIT_CALL"},
                {"location", -1}}}};
}

// `e IS TRUE` or `e IS NOT TRUE`: IF takes a branch only on true.
Json IsTrue(Json e, bool is_true) {
  return Json{{"BooleanTest",
               {{"arg", std::move(e)},
                {"booltesttype", is_true ? "IS_TRUE" : "IS_NOT_TRUE"},
                {"location", -1}}}};
}

Json And(const std::vector<Json>& conds) {
  if (conds.size() == 1) return conds[0];
  return Json{{"BoolExpr", {{"boolop", "AND_EXPR"}, {"args", conds}, {"location", -1}}}};
}

Json Case(Json args, Json otherwise) {
  return Json{
      {"CaseExpr", {{"args", std::move(args)}, {"defresult", otherwise}, {"location", -1}}}};
}

Json When(Json cond, Json result) {
  return Json{
      {"CaseWhen", {{"expr", std::move(cond)}, {"result", std::move(result)}, {"location", -1}}}};
}

Json Select(Json targets) {
  return Json{{"targetList", std::move(targets)},
              {"limitOption", "LIMIT_OPTION_DEFAULT"},
              {"op", "SETOP_NONE"}};
}

Json Target(Json val) { return Json{{"ResTarget", {{"val", std::move(val)}, {"location", -1}}}}; }

// The expression of an error `message` (text) raised where it is evaluated,
// of type `type`.
Json ErrorExpr(Json message, const Json& type) {
  static const Json kText = Json{{"names", Json::array({StrNode("text")})}, {"typemod", -1}};
  return Call(kRaiseErrorFunction, Json::array({Cast(std::move(message), kText),
                                                NullOf(type.is_null() ? kText : type)}));
}

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

}  // namespace

Status ParsePlpgsqlFunction(std::string_view sql, const Json& create, const std::string& source,
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

// ------------------------------------------------------------ compile phase

namespace {

class Compiler {
 public:
  Compiler(const FunctionDef& f, const Catalog& catalog)
      : f_(f), catalog_(catalog), def_(Json::parse(f.body)), vars_(def_["vars"]) {
    return_type_ = Json::parse(f.return_type);
    for (size_t i = 0; i < vars_.size(); ++i) {
      const std::string name = vars_[i].value("name", "");
      // A later declaration (an inner block's) hides an earlier one.
      by_name_[name] = i;
      if (vars_[i].value("out", false)) outs_.push_back(i);
    }
    Labels(def_["action"]);
  }

  Result<Json> Compile() {
    State s(vars_.size());
    for (size_t i = 0; i < vars_.size(); ++i) {
      const Json& v = vars_[i];
      const Json& type = v.contains("type") ? v["type"] : Json();
      if (v.value("in", 0) > 0) {
        s[i].expr = Json{{"ParamRef", {{"number", v["in"]}, {"location", -1}}}};
      } else if (v.contains("init")) {
        s[i].expr = v["init"];
      } else if (v.contains("default")) {
        SLUICE_ASSIGN_OR_RETURN(Json e, Expr(v["default"], s));
        s[i].expr = type.is_null() ? e : Cast(e, type);
      } else {
        s[i].expr = NullOf(type);
      }
    }
    const Json action = Json::array({def_["action"]});
    SLUICE_ASSIGN_OR_RETURN(Json result, Run(std::move(s), {Frame{&action, 0}}, {}));
    if (!f_.returns_set) return Select(Json::array({Target(result)}));
    if (rows_.empty()) {
      // No row on any path.
      Json targets = Json::array();
      if (outs_.empty()) targets.push_back(Target(NullOf(return_type_)));
      for (size_t i : outs_) targets.push_back(Target(NullOf(vars_[i]["type"])));
      Json select = Select(targets);
      select["whereClause"] = BoolConst(false);
      return select;
    }
    Json out = rows_[0];
    for (size_t i = 1; i < rows_.size(); ++i) {
      out = Json{{"op", "SETOP_UNION"},
                 {"all", true},
                 {"larg", out},
                 {"rarg", rows_[i]},
                 {"limitOption", "LIMIT_OPTION_DEFAULT"}};
    }
    return out;
  }

 private:
  // A variable's value: one expression, or, for a composite variable that
  // was assigned field by field, one per field of its type.
  struct Var {
    Json expr;
    bool by_fields = false;
    std::vector<Json> fields;
  };
  using State = std::vector<Var>;
  // A statement list and the next statement to run in it.
  struct Frame {
    const Json* stmts;
    size_t next;
  };

  void Labels(const Json& n) {
    if (n.is_object()) {
      if (n.contains("PLpgSQL_stmt_block") && n["PLpgSQL_stmt_block"].contains("label"))
        labels_.insert(n["PLpgSQL_stmt_block"].value("label", ""));
      for (auto it = n.begin(); it != n.end(); ++it) Labels(it.value());
    } else if (n.is_array()) {
      for (const Json& x : n) Labels(x);
    }
  }

  const Json& TypeOf(size_t var) const {
    static const Json kNone;
    return vars_[var].contains("type") ? vars_[var]["type"] : kNone;
  }

  // The fields of a composite variable's type (CREATE TYPE ... AS, or a
  // table's row type).
  Result<std::vector<std::string>> FieldNames(size_t var) const {
    const Json& type = TypeOf(var);
    const std::string name =
        type.is_null() || !type.contains("names") ? "" : StrOf(type["names"].back());
    std::vector<std::string> names;
    if (const SqlType* t = catalog_.FindType(name); t != nullptr && t->id() == TypeId::kRow) {
      names = t->field_names();
    } else if (const TableDef* table = catalog_.FindTable(name)) {
      for (const Column& c : table->columns) names.push_back(c.name);
    } else {
      return Status::Unimplemented("fields of variable \"" + vars_[var].value("name", "") +
                                   "\", which is not of a composite type,");
    }
    return names;
  }

  Result<Json> Value(const State& s, size_t var) const {
    const Var& v = s[var];
    if (!v.by_fields) return v.expr;
    Json row{{"RowExpr",
              {{"args", v.fields}, {"row_format", "COERCE_EXPLICIT_CALL"}, {"location", -1}}}};
    return Cast(std::move(row), TypeOf(var));
  }

  // Makes variable `var` one expression per field.
  Status SplitFields(State* s, size_t var) const {
    Var& v = (*s)[var];
    if (v.by_fields) return Status::OK();
    SLUICE_ASSIGN_OR_RETURN(const std::vector<std::string> names, FieldNames(var));
    v.fields.clear();
    for (const std::string& n : names) {
      v.fields.push_back(
          Json{{"A_Indirection", {{"arg", v.expr}, {"indirection", Json::array({StrNode(n)})}}}});
    }
    v.by_fields = true;
    return Status::OK();
  }

  Result<Json> FieldOf(const State& s, size_t var, const std::string& field) const {
    const Var& v = s[var];
    if (!v.by_fields) {
      return Json{
          {"A_Indirection", {{"arg", v.expr}, {"indirection", Json::array({StrNode(field)})}}}};
    }
    SLUICE_ASSIGN_OR_RETURN(const std::vector<std::string> names, FieldNames(var));
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == field) return v.fields[i];
    }
    return Status::InvalidArgument("record \"" + vars_[var].value("name", "") +
                                   "\" has no field \"" + field + "\"");
  }

  std::optional<size_t> VarNamed(const std::string& name) const {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) return std::nullopt;
    return it->second;
  }

  // The names of the columns that queries inside `n` read, and the names
  // of their FROM items: a variable of one of these names would be
  // ambiguous (PostgreSQL's plpgsql.variable_conflict = error).
  void ColumnNames(const Json& n, std::set<std::string>* columns,
                   std::set<std::string>* items) const {
    if (n.is_array()) {
      for (const Json& x : n) ColumnNames(x, columns, items);
      return;
    }
    if (!n.is_object()) return;
    for (const char* kind : {"RangeVar", "RangeSubselect", "RangeFunction"}) {
      if (!n.contains(kind)) continue;
      const Json& item = n[kind];
      if (item.contains("alias")) {
        items->insert(item["alias"].value("aliasname", ""));
        for (const Json& c : item["alias"].value("colnames", Json::array()))
          columns->insert(StrOf(c));
        // A function's alias names its one column.
        if (std::string(kind) == "RangeFunction")
          columns->insert(item["alias"].value("aliasname", ""));
      }
      if (item.contains("relname")) {
        const std::string rel = item.value("relname", "");
        items->insert(rel);
        if (const TableDef* t = catalog_.FindTable(rel)) {
          for (const Column& c : t->columns) columns->insert(c.name);
        } else if (const ViewDef* v = catalog_.FindView(rel)) {
          for (const Column& c : v->query.plan->columns) columns->insert(c.name);
        }
      }
    }
    for (auto it = n.begin(); it != n.end(); ++it) ColumnNames(it.value(), columns, items);
  }

  Status Substitute(Json* n, const State& s, const std::set<std::string>& columns,
                    const std::set<std::string>& items) const {
    if (n->is_array()) {
      for (Json& x : *n) SLUICE_RETURN_IF_ERROR(Substitute(&x, s, columns, items));
      return Status::OK();
    }
    if (!n->is_object()) return Status::OK();
    if (n->contains("ParamRef")) {
      const int64_t k = (*n)["ParamRef"].value("number", int64_t{0});
      size_t params = 0;
      while (params < vars_.size() && vars_[params].contains("in")) ++params;
      if (k < 1 || static_cast<size_t>(k) > params) {
        return Status::InvalidArgument("there is no parameter $" + std::to_string(k));
      }
      SLUICE_ASSIGN_OR_RETURN(*n, Value(s, static_cast<size_t>(k - 1)));
      return Status::OK();
    }
    if (n->contains("ColumnRef")) {
      const Json& fields = (*n)["ColumnRef"]["fields"];
      std::vector<std::string> names;
      for (const Json& x : fields) names.push_back(StrOf(x));
      auto qualifier = [&](const std::string& q) {
        return (q == f_.name || labels_.count(q)) && items.count(q) == 0;
      };
      if (names.size() == 1 && !names[0].empty()) {
        if (auto v = VarNamed(names[0])) {
          if (columns.count(names[0])) {
            return Status::InvalidArgument("column reference \"" + names[0] +
                                           "\" is ambiguous: it could refer to either a PL/pgSQL "
                                           "variable or a table column");
          }
          SLUICE_ASSIGN_OR_RETURN(*n, Value(s, *v));
        }
      } else if (names.size() == 2 && !names[0].empty() && !names[1].empty()) {
        if (auto v = VarNamed(names[0]); v && items.count(names[0]) == 0) {
          SLUICE_ASSIGN_OR_RETURN(*n, FieldOf(s, *v, names[1]));
        } else if (auto w = VarNamed(names[1]); w && qualifier(names[0])) {
          SLUICE_ASSIGN_OR_RETURN(*n, Value(s, *w));
        }
      } else if (names.size() == 3 && qualifier(names[0])) {
        if (auto v = VarNamed(names[1]); v && !names[2].empty()) {
          SLUICE_ASSIGN_OR_RETURN(*n, FieldOf(s, *v, names[2]));
        }
      }
      return Status::OK();
    }
    for (auto it = n->begin(); it != n->end(); ++it) {
      SLUICE_RETURN_IF_ERROR(Substitute(&it.value(), s, columns, items));
    }
    return Status::OK();
  }

  // `tree` with every variable replaced by its value in `s`.
  Result<Json> Expr(const Json& tree, const State& s) const {
    Json out = tree;
    std::set<std::string> columns, items;
    ColumnNames(out, &columns, &items);
    SLUICE_RETURN_IF_ERROR(Substitute(&out, s, columns, items));
    return out;
  }

  Result<Json> ExprOf(const Json& plpgsql_expr, const State& s) const {
    return Expr(plpgsql_expr["PLpgSQL_expr"]["tree"], s);
  }

  // The message of a RAISE: its format with each % replaced by the text of
  // the next parameter (<NULL> for NULL) and %% by %, or its USING MESSAGE,
  // or the condition it names.
  Result<Json> RaiseMessage(const Json& raise, const State& s) const {
    static const Json kText = Json{{"names", Json::array({StrNode("text")})}, {"typemod", -1}};
    constexpr int kMessageOption = 1;  // PLPGSQL_RAISEOPTION_MESSAGE
    for (const Json& o : raise.value("options", Json::array())) {
      const Json& opt = o["PLpgSQL_raise_option"];
      if (opt.value("opt_type", 0) == kMessageOption) return ExprOf(opt["expr"], s);
    }
    if (!raise.contains("message")) return TextConst(raise.value("condname", ""));
    const std::string format = raise.value("message", "");
    const Json& params = raise.value("params", Json::array());
    std::vector<Json> parts;
    std::string literal;
    size_t p = 0;
    for (size_t i = 0; i < format.size(); ++i) {
      if (format[i] != '%') {
        literal += format[i];
      } else if (i + 1 < format.size() && format[i + 1] == '%') {
        literal += '%';
        ++i;
      } else if (p < params.size()) {
        if (!literal.empty()) parts.push_back(TextConst(literal));
        literal.clear();
        SLUICE_ASSIGN_OR_RETURN(Json v, ExprOf(params[p++], s));
        parts.push_back(
            Call("coalesce", Json::array({Cast(std::move(v), kText), TextConst("<NULL>")})));
      } else {
        return Status::InvalidArgument("too few parameters specified for RAISE");
      }
    }
    if (p < params.size())
      return Status::InvalidArgument("too many parameters specified for RAISE");
    if (!literal.empty() || parts.empty()) parts.push_back(TextConst(literal));
    Json message = parts[0];
    for (size_t i = 1; i < parts.size(); ++i) message = Op("||", message, parts[i]);
    return message;
  }

  // The end of a path with the error `message`: its value (a scalar
  // function), or a row source that raises it where the path is taken.
  Result<Json> Fail(Json message, const std::vector<Json>& path) {
    if (!f_.returns_set) return ErrorExpr(std::move(message), return_type_);
    static const Json kBool = Json{{"names", Json::array({StrNode("bool")})}, {"typemod", -1}};
    Json raise = ErrorExpr(std::move(message), kBool);
    Json cond =
        path.empty() ? raise : Case(Json::array({When(And(path), raise)}), BoolConst(false));
    Json targets = Json::array();
    if (outs_.empty()) targets.push_back(Target(NullOf(return_type_)));
    for (size_t i : outs_) targets.push_back(Target(NullOf(vars_[i]["type"])));
    Json select = Select(targets);
    select["whereClause"] = cond;
    rows_.push_back(select);
    return Json();
  }

  // Rows of a set-returning function, kept where `path` holds.
  void AddRows(Json select, const std::vector<Json>& path) {
    if (path.empty()) {
      rows_.push_back(std::move(select));
      return;
    }
    Json star =
        Json{{"ColumnRef",
              {{"fields", Json::array({Json{{"A_Star", Json::object()}}})}, {"location", -1}}}};
    Json out = Select(Json::array({Target(star)}));
    out["fromClause"] = Json::array({Json{{"RangeSubselect",
                                           {{"subquery", {{"SelectStmt", std::move(select)}}},
                                            {"alias", {{"aliasname", "plpgsql_rows"}}}}}}});
    out["whereClause"] = And(path);
    rows_.push_back(std::move(out));
  }

  // Branches (condition, statements; a null condition for ELSE): each runs
  // with the rest of the body. Without an ELSE, `otherwise` runs (null:
  // the rest of the body as it is).
  Result<Json> Branch(const State& s, const std::vector<Frame>& k, const std::vector<Json>& path,
                      const std::vector<std::pair<Json, const Json*>>& branches,
                      const std::optional<Json>& otherwise) {
    Json whens = Json::array();
    std::vector<Json> not_before;  // the conditions of the earlier branches, not taken
    std::optional<Json> last;
    bool has_else = false;
    for (const auto& [cond, stmts] : branches) {
      std::vector<Json> p = path;
      p.insert(p.end(), not_before.begin(), not_before.end());
      if (!cond.is_null()) p.push_back(IsTrue(cond, true));
      std::vector<Frame> next = k;
      if (stmts != nullptr && stmts->is_array()) next.push_back(Frame{stmts, 0});
      SLUICE_ASSIGN_OR_RETURN(Json r, Run(s, std::move(next), p));
      if (cond.is_null()) {
        last = r;
        has_else = true;
        break;
      }
      whens.push_back(When(cond, r));
      not_before.push_back(IsTrue(cond, false));
    }
    if (!has_else) {
      std::vector<Json> p = path;
      p.insert(p.end(), not_before.begin(), not_before.end());
      if (otherwise) {
        SLUICE_ASSIGN_OR_RETURN(Json r, Fail(*otherwise, p));
        if (f_.returns_set) return Json();
        last = r;
      } else {
        SLUICE_ASSIGN_OR_RETURN(Json r, Run(s, k, p));
        last = r;
      }
    }
    if (f_.returns_set) return Json();
    return Case(whens, *last);
  }

  // Runs the statements of `k` (innermost last) from state `s`, on the
  // path where the conditions `path` hold: the value of a scalar function
  // on this path; a set-returning function's rows go to rows_.
  Result<Json> Run(State s, std::vector<Frame> k, const std::vector<Json>& path) {
    if (++paths_ > kMaxPaths) {
      return Status::Unimplemented("more than " + std::to_string(kMaxPaths) +
                                   " paths through IF and CASE statements");
    }
    while (!k.empty()) {
      Frame& top = k.back();
      if (top.next >= top.stmts->size()) {
        k.pop_back();
        continue;
      }
      const Json& stmt = (*top.stmts)[top.next++];
      const std::string kind = stmt.begin().key();
      const Json& st = stmt.begin().value();
      if (kind == "PLpgSQL_stmt_block") {
        if (st.contains("body")) k.push_back(Frame{&st["body"], 0});
      } else if (kind == "PLpgSQL_stmt_assign") {
        SLUICE_RETURN_IF_ERROR(Assign(st, &s));
      } else if (kind == "PLpgSQL_stmt_if") {
        std::vector<std::pair<Json, const Json*>> branches;
        SLUICE_ASSIGN_OR_RETURN(Json c, ExprOf(st["cond"], s));
        branches.push_back({c, st.contains("then_body") ? &st["then_body"] : nullptr});
        if (st.contains("elsif_list")) {
          for (const Json& e : st["elsif_list"]) {
            const Json& b = e["PLpgSQL_if_elsif"];
            SLUICE_ASSIGN_OR_RETURN(Json ec, ExprOf(b["cond"], s));
            branches.push_back({ec, b.contains("stmts") ? &b["stmts"] : nullptr});
          }
        }
        if (st.contains("else_body")) branches.push_back({Json(), &st["else_body"]});
        return Branch(s, k, path, branches, std::nullopt);
      } else if (kind == "PLpgSQL_stmt_case") {
        if (st.contains("t_expr")) {
          const size_t t = st.value("t_varno", size_t{0});
          if (t >= s.size()) return Status::InvalidArgument("bad CASE variable");
          SLUICE_ASSIGN_OR_RETURN(s[t].expr, ExprOf(st["t_expr"], s));
          s[t].by_fields = false;
        }
        std::vector<std::pair<Json, const Json*>> branches;
        static const Json kNoCases = Json::array();
        // (References into the body: the branches point at their statements.)
        for (const Json& w : st.contains("case_when_list") ? st["case_when_list"] : kNoCases) {
          const Json& b = w["PLpgSQL_case_when"];
          SLUICE_ASSIGN_OR_RETURN(Json c, ExprOf(b["expr"], s));
          branches.push_back({c, b.contains("stmts") ? &b["stmts"] : nullptr});
        }
        if (st.value("have_else", false)) {
          branches.push_back({Json(), st.contains("else_stmts") ? &st["else_stmts"] : nullptr});
          return Branch(s, k, path, branches, std::nullopt);
        }
        return Branch(s, k, path, branches, TextConst("case not found"));
      } else if (kind == "PLpgSQL_stmt_return") {
        if (f_.returns_set) return Json();
        if (!st.contains("expr")) {
          // libpg_query ends every body with a RETURN without a value.
          return Fail(TextConst("control reached end of function without RETURN"), path);
        }
        SLUICE_ASSIGN_OR_RETURN(Json e, ExprOf(st["expr"], s));
        return Cast(std::move(e), return_type_);
      } else if (kind == "PLpgSQL_stmt_return_next") {
        if (!f_.returns_set)
          return Status::InvalidArgument("cannot use RETURN NEXT in a non-SETOF function");
        if (!st.contains("expr")) return Status::Unimplemented("RETURN NEXT without a value");
        SLUICE_ASSIGN_OR_RETURN(Json e, ExprOf(st["expr"], s));
        AddRows(Select(Json::array({Target(Cast(std::move(e), return_type_))})), path);
      } else if (kind == "PLpgSQL_stmt_return_query") {
        if (!f_.returns_set) {
          return Status::InvalidArgument("cannot use RETURN QUERY in a non-SETOF function");
        }
        SLUICE_ASSIGN_OR_RETURN(Json q, ExprOf(st["query"], s));
        AddRows(std::move(q), path);
      } else if (kind == "PLpgSQL_stmt_raise") {
        if (st.value("elog_level", kErrorLevel) < kErrorLevel) continue;  // a notice
        SLUICE_ASSIGN_OR_RETURN(Json message, RaiseMessage(st, s));
        return Fail(std::move(message), path);
      } else if (kind == "PLpgSQL_stmt_assert") {
        SLUICE_ASSIGN_OR_RETURN(Json c, ExprOf(st["cond"], s));
        Json message = TextConst("assertion failed");
        if (st.contains("message")) {
          SLUICE_ASSIGN_OR_RETURN(message, ExprOf(st["message"], s));
        }
        static const Json kNothing = Json::array();
        return Branch(s, k, path, {{c, &kNothing}}, message);
      } else {
        return Status::Unimplemented(kind + " in a plpgsql function");
      }
    }
    if (f_.returns_set) return Json();
    return Fail(TextConst("control reached end of function without RETURN"), path);
  }

  Status Assign(const Json& st, State* s) const {
    const size_t var = st.value("varno", size_t{0});
    if (var >= s->size()) return Status::InvalidArgument("bad assignment target");
    const Json& e = st["expr"]["PLpgSQL_expr"];
    SLUICE_ASSIGN_OR_RETURN(Json value, Expr(e["tree"], *s));
    const Json& target = e["target"];
    const Json& type = TypeOf(var);
    if (target.contains("ColumnRef")) {
      (*s)[var] = Var{type.is_null() ? value : Cast(std::move(value), type)};
      return Status::OK();
    }
    // rec['field'] := value, as RewriteFieldAssignments wrote it.
    std::string field;
    if (target.contains("A_Indirection")) {
      const Json& ind = target["A_Indirection"]["indirection"];
      if (ind.size() == 1 && ind[0].contains("A_Indices") && ind[0]["A_Indices"].contains("uidx") &&
          ind[0]["A_Indices"]["uidx"].contains("A_Const")) {
        field =
            ind[0]["A_Indices"]["uidx"]["A_Const"].value("sval", Json::object()).value("sval", "");
      }
    }
    if (field.empty()) return Status::Unimplemented("assignments to array elements");
    SLUICE_RETURN_IF_ERROR(SplitFields(s, var));
    SLUICE_ASSIGN_OR_RETURN(const std::vector<std::string> names, FieldNames(var));
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == field) {
        (*s)[var].fields[i] = std::move(value);
        return Status::OK();
      }
    }
    return Status::InvalidArgument("record \"" + vars_[var].value("name", "") +
                                   "\" has no field \"" + field + "\"");
  }

  const FunctionDef& f_;
  const Catalog& catalog_;
  const Json def_;
  const Json& vars_;
  Json return_type_;
  std::map<std::string, size_t> by_name_;
  std::set<std::string> labels_;
  std::vector<size_t> outs_;  // the OUT parameters' variables
  std::vector<Json> rows_;    // a set-returning function's row sources
  int paths_ = 0;
};

}  // namespace

Result<Json> CompilePlpgsqlFunction(const FunctionDef& f, const Catalog& catalog) {
  Compiler c(f, catalog);
  return c.Compile();
}

}  // namespace sluice::sql
