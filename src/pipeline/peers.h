// The other hosts of a pipeline on many hosts, as one host's snapshots
// read them: a host's share of a relation's integral (the all_hosts
// layout), pinned at one step by a lease and read in pieces; and as the
// parts of distributed connectors reach their leaders. Implemented
// over the coordination API by server::HostServer; the controller only
// sees this interface.
//
// Every call has a connect timeout and a request timeout, and is retried
// once when a peer does not answer in time; none is made on a thread that
// runs steps. Thread safety: calls may come from several threads at once.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "connector/connector.h"
#include "zset/batch.h"

namespace sluice::pipeline {

class Peers {
 public:
  virtual ~Peers() = default;
  // Pins host `host`'s share of `relation` as it was after step `step`
  // (the host waits up to 10 s for a step it has not finished); returns the
  // lease. Aborted if the host no longer holds that step.
  virtual Result<uint64_t> Lease(int host, const std::string& relation, uint64_t step) = 0;
  // The next piece of the share: its rows after key `after` (from the
  // first, with `from_start`), about `max_bytes` of them, consolidated;
  // empty when none are left.
  virtual Result<MemBatchPtr> Scan(int host, uint64_t lease, const std::string& relation,
                                   bool from_start, const std::string& after,
                                   uint64_t max_bytes) = 0;
  // Keeps the lease alive (a host drops leases nobody touched for long).
  virtual Status Touch(int host, uint64_t lease) = 0;
  virtual void Release(int host, uint64_t lease) = 0;
  // Sends a part's report to the leader of its distributed connector, on
  // host `host` (connector::LeaderLink::Report).
  virtual Status ReportPart(int host, const connector::PartReport& report) = 0;
};

}  // namespace sluice::pipeline
