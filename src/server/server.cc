#include "server/server.h"

#include <httplib.h>

#include <atomic>
#include <charconv>
#include <functional>
#include <limits>
#include <optional>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "base/suggest.h"
#include "format/format.h"
#include "format/json.h"
#include "pipeline/coordination.h"
#include "server/console.h"
#include "server/http.h"
#include "server/render.h"
#include "zset/cursor.h"

namespace sluice::server {
namespace {

using Json = nlohmann::json;
using httplib::Request;
using httplib::Response;

void SendJson(Response& res, const std::string& json) {
  res.status = 200;
  res.set_content(json + "\n", "application/json");
}

// The scope of API key a request needs: write for what changes the
// pipeline's data or state, read for the rest; none for the console's own
// files, which hold no data (the console asks for a key when the API
// answers 401).
std::optional<pipeline::ApiScope> ScopeNeeded(const Request& req) {
  if (req.path == "/" || req.path.rfind("/console/", 0) == 0) return std::nullopt;
  static const std::regex kWrites(
      R"(/ingress/[^/]+|/start|/pause|/checkpoint|/start_transaction|/commit_transaction|/approve|)"
      R"(/(input|output)_endpoints/[^/]+/(start|pause|reset))");
  return std::regex_match(req.path, kWrites) ? pipeline::ApiScope::kWrite : pipeline::ApiScope::kRead;
}

// Whether the request's key may make it; if not, answers 401 or 403.
bool Authorized(const pipeline::ApiKeys& keys, const Request& req, Response& res) {
  const std::optional<pipeline::ApiScope> need = ScopeNeeded(req);
  if (!need) return true;
  const std::string auth = req.get_header_value("Authorization");
  std::optional<pipeline::ApiScope> scope;
  if (auth.rfind("Bearer ", 0) == 0) {
    std::string_view key(auth);
    key.remove_prefix(7);
    while (!key.empty() && key.front() == ' ') key.remove_prefix(1);
    while (!key.empty() && key.back() == ' ') key.remove_suffix(1);
    scope = keys.Find(key);
  }
  if (req.has_header("Content-Length") || req.has_header("Transfer-Encoding")) {
    res.set_header("Connection", "close");  // the body is not read
  }
  if (!scope) {
    res.set_header("WWW-Authenticate", "Bearer");
    SendError(res, 401, "Unauthorized",
              auth.empty() ? "this pipeline's API needs a key: send Authorization: Bearer KEY"
                           : "the key in Authorization is not one of this pipeline's API keys");
    return false;
  }
  if (static_cast<int>(*scope) < static_cast<int>(*need)) {
    SendError(res, 403, "Forbidden",
              req.method + " " + req.path + " needs an API key of scope " +
                  pipeline::ScopeName(*need) + ", and this key's is " + pipeline::ScopeName(*scope),
              {{"needed", pipeline::ScopeName(*need)}, {"scope", pipeline::ScopeName(*scope)}});
    return false;
  }
  return true;
}

// A query parameter that must be one of `allowed` (the first is the default).
// What a pipeline that awaits approval answers to all but a few calls.
constexpr const char* kAwaitingApproval =
    "the pipeline waits for POST /approve before it rebuilds what changed since the checkpoint "
    "it restarted from (GET /status lists it)";

bool Param(const Request& req, Response& res, const std::string& name,
           const std::vector<std::string>& allowed, std::string* out) {
  *out = req.has_param(name) ? req.get_param_value(name) : allowed[0];
  if (std::find(allowed.begin(), allowed.end(), *out) != allowed.end()) return true;
  std::string list;
  for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
  SendError(res, 400, "InvalidParameter",
            "parameter " + name + "=" + *out + " is not one of: " + list,
            {{"parameter", name}, {"value", *out}});
  return false;
}

// A query's error; when the message points into the SQL ("line L, column
// C: ..." and the line with a caret under it, sql/parser.cc), the details
// say where, so that a client can mark the place.
void SendQueryError(Response& res, const Status& s) {
  static const std::regex kWhere(R"(^line (\d+), column (\d+): )");
  Json details = Json::object();
  std::smatch m;
  if (std::regex_search(s.message(), m, kWhere)) {
    details = {{"line", std::stoul(m[1])}, {"column", std::stoul(m[2])}};
  }
  SendError(res, pipeline::coordination::HttpErrorFor(s).status, "QueryError", s.message(),
            std::move(details));
}

// The records of one egress stream, as JSON lines.
struct EgressStream {
  pipeline::PipelineApi* controller = nullptr;
  uint64_t id = 0;
  std::shared_ptr<connector::OutputQueue> queue;
  std::unique_ptr<format::Encoder> encoder;
  bool json = true;
  std::string header;  // csv: goes before the first record
  uint64_t sequence = 0;
  uint64_t step = 0;
  bool ended = false;
  ServerOptions options;

