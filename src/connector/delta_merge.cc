#include "connector/delta_merge.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "format/deletion_vector.h"
#include "format/parquet_reader.h"
#include "storage/file.h"
#include "types/row_codec.h"
#include "zset/cursor.h"

namespace sluice::connector {

using Json = nlohmann::json;

namespace {

constexpr int kPositionBits = 40;
constexpr uint64_t kTombstone = ~uint64_t{0};

uint64_t Pack(uint32_t file, uint64_t position) {
  return (static_cast<uint64_t>(file) << kPositionBits) | position;
}
uint32_t FileOf(uint64_t loc) { return static_cast<uint32_t>(loc >> kPositionBits); }
uint64_t PositionOf(uint64_t loc) { return loc & ((uint64_t{1} << kPositionBits) - 1); }

// `a` and `b` (ascending) merged, without repeats.
std::vector<uint64_t> Union(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  std::vector<uint64_t> out;
  out.reserve(a.size() + b.size());
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Statistics of a file that has a deletion vector: its bounds may be wide.
std::string WideStats(const std::string& stats) {
  Json s = Json::parse(stats, nullptr, false);
  if (!s.is_object()) return stats;
  s["tightBounds"] = false;
  return s.dump();
}

}  // namespace

struct DeltaMergeTable::FileState {
  std::string path;
  uint64_t size = 0;
  uint64_t num_records = 0;
  std::string stats;
  std::vector<uint64_t> deleted;  // ascending
  std::string dv;                 // its deletion vector's descriptor, or empty
};

struct DeltaMergeTable::Staged {
  bool replace_all = false;                              // a snapshot: every file goes
  std::unordered_map<std::string, Location> index;       // key -> new place, or kTombstone
  std::map<uint32_t, std::vector<uint64_t>> deletions;   // file id -> positions (unsorted)
  std::map<uint32_t, FileState> added;                   // files this change writes
  std::set<uint32_t> removed;                            // files it removes
  std::map<uint32_t, std::string> new_dv;                // file id -> its new vector
  std::vector<std::string> written;                      // paths to remove on Abort
  std::vector<DeltaFile> actions;                        // the new files
  bool finished = false;                                 // Finish gave finished_actions
  std::vector<DeltaFile> finished_actions;
};

DeltaMergeTable::DeltaMergeTable(std::string dir, format::Relation rel, std::vector<int> key,
                                 std::vector<format::ParquetColumn> files,
                                 std::function<bool(const std::string&)> mine)
    : dir_(std::move(dir)),
      rel_(std::move(rel)),
      key_(std::move(key)),
      file_columns_(std::move(files)),
      mine_(std::move(mine)) {
  for (int k : key_) key_schema_.push_back(rel_.schema[static_cast<size_t>(k)].WithNullable(true));
}

DeltaMergeTable::~DeltaMergeTable() = default;

Result<std::string> DeltaMergeTable::KeyOf(const std::vector<Value>& row) const {
  std::vector<Value> key;
  key.reserve(key_.size());
  for (int k : key_) key.push_back(row[static_cast<size_t>(k)]);
  std::string out;
  SLUICE_RETURN_IF_ERROR(EncodeRow(key_schema_, key, &out));
  return out;
}

std::string DeltaMergeTable::DescribeKey(const std::vector<Value>& row) const {
  std::string out;
  for (size_t i = 0; i < key_.size(); ++i) {
    const size_t c = static_cast<size_t>(key_[i]);
    out += (i ? ", " : "") + rel_.columns[c] + " = " + row[c].ToString();
  }
  return out;
}

Status DeltaMergeTable::Load(const DeltaLog& log) {
  Clear();
  std::vector<format::ParquetColumn> key_columns;
  for (size_t i = 0; i < key_.size(); ++i) {
    key_columns.push_back({rel_.columns[static_cast<size_t>(key_[i])], key_schema_[i]});
  }
  for (const auto& [path, live] : log.live()) {
    if (!mine_(path)) continue;
    const std::string local = log.LocalPath(path);
    SLUICE_ASSIGN_OR_RETURN(std::vector<uint64_t> deleted, log.DeletedRows(live));
    SLUICE_ASSIGN_OR_RETURN(auto reader, format::ParquetReader::Open(local));
    SLUICE_ASSIGN_OR_RETURN(format::ParquetProjection projection, reader->Project(key_columns));
    const uint32_t id = next_id_++;
    FileState f;
    f.path = path;
    f.size = live.size;
    f.num_records = reader->rows();
    f.stats = live.stats;
    f.deleted = std::move(deleted);
    f.dv = live.deletion_vector ? live.deletion_vector->Json() : "";
    uint64_t position = 0;
    size_t next_deleted = 0;
    std::vector<Value> row(rel_.columns.size());
    for (size_t g = 0; g < reader->row_groups(); ++g) {
      std::vector<std::vector<Value>> keys;
      SLUICE_RETURN_IF_ERROR(reader->ReadRowGroup(g, projection, &keys));
      for (std::vector<Value>& k : keys) {
        const uint64_t at = position++;
        while (next_deleted < f.deleted.size() && f.deleted[next_deleted] < at) ++next_deleted;
        if (next_deleted < f.deleted.size() && f.deleted[next_deleted] == at) continue;
        std::string bytes;
        SLUICE_RETURN_IF_ERROR(EncodeRow(key_schema_, k, &bytes));
        if (!index_.emplace(std::move(bytes), Pack(id, at)).second) {
          for (size_t i = 0; i < key_.size(); ++i) row[static_cast<size_t>(key_[i])] = k[i];
          return Status::Corruption("the Delta table " + dir_ + " holds two live rows with key " +
                                    DescribeKey(row) + " (one in " + path +
                                    "): it is not a table that update_mode merge wrote");
        }
      }
    }
    ids_[path] = id;
    files_.emplace(id, std::move(f));
  }
  return Status::OK();
}

void DeltaMergeTable::Clear() {
  index_.clear();
  files_.clear();
  ids_.clear();
  staged_.reset();
}

void DeltaMergeTable::ReplaceAll() {
  if (!staged_) staged_ = std::make_unique<Staged>();
  staged_->replace_all = true;
}

Status DeltaMergeTable::Stage(const std::vector<BatchPtr>& batches, const WriteRows& write) {
  if (!staged_) staged_ = std::make_unique<Staged>();
  Staged& s = *staged_;
  // Nothing staged changes until the rows are written: a failed Stage
  // leaves the staged change as it was.
  std::unordered_map<std::string, Location> local;
  auto find = [&](const std::string& key) -> Location {
    auto l = local.find(key);
    if (l != local.end()) return l->second;
    auto o = s.index.find(key);
    if (o != s.index.end()) return o->second;
    if (s.replace_all) return kTombstone;
    auto b = index_.find(key);
    return b == index_.end() ? kTombstone : b->second;
  };
  // Deletes first, so that an update (a delete and an insert of one key)
  // finds its key free.
  std::vector<std::pair<std::string, std::vector<Value>>> inserts;
  std::vector<std::pair<std::string, Location>> deletes;
  for (auto c = NewCursorOver(batches); c->KeyValid(); c->StepKey()) {
    const int64_t w = c->weight();
    SLUICE_ASSIGN_OR_RETURN(std::vector<Value> row, DecodeRow(rel_.schema, c->key()));
    SLUICE_ASSIGN_OR_RETURN(std::string key, KeyOf(row));
    if (w > 1 || w < -1) {
      return Status::InvalidArgument("view " + rel_.name + " has " +
                                     std::to_string(w < 0 ? -w : w) +
                                     " copies of the row with key " + DescribeKey(row) +
                                     ": its index is not a unique key");
    }
    if (w > 0) {
      inserts.emplace_back(std::move(key), std::move(row));
      continue;
    }
    const Location loc = find(key);
    if (loc == kTombstone) {
      return Status::InvalidArgument("view " + rel_.name + " deleted the row with key " +
                                     DescribeKey(row) +
                                     ", which the table does not hold: its index is not a "
                                     "unique key, or another writer changed the table");
    }
    local[key] = kTombstone;
    deletes.emplace_back(std::move(key), loc);
  }
  std::vector<std::vector<Value>> rows;
  std::vector<std::string> keys;
  for (auto& [key, row] : inserts) {
    if (find(key) != kTombstone) {
      return Status::InvalidArgument("view " + rel_.name + " has two rows with key " +
                                     DescribeKey(row) + ": its index is not a unique key");
    }
    local[key] = 0;  // placed by Adopt
    keys.push_back(std::move(key));
    rows.push_back(std::move(row));
  }
  std::vector<DeltaFile> files;
  if (!rows.empty()) {
    SLUICE_ASSIGN_OR_RETURN(files, write(std::move(rows)));
  }
  for (auto& [key, loc] : deletes) {
    s.deletions[FileOf(loc)].push_back(PositionOf(loc));
    s.index[key] = kTombstone;
  }
  return Adopt(std::move(files), keys, &s.actions);
}

Status DeltaMergeTable::Adopt(std::vector<DeltaFile> files, const std::vector<std::string>& keys,
                              std::vector<DeltaFile>* actions) {
  Staged& s = *staged_;
  size_t next = 0;
  for (DeltaFile& f : files) {
    s.written.push_back(f.path);
    const uint32_t id = next_id_++;
    for (uint64_t p = 0; p < f.rows && next < keys.size(); ++p) s.index[keys[next++]] = Pack(id, p);
    s.added.emplace(id, FileState{f.path, f.size, f.rows, f.stats, {}, ""});
    actions->push_back(std::move(f));
  }
  if (next != keys.size()) return Status::Internal("merge: the files hold fewer rows than given");
  return Status::OK();
}

Result<std::vector<DeltaFile>> DeltaMergeTable::Finish(const WriteRows& write,
                                                       double rewrite_fraction) {
  if (!staged_) staged_ = std::make_unique<Staged>();
  Staged& s = *staged_;
  if (s.finished) return s.finished_actions;
  std::vector<DeltaFile> ends;  // removes and new vectors, before the adds
  auto remove = [&](const FileState& f) {
    DeltaFile r;
    r.action = DeltaFile::Action::kRemove;
    r.path = f.path;
    r.old_deletion_vector = f.dv;
    ends.push_back(std::move(r));
  };
  if (s.replace_all) {
    for (const auto& [id, f] : files_) remove(f);
  }
  // Each file with deleted rows: a new vector, or, mostly deleted, rewritten.
  std::vector<uint32_t> removed;
  std::vector<std::string> bitmaps;
  std::vector<std::pair<uint32_t, uint64_t>> vectors;  // file id, cardinality
  std::vector<std::vector<Value>> moved;
  std::vector<std::string> moved_keys;
  for (auto& [id, positions] : s.deletions) {
    std::sort(positions.begin(), positions.end());
    auto added = s.added.find(id);
    const bool is_new = added != s.added.end();
    const FileState& f = is_new ? added->second : files_.at(id);
    const std::vector<uint64_t> all = Union(f.deleted, positions);
    if (!is_new && all.size() >= f.num_records) {
      remove(f);
      removed.push_back(id);
      continue;
    }
    if (!is_new &&
        static_cast<double>(all.size()) > rewrite_fraction * static_cast<double>(f.num_records)) {
      std::vector<std::vector<Value>> live;
      std::vector<std::string> live_keys;
      bool ok = ReadLiveRows(f, all, &live).ok();
      for (size_t i = 0; ok && i < live.size(); ++i) {
        auto k = KeyOf(live[i]);
        ok = k.ok();
        if (ok) live_keys.push_back(std::move(k).value());
      }
      if (ok) {
        for (auto& row : live) moved.push_back(std::move(row));
        for (auto& k : live_keys) moved_keys.push_back(std::move(k));
        remove(f);
        removed.push_back(id);
        continue;
      }
      // A file that cannot be read back keeps a deletion vector.
    }
    bitmaps.push_back(format::EncodeDeletionBitmap(all));
    vectors.emplace_back(id, all.size());
  }
  std::vector<DeltaFile> moved_files;
  if (!moved.empty()) {
    SLUICE_ASSIGN_OR_RETURN(moved_files, write(std::move(moved)));
  }
  std::vector<DeletionVectorRef> refs;
  if (!bitmaps.empty()) {
    std::string uuid;
    const std::string name = "deletion_vector_" + DeltaNewUuid(&uuid) + ".bin";
    std::vector<uint64_t> offsets;
    const std::string bytes = format::EncodeDeletionVectorFile(bitmaps, &offsets);
    Status w = DeltaWriteFile(dir_ + "/" + name, bytes, /*exclusive=*/true);
    if (!w.ok()) {
      for (const DeltaFile& f : moved_files) (void)RemoveFile(dir_ + "/" + f.path);
      (void)RemoveFile(dir_ + "/" + name);
      return w;
    }
    s.written.push_back(name);
    for (size_t i = 0; i < vectors.size(); ++i) {
      DeletionVectorRef dv;
      dv.storage_type = 'u';
      dv.path_or_inline = format::Z85Encode(uuid);
      dv.offset = static_cast<int64_t>(offsets[i]);
      dv.size_in_bytes = bitmaps[i].size();
      dv.cardinality = vectors[i].second;
      refs.push_back(dv);
    }
  }
  // Everything is written: the staged change takes it.
  for (uint32_t id : removed) s.removed.insert(id);
  SLUICE_RETURN_IF_ERROR(Adopt(std::move(moved_files), moved_keys, &s.actions));
  for (size_t i = 0; i < vectors.size(); ++i) {
    const uint32_t id = vectors[i].first;
    const std::string dv = refs[i].Json();
    s.new_dv[id] = dv;
    auto added = s.added.find(id);
    if (added != s.added.end()) {
      // A file of this change with rows it deleted: added with its vector.
      for (DeltaFile& a : s.actions) {
        if (a.path != added->second.path) continue;
        a.deletion_vector = dv;
        a.stats = WideStats(a.stats);
      }
      continue;
    }
    const FileState& f = files_.at(id);
    DeltaFile v;
    v.action = DeltaFile::Action::kDeletionVector;
    v.path = f.path;
    v.size = f.size;
    v.rows = f.num_records;
    v.stats = WideStats(f.stats);
    v.deletion_vector = dv;
    v.old_deletion_vector = f.dv;
    ends.push_back(std::move(v));
  }
  ends.insert(ends.end(), s.actions.begin(), s.actions.end());
  s.finished = true;
  s.finished_actions = ends;
  return ends;
}

Status DeltaMergeTable::ReadLiveRows(const FileState& f, const std::vector<uint64_t>& deleted,
                                     std::vector<std::vector<Value>>* rows) const {
  SLUICE_ASSIGN_OR_RETURN(auto reader, format::ParquetReader::Open(dir_ + "/" + f.path));
  SLUICE_ASSIGN_OR_RETURN(format::ParquetProjection projection, reader->Project(file_columns_));
  uint64_t position = 0;
  size_t next_deleted = 0;
  for (size_t g = 0; g < reader->row_groups(); ++g) {
    std::vector<std::vector<Value>> group;
    SLUICE_RETURN_IF_ERROR(reader->ReadRowGroup(g, projection, &group));
    for (std::vector<Value>& r : group) {
      const uint64_t at = position++;
      while (next_deleted < deleted.size() && deleted[next_deleted] < at) ++next_deleted;
      if (next_deleted < deleted.size() && deleted[next_deleted] == at) continue;
      rows->push_back(std::move(r));
    }
  }
  return Status::OK();
}

Result<std::vector<DeltaFile>> DeltaMergeTable::StageCompaction(const WriteRows& write,
                                                                uint64_t small_bytes,
                                                                size_t min_files,
                                                                uint64_t max_bytes) {
  if (staged_) return Status::Internal("merge: a compaction while a change is staged");
  // The smallest files first, at most twice `min_files` of them: each
  // compaction rewrites little, and what it writes is compacted again only
  // once as many files as small have come (as tiers of an LSM tree).
  std::vector<std::pair<uint64_t, uint32_t>> candidates;  // size, id
  for (const auto& [id, f] : files_) {
    if (f.size < small_bytes) candidates.emplace_back(f.size, id);
  }
  std::sort(candidates.begin(), candidates.end());
  std::vector<uint32_t> small;
  uint64_t bytes = 0;
  for (const auto& [size, id] : candidates) {
    if (small.size() >= 2 * min_files || bytes + size > max_bytes) break;
    small.push_back(id);
    bytes += size;
  }
  if (small.size() < std::max<size_t>(min_files, 2)) return std::vector<DeltaFile>{};
  std::vector<std::vector<Value>> rows;
  std::vector<std::string> keys;
  std::vector<DeltaFile> ends;
  for (uint32_t id : small) {
    const FileState& f = files_.at(id);
    const size_t before = rows.size();
    SLUICE_RETURN_IF_ERROR(ReadLiveRows(f, f.deleted, &rows));
    for (size_t i = before; i < rows.size(); ++i) {
      SLUICE_ASSIGN_OR_RETURN(std::string k, KeyOf(rows[i]));
      keys.push_back(std::move(k));
    }
    DeltaFile r;
    r.action = DeltaFile::Action::kRemove;
    r.path = f.path;
    r.old_deletion_vector = f.dv;
    r.data_change = false;
    ends.push_back(std::move(r));
  }
  std::vector<DeltaFile> files;
  if (!rows.empty()) {
    SLUICE_ASSIGN_OR_RETURN(files, write(std::move(rows)));
  }
  for (DeltaFile& f : files) f.data_change = false;
  staged_ = std::make_unique<Staged>();
  for (uint32_t id : small) staged_->removed.insert(id);
  SLUICE_RETURN_IF_ERROR(Adopt(std::move(files), keys, &staged_->actions));
  ends.insert(ends.end(), staged_->actions.begin(), staged_->actions.end());
  staged_->finished = true;
  staged_->finished_actions = ends;
  return ends;
}

bool DeltaMergeTable::finished() const { return staged_ != nullptr && staged_->finished; }

void DeltaMergeTable::Commit() {
  if (!staged_) return;
  Staged& s = *staged_;
  if (s.replace_all) {
    index_.clear();
    files_.clear();
    ids_.clear();
  }
  for (auto& [id, f] : s.added) {
    ids_[f.path] = id;
    files_.emplace(id, std::move(f));
  }
  for (uint32_t id : s.removed) {
    auto it = files_.find(id);
    if (it == files_.end()) continue;
    ids_.erase(it->second.path);
    files_.erase(it);
  }
  for (auto& [id, positions] : s.deletions) {
    auto it = files_.find(id);
    if (it == files_.end()) continue;
    std::sort(positions.begin(), positions.end());
    it->second.deleted = Union(it->second.deleted, positions);
  }
  for (auto& [id, dv] : s.new_dv) {
    auto it = files_.find(id);
    if (it != files_.end()) it->second.dv = dv;
  }
  for (auto& [key, loc] : s.index) {
    if (loc == kTombstone) {
      index_.erase(key);
    } else {
      index_[key] = loc;
    }
  }
  staged_.reset();
}

void DeltaMergeTable::Abort() {
  if (!staged_) return;
  for (const std::string& p : staged_->written) (void)RemoveFile(dir_ + "/" + p);
  staged_.reset();
}

}  // namespace sluice::connector
