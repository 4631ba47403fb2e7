#include "server/host_client.h"

#include <httplib.h>

#include <charconv>
#include <nlohmann/json.hpp>
#include <vector>

#include "base/mutex.h"

namespace sluice::server {
namespace {

namespace co = pipeline::coordination;
using Clock = std::chrono::steady_clock;

std::string CallName(const co::CallInfo& call) {
  return std::string(co::MethodName(call.method)) + " " + call.path;
}

// The message of an error answer: its JSON "message", or the start of
// whatever else it is.
std::string ErrorMessage(const std::string& body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_object() && j.contains("message") && j["message"].is_string()) {
    return j["message"].get<std::string>();
  }
  std::string head = body.substr(0, 200);
  for (char& c : head) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return head.empty() ? "an empty answer" : "\"" + head + "\"";
}

}  // namespace

Result<HostAddress> ParseAddress(const std::string& text, bool any_port) {
  const size_t colon = text.rfind(':');
  HostAddress a;
  if (colon == std::string::npos || colon == 0) {
    return Status::InvalidArgument("\"" + text + "\" is not an address (expected ip:port)");
  }
  a.ip = text.substr(0, colon);
  const std::string port = text.substr(colon + 1);
  if (std::from_chars(port.data(), port.data() + port.size(), a.port).ec != std::errc() ||
      a.port < (any_port ? 0 : 1) || a.port > 65535) {
    return Status::InvalidArgument("\"" + text + "\" has no valid port (expected ip:port)");
  }
  return a;
}

bool IsNotActivated(const Status& s) {
  return !s.ok() && s.message().find("(HTTP 409)") != std::string::npos;
}

// Idle connections to one host. A connection is taken for one call and
// put back if the call went well.
struct HostClient::Pool {
  Mutex mu;
  struct Idle {
    std::unique_ptr<httplib::Client> client;
    Clock::time_point since;
  };
  std::vector<Idle> idle GUARDED_BY(mu);
  static constexpr size_t kMaxIdle = 8;
  static constexpr std::chrono::seconds kMaxIdleTime{2};
};

HostClient::HostClient(HostAddress address, std::string secret,
                       std::chrono::milliseconds connect_timeout, TlsFiles tls)
    : address_(std::move(address)),
      secret_(std::move(secret)),
      connect_timeout_(connect_timeout),
      tls_(std::move(tls)),
      pool_(std::make_shared<Pool>()) {}

namespace {

std::unique_ptr<httplib::Client> NewClient(const HostAddress& a, const TlsFiles& tls) {
  if (!tls.enabled()) return std::make_unique<httplib::Client>(a.ip, a.port);
  auto c = std::make_unique<httplib::Client>("https://" + a.text(), tls.cert, tls.key);
  c->set_ca_cert_path(tls.ca);
  c->enable_server_certificate_verification(true);
  return c;
}

void SetTimeouts(httplib::Client& c, std::chrono::milliseconds connect,
                 std::chrono::milliseconds request) {
  c.set_connection_timeout(std::chrono::duration_cast<std::chrono::microseconds>(connect));
  c.set_read_timeout(std::chrono::duration_cast<std::chrono::microseconds>(request));
  c.set_write_timeout(std::chrono::duration_cast<std::chrono::microseconds>(request));
}

// What went wrong with a call that got no answer.
std::string NoAnswer(const httplib::Client& c, const httplib::Result& r) {
  std::string why = httplib::to_string(r.error());
  if (r.error() == httplib::Error::SSLServerVerification) {
    why += std::string(": ") + X509_verify_cert_error_string(c.get_openssl_verify_result());
  }
  return why;
}

}  // namespace

void HostClient::CloseIdle() const {
  std::vector<Pool::Idle> idle;
  {
    MutexLock l(&pool_->mu);
    idle.swap(pool_->idle);
  }
}

std::string HostClient::name() const {
  return "host " + std::to_string(address_.index) + " (" + address_.text() + ")";
}

Status HostClient::Malformed(const co::CallInfo& call, const Status& why) const {
  return Status::Corruption(name() + " answered " + CallName(call) +
                            " with a malformed answer: " + why.message());
}

Result<std::string> HostClient::Send(const co::CallInfo& call, const co::WireRequest& wire,
                                     std::chrono::milliseconds timeout) const {
  std::unique_ptr<httplib::Client> c;
  {
    MutexLock l(&pool_->mu);
    while (!pool_->idle.empty() && !c) {
      Pool::Idle idle = std::move(pool_->idle.back());
      pool_->idle.pop_back();
      if (Clock::now() - idle.since < Pool::kMaxIdleTime) c = std::move(idle.client);
    }
  }
  if (!c) {
    c = NewClient(address_, tls_);
    c->set_keep_alive(true);
    // A kept connection sends a request's header and body in two writes:
    // without this, the second waits for the first's delayed ACK (40 ms).
    c->set_tcp_nodelay(true);
    c->set_bearer_token_auth(secret_);
  }
  SetTimeouts(*c, connect_timeout_, timeout);
  httplib::Result r = call.method == co::Method::kGet
                          ? c->Get(wire.target)
                          : c->Post(wire.target, wire.body, wire.content_type);
  if (!r) {
    return Status::IOError(name() + " did not answer " + CallName(call) + ": " + NoAnswer(*c, r));
  }
  // Only a connection whose call went through is used again: a refused
  // call's body may still be unread on it.
  if (r->status == 200) {
    MutexLock l(&pool_->mu);
    if (pool_->idle.size() < Pool::kMaxIdle) pool_->idle.push_back({std::move(c), Clock::now()});
  }
  if (r->status == 200) return std::move(r->body);
  if (r->body.empty()) {
    return co::StatusFromHttp(r->status, name() + " answered " + CallName(call) + " with HTTP " +
                                             std::to_string(r->status) + " and nothing else");
  }
  return co::StatusFromHttp(r->status, name() + ": " + ErrorMessage(r->body));
}

Status HostClient::Stream(const co::EgressRequest& request, std::chrono::milliseconds timeout,
                          const std::function<bool(const char*, size_t)>& receive) const {
  const co::WireRequest wire = co::EncodeRequest(request);
  std::unique_ptr<httplib::Client> client = NewClient(address_, tls_);
  httplib::Client& c = *client;
  SetTimeouts(c, connect_timeout_, timeout);
  c.set_keep_alive(false);
  c.set_bearer_token_auth(secret_);
  int status = 0;
  std::string error_body;
  auto r = c.Get(
      wire.target,
      [&](const httplib::Response& res) {
        status = res.status;
        return true;
      },
      [&](const char* data, size_t n) {
        if (status != 200) {
          error_body.append(data, n);
          return true;
        }
        return receive(data, n);
      });
  if (status != 0 && status != 200) {
    return co::StatusFromHttp(status, name() + ": " + ErrorMessage(error_body));
  }
  if (!r && r.error() != httplib::Error::Canceled) {
    return Status::IOError(name() + " stream " + CallName(co::EgressRequest::kCall) +
                           " ended: " + NoAnswer(c, r));
  }
  return Status::OK();
}

}  // namespace sluice::server
