// TuneAllocator's restart, seen from outside: a probe program (allocator_probe.cc) started
// with a chosen GLIBC_TUNABLES reports each start's PID, the environment it runs with and the
// malloc arenas four threads use.
#include "base/allocator.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace quarry {
namespace {

// The probe's lines, run under `env` with `environment` (e.g. "-u GLIBC_TUNABLES").
std::vector<std::string> RunProbe(const std::string& environment, int expected_exit = 0) {
  const std::string command = "env " + environment + " " + QUARRY_ALLOCATOR_PROBE;
  FILE* pipe = popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr);
  std::vector<std::string> lines;
  if (pipe == nullptr) return lines;
  char line[4096];
  while (std::fgets(line, sizeof(line), pipe) != nullptr) {
    std::string text(line);
    if (!text.empty() && text.back() == '\n') text.pop_back();
    lines.push_back(text);
  }
  EXPECT_EQ(pclose(pipe), expected_exit);
  return lines;
}

std::string Pid(const std::string& line) {
  const std::size_t space = line.find(' ');
  return line.substr(space + 1, line.find(' ', space + 1) - space - 1);
}

TEST(AllocatorTest, StartsOnceMoreInPlaceWithOneArenaAndGivesBackTheEnvironment) {
  const std::vector<std::string> lines = RunProbe("-u GLIBC_TUNABLES");
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_TRUE(lines[0].starts_with("started "));
  EXPECT_EQ(lines[1], lines[0]);  // the same process, started again
  EXPECT_EQ(lines[2], "running " + Pid(lines[0]) + " tunables=(unset) heaps=1");
}

TEST(AllocatorTest, KeepsTheTunablesItWasGivenBesideItsOwn) {
  const std::vector<std::string> lines = RunProbe("GLIBC_TUNABLES=glibc.malloc.tcache_count=5");
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[2], "running " + Pid(lines[0]) + " tunables=glibc.malloc.tcache_count=5 heaps=1");
}

TEST(AllocatorTest, LeavesAnArenaSettingOfTheUsersAlone) {
  const std::vector<std::string> lines = RunProbe("GLIBC_TUNABLES=glibc.malloc.arena_max=8");
  ASSERT_EQ(lines.size(), 3u);  // not started again
  EXPECT_TRUE(lines[1].starts_with("running " + Pid(lines[0]) +
                                   " tunables=glibc.malloc.arena_max=8 heaps="));
  EXPECT_NE(lines[1], "running " + Pid(lines[0]) + " tunables=glibc.malloc.arena_max=8 heaps=1");
}

TEST(AllocatorTest, KeepsItsNameForPsAndPgrep) {
  // The kernel keeps 15 characters of a process's name.
  const std::string name = std::string("quarry_allocator_probe").substr(0, 15);
  const std::vector<std::string> started = RunProbe("-u GLIBC_TUNABLES");
  ASSERT_EQ(started.size(), 4u);
  EXPECT_EQ(started[3], "name=" + name + " carried=(unset)");
  const std::vector<std::string> not_restarted =
      RunProbe("GLIBC_TUNABLES=glibc.malloc.arena_max=8");
  ASSERT_EQ(not_restarted.size(), 3u);
  EXPECT_EQ(not_restarted[2], "name=" + name + " carried=(unset)");
}

TEST(AllocatorTest, StartsOnlyOnceMoreWhenTheTunablesAreDroppedOnTheWay) {
  const std::vector<std::string> lines = RunProbe("-u GLIBC_TUNABLES PROBE_ERASE_TUNABLES=1");
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[1], lines[0]);
  EXPECT_TRUE(lines[2].starts_with("running " + Pid(lines[0]) + " tunables=(unset) heaps="));
  EXPECT_EQ(lines[3],
            "name=" + std::string("quarry_allocator_probe").substr(0, 15) + " carried=(unset)");
}

}  // namespace
}  // namespace quarry
