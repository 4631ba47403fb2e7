// Hashing of byte strings (XXH3). Rows are hashed on their canonical bytes,
// so equal rows hash equally on every host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sluice {

uint64_t Hash64(const void* data, size_t len, uint64_t seed = 0);
inline uint64_t Hash64(std::string_view s, uint64_t seed = 0) {
  return Hash64(s.data(), s.size(), seed);
}

// Checksum of stored and transmitted blocks.
inline uint64_t Checksum64(const void* data, size_t len) { return Hash64(data, len, 0x5c1ce); }

}  // namespace sluice
