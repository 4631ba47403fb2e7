// SCRAM-SHA-256 (RFC 5802, RFC 7677), the server's side, as PostgreSQL uses
// it for password authentication: the password never crosses the wire, and
// the client learns that the server knew it too.
//
// Every accepted password's verifier is made with one salt, so that the
// server can answer before it knows which password the client holds, and
// then find it from the client's proof.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace sluice::pgwire {

class ScramSecrets {
 public:
  // Verifiers for `passwords`, with `salt` (empty: a fresh random one).
  static ScramSecrets Make(const std::vector<std::string>& passwords, int iterations = 4096,
                           std::string salt = "");

 private:
  friend class ScramExchange;
  struct Verifier {
    std::string stored_key;  // H(HMAC(salted password, "Client Key"))
    std::string server_key;  // HMAC(salted password, "Server Key")
  };
  std::string salt_;
  int iterations_ = 4096;
  std::vector<Verifier> verifiers_;
};

// One authentication exchange.
class ScramExchange {
 public:
  // `server_nonce`: the server's part of the nonce (empty: a fresh random
  // one; tests give the RFC's).
  explicit ScramExchange(const ScramSecrets& secrets, std::string server_nonce = "")
      : secrets_(secrets), server_nonce_(std::move(server_nonce)) {}
  // The client-first-message ("n,,n=user,r=NONCE") gives the
  // server-first-message ("r=NONCE+ours,s=SALT,i=N").
  Result<std::string> First(std::string_view client_first);
  // The client-final-message ("c=...,r=...,p=PROOF") gives the
  // server-final-message ("v=SIGNATURE") and which password matched, or an
  // error when none did.
  Result<std::string> Final(std::string_view client_final, size_t* which);

 private:
  const ScramSecrets& secrets_;
  std::string gs2_header_;
  std::string client_first_bare_;
  std::string server_first_;
  std::string server_nonce_;
  std::string nonce_;
};

// Base64 (RFC 4648, with padding), exposed for tests.
std::string Base64Encode(std::string_view bytes);
Result<std::string> Base64Decode(std::string_view text);

}  // namespace sluice::pgwire
