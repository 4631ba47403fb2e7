#include "connector/delta_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>

#include "base/failpoint.h"
#include "format/deletion_vector.h"
#include "format/parquet_reader.h"
#include "storage/file.h"

namespace sluice::connector {
namespace {

using Json = nlohmann::json;

std::string ErrnoText() { return std::strerror(errno); }

Status WriteAll(int fd, const std::string& data, const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IOError("writing " + path + ": " + ErrnoText());
    }
    done += static_cast<size_t>(n);
  }
  return Status::OK();
}

Status SyncDir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::IOError("opening " + dir + ": " + ErrnoText());
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return Status::IOError("syncing " + dir + ": " + ErrnoText());
  return Status::OK();
}

std::string UuidText(const std::string& bytes) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    const uint8_t b = static_cast<uint8_t>(bytes[i]);
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

// %XX escapes of a log path decoded (the log holds relative URIs).
std::string PercentDecode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

Result<DeletionVectorRef> ParseDeletionVector(const Json& j, const std::string& where) {
  DeletionVectorRef dv;
  const std::string type = j.value("storageType", std::string());
  if (type != "u" && type != "i" && type != "p") {
    return Status::Corruption(where + ": deletion vector storageType \"" + type +
                              "\" is none of u, i, p");
  }
  dv.storage_type = type[0];
  dv.path_or_inline = j.value("pathOrInlineDv", std::string());
  dv.offset = j.contains("offset") && j["offset"].is_number() ? j["offset"].get<int64_t>() : -1;
  dv.size_in_bytes = j.value("sizeInBytes", uint64_t{0});
  dv.cardinality = j.value("cardinality", uint64_t{0});
  if (dv.storage_type != 'i' && dv.offset < 0) {
    return Status::Corruption(where + ": a deletion vector in a file needs an offset");
  }
  if (dv.storage_type == 'u' && dv.path_or_inline.size() < 20) {
    return Status::Corruption(where + ": deletion vector \"" + dv.path_or_inline +
                              "\" is shorter than its UUID");
  }
  return dv;
}

// The number of records a file's statistics give, or -1.
int64_t NumRecords(const std::string& stats) {
  if (stats.empty()) return -1;
  Json s = Json::parse(stats, nullptr, false);
  if (!s.is_object() || !s.contains("numRecords") || !s["numRecords"].is_number_integer()) {
    return -1;
  }
  return s["numRecords"].get<int64_t>();
}

std::vector<std::string> Strings(const Json& j) {
  std::vector<std::string> out;
  if (!j.is_array()) return out;
  for (const Json& e : j) {
    if (e.is_string()) out.push_back(e.get<std::string>());
  }
  return out;
}

}  // namespace

std::string DeltaCommitName(uint64_t version) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%020llu.json", static_cast<unsigned long long>(version));
  return buf;
}

std::string DeltaRandomHex(size_t bytes) {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  std::string out;
  static const char* kHex = "0123456789abcdef";
  for (size_t i = 0; i < bytes; ++i) {
    const uint8_t b = static_cast<uint8_t>(rng());
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

std::string DeltaNewUuid(std::string* bytes) {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  std::string b(16, '\0');
  for (char& c : b) c = static_cast<char>(rng());
  b[6] = static_cast<char>((static_cast<uint8_t>(b[6]) & 0x0F) | 0x40);  // version 4
  b[8] = static_cast<char>((static_cast<uint8_t>(b[8]) & 0x3F) | 0x80);  // RFC 4122 variant
  if (bytes != nullptr) *bytes = b;
  return UuidText(b);
}

int64_t DeltaNowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Status DeltaWriteFile(const std::string& path, const std::string& data, bool exclusive) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : O_TRUNC), 0644);
  if (fd < 0) return Status::IOError("creating " + path + ": " + ErrnoText());
  Status s = WriteAll(fd, data, path);
  if (s.ok() && ::fsync(fd) != 0) s = Status::IOError("syncing " + path + ": " + ErrnoText());
  ::close(fd);
  return s;
}

std::string DeletionVectorRef::UniqueId() const {
  std::string id = std::string(1, storage_type) + path_or_inline;
  if (offset >= 0) id += "@" + std::to_string(offset);
  return id;
}

