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

TEST(SpinGovernorTest, EventsLongAfterTheWindowShrinkItToNothing) {
  SpinGovernor governor(Micros{100});
  governor.OnSlept(Micros{500});
  EXPECT_EQ(governor.window(), Micros{50});
  governor.OnSlept(Micros{500});
  governor.OnSlept(Micros{500});
  EXPECT_EQ(governor.window(), Micros{12});
  governor.OnSlept(Micros{500});
  EXPECT_EQ(governor.window(), Micros{0});  // 6 would be below the smallest window
  governor.OnSlept(Micros{500});
  EXPECT_EQ(governor.window(), Micros{0});
}

TEST(SpinGovernorTest, EventsSoonAfterSleepingGrowItBackToTheLimit) {
  SpinGovernor governor(Micros{100});
  for (int i = 0; i < 5; ++i) governor.OnSlept(Micros{1000});
  ASSERT_EQ(governor.window(), Micros{0});
  governor.OnSlept(Micros{150});  // waking counts: up to twice the limit is soon
  EXPECT_EQ(governor.window(), SpinGovernor::kSmallestWindow);
  governor.OnSlept(Micros{150});
  EXPECT_EQ(governor.window(), 2 * SpinGovernor::kSmallestWindow);
  for (int i = 0; i < 5; ++i) governor.OnSlept(Micros{30});
  EXPECT_EQ(governor.window(), Micros{100});  // never past the limit
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
  EXPECT_EQ(governor.window(), Micros{0});
}

}  // namespace
}  // namespace quarry::net
