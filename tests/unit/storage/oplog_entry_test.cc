// Oplog entries as WriteUnit lays them out and ParseOplogEntry reads them back, and the one
// copy of a document an insert makes.
#include "storage/oplog_entry.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include "bson/builder.h"
#include "bson/json.h"
#include "storage/record_compression.h"
#include "storage/record_store.h"
#include "storage/write_unit.h"
#include "storage_test_util.h"

// Counts the bytes this binary allocates while `g_counting` is set (on the counting thread
// only), to show how many copies of a document a write makes.
namespace {
thread_local bool g_counting = false;
thread_local std::size_t g_counted_bytes = 0;
}  // namespace

// GCC cannot see that the replaced new and delete below pair malloc with free.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t size) {
  if (g_counting) g_counted_bytes += size;
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace quarry::storage {
namespace {

using testing::OpenEngine;
using testing::Target;
using testing::TempDir;

// Commits `unit` and returns its entries as stored, in order.
std::vector<bson::Document> CommitAndRead(Engine& engine, WriteUnit unit) {
  auto result = engine.pipeline().Commit(std::move(unit), CommitOptions{});
  EXPECT_TRUE(result.ok() && result.value().errors.empty());
  std::vector<bson::Document> entries;
  for (auto cursor = engine.oplog().Scan(0); cursor->Valid(); cursor->Next()) {
    entries.push_back(bson::Document::Copy(cursor->entry()));
  }
  return entries;
}

std::vector<std::string> Keys(bson::DocumentView doc) {
  std::vector<std::string> keys;
  for (const bson::Element& e : doc) keys.emplace_back(e.key);
  return keys;
}

bson::Document Doc(std::string_view json) { return bson::FromJson(json).value(); }

class OplogEntryTest : public ::testing::Test {
 protected:
  void SetUp() override { engine_ = OpenEngine(dir_.path()); }
  TempDir dir_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(OplogEntryTest, InsertLogsTheDocument) {
  WriteUnit unit;
  unit.Insert(Target(1, "shop.orders"), Doc(R"({"_id": 1, "item": "pen"})"));
  auto entries = CommitAndRead(*engine_, std::move(unit));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(Keys(entries[0]), (std::vector<std::string>{"ts", "op", "ns", "ui", "o", "wall"}));
  auto entry = ParseOplogEntry(entries[0]);
  ASSERT_TRUE(entry.ok()) << entry.status().ToString();
  EXPECT_EQ(entry.value().op, "i");
  EXPECT_EQ(entry.value().db, "shop");
  EXPECT_EQ(entry.value().coll, "orders");
  EXPECT_EQ(entry.value().uuid, Target(1).uuid);
  EXPECT_EQ(entry.value().o.ToJson(), Doc(R"({"_id": 1, "item": "pen"})").ToJson());
}

TEST_F(OplogEntryTest, UpdateLogsBothImagesAndWhetherItReplaced) {
  testing::InsertOne(*engine_, 1, Doc(R"({"_id": 1, "n": 1})"));
  WriteUnit unit;
  unit.Update(Target(1, "db.c", /*pre_and_post_images=*/true), Doc(R"({"_id": 1, "n": 1})"),
              Doc(R"({"_id": 1, "n": 2})"), UpdateKind::kModify);
  unit.Update(Target(1), Doc(R"({"_id": 1, "n": 2})"), Doc(R"({"_id": 1, "m": 3})"),
              UpdateKind::kReplace);
  auto entries = CommitAndRead(*engine_, std::move(unit));
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(Keys(entries[1]),
            (std::vector<std::string>{"ts", "op", "ns", "ui", "o2", "o", "pre", "images", "wall"}));
  auto modify = ParseOplogEntry(entries[1]).value();
  EXPECT_EQ(modify.op, "u");
  EXPECT_EQ(modify.o2->ToJson(), Doc(R"({"_id": 1})").ToJson());
  EXPECT_EQ(modify.pre->ToJson(), Doc(R"({"_id": 1, "n": 1})").ToJson());
  EXPECT_EQ(modify.o.ToJson(), Doc(R"({"_id": 1, "n": 2})").ToJson());
  EXPECT_FALSE(modify.replace);
  EXPECT_EQ(modify.images, std::optional<bool>(true));
  auto replace = ParseOplogEntry(entries[2]).value();
  EXPECT_TRUE(replace.pre.has_value()) << "a replacement logs its pre-image";
  EXPECT_TRUE(replace.replace);
  EXPECT_EQ(replace.images, std::optional<bool>(false));
  EXPECT_EQ(replace.DocumentId().Int32(), 1);
}

TEST_F(OplogEntryTest, AModificationWithoutImagesLogsWhatChangedWhenThatIsSmaller) {
  const std::string text(200, 'x');
  const std::string before =
      R"({"_id": 1, "a": ")" + text + R"(", "b": {"c": 1, "d": [1, 2, 3]}, "e": 5})";
  testing::InsertOne(*engine_, 1, Doc(before));
  WriteUnit unit;
  unit.Update(Target(1), Doc(before),
              Doc(R"({"_id": 1, "a": ")" + text + R"(", "b": {"c": 2, "d": [1]}})"),
              UpdateKind::kModify);
  auto entries = CommitAndRead(*engine_, std::move(unit));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(Keys(entries[1]),
            (std::vector<std::string>{"ts", "op", "ns", "ui", "o2", "o", "d", "images", "wall"}));
  auto modify = ParseOplogEntry(entries[1]).value();
  EXPECT_FALSE(modify.pre.has_value());
  ASSERT_TRUE(modify.changes.has_value());
  EXPECT_EQ(
      modify.changes->ToJson(),
      Doc(R"({"u": {"b.c": 2}, "r": ["e"], "t": [{"field": "b.d", "newSize": {"$numberLong": "1"}}]})")
          .ToJson());
}

TEST_F(OplogEntryTest, AModificationLogsThePreImageWhereAChangeStreamNeedsIt) {
  // Removing "b.c": a change stream looks the removed path up in the pre-image.
  const char* before = R"({"_id": 1, "a": "0123456789abcdef", "b": {"c": 1, "d": 2}})";
  testing::InsertOne(*engine_, 1, Doc(before));
  WriteUnit unit;
  unit.Update(Target(1), Doc(before), Doc(R"({"_id": 1, "a": "0123456789abcdef", "b": {"d": 2}})"),
              UpdateKind::kModify);
  // Growing every field: what changed is no smaller than the pre-image.
  unit.Update(Target(1), Doc(R"({"_id": 1, "a": "0123456789abcdef", "b": {"d": 2}})"),
              Doc(R"({"_id": 1, "a": "0123456789abcdef0123456789abcdef", "b": "0123456789"})"),
              UpdateKind::kModify);
  auto entries = CommitAndRead(*engine_, std::move(unit));
  ASSERT_EQ(entries.size(), 3u);
  for (std::size_t entry_idx : {1u, 2u}) {
    auto modify = ParseOplogEntry(entries[entry_idx]).value();
    EXPECT_TRUE(modify.pre.has_value()) << entry_idx;
    EXPECT_FALSE(modify.changes.has_value()) << entry_idx;
  }
}

TEST_F(OplogEntryTest, DeleteLogsTheDocumentOnlyWithPreAndPostImages) {
  testing::InsertOne(*engine_, 1, Doc(R"({"_id": 1, "a": 1})"));
  testing::InsertOne(*engine_, 1, Doc(R"({"_id": 2, "a": 2})"));
  WriteUnit unit;
  unit.Delete(Target(1), Doc(R"({"_id": 1, "a": 1})"));
  unit.Delete(Target(1, "db.c", /*pre_and_post_images=*/true), Doc(R"({"_id": 2, "a": 2})"));
  auto entries = CommitAndRead(*engine_, std::move(unit));
  ASSERT_EQ(entries.size(), 4u);
  auto plain = ParseOplogEntry(entries[2]).value();
  EXPECT_EQ(plain.op, "d");
  EXPECT_EQ(plain.o.ToJson(), Doc(R"({"_id": 1})").ToJson());
  EXPECT_FALSE(plain.pre.has_value());
  auto with_image = ParseOplogEntry(entries[3]).value();
  ASSERT_TRUE(with_image.pre.has_value());
  EXPECT_EQ(with_image.pre->ToJson(), Doc(R"({"_id": 2, "a": 2})").ToJson());
  EXPECT_EQ(engine_->records().Count(1), 0);
}

TEST_F(OplogEntryTest, CommandsAreLoggedOnTheDatabasesCommandNamespace) {
  WriteUnit unit;
  unit.LogCommand(3, "shop", Target(3).uuid, Doc(R"({"create": "orders"})"));
  unit.LogCommand(0, "shop", {}, Doc(R"({"dropDatabase": 1})"));
  auto entries = CommitAndRead(*engine_, std::move(unit));
  ASSERT_EQ(entries.size(), 2u);
  auto create = ParseOplogEntry(entries[0]).value();
  EXPECT_EQ(create.op, "c");
  EXPECT_EQ(create.db, "shop");
  EXPECT_EQ(create.coll, "$cmd");
  EXPECT_EQ(create.uuid, Target(3).uuid);
  EXPECT_EQ(create.o.Get("create").String(), "orders");
  EXPECT_EQ(Keys(entries[1]), (std::vector<std::string>{"ts", "op", "ns", "o", "wall"}));
}

TEST_F(OplogEntryTest, LargeDocumentsAreLoggedAndStoredAsZstdFrames) {
  bson::Document v1 = testing::LargeDocument(1, 1 << 20);
  bson::Document v2 = testing::LargeDocument(1, 1 << 20, /*seed=*/5);
  testing::InsertOne(*engine_, 1, v1);
  WriteUnit unit;
  unit.Update(Target(1), v1, v2, UpdateKind::kReplace);
  auto entries = CommitAndRead(*engine_, std::move(unit));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(Keys(entries[0]), (std::vector<std::string>{"ts", "op", "ns", "ui", "oz", "wall"}));
  EXPECT_LT(entries[0].size(), v1.size() / 3);
  auto insert = ParseOplogEntry(entries[0]);
  ASSERT_TRUE(insert.ok()) << insert.status().ToString();
  EXPECT_EQ(insert.value().o.bytes(), v1.bytes());
  EXPECT_EQ(insert.value().DocumentId().Int32(), 1);
  std::optional<std::string_view> stored = StoredRecordOf(entries[0]);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored, entries[0].Get("oz").Binary().data);
  // The update's pre-image matched the compressed record it replaced, and is logged compressed.
  EXPECT_EQ(Keys(entries[1]), (std::vector<std::string>{"ts", "op", "ns", "ui", "o2", "oz", "prez",
                                                        "r", "images", "wall"}));
  EXPECT_LT(entries[1].size(), (v1.size() + v2.size()) / 3);
  auto update = ParseOplogEntry(entries[1]).value();
  EXPECT_EQ(update.o.bytes(), v2.bytes());
  EXPECT_EQ(update.pre->bytes(), v1.bytes());
  // Reads see documents; the statistics count their BSON, not their frames.
  auto found = engine_->records().FindById(1, v2.Get("_id"));
  ASSERT_TRUE(found.ok() && found.value().has_value());
  EXPECT_EQ(found.value()->bytes(), v2.bytes());
  auto cursor = engine_->records().Scan(1);
  ASSERT_TRUE(cursor->Valid());
  EXPECT_EQ(cursor->document().bytes(), v2.bytes());
  EXPECT_EQ(engine_->records().Stats(1).data_bytes, static_cast<std::int64_t>(v2.size()));
}

TEST_F(OplogEntryTest, APreImageReadFromALargeRecordIsLoggedAsTheStoredFrame) {
  bson::Document v1 = testing::LargeDocument(1, 1 << 20);
  bson::Document v2 = testing::LargeDocument(1, 1 << 20, /*seed=*/5);
  testing::InsertOne(*engine_, 1, v1);
  auto read = engine_->records().FindById(1, v1.Get("_id"));
  ASSERT_TRUE(read.ok() && read.value().has_value());
  WriteUnit update;
  update.Update(Target(1), *read.value(), v2, UpdateKind::kReplace);
  auto entries = CommitAndRead(*engine_, std::move(update));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].Get("prez").Binary().data, entries[0].Get("oz").Binary().data);
  EXPECT_EQ(ParseOplogEntry(entries[1]).value().pre->bytes(), v1.bytes());

  auto again = engine_->records().FindById(1, v2.Get("_id"));
  ASSERT_TRUE(again.ok() && again.value().has_value());
  WriteUnit removal;
  removal.Delete(Target(1, "db.c", /*pre_and_post_images=*/true), *again.value());
  entries = CommitAndRead(*engine_, std::move(removal));
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[2].Get("prez").Binary().data, entries[1].Get("oz").Binary().data);
  EXPECT_EQ(ParseOplogEntry(entries[2]).value().pre->bytes(), v2.bytes());
  EXPECT_EQ(engine_->records().Count(1), 0);
}

