#include "server/render.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <optional>

#include "format/json.h"
#include "pipeline/message_json.h"
#include "pipeline/step_loop.h"
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

std::string RenderJson(const pipeline::QueryResult& r, bool headers) {
  std::string out;
  if (headers) {
    out = "{\"columns\":[";
    for (size_t i = 0; i < r.columns.size(); ++i) {
      if (i > 0) out += ",";
      out += "{\"name\":";
      format::AppendJsonString(r.columns[i].name, &out);
      out += ",\"type\":";
      format::AppendJsonString(r.columns[i].type.ToString(), &out);
      out += "}";
    }
    out += "],\"step\":" + std::to_string(r.step) + "}\n";
  }
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

namespace {

// A CSV field: quoted when it must be (or is empty, which NULL is not).
void AppendCsvField(const std::string& text, std::string* out) {
  if (text.empty() || text.find_first_of(",\"\r\n") != std::string::npos) {
    *out += "\"";
    for (char c : text) *out += c == '"' ? std::string("\"\"") : std::string(1, c);
    *out += "\"";
  } else {
    *out += text;
  }
}

}  // namespace

std::string RenderCsvHeader(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ",";
    AppendCsvField(names[i], &out);
  }
  return out + "\n";
}

std::string RenderCsv(const pipeline::QueryResult& r, bool headers) {
  std::string out;
  if (headers) {
    std::vector<std::string> names;
    for (const auto& c : r.columns) names.push_back(c.name);
    out = RenderCsvHeader(names);
  }
  for (const sql::Row& row : r.rows) {
    for (size_t i = 0; i < r.columns.size(); ++i) {
      if (i > 0) out += ",";
      if (row[i].is_null()) continue;
      AppendCsvField(sql::ValueToText(row[i], r.columns[i].type), &out);
    }
    out += "\n";
  }
  return out;
}

std::string RenderStats(const pipeline::PipelineStats& stats, bool pretty,
                        const HttpServerStats* http) {
  nlohmann::json j = pipeline::MessageToJson(stats);
  if (http != nullptr) {
    j["http"] = {{"connections", http->connections},
                 {"connections_accepted", http->connections_accepted},
                 {"connections_refused", http->connections_refused},
                 {"connections_timed_out", http->connections_timed_out},
                 {"connections_idle_closed", http->connections_idle_closed},
                 {"requests", http->requests},
                 {"streams", http->streams}};
  }
  return j.dump(pretty ? 2 : -1) + (pretty ? "\n" : "");
}

