// CPU time from /proc: a process's own, and with its children's, running or waited for.
#include "tools/client/process_cpu.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

namespace quarry::tools::client {
namespace {

// Spins for `seconds` of wall time, which is CPU time when the process has a core.
void Spin(double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  volatile std::uint64_t sink = 0;
  while (std::chrono::steady_clock::now() < end) sink = sink + 1;
}

TEST(ProcessCpuTest, UnknownProcessesAreMinusOne) {
  EXPECT_EQ(ProcessCpuSeconds(0), -1);
  EXPECT_EQ(ProcessTreeCpuSeconds(0), -1);
  EXPECT_EQ(ProcessTreeCpuSeconds(-5), -1);
}

TEST(ProcessCpuTest, TheTreeCountsChildrenRunningAndEnded) {
  const int self = static_cast<int>(getpid());
  const double own_before = ProcessCpuSeconds(self);
  const double tree_before = ProcessTreeCpuSeconds(self);
  ASSERT_GE(own_before, 0);
  ASSERT_GE(tree_before, own_before);

  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Spin(0.4);
    (void)!write(ready[1], "x", 1);
    pause();  // until the test kills it: still running when measured
    _exit(0);
  }
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  const double tree_running = ProcessTreeCpuSeconds(self);
  EXPECT_GE(tree_running - tree_before, 0.2) << "a running child's time";
  kill(child, SIGKILL);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  const double tree_ended = ProcessTreeCpuSeconds(self);
  EXPECT_GE(tree_ended - tree_before, 0.2) << "a waited-for child's time";
  // The process's own time does not include it.
  EXPECT_LT(ProcessCpuSeconds(self) - own_before, 0.2);
  close(ready[0]);
  close(ready[1]);
}

}  // namespace
}  // namespace quarry::tools::client
