#include "connector/delta.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>

#include "base/failpoint.h"
#include "format/json.h"
#include "sql/datetime.h"
#include "storage/file.h"
#include "types/row_codec.h"
#include "zset/cursor.h"

namespace sluice::connector {
namespace {

using Json = nlohmann::json;

std::string RandomHex(size_t bytes) {
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

std::string NewUuid() {
  const std::string h = RandomHex(16);
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) +
         "-" + h.substr(20);
}

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string ErrnoText() { return std::strerror(errno); }

std::string VersionName(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%020llu.json", static_cast<unsigned long long>(v));
  return buf;
}

// The Delta type of a SQL type (a name, or an object for composite types).
Json DeltaType(const SqlType& t) {
  switch (t.id()) {
    case TypeId::kBoolean:
      return "boolean";
    case TypeId::kTinyInt:
      return "byte";
    case TypeId::kSmallInt:
      return "short";
    case TypeId::kInteger:
      return "integer";
    case TypeId::kBigInt:
    case TypeId::kTime:  // microseconds since midnight (Delta has no TIME)
      return "long";
    case TypeId::kDecimal:
      return "decimal(" + std::to_string(t.precision()) + "," + std::to_string(t.scale()) + ")";
    case TypeId::kReal:
      return "float";
    case TypeId::kDouble:
      return "double";
    case TypeId::kBinary:
    case TypeId::kVarbinary:
      return "binary";
    case TypeId::kDate:
      return "date";
    case TypeId::kTimestamp:
      return "timestamp_ntz";
    case TypeId::kArray:
      return Json{{"type", "array"},
                  {"elementType", DeltaType(t.children()[0])},
                  {"containsNull", t.children()[0].nullable()}};
    case TypeId::kMap:
      return Json{{"type", "map"},
                  {"keyType", DeltaType(t.children()[0])},
                  {"valueType", DeltaType(t.children()[1])},
                  {"valueContainsNull", t.children()[1].nullable()}};
    case TypeId::kRow: {
      Json fields = Json::array();
      for (size_t i = 0; i < t.children().size(); ++i) {
        fields.push_back({{"name", t.field_names()[i]},
                          {"type", DeltaType(t.children()[i])},
                          {"nullable", t.children()[i].nullable()},
                          {"metadata", Json::object()}});
      }
      return Json{{"type", "struct"}, {"fields", fields}};
    }
    default:  // CHAR, VARCHAR, INTERVAL (PostgreSQL's text), VARIANT (JSON)
      return "string";
  }
}

bool UsesTimestampNtz(const SqlType& t) {
  if (t.id() == TypeId::kTimestamp) return true;
  for (const SqlType& c : t.children()) {
    if (UsesTimestampNtz(c)) return true;
  }
  return false;
}

// The type written to Parquet for the Delta table: TIME as a plain BIGINT
// of microseconds, since Delta readers know no TIME.
SqlType FileType(const SqlType& t) {
  switch (t.id()) {
    case TypeId::kTime:
      return SqlType::BigInt(t.nullable());
    case TypeId::kArray:
      return SqlType::Array(FileType(t.children()[0]), t.nullable());
    case TypeId::kMap:
      return SqlType::Map(FileType(t.children()[0]), FileType(t.children()[1]), t.nullable());
    case TypeId::kRow: {
      std::vector<SqlType> fields;
      for (const SqlType& c : t.children()) fields.push_back(FileType(c));
      return SqlType::Row(t.field_names(), fields, t.nullable());
    }
    default:
      return t;
  }
}

// A statistic's value as Delta writes it, or null for types without one.
Json StatValue(const SqlType& t, const Value& v, bool is_max) {
  switch (t.id()) {
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kBigInt:
    case TypeId::kTime:
      return v.int_value();
    case TypeId::kDecimal:
      return Json::parse(DecimalToString(v.decimal_unscaled(), v.decimal_scale()));
    case TypeId::kReal:
    case TypeId::kDouble:
      if (!std::isfinite(v.double_value())) return nullptr;
      return v.double_value();
    case TypeId::kChar:
    case TypeId::kVarchar:
      // Long strings would need a truncated bound: leave them out.
      if (v.string_value().size() > 32) return nullptr;
      return v.string_value();
    case TypeId::kDate:
      return sql::FormatDate(v.int_value());
    case TypeId::kTimestamp: {
      // Milliseconds, rounded outwards so that the bounds still hold.
      int64_t us = v.int_value();
      int64_t ms = us / 1000 - (us % 1000 < 0 ? 1 : 0);
      if (is_max && us % 1000 != 0) ++ms;
      std::string s = sql::FormatTimestamp(ms * 1000);
      // "YYYY-MM-DD HH:MM:SS[.ffffff]" -> "YYYY-MM-DDTHH:MM:SS.mmm"
      if (s.size() >= 19) s[10] = 'T';
      const size_t dot = s.find('.');
      if (dot == std::string::npos) {
        s += ".000";
      } else {
        s = s.substr(0, dot + 4);
        while (s.size() < dot + 4) s.push_back('0');
      }
      return s;
    }
    default:
      return nullptr;
  }
}

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

}  // namespace

std::string DeltaSchemaString(const format::Relation& rel, bool cdc) {
  Json fields = Json::array();
  for (size_t i = 0; i < rel.columns.size(); ++i) {
    fields.push_back({{"name", rel.columns[i]},
                      {"type", DeltaType(rel.schema[i])},
                      {"nullable", rel.schema[i].nullable()},
                      {"metadata", Json::object()}});
  }
  if (cdc) {
    fields.push_back({{"name", "__sluice_op"},
                      {"type", "string"},
                      {"nullable", false},
                      {"metadata", Json::object()}});
    fields.push_back({{"name", "__sluice_step"},
                      {"type", "long"},
                      {"nullable", false},
                      {"metadata", Json::object()}});
  }
  return Json{{"type", "struct"}, {"fields", fields}}.dump();
}

// ---------------------------------------------------------------- the log

Result<DeltaLog> DeltaLog::Open(const std::string& dir) {
  DeltaLog log;
  log.dir_ = dir;
  const std::string logdir = dir + "/_delta_log";
  std::vector<uint64_t> versions;
  std::error_code ec;
  if (!std::filesystem::exists(logdir, ec)) return log;
  for (const auto& e : std::filesystem::directory_iterator(logdir, ec)) {
    const std::string name = e.path().filename().string();
    if (name == "_last_checkpoint" || name.find(".checkpoint.") != std::string::npos) {
      return Status::Unimplemented("the Delta table " + dir +
                                   " has log checkpoints, which this sink does not read yet");
    }
    if (name.size() == 25 && name.compare(20, 5, ".json") == 0 &&
        name.find_first_not_of("0123456789") == 20) {
      versions.push_back(std::strtoull(name.c_str(), nullptr, 10));
    }
  }
  if (ec) return Status::IOError("listing " + logdir + ": " + ec.message());
  std::sort(versions.begin(), versions.end());
  for (size_t i = 0; i < versions.size(); ++i) {
    if (versions[i] != i) {
      return Status::Corruption("the Delta log of " + dir + " is missing version " +
                                std::to_string(i) + " (" + logdir + "/" + VersionName(i) + ")");
    }
    const std::string path = logdir + "/" + VersionName(i);
    std::ifstream in(path);
    if (!in) return Status::IOError("cannot read " + path);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      if (line.empty()) continue;
      Json a = Json::parse(line, nullptr, false);
      if (a.is_discarded() || !a.is_object()) {
        return Status::Corruption(path + " line " + std::to_string(n) +
                                  " is not a JSON action: the Delta log is damaged");
      }
      if (a.contains("metaData")) {
        log.schema_string_ = a["metaData"].value("schemaString", "");
      } else if (a.contains("add")) {
        log.live_.push_back(a["add"].value("path", ""));
      } else if (a.contains("remove")) {
        const std::string p = a["remove"].value("path", "");
        log.live_.erase(std::remove(log.live_.begin(), log.live_.end(), p), log.live_.end());
      } else if (a.contains("txn")) {
        log.NoteTxn(a["txn"].value("appId", ""), a["txn"].value("version", int64_t{-1}));
      }
    }
  }
  log.next_version_ = versions.size();
  return log;
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

Status DeltaLog::Commit(const std::vector<std::string>& actions, const std::string& operation) {
  const std::string logdir = dir_ + "/_delta_log";
  SLUICE_RETURN_IF_ERROR(CreateDirs(logdir));
  std::string text = Json{{"commitInfo",
                           {{"timestamp", NowMillis()},
                            {"operation", operation},
                            {"operationParameters", Json::object()},
                            {"engineInfo", "sluice"},
                            {"isBlindAppend", operation == "WRITE"}}}}
                         .dump() +
                     "\n";
  for (const std::string& a : actions) text += a + "\n";
  // Written aside and synced, then linked into place: link() fails if the
  // version exists, so exactly one writer of a version wins.
  const std::string tmp = logdir + "/." + RandomHex(8) + ".json.tmp";
  const std::string final_path = logdir + "/" + VersionName(next_version_);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError("creating " + tmp + ": " + ErrnoText());
  Status s = WriteAll(fd, text, tmp);
  if (s.ok() && ::fsync(fd) != 0) s = Status::IOError("syncing " + tmp + ": " + ErrnoText());
  ::close(fd);
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
  ++next_version_;
  for (const std::string& line : actions) {
    Json a = Json::parse(line);
    if (a.contains("add")) live_.push_back(a["add"]["path"]);
    if (a.contains("remove")) {
      live_.erase(std::remove(live_.begin(), live_.end(), a["remove"]["path"].get<std::string>()),
                  live_.end());
    }
    if (a.contains("metaData")) schema_string_ = a["metaData"]["schemaString"];
    if (a.contains("txn")) NoteTxn(a["txn"]["appId"], a["txn"]["version"]);
  }
  return Status::OK();
}

// ---------------------------------------------------------------- the sink

namespace {

class DeltaOutput final : public OutputConnector {
 public:
  DeltaOutput(const ConnectorSpec& spec, const format::Relation& rel) : spec_(spec), rel_(rel) {
    Json c = Json::parse(spec.transport_config);
    uri_ = c["uri"].get<std::string>();
    mode_ = c.value("mode", std::string("append"));
    target_ = c.value("target_file_size_bytes", uint64_t{128} << 20);
    threads_ = std::max(1, c.value("threads", 1));
    compression_ = *format::ParseParquetCompression(c.value("compression", std::string("zstd")));
    for (size_t i = 0; i < rel_.columns.size(); ++i) {
      columns_.push_back({rel_.columns[i], FileType(rel_.schema[i])});
    }
    columns_.push_back({"__sluice_op", SqlType::Varchar(-1, false)});
    columns_.push_back({"__sluice_step", SqlType::BigInt(false)});
  }
  ~DeltaOutput() override { Stop(); }

