#include "server/api_error.h"

#include "pipeline/coordination.h"

namespace sluice::server {

std::string ErrorBody(const std::string& code, const std::string& message,
                      const nlohmann::json& details) {
  return nlohmann::json{{"message", message}, {"error_code", code}, {"details", details}}.dump() +
         "\n";
}

void SendError(HttpResponse& res, int status, const std::string& code, const std::string& message,
               nlohmann::json details) {
  res.status = status;
  res.set_content(ErrorBody(code, message, details), "application/json");
}

void SendStatus(HttpResponse& res, const Status& s, const std::string& code) {
  const pipeline::coordination::HttpError e = pipeline::coordination::HttpErrorFor(s);
  SendError(res, e.status, code.empty() ? e.code : code, s.message());
}

void SendHttpError(HttpResponse& res, int status, const std::string& message) {
  const char* code = "BadRequest";
  switch (status) {
    case 408: code = "RequestTimeout"; break;
    case 413: code = "RequestTooLarge"; break;
    case 414: code = "UriTooLong"; break;
    case 431: code = "HeaderTooLarge"; break;
    case 500: code = "InternalError"; break;
    case 501: code = "NotImplemented"; break;
    case 503: code = "TooManyConnections"; break;
    case 505: code = "HttpVersionNotSupported"; break;
    default: break;
  }
  SendError(res, status, code, message);
}

}  // namespace sluice::server
