// FsyncLock: passes while unlocked, none while locked; the first lock waits for the passes out
// and flushes; locks nest; a wait ends with its interrupt; MayWrite knows the writing commands.
#include "commands/fsync_lock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <deque>
#include <thread>

#include "bson/json.h"
#include "commands/command.h"

namespace quarry::commands {
namespace {

Status Flushed() { return Status::OK(); }

TEST(FsyncLockTest, LocksNestAndTheLastUnlockOpensTheGate) {
  FsyncLock lock;
  Interrupt interrupt;
  EXPECT_TRUE(lock.TryEnter());
  ASSERT_EQ(lock.Lock(interrupt, Flushed).value(), 1);
  EXPECT_EQ(lock.Lock(interrupt, Flushed).value(), 2);
  EXPECT_FALSE(lock.TryEnter());
  EXPECT_EQ(lock.Unlock().value(), 1);
  EXPECT_FALSE(lock.TryEnter());
  EXPECT_EQ(lock.Unlock().value(), 0);
  EXPECT_TRUE(lock.TryEnter());
  StatusWith<std::int64_t> again = lock.Unlock();
  EXPECT_EQ(again.status().code(), ErrorCode::kIllegalOperation);
  EXPECT_EQ(again.status().reason(), "fsyncUnlock called when not locked");
}

TEST(FsyncLockTest, TheFirstLockWaitsForThePassesOutThenFlushes) {
  FsyncLock lock;
  Interrupt interrupt;
  FsyncLock::Pass pass = lock.TryEnter();
  ASSERT_TRUE(pass);
  std::atomic<bool> flushed{false};
  std::thread locker([&] {
    StatusWith<std::int64_t> count = lock.Lock(interrupt, [&] {
      flushed = true;
      return Status::OK();
    });
    EXPECT_TRUE(count.ok());
  });
  // The lock is being taken: no new pass, and no flush while a pass is out.
  while (lock.TryEnter()) std::this_thread::yield();
  EXPECT_FALSE(flushed.load());
  pass.Reset();
  locker.join();
  EXPECT_TRUE(flushed.load());
  EXPECT_EQ(lock.lock_count(), 1);
}

TEST(FsyncLockTest, AWaitEndsWithItsInterrupt) {
  FsyncLock lock;
  Interrupt writer;
  ASSERT_TRUE(lock.Lock(writer, Flushed).ok());
  writer.Kill(ErrorCode::kInterrupted);
  EXPECT_EQ(lock.Enter(writer).status().code(), ErrorCode::kInterrupted);
  Interrupt timed;
  timed.SetDeadline(std::chrono::steady_clock::now());
  EXPECT_EQ(lock.Enter(timed).status().code(), ErrorCode::kMaxTimeMSExpired);
  ASSERT_TRUE(lock.Unlock().ok());
  Interrupt free;
  EXPECT_TRUE(lock.Enter(free).ok());
}

TEST(FsyncLockTest, AFailedFlushTakesNoLock) {
  FsyncLock lock;
  Interrupt interrupt;
  StatusWith<std::int64_t> count =
      lock.Lock(interrupt, [] { return Status(ErrorCode::kInternalError, "disk"); });
  EXPECT_EQ(count.status().code(), ErrorCode::kInternalError);
  EXPECT_EQ(lock.lock_count(), 0);
  EXPECT_TRUE(lock.TryEnter());
}

TEST(FsyncLockTest, MayWriteKnowsWritesCatalogChangesAndWritingPipelines) {
  const Command insert{.name = "insert", .flags = kWritesData};
  const Command create{.name = "create", .flags = kChangesStoredData};
  const Command aggregate{.name = "aggregate"};
  const Command find{.name = "find"};
  auto request = [](std::string_view json) {
    static std::deque<bson::Document> kept;  // the requests view them
    kept.push_back(bson::FromJson(json).value());
    return Request{.name = "x", .db = "db", .body = kept.back().view(), .sequences = {}};
  };
  EXPECT_TRUE(MayWrite(insert, request(R"({"insert": "c"})")));
  EXPECT_TRUE(MayWrite(create, request(R"({"create": "c"})")));
  EXPECT_FALSE(MayWrite(find, request(R"({"find": "c"})")));
  EXPECT_TRUE(MayWrite(
      aggregate, request(R"({"aggregate": "c", "pipeline": [{"$match": {}}, {"$out": "o"}]})")));
  EXPECT_TRUE(MayWrite(aggregate, request(R"({"aggregate": "c", "pipeline": [{"$merge": "o"}]})")));
  EXPECT_FALSE(MayWrite(aggregate, request(R"({"aggregate": "c", "pipeline": [{"$match": {}}]})")));
}

}  // namespace
}  // namespace quarry::commands
