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
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
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
    case TypeId::kDecimal: {
      const SqlType f = format::FileType(t);
      return "decimal(" + std::to_string(f.precision()) + "," + std::to_string(f.scale()) + ")";
    }
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
      return t.with_time_zone() ? "timestamp" : "timestamp_ntz";
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
  if (t.id() == TypeId::kTimestamp && !t.with_time_zone()) return true;
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
      return Json::parse(DecimalValueToString(v));
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
      if (sql::IsInfiniteDate(v.int_value())) return nullptr;  // no bound to write
      return sql::FormatDate(v.int_value());
    case TypeId::kTimestamp: {
      // Milliseconds, rounded outwards so that the bounds still hold.
      int64_t us = v.int_value();
      if (sql::IsInfiniteTimestamp(us)) return nullptr;
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
      if (t.with_time_zone()) s += 'Z';  // an instant: in UTC
      return s;
    }
    default:
      return nullptr;
  }
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
    part_wait_ = std::chrono::seconds(c.value("part_wait_secs", uint64_t{60}));
    for (size_t i = 0; i < rel_.columns.size(); ++i) {
      columns_.push_back({rel_.columns[i], FileType(rel_.schema[i])});
    }
    merge_ = c.value("update_mode", std::string("cdc")) == "merge";
    compact_min_files_ = c.value("compact_min_files", size_t{16});
    retention_ms_ = static_cast<int64_t>(c.value("vacuum_retention_hours", 168.0) * 3600 * 1000);
    if (!merge_) {
      columns_.push_back({"__sluice_op", SqlType::Varchar(-1, false)});
      columns_.push_back({"__sluice_step", SqlType::BigInt(false)});
    }
  }
  ~DeltaOutput() override { Stop(); }

  void SetPart(PartInfo part) override {
    part_ = std::move(part);
    MutexLock l(&lmu_);
    if (part_->leader_here()) parts_.assign(static_cast<size_t>(part_->hosts), PartState());
  }

  Status AcceptReport(const PartReport& report, std::chrono::milliseconds wait) override {
    if (!part_ || !part_->leader_here()) return OutputConnector::AcceptReport(report, wait);
    return LeaderAccept(report, wait, /*own=*/false);
  }

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
    app_id_ = spec_.pipeline_id;
    if (part_ && !part_->leader_here()) {
      // The table is the leader's to create: a part opens it at its first
      // write, and never waits for another host while it starts.
      queue_ = std::move(queue);
      thread_ = std::thread([this] {
        DrainQueue(*queue_, stats_, [this](const OutputChunk& c) { return WriteWithRetry(c); });
      });
      return Status::OK();
    }
    SLUICE_RETURN_IF_ERROR(CheckMergeKey().WithContext("connector \"" + spec_.name + "\""));
    auto log = DeltaLog::Open(uri_);
    if (!log.ok()) return log.status().WithContext("connector \"" + spec_.name + "\"");
    log_ = std::make_unique<DeltaLog>(std::move(log).value());
    app_id_ = spec_.pipeline_id;
    const std::string schema = DeltaSchemaString(rel_, !merge_);
    if (!log_->exists() || (!resuming_ && mode_ == "truncate")) {
      if (log_->exists() && mode_ == "error_if_exists") {
        return Status::InvalidArgument("connector \"" + spec_.name + "\": the Delta table " + uri_ +
                                       " exists (mode error_if_exists)");
      }
      SLUICE_RETURN_IF_ERROR(CreateDirs(uri_));
      std::vector<std::string> actions = RemoveActions();
      bool ntz = false;
      for (const SqlType& t : rel_.schema) ntz = ntz || UsesTimestampNtz(t);
      Json features = Json::array();
      if (ntz) features.push_back("timestampNtz");
      if (merge_) features.push_back("deletionVectors");
      Json protocol = !features.empty() ? Json{{"minReaderVersion", 3},
                                               {"minWriterVersion", 7},
                                               {"readerFeatures", features},
                                               {"writerFeatures", features}}
                                        : Json{{"minReaderVersion", 1}, {"minWriterVersion", 2}};
      actions.push_back(Json{{"protocol", protocol}}.dump());
      Json configuration = Json::object();
      if (merge_) configuration["delta.enableDeletionVectors"] = "true";
      actions.push_back(Json{{"metaData",
                              {{"id", DeltaNewUuid()},
                               {"name", rel_.name},
                               {"format", {{"provider", "parquet"}, {"options", Json::object()}}},
                               {"schemaString", schema},
                               {"partitionColumns", Json::array()},
                               {"configuration", configuration},
                               {"createdTime", DeltaNowMillis()}}}}
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
    } else if (merge_ && std::find(log_->writer_features().begin(), log_->writer_features().end(),
                                   "deletionVectors") == log_->writer_features().end()) {
      return Status::InvalidArgument("connector \"" + spec_.name + "\": the Delta table " + uri_ +
                                     " does not allow deletion vectors, which update_mode merge "
                                     "writes; write to a new table, or use mode truncate");
    }
    // Steps the table already holds (a restart replays them) are skipped.
    skip_through_ = log_->TxnVersion(app_id_);
    committed_step_ = skip_through_ < 0 ? 0 : static_cast<uint64_t>(skip_through_);
    {
      MutexLock l(&lmu_);
      committed_through_ = committed_step_;
    }
    opened_ = true;
    queue_ = std::move(queue);
    thread_ = std::thread([this] {
      DrainQueue(*queue_, stats_, [this](const OutputChunk& c) { return WriteWithRetry(c); });
    });
    return Status::OK();
  }

  void Stop() override {
    {
      // Parts waiting for this leader hear that it stopped.
      MutexLock l(&lmu_);
      stopped_ = true;
      lcv_.SignalAll();
    }
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
    if (part_) return WritePart(chunk);
    if (merge_) return WriteMerge(chunk);
    if (chunk.kind == OutputChunk::Kind::kReset) {
      SLUICE_RETURN_IF_ERROR(RemoveLiveFiles());
      skip_through_ = static_cast<int64_t>(chunk.step) - 1;  // its snapshot follows
      // Files of a snapshot cut short by the reset never get committed.
      DropPending();
      return Status::OK();
    }
    if (static_cast<int64_t>(chunk.step) <= skip_through_) return Status::OK();
    SLUICE_ASSIGN_OR_RETURN(std::vector<DeltaFile> files, EncodeRows(chunk.batches, chunk.step));
    const bool more = chunk.kind == OutputChunk::Kind::kSnapshot && !chunk.last;
    if (more) {
      // A part of a snapshot that more parts follow: its files wait, and
      // the whole snapshot is one commit, with its last part.
      pending_.insert(pending_.end(), files.begin(), files.end());
      return Status::OK();
    }
    if (files.empty() && pending_.empty()) return Status::OK();
    files.insert(files.begin(), pending_.begin(), pending_.end());
    Status s = CommitStep(chunk.step, files);
    if (!s.ok()) {
      for (size_t i = pending_.size(); i < files.size(); ++i) {
        (void)RemoveFile(uri_ + "/" + files[i].path);
      }
      return s;
    }
    pending_.clear();
    committed_step_ = chunk.step;
    Count(files);
    Vacuum();
    return Status::OK();
  }

  // One Delta commit of `files` as step `step` (with the txn action that
  // makes a replayed step a no-op).
  Status CommitStep(uint64_t step, const std::vector<DeltaFile>& files) {
    Failpoint("delta_before_commit");  // the data files are written, the commit not
    if (FailpointError("delta_commit")) return Status::IOError("failpoint delta_commit");
    std::vector<std::string> actions;
    if (step > 0) {  // step 0: a compaction, which belongs to no step
      actions.push_back(
          Json{{"txn", {{"appId", app_id_}, {"version", step}, {"lastUpdated", DeltaNowMillis()}}}}
              .dump());
    }
    bool blind = true;
    for (const DeltaFile& f : files) {
      if (f.action != DeltaFile::Action::kAdd) {
        blind = false;
        Json r{{"path", f.path},
               {"deletionTimestamp", DeltaNowMillis()},
               {"dataChange", f.data_change}};
        if (!f.old_deletion_vector.empty()) r["deletionVector"] = Json::parse(f.old_deletion_vector);
        actions.push_back(Json{{"remove", r}}.dump());
        if (f.action == DeltaFile::Action::kRemove) continue;
      }
      Json a{{"path", f.path},
             {"partitionValues", Json::object()},
             {"size", f.size},
             {"modificationTime", DeltaNowMillis()},
             {"dataChange", f.data_change},
             {"stats", f.stats}};
      if (!f.deletion_vector.empty()) a["deletionVector"] = Json::parse(f.deletion_vector);
      actions.push_back(Json{{"add", a}}.dump());
    }
    return log_->Commit(actions, step == 0 ? "OPTIMIZE" : blind ? "WRITE" : "MERGE");
  }

  // The remove actions of every live file (each with its deletion vector).
  std::vector<std::string> RemoveActions() const {
    std::vector<std::string> actions;
    for (const auto& [path, f] : log_->live()) {
      Json r{{"path", path}, {"deletionTimestamp", DeltaNowMillis()}, {"dataChange", true}};
      if (f.deletion_vector) r["deletionVector"] = Json::parse(f.deletion_vector->Json());
      actions.push_back(Json{{"remove", r}}.dump());
    }
    return actions;
  }

  // ---- update_mode merge

  // The view's key: given by the pipeline from the view's index; of types
  // whose values read back from the files as they were written.
  Status CheckMergeKey() const {
    if (!merge_) return Status::OK();
    if (spec_.key.empty()) {
      return Status::InvalidArgument(
          "update_mode merge needs a unique key of view " + rel_.name +
          ": declare one with CREATE INDEX name ON " + rel_.name +
          " (columns) and name it in the connector's \"index\"");
    }
    for (int k : spec_.key) {
      const SqlType& t = rel_.schema[static_cast<size_t>(k)];
      if (t.id() == TypeId::kTime || t.id() == TypeId::kInterval || t.id() == TypeId::kVariant ||
          t.id() == TypeId::kArray || t.id() == TypeId::kMap || t.id() == TypeId::kRow) {
        return Status::Unimplemented("update_mode merge with a key column of type " +
                                     t.ToString() + " (" + rel_.columns[static_cast<size_t>(k)] +
                                     ") is not supported yet");
      }
    }
    return Status::OK();
  }

  // The merge state of this sink's files (a part's: its host's files),
  // loaded from the table at the first write.
  Status OpenMerge() {
    if (merge_table_) return Status::OK();
    const std::string mark = part_ ? "-h" + std::to_string(part_->host) + "-" : "";
    auto table = std::make_unique<DeltaMergeTable>(
        uri_, rel_, spec_.key, columns_,
        [mark](const std::string& path) { return mark.empty() || path.find(mark) == 25; });
    SLUICE_ASSIGN_OR_RETURN(DeltaLog log, DeltaLog::Open(uri_));
    SLUICE_RETURN_IF_ERROR(table->Load(log));
    merge_table_ = std::move(table);
    return Status::OK();
  }

  DeltaMergeTable::WriteRows MergeWriter(uint64_t step) {
    return [this, step](std::vector<std::vector<Value>> rows) {
      return EncodeValues(std::move(rows), step);
    };
  }

  // A step's change staged into the merge state, and (at a step's end or a
  // snapshot's last part) its commit's actions; nullopt while a snapshot's
  // parts continue. After a change the view's key cannot take (it is not
  // unique), the sink writes nothing more until a reset.
  Result<std::optional<std::vector<DeltaFile>>> StageMerge(const OutputChunk& chunk) {
    if (!merge_failure_.ok()) return merge_failure_;
    SLUICE_RETURN_IF_ERROR(OpenMerge());
    if (!merge_table_->finished()) {
      if (chunk.kind == OutputChunk::Kind::kSnapshot && !merge_table_->staged()) {
        merge_table_->ReplaceAll();
      }
      Status s = merge_table_->Stage(chunk.batches, MergeWriter(chunk.step));
      if (s.code() == StatusCode::kInvalidArgument) {
        merge_table_->Abort();
        merge_failure_ = Status::Aborted(
            s.message() + "; the table holds the view as of step " +
            std::to_string(committed_step_.load()) +
            " and takes no more changes until the connector is reset");
        return merge_failure_;
      }
      SLUICE_RETURN_IF_ERROR(s);
      if (chunk.kind == OutputChunk::Kind::kSnapshot && !chunk.last) {
        return std::optional<std::vector<DeltaFile>>();
      }
    }
    SLUICE_ASSIGN_OR_RETURN(std::vector<DeltaFile> actions,
                            merge_table_->Finish(MergeWriter(chunk.step), rewrite_fraction_));
    return std::optional<std::vector<DeltaFile>>(std::move(actions));
  }

  Status WriteMerge(const OutputChunk& chunk) {
    if (chunk.kind == OutputChunk::Kind::kReset) {
      if (merge_table_) merge_table_->Abort();
      SLUICE_RETURN_IF_ERROR(RemoveLiveFiles());
      if (merge_table_) merge_table_->Clear();
      merge_failure_ = Status::OK();
      skip_through_ = static_cast<int64_t>(chunk.step) - 1;  // its snapshot follows
      return Status::OK();
    }
    if (static_cast<int64_t>(chunk.step) <= skip_through_) return Status::OK();
    SLUICE_ASSIGN_OR_RETURN(auto actions, StageMerge(chunk));
    if (!actions.has_value()) return Status::OK();
    bool any = false;
    for (const DeltaFile& f : *actions) any = any || f.action != DeltaFile::Action::kAdd || f.rows > 0;
    if (any) {
      Status s = CommitStep(chunk.step, *actions);
      if (s.code() == StatusCode::kAborted) merge_table_->Abort();
      SLUICE_RETURN_IF_ERROR(s);
    }
    merge_table_->Commit();
    committed_step_ = chunk.step;
    Count(*actions);
    Compact();
    Vacuum();
    return Status::OK();
  }

  // Between steps, while nothing else waits in the queue: small files
  // (below a quarter of the target size) rewritten as one, when there are
  // `compact_min_files` of them, as a commit of its own that changes no
  // row. A failed compaction leaves the table as it was (and is tried
  // again after the next step).
  void Compact() {
    if (compact_min_files_ == 0 || queue_->queued_chunks() > 0) return;
    auto actions = merge_table_->StageCompaction(MergeWriter(0), target_ / 4, compact_min_files_,
                                                 target_);
    Status s = actions.status();
    if (s.ok() && !actions->empty()) s = CommitStep(0, *actions);
    if (s.ok()) {
      merge_table_->Commit();
    } else {
      merge_table_->Abort();
      stats_.SetError("compaction: " + s.ToString());
    }
  }

  // Delta's VACUUM, between steps while nothing waits in the queue, at most
  // every kVacuumPeriod (or as often as the retention, when shorter): files
  // the table's commits removed more than `vacuum_retention_hours` ago are
  // deleted, and files no commit names once an hour old (so that files a
  // step is writing, or a part on another host, are never taken). The
  // leader's (or the one sink's) work: it holds the log.
  void Vacuum() {
    if (!log_ || (part_ && !part_->leader_here()) || queue_->queued_chunks() > 0) return;
    const auto now = std::chrono::steady_clock::now();
    const auto period = std::min<std::chrono::milliseconds>(
        kVacuumPeriod, std::chrono::milliseconds(retention_ms_));
    if (last_vacuum_ && now - *last_vacuum_ < period) return;
    last_vacuum_ = now;
    MutexLock l(&lmu_);  // on many hosts the log is shared with the leader's other threads
    auto r = log_->Vacuum(DeltaNowMillis(), retention_ms_, kUntrackedMs);
    if (!r.ok()) {
      stats_.SetError(r.status().ToString());
      return;
    }
    if (r->files > 0) {
      std::fprintf(stderr,
                   "sluice: connector \"%s\": vacuum deleted %llu files (%llu bytes) removed "
                   "from the table more than %g hours ago\n",
                   spec_.name.c_str(), static_cast<unsigned long long>(r->files),
                   static_cast<unsigned long long>(r->bytes),
                   static_cast<double>(retention_ms_) / 3600000.0);
    }
  }
  static constexpr std::chrono::milliseconds kVacuumPeriod{10 * 60 * 1000};
  static constexpr int64_t kUntrackedMs = 3600 * 1000;

  // Removes every file of the table (a reset), as one commit.
  Status RemoveLiveFiles() {
    const std::vector<std::string> actions = RemoveActions();
    if (!actions.empty()) SLUICE_RETURN_IF_ERROR(log_->Commit(actions, "DELETE"));
    return Status::OK();
  }

  void DropPending() {
    for (const DeltaFile& f : pending_) (void)RemoveFile(uri_ + "/" + f.path);
    pending_.clear();
  }

  // The rows of `batches` as data files of about the target size, encoded
  // in parallel. On an error, the files written are removed.
  Result<std::vector<DeltaFile>> EncodeRows(const std::vector<BatchPtr>& batches, uint64_t step) {
    struct Part {
      std::vector<std::pair<std::string, bool>> rows;  // row, inserted
      uint64_t bytes = 0;
    };
    std::vector<Part> parts(1);
    auto c = NewCursorOver(batches);
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
    const Value insert = Value::String("i"), del = Value::String("d");
    const Value at = Value::Int(static_cast<int64_t>(step));
    return EncodeParts(parts.size(), step, [&](size_t i, format::ParquetWriter* w) {
      for (const auto& [row, inserted] : parts[i].rows) {
        SLUICE_ASSIGN_OR_RETURN(std::vector<Value> values, DecodeRow(rel_.schema, row));
        values.push_back(inserted ? insert : del);
        values.push_back(at);
        SLUICE_RETURN_IF_ERROR(w->Add(values));
      }
      return Status::OK();
    });
  }

  // `rows` (merge mode: the view's columns) as data files of about the
  // target size, in order.
  Result<std::vector<DeltaFile>> EncodeValues(std::vector<std::vector<Value>> rows, uint64_t step) {
    std::vector<std::pair<size_t, size_t>> parts;  // [begin, end) of rows
    uint64_t bytes = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (parts.empty() || bytes >= target_) {
        parts.emplace_back(i, i);
        bytes = 0;
      }
      parts.back().second = i + 1;
      for (const Value& v : rows[i]) {
        bytes += v.kind() == Value::Kind::kString ? 8 + v.string_value().size() : 8;
      }
    }
    return EncodeParts(parts.size(), step, [&](size_t p, format::ParquetWriter* w) {
      for (size_t i = parts[p].first; i < parts[p].second; ++i) {
        SLUICE_RETURN_IF_ERROR(w->Add(rows[i]));
      }
      return Status::OK();
    });
  }

  // `n` data files, file i filled by `fill(i, writer)`, encoded on up to
  // `threads` threads. On an error, the files written are removed.
  Result<std::vector<DeltaFile>> EncodeParts(
      size_t n, uint64_t step, const std::function<Status(size_t, format::ParquetWriter*)>& fill) {
    std::vector<Result<DeltaFile>> encoded(n, Status::Internal("not written"));
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i; (i = next++) < n;) {
        encoded[i] = EncodeFile(step, [&](format::ParquetWriter* w) { return fill(i, w); });
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads_ && static_cast<size_t>(t) < n; ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
    Status failed;
    std::vector<DeltaFile> files;
    for (auto& f : encoded) {
      if (!f.ok()) {
        if (failed.ok()) failed = f.status();
        continue;
      }
      files.push_back(std::move(f).value());
    }
    if (!failed.ok()) {
      for (const DeltaFile& f : files) (void)RemoveFile(uri_ + "/" + f.path);
      return failed;
    }
    return files;
  }

  // Rows and bytes that a commit took.
  void Count(const std::vector<DeltaFile>& files) {
    for (const DeltaFile& f : files) {
      if (f.action != DeltaFile::Action::kAdd) continue;
      stats_.records += f.rows;
      stats_.bytes += f.size;
    }
  }

  Result<DeltaFile> EncodeFile(uint64_t step,
                               const std::function<Status(format::ParquetWriter*)>& fill) {
    DeltaFile f;
    char name[64];
    std::snprintf(name, sizeof name, "part-%020llu-", static_cast<unsigned long long>(step));
    // A distributed connector's parts name their host, which the leader
    // checks.
    const std::string host = part_ ? "h" + std::to_string(part_->host) + "-" : "";
    f.path = name + host + DeltaRandomHex(8) + "." + format::ParquetCompressionName(compression_) +
             ".parquet";
    format::ParquetOptions o;
    o.compression = compression_;
    o.row_group_bytes = std::min<uint64_t>(target_, o.row_group_bytes);
    SLUICE_ASSIGN_OR_RETURN(auto w,
                            format::ParquetWriter::Create(uri_ + "/" + f.path, columns_, o));
    SLUICE_RETURN_IF_ERROR(fill(w.get()));
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

  // ---- a distributed connector's part (on every host) and leader (the
  // part on the view's host, which commits every step once).
  //
  // Every part gets a chunk for every step. It writes its host's rows as
  // files and reports them to the leader (a part on another host through
  // its LeaderLink; the leader's own part directly), covering the steps
  // since its last report; consecutive steps without rows are reported
  // together. The leader commits step S, with every part's files of S, once
  // every part has reported through S, and answers the reports of S then;
  // steps in order, one commit each (none for a step without rows).
  //
  // Every part takes its snapshot at the same step S (at launch, or at a
  // reset, which every host applies between the same two steps) and reports
  // its files at once; the leader commits the snapshot of every part as one
  // commit, after the steps up to S and before those after it.

  Status WritePart(const OutputChunk& chunk) {
    const bool leader = part_->leader_here();
    if (!opened_) {
      // A part opens the table at its first write: the steps it already
      // holds (a restart replays them) are skipped.
      auto log = DeltaLog::Open(uri_);
      if (!log.ok()) return log.status();
      skip_through_ = log->TxnVersion(app_id_);
      opened_ = true;
    }
    if (chunk.kind == OutputChunk::Kind::kReset) {
      if (leader) {
        MutexLock l(&lmu_);  // the log is the leader's, also in other threads
        SLUICE_RETURN_IF_ERROR(RemoveLiveFiles());
      }
      DropPending();
      if (merge_table_) {
        merge_table_->Abort();
        merge_table_->Clear();
      }
      merge_failure_ = Status::OK();
      // Its snapshot follows.
      skip_through_ = std::min(skip_through_, static_cast<int64_t>(chunk.step) - 1);
      return Status::OK();
    }
    if (static_cast<int64_t>(chunk.step) <= skip_through_) {
      next_from_ = chunk.step + 1;  // in the table already (a replayed step)
      return Status::OK();
    }
    if (merge_) return WritePartMerge(chunk);
    const bool snapshot = chunk.kind == OutputChunk::Kind::kSnapshot;
    if (unanswered_ && unanswered_->step == chunk.step && unanswered_->snapshot == snapshot &&
        (!snapshot || chunk.last)) {
      return SendReport(std::move(*unanswered_));  // the step written again: its report again
    }
    if (snapshot) {
      SLUICE_ASSIGN_OR_RETURN(std::vector<DeltaFile> files, EncodeRows(chunk.batches, chunk.step));
      pending_.insert(pending_.end(), files.begin(), files.end());
      if (!chunk.last) return Status::OK();
      std::vector<DeltaFile> all = std::move(pending_);
      pending_.clear();
      return SendReport({chunk.step, chunk.step, true, std::move(all)});
    }
    if (chunk.batches.empty() && queue_->queued_chunks() > 0) {
      return Status::OK();  // the next report covers it
    }
    SLUICE_ASSIGN_OR_RETURN(std::vector<DeltaFile> files, EncodeRows(chunk.batches, chunk.step));
    Failpoint("delta_part_before_report");  // its files are written, not reported
    return SendReport(
        {next_from_ == 0 ? chunk.step : next_from_, chunk.step, false, std::move(files)});
  }

  // A report of new files (update_mode cdc) and what its answer means. A
  // refusal (InvalidArgument) means the leader took none of it: the files
  // go. Any other failure leaves the outcome unknown (the leader may have
  // committed the files, or holds them for a commit to come), so the files
  // stay, and when the step is written again the same report is sent again.
  struct PendingReport {
    uint64_t from = 0, step = 0;
    bool snapshot = false;
    std::vector<DeltaFile> files;
  };
  Status SendReport(PendingReport r) {
    unanswered_.reset();
    Status s = Report(r.from, r.step, r.files,
                      r.snapshot ? ReportKind::kSnapshot : ReportKind::kSteps);
    if (s.code() == StatusCode::kInvalidArgument) {
      for (const DeltaFile& f : r.files) (void)RemoveFile(uri_ + "/" + f.path);
      return s;
    }
    if (!s.ok()) {
      unanswered_ = std::move(r);
      return s;
    }
    next_from_ = r.step + 1;
    if (!r.snapshot) committed_step_ = r.step;
    Count(r.files);
    Vacuum();
    return Status::OK();
  }

  // A part in update_mode merge: its host's change as actions on its own
  // files, reported like new files.
  Status WritePartMerge(const OutputChunk& chunk) {
    const bool snapshot = chunk.kind == OutputChunk::Kind::kSnapshot;
    if (!snapshot && chunk.batches.empty() && queue_->queued_chunks() > 0 &&
        !(merge_table_ && merge_table_->staged())) {
      return Status::OK();  // the next report covers it
    }
    SLUICE_ASSIGN_OR_RETURN(auto actions, StageMerge(chunk));
    if (!actions.has_value()) return Status::OK();  // a snapshot's parts continue
    Failpoint("delta_part_before_report");
    const uint64_t from = snapshot || next_from_ == 0 ? chunk.step : next_from_;
    Status s =
        Report(from, chunk.step, *actions, snapshot ? ReportKind::kSnapshot : ReportKind::kSteps);
    if (s.code() == StatusCode::kInvalidArgument) {
      // Refused: nothing of it is in the table. The part's state may be
      // what the leader found stale, so it is loaded again from the table.
      merge_table_->Abort();
      merge_table_.reset();
      return s;
    }
    // Any other failure: the leader may have committed it, or may yet; the
    // change stays staged, and writing the step again sends the same
    // actions again.
    if (!s.ok()) return s;
    merge_table_->Commit();
    next_from_ = chunk.step + 1;
    if (!snapshot) committed_step_ = chunk.step;
    Count(*actions);
    CompactPart(chunk.step);
    Vacuum();
    return Status::OK();
  }

  // A part's compaction (as Compact), between its steps: its small files
  // rewritten, reported to the leader, which commits them on their own.
  void CompactPart(uint64_t step) {
    if (compact_min_files_ == 0 || queue_->queued_chunks() > 0) return;
    auto actions = merge_table_->StageCompaction(MergeWriter(0), target_ / 4, compact_min_files_,
                                                 target_);
    Status s = actions.status();
    if (s.ok() && actions->empty()) return;
    if (s.ok()) s = Report(step, step, *actions, ReportKind::kCompaction);
    if (s.ok()) {
      merge_table_->Commit();
      return;
    }
    stats_.SetError("compaction: " + s.ToString());
    if (s.code() == StatusCode::kInvalidArgument || part_->leader_here()) {
      merge_table_->Abort();  // not committed (the leader's own: its commit failed)
      if (s.code() == StatusCode::kInvalidArgument) merge_table_.reset();
    } else {
      // The leader may have committed it: the part's state comes from the
      // table again at its next write (its new files stay).
      merge_table_.reset();
    }
  }

  // This part's report of `files` for steps `from` to `step` (or its
  // snapshot at `step`, or its compaction after `step`): to the leader's
  // own accounting on the leader's host, else over the link. Returns once
  // the leader committed it.
  enum class ReportKind { kSteps, kSnapshot, kCompaction };
  Status Report(uint64_t from, uint64_t step, const std::vector<DeltaFile>& files,
                ReportKind kind) {
    PartReport report;
    report.connector = spec_.name;
    report.host = part_->host;
    report.from = from;
    report.step = step;
    report.files = FilesJson(files);
    report.snapshot = kind == ReportKind::kSnapshot;
    report.compaction = kind == ReportKind::kCompaction;
    if (part_->leader_here()) {
      return LeaderAccept(report, std::chrono::milliseconds::max(), /*own=*/true);
    }
    return ReportToLeader(report);
  }

  // Sends `report` to the leader until it answers: again while it is busy
  // (waiting for another part), never after a refusal.
  Status ReportToLeader(const PartReport& report) {
    for (;;) {
      Status s = part_->link->Report(report);
      if (s.code() != StatusCode::kUnavailable) {
        // A refusal or a leader that has gone is final.
        if (s.ok()) return s;
        const std::string why = "the leader (host " + std::to_string(part_->leader) +
                                ") did not take the report of step " +
                                std::to_string(report.step) + ": " + s.message();
        // A refusal says that the leader took none of it; anything else
        // leaves that unknown.
        return s.code() == StatusCode::kInvalidArgument ? Status::InvalidArgument(why)
                                                        : Status::Aborted(why);
      }
      if (queue_->closed()) return Status::Aborted("stopping");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  static std::string FilesJson(const std::vector<DeltaFile>& files) {
    Json list = Json::array();
    for (const DeltaFile& f : files) {
      Json j{{"path", f.path}, {"size", f.size}, {"rows", f.rows}, {"stats", f.stats}};
      if (!f.data_change) j["data_change"] = false;
      if (f.action != DeltaFile::Action::kAdd) {
        j["action"] = f.action == DeltaFile::Action::kRemove ? "remove" : "deletion_vector";
      }
      if (!f.deletion_vector.empty()) j["deletion_vector"] = f.deletion_vector;
      if (!f.old_deletion_vector.empty()) j["old_deletion_vector"] = f.old_deletion_vector;
      list.push_back(std::move(j));
    }
    return list.dump();
  }

  // A part's files as it reported them: each must be a data file of that
  // host's part in the table's directory, of the size reported.
  Result<std::vector<DeltaFile>> ParseFiles(const PartReport& r) const {
    const Json list = Json::parse(r.files, nullptr, false);
    const std::string who = "host " + std::to_string(r.host) + "'s part";
    if (!list.is_array())
      return Status::InvalidArgument(who + " reported files that are not a list");
    const std::string mark = "-h" + std::to_string(r.host) + "-";
    std::vector<DeltaFile> files;
    for (const Json& j : list) {
      DeltaFile f;
      if (!j.is_object() || !j.contains("path") || !j["path"].is_string() ||
          !j.value("size", Json()).is_number_unsigned() ||
          !j.value("rows", Json()).is_number_unsigned() || !j.value("stats", Json()).is_string()) {
        return Status::InvalidArgument(who + " reported a malformed file: " + j.dump());
      }
      f.path = j["path"];
      f.size = j["size"];
      f.rows = j["rows"];
      f.stats = j["stats"];
      f.data_change = j.value("data_change", true) != false;
      const std::string action = j.value("action", std::string("add"));
      if (action == "remove") {
        f.action = DeltaFile::Action::kRemove;
      } else if (action == "deletion_vector") {
        f.action = DeltaFile::Action::kDeletionVector;
      } else if (action != "add") {
        return Status::InvalidArgument(who + " reported action \"" + action + "\" for " + f.path);
      }
      for (auto [field, out] : {std::pair{"deletion_vector", &f.deletion_vector},
                                std::pair{"old_deletion_vector", &f.old_deletion_vector}}) {
        if (!j.contains(field)) continue;
        const Json dv = j[field].is_string() ? Json::parse(j[field].get<std::string>(), nullptr, false)
                                             : Json();
        if (!dv.is_object() || dv.value("storageType", std::string()) != "u") {
          return Status::InvalidArgument(who + " reported a malformed deletion vector for " +
                                         f.path + ": " + j[field].dump());
        }
        *out = j[field].get<std::string>();
      }
      if (f.path.rfind("part-", 0) != 0 || f.path.find('/') != std::string::npos ||
          f.path.find("..") != std::string::npos || f.path.find(mark) != 25 || f.path.size() < 8 ||
          f.path.substr(f.path.size() - 8) != ".parquet") {
        return Status::InvalidArgument(who + " reported file \"" + f.path +
                                       "\", which is not one of its data files");
      }
      std::error_code ec;
      const auto size = std::filesystem::file_size(uri_ + "/" + f.path, ec);
      if (f.action == DeltaFile::Action::kRemove) {
        files.push_back(std::move(f));
        continue;
      }
      if (ec || size != f.size) {
        return Status::InvalidArgument(
            who + " reported file " + f.path + " of " + std::to_string(f.size) +
            " bytes, which the table " +
            (ec ? "does not hold" : "holds with " + std::to_string(size) + " bytes"));
      }
      files.push_back(std::move(f));
    }
    return files;
  }

  // The leader takes a part's report (its own, or another host's), commits
  // what every part has reported, and returns once `report.step` is
  // committed (waiting up to `wait`: Unavailable after it).
  Status LeaderAccept(const PartReport& report, std::chrono::milliseconds wait, bool own) {
    MutexLock l(&lmu_);
    if (stopped_) {
      return Status::NotFound("connector \"" + spec_.name + "\" stopped on the leader's host");
    }
    if (!opened_) return Status::Unavailable("the leader has not opened the table yet");
    if (!failure_.ok()) return failure_;
    if (report.host < 0 || static_cast<size_t>(report.host) >= parts_.size()) {
      return Status::InvalidArgument("a report from host " + std::to_string(report.host) +
                                     ", which has no part");
    }
    if (report.snapshot) return LeaderAcceptSnapshot(report, wait);
    if (report.compaction) return LeaderAcceptCompaction(report);
    if (report.step > committed_through_) {
      PartState& p = parts_[static_cast<size_t>(report.host)];
      if (p.heard && report.step <= p.through) {
        // Sent again (its answer was lost, or the commit failed): the report
        // taken before stands, and a commit that failed is tried again.
        SLUICE_RETURN_IF_ERROR(RetryCommits(own));
      } else {
        if (p.heard && report.from != p.through + 1) {
          // Nothing can complete the steps it skipped: the connector fails.
          failure_ = Status::InvalidArgument(
              "host " + std::to_string(report.host) + "'s part of connector \"" + spec_.name +
              "\" reported steps " + std::to_string(report.from) + " to " +
              std::to_string(report.step) + " after step " + std::to_string(p.through) +
              ": it skipped steps; reset the connector or restart the pipeline");
          lcv_.SignalAll();
          return failure_;
        }
        SLUICE_ASSIGN_OR_RETURN(std::vector<DeltaFile> files, ParseFiles(report));
        SLUICE_RETURN_IF_ERROR(CheckLive(report.host, files));
        std::vector<DeltaFile>& at = waiting_[report.step];
        at.insert(at.end(), files.begin(), files.end());
        p.heard = true;
        p.through = report.step;
        // On an error the files stay; the report sent again commits them.
        SLUICE_RETURN_IF_ERROR(RetryCommits(own));
      }
    }
    const auto start = std::chrono::steady_clock::now();
    const auto until = wait == std::chrono::milliseconds::max()
                           ? start + std::chrono::hours(24 * 365)
                           : start + wait;
    bool warned = false;
    while (committed_through_ < report.step && !stopped_ && failure_.ok()) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= until) return Status::Unavailable(WaitingFor(report.step));
      if (own && !warned && now - start >= part_wait_) {
        // Shown in /stats until the step is committed.
        stats_.SetError(
            WaitingFor(report.step) + " for " +
            std::to_string(std::chrono::duration_cast<std::chrono::seconds>(part_wait_).count()) +
            " s");
        warned = true;
      }
      lcv_.WaitUntil(&lmu_, std::min(until, now + std::chrono::seconds(1)));
    }
    if (warned) stats_.ClearError();
    if (!failure_.ok()) return failure_;
    if (committed_through_ < report.step) {
      return Status::NotFound("connector \"" + spec_.name + "\" stopped on the leader's host");
    }
    return Status::OK();
  }

  // A part's snapshot at step S: committed with every part's, as one commit.
  Status LeaderAcceptSnapshot(const PartReport& report, std::chrono::milliseconds wait)
      REQUIRES(lmu_) {
    SnapshotWait& w = snapshots_[report.step];
    if (w.hosts.insert(report.host).second) {
      auto files = ParseFiles(report);
      if (!files.ok()) {
        w.hosts.erase(report.host);
        if (w.hosts.empty()) snapshots_.erase(report.step);
        return files.status();
      }
      w.files.insert(w.files.end(), files->begin(), files->end());
    }
    // (Sent again: a commit that failed is tried again.)
    SLUICE_RETURN_IF_ERROR(RetryCommits(report.host == part_->host));
    const auto until = wait == std::chrono::milliseconds::max()
                           ? std::chrono::steady_clock::now() + std::chrono::hours(24 * 365)
                           : std::chrono::steady_clock::now() + wait;
    while (snapshots_.count(report.step) > 0 && !stopped_ && failure_.ok()) {
      if (std::chrono::steady_clock::now() >= until) {
        return Status::Unavailable("connector \"" + spec_.name + "\": the snapshot at step " +
                                   std::to_string(report.step) + " waits for other parts");
      }
      lcv_.WaitUntil(&lmu_,
                     std::min(until, std::chrono::steady_clock::now() + std::chrono::seconds(1)));
    }
    if (!failure_.ok()) return failure_;
    if (snapshots_.count(report.step) > 0) {
      return Status::NotFound("connector \"" + spec_.name + "\" stopped on the leader's host");
    }
    return Status::OK();
  }

  // A part's compaction after its steps through report.step (committed,
  // since the part heard so): a commit of its own, which changes no row.
  Status LeaderAcceptCompaction(const PartReport& report) REQUIRES(lmu_) {
    if (report.step > committed_through_) {
      return Status::InvalidArgument("host " + std::to_string(report.host) +
                                     "'s part reported a compaction after step " +
                                     std::to_string(report.step) +
                                     ", which the table does not hold yet");
    }
    SLUICE_ASSIGN_OR_RETURN(std::vector<DeltaFile> files, ParseFiles(report));
    for (DeltaFile& f : files) f.data_change = false;
    SLUICE_RETURN_IF_ERROR(CheckLive(report.host, files));
    return CommitStep(0, files);
  }

  // Every file a part's actions remove, or give a new deletion vector, is
  // live in the table with the vector they name: a part whose state is
  // stale is refused (it loads its state from the table again).
  Status CheckLive(int host, const std::vector<DeltaFile>& files) const REQUIRES(lmu_) {
    auto vector_id = [](const std::string& descriptor) {
      if (descriptor.empty()) return std::string();
      const Json j = Json::parse(descriptor, nullptr, false);
      return j.is_object() ? j.value("pathOrInlineDv", std::string()) + "@" +
                                 std::to_string(j.value("offset", int64_t{-1}))
                           : descriptor;
    };
    for (const DeltaFile& f : files) {
      if (f.action == DeltaFile::Action::kAdd) continue;
      auto it = log_->live().find(f.path);
      const std::string have =
          it == log_->live().end() || !it->second.deletion_vector
              ? std::string()
              : vector_id(it->second.deletion_vector->Json());
      if (it == log_->live().end() || have != vector_id(f.old_deletion_vector)) {
        return Status::InvalidArgument(
            "host " + std::to_string(host) + "'s part changes file " + f.path + ", which the table " +
            (it == log_->live().end() ? "does not hold" : "holds with another deletion vector") +
            " (its state is behind the table's; it reloads it)");
      }
    }
    return Status::OK();
  }

  // CommitReady after a report was taken. A failed commit is the leader's
  // to try again: its own part gets the error (and writes the step again),
  // another host's part hears that the leader is busy, and sends its report
  // again; each report sent again tries the commit again.
  Status RetryCommits(bool own) REQUIRES(lmu_) {
    Status s = CommitReady();
    if (s.ok()) {
      if (commit_failed_) stats_.ClearError();
      commit_failed_ = false;
      return s;
    }
    commit_failed_ = true;
    stats_.SetError("commit: " + s.ToString() + " (retrying)");
    if (own) return s;
    return Status::Unavailable("connector \"" + spec_.name + "\": the commit failed (" +
                               s.message() + "); it is tried again");
  }

  // Which parts step `step` waits for.
  std::string WaitingFor(uint64_t step) const REQUIRES(lmu_) {
    std::string hosts;
    for (size_t h = 0; h < parts_.size(); ++h) {
      if (!parts_[h].heard || parts_[h].through < step) {
        hosts += (hosts.empty() ? "" : ", ") + std::to_string(h);
      }
    }
    return "connector \"" + spec_.name + "\": step " + std::to_string(step) +
           " waits for the part on host " + hosts;
  }

  // Commits, in order, every step that every part has reported, and every
  // snapshot that every part has sent (after the steps up to its own).
  Status CommitReady() REQUIRES(lmu_) {
    // The steps every part has reported: none while a part has not been
    // heard from since the leader started (it may have steps to report).
    uint64_t complete = std::numeric_limits<uint64_t>::max();
    for (const PartState& p : parts_) complete = p.heard ? std::min(complete, p.through) : 0;
    for (;;) {
      // The next commit: a complete snapshot, or the earliest step with
      // files, whichever comes first (a snapshot at S goes after step S).
      auto snap = snapshots_.begin();
      const bool snapshot_ready =
          snap != snapshots_.end() && snap->second.hosts.size() == parts_.size();
      const bool step_ready = !waiting_.empty() && waiting_.begin()->first <= complete &&
                              (snap == snapshots_.end() || waiting_.begin()->first <= snap->first);
      if (step_ready) {
        auto it = waiting_.begin();
        if (!it->second.empty()) SLUICE_RETURN_IF_ERROR(CommitStep(it->first, it->second));
        Failpoint("delta_leader_after_commit");  // committed, the parts not answered
        committed_through_ = std::max(committed_through_, it->first);
        waiting_.erase(it);
        continue;
      }
      if (snapshot_ready && (waiting_.empty() || waiting_.begin()->first > snap->first)) {
        SLUICE_RETURN_IF_ERROR(CommitStep(snap->first, snap->second.files));
        Failpoint("delta_leader_after_commit");
        committed_through_ = std::max(committed_through_, snap->first);
        snapshots_.erase(snap);
        continue;
      }
      break;
    }
    if (complete != std::numeric_limits<uint64_t>::max() && complete > committed_through_ &&
        (snapshots_.empty() || snapshots_.begin()->first >= complete) &&
        (waiting_.empty() || waiting_.begin()->first > complete)) {
      committed_through_ = complete;
    }
    lcv_.SignalAll();
    return Status::OK();
  }

  struct PartState {
    bool heard = false;  // it has reported since the leader started
    uint64_t through = 0;
  };
  struct SnapshotWait {
    std::set<int> hosts;  // the parts that sent theirs
    std::vector<DeltaFile> files;
  };

  const ConnectorSpec spec_;
  const format::Relation rel_;
  std::string uri_, mode_, app_id_;
  uint64_t target_ = 0;
  int threads_ = 1;
  format::ParquetCompression compression_ = format::ParquetCompression::kZstd;
  std::vector<format::ParquetColumn> columns_;
  bool merge_ = false;                          // update_mode merge
  double rewrite_fraction_ = 0.5;               // merge: rewrite files this much deleted
  size_t compact_min_files_ = 16;               // merge: compact this many small files
  int64_t retention_ms_ = 0;                    // vacuum: files removed this long ago go
  std::optional<std::chrono::steady_clock::time_point> last_vacuum_;
  std::unique_ptr<DeltaMergeTable> merge_table_;
  Status merge_failure_;                        // merge: the view's key failed
  bool resuming_ = false;
  std::unique_ptr<DeltaLog> log_;
  int64_t skip_through_ = -1;
  std::vector<DeltaFile> pending_;  // the files of a snapshot's parts so far
  std::optional<PendingReport> unanswered_;  // a part's report whose outcome is unknown
  std::atomic<uint64_t> committed_step_{0};
  std::shared_ptr<OutputQueue> queue_;
  std::thread thread_;
  // A distributed connector's part: its place, whether it opened the table,
  // and the first step its next report covers (0: the first report).
  std::optional<PartInfo> part_;
  std::atomic<bool> opened_{false};
  uint64_t next_from_ = 0;
  std::chrono::seconds part_wait_{60};  // then the leader says what it waits for
  // The leader's: what each part reported, the files of the steps not yet
  // committed, and how far the table holds every step.
  Mutex lmu_;
  CondVar lcv_;
  std::vector<PartState> parts_ GUARDED_BY(lmu_);
  std::map<uint64_t, std::vector<DeltaFile>> waiting_ GUARDED_BY(lmu_);
  std::map<uint64_t, SnapshotWait> snapshots_ GUARDED_BY(lmu_);  // by step
  uint64_t committed_through_ GUARDED_BY(lmu_) = 0;
  bool stopped_ GUARDED_BY(lmu_) = false;
  bool commit_failed_ GUARDED_BY(lmu_) = false;  // the last commit failed
  Status failure_ GUARDED_BY(lmu_);
};

}  // namespace

Status CheckDeltaColumns(const ConnectorSpec& spec, const format::Relation& rel) {
  for (size_t i = 0; i < rel.schema.size() && i < rel.columns.size(); ++i) {
    Status s = format::CheckParquetType(rel.columns[i], rel.schema[i]);
    if (!s.ok()) return s.WithContext("connector \"" + spec.name + "\"");
  }
  return Status::OK();
}

Result<std::unique_ptr<OutputConnector>> MakeDeltaOutput(const ConnectorSpec& spec,
                                                         const format::Relation& rel) {
  SLUICE_RETURN_IF_ERROR(CheckDeltaColumns(spec, rel));
  return std::unique_ptr<OutputConnector>(std::make_unique<DeltaOutput>(spec, rel));
}

}  // namespace sluice::connector
