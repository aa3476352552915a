#include "base/spinning_mutex.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace quarry {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

TEST(SpinningMutexTest, ThreadsIncrementingUnderItLoseNoIncrement) {
  SpinningMutex mu(microseconds(50));
  constexpr int kThreads = 4;
  constexpr int kIncrements = 20000;
  std::int64_t counter = 0;  // unsynchronized but for the mutex
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kIncrements; ++i) {
        std::lock_guard lock(mu);
        ++counter;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(counter, std::int64_t{kThreads} * kIncrements);
}

TEST(SpinningMutexTest, TryLockFailsWhileHeldAndSucceedsOnceReleased) {
  SpinningMutex mu(microseconds(50));
  std::unique_lock held(mu);
  std::thread other([&] { EXPECT_FALSE(mu.try_lock()); });
  other.join();
  held.unlock();
  std::thread again([&] {
    EXPECT_TRUE(mu.try_lock());
    mu.unlock();
  });
  again.join();
}

TEST(SpinningMutexTest, AWaiterPastItsBudgetSleepsUntilTheHolderReleases) {
  SpinningMutex mu(microseconds(20));
  std::atomic<bool> acquired{false};
  std::unique_lock held(mu);
  std::thread waiter([&] {
    std::lock_guard lock(mu);
    acquired = true;
  });
  // Far past the budget: the waiter gave up spinning and still waits.
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_FALSE(acquired.load());
  held.unlock();
  waiter.join();
  EXPECT_TRUE(acquired.load());
}

}  // namespace
}  // namespace quarry
