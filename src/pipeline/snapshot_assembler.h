// Assembles the snapshot of a relation spread over every host (the
// all_hosts layout) on the host that runs its consumer, an output
// connector or an HTTP stream: the relation as it was after one step S,
// made of this host's share (taken at the step boundary where S was the
// last step) and every other host's share at S, leased through Peers and
// read in pieces. Steps go on meanwhile: a lease pins step S's batches,
// not the pipeline.
//
// The snapshot reaches the consumer as parts of about `part_bytes` of rows
// (the consumer's preferred size: a Delta Lake file per write thread, about
// 1 MiB of JSON), each an OutputChunk of kind kSnapshot and step S, the last
// one marked `last`. A part larger than the spill threshold is merged into
// one batch in a file under `storage_dir`, so memory holds about one part
// in the making plus what the consumer's queue holds. Shares are disjoint
// (every row of a spread relation lives on one worker) and each is read
// consolidated, so every row of the snapshot comes once, with its weight.
//
// Leases are touched every `touch_interval` while the parts are read and
// handed over, so a slow consumer, or pieces that wait behind earlier
// ones, never let them expire; they are released at the end, whatever
// happens.
//
// Thread safety: Assemble runs on a thread of its own (never one that runs
// steps); it runs a touch thread of its own while it works.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "connector/connector.h"
#include "pipeline/peers.h"

namespace sluice::pipeline {

struct SnapshotJob {
  std::string relation;
  uint64_t step = 0;
  std::vector<BatchPtr> own;  // this host's share at `step`
  int host = 0;               // this host
  int hosts = 1;
  uint64_t part_bytes = 1 << 20;
  std::string storage_dir;  // for parts over the spill threshold; empty: memory
  std::chrono::milliseconds touch_interval{60000};
};

// Hands every part of `job`'s snapshot to `emit` in order; `emit` returns
// false when the consumer is gone (then this stops with Aborted). An
// error says which host and what; Aborted("... no longer held ...") means
// a host moved past step S before it was leased, and the snapshot can be
// started again at a later step.
Status AssembleSnapshot(const SnapshotJob& job, Peers& peers,
                        const std::function<bool(connector::OutputChunk)>& emit,
                        const std::atomic<bool>& cancelled);

}  // namespace sluice::pipeline
