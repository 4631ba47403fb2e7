#include "format/format.h"

#include <nlohmann/json.hpp>

#include "format/csv.h"
#include "format/json.h"

namespace sluice::format {

void ChangeBuffer::Add(ChangeKind kind, std::string_view key, std::string_view payload) {
  entries_.push_back({kind, static_cast<uint32_t>(key.size()),
                      static_cast<uint32_t>(payload.size()), arena_.size()});
  arena_.append(key);
  arena_.append(payload);
}

void ChangeBuffer::Append(const ChangeBuffer& other) {
  const uint64_t base = arena_.size();
  arena_.append(other.arena_);
  for (Entry e : other.entries_) {
    e.offset += base;
    entries_.push_back(e);
  }
}

void ChangeBuffer::Truncate(size_t n) {
  if (n >= entries_.size()) return;
  arena_.resize(entries_[n].offset);
  entries_.resize(n);
}

void ChangeBuffer::Clear() {
  arena_.clear();
  entries_.clear();
}

std::string RecordError::ToString() const {
  return "record " + std::to_string(record) + " (line " + std::to_string(line) + ", column " +
         std::to_string(column) + "): " + reason;
}

size_t Decoder::CompleteRecords(std::string_view data) const {
  size_t nl = data.rfind('\n');
  return nl == std::string_view::npos ? 0 : nl + 1;
}

Result<FormatOptions> ParseFormatOptions(const std::string& name, std::string_view config_json) {
  FormatOptions o;
  if (name != "json" && name != "csv") {
    return Status::InvalidArgument("unknown format \"" + name + "\" (json and csv are supported)");
  }
  o.name = name;
  if (config_json.empty()) return o;
  nlohmann::json config = nlohmann::json::parse(config_json, nullptr, false);
  if (config.is_discarded() || !config.is_object()) {
    return Status::InvalidArgument("the format's config must be a JSON object");
  }
  for (auto it = config.begin(); it != config.end(); ++it) {
    const std::string& k = it.key();
    const nlohmann::json& v = it.value();
    if (name == "json" && k == "update_format") {
      if (!v.is_string() || (v != "insert_delete" && v != "raw")) {
        return Status::InvalidArgument(
            "format json: update_format must be \"insert_delete\" or \"raw\"");
      }
      o.update_format = v.get<std::string>();
    } else if (name == "json" && k == "array") {
      if (!v.is_boolean()) return Status::InvalidArgument("format json: array must be a boolean");
      o.array = v.get<bool>();
    } else if (name == "csv" && k == "delimiter") {
      if (!v.is_string() || v.get<std::string>().size() != 1) {
        return Status::InvalidArgument("format csv: delimiter must be one character");
      }
      o.delimiter = v.get<std::string>()[0];
    } else if (name == "csv" && k == "headers") {
      if (!v.is_boolean()) return Status::InvalidArgument("format csv: headers must be a boolean");
      o.headers = v.get<bool>();
    } else {
      return Status::InvalidArgument("format " + name + ": unknown setting \"" + k + "\"");
    }
  }
  return o;
}

Result<std::unique_ptr<Decoder>> MakeDecoder(const FormatOptions& options, const Relation& rel) {
  if (options.name == "json") return MakeJsonDecoder(options, rel);
  if (options.name == "csv") return MakeCsvDecoder(options, rel);
  return Status::InvalidArgument("unknown format \"" + options.name + "\"");
}

Result<std::unique_ptr<Encoder>> MakeEncoder(const FormatOptions& options, const Relation& rel,
                                             std::string terminator) {
  if (options.name == "json") return MakeJsonEncoder(rel, std::move(terminator));
  if (options.name == "csv") return MakeCsvEncoder(options, rel, std::move(terminator));
  return Status::InvalidArgument("unknown format \"" + options.name + "\"");
}

}  // namespace sluice::format
