// What the benchmarks that run whole `sluice` processes share: reading a
// file, and starting a process and waiting for the port it listens on.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace sluice::bench {

// The file's contents ("" if it cannot be read).
inline std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Forks `argv` (argv[0] is the binary) with its output in `log` and `env`
// set in the child, then waits up to 30 s for it to write
// "listening on http://127.0.0.1:PORT". Returns the port (0 if it did not
// come), and the child in `*pid`.
inline int StartAndWaitForPort(const std::vector<std::string>& argv, const std::string& log,
                               const std::vector<std::pair<std::string, std::string>>& env,
                               pid_t* pid) {
  *pid = fork();
  if (*pid == 0) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  const char* prefix = "listening on http://127.0.0.1:";
  for (int i = 0; i < 600; ++i) {
    const std::string text = Slurp(log);
    const size_t at = text.find(prefix);
    if (at != std::string::npos) return std::atoi(text.c_str() + at + std::strlen(prefix));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return 0;
}

}  // namespace sluice::bench
