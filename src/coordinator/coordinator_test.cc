#include "coordinator/coordinator.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "base/tls.h"
#include "pipeline/coordination.h"
#include "server/http.h"

namespace sluice::coordinator {
namespace {

pipeline::ProgramInfo Describe(const std::string& text) {
  auto p = sql::CompileProgram(text);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  auto info = pipeline::DescribeProgram(*p, "/tmp");
  EXPECT_TRUE(info.ok()) << info.status().ToString();
  return *info;
}

const char* kProgram = R"(
CREATE TABLE t (id BIGINT) WITH (connectors = '[
  {"name": "in1", "transport": {"name": "file_input", "config": {"path": "a"}}},
  {"name": "in2", "transport": {"name": "file_input", "config": {"path": "b"}}}]');
CREATE MATERIALIZED VIEW a AS SELECT COUNT(*) AS n FROM t;
CREATE MATERIALIZED VIEW b AS SELECT MAX(id) AS m FROM t;
CREATE VIEW c AS SELECT id FROM t WHERE id > 0;
)";

// Largest first, each on the least loaded host; ties go by name.
TEST(AssignHostsTest, SpreadsByCostWithTiesByName) {
  Assignment a = AssignHosts(Describe(kProgram), 2, {});
  // a and b (3 each) go to hosts 0 and 1 by name; then c and t (1 each).
  EXPECT_EQ(a.output_host.at("a"), 0);
  EXPECT_EQ(a.output_host.at("b"), 1);
  EXPECT_EQ(a.output_host.at("c"), 0);
  EXPECT_EQ(a.output_host.at("t"), 1);
  EXPECT_EQ(a.input_host.at("in1"), 0);
  EXPECT_EQ(a.input_host.at("in2"), 1);
  // The same program gives the same assignment.
  Assignment again = AssignHosts(Describe(kProgram), 2, {});
  EXPECT_EQ(again.output_host, a.output_host);
  EXPECT_EQ(again.input_host, a.input_host);
}

// A recorded assignment stays when connectors are added, views renamed or
// the estimate would now choose otherwise; new streams go around it.
TEST(AssignHostsTest, KeepsWhatACheckpointRecorded) {
  Assignment before = AssignHosts(Describe(kProgram), 2, {});
  const std::string changed = R"(
CREATE TABLE t (id BIGINT) WITH (connectors = '[
  {"name": "in1", "transport": {"name": "file_input", "config": {"path": "a"}}},
  {"name": "in2", "transport": {"name": "file_input", "config": {"path": "b"}}},
  {"name": "in0", "transport": {"name": "file_input", "config": {"path": "c"}}}]');
CREATE MATERIALIZED VIEW a AS SELECT COUNT(*) AS n FROM t;
CREATE MATERIALIZED VIEW b WITH (connectors = '[
  {"name": "o1", "transport": {"name": "file_output", "config": {"path": "o1"}}, "format": {"name": "json"}},
  {"name": "o2", "transport": {"name": "file_output", "config": {"path": "o2"}}, "format": {"name": "json"}}]')
  AS SELECT MAX(id) AS m FROM t;
CREATE VIEW c2 AS SELECT id FROM t WHERE id > 0;
)";
  // Without the record, b (now 7) would go first, to host 0.
  EXPECT_EQ(AssignHosts(Describe(changed), 2, {}).output_host.at("b"), 0);
  Assignment after = AssignHosts(Describe(changed), 2, before);
  EXPECT_EQ(after.output_host.at("a"), before.output_host.at("a"));
  EXPECT_EQ(after.output_host.at("b"), before.output_host.at("b"));
  EXPECT_EQ(after.output_host.at("t"), before.output_host.at("t"));
  EXPECT_EQ(after.input_host.at("in1"), before.input_host.at("in1"));
  EXPECT_EQ(after.input_host.at("in2"), before.input_host.at("in2"));
  // New: c2 on the lighter host (0: a=3; host 1 has b=7, t=1), in0 on 0.
  EXPECT_EQ(after.output_host.at("c2"), 0);
  EXPECT_EQ(after.output_host.count("c"), 0u);
  EXPECT_EQ(after.input_host.at("in0"), 0);
}

