#include "base/tls.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace sluice {
namespace {

// The errors OpenSSL queued, oldest first, and clears them.
std::string OpenSslErrors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? std::string("no detail from OpenSSL") : out;
}

struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyFree>;

Status AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX v3;
  X509V3_set_ctx_nodb(&v3);
  X509V3_set_ctx(&v3, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* e = X509V3_EXT_conf_nid(nullptr, &v3, nid, value);
  if (e == nullptr || X509_add_ext(cert, e, -1) != 1) {
    if (e != nullptr) X509_EXTENSION_free(e);
    return Status::Internal(std::string("cannot add the certificate extension ") + value + ": " +
                            OpenSslErrors());
  }
  X509_EXTENSION_free(e);
  return Status::OK();
}

// A certificate for `key` named `cn`, signed by `issuer` with
// `issuer_key` (itself, for the CA).
Result<X509Ptr> MakeCertificate(EVP_PKEY* key, const std::string& cn, X509* issuer,
                                EVP_PKEY* issuer_key, const std::string& ip) {
  X509Ptr x(X509_new());
  uint64_t serial = 0;
  if (!x || RAND_bytes(reinterpret_cast<unsigned char*>(&serial), sizeof serial) != 1) {
    return Status::Internal("cannot make a certificate: " + OpenSslErrors());
  }
  X509_set_version(x.get(), 2);
  ASN1_INTEGER_set_uint64(X509_get_serialNumber(x.get()), serial >> 1);
  X509_gmtime_adj(X509_getm_notBefore(x.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(x.get()), 10L * 365 * 24 * 3600);
  X509_set_pubkey(x.get(), key);
  X509_NAME* name = X509_get_subject_name(x.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("sluice pipeline"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  const bool ca = issuer == nullptr;
  X509* signer = ca ? x.get() : issuer;
  X509_set_issuer_name(x.get(), X509_get_subject_name(signer));
  SLUICE_RETURN_IF_ERROR(AddExtension(x.get(), signer, NID_basic_constraints,
                                      ca ? "critical,CA:TRUE" : "critical,CA:FALSE"));
  SLUICE_RETURN_IF_ERROR(AddExtension(
      x.get(), signer, NID_key_usage,
      ca ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature,keyEncipherment"));
  SLUICE_RETURN_IF_ERROR(AddExtension(x.get(), signer, NID_subject_key_identifier, "hash"));
  if (!ca) {
    SLUICE_RETURN_IF_ERROR(
        AddExtension(x.get(), signer, NID_authority_key_identifier, "keyid:always"));
    SLUICE_RETURN_IF_ERROR(
        AddExtension(x.get(), signer, NID_ext_key_usage, "serverAuth,clientAuth"));
    if (!ip.empty()) {
      SLUICE_RETURN_IF_ERROR(
          AddExtension(x.get(), signer, NID_subject_alt_name, ("IP:" + ip).c_str()));
    }
  }
  if (X509_sign(x.get(), ca ? key : issuer_key, EVP_sha256()) == 0) {
    return Status::Internal("cannot sign a certificate: " + OpenSslErrors());
  }
  return x;
}

Status WritePem(const std::string& path, X509* cert, EVP_PKEY* key) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    return Status::IOError("cannot write " + path + ": " + std::strerror(errno));
  }
  if (key != nullptr) ::fchmod(fileno(f), 0600);
  const int ok = cert != nullptr
                     ? PEM_write_X509(f, cert)
                     : PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr);
  if (std::fclose(f) != 0 || ok != 1) {
    return Status::IOError("cannot write " + path + ": " + OpenSslErrors());
  }
  return Status::OK();
}

Status Readable(const std::string& what, const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return Status::InvalidArgument("cannot read the " + what + " " + path + ": " +
                                   std::strerror(errno));
  }
  return Status::OK();
}

}  // namespace

Status CheckTlsFiles(const TlsFiles& f) {
  const int given = !f.cert.empty() + !f.key.empty() + !f.ca.empty();
  if (given == 0) return Status::OK();
  if (given != 3) {
    return Status::InvalidArgument(
        "TLS needs all of --tls-cert, --tls-key and --tls-ca (this process's certificate, its "
        "private key, and the pipeline's CA)");
  }
  SLUICE_RETURN_IF_ERROR(Readable("certificate", f.cert));
  SLUICE_RETURN_IF_ERROR(Readable("private key", f.key));
  SLUICE_RETURN_IF_ERROR(Readable("CA certificate", f.ca));
  return TlsContext::Make(f, TlsContext::Side::kServer).status();
}

