#include "server/console.h"

#include <string>

#include "server/api_error.h"

namespace sluice::server {

const ConsoleAsset* FindConsoleAsset(std::string_view path) {
  for (size_t i = 0; i < kConsoleAssetCount; ++i) {
    if (kConsoleAssets[i].path == path) return &kConsoleAssets[i];
  }
  return nullptr;
}

std::string_view ContentTypeOf(std::string_view path) {
  struct Type {
    std::string_view extension, type;
  };
  static constexpr Type kTypes[] = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".json", "application/json"},
      {".txt", "text/plain; charset=utf-8"},
  };
  for (const Type& t : kTypes) {
    if (path.size() >= t.extension.size() &&
        path.substr(path.size() - t.extension.size()) == t.extension) {
      return t.type;
    }
  }
  return "application/octet-stream";
}

namespace {

void SendAsset(const HttpRequest& req, HttpResponse& res, const ConsoleAsset& asset) {
  res.set_header("ETag", std::string(asset.etag));
  res.set_header("Cache-Control", "no-cache");
  // The console's own files only; a page of another origin may not frame it.
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("X-Frame-Options", "DENY");
  if (req.header("If-None-Match") == asset.etag) {
    res.status = 304;
    return;
  }
  res.status = 200;
  res.set_content(std::string(asset.content), std::string(ContentTypeOf(asset.path)));
}

}  // namespace

bool IsConsolePath(std::string_view path) {
  return path == "/" || path.substr(0, 9) == "/console/";
}

void ServeConsole(const HttpRequest& req, HttpResponse& res) {
  if (req.path == "/") {
    const ConsoleAsset* index = FindConsoleAsset("index.html");
    if (index == nullptr) {
      return SendError(res, 404, "UnknownEndpoint", "this build has no web console");
    }
    return SendAsset(req, res, *index);
  }
  const std::string path = req.path.substr(9);
  const ConsoleAsset* asset = path.empty() ? nullptr : FindConsoleAsset(path);
  if (asset == nullptr) {
    return SendError(res, 404, "UnknownEndpoint", "the console has no file " + path,
                     {{"path", path}});
  }
  SendAsset(req, res, *asset);
}

}  // namespace sluice::server
