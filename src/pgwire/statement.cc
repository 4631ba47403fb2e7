#include "pgwire/statement.h"

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>

#include "pgwire/codec.h"
#include "sql/dml.h"
#include "sql/expr.h"
#include "sql/parser.h"
#include "sql/sql_text.h"
#include "types/row_codec.h"

namespace sluice::pgwire {
namespace {

using sql::FindKeyword;
using sql::Json;
using sql::MatchingParen;
using sql::NameEnd;
using sql::SkipSpace;
using sql::TokenEnd;
using sql::TrimEnd;
using sql::Unquote;
using sql::WordChar;
constexpr size_t npos = std::string::npos;

// ---- parse trees

void FindParams(const Json& node, std::vector<std::pair<size_t, int>>* out) {
  if (node.is_object()) {
    if (auto it = node.find("ParamRef"); it != node.end()) {
      out->emplace_back(it->value("location", 0), it->value("number", 0));
    }
    for (const auto& [k, v] : node.items()) FindParams(v, out);
  } else if (node.is_array()) {
    for (const Json& v : node) FindParams(v, out);
  }
}

// A constant of a parse tree (A_Const, possibly cast or negated) as text;
// `sql` is the statement's text.
std::optional<std::string> ConstantText(const Json& node, std::string_view sql = {}) {
  if (node.contains("TypeCast")) return ConstantText(node["TypeCast"]["arg"], sql);
  if (node.contains("A_Expr")) {
    const Json& e = node["A_Expr"];
    const Json& name = e.value("name", Json::array());
    if (!e.contains("lexpr") && name.size() == 1 && name[0]["String"].value("sval", "") == "-") {
      auto v = ConstantText(e["rexpr"], sql);
      if (v && !v->empty() && (*v)[0] != '-') return "-" + *v;
    }
    return std::nullopt;
  }
  if (!node.contains("A_Const")) return std::nullopt;
  const Json& c = node["A_Const"];
  if (c.value("isnull", false)) return std::nullopt;
  if (c.contains("ival")) {
    if (c["ival"].contains("ival")) return std::to_string(c["ival"].value("ival", int64_t{0}));
    // libpg_query's JSON leaves out zero, and negative integers that the
    // parser folded from minus signs: those are read from the text.
    const int at = c.value("location", -1);
    if (at < 0 || static_cast<size_t>(at) >= sql.size()) return std::string("0");
    bool negative = false;
    size_t i = static_cast<size_t>(at);
    for (; i < sql.size() &&
           (sql[i] == '-' || sql[i] == '(' || std::isspace(static_cast<unsigned char>(sql[i])));
         ++i) {
      if (sql[i] == '-') negative = !negative;
    }
    size_t j = i;
    while (j < sql.size() && std::isdigit(static_cast<unsigned char>(sql[j]))) ++j;
    if (j == i) return std::string("0");
    std::string digits(sql.substr(i, j - i));
    return negative && digits.find_first_not_of('0') != std::string::npos ? "-" + digits : digits;
  }
  if (c.contains("fval")) return c["fval"].value("fval", "");
  if (c.contains("sval")) return c["sval"].value("sval", "");
  if (c.contains("boolval")) return c["boolval"].value("boolval", false) ? "true" : "false";
  return std::nullopt;
}

std::string DefElemText(const Json& arg) {
  if (arg.is_null()) return "true";
  if (arg.contains("String")) return arg["String"].value("sval", "");
  if (arg.contains("Integer")) return std::to_string(arg["Integer"].value("ival", 0));
  if (arg.contains("Boolean")) return arg["Boolean"].value("boolval", false) ? "true" : "false";
  if (arg.contains("A_Star")) return "*";
  return "";
}

bool Truthy(const std::string& v) {
  std::string l = v;
  for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return l == "true" || l == "on" || l == "1" || l == "match";
}

Status CopyOptions(const Json& options, CopySpec* spec) {
  bool delimiter_given = false, null_given = false;
  for (const Json& o : options) {
    const Json& d = o["DefElem"];
    const std::string name = d.value("defname", "");
    const std::string value = DefElemText(d.contains("arg") ? d["arg"] : Json());
    std::string lower = value;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name == "format") {
      if (lower == "binary")
        return Status::Unimplemented("COPY's binary format is not supported; use text or csv");
      if (lower != "csv" && lower != "text")
        return Status::InvalidArgument("COPY format \"" + value + "\" not recognized");
      spec->csv = lower == "csv";
    } else if (name == "header") {
      spec->header = Truthy(value);
    } else if (name == "delimiter") {
      if (value.size() != 1)
        return Status::InvalidArgument("COPY delimiter must be a single one-byte character");
      spec->delimiter = value[0];
      delimiter_given = true;
    } else if (name == "null") {
      spec->null_marker = value;
      null_given = true;
    } else if (name == "quote" || name == "escape") {
      if (value != "\"")
        return Status::Unimplemented("COPY " + name + " other than '\"' is not supported");
    } else if (name == "encoding") {
      if (lower != "utf8" && lower != "utf-8" && lower != "unicode") {
        return Status::Unimplemented("COPY encoding \"" + value + "\" is not supported: only UTF8");
      }
    } else if (name == "freeze") {
      // Nothing to freeze.
    } else {
      return Status::Unimplemented("COPY option \"" + name + "\" is not supported");
    }
  }
  if (spec->csv && !delimiter_given) spec->delimiter = ',';
  if (spec->csv && !null_given) spec->null_marker = "";
  return Status::OK();
}

// What the statement is called in a message.
std::string StatementName(const std::string& node) {
  static const std::map<std::string, std::string> kNames = {
      {"CreateStmt", "CREATE TABLE"},
      {"ViewStmt", "CREATE VIEW"},
      {"DropStmt", "DROP"},
      {"AlterTableStmt", "ALTER TABLE"},
      {"TruncateStmt", "TRUNCATE"},
      {"MergeStmt", "MERGE"},
      {"ExplainStmt", "EXPLAIN"},
      {"CreateTableAsStmt", "CREATE TABLE AS"},
      {"IndexStmt", "CREATE INDEX"},
      {"PrepareStmt", "PREPARE"},
      {"ExecuteStmt", "EXECUTE"},
      {"DeclareCursorStmt", "DECLARE"},
      {"FetchStmt", "FETCH"},
      {"GrantStmt", "GRANT"},
      {"LockStmt", "LOCK"},
      {"CreateSchemaStmt", "CREATE SCHEMA"},
      {"CreatedbStmt", "CREATE DATABASE"},
  };
  auto it = kNames.find(node);
  if (it != kNames.end()) return it->second;
  std::string n = node;
  if (n.size() > 4 && n.compare(n.size() - 4, 4, "Stmt") == 0) n.resize(n.size() - 4);
  return n;
}

Status Classify(const Json& stmt, Statement* st) {
  if (stmt.is_null() || stmt.empty()) {
    st->kind = StatementKind::kEmpty;
    return Status::OK();
  }
  const std::string node = stmt.begin().key();
  const Json& body = stmt.begin().value();
  if (node == "SelectStmt") {
    if (body.contains("intoClause")) {
      st->kind = StatementKind::kUnsupported;
      st->unsupported = "SELECT INTO is not supported: the program declares tables and views";
      return Status::OK();
    }
    st->kind = StatementKind::kSelect;
    if (sql::ChangesData(stmt)) {
      st->kind = StatementKind::kModify;
      st->tag = "SELECT";
      st->returns_rows = true;
    }
  } else if (node == "InsertStmt" || node == "DeleteStmt" || node == "UpdateStmt") {
    st->kind = StatementKind::kModify;
    st->tag = node == "InsertStmt" ? "INSERT" : node == "DeleteStmt" ? "DELETE" : "UPDATE";
    st->returns_rows = sql::ReturnsData(stmt);
  } else if (node == "CopyStmt") {
    if (body.contains("filename") || body.value("is_program", false)) {
      st->kind = StatementKind::kUnsupported;
      st->unsupported =
          std::string("COPY ") + (body.value("is_from", false) ? "FROM" : "TO") +
          " a file of the server is not supported: use STDIN or STDOUT (psql: \\copy)";
      return Status::OK();
    }
    const bool from = body.value("is_from", false);
    st->kind = from ? StatementKind::kCopyFrom : StatementKind::kCopyTo;
    CopySpec& c = st->copy;
    if (body.contains("relation")) {
      SLUICE_ASSIGN_OR_RETURN(c.table, sql::TargetTableName(body["relation"], st->text));
    }
    for (const Json& a : body.value("attlist", Json::array()))
      c.columns.push_back(a["String"].value("sval", ""));
    SLUICE_RETURN_IF_ERROR(CopyOptions(body.value("options", Json::array()), &c));
    if (!from) {
      c.to_stdout = true;
      if (body.contains("query")) {
        const size_t open = st->text.find('(');
        const size_t close = open == npos ? npos : MatchingParen(st->text, open);
        if (close == npos)
          return Status::InvalidArgument("COPY (query): cannot find the query's parentheses");
        c.query = st->text.substr(open + 1, close - open - 1);
      } else if (!c.columns.empty()) {
        std::string cols;
        for (const std::string& col : c.columns)
          cols += (cols.empty() ? "" : ", ") + QuoteIdentifier(col);
        c.query = "SELECT " + cols + " FROM " + QuoteIdentifier(c.table);
      }
    }
  } else if (node == "TransactionStmt") {
    const std::string kind = body.value("kind", "");
    if (kind == "TRANS_STMT_BEGIN" || kind == "TRANS_STMT_START") {
      st->kind = StatementKind::kBegin;
    } else if (kind == "TRANS_STMT_COMMIT") {
      st->kind = StatementKind::kCommit;
    } else if (kind == "TRANS_STMT_ROLLBACK") {
      st->kind = StatementKind::kRollback;
    } else {
      st->kind = StatementKind::kUnsupported;
      st->unsupported = "savepoints and two-phase commit are not supported";
    }
  } else if (node == "VariableSetStmt") {
    const std::string kind = body.value("kind", "");
    st->name = body.value("name", "");
    if (kind == "VAR_SET_VALUE") {
      st->kind = StatementKind::kSet;
      for (const Json& a : body.value("args", Json::array())) {
        auto v = ConstantText(a);
        st->value += (st->value.empty() ? "" : ", ") + v.value_or("");
      }
    } else if (kind == "VAR_SET_DEFAULT" || kind == "VAR_RESET") {
      st->kind = StatementKind::kSet;
      st->reset = true;
    } else {
      st->kind = StatementKind::kIgnored;  // SET TRANSACTION ..., RESET ALL, SET ... FROM CURRENT
      st->tag = kind == "VAR_RESET_ALL" ? "RESET" : "SET";
    }
  } else if (node == "VariableShowStmt") {
    st->kind = StatementKind::kShow;
    st->name = body.value("name", "");
  } else if (node == "DeallocateStmt") {
    st->kind = StatementKind::kIgnored;
    st->tag = body.contains("name") ? "DEALLOCATE" : "DEALLOCATE ALL";
  } else if (node == "DiscardStmt") {
    st->kind = StatementKind::kIgnored;
    st->tag = "DISCARD ALL";
  } else if (node == "ListenStmt" || node == "UnlistenStmt") {
    st->kind = StatementKind::kIgnored;
    st->tag = node == "ListenStmt" ? "LISTEN" : "UNLISTEN";
  } else {
    st->kind = StatementKind::kUnsupported;
    st->unsupported =
        StatementName(node) +
        " is not supported over the PostgreSQL protocol: the program declares the "
        "tables and views; SELECT, INSERT, UPDATE, DELETE, COPY and SUBSCRIBE are served";
  }
  return Status::OK();
}

bool ParseSubscribe(const std::string& text, Statement* st) {
  static const std::regex kSubscribe(
      R"(^\s*(COPY\s*\(\s*)?SUBSCRIBE\s+(?:TO\s+)?("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)\s*)"
      R"((?:WITH\s*\(\s*SNAPSHOT\s*(?:=\s*)?(\w+|'\w+')?\s*\)\s*)?(\)\s*TO\s+STDOUT\b(.*?))?\s*;?\s*$)",
      std::regex::icase);
  std::smatch m;
  if (!std::regex_match(text, m, kSubscribe)) return false;
  if (m[1].matched != m[4].matched) return false;
  st->kind = StatementKind::kSubscribe;
  st->text = TrimEnd(text);
  st->name = Unquote(m[2].str());
  if (m[3].matched) {
    std::string v = m[3].str();
    if (!v.empty() && v[0] == '\'') v = v.substr(1, v.size() - 2);
    st->snapshot = Truthy(v);
  }
  if (m[4].matched) {
    st->copy.to_stdout = true;
    std::string options = m[5].str();
    for (char& c : options) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    st->copy.csv = options.find("csv") != npos;
    st->copy.header = st->copy.csv && options.find("header") != npos;
    if (st->copy.csv) {
      st->copy.delimiter = ',';
      st->copy.null_marker = "";
    }
  }
  return true;
}

}  // namespace

