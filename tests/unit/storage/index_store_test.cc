// Secondary index entries: written with their records, unique keys enforced under the commit
// lock, conditional build keys, drops, and range scans in both directions.
#include "storage/index_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "bson/builder.h"
#include "storage/key_encoding.h"
#include "storage_test_util.h"

namespace quarry::storage {
namespace {

using testing::InsertOne;
using testing::OpenEngine;
using testing::Target;
using testing::TempDir;

constexpr CollectionId kCollection = 7;
constexpr IndexId kByA = 3;
constexpr IndexId kUniqueB = 4;

constexpr auto Doc = testing::DocWithAB;
constexpr auto KeyOf = testing::Int32Key;

// The id key of a document with an int32 _id, as entries point to records.
std::string IdKeyOf(std::int32_t id) { return KeyOf(id); }

class IndexStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = OpenEngine(dir_.path());
    unique_ = std::make_shared<UniqueIndexInfo>();
    unique_->name = "b_1";
    bson::DocumentBuilder pattern;
    pattern.AppendInt32("b", 1);
    unique_->key_pattern = std::move(pattern).Finish();
  }

  // The entries of both indexes for `doc`.
  std::vector<IndexEntry> EntriesOf(const bson::Document& doc) {
    std::vector<IndexEntry> entries;
    IndexEntry by_a;
    by_a.index = kByA;
    by_a.key = EncodeIndexKey(doc.Get("a"));
    entries.push_back(std::move(by_a));
    bson::DocumentBuilder value;
    value.Append("b", doc.Get("b"));
    entries.push_back({.index = kUniqueB,
                       .key = EncodeIndexKey(doc.Get("b")),
                       .unique = unique_,
                       .key_value = std::move(value).Finish(),
                       .key_values = KeyValuesOf(doc)});
    return entries;
  }

  // What the unique index's entries keep after the id key: {"0": b}.
  static std::string KeyValuesOf(const bson::Document& doc) {
    bson::DocumentBuilder values;
    values.Append("0", doc.Get("b"));
    return std::move(values).FinishBytes();
  }

  CommitResult Commit(WriteUnit unit, CommitOptions options = {}) {
    auto result = engine_->pipeline().Commit(std::move(unit), options);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? std::move(result).value() : CommitResult{};
  }

  CommitResult Insert(const bson::Document& doc) {
    WriteUnit unit;
    unit.Insert(Target(kCollection), doc, EntriesOf(doc));
    return Commit(std::move(unit));
  }

  // (key, id key) of every entry of `index` within `range`, in scan order.
  std::vector<std::pair<std::string, std::string>> ScanAll(
      IndexId index, const KeyRange& range, ScanDirection direction = ScanDirection::kForward) {
    std::vector<std::pair<std::string, std::string>> out;
    auto cursor = engine_->indexes().Scan(index, range, direction);
    for (; cursor->Valid(); cursor->Next()) {
      out.emplace_back(std::string(cursor->key()), std::string(cursor->id_key()));
    }
    EXPECT_TRUE(cursor->status().ok());
    return out;
  }

  std::vector<std::string> IdsIn(IndexId index, const KeyRange& range = {},
                                 ScanDirection direction = ScanDirection::kForward) {
    std::vector<std::string> ids;
    for (auto& [key, id] : ScanAll(index, range, direction)) ids.push_back(id);
    return ids;
  }

  TempDir dir_;
  std::unique_ptr<Engine> engine_;
  std::shared_ptr<UniqueIndexInfo> unique_;
};

TEST_F(IndexStoreTest, InsertWritesEveryIndexEntryPointingAtTheRecord) {
  ASSERT_TRUE(Insert(Doc(1, 10, 100)).errors.empty());
  ASSERT_TRUE(Insert(Doc(2, 10, 200)).errors.empty());
  auto by_a = ScanAll(kByA, {});
  ASSERT_EQ(by_a.size(), 2u);
  // A non-unique entry's key is the key fields followed by the id key.
  EXPECT_EQ(by_a[0].first, KeyOf(10) + IdKeyOf(1));
  EXPECT_EQ(by_a[0].second, IdKeyOf(1));
  EXPECT_EQ(by_a[1].second, IdKeyOf(2));
  auto by_b = ScanAll(kUniqueB, {});
  ASSERT_EQ(by_b.size(), 2u);
  EXPECT_EQ(by_b[0].first, KeyOf(100));
  EXPECT_EQ(by_b[1].first, KeyOf(200));
}

