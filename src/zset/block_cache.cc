#include "zset/block_cache.h"

namespace sluice {

BlockCache::BlockCache(uint64_t capacity_bytes)
    : capacity_(capacity_bytes), shard_capacity_(capacity_bytes / kShards) {}

uint64_t BlockCache::NewFileId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

size_t BlockCache::NameHash::operator()(const Name& n) const {
  // A file's consecutive blocks land on different shards.
  uint64_t h = n.file * 0x9e3779b97f4a7c15ULL ^ (n.block + 0x632be59bd9b4e019ULL);
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ULL;
  return static_cast<size_t>(h ^ (h >> 29));
}

MemBatchPtr BlockCache::Lookup(uint64_t file, uint64_t block) {
  const Name name{file, block};
  Shard& s = ShardOf(name);
  MutexLock l(&s.mu);
  auto it = s.map.find(name);
  if (it == s.map.end()) {
    misses_.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  hits_.fetch_add(1, std::memory_order_relaxed);
  s.lru.splice(s.lru.begin(), s.lru, it->second);
  return it->second->data;
}

void BlockCache::EraseLocked(Shard& s, std::list<Entry>::iterator it) {
  s.bytes -= it->charge;
  s.map.erase(it->name);
  s.lru.erase(it);
}

void BlockCache::Insert(uint64_t file, uint64_t block, MemBatchPtr data) {
  const Name name{file, block};
  const uint64_t charge = data->byte_size();
  Shard& s = ShardOf(name);
  MutexLock l(&s.mu);
  if (auto it = s.map.find(name); it != s.map.end()) EraseLocked(s, it->second);
  if (charge > shard_capacity_) return;
  while (s.bytes + charge > shard_capacity_) {
    EraseLocked(s, std::prev(s.lru.end()));
    evictions_.fetch_add(1, std::memory_order_relaxed);
  }
  // Bimodal insertion (see the header).
  const bool mru = s.inserts++ % kMruInsertEvery == 0;
  auto at = s.lru.insert(mru ? s.lru.begin() : s.lru.end(), Entry{name, std::move(data), charge});
  s.map.emplace(name, at);
  s.bytes += charge;
}

void BlockCache::EraseFile(uint64_t file, uint64_t count) {
  for (uint64_t b = 0; b < count; ++b) {
    const Name name{file, b};
    Shard& s = ShardOf(name);
    MutexLock l(&s.mu);
    if (auto it = s.map.find(name); it != s.map.end()) EraseLocked(s, it->second);
  }
}

BlockCache::Stats BlockCache::GetStats() const {
  Stats st;
  st.capacity_bytes = capacity_;
  for (const Shard& s : shards_) {
    MutexLock l(&s.mu);
    st.bytes += s.bytes;
    st.blocks += s.map.size();
  }
  st.hits = hits_.load(std::memory_order_relaxed);
  st.misses = misses_.load(std::memory_order_relaxed);
  st.evictions = evictions_.load(std::memory_order_relaxed);
  const uint64_t lookups = st.hits + st.misses;
  st.hit_rate = lookups == 0 ? 0 : static_cast<double>(st.hits) / static_cast<double>(lookups);
  return st;
}

}  // namespace sluice
