#include "bench/bench_util.h"

#include <cstdio>

namespace sluice::bench {

void RatioReporter::ReportRuns(const std::vector<Run>& runs) {
  for (const Run& r : runs) {
    if (r.run_type != Run::RT_Iteration || r.iterations == 0) continue;
    seconds_[r.benchmark_name()] = r.real_accumulated_time / static_cast<double>(r.iterations);
  }
  ConsoleReporter::ReportRuns(runs);
}

void RatioReporter::Finalize() {
  ConsoleReporter::Finalize();
  std::printf("\nratios (from this run):\n");
  for (const auto& [num, den] : ratios_) {
    auto n = seconds_.find(num), d = seconds_.find(den);
    if (n == seconds_.end() || d == seconds_.end() || d->second == 0) continue;
    std::printf("  %-52s / %-40s = %.3f\n", num.c_str(), den.c_str(), n->second / d->second);
  }
}

int RunWithRatios(int argc, char** argv, std::vector<std::pair<std::string, std::string>> ratios) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter(std::move(ratios));
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}

}  // namespace sluice::bench
