// Connectors: the transports that bring records into tables and take the
// changes of views out, declared in SQL (`WITH (connectors = '[...]')`) with
// Feldera's field names:
//
//   {"name": "people_in",
//    "transport": {"name": "file_input", "config": {"path": "people.json"}},
//    "format": {"name": "json", "config": {"update_format": "insert_delete"}},
//    "paused": false, "send_snapshot": false, "distributed": false,
//    "max_queued_records": 1000000, "max_batch_size": 10000}
//
// Input connectors decode records and hand them to an InputSink (the
// pipeline's table queues). Output connectors read OutputChunks from an
// OutputQueue that the pipeline fills after every step.
//
// A distributed output connector (`"distributed": true`, on many hosts, of
// the transports that support it) runs as a part on every host, each part
// writing its own host's share of the view's changes; the part on the
// view's assigned host is the leader, which the others report to (a
// LeaderLink) and which commits each step once (Delta Lake).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "format/format.h"
#include "zset/batch.h"

namespace sluice::connector {

struct ConnectorSpec {
  std::string name;
  std::string relation;  // the table or view it is declared on
  bool input = true;     // declared on a table: input; on a view: output
  std::string transport;
  std::string transport_config;  // JSON object text
  format::FormatOptions format;
  bool paused = false;
  bool send_snapshot = false;
  uint64_t max_queued_records = 1000000;
  uint64_t max_batch_size = 10000;
  // Asked for a part on every host (`"distributed": true`); whether it
  // runs so is the pipeline's decision (`part`).
  bool distributed = false;
  // Set by the pipeline: its id, which outlives restarts on the same
  // storage (a Delta sink's txn appId).
  std::string pipeline_id;
  int workers = 1;  // the pipeline's workers (threads of generating inputs)
  // Set by the pipeline for an output that names the view's index
  // (`"index"`, or the view's only index when it needs a key): its columns.
  std::vector<int> key;
};

// The transports that can run as a part on every host.
bool SupportsDistributed(const std::string& transport);

// What a part of a distributed connector sends its leader: for the steps
// `from` to `step`, the files it wrote at `step` (the steps before had no
// change on its host), as the transport describes them (JSON text); or,
// with `snapshot`, the files of its share of the snapshot at `step` (every
// part takes its snapshot at the same step).
struct PartReport {
  std::string connector;
  int host = 0;  // the part's
  uint64_t from = 0, step = 0;
  std::string files;
  bool snapshot = false;
  // A compaction of the part's files after `step`: actions that change no
  // row, committed on their own.
  bool compaction = false;
};

// How a part reaches its leader on another host (the pipeline provides it).
class LeaderLink {
 public:
  virtual ~LeaderLink() = default;
  // Sends `report`, and returns once the leader committed `report.step`
  // (OK), or with the leader's refusal or the reason it could not be
  // reached. Unavailable: the leader is busy (waiting for another part);
  // the part sends it again.
  virtual Status Report(const PartReport& report) = 0;
};

// Which part of a distributed connector this is.
struct PartInfo {
  int host = 0, hosts = 1;
  int leader = 0;                    // the host of the leader part
  std::shared_ptr<LeaderLink> link;  // to the leader (parts on other hosts)
  bool leader_here() const { return host == leader; }
};

// Parses the connectors of a table (`is_table`) or view from the JSON text
// of its `connectors` option. An unknown field or transport, or a transport
// on the wrong kind of relation, is an error that names it. A relative
// `path` is taken from `base_dir` (the program file's directory).
Result<std::vector<ConnectorSpec>> ParseConnectors(const std::string& relation, bool is_table,
                                                   std::string_view json,
                                                   const std::string& base_dir = "");

// Counters of one connector, read by /stats while the connector runs.
struct ConnectorStats {
  std::atomic<uint64_t> records{0};
  std::atomic<uint64_t> bytes{0};
  std::atomic<uint64_t> parse_errors{0};
  std::atomic<uint64_t> transport_errors{0};
  std::atomic<bool> end_of_input{false};
  std::atomic<bool> paused{false};

  // Records the connector's last error, and logs it (at most once a second
  // per connector, saying how many it left out).
  void SetError(std::string message);
  std::string last_error() const;
  // The connector recovered from what SetError reported.
  void ClearError();
  // The connector's name, for the log.
  void set_name(std::string name);

 private:
  mutable Mutex mu_;
  std::string last_error_ GUARDED_BY(mu_);
  std::string name_ GUARDED_BY(mu_);
  std::chrono::steady_clock::time_point logged_ GUARDED_BY(mu_);
  uint64_t unlogged_ GUARDED_BY(mu_) = 0;
};

// Where an input connector puts what it decoded (one sink per connector).
class InputSink {
 public:
  virtual ~InputSink() = default;
  // Queues `changes` for the next steps, which take at most the connector's
  // max_batch_size records each. Blocks while the connector has more than
  // max_queued_records queued, or while the pipeline or the connector is
  // paused. Returns false once the pipeline stops (the changes are dropped).
  // `position` (JSON text) is where the connector goes on reading after
  // these changes; checkpoints record it with the changes still queued.
  virtual bool Enqueue(format::ChangeBuffer changes, std::string position) = 0;
  virtual bool stopping() const = 0;
};

// One step's output for a consumer: the change of a view in `step`, or (a
// snapshot) the view's contents as of `step`, as batches that sum to it.
//
// A snapshot may come in several parts (a relation spread over many hosts,
// read in pieces): every part but the last has `last` false. A sink that
// commits a step at once (Delta Lake) commits the snapshot with its last
// part.
struct OutputChunk {
  enum class Kind { kChanges, kSnapshot, kReset };
  Kind kind = Kind::kChanges;
  uint64_t step = 0;
  std::vector<BatchPtr> batches;
  bool last = true;  // kSnapshot: no more parts of it follow
  uint64_t records() const;
};

// A bounded queue from the pipeline to one consumer. With backpressure, a
// full queue makes Put() wait (the pipeline holds its steps back); without,
// a full queue is closed with an error and Put() returns false, so that a
// slow consumer is cut off, never silently skipped.
class OutputQueue {
 public:
  OutputQueue(uint64_t max_records, bool backpressure)
      : max_records_(max_records), backpressure_(backpressure) {}

