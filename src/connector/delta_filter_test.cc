// The Delta input's filter: rows it passes, and the statistics that let it
// skip a file without reading it (and those that must not).
#include "connector/delta_filter.h"

#include <gtest/gtest.h>

namespace sluice::connector {
namespace {

format::Relation Rel() {
  format::Relation rel;
  rel.name = "t";
  rel.columns = {"id", "region", "amount", "day"};
  rel.schema = {SqlType::Integer(), SqlType::Varchar(), SqlType::Decimal(10, 2), SqlType::Date()};
  return rel;
}

// Bounds of `id` in [lo, hi] (others unknown), `nulls` of `rows` NULL.
std::vector<ColumnBounds> Ids(int64_t lo, int64_t hi, int64_t nulls = 0) {
  std::vector<ColumnBounds> b(4);
  b[0].has_min_max = true;
  b[0].min = Value::Int(lo);
  b[0].max = Value::Int(hi);
  b[0].null_count = nulls;
  return b;
}

bool May(const std::string& condition, const std::vector<ColumnBounds>& b, int64_t rows = 100) {
  auto f = DeltaFilter::Parse(condition, Rel());
  EXPECT_TRUE(f.ok()) << f.status().ToString();
  return f.ok() && (*f)->MayMatch(b, rows);
}

TEST(DeltaFilterTest, ComparisonsSkipByMinAndMax) {
  EXPECT_FALSE(May("id = 5", Ids(10, 20)));
  EXPECT_TRUE(May("id = 10", Ids(10, 20)));
  EXPECT_FALSE(May("id < 10", Ids(10, 20)));
  EXPECT_TRUE(May("id <= 10", Ids(10, 20)));
  EXPECT_FALSE(May("id > 20", Ids(10, 20)));
  EXPECT_TRUE(May("id >= 20", Ids(10, 20)));
  EXPECT_FALSE(May("30 < id", Ids(10, 20)));  // the constant on the left
  EXPECT_TRUE(May("15 < id", Ids(10, 20)));
  EXPECT_FALSE(May("id BETWEEN 21 AND 30", Ids(10, 20)));
  EXPECT_TRUE(May("id BETWEEN 0 AND 10", Ids(10, 20)));
  EXPECT_FALSE(May("id IN (1, 2, 30)", Ids(10, 20)));
  EXPECT_TRUE(May("id IN (1, 15)", Ids(10, 20)));
  // A wider constant: the column is cast to BIGINT or NUMERIC.
  EXPECT_FALSE(May("id > 5000000000", Ids(10, 20)));
  EXPECT_FALSE(May("id < 9.5", Ids(10, 20)));
  // AND skips if either side does; OR only if both do.
  EXPECT_FALSE(May("id > 0 AND id > 25", Ids(10, 20)));
  EXPECT_TRUE(May("id > 25 OR region = 'eu'", Ids(10, 20)));
  EXPECT_FALSE(May("id > 25 OR id < 5", Ids(10, 20)));
  // What it cannot judge never skips.
  EXPECT_TRUE(May("id + 1 = 5", Ids(10, 20)));
  EXPECT_TRUE(May("NOT (id = 15)", Ids(10, 20)));
  EXPECT_TRUE(May("id = 5", std::vector<ColumnBounds>(4)));
  EXPECT_TRUE(May("id <> 15", Ids(15, 15)));
}

TEST(DeltaFilterTest, NullCountsSkip) {
  EXPECT_FALSE(May("id IS NULL", Ids(10, 20, 0)));
  EXPECT_TRUE(May("id IS NULL", Ids(10, 20, 3)));
  std::vector<ColumnBounds> all_null(4);
  all_null[0].null_count = 100;
  EXPECT_FALSE(May("id IS NOT NULL", all_null));
  EXPECT_FALSE(May("id = 5", all_null));  // NULL = 5 is never TRUE
  EXPECT_TRUE(May("id IS NULL", all_null));
  EXPECT_TRUE(May("id IS NOT NULL", all_null, -1));  // rows unknown
}

TEST(DeltaFilterTest, OtherTypesAndRows) {
  std::vector<ColumnBounds> b(4);
  b[1].has_min_max = true;
  b[1].min = Value::String("de");
  b[1].max = Value::String("fr");
  b[3].has_min_max = true;
  b[3].min = Value::Int(19723);  // 2024-01-01
  b[3].max = Value::Int(19753);  // 2024-01-31
  EXPECT_FALSE(May("region = 'us'", b));
  EXPECT_TRUE(May("region = 'eu'", b));
  EXPECT_FALSE(May("day > DATE '2024-02-01'", b));
  EXPECT_TRUE(May("day = '2024-01-15'", b));
  auto f = DeltaFilter::Parse("region = 'eu' AND amount >= 10", Rel());
  ASSERT_TRUE(f.ok());
  bool pass = false;
  ASSERT_TRUE(
      (*f)->Matches({Value::Int(1), Value::String("eu"), Value::Decimal(1050, 2), Value::Null()},
                    &pass)
          .ok());
  EXPECT_TRUE(pass);
  ASSERT_TRUE(
      (*f)->Matches({Value::Int(1), Value::Null(), Value::Decimal(1050, 2), Value::Null()}, &pass)
          .ok());
  EXPECT_FALSE(pass);  // NULL is not TRUE
}

TEST(DeltaFilterTest, BadConditionsSayWhy) {
  auto f = DeltaFilter::Parse("nope > 1", Rel());
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("nope"), std::string::npos) << f.status().ToString();
  EXPECT_FALSE(DeltaFilter::Parse("id", Rel()).ok());            // not a condition
  EXPECT_FALSE(DeltaFilter::Parse("id = 1; DROP", Rel()).ok());  // not one
  EXPECT_FALSE(DeltaFilter::Parse("id = 1 ORDER BY id", Rel()).ok());
  EXPECT_FALSE(DeltaFilter::Parse("", Rel()).ok());
}

}  // namespace
}  // namespace sluice::connector
