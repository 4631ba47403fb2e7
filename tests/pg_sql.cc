// SQL scripts checked against PostgreSQL: every statement of a script runs on
// a throwaway PostgreSQL 15 cluster and in a Sluice session (sql/session.h);
// every SELECT becomes a view, run over the data already there and
// incrementally (the data arriving over several steps, as the statements
// changed it), and both must hold exactly the rows PostgreSQL answers, each
// value as PostgreSQL prints it. No expected results are written down:
// PostgreSQL is the oracle.
//
//   pg_sql [--workers W] [--hosts H] [--mirror] [--setup FILE] [--verbose] FILE.sql|DIR...
//
// A script is PostgreSQL's SQL, statements ending with `;`. A comment line
//   -- sluice: error TEXT
// before a statement says that Sluice refuses it with an error containing
// TEXT (what it does not support yet, said so); PostgreSQL's answer is then
// not compared. psql's backslash commands are ignored. A table's
// `WITH (append_only = true)` is Sluice's alone: PostgreSQL gets the
// CREATE TABLE without it.
//
// --mirror is for scripts written for PostgreSQL alone (its regression
// scripts, say): the tables' contents come from PostgreSQL after every
// statement that changes them, statements Sluice has no use for run on
// PostgreSQL only, and queries that PostgreSQL refuses are skipped. It
// reports how many queries pass and groups the reasons of the others. A
// query whose answer is not Sluice's is asked of PostgreSQL again over
// copies of its tables that hold their rows in reverse order: where SQL
// leaves the answer open (peers in a ROWS frame, LIMIT without a total
// order), either answer passes, and a query none of whose answers is
// Sluice's is counted apart ("whose answer depends on the order of rows")
// and as failed in the closing line.
// --setup runs a script before each one (in --mirror mode, its tables
// mirrored too).
//
// Ends with "N passed, N failed" alone on a line; exits non-zero if any
// failed (in --mirror mode, only on a crash of the runner).
#include <libpq-fe.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pg_cluster.h"
#include "sql/expr.h"
#include "sql/parser.h"
#include "sql/sequences.h"
#include "sql/session.h"

namespace sluice {
namespace {

using sql::Json;

struct Options {
  int workers = 2;
  int hosts = 1;
  bool mirror = false;
  bool verbose = false;
  std::string setup;
};

struct Statement {
  int line = 0;
  std::string sql;
  std::string expect_error;  // from "-- sluice: error TEXT"
  std::string copy_data;     // the lines after COPY ... FROM STDIN, to "\\."
};

// `sql` without a WITH (append_only = true) clause, which PostgreSQL does not
// know.
std::string ForPostgres(const std::string& sql) {
  static const std::regex kAppendOnly(R"(\s+WITH\s*\(\s*'?append_only'?\s*=\s*'?true'?\s*\))",
                                      std::regex::icase);
  return std::regex_replace(sql, kAppendOnly, "");
}

bool IsCopyFromStdin(const std::string& sql) {
  std::string l;
  for (char c : sql) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return l.rfind("copy", 0) == 0 && l.find("from stdin") != std::string::npos;
}

// Splits a script into statements at `;` outside quotes, dollar quotes and
// comments; drops psql's backslash commands.
std::vector<Statement> SplitScript(const std::string& text) {
  std::vector<Statement> out;
  Statement cur;
  std::string pending_error;
  int line = 1;
  size_t i = 0;
  auto flush = [&]() {
    size_t b = cur.sql.find_first_not_of(" \t\r\n");
    if (b != std::string::npos) {
      cur.sql = cur.sql.substr(b);
      cur.expect_error = pending_error;
      pending_error.clear();
      out.push_back(cur);
    }
    cur = Statement{};
  };
  bool at_line_start = true;
  while (i < text.size()) {
    char c = text[i];
    if (at_line_start && c == '\\') {  // a psql command: to the end of the line
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (cur.sql.find_first_not_of(" \t\r\n") == std::string::npos && c != ' ' && c != '\t' &&
        c != '\n' && c != '\r') {
      cur.line = line;
    }
    at_line_start = false;
    if (c == '-' && i + 1 < text.size() && text[i + 1] == '-') {
      size_t e = text.find('\n', i);
      if (e == std::string::npos) e = text.size();
      std::string comment = text.substr(i, e - i);
      static const std::string kDirective = "-- sluice: error ";
      if (comment.rfind(kDirective, 0) == 0) pending_error = comment.substr(kDirective.size());
      i = e;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      size_t e = text.find("*/", i + 2);
      e = e == std::string::npos ? text.size() : e + 2;
      for (size_t k = i; k < e; ++k) line += text[k] == '\n';
      cur.sql += ' ';
      i = e;
      continue;
    }
    if (c == '\'' || c == '"') {
      size_t e = i + 1;
      while (e < text.size()) {
        if (text[e] == c) {
          if (e + 1 < text.size() && text[e + 1] == c) {
            e += 2;
            continue;
          }
          break;
        }
        if (c == '\'' && text[e] == '\\' && i > 0 && (text[i - 1] == 'E' || text[i - 1] == 'e'))
          ++e;
        ++e;
      }
      e = std::min(e + 1, text.size());
      for (size_t k = i; k < e; ++k) line += text[k] == '\n';
      cur.sql += text.substr(i, e - i);
      i = e;
      continue;
    }
    if (c == '$') {
      size_t e = i + 1;
      while (e < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[e])) || text[e] == '_'))
        ++e;
      if (e < text.size() && text[e] == '$') {
        std::string tag = text.substr(i, e - i + 1);
        size_t close = text.find(tag, e + 1);
        close = close == std::string::npos ? text.size() : close + tag.size();
        for (size_t k = i; k < close; ++k) line += text[k] == '\n';
        cur.sql += text.substr(i, close - i);
        i = close;
        continue;
      }
    }
    if (c == ';') {
      bool copy = IsCopyFromStdin(
          cur.sql.substr(std::min(cur.sql.find_first_not_of(" \t\r\n"), cur.sql.size())));
      flush();
      ++i;
      if (copy) {  // its data: the next lines, to a line "\."
        size_t from = text.find('\n', i);
        from = from == std::string::npos ? text.size() : from + 1;
        ++line;
        size_t end = from;
        while (end < text.size()) {
          size_t eol = text.find('\n', end);
          if (eol == std::string::npos) eol = text.size();
          ++line;
          if (text.compare(end, eol - end, "\\.") == 0) {
            out.back().copy_data = text.substr(from, end - from);
            end = eol + 1;
            break;
          }
          end = eol + 1;
        }
        i = std::min(end, text.size());
        at_line_start = true;
      }
      continue;
    }
    if (c == '\n') {
      ++line;
      at_line_start = true;
    }
    cur.sql += c;
    ++i;
  }
  flush();
  return out;
}

