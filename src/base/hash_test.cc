#include "base/hash.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(HashTest, EqualBytesHashEqually) {
  std::string a = "row bytes", b = "row bytes";
  EXPECT_EQ(Hash64(a), Hash64(b));
  EXPECT_NE(Hash64(a), Hash64(std::string_view("row bytez")));
  EXPECT_NE(Hash64(a, 1), Hash64(a, 2));
}

}  // namespace
}  // namespace sluice
