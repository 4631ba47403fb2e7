// Calls from the coordinator to one host's coordination API
// (pipeline/coordination.h): every call carries the pipeline's secret and
// has a connect timeout and a request timeout, and an error names the host,
// its address, the call and what went wrong, an answer that does not read
// back included. With TLS files, calls are HTTPS: the host's certificate
// must come from the pipeline's CA and name the host's address, and the
// coordinator presents its own.
//
// Connections are kept open between calls (a few per host, each used by
// one call at a time, dropped after 2 s idle), so that a step does not pay
// for a new connection and TLS handshake. Thread safety: calls may be made
// from any thread at once; copies share the connections.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "base/status.h"
#include "base/tls.h"
#include "pipeline/coordination.h"

namespace sluice::server {

struct HostAddress {
  int index = 0;
  std::string ip;
  int port = 0;
  std::string text() const { return ip + ":" + std::to_string(port); }
};

// Parses "ip:port" (an error says what is wrong); port 0 (a port the
// kernel picks, for an address to listen on) only with `any_port`.
Result<HostAddress> ParseAddress(const std::string& text, bool any_port = false);

// Whether a call's error says the host is up but not activated yet (it
// answered 409 NotActivated): it is starting, not lost.
bool IsNotActivated(const Status& s);

class HostClient {
 public:
  HostClient(HostAddress address, std::string secret, std::chrono::milliseconds connect_timeout,
             TlsFiles tls = {});

  const HostAddress& address() const { return address_; }
  // "host N (ip:port)"
  std::string name() const;

  // Sends `request` and reads its answer back.
  template <class R>
  Result<typename R::Answer> Call(const R& request, std::chrono::milliseconds timeout) const {
    namespace co = pipeline::coordination;
    static_assert(!R::kCall.stream, "a stream is read with Stream()");
    SLUICE_ASSIGN_OR_RETURN(std::string body, Send(R::kCall, co::EncodeRequest(request), timeout));
    auto answer = co::DecodeAnswer<R>(body);
    if (!answer.ok()) return Malformed(R::kCall, answer.status());
    return answer;
  }

  // Closes the connections kept open (a process that stops, so that the
  // host's server need not wait for them to go idle).
  void CloseIdle() const;

  // A streamed call (egress): `receive` gets the body as it arrives and
  // returns false to stop. `timeout` bounds every read.
  Status Stream(const pipeline::coordination::EgressRequest& request,
                std::chrono::milliseconds timeout,
                const std::function<bool(const char*, size_t)>& receive) const;

 private:
  // The body of a 200 answer; any other answer as an error.
  Result<std::string> Send(const pipeline::coordination::CallInfo& call,
                           const pipeline::coordination::WireRequest& wire,
                           std::chrono::milliseconds timeout) const;
  Status Malformed(const pipeline::coordination::CallInfo& call, const Status& why) const;

  struct Pool;
  HostAddress address_;
  std::string secret_;
  std::chrono::milliseconds connect_timeout_;
  TlsFiles tls_;
  std::shared_ptr<Pool> pool_;
};

}  // namespace sluice::server
