#include "zset/merge.h"

#include <unistd.h>

#include "zset/batch_builder.h"
#include "zset/cursor.h"
#include "zset/file_batch.h"

namespace sluice {
namespace {

template <typename Sink>
Status Drain(Cursor& c, Sink& sink) {
  for (; c.KeyValid(); c.StepKey()) {
    for (; c.ValValid(); c.StepVal()) {
      SLUICE_RETURN_IF_ERROR(sink.Push(c.key(), c.val(), c.weight()));
    }
  }
  return c.status();
}

// Two in-memory batches: a direct merge over their arrays, the hot path of
// spine maintenance.
Result<BatchPtr> MergeTwo(const MemBatch& a, const MemBatch& b) {
  OrderedBuilder out;
  out.Reserve(a.key_count() + b.key_count(), a.len() + b.len(), 0, 0);
  size_t i = 0, j = 0, na = a.key_count(), nb = b.key_count();
  auto push_key = [&out](const MemBatch& x, size_t k) -> Status {
    std::string_view key = x.key(k);
    for (size_t v = x.vals_begin(k); v < x.vals_end(k); ++v) {
      SLUICE_RETURN_IF_ERROR(out.Push(key, x.val(v), x.weight(v)));
    }
    return Status::OK();
  };
  while (i < na && j < nb) {
    std::string_view ka = a.key(i), kb = b.key(j);
    int c = ka.compare(kb);
    if (c < 0) {
      SLUICE_RETURN_IF_ERROR(push_key(a, i++));
    } else if (c > 0) {
      SLUICE_RETURN_IF_ERROR(push_key(b, j++));
    } else {
      size_t va = a.vals_begin(i), ea = a.vals_end(i), vb = b.vals_begin(j), eb = b.vals_end(j);
      while (va < ea || vb < eb) {
        if (vb == eb || (va < ea && a.val(va) <= b.val(vb))) {
          SLUICE_RETURN_IF_ERROR(out.Push(ka, a.val(va), a.weight(va)));
          ++va;
        } else {
          SLUICE_RETURN_IF_ERROR(out.Push(ka, b.val(vb), b.weight(vb)));
          ++vb;
        }
      }
      ++i;
      ++j;
    }
  }
  for (; i < na; ++i) SLUICE_RETURN_IF_ERROR(push_key(a, i));
  for (; j < nb; ++j) SLUICE_RETURN_IF_ERROR(push_key(b, j));
  return BatchPtr(out.Finish());
}

}  // namespace

std::string NewSpillPath(const std::string& dir) {
  static std::atomic<uint64_t> counter{0};
  return dir + "/spill-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".bf";
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
  bool to_file = !options.storage_dir.empty() && bytes >= options.spill_threshold_bytes;
  if (!to_file && live.size() == 2) {
    auto* a = dynamic_cast<const MemBatch*>(live[0].get());
    auto* b = dynamic_cast<const MemBatch*>(live[1].get());
    if (a && b) return MergeTwo(*a, *b);
  }
  if (live.size() == 1 && to_file == live[0]->on_storage()) return live[0];
  auto cursor = NewCursorOver(live);
  if (to_file) {
    SLUICE_ASSIGN_OR_RETURN(auto writer, FileBatchWriter::Create(NewSpillPath(options.storage_dir)));
    SLUICE_RETURN_IF_ERROR(Drain(*cursor, *writer));
    SLUICE_ASSIGN_OR_RETURN(auto file, writer->Finish(/*remove_on_drop=*/true));
    return BatchPtr(std::move(file));
  }
  OrderedBuilder out;
  SLUICE_RETURN_IF_ERROR(Drain(*cursor, out));
  return BatchPtr(out.Finish());
}

}  // namespace sluice
