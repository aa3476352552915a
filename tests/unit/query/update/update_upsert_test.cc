// Upserted documents, pipeline-style updates and update descriptions.
#include <gtest/gtest.h>

#include "update/update_test_util.h"

namespace quarry::query {
namespace {

using testing::Doc;
using testing::UpdateErrorCode;
using testing::Updates;

StatusWith<bson::Document> Upsert(std::string_view filter_json, std::string_view update_json) {
  StatusWith<Matcher> filter = Matcher::Parse(Doc(filter_json));
  if (!filter.ok()) return filter.status();
  bson::Document update = Doc("{\"u\": " + std::string(update_json) + "}");
  UpdateOptions options;
  options.is_upsert = true;
  StatusWith<UpdateSpec> spec = UpdateSpec::Parse(update.Get("u"), options);
  if (!spec.ok()) return spec.status();
  return spec.value().BuildUpsertDocument(filter.value());
}

TEST(UpdateUpsertTest, SeedsFromFilterEqualitiesWithIdFirst) {
  StatusWith<bson::Document> doc =
      Upsert(R"({"a": 1, "_id": 7, "b.c": 2, "n": {"$gt": 1}})", R"({"$set": {"x": 1}})");
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_TRUE(testing::SameDoc(doc.value(), R"({"_id": 7, "a": 1, "b": {"c": 2}, "x": 1})"));
}

TEST(UpdateUpsertTest, SetOnInsertAppliesAndIdIsGenerated) {
  StatusWith<bson::Document> doc = Upsert(R"({"a": 1})", R"({"$setOnInsert": {"created": true}})");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(doc.value().view().FirstKey(), "_id");
  EXPECT_EQ(doc.value().Get("_id").type(), bson::Type::kObjectId);
  EXPECT_TRUE(doc.value().Get("created").Bool());
}

TEST(UpdateUpsertTest, ReplacementUpsertTakesIdFromFilter) {
  StatusWith<bson::Document> doc = Upsert(R"({"_id": 3, "a": 1})", R"({"b": 2})");
  ASSERT_TRUE(doc.ok());
  EXPECT_TRUE(testing::SameDoc(doc.value(), R"({"_id": 3, "b": 2})"));
}

TEST(UpdateUpsertTest, UpdateMaySetIdOnInsert) {
  StatusWith<bson::Document> doc = Upsert(R"({"a": 1})", R"({"$set": {"_id": 5}})");
  ASSERT_TRUE(doc.ok());
  EXPECT_TRUE(testing::SameDoc(doc.value(), R"({"_id": 5, "a": 1})"));
}

TEST(UpdateUpsertTest, PipelineUpsertSeesSeed) {
  StatusWith<bson::Document> doc =
      Upsert(R"({"_id": 1, "a": 2})", R"([{"$set": {"b": {"$multiply": ["$a", 10]}}}])");
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_TRUE(testing::SameDoc(doc.value(), R"({"_id": 1, "a": 2, "b": 20})"));
}

TEST(UpdateUpsertTest, PositionalOperatorFailsOnUpsert) {
  StatusWith<bson::Document> doc = Upsert(R"({"a": 1})", R"({"$set": {"a.$": 1}})");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().code(), ErrorCode::kBadValue);
}

TEST(UpdatePipelineTest, SetAndProjectStages) {
  EXPECT_TRUE(Updates(R"([{"$project": {"x": 1}}, {"$addFields": {"foo": 1}}])",
                      R"({"_id": 1, "x": 11, "y": 2})", R"({"_id": 1, "x": 11, "foo": 1})"));
  EXPECT_TRUE(Updates(R"([{"$set": {"total": {"$add": ["$a", "$b"]}}}])",
                      R"({"_id": 1, "a": 1, "b": 2})",
                      R"({"_id": 1, "a": 1, "b": 2, "total": 3})"));
}

TEST(UpdatePipelineTest, ReplaceRootKeepsOriginalId) {
  EXPECT_TRUE(Updates(R"([{"$replaceRoot": {"newRoot": "$t"}}, {"$addFields": {"foo": 1}}])",
                      R"({"_id": 1, "t": {"u": {"v": 1}}})",
                      R"({"_id": 1, "u": {"v": 1}, "foo": 1})"));
}

TEST(UpdatePipelineTest, ReplaceWithSetFieldAddsDollarField) {
  EXPECT_TRUE(Updates(
      R"([{"$replaceWith": {"$setField": {"field": {"$literal": "$a"}, "value": 1, "input": "$$ROOT"}}}])",
      R"({"_id": 1, "foo": {}})", R"({"_id": 1, "foo": {}, "$a": 1})"));
}

TEST(UpdatePipelineTest, ChangingIdFailsWithImmutableField) {
  EXPECT_EQ(UpdateErrorCode(R"([{"$set": {"_id": 2}}])", R"({"_id": 1})"),
            ErrorCode::kImmutableField);
}

TEST(UpdatePipelineTest, DisallowedStageFailsWithInvalidOptions) {
  testing::UpdateRun run = testing::RunUpdate(R"([{"$group": {"_id": 1}}])", R"({"_id": 1})");
  EXPECT_EQ(run.status.code(), ErrorCode::kInvalidOptions);
  EXPECT_EQ(run.status.reason(), "$group is not allowed to be used within an update");
}

TEST(UpdatePipelineTest, LetVariablesAreVisible) {
  bson::Document update = Doc(R"({"u": [{"$set": {"x": "$$x"}}]})");
  bson::Document let = Doc(R"({"x": "foo"})");
  UpdateOptions options;
  options.let = let;
  StatusWith<UpdateSpec> spec = UpdateSpec::Parse(update.Get("u"), options);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  StatusWith<UpdateResult> result = spec.value().Apply(Doc(R"({"_id": 1})"), MatchDetails{}, false);
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(testing::SameDoc(result.value().new_doc, R"({"_id": 1, "x": "foo"})"));
  EXPECT_TRUE(result.value().modified);
}

TEST(UpdateDescriptionTest, ReportsSetRemovedAndTruncatedFields) {
  UpdateDescription d = DescribeUpdate(Doc(R"({"_id": 1, "a": 1, "b": {"c": 1, "d": 2}, "e": 5,
                                               "arr": [1, 2, 3], "p": [1]})"),
                                       Doc(R"({"_id": 1, "a": 2, "b": {"c": 1, "d": 3}, "n": 1,
                                               "arr": [1, 9], "p": [1, 2]})"));
  EXPECT_TRUE(
      testing::SameDoc(d.updated_fields, R"({"a": 2, "b.d": 3, "n": 1, "arr.1": 9, "p.1": 2})"));
  ASSERT_EQ(d.removed_fields.size(), 1u);
  EXPECT_EQ(d.removed_fields[0], "e");
  ASSERT_EQ(d.truncated_arrays.size(), 1u);
  EXPECT_EQ(d.truncated_arrays[0].first, "arr");
  EXPECT_EQ(d.truncated_arrays[0].second, 2);
}

TEST(UpdateDescriptionTest, ApplyFillsDescriptionWhenAsked) {
  bson::Document update = Doc(R"({"u": {"$inc": {"n": 1}, "$unset": {"x": 1}}})");
  UpdateOptions options;
  options.describe_changes = true;
  StatusWith<UpdateSpec> spec = UpdateSpec::Parse(update.Get("u"), options);
  ASSERT_TRUE(spec.ok());
  StatusWith<UpdateResult> result =
      spec.value().Apply(Doc(R"({"_id": 1, "n": 1, "x": 0})"), MatchDetails{}, false);
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(testing::SameDoc(result.value().description.updated_fields, R"({"n": 2})"));
  ASSERT_EQ(result.value().description.removed_fields.size(), 1u);
}

}  // namespace
}  // namespace quarry::query

namespace quarry::query {
namespace {

TEST(UpdateUpsertTest, UpdateMayNotChangeFilterId) {
  StatusWith<bson::Document> doc = Upsert(R"({"_id": 1})", R"({"$set": {"_id": 2}})");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().code(), ErrorCode::kImmutableField);
}

}  // namespace
}  // namespace quarry::query
