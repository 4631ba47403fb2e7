// WITH RECURSIVE kept up to date across steps (RecursiveOp): over random
// graphs whose edges come and go, each view's contents after every step
// equal the recursion computed from scratch over the tables as they are
// then, for UNION (DRed) and UNION ALL (a linear fixed point), with a
// relation that what the recursive term joins reads through NOT EXISTS,
// and for terms that are not linear (computed from scratch at every step:
// one reads the recursion twice through a WITH query of its own, as
// PostgreSQL allows, one's NOT EXISTS reads a column of a row joined to
// it).
#include <gtest/gtest.h>

#include <random>

#include "runtime/runtime.h"
#include "sql/lower.h"
#include "sql/program.h"
#include "types/row_codec.h"
#include "zset/batch_builder.h"
#include "zset/test_util.h"

namespace sluice::sql {
namespace {

const char* kProgram = R"(
CREATE TABLE e (a INT, b INT);
CREATE TABLE blocked (n INT);
CREATE VIEW reach AS WITH RECURSIVE r(a, b) AS (
  SELECT a, b FROM e UNION SELECT r.a, e.b FROM r JOIN e ON r.b = e.a) SELECT * FROM r;
CREATE VIEW open_from_1 AS WITH RECURSIVE r(n) AS (
  SELECT 1 UNION
  SELECT o.b FROM r JOIN (
    SELECT * FROM e WHERE NOT EXISTS (SELECT 1 FROM blocked WHERE blocked.n = e.b)) o
  ON o.a = r.n) SELECT * FROM r;
CREATE VIEW open_from_2 AS WITH RECURSIVE r(n) AS (
  SELECT 2 UNION
  SELECT e.b FROM r JOIN e ON e.a = r.n
  WHERE NOT EXISTS (SELECT 1 FROM blocked WHERE blocked.n = e.b)) SELECT * FROM r;
CREATE VIEW paths AS WITH RECURSIVE p(a, b, len) AS (
  SELECT a, b, 1 FROM e WHERE a < b
  UNION ALL
  SELECT p.a, e.b, p.len + 1 FROM p JOIN e ON p.b = e.a WHERE e.a < e.b) SELECT * FROM p;
CREATE VIEW squared AS WITH RECURSIVE r(a, b) AS (
  SELECT a, b FROM e
  UNION (WITH w AS (SELECT * FROM r) SELECT w1.a, w2.b FROM w w1 JOIN w w2 ON w1.b = w2.a))
SELECT * FROM r;
)";
const std::vector<std::string> kViews = {"reach", "open_from_1", "open_from_2", "paths", "squared"};

std::string IntRow(std::vector<int64_t> values) {
  Schema schema;
  std::vector<Value> vs;
  for (int64_t v : values) {
    schema.push_back(SqlType::Integer());
    vs.push_back(Value::Int(v));
  }
  std::string row;
  EXPECT_TRUE(EncodeRow(schema, vs, &row).ok());
  return row;
}

TEST(RecursiveTest, KeptUpToDateEqualsComputedFromScratch) {
  auto program = CompileProgram(kProgram);
  ASSERT_TRUE(program.ok()) << program.status().message();
  for (uint64_t seed : {1, 2, 3}) {
    std::mt19937_64 rng(seed);
    RuntimeOptions opts;
    opts.spine.background = false;
    opts.workers = 1 + static_cast<int>(seed % 3);
    EvalErrors errors;
    auto kept = Runtime::Start(
        opts, [&](Circuit& c) { return BuildProgram(*program, c, &errors, nullptr, nullptr); });
    ASSERT_TRUE(kept.ok()) << kept.status().message();
    std::map<std::pair<int64_t, int64_t>, int> edges;  // with their counts
    std::set<int64_t> blocked;
    std::map<std::string, Model> got;
    for (int step = 0; step < 40; ++step) {
      // Some edges in (a few twice), some out; a node blocked or freed.
      BatchBuilder de, db;
      const int nodes = 12;
      for (int i = 0; i < 4; ++i) {
        const int64_t a = static_cast<int64_t>(rng() % nodes),
                      b = static_cast<int64_t>(rng() % nodes);
        ++edges[{a, b}];
        de.Push(IntRow({a, b}), 1);
      }
      for (int i = 0; i < 3 && !edges.empty(); ++i) {
        auto it = edges.begin();
        std::advance(it, static_cast<long>(rng() % edges.size()));
        de.Push(IntRow({it->first.first, it->first.second}), -1);
        if (--it->second == 0) edges.erase(it);
      }
      if (rng() % 3 == 0) {
        const int64_t n = static_cast<int64_t>(rng() % nodes);
        if (blocked.insert(n).second) {
          db.Push(IntRow({n}), 1);
        } else {
          blocked.erase(n);
          db.Push(IntRow({n}), -1);
        }
      }
      ASSERT_TRUE((*kept)->Push("e", *de.Finish()).ok());
      ASSERT_TRUE((*kept)->Push("blocked", *db.Finish()).ok());
      ASSERT_TRUE((*kept)->Step().ok());
      // From scratch: a fresh circuit over the tables as they are.
      EvalErrors scratch_errors;
      auto scratch = Runtime::Start(opts, [&](Circuit& c) {
        return BuildProgram(*program, c, &scratch_errors, nullptr, nullptr);
      });
      ASSERT_TRUE(scratch.ok());
      BatchBuilder all_e, all_b;
      for (const auto& [ab, n] : edges) all_e.Push(IntRow({ab.first, ab.second}), n);
      for (int64_t n : blocked) all_b.Push(IntRow({n}), 1);
      ASSERT_TRUE((*scratch)->Push("e", *all_e.Finish()).ok());
      ASSERT_TRUE((*scratch)->Push("blocked", *all_b.Finish()).ok());
      ASSERT_TRUE((*scratch)->Step().ok());
      for (const std::string& v : kViews) {
        auto a = (*kept)->Output(v);
        auto b = (*scratch)->Output(v);
        ASSERT_TRUE(a.ok() && b.ok());
        for (const auto& [kv, w] : ReadAll(**a)) AddTo(&got[v], kv.first, kv.second, w);
        EXPECT_EQ(got[v], ReadAll(**b)) << "view " << v << ", seed " << seed << ", step " << step;
      }
      ASSERT_EQ(errors.count(), 0) << errors.samples()[0];
    }
    // The linear ones were kept up to date; the others were computed from
    // scratch at every step.
    const auto rec = errors.recursions();
    for (const char* q : {"reach.r", "open_from_1.r", "paths.p"}) {
      ASSERT_EQ(rec.count(q), 1u) << q;
      EXPECT_EQ(rec.at(q).from_scratch_steps, 1u) << q;  // the first
      EXPECT_EQ(rec.at(q).incremental_steps, 39u) << q;
    }
    for (const char* q : {"squared.r", "open_from_2.r"}) {
      ASSERT_EQ(rec.count(q), 1u) << q;
      EXPECT_EQ(rec.at(q).from_scratch_steps, 40u) << q;
      EXPECT_EQ(rec.at(q).incremental_steps, 0u) << q;
    }
  }
}

}  // namespace
}  // namespace sluice::sql
