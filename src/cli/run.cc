#include "cli/run.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/suggest.h"
#include "base/tls.h"
#include "coordinator/coordinator.h"
#include "pgwire/pgwire.h"
#include "pipeline/api_keys.h"
#include "pipeline/controller.h"
#include "runtime/tcp_transport.h"
#include "server/host_server.h"
#include "server/server.h"

namespace sluice {
namespace {

// Reads a whole file; false with the reason in *why.
bool ReadFile(const std::string& path, std::string* out, std::string* why = nullptr) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    if (why != nullptr) *why = "it is a directory";
    return false;
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (why != nullptr) *why = errno != 0 ? std::strerror(errno) : "it cannot be opened";
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    if (why != nullptr) *why = "reading it failed";
    return false;
  }
  *out = ss.str();
  return true;
}

bool ParseInt(const char* s, long lo, long hi, long* out) {
  char* end = nullptr;
  *out = std::strtol(s, &end, 10);
  return *s != '\0' && *end == '\0' && *out >= lo && *out <= hi;
}

// The options of `run`, `coordinator` and `host`.
struct Options {
  std::string command;
  std::string program_path, config_path, storage, host = "127.0.0.1";
  long port = 8080, workers = 0, max_request_mib = 1024, hosts = 0;
  std::string host_list, listen, exchange, secret_file;
  long report_fd = -1;   // host: where to write the addresses it listens on
  TlsFiles tls;          // host and coordinator: between processes; run: the public API
  TlsFiles api_tls;      // coordinator: its public API
  bool host_tls = true;  // run --hosts: TLS between its processes
  long coordinator_timeout_ms = 30000, exchange_timeout_ms = 10000, step_timeout_ms = 600000,
       request_timeout_ms = 30000;
  long pg_port = -1;  // -1: no PostgreSQL protocol
  std::string pg_auth = "scram-sha-256", api_key_file;
  // The HTTP API's limits (server/http_server.h).
  long http_max_connections = 16384, http_max_connections_per_client = 4096,
       http_header_timeout_ms = 10000, http_body_timeout_ms = 10000,
       http_idle_timeout_ms = 60000, http_max_header_kib = 16;
  std::shared_ptr<pipeline::ApiKeys> keys;
};

