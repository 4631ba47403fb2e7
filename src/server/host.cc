#include "server/host.h"

#include <httplib.h>

#include <atomic>
#include <charconv>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "base/bytes.h"
#include "pipeline/controller.h"
#include "pipeline/journal.h"
#include "pipeline/wire.h"
#include "runtime/tcp_transport.h"
#include "server/http.h"

namespace sluice::server {
namespace {

using Json = nlohmann::json;
using httplib::Request;
using httplib::Response;
using Clock = std::chrono::steady_clock;

void Fail(Response& res, const Status& s) {
  const int http = s.code() == StatusCode::kNotFound          ? 404
                   : s.code() == StatusCode::kInvalidArgument ? 400
                   : s.code() == StatusCode::kAborted         ? 503
                   : s.code() == StatusCode::kUnimplemented   ? 501
                                                              : 500;
  SendError(res, http, "HostError", s.message());
}

void Ok(Response& res, const Json& j) {
  res.status = 200;
  res.set_content(j.dump() + "\n", "application/json");
}

uint64_t Number(const Request& req, const std::string& name, uint64_t otherwise) {
  if (!req.has_param(name)) return otherwise;
  const std::string v = req.get_param_value(name);
  uint64_t n = otherwise;
  std::from_chars(v.data(), v.data() + v.size(), n);
  return n;
}

// Compares without stopping at the first difference, so that the time a
// refusal takes says nothing about the secret.
bool SameSecret(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  }
  return diff == 0;
}

}  // namespace

struct HostServer::Impl {
  HostOptions o;
  httplib::Server http;
  std::thread thread, watchdog;
  int port = 0;

  std::mutex mu;
  std::condition_variable cv;
  std::unique_ptr<TcpTransport> transport;           // GUARDED_BY(mu) once set
  std::unique_ptr<pipeline::Controller> controller;  // GUARDED_BY(mu) once set
  bool activating = false;                           // GUARDED_BY(mu)
  bool stop = false;                                 // GUARDED_BY(mu)
  Status why;                                        // GUARDED_BY(mu)
  std::atomic<int64_t> last_call{0};                 // steady clock, ms
  // Steps and checkpoints under way: the coordinator waits for them, and
  // polls no more meanwhile, so its silence then is no sign of loss.
  std::atomic<int> long_calls{0};
  struct LongCall {
    Impl* m;
    explicit LongCall(Impl* impl) : m(impl) { ++m->long_calls; }
    ~LongCall() {
      m->last_call = NowMs();
      --m->long_calls;
    }
  };
  std::atomic<bool> stopped{false};

  static int64_t NowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch())
        .count();
  }
  pipeline::Controller* Get() {
    std::lock_guard<std::mutex> l(mu);
    return controller.get();
  }
  void RequestStop(Status s) {
    std::lock_guard<std::mutex> l(mu);
    if (stop) return;
    stop = true;
    why = std::move(s);
    cv.notify_all();
  }
  void Routes();
  void Activate(const Request& req, Response& res);
  void Egress(const Request& req, Response& res);
};

