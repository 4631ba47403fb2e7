// A sqllogictest runner (the format of shared/slt/FORMAT.wiki), as the
// `postgresql` engine: `sluice slt FILE|DIR...`.
//
// Statements (CREATE TABLE/VIEW/INDEX, DROP, INSERT, DELETE, UPDATE) change
// the runner's tables. Each query becomes a view, which is checked twice:
// created over the data already there (all of it in one step), and created
// before the data, which then arrives as the statements made it, over
// several steps. Both must give the expected result.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "base/status.h"

namespace sluice::sql {

struct SltOptions {
  int workers = 2;             // for the incremental run
  int hosts = 1;               // the incremental run on this many hosts over TCP
  int max_failures_shown = 5;  // per file, printed with their SQL
  bool verbose = false;
};

struct SltCounts {
  int64_t passed = 0, failed = 0, skipped = 0;
};

// Runs one file; prints a line for it (and its first failures) to `out`.
SltCounts RunSltFile(const std::string& path, const SltOptions& options, FILE* out);

// Runs files and directories (recursively, *.test), then prints
// "N passed, N failed, N skipped" alone on the last line. Returns the totals.
SltCounts RunSlt(const std::vector<std::string>& paths, const SltOptions& options, FILE* out);

}  // namespace sluice::sql
