#include "server/http.h"

#include <sys/socket.h>

#include "pipeline/coordination.h"
#include "server/api_error.h"

namespace sluice::server {

void SendError(httplib::Response& res, int status, const std::string& code,
               const std::string& message, nlohmann::json details) {
  res.status = status;
  res.set_content(ErrorBody(code, message, details), "application/json");
}

void SendStatus(httplib::Response& res, const Status& s, const std::string& code) {
  const pipeline::coordination::HttpError e = pipeline::coordination::HttpErrorFor(s);
  SendError(res, e.status, code.empty() ? e.code : code, s.message());
}

Result<std::unique_ptr<httplib::Server>> MakeHttpServer(const TlsFiles& tls, bool verify_clients) {
  if (tls.cert.empty()) return std::make_unique<httplib::Server>();
  std::unique_ptr<httplib::SSLServer> s;
  if (verify_clients) {
    Status setup;
    s = std::make_unique<httplib::SSLServer>([&](SSL_CTX& ctx) {
      setup = TlsContext::Configure(&ctx, tls, TlsContext::Side::kServer);
      return setup.ok();
    });
    if (!setup.ok()) return setup;
  } else {
    s = std::make_unique<httplib::SSLServer>(tls.cert.c_str(), tls.key.c_str());
  }
  if (!s->is_valid()) {
    return Status::InvalidArgument("cannot serve HTTPS with the certificate " + tls.cert +
                                   " and the key " + tls.key +
                                   " (are they PEM files, and the key the certificate's?)");
  }
  return std::unique_ptr<httplib::Server>(std::move(s));
}

Result<int> BindHttp(httplib::Server& http, const std::string& host, int port, int threads) {
  http.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  http.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  http.set_read_timeout(60, 0);
  // Answers to kept-alive connections go out at once, not after the
  // client's delayed ACK.
  http.set_tcp_nodelay(true);
  http.set_write_timeout(60, 0);
  http.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "unknown exception";
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        SendError(res, 500, "InternalError", what);
      });
  if (port == 0) {
    const int bound = http.bind_to_any_port(host);
    if (bound <= 0) return Status::IOError("cannot bind a port on " + host);
    return bound;
  }
  if (!http.bind_to_port(host, port)) {
    return Status::IOError("cannot listen on " + host + ":" + std::to_string(port) +
                           " (is the port in use?)");
  }
  return port;
}

}  // namespace sluice::server