  bool WriteLine(httplib::DataSink& sink, const Json& j) {
    std::string line = j.dump();
    line.push_back('\n');
    return sink.write(line.data(), line.size());
  }

  // Writes `chunk` in pieces of at most max_chunk_records records.
  bool WriteChunk(httplib::DataSink& sink, const connector::OutputChunk& chunk) {
    const bool snapshot = chunk.kind == connector::OutputChunk::Kind::kSnapshot;
    step = chunk.step;
    std::string data;
    uint64_t records = 0;
    bool wrote = false;
    auto flush = [&]() {
      if (json && !data.empty() && data.back() == ',') data.pop_back();
      std::string line = "{\"sequence_number\":" + std::to_string(sequence++) +
                         ",\"step\":" + std::to_string(step) +
                         ",\"snapshot\":" + (snapshot ? "true" : "false");
      if (json) {
        line += ",\"json_data\":[" + data + "]}\n";
      } else {
        if (!header.empty()) {
          data.insert(0, header);
          header.clear();
        }
        std::string text;
        format::AppendJsonString(data, &text);
        line += ",\"text_data\":" + text + "}\n";
      }
      data.clear();
      records = 0;
      wrote = true;
      return sink.write(line.data(), line.size());
    };
    auto c = NewCursorOver(chunk.batches);
    for (; c->KeyValid(); c->StepKey()) {
      int64_t w = c->weight();
      if (w == 0) continue;
      Status s = encoder->Encode(c->key(), w, &data);
      if (!s.ok())
        return WriteLine(sink, {{"sequence_number", sequence++}, {"error", s.ToString()}});
      records += static_cast<uint64_t>(w > 0 ? w : -w);
      if (records >= options.max_chunk_records && !flush()) return false;
    }
    // A snapshot always says which step it is, even when it is empty.
    if (records > 0 || (snapshot && !wrote)) return flush();
    return true;
  }

  bool Next(httplib::DataSink& sink) {
    if (ended) {
      sink.done();
      return true;
    }
    connector::OutputChunk chunk;
    auto r = queue->Pop(&chunk, std::chrono::milliseconds(options.heartbeat_msecs));
    if (r == connector::OutputQueue::PopResult::kTimeout) {
      return WriteLine(
          sink,
          {{"sequence_number", sequence++}, {"step", controller->step()}, {"heartbeat", true}});
    }
    if (r == connector::OutputQueue::PopResult::kClosed) {
      ended = true;
      Status e = queue->error();
      if (!e.ok()) {
        return WriteLine(
            sink, {{"sequence_number", sequence++},
                   {"error",
                    {{"message", e.message()},
                     {"error_code", e.code() == StatusCode::kAborted    ? "StreamEnded"
                                    : e.code() == StatusCode::kOverflow ? "ConsumerFellBehind"
                                                                        : "PipelineFailed"}}}});
      }
      sink.done();
      return true;
    }
    return WriteChunk(sink, chunk);
  }
};

}  // namespace

struct Server::Impl {
  pipeline::PipelineApi* controller;
  ServerOptions options;
  std::unique_ptr<httplib::Server> http;
  std::thread thread;
  std::atomic<bool> stopped{false};