TEST_F(IndexStoreTest, KeyValuesFollowTheIdKeyInTheEntrysValue) {
  const bson::Document doc = Doc(1, 10, 100);
  ASSERT_TRUE(Insert(doc).errors.empty());
  auto unique = engine_->indexes().Scan(kUniqueB, {}, ScanDirection::kForward);
  ASSERT_TRUE(unique->Valid());
  EXPECT_EQ(unique->id_key(), IdKeyOf(1));
  EXPECT_EQ(unique->key_values(), KeyValuesOf(doc));
  auto plain = engine_->indexes().Scan(kByA, {}, ScanDirection::kForward);
  ASSERT_TRUE(plain->Valid());
  EXPECT_EQ(plain->id_key(), IdKeyOf(1));
  EXPECT_TRUE(plain->key_values().empty());
}

TEST_F(IndexStoreTest, UniqueKeyOfAnotherRecordIsADuplicateWithMongodsMessage) {
  ASSERT_TRUE(Insert(Doc(1, 10, 100)).errors.empty());
  CommitResult result = Insert(Doc(2, 11, 100));
  ASSERT_EQ(result.errors.size(), 1u);
  const Status& status = result.errors[0].status;
  EXPECT_EQ(status.code(), ErrorCode::kDuplicateKey);
  EXPECT_EQ(status.reason(),
            "E11000 duplicate key error collection: db.c index: b_1 dup key: { b: 100 }");
  // Nothing of the failed insert is left: neither the record nor its non-unique entry.
  EXPECT_EQ(engine_->records().Count(kCollection), 1);
  EXPECT_EQ(IdsIn(kByA).size(), 1u);
}

TEST_F(IndexStoreTest, DuplicateWithinOneUnitIsCaught) {
  WriteUnit unit;
  for (auto doc : {Doc(1, 1, 5), Doc(2, 2, 5), Doc(3, 3, 6)}) {
    unit.Insert(Target(kCollection), doc, EntriesOf(doc));
  }
  CommitResult result = Commit(std::move(unit), {.ordered = false});
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors[0].index, 1u);
  EXPECT_EQ(IdsIn(kUniqueB), (std::vector<std::string>{IdKeyOf(1), IdKeyOf(3)}));
}

TEST_F(IndexStoreTest, UpdateMovesItsKeysAndFreesTheOldUniqueKey) {
  bson::Document before = Doc(1, 10, 100);
  ASSERT_TRUE(Insert(before).errors.empty());
  bson::Document after = Doc(1, 20, 300);
  WriteUnit unit;
  unit.Update(Target(kCollection), before, after, UpdateKind::kReplace,
              {.removed = EntriesOf(before), .added = EntriesOf(after)});
  ASSERT_TRUE(Commit(std::move(unit)).errors.empty());
  auto by_b = ScanAll(kUniqueB, {});
  ASSERT_EQ(by_b.size(), 1u);
  EXPECT_EQ(by_b[0].first, KeyOf(300));
  // The old unique key is free for another record now.
  EXPECT_TRUE(Insert(Doc(2, 10, 100)).errors.empty());
}

