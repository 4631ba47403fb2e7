#include "zset/merge.h"

#include <unistd.h>

#include <algorithm>

#include "base/mutex.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"
#include "zset/file_batch.h"

namespace sluice {
namespace {

template <typename Sink>
Status Drain(Cursor& c, Sink& sink, const MergeOptions& options) {
  const auto& retain = options.retain;
  const auto& retain_value = options.retain_value;
  for (; c.KeyValid(); c.StepKey()) {
    if (retain && !retain(c.key())) continue;
    for (; c.ValValid(); c.StepVal()) {
      if (retain_value && !retain_value(c.key(), c.val())) continue;
      SLUICE_RETURN_IF_ERROR(sink.Push(c.key(), c.val(), c.weight()));
    }
  }
  return c.status();
}

// Two in-memory batches: a direct merge over their arrays, the hot path of
// spine maintenance.
Result<BatchPtr> MergeTwo(const MemBatch& a, const MemBatch& b, const MergeOptions& options) {
  const auto& retain = options.retain;
  const auto& retain_value = options.retain_value;
  // Key k of `src` with the values retain_value keeps (all of them, in bulk,
  // without one).
  auto append_key = [&](OrderedBuilder& out, const MemBatch& src, size_t k) -> Status {
    if (!retain_value) {
      out.AppendKey(src, k);
      return Status::OK();
    }
    for (size_t v = src.vals_begin(k); v < src.vals_end(k); ++v) {
      if (!retain_value(src.key(k), src.val(v))) continue;
      SLUICE_RETURN_IF_ERROR(out.Push(src.key(k), src.val(v), src.weight(v)));
    }
    return Status::OK();
  };
  // Room for every pair of both inputs at once: growing the arenas as they
  // fill would copy them again at each doubling, into fresh pages each time
  // (most of a large merge's time went there).
  OrderedBuilder out;
  out.Reserve(a.key_count() + b.key_count(), a.len() + b.len(), a.key_bytes() + b.key_bytes(),
              a.val_bytes() + b.val_bytes());
  size_t i = 0, j = 0, na = a.key_count(), nb = b.key_count();
  // Every output key lies between the smaller first key and the larger last
  // one, so it begins with the bytes those share (skip); where an input's
  // keys share more bytes, its prefixes are taken again after `skip` bytes
  // to compare with the other's.
  size_t skip = 0;
  if (na > 0 && nb > 0) {
    const std::string_view lo = std::min(a.key(0), b.key(0));
    const std::string_view hi = std::max(a.key(na - 1), b.key(nb - 1));
    skip = SharedPrefixLength(lo, hi);
    out.ExpectKeysWithin(lo, hi);
  }
  const bool a_at_skip = a.key_skip() == skip, b_at_skip = b.key_skip() == skip;
  while (i < na && j < nb) {
    std::string_view ka = a.key(i), kb = b.key(j);
    const uint64_t pa = a_at_skip ? a.key_prefix(i) : BytePrefixAfter(ka, skip);
    const uint64_t pb = b_at_skip ? b.key_prefix(j) : BytePrefixAfter(kb, skip);
    const int c = pa != pb ? (pa < pb ? -1 : 1) : ka.compare(kb);
    if (retain && !retain(c <= 0 ? ka : kb)) {
      if (c <= 0) ++i;
      if (c >= 0) ++j;
      continue;
    }
    if (c < 0) {
      SLUICE_RETURN_IF_ERROR(append_key(out, a, i++));
    } else if (c > 0) {
      SLUICE_RETURN_IF_ERROR(append_key(out, b, j++));
    } else {
      size_t va = a.vals_begin(i), ea = a.vals_end(i), vb = b.vals_begin(j), eb = b.vals_end(j);
      while (va < ea || vb < eb) {
        if (vb == eb || (va < ea && a.val(va) <= b.val(vb))) {
          if (!retain_value || retain_value(ka, a.val(va))) {
            SLUICE_RETURN_IF_ERROR(out.Push(ka, a.val(va), a.weight(va)));
          }
          ++va;
        } else {
          if (!retain_value || retain_value(ka, b.val(vb))) {
            SLUICE_RETURN_IF_ERROR(out.Push(ka, b.val(vb), b.weight(vb)));
          }
          ++vb;
        }
      }
      ++i;
      ++j;
    }
  }
  for (; i < na; ++i) {
    if (!retain || retain(a.key(i))) SLUICE_RETURN_IF_ERROR(append_key(out, a, i));
  }
  for (; j < nb; ++j) {
    if (!retain || retain(b.key(j))) SLUICE_RETURN_IF_ERROR(append_key(out, b, j));
  }
  return BatchPtr(out.Finish());
}

}  // namespace

std::string NewSpillPath(const std::string& dir) {
  static std::atomic<uint64_t> counter{0};
  return dir + "/spill-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".bf";
}

namespace {
Mutex spill_mu;
SpillFailures spill_failures GUARDED_BY(spill_mu);
}  // namespace

void RecordSpillFailure(const Status& s) {
  MutexLock l(&spill_mu);
  ++spill_failures.count;
  spill_failures.last = s.ToString();
}

SpillFailures GetSpillFailures() {
  MutexLock l(&spill_mu);
  return spill_failures;
}

Result<BatchPtr> MergeBatches(const std::vector<BatchPtr>& inputs, const MergeOptions& options) {
  std::vector<BatchPtr> live;
  uint64_t bytes = 0;
  for (const BatchPtr& b : inputs) {
    if (b->empty()) continue;
    live.push_back(b);
    bytes += b->byte_size();
  }
  if (live.empty()) return BatchPtr(MemBatch::Empty());
  bool to_file =
      !options.storage_dir.empty() && (bytes >= options.spill_threshold_bytes ||
                                       (options.budget != nullptr && options.budget->Over(bytes)));
  if (!to_file && live.size() >= 2 && std::all_of(live.begin(), live.end(), [](const BatchPtr& b) {
        return dynamic_cast<const MemBatch*>(b.get());
      })) {
    // In memory: merge the two smallest until one is left, so every pair is
    // copied O(log k) times by the tight two-way loop.
    while (live.size() > 1) {
      std::sort(live.begin(), live.end(),
                [](const BatchPtr& x, const BatchPtr& y) { return x->len() > y->len(); });
      BatchPtr b = std::move(live.back());
      live.pop_back();
      BatchPtr a = std::move(live.back());
      live.pop_back();
      SLUICE_ASSIGN_OR_RETURN(BatchPtr m, MergeTwo(static_cast<const MemBatch&>(*a),
                                                   static_cast<const MemBatch&>(*b), options));
      live.push_back(std::move(m));
    }
    return live[0];
  }
  if (live.size() == 1 && to_file == live[0]->on_storage() && !options.forgets()) return live[0];
  if (to_file) {
    auto file = [&]() -> Result<BatchPtr> {
      auto cursor = NewCursorOver(live);
      uint64_t keys = 0;  // at most, for the file's Bloom filter
      for (const BatchPtr& b : live) keys += b->key_count();
      SLUICE_ASSIGN_OR_RETURN(auto writer,
                              FileBatchWriter::Create(NewSpillPath(options.storage_dir),
                                                      FileBatchWriter::kDefaultBlockBytes, keys));
      SLUICE_RETURN_IF_ERROR(Drain(*cursor, *writer, options));
      SLUICE_ASSIGN_OR_RETURN(auto f, writer->Finish(/*remove_on_drop=*/true, options.block_cache));
      return BatchPtr(std::move(f));
    }();
    if (file.ok() || file.status().code() != StatusCode::kIOError) return file;
    // Storage failed (full, say): the result stays in memory, and the
    // failure is counted; spilling resumes when storage works again.
    RecordSpillFailure(file.status());
    if (live.size() == 1 && !live[0]->on_storage()) return live[0];
  }
  auto cursor = NewCursorOver(live);
  OrderedBuilder out;
  SLUICE_RETURN_IF_ERROR(Drain(*cursor, out, options));
  return BatchPtr(out.Finish());
}

Result<MemBatchPtr> ConsolidatedPiece(const std::vector<BatchPtr>& inputs, bool from_start,
                                      std::string_view after, uint64_t max_bytes) {
  auto c = NewCursorOver(inputs);
  if (!from_start) {
    c->SeekKey(after);
    if (c->KeyValid() && c->key() == after) c->StepKey();
  }
  BatchBuilder b;
  uint64_t bytes = 0;
  for (; c->KeyValid() && bytes < max_bytes; c->StepKey()) {
    for (; c->ValValid(); c->StepVal()) {
      const Weight w = c->weight();
      if (w == 0) continue;
      b.Push(c->key(), c->val(), w);
      bytes += c->key().size() + c->val().size() + 8;
    }
  }
  SLUICE_RETURN_IF_ERROR(c->status());
  return b.Finish();
}

}  // namespace sluice