namespace co = pipeline::coordination;

// A host that answers every call with `garbage` (or, where `honest` says
// so, as a host would), on a port of its own.
class FakeHost {
 public:
  FakeHost() {
    auto handler = [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> l(mu_);
      auto it = honest_.find(req.path);
      res.status = 200;
      res.set_content(it != honest_.end() ? it->second : garbage_, "application/json");
    };
    http_.Get(".*", handler);
    http_.Post(".*", handler);
    http_.set_tcp_nodelay(true);
    port_ = http_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { http_.listen_after_bind(); });
    while (!http_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeHost() {
    http_.stop();
    thread_.join();
  }
  int port() const { return port_; }
  void SetGarbage(std::string g) {
    std::lock_guard<std::mutex> l(mu_);
    garbage_ = std::move(g);
  }
  template <class R>
  void Answer(const typename R::Answer& a) {
    std::lock_guard<std::mutex> l(mu_);
    honest_[R::kCall.path] = co::EncodeAnswer<R>(a);
  }

 private:
  httplib::Server http_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::string garbage_;
  std::map<std::string, std::string> honest_;
};

// Every call, answered with every kind of garbage: an error that names the
// host and the call, never a crash. (Answers that are valid for a call,
// such as {} for one that answers nothing, are not garbage to it.)
TEST(HostClientTest, GarbageAnswersAreErrorsNamingTheHostAndTheCall) {
  FakeHost fake;
  HostClient client({0, "127.0.0.1", fake.port()}, "secret", std::chrono::seconds(5));
  const std::string host = "host 0 (127.0.0.1:" + std::to_string(fake.port()) + ")";
  const std::vector<std::string> garbage = {
      "",
      "garbage",
      "{\"step\": ",
      "[1, 2, 3]",
      "\x01\x00\x00\x00\x00\x00\x00\x00z",
      std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8) + "no batch here"};
  size_t failed = 0;
  co::ForEachCall([&]<class R>() {
    if constexpr (!R::kCall.stream) {
      for (const std::string& g : garbage) {
        fake.SetGarbage(g);
        auto r = client.Call(R{}, std::chrono::seconds(5));
        if (r.ok()) continue;
        ++failed;
        EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << r.status().ToString();
        EXPECT_NE(r.status().message().find(host), std::string::npos) << r.status().ToString();
        EXPECT_NE(r.status().message().find(R::kCall.path), std::string::npos)
            << r.status().ToString();
      }
      // Every field of the answer of the wrong type.
      std::string wrong = "{";
      for (const std::string& f : co::AnswerFields<R>()) {
        wrong += (wrong.size() > 1 ? "," : "") + std::string("\"") + f + "\": [[]]";
      }
      fake.SetGarbage(wrong + "}");
      auto r = client.Call(R{}, std::chrono::seconds(5));
      EXPECT_EQ(r.ok(), co::AnswerFields<R>().empty() && !R::kCall.binary_answer)
          << R::kCall.path << ": " << r.status().ToString();
    }
  });
  EXPECT_GT(failed, 80u);
}

