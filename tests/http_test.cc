// The HTTP API's server under clients that misbehave or are many: slow
// clients cut off while others are served, connection limits answered 503,
// heads too large 431, idle connections closed, hundreds of followers of a
// view at once. Each test talks to `sluice run` over raw sockets, so that it
// controls exactly what is sent and when.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pipeline_helper.h"

namespace sluice::testing {
namespace {

const char* kProgram = R"(
CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v VARCHAR) WITH (materialized = true);
CREATE MATERIALIZED VIEW big AS SELECT id, v FROM t WHERE id > 100;
)";

// A client connection over a raw socket.
class Socket {
 public:
  explicit Socket(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~Socket() {
    if (fd_ >= 0) close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  bool connected() const { return connected_; }
  int fd() const { return fd_; }

  bool Send(const std::string& s) {
    return ::send(fd_, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size());
  }
  // What arrives within `timeout`, until the peer closes or `until` is in
  // it.
  std::string Receive(std::chrono::milliseconds timeout, const std::string& until = "") {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (!until.empty() && in_.find(until) != std::string::npos) break;
      pollfd p{fd_, POLLIN, 0};
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (poll(&p, 1, static_cast<int>(std::max<int64_t>(1, left.count()))) <= 0) continue;
      char buf[65536];
      const ssize_t n = recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        closed_ = true;
        break;
      }
      in_.append(buf, static_cast<size_t>(n));
    }
    return in_;
  }
  // One whole answer with a Content-Length (head and body), taken from what
  // arrived; "" if none came within `timeout`.
  std::string Answer(std::chrono::milliseconds timeout = 10000ms) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const size_t end = in_.find("\r\n\r\n");
      if (end != std::string::npos) {
        const size_t cl = in_.find("Content-Length: ");
        size_t length = 0;
        if (cl != std::string::npos && cl < end) length = std::stoul(in_.substr(cl + 16));
        if (in_.size() >= end + 4 + length) {
          std::string a = in_.substr(0, end + 4 + length);
          in_.erase(0, end + 4 + length);
          return a;
        }
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || closed_) return "";
      const size_t before = in_.size();
      Receive(left, "\r\n\r\n");
      if (in_.size() == before && closed_) return "";
    }
  }
  bool closed() const { return closed_; }
  // Whether the peer closed the connection within `timeout`.
  bool WaitClosed(std::chrono::milliseconds timeout) {
    Receive(timeout, "\x01\x02impossible");
    return closed_;
  }
  std::string& buffer() { return in_; }

 private:
  int fd_ = -1;
  bool connected_ = false;
  bool closed_ = false;
  std::string in_;
};

Json HttpStats(Pipeline& p) {
  auto r = p.Client().Get("/stats");
  if (!r || r->status != 200) return Json();
  return Json::parse(r->body)["http"];
}

int StatusOf(const std::string& answer) {
  return answer.size() > 12 ? std::atoi(answer.c_str() + 9) : 0;
}

Json BodyOf(const std::string& answer) {
  const size_t end = answer.find("\r\n\r\n");
  return end == std::string::npos ? Json() : Json::parse(answer.substr(end + 4), nullptr, false);
}

TEST(Http, SlowClientsAreCutOffWhileOthersAreServed) {
  Pipeline p(kProgram, {"--http-header-timeout-ms", "1500", "--http-body-timeout-ms", "1500"});
  ASSERT_GT(p.port(), 0) << p.log();
  // 64 clients that send half a head, and 8 that send a head and half a body.
  std::vector<std::unique_ptr<Socket>> slow;
  for (int i = 0; i < 64; ++i) {
    slow.push_back(std::make_unique<Socket>(p.port()));
    ASSERT_TRUE(slow.back()->Send("POST /ingress/t HTTP/1.1\r\nHost: x\r\nContent-Le"));
  }
  for (int i = 0; i < 8; ++i) {
    slow.push_back(std::make_unique<Socket>(p.port()));
    ASSERT_TRUE(slow.back()->Send(
        "POST /ingress/t HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"insert\":"));
  }
  // Meanwhile the API answers everyone else.
  for (int i = 0; i < 5; ++i) {
    Socket s(p.port());
    ASSERT_TRUE(s.Send("GET /status HTTP/1.1\r\nHost: x\r\n\r\n"));
    const std::string a = s.Answer(5000ms);
    ASSERT_EQ(StatusOf(a), 200) << a;
  }
  // Then each slow client is told 408 and closed.
  for (auto& s : slow) {
    const std::string a = s->Answer(10000ms);
    EXPECT_EQ(StatusOf(a), 408) << a;
    EXPECT_EQ(BodyOf(a)["error_code"], "RequestTimeout") << a;
    EXPECT_TRUE(s->WaitClosed(3000ms));
  }
  const Json h = HttpStats(p);
  EXPECT_GE(h["connections_timed_out"].get<uint64_t>(), 72u) << h;
  // Nothing of the half body was ingested.
  EXPECT_EQ(p.Query("SELECT COUNT(*) AS n FROM t", "json"), "{\"n\":0}\n");
}

