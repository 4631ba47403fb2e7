// SLUICE_CHECK: assertions for programmer errors. They stay on in release
// builds, since a broken invariant in a database must stop it, not corrupt
// data. Run-time failures (bad input, I/O) use Status instead.
#pragma once

#include <cstdio>
#include <cstdlib>

#define SLUICE_CHECK(cond)                                                          \
  do {                                                                              \
    if (__builtin_expect(!(cond), 0)) {                                             \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                 \
    }                                                                               \
  } while (0)

#ifdef NDEBUG
#define SLUICE_DCHECK(cond) \
  do {                      \
  } while (0 && (cond))
#else
#define SLUICE_DCHECK(cond) SLUICE_CHECK(cond)
#endif