TEST_F(IndexStoreTest, SwappingUniqueKeysWithinOneUnitSucceeds) {
  bson::Document one = Doc(1, 0, 100);
  bson::Document two = Doc(2, 0, 200);
  ASSERT_TRUE(Insert(one).errors.empty());
  ASSERT_TRUE(Insert(two).errors.empty());
  // One goes to a free key, two takes one's old key, one takes two's old key.
  bson::Document parked = Doc(1, 0, 999);
  bson::Document two_after = Doc(2, 0, 100);
  bson::Document one_after = Doc(1, 0, 200);
  WriteUnit unit;
  unit.Update(Target(kCollection), one, parked, UpdateKind::kReplace,
              {.removed = {EntriesOf(one)[1]}, .added = {EntriesOf(parked)[1]}});
  unit.Update(Target(kCollection), two, two_after, UpdateKind::kReplace,
              {.removed = {EntriesOf(two)[1]}, .added = {EntriesOf(two_after)[1]}});
  unit.Update(Target(kCollection), parked, one_after, UpdateKind::kReplace,
              {.removed = {EntriesOf(parked)[1]}, .added = {EntriesOf(one_after)[1]}});
  CommitResult result = Commit(std::move(unit));
  ASSERT_TRUE(result.errors.empty()) << result.errors[0].status.ToString();
  EXPECT_EQ(IdsIn(kUniqueB), (std::vector<std::string>{IdKeyOf(2), IdKeyOf(1)}));
}

TEST_F(IndexStoreTest, DeleteRemovesItsEntries) {
  bson::Document doc = Doc(1, 10, 100);
  ASSERT_TRUE(Insert(doc).errors.empty());
  WriteUnit unit;
  unit.Delete(Target(kCollection), doc, EntriesOf(doc));
  ASSERT_TRUE(Commit(std::move(unit)).errors.empty());
  EXPECT_TRUE(IdsIn(kByA).empty());
  EXPECT_TRUE(IdsIn(kUniqueB).empty());
}

TEST_F(IndexStoreTest, RangesBoundTheScanInBothDirections) {
  for (int i = 1; i <= 6; ++i) ASSERT_TRUE(Insert(Doc(i, i * 10, i)).errors.empty());
  KeyRange range{
      .lower = KeyOf(20), .lower_inclusive = false, .upper = KeyOf(50), .upper_inclusive = true};
  EXPECT_EQ(IdsIn(kByA, range), (std::vector<std::string>{IdKeyOf(3), IdKeyOf(4), IdKeyOf(5)}));
  EXPECT_EQ(IdsIn(kByA, range, ScanDirection::kBackward),
            (std::vector<std::string>{IdKeyOf(5), IdKeyOf(4), IdKeyOf(3)}));
  range.upper_inclusive = false;
  EXPECT_EQ(IdsIn(kByA, range), (std::vector<std::string>{IdKeyOf(3), IdKeyOf(4)}));
  // An included bound covers every entry whose key starts with it: here, every id of a = 30.
  ASSERT_TRUE(Insert(Doc(7, 30, 7)).errors.empty());
  KeyRange equal{
      .lower = KeyOf(30), .lower_inclusive = true, .upper = KeyOf(30), .upper_inclusive = true};
  EXPECT_EQ(IdsIn(kByA, equal), (std::vector<std::string>{IdKeyOf(3), IdKeyOf(7)}));
  // Another index's entries never show.
  EXPECT_EQ(IdsIn(kUniqueB).size(), 7u);
}

TEST_F(IndexStoreTest, ScanResumesAfterAnEntryInEitherDirection) {
  for (int i = 1; i <= 5; ++i) ASSERT_TRUE(Insert(Doc(i, i, i)).errors.empty());
  std::string resume;
  {
    auto cursor = engine_->indexes().Scan(kByA, {});
    cursor->Next();
    resume = std::string(cursor->entry_key());  // the entry of id 2
  }
  std::vector<std::string> forward;
  for (auto c = engine_->indexes().Scan(kByA, {}, ScanDirection::kForward, resume); c->Valid();
       c->Next()) {
    forward.emplace_back(c->id_key());
  }
  EXPECT_EQ(forward, (std::vector<std::string>{IdKeyOf(3), IdKeyOf(4), IdKeyOf(5)}));
  std::vector<std::string> backward;
  for (auto c = engine_->indexes().Scan(kByA, {}, ScanDirection::kBackward, resume); c->Valid();
       c->Next()) {
    backward.emplace_back(c->id_key());
  }
  EXPECT_EQ(backward, (std::vector<std::string>{IdKeyOf(1)}));
}

