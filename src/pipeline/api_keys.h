// API keys (`--api-key-file FILE`): who may do what over the HTTP API and
// the PostgreSQL protocol. Each line of the file is `KEY SCOPE`:
//   read   queries, egress and SUBSCRIBE, stats, status, metrics, the program
//          and the console's pages;
//   write  read, and ingress (INSERT, DELETE, COPY FROM), transactions,
//          start and pause, connectors' start, pause and reset, checkpoints
//          and approve;
//   admin  everything.
// Blank lines and lines that start with '#' are skipped. Keys are compared
// in constant time and never logged.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace sluice::pipeline {

enum class ApiScope { kRead = 1, kWrite = 2, kAdmin = 3 };
const char* ScopeName(ApiScope scope);

class ApiKeys {
 public:
  // Errors name the file and line: a line that is not `KEY SCOPE`, an
  // unknown scope, a key shorter than 16 characters, a key given twice.
  static Result<ApiKeys> Load(const std::string& path);
  static Result<ApiKeys> Parse(std::string_view text, const std::string& origin);

  bool empty() const { return keys_.empty(); }
  size_t size() const { return keys_.size(); }
  // The scope of `key`, or nothing when it is none of the keys.
  std::optional<ApiScope> Find(std::string_view key) const;
  // The keys and their scopes, in the file's order (to derive password
  // verifiers from).
  const std::vector<std::pair<std::string, ApiScope>>& keys() const { return keys_; }

 private:
  std::vector<std::pair<std::string, ApiScope>> keys_;
  std::vector<std::string> hashes_;  // SHA-256 of each key
};

}  // namespace sluice::pipeline