  Status Resume(std::string_view progress) override {
    Json p = Json::parse(progress, nullptr, false);
    if (p.is_discarded() || !p.contains("committed_step")) {
      return Status::Corruption("connector \"" + spec_.name + "\": bad progress " +
                                std::string(progress));
    }
    resuming_ = true;
    return Status::OK();
  }

  Result<std::string> Progress(std::chrono::milliseconds timeout) override {
    SLUICE_RETURN_IF_ERROR(WaitDrained(*queue_, stats_, spec_.name, timeout));
    return Json{{"committed_step", committed_step_.load()}}.dump();
  }

  Status Start(std::shared_ptr<OutputQueue> queue) override {
    auto log = DeltaLog::Open(uri_);
    if (!log.ok()) return log.status().WithContext("connector \"" + spec_.name + "\"");
    log_ = std::make_unique<DeltaLog>(std::move(log).value());
    app_id_ = spec_.pipeline_id;
    const std::string schema = DeltaSchemaString(rel_, true);
    if (!log_->exists() || (!resuming_ && mode_ == "truncate")) {
      if (log_->exists() && mode_ == "error_if_exists") {
        return Status::InvalidArgument("connector \"" + spec_.name + "\": the Delta table " + uri_ +
                                       " exists (mode error_if_exists)");
      }
      SLUICE_RETURN_IF_ERROR(CreateDirs(uri_));
      std::vector<std::string> actions;
      for (const std::string& f : log_->live_files()) {
        actions.push_back(Json{
            {"remove", {{"path", f}, {"deletionTimestamp", NowMillis()}, {"dataChange", true}}}}
                              .dump());
      }
      bool ntz = false;
      for (const SqlType& t : rel_.schema) ntz = ntz || UsesTimestampNtz(t);
      Json protocol = ntz ? Json{{"minReaderVersion", 3},
                                 {"minWriterVersion", 7},
                                 {"readerFeatures", {"timestampNtz"}},
                                 {"writerFeatures", {"timestampNtz"}}}
                          : Json{{"minReaderVersion", 1}, {"minWriterVersion", 2}};
      actions.push_back(Json{{"protocol", protocol}}.dump());
      actions.push_back(Json{{"metaData",
                              {{"id", NewUuid()},
                               {"name", rel_.name},
                               {"format", {{"provider", "parquet"}, {"options", Json::object()}}},
                               {"schemaString", schema},
                               {"partitionColumns", Json::array()},
                               {"configuration", Json::object()},
                               {"createdTime", NowMillis()}}}}
                            .dump());
      Status s = log_->Commit(actions, log_->exists() ? "CREATE OR REPLACE TABLE" : "CREATE TABLE");
      if (!s.ok()) return s.WithContext("connector \"" + spec_.name + "\"");
    } else if (mode_ == "error_if_exists" && !resuming_) {
      return Status::InvalidArgument("connector \"" + spec_.name + "\": the Delta table " + uri_ +
                                     " exists (mode error_if_exists)");
    } else if (log_->schema_string() != schema) {
      return Status::InvalidArgument("connector \"" + spec_.name + "\": the Delta table " + uri_ +
                                     " has another schema than view " + rel_.name +
                                     " (table: " + log_->schema_string() +
                                     "); write to a new table, or use mode truncate");
    }
    // Steps the table already holds (a restart replays them) are skipped.
    skip_through_ = log_->TxnVersion(app_id_);
    committed_step_ = skip_through_ < 0 ? 0 : static_cast<uint64_t>(skip_through_);
    queue_ = std::move(queue);
    thread_ = std::thread([this] {
      DrainQueue(*queue_, stats_, [this](const OutputChunk& c) { return WriteWithRetry(c); });
    });
    return Status::OK();
  }

