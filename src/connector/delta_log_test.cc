// The Delta log's replay: files replaced by a new deletion vector in one
// commit, removes that name a (path, vector) pair, and the deleted rows of
// inline and file vectors.
#include "connector/delta_log.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "format/deletion_vector.h"
#include "storage/file.h"

namespace sluice::connector {
namespace {

class DeltaLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-deltalog-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(DeltaLogTest, DeletionVectorsReplaceAFileInOneCommit) {
  auto log = DeltaLog::Open(dir_);
  ASSERT_TRUE(log.ok());
  EXPECT_FALSE(log->exists());
  ASSERT_TRUE(
      log->Commit(
             {R"({"protocol":{"minReaderVersion":3,"minWriterVersion":7,)"
              R"("readerFeatures":["deletionVectors"],"writerFeatures":["deletionVectors"]}})",
              R"({"metaData":{"schemaString":"{}","partitionColumns":[],"configuration":{"delta.enableDeletionVectors":"true"}}})",
              R"({"add":{"path":"a%20b.parquet","size":10,"stats":"{\"numRecords\":40}","dataChange":true}})"},
             "WRITE")
          .ok());
  // Rows 1 and 5 of the file deleted: the vector inline.
  DeletionVectorRef dv;
  dv.storage_type = 'i';
  const std::string bitmap = format::EncodeDeletionBitmap({1, 5});
  dv.path_or_inline = format::Z85Encode(bitmap);
  dv.size_in_bytes = bitmap.size();
  dv.cardinality = 2;
  // The add before the remove: order within a commit does not matter.
  ASSERT_TRUE(
      log->Commit(
             {R"({"add":{"path":"a%20b.parquet","size":10,"stats":"{\"numRecords\":40}","dataChange":true,"deletionVector":)" +
                  dv.Json() + "}}",
              R"({"remove":{"path":"a%20b.parquet","dataChange":true}})"},
             "DELETE")
          .ok());
  ASSERT_EQ(log->live().size(), 1u);
  const DeltaLiveFile& f = log->live().begin()->second;
  EXPECT_EQ(f.num_records, 40);
  EXPECT_EQ(log->LocalPath(f.path), dir_ + "/a b.parquet");
  auto rows = log->DeletedRows(f);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (std::vector<uint64_t>{1, 5}));

  // Then a vector in a file, by UUID with a prefix; the remove names the
  // old inline vector.
  std::string uuid;
  const std::string uuid_text = DeltaNewUuid(&uuid);
  const std::string other = format::EncodeDeletionBitmap({1, 5, 39});
  std::vector<uint64_t> offsets;
  ASSERT_TRUE(CreateDirs(dir_ + "/xy").ok());
  ASSERT_TRUE(DeltaWriteFile(dir_ + "/xy/deletion_vector_" + uuid_text + ".bin",
                             format::EncodeDeletionVectorFile({bitmap, other}, &offsets), true)
                  .ok());
  DeletionVectorRef ondisk;
  ondisk.storage_type = 'u';
  ondisk.path_or_inline = "xy" + format::Z85Encode(uuid);
  ondisk.offset = static_cast<int64_t>(offsets[1]);
  ondisk.size_in_bytes = other.size();
  ondisk.cardinality = 3;
  ASSERT_TRUE(
      log->Commit(
             {R"({"remove":{"path":"a%20b.parquet","dataChange":true,"deletionVector":)" +
                  dv.Json() + "}}",
              R"({"add":{"path":"a%20b.parquet","size":10,"stats":"{\"numRecords\":40}","dataChange":true,"deletionVector":)" +
                  ondisk.Json() + "}}"},
             "DELETE")
          .ok());
  auto reopened = DeltaLog::Open(dir_);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ(reopened->next_version(), 3u);
  EXPECT_EQ(reopened->reader_features(), std::vector<std::string>{"deletionVectors"});
  EXPECT_EQ(reopened->configuration().at("delta.enableDeletionVectors"), "true");
  ASSERT_EQ(reopened->live().size(), 1u);
  rows = reopened->DeletedRows(reopened->live().begin()->second);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (std::vector<uint64_t>{1, 5, 39}));

  // Version 1 as it was; a version past the latest is refused.
  auto v1 = DeltaLog::Open(dir_, 1);
  ASSERT_TRUE(v1.ok());
  EXPECT_EQ(v1->live().begin()->second.deletion_vector->storage_type, 'i');
  EXPECT_FALSE(DeltaLog::Open(dir_, 3).ok());

  // A remove without a vector of a file added earlier ends it.
  ASSERT_TRUE(
      reopened->Commit({R"({"remove":{"path":"a%20b.parquet","dataChange":true}})"}, "DELETE")
          .ok());
  EXPECT_TRUE(reopened->live().empty());
}

