// The change notifier: a commit wakes every waiter behind it, deadlines fire on time, callbacks
// run once on the notifier's own thread, and waiting costs no thread per waiter.
#include "changestream/change_notifier.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <filesystem>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "changestream/change_stream_cursor.h"
#include "changestream_test_util.h"

namespace quarry::changestream {
namespace {

using Clock = ChangeNotifier::Clock;
using std::chrono::milliseconds;

std::size_t ThreadCount() {
  std::size_t count = 0;
  for ([[maybe_unused]] const auto& entry :
       std::filesystem::directory_iterator("/proc/self/task")) {
    ++count;
  }
  return count;
}

storage::CommittedBatch BatchUpTo(storage::Timestamp ts) {
  storage::CommittedBatch batch;
  batch.entries.push_back(storage::CommittedEntry{ts, 1, bson::DocumentView()});
  return batch;
}

// Waits for a future with a generous bound, so a broken notifier fails instead of hanging.
template <typename T>
T Get(std::future<T>& future) {
  EXPECT_EQ(future.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  return future.get();
}

TEST(ChangeNotifierTest, CommitAfterTheTimestampWakesTheWaiter) {
  ChangeNotifier notifier(10);
  std::promise<bool> woke;
  auto future = woke.get_future();
  notifier.Wait(10, Clock::now() + std::chrono::seconds(30),
                [&](bool by_change) { woke.set_value(by_change); });
  EXPECT_EQ(future.wait_for(milliseconds(20)), std::future_status::timeout);
  notifier.OnCommit(BatchUpTo(11));
  EXPECT_TRUE(Get(future));
  EXPECT_EQ(notifier.waiting(), 0u);
}

TEST(ChangeNotifierTest, CommitAtOrBeforeTheTimestampDoesNotWake) {
  ChangeNotifier notifier(5);
  std::atomic<int> calls{0};
  notifier.Wait(8, Clock::now() + std::chrono::seconds(30), [&](bool) { ++calls; });
  notifier.OnCommit(BatchUpTo(7));
  notifier.OnCommit(BatchUpTo(8));
  std::this_thread::sleep_for(milliseconds(30));
  EXPECT_EQ(calls.load(), 0);
  EXPECT_EQ(notifier.waiting(), 1u);
}

TEST(ChangeNotifierTest, WaitBehindAnAlreadyCommittedTimestampFiresAtOnce) {
  ChangeNotifier notifier(20);
  std::promise<bool> woke;
  auto future = woke.get_future();
  notifier.Wait(19, Clock::now() + std::chrono::seconds(30),
                [&](bool by_change) { woke.set_value(by_change); });
  EXPECT_TRUE(Get(future));
}

TEST(ChangeNotifierTest, DeadlineFiresWithFalseWithinAFewMilliseconds) {
  ChangeNotifier notifier;
  for (int delay_ms : {5, 50, 120}) {
    std::promise<std::pair<bool, Clock::time_point>> fired;
    auto future = fired.get_future();
    const Clock::time_point deadline = Clock::now() + milliseconds(delay_ms);
    notifier.Wait(0, deadline, [&](bool by_change) { fired.set_value({by_change, Clock::now()}); });
    auto [by_change, at] = Get(future);
    EXPECT_FALSE(by_change);
    EXPECT_GE(at, deadline);
    EXPECT_LT(at - deadline, milliseconds(20)) << delay_ms;
  }
}

TEST(ChangeNotifierTest, OneCommitWakesAThousandWaitersWithoutAddingThreads) {
  ChangeNotifier notifier(100);
  const std::size_t threads_before = ThreadCount();
  constexpr int kWaiters = 1000;
  std::atomic<int> woke{0};
  std::atomic<int> timed_out{0};
  std::promise<void> all_done;
  auto done = all_done.get_future();
  for (int i = 0; i < kWaiters; ++i) {
    notifier.Wait(100, Clock::now() + std::chrono::seconds(30), [&](bool by_change) {
      (by_change ? woke : timed_out).fetch_add(1);
      if (woke.load() + timed_out.load() == kWaiters) all_done.set_value();
    });
  }
  EXPECT_EQ(notifier.waiting(), static_cast<std::size_t>(kWaiters));
  EXPECT_EQ(ThreadCount(), threads_before);
  const auto start = Clock::now();
  notifier.OnCommit(BatchUpTo(101));
  Get(done);
  EXPECT_LT(Clock::now() - start, milliseconds(500));
  EXPECT_EQ(woke.load(), kWaiters);
  EXPECT_EQ(timed_out.load(), 0);
  EXPECT_EQ(ThreadCount(), threads_before);
}

TEST(ChangeNotifierTest, CallbacksRunOnTheNotifierThreadNotTheCommitter) {
  ChangeNotifier notifier(1);
  std::promise<std::thread::id> ran_on;
  auto future = ran_on.get_future();
  notifier.Wait(1, Clock::now() + std::chrono::seconds(30),
                [&](bool) { ran_on.set_value(std::this_thread::get_id()); });
  notifier.OnCommit(BatchUpTo(2));
  EXPECT_NE(Get(future), std::this_thread::get_id());
}

TEST(ChangeNotifierTest, PostedTaskRunsOnTheWorkerWithoutAnyCommit) {
  ChangeNotifier notifier(0);  // nothing committed, and nothing will be
  std::promise<std::thread::id> ran_on;
  auto future = ran_on.get_future();
  notifier.Post([&] { ran_on.set_value(std::this_thread::get_id()); });
  EXPECT_NE(Get(future), std::this_thread::get_id());
}

TEST(ChangeNotifierTest, PostedTasksRunInOrderAfterShutdownOnTheCaller) {
  ChangeNotifier notifier(1);
  std::vector<int> order;
  std::mutex mu;
  std::promise<void> done;
  auto future = done.get_future();
  for (int i = 0; i < 5; ++i) {
    notifier.Post([&, i] {
      std::lock_guard lock(mu);
      order.push_back(i);
      if (i == 4) done.set_value();
    });
  }
  Get(future);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  notifier.Shutdown();
  bool ran_here = false;
  const std::thread::id caller = std::this_thread::get_id();
  notifier.Post([&] { ran_here = std::this_thread::get_id() == caller; });
  EXPECT_TRUE(ran_here);
}

TEST(ChangeNotifierTest, TheWorkerRunsAtTheNiceValueItWasGiven) {
  ChangeNotifier notifier(1, /*worker_nice=*/7);
  std::promise<int> nice;
  auto future = nice.get_future();
  notifier.Post([&] {
    errno = 0;
    nice.set_value(getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid))));
  });
  EXPECT_EQ(Get(future), std::min(19, getpriority(PRIO_PROCESS, 0) + 7));  // 19 is the lowest
}

