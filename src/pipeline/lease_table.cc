#include "pipeline/lease_table.h"

#include "zset/merge.h"

namespace sluice::pipeline {

Status LeaseTable::Missing(uint64_t lease) const {
  return Status::NotFound("lease " + std::to_string(lease) +
                          " does not exist (released, or untouched for more than " +
                          std::to_string(o_.idle_timeout.count()) + " ms)");
}

void LeaseTable::DropIdle(Clock::time_point now) {
  for (auto it = leases_.begin(); it != leases_.end();) {
    it = now - it->second.touched > o_.idle_timeout ? leases_.erase(it) : std::next(it);
  }
}

Result<uint64_t> LeaseTable::Add(uint64_t step, Integrals integrals, const std::string& holder) {
  const Clock::time_point now = o_.now();
  MutexLock l(&mu_);
  DropIdle(now);
  size_t held = 0;
  for (const auto& [id, e] : leases_) held += e.holder == holder;
  if (held >= o_.max_per_holder) {
    return Status::Aborted((holder.empty() ? std::string("the coordinator") : holder) +
                           " already holds " + std::to_string(held) +
                           " leases on this host, the most it may hold at once");
  }
  const uint64_t id = next_++;
  leases_[id] = {step, holder, std::move(integrals), now};
  return id;
}

Result<std::vector<BatchPtr>> LeaseTable::Batches(uint64_t lease, const std::string& relation) {
  const Clock::time_point now = o_.now();
  MutexLock l(&mu_);
  DropIdle(now);
  auto it = leases_.find(lease);
  if (it == leases_.end()) return Missing(lease);
  it->second.touched = now;
  auto r = it->second.integrals.find(relation);
  if (r == it->second.integrals.end()) {
    return Status::NotFound("lease " + std::to_string(lease) + " does not hold " + relation);
  }
  return r->second;
}

Result<MemBatchPtr> LeaseTable::Scan(uint64_t lease, const std::string& relation, bool from_start,
                                     std::string_view after, uint64_t max_bytes) {
  SLUICE_ASSIGN_OR_RETURN(std::vector<BatchPtr> batches, Batches(lease, relation));
  return ConsolidatedPiece(batches, from_start, after, max_bytes);
}

Result<uint64_t> LeaseTable::Touch(uint64_t lease) {
  const Clock::time_point now = o_.now();
  MutexLock l(&mu_);
  DropIdle(now);
  auto it = leases_.find(lease);
  if (it == leases_.end()) return Missing(lease);
  it->second.touched = now;
  return it->second.step;
}

void LeaseTable::Release(uint64_t lease) {
  MutexLock l(&mu_);
  leases_.erase(lease);
}

size_t LeaseTable::size() const {
  MutexLock l(&mu_);
  return leases_.size();
}

}  // namespace sluice::pipeline
