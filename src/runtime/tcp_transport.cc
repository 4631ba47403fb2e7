#include "runtime/tcp_transport.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <asio.hpp>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <thread>
#include <utility>

#include "base/bytes.h"
#include "base/mutex.h"
#include "runtime/memory_transport.h"
#include "zset/batch_builder.h"
#include "zset/batch_codec.h"
#include "zset/cursor.h"

namespace sluice {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint32_t kMaxFrame = 1u << 30;

std::string Now() {
  char buf[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&t));
  return buf;
}

void SetTimeouts(int fd, std::chrono::milliseconds timeout) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// Writes all of `data`; false on an error or a timeout (errno says which).
bool WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// Reads exactly `n` bytes; false on an error, a timeout or the end.
bool ReadAll(int fd, size_t n, std::string* out) {
  out->resize(n);
  size_t done = 0;
  while (done < n) {
    const ssize_t r = ::recv(fd, out->data() + done, n - done, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      if (r == 0) errno = 0;
      return false;
    }
    done += static_cast<size_t>(r);
  }
  return true;
}

std::string Frame(char type, std::string_view body) {
  std::string f;
  PutFixed32(&f, static_cast<uint32_t>(body.size()));
  f.push_back(type);
  f.append(body);
  return f;
}

// Connects to `address` ("ip:port"), giving up at `deadline`.
Result<int> Connect(const std::string& address, Clock::time_point deadline) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) {
    return Status::InvalidArgument("exchange address \"" + address + "\" is not ip:port");
  }
  asio::error_code ec;
  const asio::ip::address ip = asio::ip::make_address(address.substr(0, colon), ec);
  if (ec) return Status::InvalidArgument("exchange address \"" + address + "\": " + ec.message());
  const asio::ip::tcp::endpoint ep(ip,
                                   static_cast<uint16_t>(std::atoi(address.c_str() + colon + 1)));
  std::string last = "timed out";
  // Peers start at about the same time: try again soon, then less often.
  std::chrono::milliseconds backoff(1);
  while (Clock::now() < deadline) {
    const int fd = ::socket(ep.protocol().family(), SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return Status::IOError(std::string("socket: ") + std::strerror(errno));
    int rc = ::connect(fd, ep.data(), static_cast<socklen_t>(ep.size()));
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      rc = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(1, left.count())));
      int err = 0;
      socklen_t len = sizeof err;
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      rc = rc > 0 && err == 0 ? 0 : -1;
      if (err != 0) errno = err;
    }
    if (rc == 0) {
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      return fd;
    }
    last = std::strerror(errno);
    ::close(fd);
    std::this_thread::sleep_for(backoff);  // not listening yet
    backoff = std::min(backoff * 2, std::chrono::milliseconds(50));
  }
  return Status::IOError("cannot connect to the exchange of " + address + ": " + last);
}

}  // namespace

// One direction of a connection: a socket, and its TLS session if any.
struct Conn {
  int fd = -1;
  std::unique_ptr<TlsStream> tls;
  bool ReadAll(size_t n, std::string* out) {
    return tls ? tls->ReadAll(n, out) : sluice::ReadAll(fd, n, out);
  }
  bool WriteAll(const std::string& data) {
    return tls ? tls->WriteAll(data) : sluice::WriteAll(fd, data);
  }
};

struct TcpTransport::Impl {
  struct Peer {
    std::string address;
    Conn out;        // ours to send on
    Conn in;         // theirs, read by `reader`; set under Impl::mu
    Mutex write_mu;  // one frame at a time on `out`
    std::thread reader;
  };

  TcpTransportOptions o;
  std::unique_ptr<MemoryTransport> local;
  std::unique_ptr<TlsContext> tls_client, tls_server;  // with TLS
  asio::io_context io;
  std::unique_ptr<asio::ip::tcp::acceptor> acceptor;
  std::vector<std::unique_ptr<Peer>> peers;  // by host; null for this one
  std::thread accept_thread, pinger;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> sent{0};

  mutable Mutex mu;
  CondVar cv;
  Status lost GUARDED_BY(mu);
  int inbound GUARDED_BY(mu) = 0;  // peers connected to us

  int HostOf(int worker) const { return worker / o.workers_per_host; }

  void Lose(int host, const std::string& why) {
    if (stop) return;
    Status s =
        Status::IOError("lost host " + std::to_string(host) + " (" +
                        peers[static_cast<size_t>(host)]->address + ") at " + Now() + ": " + why);
    {
      MutexLock l(&mu);
      if (!lost.ok()) return;
      lost = s;
    }
    cv.SignalAll();
    local->Abort(s);
  }