void Usage(const std::string& command, FILE* out = stderr, bool full = false) {
  if (command == "host") {
    std::fprintf(out,
                 "usage: sluice host --listen IP:PORT --exchange IP:PORT [--storage DIR]\n"
                 "                   [--secret-file FILE] [--coordinator-timeout-ms N]\n"
                 "                   [--exchange-timeout-ms N] [--report-fd N]\n"
                 "                   [--tls-cert FILE --tls-key FILE --tls-ca FILE]\n"
                 "       (the secret may also come from SLUICE_SECRET; a port 0 is one the\n"
                 "       kernel picks, and --report-fd N writes the line \"LISTEN EXCHANGE\"\n"
                 "       with both addresses to file descriptor N once it listens)\n");
  } else if (command == "coordinator") {
    std::fprintf(out,
                 "usage: sluice coordinator PROGRAM.sql --host-list IP:PORT,IP:PORT,...\n"
                 "                   [--port N] [--host ADDR] [--workers W] [--storage DIR]\n"
                 "                   [--config runtime.json] [--secret-file FILE]\n"
                 "                   [--step-timeout-ms N] [--request-timeout-ms N]\n"
                 "                   [--tls-cert FILE --tls-key FILE --tls-ca FILE]\n"
                 "                   [--api-tls-cert FILE --api-tls-key FILE]\n"
                 "                   [--pg-port N [--pg-auth scram-sha-256|password]]\n"
                 "                   [--api-key-file FILE] [HTTP limits, see --help]\n");
  } else {
    std::fprintf(out,
                 "usage: sluice run PROGRAM.sql [--port N] [--host ADDR] [--workers W]\n"
                 "                  [--storage DIR] [--config runtime.json]\n"
                 "                  [--max-request-mib N] [--tls-cert FILE --tls-key FILE]\n"
                 "                  [--hosts H [--no-host-tls]]\n"
                 "                  [--pg-port N [--pg-auth scram-sha-256|password]]\n"
                 "                  [--api-key-file FILE] [HTTP limits, see --help]\n");
  }
  if (!full && out != stdout) return;
  std::fprintf(out,
               "\n"
               "  --port N             the HTTP API's port (default 8080; 0: any free one)\n"
               "  --host ADDR          the address it listens on (default 127.0.0.1)\n"
               "  --workers W          worker threads (per host)\n"
               "  --storage DIR        checkpoints, the input journal and spilled state; a\n"
               "                       restart on DIR resumes from its latest checkpoint, and\n"
               "                       a clean stop takes one\n"
               "  --config FILE        the runtime config, a JSON object (docs/api.md)\n"
               "  --max-request-mib N  the largest request body (default 1024)\n"
               "  --tls-cert, --tls-key  serve the API over HTTPS\n"
               "  --hosts H            run on H host processes on this machine, with a\n"
               "                       coordinator in this one (docs/multihost.md)\n"
               "  --no-host-tls        between those processes, plain TCP (default: TLS with\n"
               "                       certificates made for the run)\n"
               "  --pg-port N          also serve PostgreSQL's protocol on port N, for psql\n"
               "                       and drivers (docs/pgwire.md; 0: any free port)\n"
               "  --pg-auth METHOD     how PostgreSQL clients give their key as a password:\n"
               "                       scram-sha-256 (default) or password (cleartext)\n"
               "  --api-key-file FILE  lines of KEY SCOPE (read, write or admin): the keys\n"
               "                       HTTP requests carry (Authorization: Bearer KEY)\n"
               "                       and PostgreSQL clients give as their password;\n"
               "                       without it, the API is open to any client\n"
               "HTTP limits (each refused with a JSON error; counted in /stats):\n"
               "  --http-max-connections N  connections at once (default 16384); beyond\n"
               "                       it, 503 with Retry-After\n"
               "  --http-max-connections-per-client N  from one address (default 4096)\n"
               "  --http-header-timeout-ms N  a request's head must arrive within this\n"
               "                       (default 10000; then 408 and closed)\n"
               "  --http-body-timeout-ms N  a body that stops moving this long is cut off\n"
               "                       (default 10000)\n"
               "  --http-idle-timeout-ms N  a kept-alive connection idle this long is\n"
               "                       closed (default 60000)\n"
               "  --http-max-header-kib N  the largest request head (default 16; 431)\n"
               "Environment: SLUICE_DEV_TWEAKS (a JSON object added to dev_tweaks),\n"
               "SLUICE_SECRET (the secret of a pipeline on many hosts).\n");
}

// The options the command's help names, for "did you mean".
std::vector<std::string> KnownOptions(const std::string& command) {
  char* text = nullptr;
  size_t size = 0;
  FILE* f = open_memstream(&text, &size);
  if (f == nullptr) return {};
  Usage(command, f, /*full=*/true);
  std::fclose(f);
  std::vector<std::string> options;
  const std::string help(text, size);
  std::free(text);
  for (size_t at = help.find("--"); at != std::string::npos; at = help.find("--", at + 2)) {
    size_t end = at + 2;
    while (end < help.size() && (std::isalnum(static_cast<unsigned char>(help[end])) ||
                                 help[end] == '-')) {
      ++end;
    }
    if (end > at + 2) options.push_back(help.substr(at, end - at));
  }
  return options;
}