// Whether `sql` names `table` as a whole word, in any case ("emp" is not
// in "temp").
void CollectRelations(const sql::Json& n, std::vector<std::string>* out) {
  if (n.is_object()) {
    if (n.contains("RangeVar")) out->push_back(n["RangeVar"].value("relname", ""));
    for (const auto& x : n) CollectRelations(x, out);
  } else if (n.is_array()) {
    for (const auto& x : n) CollectRelations(x, out);
  }
}

// Whether the query reads `table`: a relation of its parse tree (not an
// alias that has its name), or, if it does not parse, a word of its text.
bool MentionsTable(const std::string& sql, const std::string& table) {
  if (auto tree = sql::ParseSql(sql); tree.ok()) {
    std::vector<std::string> names;
    CollectRelations(*tree, &names);
    return std::find(names.begin(), names.end(), table) != names.end();
  }
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string lower = sql;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (size_t at = lower.find(table); at != std::string::npos; at = lower.find(table, at + 1)) {
    if ((at == 0 || !word(lower[at - 1])) &&
        (at + table.size() == lower.size() || !word(lower[at + table.size()])))
      return true;
  }
  return false;
}

std::string FirstLine(const std::string& s) {
  std::string l = s.substr(0, s.find('\n'));
  while (!l.empty() && (l.back() == ' ' || l.back() == '\r')) l.pop_back();
  return l;
}

// The reason of a failure without its particulars, for grouping: quoted
// names and numbers become placeholders.
std::string Reason(const std::string& message) {
  std::string l = FirstLine(message), out;
  for (size_t i = 0; i < l.size(); ++i) {
    if (l[i] == '"') {
      size_t e = l.find('"', i + 1);
      if (e == std::string::npos) break;
      out += "\"" + l.substr(i + 1, e - i - 1) + "\"";
      i = e;
    } else {
      out += l[i];
    }
  }
  return out.substr(0, 140);
}

class Runner {
 public:
  Runner(PgCluster& pg, const Options& o) : pg_(pg), o_(o), session_(o.workers, o.hosts) {}

  int passed = 0, failed = 0, unsupported = 0, skipped = 0;
  // --mirror: queries whose answer PostgreSQL itself changes with the order
  // of the tables' rows, none of its answers Sluice's.
  int order_dependent = 0;
  std::map<std::string, int> reasons;  // --mirror: why queries did not pass

