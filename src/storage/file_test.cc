#include "storage/file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace sluice {
namespace {

TEST(FileTest, WriteRenameRead) {
  std::string dir = ::testing::TempDir() + "/storage_test_" + std::to_string(::getpid());
  ASSERT_TRUE(CreateDirs(dir).ok());
  auto w = WritableFile::Create(dir + "/a.tmp");
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Append("hello world").ok());
  ASSERT_TRUE((*w)->Sync().ok());
  ASSERT_TRUE((*w)->Close().ok());
  ASSERT_TRUE(RenameFile(dir + "/a.tmp", dir + "/a").ok());
  EXPECT_FALSE(FileExists(dir + "/a.tmp"));
  auto r = RandomAccessFile::Open(dir + "/a");
  ASSERT_TRUE(r.ok());
  std::string got;
  ASSERT_TRUE((*r)->Read(6, 5, &got).ok());
  EXPECT_EQ(got, "world");
  Status past_end = (*r)->Read(6, 50, &got);
  EXPECT_EQ(past_end.code(), StatusCode::kCorruption);
  EXPECT_NE(past_end.message().find("truncated"), std::string::npos);
  EXPECT_FALSE(RandomAccessFile::Open(dir + "/missing").ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sluice
