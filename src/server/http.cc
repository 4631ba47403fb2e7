#include "server/http.h"

#include <sys/socket.h>

#include "pipeline/coordination.h"

namespace sluice::server {

void SendError(httplib::Response& res, int status, const std::string& code,
               const std::string& message, nlohmann::json details) {
  nlohmann::json j = {{"message", message}, {"error_code", code}, {"details", std::move(details)}};
  res.status = status;
  res.set_content(j.dump() + "\n", "application/json");
}

void SendStatus(httplib::Response& res, const Status& s, const std::string& code) {
  const pipeline::coordination::HttpError e = pipeline::coordination::HttpErrorFor(s);
  SendError(res, e.status, code.empty() ? e.code : code, s.message());
}

Result<int> BindHttp(httplib::Server& http, const std::string& host, int port, int threads) {
  http.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  http.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  http.set_read_timeout(60, 0);
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
