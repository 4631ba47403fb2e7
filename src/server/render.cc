#include "server/render.h"

#include <algorithm>

#include "format/json.h"
#include "pipeline/message_json.h"
#include "sql/expr.h"

namespace sluice::server {
namespace {

bool IsNumber(const SqlType& t) {
  return t.IsInteger() || t.id() == TypeId::kDecimal || t.id() == TypeId::kReal ||
         t.id() == TypeId::kDouble;
}

// Display width: UTF-8 characters, not bytes.
size_t Width(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string Text(const Value& v, const SqlType& t) {
  if (v.is_null()) return "";
  if (t.id() == TypeId::kBoolean) return v.bool_value() ? "t" : "f";  // as psql
  return sql::ValueToText(v, t);
}

}  // namespace

std::string RenderText(const pipeline::QueryResult& r) {
  const size_t n = r.columns.size();
  std::vector<std::vector<std::string>> cells;
  std::vector<size_t> width(n);
  for (size_t i = 0; i < n; ++i) width[i] = Width(r.columns[i].name);
  for (const sql::Row& row : r.rows) {
    cells.emplace_back();
    for (size_t i = 0; i < n; ++i) {
      cells.back().push_back(Text(row[i], r.columns[i].type));
      width[i] = std::max(width[i], Width(cells.back().back()));
    }
  }
  auto pad = [](const std::string& s, size_t w, int align) {  // -1 left, 0 center, 1 right
    size_t fill = w - Width(s);
    size_t left = align < 0 ? 0 : align > 0 ? fill : fill / 2;
    return std::string(left, ' ') + s + std::string(fill - left, ' ');
  };
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += (i > 0 ? "|" : "") + std::string(" ") + pad(r.columns[i].name, width[i], 0) + " ";
  }
  out += "\n";
  for (size_t i = 0; i < n; ++i) out += (i > 0 ? "+" : "") + std::string(width[i] + 2, '-');
  out += "\n";
  // As psql: data rows end without trailing spaces.
  for (const auto& row : cells) {
    std::string line;
    for (size_t i = 0; i < n; ++i) {
      const bool right = IsNumber(r.columns[i].type);
      line += (i > 0 ? "|" : "") + std::string(" ");
      line += i + 1 == n && !right ? row[i] : pad(row[i], width[i], right ? 1 : -1);
      if (i + 1 < n) line += " ";
    }
    out += line + "\n";
  }
  out += "(" + std::to_string(r.rows.size()) + (r.rows.size() == 1 ? " row)\n" : " rows)\n");
  return out;
}

std::string RenderJson(const pipeline::QueryResult& r) {
  std::string out;
  for (const sql::Row& row : r.rows) {
    out += "{";
    for (size_t i = 0; i < r.columns.size(); ++i) {
      if (i > 0) out += ",";
      format::AppendJsonString(r.columns[i].name, &out);
      out += ":";
      format::AppendJsonValue(row[i], r.columns[i].type, &out);
    }
    out += "}\n";
  }
  return out;
}

std::string RenderCsv(const pipeline::QueryResult& r) {
  std::string out;
  for (const sql::Row& row : r.rows) {
    for (size_t i = 0; i < r.columns.size(); ++i) {
      if (i > 0) out += ",";
      if (row[i].is_null()) continue;
      std::string text = sql::ValueToText(row[i], r.columns[i].type);
      if (text.empty() || text.find_first_of(",\"\r\n") != std::string::npos) {
        out += "\"";
        for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
        out += "\"";
      } else {
        out += text;
      }
    }
    out += "\n";
  }
  return out;
}

std::string RenderStats(const pipeline::PipelineStats& stats) {
  return pipeline::MessageToJson(stats).dump();
}

std::string RenderStatus(const pipeline::PipelineStatus& status) {
  return pipeline::MessageToJson(status).dump();
}

std::string RenderCheckpoints(const std::vector<pipeline::CheckpointInfo>& list) {
  nlohmann::json j = nlohmann::json::array();
  for (const pipeline::CheckpointInfo& c : list) j.push_back(pipeline::MessageToJson(c));
  return j.dump();
}

}  // namespace sluice::server