TEST_F(OplogEntryTest, ALargeDeletedDocumentIsLoggedCompressedWithPreAndPostImages) {
  bson::Document doc = testing::LargeDocument(1, 1 << 20);
  testing::InsertOne(*engine_, 1, doc);
  WriteUnit unit;
  unit.Delete(Target(1, "db.c", /*pre_and_post_images=*/true), doc);
  auto entries = CommitAndRead(*engine_, std::move(unit));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(Keys(entries[1]),
            (std::vector<std::string>{"ts", "op", "ns", "ui", "o", "images", "prez", "wall"}));
  auto deleted = ParseOplogEntry(entries[1]).value();
  ASSERT_TRUE(deleted.pre.has_value());
  EXPECT_EQ(deleted.pre->bytes(), doc.bytes());
  EXPECT_EQ(engine_->records().Count(1), 0);
}

TEST_F(OplogEntryTest, ALargeDocumentThatDoesNotCompressStaysBson) {
  std::string noise(1 << 20, '\0');
  std::uint64_t x = 88172645463325252ull;
  for (char& c : noise) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    c = static_cast<char>(x);
  }
  bson::DocumentBuilder b;
  b.AppendInt32("_id", 1);
  b.AppendBinary("data", 0, noise);
  bson::Document doc = std::move(b).Finish();
  WriteUnit unit;
  unit.Insert(Target(1), doc);
  auto entries = CommitAndRead(*engine_, std::move(unit));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(Keys(entries[0]), (std::vector<std::string>{"ts", "op", "ns", "ui", "o", "wall"}));
  EXPECT_EQ(engine_->records().FindById(1, doc.Get("_id")).value()->bytes(), doc.bytes());
}

