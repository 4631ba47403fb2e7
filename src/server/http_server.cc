#include "server/http_server.h"

#include <sys/resource.h>

#include <asio.hpp>
#include <asio/ssl.hpp>
#include <atomic>
#include <cstdio>
#include <deque>
#include <optional>
#include <thread>
#include <unordered_map>

#include "base/mutex.h"

namespace sluice::server {

void HttpResponse::set_header(std::string name, std::string value) {
  for (auto& [n, v] : headers) {
    if (EqualsIgnoreCase(n, name)) {
      v = std::move(value);
      return;
    }
  }
  headers.emplace_back(std::move(name), std::move(value));
}

void HttpResponse::set_content(std::string content, std::string content_type) {
  body = std::move(content);
  set_header("Content-Type", std::move(content_type));
}

namespace {

using asio::ip::tcp;
using Clock = std::chrono::steady_clock;

// Threads for handlers that block. It grows to `max` threads while every
// thread is busy, and a thread idle for a while ends, so that a burst of
// slow requests (a paused pipeline) does not hold threads forever.
class WorkerPool {
 public:
  explicit WorkerPool(int max) : max_(max) {}
  ~WorkerPool() { Stop(); }

  void Post(std::function<void()> task) {
    MutexLock l(&mu_);
    if (stopped_) return;
    tasks_.push_back(std::move(task));
    // Every queued task needs an idle thread of its own: one that is about
    // to take an earlier task may block in it.
    if (tasks_.size() > static_cast<size_t>(idle_) && threads_ < max_) {
      ++threads_;
      ++idle_;
      workers_.emplace_back([this] { Run(); });
    }
    cv_.Signal();
  }

  void Stop() {
    std::vector<std::thread> workers;
    {
      MutexLock l(&mu_);
      stopped_ = true;
      cv_.SignalAll();
      workers.swap(workers_);
    }
    for (std::thread& t : workers) {
      if (t.joinable()) t.join();
    }
  }

 private:
  void Run() {
    MutexLock l(&mu_);
    for (;;) {
      while (!stopped_ && tasks_.empty()) {
        // Threads beyond a few end after a minute without work (they stay
        // in workers_, joined at Stop).
        if (!cv_.WaitFor(&mu_, std::chrono::seconds(60)) && tasks_.empty() && threads_ > 4) {
          --threads_;
          --idle_;
          return;
        }
      }
      if (tasks_.empty()) return;  // stopped, and nothing left to run
      std::function<void()> task = std::move(tasks_.front());
      tasks_.pop_front();
      --idle_;
      l.Unlock();
      task();
      task = nullptr;
      l.Lock();
      ++idle_;
    }
  }

  const int max_;
  Mutex mu_;
  CondVar cv_;
  std::deque<std::function<void()>> tasks_ GUARDED_BY(mu_);
  std::vector<std::thread> workers_ GUARDED_BY(mu_);
  int threads_ GUARDED_BY(mu_) = 0;
  int idle_ GUARDED_BY(mu_) = 0;
  bool stopped_ GUARDED_BY(mu_) = false;
};

// What a stream and the server see of a connection, whatever its socket.
class ConnectionBase : public std::enable_shared_from_this<ConnectionBase> {
 public:
  virtual ~ConnectionBase() = default;
  virtual void Start() = 0;
  // On any thread.
  virtual void Shutdown() = 0;
  virtual void StreamWrite(std::string data, std::function<void(bool)> written) = 0;
  virtual void StreamEnd() = 0;
  virtual void StreamAfter(std::chrono::milliseconds delay, std::function<void()> fn) = 0;
  std::atomic<bool> closed{false};
};

}  // namespace

struct HttpServer::Impl {
  HttpServerOptions options;
  HttpApp app;
  std::atomic<uint64_t> connections{0}, accepted{0}, refused{0}, timed_out{0}, idle_closed{0},
      requests{0}, streams{0};
  std::atomic<uint64_t> refusing{0};
  Mutex mu;
  std::unordered_map<std::string, uint64_t> per_address GUARDED_BY(mu);
  std::unordered_map<ConnectionBase*, std::weak_ptr<ConnectionBase>> open GUARDED_BY(mu);
  bool stopping GUARDED_BY(mu) = false;
  WorkerPool pool;
  std::optional<asio::ssl::context> tls;
  std::optional<asio::io_context> io;
  std::optional<tcp::acceptor> acceptor;
  std::optional<asio::steady_timer> accept_pause;
  std::vector<std::thread> threads;
  int port = 0;
  Clock::time_point last_accept_error{};
  std::weak_ptr<Impl> self;

