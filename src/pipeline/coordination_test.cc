#include "pipeline/coordination.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "zset/batch_builder.h"

namespace sluice::pipeline::coordination {
namespace {

// Query parameters as a server would parse them from a target.
QueryParams ParamsOf(const std::string& target) {
  QueryParams params;
  const size_t q = target.find('?');
  if (q == std::string::npos) return params;
  std::stringstream ss(target.substr(q + 1));
  for (std::string kv; std::getline(ss, kv, '&');) {
    const size_t eq = kv.find('=');
    std::string v = kv.substr(eq + 1), decoded;
    for (size_t i = 0; i < v.size(); ++i) {
      if (v[i] == '%' && i + 2 < v.size()) {
        decoded.push_back(static_cast<char>(std::stoi(v.substr(i + 1, 2), nullptr, 16)));
        i += 2;
      } else {
        decoded.push_back(v[i]);
      }
    }
    params.emplace(kv.substr(0, eq), decoded);
  }
  return params;
}

template <class R>
R RoundTrip(const R& r) {
  const WireRequest w = EncodeRequest(r);
  EXPECT_EQ(w.target.substr(0, w.target.find('?')), R::kCall.path);
  auto back = DecodeRequest<R>(ParamsOf(w.target), w.body);
  EXPECT_TRUE(back.ok()) << R::kCall.path << ": " << back.status().ToString();
  return back.ok() ? *back : R{};
}

TEST(CoordinationTest, RequestsRoundTrip) {
  ActivateRequest a;
  a.host = 2;
  a.addresses = {"10.0.0.1:7001", "10.0.0.2:7001", "10.0.0.3:7001"};
  a.workers = 8;
  a.program = "CREATE TABLE t (id BIGINT);\n-- é \"quoted\"";
  a.base_dir = "/data/p";
  a.config = "{\"workers\": 8}";
  a.output_host = {{"t", 1}, {"v", 2}};
  a.inputs = {"in1", "in2"};
  a.restore_seq = 17;
  a.pipeline_id = "abc";
  const ActivateRequest b = RoundTrip(a);
  EXPECT_EQ(b.host, 2);
  EXPECT_EQ(b.addresses, a.addresses);
  EXPECT_EQ(b.program, a.program);
  EXPECT_EQ(b.output_host, a.output_host);
  EXPECT_EQ(b.inputs, a.inputs);
  EXPECT_EQ(b.restore_seq, 17u);

  const StepRequest s = RoundTrip(StepRequest{42, true, false, true});
  EXPECT_EQ(s.step, 42u);
  EXPECT_TRUE(s.commit);
  EXPECT_FALSE(s.in_transaction);
  EXPECT_TRUE(s.replay);

  // GET requests travel in the query string, escaped.
  const ScanRequest scan = RoundTrip(ScanRequest{9, "a b&c=d%"});
  EXPECT_EQ(scan.lease, 9u);
  EXPECT_EQ(scan.relation, "a b&c=d%");
  const EgressRequest e = RoundTrip(EgressRequest{"v", true, false, true, 77});
  EXPECT_EQ(e.relation, "v");
  EXPECT_TRUE(e.snapshot);
  EXPECT_FALSE(e.follow);
  EXPECT_EQ(e.max_queued_records, 77u);

  // Ingest: fields in the query, the changes as the body.
  auto changes = std::make_shared<format::ChangeBuffer>();
  changes->Add(format::ChangeKind::kInsert, "k1", "payload-1");
  changes->Add(format::ChangeKind::kDelete, "k2", std::string("\0\1", 2));
  IngestRequest in;
  in.table = "orders";
  in.force = true;
  in.bytes = 123;
  in.changes = changes;
  const WireRequest w = EncodeRequest(in);
  EXPECT_EQ(std::string(w.content_type), "application/octet-stream");
  const IngestRequest back = RoundTrip(in);
  EXPECT_EQ(back.table, "orders");
  EXPECT_TRUE(back.force);
  ASSERT_TRUE(back.changes);
  ASSERT_EQ(back.changes->size(), 2u);
  EXPECT_EQ(back.changes->payload(1), std::string("\0\1", 2));
  EXPECT_EQ(back.changes->kind(1), format::ChangeKind::kDelete);
}

TEST(CoordinationTest, AnswersRoundTrip) {
  PipelineStats st;
  st.global.state = "Running";
  st.global.step = 5;
  st.global.last_spill_failure = "disk full";
  st.global.eval_error_samples = {"division by zero"};
  InputStats in;
  in.name = "t.http";
  in.transport = "http_input";
  in.requests = 3;
  st.inputs.push_back(in);
  OutputStats out;
  out.name = "egress.1";
  st.outputs.push_back(out);
  auto back = DecodeAnswer<StatsRequest>(EncodeAnswer<StatsRequest>(st));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->global.step, 5u);
  EXPECT_EQ(back->global.last_spill_failure, "disk full");
  EXPECT_FALSE(back->global.memory_budget_bytes.has_value());
  EXPECT_EQ(back->inputs.at(0).requests, 3u);
  EXPECT_FALSE(back->outputs.at(0).records.has_value());