TEST(ChangeNotifierTest, CancelledWaiterNeverFires) {
  ChangeNotifier notifier(1);
  std::atomic<int> calls{0};
  auto id = notifier.Wait(1, Clock::now() + milliseconds(20), [&](bool) { ++calls; });
  EXPECT_TRUE(notifier.Cancel(id));
  EXPECT_FALSE(notifier.Cancel(id));
  notifier.OnCommit(BatchUpTo(5));
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_EQ(calls.load(), 0);
}

TEST(ChangeNotifierTest, EachCallbackFiresExactlyOnce) {
  ChangeNotifier notifier(1);
  std::atomic<int> calls{0};
  std::promise<void> fired;
  auto future = fired.get_future();
  auto id = notifier.Wait(1, Clock::now() + milliseconds(10), [&](bool) {
    if (calls.fetch_add(1) == 0) fired.set_value();
  });
  Get(future);
  notifier.OnCommit(BatchUpTo(9));  // after the deadline fired: nothing more
  std::this_thread::sleep_for(milliseconds(30));
  EXPECT_EQ(calls.load(), 1);
  EXPECT_FALSE(notifier.Cancel(id));
}

TEST(ChangeNotifierTest, CallbacksMayWaitAgain) {
  ChangeNotifier notifier(1);
  std::promise<bool> second;
  auto future = second.get_future();
  notifier.Wait(1, Clock::now() + std::chrono::seconds(30), [&](bool) {
    notifier.Wait(2, Clock::now() + std::chrono::seconds(30),
                  [&](bool by_change) { second.set_value(by_change); });
  });
  notifier.OnCommit(BatchUpTo(2));
  EXPECT_EQ(future.wait_for(milliseconds(30)), std::future_status::timeout);
  notifier.OnCommit(BatchUpTo(3));
  EXPECT_TRUE(Get(future));
}

