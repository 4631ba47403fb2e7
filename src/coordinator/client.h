// Calls from the coordinator to one host's coordination API: every call
// carries the pipeline's secret and has a connect timeout and a request
// timeout, and an error names the host, its address and what went wrong.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "base/status.h"

namespace sluice::coordinator {

struct HostAddress {
  int index = 0;
  std::string ip;
  int port = 0;
  std::string text() const { return ip + ":" + std::to_string(port); }
};

// Parses "ip:port" (an error says what is wrong).
Result<HostAddress> ParseAddress(const std::string& text);

class HostClient {
 public:
  HostClient(HostAddress address, std::string secret, std::chrono::milliseconds connect_timeout)
      : address_(std::move(address)),
        secret_(std::move(secret)),
        connect_timeout_(connect_timeout) {}

  const HostAddress& address() const { return address_; }
  // "host N (ip:port)"
  std::string name() const;

  // GET or POST `path`; the answer's body when its status is 200.
  Result<std::string> Get(const std::string& path, std::chrono::milliseconds timeout) const;
  Result<std::string> Post(const std::string& path, const std::string& body,
                           const std::string& content_type,
                           std::chrono::milliseconds timeout) const;
  // A streamed GET: `receive` gets the body as it arrives and returns false
  // to stop. `timeout` bounds every read.
  Status Stream(const std::string& path, std::chrono::milliseconds timeout,
                const std::function<bool(const char*, size_t)>& receive) const;

 private:
  HostAddress address_;
  std::string secret_;
  std::chrono::milliseconds connect_timeout_;
};

}  // namespace sluice::coordinator