// A host that refuses a call before reading its body (as a host does
// before its activation) leaves the body unread on the connection (over
// TLS, the body's record stays in the stream): the next call must not go
// over that connection, or the host reads the body as its request line.
TEST(HostClientTest, ARefusedCallDoesNotSpoilTheNextOne) {
  char tmpl[] = "/tmp/sluice-refused-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  auto certs = MakeCertificates(dir, {{"host", "127.0.0.1"}, {"coordinator", "127.0.0.1"}});
  ASSERT_TRUE(certs.ok()) << certs.status().ToString();
  auto made = server::MakeHttpServer(certs->at("host"), /*verify_clients=*/true);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  httplib::Server& http = **made;
  std::atomic<int> calls{0};
  http.set_pre_routing_handler([&](const httplib::Request&, httplib::Response& res) {
    if (calls++ % 2 == 1) return httplib::Server::HandlerResponse::Unhandled;
    res.status = 409;
    res.set_content("{\"message\": \"not yet\"}", "application/json");
    return httplib::Server::HandlerResponse::Handled;
  });
  http.Post(".*", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("{\"lease\": 7, \"step\": 3}", "application/json");
  });
  const int port = http.bind_to_any_port("127.0.0.1");
  std::thread t([&] { http.listen_after_bind(); });
  while (!http.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  HostClient client({0, "127.0.0.1", port}, "secret", std::chrono::seconds(5),
                    certs->at("coordinator"));
  const co::LeaseRequest lease{{"a_view_with_a_long_name"}, 0, "host 1"};
  for (int i = 0; i < 5; ++i) {
    auto refused = client.Call(lease, std::chrono::seconds(5));
    EXPECT_FALSE(refused.ok());
    EXPECT_NE(refused.status().message().find("not yet"), std::string::npos)
        << refused.status().ToString();
    auto r = client.Call(lease, std::chrono::seconds(5));
    ASSERT_TRUE(r.ok()) << "round " << i << ": " << r.status().ToString();
    EXPECT_EQ(r->lease, 7u);
  }
  http.stop();
  t.join();
  std::filesystem::remove_all(dir);
}

// A host that answers its poll with garbage fails the pipeline with a
// message naming it; the coordinator keeps answering and stops cleanly.
TEST(HostClientTest, AGarbledPollFailsThePipelineNotTheCoordinator) {
  FakeHost fake;
  fake.Answer<co::HelloRequest>({"Coordination", "127.0.0.1:1", std::nullopt});
  fake.Answer<co::ActivateRequest>({0, {}, 0});
  fake.SetGarbage("{\"buffered\": \"lots\", \"due\": true}");
  CoordinatorOptions o;
  o.hosts = {{0, "127.0.0.1", fake.port()}};
  o.secret = "secret";
  o.request_timeout = std::chrono::seconds(5);
  pipeline::PipelineConfig config;
  auto c = Coordinator::Start("CREATE TABLE t (id BIGINT);", config, "", o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  // Polls come every few milliseconds; on a loaded machine the first may
  // wait seconds.
  for (int i = 0; i < 3000 && (*c)->state() != pipeline::PipelineState::kFailed; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ((*c)->state(), pipeline::PipelineState::kFailed);
  const pipeline::PipelineStatus st = (*c)->CurrentStatus();
  ASSERT_TRUE(st.error.has_value());
  // The first call to meet the garbage is the poll or, when a timed step
  // comes first, the step; either names the host, the call and the field.
  const std::string host = "host 0 (127.0.0.1:" + std::to_string(fake.port()) + ") answered ";
  const bool poll = st.error->find(host +
                                   "GET /coordination/ready with a malformed answer: "
                                   "field \"buffered\"") != std::string::npos;
  const bool step = st.error->find(host +
                                   "POST /coordination/step with a malformed answer: "
                                   "field \"step\" is missing") != std::string::npos;
  EXPECT_TRUE(poll || step) << *st.error;
  // The hosts' figures are garbage too: /stats and /status still answer.
  EXPECT_EQ((*c)->Stats().global.state, "Failed");
  ASSERT_TRUE(st.hosts.has_value());
  EXPECT_EQ(st.hosts->at(0).state, "Unreachable");
  (*c)->Stop();
}

// A garbled activation answer stops the start with a message.
TEST(HostClientTest, AGarbledActivationIsAnErrorAtStart) {
  FakeHost fake;
  fake.Answer<co::HelloRequest>({"Coordination", "127.0.0.1:1", std::nullopt});
  fake.SetGarbage("{\"step\": 0, \"journal_steps\": [{\"step\": 1}], \"newest_journal\": 0}");
  CoordinatorOptions o;
  o.hosts = {{0, "127.0.0.1", fake.port()}};
  o.secret = "secret";
  pipeline::PipelineConfig config;
  auto c = Coordinator::Start("CREATE TABLE t (id BIGINT);", config, "", o);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("POST /coordination/activate with a malformed answer: "
                                      "field \"journal_steps[0].commit\" is missing"),
            std::string::npos)
      << c.status().ToString();
}

}  // namespace
}  // namespace sluice::coordinator
