// Parsing $changeStream: options, scope, mongod's validation errors and codes, and the stages
// allowed after it.
#include "changestream/change_stream_spec.h"

#include <gtest/gtest.h>

#include "changestream_test_util.h"

namespace quarry::changestream {
namespace {

using testing::Json;

bson::ValueView AsValue(const bson::Document& doc) {
  return bson::ValueView(bson::Type::kDocument, doc.bytes().data(), doc.size());
}

StatusWith<ChangeStreamSpec> Parse(std::string_view json, std::string_view db = "db",
                                   std::optional<std::string_view> coll = "c") {
  bson::Document options = Json(json);
  return ParseChangeStreamStage(AsValue(options), db, coll);
}

std::string TokenJson(const ResumeToken& token) { return token.ToDocument().ToJson(); }

ResumeToken EventToken(bool invalidate = false, bool with_uuid = true) {
  ResumeToken token;
  token.ts = storage::MakeTimestamp(10, 1);
  token.kind = ResumeToken::Kind::kEvent;
  token.from_invalidate = invalidate;
  if (with_uuid) token.uuid = testing::TestUuid(1);
  return token;
}

void ExpectCode(const StatusWith<ChangeStreamSpec>& result, ErrorCode code) {
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), code) << result.status().ToString();
}

TEST(ChangeStreamSpecTest, EmptyOptionsWatchTheCollectionWithDefaults) {
  auto spec = Parse("{}");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec.value().scope, StreamScope::kCollection);
  EXPECT_EQ(spec.value().db, "db");
  EXPECT_EQ(spec.value().coll, "c");
  EXPECT_EQ(spec.value().full_document, FullDocumentMode::kDefault);
  EXPECT_EQ(spec.value().full_document_before_change, BeforeChangeMode::kOff);
  EXPECT_FALSE(spec.value().show_expanded_events);
  EXPECT_FALSE(spec.value().resume_after.has_value());
  EXPECT_FALSE(spec.value().start_at_operation_time.has_value());
}

TEST(ChangeStreamSpecTest, EveryOptionIsRead) {
  auto spec = Parse(R"({"fullDocument": "updateLookup", "fullDocumentBeforeChange": "required",
                        "showExpandedEvents": true,
                        "startAtOperationTime": {"$timestamp": {"t": 5, "i": 6}}})");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec.value().full_document, FullDocumentMode::kUpdateLookup);
  EXPECT_EQ(spec.value().full_document_before_change, BeforeChangeMode::kRequired);
  EXPECT_TRUE(spec.value().show_expanded_events);
  EXPECT_EQ(spec.value().start_at_operation_time, storage::MakeTimestamp(5, 6));

  auto after = Parse("{\"resumeAfter\": " + TokenJson(EventToken()) + "}");
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  ASSERT_TRUE(after.value().resume_after.has_value());
  EXPECT_EQ(after.value().resume_after->ts, storage::MakeTimestamp(10, 1));

  EXPECT_EQ(Parse(R"({"fullDocument": "whenAvailable"})").value().full_document,
            FullDocumentMode::kWhenAvailable);
  EXPECT_EQ(Parse(R"({"fullDocument": "required"})").value().full_document,
            FullDocumentMode::kRequired);
  EXPECT_EQ(
      Parse(R"({"fullDocumentBeforeChange": "whenAvailable"})").value().full_document_before_change,
      BeforeChangeMode::kWhenAvailable);
}

TEST(ChangeStreamSpecTest, NullOptionsCountAsAbsent) {
  auto spec = Parse(R"({"fullDocument": null, "resumeAfter": null, "startAfter": null,
                        "startAtOperationTime": null, "showExpandedEvents": null})");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec.value().full_document, FullDocumentMode::kDefault);
  EXPECT_FALSE(spec.value().resume_after.has_value());
}

TEST(ChangeStreamSpecTest, BadOptionsFailAsMongodDoes) {
  ExpectCode(Parse(R"({"bogus": 1})"), ErrorCode::kLocation40415);
  ExpectCode(Parse(R"({"fullDocument": 1})"), ErrorCode::kTypeMismatch);
  ExpectCode(Parse(R"({"fullDocument": "sometimes"})"), ErrorCode::kBadValue);
  ExpectCode(Parse(R"({"fullDocumentBeforeChange": "on"})"), ErrorCode::kBadValue);
  ExpectCode(Parse(R"({"showExpandedEvents": 1})"), ErrorCode::kTypeMismatch);
  ExpectCode(Parse(R"({"startAtOperationTime": 5})"), ErrorCode::kTypeMismatch);
  ExpectCode(Parse(R"({"resumeAfter": "token"})"), ErrorCode::kTypeMismatch);
  ExpectCode(Parse(R"({"resumeAfter": {"_data": "00"}})"), ErrorCode::kInvalidResumeToken);

  bson::Document not_a_document = Json(R"({"x": 1})");
  auto result = ParseChangeStreamStage(not_a_document.Get("x"), "db", "c");
  EXPECT_EQ(static_cast<int>(result.status().code()), 50808);
}

TEST(ChangeStreamSpecTest, ConflictingResumeOptionsAreRefused) {
  const std::string token = TokenJson(EventToken());
  auto both = Parse("{\"resumeAfter\": " + token + ", \"startAfter\": " + token + "}");
  EXPECT_EQ(static_cast<int>(both.status().code()), 50865);
  auto with_time = Parse("{\"startAfter\": " + token +
                         R"(, "startAtOperationTime": {"$timestamp": {"t": 1, "i": 1}}})");
  EXPECT_EQ(static_cast<int>(with_time.status().code()), 40674);
}

