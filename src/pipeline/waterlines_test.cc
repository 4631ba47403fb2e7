#include "pipeline/waterlines.h"

#include <gtest/gtest.h>

#include "types/row_codec.h"

namespace sluice::pipeline {
namespace {

std::string Row(const Schema& schema, std::vector<Value> values) {
  std::string out;
  EXPECT_TRUE(EncodeRow(schema, values, &out).ok());
  return out;
}

// A row is late when its column is behind the waterline of the last step's
// end; the waterline follows the largest value admitted, never goes down,
// and comes back from its JSON.
TEST(WaterlinesTest, AdmitsAdvancesAndRestores) {
  auto program = sql::CompileProgram(
      "CREATE TABLE t (x VARCHAR, n BIGINT LATENESS 10);\nCREATE TABLE u (a INT);");
  ASSERT_TRUE(program.ok()) << program.status().message();
  const Schema schema = {SqlType::Varchar(), SqlType::BigInt()};
  Waterlines w(*program);
  ASSERT_FALSE(w.empty());
  ASSERT_EQ(w.published().count("t"), 1u);
  const WaterlinePtr line = w.published().at("t").second;
  EXPECT_EQ(line->value(), Waterline::kNone);
  // Before any step, nothing is late.
  EXPECT_TRUE(w.Admit("t", Row(schema, {Value::String("a"), Value::Int(100)})));
  EXPECT_TRUE(w.Admit("t", Row(schema, {Value::String("b"), Value::Int(-5)})));
  EXPECT_TRUE(w.Admit("u", "anything"));  // no LATENESS: all admitted
  w.EndStep();
  EXPECT_EQ(line->value(), 90);
  EXPECT_FALSE(w.Admit("t", Row(schema, {Value::String("c"), Value::Int(89)})));
  EXPECT_TRUE(w.Admit("t", Row(schema, {Value::String("d"), Value::Int(90)})));
  EXPECT_TRUE(w.Admit("t", Row(schema, {Value::String("e"), Value::Null()})));
  w.EndStep();
  EXPECT_EQ(line->value(), 90);  // the largest value is still 100
  EXPECT_EQ(w.late_rows(), (std::map<std::string, uint64_t>{{"t", 1}}));
  EXPECT_EQ(w.waterlines(), (std::map<std::string, std::string>{{"t", "90"}}));
  const nlohmann::json saved = w.ToJson();
  EXPECT_EQ(saved, nlohmann::json::parse(R"({"t": {"max": 100, "late": 1}})"));
  Waterlines again(*program);
  ASSERT_TRUE(again.FromJson(saved).ok());
  EXPECT_EQ(again.published().at("t").second->value(), 90);
  EXPECT_FALSE(again.Admit("t", Row(schema, {Value::String("f"), Value::Int(80)})));
  EXPECT_EQ(again.late_rows().at("t"), 2u);
  EXPECT_FALSE(again.FromJson(nlohmann::json::array()).ok());
  EXPECT_FALSE(again.FromJson(nlohmann::json::parse(R"({"t": 5})")).ok());
}

}  // namespace
}  // namespace sluice::pipeline
