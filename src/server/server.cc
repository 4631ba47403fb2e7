#include "server/server.h"

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
#include "server/api_error.h"
#include "server/console.h"
#include "server/http_server.h"
#include "server/render.h"
#include "zset/cursor.h"

namespace sluice::server {
namespace {

using Json = nlohmann::json;
using Request = HttpRequest;
using Response = HttpResponse;

void SendJson(Response& res, const std::string& json) {
  res.status = 200;
  res.set_content(json + "\n", "application/json");
}

// The scope of API key a request needs: write for what changes the
// pipeline's data or state, read for the rest; none for the console's own
// files, which hold no data (the console asks for a key when the API
// answers 401).
std::optional<pipeline::ApiScope> ScopeNeeded(const Request& req) {
  if (IsConsolePath(req.path)) return std::nullopt;
  static const std::regex kWrites(
      R"(/ingress/[^/]+|/start|/pause|/checkpoint|/start_transaction|/commit_transaction|/approve|)"
      R"(/(input|output)_endpoints/[^/]+/(start|pause|reset))");
  return std::regex_match(req.path, kWrites) ? pipeline::ApiScope::kWrite : pipeline::ApiScope::kRead;
}

// Whether the request's key may make it; if not, answers 401 or 403.
bool Authorized(const pipeline::ApiKeys& keys, const Request& req, Response& res) {
  const std::optional<pipeline::ApiScope> need = ScopeNeeded(req);
  if (!need) return true;
  const std::string& auth = req.header("Authorization");
  std::optional<pipeline::ApiScope> scope;
  if (auth.rfind("Bearer ", 0) == 0) {
    std::string_view key(auth);
    key.remove_prefix(7);
    while (!key.empty() && key.front() == ' ') key.remove_prefix(1);
    while (!key.empty() && key.back() == ' ') key.remove_suffix(1);
    scope = keys.Find(key);
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
  *out = req.has_param(name) ? req.param(name) : allowed[0];
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

// One egress stream: the subscription's chunks as JSON lines, written as
// the client takes them. Nothing waits: the queue's listener wakes the
// pump, which encodes a line on a worker thread and writes it; the write's
// completion pumps again. At most one pump or write is under way at once.
class EgressStream : public std::enable_shared_from_this<EgressStream> {
 public:
  pipeline::PipelineApi* controller = nullptr;
  uint64_t id = 0;
  std::shared_ptr<connector::OutputQueue> queue;
  std::unique_ptr<format::Encoder> encoder;
  bool json = true;
  std::string header;  // csv: goes before the first record
  uint64_t step = 0;
  ServerOptions options;

  void Start(std::shared_ptr<HttpStream> out) {
    {
      MutexLock l(&mu_);
      out_ = std::move(out);
    }
    std::weak_ptr<EgressStream> weak = weak_from_this();
    queue->SetListener([weak] {
      if (auto e = weak.lock()) e->Wake();
    });
    ScheduleHeartbeat();
    Wake();
  }

  // The connection ended.
  void Closed() {
    queue->SetListener(nullptr);
    controller->Unsubscribe(id);
    MutexLock l(&mu_);
    ended_ = true;
    out_.reset();
  }

 private:
  void Wake() {
    std::shared_ptr<HttpStream> out;
    {
      MutexLock l(&mu_);
      if (ended_ || out_ == nullptr) return;
      if (busy_) {
        wake_pending_ = true;
        return;
      }
      busy_ = true;
      out = out_;
    }
    auto self = shared_from_this();
    out->Post([self] { self->Pump(); });
  }

  void ScheduleHeartbeat() {
    std::shared_ptr<HttpStream> out;
    {
      MutexLock l(&mu_);
      out = out_;
    }
    if (out == nullptr) return;
    std::weak_ptr<EgressStream> weak = weak_from_this();
    out->After(std::chrono::milliseconds(options.heartbeat_msecs), [weak] {
      auto self = weak.lock();
      if (self == nullptr) return;
      {
        MutexLock l(&self->mu_);
        self->heartbeat_due_ = true;
      }
      self->Wake();
      self->ScheduleHeartbeat();
    });
  }

  // On a worker, while busy_: writes the next line, or ends busy_ when
  // there is nothing to write.
  void Pump() {
    std::shared_ptr<HttpStream> out;
    bool heartbeat = false;
    {
      MutexLock l(&mu_);
      if (ended_ || out_ == nullptr) {
        busy_ = false;
        return;
      }
      out = out_;
      wake_pending_ = false;
    }
    std::string text;
    bool end = false;
    if (cursor_ == nullptr) {
      const auto r = queue->Pop(&chunk_, std::chrono::milliseconds(0));
      if (r == connector::OutputQueue::PopResult::kChunk) {
        cursor_ = NewCursorOver(chunk_.batches);
        step = chunk_.step;
        wrote_ = false;
      } else if (r == connector::OutputQueue::PopResult::kClosed) {
        end = true;
        const Status e = queue->error();
        if (!e.ok()) {
          text = Line({{"sequence_number", sequence_++},
                       {"error",
                        {{"message", e.message()},
                         {"error_code", e.code() == StatusCode::kAborted    ? "StreamEnded"
                                        : e.code() == StatusCode::kOverflow ? "ConsumerFellBehind"
                                                                            : "PipelineFailed"}}}});
        }
      }
    }
    if (cursor_ != nullptr) text = NextLine();
    if (text.empty() && !end) {
      MutexLock l(&mu_);
      heartbeat = heartbeat_due_;
      heartbeat_due_ = false;
      if (!heartbeat) {
        if (wake_pending_) {
          l.Unlock();
          auto self = shared_from_this();
          return out->Post([self] { self->Pump(); });
        }
        busy_ = false;
        return;
      }
    }
    if (heartbeat) {
      text = Line({{"sequence_number", sequence_++}, {"step", controller->step()}, {"heartbeat", true}});
    } else {
      MutexLock l(&mu_);
      heartbeat_due_ = false;  // a line went out: no heartbeat needed
    }
    auto self = shared_from_this();
    if (end) {
      {
        MutexLock l(&mu_);
        ended_ = true;
      }
      if (text.empty()) return out->End();
      return out->Write(std::move(text), [out](bool ok) {
        if (ok) out->End();
      });
    }
    out->Write(std::move(text), [self, out](bool ok) {
      if (!ok) return;
      out->Post([self] { self->Pump(); });
    });
  }

  static std::string Line(const Json& j) {
    std::string line = j.dump();
    line.push_back('\n');
    return line;
  }

  // The next line of the chunk being written: at most max_chunk_records
  // records. Empty (and the chunk done) when nothing is left of it.
  std::string NextLine() {
    const bool snapshot = chunk_.kind == connector::OutputChunk::Kind::kSnapshot;
    std::string data;
    uint64_t records = 0;
    for (; cursor_->KeyValid(); cursor_->StepKey()) {
      const int64_t w = cursor_->weight();
      if (w == 0) continue;
      Status s = encoder->Encode(cursor_->key(), w, &data);
      if (!s.ok()) {
        cursor_->StepKey();
        return Line({{"sequence_number", sequence_++}, {"error", s.ToString()}});
      }
      records += static_cast<uint64_t>(w > 0 ? w : -w);
      if (records >= options.max_chunk_records) {
        cursor_->StepKey();
        break;
      }
    }
    const bool done = !cursor_->KeyValid();
    // A snapshot always says which step it is, even when it is empty.
    if (records == 0 && !(snapshot && !wrote_ && done)) {
      if (done) Finish();
      return std::string();
    }
    if (json && !data.empty() && data.back() == ',') data.pop_back();
    std::string line = "{\"sequence_number\":" + std::to_string(sequence_++) +
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
    wrote_ = true;
    if (done) Finish();
    return line;
  }

  void Finish() {
    cursor_.reset();
    chunk_ = connector::OutputChunk();
    queue->Done();
  }

  Mutex mu_;
  std::shared_ptr<HttpStream> out_ GUARDED_BY(mu_);
  bool busy_ GUARDED_BY(mu_) = false;
  bool wake_pending_ GUARDED_BY(mu_) = false;
  bool heartbeat_due_ GUARDED_BY(mu_) = false;
  bool ended_ GUARDED_BY(mu_) = false;
  // Only the pump (one at a time) touches these.
  connector::OutputChunk chunk_;
  std::unique_ptr<Cursor> cursor_;
  bool wrote_ = false;
  uint64_t sequence_ = 0;
};

// An endpoint: its path, methods, the parameters it knows, and whether it
// answers while a program change awaits approval, or may block.
struct Endpoint {
  std::regex re;
  bool get = false, post = false;
  std::vector<std::string> params;
  bool while_awaiting = false;
  bool blocking = false;
  HttpHandler handler;
  // In place of `handler`: the route, made from the request's head.
  std::function<HttpRoute(Request&, Response&)> prepare;
};

}  // namespace

struct Server::Impl {
  pipeline::PipelineApi* controller;
  ServerOptions options;
  std::vector<Endpoint> endpoints;
  std::unique_ptr<HttpServer> http;

  void Routes();
  HttpRoute Route(Request& req, Response& res);
  // Ingress is routed from its head: the table and the parameters are
  // checked before the body is read, which is decoded as it arrives.
  HttpRoute Ingress(const Request& req, Response& res);
  void Egress(const Request& req, Response& res);
  void Query(const Request& req, Response& res);
  void Add(bool get, bool post, const std::string& pattern, HttpHandler h,
           bool while_awaiting = false, bool blocking = false) {
    // The parameters each endpoint knows: any other (a typo such as
    // fromat=csv would otherwise be ignored) is refused, saying what to use.
    static const std::map<std::string, std::vector<std::string>> kParams = {
        {R"(/ingress/([^/]+))", {"format", "update_format", "array", "force"}},
        {R"(/egress/([^/]+))",
         {"format", "mode", "backpressure", "max_queued_records", "headers"}},
        {"/completion_status", {"token"}},
        {"/query", {"sql", "format", "headers"}},
        {"/stats", {"pretty"}},
        {"/schema", {"pretty"}}};
    auto k = kParams.find(pattern);
    endpoints.push_back({std::regex(pattern), get, post,
                         k == kParams.end() ? std::vector<std::string>{} : k->second,
                         while_awaiting, blocking, std::move(h)});
  }
};

HttpRoute Server::Impl::Route(Request& req, Response& res) {
  // HEAD is GET without the body (the server leaves it out).
  const std::string method = req.method == "HEAD" ? "GET" : req.method;
  if (IsConsolePath(req.path)) {
    if (method != "GET") {
      res.set_header("Allow", "GET");
      SendError(res, 405, "MethodNotAllowed",
                req.method + " " + req.path + " is not an endpoint: use GET " + req.path,
                {{"allowed", "GET"}});
      return {};
    }
    return {[](Request& q, Response& r) { ServeConsole(q, r); }, false};
  }
  if (options.keys != nullptr && !options.keys->empty() && !Authorized(*options.keys, req, res)) {
    return {};
  }
  for (const Endpoint& e : endpoints) {
    std::smatch m;
    if (!std::regex_match(req.path, m, e.re)) continue;
    if ((method == "GET" && !e.get) || (method == "POST" && !e.post) ||
        (method != "GET" && method != "POST")) {
      const std::string use = e.post && e.get ? "GET or POST" : e.post ? "POST" : "GET";
      SendError(res, 405, "MethodNotAllowed",
                req.method + " " + req.path + " is not an endpoint: use " + use + " " + req.path +
                    (use == "POST" ? " (curl -X POST ...)" : ""),
                {{"allowed", use}});
      res.set_header("Allow", e.post && e.get ? "GET, POST" : e.post ? "POST" : "GET");
      return {};
    }
    for (const auto& [name, value] : req.params) {
      if (std::find(e.params.begin(), e.params.end(), name) != e.params.end()) continue;
      std::string known;
      for (const std::string& k : e.params) known += (known.empty() ? "" : ", ") + k;
      SendError(res, 400, "UnknownParameter",
                "unknown parameter \"" + name + "\" for " + req.path + DidYouMean(name, e.params) +
                    (known.empty() ? "; it takes none" : "; it takes: " + known),
                {{"parameter", name}});
      return {};
    }
    if (!e.while_awaiting && controller->state() == pipeline::PipelineState::kAwaitingApproval) {
      SendError(res, 503, "AwaitingApproval", kAwaitingApproval);
      return {};
    }
    req.matches.assign(m.begin(), m.end());
    if (e.prepare) return e.prepare(req, res);
    return {e.handler, e.blocking};
  }
  SendError(res, 404, "UnknownEndpoint", "no endpoint " + req.method + " " + req.path);
  return {};
}

// A request's records, decoded as its body arrives: whole records as soon
// as a piece completes them, the rest kept for the next piece. (A JSON
// array is decoded whole at the end.)
struct IngressBody {
  std::unique_ptr<format::Decoder> decoder;
  bool in_pieces = true;
  std::string tail;
  format::Position at;
  format::ChangeBuffer changes;
  std::vector<format::RecordError> errors;
  uint64_t error_count = 0;
  uint64_t bytes = 0;

  // `tail` always has kPadding bytes of room past its end, so that the
  // decoder reads the records in place.
  void Piece(std::string_view piece) {
    bytes += piece.size();
    tail.reserve(tail.size() + piece.size() + format::Decoder::kPadding);
    tail.append(piece);
    if (!in_pieces) return;
    const size_t whole = decoder->CompleteRecords(tail);
    if (whole == 0) return;
    at = decoder->DecodePadded(std::string_view(tail).substr(0, whole), at, &changes, &errors,
                               &error_count);
    tail.erase(0, whole);
  }
  void Finish() {
    if (tail.empty()) return;
    tail.reserve(tail.size() + format::Decoder::kPadding);
    at = decoder->DecodePadded(tail, at, &changes, &errors, &error_count);
    std::string().swap(tail);
  }
};

HttpRoute Server::Impl::Ingress(const Request& req, Response& res) {
  const std::string& table = req.matches[1];
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
    return {};
  }
  std::string fmt, update_format, array, force;
  if (!Param(req, res, "format", {"json", "csv"}, &fmt) ||
      !Param(req, res, "update_format", {"insert_delete", "raw"}, &update_format) ||
      !Param(req, res, "array", {"false", "true"}, &array) ||
      !Param(req, res, "force", {"false", "true"}, &force)) {
    return {};
  }
  format::FormatOptions fo;
  fo.name = fmt;
  fo.update_format = update_format;
  fo.array = array == "true";
  auto dec = format::MakeDecoder(fo, info->rel);
  if (!dec.ok()) {
    SendStatus(res, dec.status());
    return {};
  }
  auto body = std::make_shared<IngressBody>();
  body->decoder = std::move(dec).value();
  body->in_pieces = !fo.array;
  HttpRoute route;
  route.blocking = true;
  route.body_reader = [body](std::string_view piece) { body->Piece(piece); };
  pipeline::PipelineApi* c = controller;
  const bool forced = force == "true";
  route.handler = [c, body, table, forced](Request&, Response& res) {
    body->Finish();
    if (body->error_count > 0) {
      c->CountIngressErrors(table, body->error_count);
      Json list = Json::array();
      for (const format::RecordError& e : body->errors) {
        list.push_back(
            {{"record", e.record}, {"line", e.line}, {"column", e.column}, {"reason", e.reason}});
      }
      SendError(res, 400, "ParseErrors",
                std::to_string(body->error_count) +
                    " of the request's records could not be read (first: " +
                    body->errors.front().ToString() + "); none of its records was ingested",
                {{"errors", list}, {"error_count", body->error_count}});
      return;
    }
    auto token = c->Ingest(table, std::move(body->changes), forced, body->bytes);
    if (!token.ok()) return SendStatus(res, token.status());
    SendJson(res, Json{{"token", std::to_string(*token)}}.dump());
  };
  return route;
}

void Server::Impl::Egress(const Request& req, Response& res) {
  const std::string& name = req.matches[1];
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
    const std::string& v = req.param("max_queued_records");
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
  res.set_header("Content-Type", "application/x-ndjson");
  res.close = true;
  res.on_stream = [st](std::shared_ptr<HttpStream> out) { st->Start(std::move(out)); };
  res.on_close = [st] { st->Closed(); };
}

// GET /query?sql=...; POST /query with the SQL as the body (of any length),
// or as a form's sql field.
void Server::Impl::Query(const Request& req, Response& res) {
  std::string fmt, headers;
  if (!Param(req, res, "format", {"text", "json", "csv"}, &fmt) ||
      !Param(req, res, "headers", {"false", "true"}, &headers)) {
    return;
  }
  std::string sql;
  if (req.has_param("sql")) {
    sql = req.param("sql");
  } else if (req.method == "POST" &&
             req.header("Content-Type").rfind("application/x-www-form-urlencoded", 0) == 0) {
    const auto form = ParseQueryString(req.body);
    auto it = form.find("sql");
    sql = it != form.end() ? it->second : req.body;  // curl -d 'SELECT ...'
  } else if (req.method == "POST") {
    sql = req.body;
  }
  if (sql.empty()) {
    SendError(res, 400, "InvalidParameter",
              "the query is missing: GET /query?sql=SELECT ..., or POST /query with the SQL as "
              "the body");
    return;
  }
  auto r = controller->Query(sql);
  if (!r.ok()) return SendQueryError(res, r.status());
  res.status = 200;
  if (fmt == "json") {
    res.set_content(RenderJson(*r, headers == "true"), "application/x-ndjson");
  } else if (fmt == "csv") {
    res.set_content(RenderCsv(*r, headers == "true"), "text/csv");
  } else {
    res.set_content(RenderText(*r), "text/plain; charset=utf-8");
  }
}

void Server::Impl::Routes() {
  auto* c = controller;
  constexpr bool kGet = true, kPost = true, kNo = false;
  constexpr bool kWhileAwaiting = true, kBlocks = true;
  Add(kNo, kPost, R"(/ingress/([^/]+))", nullptr, false, kBlocks);
  endpoints.back().prepare = [this](Request& req, Response& res) { return Ingress(req, res); };
  Add(kNo, kPost, R"(/egress/([^/]+))", [this](Request& req, Response& res) { Egress(req, res); },
      false, kBlocks);
  Add(kGet, kPost, "/query", [this](Request& req, Response& res) { Query(req, res); }, false,
      kBlocks);
  Add(
      kNo, kPost, "/approve",
      [c](Request&, Response& res) {
        Status s = c->Approve();
        if (!s.ok()) return SendStatus(res, s, "ApprovalError");
        SendJson(res, RenderStatus(c->CurrentStatus()));
      },
      kWhileAwaiting, kBlocks);
  Add(kGet, kNo, "/completion_status", [c](Request& req, Response& res) {
    uint64_t token = 0;
    const std::string& t = req.param("token");
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
  Add(
      kGet, kPost, "/start",
      [c](Request&, Response& res) {
        c->Resume();
        SendJson(res, RenderStatus(c->CurrentStatus()));
      },
      false, kBlocks);
  Add(
      kGet, kPost, "/pause",
      [c](Request&, Response& res) {
        c->Pause();
        SendJson(res, RenderStatus(c->CurrentStatus()));
      },
      false, kBlocks);
  Add(
      kNo, kPost, "/checkpoint",
      [c](Request&, Response& res) {
        auto seq = c->RequestCheckpoint();
        if (!seq.ok()) return SendStatus(res, seq.status(), "CheckpointError");
        SendJson(res, Json{{"checkpoint_sequence_number", *seq}}.dump());
      },
      false, kBlocks);
  Add(
      kGet, kNo, "/checkpoint_status",
      [c](Request&, Response& res) { SendJson(res, c->CheckpointStatusJson()); }, kWhileAwaiting);
  Add(
      kGet, kNo, "/checkpoints",
      [c](Request&, Response& res) { SendJson(res, RenderCheckpoints(c->Checkpoints())); },
      kWhileAwaiting);
  Add(
      kGet, kNo, "/status",
      [c](Request&, Response& res) { SendJson(res, RenderStatus(c->CurrentStatus())); },
      kWhileAwaiting);
  Add(
      kGet, kNo, "/stats",
      [this, c](Request& req, Response& res) {
        const HttpServerStats h = http->stats();
        SendJson(res, RenderStats(c->Stats(), req.has_param("pretty"), &h));
      },
      kWhileAwaiting);
  Add(
      kGet, kNo, "/metrics",
      [this, c](Request&, Response& res) {
        const HttpServerStats h = http->stats();
        res.status = 200;
        res.set_content(RenderMetrics(c->Stats(), c->Checkpoints(), &h),
                        "text/plain; version=0.0.4; charset=utf-8");
      },
      kWhileAwaiting);
  Add(
      kGet, kNo, "/program",
      [c](Request&, Response& res) {
        res.status = 200;
        res.set_content(c->ProgramText(), "text/plain; charset=utf-8");
      },
      kWhileAwaiting);
  Add(
      kGet, kNo, "/schema",
      [c](Request& req, Response& res) {
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
      kWhileAwaiting);
  Add(
      kNo, kPost, "/start_transaction",
      [c](Request&, Response& res) {
        Status s = c->StartTransaction();
        if (!s.ok()) return SendStatus(res, s, "TransactionError");
        SendJson(res, Json{{"transaction", "started"}}.dump());
      },
      false, kBlocks);
  Add(
      kNo, kPost, "/commit_transaction",
      [c](Request&, Response& res) {
        auto step = c->CommitTransaction();
        if (!step.ok()) return SendStatus(res, step.status(), "TransactionError");
        SendJson(res, Json{{"transaction", "committed"}, {"step", *step}}.dump());
      },
      false, kBlocks);
  HttpHandler control = [c](Request& req, Response& res) {
    const std::string& name = req.matches[1];
    const std::string& action = req.matches[2];
    Status s =
        action == "reset" ? c->ResetOutput(name) : c->SetEndpointPaused(name, action == "pause");
    if (!s.ok()) {
      return SendStatus(res, s, s.code() == StatusCode::kNotFound ? "UnknownConnector" : "");
    }
    SendJson(res, Json{{"connector", name}, {"action", action}}.dump());
  };
  Add(kGet, kPost, R"(/output_endpoints/([^/]+)/(start|pause))", control, false, kBlocks);
  Add(kNo, kPost, R"(/output_endpoints/([^/]+)/(reset))", control, false, kBlocks);
  Add(kGet, kPost, R"(/input_endpoints/([^/]+)/(start|pause))", control, false, kBlocks);
}

Server::Server(pipeline::PipelineApi* controller, ServerOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->controller = controller;
  impl_->options = options;
}

Server::~Server() { Stop(); }

Status Server::Start() {
  Impl& s = *impl_;
  s.Routes();
  HttpServerOptions ho;
  ho.host = s.options.host;
  ho.port = s.options.port;
  ho.tls = s.options.tls;
  ho.limits = s.options.limits;
  ho.limits.max_body_bytes = s.options.max_request_bytes;
  HttpApp app;
  app.route = [&s](Request& req, Response& res) { return s.Route(req, res); };
  app.error = [](Response& res, int status, const std::string& message) {
    SendHttpError(res, status, message);
  };
  s.http = std::make_unique<HttpServer>(std::move(ho), std::move(app));
  SLUICE_RETURN_IF_ERROR(s.http->Start());
  port_ = s.http->port();
  return Status::OK();
}

void Server::Stop() {
  if (impl_ && impl_->http) impl_->http->Stop();
}

HttpServerStats Server::http_stats() const {
  return impl_->http ? impl_->http->stats() : HttpServerStats();
}

}  // namespace sluice::server
