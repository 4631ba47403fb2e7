// Little-endian fixed-width reads and writes for file and wire formats.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace sluice {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "Sluice formats assume a little-endian host");

inline void PutFixed32(std::string* out, uint32_t v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof v);
}
inline void PutFixed64(std::string* out, uint64_t v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof v);
}
// Hex of at most `max` leading bytes, with "..." if cut: for error messages
// about rows whose schema is not at hand.
inline std::string BytesToHex(std::string_view bytes, size_t max = 32) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < bytes.size() && i < max; ++i) {
    out += kHex[static_cast<uint8_t>(bytes[i]) >> 4];
    out += kHex[static_cast<uint8_t>(bytes[i]) & 15];
  }
  if (bytes.size() > max) out += "...";
  return out;
}

// Reading a record field by field: each takes its bytes off the front of
// `in`, or returns false (and takes nothing) if `in` is too short.
inline bool ConsumeBytes(std::string_view* in, size_t n, std::string_view* out) {
  if (in->size() < n) return false;
  *out = in->substr(0, n);
  in->remove_prefix(n);
  return true;
}
inline bool ConsumeFixed32(std::string_view* in, uint32_t* v) {
  if (in->size() < sizeof *v) return false;
  std::memcpy(v, in->data(), sizeof *v);
  in->remove_prefix(sizeof *v);
  return true;
}
inline bool ConsumeFixed64(std::string_view* in, uint64_t* v) {
  if (in->size() < sizeof *v) return false;
  std::memcpy(v, in->data(), sizeof *v);
  in->remove_prefix(sizeof *v);
  return true;
}

// `v` as 16 lower-case hex digits (checksums and fingerprints in manifests).
inline std::string Hex64(uint64_t v) {
  static const char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) out[static_cast<size_t>(i)] = kHex[v & 15];
  return out;
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
