#include "sql/parser.h"

#include <pg_query.h>

#include <cctype>
#include <nlohmann/json.hpp>

namespace sluice::sql {

namespace {

// The smallest location in a subtree: where the node's text starts.
int FirstLocation(const Json& node) {
  int best = -1;
  if (node.is_object()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      int l =
          it.key() == "location" && it->is_number_integer() ? it->get<int>() : FirstLocation(*it);
      if (l >= 0 && (best < 0 || l < best)) best = l;
    }
  } else if (node.is_array()) {
    for (const Json& e : node) {
      int l = FirstLocation(e);
      if (l >= 0 && (best < 0 || l < best)) best = l;
    }
  }
  return best;
}

}  // namespace

int Location(const Json& node) {
  if (!node.is_object()) return -1;
  auto it = node.find("location");
  if (it != node.end() && it->is_number_integer() && it->get<int>() >= 0) return it->get<int>();
  // Most nodes are wrapped as {"NodeType": {...}}.
  if (node.size() == 1 && node.begin()->is_object()) {
    auto inner = node.begin()->find("location");
    if (inner != node.begin()->end() && inner->is_number_integer() && inner->get<int>() >= 0) {
      return inner->get<int>();
    }
  }
  // A node without a location of its own (a cast, a JOIN): where its text starts.
  return FirstLocation(node);
}

