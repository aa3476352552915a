// The change-stream cursor over a real engine: where a new or resumed stream starts, batches
// and postBatchResumeToken, the user's stages, invalidation, and lost history.
#include "changestream/change_stream_cursor.h"

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "changestream/catalog_lookup.h"
#include "changestream_test_util.h"

namespace quarry::changestream {
namespace {

using testing::Json;
using testing::Writer;

constexpr std::size_t kNoLimit = 1 << 30;

class ChangeStreamCursorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = testing::OpenEngine(dir_.path());
    ASSERT_NE(engine_, nullptr);
    writer_ = std::make_unique<Writer>(engine_.get());
  }
  void TearDown() override {
    writer_.reset();
    if (engine_) {
      EXPECT_TRUE(engine_->Close().ok());
    }
  }

  StatusWith<std::unique_ptr<ChangeStreamCursor>> Open(
      std::string_view pipeline_json, std::optional<std::string_view> coll = "c",
      std::string_view db = "db", std::function<storage::Timestamp()> trimmed_before = {}) {
    auto request = ParseChangeStreamPipeline(Json(pipeline_json), db, coll, {});
    if (!request.ok()) return request.status();
    ChangeStreamDeps deps;
    deps.oplog = &engine_->oplog();
    deps.trimmed_before = std::move(trimmed_before);
    deps.max_entries_per_batch = max_entries_;
    return ChangeStreamCursor::Open(std::move(request).value(), std::move(deps));
  }

  std::unique_ptr<ChangeStreamCursor> MustOpen(std::string_view pipeline_json,
                                               std::optional<std::string_view> coll = "c") {
    auto cursor = Open(pipeline_json, coll);
    EXPECT_TRUE(cursor.ok()) << cursor.status().ToString();
    return cursor.ok() ? std::move(cursor).value() : nullptr;
  }

  static std::vector<bson::Document> Next(ChangeStreamCursor& cursor,
                                          std::size_t max_docs = kNoLimit) {
    auto batch = cursor.NextBatch(max_docs, kNoLimit);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    return batch.ok() ? std::move(batch).value().documents : std::vector<bson::Document>{};
  }

  static std::string OpType(const bson::Document& event) {
    return std::string(event.Get("operationType").String());
  }

  static std::string StageWithToken(std::string_view option, bson::DocumentView token) {
    return R"({"0": {"$changeStream": {")" + std::string(option) + "\": " + token.ToJson() + "}}}";
  }

  testing::TempDir dir_;
  std::unique_ptr<storage::Engine> engine_;
  std::unique_ptr<Writer> writer_;
  std::size_t max_entries_ = 10000;
};

TEST_F(ChangeStreamCursorTest, NewStreamSeesOnlyChangesCommittedAfterIt) {
  writer_->Insert("db.c", R"({"_id": 1})");
  auto cursor = MustOpen(R"({"0": {"$changeStream": {}}})");
  EXPECT_TRUE(Next(*cursor).empty());
  EXPECT_FALSE(cursor->exhausted());
  writer_->Insert("db.c", R"({"_id": 2})");
  writer_->Insert("db.other", R"({"_id": 3})");
  auto events = Next(*cursor);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(OpType(events[0]), "insert");
  EXPECT_EQ(events[0].Get("documentKey").Document().Get("_id").Int32(), 2);
}

TEST_F(ChangeStreamCursorTest, EventsComeInCommitOrderAcrossSmallBatches) {
  auto cursor = MustOpen(R"({"0": {"$changeStream": {}}})");
  writer_->Insert("db.c", R"({"_id": 1, "x": 1})");
  writer_->Update("db.c", R"({"_id": 1, "x": 2})");
  writer_->Update("db.c", R"({"_id": 1, "x": 3})", /*replace=*/true);
  writer_->Delete("db.c", R"({"_id": 1})");
  std::vector<std::string> types;
  std::string last_pbrt;
  for (int round = 0; round < 6; ++round) {
    auto batch = Next(*cursor, 1);
    ASSERT_LE(batch.size(), 1u);
    const std::string pbrt(cursor->PostBatchResumeToken().Get("_data").String());
    EXPECT_GE(pbrt, last_pbrt);
    last_pbrt = pbrt;
    for (const auto& event : batch) {
      types.push_back(OpType(event));
      // The PBRT of a batch is never before its last event.
      EXPECT_GE(pbrt, std::string(event.Get("_id").Document().Get("_data").String()));
    }
  }
  EXPECT_EQ(types, (std::vector<std::string>{"insert", "update", "replace", "delete"}));
}