std::string DeletionVectorRef::Json() const {
  nlohmann::json j{{"storageType", std::string(1, storage_type)},
                   {"pathOrInlineDv", path_or_inline},
                   {"sizeInBytes", size_in_bytes},
                   {"cardinality", cardinality}};
  if (offset >= 0) j["offset"] = offset;
  return j.dump();
}

// ---------------------------------------------------------------- replay

namespace {

std::string ReadWhole(const std::string& path, bool* ok) {
  std::ifstream in(path, std::ios::binary);
  *ok = static_cast<bool>(in);
  if (!in) return "";
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool AllDigits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// A checkpoint value as the JSON of the action it holds: ROW -> object
// (NULL fields left out), MAP -> object, ARRAY -> array.
Json ValueJson(const Value& v, const SqlType& t) {
  if (v.is_null()) return nullptr;
  switch (t.id()) {
    case TypeId::kRow: {
      Json o = Json::object();
      for (size_t i = 0; i < t.children().size() && i < v.list().size(); ++i) {
        if (v.list()[i].is_null()) continue;
        o[t.field_names()[i]] = ValueJson(v.list()[i], t.children()[i]);
      }
      return o;
    }
    case TypeId::kMap: {
      Json o = Json::object();
      for (size_t i = 0; i < v.map_keys().size(); ++i) {
        const Value& k = v.map_keys()[i];
        if (k.kind() != Value::Kind::kString) continue;
        o[k.string_value()] = ValueJson(v.map_values()[i], t.children()[1]);
      }
      return o;
    }
    case TypeId::kArray: {
      Json a = Json::array();
      for (const Value& e : v.list()) a.push_back(ValueJson(e, t.children()[0]));
      return a;
    }
    default:
      break;
  }
  switch (v.kind()) {
    case Value::Kind::kBool:
      return v.bool_value();
    case Value::Kind::kInt:
      return v.int_value();
    case Value::Kind::kDouble:
      return v.double_value();
    case Value::Kind::kString:
      return v.string_value();
    case Value::Kind::kDecimal:
      return DecimalValueToString(v);
    default:
      return nullptr;
  }
}

// The checkpoints of a log directory, by version: their part files, in
// part order; a multi-part checkpoint with a part missing is left out.
struct CheckpointFiles {
  std::map<uint64_t, std::map<uint64_t, std::string>> parts;  // version -> part -> name
  // version -> parts -> part -> name, as listed (a version may have a
  // classic checkpoint and multi-part ones, complete or not)
  std::map<uint64_t, std::map<uint64_t, std::map<uint64_t, std::string>>> listed;
  std::set<uint64_t> v2;  // versions with a V2 (UUID-named) checkpoint
};

}  // namespace

Result<DeltaLog> DeltaLog::Open(const std::string& dir, std::optional<uint64_t> version) {
  DeltaLog log;
  log.dir_ = dir;
  const std::string logdir = dir + "/_delta_log";
  std::set<uint64_t> commits;
  CheckpointFiles cps;
  std::error_code ec;
  if (!std::filesystem::exists(logdir, ec)) return log;
  for (const auto& e : std::filesystem::directory_iterator(logdir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() == 25 && name.compare(20, 5, ".json") == 0 &&
        name.find_first_not_of("0123456789") == 20) {
      commits.insert(std::strtoull(name.c_str(), nullptr, 10));
      continue;
    }
    // <20 digits>.checkpoint[.<part>.<parts>|.<uuid>].parquet|json
    if (name.size() < 20 + 11 || name.compare(20, 11, ".checkpoint") != 0 ||
        !AllDigits(name.substr(0, 20))) {
      continue;
    }
    const uint64_t v = std::strtoull(name.c_str(), nullptr, 10);
    const std::string rest = name.substr(31);
    if (rest == ".parquet") {
      cps.listed[v][1][1] = name;
    } else if (rest.size() == 1 + 10 + 1 + 10 + 8 && rest.compare(22, 8, ".parquet") == 0 &&
               rest[0] == '.' && rest[11] == '.' && AllDigits(rest.substr(1, 10)) &&
               AllDigits(rest.substr(12, 10))) {
      const uint64_t part = std::strtoull(rest.c_str() + 1, nullptr, 10);
      const uint64_t n = std::strtoull(rest.c_str() + 12, nullptr, 10);
      if (part >= 1 && part <= n) {
        cps.listed[v][n][part] = name;
      }
    } else if (rest.size() > 1 && rest[0] == '.' &&
               (rest.ends_with(".json") || rest.ends_with(".parquet"))) {
      cps.v2.insert(v);
    }
  }
  if (ec) return Status::IOError("listing " + logdir + ": " + ec.message());
  // Complete checkpoints only; of several for one version, the one in the
  // fewest parts.
  for (const auto& [v, by_count] : cps.listed) {
    for (const auto& [n, parts] : by_count) {
      if (parts.size() == n) {
        cps.parts[v] = parts;
        break;
      }
    }
  }
  uint64_t latest = 0;
  bool any = false;
  if (!commits.empty()) latest = *commits.rbegin(), any = true;
  if (!cps.parts.empty()) latest = std::max(latest, cps.parts.rbegin()->first), any = true;
  if (!cps.v2.empty()) latest = std::max(latest, *cps.v2.rbegin()), any = true;
  // _last_checkpoint names the newest checkpoint; a V2 one shows there too.
  bool have_last = false;
  const std::string last_text = ReadWhole(logdir + "/_last_checkpoint", &have_last);
  if (have_last) {
    Json lc = Json::parse(last_text, nullptr, false);
    if (lc.is_object() && lc.contains("version") && lc["version"].is_number_unsigned()) {
      const uint64_t v = lc["version"].get<uint64_t>();
      if (v > latest || !any) latest = v, any = true;
    }
  }
  if (!any) return log;
  const uint64_t target = version.value_or(latest);
  if (target > latest) {
    return Status::NotFound("the Delta table " + dir + " has no version " + std::to_string(target) +
                            " (latest: " + std::to_string(latest) + ")");
  }
  // The newest checkpoint at or before the target, unless the commits from
  // version 0 are all there and no checkpoint precedes it.
  std::optional<uint64_t> from_cp;
  for (auto it = cps.parts.rbegin(); it != cps.parts.rend(); ++it) {
    if (it->first <= target) {
      from_cp = it->first;
      break;
    }
  }
  // A V2 checkpoint is needed only when commits it stands for are gone.
  for (uint64_t v : cps.v2) {
    if (v > target || (from_cp && v <= *from_cp)) continue;
    for (uint64_t c = from_cp ? *from_cp + 1 : 0; c <= target; ++c) {
      if (commits.count(c) == 0) {
        return Status::Unimplemented("the Delta table " + dir +
                                     " needs its V2 checkpoint of version " + std::to_string(v) +
                                     " (UUID-named, with sidecars), which is not supported yet");
      }
    }
  }
  uint64_t first = 0;
  if (from_cp) {
    std::vector<std::string> parts;
    for (const auto& [n, name] : cps.parts[*from_cp]) parts.push_back(logdir + "/" + name);
    SLUICE_RETURN_IF_ERROR(log.ReadCheckpoint(parts, *from_cp));
    first = *from_cp + 1;
  }
  for (uint64_t v = first; v <= target; ++v) {
    const std::string path = logdir + "/" + DeltaCommitName(v);
    if (commits.count(v) == 0) {
      return Status::Corruption("the Delta log of " + dir + " is missing version " +
                                std::to_string(v) + " (" + path +
                                (from_cp ? ")"
                                         : "), and no checkpoint at or before version " +
                                               std::to_string(target) + " stands in for it"));
    }
    bool ok = false;
    const std::string text = ReadWhole(path, &ok);
    if (!ok) return Status::IOError("cannot read " + path);
    SLUICE_RETURN_IF_ERROR(log.ApplyCommit(v, text, path));
  }
  return log;
}

Status DeltaLog::ReadCheckpoint(const std::vector<std::string>& parts, uint64_t version) {
  static const char* kActions[] = {"protocol", "metaData", "txn", "add", "remove"};
  for (const std::string& path : parts) {
    auto reader = format::ParquetReader::Open(path);
    if (!reader.ok()) {
      return Status::Corruption("the Delta log checkpoint " + path +
                                " cannot be read: " + reader.status().message());
    }
    const auto& cols = (*reader)->columns();
    std::vector<size_t> want;
    for (size_t i = 0; i < cols.size(); ++i) {
      if (cols[i].name == "checkpointMetadata" || cols[i].name == "sidecar") {
        return Status::Unimplemented("the Delta log checkpoint " + path +
                                     " is a V2 checkpoint (with " + cols[i].name +
                                     "), which is not supported yet");
      }
      for (const char* a : kActions) {
        if (cols[i].name == a) {
          if (cols[i].type.id() != TypeId::kRow) {
            return Status::Corruption("the Delta log checkpoint " + path + ": column " +
                                      cols[i].name + " is " + cols[i].type.ToString() +
                                      ", not a struct");
          }
          want.push_back(i);
        }
      }
    }
    for (size_t g = 0; g < (*reader)->row_groups(); ++g) {
      std::vector<std::vector<Value>> rows;
      Status s = (*reader)->ReadRowGroup(g, want, &rows);
      if (!s.ok()) {
        return Status::Corruption("the Delta log checkpoint " + path +
                                  " cannot be read: " + s.message());
      }
      std::string text;
      for (const auto& row : rows) {
        for (size_t c = 0; c < want.size() && c < row.size(); ++c) {
          if (row[c].is_null()) continue;
          const format::ParquetColumn& col = cols[want[c]];
          text += Json{{col.name, ValueJson(row[c], col.type)}}.dump() + "\n";
        }
      }
      SLUICE_RETURN_IF_ERROR(ApplyActions(version, text, path, /*checkpoint=*/true));
    }
  }
  next_version_ = version + 1;
  last_changes_.clear();
  last_commit_timestamp_ = -1;
  return Status::OK();
}

Status DeltaLog::ApplyCommit(uint64_t version, const std::string& text, const std::string& where) {
  if (version != next_version_) {
    return Status::Internal(where + ": version " + std::to_string(version) + " replayed after " +
                            std::to_string(next_version_));
  }
  last_changes_.clear();
  last_commit_timestamp_ = -1;
  SLUICE_RETURN_IF_ERROR(ApplyActions(version, text, where, /*checkpoint=*/false));
  ++next_version_;
  return Status::OK();
}

Status DeltaLog::ApplyActions(uint64_t version, const std::string& text, const std::string& where,
                              bool checkpoint) {
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line == "\r") continue;
    const std::string at = where + (checkpoint ? " action " : " line ") + std::to_string(n);
    Json a = Json::parse(line, nullptr, false);
    if (a.is_discarded() || !a.is_object()) {
      return Status::Corruption(at + " is not a JSON action: the Delta log is damaged");
    }
    if (a.contains("commitInfo") && a["commitInfo"].is_object()) {
      const Json& c = a["commitInfo"];
      if (c.contains("inCommitTimestamp") && c["inCommitTimestamp"].is_number_integer()) {
        last_commit_timestamp_ = c["inCommitTimestamp"].get<int64_t>();
      } else if (c.contains("timestamp") && c["timestamp"].is_number_integer()) {
        last_commit_timestamp_ = c["timestamp"].get<int64_t>();
      }
    } else if (a.contains("metaData") && a["metaData"].is_object()) {
      const Json& m = a["metaData"];
      schema_string_ = m.value("schemaString", "");
      partition_columns_ = Strings(m.value("partitionColumns", Json::array()));
      configuration_.clear();
      if (m.contains("configuration") && m["configuration"].is_object()) {
        for (const auto& [k, v] : m["configuration"].items()) {
          if (v.is_string()) configuration_[k] = v.get<std::string>();
        }
      }
    } else if (a.contains("protocol") && a["protocol"].is_object()) {
      const Json& p = a["protocol"];
      min_reader_version_ = p.value("minReaderVersion", 1);
      min_writer_version_ = p.value("minWriterVersion", 1);
      reader_features_ = Strings(p.value("readerFeatures", Json::array()));
      writer_features_ = Strings(p.value("writerFeatures", Json::array()));
    } else if (a.contains("add") && a["add"].is_object()) {
      const Json& j = a["add"];
      DeltaLiveFile f;
      f.path = j.value("path", "");
      if (f.path.empty()) return Status::Corruption(at + ": an add action without a path");
      f.size = j.value("size", uint64_t{0});
      f.modification_time = j.value("modificationTime", int64_t{0});
      if (j.contains("stats") && j["stats"].is_string()) f.stats = j["stats"].get<std::string>();
      f.num_records = NumRecords(f.stats);
      if (j.contains("partitionValues") && j["partitionValues"].is_object()) {
        for (const auto& [k, v] : j["partitionValues"].items()) {
          f.partition_values.emplace_back(
              k, v.is_string() ? std::optional<std::string>(v.get<std::string>()) : std::nullopt);
        }
      }
      if (j.contains("deletionVector") && j["deletionVector"].is_object()) {
        SLUICE_ASSIGN_OR_RETURN(f.deletion_vector, ParseDeletionVector(j["deletionVector"], at));
      }
      f.version = version;
      const bool data_change = j.value("dataChange", true) != false;
      if (!checkpoint) {
        auto old = live_.find(f.path);
        if (old != live_.end() && old->second.version < version) {
          last_changes_.push_back({old->second, false, data_change});
        }
        last_changes_.push_back({f, true, data_change});
      }
      live_[f.path] = std::move(f);
    } else if (a.contains("remove") && a["remove"].is_object()) {
      const Json& j = a["remove"];
      std::optional<DeletionVectorRef> removed_dv;
      if (j.contains("deletionVector") && j["deletionVector"].is_object()) {
        SLUICE_ASSIGN_OR_RETURN(removed_dv, ParseDeletionVector(j["deletionVector"], at));
      }
      NoteRemoved(j.value("path", ""), removed_dv, j.value("deletionTimestamp", int64_t{0}));
      if (checkpoint) continue;  // a tombstone: its file is not live
      auto it = live_.find(j.value("path", ""));
      if (it == live_.end()) continue;
      // A remove ends the logical file (path, vector) it names; the add of
      // the same path with a new vector in the same commit stays.
      std::string id;
      if (j.contains("deletionVector") && j["deletionVector"].is_object()) {
        SLUICE_ASSIGN_OR_RETURN(DeletionVectorRef dv, ParseDeletionVector(j["deletionVector"], at));
        id = dv.UniqueId();
      }
      const std::string live_id =
          it->second.deletion_vector ? it->second.deletion_vector->UniqueId() : "";
      if (id == live_id || (id.empty() && it->second.version < version)) {
        last_changes_.push_back({it->second, false, j.value("dataChange", true) != false});
        live_.erase(it);
      }
    } else if (a.contains("txn") && a["txn"].is_object()) {
      NoteTxn(a["txn"].value("appId", ""), a["txn"].value("version", int64_t{-1}));
    }
  }
  return Status::OK();
}

