// Records skip the WAL and are redone from the oplog after a crash: what a killed server wrote
// must be back after a restart, exactly.
#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/endian.h"
#include "base/log.h"
#include "storage/engine.h"
#include "storage/record_store.h"
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

std::optional<Timestamp> AppliedThrough(Engine& engine) {
  auto value = engine.meta().Get("records/applied_through");
  EXPECT_TRUE(value.ok());
  if (!value.ok() || !value.value().has_value() || value.value()->size() != 8) return std::nullopt;
  return LoadBigEndian64(value.value()->data());
}

// Opens the engine and returns it with the number of oplog entries its recovery redid, as its
// log line says (0 without the line).
std::pair<std::unique_ptr<Engine>, std::int64_t> OpenCountingReplay(const std::string& path) {
  const std::int64_t before = log::TotalLinesWritten();
  auto engine = OpenEngine(path);
  const std::int64_t written = log::TotalLinesWritten() - before;
  std::vector<std::string> lines = log::RecentLines("global");
  std::int64_t replayed = 0;
  for (std::size_t i = lines.size() - std::min<std::size_t>(lines.size(), written);
       i < lines.size(); ++i) {
    if (lines[i].find("Replayed the oplog") == std::string::npos) continue;
    const std::size_t at = lines[i].find("\"entries\":");
    if (at != std::string::npos) replayed = std::stoll(lines[i].substr(at + 10));
  }
  return {std::move(engine), replayed};
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

TEST(RecordRecoveryTest, CompressedRecordsOfAKilledServerAreBackWhole) {
  auto dir = RunThenKill([](Engine& engine) {
    InsertOne(engine, 7, testing::LargeDocument(1, 2 << 20));
    InsertOne(engine, 7, testing::LargeDocument(2, 2 << 20));
    WriteUnit unit;
    unit.Update(Target(7), testing::LargeDocument(2, 2 << 20),
                testing::LargeDocument(2, 2 << 20, /*seed=*/3), UpdateKind::kReplace);
    Commit(engine, std::move(unit));
  });
  if (dir == nullptr) return;  // the child's side of the death test
  auto [engine, replayed] = OpenCountingReplay(dir->path());
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(replayed, 3);
  EXPECT_EQ(Find(*engine, 7, 1)->bytes(), testing::LargeDocument(1, 2 << 20).bytes());
  EXPECT_EQ(Find(*engine, 7, 2)->bytes(), testing::LargeDocument(2, 2 << 20, 3).bytes());
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
  EXPECT_EQ(*version.value(), std::string("\0\0\0\0\0\0\0\x04", 8));
}

TEST(RecordRecoveryTest, AVersionThreeDatabaseOpensAndTakesCompressedRecordsToo) {
  TempDir dir;
  {
    auto engine = OpenEngine(dir.path());
    InsertOne(*engine, 7, DocWithIntId(1));
    WriteUnit unit;
    unit.PutMeta("format_version", std::string("\0\0\0\0\0\0\0\x03", 8));
    Commit(*engine, std::move(unit));
  }
  auto engine = OpenEngine(dir.path());
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(*engine->meta().Get("format_version").value(), std::string("\0\0\0\0\0\0\0\x04", 8));
  InsertOne(*engine, 7, testing::LargeDocument(2, 1 << 20));
  EXPECT_EQ(Find(*engine, 7, 1)->Get("payload").String(), "x");
  EXPECT_EQ(Find(*engine, 7, 2)->bytes(), testing::LargeDocument(2, 1 << 20).bytes());
}

TEST(RecordRecoveryTest, FlushesTheServerMadeItselfMoveTheReplayStartingPoint) {
  // 8 MB memtables (OpenEngine): ~12 MB of records makes RocksDB flush the docs family on its
  // own, and a commit after that flush records how far it reached. The killed process exits
  // with 3 instead if the point never moves, which fails the death test.
  auto dir = RunThenKill([](Engine& engine) {
    const std::string payload(4000, 'p');
    for (int id = 1; id <= 3000; ++id) InsertOne(engine, 7, DocWithIntId(id, payload));
    for (int id = 3001; id <= 3500; ++id) {
      InsertOne(engine, 7, DocWithIntId(id));
      if (AppliedThrough(engine).value_or(0) > 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::_Exit(3);
  });
  if (dir == nullptr) return;
  auto [engine, replayed] = OpenCountingReplay(dir->path());
  ASSERT_NE(engine, nullptr);
  std::int64_t scanned = 0;
  for (auto cursor = engine->records().Scan(7); cursor->Valid(); cursor->Next()) ++scanned;
  EXPECT_EQ(scanned, engine->records().Count(7));
  EXPECT_GT(scanned, 3000);
  EXPECT_LT(replayed, scanned);  // not from the start
  EXPECT_TRUE(Find(*engine, 7, 3000).has_value());
}

TEST(RecordRecoveryTest, ACleanCloseLeavesNothingToReplay) {
  TempDir dir;
  Timestamp latest = 0;
  {
    auto engine = OpenEngine(dir.path());
    for (int id = 1; id <= 10; ++id) InsertOne(*engine, 7, DocWithIntId(id));
    latest = engine->oplog().LatestTimestamp();
    ASSERT_TRUE(engine->Close().ok());
  }
  auto [engine, replayed] = OpenCountingReplay(dir.path());
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(replayed, 0);
  EXPECT_EQ(AppliedThrough(*engine), std::optional<Timestamp>(latest));
  EXPECT_EQ(engine->records().Count(7), 10);
}

// Version 2 kept the applied-through point in the docs family under the key 0x00. A database
// written by it opens, redoes the entries after that point, and moves the point to meta.
TEST(RecordRecoveryTest, AVersionTwoDatabaseReplaysFromItsDocsFamilyMark) {
  TempDir dir;
  std::vector<Timestamp> entries;
  {
    auto engine = OpenEngine(dir.path());
    for (int id = 1; id <= 5; ++id) InsertOne(*engine, 7, DocWithIntId(id));
    for (auto cursor = engine->oplog().Scan(0); cursor->Valid(); cursor->Next()) {
      entries.push_back(cursor->ts());
    }
    ASSERT_TRUE(engine->Close().ok());
  }
  ASSERT_EQ(entries.size(), 5u);
  {
    // Rewrite the directory as version 2 left it when killed after its third entry's records.
    std::vector<std::string> names;
    ASSERT_TRUE(rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), dir.path(), &names).ok());
    std::vector<rocksdb::ColumnFamilyDescriptor> families;
    for (const std::string& name : names)
      families.emplace_back(name, rocksdb::ColumnFamilyOptions());
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(rocksdb::DBOptions(), dir.path(), families, &handles, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    auto family = [&](const std::string& name) {
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (names[i] == name) return handles[i];
      }
      return static_cast<rocksdb::ColumnFamilyHandle*>(nullptr);
    };
    std::string mark;
    AppendBigEndian64(entries[2], &mark);
    std::string collection;
    AppendBigEndian64(7, &collection);
    rocksdb::WriteBatch batch;
    batch.Put(family("docs"), rocksdb::Slice("\0", 1), mark);
    batch.Delete(family("meta"), "records/applied_through");
    batch.Put(family("meta"), "format_version", std::string("\0\0\0\0\0\0\0\x02", 8));
    for (int id : {4, 5}) {
      batch.Delete(family("docs"), collection + EncodeIdKey(DocWithIntId(id).Get("_id")));
    }
    ASSERT_TRUE(db->Write(rocksdb::WriteOptions(), &batch).ok());
    for (rocksdb::ColumnFamilyHandle* handle : handles) {
      ASSERT_TRUE(db->DestroyColumnFamilyHandle(handle).ok());
    }
    ASSERT_TRUE(db->Close().ok());
  }
  auto [engine, replayed] = OpenCountingReplay(dir.path());
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(replayed, 2);  // the entries after the mark, not all five
  EXPECT_EQ(engine->records().Count(7), 5);
  EXPECT_TRUE(Find(*engine, 7, 4).has_value());
  EXPECT_TRUE(Find(*engine, 7, 5).has_value());
  EXPECT_EQ(AppliedThrough(*engine), std::optional<Timestamp>(entries[4]));
  auto version = engine->meta().Get("format_version");
  ASSERT_TRUE(version.ok() && version.value().has_value());
  EXPECT_EQ(*version.value(), std::string("\0\0\0\0\0\0\0\x04", 8));
  std::int64_t scanned = 0;
  for (auto cursor = engine->records().Scan(7); cursor->Valid(); cursor->Next()) ++scanned;
  EXPECT_EQ(scanned, 5);
}

}  // namespace
}  // namespace quarry::storage