Status SplitStatements(const std::string& text, std::vector<Statement>* out) {
  out->clear();
  Statement sub;
  if (ParseSubscribe(text, &sub)) {
    sub.offset = SkipSpace(text, 0);
    out->push_back(std::move(sub));
    return Status::OK();
  }
  SLUICE_ASSIGN_OR_RETURN(Json tree, sql::ParseSql(text));
  for (const Json& s : tree.value("stmts", Json::array())) {
    size_t start = s.value("stmt_location", 0);
    size_t len = s.value("stmt_len", 0);
    if (len == 0) len = text.size() - start;
    const size_t begin = SkipSpace(text, start);
    if (begin >= start + len) continue;
    Statement st;
    st.offset = begin;
    st.text = TrimEnd(std::string_view(text).substr(begin, start + len - begin));
    std::vector<std::pair<size_t, int>> params;
    FindParams(s.value("stmt", Json::object()), &params);
    for (auto& [at, n] : params) {
      st.param_at.emplace_back(at - begin, n);
      st.params = std::max(st.params, n);
    }
    SLUICE_RETURN_IF_ERROR(Classify(s.value("stmt", Json::object()), &st));
    out->push_back(std::move(st));
  }
  return Status::OK();
}

bool ReturnsRows(const Statement& st) {
  return st.kind == StatementKind::kSelect || st.kind == StatementKind::kShow ||
         (st.kind == StatementKind::kModify && st.returns_rows) ||
         (st.kind == StatementKind::kSubscribe && !st.copy.to_stdout);
}

