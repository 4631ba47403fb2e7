#include "dataflow/operators/draw.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "dataflow/operators/input.h"
#include "dataflow/operators/output.h"
#include "runtime/runtime.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {
namespace {

using Changes = std::vector<std::vector<std::pair<std::string, Weight>>>;
using Counts = std::map<std::string, int64_t>;

// Output rows: "row|d1|d2" with each draw as an exact hexadecimal float.
DrawSpec TwoSites(uint64_t seed) {
  DrawSpec spec;
  spec.seed = seed;
  spec.sites = {7, 12};
  spec.append = [](std::string_view row, const double* draws, std::string* out) {
    char buf[64];
    out->assign(row);
    for (int i = 0; i < 2; ++i) {
      std::snprintf(buf, sizeof(buf), "|%a", draws[i]);
      out->append(buf);
    }
    return Status::OK();
  };
  return spec;
}

std::string RowOf(const std::string& out) { return out.substr(0, out.find('|')); }

std::vector<double> DrawsOf(const std::string& out) {
  std::vector<double> d;
  for (size_t at = out.find('|'); at != std::string::npos; at = out.find('|', at + 1)) {
    d.push_back(std::strtod(out.c_str() + at + 1, nullptr));
  }
  return d;
}

std::unique_ptr<Runtime> Start(int workers, uint64_t seed) {
  RuntimeOptions opts;
  opts.workers = workers;
  auto rt = Runtime::Start(opts, [&](Circuit& c) {
    AddOutput(c, Draw(c, AddInput(c, "in"), TwoSites(seed)), "out");
    return Status::OK();
  });
  EXPECT_TRUE(rt.ok()) << rt.status().ToString();
  return rt.ok() ? std::move(*rt) : nullptr;
}

// Pushes one step's change and returns the output's change.
Counts Step(Runtime& rt, const std::vector<std::pair<std::string, Weight>>& change) {
  BatchBuilder b;
  for (const auto& [row, w] : change) b.Push(row, w);
  EXPECT_TRUE(rt.Push("in", *b.Finish()).ok());
  EXPECT_TRUE(rt.Step().ok());
  auto out = rt.Output("out");
  EXPECT_TRUE(out.ok());
  Counts got;
  auto c = (*out)->NewCursor();
  for (; c->KeyValid(); c->StepKey()) {
    for (; c->ValValid(); c->StepVal()) got[std::string(c->key())] += c->weight();
  }
  return got;
}

// Random changes: inserts of rows (some several copies at once), deletes of
// rows the input holds (some several copies), over `steps` steps.
Changes RandomChanges(uint32_t seed, int steps) {
  std::mt19937 rng(seed);
  Changes all;
  Counts input;
  for (int s = 0; s < steps; ++s) {
    std::map<std::string, Weight> change;
    for (int i = 0, n = static_cast<int>(rng() % 10); i < n; ++i) {
      if (!input.empty() && rng() % 3 == 0) {
        auto it = input.begin();
        std::advance(it, static_cast<long>(rng() % input.size()));
        const Weight w = 1 + static_cast<Weight>(rng() % static_cast<uint32_t>(it->second));
        change[it->first] -= w;
        if ((it->second -= w) == 0) input.erase(it);
        continue;
      }
      const std::string row = "r" + std::to_string(rng() % 30);
      const Weight w = 1 + static_cast<Weight>(rng() % 3);
      change[row] += w;
      input[row] += w;
    }
    all.emplace_back(change.begin(), change.end());
  }
  return all;
}

// Over random inserts and deletes with weights: the integral of the output
// holds every copy of every input row once, each with draws in [0, 1); a
// row's draws never change while it stays (what is retracted is exactly
// what was emitted: no weight of the integral goes negative); and distinct
// copies get distinct draws, at both sites.
TEST(DrawTest, EveryCopyKeepsItsDrawsUntilDeleted) {
  for (int workers : {1, 3}) {
    for (uint32_t seed = 1; seed <= 4; ++seed) {
      auto rt = Start(workers, seed);
      ASSERT_NE(rt, nullptr);
      Counts input, output;
      const Changes changes = RandomChanges(seed, 50);
      for (size_t step = 0; step < changes.size(); ++step) {
        for (const auto& [row, w] : changes[step]) {
          if ((input[row] += w) == 0) input.erase(row);
        }
        for (const auto& [row, w] : Step(*rt, changes[step])) {
          if ((output[row] += w) == 0) output.erase(row);
        }
        Counts rows;
        std::set<double> seen;
        for (const auto& [out, w] : output) {
          ASSERT_GT(w, 0) << "a retraction of a value never emitted: " << out;
          rows[RowOf(out)] += w;
          for (double d : DrawsOf(out)) {
            ASSERT_GE(d, 0.0);
            ASSERT_LT(d, 1.0);
            ASSERT_TRUE(seen.insert(d).second) << "a draw repeated: " << out;
          }
        }
        ASSERT_EQ(rows, input) << "workers " << workers << ", seed " << seed << ", step " << step;
      }
    }
  }
}

// The same changes in the same steps give the same output, whatever the
// number of workers: what a replay from the journal and every host rely on.
// Another seed (another view) draws other values.
TEST(DrawTest, SameStepsDrawTheSameValues) {
  const Changes changes = RandomChanges(9, 30);
  std::vector<std::vector<Counts>> runs;
  for (auto [workers, seed] : {std::pair{1, 5}, {3, 5}, {2, 5}, {1, 6}}) {
    auto rt = Start(workers, static_cast<uint64_t>(seed));
    ASSERT_NE(rt, nullptr);
    runs.emplace_back();
    for (const auto& change : changes) runs.back().push_back(Step(*rt, change));
  }
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_EQ(runs[0], runs[2]);
  EXPECT_NE(runs[0], runs[3]);
}

// A runtime restored from a checkpoint continues as the original did: the
// draws of later steps, and the retractions of rows inserted before the
// checkpoint, are the same.
TEST(DrawTest, RestoredStateDrawsAsTheOriginal) {
  const Changes changes = RandomChanges(11, 30);
  const std::string dir = ::testing::TempDir() + "/draw_test_state";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto original = Start(2, 3);
  ASSERT_NE(original, nullptr);
  std::vector<Counts> want;
  std::string manifest;
  for (size_t s = 0; s < changes.size(); ++s) {
    want.push_back(Step(*original, changes[s]));
    if (s == 14) {
      auto m = original->SaveState(dir);
      ASSERT_TRUE(m.ok()) << m.status().ToString();
      manifest = *m;
    }
  }
  auto restored = Start(2, 3);
  ASSERT_NE(restored, nullptr);
  ASSERT_TRUE(restored->LoadState(dir, manifest).ok());
  for (size_t s = 15; s < changes.size(); ++s) {
    EXPECT_EQ(Step(*restored, changes[s]), want[s]) << "step " << s;
  }
  std::filesystem::remove_all(dir);
}

TEST(DrawTest, DrawValueIsUniformEnough) {
  // Not a statistical test: a broken mapping (all zero, always the same
  // value, outside [0, 1)) fails it.
  double sum = 0;
  std::set<double> seen;
  for (uint64_t i = 0; i < 10000; ++i) {
    const double d = DrawValue(1, 2, i / 100, i % 100, "row");
    ASSERT_GE(d, 0.0);
    ASSERT_LT(d, 1.0);
    sum += d;
    seen.insert(d);
  }
  EXPECT_EQ(seen.size(), 10000u);
  EXPECT_NEAR(sum / 10000, 0.5, 0.02);
  EXPECT_NE(DrawValue(1, 2, 0, 0, "row"), DrawValue(1, 3, 0, 0, "row"));
  EXPECT_NE(DrawValue(1, 2, 0, 0, "row"), DrawValue(1, 2, 0, 0, "rox"));
}

}  // namespace
}  // namespace sluice