TEST(Http, ConnectionsBeyondTheLimitAre503WithRetryAfter) {
  Pipeline p(kProgram, {"--http-max-connections", "6"});
  ASSERT_GT(p.port(), 0) << p.log();
  std::vector<std::unique_ptr<Socket>> held;
  for (int i = 0; i < 6; ++i) {
    held.push_back(std::make_unique<Socket>(p.port()));
    ASSERT_TRUE(held.back()->Send("GET /status HTTP/1.1\r\n\r\n"));
    ASSERT_EQ(StatusOf(held.back()->Answer()), 200);  // kept alive
  }
  Socket extra(p.port());
  ASSERT_TRUE(extra.Send("GET /status HTTP/1.1\r\n\r\n"));
  const std::string a = extra.Answer();
  EXPECT_EQ(StatusOf(a), 503) << a;
  EXPECT_NE(a.find("Retry-After: "), std::string::npos) << a;
  EXPECT_EQ(BodyOf(a)["error_code"], "TooManyConnections") << a;
  EXPECT_TRUE(extra.WaitClosed(3000ms));
  // One leaves: a new client is served again.
  held.pop_back();
  std::this_thread::sleep_for(200ms);
  Socket again(p.port());
  ASSERT_TRUE(again.Send("GET /status HTTP/1.1\r\nConnection: close\r\n\r\n"));
  EXPECT_EQ(StatusOf(again.Answer()), 200);
  held.clear();
  std::this_thread::sleep_for(200ms);
  const Json h = HttpStats(p);
  EXPECT_EQ(h["connections_refused"], 1) << h;
}

TEST(Http, ConnectionsPerClientAddressAreLimited) {
  Pipeline p(kProgram, {"--http-max-connections-per-client", "3"});
  ASSERT_GT(p.port(), 0) << p.log();
  std::vector<std::unique_ptr<Socket>> held;
  for (int i = 0; i < 3; ++i) {
    held.push_back(std::make_unique<Socket>(p.port()));
    ASSERT_TRUE(held.back()->Send("GET /status HTTP/1.1\r\n\r\n"));
    ASSERT_EQ(StatusOf(held.back()->Answer()), 200);
  }
  Socket extra(p.port());
  ASSERT_TRUE(extra.Send("GET /status HTTP/1.1\r\n\r\n"));
  const std::string a = extra.Answer();
  EXPECT_EQ(StatusOf(a), 503) << a;
  EXPECT_NE(BodyOf(a)["message"].get<std::string>().find("from one address"), std::string::npos);
}

