#include "pipeline/api_keys.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <fstream>
#include <sstream>

namespace sluice::pipeline {
namespace {

std::string Sha256(std::string_view s) {
  unsigned char out[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(s.data()), s.size(), out);
  return std::string(reinterpret_cast<char*>(out), sizeof out);
}

}  // namespace

const char* ScopeName(ApiScope scope) {
  switch (scope) {
    case ApiScope::kRead:
      return "read";
    case ApiScope::kWrite:
      return "write";
    case ApiScope::kAdmin:
      return "admin";
  }
  return "read";
}

Result<ApiKeys> ApiKeys::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument("cannot read the API key file " + path);
  std::stringstream text;
  text << in.rdbuf();
  return Parse(text.str(), path);
}

Result<ApiKeys> ApiKeys::Parse(std::string_view text, const std::string& origin) {
  ApiKeys keys;
  size_t line_no = 0;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::istringstream words{std::string(line)};
    std::string key, scope, extra;
    words >> key;
    if (key.empty() || key[0] == '#') continue;
    words >> scope >> extra;
    const std::string where = origin + ":" + std::to_string(line_no) + ": ";
    if (scope.empty() || !extra.empty()) {
      return Status::InvalidArgument(where + "a line is KEY SCOPE (read, write or admin)");
    }
    ApiScope s;
    if (scope == "read") {
      s = ApiScope::kRead;
    } else if (scope == "write") {
      s = ApiScope::kWrite;
    } else if (scope == "admin") {
      s = ApiScope::kAdmin;
    } else {
      return Status::InvalidArgument(where + "unknown scope \"" + scope +
                                     "\" (it is read, write or admin)");
    }
    if (key.size() < 16) {
      return Status::InvalidArgument(where + "a key is at least 16 characters long");
    }
    const std::string hash = Sha256(key);
    for (const std::string& h : keys.hashes_) {
      if (h == hash) return Status::InvalidArgument(where + "this key is given twice");
    }
    keys.keys_.emplace_back(key, s);
    keys.hashes_.push_back(hash);
  }
  return keys;
}

std::optional<ApiScope> ApiKeys::Find(std::string_view key) const {
  // Comparing hashes of equal length takes the same time whatever the key
  // and wherever it differs; every key is compared.
  const std::string hash = Sha256(key);
  std::optional<ApiScope> found;
  for (size_t i = 0; i < hashes_.size(); ++i) {
    if (CRYPTO_memcmp(hash.data(), hashes_[i].data(), hash.size()) == 0) found = keys_[i].second;
  }
  return found;
}

}  // namespace sluice::pipeline
