// The web console (docs/console.md): plain HTML, CSS and JavaScript modules,
// built into the binary (console_assets.h) and served by the pipeline's own
// HTTP server, `/` for its page and `/console/...` for the rest. It reads
// and drives the pipeline through the public API only (docs/api.md), so
// whatever it shows, a script can do too.
#pragma once

#include <string_view>

#include "server/console_assets.h"
#include "server/http_parser.h"
#include "server/http_server.h"

namespace sluice::server {

// The asset at `path` (relative to the console's folder), or null.
const ConsoleAsset* FindConsoleAsset(std::string_view path);

// The Content-Type of a file, from its extension.
std::string_view ContentTypeOf(std::string_view path);

// Whether `path` is the console's: `/` or `/console/...`.
bool IsConsolePath(std::string_view path);
// Answers GET `/` (index.html) and GET `/console/{path}`. Answers carry the
// asset's ETag and `Cache-Control: no-cache`, so a browser keeps its copy
// and asks whether it is still current (304 Not Modified when it is): an
// upgraded binary's console is never served stale.
void ServeConsole(const HttpRequest& req, HttpResponse& res);

}  // namespace sluice::server