Status DeltaLog::CheckReadable() const {
  static const std::set<std::string> kSupported = {"deletionVectors", "timestampNtz",
                                                   "columnMapping", "vacuumProtocolCheck"};
  if (min_reader_version_ > 3) {
    return Status::Unimplemented("the Delta table " + dir_ + " needs reader version " +
                                 std::to_string(min_reader_version_) + " (supported: up to 3)");
  }
  if (min_reader_version_ == 3) {
    for (const std::string& f : reader_features_) {
      if (kSupported.count(f) == 0) {
        return Status::Unimplemented("the Delta table " + dir_ + " needs the reader feature \"" +
                                     f + "\", which is not supported yet");
      }
    }
  }
  const std::string mode = column_mapping_mode();
  if (mode != "none" && mode != "name") {
    return Status::Unimplemented("the Delta table " + dir_ + " maps its columns by " + mode +
                                 " (delta.columnMapping.mode), which is not supported yet; "
                                 "mapping by name is");
  }
  return Status::OK();
}

std::string DeltaLog::column_mapping_mode() const {
  auto it = configuration_.find("delta.columnMapping.mode");
  return it == configuration_.end() ? std::string("none") : it->second;
}

Result<std::map<std::string, std::string>> DeltaLog::PhysicalNames() const {
  std::map<std::string, std::string> out;
  if (schema_string_.empty()) return out;
  Json schema = Json::parse(schema_string_, nullptr, false);
  if (schema.is_discarded() || !schema.is_object() || !schema.contains("fields") ||
      !schema["fields"].is_array()) {
    return Status::Corruption("the Delta table " + dir_ + " has a damaged schemaString");
  }
  const bool by_name = column_mapping_mode() == "name";
  for (const Json& f : schema["fields"]) {
    if (!f.is_object() || !f.contains("name") || !f["name"].is_string()) continue;
    const std::string name = f["name"].get<std::string>();
    std::string physical = name;
    if (by_name && f.contains("metadata") && f["metadata"].is_object() &&
        f["metadata"].contains("delta.columnMapping.physicalName") &&
        f["metadata"]["delta.columnMapping.physicalName"].is_string()) {
      physical = f["metadata"]["delta.columnMapping.physicalName"].get<std::string>();
    }
    out[name] = physical;
  }
  return out;
}