TEST(Http, HeadsTooLargeAre431AndMalformedRequests400) {
  Pipeline p(kProgram, {"--http-max-header-kib", "2"});
  ASSERT_GT(p.port(), 0) << p.log();
  {
    Socket s(p.port());
    ASSERT_TRUE(s.Send("GET /status HTTP/1.1\r\nX-Big: " + std::string(3000, 'a') + "\r\n\r\n"));
    const std::string a = s.Answer();
    EXPECT_EQ(StatusOf(a), 431) << a;
    EXPECT_EQ(BodyOf(a)["error_code"], "HeaderTooLarge");
  }
  {
    Socket s(p.port());
    ASSERT_TRUE(s.Send("GET /status HTTP/1.1\r\nno colon here\r\n\r\n"));
    const std::string a = s.Answer();
    EXPECT_EQ(StatusOf(a), 400) << a;
    EXPECT_NE(BodyOf(a)["message"].get<std::string>().find("no colon here"), std::string::npos);
  }
  // Still serving.
  auto r = p.Client().Get("/status");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST(Http, IdleKeptAliveConnectionsAreClosed) {
  Pipeline p(kProgram, {"--http-idle-timeout-ms", "500"});
  ASSERT_GT(p.port(), 0) << p.log();
  Socket s(p.port());
  ASSERT_TRUE(s.Send("GET /status HTTP/1.1\r\n\r\n"));
  ASSERT_EQ(StatusOf(s.Answer()), 200);
  EXPECT_TRUE(s.WaitClosed(5000ms));
  EXPECT_GE(HttpStats(p)["connections_idle_closed"].get<uint64_t>(), 1u);
}

TEST(Http, PipelinedChunkedAndExpectContinue) {
  Pipeline p(kProgram);
  ASSERT_GT(p.port(), 0) << p.log();
  Socket s(p.port());
  // A chunked ingress that waits for 100 Continue.
  ASSERT_TRUE(s.Send(
      "POST /ingress/t HTTP/1.1\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n"));
  const std::string cont = s.Receive(5000ms, "\r\n\r\n");
  ASSERT_EQ(cont.rfind("HTTP/1.1 100 Continue\r\n\r\n", 0), 0u) << cont;
  s.buffer().clear();
  const std::string rows = "{\"insert\":{\"id\":1,\"v\":\"a\"}}\n{\"insert\":{\"id\":2,\"v\":\"b\"}}\n";
  char size[16];
  std::snprintf(size, sizeof size, "%zx\r\n", rows.size());
  // Two more requests right behind it, in the same write.
  ASSERT_TRUE(s.Send(std::string(size) + rows + "\r\n0\r\n\r\n" +
                     "GET /status HTTP/1.1\r\n\r\nGET /nowhere HTTP/1.1\r\n\r\n"));
  const std::string a1 = s.Answer(), a2 = s.Answer(), a3 = s.Answer();
  EXPECT_EQ(StatusOf(a1), 200) << a1;
  EXPECT_EQ(StatusOf(a2), 200) << a2;
  EXPECT_EQ(StatusOf(a3), 404) << a3;
  const std::string token = BodyOf(a1)["token"];
  ASSERT_TRUE(p.WaitComplete(token));
  EXPECT_EQ(p.Query("SELECT COUNT(*) AS n FROM t", "json"), "{\"n\":2}\n");
}

// A large body is decoded as it arrives, in pieces: records that span two
// pieces (CSV fields with line breaks among them), and an error's record and
// line, come out as from a body read whole.
TEST(Http, LargeBodiesAreDecodedAsTheyArrive) {
  Pipeline p(kProgram);
  ASSERT_GT(p.port(), 0) << p.log();
  std::string csv;
  constexpr int kRows = 60000;  // about 3 MB: a dozen pieces
  for (int i = 0; i < kRows; ++i) {
    csv += std::to_string(i) + ",\"line one of " + std::to_string(i) + "\nline two, quoted\"\n";
  }
  auto r = p.Client().Post("/ingress/t?format=csv", csv, "text/csv");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  ASSERT_TRUE(p.WaitComplete(Json::parse(r->body)["token"]));
  EXPECT_EQ(p.Query("SELECT COUNT(*) AS n FROM t", "json"),
            "{\"n\":" + std::to_string(kRows) + "}\n");
  EXPECT_EQ(p.Query("SELECT v FROM t WHERE id = 54321", "json"),
            "{\"v\":\"line one of 54321\\nline two, quoted\"}\n");
  // A bad record near the end: its number and line are exact, and nothing
  // of the request is ingested.
  std::string json;
  for (int i = 0; i < kRows; ++i) {
    json += "{\"insert\":{\"id\":" + std::to_string(kRows + i) + ",\"v\":\"x\"}}\n";
  }
  json += "{\"insert\":{\"id\":\"not a number\"}}\n";
  r = p.Client().Post("/ingress/t", json, "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 400) << r->body;
  const Json e = Json::parse(r->body);
  EXPECT_EQ(e["details"]["errors"][0]["record"], kRows + 1) << e;
  EXPECT_EQ(e["details"]["errors"][0]["line"], kRows + 1) << e;
  EXPECT_EQ(p.Query("SELECT COUNT(*) AS n FROM t", "json"),
            "{\"n\":" + std::to_string(kRows) + "}\n");
}

// A misspelled limit is refused at start, naming the flag meant.
TEST(Http, AMisspelledFlagSaysWhichItMeant) {
  Pipeline p(kProgram, {"--http-max-conections", "5"});
  EXPECT_EQ(p.exit_code(), 2) << p.log();
  EXPECT_NE(p.log().find("unknown option '--http-max-conections' (did you mean "
                         "--http-max-connections?)"),
            std::string::npos)
      << p.log();
}

// Each scope of API key may do what it names, on one host and on many (the
// coordinator's API).
TEST(Http, ApiKeyScopes) {
  const std::string read = "read-key-0123456789", write = "write-key-0123456789",
                    admin = "admin-key-0123456789";
  Pipeline p(kProgram, {"--api-key-file", "$DIR/keys"},
             {{"keys", read + " read\n" + write + " write\n" + admin + " admin\n"}});
  ASSERT_GT(p.port(), 0) << p.log();
  auto call = [&](const std::string& method, const std::string& path, const std::string& key,
                  const std::string& body = "") {
    Socket s(p.port());
    std::string req = method + " " + path + " HTTP/1.1\r\nConnection: close\r\n";
    if (!key.empty()) req += "Authorization: Bearer " + key + "\r\n";
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    EXPECT_TRUE(s.Send(req));
    return s.Answer();
  };
  const std::string row = "{\"insert\":{\"id\":101,\"v\":\"k\"}}";
  // No key, or a wrong one: 401, whatever the endpoint.
  for (const std::string& key : {std::string(), std::string("not-a-key-0123456789")}) {
    const std::string a = call("GET", "/status", key);
    EXPECT_EQ(StatusOf(a), 401) << a;
    EXPECT_NE(a.find("WWW-Authenticate: Bearer"), std::string::npos) << a;
    EXPECT_EQ(StatusOf(call("POST", "/ingress/t", key, row)), 401);
  }
  // read: reads, and nothing that writes (403 says which scope it needs).
  EXPECT_EQ(StatusOf(call("GET", "/status", read)), 200);
  EXPECT_EQ(StatusOf(call("GET", "/query?sql=SELECT+1", read)), 200);
  const std::string denied = call("POST", "/ingress/t", read, row);
  EXPECT_EQ(StatusOf(denied), 403) << denied;
  EXPECT_EQ(BodyOf(denied)["details"]["needed"], "write") << denied;
  EXPECT_EQ(StatusOf(call("POST", "/checkpoint", read)), 403);
  // write and admin: also ingress.
  for (const std::string& key : {write, admin}) {
    const std::string a = call("POST", "/ingress/t", key, row);
    EXPECT_EQ(StatusOf(a), 200) << a;
    EXPECT_EQ(StatusOf(call("GET", "/stats", key)), 200);
  }
  // A refused request leaves its kept-alive connection ready for the next.
  {
    Socket s(p.port());
    ASSERT_TRUE(s.Send("GET /status HTTP/1.1\r\n\r\n"));
    EXPECT_EQ(StatusOf(s.Answer()), 401);
    ASSERT_TRUE(s.Send("POST /pause HTTP/1.1\r\nAuthorization: Bearer " + read + "\r\n\r\n"));
    EXPECT_EQ(StatusOf(s.Answer()), 403);
    ASSERT_TRUE(s.Send("GET /status HTTP/1.1\r\nAuthorization: Bearer " + read + "\r\n\r\n"));
    EXPECT_EQ(StatusOf(s.Answer()), 200);
  }
  // The console's files need no key (they hold no data).
  EXPECT_EQ(StatusOf(call("GET", "/", "")), 200);
}

// Hundreds of clients follow a view at once; the API keeps answering, and
// every follower gets every change.
TEST(Http, HundredsOfFollowers) {
  Pipeline p(kProgram);
  ASSERT_GT(p.port(), 0) << p.log();
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", "{\"insert\":{\"id\":101,\"v\":\"first\"}}")));
  // On many hosts each follower holds a stream from its view's host, which
  // serves at most 192 at once (more are refused, not queued).
  const int kFollowers = std::getenv("SLUICE_TEST_HOSTS") != nullptr ? 150 : 300;
  std::vector<std::unique_ptr<Socket>> followers;
  for (int i = 0; i < kFollowers; ++i) {
    followers.push_back(std::make_unique<Socket>(p.port()));
    ASSERT_TRUE(followers.back()->connected());
    ASSERT_TRUE(
        followers.back()->Send("POST /egress/big?mode=snapshot_and_follow HTTP/1.1\r\n\r\n"));
  }
  // Each gets the snapshot.
  for (auto& f : followers) {
    const std::string got = f->Receive(30000ms, "\"first\"");
    ASSERT_NE(got.find("\"first\""), std::string::npos) << got;
  }
  // /status answers while they follow.
  for (int i = 0; i < 3; ++i) {
    Socket s(p.port());
    ASSERT_TRUE(s.Send("GET /status HTTP/1.1\r\n\r\n"));
    EXPECT_EQ(StatusOf(s.Answer(5000ms)), 200);
  }
  EXPECT_EQ(HttpStats(p)["streams"], kFollowers);
  // A change reaches every follower.
  ASSERT_TRUE(p.WaitComplete(p.Ingest("t", "{\"insert\":{\"id\":102,\"v\":\"second\"}}")));
  for (auto& f : followers) {
    const std::string got = f->Receive(30000ms, "\"second\"");
    EXPECT_NE(got.find("\"second\""), std::string::npos);
  }
  // Followers that leave are let go.
  followers.clear();
  uint64_t streams = kFollowers;
  for (int i = 0; i < 100 && streams > 0; ++i) {
    std::this_thread::sleep_for(100ms);
    streams = HttpStats(p)["streams"];
  }
  EXPECT_EQ(streams, 0u);
}

}  // namespace
}  // namespace sluice::testing