// Returns 0 when parsed, else the exit code.
int Parse(int argc, char** argv, Options* o) {
  o->command = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      Usage(o->command, stdout);
      std::exit(0);
    }
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "sluice %s: %s needs a value\n", o->command.c_str(), a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    auto number = [&](long lo, long hi, long* out) {
      if (!ParseInt(value(), lo, hi, out)) {
        std::fprintf(stderr, "sluice %s: %s takes a number from %ld to %ld\n", o->command.c_str(),
                     a.c_str(), lo, hi);
        return false;
      }
      return true;
    };
    bool ok = true;
    if (a == "--port") {
      ok = number(0, 65535, &o->port);
    } else if (a == "--workers") {
      ok = number(1, 1024, &o->workers);
    } else if (a == "--max-request-mib") {
      ok = number(1, 1 << 20, &o->max_request_mib);
    } else if (a == "--hosts" && o->command == "run") {
      ok = number(1, 64, &o->hosts);
    } else if (a == "--coordinator-timeout-ms") {
      ok = number(100, 3600000, &o->coordinator_timeout_ms);
    } else if (a == "--exchange-timeout-ms") {
      ok = number(100, 3600000, &o->exchange_timeout_ms);
    } else if (a == "--step-timeout-ms") {
      ok = number(100, 86400000, &o->step_timeout_ms);
    } else if (a == "--request-timeout-ms") {
      ok = number(1000, 3600000, &o->request_timeout_ms);
    } else if (a == "--host") {
      o->host = value();
    } else if (a == "--storage") {
      o->storage = value();
    } else if (a == "--config") {
      o->config_path = value();
    } else if (a == "--host-list" && o->command == "coordinator") {
      o->host_list = value();
    } else if (a == "--listen" && o->command == "host") {
      o->listen = value();
    } else if (a == "--exchange" && o->command == "host") {
      o->exchange = value();
    } else if (a == "--report-fd" && o->command == "host") {
      ok = number(0, 1 << 20, &o->report_fd);
    } else if (a == "--secret-file") {
      o->secret_file = value();
    } else if (a == "--tls-cert") {
      o->tls.cert = value();
    } else if (a == "--tls-key") {
      o->tls.key = value();
    } else if (a == "--tls-ca" && o->command != "run") {
      o->tls.ca = value();
    } else if (a == "--api-tls-cert" && o->command == "coordinator") {
      o->api_tls.cert = value();
    } else if (a == "--api-tls-key" && o->command == "coordinator") {
      o->api_tls.key = value();
    } else if (a == "--pg-port" && o->command != "host") {
      ok = number(0, 65535, &o->pg_port);
    } else if (a == "--pg-auth" && o->command != "host") {
      o->pg_auth = value();
      if (o->pg_auth != "scram-sha-256" && o->pg_auth != "password") {
        std::fprintf(stderr, "sluice %s: --pg-auth is scram-sha-256 or password, not '%s'\n",
                     o->command.c_str(), o->pg_auth.c_str());
        return 2;
      }
    } else if (a == "--api-key-file" && o->command != "host") {
      o->api_key_file = value();
    } else if (a == "--http-max-connections" && o->command != "host") {
      ok = number(1, 10000000, &o->http_max_connections);
    } else if (a == "--http-max-connections-per-client" && o->command != "host") {
      ok = number(1, 10000000, &o->http_max_connections_per_client);
    } else if (a == "--http-header-timeout-ms" && o->command != "host") {
      ok = number(100, 3600000, &o->http_header_timeout_ms);
    } else if (a == "--http-body-timeout-ms" && o->command != "host") {
      ok = number(100, 3600000, &o->http_body_timeout_ms);
    } else if (a == "--http-idle-timeout-ms" && o->command != "host") {
      ok = number(100, 86400000, &o->http_idle_timeout_ms);
    } else if (a == "--http-max-header-kib" && o->command != "host") {
      ok = number(1, 1024, &o->http_max_header_kib);
    } else if (a == "--no-host-tls" && o->command == "run") {
      o->host_tls = false;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "sluice %s: unknown option '%s'%s\n", o->command.c_str(), a.c_str(),
                   DidYouMean(a, KnownOptions(o->command)).c_str());
      Usage(o->command);
      return 2;
    } else if (o->program_path.empty() && o->command != "host") {
      o->program_path = a;
    } else {
      std::fprintf(stderr, "sluice %s: unexpected argument '%s'\n", o->command.c_str(), a.c_str());
      return 2;
    }
    if (!ok) return 2;
  }
  if (o->program_path.empty() && o->command != "host") {
    Usage(o->command);
    return 2;
  }
  // Certificates are checked before anything starts.
  auto check_api = [&](const TlsFiles& api, const char* flags) {
    if (api.cert.empty() != api.key.empty()) {
      std::fprintf(stderr, "sluice %s: HTTPS needs both %s\n", o->command.c_str(), flags);
      return false;
    }
    if (api.cert.empty()) return true;
    for (const std::string& f : {api.cert, api.key}) {
      if (!std::ifstream(f)) {
        std::fprintf(stderr, "sluice %s: cannot read %s: %s\n", o->command.c_str(), f.c_str(),
                     std::strerror(errno));
        return false;
      }
    }
    return true;
  };
  if (!o->api_key_file.empty()) {
    auto keys = pipeline::ApiKeys::Load(o->api_key_file);
    if (!keys.ok()) {
      std::fprintf(stderr, "sluice %s: %s\n", o->command.c_str(), keys.status().message().c_str());
      return 2;
    }
    o->keys = std::make_shared<pipeline::ApiKeys>(std::move(keys).value());
  }
  if (o->command == "run") {
    if (!check_api(o->tls, "--tls-cert and --tls-key")) return 2;
  } else {
    if (!check_api(o->api_tls, "--api-tls-cert and --api-tls-key")) return 2;
    Status s = CheckTlsFiles(o->tls);
    if (!s.ok()) {
      std::fprintf(stderr, "sluice %s: %s\n", o->command.c_str(), s.message().c_str());
      return 2;
    }
  }
  return 0;
}