int16_t ColumnFormat(const std::vector<int16_t>& formats, size_t i) {
  if (formats.empty()) return 0;
  if (formats.size() == 1) return formats[0];
  return i < formats.size() ? formats[i] : 0;
}

Result<std::string> SubstituteParams(const Statement& st,
                                     const std::vector<std::optional<std::string>>& params,
                                     const std::vector<uint32_t>& oids) {
  static const std::map<uint32_t, const char*> kCasts = {
      {16, "boolean"},           {17, "bytea"},         {20, "bigint"},
      {21, "smallint"},          {23, "integer"},       {700, "real"},
      {701, "double precision"}, {1082, "date"},        {1083, "time"},
      {1114, "timestamp"},       {1184, "timestamptz"}, {1186, "interval"},
      {1266, "timetz"},          {1700, "numeric"}};
  std::string text = st.text;
  auto at = st.param_at;
  std::sort(at.begin(), at.end());
  for (auto it = at.rbegin(); it != at.rend(); ++it) {
    const auto [pos, n] = *it;
    if (n < 1 || static_cast<size_t>(n) > params.size()) {
      return Status::InvalidArgument("there is no parameter $" + std::to_string(n));
    }
    const size_t len = 1 + std::to_string(n).size();
    if (pos >= text.size() || text[pos] != '$') {
      return Status::Internal("parameter $" + std::to_string(n) + " is not where the parser said");
    }
    const auto& value = params[static_cast<size_t>(n - 1)];
    std::string literal;
    if (!value) {
      literal = "NULL";
    } else {
      literal = "'";
      for (char c : *value) {
        if (c == '\'') literal.push_back('\'');
        literal.push_back(c);
      }
      literal.push_back('\'');
    }
    const uint32_t oid =
        static_cast<size_t>(n - 1) < oids.size() ? oids[static_cast<size_t>(n - 1)] : 0;
    if (auto c = kCasts.find(oid); c != kCasts.end())
      literal = "CAST(" + literal + " AS " + c->second + ")";
    text.replace(pos, len, literal);
  }
  return text;
}

