#include "pipeline/lease_table.h"

#include <gtest/gtest.h>

#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice::pipeline {
namespace {

using namespace std::chrono_literals;

BatchPtr OneRow(const std::string& row) {
  BatchBuilder b;
  b.Push(row, 1);
  return *b.Finish();
}

TEST(LeaseTableTest, PinsBatchesUntilReleased) {
  LeaseTable t({});
  auto id = t.Add(7, {{"v", {OneRow("a"), OneRow("b")}}});
  ASSERT_TRUE(id.ok());
  auto batches = t.Batches(*id, "v");
  ASSERT_TRUE(batches.ok());
  EXPECT_EQ(batches->size(), 2u);
  EXPECT_EQ(*t.Touch(*id), 7u);
  EXPECT_EQ(t.Batches(*id, "w").status().code(), StatusCode::kNotFound);
  t.Release(*id);
  EXPECT_EQ(t.Batches(*id, "v").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(t.size(), 0u);
}

// A leased relation is read in pieces of whole keys, its batches summed:
// rows that cancel out are left out, and the pieces together are the
// relation.
TEST(LeaseTableTest, ScansInConsolidatedPieces) {
  BatchBuilder a, b;
  for (int i = 0; i < 100; ++i) a.Push("row" + std::to_string(1000 + i), 1);
  for (int i = 0; i < 100; i += 2) b.Push("row" + std::to_string(1000 + i), -1);  // deleted
  b.Push("row0999", 3);
  LeaseTable t({});
  const uint64_t id = *t.Add(1, {{"v", {*a.Finish(), *b.Finish()}}});
  std::vector<std::string> rows;
  std::string after;
  bool first = true;
  int pieces = 0;
  for (;;) {
    auto piece = t.Scan(id, "v", first, after, /*max_bytes=*/100);
    ASSERT_TRUE(piece.ok()) << piece.status().ToString();
    if ((*piece)->empty()) break;
    ++pieces;
    auto c = (*piece)->NewCursor();
    for (; c->KeyValid(); c->StepKey()) {
      rows.push_back(std::string(c->key()) + "*" + std::to_string(c->weight()));
      after = std::string(c->key());
    }
    first = false;
  }
  EXPECT_GT(pieces, 5);
  ASSERT_EQ(rows.size(), 51u);
  EXPECT_EQ(rows.front(), "row0999*3");
  EXPECT_EQ(rows[1], "row1001*1");
  EXPECT_EQ(rows.back(), "row1099*1");
}

// An untouched lease goes once it has been idle too long; a touched one
// stays however old it is.
TEST(LeaseTableTest, IdleLeasesGoTouchedOnesStay) {
  auto now = std::make_shared<LeaseTable::Clock::time_point>(LeaseTable::Clock::now());
  LeaseTable::Options o;
  o.idle_timeout = 60s;
  o.now = [now] { return *now; };
  LeaseTable t(o);
  const uint64_t idle = *t.Add(1, {{"v", {}}});
  const uint64_t busy = *t.Add(1, {{"v", {}}});
  for (int minute = 0; minute < 5; ++minute) {
    *now += 50s;
    ASSERT_TRUE(t.Touch(busy).ok()) << minute;
  }
  EXPECT_EQ(t.Touch(idle).status().code(), StatusCode::kNotFound);
  EXPECT_NE(t.Touch(idle).status().message().find("untouched for more than 60000 ms"),
            std::string::npos);
  EXPECT_TRUE(t.Touch(busy).ok());
}

TEST(LeaseTableTest, AHolderHoldsABoundedNumber) {
  LeaseTable::Options o;
  o.max_per_holder = 3;
  LeaseTable t(o);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(t.Add(1, {}, "host 2").ok());
  auto refused = t.Add(1, {}, "host 2");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("host 2 already holds 3 leases"), std::string::npos)
      << refused.status().ToString();
  EXPECT_TRUE(t.Add(1, {}, "host 1").ok());  // another holder
}

}  // namespace
}  // namespace sluice::pipeline
