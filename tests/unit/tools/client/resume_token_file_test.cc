#include "tools/client/resume_token_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace quarry::tools::client {
namespace {

class ResumeTokenFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/quarry-token-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    path_ = dir_ + "/token.json";
  }
  void TearDown() override {
    std::remove(path_.c_str());
    std::remove((path_ + ".tmp").c_str());
    rmdir(dir_.c_str());
  }
  void WriteText(const std::string& text) { std::ofstream(path_) << text; }

  std::string dir_;
  std::string path_;
};

TEST_F(ResumeTokenFileTest, MissingFileMeansStartFromNow) {
  auto token = ReadResumeToken(path_);
  ASSERT_TRUE(token.ok());
  EXPECT_FALSE(token.value().has_value());
}

TEST_F(ResumeTokenFileTest, WrittenTokenReadsBackIdentically) {
  bson_t token = BSON_INITIALIZER;
  BSON_APPEND_UTF8(&token, "_data", "8263A1B2C3000000012B0229296E04");
  BSON_APPEND_INT64(&token, "n", 1LL << 40);
  ASSERT_TRUE(WriteResumeToken(path_, token).ok());
  auto read = ReadResumeToken(path_);
  ASSERT_TRUE(read.ok());
  ASSERT_TRUE(read.value().has_value());
  EXPECT_TRUE(bson_equal(&token, read.value()->get()));
  bson_destroy(&token);
}

TEST_F(ResumeTokenFileTest, RewritingReplacesTheTokenAndLeavesNoTemporaryFile) {
  bson_t first = BSON_INITIALIZER;
  BSON_APPEND_UTF8(&first, "_data", "01");
  bson_t second = BSON_INITIALIZER;
  BSON_APPEND_UTF8(&second, "_data", "02");
  ASSERT_TRUE(WriteResumeToken(path_, first).ok());
  ASSERT_TRUE(WriteResumeToken(path_, second).ok());
  auto read = ReadResumeToken(path_);
  ASSERT_TRUE(read.ok() && read.value().has_value());
  EXPECT_TRUE(bson_equal(&second, read.value()->get()));
  EXPECT_NE(access((path_ + ".tmp").c_str(), F_OK), 0);
  bson_destroy(&first);
  bson_destroy(&second);
}

TEST_F(ResumeTokenFileTest, GarbageFileIsABadValue) {
  WriteText("this is not json");
  auto read = ReadResumeToken(path_);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), ErrorCode::kBadValue);
}

TEST_F(ResumeTokenFileTest, EmptyFileIsABadValue) {
  WriteText("\n");
  auto read = ReadResumeToken(path_);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), ErrorCode::kBadValue);
}

TEST_F(ResumeTokenFileTest, WriteIntoMissingDirectoryFails) {
  bson_t token = BSON_INITIALIZER;
  BSON_APPEND_UTF8(&token, "_data", "01");
  EXPECT_FALSE(WriteResumeToken(dir_ + "/no/such/dir/token.json", token).ok());
  bson_destroy(&token);
}

}  // namespace
}  // namespace quarry::tools::client