Result<std::vector<std::vector<Value>>> KeysOfWhere(const std::string& text,
                                                    const format::Relation& rel) {
  SLUICE_ASSIGN_OR_RETURN(Json tree, sql::ParseSql(text));
  const Json& del = tree["stmts"][0]["stmt"]["DeleteStmt"];
  std::string keys;
  for (int k : rel.key) keys += (keys.empty() ? "" : ", ") + rel.columns[static_cast<size_t>(k)];
  const std::string rule = "DELETE from table " + rel.name +
                           ", which is not materialized, takes WHERE with its primary key (" +
                           keys +
                           ") = constant or IN (constants), joined by AND; declare the table WITH "
                           "('materialized' = 'true') for other conditions";
  if (!del.contains("whereClause")) return Status::Unimplemented(rule);
  std::vector<const Json*> conjuncts;
  std::function<void(const Json&)> flatten = [&](const Json& e) {
    if (e.contains("BoolExpr") && e["BoolExpr"].value("boolop", "") == "AND_EXPR") {
      for (const Json& a : e["BoolExpr"]["args"]) flatten(a);
    } else {
      conjuncts.push_back(&e);
    }
  };
  flatten(del["whereClause"]);
  std::vector<std::vector<std::string>> per_column(rel.columns.size());
  std::vector<bool> named(rel.columns.size(), false);
  for (const Json* c : conjuncts) {
    if (!c->contains("A_Expr")) return sql::SqlUnsupported(text, *c, "this condition", rule);
    const Json& e = (*c)["A_Expr"];
    const std::string kind = e.value("kind", "");
    const Json& name = e.value("name", Json::array());
    const bool eq =
        kind == "AEXPR_OP" && name.size() == 1 && name[0]["String"].value("sval", "") == "=";
    const bool in =
        kind == "AEXPR_IN" && name.size() == 1 && name[0]["String"].value("sval", "") == "=";
    if (!eq && !in) return sql::SqlUnsupported(text, *c, "this condition", rule);
    const Json* col = &e["lexpr"];
    const Json* value = &e["rexpr"];
    if (eq && !col->contains("ColumnRef")) std::swap(col, value);
    if (!col->contains("ColumnRef")) return sql::SqlUnsupported(text, *c, "this condition", rule);
    const Json& fields = (*col)["ColumnRef"]["fields"];
    const std::string column = fields.back()["String"].value("sval", "");
    auto it = std::find(rel.columns.begin(), rel.columns.end(), column);
    const auto index = static_cast<size_t>(it - rel.columns.begin());
    if (it == rel.columns.end() ||
        std::find(rel.key.begin(), rel.key.end(), static_cast<int>(index)) == rel.key.end()) {
      return sql::SqlUnsupported(text, *col, "a condition on \"" + column + "\"", rule);
    }
    if (named[index])
      return sql::SqlUnsupported(text, *col, "a second condition on \"" + column + "\"", rule);
    named[index] = true;
    std::vector<const Json*> items;
    if (in) {
      for (const Json& v : (*value)["List"]["items"]) items.push_back(&v);
    } else {
      items.push_back(value);
    }
    for (const Json* v : items) {
      auto t = ConstantText(*v, text);
      if (!t) return sql::SqlUnsupported(text, *v, "a value that is not a constant", rule);
      per_column[index].push_back(*t);
    }
  }
  for (int k : rel.key) {
    if (!named[static_cast<size_t>(k)]) {
      return Status::Unimplemented(rule + " (\"" + rel.columns[static_cast<size_t>(k)] +
                                   "\" is not named)");
    }
  }
  std::vector<std::vector<Value>> rows(1, std::vector<Value>(rel.columns.size(), Value::Null()));
  for (int k : rel.key) {
    const auto c = static_cast<size_t>(k);
    std::vector<std::vector<Value>> next;
    for (const std::string& t : per_column[c]) {
      Value v;
      Status s = sql::CastValue(Value::String(t), SqlType::Varchar(), rel.schema[c], &v);
      if (!s.ok())
        return Status::InvalidArgument("column \"" + rel.columns[c] + "\": " + s.message());
      for (const auto& r : rows) {
        next.push_back(r);
        next.back()[c] = v;
      }
    }
    rows = std::move(next);
  }
  return rows;
}