TEST_F(ChangeStreamCursorTest, EmptyBatchReportsAHighWaterMarkPastTheLatestEntry) {
  storage::Timestamp ts = writer_->Insert("db.c", R"({"_id": 1})");
  auto cursor = MustOpen(R"({"0": {"$changeStream": {}}})");
  EXPECT_TRUE(Next(*cursor).empty());
  const ResumeToken& pbrt = cursor->post_batch_resume_token();
  EXPECT_FALSE(pbrt.is_event());
  EXPECT_EQ(pbrt.ts, ts + 1);
  // Entries of other collections move the high-water mark too.
  storage::Timestamp other = writer_->Insert("db.other", R"({"_id": 1})");
  EXPECT_TRUE(Next(*cursor).empty());
  EXPECT_EQ(cursor->post_batch_resume_token().ts, other + 1);
}

TEST_F(ChangeStreamCursorTest, ResumeAfterAnEventContinuesStrictlyAfterIt) {
  auto cursor = MustOpen(R"({"0": {"$changeStream": {}}})");
  for (int i = 1; i <= 3; ++i) writer_->Insert("db.c", "{\"_id\": " + std::to_string(i) + "}");
  auto events = Next(*cursor);
  ASSERT_EQ(events.size(), 3u);
  auto resumed = MustOpen(StageWithToken("resumeAfter", events[0].Get("_id").Document()));
  ASSERT_NE(resumed, nullptr);
  auto rest = Next(*resumed);
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0].Get("documentKey").Document().Get("_id").Int32(), 2);
  EXPECT_EQ(rest[1].Get("_id").Document().bytes(), events[2].Get("_id").Document().bytes());
}

TEST_F(ChangeStreamCursorTest, ResumeAfterAHighWaterMarkSeesWhatCameLater) {
  auto cursor = MustOpen(R"({"0": {"$changeStream": {}}})");
  EXPECT_TRUE(Next(*cursor).empty());
  bson::Document hwm = cursor->PostBatchResumeToken();
  writer_->Insert("db.c", R"({"_id": 1})");
  auto resumed = MustOpen(StageWithToken("resumeAfter", hwm));
  ASSERT_NE(resumed, nullptr);
  auto events = Next(*resumed);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(OpType(events[0]), "insert");
}

TEST_F(ChangeStreamCursorTest, StartAtOperationTimeIncludesThatTimestamp) {
  writer_->Insert("db.c", R"({"_id": 1})");
  storage::Timestamp second = writer_->Insert("db.c", R"({"_id": 2})");
  bson::DocumentBuilder b;
  b.OpenDocument("0").OpenDocument("$changeStream").AppendTimestamp("startAtOperationTime", second);
  b.Close().Close();
  auto cursor = MustOpen(std::move(b).Finish().ToJson());
  ASSERT_NE(cursor, nullptr);
  auto events = Next(*cursor);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].Get("documentKey").Document().Get("_id").Int32(), 2);
}

TEST_F(ChangeStreamCursorTest, DropEndsTheStreamWithInvalidate) {
  auto cursor = MustOpen(R"({"0": {"$changeStream": {}}})");
  writer_->Insert("db.c", R"({"_id": 1})");
  writer_->Drop("db", "c");
  writer_->Insert("db.c", R"({"_id": 2})");
  auto events = Next(*cursor);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(OpType(events[0]), "insert");
  EXPECT_EQ(OpType(events[1]), "drop");
  EXPECT_EQ(OpType(events[2]), "invalidate");
  EXPECT_TRUE(cursor->exhausted());
  EXPECT_EQ(cursor->PostBatchResumeToken().bytes(), events[2].Get("_id").Document().bytes());
  EXPECT_FALSE(cursor->HasNewEntries());

  // resumeAfter the drop yields the invalidate again; startAfter the invalidate goes on past it.
  auto after_drop = MustOpen(StageWithToken("resumeAfter", events[1].Get("_id").Document()));
  auto again = Next(*after_drop);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(OpType(again[0]), "invalidate");
  EXPECT_TRUE(after_drop->exhausted());

  auto restarted = MustOpen(StageWithToken("startAfter", events[2].Get("_id").Document()));
  auto fresh = Next(*restarted);
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_EQ(OpType(fresh[0]), "insert");
  EXPECT_EQ(fresh[0].Get("documentKey").Document().Get("_id").Int32(), 2);
  EXPECT_FALSE(restarted->exhausted());
}

