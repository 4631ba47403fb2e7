#include "runtime/tcp_transport.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <future>
#include <string>
#include <thread>
#include <vector>

#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {
namespace {

using namespace std::chrono_literals;

// A port nobody listens on now.
int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

std::vector<TcpTransportOptions> Hosts(int hosts, int workers, std::vector<std::string> secrets) {
  std::vector<std::string> addresses;
  for (int h = 0; h < hosts; ++h) addresses.push_back("127.0.0.1:" + std::to_string(FreePort()));
  std::vector<TcpTransportOptions> out;
  for (int h = 0; h < hosts; ++h) {
    TcpTransportOptions o;
    o.host = h;
    o.addresses = addresses;
    o.workers_per_host = workers;
    o.secret = secrets[static_cast<size_t>(h)];
    o.connect_timeout = 3000ms;
    o.io_timeout = 1000ms;
    o.ping_interval = 100ms;
    out.push_back(o);
  }
  return out;
}

// Starts every host at once (each waits for the others).
std::vector<Result<std::unique_ptr<TcpTransport>>> StartAll(
    std::vector<TcpTransportOptions> hosts) {
  std::vector<std::future<Result<std::unique_ptr<TcpTransport>>>> f;
  for (auto& o : hosts) {
    f.push_back(std::async(std::launch::async, [o] { return TcpTransport::Start(o); }));
  }
  std::vector<Result<std::unique_ptr<TcpTransport>>> out;
  for (auto& x : f) out.push_back(x.get());
  return out;
}

BatchPtr Row(const std::string& s) {
  BatchBuilder b;
  b.Push(s, 1);
  return *b.Finish();
}

std::string OnlyKey(const BatchPtr& b) {
  auto c = b->NewCursor();
  return c->KeyValid() ? std::string(c->key()) : "(empty)";
}

// Every worker of two hosts sends to every worker, three rounds: each
// receives each round's batches in worker order, whichever host they came
// from.
TEST(TcpTransportTest, WorkersOfTwoHostsExchangeBatches) {
  auto started = StartAll(Hosts(2, 2, {"s3cret", "s3cret"}));
  ASSERT_TRUE(started[0].ok()) << started[0].status().ToString();
  ASSERT_TRUE(started[1].ok()) << started[1].status().ToString();
  TcpTransport* host[2] = {started[0]->get(), started[1]->get()};
  std::vector<std::thread> workers;
  std::vector<std::string> errors(4);
  for (int w = 0; w < 4; ++w) {
    workers.emplace_back([&, w] {
      TcpTransport* t = host[w / 2];
      for (int round = 0; round < 3; ++round) {
        for (int to = 0; to < 4; ++to) {
          Status s = t->Send(
              7, w, to,
              Row(std::to_string(w) + ">" + std::to_string(to) + "#" + std::to_string(round)));
          if (!s.ok()) errors[static_cast<size_t>(w)] = s.ToString();
        }
        std::vector<BatchPtr> got;
        Status s = t->Receive(7, w, &got);
        if (!s.ok() || got.size() != 4) {
          errors[static_cast<size_t>(w)] = "receive: " + s.ToString();
          return;
        }
        for (int from = 0; from < 4; ++from) {
          const std::string want =
              std::to_string(from) + ">" + std::to_string(w) + "#" + std::to_string(round);
          if (OnlyKey(got[static_cast<size_t>(from)]) != want) {
            errors[static_cast<size_t>(w)] =
                "got " + OnlyKey(got[static_cast<size_t>(from)]) + ", want " + want;
          }
        }
      }
    });
  }
  for (auto& t : workers) t.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  EXPECT_GT(host[0]->bytes_sent(), 0u);
}

// A host with another secret is never let in: both fail to start, saying
// which host did not connect.
TEST(TcpTransportTest, AHostWithoutTheSecretIsRefused) {
  auto started = StartAll(Hosts(2, 1, {"right", "wrong"}));
  ASSERT_FALSE(started[0].ok());
  EXPECT_NE(started[0].status().message().find("did not connect"), std::string::npos)
      << started[0].status().ToString();
  EXPECT_FALSE(started[1].ok());
}

// A host that goes away fails the others' waiting receives within the
// timeout, with an error that names it; nothing hangs.
TEST(TcpTransportTest, ALostHostFailsTheExchangeInTime) {
  auto started = StartAll(Hosts(2, 1, {"s", "s"}));
  ASSERT_TRUE(started[0].ok() && started[1].ok());
  ASSERT_TRUE(started[0].value()->Send(1, 0, 0, Row("mine")).ok());
  auto waiting = std::async(std::launch::async, [&] {
    std::vector<BatchPtr> got;
    return started[0].value()->Receive(1, 0, &got);  // host 1 never sends
  });
  std::this_thread::sleep_for(200ms);
  const auto t0 = std::chrono::steady_clock::now();
  started[1].value().reset();  // host 1 goes away
  ASSERT_EQ(waiting.wait_for(5s), std::future_status::ready) << "the receive hangs";
  Status s = waiting.get();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("lost host 1 (127.0.0.1:"), std::string::npos) << s.ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  EXPECT_FALSE(started[0].value()->lost().ok());
  // Later sends fail at once.
  EXPECT_FALSE(started[0].value()->Send(2, 0, 1, Row("x")).ok());
}

}  // namespace
}  // namespace sluice