std::optional<std::string> EncodeChange(const format::Relation& rel,
                                        const std::vector<Value>& values, bool insert,
                                        std::string* row, std::string* key) {
  row->clear();
  key->clear();
  auto encode = [&](size_t i, std::string* out) -> std::optional<std::string> {
    Status s = EncodeValue(rel.schema[i], values[i], out);
    if (s.ok()) return std::nullopt;
    return "null value in column \"" + rel.columns[i] + "\" of relation \"" + rel.name +
           "\" violates not-null constraint" + (values[i].is_null() ? "" : ": " + s.message());
  };
  if (insert || rel.key.empty()) {
    for (size_t i = 0; i < rel.columns.size(); ++i) {
      if (auto e = encode(i, row)) return e;
    }
  }
  for (int k : rel.key) {
    if (auto e = encode(static_cast<size_t>(k), key)) return e;
  }
  return std::nullopt;
}

// ---- COPY

Status CopyReader::Init() {
  if (spec_.columns.empty()) {
    for (size_t i = 0; i < rel_.columns.size(); ++i) target_.push_back(static_cast<int>(i));
  } else {
    for (const std::string& c : spec_.columns) {
      auto it = std::find(rel_.columns.begin(), rel_.columns.end(), c);
      if (it == rel_.columns.end()) {
        return Status::InvalidArgument("column \"" + c + "\" of relation \"" + rel_.name +
                                       "\" does not exist");
      }
      const int index = static_cast<int>(it - rel_.columns.begin());
      if (std::find(target_.begin(), target_.end(), index) != target_.end()) {
        return Status::InvalidArgument("column \"" + c + "\" specified more than once");
      }
      target_.push_back(index);
    }
  }
  // A column the COPY leaves out takes its DEFAULT, or is NULL.
  left_out_.assign(rel_.columns.size(), CopyField{"", true});
  for (size_t i = 0; i < rel_.defaults.size() && i < left_out_.size(); ++i) {
    if (!rel_.defaults[i].is_null())
      left_out_[i] = CopyField{sql::ValueToPgText(rel_.defaults[i], rel_.schema[i]), false};
  }
  format::FormatOptions o;
  o.name = "csv";
  bool in_order = true;
  for (size_t i = 0; i < target_.size(); ++i) in_order &= target_[i] == static_cast<int>(i);
  direct_ =
      spec_.csv && spec_.null_marker.empty() && in_order && target_.size() == rel_.columns.size();
  o.weights = false;
  if (direct_) {
    o.delimiter = spec_.delimiter;
    o.headers = spec_.header;
  }
  SLUICE_ASSIGN_OR_RETURN(decoder_, format::MakeDecoder(o, rel_));
  return Status::OK();
}