Result<std::map<std::string, TlsFiles>> MakeCertificates(
    const std::string& dir, const std::map<std::string, std::string>& ips) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot create " + dir + ": " + ec.message());
  ::chmod(dir.c_str(), 0700);
  KeyPtr ca_key(EVP_EC_gen("P-256"));
  if (!ca_key) return Status::Internal("cannot make a key: " + OpenSslErrors());
  SLUICE_ASSIGN_OR_RETURN(
      X509Ptr ca, MakeCertificate(ca_key.get(), "sluice pipeline CA", nullptr, nullptr, ""));
  const std::string ca_path = dir + "/ca.pem";
  SLUICE_RETURN_IF_ERROR(WritePem(ca_path, ca.get(), nullptr));
  std::map<std::string, TlsFiles> out;
  for (const auto& [name, ip] : ips) {
    KeyPtr key(EVP_EC_gen("P-256"));
    if (!key) return Status::Internal("cannot make a key: " + OpenSslErrors());
    SLUICE_ASSIGN_OR_RETURN(
        X509Ptr cert, MakeCertificate(key.get(), "sluice " + name, ca.get(), ca_key.get(), ip));
    TlsFiles f{dir + "/" + name + ".pem", dir + "/" + name + ".key", ca_path};
    SLUICE_RETURN_IF_ERROR(WritePem(f.cert, cert.get(), nullptr));
    SLUICE_RETURN_IF_ERROR(WritePem(f.key, nullptr, key.get()));
    out[name] = f;
  }
  return out;
}

Result<std::unique_ptr<TlsContext>> TlsContext::Make(const TlsFiles& f, Side side) {
  ERR_clear_error();
  SSL_CTX* ctx = SSL_CTX_new(side == Side::kClient ? TLS_client_method() : TLS_server_method());
  if (ctx == nullptr) return Status::Internal("cannot make a TLS context: " + OpenSslErrors());
  std::unique_ptr<TlsContext> c(new TlsContext(ctx));
  SLUICE_RETURN_IF_ERROR(Configure(ctx, f, side));
  return c;
}

Status TlsContext::Configure(SSL_CTX* ctx, const TlsFiles& f, Side side) {
  ERR_clear_error();
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_mode(ctx, SSL_MODE_AUTO_RETRY);
  if (SSL_CTX_use_certificate_chain_file(ctx, f.cert.c_str()) != 1) {
    return Status::InvalidArgument("the certificate " + f.cert + " is not a PEM certificate (" +
                                   OpenSslErrors() + ")");
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, f.key.c_str(), SSL_FILETYPE_PEM) != 1) {
    return Status::InvalidArgument("the private key " + f.key + " is not a PEM key (" +
                                   OpenSslErrors() + ")");
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return Status::InvalidArgument("the private key " + f.key + " is not the key of " + f.cert);
  }
  if (side == Side::kPublicServer) return Status::OK();
  if (SSL_CTX_load_verify_locations(ctx, f.ca.c_str(), nullptr) != 1) {
    return Status::InvalidArgument("the CA certificate " + f.ca + " is not a PEM certificate (" +
                                   OpenSslErrors() + ")");
  }
  if (side == Side::kServer) {
    SSL_CTX_set_client_CA_list(ctx, SSL_load_client_CA_file(f.ca.c_str()));
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
    // Session tickets would be sent to exchange clients that never read.
    SSL_CTX_set_num_tickets(ctx, 0);
  } else {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  }
  return Status::OK();
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

namespace {

std::string HandshakeError(SSL* ssl, int rc) {
  const long verify = SSL_get_verify_result(ssl);
  std::string why;
  if (verify != X509_V_OK) {
    why = std::string("the certificate was refused: ") + X509_verify_cert_error_string(verify);
  } else if (SSL_get_error(ssl, rc) == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) {
    why = errno == EAGAIN || errno == EWOULDBLOCK ? "timed out"
          : errno == 0                            ? "the connection ended"
                                                  : std::strerror(errno);
  } else {
    why = OpenSslErrors();
  }
  ERR_clear_error();
  return why;
}

// A socket BIO that writes with MSG_NOSIGNAL: OpenSSL's own writes with
// write(2), and a write to a peer that went away (an alert on a closing
// connection, say) would raise SIGPIPE and end the process.
int SocketWrite(BIO* b, const char* data, int n) {
  const ssize_t r =
      ::send(static_cast<int>(BIO_get_fd(b, nullptr)), data, static_cast<size_t>(n), MSG_NOSIGNAL);
  BIO_clear_retry_flags(b);
  if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    BIO_set_retry_write(b);
  }
  return static_cast<int>(r);
}

int SocketRead(BIO* b, char* data, int n) {
  const ssize_t r =
      ::recv(static_cast<int>(BIO_get_fd(b, nullptr)), data, static_cast<size_t>(n), 0);
  BIO_clear_retry_flags(b);
  if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    BIO_set_retry_read(b);
  }
  return static_cast<int>(r);
}

int SocketPuts(BIO* b, const char* s) {
  return SocketWrite(b, s, static_cast<int>(std::strlen(s)));
}

