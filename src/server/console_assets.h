// The web console's files (src/server/console/), built into the binary by
// embed_assets.cmake: the generated console_assets.cc defines these.
#pragma once

#include <cstddef>
#include <string_view>

namespace sluice::server {

struct ConsoleAsset {
  std::string_view path;     // relative to the console's folder: "index.html", "js/app.js"
  std::string_view content;  // the file's bytes
  std::string_view etag;     // quoted, as the ETag header carries it
};

extern const ConsoleAsset kConsoleAssets[];
extern const size_t kConsoleAssetCount;

}  // namespace sluice::server
