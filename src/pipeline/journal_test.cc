#include "pipeline/journal.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace sluice::pipeline {
namespace {

class JournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-journal-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Segments 1..n of one change each, and a step taking each.
  void Write(int n) {
    auto j = Journal::Open(dir_, 1);
    ASSERT_TRUE(j.ok()) << j.status().ToString();
    for (int i = 1; i <= n; ++i) {
      format::ChangeBuffer c;
      c.Add(format::ChangeKind::kInsert, "key" + std::to_string(i), "row" + std::to_string(i));
      ASSERT_TRUE(
          (*j)->AppendSegment(i, "t", i % 2 ? "in" : "", "{\"at\":" + std::to_string(i) + "}", c)
              .ok());
      // Odd steps record a step clock, even ones none (as before there was one).
      const int64_t clock = i % 2 ? -1000000 * int64_t{i} : 0;
      ASSERT_TRUE(
          (*j)->AppendStep(i, i == n, i == n, {{static_cast<uint64_t>(i), 0, 1}}, clock).ok());
    }
  }
  std::vector<JournalRecord> Read(Status* status) {
    std::vector<JournalRecord> out;
    *status = Journal::Replay(dir_, 1, [&](const JournalRecord& r) {
      out.push_back(r);
      return Status::OK();
    });
    return out;
  }
  std::string File() const { return dir_ + "/0000000001.log"; }
  std::string dir_;
};

TEST_F(JournalTest, RecordsReadBackAsWritten) {
  Write(3);
  Status s;
  auto rs = Read(&s);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(rs.size(), 6u);
  EXPECT_EQ(rs[0].type, 'S');
  EXPECT_EQ(rs[0].segment, 1u);
  EXPECT_EQ(rs[0].source, "in");
  EXPECT_EQ(rs[0].position, "{\"at\":1}");
  EXPECT_EQ(rs[0].changes->payload(0), "row1");
  EXPECT_EQ(rs[5].type, 'T');
  EXPECT_EQ(rs[5].step, 3u);
  EXPECT_TRUE(rs[5].commit);
  EXPECT_TRUE(rs[5].in_transaction);
  ASSERT_EQ(rs[5].ranges.size(), 1u);
  EXPECT_EQ(rs[5].ranges[0].segment, 3u);
  EXPECT_EQ(rs[5].ranges[0].to, 1u);
  EXPECT_EQ(rs[5].clock, -3000000);
  EXPECT_EQ(rs[3].clock, 0);
  EXPECT_EQ(rs[3].ranges.size(), 1u);
}

TEST_F(JournalTest, AnEmptyFileHoldsNothing) {
  std::filesystem::create_directories(dir_);
  std::ofstream(File()).close();
  Status s;
  EXPECT_TRUE(Read(&s).empty());
  EXPECT_TRUE(s.ok()) << s.ToString();
}

// A crash in the middle of the last record: the journal ends before it,
// the file is cut back, and what is appended next reads back after it.
TEST_F(JournalTest, ATornTailEndsTheJournalAndIsCutOff) {
  Write(2);
  const auto size = std::filesystem::file_size(File());
  for (uint64_t cut : {1, 5, 13, 20}) {
    SCOPED_TRACE(cut);
    std::filesystem::resize_file(File(), size - cut);
    Status s;
    auto rs = Read(&s);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(rs.size(), 3u);
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    Write(2);
  }
  // Zeros where the last record's bytes never made it to the disk.
  std::filesystem::resize_file(File(), size - 12);
  std::filesystem::resize_file(File(), size);
  Status s;
  EXPECT_EQ(Read(&s).size(), 3u);
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto j = Journal::Open(dir_, 1);
  ASSERT_TRUE(j.ok());
  ASSERT_TRUE((*j)->AppendStep(9, false, false, {}).ok());
  auto rs = Read(&s);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(rs.size(), 4u);
  EXPECT_EQ(rs[3].step, 9u);
}

// A flipped byte in a record with whole records after it is damage, not a
// torn end: an error, and nothing after it is taken for the journal's end.
TEST_F(JournalTest, AFlippedByteIsCorruptionNotAnEnd) {
  Write(3);
  {
    std::fstream f(File(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(30);
    char c = 0;
    f.get(c);
    f.seekp(30);
    f.put(static_cast<char>(c ^ 0x40));
  }
  const auto size = std::filesystem::file_size(File());
  Status s;
  Read(&s);
  EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find("damaged at byte 0"), std::string::npos) << s.ToString();
  EXPECT_EQ(std::filesystem::file_size(File()), size);  // not cut back
}

// Damage in a file before the last is never a torn end.
TEST_F(JournalTest, ATornEarlierFileIsCorruption) {
  Write(2);
  const auto size = std::filesystem::file_size(File());
  std::filesystem::resize_file(File(), size - 3);
  auto j = Journal::Open(dir_, 1);
  ASSERT_TRUE(j.ok());
  ASSERT_TRUE((*j)->Rotate(2).ok());
  ASSERT_TRUE((*j)->AppendStep(3, false, false, {}).ok());
  Status s;
  Read(&s);
  EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
}

}  // namespace
}  // namespace sluice::pipeline
