// The Delta log's replay: files replaced by a new deletion vector in one
// commit, removes that name a (path, vector) pair, and the deleted rows of
// inline and file vectors.
#include "connector/delta_log.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

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
  ASSERT_TRUE(log->Commit({R"({"protocol":{"minReaderVersion":3,"minWriterVersion":7,)"
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
  ASSERT_TRUE(log->Commit({R"({"add":{"path":"a%20b.parquet","size":10,"stats":"{\"numRecords\":40}","dataChange":true,"deletionVector":)" +
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
  ASSERT_TRUE(log->Commit({R"({"remove":{"path":"a%20b.parquet","dataChange":true,"deletionVector":)" +
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
  ASSERT_TRUE(reopened->Commit({R"({"remove":{"path":"a%20b.parquet","dataChange":true}})"},
                               "DELETE")
                  .ok());
  EXPECT_TRUE(reopened->live().empty());
}

TEST_F(DeltaLogTest, DamagedVectorsSayWhere) {
  auto log = DeltaLog::Open(dir_);
  ASSERT_TRUE(log.ok());
  ASSERT_TRUE(log->Commit({R"({"add":{"path":"f.parquet","size":1,"dataChange":true,)"
                           R"("deletionVector":{"storageType":"u","pathOrInlineDv":"abcdefghij0123456789","offset":1,"sizeInBytes":10,"cardinality":1}}})"},
                          "WRITE")
                  .ok());
  auto rows = log->DeletedRows(log->live().begin()->second);
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.status().message().find("f.parquet"), std::string::npos) << rows.status().ToString();
  DeltaLog bad = *DeltaLog::Open(dir_);
  Status s = bad.Commit({R"({"add":{"path":"g","deletionVector":{"storageType":"x"}}})"}, "WRITE");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("storageType"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace sluice::connector
