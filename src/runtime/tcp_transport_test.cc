#include "runtime/tcp_transport.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <future>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "dataflow/operators/distinct.h"
#include "dataflow/operators/exchange.h"
#include "dataflow/operators/input.h"
#include "dataflow/operators/output.h"
#include "runtime/runtime.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"
#include "zset/merge.h"

namespace sluice {
namespace {

using namespace std::chrono_literals;

std::vector<TcpTransportOptions> Hosts(int hosts, int workers, std::vector<std::string> secrets) {
  // Listening from here on, on ports the kernel picks: no other test's
  // host can take them.
  std::vector<std::string> addresses(static_cast<size_t>(hosts));
  std::vector<int> fds;
  for (int h = 0; h < hosts; ++h) {
    auto fd =
        ListenTcp("127.0.1." + std::to_string(h + 1) + ":0", &addresses[static_cast<size_t>(h)]);
    EXPECT_TRUE(fd.ok()) << fd.status().ToString();
    fds.push_back(fd.ok() ? *fd : -1);
  }
  std::vector<TcpTransportOptions> out;
  for (int h = 0; h < hosts; ++h) {
    TcpTransportOptions o;
    o.host = h;
    o.listen_fd = fds[static_cast<size_t>(h)];
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
void ExchangeRounds(std::vector<Result<std::unique_ptr<TcpTransport>>>& started) {
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

// Port 0 is a port the kernel picks, held from then on: two listeners
// never get the same one, and a port held is refused to another.
TEST(TcpTransportTest, ListenTcpHoldsTheKernelsPort) {
  std::string a, b, c;
  auto fa = ListenTcp("127.0.1.1:0", &a);
  auto fb = ListenTcp("127.0.1.1:0", &b);
  ASSERT_TRUE(fa.ok()) << fa.status().ToString();
  ASSERT_TRUE(fb.ok()) << fb.status().ToString();
  EXPECT_EQ(a.rfind("127.0.1.1:", 0), 0u) << a;
  EXPECT_NE(a, "127.0.1.1:0");
  EXPECT_NE(a, b);
  auto taken = ListenTcp(a, &c);
  ASSERT_FALSE(taken.ok());
  EXPECT_NE(taken.status().message().find("in use"), std::string::npos)
      << taken.status().ToString();
  auto bad = ListenTcp("127.0.1.1", &c);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("is not ip:port"), std::string::npos);
  ::close(*fa);
  ::close(*fb);
}

TEST(TcpTransportTest, WorkersOfTwoHostsExchangeBatches) {
  auto started = StartAll(Hosts(2, 2, {"s3cret", "s3cret"}));
  ExchangeRounds(started);
}

// Certificates for each host's address, from one CA (or, with `rogue`,
// host 1's from a CA of its own; with `wrong_ip`, host 1's for another
// address).
std::vector<TcpTransportOptions> TlsHosts(const std::string& dir, bool rogue, bool wrong_ip) {
  std::vector<TcpTransportOptions> hosts = Hosts(2, 2, {"s3cret", "s3cret"});
  std::map<std::string, std::string> ips;
  for (int h = 0; h < 2; ++h) {
    const std::string& a = hosts[static_cast<size_t>(h)].addresses[static_cast<size_t>(h)];
    ips["host-" + std::to_string(h)] = a.substr(0, a.rfind(':'));
  }
  if (wrong_ip) ips["host-1"] = "127.0.1.99";
  auto certs = MakeCertificates(dir + "/ca", ips);
  EXPECT_TRUE(certs.ok()) << certs.status().ToString();
  hosts[0].tls = (*certs)["host-0"];
  hosts[1].tls = (*certs)["host-1"];
  if (rogue) {
    auto other = MakeCertificates(dir + "/rogue", ips);
    EXPECT_TRUE(other.ok());
    hosts[1].tls = (*other)["host-1"];
  }
  return hosts;
}

class TcpTransportTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-tls-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(TcpTransportTlsTest, WorkersOfTwoHostsExchangeBatchesOverTls) {
  auto started = StartAll(TlsHosts(dir_, false, false));
  ExchangeRounds(started);
}

// A host whose certificate another CA signed is refused by the others,
// and refuses them: neither starts, and the error says why.
TEST_F(TcpTransportTlsTest, AHostWithACertificateOfAnotherCaIsRefused) {
  auto started = StartAll(TlsHosts(dir_, /*rogue=*/true, false));
  ASSERT_FALSE(started[0].ok());
  ASSERT_FALSE(started[1].ok());
  // Whichever dials first is refused; the other may find it gone already.
  EXPECT_TRUE(started[0].status().message().find("certificate was refused") != std::string::npos ||
              started[1].status().message().find("certificate was refused") != std::string::npos)
      << started[0].status().ToString() << "\n"
      << started[1].status().ToString();
}

// A certificate of the right CA, made for another address, is refused too.
TEST_F(TcpTransportTlsTest, AHostWithACertificateForAnotherAddressIsRefused) {
  auto started = StartAll(TlsHosts(dir_, false, /*wrong_ip=*/true));
  ASSERT_FALSE(started[0].ok());
  EXPECT_NE(started[0].status().message().find("certificate was refused"), std::string::npos)
      << started[0].status().ToString();
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
  EXPECT_NE(s.message().find("lost host 1 (127.0.1.2:"), std::string::npos) << s.ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  EXPECT_FALSE(started[0].value()->lost().ok());
  // Later sends fail at once.
  EXPECT_FALSE(started[0].value()->Send(2, 0, 1, Row("x")).ok());
}

// Two runtimes of two workers each, one per host, joined by TCP, give the
// same results as one runtime of four workers, step after step: rows are
// pushed to the host that owns them, the circuit's exchange moves them
// between hosts, and the hosts' outputs sum to the whole.
TEST(TcpTransportTest, RuntimesOnTwoHostsMatchOneHost) {
  auto started = StartAll(Hosts(2, 2, {"s", "s"}));
  ASSERT_TRUE(started[0].ok() && started[1].ok());
  auto build = [](Circuit& c) {
    // Re-keyed rows (so that they start on the "wrong" workers), exchanged,
    // then DISTINCT.
    Stream* in = AddInput(c, "in");
    AddOutput(c, Distinct(c, Exchange(c, in)), "out");
    return Status::OK();
  };
  std::unique_ptr<Runtime> hosts[2];
  for (int h = 0; h < 2; ++h) {
    RuntimeOptions o;
    o.workers = 2;
    o.host = h;
    o.hosts = 2;
    o.transport = started[static_cast<size_t>(h)]->get();
    auto rt = Runtime::Start(o, build);
    ASSERT_TRUE(rt.ok()) << rt.status().ToString();
    hosts[h] = std::move(rt).value();
  }
  RuntimeOptions one;
  one.workers = 4;
  auto single = Runtime::Start(one, build);
  ASSERT_TRUE(single.ok());
  std::mt19937 rng(3);
  for (int step = 0; step < 5; ++step) {
    BatchBuilder b;
    for (int i = 0; i < 500; ++i) {
      b.Push("k" + std::to_string(rng() % 300), "v" + std::to_string(rng() % 3),
             rng() % 4 == 0 ? -1 : 1);
    }
    BatchPtr batch = *b.Finish();
    ASSERT_TRUE((*single)->Push("in", batch).ok());
    // Each host gets the rows its workers own; pushing another host's rows
    // is an error that says whose they are.
    auto parts = PartitionByKey(*batch, 4);
    ASSERT_TRUE(parts.ok());
    for (int w = 0; w < 4; ++w) {
      ASSERT_TRUE(hosts[w / 2]->PushToWorker("in", w, (*parts)[static_cast<size_t>(w)]).ok());
    }
    if (step == 0) {
      Status wrong = hosts[0]->PushToWorker("in", 3, (*parts)[3]);
      EXPECT_NE(wrong.message().find("no worker 3 on host 0"), std::string::npos)
          << wrong.ToString();
    }
    auto s0 = std::async(std::launch::async, [&] { return hosts[0]->Step(); });
    auto s1 = std::async(std::launch::async, [&] { return hosts[1]->Step(); });
    ASSERT_TRUE(s0.get().ok());
    ASSERT_TRUE(s1.get().ok());
    ASSERT_TRUE((*single)->Step().ok());
    auto merged = MergeBatches({*hosts[0]->Output("out"), *hosts[1]->Output("out")}, {});
    ASSERT_TRUE(merged.ok());
    auto want = (*single)->Output("out");
    ASSERT_TRUE(want.ok());
    // The same rows (key, value, weight), in order.
    auto rows_of = [](const BatchPtr& batch) {
      std::vector<std::string> out;
      auto c = batch->NewCursor();
      for (; c->KeyValid(); c->StepKey()) {
        for (; c->ValValid(); c->StepVal()) {
          out.push_back(std::string(c->key()) + "/" + std::string(c->val()) + "/" +
                        std::to_string(c->weight()));
        }
      }
      return out;
    };
    const std::vector<std::string> got = rows_of(*merged);
    EXPECT_EQ(got, rows_of(*want)) << "step " << step;
    EXPECT_FALSE(got.empty());
  }
}

}  // namespace
}  // namespace sluice