long SocketCtrl(BIO* b, int cmd, long num, void* ptr) {
  switch (cmd) {
    case BIO_C_SET_FD:
      BIO_set_data(b, reinterpret_cast<void*>(static_cast<intptr_t>(*static_cast<int*>(ptr))));
      BIO_set_init(b, 1);
      (void)num;
      return 1;
    case BIO_C_GET_FD: {
      const int fd = static_cast<int>(reinterpret_cast<intptr_t>(BIO_get_data(b)));
      if (ptr != nullptr) *static_cast<int*>(ptr) = fd;
      return fd;
    }
    case BIO_CTRL_FLUSH:
      return 1;
    default:
      return 0;
  }
}

BIO_METHOD* NoSignalSocketMethod() {
  static BIO_METHOD* method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR,
                                 "sluice socket");
    BIO_meth_set_write(m, SocketWrite);
    BIO_meth_set_read(m, SocketRead);
    BIO_meth_set_puts(m, SocketPuts);
    BIO_meth_set_ctrl(m, SocketCtrl);
    return m;
  }();
  return method;
}

// Puts `fd` under `ssl` through the BIO above (the socket stays the
// caller's to close).
bool Attach(SSL* ssl, int fd) {
  BIO* bio = BIO_new(NoSignalSocketMethod());
  if (bio == nullptr) return false;
  BIO_set_fd(bio, fd, BIO_NOCLOSE);
  SSL_set_bio(ssl, bio, bio);
  return true;
}

}  // namespace

Result<std::unique_ptr<TlsStream>> TlsStream::Connect(const TlsContext& ctx, int fd,
                                                      const std::string& ip) {
  ERR_clear_error();
  SSL* ssl = SSL_new(ctx.get());
  if (ssl == nullptr) return Status::Internal("cannot start TLS: " + OpenSslErrors());
  std::unique_ptr<TlsStream> s(new TlsStream(ssl));
  if (!Attach(ssl, fd)) return Status::Internal("cannot start TLS: " + OpenSslErrors());
  X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), ip.c_str());
  errno = 0;
  const int rc = SSL_connect(ssl);
  if (rc != 1) return Status::IOError("TLS handshake with " + ip + ": " + HandshakeError(ssl, rc));
  return s;
}

bool PeerCertificateNamesIp(const SSL* ssl, const std::string& ip) {
  if (ssl == nullptr || SSL_get_verify_result(ssl) != X509_V_OK) return false;
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (cert == nullptr) return false;
  const bool names = X509_check_ip_asc(cert, ip.c_str(), 0) == 1;
  X509_free(cert);
  return names;
}

Result<std::unique_ptr<TlsStream>> TlsStream::Accept(const TlsContext& ctx, int fd) {
  ERR_clear_error();
  SSL* ssl = SSL_new(ctx.get());
  if (ssl == nullptr) return Status::Internal("cannot start TLS: " + OpenSslErrors());
  std::unique_ptr<TlsStream> s(new TlsStream(ssl));
  if (!Attach(ssl, fd)) return Status::Internal("cannot start TLS: " + OpenSslErrors());
  errno = 0;
  const int rc = SSL_accept(ssl);
  if (rc != 1) return Status::IOError("TLS handshake: " + HandshakeError(ssl, rc));
  return s;
}

TlsStream::~TlsStream() { SSL_free(ssl_); }

namespace {

// After a failed SSL_read or SSL_write: errno says why (0: the end).
void SetErrno(SSL* ssl, int rc) {
  switch (SSL_get_error(ssl, rc)) {
    case SSL_ERROR_ZERO_RETURN:
      errno = 0;
      break;
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
      errno = EAGAIN;  // the socket's timeout
      break;
    case SSL_ERROR_SYSCALL:
      if (errno == 0 && ERR_peek_error() != 0) errno = EPROTO;
      break;
    default:
      errno = EPROTO;
  }
  ERR_clear_error();
}

}  // namespace

bool TlsStream::ReadAll(size_t n, std::string* out) {
  out->resize(n);
  size_t done = 0;
  while (done < n) {
    errno = 0;
    const int chunk = static_cast<int>(std::min<size_t>(n - done, 1 << 30));
    const int r = SSL_read(ssl_, out->data() + done, chunk);
    if (r <= 0) {
      SetErrno(ssl_, r);
      return false;
    }
    done += static_cast<size_t>(r);
  }
  return true;
}

bool TlsStream::WriteAll(std::string_view data) {
  size_t done = 0;
  while (done < data.size()) {
    errno = 0;
    const int chunk = static_cast<int>(std::min<size_t>(data.size() - done, 1 << 30));
    const int r = SSL_write(ssl_, data.data() + done, chunk);
    if (r <= 0) {
      SetErrno(ssl_, r);
      return false;
    }
    done += static_cast<size_t>(r);
  }
  return true;
}

}  // namespace sluice
