#include "sql/parser.h"

#include <pg_query.h>

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

Result<Json> ParseSql(std::string_view sql) {
  std::string text(sql);
  PgQueryParseResult r = pg_query_parse(text.c_str());
  if (r.error != nullptr) {
    // cursorpos is 1-based.
    std::string msg = FormatSqlError(sql, r.error->cursorpos - 1, r.error->message);
    pg_query_free_parse_result(r);
    return Status::InvalidArgument(std::move(msg));
  }
  Json tree = Json::parse(r.parse_tree, nullptr, /*allow_exceptions=*/false);
  pg_query_free_parse_result(r);
  if (tree.is_discarded()) return Status::Internal("the parser returned malformed JSON");
  return tree;
}

}  // namespace sluice::sql