  void Stop() override {
    if (queue_) queue_->Close();
    if (thread_.joinable()) thread_.join();
  }

  // A snapshot part fills a file of the target size on every write thread.
  uint64_t preferred_part_bytes() const override {
    return target_ * static_cast<uint64_t>(std::max(threads_, 1));
  }

 private:
  // A failed step is tried again (the queue fills meanwhile and holds the
  // pipeline back), so that no step is skipped; the error shows in /stats.
  Status WriteWithRetry(const OutputChunk& chunk) {
    auto backoff = std::chrono::milliseconds(200);
    for (;;) {
      Status s = Write(chunk).WithContext("step " + std::to_string(chunk.step));
      // A conflict is final, as is a failure while stopping (DrainQueue
      // reports it).
      if (s.ok() || s.code() == StatusCode::kAborted || queue_->closed()) return s;
      ++stats_.transport_errors;
      stats_.SetError(s.ToString() + " (retrying)");
      std::this_thread::sleep_for(backoff);
      backoff = std::min(backoff * 2, std::chrono::milliseconds(30000));
    }
  }

  Status Write(const OutputChunk& chunk) {
    if (chunk.kind == OutputChunk::Kind::kReset) {
      std::vector<std::string> actions;
      for (const std::string& f : log_->live_files()) {
        actions.push_back(Json{
            {"remove", {{"path", f}, {"deletionTimestamp", NowMillis()}, {"dataChange", true}}}}
                              .dump());
      }
      if (!actions.empty()) SLUICE_RETURN_IF_ERROR(log_->Commit(actions, "DELETE"));
      skip_through_ = static_cast<int64_t>(chunk.step) - 1;  // its snapshot follows
      // Files of a snapshot cut short by the reset never get committed.
      for (const DeltaFile& f : pending_) (void)RemoveFile(uri_ + "/" + f.path);
      pending_.clear();
      return Status::OK();
    }
    if (static_cast<int64_t>(chunk.step) <= skip_through_) return Status::OK();
    // The rows of each file: encoded rows with their op, about target bytes.
    struct Part {
      std::vector<std::pair<std::string, bool>> rows;  // row, inserted
      uint64_t bytes = 0;
    };
    std::vector<Part> parts(1);
    auto c = NewCursorOver(chunk.batches);
    for (; c->KeyValid(); c->StepKey()) {
      const int64_t w = c->weight();
      for (int64_t k = 0; k < (w < 0 ? -w : w); ++k) {
        if (parts.back().bytes >= target_) parts.emplace_back();
        parts.back().rows.emplace_back(std::string(c->key()), w > 0);
        parts.back().bytes += c->key().size() + 16;
      }
    }
    SLUICE_RETURN_IF_ERROR(c->status());
    if (parts.back().rows.empty()) parts.pop_back();
    const bool more = chunk.kind == OutputChunk::Kind::kSnapshot && !chunk.last;
    if (parts.empty() && (more || pending_.empty())) return Status::OK();
    // Encoded in parallel, then committed together.
    std::vector<Result<DeltaFile>> files(parts.size(), Status::Internal("not written"));
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i; (i = next++) < parts.size();) files[i] = EncodeFile(parts[i].rows, chunk.step);
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads_ && static_cast<size_t>(t) < parts.size(); ++t) {
      pool.emplace_back(work);
    }
    work();
    for (std::thread& t : pool) t.join();
    Status failed;
    for (const auto& f : files) {
      if (!f.ok() && failed.ok()) failed = f.status();
    }
    if (!failed.ok()) {
      for (const auto& f : files) {
        if (f.ok()) (void)RemoveFile(uri_ + "/" + f->path);
      }
      return failed;
    }
    if (more) {
      // A part of a snapshot that more parts follow: its files wait, and
      // the whole snapshot is one commit, with its last part.
      for (auto& f : files) pending_.push_back(std::move(f).value());
      return Status::OK();
    }
    Failpoint("delta_before_commit");  // the data files are written, the commit not
    std::vector<std::string> actions;
    actions.push_back(
        Json{{"txn", {{"appId", app_id_}, {"version", chunk.step}, {"lastUpdated", NowMillis()}}}}
            .dump());
    uint64_t rows = 0, bytes = 0;
    auto add = [&](const DeltaFile& f) {
      actions.push_back(Json{{"add",
                              {{"path", f.path},
                               {"partitionValues", Json::object()},
                               {"size", f.size},
                               {"modificationTime", NowMillis()},
                               {"dataChange", true},
                               {"stats", f.stats}}}}
                            .dump());
      rows += f.rows;
      bytes += f.size;
    };
    for (const DeltaFile& f : pending_) add(f);
    for (const auto& f : files) add(*f);
    Status s = log_->Commit(actions, "WRITE");
    if (!s.ok()) {
      for (const auto& f : files) (void)RemoveFile(uri_ + "/" + f->path);
      return s;
    }
    pending_.clear();
    committed_step_ = chunk.step;
    stats_.records += rows;
    stats_.bytes += bytes;
    return Status::OK();
  }