  void RunFile(const std::string& path, bool count = true) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    path_ = path;
    for (const Statement& st : SplitScript(ss.str())) Run(st);
    if (!count) passed = failed = unsupported = skipped = order_dependent = 0, reasons.clear();
  }

 private:
  void Fail(const Statement& st, const std::string& what, bool is_unsupported = false) {
    if (o_.mirror) {
      (is_unsupported ? unsupported : failed)++;
      ++reasons[(is_unsupported ? "unsupported: " : "failed: ") + Reason(what)];
    } else {
      ++failed;
    }
    if (!o_.mirror || o_.verbose) {
      std::printf("%s:%d: %s\n    %s\n", path_.c_str(), st.line, what.c_str(),
                  FirstLine(st.sql).c_str());
    }
  }

  // Where a statement that changes data meets a rule that Sluice refused
  // (PostgreSQL's rule then does what Sluice cannot): what to say; "" if it
  // meets none.
  std::string RuleMet(const Statement& st, const Json& stmt) {
    const std::vector<std::string> targets = Targets(stmt);
    for (const auto& [table, rules] : rules_) {
      const bool met = std::find(targets.begin(), targets.end(), table) != targets.end() ||
                       MentionsTable(st.sql, table);
      for (const auto& [name, rule] : rules) {
        if (!rule.error.empty() && o_.mirror && met)
          return "table " + table + " has rule " + name + ": " + rule.error;
      }
    }
    return "";
  }

  // Whether `stmt` is a SELECT with a LIMIT and no ORDER BY.
  static bool LimitsRows(const Json& stmt) {
    if (!stmt.contains("SelectStmt")) return false;
    const Json& sel = stmt["SelectStmt"];
    return sel.contains("limitCount") && !sel.contains("sortClause");
  }

  // The kind of statement and the tables it changes.
  static std::string Kind(const Json& tree) { return tree["stmt"].begin().key(); }
  static std::vector<std::string> Targets(const Json& stmt) {
    std::vector<std::string> out;
    const Json& body = stmt.begin().value();
    auto rel = [&](const Json& r) {
      if (r.is_object() && r.contains("relname")) out.push_back(r["relname"]);
    };
    if (body.contains("relation")) rel(body["relation"]);
    if (body.contains("into") && body["into"].contains("rel")) rel(body["into"]["rel"]);
    if (body.contains("relations")) {
      for (const Json& r : body["relations"]) {
        if (r.contains("RangeVar")) rel(r["RangeVar"]);
      }
    }
    if (body.contains("intoClause") && body["intoClause"].contains("rel"))
      rel(body["intoClause"]["rel"]);
    // WITH t AS (INSERT/UPDATE/DELETE ...): the tables its queries change.
    if (body.contains("withClause")) {
      for (const Json& cte : body["withClause"].value("ctes", Json::array())) {
        const Json& q = cte["CommonTableExpr"]["ctequery"];
        if (q.contains("InsertStmt") || q.contains("UpdateStmt") || q.contains("DeleteStmt")) {
          for (std::string& t : Targets(q)) out.push_back(std::move(t));
        }
      }
    }
    return out;
  }

  // PostgreSQL's rows of a query, each value as PostgreSQL prints it.
  bool PgRows(const std::string& sql, std::vector<std::vector<std::optional<std::string>>>* rows,
              std::string* error) {
    PGresult* r = PQexec(pg_.conn(), sql.c_str());
    ExecStatusType st = PQresultStatus(r);
    bool ok = st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK || st == PGRES_COPY_IN;
    if (!ok) *error = PQresultErrorMessage(r);
    if (ok && rows) {
      rows->clear();
      for (int i = 0; i < PQntuples(r); ++i) {
        std::vector<std::optional<std::string>> row;
        for (int j = 0; j < PQnfields(r); ++j) {
          if (PQgetisnull(r, i, j)) {
            row.emplace_back();
          } else {
            row.emplace_back(PQgetvalue(r, i, j));
          }
        }
        rows->push_back(std::move(row));
      }
    }
    PQclear(r);
    return ok;
  }

  // --mirror: makes Sluice's copy of `table` what PostgreSQL holds, creating
  // it from PostgreSQL's catalog first if needed.
  void Mirror(const std::string& table) {
    std::vector<std::vector<std::optional<std::string>>> cols, rows;
    std::string error;
    std::string q =
        "SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
        "JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE c.relname = '" +
        table + "' AND c.relkind IN ('r', 'p') AND pg_table_is_visible(c.oid) AND a.attnum > 0 " +
        "AND NOT a.attisdropped ORDER BY a.attnum";
    std::vector<std::vector<std::optional<std::string>>> found;
    if (!PgRows("SELECT 1 FROM pg_class c WHERE c.relname = '" + table +
                    "' AND c.relkind IN ('r', 'p') AND pg_table_is_visible(c.oid)",
                &found, &error) ||
        found.empty()) {
      return;  // gone, or not a table
    }
    if (!PgRows(q, &cols, &error)) return;  // a table may have no columns
    std::string ddl = "CREATE TABLE \"" + table + "\" (";
    for (size_t i = 0; i < cols.size(); ++i) {
      ddl += (i ? ", \"" : "\"") + *cols[i][0] + "\" " + *cols[i][1];
    }
    // Its primary key: a query grouped by it may read the other columns.
    std::vector<std::vector<std::optional<std::string>>> key;
    if (PgRows("SELECT a.attname FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid "
               "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY(i.indkey) "
               "WHERE c.relname = '" +
                   table +
                   "' AND pg_table_is_visible(c.oid) AND i.indisprimary "
                   "ORDER BY array_position(i.indkey::int2[], a.attnum)",
               &key, &error) &&
        !key.empty()) {
      ddl += ", PRIMARY KEY (";
      for (size_t i = 0; i < key.size(); ++i) ddl += (i ? ", \"" : "\"") + *key[i][0] + "\"";
      ddl += ")";
    }
    ddl += ")";
    if (ddl != mirrored_ddl_[table]) {
      if (session_.HasTable(table)) (void)session_.Statement("DROP TABLE \"" + table + "\"");
      mirrored_ddl_[table] = ddl;
      Status s = session_.Statement(ddl);
      if (!s.ok()) {
        table_errors_[table] = s.message();
        return;
      }
      table_errors_.erase(table);
    }
    if (!session_.HasTable(table)) return;
    if (!PgRows("SELECT * FROM \"" + table + "\"", &rows, &error)) return;
    Status s = session_.SetContents(table, rows);
    if (!s.ok()) table_errors_[table] = s.message();
    // A table that inherits from others is in their rows too (PostgreSQL's
    // SELECT of a parent reads its children): they are copied again.
    std::vector<std::vector<std::optional<std::string>>> parents;
    if (PgRows("SELECT p.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
               "JOIN pg_class p ON p.oid = i.inhparent WHERE c.relname = '" +
                   table + "' AND pg_table_is_visible(c.oid)",
               &parents, &error)) {
      for (const auto& p : parents) {
        if (p[0] && *p[0] != table && mirrored_ddl_.count(*p[0])) Mirror(*p[0]);
      }
    }
  }

  // Whether PostgreSQL's `name` is a table (not a view, which a rule may
  // make write to tables).
  bool PgIsTable(const std::string& name) {
    std::vector<std::vector<std::optional<std::string>>> kind;
    std::string e;
    return PgRows("SELECT relkind FROM pg_class WHERE oid = to_regclass('\"" + name + "\"')", &kind,
                  &e) &&
           !kind.empty() && kind[0][0] && (*kind[0][0] == "r" || *kind[0][0] == "p");
  }

  // Copies the tables a statement changed; a statement on a view (whose
  // rules write to tables) copies every table again.
  void MirrorTargets(const Json& stmt) {
    std::vector<std::string> targets = Targets(stmt);
    // What the rules of those tables changed instead.
    for (size_t i = 0; i < targets.size() && i < 64; ++i) {
      for (const auto& [name, rule] : rules_[targets[i]]) {
        for (const std::string& t : rule.targets) {
          if (std::find(targets.begin(), targets.end(), t) == targets.end()) targets.push_back(t);
        }
      }
    }
    for (const std::string& t : targets) {
      if (PgIsTable(t)) {
        Mirror(t);
      } else {
        std::vector<std::string> all;
        for (const auto& [name, ddl] : mirrored_ddl_) all.push_back(name);
        for (const std::string& n : all) Mirror(n);
      }
    }
  }

  // SET IntervalStyle and bytea_output change how values print, in the
  // session as in PostgreSQL's.
  void ApplySetting(const Json& set, const std::string& sql) {
    std::string name = set.value("name", "");
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value;
    for (const Json& a : set.value("args", Json::array())) {
      if (a.contains("A_Const") && a["A_Const"].contains("sval")) {
        value = a["A_Const"]["sval"].value("sval", "");
      }
    }
    for (char& c : value) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool reset = set.value("kind", "") != "VAR_SET_VALUE";
    if (name == "intervalstyle") {
      style_.interval = reset || value == "postgres"  ? sql::IntervalStyle::kPostgres
                        : value == "postgres_verbose" ? sql::IntervalStyle::kPostgresVerbose
                        : value == "sql_standard"     ? sql::IntervalStyle::kSqlStandard
                        : value == "iso_8601"         ? sql::IntervalStyle::kIso8601
                                                      : style_.interval;
      session_.set_interval_style(style_.interval);
    } else if (name == "bytea_output") {
      style_.bytea_escape = !reset && value == "escape";
      session_.set_bytea_escape(style_.bytea_escape);
    } else if (name == "extra_float_digits") {
      int digits = 1;
      for (const Json& a : set.value("args", Json::array())) {
        // The number from the statement's text: the parse tree of this
        // libpg_query loses a negative one (-3 comes as an empty ival).
        const int at = a.contains("A_Const") ? a["A_Const"].value("location", -1) : -1;
        if (at >= 0 && static_cast<size_t>(at) < sql.size()) {
          digits = std::atoi(sql.c_str() + at);
        } else if (!value.empty()) {
          digits = std::atoi(value.c_str());
        }
      }
      style_.extra_float_digits = reset ? 1 : digits;
    } else if (name == "datestyle") {
      // Its input order decides how dates in text read ('1/8/1999').
      std::string style;
      for (const Json& a : set.value("args", Json::array())) {
        if (a.contains("A_Const") && a["A_Const"].contains("sval")) {
          style += (style.empty() ? "" : ",") + a["A_Const"]["sval"].value("sval", "");
        }
      }
      sql::DateOrder order = sql::DateOrder::kMDY;
      if (reset || sql::DateOrderFromStyle(style, session_.date_order(), &order)) {
        session_.set_date_order(order);
      }
    }
  }

  // Inside PostgreSQL's transaction, 'now' in text is its start: Sluice's
  // session reads that time too (outside one, each reads its clock).
  void ShareTransactionTime() {
    std::optional<int64_t> micros;
    std::vector<std::vector<std::optional<std::string>>> rows;
    std::string error;
    if (PQtransactionStatus(pg_.conn()) == PQTRANS_INTRANS &&
        PgRows("SELECT (extract(epoch FROM now()) * 1000000)::int8", &rows, &error) &&
        rows.size() == 1 && rows[0][0]) {
      micros = std::stoll(*rows[0][0]);
    }
    session_.set_transaction_time(micros);
  }

  void Run(const Statement& st) {
    ShareTransactionTime();
    auto tree = sql::ParseSql(st.sql);
    std::string kind = tree.ok() && (*tree)["stmts"].size() == 1 ? Kind((*tree)["stmts"][0]) : "";
    if (kind == "VariableSetStmt") {
      // A client's setting: the runner prints values as it says.
      ApplySetting((*tree)["stmts"][0]["stmt"]["VariableSetStmt"], st.sql);
      std::string pg_error;
      if (!PgRows(st.sql, nullptr, &pg_error) && !o_.mirror) {
        Fail(st, "PostgreSQL refused the setting: " + FirstLine(pg_error));
      } else if (!o_.mirror) {
        ++passed;
      }
      return;
    }
    if (kind == "TransactionStmt" && !o_.mirror) {
      // BEGIN and COMMIT: Sluice's session applies each statement as it
      // comes, which a transaction that commits leaves as it is; within
      // one, 'now' reads PostgreSQL's start of it (ShareTransactionTime).
      const std::string k = (*tree)["stmts"][0]["stmt"]["TransactionStmt"].value("kind", "");
      if (k == "TRANS_STMT_BEGIN" || k == "TRANS_STMT_START" || k == "TRANS_STMT_COMMIT") {
        std::string pg_error;
        if (PgRows(st.sql, nullptr, &pg_error)) {
          ++passed;
        } else {
          Fail(st, "PostgreSQL refused the statement: " + FirstLine(pg_error));
        }
        return;
      }
    }
    if (!kind.empty() && kind != "RuleStmt" && sql::ChangesData((*tree)["stmts"][0]["stmt"]) &&
        sql::ReturnsData((*tree)["stmts"][0]["stmt"])) {
      Modify(st, (*tree)["stmts"][0]["stmt"]);
      return;
    }
    if (kind == "SelectStmt" && !(*tree)["stmts"][0]["stmt"]["SelectStmt"].contains("intoClause")) {
      Query(st, (*tree)["stmts"][0]["stmt"]);
      return;
    }
    std::string pg_error;
    bool pg_ok = PgRows(ForPostgres(st.sql), nullptr, &pg_error);
    if (pg_ok && IsCopyFromStdin(st.sql)) {
      pg_ok = PQputCopyData(pg_.conn(), st.copy_data.data(),
                            static_cast<int>(st.copy_data.size())) == 1 &&
              PQputCopyEnd(pg_.conn(), nullptr) == 1;
      PGresult* r = PQgetResult(pg_.conn());
      if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        pg_ok = false;
        pg_error = PQresultErrorMessage(r);
      }
      PQclear(r);
      while ((r = PQgetResult(pg_.conn())) != nullptr) PQclear(r);
    }
    if (o_.mirror) {
      if (!pg_ok || !tree.ok()) return;
      for (const Json& s : (*tree)["stmts"]) {
        std::string k = Kind(s);
        if (k == "CreateFunctionStmt" || k == "CompositeTypeStmt" || k == "CreateEnumStmt" ||
            k == "CreateDomainStmt" || k == "CreateRangeStmt" ||
            (k == "DefineStmt" &&
             (s["stmt"]["DefineStmt"].value("kind", "") == "OBJECT_AGGREGATE" ||
              s["stmt"]["DefineStmt"].value("kind", "") == "OBJECT_OPERATOR"))) {
          // Sluice keeps it, or why it cannot run it (its uses say so).
          (void)session_.Statement(st.sql);
          continue;
        }
        if (k == "CreateSeqStmt" || k == "AlterSeqStmt" ||
            (k == "DropStmt" &&
             s["stmt"]["DropStmt"].value("removeType", "") == "OBJECT_SEQUENCE")) {
          // Sluice keeps its own sequences, as PostgreSQL's are.
          (void)session_.Statement(st.sql);
          continue;
        }
        if (k == "RuleStmt") {
          // Sluice refuses it; the statements that meet the rule say so, and
          // the tables its actions change are copied with its table.
          const Json& r = s["stmt"]["RuleStmt"];
          Rule& rule = rules_[r["relation"].value("relname", "")][r.value("rulename", "")];
          Status v = session_.Statement(st.sql);
          rule.error = v.ok() ? "" : v.message();
          rule.targets.clear();
          for (const Json& a : r.value("actions", Json::array())) {
            if (a.is_object() && !a.empty())
              for (const std::string& t : Targets(a)) rule.targets.insert(t);
          }
          continue;
        }
        if (k == "DropStmt" && s["stmt"]["DropStmt"].value("removeType", "") == "OBJECT_RULE") {
          for (const Json& obj : s["stmt"]["DropStmt"]["objects"]) {
            const Json& items = obj["List"]["items"];
            if (items.size() < 2) continue;
            rules_[items[items.size() - 2]["String"].value("sval", "")].erase(
                items.back()["String"].value("sval", ""));
          }
          continue;
        }
        if (k == "DropStmt" && s["stmt"]["DropStmt"].value("removeType", "") == "OBJECT_VIEW") {
          for (const Json& obj : s["stmt"]["DropStmt"]["objects"]) {
            const std::string name = obj["List"]["items"].back()["String"].value("sval", "");
            (void)session_.Statement("DROP VIEW IF EXISTS \"" + name + "\"");
            view_errors_.erase(name);
          }
          continue;
        }
        if (k == "DropStmt") {
          for (const Json& obj : s["stmt"]["DropStmt"]["objects"]) {
            if (obj.contains("TypeName")) {
              const std::string t = obj["TypeName"]["names"].back()["String"].value("sval", "");
              (void)session_.Statement("DROP TYPE IF EXISTS \"" + t + "\"");
            }
            if (obj.contains("ObjectWithArgs")) {
              const std::string f =
                  obj["ObjectWithArgs"]["objname"].back()["String"].value("sval", "");
              (void)session_.Statement("DROP FUNCTION IF EXISTS \"" + f + "\"");
            }
            if (obj.contains("List")) {
              std::string name = obj["List"]["items"].back()["String"].value("sval", "");
              if (session_.HasTable(name)) (void)session_.Statement("DROP TABLE \"" + name + "\"");
              mirrored_ddl_.erase(name);
              // A dropped temporary table uncovers the table of that name
              // that it hid.
              if (PgIsTable(name)) Mirror(name);
            }
          }
          continue;
        }
        if (k == "ViewStmt") {
          Status v = session_.Statement(st.sql);
          const std::string name = s["stmt"]["ViewStmt"]["view"].value("relname", "");
          if (v.ok()) {
            view_errors_.erase(name);
          } else {
            view_errors_[name] = v.message();
          }
          continue;
        }
        MirrorTargets(s["stmt"]);
      }
      return;
    }
    Status s = session_.Statement(st.sql);
    if (!st.expect_error.empty()) {
      if (s.ok()) {
        Fail(st, "Sluice took the statement; expected the error \"" + st.expect_error + "\"");
      } else if (s.message().find(st.expect_error) == std::string::npos) {
        Fail(st, "expected the error \"" + st.expect_error + "\", got: " + s.message());
      } else {
        ++passed;
      }
      return;
    }
    if (pg_ok != s.ok()) {
      Fail(st, pg_ok ? "Sluice refused what PostgreSQL took: " + s.message()
                     : "Sluice took what PostgreSQL refused: " + FirstLine(pg_error));
      return;
    }
    ++passed;
  }

  // The names of the functions `n` calls.
  static void CollectCalls(const Json& n, std::vector<std::string>* out) {
    if (n.is_object()) {
      if (n.contains("FuncCall") && n["FuncCall"].contains("funcname"))
        out->push_back(n["FuncCall"]["funcname"].back()["String"].value("sval", ""));
      for (const auto& x : n) CollectCalls(x, out);
    } else if (n.is_array()) {
      for (const auto& x : n) CollectCalls(x, out);
    }
  }

  // PostgreSQL's answer to `sql` (parse tree `stmt`) over copies of the
  // tables it reads (and the SQL functions it calls read), each holding its
  // rows in the order `order` of their rows (in a schema searched first),
  // sorted as Query compares answers. False if it cannot be asked so.
  bool PgAnswerOverReorderedTables(const std::string& sql, const Json& stmt,
                                   const std::string& order,
                                   std::vector<std::vector<std::string>>* out) {
    std::vector<std::string> names, calls;
    CollectRelations(stmt, &names);
    CollectCalls(stmt, &calls);
    for (const std::string& f : calls) {
      std::vector<std::vector<std::optional<std::string>>> bodies;
      std::string error;
      if (f.empty() || f.find('\'') != std::string::npos ||
          !PgRows("SELECT p.prosrc FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang "
                  "WHERE l.lanname = 'sql' AND p.proname = '" +
                      f + "'",
                  &bodies, &error))
        continue;
      for (const auto& b : bodies) {
        if (!b[0]) continue;
        if (auto tree = sql::ParseSql(*b[0]); tree.ok()) CollectRelations(*tree, &names);
      }
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::string e;
    bool ok = PgRows("CREATE SCHEMA sluice_reversed", nullptr, &e);
    std::vector<std::string> copies;
    for (const std::string& t : names) {
      std::vector<std::vector<std::optional<std::string>>> kind;
      if (!ok ||
          !PgRows("SELECT c.relkind FROM pg_class c WHERE c.oid = to_regclass('\"" + t + "\"')",
                  &kind, &e))
        break;
      if (kind.empty() || !kind[0][0] || (*kind[0][0] != "r" && *kind[0][0] != "p")) continue;
      ok = PgRows("CREATE TABLE sluice_reversed.\"" + t + "\" AS SELECT * FROM \"" + t +
                      "\" ORDER BY " + order,
                  nullptr, &e);
      if (ok) copies.push_back(t);
    }
    std::vector<std::vector<std::optional<std::string>>> rows;
    ok = ok && PgRows("SET search_path = sluice_reversed, pg_temp, public", nullptr, &e) &&
         PgRows(sql, &rows, &e);
    (void)PgRows("RESET search_path", nullptr, &e);
    for (const std::string& t : copies)
      (void)PgRows("DROP TABLE sluice_reversed.\"" + t + "\"", nullptr, &e);
    (void)PgRows("DROP SCHEMA IF EXISTS sluice_reversed", nullptr, &e);
    if (!ok) return false;
    out->clear();
    for (const auto& row : rows) {
      std::vector<std::string> cells;
      for (const auto& v : row) cells.push_back(v ? *v : "\x01NULL");
      out->push_back(std::move(cells));
    }
    std::sort(out->begin(), out->end());
    return true;
  }

  // Rows as a message shows them: the first few.
  static std::string Show(const std::vector<std::vector<std::string>>& rows) {
    std::string out;
    for (size_t i = 0; i < rows.size() && i < 6; ++i) {
      out += i ? " | " : "";
      for (size_t j = 0; j < rows[i].size(); ++j) {
        out += (j ? "," : "") + (rows[i][j] == "\x01NULL" ? std::string("NULL") : rows[i][j]);
      }
    }
    return out + (rows.size() > 6 ? " | ..." : "");
  }

  static std::vector<sql::Column> VisibleColumns(const sql::BoundQuery& q) {
    return {q.plan->columns.begin(), q.plan->columns.begin() + static_cast<ptrdiff_t>(q.visible)};
  }

  // Sluice's rows as PostgreSQL prints them, sorted.
  std::vector<std::vector<std::string>> Cells(const std::vector<sql::Column>& columns,
                                              const std::vector<sql::Row>& rows) const {
    std::vector<std::vector<std::string>> out;
    for (const sql::Row& row : rows) {
      std::vector<std::string> cells;
      for (size_t i = 0; i < columns.size(); ++i) {
        cells.push_back(row[i].is_null() ? "\x01NULL"
                                         : sql::ValueToPgText(row[i], columns[i].type, style_));
      }
      out.push_back(std::move(cells));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  static std::vector<std::vector<std::string>> Cells(
      const std::vector<std::vector<std::optional<std::string>>>& rows) {
    std::vector<std::vector<std::string>> out;
    for (const auto& row : rows) {
      std::vector<std::string> cells;
      for (const auto& v : row) cells.push_back(v ? *v : "\x01NULL");
      out.push_back(std::move(cells));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // A statement that changes tables and answers with rows (RETURNING, or
  // a SELECT whose WITH changes tables): Sluice's rows must be
  // PostgreSQL's, and so must the tables it changed, after. Sluice runs it
  // first: in --mirror mode, its tables are PostgreSQL's as they were.
  void Modify(const Statement& st, const Json& stmt) {
    auto got = session_.Modify(st.sql);
    std::vector<std::vector<std::optional<std::string>>> want;
    std::string pg_error;
    const bool pg_ok = PgRows(ForPostgres(st.sql), &want, &pg_error);
    if (o_.mirror) {
      if (!pg_ok) {
        ++skipped;
      } else {
        CheckModify(st, stmt, got, want);
      }
      // Whatever Sluice did, its tables become PostgreSQL's again.
      MirrorTargets(stmt);
      return;
    }
    if (Refused(st, got.status(), pg_ok, pg_error)) return;
    CheckModify(st, stmt, got, want);
  }

  void CheckModify(const Statement& st, const Json& stmt, const Result<sql::DmlOutcome>& got,
                   const std::vector<std::vector<std::optional<std::string>>>& want) {
    const std::string rule_error = RuleMet(st, stmt);
    if (!got.ok()) {
      const bool unsup = got.status().message().find("not supported yet") != std::string::npos;
      Fail(st, unsup || rule_error.empty() ? got.status().message() : rule_error,
           unsup || !rule_error.empty());
      return;
    }
    const auto rows = Cells(got->returned.columns, got->returned.rows);
    const auto expected = Cells(want);
    if (rows != expected && !rule_error.empty()) {
      Fail(st, rule_error, true);
      return;
    }
    if (rows != expected && o_.mirror && rows.size() == expected.size() && LimitsRows(stmt)) {
      // LIMIT without ORDER BY: which rows PostgreSQL returns follows the
      // order it meets them in, and the statement cannot be asked again.
      ++order_dependent;
      if (o_.verbose) {
        std::printf("%s:%d: PostgreSQL answers %s, by the order of rows; Sluice: %s\n",
                    path_.c_str(), st.line, Show(expected).c_str(), Show(rows).c_str());
      }
      return;
    }
    if (rows != expected) {
      Fail(st, "wrong answer: " + std::to_string(rows.size()) + " rows " + Show(rows) +
                   "; PostgreSQL: " + std::to_string(expected.size()) + " rows " + Show(expected));
      return;
    }
    std::set<std::string> seen;
    for (const std::string& t : Targets(stmt)) {
      if (!seen.insert(t).second || !session_.HasTable(t)) continue;
      std::vector<std::vector<std::optional<std::string>>> pg_rows;
      std::string error;
      auto q = session_.Bind("SELECT * FROM \"" + t + "\"");
      if (!q.ok() || !PgRows("SELECT * FROM \"" + t + "\"", &pg_rows, &error)) continue;
      auto mine = session_.Evaluate(*q, false);
      if (!mine.ok()) continue;
      const auto have = Cells(VisibleColumns(*q), *mine);
      const auto should = Cells(pg_rows);
      if (have != should) {
        Fail(st, "table " + t + " after the statement: " + std::to_string(have.size()) + " rows " +
                     Show(have) + "; PostgreSQL: " + std::to_string(should.size()) + " rows " +
                     Show(should));
        return;
      }
    }
    ++passed;
  }

  // Where a statement is expected to fail (a "-- sluice: error" line, or
  // PostgreSQL refused it): counts whether Sluice's answer `got` agrees, and
  // returns true. False where both should answer.
  bool Refused(const Statement& st, const Status& got, bool pg_ok, const std::string& pg_error) {
    if (!st.expect_error.empty()) {
      if (got.ok()) {
        Fail(st, "Sluice answered; expected the error \"" + st.expect_error + "\"");
      } else if (got.message().find(st.expect_error) == std::string::npos) {
        Fail(st, "expected the error \"" + st.expect_error + "\", got: " + got.message());
      } else {
        ++passed;
      }
      return true;
    }
    if (pg_ok) return false;
    if (got.ok()) {
      Fail(st, "Sluice answered what PostgreSQL refused: " + FirstLine(pg_error));
    } else {
      ++passed;
    }
    return true;
  }

  // A query run once over the tables as they are (sql::SqlSession::Query),
  // whose rows must be PostgreSQL's.
  void AdhocQuery(const Statement& st, bool pg_ok,
                  const std::vector<std::vector<std::optional<std::string>>>& want,
                  const std::string& pg_error) {
    auto got = session_.Query(st.sql);
    if (Refused(st, got.status(), pg_ok, pg_error)) return;
    if (!got.ok()) {
      Fail(st, got.status().message(),
           got.status().message().find("not supported yet") != std::string::npos);
      return;
    }
    const auto rows = Cells(got->columns, got->rows);
    const auto expected = Cells(want);
    if (rows != expected) {
      Fail(st, "wrong answer: " + std::to_string(rows.size()) + " rows " + Show(rows) +
                   "; PostgreSQL: " + std::to_string(expected.size()) + " rows " + Show(expected));
      return;
    }
    ++passed;
  }

  // `stmt`: the statement's parse tree (one SELECT).
  void Query(const Statement& st, const Json& stmt) {
    std::vector<std::vector<std::optional<std::string>>> want;
    std::string pg_error;
    bool pg_ok = PgRows(st.sql, &want, &pg_error);
    if (o_.mirror && !pg_ok) {
      ++skipped;
      return;
    }
    if (o_.mirror) {
      // A SELECT whose WITH queries change tables: copy what they did.
      MirrorTargets(stmt);
      // A table whose contents could not be copied: its queries say why.
      for (const auto& [t, e] : table_errors_) {
        if (MentionsTable(st.sql, t)) {
          Fail(st, "table " + t + ": " + e, true);
          return;
        }
      }
    }
    if (sql::CallsSequenceFunction(stmt)) {
      // nextval() and its kin: once, as an ad hoc query (a view refuses
      // them).
      AdhocQuery(st, pg_ok, want, pg_error);
      return;
    }
    std::string error;
    std::vector<std::vector<std::string>> got[2];
    bool sluice_ok = true;
    auto q = session_.Bind(st.sql);
    if (!q.ok()) {
      sluice_ok = false;
      error = q.status().message();
    }
    for (int incremental = 0; sluice_ok && incremental < 2; ++incremental) {
      auto rows = session_.Evaluate(*q, incremental == 1);
      if (!rows.ok()) {
        // An evaluation error over the data already there is PostgreSQL's
        // error too; the incremental run may meet it in an intermediate
        // state only.
        sluice_ok = false;
        error = rows.status().message();
        break;
      }
      got[incremental] = Cells(VisibleColumns(*q), *rows);
    }
    if (!st.expect_error.empty()) {
      if (sluice_ok) {
        Fail(st, "Sluice answered; expected the error \"" + st.expect_error + "\"");
      } else if (error.find(st.expect_error) == std::string::npos) {
        Fail(st, "expected the error \"" + st.expect_error + "\", got: " + error);
      } else {
        ++passed;
      }
      return;
    }
    if (!pg_ok) {
      if (sluice_ok) {
        Fail(st, "Sluice answered what PostgreSQL refused: " + FirstLine(pg_error));
      } else {
        ++passed;
      }
      return;
    }
    if (!sluice_ok) {
      bool unsup = error.find("not supported yet") != std::string::npos;
      if (o_.mirror && !unsup) {
        for (const auto& [t, e] : table_errors_) {
          if (MentionsTable(st.sql, t)) {
            unsup = true;
            error = "table " + t + ": " + e;
            break;
          }
        }
        // A view Sluice refused (pg_get_viewdef('v') names it in a string).
        for (const auto& [v, e] : view_errors_) {
          if (!unsup && e.find("not supported yet") != std::string::npos &&
              error.find("relation \"" + v + "\" does not exist") != std::string::npos) {
            unsup = true;
            error = "view " + v + ": " + e;
          }
        }
      }
      Fail(st, error, unsup);
      return;
    }
    const std::vector<std::vector<std::string>> expected = Cells(want);
    auto show = Show;
    if (o_.mirror && (got[0] != expected || got[1] != expected) && Targets(stmt).empty()) {
      // Where SQL leaves the answer to the implementation (the order of
      // peers in a ROWS frame or a window without ORDER BY, LIMIT without a
      // total order), PostgreSQL's own answer follows the order its tables
      // hold their rows in. Such a query is asked again over copies of its
      // tables holding the same rows in reverse order, then in a few
      // shuffled orders (a frame symmetric around its row gives the same
      // answer over rows in reverse); an answer PostgreSQL gives over any
      // of them is right, and a query none of whose answers is Sluice's is
      // counted apart.
      std::vector<std::vector<std::vector<std::string>>> others;
      for (int seed = 0; seed <= 6; ++seed) {
        const std::string order =
            seed == 0 ? "ctid DESC" : "md5(ctid::text || '" + std::to_string(seed) + "')";
        std::vector<std::vector<std::string>> other;
        if (!PgAnswerOverReorderedTables(st.sql, stmt, order, &other)) break;
        if (other != expected && std::find(others.begin(), others.end(), other) == others.end())
          others.push_back(std::move(other));
        if (!others.empty() && got[0] == others.back() && got[1] == others.back()) break;
      }
      if (!others.empty()) {
        auto given = [&](const std::vector<std::vector<std::string>>& rows) {
          return rows == expected || std::find(others.begin(), others.end(), rows) != others.end();
        };
        if (given(got[0]) && given(got[1])) {
          ++passed;
        } else {
          ++order_dependent;
          if (o_.verbose) {
            std::printf("%s:%d: PostgreSQL answers %s or %s, by the order of rows; Sluice: %s\n",
                        path_.c_str(), st.line, show(expected).c_str(), show(others[0]).c_str(),
                        show(got[0]).c_str());
          }
        }
        return;
      }
    }
    if (got[0] != expected && !Targets(stmt).empty() && !RuleMet(st, stmt).empty()) {
      Fail(st, RuleMet(st, stmt), true);
      return;
    }
    if (got[0] != expected) {
      Fail(st, "wrong answer: " + std::to_string(got[0].size()) + " rows " + show(got[0]) +
                   "; PostgreSQL: " + std::to_string(expected.size()) + " rows " + show(expected));
      return;
    }
    if (got[1] != expected) {
      Fail(st, "the incremental run differs: " + std::to_string(got[1].size()) + " rows " +
                   show(got[1]) + "; PostgreSQL: " + show(expected));
      return;
    }
    ++passed;
  }

  PgCluster& pg_;
  Options o_;
  sql::SqlSession session_;
  sql::OutputStyle style_;  // as the script's SET statements have it
  std::string path_;
  std::map<std::string, std::string> mirrored_ddl_, table_errors_, view_errors_;
  // PostgreSQL's rules (CREATE RULE), by table and name: Sluice's error for
  // each, and the tables its actions change.
  struct Rule {
    std::string error;
    std::set<std::string> targets;
  };
  std::map<std::string, std::map<std::string, Rule>> rules_;
};

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) {
  sluice::Options o;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() { return i + 1 < argc ? std::atoi(argv[++i]) : 0; };
    if (a == "--workers") {
      o.workers = next();
    } else if (a == "--hosts") {
      o.hosts = next();
    } else if (a == "--mirror") {
      o.mirror = true;
    } else if (a == "--setup" && i + 1 < argc) {
      o.setup = argv[++i];
    } else if (a == "--verbose") {
      o.verbose = true;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "pg_sql: unknown argument '%s'\n", a.c_str());
      return 2;
    } else if (std::filesystem::is_directory(a)) {
      for (const auto& e : std::filesystem::directory_iterator(a)) {
        if (e.path().extension() == ".sql") files.push_back(e.path().string());
      }
    } else {
      files.push_back(a);
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "usage: pg_sql [--workers W] [--hosts H] [--mirror] FILE.sql|DIR...\n");
    return 2;
  }
  int passed = 0, failed = 0, unsupported = 0, skipped = 0, order_dependent = 0;
  std::map<std::string, int> reasons;
  for (const std::string& f : files) {
    // A fresh PostgreSQL and session per script, as each script expects.
    sluice::PgCluster pg;
    std::string error;
    if (!pg.Start(&error)) {
      std::fprintf(stderr, "pg_sql: %s\n", error.c_str());
      return 2;
    }
    (void)pg.Exec("SET TIME ZONE 'UTC'; SET DateStyle = 'ISO, MDY'; SET IntervalStyle = 'postgres'",
                  nullptr, &error);
    sluice::Runner r(pg, o);
    if (!o.setup.empty()) r.RunFile(o.setup, false);
    r.RunFile(f);
    std::printf("%s: %d passed, %d failed%s\n", f.c_str(), r.passed,
                r.failed + r.unsupported + r.order_dependent,
                o.mirror ? (", " + std::to_string(r.unsupported) + " not supported yet, " +
                            std::to_string(r.order_dependent) +
                            " whose answer depends on the order of rows, " +
                            std::to_string(r.skipped) + " refused by PostgreSQL")
                               .c_str()
                         : "");
    std::fflush(stdout);
    passed += r.passed;
    failed += r.failed;
    unsupported += r.unsupported;
    skipped += r.skipped;
    order_dependent += r.order_dependent;
    for (const auto& [k, n] : r.reasons) reasons[k] += n;
  }
  if (o.mirror) {
    std::vector<std::pair<int, std::string>> top;
    for (const auto& [k, n] : reasons) top.emplace_back(-n, k);
    std::sort(top.begin(), top.end());
    std::printf("\nwhy queries did not pass (most frequent first):\n");
    for (size_t i = 0; i < top.size() && i < 60; ++i)
      std::printf("%6d  %s\n", -top[i].first, top[i].second.c_str());
    int total = passed + failed + unsupported + order_dependent;
    std::printf(
        "\nqueries: %d, passed %d (%.1f%%), wrong or failed %d, not supported yet %d, "
        "answer depends on the order of rows %d (passed %.1f%% of the others)\n",
        total, passed, total ? 100.0 * passed / total : 0.0, failed, unsupported, order_dependent,
        total > order_dependent ? 100.0 * passed / (total - order_dependent) : 0.0);
  }
  std::printf("%d passed, %d failed\n", passed, failed + unsupported + order_dependent);
  return !o.mirror && failed + unsupported > 0 ? 1 : 0;
}