  explicit Impl(HttpServerOptions o, HttpApp a)
      : options(std::move(o)), app(std::move(a)), pool(options.max_workers) {}

  // Whether a connection from `address` is let in; counts it if so.
  bool Admit(const std::string& address) {
    MutexLock l(&mu);
    if (stopping) return false;
    if (connections.load() >= options.limits.max_connections) return false;
    uint64_t& n = per_address[address];
    if (n >= options.limits.max_connections_per_client) {
      if (n == 0) per_address.erase(address);
      return false;
    }
    ++n;
    ++connections;
    return true;
  }
  void Release(const std::string& address) {
    MutexLock l(&mu);
    auto it = per_address.find(address);
    if (it != per_address.end() && --it->second == 0) per_address.erase(it);
    --connections;
  }
  void Register(const std::shared_ptr<ConnectionBase>& c) {
    MutexLock l(&mu);
    open.emplace(c.get(), c);
  }
  void Unregister(ConnectionBase* c) {
    MutexLock l(&mu);
    open.erase(c);
  }

  void Accept();
  template <class Socket>
  void Serve(Socket socket, bool admitted, std::string address);
};

namespace {

// What a handler holds of its connection: it keeps neither the connection
// nor the server alive.
class Stream final : public HttpStream {
 public:
  Stream(std::weak_ptr<ConnectionBase> c, std::weak_ptr<HttpServer::Impl> server)
      : c_(std::move(c)), server_(std::move(server)) {}
  void Write(std::string data, std::function<void(bool)> written) override {
    if (auto c = c_.lock()) return c->StreamWrite(std::move(data), std::move(written));
    if (written) written(false);
  }
  void End() override {
    if (auto c = c_.lock()) c->StreamEnd();
  }
  void Post(std::function<void()> fn) override;
  void After(std::chrono::milliseconds delay, std::function<void()> fn) override {
    if (auto c = c_.lock()) c->StreamAfter(delay, std::move(fn));
  }
  bool closed() const override {
    auto c = c_.lock();
    return c == nullptr || c->closed.load();
  }

 private:
  std::weak_ptr<ConnectionBase> c_;
  std::weak_ptr<HttpServer::Impl> server_;
};

void Stream::Post(std::function<void()> fn) {
  if (auto s = server_.lock()) s->pool.Post(std::move(fn));
}

template <class Socket>
constexpr bool kTls = !std::is_same_v<Socket, tcp::socket>;

template <class Socket>
tcp::socket& Lowest(Socket& s) {
  if constexpr (kTls<Socket>) {
    return s.next_layer();
  } else {
    return s;
  }
}

// One client connection. All of its work runs on its strand (the socket's
// executor); other threads reach it through asio::post.
template <class Socket>
class Connection final : public ConnectionBase {
 public:
  Connection(HttpServer::Impl* server, Socket socket, bool admitted, std::string address)
      : server_(server),
        socket_(std::move(socket)),
        timer_(Lowest(socket_).get_executor()),
        admitted_(admitted),
        address_(std::move(address)),
        parser_(server->options.limits.max_header_bytes, server->options.limits.max_body_bytes) {}

  ~Connection() override {
    if (admitted_) {
      server_->Release(address_);
    } else {
      --server_->refusing;
    }
    server_->Unregister(this);
  }