void HostServer::Impl::Activate(const Request& req, Response& res) {
  Json a = Json::parse(req.body, nullptr, false);
  if (!a.is_object()) return SendError(res, 400, "InvalidRequest", "the activation is not JSON");
  {
    std::lock_guard<std::mutex> l(mu);
    if (controller || activating) {
      return SendError(res, 409, "AlreadyActive", "this host was already activated");
    }
    activating = true;
  }
  auto done = [&](Status s) {
    std::lock_guard<std::mutex> l(mu);
    activating = false;
    if (!s.ok()) Fail(res, s.WithContext("activating host"));
  };
  try {
    TcpTransportOptions to;
    to.host = a.at("host").get<int>();
    to.addresses = a.at("addresses").get<std::vector<std::string>>();
    to.workers_per_host = a.at("workers").get<int>();
    to.secret = o.secret;
    to.connect_timeout = o.exchange_timeout;
    to.io_timeout = o.exchange_timeout;
    if (to.host < 0 || static_cast<size_t>(to.host) >= to.addresses.size()) {
      return done(Status::InvalidArgument("host index out of range"));
    }
    auto cfg = pipeline::PipelineConfig::Parse(a.at("config").dump());
    if (!cfg.ok()) return done(cfg.status());
    pipeline::PipelineConfig config = *cfg;
    config.workers = to.workers_per_host;
    config.storage = o.storage;
    pipeline::HostRole role;
    role.host = to.host;
    role.hosts = static_cast<int>(to.addresses.size());
    role.output_host = a.at("output_host").get<std::map<std::string, int>>();
    role.inputs = a.at("inputs").get<std::set<std::string>>();
    role.restore_seq = a.at("restore_seq").get<uint64_t>();
    role.pipeline_id = a.at("pipeline_id").get<std::string>();
    std::fprintf(stderr, "sluice host %d: activated; joining the exchange of %d hosts\n", role.host,
                 role.hosts);
    auto t = TcpTransport::Start(to);
    if (!t.ok()) return done(t.status());
    role.transport = t->get();
    auto c = pipeline::Controller::Start(a.at("program").get<std::string>(), config,
                                         a.at("base_dir").get<std::string>(), &role);
    if (!c.ok()) return done(c.status());
    {
      std::lock_guard<std::mutex> l(mu);
      transport = std::move(*t);
      controller = std::move(*c);
      activating = false;
    }
    std::fprintf(stderr, "sluice host %d: running at step %llu\n", role.host,
                 static_cast<unsigned long long>(Get()->step()));
    Json st = Json::parse(Get()->StatusJson());
    st["journal_steps"] = Get()->RecordedSteps();
    st["newest_journal"] = Get()->NewestJournalFile();
    Ok(res, st);
  } catch (const Json::exception& e) {
    done(Status::InvalidArgument(std::string("the activation is missing a field: ") + e.what()));
  }
}

void HostServer::Impl::Egress(const Request& req, Response& res) {
  pipeline::Controller* c = Get();
  const std::string rel = req.matches[1];
  auto sub =
      c->Subscribe(rel, Number(req, "snapshot", 0) != 0, Number(req, "follow", 1) != 0,
                   Number(req, "backpressure", 0) != 0, Number(req, "max_queued_records", 1000000));
  if (!sub.ok()) return Fail(res, sub.status());
  struct Stream {
    pipeline::Controller* c;
    pipeline::Subscription sub;
    bool header = false, ended = false;
  };
  auto st = std::make_shared<Stream>(Stream{c, *sub});
  res.status = 200;
  res.set_chunked_content_provider(
      "application/octet-stream",
      [st](size_t, httplib::DataSink& sink) {
        std::string out;
        if (st->ended) {
          sink.done();
          return true;
        }
        if (!st->header) {
          st->header = true;
          out.push_back('H');
          PutFixed64(&out, st->sub.snapshot_step);
          return sink.write(out.data(), out.size());
        }
        connector::OutputChunk chunk;
        auto r = st->sub.queue->Pop(&chunk, std::chrono::milliseconds(1000));
        if (r == connector::OutputQueue::PopResult::kTimeout) {
          out.push_back('K');
          PutFixed64(&out, st->c->step());
        } else if (r == connector::OutputQueue::PopResult::kClosed) {
          st->ended = true;
          pipeline::EncodeEndFrame(st->sub.queue->error(), &out);
        } else {
          pipeline::EncodeChunkFrame(chunk, &out);
          st->sub.queue->Done();
        }
        return sink.write(out.data(), out.size());
      },
      [st](bool) { st->c->Unsubscribe(st->sub.id); });
}

