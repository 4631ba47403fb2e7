// What the pipeline's HTTP API (server.cc) and a host's coordination API
// (host_server.cc) share: JSON errors, and how a server is set up and bound.
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

// The parameters of a query string (the part of a target after '?'),
// decoded exactly: split at every '&', each at its first '=' only, then
// %XX and '+' (a space) decoded in names and values. (The HTTP library
// splits a pair at its last '=', which cut `sql=SELECT 1=1` short.)
std::multimap<std::string, std::string> ParseQueryString(std::string_view query);
// The target's query string, parsed as above, in place of what the HTTP
// library parsed. Called before routing.
void ReparseParams(const httplib::Request& req);

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