Result<uint64_t> DeltaVersionAt(const std::string& dir, int64_t timestamp_ms) {
  const std::string logdir = dir + "/_delta_log";
  std::vector<uint64_t> commits;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(logdir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() == 25 && name.compare(20, 5, ".json") == 0 &&
        name.find_first_not_of("0123456789") == 20) {
      commits.push_back(std::strtoull(name.c_str(), nullptr, 10));
    }
  }
  if (ec) return Status::NotFound("the Delta table " + dir + " has no log: " + ec.message());
  std::sort(commits.rbegin(), commits.rend());
  for (uint64_t v : commits) {
    const std::string path = logdir + "/" + DeltaCommitName(v);
    std::ifstream in(path, std::ios::binary);
    int64_t ts = -1;
    std::string line;
    while (ts < 0 && std::getline(in, line)) {
      Json a = Json::parse(line, nullptr, false);
      if (!a.is_object() || !a.contains("commitInfo") || !a["commitInfo"].is_object()) continue;
      const Json& c = a["commitInfo"];
      if (c.contains("inCommitTimestamp") && c["inCommitTimestamp"].is_number_integer()) {
        ts = c["inCommitTimestamp"].get<int64_t>();
      } else if (c.contains("timestamp") && c["timestamp"].is_number_integer()) {
        ts = c["timestamp"].get<int64_t>();
      }
    }
    if (ts < 0) {
      struct stat st;
      if (::stat(path.c_str(), &st) != 0) continue;
      ts = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
    }
    if (ts <= timestamp_ms) return v;
  }
  return Status::NotFound("the Delta table " + dir + " has no version committed at or before " +
                          std::to_string(timestamp_ms) + " ms since the epoch");
}