TEST_F(DeltaLogTest, DamagedVectorsSayWhere) {
  auto log = DeltaLog::Open(dir_);
  ASSERT_TRUE(log.ok());
  ASSERT_TRUE(
      log->Commit(
             {R"({"add":{"path":"f.parquet","size":1,"dataChange":true,)"
              R"("deletionVector":{"storageType":"u","pathOrInlineDv":"abcdefghij0123456789","offset":1,"sizeInBytes":10,"cardinality":1}}})"},
             "WRITE")
          .ok());
  auto rows = log->DeletedRows(log->live().begin()->second);
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.status().message().find("f.parquet"), std::string::npos)
      << rows.status().ToString();
  DeltaLog bad = *DeltaLog::Open(dir_);
  Status s = bad.Commit({R"({"add":{"path":"g","deletionVector":{"storageType":"x"}}})"}, "WRITE");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("storageType"), std::string::npos) << s.ToString();
}

// What a commit did (for followers), the protocol check, column mapping
// by name, and versions by their commit time.
TEST_F(DeltaLogTest, CommitChangesProtocolMappingAndTimestamps) {
  auto log = DeltaLog::Open(dir_);
  ASSERT_TRUE(log.ok());
  const std::string schema =
      R"({\"type\":\"struct\",\"fields\":[{\"name\":\"Id\",\"type\":\"long\",\"nullable\":true,)"
      R"(\"metadata\":{\"delta.columnMapping.physicalName\":\"col-1\"}}]})";
  ASSERT_TRUE(
      log->Commit(
             {R"({"protocol":{"minReaderVersion":2,"minWriterVersion":5}})",
              R"({"metaData":{"schemaString":")" + schema +
                  R"(","partitionColumns":[],"configuration":{"delta.columnMapping.mode":"name"}}})",
              R"({"add":{"path":"a","size":1,"dataChange":true}})",
              R"({"add":{"path":"b","size":1,"dataChange":true}})"},
             "WRITE")
          .ok());
  EXPECT_TRUE(log->CheckReadable().ok());
  auto names = log->PhysicalNames();
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(names->at("Id"), "col-1");
  ASSERT_EQ(log->last_changes().size(), 2u);
  EXPECT_TRUE(log->last_changes()[0].added);
  // A compaction: b and a rewritten as c, no data change.
  ASSERT_TRUE(log->Commit({R"({"remove":{"path":"a","dataChange":false}})",
                           R"({"remove":{"path":"b","dataChange":false}})",
                           R"({"add":{"path":"c","size":1,"dataChange":false}})"},
                          "OPTIMIZE")
                  .ok());
  ASSERT_EQ(log->last_changes().size(), 3u);
  for (const DeltaFileChange& c : log->last_changes()) EXPECT_FALSE(c.data_change);
  EXPECT_FALSE(log->last_changes()[0].added);
  EXPECT_EQ(log->last_changes()[0].file.path, "a");
  EXPECT_EQ(log->live_files(), std::vector<std::string>{"c"});
  EXPECT_GT(log->last_commit_timestamp(), 0);
  // A feature we do not read, and mapping by id, are refused by name.
  ASSERT_TRUE(
      log->Commit({R"({"protocol":{"minReaderVersion":3,"minWriterVersion":7,)"
                   R"("readerFeatures":["columnMapping","futureThing"],"writerFeatures":[]}})"},
                  "SET")
          .ok());
  Status s = log->CheckReadable();
  EXPECT_NE(s.message().find("futureThing"), std::string::npos) << s.ToString();
  // Versions by time: inCommitTimestamp first, else timestamp.
  const std::string logdir = dir_ + "/_delta_log/";
  std::ofstream(logdir + DeltaCommitName(3))
      << R"({"commitInfo":{"timestamp":5000,"inCommitTimestamp":4000000000000}})"
      << "\n";
  std::ofstream(logdir + DeltaCommitName(4)) << R"({"commitInfo":{"timestamp":5000000000000}})"
                                             << "\n";
  EXPECT_EQ(*DeltaVersionAt(dir_, 4000000000000), 3u);
  EXPECT_EQ(*DeltaVersionAt(dir_, 4999999999999), 3u);
  EXPECT_EQ(*DeltaVersionAt(dir_, 5000000000000), 4u);
  EXPECT_EQ(*DeltaVersionAt(dir_, DeltaNowMillis()), 2u);  // the first three: now
  EXPECT_FALSE(DeltaVersionAt(dir_, 1000).ok());
}

// A checkpoint with a missing part is not used; a V2 checkpoint is refused.
TEST_F(DeltaLogTest, IncompleteAndV2Checkpoints) {
  auto log = DeltaLog::Open(dir_);
  ASSERT_TRUE(log.ok());
  ASSERT_TRUE(log->Commit({R"({"protocol":{"minReaderVersion":1,"minWriterVersion":2}})",
                           R"({"add":{"path":"a","size":1,"dataChange":true}})"},
                          "WRITE")
                  .ok());
  const std::string logdir = dir_ + "/_delta_log/";
  // Part 1 of 2 only (and not Parquet at all): the commits are read.
  std::ofstream(logdir + "00000000000000000000.checkpoint.0000000001.0000000002.parquet") << "x";
  auto again = DeltaLog::Open(dir_);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->live_files(), std::vector<std::string>{"a"});
  // A classic checkpoint that is damaged is an error naming it.
  std::ofstream(logdir + "00000000000000000000.checkpoint.parquet") << "not parquet";
  again = DeltaLog::Open(dir_);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("checkpoint.parquet"), std::string::npos)
      << again.status().ToString();
  std::filesystem::remove(logdir + "00000000000000000000.checkpoint.parquet");
  std::ofstream(logdir +
                "00000000000000000000.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json")
      << "{}";
  again = DeltaLog::Open(dir_);  // not needed: the commits are there
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  std::filesystem::remove(logdir + DeltaCommitName(0));
  again = DeltaLog::Open(dir_);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kUnimplemented) << again.status().ToString();
}