namespace {

// A label value, escaped as the text format wants.
std::string Label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

class Metrics {
 public:
  // A metric's HELP and TYPE lines, once.
  void Head(const std::string& name, const char* type, const char* help) {
    out_ += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  }
  void Sample(const std::string& name, const std::string& labels, double value) {
    char num[64];
    std::snprintf(num, sizeof num, "%.12g", value);
    out_ += name + (labels.empty() ? "" : "{" + labels + "}") + " " + num + "\n";
  }
  void One(const std::string& name, const char* type, const char* help, double value) {
    Head(name, type, help);
    Sample(name, "", value);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

}  // namespace

std::string RenderMetrics(const pipeline::PipelineStats& stats,
                          const std::vector<pipeline::CheckpointInfo>& checkpoints,
                          const HttpServerStats* http) {
  const pipeline::GlobalStats& g = stats.global;
  Metrics m;
  m.Head("sluice_up", "gauge", "1 while the pipeline runs or is paused, 0 if it failed");
  m.Sample("sluice_up", "state=\"" + Label(g.state) + "\"", g.state == "Failed" ? 0 : 1);
  m.One("sluice_steps_total", "counter", "steps run", static_cast<double>(g.step));
  m.One("sluice_records_processed_total", "counter", "input records processed by steps",
        static_cast<double>(g.processed_records));
  m.One("sluice_records_buffered", "gauge", "input records queued for the next steps",
        static_cast<double>(g.buffered_records));
  m.One("sluice_uptime_seconds", "gauge", "seconds since the pipeline started",
        static_cast<double>(g.uptime_msecs) / 1000);
  m.One("sluice_resident_memory_bytes", "gauge", "resident memory (of every host)",
        static_cast<double>(g.rss_bytes));
  m.One("sluice_storage_bytes", "gauge", "bytes on storage (of every host)",
        static_cast<double>(g.storage_bytes));
  m.One("sluice_eval_errors_total", "counter", "rows whose evaluation failed",
        static_cast<double>(g.eval_errors));
  if (g.exchange_bytes_sent) {
    m.One("sluice_exchange_bytes_sent_total", "counter",
          "bytes the hosts sent each other over the exchange",
          static_cast<double>(*g.exchange_bytes_sent));
  }
  m.Head("sluice_ignored_deletes_total", "counter",
         "deletes that found no row to delete, per table without a primary key");
  for (const auto& [table, n] : g.ignored_deletes) {
    m.Sample("sluice_ignored_deletes_total", "table=\"" + Label(table) + "\"",
             static_cast<double>(n));
  }
  m.Head("sluice_late_rows_total", "counter",
         "rows dropped because they came behind their table's waterline (LATENESS)");
  for (const auto& [table, n] : g.late_rows) {
    m.Sample("sluice_late_rows_total", "table=\"" + Label(table) + "\"", static_cast<double>(n));
  }
  // Step latency as a histogram: cumulative buckets, their count and sum.
  const std::string h = "sluice_step_duration_seconds";
  m.Head(h, "histogram", "how long steps took, handing their outputs over included");
  uint64_t cumulative = 0;
  for (size_t b = 0; b < g.step_latency_counts.size(); ++b) {
    cumulative += g.step_latency_counts[b];
    char le[32];
    if (b < std::size(pipeline::StepLoop::kLatencyBounds)) {
      std::snprintf(le, sizeof le, "%g", pipeline::StepLoop::kLatencyBounds[b]);
    } else {
      std::snprintf(le, sizeof le, "+Inf");
    }
    m.Sample(h + "_bucket", std::string("le=\"") + le + "\"", static_cast<double>(cumulative));
  }
  m.Sample(h + "_sum", "", static_cast<double>(g.step_usecs) / 1e6);
  m.Sample(h + "_count", "", static_cast<double>(cumulative));
  // Per connector.
  auto input = [&](const char* name, const char* type, const char* help, auto field) {
    m.Head(name, type, help);
    for (const pipeline::InputStats& in : stats.inputs) {
      const auto v = field(in);
      if (!v) continue;
      m.Sample(name,
               "connector=\"" + Label(in.name) + "\",table=\"" + Label(in.table) +
                   "\",transport=\"" + Label(in.transport) + "\"",
               static_cast<double>(*v));
    }
  };
  using In = pipeline::InputStats;
  input("sluice_input_records_total", "counter", "records read by an input connector",
        [](const In& s) { return std::optional<uint64_t>(s.records); });
  input("sluice_input_bytes_total", "counter", "bytes read by an input connector",
        [](const In& s) { return std::optional<uint64_t>(s.bytes); });
  input("sluice_input_parse_errors_total", "counter", "records that did not parse",
        [](const In& s) { return std::optional<uint64_t>(s.parse_errors); });
  input("sluice_input_queued_records", "gauge", "records an input connector has queued",
        [](const In& s) { return s.queued_records; });
  auto output = [&](const char* name, const char* type, const char* help, auto field) {
    m.Head(name, type, help);
    for (const pipeline::OutputStats& out : stats.outputs) {
      const auto v = field(out);
      if (!v) continue;
      m.Sample(name,
               "connector=\"" + Label(out.name) + "\",view=\"" + Label(out.view) +
                   "\",transport=\"" + Label(out.transport) + "\"",
               static_cast<double>(*v));
    }
  };
  using Out = pipeline::OutputStats;
  output("sluice_output_records_total", "counter", "records an output connector wrote",
         [](const Out& s) { return s.records; });
  output("sluice_output_bytes_total", "counter", "bytes an output connector wrote",
         [](const Out& s) { return s.bytes; });
  output("sluice_output_queued_records", "gauge", "records waiting for an output connector",
         [](const Out& s) { return std::optional<uint64_t>(s.queued_records); });
  output("sluice_output_transport_errors_total", "counter", "writes that failed",
         [](const Out& s) { return s.transport_errors; });
  m.One("sluice_checkpoints", "gauge", "checkpoints kept", static_cast<double>(checkpoints.size()));
  if (!checkpoints.empty() && checkpoints.front().step) {
    m.One("sluice_last_checkpoint_step", "gauge", "the step of the newest checkpoint",
          static_cast<double>(*checkpoints.front().step));
    m.One("sluice_last_checkpoint_bytes", "gauge", "the size of the newest checkpoint",
          static_cast<double>(checkpoints.front().size_bytes));
  }
  if (http != nullptr) {
    m.One("sluice_http_connections", "gauge", "connections open to the HTTP API",
          static_cast<double>(http->connections));
    m.One("sluice_http_connections_accepted_total", "counter", "connections the HTTP API accepted",
          static_cast<double>(http->connections_accepted));
    m.One("sluice_http_connections_refused_total", "counter",
          "connections refused over a connection limit (503)",
          static_cast<double>(http->connections_refused));
    m.One("sluice_http_connections_timed_out_total", "counter",
          "connections closed because a request or an answer stopped moving",
          static_cast<double>(http->connections_timed_out));
    m.One("sluice_http_connections_idle_closed_total", "counter",
          "kept-alive connections closed after being idle",
          static_cast<double>(http->connections_idle_closed));
    m.One("sluice_http_requests_total", "counter", "requests to the HTTP API",
          static_cast<double>(http->requests));
    m.One("sluice_http_streams", "gauge", "streaming answers open (egress)",
          static_cast<double>(http->streams));
  }
  return m.take();
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
