// PostgreSQL's frontend/backend protocol (version 3) over a pipeline: psql,
// drivers and BI tools as clients (docs/pgwire.md). Another thin layer over
// PipelineApi, beside the HTTP API: SELECT is an ad hoc query; INSERT,
// DELETE and COPY FROM STDIN ingest into tables, answered once the step
// that applied them is done; SUBSCRIBE streams a view's snapshot and
// changes.
//
// One thread per connection, as PostgreSQL's own process per connection:
// clients of this protocol are few and pooled, and a statement's work is
// the pipeline's, not the thread's. The number of connections is bounded.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "base/tls.h"
#include "pipeline/api.h"
#include "pipeline/api_keys.h"

namespace sluice::pgwire {

struct PgOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port
  // SSL for clients that ask for it (the certificate and key of the HTTP
  // API; no client certificate is asked for).
  TlsFiles tls;
  // The passwords clients give (any user name): each key's scope bounds
  // what its sessions may do. None: every client is let in (trust).
  const pipeline::ApiKeys* keys = nullptr;
  // "scram-sha-256" (the password never crosses the wire) or "password"
  // (cleartext: only over SSL or on a trusted network).
  std::string auth = "scram-sha-256";
  int max_connections = 100;
};

class PgServer {
 public:
  PgServer(pipeline::PipelineApi* api, PgOptions options);
  ~PgServer();
  // Binds the port and starts serving on background threads.
  Status Start();
  int port() const { return port_; }
  // Closes every connection and stops serving. Idempotent.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace sluice::pgwire
