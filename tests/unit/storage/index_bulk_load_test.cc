// Index builds by bulk load: the keys read through one cursor are added at once, records that
// writers changed after the read get the keys they have now, and unique keys stay unique
// whichever side gave them.
#include "storage/index_bulk_load.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "bson/builder.h"
#include "storage/engine.h"
#include "storage/index_store.h"
#include "storage/key_encoding.h"
#include "storage_test_util.h"

namespace quarry::storage {
namespace {

using testing::InsertOne;
using testing::OpenEngine;
using testing::Target;
using testing::TempDir;

constexpr CollectionId kCollection = 9;
constexpr IndexId kByA = 5;
constexpr IndexId kUniqueB = 6;

constexpr auto Doc = testing::DocWithAB;
constexpr auto KeyOf = testing::Int32Key;

class IndexBulkLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = OpenEngine(dir_.path());
    unique_ = std::make_shared<UniqueIndexInfo>();
    unique_->name = "b_1";
    bson::DocumentBuilder pattern;
    pattern.AppendInt32("b", 1);
    unique_->key_pattern = std::move(pattern).Finish();
    engine_->pipeline().TrackChanges(kCollection);
  }
  void TearDown() override { engine_->pipeline().UntrackChanges(kCollection); }

  // Both indexes' entries for `doc`: {a: 1} and the unique {b: 1}.
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
                       .key_values = {}});
    return entries;
  }

  IndexBulkLoad NewLoad(std::size_t max_bytes = std::size_t{1} << 20) {
    return IndexBulkLoad(Target(kCollection), {kByA, kUniqueB},
                         engine_->pipeline().ReadPoint(kCollection), max_bytes);
  }

  void Read(IndexBulkLoad& load, const bson::Document& doc) {
    ASSERT_TRUE(load.Add(KeyOf(doc.Get("_id").Int32()), EntriesOf(doc)));
  }

  // Commits a writer's change of `before` into `after` (either may be empty: an insert or a
  // delete) with its index changes, as a writer maintains the indexes during a build.
  Status Write(const bson::Document& before, const bson::Document& after) {
    WriteUnit unit;
    IndexChanges changes;
    if (!before.view().empty()) changes.removed = EntriesOf(before);
    if (!after.view().empty()) changes.added = EntriesOf(after);
    if (before.view().empty()) {
      unit.Insert(Target(kCollection), after, std::move(changes.added));
    } else if (after.view().empty()) {
      unit.Delete(Target(kCollection), before, std::move(changes.removed));
    } else {
      unit.Update(Target(kCollection), before, after, UpdateKind::kReplace, std::move(changes));
    }
    current_[before.view().empty() ? after.Get("_id").Int32() : before.Get("_id").Int32()] = after;
    auto result = engine_->pipeline().Commit(std::move(unit), CommitOptions{});
    if (!result.ok()) return result.status();
    return result.value().errors.empty() ? Status::OK() : result.value().errors[0].status;
  }

  // A load of two stored records, each read by a part of its own.
  IndexBulkLoad LoadInTwoParts(const bson::Document& one, const bson::Document& two) {
    InsertOne(*engine_, kCollection, one);
    InsertOne(*engine_, kCollection, two);
    IndexBulkLoad load = NewLoad();
    IndexBulkLoad part = NewLoad();
    Read(load, one);
    Read(part, two);
    load.Absorb(std::move(part));
    return load;
  }

  Status Ingest(IndexBulkLoad load) {
    auto current = [this](std::string_view id_key) -> StatusWith<std::vector<IndexEntry>> {
      ++current_calls_;
      for (const auto& [id, doc] : current_) {
        if (KeyOf(id) == id_key)
          return doc.view().empty() ? std::vector<IndexEntry>() : EntriesOf(doc);
      }
      return Status(ErrorCode::kInternalError, "asked for a record no writer changed");
    };
    return engine_->pipeline().IngestIndexKeys(std::move(load), current);
  }

  // (key, id key) of every entry of `index`, in key order.
  std::vector<std::pair<std::string, std::string>> Entries(IndexId index) {
    std::vector<std::pair<std::string, std::string>> out;
    for (auto cursor = engine_->indexes().Scan(index, {}, ScanDirection::kForward); cursor->Valid();
         cursor->Next()) {
      out.emplace_back(std::string(cursor->key()), std::string(cursor->id_key()));
    }
    return out;
  }

  TempDir dir_;
  std::unique_ptr<Engine> engine_;
  std::shared_ptr<UniqueIndexInfo> unique_;
  std::map<std::int32_t, bson::Document> current_;  // what writers left, by _id
  int current_calls_ = 0;
};

using Pairs = std::vector<std::pair<std::string, std::string>>;

// An entry of {a: 1} as its cursor shows it: the key ends in the record's id key.
std::pair<std::string, std::string> ByA(std::int32_t a, std::int32_t id) {
  return {KeyOf(a) + KeyOf(id), KeyOf(id)};
}