std::vector<std::string> DeltaLog::live_files() const {
  std::vector<std::string> out;
  out.reserve(live_.size());
  for (const auto& [path, f] : live_) out.push_back(path);
  return out;
}

void DeltaLog::NoteTxn(const std::string& app_id, int64_t version) {
  for (auto& [id, v] : txns_) {
    if (id == app_id) {
      v = std::max(v, version);
      return;
    }
  }
  txns_.emplace_back(app_id, version);
}

int64_t DeltaLog::TxnVersion(const std::string& app_id) const {
  for (const auto& [id, v] : txns_) {
    if (id == app_id) return v;
  }
  return -1;
}

std::string DeltaLog::LocalPath(const std::string& path) const {
  if (path.rfind("file://", 0) == 0) return PercentDecode(path.substr(7));
  if (!path.empty() && path[0] == '/') return PercentDecode(path);
  return dir_ + "/" + PercentDecode(path);
}

Result<std::string> DeltaLog::DeletionVectorPath(const DeletionVectorRef& dv) const {
  if (dv.storage_type == 'i') return std::string();
  if (dv.storage_type != 'u') return LocalPath(dv.path_or_inline);
  const std::string& s = dv.path_or_inline;
  if (s.size() < 20) return Status::Corruption("a deletion vector's UUID \"" + s + "\" is too short");
  const std::string prefix = s.substr(0, s.size() - 20);
  SLUICE_ASSIGN_OR_RETURN(std::string uuid, format::Z85Decode(s.substr(s.size() - 20)));
  return dir_ + "/" + (prefix.empty() ? "" : prefix + "/") + "deletion_vector_" + UuidText(uuid) +
         ".bin";
}