  void Start() override {
    auto self = Self();
    asio::error_code ec;
    Lowest(socket_).non_blocking(true, ec);
    if constexpr (kTls<Socket>) {
      phase_ = Phase::kHead;
      SetDeadline(server_->options.limits.header_timeout);
      socket_.async_handshake(asio::ssl::stream_base::server,
                              [self](const asio::error_code& ec) {
                                if (ec) return self->Close();
                                self->NextRequest(true);
                              });
    } else {
      NextRequest(true);
    }
  }

  void Shutdown() override {
    auto self = Self();
    asio::post(Lowest(socket_).get_executor(), [self] { self->Close(); });
  }

  void StreamWrite(std::string data, std::function<void(bool)> written) override {
    auto self = Self();
    asio::post(Lowest(socket_).get_executor(),
               [self, data = std::move(data), written = std::move(written)]() mutable {
                 if (self->closed) {
                   if (written) written(false);
                   return;
                 }
                 if (self->chunked_) {
                   char size[24];
                   const int n = std::snprintf(size, sizeof size, "%zx\r\n", data.size());
                   data.insert(0, size, static_cast<size_t>(n));
                   data += "\r\n";
                 }
                 self->out_head_ = std::move(data);
                 self->out_body_.clear();
                 self->Send([self, written = std::move(written)](bool ok) {
                   if (written) written(ok);
                 });
               });
  }

  void StreamEnd() override {
    auto self = Self();
    asio::post(Lowest(socket_).get_executor(), [self] {
      if (self->closed) return;
      if (!self->chunked_) return self->Close();
      self->out_head_ = "0\r\n\r\n";
      self->out_body_.clear();
      self->Send([self](bool ok) {
        if (ok) self->Linger();
      });
    });
  }

  void StreamAfter(std::chrono::milliseconds delay, std::function<void()> fn) override {
    auto self = Self();
    auto timer = std::make_shared<asio::steady_timer>(Lowest(socket_).get_executor(), delay);
    timer->async_wait([self, timer, fn = std::move(fn)](const asio::error_code& ec) {
      if (!ec && !self->closed) fn();
    });
  }

 private:
  enum class Phase { kIdle, kHead, kBody, kHandling, kWriting, kStreaming, kLinger };

  std::shared_ptr<Connection> Self() {
    return std::static_pointer_cast<Connection>(shared_from_this());
  }

  // The deadline of the current phase. The timer is moved only when the
  // deadline comes sooner than it is set for; when it fires early, it is
  // set again for the deadline.
  void SetDeadline(std::chrono::milliseconds d) {
    deadline_ = Clock::now() + d;
    if (!armed_ || deadline_ < armed_for_) Arm(deadline_);
  }
  void ClearDeadline() { deadline_ = Clock::time_point::max(); }
  void Arm(Clock::time_point at) {
    armed_ = true;
    armed_for_ = at;
    timer_.expires_at(at);
    auto self = Self();
    timer_.async_wait([self](const asio::error_code& ec) {
      if (ec) return;  // moved or cancelled
      self->armed_ = false;
      self->OnTimer();
    });
  }

  void OnTimer() {
    if (closed || deadline_ == Clock::time_point::max()) return;
    if (Clock::now() < deadline_) return Arm(deadline_);
    const bool counted = timeout_counted_;
    timeout_counted_ = true;
    switch (phase_) {
      case Phase::kIdle:
        ++server_->idle_closed;
        return Close();
      case Phase::kHead:
      case Phase::kBody: {
        ++server_->timed_out;
        if (!in_.empty() || phase_ == Phase::kBody) {
          // Tell the client why, briefly; then close whatever happens.
          const HttpLimits& l = server_->options.limits;
          HttpResponse res;
          server_->app.error(
              res, 408,
              phase_ == Phase::kHead
                  ? "the request's head did not arrive within " +
                        std::to_string(l.header_timeout.count()) + " ms"
                  : "the request's body stopped moving for " +
                        std::to_string(l.body_timeout.count()) + " ms");
          res.close = true;
          head_method_ = "";
          WriteResponse(std::move(res), false, /*last_chance=*/true);
          SetDeadline(std::chrono::milliseconds(1000));
          return;
        }
        return Close();
      }
      case Phase::kWriting:
      case Phase::kStreaming:
        if (!counted) ++server_->timed_out;
        return Close();
      case Phase::kLinger:
        return Close();
      case Phase::kHandling:
        return;
    }
  }

