// The `sluice` command.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cli/demo.h"

namespace {

void Usage(FILE* out) {
  std::fprintf(out,
               "usage: sluice <command> [options]\n"
               "\n"
               "commands:\n"
               "  demo [--workers N]   run the engine demo: a join feeding a GROUP BY,\n"
               "                       maintained incrementally over three steps\n"
               "  help                 show this message\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "help") == 0 || std::strcmp(argv[1], "--help") == 0) {
    Usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  std::string cmd = argv[1];
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
  std::fprintf(stderr, "sluice: unknown command '%s'\n\n", cmd.c_str());
  Usage(stderr);
  return 2;
}