TEST(ChangeNotifierTest, ShutdownFiresEveryRemainingWaiterWithFalse) {
  ChangeNotifier notifier(1);
  std::atomic<int> false_calls{0};
  for (int i = 0; i < 10; ++i) {
    notifier.Wait(1, Clock::now() + std::chrono::hours(1), [&](bool by_change) {
      if (!by_change) ++false_calls;
    });
  }
  notifier.Shutdown();
  EXPECT_EQ(false_calls.load(), 10);
  bool called = false;
  EXPECT_EQ(notifier.Wait(1, Clock::now() + std::chrono::hours(1),
                          [&](bool by_change) { called = !by_change; }),
            0u);
  EXPECT_TRUE(called);
  notifier.Shutdown();
}

TEST(ChangeNotifierTest, RealCommitsWakeWaitersThroughTheCommitObserver) {
  testing::TempDir dir;
  auto engine = testing::OpenEngine(dir.path());
  ASSERT_NE(engine, nullptr);
  {
    ChangeNotifier notifier(engine->oplog().LatestTimestamp());
    engine->pipeline().AddObserver(&notifier);
    std::promise<bool> woke;
    auto future = woke.get_future();
    notifier.Wait(engine->oplog().LatestTimestamp(), Clock::now() + std::chrono::seconds(30),
                  [&](bool by_change) { woke.set_value(by_change); });
    testing::Writer writer(engine.get());
    storage::Timestamp ts = writer.Insert("db.c", R"({"_id": 1})");
    EXPECT_TRUE(Get(future));
    EXPECT_EQ(notifier.latest(), ts);
    engine->pipeline().RemoveObserver(&notifier);
  }
  EXPECT_TRUE(engine->Close().ok());
}

// The getMore pattern the server uses: an empty batch parks on the notifier at WaitAfter(); the
// commit wakes it and the next batch has the event.
TEST(ChangeNotifierTest, ParkedChangeStreamWakesOnCommitAndGetsTheEvent) {
  testing::TempDir dir;
  auto engine = testing::OpenEngine(dir.path());
  ASSERT_NE(engine, nullptr);
  {
    ChangeNotifier notifier(engine->oplog().LatestTimestamp());
    engine->pipeline().AddObserver(&notifier);
    auto request =
        ParseChangeStreamPipeline(testing::Json(R"({"0": {"$changeStream": {}}})"), "db", "c", {});
    ASSERT_TRUE(request.ok());
    ChangeStreamDeps deps;
    deps.oplog = &engine->oplog();
    auto cursor = ChangeStreamCursor::Open(std::move(request).value(), std::move(deps));
    ASSERT_TRUE(cursor.ok());
    ChangeStreamCursor& stream = *cursor.value();

    auto batch = stream.NextBatch(101, 16 << 20);
    ASSERT_TRUE(batch.ok());
    EXPECT_TRUE(batch.value().documents.empty());
    ASSERT_FALSE(stream.HasNewEntries());

    std::promise<bool> woke;
    auto future = woke.get_future();
    notifier.Wait(stream.WaitAfter(), Clock::now() + std::chrono::seconds(1),
                  [&](bool by_change) { woke.set_value(by_change); });
    testing::Writer writer(engine.get());
    std::thread writer_thread([&] { writer.Insert("db.c", R"({"_id": 1})"); });
    const auto start = Clock::now();
    EXPECT_TRUE(Get(future));
    EXPECT_LT(Clock::now() - start, milliseconds(500));
    writer_thread.join();
    auto next = stream.NextBatch(101, 16 << 20);
    ASSERT_TRUE(next.ok());
    ASSERT_EQ(next.value().documents.size(), 1u);
    EXPECT_EQ(next.value().documents[0].Get("operationType").String(), "insert");
    engine->pipeline().RemoveObserver(&notifier);
  }
  EXPECT_TRUE(engine->Close().ok());
}

}  // namespace
}  // namespace quarry::changestream