  // Waits for the next request (the first on a connection, or the next on a
  // kept-alive one).
  void NextRequest(bool first) {
    phase_ = first ? Phase::kHead : Phase::kIdle;
    SetDeadline(first ? server_->options.limits.header_timeout
                      : server_->options.limits.idle_timeout);
    if (!in_.empty()) return OnData();
    // A connection that waits keeps no buffer of a large request's size.
    if (in_.capacity() > 4096) std::string().swap(in_);
    Read();
  }

  void Read() {
    if (phase_ == Phase::kBody && queued_body_ >= kMaxQueuedBody) {
      // The body reader is behind: stop reading (the client waits in its
      // send buffer) until it catches up; that wait is not the client's.
      read_paused_ = true;
      ClearDeadline();
      if (queued_body_ < kMaxQueuedBody) ResumeBody();
      return;
    }
    auto self = Self();
    if constexpr (kTls<Socket>) {
      if (!tls_buffer_) tls_buffer_ = std::make_unique<char[]>(kTlsBuffer);
      socket_.async_read_some(asio::buffer(tls_buffer_.get(), kTlsBuffer),
                              [self](const asio::error_code& ec, size_t n) {
                                if (ec) return self->Close();
                                self->in_.append(self->tls_buffer_.get(), n);
                                self->OnData();
                              });
    } else {
      // An idle connection holds no buffer: wait until bytes are there,
      // then read them into the thread's.
      socket_.async_wait(tcp::socket::wait_read, [self](const asio::error_code& ec) {
        if (ec) return self->Close();
        thread_local char buffer[64 << 10];
        asio::error_code rec;
        const size_t n = self->socket_.read_some(asio::buffer(buffer), rec);
        if (rec == asio::error::would_block || rec == asio::error::try_again) return self->Read();
        if (rec) return self->Close();
        self->in_.append(buffer, n);
        self->OnData();
      });
    }
  }

  void OnData() {
    if (closed) return;
    if (phase_ == Phase::kLinger) {
      in_.clear();
      return Read();
    }
    if (phase_ == Phase::kIdle) {
      phase_ = Phase::kHead;
      SetDeadline(server_->options.limits.header_timeout);
    }
    Process();
  }

  void Process() {
    const HttpRequestParser::State state = parser_.Feed(&in_);
    using State = HttpRequestParser::State;
    if (state == State::kError) {
      HttpResponse res;
      server_->app.error(res, parser_.error_status(), parser_.error());
      res.close = true;
      head_method_ = "";
      return WriteResponse(std::move(res), false);
    }
    if (state == State::kHead) return Read();
    if (!routed_) {
      routed_ = true;
      return Route();
    }
    if (state == State::kBody) {
      SetDeadline(server_->options.limits.body_timeout);
      return Read();
    }
    Dispatch();
  }

