// The API's error answers: JSON {"message", "error_code", "details"} with
// a fitting HTTP status (docs/api.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "server/http_server.h"

namespace sluice::server {

// The JSON body of an error answer, with its closing newline.
std::string ErrorBody(const std::string& code, const std::string& message,
                      const nlohmann::json& details);

void SendError(HttpResponse& res, int status, const std::string& code, const std::string& message,
               nlohmann::json details = nlohmann::json::object());

// The error answer for `s`: the HTTP status of coordination::HttpErrorFor,
// and its error_code unless `code` is given.
void SendStatus(HttpResponse& res, const Status& s, const std::string& code = "");

// The answer for what the HTTP server itself refuses (HttpApp::error): a
// malformed request, a limit, a timeout.
void SendHttpError(HttpResponse& res, int status, const std::string& message);

}  // namespace sluice::server
