#include "base/hash.h"

#include <xxhash.h>

namespace sluice {

uint64_t Hash64(const void* data, size_t len, uint64_t seed) {
  return XXH3_64bits_withSeed(data, len, seed);
}

}  // namespace sluice