  bool Write(int host, const std::string& frame) {
    Peer& p = *peers[static_cast<size_t>(host)];
    MutexLock l(&p.write_mu);
    if (p.out.fd < 0) return false;
    if (!p.out.WriteAll(frame)) {
      Lose(host, errno == EAGAIN || errno == EWOULDBLOCK
                     ? "a send did not complete in " + std::to_string(o.io_timeout.count()) + " ms"
                     : std::string("send: ") + std::strerror(errno));
      return false;
    }
    sent += frame.size();
    return true;
  }

  void Read(int host) {
    Peer& p = *peers[static_cast<size_t>(host)];
    std::string head, body;
    while (!stop) {
      if (!p.in.ReadAll(5, &head)) {
        Lose(host, errno == EAGAIN || errno == EWOULDBLOCK
                       ? "nothing heard for " + std::to_string(o.io_timeout.count()) + " ms"
                   : errno == 0 ? "its connection ended"
                                : std::string("receive: ") + std::strerror(errno));
        return;
      }
      const uint32_t len = GetFixed32(head.data());
      if (len > kMaxFrame || !p.in.ReadAll(len, &body)) {
        Lose(host, "a frame was cut off or too large");
        return;
      }
      const char type = head[4];
      if (type == 'B' && body.size() >= 12) {
        const int id = static_cast<int>(GetFixed32(body.data()));
        const int from = static_cast<int>(GetFixed32(body.data() + 4));
        const int to = static_cast<int>(GetFixed32(body.data() + 8));
        auto batch = DecodeBatch(std::string_view(body).substr(12));
        if (!batch.ok()) {
          Lose(host, "a batch failed its checks: " + batch.status().ToString());
          return;
        }
        (void)local->Send(id, from, to, std::move(batch).value());
      } else if (type == 'A') {
        local->Abort(Status::Aborted("host " + std::to_string(host) + " failed its step: " + body));
      } else if (type != 'P') {
        Lose(host, std::string("an unknown frame '") + type + "'");
        return;
      }
    }
  }

  void Accept() {
    while (!stop) {
      asio::ip::tcp::socket sock(io);
      asio::error_code ec;
      acceptor->accept(sock, ec);
      if (ec) {
        if (stop) return;
        continue;
      }
      Conn c;
      c.fd = ::dup(sock.native_handle());
      sock.close();
      SetTimeouts(c.fd, o.io_timeout);
      if (tls_server) {
        auto t = TlsStream::Accept(*tls_server, c.fd);
        if (!t.ok()) {
          std::fprintf(stderr, "sluice exchange: refused a connection: %s\n",
                       t.status().message().c_str());
          ::close(c.fd);
          continue;
        }
        c.tls = std::move(t).value();
      }
      // The hello: the secret, or the connection goes.
      std::string head, body;
      int host = -1;
      if (c.ReadAll(5, &head) && head[4] == 'H' && GetFixed32(head.data()) < 4096 &&
          c.ReadAll(GetFixed32(head.data()), &body) && body.size() >= 4 &&
          body.compare(4, std::string::npos, o.secret) == 0) {
        host = static_cast<int>(GetFixed32(body.data()));
      }
      {
        MutexLock l(&mu);
        if (host < 0 || host >= static_cast<int>(peers.size()) || host == o.host ||
            peers[static_cast<size_t>(host)]->in.fd >= 0) {
          c.tls.reset();
          ::close(c.fd);  // no secret, the wrong one, or not a peer
          continue;
        }
        peers[static_cast<size_t>(host)]->in = std::move(c);
        ++inbound;
      }
      peers[static_cast<size_t>(host)]->reader = std::thread([this, host] { Read(host); });
      cv.SignalAll();
    }
  }

  void Ping() {
    MutexLock l(&mu);
    while (!stop) {
      const auto next = std::chrono::steady_clock::now() + o.ping_interval;
      while (!stop && std::chrono::steady_clock::now() < next) cv.WaitUntil(&mu, next);
      if (stop) return;
      l.Unlock();
      for (size_t h = 0; h < peers.size(); ++h) {
        if (peers[h]) Write(static_cast<int>(h), Frame('P', ""));
      }
      l.Lock();
    }
  }

  void Shutdown() {
    stop = true;
    cv.SignalAll();
    if (acceptor) {
      ::shutdown(acceptor->native_handle(), SHUT_RDWR);
      asio::error_code ec;
      acceptor->close(ec);
    }
    for (auto& p : peers) {
      if (!p) continue;
      if (p->in.fd >= 0) ::shutdown(p->in.fd, SHUT_RDWR);
      if (p->out.fd >= 0) ::shutdown(p->out.fd, SHUT_RDWR);
    }
    if (accept_thread.joinable()) accept_thread.join();
    if (pinger.joinable()) pinger.join();
    for (auto& p : peers) {
      if (!p) continue;
      if (p->reader.joinable()) p->reader.join();
      p->in.tls.reset();
      p->out.tls.reset();
      if (p->in.fd >= 0) ::close(p->in.fd);
      if (p->out.fd >= 0) ::close(p->out.fd);
    }
  }
};

