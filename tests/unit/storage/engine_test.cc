// Opening, closing and durability of the storage engine.
#include "storage/engine.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>

#include "storage_test_util.h"

namespace quarry::storage {
namespace {

using testing::DocWithIntId;
using testing::InsertOne;
using testing::OpenEngine;
using testing::TempDir;

TEST(EngineTest, SecondOpenOfTheSamePathFailsClearly) {
  TempDir dir;
  auto first = OpenEngine(dir.path());
  ASSERT_NE(first, nullptr);
  EngineOptions options;
  options.dbpath = dir.path();
  auto second = Engine::Open(options);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), ErrorCode::kDBPathInUse);
  EXPECT_NE(second.status().reason().find("another quarryd is using " + dir.path()),
            std::string::npos)
      << second.status().ToString();
}

TEST(EngineTest, PathCanBeReopenedAfterClose) {
  TempDir dir;
  auto first = OpenEngine(dir.path());
  ASSERT_TRUE(first->Close().ok());
  EXPECT_TRUE(first->Close().ok());  // idempotent
  auto second = OpenEngine(dir.path());
  EXPECT_NE(second, nullptr);
}

TEST(EngineTest, CommitAfterCloseIsRefused) {
  TempDir dir;
  auto engine = OpenEngine(dir.path());
  ASSERT_TRUE(engine->Close().ok());
  WriteUnit unit;
  bson::Document doc = DocWithIntId(1);
  unit.Insert(testing::Target(1), doc);
  auto result = engine->pipeline().Commit(std::move(unit), CommitOptions{});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), ErrorCode::kShutdownInProgress);
}

TEST(EngineTest, CloseWaitsForACommitStillTellingItsObservers) {
  TempDir dir;
  auto engine = OpenEngine(dir.path());
  struct SlowObserver : CommitObserver {
    void OnCommit(const CommittedBatch&) override {
      entered = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      finished = true;
    }
    std::atomic<bool> entered{false};
    std::atomic<bool> finished{false};
  } observer;
  engine->pipeline().AddObserver(&observer);
  std::thread writer([&] { InsertOne(*engine, 1, DocWithIntId(1)); });
  while (!observer.entered) std::this_thread::yield();
  ASSERT_TRUE(engine->Close().ok());
  EXPECT_TRUE(observer.finished);
  writer.join();
}

TEST(EngineTest, UnknownFormatVersionIsRefused) {
  TempDir dir;
  {
    auto engine = OpenEngine(dir.path());
    WriteUnit unit;
    unit.PutMeta("format_version", std::string("\0\0\0\0\0\0\0\x09", 8));
    ASSERT_TRUE(engine->pipeline().Commit(std::move(unit), CommitOptions{}).ok());
  }
  EngineOptions options;
  options.dbpath = dir.path();
  auto reopened = Engine::Open(options);
  ASSERT_FALSE(reopened.ok());
  EXPECT_EQ(reopened.status().code(), ErrorCode::kIllegalOperation);
  EXPECT_NE(reopened.status().reason().find("format version 9"), std::string::npos);
}

TEST(EngineTest, MetaValuesAreReadable) {
  TempDir dir;
  auto engine = OpenEngine(dir.path());
  WriteUnit unit;
  unit.PutMeta("counter/a", "1");
  unit.PutMeta("counter/b", "2");
  unit.PutMeta("other", "3");
  ASSERT_TRUE(engine->pipeline().Commit(std::move(unit), CommitOptions{}).ok());
  auto a = engine->meta().Get("counter/a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.value(), std::optional<std::string>("1"));
  auto missing = engine->meta().Get("counter/z");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing.value().has_value());
  auto listed = engine->meta().List("counter/");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed.value().size(), 2u);
  EXPECT_EQ(listed.value()[1].first, "counter/b");
  auto version = engine->meta().Get("format_version");
  ASSERT_TRUE(version.ok());
  EXPECT_TRUE(version.value().has_value());
}

TEST(EngineTest, JournalDurabilitySyncsBeforeCommitReturns) {
  TempDir dir;
  auto engine = OpenEngine(dir.path(), std::chrono::milliseconds(0));  // no background syncer
  ASSERT_EQ(engine->stats().journal_syncs, 0u);

  WriteUnit unit;
  bson::Document doc = DocWithIntId(1);
  unit.Insert(testing::Target(1), doc);
  auto result =
      engine->pipeline().Commit(std::move(unit), CommitOptions{.durability = Durability::kJournal});
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result.value().sync_status.ok());
  EXPECT_EQ(engine->stats().journal_syncs, 1u);

  InsertOne(*engine, 1, DocWithIntId(2));  // kNone: no sync of its own
  EXPECT_EQ(engine->stats().journal_syncs, 1u);
}

TEST(EngineTest, BackgroundSyncerSyncsAfterWrites) {
  TempDir dir;
  auto engine = OpenEngine(dir.path(), std::chrono::milliseconds(10));
  InsertOne(*engine, 1, DocWithIntId(1));
  for (int i = 0; i < 200 && engine->stats().background_syncs == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_GT(engine->stats().background_syncs, 0u);
}

TEST(EngineTest, AcknowledgedWriteSurvivesKill) {
  // No background syncer: the acknowledged write must be safe without any fsync.
  auto dir = testing::RunThenKill(
      [](Engine& engine) { InsertOne(engine, 7, DocWithIntId(42, "survivor")); });
  if (dir == nullptr) return;
  auto engine = OpenEngine(dir->path());
  ASSERT_NE(engine, nullptr);
  bson::Document key = DocWithIntId(42);
  auto found = engine->records().FindById(7, key.Get("_id"));
  ASSERT_TRUE(found.ok());
  ASSERT_TRUE(found.value().has_value());
  EXPECT_EQ(found.value()->Get("payload").String(), "survivor");
  EXPECT_EQ(engine->records().Count(7), 1);
  EXPECT_GT(engine->oplog().LatestTimestamp(), 0u);
}

}  // namespace
}  // namespace quarry::storage
