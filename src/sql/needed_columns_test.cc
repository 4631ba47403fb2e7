#include "sql/needed_columns.h"

#include <gtest/gtest.h>

#include <random>

#include "dataflow/operators/input.h"
#include "dataflow/operators/output.h"
#include "runtime/runtime.h"
#include "sql/lower.h"
#include "sql/program.h"
#include "types/row_codec.h"
#include "zset/batch_builder.h"
#include "zset/test_util.h"

namespace sluice::sql {
namespace {

const char* kProgram = R"(
CREATE TABLE t (k BIGINT, x BIGINT, s VARCHAR, z BIGINT, pad VARCHAR);
CREATE TABLE u (k BIGINT, y BIGINT, ts BIGINT, pad VARCHAR, w BIGINT NOT NULL);
CREATE VIEW ranged AS
  SELECT t.k, MAX(u.y) AS m, COUNT(*) AS n FROM t JOIN u ON t.k = u.k
  WHERE u.ts BETWEEN t.x AND t.z GROUP BY t.k;
CREATE VIEW left_padded AS SELECT t.s, u.y FROM t LEFT JOIN u ON t.k = u.k;
CREATE VIEW full_counts AS
  SELECT COUNT(*) AS n, SUM(u.y) AS sy, COUNT(t.x) AS nx FROM t FULL JOIN u ON t.k = u.k;
CREATE VIEW self AS SELECT a.x, b.z FROM t a JOIN t b ON a.k = b.x;
CREATE VIEW failing AS SELECT x FROM (SELECT t.x, 100 / u.w AS q FROM t JOIN u ON t.k = u.k) s;
CREATE VIEW nested AS SELECT r.k, v.y, r.m FROM ranged r JOIN u v ON r.k = v.k;
CREATE VIEW distinct_pairs AS SELECT DISTINCT t.s, u.pad FROM t JOIN u ON t.k = u.k;
CREATE VIEW whole AS SELECT * FROM t JOIN u ON t.k = u.k WHERE u.y > 3;
CREATE VIEW semi AS SELECT s FROM t WHERE k IN (SELECT k FROM u WHERE y > 2);
CREATE VIEW spread AS
  SELECT s, COUNT(*) AS n, SUM(e) AS se FROM (SELECT s, unnest(ARRAY[x, z, k]) AS e FROM t) q
  GROUP BY s;
CREATE VIEW in_step AS SELECT pad, unnest(ARRAY[x, z]) AS e, generate_series(1, 3) AS g FROM t;
CREATE VIEW inner_narrow AS SELECT t.x, u.y FROM t JOIN u ON t.k = u.k WHERE u.ts > 2;
)";

const PlanNode* FirstOfKind(const PlanNode& n, PlanKind kind) {
  if (n.kind == kind) return &n;
  for (const PlanPtr& in : n.inputs) {
    if (const PlanNode* j = FirstOfKind(*in, kind)) return j;
  }
  return nullptr;
}

const PlanNode* FirstJoin(const PlanNode& n) { return FirstOfKind(n, PlanKind::kJoin); }

std::vector<PlanPtr> Plans(const Program& p) {
  std::vector<PlanPtr> plans;
  for (const std::string& v : p.views) plans.push_back(p.catalog.FindView(v)->query.plan);
  return plans;
}

TEST(NeededColumnsTest, AJoinNeedsWhatItsReadersRead) {
  auto p = CompileProgram(kProgram);
  ASSERT_TRUE(p.ok()) << p.status().message();
  NeededColumns needed(Plans(*p));
  // t (k, x, s, z, pad) then u (k, y, ts, pad, w): the group key, the
  // range's columns and MAX's argument (u.k only makes the join's key).
  const PlanNode* join = FirstJoin(*p->catalog.FindView("ranged")->query.plan);
  ASSERT_NE(join, nullptr);
  EXPECT_EQ(needed.Of(*join),
            std::vector<bool>({true, true, false, true, false, false, true, true, false, false}));
  // A view's own columns are all needed (a view reads `ranged` too).
  const PlanNode& ranged = *p->catalog.FindView("ranged")->query.plan;
  EXPECT_EQ(needed.Of(ranged), std::vector<bool>(ranged.columns.size(), true));
  // An expression whose result nobody reads still reads its columns: it may
  // fail on a row and drop it.
  join = FirstJoin(*p->catalog.FindView("failing")->query.plan);
  ASSERT_NE(join, nullptr);
  EXPECT_TRUE(needed.Of(*join)[9]);
  // DISTINCT and a view's whole rows read every column.
  join = FirstJoin(*p->catalog.FindView("whole")->query.plan);
  ASSERT_NE(join, nullptr);
  EXPECT_EQ(needed.Of(*join), std::vector<bool>(10, true));
  // A node no plan reaches keeps all its columns.
  EXPECT_EQ(NeededColumns().Of(*join), std::vector<bool>(10, true));
}

TEST(NeededColumnsTest, ASetReturningFunctionPassesOnWhatItsReadersRead) {
  auto p = CompileProgram(kProgram);
  ASSERT_TRUE(p.ok()) << p.status().message();
  NeededColumns needed(Plans(*p));
  // t (k, x, s, z, pad) then the element: the grouping key and SUM's
  // argument. The array's columns are read by the function, not its readers.
  const PlanNode* series =
      FirstOfKind(*p->catalog.FindView("spread")->query.plan, PlanKind::kSeries);
  ASSERT_NE(series, nullptr);
  EXPECT_EQ(needed.Of(*series), std::vector<bool>({false, false, true, false, false, true}));
  const PlanNode& scan = *series->inputs[0];
  EXPECT_EQ(needed.Of(scan), std::vector<bool>({true, true, true, true, false}));
  // In lockstep: pad and both functions' columns.
  series = FirstOfKind(*p->catalog.FindView("in_step")->query.plan, PlanKind::kSeries);
  ASSERT_NE(series, nullptr);
  EXPECT_EQ(needed.Of(*series), std::vector<bool>({false, false, false, false, true, true, true}));
}

// The program's views, lowered with joins that carry only the columns their
// readers need (`narrow`) or whole rows.
Status Build(const Program& p, Circuit& c, EvalErrors* errors, bool narrow) {
  std::map<std::string, Stream*> inputs;
  for (const std::string& t : p.tables) inputs[t] = AddInput(c, t);
  Lowering lower(
      c, [&](const std::string& t) { return inputs.at(t); }, errors);
  if (narrow) lower.SetPlans(Plans(p));
  for (const std::string& v : p.views) {
    SLUICE_ASSIGN_OR_RETURN(Stream * s, lower.Lower(p.catalog.FindView(v)->query.plan));
    AddOutput(c, s, v);
  }
  return Status::OK();
}

// The integral of every view is the same with narrow joins and
// set-returning functions as with whole rows, on random inserts and deletes with NULLs and
// duplicates.
TEST(NeededColumnsTest, NarrowJoinsComputeWhatWholeRowsDo) {
  auto p = CompileProgram(kProgram);
  ASSERT_TRUE(p.ok()) << p.status().message();
  const Schema t_schema = {SqlType::BigInt(), SqlType::BigInt(), SqlType::Varchar(),
                           SqlType::BigInt(), SqlType::Varchar()};
  const Schema u_schema = {SqlType::BigInt(), SqlType::BigInt(), SqlType::BigInt(),
                           SqlType::Varchar(), SqlType::BigInt(false)};
  for (uint64_t seed : {1, 2, 3, 4}) {
    std::mt19937_64 rng(seed);
    RuntimeOptions opts;
    opts.workers = 1 + static_cast<int>(seed % 3);
    EvalErrors narrow_errors, whole_errors;
    auto narrow = Runtime::Start(
        opts, [&](Circuit& c) { return Build(*p, c, &narrow_errors, /*narrow=*/true); });
    auto whole = Runtime::Start(
        opts, [&](Circuit& c) { return Build(*p, c, &whole_errors, /*narrow=*/false); });
    ASSERT_TRUE(narrow.ok() && whole.ok());
    auto small = [&](int n) -> Value {
      if (rng() % 8 == 0) return Value::Null();
      return Value::Int(static_cast<int64_t>(rng() % static_cast<uint64_t>(n)));
    };
    auto text = [&](int n) -> Value {
      if (rng() % 8 == 0) return Value::Null();
      return Value::String("p" + std::to_string(rng() % static_cast<uint64_t>(n)));
    };
    std::vector<std::string> t_rows, u_rows;  // present, to delete from
    std::map<std::string, Model> got, want;
    for (int step = 0; step < 40; ++step) {
      BatchBuilder tb, ub;
      for (int i = 0; i < 12; ++i) {
        std::string row;
        if (!t_rows.empty() && rng() % 4 == 0) {
          const size_t j = rng() % t_rows.size();
          tb.Push(t_rows[j], -1);
          t_rows.erase(t_rows.begin() + static_cast<ptrdiff_t>(j));
        } else {
          ASSERT_TRUE(
              EncodeRow(t_schema, {small(6), small(10), text(3), small(10), text(5)}, &row).ok());
          tb.Push(row, 1);
          t_rows.push_back(row);
        }
        if (!u_rows.empty() && rng() % 4 == 0) {
          const size_t j = rng() % u_rows.size();
          ub.Push(u_rows[j], -1);
          u_rows.erase(u_rows.begin() + static_cast<ptrdiff_t>(j));
        } else {
          row.clear();
          ASSERT_TRUE(EncodeRow(u_schema,
                                {small(6), small(8), small(10), text(4),
                                 Value::Int(static_cast<int64_t>(rng() % 4))},
                                &row)
                          .ok());
          ub.Push(row, 1);
          u_rows.push_back(row);
        }
      }
      BatchPtr t_batch = *tb.Finish(), u_batch = *ub.Finish();
      for (auto* rt : {&*narrow, &*whole}) {
        ASSERT_TRUE((*rt)->Push("t", t_batch).ok());
        ASSERT_TRUE((*rt)->Push("u", u_batch).ok());
        ASSERT_TRUE((*rt)->Step().ok());
      }
      for (const std::string& v : p->views) {
        auto a = (*narrow)->Output(v);
        auto b = (*whole)->Output(v);
        ASSERT_TRUE(a.ok() && b.ok());
        for (const auto& [kv, w] : ReadAll(**a)) AddTo(&got[v], kv.first, kv.second, w);
        for (const auto& [kv, w] : ReadAll(**b)) AddTo(&want[v], kv.first, kv.second, w);
      }
    }
    for (const std::string& v : p->views) {
      EXPECT_EQ(got[v], want[v]) << "view " << v << ", seed " << seed;
      EXPECT_FALSE(want[v].empty()) << v;
    }
    // Both dropped the rows that divide by zero (the narrow join may count
    // fewer: rows that differ only in columns nobody reads are one row).
    EXPECT_GT(narrow_errors.count(), 0);
    EXPECT_GT(whole_errors.count(), 0);
  }
}

}  // namespace
}  // namespace sluice::sql