TEST_F(ChangeStreamCursorTest, InvalidateBatchSplitsAtTheBatchSize) {
  auto cursor = MustOpen(R"({"0": {"$changeStream": {}}})");
  writer_->Drop("db", "c");
  auto first = Next(*cursor, 1);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(OpType(first[0]), "drop");
  EXPECT_FALSE(cursor->exhausted());
  EXPECT_TRUE(cursor->HasNewEntries());
  EXPECT_EQ(cursor->PostBatchResumeToken().bytes(), first[0].Get("_id").Document().bytes());
  auto second = Next(*cursor, 1);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(OpType(second[0]), "invalidate");
  EXPECT_TRUE(cursor->exhausted());
}

TEST_F(ChangeStreamCursorTest, FilteredOutInvalidateStillClosesTheCursor) {
  auto cursor =
      MustOpen(R"({"0": {"$changeStream": {}}, "1": {"$match": {"operationType": "insert"}}})");
  writer_->Drop("db", "c");
  EXPECT_TRUE(Next(*cursor).empty());
  EXPECT_TRUE(cursor->exhausted());
  EXPECT_TRUE(cursor->post_batch_resume_token().from_invalidate);
}

TEST_F(ChangeStreamCursorTest, DatabaseStreamIsInvalidatedByDropDatabase) {
  auto cursor = MustOpen(R"({"0": {"$changeStream": {}}})", std::nullopt);
  writer_->Insert("db.a", R"({"_id": 1})");
  writer_->Insert("db.b", R"({"_id": 1})");
  writer_->Drop("db", "a");
  writer_->Command("db", R"({"dropDatabase": 1})");
  std::vector<std::string> types;
  for (const auto& event : Next(*cursor)) types.push_back(OpType(event));
  EXPECT_EQ(types,
            (std::vector<std::string>{"insert", "insert", "drop", "dropDatabase", "invalidate"}));
  EXPECT_TRUE(cursor->exhausted());
}

TEST_F(ChangeStreamCursorTest, UserStagesFilterAndReshapeEvents) {
  auto cursor = MustOpen(R"({"0": {"$changeStream": {}},
                             "1": {"$match": {"fullDocument.z": 3}},
                             "2": {"$project": {"optype": "$operationType", "ns": 1,
                                                "newField": "value"}}})");
  writer_->Insert("db.c", R"({"_id": 1, "y": 2})");
  writer_->Insert("db.c", R"({"_id": 2, "z": 3})");
  auto events = Next(*cursor);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].Get("optype").String(), "insert");
  EXPECT_EQ(events[0].Get("newField").String(), "value");
  EXPECT_TRUE(events[0].Get("_id").exists());
  EXPECT_FALSE(events[0].Get("fullDocument").exists());
}

TEST_F(ChangeStreamCursorTest, ProjectingOutTheTokenIsAFatalError) {
  // change-streams-errors.json: "Change Stream should error when _id is projected out".
  auto cursor = MustOpen(R"({"0": {"$changeStream": {}}, "1": {"$project": {"_id": 0}}})");
  EXPECT_TRUE(Next(*cursor).empty());
  writer_->Insert("db.c", R"({"_id": 1})");
  auto batch = cursor->NextBatch(kNoLimit, kNoLimit);
  ASSERT_FALSE(batch.ok());
  EXPECT_EQ(batch.status().code(), ErrorCode::kChangeStreamFatalError);
  EXPECT_TRUE(cursor->exhausted());

  auto replaced =
      MustOpen(R"({"0": {"$changeStream": {}}, "1": {"$replaceRoot": {"newRoot": {"_id": "x"}}}})");
  writer_->Insert("db.c", R"({"_id": 2})");
  EXPECT_EQ(replaced->NextBatch(kNoLimit, kNoLimit).status().code(),
            ErrorCode::kChangeStreamFatalError);
}

