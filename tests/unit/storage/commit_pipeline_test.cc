// The commit pipeline: constraints, ordered and unordered results, pre-image conflicts,
// chunking and observers.
#include "storage/commit_pipeline.h"

#include <gtest/gtest.h>

#include <mutex>
#include <thread>
#include <vector>

#include "storage_test_util.h"

namespace quarry::storage {
namespace {

using testing::DocWithIntId;
using testing::InsertOne;
using testing::OpenEngine;
using testing::Target;
using testing::TempDir;

class CommitPipelineTest : public ::testing::Test {
 protected:
  void SetUp() override { engine_ = OpenEngine(dir_.path()); }

  CommitResult Commit(WriteUnit unit, CommitOptions options = {}) {
    auto result = engine_->pipeline().Commit(std::move(unit), options);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? std::move(result).value() : CommitResult{};
  }

  static void AddInsert(WriteUnit* unit, CollectionId collection, bson::Document doc) {
    unit->Insert(Target(collection), doc);
  }

  bool Exists(CollectionId collection, std::int32_t id) {
    bson::Document key = DocWithIntId(id);
    auto found = engine_->records().FindById(collection, key.Get("_id"));
    EXPECT_TRUE(found.ok());
    return found.ok() && found.value().has_value();
  }

  std::size_t OplogSize() {
    std::size_t n = 0;
    for (auto cursor = engine_->oplog().Scan(0); cursor->Valid(); cursor->Next()) ++n;
    return n;
  }