TEST_F(IndexStoreTest, BuildKeysApplyOnlyToRecordsUnchangedSinceTheRead) {
  bson::Document unchanged = Doc(1, 10, 100);
  bson::Document stale = Doc(2, 20, 200);
  InsertOne(*engine_, kCollection, unchanged);
  InsertOne(*engine_, kCollection, stale);
  engine_->pipeline().TrackChanges(kCollection);
  const std::uint64_t read_point = engine_->pipeline().ReadPoint(kCollection);
  // Record 2 changes after the build read it; its writer is responsible for its keys.
  bson::Document changed = Doc(2, 21, 201);
  {
    WriteUnit unit;
    unit.Update(Target(kCollection), stale, changed, UpdateKind::kReplace,
                {.removed = {}, .added = EntriesOf(changed)});
    ASSERT_TRUE(Commit(std::move(unit)).errors.empty());
  }
  WriteUnit build;
  build.AddIndexKeys(Target(kCollection), unchanged, read_point, EntriesOf(unchanged));
  build.AddIndexKeys(Target(kCollection), stale, read_point, EntriesOf(stale));
  CommitResult result = Commit(std::move(build));
  EXPECT_TRUE(result.errors.empty());
  auto by_b = ScanAll(kUniqueB, {});
  ASSERT_EQ(by_b.size(), 2u);
  EXPECT_EQ(by_b[0].first, KeyOf(100));
  EXPECT_EQ(by_b[1].first, KeyOf(201));
  // Build keys log nothing: the oplog holds the two inserts and the update only.
  std::size_t entries = 0;
  for (auto cursor = engine_->oplog().Scan(0); cursor->Valid(); cursor->Next()) ++entries;
  EXPECT_EQ(entries, 3u);
}

TEST_F(IndexStoreTest, BuildKeysFollowTheChangesTheirReadSaw) {
  bson::Document deleted = Doc(1, 10, 100);
  bson::Document updated = Doc(2, 20, 200);
  InsertOne(*engine_, kCollection, deleted);
  InsertOne(*engine_, kCollection, updated);
  engine_->pipeline().TrackChanges(kCollection);
  // Record 2 changes before the build's read, which sees the change: its keys go in.
  bson::Document changed = Doc(2, 21, 201);
  {
    WriteUnit unit;
    unit.Update(Target(kCollection), updated, changed, UpdateKind::kReplace);
    ASSERT_TRUE(Commit(std::move(unit)).errors.empty());
  }
  const std::uint64_t read_point = engine_->pipeline().ReadPoint(kCollection);
  // Record 1 is deleted after the read: its keys stay out.
  {
    WriteUnit unit;
    unit.Delete(Target(kCollection), deleted);
    ASSERT_TRUE(Commit(std::move(unit)).errors.empty());
  }
  WriteUnit build;
  build.AddIndexKeys(Target(kCollection), deleted, read_point, EntriesOf(deleted));
  build.AddIndexKeys(Target(kCollection), changed, read_point, EntriesOf(changed));
  ASSERT_TRUE(Commit(std::move(build)).errors.empty());
  engine_->pipeline().UntrackChanges(kCollection);
  EXPECT_EQ(IdsIn(kByA), (std::vector<std::string>{IdKeyOf(2)}));
  auto by_b = ScanAll(kUniqueB, {});
  ASSERT_EQ(by_b.size(), 1u);
  EXPECT_EQ(by_b[0].first, KeyOf(201));
}

