// The HTTP API's server under many clients, side by side with another
// build of `sluice` (the server it replaced): requests per second for
// GET /status and for small POST /ingress requests at 1, 64 and 1,000
// concurrent keep-alive connections; then, on the build under test, how
// /status answers with 10,000 idle connections and 1,000 followers of a
// view against with none, and the resident memory an idle connection costs.
//
//   http_bench --sluice BIN [--baseline BIN] [--seconds S]
//              [--connections 1,64,1000] [--idle 10000] [--followers 1000]
//
// Prints a table, and one JSON line per figure.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "bench/process.h"

namespace sluice::bench {
namespace {

using Clock = std::chrono::steady_clock;

int Connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  // Within 2 s: a server that stops accepting leaves connect() waiting.
  fcntl(fd, F_SETFL, O_NONBLOCK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    pollfd p{fd, POLLOUT, 0};
    int err = 0;
    socklen_t len = sizeof err;
    if (errno != EINPROGRESS || poll(&p, 1, 2000) != 1 ||
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
      close(fd);
      return -1;
    }
  }
  fcntl(fd, F_SETFL, 0);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// The length of the first whole answer in `in` (head and Content-Length
// body), or 0 if it is not all there; *close when it says Connection: close.
size_t AnswerLength(const std::string& in, bool* close_after) {
  const size_t end = in.find("\r\n\r\n");
  if (end == std::string::npos) return 0;
  size_t length = 0;
  const size_t cl = in.find("Content-Length: ");
  if (cl != std::string::npos && cl < end) length = std::stoul(in.substr(cl + 16));
  *close_after = in.find("Connection: close") < end;
  return in.size() >= end + 4 + length ? end + 4 + length : 0;
}

struct LoadResult {
  uint64_t requests = 0, errors = 0, reconnects = 0;
  double seconds = 0;
  std::vector<double> latencies_ms;
  double rate() const { return seconds > 0 ? requests / seconds : 0; }
  double Percentile(double p) {
    if (latencies_ms.empty()) return 0;
    std::sort(latencies_ms.begin(), latencies_ms.end());
    return latencies_ms[std::min(latencies_ms.size() - 1,
                                 static_cast<size_t>(p * latencies_ms.size()))];
  }
};

// `connections` clients, each sending `request` and waiting for its answer,
// over and over, for `seconds`; a connection the server closes is opened
// again.
LoadResult Load(int port, int connections, double seconds, const std::string& request) {
  struct Conn {
    int fd = -1;
    std::string in;
    Clock::time_point sent;
  };
  LoadResult r;
  const int ep = epoll_create1(0);
  std::vector<Conn> conns(static_cast<size_t>(connections));
  auto open = [&](size_t i) {
    Conn& c = conns[i];
    c.fd = Connect(port);
    c.in.clear();
    if (c.fd < 0) return false;
    epoll_event e{};
    e.events = EPOLLIN;
    e.data.u64 = i;
    epoll_ctl(ep, EPOLL_CTL_ADD, c.fd, &e);
    c.sent = Clock::now();
    return send(c.fd, request.data(), request.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(request.size());
  };
  for (size_t i = 0; i < conns.size(); ++i) {
    if (!open(i)) ++r.errors;
  }
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration<double>(seconds);
  std::vector<epoll_event> events(1024);
  char buf[65536];
  while (Clock::now() < end) {
    const int n = epoll_wait(ep, events.data(), static_cast<int>(events.size()), 50);
    for (int k = 0; k < n; ++k) {
      const size_t i = events[static_cast<size_t>(k)].data.u64;
      Conn& c = conns[i];
      const ssize_t got = recv(c.fd, buf, sizeof buf, 0);
      if (got <= 0) {
        epoll_ctl(ep, EPOLL_CTL_DEL, c.fd, nullptr);
        close(c.fd);
        ++r.reconnects;
        if (!open(i)) ++r.errors;
        continue;
      }
      c.in.append(buf, static_cast<size_t>(got));
      bool close_after = false;
      const size_t len = AnswerLength(c.in, &close_after);
      if (len == 0) continue;
      const auto now = Clock::now();
      if (c.in.compare(9, 3, "200") == 0) {
        ++r.requests;
        r.latencies_ms.push_back(std::chrono::duration<double, std::milli>(now - c.sent).count());
      } else {
        ++r.errors;
      }
      c.in.erase(0, len);
      if (close_after) {
        epoll_ctl(ep, EPOLL_CTL_DEL, c.fd, nullptr);
        close(c.fd);
        ++r.reconnects;
        if (!open(i)) ++r.errors;
        continue;
      }
      c.sent = now;
      if (send(c.fd, request.data(), request.size(), MSG_NOSIGNAL) < 0) ++r.errors;
    }
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (Conn& c : conns) {
    if (c.fd >= 0) close(c.fd);
  }
  close(ep);
  return r;
}

// `n` connections that each sent `request` (fewer if the server stops
// accepting).
std::vector<int> OpenAndSend(int port, int n, const std::string& request) {
  std::vector<int> fds;
  for (int i = 0; i < n; ++i) {
    const int fd = Connect(port);
    if (fd < 0) break;
    fds.push_back(fd);
    send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  }
  return fds;
}

// An epoll instance watching `fds` for input.
int Watch(const std::vector<int>& fds) {
  const int ep = epoll_create1(0);
  for (int fd : fds) {
    epoll_event e{};
    e.events = EPOLLIN;
    e.data.fd = fd;
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e);
  }
  return ep;
}

uint64_t RssBytes(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}

struct Pipeline {
  pid_t pid = -1;
  int port = 0;
  std::string dir;
  Pipeline(const std::string& binary, const std::vector<std::string>& extra) {
    char tmpl[] = "/tmp/sluice-http-bench-XXXXXX";
    dir = mkdtemp(tmpl);
    std::ofstream(dir + "/program.sql")
        << "CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v VARCHAR) WITH (materialized = "
           "true);\nCREATE MATERIALIZED VIEW v AS SELECT id, v FROM t;\n";
    std::vector<std::string> argv = {binary, "run", dir + "/program.sql", "--port", "0"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    port = StartAndWaitForPort(argv, dir + "/log.txt", {}, &pid);
  }
  ~Pipeline() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

const std::string kStatus = "GET /status HTTP/1.1\r\nHost: bench\r\n\r\n";
const std::string kIngressBody = "{\"insert\":{\"id\":1,\"v\":\"a small record\"}}";
const std::string kIngress = "POST /ingress/t HTTP/1.1\r\nHost: bench\r\nContent-Type: "
                             "application/json\r\nContent-Length: " +
                             std::to_string(kIngressBody.size()) + "\r\n\r\n" + kIngressBody;

const std::string kChangeBody = "{\"insert\":{\"id\":2,\"v\":\"a change\"}}";
const std::string kChange = "POST /ingress/t HTTP/1.1\r\nHost: bench\r\nContent-Type: "
                            "application/json\r\nContent-Length: " +
                            std::to_string(kChangeBody.size()) + "\r\n\r\n" + kChangeBody;

void Json(const std::string& fields) { std::printf("{%s}\n", fields.c_str()); }

}  // namespace
}  // namespace sluice::bench

int main(int argc, char** argv) {
  using namespace sluice::bench;
  std::string binary, baseline;
  double seconds = 5;
  std::vector<int> counts = {1, 64, 1000};
  int idle = 10000, followers = 1000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--sluice") {
      binary = v;
    } else if (a == "--baseline") {
      baseline = v;
    } else if (a == "--seconds") {
      seconds = std::stod(v);
    } else if (a == "--idle") {
      idle = std::stoi(v);
    } else if (a == "--followers") {
      followers = std::stoi(v);
    } else if (a == "--connections") {
      counts.clear();
      for (size_t p = 0; p < v.size();) {
        const size_t comma = v.find(',', p);
        counts.push_back(std::stoi(v.substr(p, comma - p)));
        p = comma == std::string::npos ? v.size() : comma + 1;
      }
    } else {
      std::fprintf(stderr, "http_bench: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (binary.empty()) {
    std::fprintf(stderr, "usage: http_bench --sluice BIN [--baseline BIN] [--seconds S]\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  setvbuf(stdout, nullptr, _IOLBF, 0);
  rlimit rl{};
  getrlimit(RLIMIT_NOFILE, &rl);
  rl.rlim_cur = rl.rlim_max;
  setrlimit(RLIMIT_NOFILE, &rl);

  // 1. Requests per second, this build against the baseline.
  std::printf("%-8s %6s %14s %14s %8s %12s %12s\n", "request", "conns", "this req/s",
              "baseline req/s", "ratio", "this p99 ms", "base p99 ms");
  for (const auto& [name, request] :
       std::vector<std::pair<std::string, std::string>>{{"status", kStatus},
                                                        {"ingress", kIngress}}) {
    for (int n : counts) {
      LoadResult mine, base;
      {
        Pipeline p(binary, {});
        if (p.port == 0) return 1;
        mine = Load(p.port, n, seconds, request);
      }
      if (!baseline.empty()) {
        Pipeline p(baseline, {});
        if (p.port == 0) return 1;
        base = Load(p.port, n, seconds, request);
      }
      const double ratio = base.rate() > 0 ? mine.rate() / base.rate() : 0;
      std::printf("%-8s %6d %14.0f %14.0f %8.2f %12.2f %12.2f\n", name.c_str(), n, mine.rate(),
                  base.rate(), ratio, mine.Percentile(0.99), base.Percentile(0.99));
      Json("\"figure\":\"requests_per_sec\",\"request\":\"" + name +
           "\",\"connections\":" + std::to_string(n) + ",\"this\":" + std::to_string(mine.rate()) +
           ",\"baseline\":" + std::to_string(base.rate()) + ",\"ratio\":" + std::to_string(ratio) +
           ",\"this_errors\":" + std::to_string(mine.errors) +
           ",\"baseline_errors\":" + std::to_string(base.errors) +
           ",\"baseline_reconnects\":" + std::to_string(base.reconnects));
    }
  }

  // 2. Many connections: /status latency with none, then with `idle` idle
  // connections and `followers` followers of a view.
  for (const std::string& which : {binary, baseline}) {
    if (which.empty()) continue;
    const char* label = which == binary ? "this" : "baseline";
    // The baseline predates the limits (and their flags).
    std::vector<std::string> flags;
    if (which == binary) {
      flags = {"--http-max-connections", std::to_string(idle + followers + 100),
               "--http-max-connections-per-client", std::to_string(idle + followers + 100)};
    }
    Pipeline p(which, flags);
    if (p.port == 0) return 1;
    // Some rows, so that followers get a snapshot and changes.
    {
      LoadResult warm = Load(p.port, 1, 0.5, kIngress);
      (void)warm;
    }
    LoadResult quiet = Load(p.port, 1, seconds, kStatus);
    const uint64_t rss_before = RssBytes(p.pid);
    const std::vector<int> held = OpenAndSend(p.port, idle, kStatus);
    int idle_ok = 0;
    // Each idle connection made one request; read the answers that come
    // within 10 s.
    {
      const int ep = Watch(held);
      const auto deadline = Clock::now() + std::chrono::seconds(10);
      std::vector<epoll_event> ev(1024);
      char buf[4096];
      while (idle_ok < static_cast<int>(held.size()) && Clock::now() < deadline) {
        const int n = epoll_wait(ep, ev.data(), static_cast<int>(ev.size()), 100);
        for (int k = 0; k < n; ++k) {
          const int fd = ev[static_cast<size_t>(k)].data.fd;
          if (recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0) ++idle_ok;
          epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr);
        }
      }
      close(ep);
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const uint64_t rss_idle = RssBytes(p.pid);
    // Followers, each read by a thread that drops what it gets.
    const std::vector<int> follow = OpenAndSend(
        p.port, followers, "POST /egress/v?mode=snapshot_and_follow HTTP/1.1\r\n\r\n");
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> follower_bytes{0};
    std::thread reader([&] {
      const int ep = Watch(follow);
      std::vector<epoll_event> ev(256);
      char buf[65536];
      while (!stop) {
        const int n = epoll_wait(ep, ev.data(), static_cast<int>(ev.size()), 50);
        for (int k = 0; k < n; ++k) {
          const ssize_t got = recv(ev[static_cast<size_t>(k)].data.fd, buf, sizeof buf, 0);
          if (got > 0) follower_bytes += static_cast<uint64_t>(got);
          if (got == 0) epoll_ctl(ep, EPOLL_CTL_DEL, ev[static_cast<size_t>(k)].data.fd, nullptr);
        }
      }
      close(ep);
    });
    std::this_thread::sleep_for(std::chrono::seconds(2));
    LoadResult busy = Load(p.port, 1, seconds, kStatus);
    // A change while they follow: it reaches every one of them.
    const uint64_t before_change = follower_bytes.load();
    LoadResult change = Load(p.port, 1, 0.2, kChange);
    (void)change;
    std::this_thread::sleep_for(std::chrono::seconds(2));
    const uint64_t change_bytes = follower_bytes.load() - before_change;
    stop = true;
    reader.join();
    const double per_conn =
        idle_ok > 0 ? static_cast<double>(rss_idle - std::min(rss_idle, rss_before)) / idle_ok : 0;
    const double ratio = quiet.Percentile(0.5) > 0 ? busy.Percentile(0.5) / quiet.Percentile(0.5) : 0;
    std::printf(
        "\n%s: /status median %.3f ms (p99 %.3f) with no other clients; %.3f ms (p99 %.3f, %llu "
        "answers, %llu errors) with %zu idle connections (%d answered) and %zu followers: ratio "
        "%.2f\n%s: resident memory %.1f MB before, %.1f MB with the idle connections: %.0f "
        "bytes per idle connection; a change sent the followers %llu bytes\n",
        label, quiet.Percentile(0.5), quiet.Percentile(0.99), busy.Percentile(0.5),
        busy.Percentile(0.99), static_cast<unsigned long long>(busy.requests),
        static_cast<unsigned long long>(busy.errors), held.size(), idle_ok, follow.size(), ratio,
        label,
        rss_before / 1e6, rss_idle / 1e6, per_conn, static_cast<unsigned long long>(change_bytes));
    Json(std::string("\"figure\":\"many_connections\",\"build\":\"") + label +
         "\",\"idle\":" + std::to_string(held.size()) + ",\"idle_answered\":" + std::to_string(idle_ok) +
         ",\"followers\":" + std::to_string(follow.size()) +
         ",\"status_median_ms_quiet\":" + std::to_string(quiet.Percentile(0.5)) +
         ",\"status_median_ms_busy\":" + std::to_string(busy.Percentile(0.5)) +
         ",\"status_answers_busy\":" + std::to_string(busy.requests) +
         ",\"ratio\":" + std::to_string(ratio) +
         ",\"rss_bytes_per_idle_connection\":" + std::to_string(per_conn));
    for (int fd : held) close(fd);
    for (int fd : follow) close(fd);
  }
  return 0;
}
