// The leases of one host: the integrals of some relations at one step,
// pinned for a reader on another process (the coordinator's ad hoc query,
// or another host's snapshot) that reads them in pieces. A lease holds
// batch pointers, so it pins the step's batches (and the files behind
// them) while steps go on and spines merge.
//
// A lease that nobody touched (scanned or touched) for `idle_timeout` is
// dropped at the next call (its holder died, or forgot it); a holder may
// hold at most `max_per_holder` at once.
//
// Thread safety: every method may be called from any thread; mu_ guards
// the table.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "zset/batch.h"

namespace sluice::pipeline {

class LeaseTable {
 public:
  using Clock = std::chrono::steady_clock;
  struct Options {
    std::chrono::milliseconds idle_timeout{std::chrono::minutes(2)};
    size_t max_per_holder = 64;
    std::function<Clock::time_point()> now = [] { return Clock::now(); };  // tests set a clock
  };
  using Integrals = std::map<std::string, std::vector<BatchPtr>>;

  explicit LeaseTable(Options options) : o_(std::move(options)) {}

  // Pins `integrals` (of step `step`) for `holder`; returns the lease.
  // Error when the holder already holds max_per_holder leases.
  Result<uint64_t> Add(uint64_t step, Integrals integrals, const std::string& holder = "");
  // The batches of `relation` in `lease`; touches the lease.
  Result<std::vector<BatchPtr>> Batches(uint64_t lease, const std::string& relation);
  // A piece of `relation` in `lease`: its rows (summed over its batches;
  // rows that sum to nothing left out) with keys after `after` (or from the
  // first, `from_start`), in order, until their bytes reach `max_bytes`
  // (whole keys: the piece ends at a key's end). Empty when none are left.
  // Touches the lease.
  Result<MemBatchPtr> Scan(uint64_t lease, const std::string& relation, bool from_start,
                           std::string_view after, uint64_t max_bytes);
  // The step a lease pins; touches it.
  Result<uint64_t> Touch(uint64_t lease);
  void Release(uint64_t lease);
  size_t size() const;

 private:
  struct Entry {
    uint64_t step = 0;
    std::string holder;
    Integrals integrals;
    Clock::time_point touched;
  };
  Status Missing(uint64_t lease) const;
  void DropIdle(Clock::time_point now) REQUIRES(mu_);

  const Options o_;
  mutable Mutex mu_;
  std::map<uint64_t, Entry> leases_ GUARDED_BY(mu_);
  uint64_t next_ GUARDED_BY(mu_) = 1;
};

}  // namespace sluice::pipeline
