// The coordination protocol: every call between a coordinator and its hosts
// (DESIGN.md section 6, docs/multihost.md), as one request type and one
// answer type per call. The coordinator sends requests through
// coordinator::HostClient::Call; a host serves them through
// server::HostServer, one handler per request type. Nothing else spells a
// call's path or a field's name.
//
// On the wire (HTTP/1.1, over TLS when the pipeline has certificates;
// every call carries the pipeline's secret as `Authorization: Bearer`):
// - GET: the request's fields in the query string (scalars only).
// - POST: the request as a JSON object, or, for a call with a binary
//   request (ingest), its fields in the query string and its payload as the
//   body.
// - 200 with the answer as a JSON object, or binary for a call with a
//   binary answer (scan), or a stream of frames (egress: wire.h).
// - Errors: JSON {"message", "error_code", "details"} with the HTTP status
//   of HttpStatusFor(); StatusFromHttp() reads them back.
//
// A request or answer that does not read back (not JSON, a missing field,
// a field of the wrong type, a torn binary body) is an error that names the
// field; the coordinator adds the host and the call, so that a host that
// answers garbage fails the pipeline with a message, never a crash.
//
// Adding a call: a request and an answer struct here (kCall with its
// method, path and summary), the request's name in SLUICE_COORDINATION_CALLS,
// a handler in src/server/host_server.cc, and the calling side in the
// coordinator; docs/multihost.md's table is checked against this list by a
// test (pipeline_layer_test CoordinationTest.DocsListEveryCall).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "base/status.h"
#include "format/format.h"
#include "pipeline/report.h"
#include "zset/batch.h"

