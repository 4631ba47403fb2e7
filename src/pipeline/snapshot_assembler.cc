#include "pipeline/snapshot_assembler.h"

#include <thread>

#include "base/mutex.h"
#include "zset/merge.h"

namespace sluice::pipeline {
namespace {

// Pieces are read from each share in about this many bytes.
constexpr uint64_t kPieceBytes = 1 << 20;

// The leases taken so far, touched on a thread of their own until the
// snapshot is done, then released.
class Leases {
 public:
  Leases(Peers& peers, std::chrono::milliseconds interval) : peers_(peers) {
    toucher_ = std::thread([this, interval] {
      MutexLock l(&mu_);
      while (!done_) {
        const auto next = std::chrono::steady_clock::now() + interval;
        while (!done_ && std::chrono::steady_clock::now() < next) cv_.WaitUntil(&mu_, next);
        if (done_) break;
        const std::vector<std::pair<int, uint64_t>> held = held_;
        l.Unlock();
        for (const auto& [host, lease] : held) (void)peers_.Touch(host, lease);
        l.Lock();
      }
    });
  }
  ~Leases() {
    {
      MutexLock l(&mu_);
      done_ = true;
    }
    cv_.SignalAll();
    toucher_.join();
    for (const auto& [host, lease] : held_) peers_.Release(host, lease);
  }
  void Add(int host, uint64_t lease) {
    MutexLock l(&mu_);
    held_.emplace_back(host, lease);
  }

 private:
  Peers& peers_;
  Mutex mu_;
  CondVar cv_;
  bool done_ GUARDED_BY(mu_) = false;
  std::vector<std::pair<int, uint64_t>> held_ GUARDED_BY(mu_);
  std::thread toucher_;
};

}  // namespace

Status AssembleSnapshot(const SnapshotJob& job, Peers& peers,
                        const std::function<bool(connector::OutputChunk)>& emit,
                        const std::atomic<bool>& cancelled) {
  // Every share is leased first, so that a host that is about to drop
  // step S is asked before it does.
  Leases leases(peers, job.touch_interval);
  std::vector<uint64_t> lease(static_cast<size_t>(job.hosts), 0);
  // At step 0 nothing was ever delivered: every share is empty. (A lease
  // of step 0 would read another host's latest step, which may be later.)
  const bool remote = job.step > 0;
  for (int h = 0; h < job.hosts && remote; ++h) {
    if (h == job.host) continue;
    SLUICE_ASSIGN_OR_RETURN(lease[static_cast<size_t>(h)], peers.Lease(h, job.relation, job.step));
    leases.Add(h, lease[static_cast<size_t>(h)]);
  }
  MergeOptions merge;
  merge.storage_dir = job.storage_dir;
  std::vector<BatchPtr> part;
  uint64_t part_bytes = 0;
  // Hands `part` over (the last one, with `last`).
  auto flush = [&](bool last) -> Status {
    connector::OutputChunk chunk;
    chunk.kind = connector::OutputChunk::Kind::kSnapshot;
    chunk.step = job.step;
    chunk.last = last;
    if (part_bytes >= merge.spill_threshold_bytes && !merge.storage_dir.empty()) {
      SLUICE_ASSIGN_OR_RETURN(BatchPtr merged, MergeBatches(part, merge));
      chunk.batches = {std::move(merged)};
    } else {
      chunk.batches = std::move(part);
    }
    part.clear();
    part_bytes = 0;
    if (cancelled || !emit(std::move(chunk))) {
      return Status::Aborted("the snapshot's consumer went away");
    }
    return Status::OK();
  };
  for (int h = 0; h < job.hosts; ++h) {
    if (h != job.host && !remote) continue;
    bool first = true;
    std::string after;
    for (;;) {
      if (cancelled) return Status::Aborted("the snapshot was cancelled");
      Result<MemBatchPtr> piece = h == job.host
                                      ? ConsolidatedPiece(job.own, first, after, kPieceBytes)
                                      : peers.Scan(h, lease[static_cast<size_t>(h)], job.relation,
                                                   first, after, kPieceBytes);
      if (!piece.ok()) return piece.status();
      const MemBatch& p = **piece;
      if (p.empty()) break;
      first = false;
      after = std::string(p.key(p.key_count() - 1));
      part_bytes += p.byte_size();
      part.push_back(std::move(piece).value());
      if (part_bytes >= job.part_bytes) SLUICE_RETURN_IF_ERROR(flush(false));
    }
  }
  return flush(true);
}

}  // namespace sluice::pipeline