  void Route() {
    ++server_->requests;
    HttpRequest& req = parser_.request();
    req.remote_address = address_;
    head_method_ = req.method;
    keep_alive_ = req.keep_alive();
    version_minor_ = req.version_minor;
    HttpResponse res;
    if (!admitted_) {
      server_->app.error(res, 503,
                         "the server has as many connections as it takes (" +
                             std::to_string(server_->options.limits.max_connections) +
                             ", at most " +
                             std::to_string(server_->options.limits.max_connections_per_client) +
                             " from one address): try again later");
      res.set_header("Retry-After", std::to_string(server_->options.limits.retry_after_secs));
      res.close = true;
      routed_ = false;
      parser_.Take();
      return WriteResponse(std::move(res), true);
    }
    HttpRoute route;
    try {
      route = server_->app.route(req, res);
    } catch (const std::exception& e) {
      res = HttpResponse();
      server_->app.error(res, 500, e.what());
    }
    if (!route.handler) {
      // Answered from the head: the next request starts afresh (when the
      // body was not read, the connection closes after the answer).
      const bool unread_body = parser_.has_body();
      routed_ = false;
      parser_.Take();
      return WriteResponse(std::move(res), unread_body);
    }
    route_ = std::move(route);
    if (route_.body_reader && parser_.has_body()) {
      parser_.set_body_sink([this](std::string_view data) {
        body_piece_.append(data);
        if (body_piece_.size() >= kBodyPiece) FlushPiece();
      });
    }
    if (parser_.has_body()) {
      parser_.ContinueBody();
      phase_ = Phase::kBody;
      SetDeadline(server_->options.limits.body_timeout);
      if (req.header("expect") == "100-continue" && !parser_.body_too_large() &&
          parser_.content_length() <= server_->options.limits.max_body_bytes) {
        out_head_ = "HTTP/1.1 100 Continue\r\n\r\n";
        out_body_.clear();
        auto self = Self();
        return Send([self](bool ok) {
          if (ok) self->Process();
        });
      }
    }
    Process();
  }

  void Dispatch() {
    routed_ = false;
    phase_ = Phase::kHandling;
    ClearDeadline();
    if (parser_.body_too_large()) {
      HttpResponse res;
      server_->app.error(res, 413,
                         "the request's body is larger than " +
                             std::to_string(server_->options.limits.max_body_bytes) +
                             " bytes: send it in several requests");
      parser_.Take();
      body_piece_.clear();
      route_ = HttpRoute();
      return WriteResponse(std::move(res), false);
    }
    if (route_.body_reader) FlushPiece();  // the body's last piece
    auto req = std::make_shared<HttpRequest>(parser_.Take());
    HttpRoute route = std::move(route_);
    route_ = HttpRoute();
    auto self = Self();
    auto run = [self, req, handler = std::move(route.handler)]() {
      HttpResponse res;
      try {
        handler(*req, res);
      } catch (const std::exception& e) {
        res = HttpResponse();
        self->server_->app.error(res, 500, e.what());
      }
      return res;
    };
    if (!route.blocking) return WriteResponse(run(), false);
    auto task = [self, run = std::move(run)]() mutable {
      auto res = std::make_shared<HttpResponse>(run());
      asio::post(Lowest(self->socket_).get_executor(),
                 [self, res] { self->WriteResponse(std::move(*res), false); });
    };
    if (!route.body_reader) return server_->pool.Post(std::move(task));
    Serial(std::move(task));  // after the body's pieces
  }

  // A streamed body: hands the piece read so far to the body reader, after
  // the pieces before it.
  void FlushPiece() {
    if (body_piece_.empty()) return;
    auto piece = std::make_shared<std::string>(std::move(body_piece_));
    body_piece_.clear();
    queued_body_ += piece->size();
    auto self = Self();
    Serial([self, piece, reader = route_.body_reader] {
      reader(*piece);
      if ((self->queued_body_ -= piece->size()) < kMaxQueuedBody && self->read_paused_) {
        asio::post(Lowest(self->socket_).get_executor(), [self] { self->ResumeBody(); });
      }
    });
  }

  // Runs tasks on the pool one after another, in order.
  void Serial(std::function<void()> task) {
    {
      MutexLock l(&serial_mu_);
      serial_.push_back(std::move(task));
      if (serial_running_) return;
      serial_running_ = true;
    }
    auto self = Self();
    server_->pool.Post([self] {
      for (;;) {
        std::function<void()> next;
        {
          MutexLock l(&self->serial_mu_);
          if (self->serial_.empty()) {
            self->serial_running_ = false;
            return;
          }
          next = std::move(self->serial_.front());
          self->serial_.pop_front();
        }
        next();
      }
    });
  }

  void ResumeBody() {
    if (!read_paused_ || closed) return;
    read_paused_ = false;
    SetDeadline(server_->options.limits.body_timeout);
    Read();
  }

