// The `sluice` command.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/allocator.h"
#include "cli/demo.h"
#include "cli/run.h"
#include "sql/slt.h"

namespace {

void Usage(FILE* out) {
  std::fprintf(out,
               "usage: sluice <command> [options]\n"
               "\n"
               "commands:\n"
               "  run PROGRAM.sql [--port N] [--host ADDR] [--workers W] [--storage DIR]\n"
               "      [--config runtime.json] [--hosts H]\n"
               "                       run a pipeline: its connectors and the HTTP API\n"
               "                       (docs/api.md) until SIGINT or SIGTERM; with --hosts,\n"
               "                       on H host processes on this machine\n"
               "  coordinator PROGRAM.sql --host-list IP:PORT,... [run's options]\n"
               "                       coordinate a pipeline on hosts started with\n"
               "                       `sluice host` (docs/multihost.md)\n"
               "  host --listen IP:PORT --exchange IP:PORT [--storage DIR]\n"
               "                       one host of a pipeline on many hosts, waiting\n"
               "                       for its coordinator\n"
               "  demo [--workers N]   run the engine demo: a join feeding a GROUP BY,\n"
               "                       maintained incrementally over three steps\n"
               "  slt [--workers N] [--hosts H] [--verbose] FILE|DIR...\n"
               "                       run sqllogictest files as the postgresql engine; each\n"
               "                       query is checked as a view over existing data and as a\n"
               "                       view maintained while the data arrives\n"
               "  certs DIR IP...      make a CA and certificates for hosts at these\n"
               "                       addresses and for their coordinator (TLS between\n"
               "                       a pipeline's processes, docs/multihost.md)\n"
               "  help                 show this message (`sluice COMMAND --help`: the\n"
               "                       command's options)\n"
               "  version              show the version\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 &&
      (std::strcmp(argv[1], "--version") == 0 || std::strcmp(argv[1], "version") == 0)) {
    const std::string commit = SLUICE_COMMIT;
    std::printf("sluice %s%s\n", SLUICE_VERSION,
                commit.empty() ? "" : (" (" + commit + ")").c_str());
    return 0;
  }
  if (argc < 2 || std::strcmp(argv[1], "help") == 0 || std::strcmp(argv[1], "--help") == 0 ||
      std::strcmp(argv[1], "-h") == 0) {
    Usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  // Every other command runs a pipeline or talks to one.
  sluice::TuneAllocatorAtStart(argv);
  std::string cmd = argv[1];
  if (cmd == "run" || cmd == "host" || cmd == "coordinator") return sluice::RunPipeline(argc, argv);
  if (cmd == "certs") return sluice::MakeCertificatesCommand(argc, argv);
  if (cmd == "demo") {
    int workers = 2;
    for (int i = 2; i < argc; ++i) {
      if (std::strcmp(argv[i], "--workers") == 0 && i + 1 < argc) {
        char* end = nullptr;
        long w = std::strtol(argv[++i], &end, 10);
        if (*end != '\0' || w < 1 || w > 1024) {
          std::fprintf(stderr, "sluice demo: --workers takes a number from 1 to 1024, not '%s'\n",
                       argv[i]);
          return 2;
        }
        workers = static_cast<int>(w);
      } else {
        std::fprintf(stderr, "sluice demo: unknown option '%s'\n", argv[i]);
        return 2;
      }
    }
    return sluice::RunDemo(workers);
  }
  if (cmd == "slt") {
    sluice::sql::SltOptions opts;
    std::vector<std::string> paths;
    for (int i = 2; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--workers" && i + 1 < argc) {
        opts.workers = std::atoi(argv[++i]);
        if (opts.workers < 1) {
          std::fprintf(stderr, "sluice slt: --workers must be at least 1\n");
          return 2;
        }
      } else if (a == "--hosts" && i + 1 < argc) {
        opts.hosts = std::atoi(argv[++i]);
        if (opts.hosts < 1 || opts.hosts > 16) {
          std::fprintf(stderr, "sluice slt: --hosts takes a number from 1 to 16\n");
          return 2;
        }
      } else if (a == "--verbose") {
        opts.verbose = true;
      } else if (!a.empty() && a[0] == '-') {
        std::fprintf(stderr, "sluice slt: unknown option '%s'\n", a.c_str());
        return 2;
      } else {
        paths.push_back(a);
      }
    }
    if (paths.empty()) {
      std::fprintf(stderr, "sluice slt: name at least one file or directory\n");
      return 2;
    }
    sluice::sql::SltCounts c = sluice::sql::RunSlt(paths, opts, stdout);
    return c.failed == 0 ? 0 : 1;
  }
  std::fprintf(stderr, "sluice: unknown command '%s'\n\n", cmd.c_str());
  Usage(stderr);
  return 2;
}