TEST_F(IndexStoreTest, BuildKeysThatCollideFailWithDuplicateKey) {
  bson::Document one = Doc(1, 0, 5);
  bson::Document two = Doc(2, 0, 5);
  InsertOne(*engine_, kCollection, one);
  InsertOne(*engine_, kCollection, two);
  engine_->pipeline().TrackChanges(kCollection);
  const std::uint64_t read_point = engine_->pipeline().ReadPoint(kCollection);
  WriteUnit build;
  build.AddIndexKeys(Target(kCollection), one, read_point, {EntriesOf(one)[1]});
  build.AddIndexKeys(Target(kCollection), two, read_point, {EntriesOf(two)[1]});
  CommitResult result = Commit(std::move(build));
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors[0].status.code(), ErrorCode::kDuplicateKey);
}

TEST_F(IndexStoreTest, DroppedIndexLosesItsKeysAndRefusesBuildKeys) {
  bson::Document doc = Doc(1, 10, 100);
  ASSERT_TRUE(Insert(doc).errors.empty());
  {
    WriteUnit unit;
    unit.DropIndexKeys(kByA);
    ASSERT_TRUE(Commit(std::move(unit)).errors.empty());
  }
  EXPECT_TRUE(IdsIn(kByA).empty());
  EXPECT_EQ(IdsIn(kUniqueB).size(), 1u);
  // A writer that prepared keys for the dropped index before the drop writes none of them.
  ASSERT_TRUE(Insert(Doc(2, 20, 200)).errors.empty());
  EXPECT_TRUE(IdsIn(kByA).empty());
  // A build of it that is still running conflicts.
  engine_->pipeline().TrackChanges(kCollection);
  WriteUnit build;
  build.AddIndexKeys(Target(kCollection), doc, engine_->pipeline().ReadPoint(kCollection),
                     EntriesOf(doc));
  CommitResult result = Commit(std::move(build));
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors[0].status.code(), ErrorCode::kWriteConflict);
}

TEST_F(IndexStoreTest, DroppingTheCollectionDropsItsIndexes) {
  ASSERT_TRUE(Insert(Doc(1, 10, 100)).errors.empty());
  WriteUnit unit;
  unit.DropCollectionRecords(kCollection, {kByA, kUniqueB});
  ASSERT_TRUE(Commit(std::move(unit)).errors.empty());
  EXPECT_TRUE(IdsIn(kByA).empty());
  EXPECT_TRUE(IdsIn(kUniqueB).empty());
}

TEST_F(IndexStoreTest, EntriesSurviveARestart) {
  ASSERT_TRUE(Insert(Doc(1, 10, 100)).errors.empty());
  ASSERT_TRUE(engine_->Close().ok());
  engine_ = OpenEngine(dir_.path());
  EXPECT_EQ(IdsIn(kByA), (std::vector<std::string>{IdKeyOf(1)}));
  EXPECT_EQ(Insert(Doc(2, 10, 100)).errors.size(), 1u);
}

TEST_F(IndexStoreTest, ConcurrentWritersNeverShareAUniqueKey) {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 200;
  std::atomic<int> inserted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        // Every thread tries the same 200 unique keys with its own ids.
        bson::Document doc = Doc(t * kPerThread + i, i, i);
        WriteUnit unit;
        unit.Insert(Target(kCollection), doc, EntriesOf(doc));
        auto result = engine_->pipeline().Commit(std::move(unit), CommitOptions{});
        if (result.ok() && result.value().errors.empty()) inserted.fetch_add(1);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(inserted.load(), kPerThread);
  EXPECT_EQ(IdsIn(kUniqueB).size(), static_cast<std::size_t>(kPerThread));
  EXPECT_EQ(IdsIn(kByA).size(), static_cast<std::size_t>(kPerThread));
  EXPECT_EQ(engine_->records().Count(kCollection), kPerThread);
}

TEST_F(IndexStoreTest, ApproximateSizeGrowsWithTheIndex) {
  const std::uint64_t empty = engine_->indexes().ApproximateSize(kByA);
  for (int i = 0; i < 2000; ++i) ASSERT_TRUE(Insert(Doc(i, i, i)).errors.empty());
  ASSERT_TRUE(engine_->Flush().ok());
  EXPECT_GT(engine_->indexes().ApproximateSize(kByA), empty);
}

}  // namespace
}  // namespace quarry::storage
