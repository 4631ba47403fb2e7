#include "pipeline/api_keys.h"

#include <gtest/gtest.h>

namespace sluice::pipeline {
namespace {

TEST(ApiKeysTest, ReadsKeysAndScopes) {
  auto keys = ApiKeys::Parse(
      "# who may do what\n\nreader-0123456789ab read\r\n  writer-0123456789ab   write\nadmin-0123456789abc admin\n",
      "keys.txt");
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  EXPECT_EQ(keys->size(), 3u);
  EXPECT_EQ(keys->Find("reader-0123456789ab"), ApiScope::kRead);
  EXPECT_EQ(keys->Find("writer-0123456789ab"), ApiScope::kWrite);
  EXPECT_EQ(keys->Find("admin-0123456789abc"), ApiScope::kAdmin);
  EXPECT_FALSE(keys->Find("reader-0123456789a").has_value());
  EXPECT_FALSE(keys->Find("").has_value());
}

TEST(ApiKeysTest, BadFilesSayWhereAndWhat) {
  auto e = ApiKeys::Parse("good-0123456789abcd read\nbad-0123456789abcde reed\n", "k");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(), "k:2: unknown scope \"reed\" (it is read, write or admin)");
  EXPECT_NE(ApiKeys::Parse("short read\n", "k").status().message().find("k:1: a key is at least 16"),
            std::string::npos);
  EXPECT_NE(ApiKeys::Parse("lonely-0123456789ab\n", "k").status().message().find("KEY SCOPE"),
            std::string::npos);
  EXPECT_NE(ApiKeys::Parse("same-0123456789abcd read\nsame-0123456789abcd write\n", "k")
                .status()
                .message()
                .find("k:2: this key is given twice"),
            std::string::npos);
  EXPECT_FALSE(ApiKeys::Load("/nonexistent/keys").ok());
}

}  // namespace
}  // namespace sluice::pipeline