void DeltaLog::NoteRemoved(const std::string& path, const std::optional<DeletionVectorRef>& dv,
                           int64_t at) {
  auto note = [&](const std::string& local) {
    if (local.empty()) return;
    int64_t& t = removed_[local];
    t = std::max(t, at);
  };
  if (!path.empty()) note(LocalPath(path));
  if (dv) {
    auto dv_path = DeletionVectorPath(*dv);
    if (dv_path.ok()) note(*dv_path);
  }
}

Result<DeltaLog::VacuumResult> DeltaLog::Vacuum(int64_t now_ms, int64_t retention_ms,
                                                int64_t untracked_ms) const {
  namespace fs = std::filesystem;
  std::set<std::string> read;  // what the latest version reads
  for (const auto& [path, f] : live_) {
    read.insert(LocalPath(path));
    if (f.deletion_vector) {
      SLUICE_ASSIGN_OR_RETURN(std::string dv, DeletionVectorPath(*f.deletion_vector));
      if (!dv.empty()) read.insert(dv);
    }
  }
  VacuumResult out;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir_, ec), end;
  if (ec) return Status::IOError("vacuum: cannot list " + dir_ + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return Status::IOError("vacuum: cannot list " + dir_ + ": " + ec.message());
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '_' || name[0] == '.') {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec)) continue;
    const std::string path = it->path().string();
    if (read.count(path) > 0) continue;
    auto removed = removed_.find(path);
    bool old = false;
    if (removed != removed_.end()) {
      old = removed->second <= now_ms - retention_ms;
    } else {
      const auto mtime = fs::last_write_time(it->path(), ec);
      if (ec) continue;
      const auto age = fs::file_time_type::clock::now() - mtime;
      old = std::chrono::duration_cast<std::chrono::milliseconds>(age).count() >= untracked_ms;
    }
    if (!old) continue;
    const uint64_t size = it->file_size(ec);
    if (ec) continue;
    if (!fs::remove(it->path(), ec) || ec) {
      return Status::IOError("vacuum: cannot delete " + path + ": " + ec.message());
    }
    ++out.files;
    out.bytes += size;
  }
  return out;
}