namespace sluice::pipeline::coordination {

enum class Method { kGet, kPost };

struct CallInfo {
  Method method;
  const char* path;
  const char* summary;  // one line, for docs/multihost.md
  // Binary request: the fields in the query string, a payload as the body.
  bool binary_request = false;
  // The answer is binary (EncodeAnswer/DecodeAnswer by hand) or a stream.
  bool binary_answer = false;
  bool stream = false;
};
const char* MethodName(Method m);

struct Empty {
  template <class V>
  void Fields(V&) {}
};

// ---------------------------------------------------------------- start

struct HelloAnswer {
  std::string state;     // "Coordination" until activated, then the pipeline's state
  std::string exchange;  // "ip:port" of the host's exchange
  std::optional<uint64_t> step;
  template <class V>
  void Fields(V& v) {
    v("state", state);
    v("exchange", exchange);
    v("step", step);
  }
};
struct HelloRequest {
  static constexpr CallInfo kCall{Method::kGet, "/coordination/hello",
                                  "the host's state and its exchange address"};
  using Answer = HelloAnswer;
  template <class V>
  void Fields(V&) {}
};

// A step that a host's input journal holds after the checkpoint it opened.
struct JournaledStep {
  uint64_t step = 0;
  bool commit = false;
  bool in_transaction = false;
  int64_t clock = 0;  // the step clock it ran with (0: not recorded)
  template <class V>
  void Fields(V& v) {
    v("step", step);
    v("commit", commit);
    v("in_transaction", in_transaction);
    v("clock", clock);
  }
};
struct ActivateAnswer {
  uint64_t step = 0;  // the step of the checkpoint opened (0: none)
  std::vector<JournaledStep> journal_steps;
  uint64_t newest_journal = 0;  // the number of the newest journal file
  // With `relayout`: the lease that pins this host's part of the moved
  // integrals as the checkpoint held them.
  std::optional<uint64_t> relayout_lease;
  // Per table with a LATENESS: the largest value of its column that this
  // host took up to the checkpoint opened (the coordinator agrees on the
  // waterlines from every host's: StepRequest::maxima).
  std::map<std::string, int64_t> maxima;
  template <class V>
  void Fields(V& v) {
    v("step", step);
    v("journal_steps", journal_steps);
    v("newest_journal", newest_journal);
    v("relayout_lease", relayout_lease);
    v("maxima", maxima);
  }
};
struct ActivateRequest {
  static constexpr CallInfo kCall{
      Method::kPost, "/coordination/activate",
      "starts the host's share: the program, the layout, the assignment, the checkpoint to open"};
  using Answer = ActivateAnswer;
  int host = 0;                            // this host's index
  std::vector<std::string> addresses;      // every host's exchange address, by index
  int workers = 1;                         // per host
  std::string program;                     // the program's text
  std::string base_dir;                    // for relative connector paths
  std::string config;                      // PipelineConfig::ToJson()
  std::map<std::string, int> output_host;  // every table's and view's host
  std::vector<std::string> inputs;         // the input connectors that run on this host
  uint64_t restore_seq = 0;                // the checkpoint to open (0: none)
  std::string pipeline_id;
  std::string layout = "one_host";  // of the integrals: "one_host" or "all_hosts"
  // Every host's coordination API ("ip:port"), by index: where the hosts
  // read each other's shares for snapshots.
  std::vector<std::string> apis;
  // The materialized relations whose integrals the checkpoint holds in the
  // other layout: they move to `layout` (RelayoutRequest) before the host
  // serves anything.
  std::optional<std::vector<std::string>> relayout;
  template <class V>
  void Fields(V& v) {
    v("host", host);
    v("addresses", addresses);
    v("apis", apis);
    v("layout", layout);
    v("relayout", relayout);
    v("workers", workers);
    v("program", program);
    v("base_dir", base_dir);
    v("config", config);
    v("output_host", output_host);
    v("inputs", inputs);
    v("restore_seq", restore_seq);
    v("pipeline_id", pipeline_id);
  }
};

struct RelayoutAnswer {
  uint64_t rows = 0;  // the distinct rows this host now holds
  template <class V>
  void Fields(V& v) {
    v("rows", rows);
  }
};
struct RelayoutRequest {
  static constexpr CallInfo kCall{
      Method::kPost, "/coordination/relayout",
      "moves integrals into the activation's layout: the host reads every host's relayout lease "
      "and keeps the rows it now owns; then it starts its output connectors"};
  using Answer = RelayoutAnswer;
  std::vector<std::string> relations;
  std::vector<uint64_t> leases;  // every host's relayout lease, by index
  template <class V>
  void Fields(V& v) {
    v("relations", relations);
    v("leases", leases);
  }
};

struct LaunchRequest {
  static constexpr CallInfo kCall{
      Method::kPost, "/coordination/launch",
      "after every host moved its integrals (relayout): starts the host's output connectors"};
  using Answer = Empty;
  template <class V>
  void Fields(V&) {}
};

struct StopRequest {
  static constexpr CallInfo kCall{Method::kPost, "/coordination/stop", "stops the host"};
  using Answer = Empty;
  template <class V>
  void Fields(V&) {}
};

// ---------------------------------------------------------------- steps

struct ReadyAnswer {
  uint64_t buffered = 0;  // records queued
  bool due = false;       // by the batching settings
  std::string state;
  uint64_t step = 0;  // the last step (the queues are those after it)
  std::optional<std::string> error;
  template <class V>
  void Fields(V& v) {
    v("buffered", buffered);
    v("due", due);
    v("state", state);
    v("step", step);
    v("error", error);
  }
};
struct ReadyRequest {
  static constexpr CallInfo kCall{
      Method::kGet, "/coordination/ready",
      "waits up to wait_ms (at most 5000) for input that is due; says what is queued"};
  using Answer = ReadyAnswer;
  uint64_t wait_ms = 0;
  template <class V>
  void Fields(V& v) {
    v("wait_ms", wait_ms);
  }
};

struct StepAnswer {
  uint64_t step = 0;
  // Deletes that found no row to delete on this host, per table.
  std::map<std::string, uint64_t> ignored_deletes;
  // Per table with a LATENESS: the largest value of its column that this
  // host took up to this step.
  std::map<std::string, int64_t> maxima;
  template <class V>
  void Fields(V& v) {
    v("step", step);
    v("ignored_deletes", ignored_deletes);
    v("maxima", maxima);
  }
};
struct StepRequest {
  static constexpr CallInfo kCall{
      Method::kPost, "/coordination/step",
      "runs step N with the input queued now (replay: what the journal says it took)"};
  using Answer = StepAnswer;
  uint64_t step = 0;
  bool commit = false;          // commits the open transaction
  bool in_transaction = false;  // runs inside one
  bool replay = false;          // exactly_once: a journaled step, run again
  // The step clock (NOW() in views' temporal filters), one value for every
  // host; 0 when no view reads it.
  int64_t clock = 0;
  // Per table with a LATENESS: the largest value of its column over every
  // host, from their answers to the step before (and at activation). Each
  // host's waterline follows it before the step takes its input, so that
  // every host drops the same late rows and forgets by the same waterline.
  std::map<std::string, int64_t> maxima;
  template <class V>
  void Fields(V& v) {
    v("step", step);
    v("commit", commit);
    v("in_transaction", in_transaction);
    v("replay", replay);
    v("clock", clock);
    v("maxima", maxima);
  }
};

struct CheckpointAnswer {
  uint64_t sequence = 0;
  uint64_t step = 0;
  template <class V>
  void Fields(V& v) {
    v("sequence", sequence);
    v("step", step);
  }
};
struct CheckpointRequest {
  static constexpr CallInfo kCall{Method::kPost, "/coordination/checkpoint",
                                  "writes the host's part of checkpoint k at this step boundary"};
  using Answer = CheckpointAnswer;
  uint64_t sequence = 0;
  template <class V>
  void Fields(V& v) {
    v("sequence", sequence);
  }
};

struct CheckpointCompleteRequest {
  static constexpr CallInfo kCall{
      Method::kPost, "/coordination/checkpoint/complete",
      "every host wrote its part of checkpoint k: older parts and journal files may go"};
  using Answer = Empty;
  uint64_t sequence = 0;
  template <class V>
  void Fields(V& v) {
    v("sequence", sequence);
  }
};

// ---------------------------------------------------------------- input

struct IngestAnswer {
  uint64_t token = 0;  // the host's own token
  template <class V>
  void Fields(V& v) {
    v("token", token);
  }
};
struct IngestRequest {
  static constexpr CallInfo kCall{Method::kPost, "/coordination/ingest",
                                  "queues one request's changes for a table; returns the host's "
                                  "token",
                                  /*binary_request=*/true};
  using Answer = IngestAnswer;
  std::string table;
  bool force = false;  // queued even while paused
  uint64_t bytes = 0;  // of the request as the client sent it
  // The body: the changes, as the input journal encodes them.
  std::shared_ptr<const format::ChangeBuffer> changes;
  template <class V>
  void Fields(V& v) {
    v("table", table);
    v("force", force);
    v("bytes", bytes);
  }
};

struct IngressErrorsRequest {
  static constexpr CallInfo kCall{Method::kPost, "/coordination/ingress_errors",
                                  "counts a rejected ingress request's bad records"};
  using Answer = Empty;
  std::string table;
  uint64_t errors = 0;
  template <class V>
  void Fields(V& v) {
    v("table", table);
    v("errors", errors);
  }
};

struct CompletionAnswer {
  bool complete = false;
  bool durable = false;
  uint64_t step = 0;
  std::optional<bool> lost;
  uint64_t from_step = 0;
  template <class V>
  void Fields(V& v) {
    v("complete", complete);
    v("durable", durable);
    v("step", step);
    v("lost", lost);
    v("from_step", from_step);
  }
};
struct CompletionRequest {
  static constexpr CallInfo kCall{Method::kGet, "/coordination/completion",
                                  "the completion of one of the host's tokens"};
  using Answer = CompletionAnswer;
  uint64_t token = 0;
  template <class V>
  void Fields(V& v) {
    v("token", token);
  }
};

// ---------------------------------------------------------------- control

struct PauseRequest {
  static constexpr CallInfo kCall{Method::kPost, "/coordination/pause",
                                  "pauses the host's input connectors and ingress"};
  using Answer = Empty;
  template <class V>
  void Fields(V&) {}
};

struct ResumeRequest {
  static constexpr CallInfo kCall{Method::kPost, "/coordination/resume", "undoes a pause"};
  using Answer = Empty;
  template <class V>
  void Fields(V&) {}
};

struct ConnectorRequest {
  static constexpr CallInfo kCall{Method::kPost, "/coordination/connector",
                                  "starts, pauses or resets a connector that runs on the host"};
  using Answer = Empty;
  std::string name;
  std::string action;  // "start", "pause" or "reset"
  template <class V>
  void Fields(V& v) {
    v("name", name);
    v("action", action);
  }
};

// ---------------------------------------------------------------- output

// Host to host: a part of a distributed connector (connector.h) reports
// the files it wrote for a step to the leader part; the answer comes once
// the leader committed the step (429 Busy: not yet; ask again).
struct PartReportRequest {
  static constexpr CallInfo kCall{
      Method::kPost, "/coordination/part_report",
      "a distributed connector's part reports a step's files, or a compaction of its files; "
      "answered once the leader committed them"};
  using Answer = Empty;
  std::string connector;
  int host = 0;
  uint64_t from = 0;
  uint64_t step = 0;
  std::string files;  // the transport's JSON text
  bool snapshot = false;
  bool compaction = false;
  template <class V>
  void Fields(V& v) {
    v("connector", connector);
    v("host", host);
    v("from", from);
    v("step", step);
    v("files", files);
    v("snapshot", snapshot);
    v("compaction", compaction);
  }
};

struct FollowRequest {
  static constexpr CallInfo kCall{
      Method::kPost, "/coordination/follow",
      "gathers a relation that is gathered on demand onto its host, from the next step on"};
  using Answer = Empty;
  std::string relation;
  template <class V>
  void Fields(V& v) {
    v("relation", relation);
  }
};

struct EgressRequest {
  static constexpr CallInfo kCall{Method::kGet,
                                  "/coordination/egress",
                                  "a stream of a relation's batches from its host (frames of "
                                  "src/pipeline/wire.h)",
                                  false,
                                  /*binary_answer=*/true,
                                  /*stream=*/true};
  using Answer = Empty;  // a stream of frames instead
  std::string relation;
  bool snapshot = false;
  bool follow = true;
  bool backpressure = false;
  uint64_t max_queued_records = 1000000;
  template <class V>
  void Fields(V& v) {
    v("relation", relation);
    v("snapshot", snapshot);
    v("follow", follow);
    v("backpressure", backpressure);
    v("max_queued_records", max_queued_records);
  }
};

// ---------------------------------------------------------------- reads

struct LeaseAnswer {
  uint64_t lease = 0;
  uint64_t step = 0;  // the step whose integrals the lease pins
  template <class V>
  void Fields(V& v) {
    v("lease", lease);
    v("step", step);
  }
};
struct LeaseRequest {
  static constexpr CallInfo kCall{
      Method::kPost, "/coordination/adhoc/lease",
      "pins the host's part of relations' integrals at a step (0: the last; a step not "
      "delivered yet is waited for, up to 10 s)"};
  using Answer = LeaseAnswer;
  std::vector<std::string> relations;
  uint64_t step = 0;
  std::string holder;  // who asks ("coordinator", "host N"): leases are bounded per holder
  template <class V>
  void Fields(V& v) {
    v("relations", relations);
    v("step", step);
    v("holder", holder);
  }
};

// Binary: each batch as u64 length + batch codec chunk, back to back.
struct ScanAnswer {
  std::vector<MemBatchPtr> batches;
};
struct ScanRequest {
  static constexpr CallInfo kCall{
      Method::kGet, "/coordination/adhoc/scan",
      "the next piece of the host's part of a leased relation: its rows after key `after` (or "
      "from the start), consolidated, about max_bytes of them, as one batch codec chunk (u64 "
      "length + chunk); nothing when done",
      false, /*binary_answer=*/true};
  using Answer = ScanAnswer;
  uint64_t lease = 0;
  std::string relation;
  bool from_start = true;
  std::string after;  // the last key of the previous piece
  uint64_t max_bytes = 1 << 20;
  template <class V>
  void Fields(V& v) {
    v("lease", lease);
    v("relation", relation);
    v("from_start", from_start);
    v("after", after);
    v("max_bytes", max_bytes);
  }
};

struct TouchAnswer {
  uint64_t step = 0;
  template <class V>
  void Fields(V& v) {
    v("step", step);
  }
};
struct TouchRequest {
  static constexpr CallInfo kCall{
      Method::kPost, "/coordination/snapshot/touch",
      "keeps a lease alive while its reader is busy (a lease untouched for an hour goes)"};
  using Answer = TouchAnswer;
  uint64_t lease = 0;
  template <class V>
  void Fields(V& v) {
    v("lease", lease);
  }
};

struct ReleaseRequest {
  static constexpr CallInfo kCall{Method::kPost, "/coordination/adhoc/release", "drops a lease"};
  using Answer = Empty;
  uint64_t lease = 0;
  template <class V>
  void Fields(V& v) {
    v("lease", lease);
  }
};

// ---------------------------------------------------------------- figures

struct StatsRequest {
  static constexpr CallInfo kCall{Method::kGet, "/coordination/stats",
                                  "the host's figures, which the coordinator merges into /stats"};
  using Answer = PipelineStats;
  template <class V>
  void Fields(V&) {}
};

struct StatusRequest {
  static constexpr CallInfo kCall{Method::kGet, "/coordination/status",
                                  "the host's state, step and error"};
  using Answer = PipelineStatus;
  template <class V>
  void Fields(V&) {}
};

struct CheckpointList {
  std::vector<CheckpointInfo> checkpoints;
  template <class V>
  void Fields(V& v) {
    v("checkpoints", checkpoints);
  }
};
struct CheckpointsRequest {
  static constexpr CallInfo kCall{Method::kGet, "/coordination/checkpoints",
                                  "the host's checkpoint parts and their sizes"};
  using Answer = CheckpointList;
  template <class V>
  void Fields(V&) {}
};

// Every call, in the order of docs/multihost.md's table.
#define SLUICE_COORDINATION_CALLS(X) \
  X(HelloRequest)                    \
  X(ActivateRequest)                 \
  X(RelayoutRequest)                 \
  X(LaunchRequest)                   \
  X(StopRequest)                     \
  X(ReadyRequest)                    \
  X(StepRequest)                     \
  X(CheckpointRequest)               \
  X(CheckpointCompleteRequest)       \
  X(IngestRequest)                   \
  X(IngressErrorsRequest)            \
  X(CompletionRequest)               \
  X(PauseRequest)                    \
  X(ResumeRequest)                   \
  X(ConnectorRequest)                \
  X(PartReportRequest)               \
  X(FollowRequest)                   \
  X(EgressRequest)                   \
  X(LeaseRequest)                    \
  X(ScanRequest)                     \
  X(TouchRequest)                    \
  X(ReleaseRequest)                  \
  X(StatsRequest)                    \
  X(StatusRequest)                   \
  X(CheckpointsRequest)

template <class... T>
struct TypeList {};
struct EndOfCalls {};
#define SLUICE_COORDINATION_TYPE(R) R,
using AllCalls = TypeList<SLUICE_COORDINATION_CALLS(SLUICE_COORDINATION_TYPE) EndOfCalls>;
#undef SLUICE_COORDINATION_TYPE

// Calls `f.template operator()<R>()` for every request type R, in order:
//   ForEachCall([&]<class R>() { ... });
template <class F, class... T>
void ForEachCallIn(TypeList<T...>, F&& f) {
  (..., [&] {
    if constexpr (!std::is_same_v<T, EndOfCalls>) f.template operator()<T>();
  }());
}
template <class F>
void ForEachCall(F&& f) {
  ForEachCallIn(AllCalls{}, f);
}

// ---------------------------------------------------------------- encoding

// A request as it goes on the wire.
struct WireRequest {
  std::string target;  // the path, with the query string if any
  std::string body;    // POST only
  const char* content_type = "application/json";
};

// Query parameters as a server parsed them.
using QueryParams = std::multimap<std::string, std::string>;

template <class R>
WireRequest EncodeRequest(const R& request);
template <class R>
Result<R> DecodeRequest(const QueryParams& params, std::string_view body);
// The answer of call R.
template <class R>
std::string EncodeAnswer(const typename R::Answer& answer);
template <class R>
Result<typename R::Answer> DecodeAnswer(std::string_view body);

// The request fields and answer fields of a call, for the docs' table.
template <class R>
std::vector<std::string> RequestFields();
template <class R>
std::vector<std::string> AnswerFields();

// docs/multihost.md's table of calls, as Markdown, made from this header.
std::string CallTable();

// ---------------------------------------------------------------- errors

// The HTTP status and error_code with which an API (the public one and the
// coordination one) answers a failed call.
struct HttpError {
  int status = 500;
  const char* code = "InternalError";
};
HttpError HttpErrorFor(const Status& s);
// The Status that an error answer of HTTP status `http` stands for.
Status StatusFromHttp(int http, std::string message);

}  // namespace sluice::pipeline::coordination