  void Routes();
  void Ingress(const Request& req, Response& res, const httplib::ContentReader& reader);
  void Egress(const std::string& name, const Request& req, Response& res);
};

void Server::Impl::Ingress(const Request& req, Response& res,
                           const httplib::ContentReader& reader) {
  const std::string table = req.matches[1];
  const pipeline::RelationInfo* info = controller->FindRelation(table);
  if (info == nullptr || !info->is_table) {
    std::vector<std::string> tables;
    for (const std::string& r : controller->RelationNames()) {
      const pipeline::RelationInfo* i = controller->FindRelation(r);
      if (i != nullptr && i->is_table) tables.push_back(r);
    }
    SendError(res, 404, "UnknownTable",
              "table \"" + table + "\" does not exist" +
                  (info != nullptr ? " (" + table + " is a view: views take no input)"
                                   : DidYouMean(table, tables)),
              {{"table", table}});
    return;
  }
  std::string fmt, update_format, array, force;
  if (!Param(req, res, "format", {"json", "csv"}, &fmt) ||
      !Param(req, res, "update_format", {"insert_delete", "raw"}, &update_format) ||
      !Param(req, res, "array", {"false", "true"}, &array) ||
      !Param(req, res, "force", {"false", "true"}, &force)) {
    return;
  }
  // The body is read to its end even when it is too large (and then
  // dropped), so that the client gets the answer rather than a reset.
  std::string body;
  bool too_big = false;
  if (req.has_header("Content-Length")) {
    const std::string v = req.get_header_value("Content-Length");
    uint64_t declared = 0;
    std::from_chars(v.data(), v.data() + v.size(), declared);
    if (declared <= options.max_request_bytes) body.reserve(declared);
  }
  reader([&](const char* data, size_t len) {
    if (too_big || body.size() + len > options.max_request_bytes) {
      too_big = true;
      std::string().swap(body);
      return true;
    }
    body.append(data, len);
    return true;
  });
  if (too_big) {
    SendError(res, 413, "RequestTooLarge",
              "the request is larger than " + std::to_string(options.max_request_bytes) +
                  " bytes: send the records in several requests",
              {{"max_request_bytes", options.max_request_bytes}});
    return;
  }
  format::FormatOptions fo;
  fo.name = fmt;
  fo.update_format = update_format;
  fo.array = array == "true";
  auto dec = format::MakeDecoder(fo, info->rel);
  if (!dec.ok()) {
    SendStatus(res, dec.status());
    return;
  }
  format::ChangeBuffer changes;
  std::vector<format::RecordError> errors;
  uint64_t error_count = 0;
  (*dec)->Decode(body, format::Position{}, &changes, &errors, &error_count);
  if (error_count > 0) {
    controller->CountIngressErrors(table, error_count);
    Json list = Json::array();
    for (const format::RecordError& e : errors) {
      list.push_back(
          {{"record", e.record}, {"line", e.line}, {"column", e.column}, {"reason", e.reason}});
    }
    SendError(res, 400, "ParseErrors",
              std::to_string(error_count) + " of the request's records could not be read (first: " +
                  errors.front().ToString() + "); none of its records was ingested",
              {{"errors", list}, {"error_count", error_count}});
    return;
  }
  auto token = controller->Ingest(table, std::move(changes), force == "true", body.size());
  if (!token.ok()) {
    SendStatus(res, token.status());
    return;
  }
  SendJson(res, Json{{"token", std::to_string(*token)}}.dump());
}

void Server::Impl::Egress(const std::string& name, const Request& req, Response& res) {
  const pipeline::RelationInfo* info = controller->FindRelation(name);
  if (info == nullptr) {
    SendError(res, 404, "UnknownView",
              "table or view \"" + name + "\" does not exist" +
                  DidYouMean(name, controller->RelationNames()),
              {{"view", name}});
    return;
  }
  std::string fmt, mode, backpressure, headers;
  if (!Param(req, res, "format", {"json", "csv"}, &fmt) ||
      !Param(req, res, "mode", {"follow", "snapshot_and_follow", "snapshot"}, &mode) ||
      !Param(req, res, "backpressure", {"false", "true"}, &backpressure) ||
      !Param(req, res, "headers", {"false", "true"}, &headers)) {
    return;
  }
  if (headers == "true" && fmt != "csv") {
    SendError(res, 400, "InvalidParameter", "headers=true needs format=csv");
    return;
  }
  const bool snapshot = mode != "follow";
  if (snapshot && !info->materialized) {
    SendError(
        res, 400, "NotMaterialized",
        "\"" + name + "\" is not materialized, so it has no snapshot: declare it " +
            (info->is_table ? "WITH (materialized = true)" : "as a CREATE MATERIALIZED VIEW") +
            ", or ask for mode=follow",
        {{"view", name}});
    return;
  }
  format::FormatOptions fo;
  fo.name = fmt;
  auto enc = format::MakeEncoder(fo, info->rel, fmt == "json" ? "," : "\n");
  if (!enc.ok()) {
    SendStatus(res, enc.status());
    return;
  }
  uint64_t max_queued = 1000000;
  if (req.has_param("max_queued_records")) {
    const std::string v = req.get_param_value("max_queued_records");
    if (std::from_chars(v.data(), v.data() + v.size(), max_queued).ec != std::errc() ||
        max_queued == 0) {
      SendError(res, 400, "InvalidParameter",
                "max_queued_records=" + v + " is not a positive integer");
      return;
    }
  }
  auto sub =
      controller->Subscribe(name, snapshot, mode != "snapshot", backpressure == "true", max_queued);
  if (!sub.ok()) {
    SendStatus(res, sub.status());
    return;
  }
  auto st = std::make_shared<EgressStream>();
  st->controller = controller;
  st->id = sub->id;
  st->queue = sub->queue;
  st->encoder = std::move(enc).value();
  st->json = fmt == "json";
  if (headers == "true") {
    // The CSV records end with their weight (1 insert, -1 delete).
    std::vector<std::string> names = info->rel.columns;
    names.push_back("weight");
    st->header = RenderCsvHeader(names);
  }
  st->step = sub->snapshot_step;
  st->options = options;
  res.status = 200;
  res.set_chunked_content_provider(
      "application/x-ndjson", [st](size_t, httplib::DataSink& sink) { return st->Next(sink); },
      [st](bool) { st->controller->Unsubscribe(st->id); });
}

void Server::Impl::Routes() {
  auto* c = controller;
  // POST endpoints other than /ingress take no body, and are answered
  // before one is read: clients (curl -X POST) often send none, not even a
  // Content-Length, which the HTTP library would otherwise wait for.
  using Match = std::vector<std::string>;
  using Handler = std::function<void(const Request&, Response&, const Match&)>;
  auto posts = std::make_shared<std::vector<std::pair<std::regex, Handler>>>();
  // Every endpoint, its methods and the parameters it knows: a request
  // with another method, or a parameter it does not know (a typo such as
  // fromat=csv would otherwise be ignored), is refused, saying what to use.
  struct Endpoint {
    std::regex re;
    std::string pattern;
    bool get = false, post = false;
    std::vector<std::string> params;
  };
  auto endpoints = std::make_shared<std::vector<Endpoint>>();
  const std::map<std::string, std::vector<std::string>> known_params = {
      {R"(/ingress/([^/]+))", {"format", "update_format", "array", "force"}},
      {R"(/egress/([^/]+))", {"format", "mode", "backpressure", "max_queued_records", "headers"}},
      {"/completion_status", {"token"}},
      {"/query", {"sql", "format", "headers"}},
      {"/stats", {"pretty"}},
      {"/schema", {"pretty"}}};
  auto endpoint = [endpoints, known_params](bool get, bool post, const std::string& pattern) {
    auto k = known_params.find(pattern);
    endpoints->push_back({std::regex(pattern), pattern, get, post,
                          k == known_params.end() ? std::vector<std::string>{} : k->second});
  };
  // While a program change awaits approval, only the endpoints that
  // describe the pipeline (and /approve) answer.
  auto route = [&](bool get, bool post, const std::string& pattern, Handler h,
                   bool while_awaiting = false) {
    endpoint(get, post, pattern);
    if (!while_awaiting) {
      h = [c, h](const Request& req, Response& res, const Match& m) {
        if (c->state() == pipeline::PipelineState::kAwaitingApproval) {
          return SendError(res, 503, "AwaitingApproval", kAwaitingApproval);
        }
        h(req, res, m);
      };
    }
    if (post) posts->emplace_back(std::regex(pattern), h);
    if (get) {
      http->Get(pattern, [h](const Request& req, Response& res) {
        Match m(req.matches.begin(), req.matches.end());
        h(req, res, m);
      });
    }
  };
  http->Post(R"(/ingress/([^/]+))",
             [this, c](const Request& req, Response& res, const httplib::ContentReader& reader) {
               if (c->state() == pipeline::PipelineState::kAwaitingApproval) {
                 res.set_header("Connection", "close");
                 return SendError(res, 503, "AwaitingApproval", kAwaitingApproval);
               }
               Ingress(req, res, reader);
             });
  endpoint(false, true, R"(/ingress/([^/]+))");
  endpoint(true, true, "/query");
  const pipeline::ApiKeys* keys = options.keys;
  http->set_pre_routing_handler([posts, endpoints, keys](const Request& req, Response& res) {
    ReparseParams(req);
    if (keys != nullptr && !keys->empty() && !Authorized(*keys, req, res)) {
      return httplib::Server::HandlerResponse::Handled;
    }
    for (const Endpoint& e : *endpoints) {
      if (!std::regex_match(req.path, e.re)) continue;
      const bool body = req.has_header("Content-Length") || req.has_header("Transfer-Encoding");
      if ((req.method == "GET" && !e.get) || (req.method == "POST" && !e.post)) {
        if (body) res.set_header("Connection", "close");
        const std::string use = e.post ? "POST" : "GET";
        SendError(res, 405, "MethodNotAllowed",
                  req.method + " " + req.path + " is not an endpoint: use " + use + " " + req.path +
                      (use == "POST" ? " (curl -X POST ...)" : ""),
                  {{"allowed", use}});
        res.set_header("Allow", use);
        return httplib::Server::HandlerResponse::Handled;
      }
      for (const auto& [name, value] : req.params) {
        if (std::find(e.params.begin(), e.params.end(), name) != e.params.end()) continue;
        std::string known;
        for (const std::string& k : e.params) known += (known.empty() ? "" : ", ") + k;
        if (body) res.set_header("Connection", "close");
        SendError(res, 400, "UnknownParameter",
                  "unknown parameter \"" + name + "\" for " + req.path +
                      DidYouMean(name, e.params) +
                      (known.empty() ? "; it takes none" : "; it takes: " + known),
                  {{"parameter", name}});
        return httplib::Server::HandlerResponse::Handled;
      }
      break;
    }
    if (req.method != "POST") return httplib::Server::HandlerResponse::Unhandled;
    for (const auto& [re, h] : *posts) {
      std::smatch sm;
      if (!std::regex_match(req.path, sm, re)) continue;
      // A body we do not read would be taken for the next request.
      if (req.has_header("Content-Length") || req.has_header("Transfer-Encoding")) {
        res.set_header("Connection", "close");
      }
      Match m(sm.begin(), sm.end());
      h(req, res, m);
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  route(false, true, R"(/egress/([^/]+))",
        [this](const Request& req, Response& res, const Match& m) {
          res.set_header("Connection", "close");
          Egress(m[1], req, res);
        });
  route(
      false, true, "/approve",
      [c](const Request&, Response& res, const Match&) {
        Status s = c->Approve();
        if (!s.ok()) return SendStatus(res, s, "ApprovalError");
        SendJson(res, RenderStatus(c->CurrentStatus()));
      },
      true);
  route(true, false, "/completion_status", [c](const Request& req, Response& res, const Match&) {
    uint64_t token = 0;
    std::string t = req.get_param_value("token");
    if (t.empty() || std::from_chars(t.data(), t.data() + t.size(), token).ec != std::errc()) {
      SendError(res, 400, "InvalidParameter", "token=" + t + " is not a token");
      return;
    }
    auto r = c->CompletionOf(token);
    if (!r.ok()) {
      SendStatus(res, r.status(), "UnknownToken");
      return;
    }
    if (r->lost) {
      SendJson(res, Json{{"status", "lost"},
                         {"step", r->step},
                         {"durable", false},
                         {"message",
                          "this token was given before the pipeline restarted, and its changes "
                          "were in no checkpoint (with fault_tolerance exactly_once, they would "
                          "have been replayed): send them again"}}
                        .dump());
      return;
    }
    Json answer{{"status", r->complete ? "complete" : "inprogress"},
                {"step", r->step},
                {"durable", r->durable}};
    if (!r->ignored_deletes.empty()) answer["ignored_deletes"] = r->ignored_deletes;
    SendJson(res, answer.dump());
  });
  route(true, true, "/start", [c](const Request&, Response& res, const Match&) {
    c->Resume();
    SendJson(res, RenderStatus(c->CurrentStatus()));
  });
  route(true, true, "/pause", [c](const Request&, Response& res, const Match&) {
    c->Pause();
    SendJson(res, RenderStatus(c->CurrentStatus()));
  });
  route(false, true, "/checkpoint", [c](const Request&, Response& res, const Match&) {
    auto seq = c->RequestCheckpoint();
    if (!seq.ok()) return SendStatus(res, seq.status(), "CheckpointError");
    SendJson(res, Json{{"checkpoint_sequence_number", *seq}}.dump());
  });
  route(
      true, false, "/checkpoint_status",
      [c](const Request&, Response& res, const Match&) {
        SendJson(res, c->CheckpointStatusJson());
      },
      true);
  route(
      true, false, "/checkpoints",
      [c](const Request&, Response& res, const Match&) {
        SendJson(res, RenderCheckpoints(c->Checkpoints()));
      },
      true);
  route(
      true, false, "/status",
      [c](const Request&, Response& res, const Match&) {
        SendJson(res, RenderStatus(c->CurrentStatus()));
      },
      true);
  route(
      true, false, "/stats",
      [c](const Request& req, Response& res, const Match&) {
        SendJson(res, RenderStats(c->Stats(), req.has_param("pretty")));
      },
      true);
  route(
      true, false, "/metrics",
      [c](const Request&, Response& res, const Match&) {
        res.status = 200;
        res.set_content(RenderMetrics(c->Stats(), c->Checkpoints()),
                        "text/plain; version=0.0.4; charset=utf-8");
      },
      true);
  route(
      true, false, "/program",
      [c](const Request&, Response& res, const Match&) {
        res.status = 200;
        res.set_content(c->ProgramText(), "text/plain; charset=utf-8");
      },
      true);
  route(
      true, false, "/schema",
      [c](const Request& req, Response& res, const Match&) {
        // Every table and view: columns, types, key, materialized, and the
        // connectors attached to it.
        const pipeline::PipelineStats stats = c->Stats();
        Json tables = Json::array(), views = Json::array();
        for (const std::string& name : c->RelationNames()) {
          const pipeline::RelationInfo* info = c->FindRelation(name);
          if (info == nullptr) continue;
          Json columns = Json::array();
          for (size_t i = 0; i < info->rel.columns.size(); ++i) {
            const SqlType& t = info->rel.schema[i];
            columns.push_back({{"name", info->rel.columns[i]},
                               {"type", t.ToString()},
                               {"nullable", t.nullable()}});
          }
          Json key = Json::array();
          for (int k : info->rel.key) key.push_back(info->rel.columns[static_cast<size_t>(k)]);
          Json connectors = Json::array();
          for (const pipeline::InputStats& in : stats.inputs) {
            if (in.table == name && in.transport != "http_input") connectors.push_back(in.name);
          }
          for (const pipeline::OutputStats& out : stats.outputs) {
            if (out.view == name && out.transport != "http_output") connectors.push_back(out.name);
          }
          Json r = {{"name", name},
                    {"columns", columns},
                    {"materialized", info->materialized},
                    {"connectors", connectors}};
          if (info->is_table) {
            r["primary_key"] = key;
            r["append_only"] = info->rel.append_only;
          }
          (info->is_table ? tables : views).push_back(r);
        }
        SendJson(res,
                 Json{{"tables", tables}, {"views", views}}.dump(req.has_param("pretty") ? 2 : -1));
      },
      true);
  route(false, true, "/start_transaction", [c](const Request&, Response& res, const Match&) {
    Status s = c->StartTransaction();
    if (!s.ok()) return SendStatus(res, s, "TransactionError");
    SendJson(res, Json{{"transaction", "started"}}.dump());
  });
  route(false, true, "/commit_transaction", [c](const Request&, Response& res, const Match&) {
    auto step = c->CommitTransaction();
    if (!step.ok()) return SendStatus(res, step.status(), "TransactionError");
    SendJson(res, Json{{"transaction", "committed"}, {"step", *step}}.dump());
  });
  Handler control = [c](const Request&, Response& res, const Match& m) {
    const std::string name = m[1], action = m[2];
    Status s =
        action == "reset" ? c->ResetOutput(name) : c->SetEndpointPaused(name, action == "pause");
    if (!s.ok()) {
      return SendStatus(res, s, s.code() == StatusCode::kNotFound ? "UnknownConnector" : "");
    }
    SendJson(res, Json{{"connector", name}, {"action", action}}.dump());
  };
  route(true, true, R"(/output_endpoints/([^/]+)/(start|pause))", control);
  route(false, true, R"(/output_endpoints/([^/]+)/(reset))", control);
  route(true, true, R"(/input_endpoints/([^/]+)/(start|pause))", control);
  // GET /query?sql=...; POST /query with the SQL as the body (of any
  // length), or as a form's sql field.
  auto query = [c](const Request& req, Response& res, const std::string* body) {
    std::string fmt, headers;
    if (!Param(req, res, "format", {"text", "json", "csv"}, &fmt) ||
        !Param(req, res, "headers", {"false", "true"}, &headers)) {
      return;
    }
    std::string sql;
    if (req.has_param("sql")) {
      sql = req.get_param_value("sql");
    } else if (body != nullptr &&
               req.get_header_value("Content-Type") == "application/x-www-form-urlencoded") {
      const auto form = ParseQueryString(*body);
      auto it = form.find("sql");
      sql = it != form.end() ? it->second : *body;  // curl -d 'SELECT ...'
    } else if (body != nullptr) {
      sql = *body;
    }
    if (sql.empty()) {
      SendError(res, 400, "InvalidParameter",
                "the query is missing: GET /query?sql=SELECT ..., or POST /query with the SQL as "
                "the body");
      return;
    }
    auto r = c->Query(sql);
    if (!r.ok()) return SendQueryError(res, r.status());
    res.status = 200;
    if (fmt == "json") {
      res.set_content(RenderJson(*r, headers == "true"), "application/x-ndjson");
    } else if (fmt == "csv") {
      res.set_content(RenderCsv(*r, headers == "true"), "text/csv");
    } else {
      res.set_content(RenderText(*r), "text/plain; charset=utf-8");
    }
  };
  route(true, false, "/query",
        [query](const Request& req, Response& res, const Match&) { query(req, res, nullptr); });
  http->Post("/query", [c, query](const Request& req, Response& res) {
    if (c->state() == pipeline::PipelineState::kAwaitingApproval) {
      return SendError(res, 503, "AwaitingApproval", kAwaitingApproval);
    }
    ReparseParams(req);  // the library added a form body's fields, parsed its way
    query(req, res, &req.body);
  });
  AddConsoleRoutes(*http);
  http->set_error_handler([](const Request& req, Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 404) {
      SendError(res, 404, "UnknownEndpoint", "no endpoint " + req.method + " " + req.path);
    } else if (res.status == 413) {
      SendError(res, 413, "RequestTooLarge", "the request is too large");
    } else {
      SendError(res, res.status, "HttpError", "HTTP error " + std::to_string(res.status));
    }
  });
}

Server::Server(pipeline::PipelineApi* controller, ServerOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->controller = controller;
  impl_->options = options;
}

Server::~Server() { Stop(); }

Status Server::Start() {
  // Ingress enforces its own limit (with a JSON answer); the library's
  // would hand the handler an empty body instead.
  SLUICE_ASSIGN_OR_RETURN(impl_->http, MakeHttpServer(impl_->options.tls, false));
  impl_->http->set_payload_max_length(std::numeric_limits<size_t>::max());
  impl_->Routes();
  SLUICE_ASSIGN_OR_RETURN(port_,
                          BindHttp(*impl_->http, impl_->options.host, impl_->options.port, 64));
  impl_->thread = std::thread([this] { impl_->http->listen_after_bind(); });
  return Status::OK();
}

void Server::Stop() {
  if (!impl_ || impl_->stopped.exchange(true)) return;
  if (impl_->http) impl_->http->stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace sluice::server
