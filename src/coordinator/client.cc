#include "coordinator/client.h"

#include <httplib.h>

#include <charconv>
#include <nlohmann/json.hpp>

namespace sluice::coordinator {
namespace {

void SetTimeouts(httplib::Client& c, std::chrono::milliseconds connect,
                 std::chrono::milliseconds request) {
  c.set_connection_timeout(std::chrono::duration_cast<std::chrono::microseconds>(connect));
  c.set_read_timeout(std::chrono::duration_cast<std::chrono::microseconds>(request));
  c.set_write_timeout(std::chrono::duration_cast<std::chrono::microseconds>(request));
  c.set_keep_alive(false);
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

namespace {

Result<std::string> Answer(const HostClient& h, const std::string& what, httplib::Result r) {
  if (!r) {
    return Status::IOError(h.name() + " did not answer " + what + ": " +
                           httplib::to_string(r.error()));
  }
  if (r->status == 200) return std::move(r->body);
  std::string msg = r->body;
  auto j = nlohmann::json::parse(r->body, nullptr, false);
  if (j.is_object() && j.contains("message")) msg = j["message"].get<std::string>();
  const std::string text = h.name() + ": " + msg;
  switch (r->status) {
    case 400:
      return Status::InvalidArgument(text);
    case 404:
      return Status::NotFound(text);
    case 501:
      return Status::Unimplemented(text);
    case 503:
      return Status::Aborted(text);
    default:
      return Status::IOError(text + " (HTTP " + std::to_string(r->status) + ")");
  }
}

}  // namespace

Result<std::string> HostClient::Get(const std::string& path,
                                    std::chrono::milliseconds timeout) const {
  httplib::Client c(address_.ip, address_.port);
  SetTimeouts(c, connect_timeout_, timeout);
  c.set_bearer_token_auth(secret_);
  return Answer(*this, "GET " + path.substr(0, path.find('?')), c.Get(path));
}

Result<std::string> HostClient::Post(const std::string& path, const std::string& body,
                                     const std::string& content_type,
                                     std::chrono::milliseconds timeout) const {
  httplib::Client c(address_.ip, address_.port);
  SetTimeouts(c, connect_timeout_, timeout);
  c.set_bearer_token_auth(secret_);
  return Answer(*this, "POST " + path.substr(0, path.find('?')), c.Post(path, body, content_type));
}

Status HostClient::Stream(const std::string& path, std::chrono::milliseconds timeout,
                          const std::function<bool(const char*, size_t)>& receive) const {
  httplib::Client c(address_.ip, address_.port);
  SetTimeouts(c, connect_timeout_, timeout);
  c.set_bearer_token_auth(secret_);
  int status = 0;
  std::string error_body;
  auto r = c.Get(
      path,
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
    auto j = nlohmann::json::parse(error_body, nullptr, false);
    const std::string msg =
        j.is_object() && j.contains("message") ? j["message"].get<std::string>() : error_body;
    return status == 404 ? Status::NotFound(name() + ": " + msg)
                         : Status::IOError(name() + ": " + msg);
  }
  if (!r && r.error() != httplib::Error::Canceled) {
    return Status::IOError(name() + " stream " + path.substr(0, path.find('?')) +
                           " ended: " + httplib::to_string(r.error()));
  }
  return Status::OK();
}

}  // namespace sluice::coordinator
