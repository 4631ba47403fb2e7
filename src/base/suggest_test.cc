#include "base/suggest.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(SuggestTest, EditDistance) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("format", "fromat"), 1u);
  EXPECT_EQ(EditDistance("mode", "mdoe"), 1u);
  EXPECT_EQ(EditDistance("Orders", "orders"), 0u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
}

TEST(SuggestTest, NearestIsALikelyTypoOrNothing) {
  const std::vector<std::string> params = {"format", "mode", "backpressure", "max_queued_records"};
  EXPECT_EQ(Nearest("fromat", params), "format");
  EXPECT_EQ(Nearest("mdoe", params), "mode");
  EXPECT_EQ(Nearest("backpresure", params), "backpressure");
  EXPECT_EQ(Nearest("zzzz", params), "");
  EXPECT_EQ(DidYouMean("ordres", {"orders", "customers"}), " (did you mean orders?)");
  EXPECT_EQ(DidYouMean("x", {"orders"}), "");
}

}  // namespace
}  // namespace sluice