TEST_F(ChangeStreamCursorTest, TokenOfAnEventNotInTheOplogCannotResume) {
  writer_->Insert("db.c", R"({"_id": 1})");
  ResumeToken missing;
  missing.kind = ResumeToken::Kind::kEvent;
  missing.ts = engine_->oplog().LatestTimestamp() + 1000;
  missing.uuid = testing::TestUuid(1);
  auto cursor = Open(StageWithToken("resumeAfter", missing.ToDocument()));
  ASSERT_FALSE(cursor.ok());
  EXPECT_EQ(cursor.status().code(), ErrorCode::kChangeStreamFatalError);
  EXPECT_TRUE(
      cursor.status().reason().starts_with("cannot resume stream; the resume token was "
                                           "not found."));

  // An event of another collection is not an event of this stream.
  auto other = MustOpen(R"({"0": {"$changeStream": {}}})", std::nullopt);
  writer_->Insert("db.other", R"({"_id": 1})");
  auto other_events = Next(*other);
  ASSERT_EQ(other_events.size(), 1u);
  auto foreign = Open(StageWithToken("resumeAfter", other_events[0].Get("_id").Document()));
  EXPECT_EQ(foreign.status().code(), ErrorCode::kChangeStreamFatalError);

  ResumeToken forged = missing;
  forged.ts = engine_->oplog().LatestTimestamp();
  forged.event_hash = 12345;
  EXPECT_EQ(Open(StageWithToken("resumeAfter", forged.ToDocument())).status().code(),
            ErrorCode::kChangeStreamFatalError);
}

TEST_F(ChangeStreamCursorTest, ResumingBeforeTrimmedHistoryIsHistoryLost) {
  auto cursor = MustOpen(R"({"0": {"$changeStream": {}}})");
  writer_->Insert("db.c", R"({"_id": 1})");
  auto events = Next(*cursor);
  ASSERT_EQ(events.size(), 1u);
  storage::Timestamp boundary = engine_->oplog().LatestTimestamp() + 1;
  auto trimmed = [&boundary] { return boundary; };

  auto resumed =
      Open(StageWithToken("resumeAfter", events[0].Get("_id").Document()), "c", "db", trimmed);
  ASSERT_FALSE(resumed.ok());
  EXPECT_EQ(resumed.status().code(), ErrorCode::kChangeStreamHistoryLost);

  bson::DocumentBuilder b;
  b.OpenDocument("0").OpenDocument("$changeStream").AppendTimestamp("startAtOperationTime", 1);
  b.Close().Close();
  EXPECT_EQ(Open(std::move(b).Finish().ToJson(), "c", "db", trimmed).status().code(),
            ErrorCode::kChangeStreamHistoryLost);

  // A live cursor that falls behind the boundary fails on its next batch.
  auto live = Open(R"({"0": {"$changeStream": {}}})", "c", "db", trimmed);
  ASSERT_TRUE(live.ok());
  writer_->Insert("db.c", R"({"_id": 2})");
  boundary = engine_->oplog().LatestTimestamp() + 1;
  auto batch = live.value()->NextBatch(kNoLimit, kNoLimit);
  EXPECT_EQ(batch.status().code(), ErrorCode::kChangeStreamHistoryLost);
  EXPECT_TRUE(live.value()->exhausted());
}

TEST_F(ChangeStreamCursorTest, HasNewEntriesTellsWhenToWait) {
  auto cursor = MustOpen(R"({"0": {"$changeStream": {}}})");
  EXPECT_FALSE(cursor->HasNewEntries());
  const storage::Timestamp before = cursor->WaitAfter();
  EXPECT_EQ(before, engine_->oplog().LatestTimestamp());
  storage::Timestamp ts = writer_->Insert("db.other", R"({"_id": 1})");
  EXPECT_TRUE(cursor->HasNewEntries());
  EXPECT_TRUE(Next(*cursor).empty());
  EXPECT_FALSE(cursor->HasNewEntries());
  EXPECT_EQ(cursor->WaitAfter(), ts);
}

