// Figures about this process that benchmarks report.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

namespace sluice::bench {

// The peak resident memory of this process so far (VmHWM).
inline uint64_t PeakRssBytes() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10) << 10;
  }
  return 0;
}

}  // namespace sluice::bench
