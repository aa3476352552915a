// Projection: find's inclusion/exclusion language, _id rules, $slice, $elemMatch, positional.
#include "query/projection/projection.h"

#include <gtest/gtest.h>

#include "query_test_util.h"

namespace quarry::query {
namespace {

using testing::Doc;

// The JSON of `doc_json` projected by `spec_json`.
std::string Project(std::string_view spec_json, std::string_view doc_json,
                    const MatchDetails* details = nullptr) {
  StatusWith<Projection> projection = Projection::Parse(Doc(spec_json));
  EXPECT_TRUE(projection.ok()) << projection.status().ToString();
  if (!projection.ok()) return "<parse error>";
  StatusWith<bson::Document> out = projection.value().Apply(Doc(doc_json), details);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? out.value().ToJson() : "<apply error>";
}

std::string Json(std::string_view json) { return Doc(json).ToJson(); }

Status ParseError(std::string_view spec_json) { return Projection::Parse(Doc(spec_json)).status(); }

TEST(ProjectionTest, EmptyProjectionReturnsWholeDocument) {
  StatusWith<Projection> projection = Projection::Parse(Doc("{}"));
  ASSERT_TRUE(projection.ok());
  EXPECT_TRUE(projection.value().is_identity());
  EXPECT_EQ(Project("{}", R"({"_id": 1, "a": 2})"), Json(R"({"_id": 1, "a": 2})"));
}

TEST(ProjectionTest, InclusionKeepsListedFieldsAndId) {
  EXPECT_EQ(Project(R"({"a": 1})", R"({"_id": 1, "a": 2, "b": 3})"), Json(R"({"_id": 1, "a": 2})"));
  EXPECT_EQ(Project(R"({"a": true, "c": 1})", R"({"_id": 1, "a": 2, "b": 3})"),
            Json(R"({"_id": 1, "a": 2})"));
}

TEST(ProjectionTest, InclusionKeepsDocumentFieldOrder) {
  EXPECT_EQ(Project(R"({"c": 1, "a": 1})", R"({"a": 1, "b": 2, "c": 3, "_id": 0})"),
            Json(R"({"a": 1, "c": 3, "_id": 0})"));
}

TEST(ProjectionTest, IdCanBeExcludedInInclusionMode) {
  EXPECT_EQ(Project(R"({"a": 1, "_id": 0})", R"({"_id": 1, "a": 2, "b": 3})"), Json(R"({"a": 2})"));
}

TEST(ProjectionTest, IdAloneIncludedGivesOnlyId) {
  EXPECT_EQ(Project(R"({"_id": 1})", R"({"_id": 1, "a": 2})"), Json(R"({"_id": 1})"));
}

TEST(ProjectionTest, ExclusionRemovesListedFields) {
  EXPECT_EQ(Project(R"({"b": 0})", R"({"_id": 1, "a": 2, "b": 3})"), Json(R"({"_id": 1, "a": 2})"));
  EXPECT_EQ(Project(R"({"_id": 0})", R"({"_id": 1, "a": 2})"), Json(R"({"a": 2})"));
  EXPECT_EQ(Project(R"({"b": false, "_id": 0})", R"({"_id": 1, "a": 2, "b": 3})"),
            Json(R"({"a": 2})"));
}

TEST(ProjectionTest, ExclusionWithIdIncludedIsAllowed) {
  EXPECT_EQ(Project(R"({"b": 0, "_id": 1})", R"({"_id": 1, "a": 2, "b": 3})"),
            Json(R"({"_id": 1, "a": 2})"));
}

TEST(ProjectionTest, DottedInclusionReachesIntoSubdocuments) {
  EXPECT_EQ(Project(R"({"a.b": 1})", R"({"_id": 1, "a": {"b": 1, "c": 2}, "d": 3})"),
            Json(R"({"_id": 1, "a": {"b": 1}})"));
  EXPECT_EQ(Project(R"({"a": {"b": 1}})", R"({"_id": 1, "a": {"b": 1, "c": 2}})"),
            Json(R"({"_id": 1, "a": {"b": 1}})"));
}

TEST(ProjectionTest, DottedInclusionKeepsEmptySubdocument) {
  EXPECT_EQ(Project(R"({"a.b": 1})", R"({"_id": 1, "a": {"c": 2}})"),
            Json(R"({"_id": 1, "a": {}})"));
  EXPECT_EQ(Project(R"({"a.b": 1})", R"({"_id": 1, "a": 5})"), Json(R"({"_id": 1})"));
}

TEST(ProjectionTest, DottedInclusionAppliesToEachArrayElement) {
  EXPECT_EQ(Project(R"({"a.b": 1, "_id": 0})", R"({"a": [{"b": 1, "c": 2}, {"c": 3}, 7]})"),
            Json(R"({"a": [{"b": 1}, {}]})"));
}

TEST(ProjectionTest, DottedExclusionRemovesInsideSubdocumentsAndArrays) {
  EXPECT_EQ(Project(R"({"a.b": 0})", R"({"_id": 1, "a": {"b": 1, "c": 2}})"),
            Json(R"({"_id": 1, "a": {"c": 2}})"));
  EXPECT_EQ(Project(R"({"a.b": 0})", R"({"_id": 1, "a": [{"b": 1, "c": 2}, 7]})"),
            Json(R"({"_id": 1, "a": [{"c": 2}, 7]})"));
  EXPECT_EQ(Project(R"({"a.b": 0})", R"({"_id": 1, "a": 5})"), Json(R"({"_id": 1, "a": 5})"));
}

TEST(ProjectionTest, MixingInclusionAndExclusionFails) {
  Status status = ParseError(R"({"a": 1, "b": 0})");
  EXPECT_EQ(static_cast<int>(status.code()), 31254);
  EXPECT_EQ(status.reason(), "Cannot do exclusion on field b in inclusion projection");
  status = ParseError(R"({"a": 0, "b.c": 1})");
  EXPECT_EQ(static_cast<int>(status.code()), 31253);
  EXPECT_EQ(status.reason(), "Cannot do inclusion on field b.c in exclusion projection");
}

TEST(ProjectionTest, PathCollisionFails) {
  Status status = ParseError(R"({"a.b": 1, "a": 1})");
  EXPECT_EQ(static_cast<int>(status.code()), 31250);
  EXPECT_EQ(status.reason(), "Path collision at a");
  status = ParseError(R"({"a": 1, "a.b.c": 1})");
  EXPECT_EQ(static_cast<int>(status.code()), 31249);
  EXPECT_EQ(status.reason(), "Path collision at a.b.c remaining portion b.c");
}

TEST(ProjectionTest, SliceLimitsArray) {
  const char* doc = R"({"_id": 1, "a": [1, 2, 3, 4, 5], "b": 1})";
  EXPECT_EQ(Project(R"({"a": {"$slice": 2}})", doc), Json(R"({"_id": 1, "a": [1, 2], "b": 1})"));
  EXPECT_EQ(Project(R"({"a": {"$slice": -2}})", doc), Json(R"({"_id": 1, "a": [4, 5], "b": 1})"));
  EXPECT_EQ(Project(R"({"a": {"$slice": [1, 2]}})", doc),
            Json(R"({"_id": 1, "a": [2, 3], "b": 1})"));
  EXPECT_EQ(Project(R"({"a": {"$slice": [-2, 5]}})", doc),
            Json(R"({"_id": 1, "a": [4, 5], "b": 1})"));
  EXPECT_EQ(Project(R"({"a": {"$slice": [10, 1]}})", doc), Json(R"({"_id": 1, "a": [], "b": 1})"));
}

TEST(ProjectionTest, SliceWithInclusionKeepsOnlyListedFields) {
  EXPECT_EQ(
      Project(R"({"a": {"$slice": 1}, "c": 1})", R"({"_id": 1, "a": [1, 2], "b": 1, "c": 2})"),
      Json(R"({"_id": 1, "a": [1], "c": 2})"));
}

TEST(ProjectionTest, SliceLeavesNonArraysAlone) {
  EXPECT_EQ(Project(R"({"a": {"$slice": 1}})", R"({"_id": 1, "a": "x"})"),
            Json(R"({"_id": 1, "a": "x"})"));
}

TEST(ProjectionTest, SliceRejectsBadArguments) {
  EXPECT_EQ(ParseError(R"({"a": {"$slice": "x"}})").code(), static_cast<ErrorCode>(28667));
  EXPECT_EQ(ParseError(R"({"a": {"$slice": [1, 0]}})").reason(), "$slice limit must be positive");
}

TEST(ProjectionTest, ElemMatchKeepsFirstMatchingElement) {
  const char* doc = R"({"_id": 1, "a": [{"x": 1}, {"x": 2, "y": 1}, {"x": 2}], "b": 1})";
  EXPECT_EQ(Project(R"({"a": {"$elemMatch": {"x": 2}}})", doc),
            Json(R"({"_id": 1, "a": [{"x": 2, "y": 1}]})"));
  EXPECT_EQ(Project(R"({"a": {"$elemMatch": {"x": 9}}})", doc), Json(R"({"_id": 1})"));
}

TEST(ProjectionTest, ElemMatchOnNestedFieldFails) {
  EXPECT_EQ(ParseError(R"({"a.b": {"$elemMatch": {"x": 1}}})").code(),
            static_cast<ErrorCode>(31275));
}

TEST(ProjectionTest, PositionalKeepsTheMatchedElement) {
  MatchDetails details;
  details.array_index = 1;
  EXPECT_EQ(Project(R"({"a.$": 1})", R"({"_id": 1, "a": [5, 6, 7], "b": 2})", &details),
            Json(R"({"_id": 1, "a": [6]})"));
}

TEST(ProjectionTest, PositionalWithoutMatchFails) {
  StatusWith<Projection> projection = Projection::Parse(Doc(R"({"a.$": 1})"));
  ASSERT_TRUE(projection.ok());
  EXPECT_TRUE(projection.value().uses_positional());
  MatchDetails details;
  StatusWith<bson::Document> out = projection.value().Apply(Doc(R"({"a": [1]})"), &details);
  EXPECT_EQ(static_cast<int>(out.status().code()), 51246);
}

TEST(ProjectionTest, OnlyOnePositionalAllowed) {
  EXPECT_EQ(ParseError(R"({"a.$": 1, "b.$": 1})").code(), static_cast<ErrorCode>(31276));
}

TEST(ProjectionTest, LiteralValuesAreComputedFields) {
  EXPECT_EQ(Project(R"({"a": 1, "x": "hello"})", R"({"_id": 1, "a": 2, "b": 3})"),
            Json(R"({"_id": 1, "a": 2, "x": "hello"})"));
}

TEST(ProjectionTest, FieldPathAndOperatorExpressionsAreComputed) {
  EXPECT_EQ(Project(R"({"x": "$a.b", "y": {"$add": ["$c", 1]}, "_id": 0})",
                    R"({"_id": 1, "a": {"b": 5}, "c": 2})"),
            Json(R"({"x": 5, "y": 3})"));
}

TEST(ProjectionTest, ComputedDottedFieldCreatesSubdocument) {
  EXPECT_EQ(Project(R"({"n.x": "$a", "_id": 0})", R"({"_id": 1, "a": 4})"),
            Json(R"({"n": {"x": 4}})"));
}

TEST(ProjectionTest, ComputedFieldOfMissingPathIsOmitted) {
  EXPECT_EQ(Project(R"({"x": "$nope"})", R"({"_id": 1})"), Json(R"({"_id": 1})"));
}

TEST(ProjectionTest, ExpressionsAreNotAllowedInExclusionMode) {
  EXPECT_EQ(ParseError(R"({"a": 0, "x": "hello"})").code(), static_cast<ErrorCode>(31252));
}

TEST(ProjectionTest, DollarFieldNamesFail) {
  EXPECT_EQ(ParseError(R"({"$a": 1})").code(), static_cast<ErrorCode>(16410));
}

TEST(ProjectionTest, EmptySubProjectionFails) {
  EXPECT_EQ(ParseError(R"({"a": {}})").code(), static_cast<ErrorCode>(51270));
}

TEST(ProjectionTest, MetaIsRefusedWhereNoScoreIsCarried) {
  // A find with $text runs as an aggregate; here no document carries a text score.
  EXPECT_EQ(ParseError(R"({"s": {"$meta": "textScore"}})").code(), static_cast<ErrorCode>(40218));
  EXPECT_EQ(ParseError(R"({"s": {"$meta": "searchScore"}})").code(), ErrorCode::kBadValue);
}

}  // namespace
}  // namespace quarry::query