TEST_F(IndexBulkLoadTest, AddsEveryKeyReadInKeyOrder) {
  const bson::Document one = Doc(1, 30, 300);
  const bson::Document two = Doc(2, 10, 100);
  const bson::Document three = Doc(3, 20, 200);
  for (const auto& doc : {one, two, three}) InsertOne(*engine_, kCollection, doc);
  IndexBulkLoad load = NewLoad();
  for (const auto& doc : {one, two, three}) Read(load, doc);
  ASSERT_TRUE(Ingest(std::move(load)).ok());
  EXPECT_EQ(Entries(kByA), (Pairs{ByA(10, 2), ByA(20, 3), ByA(30, 1)}));
  EXPECT_EQ(Entries(kUniqueB),
            (Pairs{{KeyOf(100), KeyOf(2)}, {KeyOf(200), KeyOf(3)}, {KeyOf(300), KeyOf(1)}}));
  EXPECT_EQ(current_calls_, 0);  // nobody wrote meanwhile
  // The ingested keys are ordinary keys from then on: a writer's unique check sees them.
  EXPECT_EQ(Write({}, Doc(4, 40, 200)).code(), ErrorCode::kDuplicateKey);
}

TEST_F(IndexBulkLoadTest, KeysAlikeInTheirFirstBytesAndLoadsWrittenAsSeveralFilesKeepKeyOrder) {
  // Enough keys for the load to be written as more than one file, with {a: 1} keys that agree
  // in their first 60 bytes, read by two parts in an order of their own.
  constexpr std::int32_t kRecords = 60'000;
  const std::string common(60, 'x');
  auto long_key = [&common](std::int32_t n) {
    bson::DocumentBuilder builder;
    const std::string digits = std::to_string(2'000'000 - n);  // as many digits for every n
    builder.AppendString("v", common + digits);
    const bson::Document doc = std::move(builder).Finish();
    return EncodeIndexKey(doc.Get("v"));
  };
  IndexBulkLoad load = NewLoad(std::size_t{64} << 20);
  IndexBulkLoad part = NewLoad(std::size_t{64} << 20);
  // Room for every key in the load that takes the part in: the two merge in place (the loads of
  // LoadInTwoParts reserve nothing, and grow instead).
  load.ReserveRows(2 * kRecords);
  for (std::int32_t id = 0; id < kRecords; ++id) {
    std::vector<IndexEntry> entries;
    IndexEntry by_a;
    by_a.index = kByA;
    by_a.key = long_key(id);
    entries.push_back(std::move(by_a));
    bson::DocumentBuilder value;
    value.AppendInt32("b", id);
    entries.push_back({.index = kUniqueB,
                       .key = KeyOf(id),
                       .unique = unique_,
                       .key_value = std::move(value).Finish(),
                       .key_values = {}});
    ASSERT_TRUE((id % 3 == 0 ? part : load).Add(KeyOf(id), std::move(entries)));
  }
  load.SortKeys();
  part.SortKeys();
  load.Absorb(std::move(part));
  ASSERT_TRUE(Ingest(std::move(load)).ok());
  const Pairs by_a = Entries(kByA);
  const Pairs by_b = Entries(kUniqueB);
  ASSERT_EQ(by_a.size(), static_cast<std::size_t>(kRecords));
  ASSERT_EQ(by_b.size(), static_cast<std::size_t>(kRecords));
  // Higher ids have lower keys in {a: 1}.
  for (std::int32_t i = 0; i < kRecords; ++i) {
    const std::int32_t id = kRecords - 1 - i;
    ASSERT_EQ(by_a[i], std::make_pair(long_key(id) + KeyOf(id), KeyOf(id))) << i;
  }
  EXPECT_TRUE(std::is_sorted(by_b.begin(), by_b.end()));
}

TEST_F(IndexBulkLoadTest, RecordsWrittenAfterTheReadGetTheKeysTheyHaveNow) {
  const bson::Document deleted = Doc(1, 10, 100);
  const bson::Document updated = Doc(2, 20, 200);
  const bson::Document kept = Doc(3, 30, 300);
  for (const auto& doc : {deleted, updated, kept}) InsertOne(*engine_, kCollection, doc);
  IndexBulkLoad load = NewLoad();
  for (const auto& doc : {deleted, updated, kept}) Read(load, doc);
  // After the read, writers delete 1, move 2's keys (its old unique key goes to the new 4),
  // and insert 4.
  ASSERT_TRUE(Write(deleted, {}).ok());
  ASSERT_TRUE(Write(updated, Doc(2, 21, 201)).ok());
  ASSERT_TRUE(Write({}, Doc(4, 40, 200)).ok());
  ASSERT_TRUE(Ingest(std::move(load)).ok());
  EXPECT_EQ(Entries(kByA), (Pairs{ByA(21, 2), ByA(30, 3), ByA(40, 4)}));
  EXPECT_EQ(Entries(kUniqueB),
            (Pairs{{KeyOf(200), KeyOf(4)}, {KeyOf(201), KeyOf(2)}, {KeyOf(300), KeyOf(3)}}));
  EXPECT_EQ(current_calls_, 3);
}