  // Writes `res`. With `unread_body` (the request's body was not read),
  // the connection closes after the answer.
  void WriteResponse(HttpResponse res, bool unread_body, bool last_chance = false) {
    if (closed) {
      if (res.on_close) server_->pool.Post(std::move(res.on_close));
      return;
    }
    const bool head_only = head_method_ == "HEAD";
    const bool streaming = static_cast<bool>(res.on_stream) && !head_only;
    close_after_ = res.close || unread_body || !keep_alive_ || streaming;
    chunked_ = streaming && version_minor_ >= 1;
    std::string& h = out_head_;
    h.clear();
    h += "HTTP/1.1 ";
    h += std::to_string(res.status);
    h += ' ';
    h += HttpReason(res.status);
    h += "\r\n";
    for (const auto& [name, value] : res.headers) {
      // The server writes these itself.
      if (EqualsIgnoreCase(name, "Connection") || EqualsIgnoreCase(name, "Content-Length")) {
        continue;
      }
      h += name;
      h += ": ";
      h += value;
      h += "\r\n";
    }
    if (chunked_) {
      h += "Transfer-Encoding: chunked\r\n";
    } else if (!streaming && res.status != 304 && res.status != 204) {
      h += "Content-Length: ";
      h += std::to_string(res.body.size());
      h += "\r\n";
    }
    if (close_after_) h += "Connection: close\r\n";
    h += "\r\n";
    out_body_ = head_only ? std::string() : std::move(res.body);
    if (res.on_close) on_close_ = std::move(res.on_close);
    phase_ = Phase::kWriting;
    auto self = Self();
    auto on_stream = streaming ? std::move(res.on_stream) : nullptr;
    Send([self, on_stream = std::move(on_stream), last_chance](bool ok) mutable {
      if (!ok || last_chance) return self->Close();
      if (on_stream) {
        self->phase_ = Phase::kStreaming;
        self->ClearDeadline();
        ++self->server_->streams;
        self->streaming_ = true;
        on_stream(std::make_shared<Stream>(self, self->server_->self));
        return;
      }
      if (self->close_after_) return self->Linger();
      self->NextRequest(false);
    });
  }

  // Writes out_head_ and out_body_, then calls `done`.
  template <class F>
  void Send(F done) {
    if (phase_ != Phase::kStreaming) phase_ = Phase::kWriting;
    SetDeadline(server_->options.limits.write_timeout);
    auto self = Self();
    std::array<asio::const_buffer, 2> buffers{asio::buffer(out_head_), asio::buffer(out_body_)};
    asio::async_write(socket_, buffers,
                      [self, done = std::move(done)](const asio::error_code& ec,
                                                     size_t) mutable {
                        if (self->phase_ == Phase::kStreaming) self->ClearDeadline();
                        if (ec) {
                          done(false);
                          return self->Close();
                        }
                        std::string().swap(self->out_body_);
                        if (self->out_head_.capacity() > 4096) std::string().swap(self->out_head_);
                        done(true);
                      });
  }

  // Closes after an answer: stops sending, then reads and drops what the
  // client still sends (a body we did not read) for a moment, so that the
  // client reads the answer rather than a reset.
  void Linger() {
    if (closed) return;
    phase_ = Phase::kLinger;
    SetDeadline(std::chrono::milliseconds(2000));
    if constexpr (kTls<Socket>) {
      auto self = Self();
      socket_.async_shutdown([self](const asio::error_code&) { self->Close(); });
    } else {
      asio::error_code ec;
      socket_.shutdown(tcp::socket::shutdown_send, ec);
      if (ec) return Close();
      in_.clear();
      Read();
    }
  }

  void Close() {
    if (closed.exchange(true)) return;
    asio::error_code ec;
    timer_.cancel();
    Lowest(socket_).shutdown(tcp::socket::shutdown_both, ec);
    Lowest(socket_).close(ec);
    if (streaming_) --server_->streams;
    if (on_close_) {
      server_->pool.Post(std::move(on_close_));
      on_close_ = nullptr;
    }
  }

