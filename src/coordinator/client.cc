#include "coordinator/client.h"

#include <httplib.h>

#include <charconv>
#include <nlohmann/json.hpp>

namespace sluice::coordinator {
namespace {

namespace co = pipeline::coordination;

void SetTimeouts(httplib::Client& c, std::chrono::milliseconds connect,
                 std::chrono::milliseconds request) {
  c.set_connection_timeout(std::chrono::duration_cast<std::chrono::microseconds>(connect));
  c.set_read_timeout(std::chrono::duration_cast<std::chrono::microseconds>(request));
  c.set_write_timeout(std::chrono::duration_cast<std::chrono::microseconds>(request));
  c.set_keep_alive(false);
}

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

Result<HostAddress> ParseAddress(const std::string& text) {
  const size_t colon = text.rfind(':');
  HostAddress a;
  if (colon == std::string::npos || colon == 0) {
    return Status::InvalidArgument("\"" + text + "\" is not an address (expected ip:port)");
  }
  a.ip = text.substr(0, colon);
  const std::string port = text.substr(colon + 1);
  if (std::from_chars(port.data(), port.data() + port.size(), a.port).ec != std::errc() ||
      a.port <= 0 || a.port > 65535) {
    return Status::InvalidArgument("\"" + text + "\" has no valid port (expected ip:port)");
  }
  return a;
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
  httplib::Client c(address_.ip, address_.port);
  SetTimeouts(c, connect_timeout_, timeout);
  c.set_bearer_token_auth(secret_);
  httplib::Result r = call.method == co::Method::kGet
                          ? c.Get(wire.target)
                          : c.Post(wire.target, wire.body, wire.content_type);
  if (!r) {
    return Status::IOError(name() + " did not answer " + CallName(call) + ": " +
                           httplib::to_string(r.error()));
  }
  if (r->status == 200) return std::move(r->body);
  return co::StatusFromHttp(r->status, name() + ": " + ErrorMessage(r->body));
}

Status HostClient::Stream(const co::EgressRequest& request, std::chrono::milliseconds timeout,
                          const std::function<bool(const char*, size_t)>& receive) const {
  const co::WireRequest wire = co::EncodeRequest(request);
  httplib::Client c(address_.ip, address_.port);
  SetTimeouts(c, connect_timeout_, timeout);
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
                           " ended: " + httplib::to_string(r.error()));
  }
  return Status::OK();
}

}  // namespace sluice::coordinator