// The program's text, its config and its base directory.
int LoadProgram(const Options& o, std::string* text, pipeline::PipelineConfig* config,
                std::string* base_dir) {
  std::string why;
  if (!ReadFile(o.program_path, text, &why)) {
    std::fprintf(stderr, "sluice %s: cannot read %s: %s\n", o.command.c_str(),
                 o.program_path.c_str(), why.c_str());
    return 1;
  }
  if (!o.config_path.empty()) {
    std::string json;
    if (!ReadFile(o.config_path, &json, &why)) {
      std::fprintf(stderr, "sluice %s: cannot read %s: %s\n", o.command.c_str(),
                   o.config_path.c_str(), why.c_str());
      return 1;
    }
    auto c = pipeline::PipelineConfig::Parse(json);
    if (!c.ok()) {
      std::fprintf(stderr, "sluice %s: %s: %s\n", o.command.c_str(), o.config_path.c_str(),
                   c.status().message().c_str());
      return 1;
    }
    *config = *c;
  }
  // For tests and experiments: dev_tweaks from the environment too.
  if (const char* tweaks = std::getenv("SLUICE_DEV_TWEAKS"); tweaks != nullptr && *tweaks) {
    Status s = config->MergeDevTweaks(tweaks);
    if (!s.ok()) {
      std::fprintf(stderr, "sluice %s: SLUICE_DEV_TWEAKS: %s\n", o.command.c_str(),
                   s.message().c_str());
      return 1;
    }
  }
  if (o.workers > 0) config->workers = static_cast<int>(o.workers);
  if (!o.storage.empty()) config->storage = o.storage;
  *base_dir = ".";
  if (size_t slash = o.program_path.rfind('/'); slash != std::string::npos) {
    *base_dir = o.program_path.substr(0, slash == 0 ? 1 : slash);
  }
  return 0;
}

// The pipeline's secret, from --secret-file or SLUICE_SECRET.
std::string LoadSecret(const Options& o) {
  std::string secret;
  if (!o.secret_file.empty()) {
    if (!ReadFile(o.secret_file, &secret)) {
      std::fprintf(stderr, "sluice %s: cannot read %s\n", o.command.c_str(), o.secret_file.c_str());
      std::exit(1);
    }
    while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
  } else if (const char* env = std::getenv("SLUICE_SECRET")) {
    secret = env;
  }
  return secret;
}

std::string NewSecret() {
  std::random_device rd;
  std::string s;
  char buf[9];
  for (int i = 0; i < 4; ++i) {
    std::snprintf(buf, sizeof buf, "%08x", rd());
    s += buf;
  }
  return s;
}

// Signals are taken by sigwait(), never by the pipeline's threads.
sigset_t BlockSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return signals;
}