void CopyReader::DecodeDirect(bool at_end) {
  if (error_ || ended_) return;
  size_t n = at_end ? pending_.size() : decoder_->CompleteRecords(pending_);
  std::string_view chunk(pending_.data(), n);
  // The end-of-data marker, a line of its own.
  for (size_t at = 0; at < chunk.size();) {
    if (chunk.compare(at, 2, "\\.") == 0 &&
        (at + 2 == chunk.size() || chunk[at + 2] == '\n' || chunk[at + 2] == '\r')) {
      chunk = chunk.substr(0, at);
      ended_ = true;
      break;
    }
    const size_t nl = chunk.find('\n', at);
    if (nl == npos) break;
    at = nl + 1;
  }
  std::vector<format::RecordError> errors;
  uint64_t count = 0;
  const size_t before = changes_.size();
  position_ = decoder_->Decode(chunk, position_, &changes_, &errors, &count);
  if (count > 0 && !errors.empty()) {
    error_ =
        "COPY " + rel_.name + ", line " + std::to_string(errors[0].line) + ": " + errors[0].reason;
  }
  records_ += changes_.size() - before;
  pending_.erase(0, ended_ ? pending_.size() : n);
}

namespace {

// One CSV record from `data` at `*pos`: 1 read, 0 not whole yet (or
// nothing left), -1 malformed.
int NextCsvRecord(std::string_view data, size_t* pos, const CopySpec& spec, bool at_end,
                  std::vector<CopyField>* fields, uint64_t* newlines) {
  fields->assign(1, CopyField{});
  size_t i = *pos;
  bool in_quotes = false, quoted = false;
  uint64_t nl = 0;
  auto finish = [&]() {
    CopyField& f = fields->back();
    if (!quoted && f.text == spec.null_marker) {
      f.null = true;
      f.text.clear();
    }
    quoted = false;
  };
  while (i < data.size()) {
    const char c = data[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 >= data.size() && !at_end) return 0;
        if (i + 1 < data.size() && data[i + 1] == '"') {
          fields->back().text.push_back('"');
          i += 2;
          continue;
        }
        in_quotes = false;
        ++i;
        continue;
      }
      if (c == '\n') ++nl;
      fields->back().text.push_back(c);
      ++i;
      continue;
    }
    if (c == '"') {
      in_quotes = quoted = true;
      ++i;
    } else if (c == spec.delimiter) {
      finish();
      fields->emplace_back();
      ++i;
    } else if (c == '\n' || (c == '\r' && i + 1 < data.size() && data[i + 1] == '\n')) {
      finish();
      *pos = i + (c == '\r' ? 2 : 1);
      *newlines = nl + 1;
      return 1;
    } else {
      fields->back().text.push_back(c);
      ++i;
    }
  }
  if (!at_end || i == *pos) return 0;
  if (in_quotes) return -1;
  finish();
  *pos = i;
  *newlines = nl;
  return 1;
}

}  // namespace

