// The progress line and the progress bar that draws it.
#include "tools/client/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <thread>

namespace quarry::tools::client {
namespace {

std::string ReadAll(std::FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string text;
  for (int c = std::fgetc(file); c != EOF; c = std::fgetc(file)) text += static_cast<char>(c);
  return text;
}

TEST(ProgressTest, LineWithATotalShowsABarPercentAndTime) {
  std::string line = FormatProgressLine("zstd read", 50, 100, 1.25, 60);
  EXPECT_EQ(line.rfind("zstd read [", 0), 0u);
  EXPECT_NE(line.find("#."), std::string::npos);  // half full, half empty
  EXPECT_NE(line.find(" 50%"), std::string::npos);
  EXPECT_NE(line.find("1.2 s"), std::string::npos);
  EXPECT_LE(line.size(), 60u);
}

TEST(ProgressTest, BarIsHalfFilledAtHalfway) {
  std::string line = FormatProgressLine("x", 1, 2, 0, 60);
  std::size_t open = line.find('[');
  std::size_t close = line.find(']');
  std::string bar = line.substr(open + 1, close - open - 1);
  EXPECT_EQ(std::count(bar.begin(), bar.end(), '#') * 2, static_cast<long>(bar.size()));
}

TEST(ProgressTest, DoneBeyondTheTotalShowsFull) {
  EXPECT_NE(FormatProgressLine("x", 150, 100, 0, 60).find("100%"), std::string::npos);
}

TEST(ProgressTest, ANoteFollowsTheTimeAndTheBarMakesRoomForIt) {
  const std::string note = "1200 docs 1.3 MB 800/s ETA 4s";
  std::string line = FormatProgressLine("import", 25, 100, 1.5, 79, note);
  EXPECT_EQ(line.substr(line.size() - note.size()), note);
  EXPECT_NE(line.find(" 25%  1.5 s  "), std::string::npos);
  EXPECT_LE(line.size(), 79u);
  EXPECT_EQ(FormatProgressLine("bulk", 0, 0, 3.0, 60, "x"), "bulk  3.0 s  x");
}

TEST(ProgressTest, UnknownTotalShowsOnlyTheTime) {
  EXPECT_EQ(FormatProgressLine("bulk", 0, 0, 3.0, 60), "bulk  3.0 s");
}

TEST(ProgressTest, DisabledBarWritesNothing) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  {
    ProgressBar bar(file, /*enabled=*/false, std::chrono::milliseconds(0));
    bar.Begin("task", 10);
    bar.Advance(5);
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    bar.End();
  }
  EXPECT_EQ(ReadAll(file), "");
  std::fclose(file);
}

TEST(ProgressTest, ShortTasksDrawNothing) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  {
    ProgressBar bar(file, /*enabled=*/true, std::chrono::seconds(1));
    bar.Begin("task", 10);
    bar.Advance(10);
    bar.End();
  }
  EXPECT_EQ(ReadAll(file), "");
  std::fclose(file);
}

TEST(ProgressTest, LongTasksDrawThenEraseTheLine) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  {
    ProgressBar bar(file, /*enabled=*/true, std::chrono::milliseconds(0));
    bar.Begin("long task", 10);
    bar.Advance(5);
    std::this_thread::sleep_for(std::chrono::milliseconds(350));
    bar.End();
  }
  std::string text = ReadAll(file);
  EXPECT_NE(text.find("\rlong task ["), std::string::npos);
  EXPECT_NE(text.find(" 50%"), std::string::npos);
  EXPECT_EQ(text.back(), '\r');  // erased, the cursor back at the start of the line
  std::fclose(file);
}

}  // namespace
}  // namespace quarry::tools::client