// Serves `api` until SIGINT or SIGTERM (or until `done` says so).
int Serve(const Options& o, pipeline::PipelineApi* api, const std::string& what,
          const std::function<void()>& stop, sigset_t signals) {
  server::ServerOptions so;
  so.tls = o.command == "coordinator" ? o.api_tls : o.tls;
  so.host = o.host;
  so.port = static_cast<int>(o.port);
  so.max_request_bytes = static_cast<uint64_t>(o.max_request_mib) << 20;
  so.keys = o.keys.get();
  so.limits.max_connections = static_cast<uint64_t>(o.http_max_connections);
  so.limits.max_connections_per_client = static_cast<uint64_t>(o.http_max_connections_per_client);
  so.limits.header_timeout = std::chrono::milliseconds(o.http_header_timeout_ms);
  so.limits.body_timeout = std::chrono::milliseconds(o.http_body_timeout_ms);
  so.limits.idle_timeout = std::chrono::milliseconds(o.http_idle_timeout_ms);
  so.limits.max_header_bytes = static_cast<uint64_t>(o.http_max_header_kib) << 10;
  server::Server http(api, so);
  Status s = http.Start();
  if (!s.ok()) {
    std::fprintf(stderr, "sluice %s: %s\n", o.command.c_str(), s.message().c_str());
    stop();
    return 1;
  }
  const std::string url = std::string(so.tls.cert.empty() ? "http" : "https") + "://" + o.host +
                          ":" + std::to_string(http.port());
  std::fprintf(stderr, "sluice: running %s; listening on %s\n", what.c_str(), url.c_str());
  std::fprintf(stderr, "sluice: the web console is at %s/\n", url.c_str());
  if (o.keys) {
    std::fprintf(stderr, "sluice: the API takes %zu API keys (--api-key-file)\n", o.keys->size());
  } else {
    std::fprintf(stderr, "sluice: the API is open to any client (no --api-key-file)\n");
  }
  std::unique_ptr<pgwire::PgServer> pg;
  if (o.pg_port >= 0) {
    pgwire::PgOptions po;
    po.host = o.host;
    po.port = static_cast<int>(o.pg_port);
    po.tls = so.tls;
    po.keys = o.keys.get();
    po.auth = o.pg_auth;
    pg = std::make_unique<pgwire::PgServer>(api, po);
    if (Status ps = pg->Start(); !ps.ok()) {
      std::fprintf(stderr, "sluice %s: %s\n", o.command.c_str(), ps.message().c_str());
      stop();
      http.Stop();
      return 1;
    }
    std::fprintf(stderr, "sluice: PostgreSQL clients: psql -h %s -p %d%s\n", o.host.c_str(),
                 pg->port(),
                 o.keys ? " (the password is an API key)" : " (no password: any client is let in)");
  }
  int sig = 0;
  sigwait(&signals, &sig);
  std::fprintf(stderr, "sluice: %s received, stopping\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
  // The pipeline first: a statement waiting on it (an INSERT while it is
  // paused) then ends, and its session with it.
  stop();
  if (pg) pg->Stop();
  http.Stop();
  std::fprintf(stderr, "sluice: stopped at step %llu\n",
               static_cast<unsigned long long>(api->step()));
  return 0;
}

std::string Describe(const Options& o, const sql::Program& p, int workers, int hosts) {
  std::string s = o.program_path + " (" + std::to_string(p.tables.size()) + " tables, " +
                  std::to_string(p.views.size()) + " views) on ";
  if (hosts > 0) s += std::to_string(hosts) + " hosts of ";
  s += std::to_string(workers) + " worker" + (workers == 1 ? "" : "s");
  return s;
}

int RunOne(const Options& o) {
  std::string text, base_dir;
  pipeline::PipelineConfig config;
  if (int rc = LoadProgram(o, &text, &config, &base_dir)) return rc;
  sigset_t signals = BlockSignals();
  auto controller = pipeline::Controller::Start(text, config, base_dir);
  if (!controller.ok()) {
    std::fprintf(stderr, "sluice run: %s: %s\n", o.program_path.c_str(),
                 controller.status().message().c_str());
    return 1;
  }
  return Serve(
      o, controller->get(), Describe(o, (*controller)->program(), config.workers, 0),
      [&] { (*controller)->Stop(); }, signals);
}

Result<std::vector<coordinator::HostAddress>> ParseHostList(const std::string& list) {
  std::vector<coordinator::HostAddress> out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    SLUICE_ASSIGN_OR_RETURN(coordinator::HostAddress a, coordinator::ParseAddress(item));
    a.index = static_cast<int>(out.size());
    out.push_back(a);
  }
  if (out.empty()) return Status::InvalidArgument("--host-list names no host");
  return out;
}