TEST_F(OplogEntryTest, AStaleReadOfACompressedRecordIsAWriteConflict) {
  bson::Document v1 = testing::LargeDocument(1, 1 << 20);
  bson::Document v2 = testing::LargeDocument(1, 1 << 20, /*seed=*/5);
  testing::InsertOne(*engine_, 1, v1);
  WriteUnit first;
  first.Update(Target(1), v1, v2, UpdateKind::kReplace);
  ASSERT_TRUE(engine_->pipeline().Commit(std::move(first), CommitOptions{}).value().errors.empty());
  WriteUnit stale;  // read v1 before the first update committed
  stale.Update(Target(1), v1, testing::LargeDocument(1, 1 << 20, 9), UpdateKind::kReplace);
  auto result = engine_->pipeline().Commit(std::move(stale), CommitOptions{});
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result.value().errors.size(), 1u);
  EXPECT_EQ(result.value().errors[0].status.code(), ErrorCode::kWriteConflict);
  EXPECT_EQ(engine_->records().FindById(1, v2.Get("_id")).value()->bytes(), v2.bytes());
}

TEST(OplogEntryParseTest, AnEntryWithoutItsRequiredFieldsIsAnInternalError) {
  auto entry = ParseOplogEntry(Doc(R"({"op": "i"})"));
  EXPECT_EQ(entry.status().code(), ErrorCode::kInternalError);
}

