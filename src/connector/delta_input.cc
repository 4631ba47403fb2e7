#include "connector/delta_input.h"

#include <strings.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "base/mutex.h"
#include "connector/delta.h"
#include "connector/delta_filter.h"
#include "connector/delta_log.h"
#include "format/parquet_reader.h"
#include "sql/datetime.h"
#include "sql/expr.h"
#include "types/row_codec.h"

namespace sluice::connector {
namespace {

using Json = nlohmann::json;

// Where the input goes on reading (the position, delta_input.h).
struct Cursor {
  uint64_t version = 0;
  bool snapshot = false;
  uint64_t unit = 0;
  uint64_t row = 0;

  std::string ToJson() const {
    return Json{{"version", version}, {"snapshot", snapshot}, {"unit", unit}, {"row", row}}.dump();
  }
};

// One data file to read, and which of its rows become which changes.
struct Unit {
  enum class Kind {
    kInsertLive,       // every row but the deleted ones, inserted
    kDeleteLive,       // every row but the deleted ones, deleted
    kInsertPositions,  // the rows at `positions`, inserted
    kDeletePositions   // the rows at `positions`, deleted
  };
  DeltaLiveFile file;
  Kind kind = Kind::kInsertLive;
  std::vector<uint64_t> positions;  // ascending
};

// A JSON statistic as a value of `type`, or NULL.
Value StatValue(const Json& j, const SqlType& type) {
  Value v;
  if (j.is_number_integer() && (type.IsInteger() || type.id() == TypeId::kDouble ||
                                type.id() == TypeId::kReal || type.id() == TypeId::kDecimal)) {
    if (!sql::CastValue(Value::Int(j.get<int64_t>()), SqlType::BigInt(), type, &v).ok()) {
      return Value::Null();
    }
    return v;
  }
  if (j.is_number_float() && (type.id() == TypeId::kDouble || type.id() == TypeId::kReal)) {
    return Value::Double(j.get<double>());
  }
  if (!j.is_string()) return Value::Null();
  const std::string s = j.get<std::string>();
  if (type.id() == TypeId::kTimestamp) {
    int64_t micros = 0;
    if (sql::ParseTimestampInput(s, &micros)) return Value::Int(micros);
    return Value::Null();
  }
  if (type.IsString()) return Value::String(s);
  if (type.IsBinary()) return Value::Null();
  if (!sql::CastValue(Value::String(s), SqlType::Varchar(), type, &v).ok()) return Value::Null();
  return v;
}

// The delta_table_input connector (delta_input.h): one reading thread
// that resolves the start version, reads the snapshot and then each commit
// as units (one data file and what its rows become), queuing pieces with
// their positions.
//
// Thread safety: Resume() and Start() run before the thread; from then on
// the cursor, the log and the pending changes are the thread's alone. mu_
// guards stop_ (and the thread's sleeps, which Stop() cuts short).
class DeltaInput final : public InputConnector {
 public:
  DeltaInput(const ConnectorSpec& spec, const format::Relation& rel,
             std::shared_ptr<const DeltaFilter> filter)
      : spec_(spec), rel_(rel), filter_(std::move(filter)) {
    Json config = Json::parse(spec.transport_config);
    uri_ = config["uri"].get<std::string>();
    mode_ = config.value("mode", std::string("snapshot"));
    if (config.contains("version")) start_version_ = config["version"].get<uint64_t>();
    if (config.contains("timestamp")) start_timestamp_ms_ = TimestampMillis(config["timestamp"]);
    poll_ms_ = config.value("poll_interval_ms", uint64_t{1000});
    stats_.paused = spec.paused;
  }
  ~DeltaInput() override { Stop(); }

  // The config's timestamp in milliseconds (already checked by
  // ParseConnectors and MakeDeltaInput).
  static int64_t TimestampMillis(const Json& j) {
    if (j.is_number_integer()) return j.get<int64_t>();
    int64_t micros = 0;
    if (j.is_string() && sql::ParseTimestampInput(j.get<std::string>(), &micros)) {
      return micros / 1000;
    }
    return -1;
  }

