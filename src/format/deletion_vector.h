// Delta Lake deletion vectors: the set of deleted row positions of one data
// file, in the encodings the Delta protocol defines.
//
//   bitmap      Delta's "RoaringBitmapArray": a little-endian magic number
//               (1681511377), then a 64-bit Roaring bitmap in the portable
//               format (a count of 32-bit bitmaps, then for each its high 32
//               bits and a 32-bit Roaring bitmap: array, bitset and run
//               containers; we write array and bitset containers).
//               Reading also takes Delta's native form (magic 1681511376,
//               big-endian: a count, then each 32-bit bitmap's length and
//               bitmap, its index being its high bits).
//   file        one version byte (1), then per vector: its size (4 bytes,
//               big-endian), the bitmap, and the bitmap's CRC-32 (4 bytes,
//               big-endian). A descriptor's offset points at the size.
//   inline      the bitmap in Z85 text, padded to a multiple of 4 bytes
//               (the descriptor's sizeInBytes says how many are real).
//
// Positions are row numbers within the data file, from 0, ascending.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace sluice::format {

// The bitmap of `positions` (ascending, no repeats), magic number first.
std::string EncodeDeletionBitmap(const std::vector<uint64_t>& positions);

// The positions of a bitmap (magic number first), ascending. Damage, or a
// count other than `cardinality` (the descriptor's), is a Corruption error
// that says what is wrong; `what` names the vector in it.
Result<std::vector<uint64_t>> DecodeDeletionBitmap(std::string_view bytes, uint64_t cardinality,
                                                   const std::string& what);

// A deletion-vector file's bytes holding `bitmaps` (each from
// EncodeDeletionBitmap); offsets[i] is where the i-th vector starts.
std::string EncodeDeletionVectorFile(const std::vector<std::string>& bitmaps,
                                     std::vector<uint64_t>* offsets);

// The bitmap at `offset` of a deletion-vector file, its size and checksum
// checked (`size` from the descriptor).
Result<std::string_view> DeletionBitmapAt(std::string_view file, uint64_t offset,
                                          uint64_t size, const std::string& what);

// Z85 (ZeroMQ's base-85): 4 bytes to 5 characters. Encode pads `bytes` with
// zeros to a multiple of 4; Decode takes a multiple of 5 characters.
std::string Z85Encode(std::string_view bytes);
Result<std::string> Z85Decode(std::string_view text);

}  // namespace sluice::format