// VACUUM deletes what the latest version does not read: files removed
// longer ago than the retention, files no commit names once old enough;
// never live files, their vectors, the log or hidden files.
TEST_F(DeltaLogTest, VacuumDeletesOnlyFilesNoRecentVersionReads) {
  namespace fs = std::filesystem;
  auto touch = [&](const std::string& name, int age_hours) {
    fs::create_directories(fs::path(dir_ + "/" + name).parent_path());
    std::ofstream(dir_ + "/" + name) << "x";
    fs::last_write_time(dir_ + "/" + name,
                        fs::file_time_type::clock::now() - std::chrono::hours(age_hours));
  };
  std::string uuid_live, uuid_old;
  const std::string live_dv_file = "deletion_vector_" + DeltaNewUuid(&uuid_live) + ".bin";
  const std::string old_dv_file = "deletion_vector_" + DeltaNewUuid(&uuid_old) + ".bin";
  auto dv_json = [](const std::string& uuid) {
    DeletionVectorRef dv;
    dv.storage_type = 'u';
    dv.path_or_inline = format::Z85Encode(uuid);
    dv.offset = 1;
    dv.size_in_bytes = 10;
    dv.cardinality = 1;
    return dv.Json();
  };
  for (const char* f : {"live.parquet", "old.parquet", "recent.parquet", "orphan_old.parquet",
                        "orphan_new.parquet", "p=1/part.parquet", ".hidden", "_sidecar/x"}) {
    touch(f, std::string(f).find("new") != std::string::npos ? 0 : 30);
  }
  touch(live_dv_file, 30);
  touch(old_dv_file, 30);
  const int64_t now = DeltaNowMillis(), hour = 3600 * 1000;
  auto log = DeltaLog::Open(dir_);
  ASSERT_TRUE(log.ok());
  auto add = [](const std::string& path, const std::string& dv) {
    return R"({"add":{"path":")" + path + R"(","size":1,"dataChange":true)" +
           (dv.empty() ? "" : R"(,"deletionVector":)" + dv) + "}}";
  };
  auto remove = [](const std::string& path, const std::string& dv, int64_t at) {
    return R"({"remove":{"path":")" + path + R"(","dataChange":true,"deletionTimestamp":)" +
           std::to_string(at) + (dv.empty() ? "" : R"(,"deletionVector":)" + dv) + "}}";
  };
  ASSERT_TRUE(log->Commit({R"({"protocol":{"minReaderVersion":1,"minWriterVersion":2}})",
                           R"({"metaData":{"schemaString":"{}","partitionColumns":[]}})",
                           add("live.parquet", dv_json(uuid_old)), add("old.parquet", ""),
                           add("recent.parquet", ""), add("p%3D1/part.parquet", "")},
                          "WRITE")
                  .ok());
  // live.parquet's vector replaced (its old vector file removed 25 hours
  // ago); old.parquet removed 25 hours ago, recent.parquet an hour ago.
  ASSERT_TRUE(log->Commit({remove("live.parquet", dv_json(uuid_old), now - 25 * hour),
                           add("live.parquet", dv_json(uuid_live)),
                           remove("old.parquet", "", now - 25 * hour),
                           remove("recent.parquet", "", now - hour)},
                          "DELETE")
                  .ok());
  auto r = log->Vacuum(now, 24 * hour, 2 * hour);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->files, 3u);  // old.parquet, the old vector file, orphan_old.parquet
  EXPECT_EQ(r->bytes, 3u);
  for (const std::string& f : std::vector<std::string>{"live.parquet", live_dv_file, "recent.parquet", "orphan_new.parquet",
                              "p=1/part.parquet", ".hidden", "_sidecar/x"}) {
    EXPECT_TRUE(fs::exists(dir_ + "/" + f)) << f;
  }
  for (const std::string& f : std::vector<std::string>{"old.parquet", old_dv_file, "orphan_old.parquet"}) {
    EXPECT_FALSE(fs::exists(dir_ + "/" + f)) << f;
  }
  EXPECT_EQ(log->live().size(), 2u);
  EXPECT_TRUE(fs::exists(dir_ + "/_delta_log/" + DeltaCommitName(1)));
  // With no retention, the file removed an hour ago goes too.
  r = log->Vacuum(now, 0, 2 * hour);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->files, 1u);
  EXPECT_FALSE(fs::exists(dir_ + "/recent.parquet"));
}

}  // namespace
}  // namespace sluice::connector
