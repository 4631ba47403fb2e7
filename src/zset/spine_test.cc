#include "zset/spine.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <random>

#include "storage/file.h"
#include "zset/test_util.h"

namespace sluice {
namespace {

struct SpineCase {
  bool background;
  bool spill;
};

class SpineTest : public ::testing::TestWithParam<SpineCase> {
 protected:
  // The case's options, spilling into a directory named `what` (created,
  // and removed after the test).
  SpineOptions CaseOptions(const std::string& what) {
    const std::string dir = dir_ = ::testing::TempDir() + "/" + what + "_" + std::to_string(::getpid()) +
                            "_" + std::to_string(GetParam().background) +
                            std::to_string(GetParam().spill);
    EXPECT_TRUE(CreateDirs(dir).ok());
    SpineOptions opts;
    opts.background = GetParam().background;
    if (GetParam().spill) {
      opts.merge.storage_dir = dir;
      opts.merge.spill_threshold_bytes = 4096;
    }
    return opts;
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

 private:
  std::string dir_;
};

// Random inserts (with retractions) checked against a std::map model, with
// lookups between inserts; every case also checks the O(log n) batch bound.
TEST_P(SpineTest, MatchesModel) {
  const SpineOptions opts = CaseOptions("spine_test");
  for (uint64_t seed : {1, 2, 3}) {
    Spine spine(opts);
    Model model;
    std::mt19937_64 rng(seed);
    for (int step = 0; step < 200; ++step) {
      BatchBuilder b;
      int n = static_cast<int>(rng() % 200);
      for (int i = 0; i < n; ++i) {
        std::string k = "k" + std::to_string(rng() % 300), v = "v" + std::to_string(rng() % 4);
        Weight w = (rng() % 3 == 0) ? -1 : 1;
        b.Push(k, v, w);
        AddTo(&model, k, v, w);
      }
      ASSERT_TRUE(spine.Insert(*b.Finish()).ok());
      if (step % 20 == 0) {
        auto c = spine.NewCursor();
        ASSERT_EQ(ReadAll(*c), model) << "step " << step;
        ASSERT_TRUE(c->status().ok());
        // Point lookups.
        auto s = spine.NewCursor();
        for (int k = 0; k < 300; k += 17) {
          std::string key = "k" + std::to_string(k);
          s->RewindKeys();
          s->SeekKey(key);
          bool in_model = model.lower_bound({key, ""}) != model.end() &&
                          model.lower_bound({key, ""})->first.first == key;
          EXPECT_EQ(s->KeyValid() && s->key() == key, in_model);
        }
      }
    }
    ASSERT_TRUE(spine.WaitForMerges().ok());
    EXPECT_LE(spine.batch_count(), 2 + 2 * 64 - __builtin_clzll(spine.len() + 1));
    auto all = spine.Consolidated();
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(ReadAll(**all), model);
    if (GetParam().spill) {
      bool any_file = false;
      for (const auto& b : spine.Snapshot()) any_file |= b->on_storage();
      EXPECT_TRUE(any_file);
    }
  }
}

// Keys behind a moving bound are dropped by merges, and only those: keys at
// or after the bound read as in the model, and the spine stops growing with
// the stream once its live keys do.
TEST_P(SpineTest, RetainDropsKeysBehindTheBound) {
  Spine spine(CaseOptions("spine_retain"));
  std::atomic<int> bound{0};
  // Keys are 6-digit numbers, so byte order is numeric order.
  auto key = [](int k) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%06d", k);
    return std::string(buf);
  };
  spine.SetRetain([&](std::string_view k) { return std::stoi(std::string(k)) >= bound.load(); });
  Model model;
  std::mt19937_64 rng(7);
  uint64_t most = 0;
  for (int step = 0; step < 400; ++step) {
    // Each step's keys lie in [step * 10, step * 10 + 50): at most 50 behind.
    BatchBuilder b;
    for (int i = 0; i < 40; ++i) {
      const std::string k = key(step * 10 + static_cast<int>(rng() % 50));
      b.Push(k, "v" + std::to_string(rng() % 3), 1);
    }
    auto batch = b.Finish();
    for (const auto& [kv, w] : ReadAll(**batch)) AddTo(&model, kv.first, kv.second, w);
    ASSERT_TRUE(spine.Insert(*batch).ok());
    bound.store((step + 1) * 10);
    if (step > 100) most = std::max(most, spine.len());
  }
  ASSERT_TRUE(spine.WaitForMerges().ok());
  Model live;
  for (const auto& [kv, w] : model) {
    if (w != 0 && std::stoi(kv.first) >= bound.load()) live[kv] = w;
  }
  Model seen;
  for (const auto& [kv, w] : ReadAll(*spine.NewCursor())) {
    if (std::stoi(kv.first) >= bound.load()) seen[kv] = w;
  }
  EXPECT_EQ(seen, live);
  // 400 steps of 40 rows: without the bound the spine would hold ~16,000
  // pairs; with it, the live ~200 and what merges have not reached yet.
  EXPECT_LT(most, 4000u);
}

// Values behind a moving bound are dropped by merges, whatever their key
// (few keys, each with values of every age, as a join's rows under a key
// that is not the time): values at or after the bound read as in the model,
// deletes included, and the spine stops growing with the stream.
TEST_P(SpineTest, RetainValuesDropsValuesBehindTheBound) {
  Spine spine(CaseOptions("spine_retain_values"));
  std::atomic<int> bound{0};
  auto val = [](int t) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%06d", t);
    return std::string(buf);
  };
  spine.SetRetainValues([&](std::string_view, std::string_view v) {
    return std::stoi(std::string(v)) >= bound.load();
  });
  Model model;
  std::mt19937_64 rng(11);
  uint64_t most = 0;
  std::vector<std::pair<std::string, std::string>> last;
  for (int step = 0; step < 400; ++step) {
    // Each step's values lie in [step * 10, step * 10 + 50); some pairs of
    // the last step are deleted again.
    BatchBuilder b;
    for (const auto& [k, v] : last) {
      if (rng() % 3 == 0) b.Push(k, v, -1);
    }
    last.clear();
    for (int i = 0; i < 40; ++i) {
      const std::string k = "k" + std::to_string(rng() % 5);
      const std::string v = val(step * 10 + static_cast<int>(rng() % 50));
      b.Push(k, v, 1);
      last.push_back({k, v});
    }
    auto batch = b.Finish();
    for (const auto& [kv, w] : ReadAll(**batch)) AddTo(&model, kv.first, kv.second, w);
    ASSERT_TRUE(spine.Insert(*batch).ok());
    bound.store((step + 1) * 10);
    if (step > 100) most = std::max(most, spine.len());
  }
  ASSERT_TRUE(spine.WaitForMerges().ok());
  Model live;
  for (const auto& [kv, w] : model) {
    if (w != 0 && std::stoi(kv.second) >= bound.load()) live[kv] = w;
  }
  Model seen;
  for (const auto& [kv, w] : ReadAll(*spine.NewCursor())) {
    if (std::stoi(kv.second) >= bound.load()) seen[kv] = w;
  }
  EXPECT_EQ(seen, live);
  EXPECT_FALSE(live.empty());
  // Without the bound the spine would hold ~16,000 pairs.
  EXPECT_LT(most, 4000u);
}

// A spine that takes no more pairs still drops what its retain function
// comes to reject, as changes elsewhere are counted (Tick): a join's side
// whose rows the other side's waterline has passed.
TEST_P(SpineTest, TicksRewriteASpineThatTakesNoMorePairs) {
  Spine spine(CaseOptions("spine_tick"));
  std::atomic<int> bound{0};
  spine.SetRetainValues([&](std::string_view, std::string_view v) {
    return std::stoi(std::string(v)) >= bound.load();
  });
  for (int step = 0; step < 20; ++step) {
    BatchBuilder b;
    for (int i = 0; i < 500; ++i) {
      char v[16];
      std::snprintf(v, sizeof v, "%06d", step * 500 + i);
      b.Push("k" + std::to_string(i % 7), v, 1);
    }
    ASSERT_TRUE(spine.Insert(*b.Finish()).ok());
  }
  ASSERT_TRUE(spine.WaitForMerges().ok());
  bound.store(9500);  // all but the last 500 values are behind it
  ASSERT_TRUE(spine.WaitForMerges().ok());
  EXPECT_GT(spine.len(), 5000u);  // no merge reached them
  for (int tick = 0; tick < 40; ++tick) {
    ASSERT_TRUE(spine.Tick(500).ok());
    ASSERT_TRUE(spine.WaitForMerges().ok());
  }
  EXPECT_EQ(spine.len(), 500u);
  EXPECT_EQ(ReadAll(*spine.NewCursor()).size(), 500u);
}

INSTANTIATE_TEST_SUITE_P(Modes, SpineTest,
                         ::testing::Values(SpineCase{false, false}, SpineCase{true, false},
                                           SpineCase{false, true}, SpineCase{true, true}),
                         [](const auto& info) {
                           return std::string(info.param.background ? "Background" : "Inline") +
                                  (info.param.spill ? "Spill" : "Memory");
                         });

// A large batch inserted in memory moves to storage by itself.
TEST(SpineSpillTest, LargeInsertedBatchMovesToStorage) {
  std::string dir = ::testing::TempDir() + "/spine_spill_" + std::to_string(::getpid());
  ASSERT_TRUE(CreateDirs(dir).ok());
  for (bool background : {false, true}) {
    SpineOptions opts;
    opts.background = background;
    opts.merge.storage_dir = dir;
    opts.merge.spill_threshold_bytes = 1 << 16;
    Spine spine(opts);
    BatchBuilder b;
    Model model;
    for (int i = 0; i < 20000; ++i) {
      b.Push("key" + std::to_string(i), "v", 1);
      AddTo(&model, "key" + std::to_string(i), "v", 1);
    }
    ASSERT_TRUE(spine.Insert(*b.Finish()).ok());
    ASSERT_TRUE(spine.WaitForMerges().ok());
    auto snap = spine.Snapshot();
    ASSERT_EQ(snap.size(), 1u);
    EXPECT_TRUE(snap[0]->on_storage()) << (background ? "background" : "inline");
    auto c = spine.NewCursor();
    EXPECT_EQ(ReadAll(*c), model);
  }
  std::filesystem::remove_all(dir);
}

// Spines sharing a memory budget keep their in-memory batches under it
// (give or take one batch in flight): the rest goes to storage, and reads
// still see everything.
TEST(SpineSpillTest, MemoryBudgetSpillsBeyondItsLimit) {
  std::string dir = ::testing::TempDir() + "/spine_budget_" + std::to_string(::getpid());
  ASSERT_TRUE(CreateDirs(dir).ok());
  for (bool background : {false, true}) {
    MemoryBudget budget(256 << 10);
    SpineOptions opts;
    opts.background = background;
    opts.merge.storage_dir = dir;
    opts.merge.budget = &budget;  // the 64 MiB threshold alone would keep all in memory
    std::vector<std::unique_ptr<Spine>> spines;
    std::vector<Model> models(3);
    for (int s = 0; s < 3; ++s) spines.push_back(std::make_unique<Spine>(opts));
    int64_t peak = 0;
    for (int round = 0; round < 30; ++round) {
      for (int s = 0; s < 3; ++s) {
        BatchBuilder b;
        for (int i = 0; i < 2000; ++i) {
          std::string key = "k" + std::to_string(round * 2000 + i) + std::string(20, 'x');
          b.Push(key, "v", 1);
          AddTo(&models[static_cast<size_t>(s)], key, "v", 1);
        }
        ASSERT_TRUE(spines[static_cast<size_t>(s)]->Insert(*b.Finish()).ok());
      }
      peak = std::max(peak, budget.used());
    }
    uint64_t on_storage = 0, in_memory = 0, resident = 0;
    for (int s = 0; s < 3; ++s) {
      ASSERT_TRUE(spines[static_cast<size_t>(s)]->WaitForMerges().ok());
      for (const BatchPtr& b : spines[static_cast<size_t>(s)]->Snapshot()) {
        (b->on_storage() ? on_storage : in_memory) += b->byte_size();
        resident += b->memory_bytes();
      }
      auto c = spines[static_cast<size_t>(s)]->NewCursor();
      EXPECT_EQ(ReadAll(*c), models[static_cast<size_t>(s)]);
    }
    // About 5 MB in all: most of it on storage, memory near the budget.
    // The budget counts the batches in memory, and the index and Bloom
    // filter that each file keeps in memory.
    EXPECT_GT(on_storage, 4u * budget.limit()) << (background ? "background" : "inline");
    EXPECT_LT(in_memory, 2 * budget.limit()) << in_memory;
    EXPECT_EQ(budget.used(), static_cast<int64_t>(resident));
    spines.clear();
    EXPECT_EQ(budget.used(), 0);
  }
  std::filesystem::remove_all(dir);
}

TEST(SpineLevelsTest, BatchCountStaysLogarithmic) {
  SpineOptions opts;
  opts.background = false;
  Spine spine(opts);
  for (int i = 0; i < 4096; ++i) {
    OrderedBuilder b;
    ASSERT_TRUE(b.Push("k" + std::to_string(i), "", 1).ok());
    ASSERT_TRUE(spine.Insert(b.Finish()).ok());
    ASSERT_LE(spine.batch_count(), 13u);
  }
  EXPECT_EQ(spine.len(), 4096u);
}

}  // namespace
}  // namespace sluice
