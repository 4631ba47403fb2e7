// An asynchronous HTTP/1.1 server (plain or TLS) on Asio: connections cost
// memory, not threads. A few I/O threads read requests and write answers;
// a router (the application) sees each request's head, answers it at once
// or names the handler that gets it once its body is in, and says whether
// that handler may block (then it runs on a pool of worker threads, never
// on an I/O thread). A handler may answer with a stream: a chunked body
// written over time, each write completing asynchronously, so that a slow
// reader holds back only its own stream.
//
// Limits (HttpLimits), each answered with a status and a JSON error from
// the application: the head must arrive within header_timeout (408, then
// the connection is closed); a body must keep moving (no byte for
// body_timeout: closed); heads larger than max_header_bytes (431); bodies
// larger than max_body_bytes (413, read to their end and dropped);
// connections beyond max_connections, or beyond max_connections_per_client
// from one address (503 with Retry-After, then closed); kept-alive
// connections idle for idle_timeout are closed.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "base/tls.h"
#include "server/http_parser.h"

namespace sluice::server {

struct HttpLimits {
  std::chrono::milliseconds header_timeout{10000};
  std::chrono::milliseconds body_timeout{10000};
  std::chrono::milliseconds idle_timeout{60000};
  // A response (or a stream's write) that makes no progress for this long:
  // the client is not reading, and the connection is closed.
  std::chrono::milliseconds write_timeout{60000};
  uint64_t max_header_bytes = 16 << 10;
  uint64_t max_body_bytes = 1ull << 30;
  uint64_t max_connections = 16384;
  uint64_t max_connections_per_client = 4096;
  int retry_after_secs = 5;
};

// The server's counters, for /stats and /metrics.
struct HttpServerStats {
  uint64_t connections = 0;           // open now
  uint64_t connections_accepted = 0;  // since start, refused ones included
  uint64_t connections_refused = 0;   // over a connection limit (503)
  uint64_t connections_timed_out = 0;  // head or body too slow, or a write stuck
  uint64_t connections_idle_closed = 0;  // kept alive, then idle too long
  uint64_t requests = 0;
  uint64_t streams = 0;  // streaming answers open now
};

// A streamed (chunked) response body. Thread-safe; it lives as long as
// someone holds it, but writes after the connection closed do nothing.
class HttpStream {
 public:
  virtual ~HttpStream() = default;
  // Queues `data` as the body's next bytes; `written` then runs (on an I/O
  // thread; it must not block) with true once they are written, or with
  // false if the connection closed first. One write at a time: call again
  // from `written`.
  virtual void Write(std::string data, std::function<void(bool ok)> written) = 0;
  // Ends the body; the connection is closed once it is written.
  virtual void End() = 0;
  // Runs `fn` on a worker thread (may block briefly: encoding, not waiting).
  virtual void Post(std::function<void()> fn) = 0;
  // Runs `fn` on an I/O thread after `delay`, unless the connection has
  // closed by then.
  virtual void After(std::chrono::milliseconds delay, std::function<void()> fn) = 0;
  virtual bool closed() const = 0;
};

struct HttpResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // Close the connection after this answer.
  bool close = false;
  // A streamed body: called once the head is written, with the stream to
  // write the body to. `on_close` runs once when the connection ends.
  std::function<void(std::shared_ptr<HttpStream>)> on_stream;
  std::function<void()> on_close;

  void set_header(std::string name, std::string value);
  void set_content(std::string content, std::string content_type);
};

using HttpHandler = std::function<void(HttpRequest& req, HttpResponse& res)>;

// What the router decided for a request, from its head.
struct HttpRoute {
  // Null: `res` holds the answer already (the body is not read).
  HttpHandler handler;
  // The handler may block (it waits for a step, a checkpoint): it runs on
  // the worker pool. Otherwise it runs on the I/O thread, and must be quick.
  bool blocking = false;
  // With a blocking handler: the body's bytes as they arrive, in pieces of
  // about 256 KiB, in order, one piece at a time on worker threads;
  // request().body stays empty and the handler runs after the last piece.
  // Reading pauses while 4 MiB of pieces wait, so a body of any size costs
  // a few pieces of memory on its way in.
  std::function<void(std::string_view piece)> body_reader;
};

struct HttpApp {
  // Sees the head of every request (no body yet).
  std::function<HttpRoute(HttpRequest& req, HttpResponse& res)> route;
  // The answer for a protocol error or a limit: status, and what happened.
  std::function<void(HttpResponse& res, int status, const std::string& message)> error;
};

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port
  TlsFiles tls;  // a certificate and key: HTTPS (no client certificate asked)
  HttpLimits limits;
  int io_threads = 0;  // 0: from the number of cores, at most 4
  int max_workers = 256;  // blocking handlers at once (more wait their turn)
};

class HttpServer {
 public:
  HttpServer(HttpServerOptions options, HttpApp app);
  ~HttpServer();
  // Binds the port and starts serving on background threads.
  Status Start();
  int port() const;
  // Closes the listener and every connection (streams see closed(), their
  // on_close runs), then waits for the threads. Idempotent.
  void Stop();
  HttpServerStats stats() const;

  struct Impl;  // http_server.cc's

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace sluice::server
