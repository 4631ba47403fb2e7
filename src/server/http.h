// A host's coordination API (host_server.cc) on the HTTP library: JSON
// errors, and how its server is set up and bound. (The pipeline's public
// API has its own asynchronous server, http_server.h.)
#pragma once

#include <httplib.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/status.h"
#include "base/tls.h"

namespace sluice::server {

// {"message", "error_code", "details"} with HTTP status `status`.
void SendError(httplib::Response& res, int status, const std::string& code,
               const std::string& message, nlohmann::json details = nlohmann::json::object());

// The error answer for `s`: the HTTP status of coordination::HttpErrorFor,
// and its error_code unless `code` is given.
void SendStatus(httplib::Response& res, const Status& s, const std::string& code = "");

// An HTTP server, or HTTPS with `tls`'s certificate and key; with
// `verify_clients`, clients must present a certificate that the CA of
// `tls` signed (calls between a pipeline's processes).
Result<std::unique_ptr<httplib::Server>> MakeHttpServer(const TlsFiles& tls, bool verify_clients);

// A thread pool of `threads`, SO_REUSEADDR only (the library's default also
// sets SO_REUSEPORT, which would let a second process listen on the same
// port and take half of the first one's requests), 60 s read and write
// timeouts, a JSON answer for exceptions; then binds `host`:`port` (0: any
// free port) and returns the port.
Result<int> BindHttp(httplib::Server& http, const std::string& host, int port, int threads);

}  // namespace sluice::server
