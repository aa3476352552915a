// Drops leave no range tombstone: reads hide a dropped collection's records as one would (from
// the latest data and from snapshots after the drop, not from those before it), and the
// reclaimer removes them once the history window has passed and no older snapshot is left.
#include "storage/dropped_range_reclaimer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <random>
#include <string>
#include <thread>

#include "storage/engine.h"
#include "storage/transaction.h"
#include "storage_test_util.h"

namespace quarry::storage {
namespace {

using testing::DocWithIntId;
using testing::Target;
using testing::TempDir;

std::unique_ptr<Engine> OpenWithWindow(const std::string& path, std::chrono::seconds window) {
  return testing::OpenEngine(path, std::chrono::milliseconds(100), window);
}

// Documents of 1 KB that compress little, so that their files are large.
void InsertMany(Engine& engine, CollectionId collection, int count) {
  std::mt19937 random(static_cast<std::uint32_t>(collection));
  WriteUnit unit;
  for (int id = 0; id < count; ++id) {
    std::string payload(1000, ' ');
    for (char& c : payload) c = static_cast<char>('!' + random() % 90);
    unit.Insert(Target(collection), DocWithIntId(id, payload));
  }
  ASSERT_TRUE(engine.pipeline().Commit(std::move(unit), CommitOptions{}).ok());
}

void Drop(Engine& engine, CollectionId collection) {
  WriteUnit unit;
  unit.DropCollectionRecords(collection);
  // As a drop command logs it: the snapshots after it are of a later time.
  unit.LogCommand(collection, "db", Target(collection).uuid, testing::DocWithIntId(0));
  ASSERT_TRUE(engine.pipeline().Commit(std::move(unit), CommitOptions{}).ok());
}

int CountScanned(const RecordStore& records, CollectionId collection) {
  int count = 0;
  for (auto cursor = records.Scan(collection); cursor->Valid(); cursor->Next()) ++count;
  return count;
}

std::uint64_t DocsFileBytes(const Engine& engine) {
  for (const FamilyFigures& family : engine.Figures().families) {
    if (family.name == "docs") return family.live_sst_bytes;
  }
  return 0;
}

// Waits up to `limit` for `done`.
bool WaitFor(const std::function<bool()>& done, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

TEST(DroppedRangeReclaimerTest, ASnapshotFromBeforeTheDropStillReadsTheRecords) {
  TempDir dir;
  auto engine = OpenWithWindow(dir.path(), std::chrono::seconds(300));
  InsertMany(*engine, 1, 50);
  auto before = engine->pipeline().BeginSnapshotRead(std::nullopt);
  ASSERT_TRUE(before.ok());
  Drop(*engine, 1);
  auto after = engine->pipeline().BeginSnapshotRead(std::nullopt);
  ASSERT_TRUE(after.ok());

  const bson::Document key = DocWithIntId(7);
  EXPECT_EQ(CountScanned(before.value()->records(), 1), 50);
  EXPECT_TRUE(before.value()->records().FindById(1, key.Get("_id")).value().has_value());
  EXPECT_EQ(CountScanned(after.value()->records(), 1), 0);
  EXPECT_FALSE(after.value()->records().FindById(1, key.Get("_id")).value().has_value());
  EXPECT_EQ(CountScanned(engine->records(), 1), 0);
  EXPECT_FALSE(engine->records().FindById(1, key.Get("_id")).value().has_value());
}

TEST(DroppedRangeReclaimerTest, RecordsGoOnceTheWindowHasPassedAndNoOlderSnapshotIsLeft) {
  TempDir dir;
  auto engine = OpenWithWindow(dir.path(), std::chrono::seconds(1));
  InsertMany(*engine, 1, 2000);
  InsertMany(*engine, 2, 10);
  ASSERT_TRUE(engine->Flush().ok());
  const std::uint64_t loaded = DocsFileBytes(*engine);
  ASSERT_GT(loaded, 1'000'000u);

  auto reader = engine->pipeline().BeginSnapshotRead(std::nullopt);
  ASSERT_TRUE(reader.ok());
  Drop(*engine, 1);
  // Past the window, the reader's snapshot still holds the records for it.
  std::this_thread::sleep_for(std::chrono::milliseconds(3000));
  EXPECT_EQ(CountScanned(reader.value()->records(), 1), 2000);
  EXPECT_GT(DocsFileBytes(*engine), loaded / 2);

  reader.value().reset();
  EXPECT_TRUE(
      WaitFor([&] { return DocsFileBytes(*engine) < loaded / 10; }, std::chrono::seconds(20)))
      << DocsFileBytes(*engine) << " of " << loaded << " bytes left";
  EXPECT_EQ(CountScanned(engine->records(), 2), 10);

  // The drop's note is gone with its records: nothing is left to hide after a restart either.
  engine.reset();
  engine = OpenWithWindow(dir.path(), std::chrono::seconds(1));
  EXPECT_EQ(CountScanned(engine->records(), 1), 0);
  EXPECT_EQ(CountScanned(engine->records(), 2), 10);
}

TEST(DroppedRangeReclaimerTest, ADropNotReclaimedBeforeACloseIsReclaimedAfterTheStart) {
  TempDir dir;
  std::uint64_t loaded = 0;
  {
    auto engine = OpenWithWindow(dir.path(), std::chrono::seconds(300));
    InsertMany(*engine, 1, 2000);
    ASSERT_TRUE(engine->Flush().ok());
    loaded = DocsFileBytes(*engine);
    Drop(*engine, 1);
  }
  auto engine = OpenWithWindow(dir.path(), std::chrono::seconds(300));
  EXPECT_EQ(CountScanned(engine->records(), 1), 0);
  EXPECT_TRUE(
      WaitFor([&] { return DocsFileBytes(*engine) < loaded / 10; }, std::chrono::seconds(20)))
      << DocsFileBytes(*engine) << " of " << loaded << " bytes left";
}

}  // namespace
}  // namespace quarry::storage
