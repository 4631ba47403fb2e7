// MD5 (RFC 1321), for the digests that sqllogictest files compare results
// by. Not for security.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sluice {

class Md5 {
 public:
  Md5();
  void Update(std::string_view data);
  // Lower-case hex digest; the object is then spent.
  std::string HexDigest();

 private:
  void Block(const uint8_t* p);
  uint32_t h_[4];
  uint8_t buf_[64];
  size_t used_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace sluice