  TempDir dir_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(CommitPipelineTest, OrderedCommitStopsAtTheFirstDuplicate) {
  InsertOne(*engine_, 1, DocWithIntId(2));
  WriteUnit unit;
  for (int id : {1, 2, 3}) AddInsert(&unit, 1, DocWithIntId(id));
  CommitResult result = Commit(std::move(unit), {.ordered = true});
  EXPECT_EQ(result.applied, 1u);
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors[0].index, 1u);
  EXPECT_EQ(result.errors[0].status.code(), ErrorCode::kDuplicateKey);
  EXPECT_TRUE(Exists(1, 1));
  EXPECT_FALSE(Exists(1, 3));
  EXPECT_EQ(OplogSize(), 2u);  // the first insert and the one before the unit
}

TEST_F(CommitPipelineTest, UnorderedCommitReportsEveryDuplicateAndAppliesTheRest) {
  InsertOne(*engine_, 1, DocWithIntId(2));
  InsertOne(*engine_, 1, DocWithIntId(4));
  WriteUnit unit;
  for (int id = 1; id <= 5; ++id) AddInsert(&unit, 1, DocWithIntId(id));
  CommitResult result = Commit(std::move(unit), {.ordered = false});
  EXPECT_EQ(result.applied, 3u);
  ASSERT_EQ(result.errors.size(), 2u);
  EXPECT_EQ(result.errors[0].index, 1u);
  EXPECT_EQ(result.errors[1].index, 3u);
  EXPECT_TRUE(Exists(1, 5));
  EXPECT_EQ(engine_->records().Count(1), 5);
}

TEST_F(CommitPipelineTest, DuplicateWithinOneUnitIsCaught) {
  WriteUnit unit;
  AddInsert(&unit, 1, DocWithIntId(1));
  bson::DocumentBuilder b;
  b.AppendDouble("_id", 1.0);
  AddInsert(&unit, 1, std::move(b).Finish());
  CommitResult result = Commit(std::move(unit), {.ordered = false});
  EXPECT_EQ(result.applied, 1u);
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors[0].index, 1u);
  EXPECT_EQ(result.errors[0].status.code(), ErrorCode::kDuplicateKey);
}

// The chunk's hash tables start afresh after a large chunk: the checks of a small unit must
// still see both the stored records and the unit's own writes.
TEST_F(CommitPipelineTest, ASmallUnitAfterALargeOneStillCatchesEveryDuplicate) {
  WriteUnit large;
  for (int id = 0; id < 5'000; ++id) AddInsert(&large, 1, DocWithIntId(id));
  EXPECT_EQ(Commit(std::move(large)).applied, 5'000u);

  WriteUnit small;
  AddInsert(&small, 1, DocWithIntId(6'000));
  AddInsert(&small, 1, DocWithIntId(6'000));
  AddInsert(&small, 1, DocWithIntId(4'999));
  CommitResult result = Commit(std::move(small), {.ordered = false});
  EXPECT_EQ(result.applied, 1u);
  ASSERT_EQ(result.errors.size(), 2u);
  EXPECT_EQ(result.errors[0].index, 1u);  // the unit's own earlier write
  EXPECT_EQ(result.errors[1].index, 2u);  // a stored record
  EXPECT_EQ(engine_->records().Count(1), 5'001);

  WriteUnit single;
  AddInsert(&single, 1, DocWithIntId(6'000));
  result = Commit(std::move(single));
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors[0].status.code(), ErrorCode::kDuplicateKey);
}

TEST_F(CommitPipelineTest, DuplicateKeyErrorHasMongodsMessageAndKeyValue) {
  InsertOne(*engine_, 1, DocWithIntId(1));
  WriteUnit unit;
  AddInsert(&unit, 1, DocWithIntId(1));
  CommitResult result = Commit(std::move(unit));
  ASSERT_EQ(result.errors.size(), 1u);
  const Status& error = result.errors[0].status;
  EXPECT_EQ(error.reason(),
            "E11000 duplicate key error collection: db.c index: _id_ dup key: { _id: 1 }");
  ASSERT_FALSE(error.extra_info().empty());
  bson::DocumentView extra(error.extra_info().data());
  EXPECT_EQ(extra.Get("keyPattern").Document().Get("_id").Int32(), 1);
  EXPECT_EQ(extra.Get("keyValue").Document().Get("_id").Int32(), 1);
}

TEST_F(CommitPipelineTest, DuplicateObjectIdIsPrintedAsMongodPrintsIt) {
  bson::ObjectId oid;
  ASSERT_TRUE(bson::ObjectId::FromHex("5f1d7e3a2b4c6d8e9f0a1b2c", &oid));
  bson::DocumentBuilder b;
  b.AppendObjectId("_id", oid);
  bson::Document doc = std::move(b).Finish();
  InsertOne(*engine_, 1, doc);
  WriteUnit unit;
  AddInsert(&unit, 1, doc);
  CommitResult result = Commit(std::move(unit));
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_NE(result.errors[0].status.reason().find(
                "dup key: { _id: ObjectId('5f1d7e3a2b4c6d8e9f0a1b2c') }"),
            std::string::npos)
      << result.errors[0].status.reason();
}

TEST_F(CommitPipelineTest, DuplicatesAreFoundInFlushedDataToo) {
  WriteUnit unit;
  for (int id = 0; id < 3000; ++id) AddInsert(&unit, 1, DocWithIntId(id, std::string(300, 'f')));
  ASSERT_TRUE(Commit(std::move(unit)).errors.empty());
  ASSERT_TRUE(engine_->Flush().ok());
  WriteUnit again;
  for (int id = 2990; id < 3010; ++id) AddInsert(&again, 1, DocWithIntId(id));
  CommitResult result = Commit(std::move(again), {.ordered = false});
  EXPECT_EQ(result.applied, 10u);
  EXPECT_EQ(result.errors.size(), 10u);
  EXPECT_EQ(engine_->records().Count(1), 3010);
  // Closing right after lookups that read SST blocks.
  EXPECT_TRUE(engine_->Close().ok());
}

TEST_F(CommitPipelineTest, ReplaceWithAStalePreImageIsAWriteConflict) {
  bson::Document original = DocWithIntId(1, "v1");
  InsertOne(*engine_, 1, original);
  bson::Document v2 = DocWithIntId(1, "v2");
  {
    WriteUnit unit;
    unit.Update(Target(1), original, v2, UpdateKind::kModify);
    EXPECT_TRUE(Commit(std::move(unit)).errors.empty());
  }
  bson::Document v3 = DocWithIntId(1, "v3");
  WriteUnit unit;
  unit.Update(Target(1), original, v3, UpdateKind::kModify);  // read before v2 was written
  CommitResult result = Commit(std::move(unit));
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors[0].status.code(), ErrorCode::kWriteConflict);
  auto stored = engine_->records().FindById(1, v2.Get("_id"));
  ASSERT_TRUE(stored.ok() && stored.value().has_value());
  EXPECT_EQ(stored.value()->bytes(), v2.bytes());
}

// Large records are stored, and their updates' pre-images logged, as zstd frames: the check
// compares the two frames when they are equal and the documents when they are not.
TEST_F(CommitPipelineTest, ALargeRecordIsCheckedAgainstItsReadLikeASmallOne) {
  bson::Document v1 = testing::LargeDocument(1, 1 << 20);
  bson::Document v2 = testing::LargeDocument(1, 1 << 20, /*seed=*/5);
  bson::Document v3 = testing::LargeDocument(1, 1 << 20, /*seed=*/9);
  InsertOne(*engine_, 1, v1);
  {
    WriteUnit unit;
    unit.Update(Target(1), v1, v2, UpdateKind::kReplace);
    EXPECT_TRUE(Commit(std::move(unit)).errors.empty());
  }
  for (const bson::Document* stale : {&v1, &v3}) {  // read before v2, and never stored
    WriteUnit unit;
    unit.Update(Target(1), *stale, v3, UpdateKind::kReplace);
    CommitResult result = Commit(std::move(unit));
    ASSERT_EQ(result.errors.size(), 1u);
    EXPECT_EQ(result.errors[0].status.code(), ErrorCode::kWriteConflict);
  }
  // As read from storage, which keeps the stored frame with the document.
  auto read_v2 = engine_->records().FindById(1, v2.Get("_id"));
  ASSERT_TRUE(read_v2.ok() && read_v2.value().has_value());
  WriteUnit current;
  current.Update(Target(1), *read_v2.value(), v3, UpdateKind::kReplace);
  EXPECT_TRUE(Commit(std::move(current)).errors.empty());
  auto stored = engine_->records().FindById(1, v3.Get("_id"));
  ASSERT_TRUE(stored.ok() && stored.value().has_value());
  EXPECT_EQ(stored.value()->bytes(), v3.bytes());

  WriteUnit stale_delete;  // the frame it was read from is no longer stored
  stale_delete.Delete(Target(1), *read_v2.value());
  CommitResult result = Commit(std::move(stale_delete));
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors[0].status.code(), ErrorCode::kWriteConflict);
  WriteUnit deletion;
  deletion.Delete(Target(1), *stored.value());
  EXPECT_TRUE(Commit(std::move(deletion)).errors.empty());
  EXPECT_EQ(engine_->records().Count(1), 0);
}

TEST_F(CommitPipelineTest, DeletingAnAlreadyDeletedDocumentIsAWriteConflict) {
  bson::Document doc = DocWithIntId(1);
  InsertOne(*engine_, 1, doc);
  WriteUnit first;
  first.Delete(Target(1), doc);
  EXPECT_TRUE(Commit(std::move(first)).errors.empty());
  WriteUnit second;
  second.Delete(Target(1), doc);
  CommitResult result = Commit(std::move(second));
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors[0].status.code(), ErrorCode::kWriteConflict);
}

TEST_F(CommitPipelineTest, DeleteThenReinsertInOneUnitSucceeds) {
  bson::Document doc = DocWithIntId(1, "old");
  InsertOne(*engine_, 1, doc);
  WriteUnit unit;
  unit.Delete(Target(1), doc);
  AddInsert(&unit, 1, DocWithIntId(1, "new"));
  CommitResult result = Commit(std::move(unit));
  EXPECT_TRUE(result.errors.empty());
  auto stored = engine_->records().FindById(1, doc.Get("_id"));
  ASSERT_TRUE(stored.ok() && stored.value().has_value());
  EXPECT_EQ(stored.value()->Get("payload").String(), "new");
  EXPECT_EQ(engine_->records().Count(1), 1);
}

// Four threads increment one counter by reading it, then replacing it, and read again after a
// write conflict. `declare_reads`: each unit declares when it read (WriteUnit::ReadAfter), so a
// commit that no other chunk preceded skips the record read, and one that another did checks
// as before.
void IncrementConcurrently(Engine& engine, bool declare_reads) {
  bson::DocumentBuilder b;
  b.AppendInt32("_id", 1);
  b.AppendInt64("n", 0);
  InsertOne(engine, 1, std::move(b).Finish());
  constexpr int kThreads = 4;
  constexpr int kIncrements = 150;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      bson::Document key = DocWithIntId(1);
      for (int i = 0; i < kIncrements; ++i) {
        while (true) {
          const std::uint64_t chunks = engine.pipeline().ChunksWritten();
          auto read = engine.records().FindById(1, key.Get("_id"));
          ASSERT_TRUE(read.ok() && read.value().has_value());
          bson::Document before = std::move(*read.value());
          bson::DocumentBuilder next;
          next.AppendInt32("_id", 1);
          next.AppendInt64("n", before.Get("n").Int64() + 1);
          bson::Document after = std::move(next).Finish();
          WriteUnit unit;
          if (declare_reads) unit.ReadAfter(chunks);
          unit.Update(Target(1), before, after, UpdateKind::kModify);
          auto result = engine.pipeline().Commit(std::move(unit), CommitOptions{});
          ASSERT_TRUE(result.ok());
          if (result.value().errors.empty()) break;
          ASSERT_EQ(result.value().errors[0].status.code(), ErrorCode::kWriteConflict);
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  bson::Document key = DocWithIntId(1);
  auto final_doc = engine.records().FindById(1, key.Get("_id"));
  ASSERT_TRUE(final_doc.ok() && final_doc.value().has_value());
  EXPECT_EQ(final_doc.value()->Get("n").Int64(), kThreads * kIncrements);
}

TEST_F(CommitPipelineTest, ConcurrentReadModifyWriteLosesNoIncrement) {
  IncrementConcurrently(*engine_, /*declare_reads=*/false);
}

TEST_F(CommitPipelineTest, ConcurrentReadModifyWriteDeclaringItsReadsLosesNoIncrement) {
  IncrementConcurrently(*engine_, /*declare_reads=*/true);
}

TEST_F(CommitPipelineTest, APreImageReadBeforeAnotherChunkIsCheckedAgainstTheStoredRecord) {
  bson::Document v1 = DocWithIntId(1, "v1");
  InsertOne(*engine_, 1, v1);
  const std::uint64_t chunks = engine_->pipeline().ChunksWritten();
  {
    WriteUnit other;  // commits after the read below was declared
    other.Update(Target(1), v1, DocWithIntId(1, "v2"), UpdateKind::kModify);
    EXPECT_TRUE(Commit(std::move(other)).errors.empty());
  }
  for (bool deletes : {false, true}) {
    WriteUnit unit;
    unit.ReadAfter(chunks);
    if (deletes) {
      unit.Delete(Target(1), v1);
    } else {
      unit.Update(Target(1), v1, DocWithIntId(1, "v3"), UpdateKind::kModify);
    }
    CommitResult result = Commit(std::move(unit));
    ASSERT_EQ(result.errors.size(), 1u);
    EXPECT_EQ(result.errors[0].status.code(), ErrorCode::kWriteConflict);
  }
  auto stored = engine_->records().FindById(1, v1.Get("_id"));
  ASSERT_TRUE(stored.ok() && stored.value().has_value());
  EXPECT_EQ(stored.value()->Get("payload").String(), "v2");
}

// With no chunk written since the declared read, the commit takes the pre-image as stored
// without reading the record: a unit that declares a read it did not make is not caught, which
// shows the read is skipped. Only a later chunk of the same unit reads again.
TEST_F(CommitPipelineTest, APreImageDeclaredCurrentIsNotReadAgain) {
  InsertOne(*engine_, 1, DocWithIntId(1, "stored"));
  WriteUnit unit;
  unit.ReadAfter(engine_->pipeline().ChunksWritten());
  unit.Update(Target(1), DocWithIntId(1, "never stored"), DocWithIntId(1, "new"),
              UpdateKind::kModify);
  EXPECT_TRUE(Commit(std::move(unit)).errors.empty());
  auto stored = engine_->records().FindById(1, DocWithIntId(1).Get("_id"));
  ASSERT_TRUE(stored.ok() && stored.value().has_value());
  EXPECT_EQ(stored.value()->Get("payload").String(), "new");

  WriteUnit missing;  // an insert is still checked against the store
  missing.ReadAfter(engine_->pipeline().ChunksWritten());
  AddInsert(&missing, 1, DocWithIntId(1, "again"));
  CommitResult result = Commit(std::move(missing));
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors[0].status.code(), ErrorCode::kDuplicateKey);
}

TEST_F(CommitPipelineTest, WritePreparedBeforeADropConflicts) {
  InsertOne(*engine_, 1, DocWithIntId(1));
  WriteUnit late;
  AddInsert(&late, 1, DocWithIntId(2));
  WriteUnit drop;
  drop.DropCollectionRecords(1);
  EXPECT_TRUE(Commit(std::move(drop)).errors.empty());
  CommitResult result = Commit(std::move(late));
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors[0].status.code(), ErrorCode::kWriteConflict);
  EXPECT_EQ(engine_->records().Count(1), 0);
  EXPECT_FALSE(Exists(1, 2));
}

TEST_F(CommitPipelineTest, CatalogChangesCommitWithTheirOplogEntry) {
  WriteUnit unit;
  unit.PutCatalog(std::string("db\0a", 4), "value-a");
  unit.PutCatalog(std::string("db\0b", 4), "value-b");
  unit.DeleteCatalog(std::string("db\0a", 4));
  unit.LogCommand(0, "db", {}, bson::Document());
  CommitResult result = Commit(std::move(unit));
  EXPECT_EQ(result.applied, 4u);
  EXPECT_EQ(OplogSize(), 1u);
  auto all = engine_->catalog_store().ScanAll();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all.value().size(), 1u);
  EXPECT_EQ(all.value()[0].first, std::string("db\0b", 4));
  EXPECT_EQ(all.value()[0].second, "value-b");
}

class RecordingObserver : public CommitObserver {
 public:
  void OnCommit(const CommittedBatch& batch) override {
    std::lock_guard lock(mu_);
    ++batches;
    for (const CommittedEntry& entry : batch.entries) {
      EXPECT_EQ(entry.entry.Get("ts").Timestamp(), entry.ts);
      timestamps.push_back(entry.ts);
      collections.push_back(entry.collection);
    }
  }
  std::mutex mu_;
  int batches = 0;
  std::vector<Timestamp> timestamps;
  std::vector<CollectionId> collections;
};

TEST_F(CommitPipelineTest, LargeUnitCommitsInChunksThatObserversSeeInOrder) {
  RecordingObserver observer;
  engine_->pipeline().AddObserver(&observer);
  WriteUnit unit;
  constexpr int kDocs = 12000;
  for (int id = 0; id < kDocs; ++id) AddInsert(&unit, 3, DocWithIntId(id, std::string(700, 'p')));
  CommitResult result = Commit(std::move(unit));
  engine_->pipeline().RemoveObserver(&observer);
  EXPECT_EQ(result.applied, static_cast<std::size_t>(kDocs));
  EXPECT_GT(observer.batches, 1);
  ASSERT_EQ(observer.timestamps.size(), static_cast<std::size_t>(kDocs));
  for (std::size_t i = 1; i < observer.timestamps.size(); ++i) {
    ASSERT_LT(observer.timestamps[i - 1], observer.timestamps[i]);
  }
  EXPECT_EQ(observer.collections.front(), 3u);
  EXPECT_EQ(result.last_timestamp, observer.timestamps.back());
  EXPECT_EQ(engine_->records().Count(3), kDocs);

  InsertOne(*engine_, 3, DocWithIntId(-1));  // after RemoveObserver: not seen
  EXPECT_EQ(observer.timestamps.size(), static_cast<std::size_t>(kDocs));
}

TEST_F(CommitPipelineTest, ObserversSeeConcurrentCommitsInTimestampOrder) {
  RecordingObserver observer;
  engine_->pipeline().AddObserver(&observer);
  constexpr int kThreads = 4;
  constexpr int kCommits = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int c = 0; c < kCommits; ++c) {
        WriteUnit unit;
        for (int d = 0; d < 5; ++d) AddInsert(&unit, 10 + t, DocWithIntId(c * 5 + d));
        auto result = engine_->pipeline().Commit(std::move(unit), CommitOptions{});
        ASSERT_TRUE(result.ok() && result.value().errors.empty());
      }
    });
  }
  for (auto& thread : threads) thread.join();
  engine_->pipeline().RemoveObserver(&observer);
  ASSERT_EQ(observer.timestamps.size(), static_cast<std::size_t>(kThreads * kCommits * 5));
  for (std::size_t i = 1; i < observer.timestamps.size(); ++i) {
    ASSERT_LT(observer.timestamps[i - 1], observer.timestamps[i]);
  }
}

}  // namespace
}  // namespace quarry::storage

namespace quarry::storage {
namespace {

TEST_F(CommitPipelineTest, AChunkRecordListsTheTagsOfTheMutationsThatApplied) {
  InsertOne(*engine_, 1, DocWithIntId(2));
  WriteUnit unit;
  std::vector<std::vector<std::uint64_t>> calls;
  unit.SetChunkRecord([&](std::span<const std::uint64_t> tags) {
    calls.emplace_back(tags.begin(), tags.end());
    return WriteUnit::MetaEntry{"record/x", std::to_string(tags.size()), {}};
  });
  for (int id : {1, 2, 3}) {
    bson::Document doc = DocWithIntId(id);
    unit.Tag(unit.Insert(Target(1), doc), 10 + id);
  }
  CommitResult result = Commit(std::move(unit), {.ordered = false});
  ASSERT_EQ(result.errors.size(), 1u);  // _id 2 exists
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], (std::vector<std::uint64_t>{11, 13}));
  auto stored = engine_->meta().Get("record/x");
  ASSERT_TRUE(stored.ok() && stored.value().has_value());
  EXPECT_EQ(*stored.value(), "2");
}

TEST_F(CommitPipelineTest, EveryChunkWritesItsOwnRecord) {
  WriteUnit unit;
  std::size_t calls = 0;
  unit.SetChunkRecord([&](std::span<const std::uint64_t>) {
    ++calls;
    return WriteUnit::MetaEntry{"record/y" + std::to_string(calls), "r", {}};
  });
  for (int id = 0; id < 3000; ++id) {
    unit.Tag(unit.Insert(Target(1), DocWithIntId(id, std::string(3000, 'c'))), id);
  }
  CommitResult result = Commit(std::move(unit));
  EXPECT_EQ(result.applied, 3000u);
  EXPECT_GE(calls, 2u);  // about 9 MB: more than one chunk
}

TEST_F(CommitPipelineTest, AChunkWithNoTaggedMutationWritesNoRecord) {
  WriteUnit unit;
  unit.SetChunkRecord([](std::span<const std::uint64_t>) {
    return WriteUnit::MetaEntry{"record/z", "r", {}};
  });
  AddInsert(&unit, 1, DocWithIntId(1));
  Commit(std::move(unit));
  auto stored = engine_->meta().Get("record/z");
  ASSERT_TRUE(stored.ok());
  EXPECT_FALSE(stored.value().has_value());
}

}  // namespace
}  // namespace quarry::storage
