// Failpoints, for crash tests: with SLUICE_FAILPOINTS="name:n[,name:n...]"
// in the environment, the n-th time the code passes Failpoint("name") the
// process ends at once, as kill -9 would end it (exit code 137, no cleanup).
// Without the variable a failpoint costs one test of a flag.
#pragma once

namespace sluice {

bool FailpointsEnabled();
void FailpointSlow(const char* name);

inline void Failpoint(const char* name) {
  if (FailpointsEnabled()) FailpointSlow(name);
}

}  // namespace sluice