TEST_F(IndexBulkLoadTest, RecordsSharingAUniqueKeyFailTheLoadAndAddNothing) {
  const bson::Document one = Doc(1, 10, 5);
  const bson::Document two = Doc(2, 20, 5);
  InsertOne(*engine_, kCollection, one);
  InsertOne(*engine_, kCollection, two);
  IndexBulkLoad load = NewLoad();
  Read(load, one);
  Read(load, two);
  Status status = Ingest(std::move(load));
  EXPECT_EQ(status.code(), ErrorCode::kDuplicateKey);
  EXPECT_NE(status.reason().find("index: b_1 dup key: { b: 5 }"), std::string::npos)
      << status.ToString();
  EXPECT_TRUE(Entries(kByA).empty());
  EXPECT_TRUE(Entries(kUniqueB).empty());
}

TEST_F(IndexBulkLoadTest, AWriterGivingAnUnchangedRecordsUniqueKeyFailsTheLoad) {
  const bson::Document read = Doc(1, 10, 5);
  InsertOne(*engine_, kCollection, read);
  IndexBulkLoad load = NewLoad();
  Read(load, read);
  // The index does not hold the read keys yet, so the writer's own check passes.
  ASSERT_TRUE(Write({}, Doc(2, 20, 5)).ok());
  EXPECT_EQ(Ingest(std::move(load)).code(), ErrorCode::kDuplicateKey);
  EXPECT_EQ(Entries(kUniqueB), (Pairs{{KeyOf(5), KeyOf(2)}}));  // the writer's key only
}

TEST_F(IndexBulkLoadTest, AUniqueKeyPassedOnBetweenChangedRecordsIsNoDuplicate) {
  const bson::Document giver = Doc(1, 10, 5);
  InsertOne(*engine_, kCollection, giver);
  IndexBulkLoad load = NewLoad();
  Read(load, giver);
  ASSERT_TRUE(Write(giver, Doc(1, 10, 6)).ok());
  ASSERT_TRUE(Write({}, Doc(2, 20, 5)).ok());
  ASSERT_TRUE(Ingest(std::move(load)).ok());
  EXPECT_EQ(Entries(kUniqueB), (Pairs{{KeyOf(5), KeyOf(2)}, {KeyOf(6), KeyOf(1)}}));
}

TEST_F(IndexBulkLoadTest, PartsReadApartAreAddedAsOne) {
  IndexBulkLoad load = LoadInTwoParts(Doc(1, 30, 300), Doc(2, 10, 100));
  EXPECT_EQ(load.keys(), 4u);
  ASSERT_TRUE(Ingest(std::move(load)).ok());
  EXPECT_EQ(Entries(kByA), (Pairs{ByA(10, 2), ByA(30, 1)}));
  EXPECT_EQ(Entries(kUniqueB), (Pairs{{KeyOf(100), KeyOf(2)}, {KeyOf(300), KeyOf(1)}}));
}

TEST_F(IndexBulkLoadTest, AUniqueKeyInTwoPartsIsADuplicate) {
  IndexBulkLoad load = LoadInTwoParts(Doc(1, 10, 5), Doc(2, 20, 5));
  EXPECT_EQ(Ingest(std::move(load)).code(), ErrorCode::kDuplicateKey);
  EXPECT_TRUE(Entries(kUniqueB).empty());
}

TEST_F(IndexBulkLoadTest, ALoadOfADroppedIndexConflicts) {
  const bson::Document doc = Doc(1, 10, 100);
  InsertOne(*engine_, kCollection, doc);
  IndexBulkLoad load = NewLoad();
  Read(load, doc);
  WriteUnit drop;
  drop.DropIndexKeys(kByA);
  ASSERT_TRUE(engine_->pipeline().Commit(std::move(drop), CommitOptions{}).ok());
  EXPECT_EQ(Ingest(std::move(load)).code(), ErrorCode::kWriteConflict);
  EXPECT_TRUE(Entries(kByA).empty());
  EXPECT_TRUE(Entries(kUniqueB).empty());
}

TEST_F(IndexBulkLoadTest, ALoadRefusesKeysPastItsLimit) {
  IndexBulkLoad load = NewLoad(/*max_bytes=*/512);
  int added = 0;
  while (added < 100 && load.Add(KeyOf(added), EntriesOf(Doc(added, added, added)))) ++added;
  EXPECT_GT(added, 0);
  EXPECT_LT(added, 100);
  EXPECT_LE(load.bytes(), 512u);
  EXPECT_EQ(load.keys(), 2u * static_cast<std::size_t>(added));
}

TEST_F(IndexBulkLoadTest, IngestedKeysSurviveARestart) {
  const bson::Document doc = Doc(1, 10, 100);
  InsertOne(*engine_, kCollection, doc);
  IndexBulkLoad load = NewLoad();
  Read(load, doc);
  ASSERT_TRUE(Ingest(std::move(load)).ok());
  engine_->pipeline().UntrackChanges(kCollection);
  engine_.reset();
  engine_ = OpenEngine(dir_.path());
  engine_->pipeline().TrackChanges(kCollection);
  EXPECT_EQ(Entries(kByA), (Pairs{ByA(10, 1)}));
}

}  // namespace
}  // namespace quarry::storage
