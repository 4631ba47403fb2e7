// Failpoints, for crash tests: with SLUICE_FAILPOINTS="name:n[,name:n...]"
// in the environment, the n-th time the code passes Failpoint("name") the
// process ends at once, as kill -9 would end it (exit code 137, no cleanup).
// "name:n:error" instead makes the n-th pass of FailpointError("name")
// return true, once: the code there fails as an I/O error would make it.
// Without the variable a failpoint costs one test of a flag.
#pragma once

namespace sluice {

bool FailpointsEnabled();
void FailpointSlow(const char* name);
bool FailpointErrorSlow(const char* name);

inline void Failpoint(const char* name) {
  if (FailpointsEnabled()) FailpointSlow(name);
}

inline bool FailpointError(const char* name) {
  return FailpointsEnabled() && FailpointErrorSlow(name);
}

}  // namespace sluice