  bool Put(OutputChunk chunk);
  // Called (on the thread that puts or closes, outside the queue's lock)
  // whenever a chunk is queued or the queue closes: a consumer that does
  // not wait in Pop() learns there is something to pop. It must not block.
  void SetListener(std::function<void()> listener);
  enum class PopResult { kChunk, kTimeout, kClosed };
  // A popped chunk is in flight until Done(): Idle() is false until then.
  PopResult Pop(OutputChunk* out, std::chrono::milliseconds timeout);
  void Done();
  // Nothing queued and nothing in flight: the consumer has handled every
  // chunk it was given.
  bool Idle() const;
  // Closes the queue: Put() fails, and Pop() returns kClosed once empty
  // (`error` explains why, if it is an error).
  void Close(Status error = Status::OK());
  Status error() const;
  bool closed() const;
  uint64_t queued_records() const;
  size_t queued_chunks() const;  // not counting the one in flight

 private:
  const uint64_t max_records_;
  const bool backpressure_;
  mutable Mutex mu_;
  CondVar cv_;
  std::deque<OutputChunk> chunks_ GUARDED_BY(mu_);
  uint64_t records_ GUARDED_BY(mu_) = 0;
  bool closed_ GUARDED_BY(mu_) = false;
  bool in_flight_ GUARDED_BY(mu_) = false;
  Status error_ GUARDED_BY(mu_);
  std::shared_ptr<const std::function<void()>> listener_ GUARDED_BY(mu_);
};

class InputConnector {
 public:
  virtual ~InputConnector() = default;
  // Before Start: go on from a position it reported to Enqueue (restart
  // from a checkpoint).
  virtual Status Resume(std::string_view position) {
    (void)position;
    return Status::OK();
  }
  virtual Status Start(InputSink* sink) = 0;
  virtual void Stop() = 0;  // returns once its threads have ended
  ConnectorStats& stats() { return stats_; }

 protected:
  ConnectorStats stats_;
};

class OutputConnector {
 public:
  virtual ~OutputConnector() = default;
  // Before Start: go on from recorded progress (restart from a checkpoint).
  virtual Status Resume(std::string_view progress) {
    (void)progress;
    return Status::OK();
  }
  virtual Status Start(std::shared_ptr<OutputQueue> queue) = 0;
  virtual void Stop() = 0;  // drains what is queued, then returns
  // Once every chunk handed over so far is written (waiting up to
  // `timeout`): the connector's progress (JSON text) for a checkpoint.
  virtual Result<std::string> Progress(std::chrono::milliseconds timeout) {
    (void)timeout;
    return std::string("{}");
  }
  ConnectorStats& stats() { return stats_; }
  // The size of snapshot parts it writes best (a snapshot assembled from
  // many hosts is handed over in parts of about this many bytes of rows).
  virtual uint64_t preferred_part_bytes() const { return 1 << 20; }
  // Distributed connectors (before Start): this part's place. A part gets a
  // chunk for every step (one with no batches when its host had no change),
  // so that each step is accounted for on every host.
  virtual void SetPart(PartInfo part) { (void)part; }
  // The leader part: takes another part's report, and answers once the
  // step is committed (waiting up to `wait`; Unavailable if not by then).
  virtual Status AcceptReport(const PartReport& report, std::chrono::milliseconds wait) {
    (void)report;
    (void)wait;
    return Status::NotFound("connector is not the leader of a distributed connector");
  }

 protected:
  ConnectorStats stats_;
};

// Reads chunks from `q` until it is closed, handing each to `write`; a
// failed write is counted and reported in `stats`. A paused connector
// holds on to its chunk (its queue fills and holds the pipeline back).
void DrainQueue(OutputQueue& q, ConnectorStats& stats,
                const std::function<Status(const OutputChunk&)>& write);

// For OutputConnector::Progress: waits until `q` has nothing queued or in
// flight; an error if the connector is paused or `timeout` passes first.
Status WaitDrained(const OutputQueue& q, const ConnectorStats& stats, const std::string& name,
                   std::chrono::milliseconds timeout);

Result<std::unique_ptr<InputConnector>> MakeInputConnector(const ConnectorSpec& spec,
                                                           const format::Relation& rel);
// Null for transports served by the HTTP API (http_output).
Result<std::unique_ptr<OutputConnector>> MakeOutputConnector(const ConnectorSpec& spec,
                                                             const format::Relation& rel);

}  // namespace sluice::connector