  static constexpr size_t kTlsBuffer = 16 << 10;
  static constexpr size_t kBodyPiece = 256 << 10;
  static constexpr uint64_t kMaxQueuedBody = 4 << 20;
  HttpServer::Impl* const server_;
  Socket socket_;
  asio::steady_timer timer_;
  const bool admitted_;
  const std::string address_;
  HttpRequestParser parser_;
  Phase phase_ = Phase::kHead;
  Clock::time_point deadline_ = Clock::time_point::max();
  bool armed_ = false;
  Clock::time_point armed_for_{};
  bool timeout_counted_ = false;
  std::string in_;
  std::unique_ptr<char[]> tls_buffer_;
  bool routed_ = false;
  HttpRoute route_;
  std::string head_method_;
  bool keep_alive_ = true;
  int version_minor_ = 1;
  bool close_after_ = false;
  bool chunked_ = false;
  bool streaming_ = false;
  std::string out_head_, out_body_;
  std::function<void()> on_close_;
  // A body read in pieces (HttpRoute::body_reader).
  std::string body_piece_;
  std::atomic<uint64_t> queued_body_{0};
  std::atomic<bool> read_paused_{false};
  Mutex serial_mu_;
  std::deque<std::function<void()>> serial_ GUARDED_BY(serial_mu_);
  bool serial_running_ GUARDED_BY(serial_mu_) = false;
};

}  // namespace

template <class Socket>
void HttpServer::Impl::Serve(Socket socket, bool admitted, std::string address) {
  auto c = std::make_shared<Connection<Socket>>(this, std::move(socket), admitted,
                                                std::move(address));
  Register(c);
  c->Start();
}

void HttpServer::Impl::Accept() {
  acceptor->async_accept(asio::make_strand(*io), [this](const asio::error_code& ec,
                                                        tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor->is_open()) return;
    if (ec) {
      // Out of descriptors (or another passing error): wait a moment
      // rather than spin, and say so at most every 10 s.
      if (Clock::now() - last_accept_error > std::chrono::seconds(10)) {
        last_accept_error = Clock::now();
        std::fprintf(stderr, "sluice: the HTTP API cannot accept connections: %s\n",
                     ec.message().c_str());
      }
      accept_pause->expires_after(std::chrono::milliseconds(100));
      accept_pause->async_wait([this](const asio::error_code& e) {
        if (!e) Accept();
      });
      return;
    }
    ++accepted;
    asio::error_code aec;
    const tcp::endpoint peer = socket.remote_endpoint(aec);
    std::string address = aec ? std::string("?") : peer.address().to_string();
    socket.set_option(tcp::no_delay(true), aec);
    bool admitted = Admit(address);
    if (!admitted) {
      ++refused;
      // A refused client is answered 503 once it has sent its request; past
      // a thousand of them waiting, new ones are closed at once.
      if (refusing.fetch_add(1) >= 1024) {
        --refusing;
        socket.close(aec);
        return Accept();
      }
    }
    if (tls) {
      Serve(asio::ssl::stream<tcp::socket>(std::move(socket), *tls), admitted, std::move(address));
    } else {
      Serve(std::move(socket), admitted, std::move(address));
    }
    Accept();
  });
}

HttpServer::HttpServer(HttpServerOptions options, HttpApp app)
    : impl_(std::make_shared<Impl>(std::move(options), std::move(app))) {
  impl_->self = impl_;
}

HttpServer::~HttpServer() { Stop(); }

int HttpServer::port() const { return impl_->port; }

