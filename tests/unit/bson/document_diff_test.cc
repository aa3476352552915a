// DiffDocuments: what an update changed, whether the two versions keep the fields' order or not.
#include "bson/document_diff.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bson/json.h"

namespace quarry::bson {
namespace {

Document Json(std::string_view json) {
  StatusWith<Document> doc = FromJson(json);
  EXPECT_TRUE(doc.ok()) << json;
  return doc.ok() ? std::move(doc).value() : Document();
}

using Strings = std::vector<std::string>;

struct Described {
  std::string updated;
  Strings removed;
};

Described Diff(std::string_view before, std::string_view after) {
  DocumentDiff diff = DiffDocuments(Json(before), Json(after));
  return {diff.updated_fields.view().ToJson(), diff.removed_fields};
}

TEST(DocumentDiffTest, SameFieldsInTheSameOrderReportOnlyChangedValues) {
  Described d = Diff(R"({"_id": 1, "a": 1, "b": "x", "c": true})",
                     R"({"_id": 1, "a": 1, "b": "y", "c": true})");
  EXPECT_EQ(d.updated, Json(R"({"b": "y"})").view().ToJson());
  EXPECT_TRUE(d.removed.empty());
}

TEST(DocumentDiffTest, ANumberOfAnotherTypeIsAChange) {
  Described d = Diff(R"({"a": 1})", R"({"a": 1.0})");
  EXPECT_EQ(d.updated, Json(R"({"a": 1.0})").view().ToJson());
}

TEST(DocumentDiffTest, FieldsAddedAtTheEndAreUpdatedAndNothingIsRemoved) {
  Described d = Diff(R"({"a": 1, "b": 2})", R"({"a": 1, "b": 2, "c": 3, "d": 4})");
  EXPECT_EQ(d.updated, Json(R"({"c": 3, "d": 4})").view().ToJson());
  EXPECT_TRUE(d.removed.empty());
}

TEST(DocumentDiffTest, FieldsRemovedAnywhereAreReported) {
  EXPECT_EQ(Diff(R"({"a": 1, "b": 2, "c": 3})", R"({"a": 1, "c": 3})").removed, Strings{"b"});
  EXPECT_EQ(Diff(R"({"a": 1, "b": 2, "c": 3})", R"({"a": 1, "b": 2})").removed, Strings{"c"});
  EXPECT_EQ(Diff(R"({"a": 1, "b": 2, "c": 3})", R"({"b": 2, "c": 3})").removed, Strings{"a"});
}

TEST(DocumentDiffTest, RemovingOneFieldAndAddingAnotherReportsBoth) {
  Described d = Diff(R"({"a": 1, "b": 2, "c": 3})", R"({"a": 1, "c": 3, "z": 9})");
  EXPECT_EQ(d.updated, Json(R"({"z": 9})").view().ToJson());
  EXPECT_EQ(d.removed, Strings{"b"});
}

TEST(DocumentDiffTest, ReorderedFieldsAreComparedByName) {
  Described d = Diff(R"({"a": 1, "b": 2, "c": 3})", R"({"c": 3, "a": 5, "b": 2})");
  EXPECT_EQ(d.updated, Json(R"({"a": 5})").view().ToJson());
  EXPECT_TRUE(d.removed.empty());
}

TEST(DocumentDiffTest, NestedDocumentsAreDiffedWithDottedPaths) {
  Described d =
      Diff(R"({"a": {"x": 1, "y": 2, "z": 3}, "b": 1})", R"({"a": {"x": 1, "y": 7}, "b": 1})");
  EXPECT_EQ(d.updated, Json(R"({"a.y": 7})").view().ToJson());
  EXPECT_EQ(d.removed, Strings{"a.z"});
}

TEST(DocumentDiffTest, ArraysAreDiffedByElementAndTruncationIsReported) {
  DocumentDiff diff = DiffDocuments(Json(R"({"arr": [1, 2, 3, 4]})"), Json(R"({"arr": [1, 5]})"));
  EXPECT_EQ(diff.updated_fields.view().ToJson(), Json(R"({"arr.1": 5})").view().ToJson());
  ASSERT_EQ(diff.truncated_arrays.size(), 1u);
  EXPECT_EQ(diff.truncated_arrays[0].first, "arr");
  EXPECT_EQ(diff.truncated_arrays[0].second, 2);
}

TEST(DocumentDiffTest, ADiffReadsBackFromItsDocument) {
  const DocumentDiff diff = DiffDocuments(Json(R"({"a": 1, "b": [1, 2, 3], "c": {"d": 1}})"),
                                          Json(R"({"a": 2, "b": [1]})"));
  const Document logged = DiffAsDocument(diff);
  EXPECT_EQ(
      logged.view().ToJson(),
      Json(R"({"u": {"a": 2}, "r": ["c"], "t": [{"field": "b", "newSize": {"$numberLong": "1"}}]})")
          .view()
          .ToJson());
  const DocumentDiff read = DiffFromDocument(logged);
  EXPECT_EQ(read.updated_fields.view().ToJson(), diff.updated_fields.view().ToJson());
  EXPECT_EQ(read.removed_fields, diff.removed_fields);
  EXPECT_EQ(read.truncated_arrays, diff.truncated_arrays);
}

}  // namespace
}  // namespace quarry::bson