Result<std::vector<uint64_t>> DeltaLog::DeletedRows(const DeltaLiveFile& file) const {
  if (!file.deletion_vector) return std::vector<uint64_t>{};
  const DeletionVectorRef& dv = *file.deletion_vector;
  const std::string what = "of " + file.path;
  if (dv.storage_type == 'i') {
    SLUICE_ASSIGN_OR_RETURN(std::string bytes, format::Z85Decode(dv.path_or_inline));
    if (bytes.size() < dv.size_in_bytes) {
      return Status::Corruption("deletion vector " + what + ": " + std::to_string(bytes.size()) +
                                " bytes inline, its descriptor says " +
                                std::to_string(dv.size_in_bytes));
    }
    bytes.resize(dv.size_in_bytes);
    return format::DecodeDeletionBitmap(bytes, dv.cardinality, what);
  }
  SLUICE_ASSIGN_OR_RETURN(const std::string path, DeletionVectorPath(dv));
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::IOError("cannot read the deletion vector " + what + " (" + path + ")");
  }
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string file_bytes = bytes.str();
  SLUICE_ASSIGN_OR_RETURN(std::string_view bitmap,
                          format::DeletionBitmapAt(file_bytes, static_cast<uint64_t>(dv.offset),
                                                   dv.size_in_bytes, path));
  return format::DecodeDeletionBitmap(bitmap, dv.cardinality, what);
}

// ---------------------------------------------------------------- commits

Status DeltaLog::Commit(const std::vector<std::string>& actions, const std::string& operation) {
  const std::string logdir = dir_ + "/_delta_log";
  SLUICE_RETURN_IF_ERROR(CreateDirs(logdir));
  std::string text = Json{{"commitInfo",
                           {{"timestamp", DeltaNowMillis()},
                            {"operation", operation},
                            {"operationParameters", Json::object()},
                            {"engineInfo", "sluice"},
                            {"isBlindAppend", operation == "WRITE"}}}}
                         .dump() +
                     "\n";
  for (const std::string& a : actions) text += a + "\n";
  // Written aside and synced, then linked into place: link() fails if the
  // version exists, so exactly one writer of a version wins.
  const std::string tmp = logdir + "/." + DeltaRandomHex(8) + ".json.tmp";
  const std::string final_path = logdir + "/" + DeltaCommitName(next_version_);
  Status s = DeltaWriteFile(tmp, text, /*exclusive=*/true);
  Failpoint("delta_mid_commit");  // the commit is written aside, not yet in place
  if (s.ok() && ::link(tmp.c_str(), final_path.c_str()) != 0) {
    s = errno == EEXIST ? Status::Aborted("commit conflict: another writer committed version " +
                                          std::to_string(next_version_) + " of the Delta table " +
                                          dir_ + " first")
                        : Status::IOError("creating " + final_path + ": " + ErrnoText());
  }
  ::unlink(tmp.c_str());
  SLUICE_RETURN_IF_ERROR(s);
  SLUICE_RETURN_IF_ERROR(SyncDir(logdir));
  return ApplyCommit(next_version_, text, final_path);
}

}  // namespace sluice::connector
