// The batch chunk format: a MemBatch as bytes, for spill files, checkpoints
// and the exchange between hosts. Rows are copied as they are (they already
// are canonical bytes), never decoded and encoded again.
//
// Layout, little-endian:
//   offset  size  field
//   0       4     magic "SZB1"
//   4       4     flags (0)
//   8       8     checksum: XXH3 of every byte from offset 24 to the end
//   16      8     payload length (bytes after offset 24)
//   24      8     key count K
//   32      8     value count V
//   40      8     key bytes
//   48      8     value bytes
//   56      8*(K+1)  key offsets (first 0, last = key bytes)
//           8*(K+1)  per key, index of its first value (last = V)
//           8*(V+1)  value offsets (first 0, last = value bytes)
//           8*V      weights (int64)
//           key bytes, then value bytes
//
// Decoding checks the checksum and every invariant of batch.h, so a torn or
// corrupted chunk is a Corruption error, never a wrong batch.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "zset/batch.h"

namespace sluice {

void EncodeBatch(const MemBatch& batch, std::string* out);
// Any batch (one in a file is read through a cursor first).
Status EncodeAnyBatch(const Batch& batch, std::string* out);
Result<MemBatchPtr> DecodeBatch(std::string_view chunk);

}  // namespace sluice