TEST(OplogEntryParseTest, SplitNamespaceCutsAtTheFirstDot) {
  std::string_view db;
  std::string_view coll;
  EXPECT_TRUE(SplitNamespace("shop.orders.2024", &db, &coll));
  EXPECT_EQ(db, "shop");
  EXPECT_EQ(coll, "orders.2024");
  EXPECT_FALSE(SplitNamespace("shop", &db, &coll));
  EXPECT_EQ(db, "shop");
  EXPECT_EQ(coll, "");
}

// Each inserted document below the compression size is copied once in Quarry's code: straight into
// its oplog entry, which the record is later stored from.
TEST(OplogEntryCopyTest, InsertCopiesTheDocumentOnce) {
  bson::DocumentBuilder b;
  b.AppendInt32("_id", 1);
  // Just below the size from which documents are stored compressed.
  b.AppendString("payload", std::string(kCompressRecordsFrom - 100, 'x'));
  bson::Document doc = std::move(b).Finish();
  WriteUnit unit;
  unit.Reserve(1);
  g_counted_bytes = 0;
  g_counting = true;
  unit.Insert(Target(1), doc);
  g_counting = false;
  EXPECT_GE(g_counted_bytes, doc.size());
  EXPECT_LT(g_counted_bytes, doc.size() + 4096) << "more than one copy of the document";
}

}  // namespace
}  // namespace quarry::storage
