#include "base/allocator.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace sluice {

namespace {

constexpr int kMmapThreshold = 256 << 20;
constexpr int kTrimThreshold = 64 << 20;
constexpr int kTopPad = 64 << 20;

struct Setting {
  const char* tunable;  // glibc.malloc.<name>
  const char* env;      // glibc's older variable for it, if any
  int mallopt_param;    // 0: only a tunable can set it
  int value;
};

#if defined(__GLIBC__)
// The huge pages first: glibc 2.36 leaves only the first tunable it read in
// the process's own copy of GLIBC_TUNABLES (what its children inherit), and
// only that one mallopt cannot set. TuneAllocatorForBatches sets the others
// again, in this process and in its children.
const Setting kSettings[] = {
    {"glibc.malloc.hugetlb", nullptr, 0, 1},
    {"glibc.malloc.arena_max", "MALLOC_ARENA_MAX", M_ARENA_MAX, 1},
    {"glibc.malloc.mmap_threshold", "MALLOC_MMAP_THRESHOLD_", M_MMAP_THRESHOLD, kMmapThreshold},
    {"glibc.malloc.trim_threshold", "MALLOC_TRIM_THRESHOLD_", M_TRIM_THRESHOLD, kTrimThreshold},
    {"glibc.malloc.top_pad", "MALLOC_TOP_PAD_", M_TOP_PAD, kTopPad},
};

// Whether the environment already chooses this setting.
bool GivenByEnvironment(const Setting& s) {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr && std::strstr(tunables, s.tunable) != nullptr) return true;
  return s.env != nullptr && std::getenv(s.env) != nullptr;
}
#endif

}  // namespace

void TuneAllocatorAtStart(char** argv) {
#if defined(__GLIBC__)
  // Set before the exec, so that a process never re-executes twice (nor do
  // its children), whatever glibc leaves in GLIBC_TUNABLES.
  constexpr const char* kDone = "SLUICE_MALLOC_TUNED";
  if (GivenByEnvironment(kSettings[0]) || std::getenv(kDone) != nullptr) {
    TuneAllocatorForBatches();
    return;
  }
  const char* old = std::getenv("GLIBC_TUNABLES");
  std::string tunables;
  for (const Setting& s : kSettings) {
    if (GivenByEnvironment(s)) continue;
    if (!tunables.empty()) tunables += ':';
    tunables += std::string(s.tunable) + "=" + std::to_string(s.value);
  }
  if (old != nullptr && *old != '\0') tunables += std::string(":") + old;
  if (setenv("GLIBC_TUNABLES", tunables.c_str(), 1) == 0 && setenv(kDone, "1", 1) == 0) {
    execv("/proc/self/exe", argv);
  }
  // Still here: no /proc, or not allowed. Run on as we are, without leaving
  // settings behind that this process does not have.
  if (old != nullptr) {
    setenv("GLIBC_TUNABLES", old, 1);
  } else {
    unsetenv("GLIBC_TUNABLES");
  }
  unsetenv(kDone);
#endif
  TuneAllocatorForBatches();
}

void TuneAllocatorForBatches() {
#if defined(__GLIBC__)
  static std::once_flag once;
  std::call_once(once, [] {
    for (const Setting& s : kSettings) {
      if (s.mallopt_param != 0 && !GivenByEnvironment(s)) mallopt(s.mallopt_param, s.value);
    }
  });
#endif
}

}  // namespace sluice