int Coordinate(const Options& o, const std::vector<coordinator::HostAddress>& hosts,
               const std::string& secret, const TlsFiles& tls, sigset_t signals,
               const std::function<void()>& after_stop) {
  std::string text, base_dir;
  pipeline::PipelineConfig config;
  if (int rc = LoadProgram(o, &text, &config, &base_dir)) return rc;
  coordinator::CoordinatorOptions co;
  co.hosts = hosts;
  co.secret = secret;
  co.tls = tls;
  co.step_timeout = std::chrono::milliseconds(o.step_timeout_ms);
  co.request_timeout = std::chrono::milliseconds(o.request_timeout_ms);
  auto c = coordinator::Coordinator::Start(text, config, base_dir, co);
  if (!c.ok()) {
    std::fprintf(stderr, "sluice %s: %s: %s\n", o.command.c_str(), o.program_path.c_str(),
                 c.status().message().c_str());
    after_stop();
    return 1;
  }
  const int rc = Serve(
      o, c->get(), Describe(o, (*c)->program(), config.workers, static_cast<int>(hosts.size())),
      [&] {
        (*c)->Stop();
        after_stop();
      },
      signals);
  return rc;
}

int RunCoordinator(const Options& o) {
  const std::string secret = LoadSecret(o);
  if (secret.empty()) {
    std::fprintf(stderr,
                 "sluice coordinator: give the pipeline's secret with --secret-file FILE or "
                 "SLUICE_SECRET\n");
    return 2;
  }
  auto hosts = ParseHostList(o.host_list);
  if (!hosts.ok()) {
    std::fprintf(stderr, "sluice coordinator: %s\n", hosts.status().message().c_str());
    return 2;
  }
  return Coordinate(o, *hosts, secret, o.tls, BlockSignals(), [] {});
}

int RunHost(const Options& o) {
  server::HostOptions ho;
  auto listen = coordinator::ParseAddress(o.listen, /*any_port=*/true);
  if (!listen.ok() || o.exchange.empty()) {
    std::fprintf(stderr, "sluice host: %s\n",
                 listen.ok() ? "--exchange IP:PORT is missing"
                             : ("--listen: " + listen.status().message()).c_str());
    Usage("host");
    return 2;
  }
  if (auto ex = coordinator::ParseAddress(o.exchange, /*any_port=*/true); !ex.ok()) {
    std::fprintf(stderr, "sluice host: --exchange: %s\n", ex.status().message().c_str());
    return 2;
  }
  ho.http_address = listen->ip;
  ho.http_port = listen->port;
  ho.exchange_address = o.exchange;
  ho.storage = o.storage;
  ho.secret = LoadSecret(o);
  ho.tls = o.tls;
  ho.coordinator_timeout = std::chrono::milliseconds(o.coordinator_timeout_ms);
  ho.exchange_timeout = std::chrono::milliseconds(o.exchange_timeout_ms);
  sigset_t signals = BlockSignals();
  server::HostServer host(ho);
  Status s = host.Start();
  if (!s.ok()) {
    std::fprintf(stderr, "sluice host: %s\n", s.message().c_str());
    return 1;
  }
  const std::string api = ho.http_address + ":" + std::to_string(host.port());
  std::fprintf(stderr, "sluice host: coordination API on %s://%s, exchange %s%s\n",
               ho.tls.enabled() ? "https" : "http", api.c_str(), host.exchange_address().c_str(),
               ho.tls.enabled() ? " (TLS)" : "");
  if (o.report_fd >= 0) {
    const std::string line = api + " " + host.exchange_address() + "\n";
    const int fd = static_cast<int>(o.report_fd);
    if (::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
      std::fprintf(stderr, "sluice host: cannot write to --report-fd %d: %s\n", fd,
                   std::strerror(errno));
      return 1;
    }
    ::close(fd);
  }
  std::thread([&host, signals] {
    int sig = 0;
    sigwait(&signals, &sig);
    host.RequestStop();
  }).detach();
  s = host.Wait();
  if (!s.ok()) std::fprintf(stderr, "sluice host: %s\n", s.message().c_str());
  host.Stop();
  return s.ok() ? 0 : 1;
}

