#include "base/failpoint.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "base/mutex.h"

namespace sluice {
namespace {

struct Failpoints {
  Mutex mu;
  std::map<std::string, long> left GUARDED_BY(mu);    // passes until the process ends
  std::map<std::string, long> errors GUARDED_BY(mu);  // passes until one fails
  bool enabled = false;

  Failpoints() {
    const char* env = std::getenv("SLUICE_FAILPOINTS");
    if (env == nullptr || *env == '\0') return;
    std::string spec(env);
    size_t at = 0;
    while (at < spec.size()) {
      size_t end = spec.find(',', at);
      if (end == std::string::npos) end = spec.size();
      const std::string item = spec.substr(at, end - at);
      const size_t colon = item.find(':');
      if (colon != std::string::npos) {
        const bool error = item.size() > 6 && item.compare(item.size() - 6, 6, ":error") == 0;
        (error ? errors : left)[item.substr(0, colon)] =
            std::strtol(item.c_str() + colon + 1, nullptr, 10);
      }
      at = end + 1;
    }
    enabled = !left.empty() || !errors.empty();
  }
};

Failpoints& Get() {
  static Failpoints f;
  return f;
}

}  // namespace

bool FailpointsEnabled() { return Get().enabled; }

void FailpointSlow(const char* name) {
  Failpoints& f = Get();
  MutexLock l(&f.mu);
  auto it = f.left.find(name);
  if (it == f.left.end()) return;
  if (--it->second <= 0) {
    std::fprintf(stderr, "sluice: failpoint %s: exiting\n", name);
    _exit(137);
  }
}

bool FailpointErrorSlow(const char* name) {
  Failpoints& f = Get();
  MutexLock l(&f.mu);
  auto it = f.errors.find(name);
  if (it == f.errors.end() || it->second <= 0) return false;
  if (--it->second > 0) return false;
  std::fprintf(stderr, "sluice: failpoint %s: failing once\n", name);
  return true;
}

}  // namespace sluice
