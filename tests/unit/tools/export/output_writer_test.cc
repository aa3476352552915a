#include "tools/export/output_writer.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace quarry::tools::exporting {
namespace {

class OutputWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/quarry-export-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static std::string ReadAll(const std::string& path) {
    std::ifstream file(path);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
  }

  std::string dir_;
};

TEST_F(OutputWriterTest, WritesEverythingByClose) {
  std::string path = dir_ + "/out.json";
  auto writer = OutputWriter::Open(path);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE(writer.value()->Write("hello ").ok());
  ASSERT_TRUE(writer.value()->Write("world\n").ok());
  ASSERT_TRUE(writer.value()->Close().ok());
  EXPECT_EQ(ReadAll(path), "hello world\n");
}

TEST_F(OutputWriterTest, SmallBufferFlushesAsItFills) {
  std::string path = dir_ + "/out.txt";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  OutputWriter writer(fd, path, true, 4);
  ASSERT_TRUE(writer.Write("abcdef").ok());
  EXPECT_EQ(ReadAll(path), "abcdef");
  ASSERT_TRUE(writer.Write("g").ok());
  ASSERT_TRUE(writer.Close().ok());
  EXPECT_EQ(ReadAll(path), "abcdefg");
}

TEST_F(OutputWriterTest, CreatesMissingParentFolders) {
  std::string path = dir_ + "/a/b/out.csv";
  auto writer = OutputWriter::Open(path);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE(writer.value()->Close().ok());
  EXPECT_EQ(ReadAll(path), "");
}

TEST_F(OutputWriterTest, UnopenablePathFailsWithReason) {
  std::string path = dir_ + "/file";
  std::ofstream(path) << "x";
  auto writer = OutputWriter::Open(path + "/inside");
  ASSERT_FALSE(writer.ok());
  EXPECT_NE(writer.status().reason().find("inside"), std::string_view::npos);
}

TEST_F(OutputWriterTest, FullDiskFailsTheWrite) {
  int fd = ::open("/dev/full", O_WRONLY);
  if (fd < 0) GTEST_SKIP() << "no /dev/full";
  OutputWriter writer(fd, "/dev/full", true, 16);
  Status written = writer.Write(std::string(64, 'x'));
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.reason().find("No space left"), std::string_view::npos) << written.reason();
  EXPECT_FALSE(writer.Write("y").ok());
  EXPECT_FALSE(writer.Close().ok());
}

TEST_F(OutputWriterTest, ClosedPipeFailsTheWrite) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);
  struct sigaction ignore = {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction previous = {};
  sigaction(SIGPIPE, &ignore, &previous);
  OutputWriter writer(fds[1], "standard output", true, 16);
  Status written = writer.Write("data");
  Status closed = writer.Close();
  sigaction(SIGPIPE, &previous, nullptr);
  ASSERT_TRUE(written.ok());  // still buffered
  ASSERT_FALSE(closed.ok());
  EXPECT_NE(closed.reason().find("Broken pipe"), std::string_view::npos) << closed.reason();
}

}  // namespace
}  // namespace quarry::tools::exporting