void HostServer::Impl::Routes() {
  // Every call carries the pipeline's secret.
  http.set_pre_routing_handler([this](const Request& req, Response& res) {
    const std::string auth = req.get_header_value("Authorization");
    if (auth.rfind("Bearer ", 0) != 0 || !SameSecret(auth.substr(7), o.secret)) {
      SendError(res, 401, "Unauthorized",
                "coordination calls must carry the pipeline's secret (Authorization: Bearer ...)");
      return httplib::Server::HandlerResponse::Handled;
    }
    last_call = NowMs();
    if (req.path == "/coordination/hello" || req.path == "/coordination/activate" ||
        req.path == "/coordination/stop") {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    if (Get() == nullptr) {
      SendError(res, 409, "NotActivated", "this host waits for its coordinator's activation");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  http.Get("/coordination/hello", [this](const Request&, Response& res) {
    pipeline::Controller* c = Get();
    Json j = {{"exchange", o.exchange_address},
              {"state", c ? pipeline::StateName(c->state()) : "Coordination"}};
    if (c) j["step"] = c->step();
    Ok(res, j);
  });
  http.Post("/coordination/activate",
            [this](const Request& req, Response& res) { Activate(req, res); });
  http.Post("/coordination/stop", [this](const Request&, Response& res) {
    Ok(res, Json{{"stopping", true}});
    RequestStop(Status::OK());
  });
  http.Get("/coordination/ready", [this](const Request& req, Response& res) {
    pipeline::Controller* c = Get();
    const auto in = c->WaitForInput(
        std::chrono::milliseconds(std::min<uint64_t>(Number(req, "wait_ms", 0), 5000)));
    Json j = {{"buffered", in.buffered},
              {"due", in.due},
              {"state", pipeline::StateName(c->state())},
              {"step", in.step}};
    if (!c->failure().ok()) j["error"] = c->failure().message();
    Ok(res, j);
  });
  http.Post("/coordination/step", [this](const Request& req, Response& res) {
    LongCall busy(this);
    Json j = Json::parse(req.body, nullptr, false);
    if (!j.is_object() || !j.contains("step")) {
      return SendError(res, 400, "InvalidRequest", "a step needs {\"step\": N}");
    }
    Status s = Get()->RunHostStep(j["step"].get<uint64_t>(), j.value("commit", false),
                                  j.value("in_transaction", false), j.value("replay", false));
    if (!s.ok()) return Fail(res, s);
    Ok(res, Json{{"step", Get()->step()}});
  });
  http.Post("/coordination/checkpoint", [this](const Request& req, Response& res) {
    LongCall busy(this);
    Json j = Json::parse(req.body, nullptr, false);
    if (!j.is_object() || !j.contains("sequence")) {
      return SendError(res, 400, "InvalidRequest", "a checkpoint needs {\"sequence\": N}");
    }
    Status s = Get()->WriteHostCheckpoint(j["sequence"].get<uint64_t>());
    if (!s.ok()) return Fail(res, s);
    Ok(res, Json{{"sequence", j["sequence"]}, {"step", Get()->step()}});
  });
  http.Post("/coordination/checkpoint/complete", [this](const Request& req, Response& res) {
    Json j = Json::parse(req.body, nullptr, false);
    if (!j.is_object() || !j.contains("sequence")) {
      return SendError(res, 400, "InvalidRequest", "needs {\"sequence\": N}");
    }
    Status s = Get()->CompleteHostCheckpoint(j["sequence"].get<uint64_t>());
    if (!s.ok()) return Fail(res, s);
    Ok(res, Json::object());
  });
  http.Post(R"(/coordination/ingest/([^/]+))", [this](const Request& req, Response& res) {
    format::ChangeBuffer changes;
    std::string_view in(req.body);
    if (!pipeline::DecodeChanges(&in, &changes) || !in.empty()) {
      return SendError(res, 400, "InvalidRequest", "the changes are malformed");
    }
    auto token = Get()->Ingest(req.matches[1], std::move(changes), Number(req, "force", 0) != 0,
                               Number(req, "bytes", req.body.size()));
    if (!token.ok()) return Fail(res, token.status());
    Ok(res, Json{{"token", *token}});
  });
  http.Post(R"(/coordination/ingress_errors/([^/]+))", [this](const Request& req, Response& res) {
    Get()->CountIngressErrors(req.matches[1], Number(req, "errors", 0));
    Ok(res, Json::object());
  });
  http.Get("/coordination/completion", [this](const Request& req, Response& res) {
    auto r = Get()->CompletionOf(Number(req, "token", 0));
    if (!r.ok()) return Fail(res, r.status());
    Ok(res, Json{{"complete", r->complete}, {"durable", r->durable}, {"step", r->step}});
  });
  http.Post("/coordination/pause", [this](const Request&, Response& res) {
    Get()->Pause();
    Ok(res, Json::object());
  });
  http.Post("/coordination/resume", [this](const Request&, Response& res) {
    Get()->Resume();
    Ok(res, Json::object());
  });
  http.Post(R"(/coordination/connector/([^/]+)/(start|pause|reset))",
            [this](const Request& req, Response& res) {
              const std::string name = req.matches[1], action = req.matches[2];
              Status s = action == "reset" ? Get()->ResetOutput(name)
                                           : Get()->SetEndpointPaused(name, action == "pause");
              if (!s.ok()) return Fail(res, s);
              Ok(res, Json::object());
            });
  http.Post(R"(/coordination/follow/([^/]+))", [this](const Request& req, Response& res) {
    Status s = Get()->Follow(req.matches[1]);
    if (!s.ok()) return Fail(res, s);
    Ok(res, Json::object());
  });
  http.Get(R"(/coordination/egress/([^/]+))",
           [this](const Request& req, Response& res) { Egress(req, res); });
  http.Post("/coordination/adhoc/lease", [this](const Request& req, Response& res) {
    Json j = Json::parse(req.body, nullptr, false);
    if (!j.is_object() || !j.contains("relations")) {
      return SendError(res, 400, "InvalidRequest", "a lease needs {\"relations\": [...]}");
    }
    auto r = Get()->Lease(j["relations"].get<std::vector<std::string>>());
    if (!r.ok()) return Fail(res, r.status());
    Ok(res, Json{{"lease", r->first}, {"step", r->second}});
  });
  http.Get("/coordination/adhoc/scan", [this](const Request& req, Response& res) {
    auto r = Get()->ScanLease(Number(req, "lease", 0), req.get_param_value("relation"));
    if (!r.ok()) return Fail(res, r.status());
    res.status = 200;
    res.set_content(std::move(*r), "application/octet-stream");
  });
  http.Post("/coordination/adhoc/release", [this](const Request& req, Response& res) {
    Get()->ReleaseLease(Number(req, "lease", 0));
    Ok(res, Json::object());
  });
  http.Get("/coordination/stats",
           [this](const Request&, Response& res) { Ok(res, Json::parse(Get()->StatsJson())); });
  http.Get("/coordination/status",
           [this](const Request&, Response& res) { Ok(res, Json::parse(Get()->StatusJson())); });
  http.Get("/coordination/checkpoints", [this](const Request&, Response& res) {
    Ok(res, Json::parse(Get()->CheckpointsJson()));
  });
}

HostServer::HostServer(HostOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->o = std::move(options);
}

HostServer::~HostServer() { Stop(); }

int HostServer::port() const { return impl_->port; }

Status HostServer::Start() {
  Impl& m = *impl_;
  if (m.o.secret.empty()) {
    return Status::InvalidArgument(
        "a host needs the pipeline's secret: give --secret-file FILE or set SLUICE_SECRET");
  }
  m.Routes();
  // A thread per call, and per egress stream the coordinator relays.
  SLUICE_ASSIGN_OR_RETURN(m.port, BindHttp(m.http, m.o.http_address, m.o.http_port, 64));
  m.thread = std::thread([&m] { m.http.listen_after_bind(); });
  // After activation, a host that hears nothing from its coordinator stops.
  m.watchdog = std::thread([&m] {
    std::unique_lock<std::mutex> l(m.mu);
    while (!m.stop) {
      m.cv.wait_for(l, std::chrono::milliseconds(200));
      if (m.stop || !m.controller || m.long_calls > 0) continue;
      const int64_t silent = Impl::NowMs() - m.last_call.load();
      if (silent > m.o.coordinator_timeout.count()) {
        m.stop = true;
        m.why = Status::Aborted("lost the coordinator: no call for " + std::to_string(silent) +
                                " ms (coordinator_timeout " +
                                std::to_string(m.o.coordinator_timeout.count()) + " ms)");
        m.cv.notify_all();
      }
    }
  });
  return Status::OK();
}

Status HostServer::Wait() {
  std::unique_lock<std::mutex> l(impl_->mu);
  impl_->cv.wait(l, [&] { return impl_->stop; });
  return impl_->why;
}

void HostServer::RequestStop() { impl_->RequestStop(Status::OK()); }

void HostServer::Stop() {
  if (!impl_ || impl_->stopped.exchange(true)) return;
  impl_->RequestStop(Status::OK());
  // The controller stops first (ending its egress streams), and goes only
  // once no handler can use it.
  if (pipeline::Controller* c = impl_->Get()) c->Stop();
  impl_->http.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  if (impl_->watchdog.joinable()) impl_->watchdog.join();
  std::lock_guard<std::mutex> l(impl_->mu);
  impl_->controller.reset();
  impl_->transport.reset();
}

}  // namespace sluice::server
