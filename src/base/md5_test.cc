#include "base/md5.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

std::string Hex(std::string_view s) {
  Md5 m;
  m.Update(s);
  return m.HexDigest();
}

// RFC 1321, appendix A.5.
TEST(Md5Test, RfcVectors) {
  EXPECT_EQ(Hex(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(Hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(Hex("message digest"), "f96b697d7cb7938d525a2f31aaf161d0");
  EXPECT_EQ(Hex("12345678901234567890123456789012345678901234567890123456789012345678901234567890"),
            "57edf4a22be3c955ac49da2e2107b67a");
  Md5 pieces;
  pieces.Update("message ");
  pieces.Update("digest");
  EXPECT_EQ(pieces.HexDigest(), "f96b697d7cb7938d525a2f31aaf161d0");
}

}  // namespace
}  // namespace sluice
