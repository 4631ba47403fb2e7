// Shared by the benchmarks: a console reporter that also prints ratios
// between benchmarks of one run, since on shared machines only ratios from
// one run are meaningful.
#pragma once

#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace sluice::bench {

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  // Each pair: (numerator benchmark name, denominator benchmark name).
  explicit RatioReporter(std::vector<std::pair<std::string, std::string>> ratios)
      : ratios_(std::move(ratios)) {}

  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  std::vector<std::pair<std::string, std::string>> ratios_;
  std::map<std::string, double> seconds_;  // real time per iteration
};

// Runs the registered benchmarks with `reporter` and returns main's exit code.
int RunWithRatios(int argc, char** argv, std::vector<std::pair<std::string, std::string>> ratios);

}  // namespace sluice::bench
