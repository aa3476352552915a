// Record reads: point lookups, scans, counters, and their survival across a reopen.
#include "storage/record_store.h"

#include <gtest/gtest.h>

#include <vector>

#include "storage_test_util.h"

namespace quarry::storage {
namespace {

using testing::DocWithIntId;
using testing::InsertOne;
using testing::OpenEngine;
using testing::Target;
using testing::TempDir;

std::vector<std::int32_t> ScanIds(const RecordStore& records, CollectionId collection,
                                  std::string_view start_after = {},
                                  ScanDirection direction = ScanDirection::kForward) {
  std::vector<std::int32_t> ids;
  auto cursor = records.Scan(collection, start_after, direction);
  for (; cursor->Valid(); cursor->Next()) ids.push_back(cursor->document().Get("_id").Int32());
  EXPECT_TRUE(cursor->status().ok());
  return ids;
}

TEST(RecordStoreTest, InsertedDocumentIsFoundById) {
  TempDir dir;
  auto engine = OpenEngine(dir.path());
  bson::Document doc = DocWithIntId(5, "hello");
  InsertOne(*engine, 1, doc);
  auto found = engine->records().FindById(1, doc.Get("_id"));
  ASSERT_TRUE(found.ok());
  ASSERT_TRUE(found.value().has_value());
  EXPECT_EQ(found.value()->bytes(), doc.bytes());
}

TEST(RecordStoreTest, LookupByNumericallyEqualIdOfAnotherTypeFindsTheDocument) {
  TempDir dir;
  auto engine = OpenEngine(dir.path());
  InsertOne(*engine, 1, DocWithIntId(5));
  bson::DocumentBuilder b;
  b.AppendDouble("_id", 5.0);
  bson::Document key = std::move(b).Finish();
  auto found = engine->records().FindById(1, key.Get("_id"));
  ASSERT_TRUE(found.ok());
  EXPECT_TRUE(found.value().has_value());
}

TEST(RecordStoreTest, MissingDocumentIsNotFound) {
  TempDir dir;
  auto engine = OpenEngine(dir.path());
  InsertOne(*engine, 1, DocWithIntId(5));
  bson::Document other = DocWithIntId(6);
  auto found = engine->records().FindById(1, other.Get("_id"));
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found.value().has_value());
  bson::Document same = DocWithIntId(5);
  auto other_collection = engine->records().FindById(2, same.Get("_id"));
  ASSERT_TRUE(other_collection.ok());
  EXPECT_FALSE(other_collection.value().has_value());
}

TEST(RecordStoreTest, ScanReturnsOneCollectionInIdOrder) {
  TempDir dir;
  auto engine = OpenEngine(dir.path());
  for (int id : {30, -2, 7, 1000, 0}) InsertOne(*engine, 2, DocWithIntId(id));
  InsertOne(*engine, 1, DocWithIntId(1));
  InsertOne(*engine, 3, DocWithIntId(1));
  EXPECT_EQ(ScanIds(engine->records(), 2), (std::vector<std::int32_t>{-2, 0, 7, 30, 1000}));
  EXPECT_TRUE(ScanIds(engine->records(), 4).empty());
}

TEST(RecordStoreTest, ScanResumesAfterTheLastIdKey) {
  TempDir dir;
  auto engine = OpenEngine(dir.path());
  for (int id = 1; id <= 10; ++id) InsertOne(*engine, 1, DocWithIntId(id));
  std::string last;
  {
    auto cursor = engine->records().Scan(1);
    for (int i = 0; i < 4; ++i) {
      last = std::string(cursor->id_key());
      cursor->Next();
    }
  }
  // A write between batches is seen by the resumed scan.
  InsertOne(*engine, 1, DocWithIntId(11));
  EXPECT_EQ(ScanIds(engine->records(), 1, last),
            (std::vector<std::int32_t>{5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(last, EncodeIdKey(DocWithIntId(4).Get("_id")));
}

TEST(RecordStoreTest, BackwardScanReturnsDescendingIdsAndResumes) {
  TempDir dir;
  auto engine = OpenEngine(dir.path());
  for (int id = 1; id <= 6; ++id) InsertOne(*engine, 2, DocWithIntId(id));
  InsertOne(*engine, 1, DocWithIntId(100));
  InsertOne(*engine, 3, DocWithIntId(-100));
  EXPECT_EQ(ScanIds(engine->records(), 2, {}, ScanDirection::kBackward),
            (std::vector<std::int32_t>{6, 5, 4, 3, 2, 1}));
  std::string after_four = EncodeIdKey(DocWithIntId(4).Get("_id"));
  EXPECT_EQ(ScanIds(engine->records(), 2, after_four, ScanDirection::kBackward),
            (std::vector<std::int32_t>{3, 2, 1}));
  // Resuming after a key that was deleted meanwhile goes on from the next one.
  std::string after_gone = EncodeIdKey(DocWithIntId(10).Get("_id"));
  EXPECT_EQ(ScanIds(engine->records(), 2, after_gone, ScanDirection::kBackward).size(), 6u);
  EXPECT_TRUE(ScanIds(engine->records(), 4, {}, ScanDirection::kBackward).empty());
}

TEST(RecordStoreTest, RecordsAndCountersSurviveReopen) {
  TempDir dir;
  {
    auto engine = OpenEngine(dir.path());
    for (int id = 1; id <= 50; ++id) InsertOne(*engine, 9, DocWithIntId(id));
  }
  auto engine = OpenEngine(dir.path());
  EXPECT_EQ(ScanIds(engine->records(), 9).size(), 50u);
  CollectionStats stats = engine->records().Stats(9);
  EXPECT_EQ(stats.count, 50);
  EXPECT_EQ(stats.data_bytes, 50 * static_cast<std::int64_t>(DocWithIntId(1).size()));
}

TEST(RecordStoreTest, CountersFollowInsertReplaceAndDelete) {
  TempDir dir;
  auto engine = OpenEngine(dir.path());
  bson::Document a = DocWithIntId(1, "a");
  bson::Document b = DocWithIntId(2, "b");
  InsertOne(*engine, 1, a);
  InsertOne(*engine, 1, b);
  EXPECT_EQ(engine->records().Count(1), 2);

  bson::Document bigger = DocWithIntId(1, "a much longer payload");
  WriteUnit unit;
  unit.Update(Target(1), a, bigger, UpdateKind::kModify);
  unit.Delete(Target(1), b);
  auto result = engine->pipeline().Commit(std::move(unit), CommitOptions{});
  ASSERT_TRUE(result.ok());
  ASSERT_TRUE(result.value().errors.empty());
  CollectionStats stats = engine->records().Stats(1);
  EXPECT_EQ(stats.count, 1);
  EXPECT_EQ(stats.data_bytes, static_cast<std::int64_t>(bigger.size()));
}

// Updates that keep a document's size leave the stored counters alone; the counters must
// still be right after a reopen, whichever kind of update came last.
TEST(RecordStoreTest, CountersSurviveReopenAfterUpdatesThatKeepOrChangeTheSize) {
  TempDir dir;
  bson::Document first = DocWithIntId(1, "aaaa");
  bson::Document same_size = DocWithIntId(1, "bbbb");
  bson::Document bigger = DocWithIntId(1, "a much longer payload");
  bson::Document bigger_same_size = DocWithIntId(1, "A MUCH LONGER PAYLOAD");
  ASSERT_EQ(first.size(), same_size.size());
  ASSERT_EQ(bigger.size(), bigger_same_size.size());
  auto update = [](Engine& engine, const bson::Document& from, const bson::Document& to) {
    WriteUnit unit;
    unit.Update(Target(1), from, to, UpdateKind::kModify);
    auto result = engine.pipeline().Commit(std::move(unit), CommitOptions{});
    ASSERT_TRUE(result.ok());
    ASSERT_TRUE(result.value().errors.empty());
  };
  {
    auto engine = OpenEngine(dir.path());
    InsertOne(*engine, 1, first);
    InsertOne(*engine, 1, DocWithIntId(2));
    update(*engine, first, same_size);
    update(*engine, same_size, bigger);
  }
  {
    auto engine = OpenEngine(dir.path());
    EXPECT_EQ(engine->records().Stats(1).data_bytes,
              static_cast<std::int64_t>(bigger.size() + DocWithIntId(2).size()));
    update(*engine, bigger, bigger_same_size);
  }
  auto engine = OpenEngine(dir.path());
  CollectionStats stats = engine->records().Stats(1);
  EXPECT_EQ(stats.count, 2);
  EXPECT_EQ(stats.data_bytes,
            static_cast<std::int64_t>(bigger_same_size.size() + DocWithIntId(2).size()));
}

TEST(RecordStoreTest, DroppingRecordsEmptiesTheCollectionOnly) {
  TempDir dir;
  auto engine = OpenEngine(dir.path());
  for (int id = 1; id <= 20; ++id) InsertOne(*engine, 1, DocWithIntId(id));
  InsertOne(*engine, 2, DocWithIntId(1));
  WriteUnit unit;
  unit.DropCollectionRecords(1);
  ASSERT_TRUE(engine->pipeline().Commit(std::move(unit), CommitOptions{}).ok());
  EXPECT_TRUE(ScanIds(engine->records(), 1).empty());
  EXPECT_EQ(engine->records().Count(1), 0);
  EXPECT_EQ(ScanIds(engine->records(), 2).size(), 1u);
  engine.reset();
  engine = OpenEngine(dir.path());
  EXPECT_EQ(engine->records().Count(1), 0);
  EXPECT_EQ(engine->records().Count(2), 1);
}

TEST(RecordStoreTest, ApproximateStorageSizeGrowsWithData) {
  TempDir dir;
  auto engine = OpenEngine(dir.path());
  EXPECT_EQ(engine->records().ApproximateStorageSize(1), 0u);
  WriteUnit unit;
  for (int id = 0; id < 2000; ++id) {
    bson::Document doc = DocWithIntId(id, std::string(200, static_cast<char>('a' + id % 26)));
    unit.Insert(Target(1), doc);
  }
  ASSERT_TRUE(engine->pipeline().Commit(std::move(unit), CommitOptions{}).ok());
  EXPECT_GT(engine->records().ApproximateStorageSize(1), 0u);
}

}  // namespace
}  // namespace quarry::storage
