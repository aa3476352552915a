// CursorManager: ids, pinning, namespaces, killCursors, idle timeout, concurrent getMores.
#include "cursors/cursor_manager.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "cursors/batch_limits.h"

namespace quarry::cursors {
namespace {

// A source of `remaining` empty documents that counts its own destruction.
class FakeSource : public query::CursorSource {
 public:
  FakeSource(int remaining, std::atomic<int>* destroyed = nullptr)
      : remaining_(remaining), destroyed_(destroyed) {}
  ~FakeSource() override {
    if (destroyed_ != nullptr) ++*destroyed_;
  }
  StatusWith<query::Batch> NextBatch(std::size_t max_docs, std::size_t) override {
    query::Batch batch;
    while (remaining_ > 0 && batch.documents.size() < max_docs) {
      batch.documents.emplace_back();
      batch.bytes += batch.documents.back().size();
      --remaining_;
    }
    return batch;
  }
  bool exhausted() const override { return remaining_ == 0; }

 private:
  int remaining_;
  std::atomic<int>* destroyed_;
};

std::unique_ptr<query::CursorSource> Source(int remaining, std::atomic<int>* destroyed = nullptr) {
  return std::make_unique<FakeSource>(remaining, destroyed);
}

TEST(CursorManagerTest, OnlyAnOpenAwaitDataCursorAwaitsData) {
  CursorManager manager;
  CursorId plain = manager.Register("db.c", Source(1));
  CursorOptions awaiting;
  awaiting.tailable = true;
  awaiting.await_data = true;
  CursorId waiting = manager.Register("db.c", Source(1), awaiting);
  EXPECT_FALSE(manager.AwaitsData(plain));
  EXPECT_TRUE(manager.AwaitsData(waiting));
  EXPECT_FALSE(manager.AwaitsData(waiting + plain));
  manager.KillAll();
  EXPECT_FALSE(manager.AwaitsData(waiting));
}

TEST(CursorManagerTest, RegisteredIdsArePositiveAndDistinct) {
  CursorManager manager;
  std::set<CursorId> ids;
  for (int i = 0; i < 10000; ++i) {
    CursorId id = manager.Register("db.c", Source(1));
    EXPECT_GT(id, 0);
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 10000u);
  EXPECT_EQ(manager.size(), 10000u);
}

TEST(CursorManagerTest, IdsAreNotReusedAfterCursorsDie) {
  CursorManager manager;
  std::set<CursorId> ids;
  for (int i = 0; i < 1000; ++i) {
    CursorId id = manager.Register("db.c", Source(1));
    EXPECT_TRUE(ids.insert(id).second);
    manager.Kill("db.c", {id});
  }
  EXPECT_EQ(manager.size(), 0u);
}

TEST(CursorManagerTest, IdsDifferBetweenManagers) {
  CursorManager a;
  CursorManager b;
  EXPECT_NE(a.Register("db.c", Source(1)), b.Register("db.c", Source(1)));
}

TEST(CursorManagerTest, PinGivesTheSourceBack) {
  CursorManager manager;
  CursorId id = manager.Register("db.c", Source(5));
  StatusWith<PinnedCursor> pinned = manager.Pin(id, "db.c");
  ASSERT_TRUE(pinned.ok()) << pinned.status().ToString();
  EXPECT_EQ(pinned.value().id(), id);
  EXPECT_EQ(pinned.value().ns(), "db.c");
  StatusWith<query::Batch> batch = pinned.value().source().NextBatch(2, 100);
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(batch.value().documents.size(), 2u);
}

TEST(CursorManagerTest, UnknownIdIsCursorNotFound) {
  CursorManager manager;
  Status status = manager.Pin(12345, "db.c").status();
  EXPECT_EQ(status.code(), ErrorCode::kCursorNotFound);
  EXPECT_EQ(status.reason(), "cursor id 12345 not found");
}

TEST(CursorManagerTest, OnlyTheUserThatOpenedACursorMayUseOrKillIt) {
  CursorManager manager;
  CursorOptions options;
  options.owner = "alice@admin";
  CursorId id = manager.Register("db.c", Source(5), options);
  Status status = manager.Pin(id, "db.c", "bob@admin").status();
  EXPECT_EQ(status.code(), ErrorCode::kUnauthorized);
  EXPECT_EQ(status.reason(),
            "cursor id " + std::to_string(id) + " was not created by the authenticated user");
  EXPECT_EQ(manager.CheckOwner("db.c", {id}, "bob@admin").code(), ErrorCode::kUnauthorized);
  EXPECT_TRUE(manager.CheckOwner("db.c", {id, 777}, "alice@admin").ok());
  EXPECT_TRUE(manager.Pin(id, "db.c", "alice@admin").ok());
}

TEST(CursorManagerTest, OtherNamespaceIsUnauthorized) {
  CursorManager manager;
  CursorId id = manager.Register("db.c", Source(5));
  Status status = manager.Pin(id, "db.other").status();
  EXPECT_EQ(status.code(), ErrorCode::kUnauthorized);
  EXPECT_TRUE(manager.Pin(id, "db.c").ok());
}

TEST(CursorManagerTest, CursorInUseCannotBePinnedTwice) {
  CursorManager manager;
  CursorId id = manager.Register("db.c", Source(5));
  StatusWith<PinnedCursor> first = manager.Pin(id, "db.c");
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(manager.Pin(id, "db.c").status().code(), ErrorCode::kCursorInUse);
  { PinnedCursor release = std::move(first).value(); }
  EXPECT_TRUE(manager.Pin(id, "db.c").ok());
}

TEST(CursorManagerTest, ExhaustedCursorIsForgottenWhenReleased) {
  CursorManager manager;
  std::atomic<int> destroyed{0};
  CursorId id = manager.Register("db.c", Source(2, &destroyed));
  {
    StatusWith<PinnedCursor> pinned = manager.Pin(id, "db.c");
    ASSERT_TRUE(pinned.ok());
    ASSERT_TRUE(pinned.value().source().NextBatch(10, 100).ok());
  }
  EXPECT_EQ(destroyed.load(), 1);
  EXPECT_EQ(manager.Pin(id, "db.c").status().code(), ErrorCode::kCursorNotFound);
}

TEST(CursorManagerTest, CloseForgetsTheCursor) {
  CursorManager manager;
  CursorId id = manager.Register("db.c", Source(5));
  StatusWith<PinnedCursor> pinned = manager.Pin(id, "db.c");
  ASSERT_TRUE(pinned.ok());
  pinned.value().Close();
  EXPECT_EQ(manager.size(), 0u);
  EXPECT_EQ(manager.Pin(id, "db.c").status().code(), ErrorCode::kCursorNotFound);
}

TEST(CursorManagerTest, TakeRemovesTheCursor) {
  CursorManager manager;
  CursorId id = manager.Register("db.c", Source(5));
  StatusWith<std::unique_ptr<query::CursorSource>> taken = manager.Take(id, "db.c");
  ASSERT_TRUE(taken.ok());
  EXPECT_NE(taken.value(), nullptr);
  EXPECT_EQ(manager.size(), 0u);
  EXPECT_EQ(manager.Take(id, "db.c").status().code(), ErrorCode::kCursorNotFound);
}

TEST(CursorManagerTest, KillReportsKilledAndNotFound) {
  CursorManager manager;
  CursorId a = manager.Register("db.c", Source(5));
  CursorId b = manager.Register("db.c", Source(5));
  CursorId other = manager.Register("db.d", Source(5));
  KillCursorsResult result = manager.Kill("db.c", {a, 999, other, b});
  EXPECT_EQ(result.killed, (std::vector<CursorId>{a, b}));
  EXPECT_EQ(result.not_found, (std::vector<CursorId>{999, other}));
  EXPECT_TRUE(result.alive.empty());
  EXPECT_TRUE(result.unknown.empty());
  EXPECT_EQ(manager.size(), 1u);
  EXPECT_EQ(manager.Pin(a, "db.c").status().code(), ErrorCode::kCursorNotFound);
}

TEST(CursorManagerTest, KillingACursorInUseTakesEffectForOthersAtOnce) {
  CursorManager manager;
  std::atomic<int> destroyed{0};
  CursorId id = manager.Register("db.c", Source(5, &destroyed));
  StatusWith<PinnedCursor> pinned = manager.Pin(id, "db.c");
  ASSERT_TRUE(pinned.ok());
  EXPECT_EQ(manager.Kill("db.c", {id}).killed, (std::vector<CursorId>{id}));
  EXPECT_EQ(manager.Pin(id, "db.c").status().code(), ErrorCode::kCursorNotFound);
  // The current user may finish its batch; the source dies when it lets go.
  EXPECT_TRUE(pinned.value().source().NextBatch(1, 100).ok());
  EXPECT_EQ(destroyed.load(), 0);
  { PinnedCursor release = std::move(pinned).value(); }
  EXPECT_EQ(destroyed.load(), 1);
  EXPECT_EQ(manager.size(), 0u);
}

TEST(CursorManagerTest, IdleCursorsAreReapedAfterTimeout) {
  CursorManager manager(std::chrono::minutes(10));
  CursorId idle = manager.Register("db.c", Source(5));
  CursorOptions forever;
  forever.no_cursor_timeout = true;
  CursorId kept = manager.Register("db.c", Source(5), forever);
  EXPECT_EQ(manager.ReapIdle(Clock::now() + std::chrono::minutes(9)), 0u);
  EXPECT_EQ(manager.ReapIdle(Clock::now() + std::chrono::minutes(11)), 1u);
  EXPECT_EQ(manager.Pin(idle, "db.c").status().code(), ErrorCode::kCursorNotFound);
  EXPECT_TRUE(manager.Pin(kept, "db.c").ok());
}

TEST(CursorManagerTest, CursorInUseIsNotReaped) {
  CursorManager manager(std::chrono::minutes(10));
  CursorId id = manager.Register("db.c", Source(5));
  StatusWith<PinnedCursor> pinned = manager.Pin(id, "db.c");
  ASSERT_TRUE(pinned.ok());
  EXPECT_EQ(manager.ReapIdle(Clock::now() + std::chrono::hours(1)), 0u);
  EXPECT_EQ(manager.size(), 1u);
}

TEST(CursorManagerTest, UseRestartsTheIdleClock) {
  CursorManager manager(std::chrono::milliseconds(50));
  CursorId id = manager.Register("db.c", Source(100));
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    StatusWith<PinnedCursor> pinned = manager.Pin(id, "db.c");
    ASSERT_TRUE(pinned.ok()) << i;
  }
}

TEST(CursorManagerTest, TimedOutCursorIsNotFoundOnAccess) {
  CursorManager manager(std::chrono::milliseconds(1));
  CursorId id = manager.Register("db.c", Source(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(manager.Pin(id, "db.c").status().code(), ErrorCode::kCursorNotFound);
  EXPECT_EQ(manager.size(), 0u);
}

TEST(CursorManagerTest, KillNamespaceAndKillAll) {
  CursorManager manager;
  manager.Register("db.c", Source(5));
  manager.Register("db.c", Source(5));
  manager.Register("db.d", Source(5));
  EXPECT_EQ(manager.KillNamespace("db.c"), 2u);
  EXPECT_EQ(manager.size(), 1u);
  EXPECT_EQ(manager.KillAll(), 1u);
  EXPECT_EQ(manager.size(), 0u);
}

TEST(CursorManagerTest, ConcurrentGetMoresNeverShareACursor) {
  CursorManager manager;
  std::vector<CursorId> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(manager.Register("db.c", Source(1000000)));
  std::atomic<int> in_use[4] = {};
  std::atomic<bool> overlap{false};
  std::atomic<int> successes{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        const int which = (i + t) % 4;
        StatusWith<PinnedCursor> pinned = manager.Pin(ids[which], "db.c");
        if (!pinned.ok()) {
          EXPECT_EQ(pinned.status().code(), ErrorCode::kCursorInUse);
          continue;
        }
        if (in_use[which].fetch_add(1) != 0) overlap = true;
        EXPECT_TRUE(pinned.value().source().NextBatch(1, 100).ok());
        in_use[which].fetch_sub(1);
        ++successes;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_FALSE(overlap.load());
  EXPECT_GT(successes.load(), 0);
}

TEST(BatchLimitsTest, FirstBatchDefaultsTo101Documents) {
  BatchLimits limits = FirstBatchLimits(std::nullopt);
  EXPECT_EQ(limits.max_docs, 101u);
  EXPECT_EQ(limits.max_bytes, 16u * 1024 * 1024);
}

TEST(BatchLimitsTest, BatchSizeZeroGivesEmptyFirstBatch) {
  EXPECT_EQ(FirstBatchLimits(0).max_docs, 0u);
  EXPECT_EQ(FirstBatchLimits(5).max_docs, 5u);
}

TEST(BatchLimitsTest, GetMoreIsUnlimitedInDocumentsByDefault) {
  EXPECT_GT(GetMoreBatchLimits(std::nullopt).max_docs, 1000000000u);
  EXPECT_GT(GetMoreBatchLimits(0).max_docs, 1000000000u);
  EXPECT_EQ(GetMoreBatchLimits(7).max_docs, 7u);
  EXPECT_EQ(GetMoreBatchLimits(7).max_bytes, 16u * 1024 * 1024);
}

}  // namespace
}  // namespace quarry::cursors