std::string FormatSqlError(std::string_view sql, int offset, std::string_view message) {
  if (offset < 0 || static_cast<size_t>(offset) > sql.size()) return std::string(message);
  size_t line_start = 0;
  int line = 1;
  for (size_t i = 0; i < static_cast<size_t>(offset); ++i) {
    if (sql[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  size_t line_end = sql.find('\n', line_start);
  if (line_end == std::string_view::npos) line_end = sql.size();
  std::string_view text = sql.substr(line_start, line_end - line_start);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  size_t column = static_cast<size_t>(offset) - line_start + 1;
  std::string out = "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " +
                    std::string(message) + "\n  " + std::string(text) + "\n  ";
  for (size_t i = 1; i < column; ++i)
    out += (i - 1 < text.size() && text[i - 1] == '\t') ? '\t' : ' ';
  out += '^';
  return out;
}

Status SqlError(std::string_view sql, const Json& node, std::string_view message) {
  return Status::InvalidArgument(FormatSqlError(sql, Location(node), message));
}

Status SqlUnsupported(std::string_view sql, const Json& node, std::string_view feature) {
  return Status::Unimplemented(
      FormatSqlError(sql, Location(node), std::string(feature) + " is not supported yet"));
}

Status SqlUnsupported(std::string_view sql, const Json& node, std::string_view feature,
                      std::string_view instead) {
  return Status::Unimplemented(
      FormatSqlError(sql, Location(node),
                     std::string(feature) + " is not supported yet. " + std::string(instead)));
}

namespace {

// A syntax error at `at` that is Feldera's syntax, which we do not have yet:
// what to say instead ("" if it is not).
std::string FelderaSyntax(std::string_view sql, size_t at) {
  auto word_at = [&](size_t i) {
    size_t end = i;
    while (end < sql.size() &&
           (std::isalnum(static_cast<unsigned char>(sql[end])) || sql[end] == '_')) {
      ++end;
    }
    std::string w(sql.substr(i, end - i));
    for (char& c : w) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return w;
  };
  if (at >= sql.size()) return "";
  const std::string word = word_at(at);
  if (word == "LATENESS" || word == "WATERMARK") {
    return word + " (a column annotation of Feldera's time-series SQL) is not supported yet";
  }
  if (word == "INTERNED")
    return "INTERNED (Feldera's string column annotation) is not supported yet";
  if (word == "ROW" && sql.substr(at + 3).find_first_not_of(' ') != std::string_view::npos &&
      sql[sql.find_first_not_of(' ', at + 3)] == '(') {
    return "the type ROW(...) is not supported yet in SQL (the engine stores rows; JSON input "
           "gives them)";
  }
  // Feldera writes INTERVAL 1 DAY; PostgreSQL, INTERVAL '1' DAY.
  if (std::isdigit(static_cast<unsigned char>(sql[at])) && at >= 9) {
    size_t w = at;
    while (w > 0 && sql[w - 1] == ' ') --w;
    if (w >= 8 && word_at(w - 8) == "INTERVAL") {
      size_t end = at;
      while (end < sql.size() && std::isdigit(static_cast<unsigned char>(sql[end]))) ++end;
      const std::string n(sql.substr(at, end - at));
      return "INTERVAL " + n + " ... (Feldera's form) is not supported yet: write INTERVAL '" + n +
             "' DAY, or INTERVAL '" + n + " days', as PostgreSQL does";
    }
  }
  if (sql[at] == '<' && at >= 3 && word_at(at - 3) == "MAP") {
    return "the type MAP<K, V> is not supported yet in SQL (the engine stores maps; JSON input "
           "gives them)";
  }
  if (word == "TABLE" && sql.substr(at).find('(') != std::string_view::npos) {
    std::string rest = word_at(at + 6);
    if (sql.size() > at + 5 && sql[at + 5] == '(' && (rest == "TUMBLE" || rest == "HOP")) {
      return "TABLE(" + rest + "(TABLE t, DESCRIPTOR(col), ...)) is not supported yet: write " +
             (rest == "TUMBLE" ? std::string("tumble(col, size)")
                               : std::string("hop(col, slide, size)")) +
             " as an item of FROM (docs/sql.md: hopping and tumbling windows)";
    }
  }
  return "";
}

}  // namespace

void FillNegativeConstants(Json* tree, std::string_view sql) {
  if (tree->is_array()) {
    for (Json& x : *tree) FillNegativeConstants(&x, sql);
    return;
  }
  if (!tree->is_object()) return;
  if (tree->contains("A_Const")) {
    Json& c = (*tree)["A_Const"];
    const int loc = c.value("location", -1);
    if (c.contains("ival") && !c["ival"].contains("ival") && loc >= 0 &&
        static_cast<size_t>(loc) < sql.size() && sql[static_cast<size_t>(loc)] == '-') {
      // The parser folds minus signs into the constant ("- - ( - 6 )").
      size_t i = static_cast<size_t>(loc);
      int minus = 0;
      while (i < sql.size() &&
             (sql[i] == '-' || sql[i] == '(' || std::isspace(static_cast<unsigned char>(sql[i])))) {
        minus += sql[i++] == '-';
      }
      int64_t mag = 0;
      while (i < sql.size() && std::isdigit(static_cast<unsigned char>(sql[i]))) {
        mag = mag * 10 + (sql[i++] - '0');
      }
      c["ival"]["ival"] = minus % 2 ? -mag : mag;
    }
    return;
  }
  for (auto it = tree->begin(); it != tree->end(); ++it) FillNegativeConstants(&it.value(), sql);
}

Result<Json> ParseSql(std::string_view sql, std::string_view shown) {
  if (shown.size() != sql.size()) shown = sql;
  std::string text(sql);
  PgQueryParseResult r = pg_query_parse(text.c_str());
  if (r.error != nullptr) {
    // cursorpos is 1-based.
    const int at = r.error->cursorpos - 1;
    const std::string feldera = at >= 0 ? FelderaSyntax(shown, static_cast<size_t>(at)) : "";
    std::string msg = FormatSqlError(shown, at, feldera.empty() ? r.error->message : feldera);
    pg_query_free_parse_result(r);
    return feldera.empty() ? Status::InvalidArgument(std::move(msg))
                           : Status::Unimplemented(std::move(msg));
  }
  Json tree = Json::parse(r.parse_tree, nullptr, /*allow_exceptions=*/false);
  pg_query_free_parse_result(r);
  if (tree.is_discarded()) return Status::Internal("the parser returned malformed JSON");
  return tree;
}

void DropLocations(Json* tree) {
  if (tree->is_object()) {
    if (tree->contains("location")) (*tree)["location"] = -1;
    for (auto it = tree->begin(); it != tree->end(); ++it) DropLocations(&it.value());
  } else if (tree->is_array()) {
    for (Json& x : *tree) DropLocations(&x);
  }
}

}  // namespace sluice::sql
