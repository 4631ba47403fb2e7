#include "sql/lateness.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <regex>

#include "sql/binder.h"
#include "sql/parser.h"
#include "sql/sql_text.h"

namespace sluice::sql {
namespace {

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Feldera writes INTERVAL 1 HOURS; PostgreSQL, INTERVAL '1' HOUR or
// INTERVAL '1 hour'. The unquoted number gets quotes, and plural units lose
// their S, so that PostgreSQL's grammar takes it.
std::string AsPostgresInterval(const std::string& expr) {
  static const std::regex unquoted(R"(^\s*interval\s+(-?[0-9]+(?:\.[0-9]+)?)\s+(.*)$)",
                                   std::regex::icase);
  static const std::regex plural(R"(\b(year|month|day|hour|minute|second)s\b)", std::regex::icase);
  std::string out = expr;
  std::smatch m;
  if (std::regex_match(out, m, unquoted)) {
    out = "INTERVAL '" + m[1].str() + "' " + m[2].str();
  }
  // Only the units after the literal, never inside it.
  const size_t quote_end = out.rfind('\'');
  const size_t from = quote_end == std::string::npos ? 0 : quote_end + 1;
  return out.substr(0, from) + std::regex_replace(out.substr(from), plural, "$1");
}

}  // namespace

void StripLateness(std::string_view text, std::string* out, std::vector<LatenessClause>* clauses) {
  *out = std::string(text);
  std::string& s = *out;
  const size_t n = s.size();
  // Skips spaces and comments from `k`.
  auto skip_space = [&](size_t k) {
    for (;;) {
      while (k < n && std::isspace(static_cast<unsigned char>(s[k]))) ++k;
      if (k + 1 < n && s[k] == '-' && s[k + 1] == '-') {
        while (k < n && s[k] != '\n') ++k;
      } else if (k + 1 < n && s[k] == '/' && s[k + 1] == '*') {
        const size_t end = s.find("*/", k + 2);
        k = end == std::string::npos ? n : end + 2;
      } else {
        return k;
      }
    }
  };
  // The end of the quoted token at `k` (just after its closing quote).
  auto skip_quoted = [&](size_t k) {
    const char q = s[k];
    size_t end = k + 1;
    for (; end < n; ++end) {
      if (s[end] != q) continue;
      if (end + 1 < n && s[end + 1] == q) {
        ++end;
        continue;
      }
      break;
    }
    return std::min(end + 1, n);
  };
  // From `k`, the end of an expression: the first `,` or `)` at depth 0
  // (`stop_at_comma`), or `;`.
  auto expression_end = [&](size_t k, bool in_list) {
    int depth = 0;
    while (k < n) {
      k = skip_space(k);
      if (k >= n) break;
      const char c = s[k];
      if (c == '\'' || c == '"') {
        k = skip_quoted(k);
        continue;
      }
      if (c == ';') break;
      if (c == '(') ++depth;
      if (c == ')') {
        if (depth == 0) break;
        --depth;
      }
      if (c == ',' && depth == 0 && in_list) break;
      ++k;
    }
    return k;
  };
  int depth = 0;
  bool statement_start = true;
  std::string head;        // the statement's first two words, as "create table"
  bool after_open = true;  // the last token was `(` or `,`: a column's name comes
  for (size_t i = skip_space(0); i < n; i = skip_space(i)) {
    const char c = s[i];
    if (c == '\'' || c == '"') {
      i = skip_quoted(i);
      statement_start = false;
      after_open = false;
      continue;
    }
    if (IsWordChar(c)) {
      size_t end = i;
      while (end < n && IsWordChar(s[end])) ++end;
      const bool lateness = AsciiLower(std::string_view(s).substr(i, end - i)) == "lateness";
      if (lateness && depth == 0 && statement_start) {
        // LATENESS relation.column expression;
        LatenessClause cl;
        cl.at = i;
        size_t k = skip_space(end);
        size_t w = k;
        while (w < n && IsWordChar(s[w])) ++w;
        cl.relation = AsciiLower(std::string_view(s).substr(k, w - k));
        k = skip_space(w);
        if (k < n && s[k] == '.') {
          k = skip_space(k + 1);
          w = k;
          while (w < n && IsWordChar(s[w])) ++w;
          cl.column = AsciiLower(std::string_view(s).substr(k, w - k));
          k = w;
        }
        cl.expr_at = skip_space(k);
        const size_t stop = expression_end(cl.expr_at, /*in_list=*/false);
        cl.expr = s.substr(cl.expr_at, stop - cl.expr_at);
        const size_t blank_to = stop < n ? stop + 1 : n;  // with its `;`
        for (size_t b = i; b < blank_to; ++b) {
          if (s[b] != '\n') s[b] = ' ';
        }
        clauses->push_back(std::move(cl));
        i = blank_to;
        continue;
      }
      if (lateness && depth == 1 && head == "create table" && !after_open) {
        // A column's annotation, up to the column's end.
        LatenessClause cl;
        cl.at = i;
        cl.expr_at = skip_space(end);
        const size_t stop = expression_end(cl.expr_at, /*in_list=*/true);
        cl.expr = s.substr(cl.expr_at, stop - cl.expr_at);
        while (!cl.expr.empty() && std::isspace(static_cast<unsigned char>(cl.expr.back())))
          cl.expr.pop_back();
        for (size_t b = i; b < stop; ++b) {
          if (s[b] != '\n') s[b] = ' ';
        }
        clauses->push_back(std::move(cl));
        i = stop;
        continue;
      }
      if (statement_start) head.clear();
      if (std::count(head.begin(), head.end(), ' ') < 1 && head.size() < 20) {
        head += (head.empty() ? "" : " ") + AsciiLower(std::string_view(s).substr(i, end - i));
      }
      statement_start = false;
      after_open = false;
      i = end;
      continue;
    }
    if (c == '(') ++depth;
    if (c == ')' && depth > 0) --depth;
    statement_start = c == ';';
    after_open = c == '(' || c == ',';
    ++i;
  }
}

Status ApplyLateness(std::string_view text, const LatenessClause& clause, int column,
                     TableDef* table) {
  const Column& col = table->columns[static_cast<size_t>(column)];
  const TypeId id = col.type.id();
  // A TIME WITH TIME ZONE's value is not its microseconds (types/time_tz.h).
  const bool temporal = id == TypeId::kTimestamp || id == TypeId::kDate ||
                        (id == TypeId::kTime && !col.type.IsTimeTz());
  if (!temporal && !col.type.IsInteger()) {
    return Status::Unimplemented(FormatSqlError(
        text, static_cast<int>(clause.at),
        "LATENESS on a column of type " + col.type.ToString() +
            " is not supported yet (TIMESTAMP, DATE, TIME and integer columns take it)"));
  }
  if (!table->primary_key.empty()) {
    // A keyed table's deletes and updates name the key, not the time, so a
    // late one could not be told from a timely one.
    return Status::Unimplemented(
        FormatSqlError(text, static_cast<int>(clause.at),
                       "LATENESS on a table with a PRIMARY KEY is not supported yet"));
  }
  if (table->lateness_column >= 0) {
    return Status::InvalidArgument(
        FormatSqlError(text, static_cast<int>(clause.at),
                       "table " + table->name + " already has a LATENESS column (" +
                           table->columns[static_cast<size_t>(table->lateness_column)].name +
                           "); only one is supported yet"));
  }
  const std::string what =
      temporal ? "a constant INTERVAL of days, hours, minutes or seconds (INTERVAL 1 HOURS, "
                 "INTERVAL '1' HOUR or INTERVAL '1 hour')"
               : "a constant integer";
  auto fail = [&](const std::string& why) {
    return Status::InvalidArgument(FormatSqlError(text, static_cast<int>(clause.expr_at),
                                                  "LATENESS of " + col.name + " must be " + what +
                                                      (why.empty() ? std::string() : ": " + why)));
  };
  const std::string sql = "SELECT " + AsPostgresInterval(clause.expr);
  Result<Json> tree = ParseSql(sql, sql);
  if (!tree.ok() || clause.expr.empty()) return fail("");
  const Json& stmts = (*tree)["stmts"];
  if (stmts.size() != 1 || !stmts[0]["stmt"].contains("SelectStmt")) return fail("");
  const Json& targets = stmts[0]["stmt"]["SelectStmt"].value("targetList", Json::array());
  if (targets.size() != 1) return fail("");
  // A word after the value would be taken as a column alias
  // (INTERVAL 1 HOURSS is INTERVAL '1' AS hourss): not a unit we know.
  if (targets[0]["ResTarget"].contains("name")) {
    return fail("\"" + targets[0]["ResTarget"]["name"].get<std::string>() +
                "\" is not a unit of time");
  }
  const SqlType target = temporal ? SqlType::Interval() : SqlType::BigInt();
  Catalog none;
  Result<Value> v = EvalConstant(none, sql, targets[0]["ResTarget"]["val"], target);
  if (!v.ok()) {
    std::string why = v.status().message();
    const size_t colon = why.find(": ");
    if (why.rfind("line ", 0) == 0 && colon != std::string::npos) why = why.substr(colon + 2);
    why = why.substr(0, why.find('\n'));
    return fail(why);
  }
  if (v->is_null()) return fail("it is NULL");
  int64_t lateness = 0;
  if (temporal) {
    const Interval& iv = v->interval_value();
    if (iv.months != 0) return fail("a month has no fixed length");
    constexpr int64_t kDay = 86400LL * 1000000;
    if (id == TypeId::kDate) {
      if (iv.micros % kDay != 0) return fail("a DATE column's lateness is whole days");
      lateness = iv.days + iv.micros / kDay;
    } else {
      lateness = iv.days * kDay + iv.micros;
    }
  } else {
    lateness = v->int_value();
  }
  if (lateness < 0) return fail("it is negative");
  table->lateness_column = column;
  table->lateness = lateness;
  return Status::OK();
}

}  // namespace sluice::sql