TEST(ChangeStreamSpecTest, ResumeAfterAnInvalidateNeedsStartAfter) {
  const std::string token = TokenJson(EventToken(/*invalidate=*/true));
  ExpectCode(Parse("{\"resumeAfter\": " + token + "}"), ErrorCode::kInvalidResumeToken);
  auto start_after = Parse("{\"startAfter\": " + token + "}");
  ASSERT_TRUE(start_after.ok()) << start_after.status().ToString();
  EXPECT_TRUE(start_after.value().start_after->from_invalidate);
}

TEST(ChangeStreamSpecTest, CollectionStreamRefusesAnEventTokenWithoutUuid) {
  const std::string token = TokenJson(EventToken(false, /*with_uuid=*/false));
  ExpectCode(Parse("{\"resumeAfter\": " + token + "}"), ErrorCode::kInvalidResumeToken);
  // A database stream may resume from it (a dropDatabase event has no UUID).
  EXPECT_TRUE(Parse("{\"resumeAfter\": " + token + "}", "db", std::nullopt).ok());
}

TEST(ChangeStreamSpecTest, ScopeFollowsTheAggregateTarget) {
  auto db_stream = Parse("{}", "shop", std::nullopt);
  ASSERT_TRUE(db_stream.ok());
  EXPECT_EQ(db_stream.value().scope, StreamScope::kDatabase);
  EXPECT_EQ(CursorNamespace(db_stream.value()), "shop.$cmd.aggregate");

  auto cluster = Parse(R"({"allChangesForCluster": true})", "admin", std::nullopt);
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  EXPECT_EQ(cluster.value().scope, StreamScope::kCluster);
  EXPECT_EQ(CursorNamespace(cluster.value()), "admin.$cmd.aggregate");

  EXPECT_EQ(CursorNamespace(Parse("{}", "shop", "orders").value()), "shop.orders");
}

TEST(ChangeStreamSpecTest, InternalNamespacesAreRefused) {
  ExpectCode(Parse(R"({"allChangesForCluster": true})", "shop", std::nullopt),
             ErrorCode::kInvalidOptions);
  ExpectCode(Parse(R"({"allChangesForCluster": true})", "admin", "c"), ErrorCode::kInvalidOptions);
  ExpectCode(Parse("{}", "admin", std::nullopt), ErrorCode::kInvalidNamespace);
  ExpectCode(Parse("{}", "admin", "c"), ErrorCode::kInvalidNamespace);
  ExpectCode(Parse("{}", "local", "oplog.rs"), ErrorCode::kInvalidNamespace);
  ExpectCode(Parse("{}", "config", std::nullopt), ErrorCode::kInvalidNamespace);
  ExpectCode(Parse("{}", "db", "system.views"), ErrorCode::kInvalidNamespace);
}

TEST(ChangeStreamSpecTest, DetectsChangeStreamPipelines) {
  EXPECT_TRUE(
      IsChangeStreamPipeline(Json(R"({"0": {"$changeStream": {}}, "1": {"$match": {}}})")).value());
  EXPECT_FALSE(IsChangeStreamPipeline(Json(R"({"0": {"$match": {}}})")).value());
  EXPECT_FALSE(IsChangeStreamPipeline(Json("{}")).value());
  auto later = IsChangeStreamPipeline(Json(R"({"0": {"$match": {}}, "1": {"$changeStream": {}}})"));
  EXPECT_EQ(static_cast<int>(later.status().code()), 40602);
}

StatusWith<ChangeStreamRequest> ParsePipeline(std::string_view stages_json) {
  return ParseChangeStreamPipeline(Json(stages_json), "db", "c", query::PipelineContext{});
}

TEST(ChangeStreamSpecTest, PipelineKeepsTheStagesAfterChangeStream) {
  auto request = ParsePipeline(R"({"0": {"$changeStream": {"fullDocument": "updateLookup"}},
      "1": {"$match": {"operationType": "insert"}}, "2": {"$project": {"fullDocument": 1}},
      "3": {"$addFields": {"x": 1}}, "4": {"$set": {"y": 2}}, "5": {"$unset": "y"},
      "6": {"$replaceWith": "$$ROOT"}})");
  ASSERT_TRUE(request.ok()) << request.status().ToString();
  EXPECT_EQ(request.value().spec.full_document, FullDocumentMode::kUpdateLookup);
  EXPECT_EQ(request.value().post_stages.stages().size(), 6u);
}

TEST(ChangeStreamSpecTest, OtherStagesAreRefusedWithMongodCodes) {
  auto group = ParsePipeline(R"({"0": {"$changeStream": {}}, "1": {"$group": {"_id": null}}})");
  EXPECT_EQ(group.status().code(), ErrorCode::kIllegalOperation);
  EXPECT_NE(group.status().reason().find("$group is not permitted"), std::string::npos);
  auto sort = ParsePipeline(R"({"0": {"$changeStream": {}}, "1": {"$sort": {"a": 1}}})");
  EXPECT_EQ(sort.status().code(), ErrorCode::kIllegalOperation);
  auto unknown = ParsePipeline(R"({"0": {"$changeStream": {}}, "1": {"$unsupported": "foo"}})");
  EXPECT_EQ(static_cast<int>(unknown.status().code()), 40324);
  auto twice = ParsePipeline(R"({"0": {"$changeStream": {}}, "1": {"$changeStream": {}}})");
  EXPECT_EQ(static_cast<int>(twice.status().code()), 40602);
  auto bad_match = ParsePipeline(R"({"0": {"$changeStream": {}}, "1": {"$match": {"$bad": 1}}})");
  EXPECT_FALSE(bad_match.ok());
}

}  // namespace
}  // namespace quarry::changestream
