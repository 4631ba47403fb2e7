// A batch's point lookups on their own: the search for a key and the Bloom
// filter's answer, each against the design it replaced, alternated in one
// process (docs/benchmarks.md, "Per-change cost of the engine"):
//
//   search_bench [--changes K] [--rounds R]
//
// Two shapes of keys, as one worker of `ivm_bench`'s tpch workload at 10^6
// rows holds them: the join's key (a nullable BIGINT, 9 bytes) over
// ~125,000 orders, and lineitem's key (BIGINT, INTEGER: 12 bytes) over
// ~500,000 lines. Each change is 500 sorted probes, 30% of them keys of
// the batch, searched from where the previous probe ended (as the upsert
// and the join seek). Reported: microseconds per change, median of R
// rounds, for
//   search  MemBatch::LowerBoundKey (prefixes after the bytes all keys
//           share) against a galloping search over whole-key prefixes
//           (what it was before);
//   filter  BloomFilter (one 512-bit block a key) against the classic
//           filter it replaced (3 probes over the whole array, placed by
//           remainders).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "base/allocator.h"
#include "base/hash.h"
#include "zset/batch_builder.h"
#include "zset/bloom_filter.h"

namespace {

using sluice::BytePrefix;
using Clock = std::chrono::steady_clock;

// The classic filter, as batches had it before the blocked one: 10 bits a
// key, probe p of hash h at bit (h + p * ((h >> 32) | 1)) mod the bits.
class ClassicBloomFilter {
 public:
  explicit ClassicBloomFilter(uint64_t keys)
      : words_(std::max<uint64_t>(1, (keys * 10 + 63) / 64)) {}
  void Add(uint64_t hash) {
    const uint64_t bits = words_.size() * 64, step = (hash >> 32) | 1;
    for (uint64_t p = 0, at = hash; p < 3; ++p, at += step) {
      words_[(at % bits) / 64] |= uint64_t{1} << (at % 64);
    }
  }
  bool MayContain(uint64_t hash) const {
    const uint64_t bits = words_.size() * 64, step = (hash >> 32) | 1;
    for (uint64_t p = 0, at = hash; p < 3; ++p, at += step) {
      if ((words_[(at % bits) / 64] & (uint64_t{1} << (at % 64))) == 0) return false;
    }
    return true;
  }

 private:
  std::vector<uint64_t> words_;
};

template <typename Less>
size_t GallopLowerBound(size_t from, size_t n, Less less) {
  if (from >= n || !less(from)) return from;
  size_t lo = from, step = 1;
  while (lo + step < n && less(lo + step)) {
    lo += step;
    step *= 2;
  }
  size_t hi = std::min(lo + step, n);
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    if (less(mid)) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return hi;
}

// An integer as the row encoding writes it: big-endian, sign bit flipped.
std::string Encoded(uint64_t v, int bytes) {
  std::string s(static_cast<size_t>(bytes), '\0');
  for (int i = bytes - 1; i >= 0; --i, v >>= 8) s[static_cast<size_t>(i)] = static_cast<char>(v);
  s[0] = static_cast<char>(s[0] ^ 0x80);
  return s;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  sluice::TuneAllocatorAtStart(argv);  // as `sluice run` does
  int changes = 400, rounds = 5;
  for (int i = 1; i < argc; i += 2) {
    const std::string a = argv[i];
    if ((a != "--changes" && a != "--rounds") || i + 1 == argc) {
      std::fprintf(stderr, "usage: search_bench [--changes K] [--rounds R]\n");
      return a == "--help" || a == "-h" ? 0 : 2;
    }
    (a == "--changes" ? changes : rounds) = std::atoi(argv[i + 1]);
  }
  std::mt19937_64 rng(7);
  for (const bool join : {true, false}) {
    std::vector<std::string> keys;
    for (uint64_t o = 1; o <= 250000; ++o) {
      if (rng() % 2 == 0) continue;  // the other worker's
      if (join) {
        keys.push_back("\x01" + Encoded(o, 8));
      } else {
        for (uint64_t l = 1, n = 1 + rng() % 7; l <= n; ++l)
          keys.push_back(Encoded(o, 8) + Encoded(l, 4));
      }
    }
    sluice::BatchBuilder builder;
    for (const std::string& k : keys) builder.Push(k, "v", 1);
    const sluice::MemBatchPtr batch = *builder.Finish();
    const size_t n = batch->key_count();
    std::vector<uint64_t> whole_prefix(n);
    ClassicBloomFilter classic(n);
    sluice::BloomFilter blocked(n);
    for (size_t i = 0; i < n; ++i) {
      whole_prefix[i] = BytePrefix(batch->key(i));
      const uint64_t h = sluice::Hash64(batch->key(i));
      classic.Add(h);
      blocked.Add(h);
    }
    std::vector<std::vector<std::string>> probes(static_cast<size_t>(changes));
    for (auto& change : probes) {
      for (int i = 0; i < 500; ++i) {
        const uint64_t o = 1 + rng() % 250000;
        if (rng() % 10 < 3) {
          change.push_back(keys[rng() % keys.size()]);
        } else {
          change.push_back(join ? "\x01" + Encoded(o, 8)
                                : Encoded(o, 8) + Encoded(8 + rng() % 4, 4));
        }
      }
      std::sort(change.begin(), change.end());
    }
    std::vector<double> old_search, new_search, old_filter, new_filter;
    auto per_change_us = [&](Clock::time_point a, Clock::time_point b) {
      return std::chrono::duration<double, std::micro>(b - a).count() / changes;
    };
    for (int round = 0; round < rounds; ++round) {
      size_t old_sum = 0, new_sum = 0, old_yes = 0, new_yes = 0;
      const auto t0 = Clock::now();
      for (const auto& change : probes) {
        size_t at = 0;
        for (const std::string& k : change) {
          const uint64_t p = BytePrefix(k);
          at = GallopLowerBound(at, n, [&](size_t i) {
            return whole_prefix[i] != p ? whole_prefix[i] < p : batch->key(i) < k;
          });
          old_sum += at;
        }
      }
      const auto t1 = Clock::now();
      for (const auto& change : probes) {
        size_t at = 0;
        for (const std::string& k : change) {
          at = batch->LowerBoundKey(k, at);
          new_sum += at;
        }
      }
      const auto t2 = Clock::now();
      for (const auto& change : probes) {
        for (const std::string& k : change) old_yes += classic.MayContain(sluice::Hash64(k));
      }
      const auto t3 = Clock::now();
      for (const auto& change : probes) {
        for (const std::string& k : change) new_yes += blocked.MayContain(sluice::Hash64(k));
      }
      const auto t4 = Clock::now();
      if (old_sum != new_sum) {
        std::fprintf(stderr, "the two searches disagree\n");
        return 1;
      }
      old_search.push_back(per_change_us(t0, t1));
      new_search.push_back(per_change_us(t1, t2));
      old_filter.push_back(per_change_us(t2, t3));
      new_filter.push_back(per_change_us(t3, t4));
      if (round == 0) {
        std::printf(
            "%s keys: %zu in the batch, %zu bytes shared; filter says yes to %zu (classic) "
            "and %zu (blocked) of %d probes\n",
            join ? "join" : "lineitem", n, batch->key_skip(), old_yes, new_yes, 500 * changes);
      }
    }
    std::printf(
        "  us per 500-probe change: search %.1f -> %.1f (%.2f), filter %.1f -> %.1f (%.2f)\n",
        Median(old_search), Median(new_search), Median(new_search) / Median(old_search),
        Median(old_filter), Median(new_filter), Median(new_filter) / Median(old_filter));
  }
  return 0;
}