  Status Resume(std::string_view position) override {
    Json p = Json::parse(position, nullptr, false);
    if (p.is_discarded() || !p.is_object() || !p["version"].is_number_unsigned() ||
        !p["snapshot"].is_boolean() || !p["unit"].is_number_unsigned() ||
        !p["row"].is_number_unsigned()) {
      return Status::Corruption("connector \"" + spec_.name + "\": bad position " +
                                std::string(position));
    }
    cursor_.version = p["version"].get<uint64_t>();
    cursor_.snapshot = p["snapshot"].get<bool>();
    cursor_.unit = p["unit"].get<uint64_t>();
    cursor_.row = p["row"].get<uint64_t>();
    started_ = true;
    return Status::OK();
  }

  Status Start(InputSink* sink) override {
    sink_ = sink;
    thread_ = std::thread([this] { Run(); });
    return Status::OK();
  }

  void Stop() override {
    {
      MutexLock l(&mu_);
      stop_ = true;
    }
    cv_.SignalAll();
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::string Where() const { return "Delta table " + uri_; }

  bool Stopping() {
    MutexLock l(&mu_);
    return stop_ || sink_->stopping();
  }

  void Sleep(uint64_t ms) {
    MutexLock l(&mu_);
    if (!stop_) cv_.WaitFor(&mu_, std::chrono::milliseconds(ms));
  }

  void Run() {
    for (;;) {
      if (Stopping()) return;
      bool done = false, progressed = false;
      Status s = Work(&done, &progressed);
      if (done) {
        stats_.end_of_input = true;
        return;
      }
      if (!s.ok()) {
        if (Stopping()) return;
        ++stats_.transport_errors;
        stats_.SetError(s.ToString());
        failing_ = true;
        pending_.Clear();
        Sleep(std::max<uint64_t>(poll_ms_, 1000));
        continue;
      }
      if (failing_) stats_.ClearError();
      failing_ = false;
      if (!progressed) Sleep(poll_ms_);
    }
  }

  // Reads the next piece of work: the start point, the snapshot, or one
  // commit. `*done`: nothing more will come (snapshot mode).
  Status Work(bool* done, bool* progressed) {
    if (!started_) {
      SLUICE_RETURN_IF_ERROR(ResolveStart());
      *progressed = true;
      return Status::OK();
    }
    if (cursor_.snapshot) {
      SLUICE_RETURN_IF_ERROR(ReadSnapshot());
      *progressed = true;
      return Status::OK();
    }
    if (mode_ == "snapshot") {
      *done = true;
      return Status::OK();
    }
    return ReadCommit(progressed);
  }

  Status ResolveStart() {
    std::optional<uint64_t> base;  // the version the input starts from
    if (start_version_) {
      base = start_version_;
    } else if (start_timestamp_ms_) {
      auto v = DeltaVersionAt(uri_, *start_timestamp_ms_);
      if (!v.ok())
        return Status(v.status().code(),
                      "connector \"" + spec_.name + "\": " + v.status().message());
      base = *v;
    } else {
      SLUICE_ASSIGN_OR_RETURN(DeltaLog log, OpenLog(std::nullopt));
      if (log.exists()) base = log.next_version() - 1;
    }
    if (mode_ == "follow") {
      cursor_ = {base ? *base + 1 : 0, false, 0, 0};
    } else {
      if (!base) {
        return Status::NotFound("connector \"" + spec_.name + "\": there is no Delta table at " +
                                uri_);
      }
      cursor_ = {*base, true, 0, 0};
    }
    started_ = true;
    return Status::OK();
  }

  Result<DeltaLog> OpenLog(std::optional<uint64_t> version) {
    auto log = DeltaLog::Open(uri_, version);
    if (!log.ok()) {
      return Status(log.status().code(),
                    "connector \"" + spec_.name + "\": " + log.status().message());
    }
    if (log->exists()) {
      Status s = log->CheckReadable();
      if (!s.ok()) return Status(s.code(), "connector \"" + spec_.name + "\": " + s.message());
    }
    return log;
  }

  Status ReadSnapshot() {
    SLUICE_ASSIGN_OR_RETURN(DeltaLog log, OpenLog(cursor_.version));
    if (!log.exists()) {
      return Status::NotFound("connector \"" + spec_.name + "\": there is no Delta table at " +
                              uri_);
    }
    std::vector<Unit> units;
    for (const auto& [path, f] : log.live()) units.push_back({f, Unit::Kind::kInsertLive, {}});
    const Cursor next{cursor_.version + 1, false, 0, 0};
    return ReadUnits(log, units, next);
  }

  // Reads commit cursor_.version, if it is there yet.
  Status ReadCommit(bool* progressed) {
    const std::string path = uri_ + "/_delta_log/" + DeltaCommitName(cursor_.version);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return Status::OK();
    if (!log_ || log_->next_version() != cursor_.version) {
      log_.reset();
      if (cursor_.version > 0) {
        SLUICE_ASSIGN_OR_RETURN(DeltaLog log, OpenLog(cursor_.version - 1));
        log_ = std::move(log);
      } else {
        log_ = DeltaLog::Empty(uri_);
      }
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::IOError("connector \"" + spec_.name + "\": cannot read " + path);
    std::stringstream text;
    text << in.rdbuf();
    // Replayed on a copy: a damaged commit leaves the log as it was.
    DeltaLog next = *log_;
    Status s = next.ApplyCommit(cursor_.version, text.str(), path);
    if (!s.ok()) return Status(s.code(), "connector \"" + spec_.name + "\": " + s.message());
    s = next.CheckReadable();
    if (!s.ok()) return Status(s.code(), "connector \"" + spec_.name + "\": " + s.message());
    SLUICE_ASSIGN_OR_RETURN(std::vector<Unit> units, CommitUnits(next));
    const Cursor after{cursor_.version + 1, false, 0, 0};
    SLUICE_RETURN_IF_ERROR(ReadUnits(next, units, after));
    log_ = std::move(next);
    *progressed = true;
    return Status::OK();
  }

  // The changes of the commit `log` last replayed, as units in path order.
  Result<std::vector<Unit>> CommitUnits(const DeltaLog& log) {
    struct Pair {
      std::optional<DeltaFileChange> removed, added;
    };
    std::map<std::string, Pair> by_path;
    for (const DeltaFileChange& c : log.last_changes()) {
      Pair& p = by_path[c.file.path];
      if (c.added) {
        p.added = c;
      } else if (!p.removed) {
        p.removed = c;
      }
    }
    std::vector<Unit> units;
    for (auto& [path, p] : by_path) {
      if (p.added && p.removed) {
        if (!p.added->data_change) continue;
        // The same file with another deletion vector: the rows it deletes
        // now and did not before are deleted (and the other way round).
        SLUICE_ASSIGN_OR_RETURN(std::vector<uint64_t> before, Deleted(log, p.removed->file));
        SLUICE_ASSIGN_OR_RETURN(std::vector<uint64_t> after, Deleted(log, p.added->file));
        Unit del{p.added->file, Unit::Kind::kDeletePositions, {}};
        std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                            std::back_inserter(del.positions));
        Unit ins{p.added->file, Unit::Kind::kInsertPositions, {}};
        std::set_difference(before.begin(), before.end(), after.begin(), after.end(),
                            std::back_inserter(ins.positions));
        if (!del.positions.empty()) units.push_back(std::move(del));
        if (!ins.positions.empty()) units.push_back(std::move(ins));
      } else if (p.added) {
        if (p.added->data_change) units.push_back({p.added->file, Unit::Kind::kInsertLive, {}});
      } else if (p.removed->data_change) {
        units.push_back({p.removed->file, Unit::Kind::kDeleteLive, {}});
      }
    }
    if (rel_.append_only) {
      // A table that takes no deletes: the commit's deletes are dropped,
      // counted and shown, and its inserts go on.
      size_t dropped = 0;
      std::string first;
      std::erase_if(units, [&](const Unit& u) {
        const bool del =
            u.kind == Unit::Kind::kDeleteLive || u.kind == Unit::Kind::kDeletePositions;
        if (del && dropped++ == 0) first = u.file.path;
        return del;
      });
      if (dropped > 0) {
        ++stats_.parse_errors;
        stats_.SetError("connector \"" + spec_.name + "\": table " + rel_.name +
                        " is append_only: the deletes of " + std::to_string(dropped) +
                        " file(s) of version " + std::to_string(log.next_version() - 1) + " of " +
                        Where() + " (" + first + "...) are dropped");
      }
    }
    return units;
  }

  Result<std::vector<uint64_t>> Deleted(const DeltaLog& log, const DeltaLiveFile& f) {
    auto rows = log.DeletedRows(f);
    if (!rows.ok()) {
      return Status(rows.status().code(), "connector \"" + spec_.name + "\": " + Where() + ": " +
                                              rows.status().message());
    }
    return rows;
  }

  // Reads `units` from the cursor on; the last piece carries `end` as its
  // position.
  Status ReadUnits(const DeltaLog& log, const std::vector<Unit>& units, const Cursor& end) {
    SLUICE_ASSIGN_OR_RETURN(auto physical, log.PhysicalNames());
    for (uint64_t u = cursor_.unit; u < units.size(); ++u) {
      if (Stopping()) return Status::Aborted("stopping");
      SLUICE_RETURN_IF_ERROR(
          ReadUnit(log, physical, units[u], u, u == cursor_.unit ? cursor_.row : 0));
    }
    if (!Flush(end)) return Status::Aborted("stopping");
    return Status::OK();
  }

  // Queues what is pending, with `at` as the position after it.
  bool Flush(const Cursor& at) {
    format::ChangeBuffer changes = std::move(pending_);
    pending_ = format::ChangeBuffer();
    stats_.records += changes.size();
    if (!sink_->Enqueue(std::move(changes), at.ToJson())) return false;
    cursor_ = at;
    return true;
  }

  // The bounds of the table's columns in a file, from the log (partition
  // values, statistics).
  std::vector<ColumnBounds> LogBounds(const DeltaLiveFile& f,
                                      const std::map<std::string, std::string>& physical,
                                      const std::vector<std::optional<Value>>& partition) {
    std::vector<ColumnBounds> out(rel_.columns.size());
    Json stats = f.stats.empty() ? Json() : Json::parse(f.stats, nullptr, false);
    for (size_t i = 0; i < out.size(); ++i) {
      if (partition[i]) {
        if (partition[i]->is_null()) {
          out[i].null_count = f.num_records;
        } else {
          out[i].has_min_max = true;
          out[i].min = out[i].max = *partition[i];
          out[i].null_count = 0;
        }
        continue;
      }
      if (!stats.is_object()) continue;
      const std::string name = PhysicalName(physical, rel_.columns[i]);
      auto get = [&](const char* what) -> const Json* {
        if (!stats.contains(what) || !stats[what].is_object()) return nullptr;
        const Json& m = stats[what];
        return m.contains(name) ? &m[name] : nullptr;
      };
      if (const Json* n = get("nullCount"); n != nullptr && n->is_number_integer()) {
        out[i].null_count = n->get<int64_t>();
      }
      const Json* lo = get("minValues");
      const Json* hi = get("maxValues");
      if (lo != nullptr && hi != nullptr) {
        out[i].min = StatValue(*lo, rel_.schema[i]);
        out[i].max = StatValue(*hi, rel_.schema[i]);
        out[i].has_min_max = !out[i].min.is_null() && !out[i].max.is_null();
      }
    }
    return out;
  }

  static std::string PhysicalName(const std::map<std::string, std::string>& physical,
                                  const std::string& column) {
    auto it = physical.find(column);
    if (it != physical.end()) return it->second;
    for (const auto& [logical, p] : physical) {
      if (strcasecmp(logical.c_str(), column.c_str()) == 0) return p;
    }
    return column;
  }

  Status ReadUnit(const DeltaLog& log, const std::map<std::string, std::string>& physical,
                  const Unit& unit, uint64_t index, uint64_t from_row) {
    const DeltaLiveFile& f = unit.file;
    const std::string path = log.LocalPath(f.path);
    auto fail = [&](const Status& s) {
      const bool named = s.message().find(path) != std::string::npos;
      return Status(s.code(), "connector \"" + spec_.name + "\": " + Where() + ", " +
                                  (named ? std::string() : "file " + path + ": ") + s.message());
    };
    // Partition columns of the table, from the log.
    std::vector<std::optional<Value>> partition(rel_.columns.size());
    for (size_t i = 0; i < rel_.columns.size(); ++i) {
      const std::string name = PhysicalName(physical, rel_.columns[i]);
      bool is_partition = false;
      for (const std::string& p : log.partition_columns()) {
        if (p == rel_.columns[i] || strcasecmp(p.c_str(), rel_.columns[i].c_str()) == 0) {
          is_partition = true;
        }
      }
      if (!is_partition) continue;
      partition[i] = Value::Null();
      for (const auto& [k, v] : f.partition_values) {
        if (k != name && k != rel_.columns[i]) continue;
        if (v && !(v->empty() && !rel_.schema[i].IsString())) {
          Value out;
          Status s =
              rel_.schema[i].IsString()
                  ? (out = Value::String(*v), Status::OK())
                  : sql::CastValue(Value::String(*v), SqlType::Varchar(), rel_.schema[i], &out);
          if (!s.ok()) {
            return fail(Status::InvalidArgument("partition value \"" + *v + "\" of column " +
                                                rel_.columns[i] + ": " + s.message()));
          }
          partition[i] = out;
        }
      }
    }
    if (filter_ && !filter_->MayMatch(LogBounds(f, physical, partition), f.num_records)) {
      return Status::OK();
    }
    const bool positions =
        unit.kind == Unit::Kind::kInsertPositions || unit.kind == Unit::Kind::kDeletePositions;
    const bool insert =
        unit.kind == Unit::Kind::kInsertLive || unit.kind == Unit::Kind::kInsertPositions;
    std::vector<uint64_t> deleted;
    if (!positions) {
      SLUICE_ASSIGN_OR_RETURN(deleted, Deleted(log, f));
    }
    const std::vector<uint64_t>& listed = positions ? unit.positions : deleted;
    auto opened = format::ParquetReader::Open(path);
    if (!opened.ok()) return fail(opened.status());
    const format::ParquetReader& reader = **opened;
    // The file's columns for the table's (partition columns come from the
    // log).
    std::vector<format::ParquetColumn> targets;
    std::vector<int> target_of(rel_.columns.size(), -1);
    for (size_t i = 0; i < rel_.columns.size(); ++i) {
      if (partition[i]) continue;
      target_of[i] = static_cast<int>(targets.size());
      targets.push_back({PhysicalName(physical, rel_.columns[i]), rel_.schema[i]});
    }
    auto projection = reader.Project(targets);
    if (!projection.ok()) return fail(projection.status());
    std::vector<std::vector<Value>> rows;
    std::vector<Value> row(rel_.columns.size());
    std::string payload, key;
    size_t next_listed = 0;
    uint64_t base = 0;
    for (size_t g = 0; g < reader.row_groups(); base += reader.row_group_rows(g), ++g) {
      const uint64_t n = reader.row_group_rows(g);
      if (base + n <= from_row) continue;
      while (next_listed < listed.size() && listed[next_listed] < std::max(base, from_row)) {
        ++next_listed;
      }
      if (positions && (next_listed == listed.size() || listed[next_listed] >= base + n)) continue;
      if (filter_ && !filter_->MayMatch(GroupBounds(reader, *projection, target_of, partition, g),
                                        static_cast<int64_t>(n))) {
        continue;
      }
      rows.clear();
      Status s = reader.ReadRowGroup(g, *projection, &rows);
      if (!s.ok()) return fail(s);
      for (uint64_t j = std::max(base, from_row) - base; j < rows.size(); ++j) {
        const uint64_t at = base + j;
        const bool is_listed = next_listed < listed.size() && listed[next_listed] == at;
        if (is_listed) ++next_listed;
        if (positions != is_listed) continue;
        for (size_t i = 0; i < row.size(); ++i) {
          row[i] =
              partition[i] ? *partition[i] : std::move(rows[j][static_cast<size_t>(target_of[i])]);
        }
        if (filter_) {
          bool pass = false;
          SLUICE_RETURN_IF_ERROR(filter_->Matches(row, &pass));
          if (!pass) continue;
        }
        payload.clear();
        key.clear();
        for (size_t i = 0; i < row.size(); ++i) {
          s = EncodeValue(rel_.schema[i], row[i], &payload);
          if (!s.ok()) {
            return fail(Status::InvalidArgument(
                "row " + std::to_string(at) + ", column " + rel_.columns[i] + ": " +
                (row[i].is_null() ? std::string("NULL in a NOT NULL column") : s.message())));
          }
        }
        if (!rel_.key.empty()) {
          for (int k : rel_.key) {
            SLUICE_RETURN_IF_ERROR(EncodeValue(rel_.schema[static_cast<size_t>(k)],
                                               row[static_cast<size_t>(k)], &key));
          }
          pending_.Add(insert ? format::ChangeKind::kInsert : format::ChangeKind::kDelete, key,
                       insert ? std::string_view(payload) : std::string_view());
        } else {
          pending_.Add(insert ? format::ChangeKind::kInsert : format::ChangeKind::kDelete, "",
                       payload);
        }
        if (pending_.size() >= spec_.max_batch_size) {
          Cursor at_cursor = cursor_;
          at_cursor.unit = index;
          at_cursor.row = at + 1;
          if (!Flush(at_cursor)) return Status::Aborted("stopping");
        }
      }
    }
    stats_.bytes += f.size;
    return Status::OK();
  }

  // A row group's bounds, from the file's statistics.
  std::vector<ColumnBounds> GroupBounds(const format::ParquetReader& reader,
                                        const format::ParquetProjection& projection,
                                        const std::vector<int>& target_of,
                                        const std::vector<std::optional<Value>>& partition,
                                        size_t group) {
    std::vector<ColumnBounds> out(rel_.columns.size());
    for (size_t i = 0; i < out.size(); ++i) {
      if (partition[i]) {
        if (!partition[i]->is_null()) {
          out[i].has_min_max = true;
          out[i].min = out[i].max = *partition[i];
          out[i].null_count = 0;
        }
        continue;
      }
      const size_t t = static_cast<size_t>(target_of[i]);
      const int source = projection.source[t];
      if (source < 0) continue;
      const format::ParquetColumnStats st = reader.Stats(group, static_cast<size_t>(source));
      if (st.has_null_count) out[i].null_count = static_cast<int64_t>(st.null_count);
      if (st.has_min_max &&
          sql::CastValue(st.min, projection.from[t], rel_.schema[i], &out[i].min).ok() &&
          sql::CastValue(st.max, projection.from[t], rel_.schema[i], &out[i].max).ok()) {
        out[i].has_min_max = !out[i].min.is_null() && !out[i].max.is_null();
      }
    }
    return out;
  }

  const ConnectorSpec spec_;
  const format::Relation rel_;
  const std::shared_ptr<const DeltaFilter> filter_;
  std::string uri_, mode_;
  std::optional<uint64_t> start_version_;
  std::optional<int64_t> start_timestamp_ms_;
  uint64_t poll_ms_ = 1000;

  // Owned by the reading thread (and Resume, before it starts).
  bool started_ = false;
  Cursor cursor_;
  std::optional<DeltaLog> log_;   // follow: the log up to the last commit read
  format::ChangeBuffer pending_;  // read, not yet queued
  bool failing_ = false;          // the last attempt failed (its error shows)

  InputSink* sink_ = nullptr;
  std::thread thread_;
  Mutex mu_;
  CondVar cv_;
  bool stop_ GUARDED_BY(mu_) = false;
};

}  // namespace

Result<std::unique_ptr<InputConnector>> MakeDeltaInput(const ConnectorSpec& spec,
                                                       const format::Relation& rel) {
  SLUICE_RETURN_IF_ERROR(CheckDeltaColumns(spec, rel));
  Json config = Json::parse(spec.transport_config);
  std::shared_ptr<const DeltaFilter> filter;
  if (config.contains("filter")) {
    auto f = DeltaFilter::Parse(config["filter"].get<std::string>(), rel);
    if (!f.ok()) {
      return Status::InvalidArgument("connector \"" + spec.name + "\": " + f.status().message());
    }
    filter = *f;
  }
  if (config.contains("timestamp") && DeltaInput::TimestampMillis(config["timestamp"]) < 0) {
    return Status::InvalidArgument("connector \"" + spec.name + "\": \"timestamp\" " +
                                   config["timestamp"].dump() +
                                   " is neither a timestamp nor milliseconds since the epoch");
  }
  return std::unique_ptr<InputConnector>(std::make_unique<DeltaInput>(spec, rel, filter));
}

}  // namespace sluice::connector
