#include "dataflow/operators/temporal_filter.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "dataflow/operators/input.h"
#include "dataflow/operators/output.h"
#include "runtime/runtime.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {
namespace {

// Rows "name,from,until" (either bound may be "-": none).
Status ParseSpan(std::string_view key, std::string_view, TimeSpan* span) {
  const size_t a = key.find(','), b = key.rfind(',');
  const std::string from(key.substr(a + 1, b - a - 1)), until(key.substr(b + 1));
  span->from = from == "-" ? TimeSpan::kAlways : std::stoll(from);
  span->until = until == "-" ? TimeSpan::kNever : std::stoll(until);
  return Status::OK();
}

// Over random inserts and deletes of rows of any span and a clock that moves
// by random amounts (or not at all), the filter's output summed over the
// steps is, at every step, exactly the rows of the input whose span holds
// the clock.
TEST(TemporalFilterTest, OutputIsTheRowsWhoseSpanHoldsTheClock) {
  for (int workers : {1, 3}) {
    for (uint32_t seed = 1; seed <= 4; ++seed) {
      auto clock = std::make_shared<StepClock>();
      clock->Advance(1000);
      RuntimeOptions opts;
      opts.workers = workers;
      auto rt = Runtime::Start(opts, [&](Circuit& c) {
        AddOutput(c, TemporalFilter(c, AddInput(c, "in"), clock, ParseSpan), "out");
        return Status::OK();
      });
      ASSERT_TRUE(rt.ok()) << rt.status().ToString();
      std::mt19937 rng(seed);
      std::map<std::string, int64_t> input, output;
      int64_t now = 1000;
      for (int step = 0; step < 60; ++step) {
        BatchBuilder change;
        for (int i = 0, n = static_cast<int>(rng() % 8); i < n; ++i) {
          if (!input.empty() && rng() % 3 == 0) {
            auto it = input.begin();
            std::advance(it, static_cast<long>(rng() % input.size()));
            change.Push(it->first, -1);
            if (--it->second == 0) input.erase(it);
            continue;
          }
          // Spans around the clock: past, present and future, some open.
          const int64_t from = now - 50 + static_cast<int64_t>(rng() % 150);
          const int64_t until = from + static_cast<int64_t>(rng() % 80) - 10;
          const std::string row = "r" + std::to_string(rng() % 40) + "," +
                                  (rng() % 5 == 0 ? "-" : std::to_string(from)) + "," +
                                  (rng() % 5 == 0 ? "-" : std::to_string(until));
          change.Push(row, 1);
          ++input[row];
        }
        ASSERT_TRUE((*rt)->Push("in", *change.Finish()).ok());
        if (rng() % 4 != 0) now += static_cast<int64_t>(rng() % 30);
        clock->Advance(now);
        ASSERT_TRUE((*rt)->Step().ok());
        auto out = (*rt)->Output("out");
        ASSERT_TRUE(out.ok());
        auto c = (*out)->NewCursor();
        for (; c->KeyValid(); c->StepKey()) {
          for (; c->ValValid(); c->StepVal()) {
            if ((output[std::string(c->key())] += c->weight()) == 0) {
              output.erase(std::string(c->key()));
            }
          }
        }
        std::map<std::string, int64_t> want;
        for (const auto& [row, w] : input) {
          TimeSpan span;
          ASSERT_TRUE(ParseSpan(row, "", &span).ok());
          if (span.from <= now && now < span.until) want[row] = w;
        }
        ASSERT_EQ(output, want) << "workers " << workers << ", seed " << seed << ", step " << step
                                << ", clock " << now;
      }
    }
  }
}

}  // namespace
}  // namespace sluice
