// Little-endian fixed-width reads and writes for file and wire formats.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace sluice {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "Sluice formats assume a little-endian host");

inline void PutFixed32(std::string* out, uint32_t v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof v);
}
inline void PutFixed64(std::string* out, uint64_t v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof v);
}
inline uint32_t GetFixed32(const void* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline uint64_t GetFixed64(const void* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace sluice