Status CopyReader::Feed(std::string_view data) {
  pending_.append(data);
  if (direct_) {
    if (pending_.size() >= (256u << 10)) DecodeDirect(false);
    return Status::OK();
  }
  return Records(false);
}

Status CopyReader::Records(bool at_end) {
  size_t pos = 0;
  std::vector<CopyField> fields;
  std::vector<CopyField> row(rel_.columns.size());
  while (!ended_ && !error_ && pos < pending_.size()) {
    const std::string_view rest = std::string_view(pending_).substr(pos);
    // The end-of-data marker, a line of its own.
    if (rest.substr(0, 2) == "\\." &&
        (rest.size() == 2 ? at_end : rest[2] == '\n' || (rest[2] == '\r' && rest.size() > 3))) {
      ended_ = true;
      break;
    }
    const uint64_t line = line_;
    uint64_t newlines = 0;
    if (spec_.csv) {
      const int r = NextCsvRecord(pending_, &pos, spec_, at_end, &fields, &newlines);
      if (r == 0) break;
      if (r < 0) {
        error_ = "COPY " + rel_.name + ", line " + std::to_string(line) +
                 ": unterminated CSV quoted field";
        break;
      }
    } else {
      size_t end = pending_.find('\n', pos);
      if (end == npos && !at_end) break;
      if (end == npos) end = pending_.size();
      std::string_view text = std::string_view(pending_).substr(pos, end - pos);
      if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
      pos = std::min(end + 1, pending_.size());
      newlines = 1;
      Status s = ParseCopyTextLine(text, spec_.delimiter, spec_.null_marker, &fields);
      if (!s.ok()) {
        error_ = "COPY " + rel_.name + ", line " + std::to_string(line) + ": " + s.message();
        break;
      }
    }
    line_ += newlines;
    if (spec_.header && !header_skipped_) {
      header_skipped_ = true;
      continue;
    }
    if (fields.size() < target_.size()) {
      error_ = "COPY " + rel_.name + ", line " + std::to_string(line) +
               ": missing data for column \"" +
               rel_.columns[static_cast<size_t>(target_[fields.size()])] + "\"";
      break;
    }
    if (fields.size() > target_.size()) {
      error_ = "COPY " + rel_.name + ", line " + std::to_string(line) +
               ": extra data after last expected column";
      break;
    }
    row = left_out_;
    for (size_t i = 0; i < fields.size(); ++i)
      row[static_cast<size_t>(target_[i])] = std::move(fields[i]);
    for (size_t i = 0; i < row.size(); ++i) {
      if (i > 0) canonical_.push_back(',');
      AppendCsvField(row[i], ',', &canonical_);
    }
    canonical_.push_back('\n');
    lines_.push_back(line);
    ++records_;
  }
  pending_.erase(0, pos);
  if (canonical_.size() >= (1u << 20)) return Decode();
  return Status::OK();
}

