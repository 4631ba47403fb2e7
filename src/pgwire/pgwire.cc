#include "pgwire/pgwire.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <random>
#include <thread>

#include "base/mutex.h"
#include "pgwire/protocol.h"
#include "pgwire/session.h"

namespace sluice::pgwire {

struct PgServer::Impl {
  SessionContext ctx;
  int listen_fd = -1;
  std::thread acceptor;
  Mutex mu;
  CondVar ended;
  std::map<int32_t, std::shared_ptr<Session>> sessions GUARDED_BY(mu);
  int active GUARDED_BY(mu) = 0;  // session threads still running
  int32_t next_pid GUARDED_BY(mu) = 1000;
  std::mt19937 random{std::random_device{}()};
  bool stopped = false;

  void Accept();
  void Serve(std::shared_ptr<Session> session);
  void Refuse(int fd);
};

PgServer::PgServer(pipeline::PipelineApi* api, PgOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->ctx.api = api;
  impl_->ctx.options = std::move(options);
}

PgServer::~PgServer() { Stop(); }

Status PgServer::Start() {
  Impl& s = *impl_;
  const PgOptions& o = s.ctx.options;
  if (o.auth != "scram-sha-256" && o.auth != "password") {
    return Status::InvalidArgument("unknown PostgreSQL authentication \"" + o.auth +
                                   "\" (it is scram-sha-256 or password)");
  }
  if (o.tls.enabled()) {
    SLUICE_ASSIGN_OR_RETURN(s.ctx.tls, TlsContext::Make(o.tls, TlsContext::Side::kPublicServer));
  }
  if (o.keys != nullptr) {
    std::vector<std::string> passwords;
    for (const auto& [key, scope] : o.keys->keys()) passwords.push_back(key);
    s.ctx.scram = ScramSecrets::Make(passwords);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(o.port);
  if (int rc = getaddrinfo(o.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return Status::InvalidArgument("cannot resolve " + o.host + ": " + gai_strerror(rc));
  }
  int fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (fd < 0 || ::bind(fd, found->ai_addr, found->ai_addrlen) != 0 || ::listen(fd, 128) != 0) {
    const std::string why = std::strerror(errno);
    freeaddrinfo(found);
    if (fd >= 0) ::close(fd);
    return Status::IOError("cannot listen for PostgreSQL clients on " + o.host + ":" + port + ": " +
                           why);
  }
  freeaddrinfo(found);
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port
                                           : reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  s.listen_fd = fd;
  s.acceptor = std::thread([&s] { s.Accept(); });
  return Status::OK();
}

void PgServer::Impl::Accept() {
  while (!ctx.stopping.load()) {
    pollfd p{listen_fd, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    // Writes to a client that stopped reading give up after a minute.
    timeval timeout{60, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    std::shared_ptr<Session> session;
    {
      MutexLock l(&mu);
      if (active >= ctx.options.max_connections) {
        l.Unlock();
        Refuse(fd);
        continue;
      }
      const int32_t pid = next_pid++;
      session = std::make_shared<Session>(&ctx, fd, pid, static_cast<int32_t>(random()));
      sessions[pid] = session;
      ++active;
    }
    std::thread([this, session] { Serve(session); }).detach();
  }
}

void PgServer::Impl::Serve(std::shared_ptr<Session> session) {
  session->Run();
  MutexLock l(&mu);
  if (const Session::CancelTarget* c = session->cancel_request()) {
    auto it = sessions.find(c->pid);
    // The key must match: a client cannot cancel another's statements.
    if (it != sessions.end() && it->second->secret() == c->secret) it->second->Cancel();
  }
  sessions.erase(session->pid());
  --active;
  ended.SignalAll();
}

void PgServer::Impl::Refuse(int fd) {
  Writer w;
  PgError e;
  e.severity = "FATAL";
  e.code = "53300";
  e.message = "sorry, too many clients already (at most " +
              std::to_string(ctx.options.max_connections) + ")";
  WriteError(w, e);
  (void)::send(fd, w.buffer().data(), w.buffer().size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::close(fd);
}

void PgServer::Stop() {
  Impl& s = *impl_;
  if (s.stopped) return;
  s.stopped = true;
  s.ctx.stopping.store(true);
  if (s.acceptor.joinable()) s.acceptor.join();
  if (s.listen_fd >= 0) ::close(s.listen_fd);
  MutexLock l(&s.mu);
  for (auto& [pid, session] : s.sessions) session->Shutdown();
  while (s.active > 0) s.ended.Wait(&s.mu);
}

}  // namespace sluice::pgwire
