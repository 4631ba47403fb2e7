// The HTTP API of a pipeline (docs/api.md): a thin layer over the
// controller, on the asynchronous server of http_server.h. Errors are JSON {"message", "error_code", "details"} with a
// fitting status.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "base/tls.h"
#include "pipeline/api.h"
#include "pipeline/api_keys.h"
#include "server/http_server.h"

namespace sluice::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: any free port
  uint64_t max_request_bytes = 1ull << 30;
  int heartbeat_msecs = 2000;
  uint64_t max_chunk_records = 10000;
  // HTTPS with this certificate and key (the CA is not used: any client
  // may connect).
  TlsFiles tls;
  // Requests carry `Authorization: Bearer KEY` with one of these keys, of a
  // scope the endpoint needs (docs/api.md); none: the API is open.
  const pipeline::ApiKeys* keys = nullptr;
  // Timeouts and connection limits (http_server.h); max_request_bytes
  // above is the body limit.
  HttpLimits limits;
};

class Server {
 public:
  Server(pipeline::PipelineApi* controller, ServerOptions options);
  ~Server();
  // Binds the port and starts serving on background threads.
  Status Start();
  // The port it listens on (after Start).
  int port() const { return port_; }
  // Ends every stream and stops serving. Idempotent.
  void Stop();
  // The HTTP server's connection counters (also in /stats).
  HttpServerStats http_stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace sluice::server
