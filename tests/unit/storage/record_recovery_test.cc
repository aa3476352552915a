// Records skip the WAL and are redone from the oplog after a crash: what a killed server wrote
// must be back after a restart, exactly.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "storage/engine.h"
#include "storage_test_util.h"

namespace quarry::storage {
namespace {

using testing::DocWithIntId;
using testing::InsertOne;
using testing::OpenEngine;
using testing::RunThenKill;
using testing::Target;
using testing::TempDir;

std::optional<bson::Document> Find(Engine& engine, CollectionId collection, std::int32_t id) {
  bson::Document key = DocWithIntId(id);
  auto found = engine.records().FindById(collection, key.Get("_id"));
  EXPECT_TRUE(found.ok());
  return found.ok() ? std::move(found).value() : std::nullopt;
}

void Commit(Engine& engine, WriteUnit unit) {
  auto result = engine.pipeline().Commit(std::move(unit), CommitOptions{});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_TRUE(result.value().errors.empty()) << result.value().errors[0].status.ToString();
}

TEST(RecordRecoveryTest, InsertsReplacesAndDeletesOfAKilledServerAreAllBack) {
  auto dir = RunThenKill([](Engine& engine) {
    for (int id = 1; id <= 100; ++id) InsertOne(engine, 7, DocWithIntId(id, "v1"));
    bson::Document v1 = DocWithIntId(5, "v1");
    bson::Document v2 = DocWithIntId(5, "v2");
    WriteUnit unit;
    unit.Update(Target(7), v1, v2, UpdateKind::kModify);
    bson::Document gone = DocWithIntId(9, "v1");
    unit.Delete(Target(7), gone);
    Commit(engine, std::move(unit));
  });
  if (dir == nullptr) return;  // the child's side of the death test
  auto engine = OpenEngine(dir->path());
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->records().Count(7), 99);
  ASSERT_TRUE(Find(*engine, 7, 5).has_value());
  EXPECT_EQ(Find(*engine, 7, 5)->Get("payload").String(), "v2");
  EXPECT_FALSE(Find(*engine, 7, 9).has_value());
  EXPECT_EQ(Find(*engine, 7, 100)->Get("payload").String(), "v1");
  std::int64_t scanned = 0;
  for (auto cursor = engine->records().Scan(7); cursor->Valid(); cursor->Next()) ++scanned;
  EXPECT_EQ(scanned, 99);
}

TEST(RecordRecoveryTest, RecordsFlushedBeforeTheKillAreNotDisturbedByTheReplay) {
  auto dir = RunThenKill([](Engine& engine) {
    for (int id = 1; id <= 10; ++id) InsertOne(engine, 7, DocWithIntId(id, "old"));
    ASSERT_TRUE(engine.Flush().ok());
    bson::Document before = DocWithIntId(3, "old");
    bson::Document after = DocWithIntId(3, "new");
    WriteUnit unit;
    unit.Update(Target(7), before, after, UpdateKind::kModify);
    Commit(engine, std::move(unit));
    InsertOne(engine, 7, DocWithIntId(11, "new"));
  });
  if (dir == nullptr) return;
  auto engine = OpenEngine(dir->path());
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->records().Count(7), 11);
  EXPECT_EQ(Find(*engine, 7, 3)->Get("payload").String(), "new");
  EXPECT_EQ(Find(*engine, 7, 2)->Get("payload").String(), "old");
  EXPECT_TRUE(Find(*engine, 7, 11).has_value());
}

TEST(RecordRecoveryTest, ADroppedCollectionStaysEmptyAfterAKill) {
  auto dir = RunThenKill([](Engine& engine) {
    for (int id = 1; id <= 10; ++id) InsertOne(engine, 7, DocWithIntId(id));
    ASSERT_TRUE(engine.Flush().ok());  // the records are on disk; the range delete will not be
    InsertOne(engine, 7, DocWithIntId(11));
    WriteUnit unit;
    unit.DropCollectionRecords(7);
    Commit(engine, std::move(unit));
    InsertOne(engine, 8, DocWithIntId(1));
  });
  if (dir == nullptr) return;
  auto engine = OpenEngine(dir->path());
  ASSERT_NE(engine, nullptr);
  EXPECT_FALSE(engine->records().Scan(7)->Valid());
  EXPECT_EQ(engine->records().Count(7), 0);
  EXPECT_TRUE(Find(*engine, 8, 1).has_value());
  // And the next restart, which no longer needs to redo the drop, agrees.
  engine.reset();
  engine = OpenEngine(dir->path());
  EXPECT_FALSE(engine->records().Scan(7)->Valid());
}

TEST(RecordRecoveryTest, TrimmingTheOplogKeepsTheRecordsItWasTheOnlyCopyOf) {
  auto dir = RunThenKill([](Engine& engine) {
    for (int id = 1; id <= 10; ++id) InsertOne(engine, 7, DocWithIntId(id));
    ASSERT_TRUE(engine.oplog().TrimBefore(engine.oplog().LatestTimestamp() + 1).ok());
  });
  if (dir == nullptr) return;
  auto engine = OpenEngine(dir->path());
  ASSERT_NE(engine, nullptr);
  EXPECT_FALSE(engine->oplog().Scan(0)->Valid());
  EXPECT_EQ(engine->records().Count(7), 10);
  EXPECT_TRUE(Find(*engine, 7, 10).has_value());
}

TEST(RecordRecoveryTest, AVersionOneDatabaseOpensAndKeepsItsRecords) {
  TempDir dir;
  {
    auto engine = OpenEngine(dir.path());
    InsertOne(*engine, 7, DocWithIntId(1));
    WriteUnit unit;
    unit.PutMeta("format_version", std::string("\0\0\0\0\0\0\0\x01", 8));
    Commit(*engine, std::move(unit));
  }
  auto engine = OpenEngine(dir.path());
  ASSERT_NE(engine, nullptr);
  EXPECT_TRUE(Find(*engine, 7, 1).has_value());
  auto version = engine->meta().Get("format_version");
  ASSERT_TRUE(version.ok());
  ASSERT_TRUE(version.value().has_value());
  EXPECT_EQ(*version.value(), std::string("\0\0\0\0\0\0\0\x02", 8));
}

}  // namespace
}  // namespace quarry::storage