Status CopyReader::Decode() {
  if (canonical_.empty() || error_) return Status::OK();
  std::vector<format::RecordError> errors;
  uint64_t count = 0;
  decoder_->Decode(canonical_, format::Position{1, 1}, &changes_, &errors, &count);
  if (count > 0 && !errors.empty()) {
    const size_t r = static_cast<size_t>(errors[0].record) - 1;
    error_ = "COPY " + rel_.name + ", line " + std::to_string(r < lines_.size() ? lines_[r] : 0) +
             ": " + errors[0].reason;
  }
  canonical_.clear();
  lines_.clear();
  return Status::OK();
}

Result<format::ChangeBuffer> CopyReader::Finish() {
  if (direct_) {
    DecodeDirect(true);
  } else if (!ended_ && !error_) {
    SLUICE_RETURN_IF_ERROR(Records(true));
  }
  SLUICE_RETURN_IF_ERROR(Decode());
  if (error_) return Status::InvalidArgument(*error_);
  return std::move(changes_);
}

void FormatCopyLine(const CopySpec& spec, const std::vector<Value>& row,
                    const std::vector<sql::Column>& columns, const sql::OutputStyle& style,
                    std::string* line) {
  line->clear();
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) line->push_back(spec.delimiter);
    if (row[i].is_null()) {
      if (!spec.csv) line->append(spec.null_marker);
      continue;
    }
    const std::string text = sql::ValueToPgText(row[i], columns[i].type, style);
    if (spec.csv) {
      AppendCsvField(CopyField{text, false}, spec.delimiter, line);
    } else {
      AppendCopyText(text, spec.delimiter, line);
    }
  }
  line->push_back('\n');
}

}  // namespace sluice::pgwire