TcpTransport::TcpTransport(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

TcpTransport::~TcpTransport() { impl_->Shutdown(); }

Result<std::unique_ptr<TcpTransport>> TcpTransport::Start(TcpTransportOptions options) {
  auto impl = std::make_unique<Impl>();
  Impl& m = *impl;
  m.o = std::move(options);
  // The listening socket given, closed on every way out that does not hand
  // it to the acceptor.
  struct OwnedFd {
    int fd;
    ~OwnedFd() {
      if (fd >= 0) ::close(fd);
    }
  } listener{std::exchange(m.o.listen_fd, -1)};
  const int hosts = static_cast<int>(m.o.addresses.size());
  if (m.o.host < 0 || m.o.host >= hosts || m.o.workers_per_host < 1) {
    return Status::InvalidArgument("exchange: host " + std::to_string(m.o.host) + " of " +
                                   std::to_string(hosts));
  }
  m.local = std::make_unique<MemoryTransport>(hosts * m.o.workers_per_host);
  if (m.o.tls.enabled()) {
    SLUICE_ASSIGN_OR_RETURN(m.tls_client, TlsContext::Make(m.o.tls, TlsContext::Side::kClient));
    SLUICE_ASSIGN_OR_RETURN(m.tls_server, TlsContext::Make(m.o.tls, TlsContext::Side::kServer));
  }
  for (int h = 0; h < hosts; ++h) {
    m.peers.push_back(h == m.o.host ? nullptr : std::make_unique<Impl::Peer>());
    if (m.peers.back()) m.peers.back()->address = m.o.addresses[static_cast<size_t>(h)];
  }
  std::unique_ptr<TcpTransport> t(new TcpTransport(std::move(impl)));
  // Listen, or take over the socket that listens already.
  const std::string& self = m.o.addresses[static_cast<size_t>(m.o.host)];
  if (listener.fd < 0) {
    std::string bound;
    SLUICE_ASSIGN_OR_RETURN(listener.fd, ListenTcp(self, &bound));
  }
  sockaddr_storage local{};
  socklen_t len = sizeof local;
  asio::error_code ec;
  // listen() again: a socket that an earlier transport shut down listens
  // anew on the port it kept.
  if (::getsockname(listener.fd, reinterpret_cast<sockaddr*>(&local), &len) != 0 ||
      ::listen(listener.fd, SOMAXCONN) != 0) {
    return Status::IOError("exchange: the socket for " + self + " does not listen");
  }
  m.acceptor = std::make_unique<asio::ip::tcp::acceptor>(m.io);
  m.acceptor->assign(local.ss_family == AF_INET6 ? asio::ip::tcp::v6() : asio::ip::tcp::v4(),
                     listener.fd, ec);
  if (ec) return Status::IOError("exchange: cannot listen on " + self + ": " + ec.message());
  listener.fd = -1;  // the acceptor's now
  m.accept_thread = std::thread([&m] { m.Accept(); });
  // Connect to every other host, and say who we are.
  const auto deadline = Clock::now() + m.o.connect_timeout;
  for (int h = 0; h < hosts; ++h) {
    if (h == m.o.host) continue;
    Impl::Peer& p = *m.peers[static_cast<size_t>(h)];
    SLUICE_ASSIGN_OR_RETURN(p.out.fd, Connect(p.address, deadline));
    SetTimeouts(p.out.fd, m.o.io_timeout);
    if (m.tls_client) {
      auto t =
          TlsStream::Connect(*m.tls_client, p.out.fd, p.address.substr(0, p.address.rfind(':')));
      if (!t.ok()) {
        return Status::IOError("exchange: host " + std::to_string(h) + " at " + p.address +
                               " refused: " + t.status().message());
      }
      p.out.tls = std::move(t).value();
    }
    std::string hello;
    PutFixed32(&hello, static_cast<uint32_t>(m.o.host));
    hello += m.o.secret;
    if (!m.Write(h, Frame('H', hello))) {
      return Status::IOError("exchange: cannot greet host " + std::to_string(h) + " at " +
                             p.address);
    }
  }
  // Wait for every other host to connect to us.
  {
    MutexLock l(&m.mu);
    while (m.inbound != hosts - 1 && Clock::now() < deadline) m.cv.WaitUntil(&m.mu, deadline);
    if (m.inbound != hosts - 1) {
      std::string missing;
      for (int h = 0; h < hosts; ++h) {
        if (h != m.o.host && m.peers[static_cast<size_t>(h)]->in.fd < 0) {
          missing += (missing.empty() ? "" : ", ") + std::to_string(h) + " (" +
                     m.peers[static_cast<size_t>(h)]->address + ")";
        }
      }
      return Status::IOError("exchange: hosts " + missing + " did not connect within " +
                             std::to_string(m.o.connect_timeout.count()) +
                             " ms (down, unreachable, or another secret)");
    }
  }
  m.pinger = std::thread([&m] { m.Ping(); });
  return t;
}

Status TcpTransport::Send(int id, int from, int to, BatchPtr batch) {
  Impl& m = *impl_;
  const int host = m.HostOf(to);
  if (host == m.o.host) return m.local->Send(id, from, to, std::move(batch));
  SLUICE_RETURN_IF_ERROR(lost());
  std::string body;
  PutFixed32(&body, static_cast<uint32_t>(id));
  PutFixed32(&body, static_cast<uint32_t>(from));
  PutFixed32(&body, static_cast<uint32_t>(to));
  SLUICE_RETURN_IF_ERROR(EncodeAnyBatch(*batch, &body));
  if (!m.Write(host, Frame('B', body))) return lost();
  return Status::OK();
}

Status TcpTransport::Receive(int id, int to, std::vector<BatchPtr>* out) {
  return impl_->local->Receive(id, to, out);
}

void TcpTransport::Abort(const Status& status) {
  Impl& m = *impl_;
  m.local->Abort(status);
  for (size_t h = 0; h < m.peers.size(); ++h) {
    if (m.peers[h]) m.Write(static_cast<int>(h), Frame('A', status.ToString()));
  }
}

Status TcpTransport::lost() const {
  MutexLock l(&impl_->mu);
  return impl_->lost;
}

uint64_t TcpTransport::bytes_sent() const { return impl_->sent; }

Result<int> ListenTcp(const std::string& address, std::string* bound) {
  const size_t colon = address.rfind(':');
  std::string ip = colon == std::string::npos ? "" : address.substr(0, colon);
  if (ip.size() >= 2 && ip.front() == '[' && ip.back() == ']') ip = ip.substr(1, ip.size() - 2);
  char* end = nullptr;
  const long port =
      colon == std::string::npos ? -1 : std::strtol(address.c_str() + colon + 1, &end, 10);
  sockaddr_storage a{};
  socklen_t len = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&a);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&a);
  if (port >= 0 && port <= 65535 && end != nullptr && *end == '\0' &&
      ::inet_pton(AF_INET, ip.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
    len = sizeof *v4;
  } else if (port >= 0 && port <= 65535 && end != nullptr && *end == '\0' &&
             ::inet_pton(AF_INET6, ip.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    len = sizeof *v6;
  } else {
    return Status::InvalidArgument("exchange address \"" + address + "\" is not ip:port");
  }
  const int fd = ::socket(a.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return Status::IOError("exchange: cannot make a socket: " + std::string(std::strerror(errno)));
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(fd, SOMAXCONN) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    const int e = errno;
    ::close(fd);
    return Status::IOError("exchange: cannot listen on " + address + ": " + std::strerror(e) +
                           (e == EADDRINUSE ? " (is the port in use?)" : ""));
  }
  const int actual = ntohs(a.ss_family == AF_INET ? v4->sin_port : v6->sin6_port);
  *bound = (a.ss_family == AF_INET6 ? "[" + ip + "]" : ip) + ":" + std::to_string(actual);
  return fd;
}

Result<std::vector<std::unique_ptr<TcpTransport>>> StartLoopbackExchange(
    int hosts, int workers_per_host, const std::string& secret,
    const std::map<int, TlsFiles>* tls) {
  // Each host on an address of its own (127.0.1.h+1), on a port the kernel
  // picks and that stays bound until its transport takes it over.
  std::vector<std::string> addresses(static_cast<size_t>(hosts));
  std::vector<int> fds;
  for (int h = 0; h < hosts; ++h) {
    auto fd =
        ListenTcp("127.0.1." + std::to_string(h + 1) + ":0", &addresses[static_cast<size_t>(h)]);
    if (!fd.ok()) {
      for (int f : fds) ::close(f);
      return fd.status();
    }
    fds.push_back(*fd);
  }
  std::vector<std::unique_ptr<TcpTransport>> out(static_cast<size_t>(hosts));
  std::vector<Status> status(static_cast<size_t>(hosts));
  std::vector<std::thread> threads;
  for (int h = 0; h < hosts; ++h) {
    threads.emplace_back([&, h] {
      TcpTransportOptions o;
      o.host = h;
      o.addresses = addresses;
      o.workers_per_host = workers_per_host;
      o.secret = secret;
      o.listen_fd = fds[static_cast<size_t>(h)];
      if (tls != nullptr) o.tls = tls->at(h);
      auto r = TcpTransport::Start(o);
      if (r.ok()) {
        out[static_cast<size_t>(h)] = std::move(r).value();
      } else {
        status[static_cast<size_t>(h)] = r.status();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const Status& st : status) {
    if (!st.ok()) return st;
  }
  return out;
}

}  // namespace sluice