TEST_F(ChangeStreamCursorTest, EntryBudgetBoundsOneBatch) {
  max_entries_ = 2;
  auto cursor = MustOpen(R"({"0": {"$changeStream": {}}})");
  for (int i = 0; i < 5; ++i) writer_->Insert("db.other", "{\"_id\": " + std::to_string(i) + "}");
  writer_->Insert("db.c", R"({"_id": 1})");
  int calls = 0;
  std::vector<bson::Document> events;
  while (events.empty() && calls < 10) {
    ++calls;
    events = Next(*cursor);
    if (events.empty()) {
      EXPECT_TRUE(cursor->HasNewEntries());
    }
  }
  EXPECT_EQ(calls, 3);
  ASSERT_EQ(events.size(), 1u);
}

TEST_F(ChangeStreamCursorTest, BatchesRespectTheByteLimitButTakeAtLeastOneEvent) {
  auto cursor = MustOpen(R"({"0": {"$changeStream": {}}})");
  const std::string big(3000, 'x');
  for (int i = 0; i < 3; ++i) {
    writer_->Insert("db.c", "{\"_id\": " + std::to_string(i) + ", \"s\": \"" + big + "\"}");
  }
  auto first = cursor->NextBatch(kNoLimit, 100);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first.value().documents.size(), 1u);
  auto rest = cursor->NextBatch(kNoLimit, 7000);
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(rest.value().documents.size(), 2u);
  EXPECT_EQ(rest.value().bytes,
            rest.value().documents[0].size() + rest.value().documents[1].size());
}

TEST_F(ChangeStreamCursorTest, UpdateLookupReadsTheCurrentDocumentThroughTheCatalog) {
  auto catalog = catalog::Catalog::Load(engine_.get());
  ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
  auto info = catalog.value()->CreateCollection("db", "c");
  ASSERT_TRUE(info.ok()) << info.status().ToString();

  auto request = ParseChangeStreamPipeline(
      Json(R"({"0": {"$changeStream": {"fullDocument": "updateLookup"}}})"), "db", "c", {});
  ASSERT_TRUE(request.ok());
  ChangeStreamDeps deps;
  deps.oplog = &engine_->oplog();
  deps.sources = MakeCatalogEventSources(catalog.value().get(), &engine_->records());
  auto cursor = ChangeStreamCursor::Open(std::move(request).value(), std::move(deps));
  ASSERT_TRUE(cursor.ok());

  // Write through the catalog's collection id and UUID, as the server's writers do.
  const storage::CollectionRef ref{
      .id = info.value()->id, .ns = "db.c", .uuid = info.value()->uuid.view()};
  auto write = [&](const bson::Document& doc, const bson::Document* pre) {
    storage::WriteUnit unit;
    if (pre == nullptr) {
      unit.Insert(ref, doc);
    } else {
      unit.Update(ref, *pre, doc, storage::UpdateKind::kModify);
    }
    ASSERT_TRUE(engine_->pipeline().Commit(std::move(unit), {}).ok());
  };
  bson::Document v1 = Json(R"({"_id": 1, "x": 1})");
  bson::Document v2 = Json(R"({"_id": 1, "x": 2})");
  bson::Document v3 = Json(R"({"_id": 1, "x": 3})");
  write(v1, nullptr);
  write(v2, &v1);
  write(v3, &v2);
  auto batch = cursor.value()->NextBatch(kNoLimit, kNoLimit);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ASSERT_EQ(batch.value().documents.size(), 3u);
  // updateLookup gives the document as it is now, not as of the event.
  EXPECT_EQ(batch.value().documents[1].Get("fullDocument").Document().Get("x").Int32(), 3);
  EXPECT_EQ(batch.value()
                .documents[1]
                .Get("updateDescription")
                .Document()
                .Get("updatedFields")
                .Document()
                .Get("x")
                .Int32(),
            2);
}

}  // namespace
}  // namespace quarry::changestream