// The coordination API's address a host started with --report-fd writes on
// `fd` once it listens: "API EXCHANGE\n". Nothing within the timeout, or the
// pipe's end (the host stopped; its error is on stderr), is an error.
Result<coordinator::HostAddress> ReadHostReport(int fd, long timeout_ms) {
  std::string line;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (line.find('\n') == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    const int ready = left.count() > 0 ? poll(&p, 1, static_cast<int>(left.count())) : 0;
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      return Status::Unavailable("did not say where it listens within " +
                                 std::to_string(timeout_ms) + " ms");
    }
    char buf[256];
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::Unavailable("stopped before it listened");
    line.append(buf, static_cast<size_t>(n));
  }
  return coordinator::ParseAddress(line.substr(0, line.find(' ')));
}

// `sluice run --hosts H`: H host processes on 127.0.0.2, 127.0.0.3, ...
// and this process as their coordinator.
int RunHosts(const Options& o) {
  // SLUICE_SECRET (or --secret-file) if given, else a fresh one.
  std::string secret = LoadSecret(o);
  if (secret.empty()) secret = NewSecret();
  sigset_t signals = BlockSignals();
  std::vector<coordinator::HostAddress> hosts;
  std::vector<pid_t> children;
  auto stop_children = [&children] {
    // Told to stop (by the coordinator, and by SIGTERM here); those that do
    // not end within 5 s are killed.
    for (pid_t pid : children) kill(pid, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    for (pid_t pid : children) {
      while (waitpid(pid, nullptr, WNOHANG) != pid) {
        if (std::chrono::steady_clock::now() > deadline) {
          kill(pid, SIGKILL);
          waitpid(pid, nullptr, 0);
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    children.clear();
  };
  // The program and config are read before any host starts; the storage
  // (from --storage or the config) has a directory per host.
  std::string storage;
  {
    std::string text, base_dir;
    pipeline::PipelineConfig config;
    if (int rc = LoadProgram(o, &text, &config, &base_dir)) return rc;
    storage = config.storage;
  }
  // A throwaway CA and certificates for the hosts' addresses and the
  // coordinator, so that the processes talk over TLS: in the storage, or
  // in a directory of this run's that goes with it.
  std::map<std::string, TlsFiles> certs;
  std::string tmp_certs;
  struct RemoveCerts {
    std::string* dir;
    ~RemoveCerts() {
      std::error_code ec;
      if (!dir->empty()) std::filesystem::remove_all(*dir, ec);
    }
  } remove_certs{&tmp_certs};
  if (o.host_tls) {
    std::string dir = storage.empty() ? "" : storage + "/tls";
    if (dir.empty()) {
      char tmpl[] = "/tmp/sluice-tls-XXXXXX";
      if (mkdtemp(tmpl) == nullptr) {
        std::fprintf(stderr, "sluice run: cannot make a directory for certificates: %s\n",
                     std::strerror(errno));
        return 1;
      }
      dir = tmp_certs = tmpl;
    }
    std::map<std::string, std::string> ips = {{"coordinator", ""}};
    for (long h = 0; h < o.hosts; ++h) {
      ips["host-" + std::to_string(h)] = "127.0.0." + std::to_string(2 + h);
    }
    auto made = MakeCertificates(dir, ips);
    if (!made.ok()) {
      std::fprintf(stderr, "sluice run: %s\n", made.status().message().c_str());
      return 1;
    }
    certs = std::move(made).value();
    std::fprintf(stderr,
                 "sluice: the hosts talk over TLS, with certificates made for this run in %s\n",
                 dir.c_str());
  }
  // Each host listens on ports the kernel picks, and says which on a pipe:
  // no two pipelines on one machine can meet on a port.
  std::vector<int> reports;
  for (long h = 0; h < o.hosts; ++h) {
    const std::string ip = "127.0.0." + std::to_string(2 + h);
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) {
      std::fprintf(stderr, "sluice run: cannot make a pipe: %s\n", std::strerror(errno));
      stop_children();
      return 1;
    }
    // argv[0] "sluice": ps shows "sluice host --listen ..." (and, once
    // activated, the process calls itself "sluice host N").
    std::vector<std::string> args = {"sluice",
                                     "host",
                                     "--listen",
                                     ip + ":0",
                                     "--exchange",
                                     ip + ":0",
                                     "--report-fd",
                                     std::to_string(report[1]),
                                     "--coordinator-timeout-ms",
                                     std::to_string(o.coordinator_timeout_ms),
                                     "--exchange-timeout-ms",
                                     std::to_string(o.exchange_timeout_ms)};
    if (!storage.empty()) {
      args.push_back("--storage");
      args.push_back(storage + "/host-" + std::to_string(h));
    }
    if (o.host_tls) {
      const TlsFiles& t = certs.at("host-" + std::to_string(h));
      args.insert(args.end(), {"--tls-cert", t.cert, "--tls-key", t.key, "--tls-ca", t.ca});
    }
    const pid_t pid = fork();
    if (pid == 0) {
      // A host dies with its coordinator.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      sigset_t none;
      sigemptyset(&none);
      pthread_sigmask(SIG_SETMASK, &none, nullptr);
      setenv("SLUICE_SECRET", secret.c_str(), 1);
      fcntl(report[1], F_SETFD, 0);  // the host's, across exec
      std::vector<char*> cargv;
      for (std::string& s : args) cargv.push_back(s.data());
      cargv.push_back(nullptr);
      execv("/proc/self/exe", cargv.data());
      _exit(127);
    }
    close(report[1]);
    reports.push_back(report[0]);
    children.push_back(pid);
  }
  bool started = true;
  for (long h = 0; h < o.hosts; ++h) {
    auto api = ReadHostReport(reports[static_cast<size_t>(h)], o.coordinator_timeout_ms);
    close(reports[static_cast<size_t>(h)]);
    if (!api.ok()) {
      if (started)
        std::fprintf(stderr, "sluice run: host %ld: %s\n", h, api.status().message().c_str());
      started = false;
      continue;
    }
    api->index = static_cast<int>(h);
    hosts.push_back(*api);
  }
  if (!started) {
    stop_children();
    return 1;
  }
  const int rc = Coordinate(o, hosts, secret, o.host_tls ? certs.at("coordinator") : TlsFiles{},
                            signals, stop_children);
  stop_children();
  return rc;
}

}  // namespace

int RunPipeline(int argc, char** argv) {
  Options o;
  if (int rc = Parse(argc, argv, &o)) return rc;
  if (o.command == "host") return RunHost(o);
  if (o.command == "coordinator") return RunCoordinator(o);
  if (o.hosts > 0) return RunHosts(o);
  return RunOne(o);
}

int MakeCertificatesCommand(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: sluice certs DIR IP [IP...]\n"
                 "  makes DIR/ca.pem, and DIR/host-N.pem and .key for the host at the Nth IP\n"
                 "  (the address of its --listen and --exchange), and DIR/coordinator.pem and\n"
                 "  .key; the CA's key is not kept: make them all again to add a host\n");
    return 2;
  }
  const std::string dir = argv[2];
  std::map<std::string, std::string> ips = {{"coordinator", ""}};
  for (int i = 3; i < argc; ++i) {
    const std::string ip = argv[i];
    unsigned char addr[16];
    if (inet_pton(AF_INET, ip.c_str(), addr) != 1 && inet_pton(AF_INET6, ip.c_str(), addr) != 1) {
      std::fprintf(stderr, "sluice certs: \"%s\" is not an IP address\n", ip.c_str());
      return 2;
    }
    ips["host-" + std::to_string(i - 3)] = ip;
  }
  auto made = MakeCertificates(dir, ips);
  if (!made.ok()) {
    std::fprintf(stderr, "sluice certs: %s\n", made.status().message().c_str());
    return 1;
  }
  for (const auto& [name, f] : *made) {
    std::printf("%-12s --tls-cert %s --tls-key %s --tls-ca %s\n", name.c_str(), f.cert.c_str(),
                f.key.c_str(), f.ca.c_str());
  }
  return 0;
}

}  // namespace sluice
