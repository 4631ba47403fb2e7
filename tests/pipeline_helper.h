// The test helper of the black-box tests: a `sluice run` process with its
// program in a fresh directory, driven over HTTP.
#pragma once

#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace sluice::testing {

using Json = nlohmann::json;

// A TLS client that closes a connection the server already closed would
// raise SIGPIPE and end the test binary without a word.
inline const bool kSigpipeIgnored = (signal(SIGPIPE, SIG_IGN), true);
using namespace std::chrono_literals;

inline std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string UrlEncode(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

// The records of a JSON lines file that a sink may still be writing: each
// whole line parsed, the last one left out until its newline is written.
inline std::vector<Json> SinkLines(const std::string& path) {
  std::vector<Json> out;
  const std::string text = Slurp(path);
  for (size_t at = 0, nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) {
    out.push_back(Json::parse(text.substr(at, nl - at)));
  }
  return out;
}

// A JSON file of {"insert": row} and {"delete": row} lines, replayed: each
// row left with its count.
inline std::map<std::string, int> ReplayChanges(const std::string& path) {
  std::map<std::string, int> rows;
  for (const Json& r : SinkLines(path)) {
    if (r.contains("insert")) ++rows[r["insert"].dump()];
    if (r.contains("delete")) --rows[r["delete"].dump()];
  }
  for (auto it = rows.begin(); it != rows.end();) it = it->second == 0 ? rows.erase(it) : ++it;
  return rows;
}

// A `sluice run` process with its program in a fresh directory.
// A TIMESTAMP `offset_ms` from the wall clock, as JSON input writes it.
inline std::string WallClockPlus(int64_t offset_ms) {
  const auto t = std::chrono::system_clock::now() + std::chrono::milliseconds(offset_ms);
  const int64_t ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  const time_t secs = static_cast<time_t>(ms / 1000);
  struct tm tm;
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d.%03d", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

class Pipeline {
 public:
  explicit Pipeline(const std::string& program, std::vector<std::string> args = {},
                    const std::map<std::string, std::string>& files = {}) {
    char tmpl[] = "/tmp/sluice-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    for (const auto& [name, text] : files) std::ofstream(dir_ + "/" + name) << text;
    std::ofstream(dir_ + "/program.sql") << program;
    log_ = dir_ + "/log.txt";
    args_ = std::move(args);
    // "$DIR" in an argument is the pipeline's directory.
    for (std::string& a : args_) {
      if (a.rfind("$DIR", 0) == 0) a = dir_ + a.substr(4);
    }
    Spawn();
  }

  // Starts `sluice run` (again) on the program in dir(), and waits for it to
  // listen or to end. One still running from before is killed first: two
  // must never share the directory (and none may outlive the test).
  void Spawn() {
    Kill9();
    port_ = 0;
    exit_code_ = -1;
    std::ofstream(log_, std::ios::trunc).close();  // not the last run's log
    pid_ = fork();
    if (pid_ == 0) {
      int fd = open(log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      dup2(fd, 2);
      dup2(fd, 1);
      std::vector<std::string> argv = {SLUICE_BINARY, "run", dir_ + "/program.sql", "--port", "0"};
      argv.insert(argv.end(), args_.begin(), args_.end());
      // SLUICE_TEST_HOSTS=H runs every pipeline on H hosts (the multihost
      // runs of the black-box suites), with 2 workers each unless the test
      // says otherwise.
      // SLUICE_TEST_LAYOUT=one_host keeps each view's integral on one host
      // (the default spreads them: all_hosts).
      if (const char* layout = std::getenv("SLUICE_TEST_LAYOUT")) {
        setenv("SLUICE_DEV_TWEAKS",
               (std::string("{\"view_integrals\": \"") + layout + "\"}").c_str(), 1);
      }
      if (const char* hosts = std::getenv("SLUICE_TEST_HOSTS")) {
        if (std::find(argv.begin(), argv.end(), "--hosts") == argv.end()) {
          argv.insert(argv.end(), {"--hosts", hosts});
          if (std::find(argv.begin(), argv.end(), "--workers") == argv.end()) {
            argv.insert(argv.end(), {"--workers", "2"});
          }
        }
      }
      std::vector<char*> cargv;
      for (std::string& a : argv) cargv.push_back(a.data());
      cargv.push_back(nullptr);
      execv(cargv[0], cargv.data());
      _exit(127);
    }
    // Wait for "listening on http(s)://127.0.0.1:PORT", or for the process
    // to end.
    for (int i = 0; i < 200 && port_ == 0; ++i) {
      std::string log = Slurp(log_);
      for (const char* prefix :
           {"listening on http://127.0.0.1:", "listening on https://127.0.0.1:"}) {
        size_t at = log.find(prefix);
        if (at != std::string::npos) {
          port_ = std::atoi(log.c_str() + at + std::strlen(prefix));
        }
      }
      if (port_ != 0) break;
      int status;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(50ms);
    }
  }

  // kill -9: no chance to clean up.
  void Kill9() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  ~Pipeline() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    std::filesystem::remove_all(dir_);
  }

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  const std::string& dir() const { return dir_; }
  std::string log() const { return Slurp(log_); }
  // Exit code if the process ended during start-up, else -1.
  int exit_code() const { return exit_code_; }

  // Sends SIGTERM and returns the exit code (or -1 if it did not end in time).
  int Terminate() {
    if (pid_ <= 0) return exit_code_;
    kill(pid_, SIGTERM);
    for (int i = 0; i < 200; ++i) {
      int status;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(50ms);
    }
    return -1;
  }

  httplib::Client Client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(30, 0);
    return c;
  }

  // POST /ingress; returns the token (or "" with the error in *error).
  std::string Ingest(const std::string& table, const std::string& body,
                     const std::string& params = "", Json* error = nullptr) {
    auto r = Client().Post("/ingress/" + table + params, body, "application/json");
    if (!r || r->status != 200) {
      if (error != nullptr && r) *error = Json::parse(r->body, nullptr, false);
      return "";
    }
    return Json::parse(r->body)["token"].get<std::string>();
  }

  bool WaitComplete(const std::string& token, std::chrono::seconds timeout = 10s) {
    for (int i = 0; i < timeout.count() * 40; ++i) {
      auto r = Client().Get("/completion_status?token=" + token);
      if (r && r->status == 200 && Json::parse(r->body)["status"] == "complete") return true;
      std::this_thread::sleep_for(25ms);
    }
    return false;
  }

  // Waits until /status says step `step` has run (a fresh pipeline runs
  // step 1 at start, input or not: tests that count steps wait for it, so
  // that their first input is not taken by it).
  bool WaitStep(uint64_t step, std::chrono::seconds timeout = 10s) {
    for (int i = 0; i < timeout.count() * 40; ++i) {
      auto r = Client().Get("/status");
      if (r && r->status == 200 && Json::parse(r->body)["step"].get<uint64_t>() >= step) {
        return true;
      }
      std::this_thread::sleep_for(25ms);
    }
    return false;
  }

  // POST /checkpoint, then waits for it: returns /checkpoint_status once it
  // succeeded or failed (null if neither came in time).
  Json Checkpoint() {
    auto r = Client().Post("/checkpoint", "", "text/plain");
    if (!r || r->status != 200) return Json();
    const uint64_t seq = Json::parse(r->body)["checkpoint_sequence_number"];
    for (int i = 0; i < 400; ++i) {
      Json cs = Json::parse(Client().Get("/checkpoint_status")->body);
      if (cs["success"] == seq ||
          (!cs["failure"].is_null() && cs["failure"]["sequence_number"] == seq)) {
        return cs;
      }
      std::this_thread::sleep_for(25ms);
    }
    return Json();
  }

  // The relation's rows, each as JSON text, with their counts.
  std::map<std::string, int> Rows(const std::string& sql) {
    std::map<std::string, int> rows;
    std::istringstream in(Query(sql, "json"));
    for (std::string line; std::getline(in, line);) ++rows[Json::parse(line).dump()];
    return rows;
  }

  std::string Query(const std::string& sql, const std::string& format = "text") {
    auto r = Client().Get("/query?format=" + format + "&sql=" + UrlEncode(sql));
    return r ? r->body : "(no answer)";
  }

 private:
  std::string dir_, log_;
  std::vector<std::string> args_;
  pid_t pid_ = -1;
  int port_ = 0;
  int exit_code_ = -1;
};

}  // namespace sluice::testing
