// TLS between the processes of a pipeline (OpenSSL): the certificate files
// a process is given, a throwaway certificate authority for pipelines that
// `sluice run --hosts` starts on one machine, contexts that authenticate
// both sides against the pipeline's CA, and a TLS session over a blocking
// socket for the exchange.
//
// Every process of a pipeline has a certificate and key signed by the
// pipeline's CA. Both sides of every connection present theirs and check
// the other's against the CA; a client also checks that the server's
// certificate names the address it connected to (an IP address in the
// subjectAltName), so a host with a certificate from another CA, or one
// made for another address, is refused.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace sluice {

// PEM files: this process's certificate and private key, and the CA that
// signed every process's certificate. All three, or none (no TLS).
struct TlsFiles {
  std::string cert, key, ca;
  bool enabled() const { return !cert.empty(); }
};

// Checks that all three are given (or none) and readable, that they are
// PEM, and that the key is the certificate's; the error names the file.
Status CheckTlsFiles(const TlsFiles& files);

// Makes a CA in `dir` (created, readable by its owner only) and, for each
// name, a certificate and key signed by it for the IP address `ips[name]`
// (no address: a client-only certificate). Valid from an hour ago for ten
// years; ECDSA P-256, SHA-256.
Result<std::map<std::string, TlsFiles>> MakeCertificates(
    const std::string& dir, const std::map<std::string, std::string>& ips);

// An OpenSSL context for one side of mutually authenticated connections:
// TLS 1.2 or later, this process's certificate, and the CA that the other
// side's certificate must chain to.
class TlsContext {
 public:
  // kPublicServer: a server that any client may connect to (no client
  // certificate is asked for, and the CA may be missing), as a pipeline's
  // public API and PostgreSQL port are.
  enum class Side { kClient, kServer, kPublicServer };
  static Result<std::unique_ptr<TlsContext>> Make(const TlsFiles& files, Side side);
  // Sets up `ctx` (made by another library, an HTTP server's say) the same
  // way.
  static Status Configure(SSL_CTX* ctx, const TlsFiles& files, Side side);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;
  SSL_CTX* get() const { return ctx_; }

 private:
  explicit TlsContext(SSL_CTX* ctx) : ctx_(ctx) {}
  SSL_CTX* ctx_;
};

// Whether the certificate the other side of `ssl` presented (verified
// against the pipeline's CA) names IP address `ip`: which host a
// connection comes from.
bool PeerCertificateNamesIp(const SSL* ssl, const std::string& ip);

// A TLS session over a connected blocking socket whose timeouts
// (SO_RCVTIMEO, SO_SNDTIMEO) bound every read and write, the handshake
// included. Reads and writes may go on in two threads at once only if
// each direction has its own session (the exchange's connections carry
// data one way each).
class TlsStream {
 public:
  // The client's handshake; the server's certificate must name `ip`.
  static Result<std::unique_ptr<TlsStream>> Connect(const TlsContext& ctx, int fd,
                                                    const std::string& ip);
  // The server's handshake; with a kServer context, the client must
  // present a certificate.
  static Result<std::unique_ptr<TlsStream>> Accept(const TlsContext& ctx, int fd);
  ~TlsStream();

  // Whole reads and writes; false on an error, a timeout (errno EAGAIN)
  // or the end of the stream (errno 0).
  bool ReadAll(size_t n, std::string* out);
  bool WriteAll(std::string_view data);

 private:
  explicit TlsStream(SSL* ssl) : ssl_(ssl) {}
  SSL* ssl_;
};

}  // namespace sluice