  ActivateAnswer a{10, {{11, false, true}, {12, true, true}}, 4};
  auto ab = DecodeAnswer<ActivateRequest>(EncodeAnswer<ActivateRequest>(a));
  ASSERT_TRUE(ab.ok()) << ab.status().ToString();
  ASSERT_EQ(ab->journal_steps.size(), 2u);
  EXPECT_EQ(ab->journal_steps[1].step, 12u);
  EXPECT_TRUE(ab->journal_steps[1].commit);

  // Scan: batches in the batch codec.
  BatchBuilder b;
  b.Push("k", "v", 2);
  auto batch = b.Finish();
  ASSERT_TRUE(batch.ok());
  ScanAnswer scan{{*batch, *batch}};
  auto sb = DecodeAnswer<ScanRequest>(EncodeAnswer<ScanRequest>(scan));
  ASSERT_TRUE(sb.ok()) << sb.status().ToString();
  ASSERT_EQ(sb->batches.size(), 2u);
  EXPECT_EQ(sb->batches[1]->len(), 1u);
}

// A request that does not read back names what is wrong.
TEST(CoordinationTest, MalformedRequestsNameTheField) {
  auto step = DecodeRequest<StepRequest>({}, R"({"step": "seven", "commit": false})");
  ASSERT_FALSE(step.ok());
  EXPECT_NE(step.status().message().find("field \"step\": expected an unsigned integer, got "
                                         "\"seven\""),
            std::string::npos)
      << step.status().ToString();
  step = DecodeRequest<StepRequest>({}, R"({"step": 7, "commit": false, "in_transaction": true})");
  ASSERT_FALSE(step.ok());
  EXPECT_NE(step.status().message().find("field \"replay\" is missing"), std::string::npos)
      << step.status().ToString();
  step = DecodeRequest<StepRequest>({}, R"({"step": 7, "comm)");
  ASSERT_FALSE(step.ok());
  EXPECT_NE(step.status().message().find("not JSON"), std::string::npos);
  step = DecodeRequest<StepRequest>({}, "");
  ASSERT_FALSE(step.ok());
  EXPECT_NE(step.status().message().find("empty"), std::string::npos);
  auto act = DecodeRequest<ActivateRequest>({}, R"({"host": 1, "addresses": ["a", 7]})");
  ASSERT_FALSE(act.ok());
  EXPECT_NE(act.status().message().find("field \"addresses[1]\": expected a string"),
            std::string::npos)
      << act.status().ToString();
  auto ready = DecodeRequest<ReadyRequest>({{"wait_ms", "12x"}}, "");
  ASSERT_FALSE(ready.ok());
  EXPECT_NE(ready.status().message().find("parameter \"wait_ms\": expected an integer"),
            std::string::npos)
      << ready.status().ToString();
  auto ingest = DecodeRequest<IngestRequest>({{"table", "t"}, {"force", "0"}, {"bytes", "3"}},
                                             std::string("\5\0\0", 3));
  ASSERT_FALSE(ingest.ok());
  EXPECT_NE(ingest.status().message().find("changes"), std::string::npos);
  // Nested messages name the whole path.
  auto st = DecodeAnswer<StatusRequest>(
      R"({"state": "Running", "pipeline_id": "x", "step": 1, "transaction": false,
          "hosts": [{"host": 0, "address": "a", "state": "Running"},
                    {"host": 1, "address": "b", "state": "Running", "step": -4}]})");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.status().message().find("field \"hosts[1].step\""), std::string::npos)
      << st.status().ToString();
}

// docs/multihost.md lists every call as this header has it.
TEST(CoordinationTest, DocsListEveryCall) {
  std::ifstream in(std::string(SLUICE_SOURCE_DIR) + "/docs/multihost.md");
  ASSERT_TRUE(in) << "docs/multihost.md is missing";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const std::string begin = "<!-- calls: begin -->\n", end = "<!-- calls: end -->";
  const size_t a = doc.find(begin), b = doc.find(end);
  ASSERT_NE(a, std::string::npos) << "no \"" << begin << "\" in docs/multihost.md";
  ASSERT_NE(b, std::string::npos);
  EXPECT_EQ(doc.substr(a + begin.size(), b - a - begin.size()), CallTable())
      << "docs/multihost.md's table of calls differs from src/pipeline/coordination.h; "
         "replace it with the table above";
}

TEST(CoordinationTest, EveryCallHasItsOwnPath) {
  std::set<std::string> paths;
  size_t calls = 0;
  ForEachCall([&]<class R>() {
    ++calls;
    EXPECT_TRUE(paths.insert(R::kCall.path).second) << R::kCall.path;
    EXPECT_EQ(std::string(R::kCall.path).rfind("/coordination/", 0), 0u);
  });
  EXPECT_EQ(calls, 25u);
}

TEST(CoordinationTest, HttpStatusesRoundTrip) {
  for (const Status& s : {Status::NotFound("x"), Status::InvalidArgument("x"), Status::Aborted("x"),
                          Status::Unimplemented("x")}) {
    const HttpError e = HttpErrorFor(s);
    EXPECT_EQ(StatusFromHttp(e.status, "x").code(), s.code()) << s.ToString();
  }
  EXPECT_EQ(HttpErrorFor(Status::IOError("x")).status, 500);
  EXPECT_EQ(StatusFromHttp(401, "x").code(), StatusCode::kIOError);
}

}  // namespace
}  // namespace sluice::pipeline::coordination
