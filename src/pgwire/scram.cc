#include "pgwire/scram.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

namespace sluice::pgwire {
namespace {

std::string Hmac(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<char*>(out), len);
}

std::string Sha256(std::string_view data) {
  unsigned char out[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), out);
  return std::string(reinterpret_cast<char*>(out), sizeof out);
}

std::string RandomBytes(size_t n) {
  std::string s(n, '\0');
  RAND_bytes(reinterpret_cast<unsigned char*>(s.data()), static_cast<int>(n));
  return s;
}

// The value of attribute `name` ("r" in "r=abc") among the
// comma-separated attributes of `msg`; empty when absent.
std::string Attribute(std::string_view msg, char name) {
  size_t at = 0;
  while (at <= msg.size()) {
    size_t end = msg.find(',', at);
    if (end == std::string_view::npos) end = msg.size();
    const std::string_view part = msg.substr(at, end - at);
    if (part.size() >= 2 && part[0] == name && part[1] == '=') return std::string(part.substr(2));
    at = end + 1;
  }
  return "";
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0)
    return Status::InvalidArgument("not base64: its length is not a multiple of 4");
  std::string out(text.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) return Status::InvalidArgument("not base64");
  size_t len = static_cast<size_t>(n);
  // EVP_DecodeBlock counts the padding as zero bytes.
  for (size_t i = text.size(); i > 0 && text[i - 1] == '='; --i) --len;
  out.resize(len);
  return out;
}

ScramSecrets ScramSecrets::Make(const std::vector<std::string>& passwords, int iterations,
                                std::string salt) {
  ScramSecrets s;
  s.salt_ = salt.empty() ? RandomBytes(16) : std::move(salt);
  s.iterations_ = iterations;
  for (const std::string& p : passwords) {
    unsigned char salted[SHA256_DIGEST_LENGTH];
    PKCS5_PBKDF2_HMAC(p.data(), static_cast<int>(p.size()),
                      reinterpret_cast<const unsigned char*>(s.salt_.data()),
                      static_cast<int>(s.salt_.size()), iterations, EVP_sha256(), sizeof salted,
                      salted);
    const std::string_view key(reinterpret_cast<char*>(salted), sizeof salted);
    s.verifiers_.push_back({Sha256(Hmac(key, "Client Key")), Hmac(key, "Server Key")});
  }
  return s;
}

Result<std::string> ScramExchange::First(std::string_view client_first) {
  // gs2-header: "n,," or "y,," (no channel binding; we offer none), then
  // the bare message.
  size_t comma = client_first.find(',');
  if (comma == std::string_view::npos || client_first.empty()) {
    return Status::InvalidArgument("malformed SCRAM client-first-message");
  }
  if (client_first[0] == 'p') {
    return Status::InvalidArgument("SCRAM channel binding is not offered by this server");
  }
  if (client_first[0] != 'n' && client_first[0] != 'y') {
    return Status::InvalidArgument("malformed SCRAM client-first-message");
  }
  comma = client_first.find(',', comma + 1);
  if (comma == std::string_view::npos)
    return Status::InvalidArgument("malformed SCRAM client-first-message");
  gs2_header_ = std::string(client_first.substr(0, comma + 1));
  client_first_bare_ = std::string(client_first.substr(comma + 1));
  const std::string client_nonce = Attribute(client_first_bare_, 'r');
  if (client_nonce.empty())
    return Status::InvalidArgument("the SCRAM client-first-message has no nonce");
  nonce_ = client_nonce + (server_nonce_.empty() ? Base64Encode(RandomBytes(18)) : server_nonce_);
  server_first_ = "r=" + nonce_ + ",s=" + Base64Encode(secrets_.salt_) +
                  ",i=" + std::to_string(secrets_.iterations_);
  return server_first_;
}

Result<std::string> ScramExchange::Final(std::string_view client_final, size_t* which) {
  const size_t proof_at = client_final.rfind(",p=");
  if (proof_at == std::string_view::npos)
    return Status::InvalidArgument("the SCRAM client-final-message has no proof");
  const std::string_view without_proof = client_final.substr(0, proof_at);
  if (Attribute(without_proof, 'c') != Base64Encode(gs2_header_)) {
    return Status::InvalidArgument("SCRAM channel binding does not match");
  }
  if (Attribute(without_proof, 'r') != nonce_)
    return Status::InvalidArgument("SCRAM nonce does not match");
  SLUICE_ASSIGN_OR_RETURN(std::string proof, Base64Decode(client_final.substr(proof_at + 3)));
  if (proof.size() != SHA256_DIGEST_LENGTH)
    return Status::InvalidArgument("the SCRAM proof has the wrong length");
  const std::string auth_message =
      client_first_bare_ + "," + server_first_ + "," + std::string(without_proof);
  // Every verifier is tried, so that the time taken does not tell which
  // (or whether one) matched.
  bool found = false;
  for (size_t i = 0; i < secrets_.verifiers_.size(); ++i) {
    const auto& v = secrets_.verifiers_[i];
    std::string client_key = Hmac(v.stored_key, auth_message);
    for (size_t b = 0; b < client_key.size(); ++b) client_key[b] ^= proof[b];
    const std::string stored = Sha256(client_key);
    if (CRYPTO_memcmp(stored.data(), v.stored_key.data(), stored.size()) == 0 && !found) {
      found = true;
      *which = i;
    }
  }
  if (!found) return Status::InvalidArgument("password authentication failed");
  return "v=" + Base64Encode(Hmac(secrets_.verifiers_[*which].server_key, auth_message));
}

}  // namespace sluice::pgwire
