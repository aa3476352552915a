// The io threads' polling window: how it follows the clients' pace and yields the CPU.
#include "net/spin_governor.h"

#include <gtest/gtest.h>

namespace quarry::net {
namespace {

using Micros = SpinGovernor::Micros;

TEST(SpinGovernorTest, StartsAtItsLimit) {
  EXPECT_EQ(SpinGovernor(Micros{100}).window(), Micros{100});
  EXPECT_EQ(SpinGovernor(Micros{0}).window(), Micros{0});
}

// Polling that misses `times` in a row, sleeping `slept` each time.
void Miss(SpinGovernor& governor, int times, Micros slept = Micros{45}) {
  for (int i = 0; i < times; ++i) governor.OnSlept(slept);
}

TEST(SpinGovernorTest, ARunOfPollsInVainHalvesTheWindowDownToNothing) {
  SpinGovernor governor(Micros{100});
  Miss(governor, SpinGovernor::kMissesBeforeShrinking - 1);
  EXPECT_EQ(governor.window(), Micros{100});  // a client that paused once or twice
  Miss(governor, 1);                          // what it slept does not matter: polling missed
  EXPECT_EQ(governor.window(), Micros{50});
  Miss(governor, 2 * SpinGovernor::kMissesBeforeShrinking);
  EXPECT_EQ(governor.window(), Micros{12});
  Miss(governor, SpinGovernor::kMissesBeforeShrinking);
  EXPECT_EQ(governor.window(), Micros{0});  // 6 would be below the smallest window
}

TEST(SpinGovernorTest, ACaughtEventEndsTheRunOfMisses) {
  SpinGovernor governor(Micros{100});
  for (int i = 0; i < 10; ++i) {
    Miss(governor, SpinGovernor::kMissesBeforeShrinking - 1);
    governor.OnCaught();
  }
  EXPECT_EQ(governor.window(), Micros{100});
}

TEST(SpinGovernorTest, CatchingEventsDoublesItBackToTheLimit) {
  SpinGovernor governor(Micros{100});
  Miss(governor, 2 * SpinGovernor::kMissesBeforeShrinking);
  ASSERT_EQ(governor.window(), Micros{25});
  governor.OnCaught();
  EXPECT_EQ(governor.window(), Micros{50});
  governor.OnCaught();
  governor.OnCaught();
  EXPECT_EQ(governor.window(), Micros{100});  // never past the limit
}

TEST(SpinGovernorTest, FromNothingAnEventSoonAfterSleepingReopensIt) {
  SpinGovernor governor(Micros{100});
  Miss(governor, 5 * SpinGovernor::kMissesBeforeShrinking, Micros{1000});
  ASSERT_EQ(governor.window(), Micros{0});
  governor.OnSlept(Micros{500});  // later than the limit: stays shut
  EXPECT_EQ(governor.window(), Micros{0});
  governor.OnSlept(Micros{30});  // twice what it slept, waking included
  EXPECT_EQ(governor.window(), Micros{60});
  Miss(governor, 5 * SpinGovernor::kMissesBeforeShrinking, Micros{1000});
  governor.OnSlept(Micros{90});
  EXPECT_EQ(governor.window(), Micros{100});  // at most the limit
  Miss(governor, 5 * SpinGovernor::kMissesBeforeShrinking, Micros{1000});
  governor.OnSlept(Micros{1});
  EXPECT_EQ(governor.window(), SpinGovernor::kSmallestWindow);
}

// Waking on a virtual machine can take longer than the client's pause: a thread that has seen
// polling catch events reopens after sleeps of a few limits.
TEST(SpinGovernorTest, AfterCatchingASleepOfAFewLimitsReopensIt) {
  SpinGovernor governor(Micros{100});
  governor.OnCaught();
  Miss(governor, 5 * SpinGovernor::kMissesBeforeShrinking, Micros{1000});
  ASSERT_EQ(governor.window(), Micros{0});
  EXPECT_EQ(governor.reopen_reach(), Micros{100 * SpinGovernor::kReopenLimits});
  governor.OnSlept(Micros{301});
  EXPECT_EQ(governor.window(), Micros{0});
  governor.OnSlept(Micros{250});
  EXPECT_EQ(governor.window(), Micros{100});
}

// A client slower than polling can meet: a window that opens and shuts again without a catch
// halves the reach, down to two limits, so such a client stops costing polls; a catch gives
// the reach back.
TEST(SpinGovernorTest, ReopeningsThatCatchNothingShortenTheReach) {
  SpinGovernor governor(Micros{100});
  Miss(governor, 5 * SpinGovernor::kMissesBeforeShrinking, Micros{250});
  ASSERT_EQ(governor.window(), Micros{0});
  EXPECT_EQ(governor.reopen_reach(), Micros{100 * SpinGovernor::kReopenLimitsAtLeast});
  governor.OnSlept(Micros{250});
  EXPECT_EQ(governor.window(), Micros{0});
  governor.OnSlept(Micros{190});
  ASSERT_EQ(governor.window(), Micros{100});
  Miss(governor, 5 * SpinGovernor::kMissesBeforeShrinking, Micros{250});
  ASSERT_EQ(governor.window(), Micros{0});
  EXPECT_EQ(governor.reopen_reach(), Micros{200});  // no shorter
  governor.OnSlept(Micros{201});
  EXPECT_EQ(governor.window(), Micros{0});
  governor.OnSlept(Micros{150});
  ASSERT_EQ(governor.window(), Micros{100});
  governor.OnCaught();
  EXPECT_EQ(governor.reopen_reach(), Micros{300});
  Miss(governor, 5 * SpinGovernor::kMissesBeforeShrinking, Micros{1000});
  ASSERT_EQ(governor.window(), Micros{0});
  EXPECT_EQ(governor.reopen_reach(), Micros{300});
  governor.OnSlept(Micros{250});
  EXPECT_EQ(governor.window(), Micros{100});
}

TEST(SpinGovernorTest, PreemptionHalvesTheWindow) {
  SpinGovernor governor(Micros{64});
  governor.OnPreempted();
  EXPECT_EQ(governor.window(), Micros{32});
  governor.OnPreempted();
  governor.OnPreempted();
  EXPECT_EQ(governor.window(), Micros{8});
  governor.OnPreempted();
  EXPECT_EQ(governor.window(), Micros{0});
}

TEST(SpinGovernorTest, AZeroLimitNeverPolls) {
  SpinGovernor governor(Micros{0});
  governor.OnSlept(Micros{0});
  governor.OnCaught();
  EXPECT_EQ(governor.window(), Micros{0});
}

}  // namespace
}  // namespace quarry::net
