#include "server/host_server.h"

#include <httplib.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>
#include <type_traits>

#include "base/bytes.h"
#include "base/failpoint.h"
#include "base/mutex.h"
#include "pipeline/controller.h"
#include "pipeline/coordination.h"
#include "pipeline/wire.h"
#include "runtime/tcp_transport.h"
#include "server/host_client.h"
#include "server/http.h"

namespace sluice::server {
namespace {

using Json = nlohmann::json;
using httplib::Request;
using httplib::Response;
using Clock = std::chrono::steady_clock;

namespace co = pipeline::coordination;

void Fail(Response& res, const Status& s) { SendStatus(res, s, "HostError"); }

// Serves call R: its request read back (a malformed one is a 400 that
// names the field), `handler`'s answer written as the call says.
// A handler may also take the HTTP request (to see who sent it).
template <class R, class F>
void Serve(httplib::Server& http, F handler) {
  auto h = [handler](const Request& req, Response& res) {
    auto request = co::DecodeRequest<R>(req.params, req.body);
    if (!request.ok()) {
      return SendError(res, 400, "InvalidRequest",
                       std::string("malformed ") + co::MethodName(R::kCall.method) + " " +
                           R::kCall.path + ": " + request.status().message());
    }
    Result<typename R::Answer> answer = [&] {
      if constexpr (std::is_invocable_v<F, const R&, const Request&>) {
        return handler(*request, req);
      } else {
        return handler(*request);
      }
    }();
    if (!answer.ok()) return Fail(res, answer.status());
    res.status = 200;
    res.set_content(co::EncodeAnswer<R>(*answer),
                    R::kCall.binary_answer ? "application/octet-stream" : "application/json");
  };
  if constexpr (R::kCall.method == co::Method::kGet) {
    http.Get(R::kCall.path, h);
  } else {
    http.Post(R::kCall.path, h);
  }
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

// The other hosts, over their coordination APIs: leases and scans of
// their shares for the snapshots this host assembles. A call that gets no
// answer in time is tried once more.
class HostPeers final : public pipeline::Peers {
 public:
  HostPeers(int self, std::vector<HostClient> hosts)
      : holder_("host " + std::to_string(self)), hosts_(std::move(hosts)) {}

  Result<uint64_t> Lease(int host, const std::string& relation, uint64_t step) override {
    SLUICE_ASSIGN_OR_RETURN(co::LeaseAnswer a,
                            Retry(host, co::LeaseRequest{{relation}, step, holder_}));
    return a.lease;
  }
  Result<MemBatchPtr> Scan(int host, uint64_t lease, const std::string& relation, bool from_start,
                           const std::string& after, uint64_t max_bytes) override {
    SLUICE_ASSIGN_OR_RETURN(
        co::ScanAnswer a,
        Retry(host, co::ScanRequest{lease, relation, from_start, after, max_bytes}));
    if (a.batches.empty()) return MemBatch::Empty();
    return a.batches.front();
  }
  Status Touch(int host, uint64_t lease) override {
    return Retry(host, co::TouchRequest{lease}).status();
  }
  void Release(int host, uint64_t lease) override { (void)Retry(host, co::ReleaseRequest{lease}); }
  Status ReportPart(int host, const connector::PartReport& r) override {
    return Retry(host,
                 co::PartReportRequest{r.connector, r.host, r.from, r.step, r.files, r.snapshot,
                                           r.compaction})
        .status();
  }

 private:
  static constexpr std::chrono::seconds kTimeout{30};
  // A peer that does not answer in time is asked once more; a peer still
  // being activated (the hosts are activated at once, and one may start a
  // snapshot before another is ready) is asked again until it is, for up
  // to kTimeout.
  template <class R>
  Result<typename R::Answer> Retry(int host, const R& request) {
    const HostClient& h = hosts_.at(static_cast<size_t>(host));
    const auto until = std::chrono::steady_clock::now() + kTimeout;
    auto r = h.Call(request, kTimeout);
    while (IsNotActivated(r.status()) && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      r = h.Call(request, kTimeout);
    }
    if (!r.ok() && r.status().code() == StatusCode::kIOError &&
        r.status().message().find("did not answer") != std::string::npos) {
      r = h.Call(request, kTimeout);
    }
    return r;
  }

  const std::string holder_;
  const std::vector<HostClient> hosts_;
};

struct HostServer::Impl {
  HostOptions o;
  std::unique_ptr<HostPeers> peers;   // once activated
  std::vector<std::string> host_ips;  // every host's, once activated
  std::unique_ptr<httplib::Server> http;
  std::thread thread, watchdog;
  int port = 0;
  // The exchange's socket, listening from Start on (so that no other
  // process takes its port), and the address it listens on.
  int exchange_fd = -1;
  std::string exchange;

  Mutex mu;
  CondVar cv;
  std::unique_ptr<TcpTransport> transport GUARDED_BY(mu);           // once set
  std::unique_ptr<pipeline::Controller> controller GUARDED_BY(mu);  // once set
  bool activating GUARDED_BY(mu) = false;
  bool stop GUARDED_BY(mu) = false;
  Status why GUARDED_BY(mu);
  std::atomic<int64_t> last_call{0};  // steady clock, ms
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
    MutexLock l(&mu);
    return controller.get();
  }
  void RequestStop(Status s) {
    MutexLock l(&mu);
    if (stop) return;
    stop = true;
    why = std::move(s);
    cv.SignalAll();
  }
  void Routes();
  Result<co::ActivateAnswer> Activate(const co::ActivateRequest& a);
  void Egress(const Request& req, Response& res);
  // Egress streams open now. Each holds one of the server's threads, so
  // they are bounded below the pool's size: the calls that run steps always
  // find a thread.
  std::atomic<int> streams{0};
};

// The coordination API's threads, and how many of them egress streams may
// hold at once.
constexpr int kHostThreads = 256;
constexpr int kMaxHostStreams = 192;

Result<co::ActivateAnswer> HostServer::Impl::Activate(const co::ActivateRequest& a) {
  {
    MutexLock l(&mu);
    if (controller || activating) {
      return Status::InvalidArgument("this host was already activated");
    }
    activating = true;
  }
  struct Done {
    Impl* m;
    ~Done() {
      MutexLock l(&m->mu);
      m->activating = false;
    }
  } done{this};
  TcpTransportOptions to;
  to.host = a.host;
  to.addresses = a.addresses;
  to.workers_per_host = a.workers;
  to.secret = o.secret;
  to.tls = o.tls;
  to.connect_timeout = o.exchange_timeout;
  to.io_timeout = o.exchange_timeout;
  if (to.host < 0 || static_cast<size_t>(to.host) >= to.addresses.size()) {
    return Status::InvalidArgument("activating host: host index " + std::to_string(to.host) +
                                   " is out of range");
  }
  if (to.workers_per_host < 1) {
    return Status::InvalidArgument("activating host: needs at least one worker");
  }
  auto cfg = pipeline::PipelineConfig::Parse(a.config);
  if (!cfg.ok()) return cfg.status().WithContext("activating host");
  pipeline::PipelineConfig config = *cfg;
  config.workers = to.workers_per_host;
  config.storage = o.storage;
  pipeline::HostRole role;
  role.host = to.host;
  role.hosts = static_cast<int>(to.addresses.size());
  role.output_host = a.output_host;
  role.inputs = std::set<std::string>(a.inputs.begin(), a.inputs.end());
  role.restore_seq = a.restore_seq;
  role.pipeline_id = a.pipeline_id;
  if (a.relayout) role.relayout = *a.relayout;
  if (a.layout != "one_host" && a.layout != "all_hosts") {
    return Status::InvalidArgument("activating host: unknown layout \"" + a.layout + "\"");
  }
  role.spread = a.layout == "all_hosts";
  if (a.apis.size() != to.addresses.size()) {
    return Status::InvalidArgument("activating host: " + std::to_string(a.apis.size()) +
                                   " coordination addresses for " +
                                   std::to_string(to.addresses.size()) + " hosts");
  }
  std::vector<HostClient> peer_clients;
  for (size_t h = 0; h < a.apis.size(); ++h) {
    SLUICE_ASSIGN_OR_RETURN(HostAddress address, ParseAddress(a.apis[h]));
    address.index = static_cast<int>(h);
    host_ips.push_back(address.ip);
    peer_clients.emplace_back(address, o.secret, std::chrono::seconds(10), o.tls);
  }
  peers = std::make_unique<HostPeers>(to.host, std::move(peer_clients));
  role.peers = peers.get();
  std::fprintf(stderr, "sluice host %d: activated; joining the exchange of %d hosts\n", role.host,
               role.hosts);
  // What ps and top call this process.
  const std::string name = "sluice host " + std::to_string(role.host);
  prctl(PR_SET_NAME, name.c_str(), 0, 0, 0);
  // The exchange accepts on the socket bound at Start (a copy of it: an
  // activation that fails may be tried again).
  to.listen_fd = ::dup(exchange_fd);
  auto t = TcpTransport::Start(to);
  if (!t.ok()) return t.status().WithContext("activating host");
  role.transport = t->get();
  auto c = pipeline::Controller::Start(a.program, config, a.base_dir, &role);
  if (!c.ok()) return c.status().WithContext("activating host");
  co::ActivateAnswer answer;
  answer.step = (*c)->step();
  for (const auto& [step, commit, in_txn, clock] : (*c)->RecordedSteps()) {
    answer.journal_steps.push_back({step, commit, in_txn, clock});
  }
  answer.newest_journal = (*c)->NewestJournalFile();
  answer.maxima = (*c)->LatenessMaxima();
  if ((*c)->relayout_lease() != 0) answer.relayout_lease = (*c)->relayout_lease();
  {
    MutexLock l(&mu);
    transport = std::move(*t);
    controller = std::move(*c);
  }
  std::fprintf(stderr, "sluice host %d: running at step %llu\n", role.host,
               static_cast<unsigned long long>(answer.step));
  return answer;
}

void HostServer::Impl::Egress(const Request& req, Response& res) {
  pipeline::Controller* c = Get();
  auto request = co::DecodeRequest<co::EgressRequest>(req.params, req.body);
  if (!request.ok()) return Fail(res, request.status());
  const co::EgressRequest& e = *request;
  if (streams.fetch_add(1) >= kMaxHostStreams) {
    --streams;
    return Fail(res, Status::Unavailable(
                         "the host serving \"" + e.relation + "\" already streams to " +
                         std::to_string(kMaxHostStreams) +
                         " followers, the most a host serves at once: try again later"));
  }
  auto sub = c->Subscribe(e.relation, e.snapshot, e.follow, e.backpressure, e.max_queued_records);
  if (!sub.ok()) {
    --streams;
    return Fail(res, sub.status());
  }
  struct Stream {
    pipeline::Controller* c;
    pipeline::Subscription sub;
    std::atomic<int>* streams;
    bool header = false, ended = false;
  };
  auto st = std::make_shared<Stream>(Stream{c, *sub, &streams});
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
      [st](bool) {
        st->c->Unsubscribe(st->sub.id);
        --*st->streams;
      });
}

void HostServer::Impl::Routes() {
  // Every call carries the pipeline's secret.
  http->set_pre_routing_handler([this](const Request& req, Response& res) {
    const std::string auth = req.get_header_value("Authorization");
    if (auth.rfind("Bearer ", 0) != 0 || !SameSecret(auth.substr(7), o.secret)) {
      SendError(res, 401, "Unauthorized",
                "coordination calls must carry the pipeline's secret (Authorization: Bearer ...)");
      // Its body was not read: the connection cannot carry another call.
      res.set_header("Connection", "close");
      return httplib::Server::HandlerResponse::Handled;
    }
    last_call = NowMs();
    if (req.path == co::HelloRequest::kCall.path || req.path == co::ActivateRequest::kCall.path ||
        req.path == co::StopRequest::kCall.path) {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    if (Get() == nullptr) {
      SendError(res, 409, "NotActivated", "this host waits for its coordinator's activation");
      res.set_header("Connection", "close");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  using Empty = co::Empty;
  Serve<co::HelloRequest>(*http, [this](const co::HelloRequest&) -> Result<co::HelloAnswer> {
    pipeline::Controller* c = Get();
    co::HelloAnswer a;
    a.exchange = exchange;
    a.state = c ? pipeline::StateName(c->state()) : "Coordination";
    if (c) a.step = c->step();
    return a;
  });
  Serve<co::ActivateRequest>(*http, [this](const co::ActivateRequest& a) { return Activate(a); });
  Serve<co::RelayoutRequest>(
      *http, [this](const co::RelayoutRequest& r) -> Result<co::RelayoutAnswer> {
        SLUICE_ASSIGN_OR_RETURN(uint64_t rows, Get()->Relayout(r.relations, r.leases));
        return co::RelayoutAnswer{rows};
      });
  Serve<co::LaunchRequest>(*http, [this](const co::LaunchRequest&) -> Result<Empty> {
    SLUICE_RETURN_IF_ERROR(Get()->LaunchOutputs());
    return Empty{};
  });
  Serve<co::StopRequest>(*http, [this](const co::StopRequest&) -> Result<Empty> {
    RequestStop(Status::OK());
    return Empty{};
  });
  Serve<co::ReadyRequest>(*http, [this](const co::ReadyRequest& r) -> Result<co::ReadyAnswer> {
    pipeline::Controller* c = Get();
    const auto in = c->WaitForInput(std::chrono::milliseconds(std::min<uint64_t>(r.wait_ms, 5000)));
    co::ReadyAnswer a;
    a.buffered = in.buffered;
    a.due = in.due;
    a.state = pipeline::StateName(c->state());
    a.step = in.step;
    if (!c->failure().ok()) a.error = c->failure().message();
    return a;
  });
  Serve<co::StepRequest>(*http, [this](const co::StepRequest& r) -> Result<co::StepAnswer> {
    LongCall busy(this);
    SLUICE_RETURN_IF_ERROR(
        Get()->RunHostStep(r.step, r.commit, r.in_transaction, r.replay, r.clock, r.maxima));
    return co::StepAnswer{Get()->step(), Get()->LastStepIgnoredDeletes(), Get()->LatenessMaxima()};
  });
  Serve<co::CheckpointRequest>(
      *http, [this](const co::CheckpointRequest& r) -> Result<co::CheckpointAnswer> {
        LongCall busy(this);
        SLUICE_RETURN_IF_ERROR(Get()->WriteHostCheckpoint(r.sequence));
        return co::CheckpointAnswer{r.sequence, Get()->step()};
      });
  Serve<co::CheckpointCompleteRequest>(
      *http, [this](const co::CheckpointCompleteRequest& r) -> Result<Empty> {
        SLUICE_RETURN_IF_ERROR(Get()->CompleteHostCheckpoint(r.sequence));
        return Empty{};
      });
  Serve<co::IngestRequest>(*http, [this](const co::IngestRequest& r) -> Result<co::IngestAnswer> {
    SLUICE_ASSIGN_OR_RETURN(
        uint64_t token, Get()->Ingest(r.table, format::ChangeBuffer(*r.changes), r.force, r.bytes));
    return co::IngestAnswer{token};
  });
  Serve<co::IngressErrorsRequest>(*http,
                                  [this](const co::IngressErrorsRequest& r) -> Result<Empty> {
                                    Get()->CountIngressErrors(r.table, r.errors);
                                    return Empty{};
                                  });
  Serve<co::CompletionRequest>(
      *http, [this](const co::CompletionRequest& r) -> Result<co::CompletionAnswer> {
        SLUICE_ASSIGN_OR_RETURN(pipeline::Completion c, Get()->CompletionOf(r.token));
        co::CompletionAnswer a{c.complete, c.durable, c.step, std::nullopt, c.from_step};
        if (c.lost) a.lost = true;
        return a;
      });
  Serve<co::PauseRequest>(*http, [this](const co::PauseRequest&) -> Result<Empty> {
    Get()->Pause();
    return Empty{};
  });
  Serve<co::ResumeRequest>(*http, [this](const co::ResumeRequest&) -> Result<Empty> {
    Get()->Resume();
    return Empty{};
  });
  Serve<co::PartReportRequest>(
      *http, [this](const co::PartReportRequest& r, const Request& req) -> Result<Empty> {
        // A report counts only from the host it names: with TLS, the client's
        // certificate (each host has its own, for its address) must name it.
        if (r.host < 0 || static_cast<size_t>(r.host) >= host_ips.size()) {
          return Status::InvalidArgument("a part report from host " + std::to_string(r.host) +
                                         ", which is not a host of this pipeline");
        }
        if (o.tls.enabled() &&
            !PeerCertificateNamesIp(req.ssl, host_ips[static_cast<size_t>(r.host)])) {
          return Status::InvalidArgument("a part report that says it comes from host " +
                                         std::to_string(r.host) + " (" +
                                         host_ips[static_cast<size_t>(r.host)] +
                                         "), over a connection whose certificate does not name it");
        }
        LongCall busy(this);
        connector::PartReport report{r.connector, r.host,  r.from,      r.step,
                                     r.files,     r.snapshot, r.compaction};
        SLUICE_RETURN_IF_ERROR(Get()->AcceptPartReport(report));
        return Empty{};
      });
  Serve<co::ConnectorRequest>(*http, [this](const co::ConnectorRequest& r) -> Result<Empty> {
    if (r.action == "reset") {
      SLUICE_RETURN_IF_ERROR(Get()->ResetOutput(r.name));
    } else if (r.action == "start" || r.action == "pause") {
      SLUICE_RETURN_IF_ERROR(Get()->SetEndpointPaused(r.name, r.action == "pause"));
    } else {
      return Status::InvalidArgument("unknown connector action \"" + r.action + "\"");
    }
    return Empty{};
  });
  Serve<co::FollowRequest>(*http, [this](const co::FollowRequest& r) -> Result<Empty> {
    SLUICE_RETURN_IF_ERROR(Get()->Follow(r.relation));
    return Empty{};
  });
  http->Get(co::EgressRequest::kCall.path,
            [this](const Request& req, Response& res) { Egress(req, res); });
  Serve<co::LeaseRequest>(*http, [this](const co::LeaseRequest& r) -> Result<co::LeaseAnswer> {
    SLUICE_ASSIGN_OR_RETURN(auto lease, Get()->Lease(r.relations, r.step, r.holder));
    return co::LeaseAnswer{lease.first, lease.second};
  });
  Serve<co::ScanRequest>(*http, [this](const co::ScanRequest& r) -> Result<co::ScanAnswer> {
    Failpoint("host_scan");  // a host that dies while another reads its share
    SLUICE_ASSIGN_OR_RETURN(MemBatchPtr piece,
                            Get()->ScanLease(r.lease, r.relation, r.from_start, r.after,
                                             std::max<uint64_t>(r.max_bytes, 1)));
    co::ScanAnswer a;
    if (!piece->empty()) a.batches.push_back(std::move(piece));
    return a;
  });
  Serve<co::TouchRequest>(*http, [this](const co::TouchRequest& r) -> Result<co::TouchAnswer> {
    SLUICE_ASSIGN_OR_RETURN(uint64_t step, Get()->TouchLease(r.lease));
    return co::TouchAnswer{step};
  });
  Serve<co::ReleaseRequest>(*http, [this](const co::ReleaseRequest& r) -> Result<Empty> {
    Get()->ReleaseLease(r.lease);
    return Empty{};
  });
  Serve<co::StatsRequest>(*http,
                          [this](const co::StatsRequest&) -> Result<pipeline::PipelineStats> {
                            return Get()->Stats();
                          });
  Serve<co::StatusRequest>(*http,
                           [this](const co::StatusRequest&) -> Result<pipeline::PipelineStatus> {
                             return Get()->CurrentStatus();
                           });
  Serve<co::CheckpointsRequest>(
      *http, [this](const co::CheckpointsRequest&) -> Result<co::CheckpointList> {
        return co::CheckpointList{Get()->Checkpoints()};
      });
}

HostServer::HostServer(HostOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->o = std::move(options);
}

HostServer::~HostServer() { Stop(); }

int HostServer::port() const { return impl_->port; }

std::string HostServer::exchange_address() const { return impl_->exchange; }

Status HostServer::Start() {
  Impl& m = *impl_;
  if (m.o.secret.empty()) {
    return Status::InvalidArgument(
        "a host needs the pipeline's secret: give --secret-file FILE or set SLUICE_SECRET");
  }
  SLUICE_ASSIGN_OR_RETURN(m.http, MakeHttpServer(m.o.tls, /*verify_clients=*/true));
  m.Routes();
  // A thread per call, and per egress stream the coordinator relays. A
  // coordinator keeps a few connections open (keep-alive) and drops them
  // after 2 s idle, well before the host does.
  m.http->set_keep_alive_max_count(100000);
  m.http->set_keep_alive_timeout(5);
  SLUICE_ASSIGN_OR_RETURN(m.port, BindHttp(*m.http, m.o.http_address, m.o.http_port, kHostThreads));
  SLUICE_ASSIGN_OR_RETURN(m.exchange_fd, ListenTcp(m.o.exchange_address, &m.exchange));
  m.thread = std::thread([&m] { m.http->listen_after_bind(); });
  // After activation, a host that hears nothing from its coordinator stops.
  m.watchdog = std::thread([&m] {
    MutexLock l(&m.mu);
    while (!m.stop) {
      m.cv.WaitFor(&m.mu, std::chrono::milliseconds(200));
      if (m.stop || !m.controller || m.long_calls > 0) continue;
      const int64_t silent = Impl::NowMs() - m.last_call.load();
      if (silent > m.o.coordinator_timeout.count()) {
        m.stop = true;
        m.why = Status::Aborted("lost the coordinator: no call for " + std::to_string(silent) +
                                " ms (coordinator_timeout " +
                                std::to_string(m.o.coordinator_timeout.count()) + " ms)");
        m.cv.SignalAll();
      }
    }
  });
  return Status::OK();
}

Status HostServer::Wait() {
  MutexLock l(&impl_->mu);
  while (!impl_->stop) impl_->cv.Wait(&impl_->mu);
  return impl_->why;
}

void HostServer::RequestStop() { impl_->RequestStop(Status::OK()); }

void HostServer::Stop() {
  if (!impl_ || impl_->stopped.exchange(true)) return;
  impl_->RequestStop(Status::OK());
  // The controller stops first (ending its egress streams and snapshots),
  // and goes only once no handler can use it. The connections to the other
  // hosts close before the server stops, which waits for connections kept
  // open to go idle: those of the others, which close theirs likewise.
  if (pipeline::Controller* c = impl_->Get()) c->Stop();
  impl_->peers.reset();
  if (impl_->http) impl_->http->stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  if (impl_->watchdog.joinable()) impl_->watchdog.join();
  MutexLock l(&impl_->mu);
  impl_->controller.reset();
  impl_->transport.reset();
  if (impl_->exchange_fd >= 0) ::close(impl_->exchange_fd);
  impl_->exchange_fd = -1;
}

}  // namespace sluice::server