  Result<DeltaFile> EncodeFile(const std::vector<std::pair<std::string, bool>>& rows,
                               uint64_t step) {
    DeltaFile f;
    char name[64];
    std::snprintf(name, sizeof name, "part-%020llu-", static_cast<unsigned long long>(step));
    f.path = name + RandomHex(8) + "." + format::ParquetCompressionName(compression_) + ".parquet";
    format::ParquetOptions o;
    o.compression = compression_;
    o.row_group_bytes = std::min<uint64_t>(target_, o.row_group_bytes);
    SLUICE_ASSIGN_OR_RETURN(auto w,
                            format::ParquetWriter::Create(uri_ + "/" + f.path, columns_, o));
    const Value insert = Value::String("i"), del = Value::String("d");
    const Value at = Value::Int(static_cast<int64_t>(step));
    for (const auto& [row, inserted] : rows) {
      SLUICE_ASSIGN_OR_RETURN(std::vector<Value> values, DecodeRow(rel_.schema, row));
      values.push_back(inserted ? insert : del);
      values.push_back(at);
      SLUICE_RETURN_IF_ERROR(w->Add(values));
    }
    SLUICE_ASSIGN_OR_RETURN(format::ParquetFileInfo info, w->Finish());
    f.size = info.bytes;
    f.rows = info.rows;
    Json mins = Json::object(), maxs = Json::object(), nulls = Json::object();
    for (size_t i = 0; i < columns_.size(); ++i) {
      const SqlType& t = i < rel_.schema.size() ? rel_.schema[i] : columns_[i].type;
      const format::ParquetColumnStats& st = info.stats[i];
      if (t.id() == TypeId::kArray || t.id() == TypeId::kMap || t.id() == TypeId::kRow) continue;
      nulls[columns_[i].name] = st.null_count;
      if (!st.has_min_max) continue;
      Json lo = StatValue(t, st.min, false), hi = StatValue(t, st.max, true);
      if (lo.is_null() || hi.is_null()) continue;
      mins[columns_[i].name] = lo;
      maxs[columns_[i].name] = hi;
    }
    f.stats =
        Json{{"numRecords", f.rows}, {"minValues", mins}, {"maxValues", maxs}, {"nullCount", nulls}}
            .dump();
    return f;
  }

  const ConnectorSpec spec_;
  const format::Relation rel_;
  std::string uri_, mode_, app_id_;
  uint64_t target_ = 0;
  int threads_ = 1;
  format::ParquetCompression compression_ = format::ParquetCompression::kZstd;
  std::vector<format::ParquetColumn> columns_;
  bool resuming_ = false;
  std::unique_ptr<DeltaLog> log_;
  int64_t skip_through_ = -1;
  std::vector<DeltaFile> pending_;  // the files of a snapshot's parts so far
  std::atomic<uint64_t> committed_step_{0};
  std::shared_ptr<OutputQueue> queue_;
  std::thread thread_;
};

}  // namespace

std::unique_ptr<OutputConnector> MakeDeltaOutput(const ConnectorSpec& spec,
                                                 const format::Relation& rel) {
  return std::make_unique<DeltaOutput>(spec, rel);
}

}  // namespace sluice::connector