Status HttpServer::Start() {
  Impl& s = *impl_;
  // Every connection is a descriptor: take as many as the system allows.
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    if (rl.rlim_cur < rl.rlim_max) {
      rl.rlim_cur = rl.rlim_max;
      setrlimit(RLIMIT_NOFILE, &rl);
      getrlimit(RLIMIT_NOFILE, &rl);
    }
    // Descriptors for the rest of the process (files, other sockets) are
    // kept back; past the rest, clients are answered 503 rather than left
    // in the listen queue.
    const uint64_t room = rl.rlim_cur > 512 ? rl.rlim_cur - 512 : 64;
    if (s.options.limits.max_connections > room) {
      std::fprintf(stderr,
                   "sluice: the HTTP API takes at most %llu connections (this process may open "
                   "%llu descriptors; raise it with ulimit -n)\n",
                   static_cast<unsigned long long>(room),
                   static_cast<unsigned long long>(rl.rlim_cur));
      s.options.limits.max_connections = room;
    }
  }
  if (s.options.tls.enabled()) {
    s.tls.emplace(asio::ssl::context::tls_server);
    const Status tls = TlsContext::Configure(s.tls->native_handle(), s.options.tls,
                                             TlsContext::Side::kPublicServer);
    if (!tls.ok()) {
      return Status::InvalidArgument("cannot serve HTTPS with the certificate " +
                                     s.options.tls.cert + " and the key " + s.options.tls.key +
                                     ": " + tls.message());
    }
  }
  s.io.emplace();
  asio::error_code ec;
  const auto address = asio::ip::make_address(s.options.host == "localhost" ? "127.0.0.1"
                                                                            : s.options.host,
                                              ec);
  if (ec) {
    return Status::InvalidArgument("cannot listen on " + s.options.host +
                                   ": not an IP address (" + ec.message() + ")");
  }
  tcp::endpoint endpoint(address, static_cast<uint16_t>(s.options.port));
  s.acceptor.emplace(*s.io);
  s.acceptor->open(endpoint.protocol(), ec);
  if (!ec) s.acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) s.acceptor->bind(endpoint, ec);
  if (!ec) s.acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status::IOError("cannot listen on " + s.options.host + ":" +
                           std::to_string(s.options.port) + " (" + ec.message() +
                           (ec == asio::error::address_in_use ? ": is the port in use?" : "") + ")");
  }
  s.port = s.acceptor->local_endpoint().port();
  s.accept_pause.emplace(*s.io);
  s.Accept();
  int n = s.options.io_threads;
  if (n <= 0) n = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 4);
  for (int i = 0; i < n; ++i) {
    s.threads.emplace_back([io = &*s.io] { io->run(); });
  }
  return Status::OK();
}

void HttpServer::Stop() {
  Impl& s = *impl_;
  {
    MutexLock l(&s.mu);
    if (s.stopping) return;
    s.stopping = true;
  }
  if (!s.io) return;
  asio::post(*s.io, [&s] {
    asio::error_code ec;
    if (s.acceptor) s.acceptor->close(ec);
    if (s.accept_pause) s.accept_pause->cancel();
  });
  // Streams end themselves once the pipeline has stopped, their last line
  // saying why: a moment (2 s at most) for them to write it.
  for (int i = 0; i < 200 && s.streams.load() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::vector<std::shared_ptr<ConnectionBase>> open;
  {
    MutexLock l(&s.mu);
    for (auto& [p, w] : s.open) {
      if (auto c = w.lock()) open.push_back(std::move(c));
    }
  }
  for (auto& c : open) c->Shutdown();
  open.clear();
  // Closing runs each stream's on_close on the pool; wait for that (a
  // moment at most) before the pool stops.
  for (int i = 0; i < 200 && s.connections.load() + s.refusing.load() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // Handlers still running finish (the pipeline has stopped, so they do
  // not wait long); their answers go nowhere.
  s.pool.Stop();
  s.io->stop();
  for (std::thread& t : s.threads) {
    if (t.joinable()) t.join();
  }
  s.threads.clear();
  s.acceptor.reset();
  s.accept_pause.reset();
  s.io.reset();  // drops what was still queued, connections with it
}

HttpServerStats HttpServer::stats() const {
  const Impl& s = *impl_;
  HttpServerStats r;
  r.connections = s.connections.load();
  r.connections_accepted = s.accepted.load();
  r.connections_refused = s.refused.load();
  r.connections_timed_out = s.timed_out.load();
  r.connections_idle_closed = s.idle_closed.load();
  r.requests = s.requests.load();
  r.streams = s.streams.load();
  return r;
}

}  // namespace sluice::server
