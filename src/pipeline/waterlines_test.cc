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
  EXPECT_EQ(saved, nlohmann::json::parse(R"({"t": {"max": 100, "agreed": 100, "late": 1}})"));
  Waterlines again(*program);
  ASSERT_TRUE(again.FromJson(saved).ok());
  EXPECT_EQ(again.published().at("t").second->value(), 90);
  EXPECT_FALSE(again.Admit("t", Row(schema, {Value::String("f"), Value::Int(80)})));
  EXPECT_EQ(again.late_rows().at("t"), 2u);
  EXPECT_FALSE(again.FromJson(nlohmann::json::array()).ok());
  EXPECT_FALSE(again.FromJson(nlohmann::json::parse(R"({"t": 5})")).ok());
}

// A host of many: its waterline follows the largest value over every host,
// as the coordinator gives it, not its own; its own is reported.
TEST(WaterlinesTest, AHostOfManyFollowsTheAgreedMaxima) {
  auto program = sql::CompileProgram("CREATE TABLE t (x VARCHAR, n BIGINT LATENESS 10);");
  ASSERT_TRUE(program.ok()) << program.status().message();
  const Schema schema = {SqlType::Varchar(), SqlType::BigInt()};
  Waterlines w(*program, /*agreed=*/true);
  const WaterlinePtr line = w.published().at("t").second;
  EXPECT_TRUE(w.Admit("t", Row(schema, {Value::String("a"), Value::Int(100)})));
  w.EndStep();
  EXPECT_EQ(line->value(), Waterline::kNone);  // its own largest value moves nothing
  EXPECT_EQ(w.maxima(), (std::map<std::string, int64_t>{{"t", 100}}));
  w.Agree({{"t", 150}, {"other", 7}});  // another host took 150
  EXPECT_EQ(line->value(), 140);
  EXPECT_FALSE(w.Admit("t", Row(schema, {Value::String("b"), Value::Int(139)})));
  EXPECT_TRUE(w.Admit("t", Row(schema, {Value::String("c"), Value::Int(140)})));
  w.Agree({{"t", 120}});  // never back
  EXPECT_EQ(line->value(), 140);
  w.Agree({});
  EXPECT_EQ(line->value(), 140);
  EXPECT_EQ(w.maxima(), (std::map<std::string, int64_t>{{"t", 140}}));
  // A checkpoint keeps the agreed value apart from its own.
  const nlohmann::json saved = w.ToJson();
  EXPECT_EQ(saved, nlohmann::json::parse(R"({"t": {"max": 140, "agreed": 150, "late": 1}})"));
  Waterlines again(*program, /*agreed=*/true);
  ASSERT_TRUE(again.FromJson(saved).ok());
  EXPECT_EQ(again.published().at("t").second->value(), 140);
  EXPECT_EQ(again.maxima(), (std::map<std::string, int64_t>{{"t", 140}}));
}

}  // namespace
}  // namespace sluice::pipeline
