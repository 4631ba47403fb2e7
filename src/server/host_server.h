// The HTTP API of one host of a pipeline on many hosts (`sluice host`):
// the coordination endpoints (docs/multihost.md) through which the
// coordinator activates the host and then drives it. Every call must carry
// the pipeline's secret (`Authorization: Bearer SECRET`); others get 401.
//
// A host starts in the Coordination state, with no pipeline, and waits for
// POST /coordination/activate: the program, the layout (every host's
// exchange address, this host's index, the workers per host), the output
// assignment, the checkpoint to open and the pipeline's id. It then joins the
// TCP exchange and starts its share of the pipeline, whose steps, checkpoints
// and reads the coordinator drives. A host that hears nothing from its
// coordinator for `coordinator_timeout` after activation stops (the
// coordinator was lost; a new one restarts the pipeline from its last
// complete checkpoint).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "base/status.h"
#include "base/tls.h"

namespace sluice::server {

struct HostOptions {
  std::string http_address = "127.0.0.1";  // the coordination API
  int http_port = 0;                       // 0: any free port
  std::string exchange_address;            // "ip:port" of this host's exchange (port 0: any)
  std::string storage;                     // this host's storage directory
  std::string secret;
  // With files: the coordination API is HTTPS and the exchange TLS, and
  // the coordinator and the other hosts must present certificates of the
  // same CA.
  TlsFiles tls;
  std::chrono::milliseconds coordinator_timeout{30000};
  std::chrono::milliseconds exchange_timeout{10000};  // connect and io timeouts of the exchange
};

class HostServer {
 public:
  explicit HostServer(HostOptions options);
  ~HostServer();
  // Listens on the coordination API's and the exchange's addresses (the
  // exchange accepts once activated); a port 0 becomes one the kernel picks.
  Status Start();
  int port() const;
  std::string exchange_address() const;  // "ip:port" it listens on, once started
  // Blocks until the host is told to stop, loses its coordinator, or
  // Stop() is called; returns why (OK for a requested stop).
  Status Wait();
  // Makes Wait() return (from a signal handler's thread, say).
  void RequestStop();
  // Stops the pipeline's share and the API. Idempotent.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::server
