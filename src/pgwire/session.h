// One client connection of the PostgreSQL protocol: startup, SSL and
// authentication, then the simple and extended query protocols, COPY and
// SUBSCRIBE, until the client leaves or the server stops.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "base/tls.h"
#include "pgwire/pgwire.h"
#include "pgwire/scram.h"

namespace sluice::pgwire {

// What every session of a server shares.
struct SessionContext {
  pipeline::PipelineApi* api = nullptr;
  PgOptions options;
  std::unique_ptr<TlsContext> tls;  // null: SSL is refused
  ScramSecrets scram;
  std::atomic<bool> stopping{false};
};

class Session {
 public:
  Session(SessionContext* context, int fd, int32_t pid, int32_t secret);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Serves the connection until it ends. The socket is closed with the
  // session.
  void Run();
  // A CancelRequest with this session's key: the running SUBSCRIBE ends.
  void Cancel() { cancel_.store(true); }
  // Wakes a session blocked on its socket, when the server stops.
  void Shutdown();
  int32_t pid() const { return pid_; }
  int32_t secret() const { return secret_; }
  // A CancelRequest read at startup, for the server to deliver.
  struct CancelTarget {
    int32_t pid = 0, secret = 0;
  };
  const CancelTarget* cancel_request() const {
    return cancel_target_.pid ? &cancel_target_ : nullptr;
  }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  const int32_t pid_;
  const int32_t secret_;
  std::atomic<bool> cancel_{false};
  CancelTarget cancel_target_;
  friend struct Impl;
};

}  // namespace sluice::pgwire
