#include "cli/run.h"

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "pipeline/controller.h"
#include "server/server.h"

namespace sluice {
namespace {

void RunUsage() {
  std::fprintf(stderr,
               "usage: sluice run PROGRAM.sql [--port N] [--host ADDR] [--workers W]\n"
               "                  [--storage DIR] [--config runtime.json]\n"
               "                  [--max-request-mib N]\n");
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

bool ParseInt(const char* s, long lo, long hi, long* out) {
  char* end = nullptr;
  *out = std::strtol(s, &end, 10);
  return *s != '\0' && *end == '\0' && *out >= lo && *out <= hi;
}

}  // namespace

int RunPipeline(int argc, char** argv) {
  pipeline::ConfigureAllocator();
  std::string program_path, config_path, storage, host = "127.0.0.1";
  long port = 8080, workers = 0, max_request_mib = 1024;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "sluice run: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--port") {
      if (!ParseInt(value(), 0, 65535, &port)) {
        std::fprintf(stderr, "sluice run: --port takes a number from 0 to 65535\n");
        return 2;
      }
    } else if (a == "--workers") {
      if (!ParseInt(value(), 1, 1024, &workers)) {
        std::fprintf(stderr, "sluice run: --workers takes a number from 1 to 1024\n");
        return 2;
      }
    } else if (a == "--max-request-mib") {
      if (!ParseInt(value(), 1, 1 << 20, &max_request_mib)) {
        std::fprintf(stderr, "sluice run: --max-request-mib takes a positive number\n");
        return 2;
      }
    } else if (a == "--host") {
      host = value();
    } else if (a == "--storage") {
      storage = value();
    } else if (a == "--config") {
      config_path = value();
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "sluice run: unknown option '%s'\n", a.c_str());
      RunUsage();
      return 2;
    } else if (program_path.empty()) {
      program_path = a;
    } else {
      std::fprintf(stderr, "sluice run: one program at a time ('%s' is a second)\n", a.c_str());
      return 2;
    }
  }
  if (program_path.empty()) {
    RunUsage();
    return 2;
  }
  std::string text;
  if (!ReadFile(program_path, &text)) {
    std::fprintf(stderr, "sluice run: cannot read %s\n", program_path.c_str());
    return 1;
  }
  pipeline::PipelineConfig config;
  if (!config_path.empty()) {
    std::string json;
    if (!ReadFile(config_path, &json)) {
      std::fprintf(stderr, "sluice run: cannot read %s\n", config_path.c_str());
      return 1;
    }
    auto c = pipeline::PipelineConfig::Parse(json);
    if (!c.ok()) {
      std::fprintf(stderr, "sluice run: %s: %s\n", config_path.c_str(),
                   c.status().message().c_str());
      return 1;
    }
    config = *c;
  }
  if (workers > 0) config.workers = static_cast<int>(workers);
  if (!storage.empty()) config.storage = storage;

  // Signals are taken by sigwait() below, never by the pipeline's threads.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  std::string base_dir = ".";
  if (size_t slash = program_path.rfind('/'); slash != std::string::npos) {
    base_dir = program_path.substr(0, slash == 0 ? 1 : slash);
  }
  auto controller = pipeline::Controller::Start(text, config, base_dir);
  if (!controller.ok()) {
    std::fprintf(stderr, "sluice run: %s: %s\n", program_path.c_str(),
                 controller.status().message().c_str());
    return 1;
  }
  server::ServerOptions so;
  so.host = host;
  so.port = static_cast<int>(port);
  so.max_request_bytes = static_cast<uint64_t>(max_request_mib) << 20;
  server::Server http(controller->get(), so);
  Status s = http.Start();
  if (!s.ok()) {
    std::fprintf(stderr, "sluice run: %s\n", s.message().c_str());
    (*controller)->Stop();
    return 1;
  }
  const sql::Program& p = (*controller)->program();
  std::fprintf(stderr,
               "sluice: running %s (%zu tables, %zu views) on %d worker%s; listening on "
               "http://%s:%d\n",
               program_path.c_str(), p.tables.size(), p.views.size(), config.workers,
               config.workers == 1 ? "" : "s", host.c_str(), http.port());
  int sig = 0;
  sigwait(&signals, &sig);
  std::fprintf(stderr, "sluice: %s received, stopping\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
  (*controller)->Stop();
  http.Stop();
  std::fprintf(stderr, "sluice: stopped at step %llu\n",
               static_cast<unsigned long long>((*controller)->step()));
  return 0;
}

}  // namespace sluice
