// Matcher: MongoDB's filter language, operator by operator.
#include "query/match/matcher.h"

#include <gtest/gtest.h>

#include "bson/builder.h"
#include "query_test_util.h"
#include "text/search.h"

namespace quarry::query {
namespace {

using testing::Doc;

bool Matches(std::string_view filter, std::string_view doc) {
  bson::Document f = Doc(filter);
  StatusWith<Matcher> matcher = Matcher::Parse(f);
  EXPECT_TRUE(matcher.ok()) << matcher.status().ToString() << " for " << filter;
  if (!matcher.ok()) return false;
  bson::Document d = Doc(doc);
  return matcher.value().Matches(d);
}

Status ParseError(std::string_view filter) {
  bson::Document f = Doc(filter);
  StatusWith<Matcher> matcher = Matcher::Parse(f);
  return matcher.status();
}

bson::Document RegexOperatorFilter(std::string_view field, std::string_view pattern,
                                   std::string_view options) {
  bson::DocumentBuilder b;
  b.OpenDocument(field).AppendString("$regex", pattern);
  if (!options.empty()) b.AppendString("$options", options);
  b.Close();
  return std::move(b).Finish();
}

// --- Equality and paths ---

TEST(MatcherTest, EmptyFilterMatchesEverything) {
  EXPECT_TRUE(Matches("{}", "{}"));
  EXPECT_TRUE(Matches("{}", R"({"a": 1})"));
}

TEST(MatcherTest, EqualityOnTopLevelField) {
  EXPECT_TRUE(Matches(R"({"a": 1})", R"({"a": 1, "b": 2})"));
  EXPECT_FALSE(Matches(R"({"a": 1})", R"({"a": 2})"));
  EXPECT_FALSE(Matches(R"({"a": 1})", R"({"b": 1})"));
  EXPECT_TRUE(Matches(R"({"a": "x"})", R"({"a": "x"})"));
}

TEST(MatcherTest, SeveralFieldsMustAllMatch) {
  EXPECT_TRUE(Matches(R"({"a": 1, "b": 2})", R"({"a": 1, "b": 2})"));
  EXPECT_FALSE(Matches(R"({"a": 1, "b": 2})", R"({"a": 1, "b": 3})"));
}

TEST(MatcherTest, EqualityToDocumentComparesWholeDocumentInFieldOrder) {
  EXPECT_TRUE(Matches(R"({"a": {"x": 1, "y": 2}})", R"({"a": {"x": 1, "y": 2}})"));
  EXPECT_FALSE(Matches(R"({"a": {"x": 1, "y": 2}})", R"({"a": {"y": 2, "x": 1}})"));
  EXPECT_FALSE(Matches(R"({"a": {"x": 1}})", R"({"a": {"x": 1, "y": 2}})"));
}

TEST(MatcherTest, DottedPathReachesIntoSubdocument) {
  EXPECT_TRUE(Matches(R"({"a.b": 1})", R"({"a": {"b": 1}})"));
  EXPECT_TRUE(Matches(R"({"a.b.c": 1})", R"({"a": {"b": {"c": 1}}})"));
  EXPECT_FALSE(Matches(R"({"a.b": 1})", R"({"a": {"c": 1}})"));
}

TEST(MatcherTest, ArrayFieldMatchesWhenAnyElementMatches) {
  EXPECT_TRUE(Matches(R"({"a": 2})", R"({"a": [1, 2, 3]})"));
  EXPECT_FALSE(Matches(R"({"a": 4})", R"({"a": [1, 2, 3]})"));
}

TEST(MatcherTest, ArrayFieldMatchesWholeArrayEquality) {
  EXPECT_TRUE(Matches(R"({"a": [1, 2]})", R"({"a": [1, 2]})"));
  EXPECT_FALSE(Matches(R"({"a": [1, 2]})", R"({"a": [2, 1]})"));
  EXPECT_TRUE(Matches(R"({"a": [1, 2]})", R"({"a": [[1, 2], 3]})"));
}

TEST(MatcherTest, NestedArraysAreNotFlattenedForScalarEquality) {
  EXPECT_FALSE(Matches(R"({"a": 1})", R"({"a": [[1, 2]]})"));
}

TEST(MatcherTest, DottedPathTraversesArrayOfDocuments) {
  EXPECT_TRUE(Matches(R"({"a.b": 2})", R"({"a": [{"b": 1}, {"b": 2}]})"));
  EXPECT_FALSE(Matches(R"({"a.b": 3})", R"({"a": [{"b": 1}, {"b": 2}]})"));
  EXPECT_TRUE(Matches(R"({"a.b.c": 5})", R"({"a": [{"b": [{"c": 4}, {"c": 5}]}]})"));
  EXPECT_TRUE(Matches(R"({"a.b": 3})", R"({"a": [{"b": [1, 3]}]})"));
}

TEST(MatcherTest, NumericPathComponentIndexesArray) {
  EXPECT_TRUE(Matches(R"({"a.1": 20})", R"({"a": [10, 20, 30]})"));
  EXPECT_FALSE(Matches(R"({"a.0": 20})", R"({"a": [10, 20, 30]})"));
  EXPECT_TRUE(Matches(R"({"a.0.b": 1})", R"({"a": [{"b": 1}, {"b": 2}]})"));
  EXPECT_FALSE(Matches(R"({"a.1.b": 1})", R"({"a": [{"b": 1}, {"b": 2}]})"));
}

TEST(MatcherTest, NumericPathComponentAlsoNamesDocumentField) {
  EXPECT_TRUE(Matches(R"({"a.0": 5})", R"({"a": {"0": 5}})"));
  EXPECT_TRUE(Matches(R"({"a.0": 5})", R"({"a": [{"0": 5}]})"));
}

TEST(MatcherTest, NumericPathWithLeadingZeroDoesNotIndexArray) {
  EXPECT_FALSE(Matches(R"({"a.01": 20})", R"({"a": [10, 20]})"));
}

TEST(MatcherTest, NumericPathComponentOnOutOfRangeIndexFindsNothing) {
  EXPECT_FALSE(Matches(R"({"a.5": 1})", R"({"a": [1]})"));
  EXPECT_TRUE(Matches(R"({"a.5": null})", R"({"b": 1})"));
}

// --- Null and missing ---

TEST(MatcherTest, NullMatchesMissingField) {
  EXPECT_TRUE(Matches(R"({"a": null})", R"({"b": 1})"));
  EXPECT_TRUE(Matches(R"({"a": null})", R"({"a": null})"));
  EXPECT_FALSE(Matches(R"({"a": null})", R"({"a": 0})"));
}

TEST(MatcherTest, NullMatchesUndefinedValue) {
  EXPECT_TRUE(Matches(R"({"a": null})", R"({"a": {"$undefined": true}})"));
}

TEST(MatcherTest, NullMatchesArrayContainingNull) {
  EXPECT_TRUE(Matches(R"({"a": null})", R"({"a": [1, null]})"));
  EXPECT_FALSE(Matches(R"({"a": null})", R"({"a": [1, 2]})"));
}

TEST(MatcherTest, NullDoesNotMatchEmptyArray) {
  EXPECT_FALSE(Matches(R"({"a": null})", R"({"a": []})"));
}

TEST(MatcherTest, NullMatchesMissingSubfieldOfArrayElement) {
  EXPECT_TRUE(Matches(R"({"a.b": null})", R"({"a": [{"b": 1}, {"c": 2}]})"));
  EXPECT_FALSE(Matches(R"({"a.b": null})", R"({"a": [{"b": 1}, {"b": 2}]})"));
}

TEST(MatcherTest, NullMatchesPathThroughScalar) {
  EXPECT_TRUE(Matches(R"({"a.b": null})", R"({"a": 5})"));
}

TEST(MatcherTest, NullDoesNotMatchPathThroughArrayOfScalars) {
  EXPECT_FALSE(Matches(R"({"a.b": null})", R"({"a": [1, 2]})"));
}

// --- Comparisons ---

TEST(MatcherTest, NumbersOfAllTypesCompareByValue) {
  EXPECT_TRUE(Matches(R"({"a": 1})", R"({"a": 1.0})"));
  EXPECT_TRUE(Matches(R"({"a": {"$numberLong": "1"}})", R"({"a": 1})"));
  EXPECT_TRUE(Matches(R"({"a": {"$numberDecimal": "1"}})", R"({"a": 1})"));
  EXPECT_TRUE(Matches(R"({"a": {"$gt": 1}})", R"({"a": 1.5})"));
  EXPECT_TRUE(Matches(R"({"a": {"$lt": {"$numberLong": "3"}}})", R"({"a": 2.5})"));
}

TEST(MatcherTest, ComparisonOnlyWithinTypeBracket) {
  EXPECT_FALSE(Matches(R"({"a": {"$gt": 1}})", R"({"a": "abc"})"));
  EXPECT_FALSE(Matches(R"({"a": {"$lt": "a"}})", R"({"a": 1})"));
  EXPECT_TRUE(Matches(R"({"a": {"$gte": "a"}})", R"({"a": "b"})"));
  EXPECT_FALSE(Matches(R"({"a": {"$gt": 1}})", R"({"b": 5})"));
}

TEST(MatcherTest, ComparisonOperatorsOnNumbers) {
  EXPECT_TRUE(Matches(R"({"a": {"$gt": 1}})", R"({"a": 2})"));
  EXPECT_FALSE(Matches(R"({"a": {"$gt": 2}})", R"({"a": 2})"));
  EXPECT_TRUE(Matches(R"({"a": {"$gte": 2}})", R"({"a": 2})"));
  EXPECT_TRUE(Matches(R"({"a": {"$lt": 3}})", R"({"a": 2})"));
  EXPECT_TRUE(Matches(R"({"a": {"$lte": 2}})", R"({"a": 2})"));
  EXPECT_TRUE(Matches(R"({"a": {"$eq": 2}})", R"({"a": 2})"));
  EXPECT_TRUE(Matches(R"({"a": {"$gt": 1, "$lt": 3}})", R"({"a": 2})"));
  EXPECT_FALSE(Matches(R"({"a": {"$gt": 1, "$lt": 3}})", R"({"a": 3})"));
}

TEST(MatcherTest, RangeOnArrayMayBeSatisfiedByDifferentElements) {
  EXPECT_TRUE(Matches(R"({"a": {"$gt": 5, "$lt": 3}})", R"({"a": [1, 10]})"));
}

TEST(MatcherTest, NaNEqualsOnlyNaN) {
  EXPECT_TRUE(Matches(R"({"a": {"$numberDouble": "NaN"}})", R"({"a": {"$numberDouble": "NaN"}})"));
  EXPECT_FALSE(Matches(R"({"a": {"$numberDouble": "NaN"}})", R"({"a": 1})"));
  EXPECT_FALSE(Matches(R"({"a": {"$gt": {"$numberDouble": "NaN"}}})", R"({"a": 1})"));
  EXPECT_FALSE(Matches(R"({"a": {"$lt": 1}})", R"({"a": {"$numberDouble": "NaN"}})"));
  EXPECT_TRUE(Matches(R"({"a": {"$gte": {"$numberDouble": "NaN"}}})",
                      R"({"a": {"$numberDouble": "NaN"}})"));
}

TEST(MatcherTest, GtNullMatchesNothingButGteNullMatchesMissing) {
  EXPECT_FALSE(Matches(R"({"a": {"$gt": null}})", R"({"a": 1})"));
  EXPECT_FALSE(Matches(R"({"a": {"$gt": null}})", R"({"b": 1})"));
  EXPECT_TRUE(Matches(R"({"a": {"$gte": null}})", R"({"b": 1})"));
  EXPECT_TRUE(Matches(R"({"a": {"$lte": null}})", R"({"a": null})"));
}

TEST(MatcherTest, MinKeyAndMaxKeyBoundEveryType) {
  EXPECT_TRUE(Matches(R"({"a": {"$lt": {"$maxKey": 1}}})", R"({"a": "x"})"));
  EXPECT_TRUE(Matches(R"({"a": {"$gt": {"$minKey": 1}}})", R"({"a": [1]})"));
  EXPECT_FALSE(Matches(R"({"a": {"$gt": {"$maxKey": 1}}})", R"({"a": 1})"));
  EXPECT_TRUE(Matches(R"({"a": {"$maxKey": 1}})", R"({"a": {"$maxKey": 1}})"));
}

TEST(MatcherTest, DatesAndObjectIdsCompareWithinTheirType) {
  EXPECT_TRUE(Matches(R"({"d": {"$gt": {"$date": "2020-01-01T00:00:00Z"}}})",
                      R"({"d": {"$date": "2021-01-01T00:00:00Z"}})"));
  EXPECT_FALSE(Matches(R"({"d": {"$gt": {"$date": "2020-01-01T00:00:00Z"}}})", R"({"d": 1})"));
  EXPECT_TRUE(Matches(R"({"_id": {"$oid": "5f0000000000000000000001"}})",
                      R"({"_id": {"$oid": "5f0000000000000000000001"}})"));
}

TEST(MatcherTest, NeOnArrayRequiresNoElementEqual) {
  EXPECT_FALSE(Matches(R"({"a": {"$ne": 2}})", R"({"a": [1, 2]})"));
  EXPECT_TRUE(Matches(R"({"a": {"$ne": 3}})", R"({"a": [1, 2]})"));
}

TEST(MatcherTest, NeMatchesMissingFieldButNeNullDoesNot) {
  EXPECT_TRUE(Matches(R"({"a": {"$ne": 1}})", R"({"b": 1})"));
  EXPECT_FALSE(Matches(R"({"a": {"$ne": null}})", R"({"b": 1})"));
  EXPECT_TRUE(Matches(R"({"a": {"$ne": null}})", R"({"a": 0})"));
}

// --- $in / $nin ---

TEST(MatcherTest, InMatchesAnyListedValue) {
  EXPECT_TRUE(Matches(R"({"a": {"$in": [1, 2, 3]}})", R"({"a": 2})"));
  EXPECT_TRUE(Matches(R"({"a": {"$in": [1, 2, 3]}})", R"({"a": 2.0})"));
  EXPECT_FALSE(Matches(R"({"a": {"$in": [1, 2, 3]}})", R"({"a": 4})"));
  EXPECT_FALSE(Matches(R"({"a": {"$in": []}})", R"({"a": 4})"));
}

TEST(MatcherTest, InWithManyValuesFindsEachOne) {
  std::string filter = R"({"a": {"$in": [)";
  for (int i = 0; i < 50; ++i) {
    if (i > 0) filter += ",";
    filter += std::to_string(i * 3);
  }
  filter += "]}}";
  for (int i = 0; i < 150; ++i) {
    std::string doc = R"({"a": )";
    doc += std::to_string(i);
    doc += "}";
    EXPECT_EQ(Matches(filter, doc), i % 3 == 0) << i;
  }
}

TEST(MatcherTest, InMatchesArrayElements) {
  EXPECT_TRUE(Matches(R"({"a": {"$in": [5, 3]}})", R"({"a": [1, 3]})"));
  EXPECT_TRUE(Matches(R"({"a": {"$in": [[1, 3]]}})", R"({"a": [1, 3]})"));
}

TEST(MatcherTest, InWithRegexMatchesStrings) {
  EXPECT_TRUE(
      Matches(R"({"a": {"$in": [{"$regularExpression": {"pattern": "^ab", "options": ""}}, 5]}})",
              R"({"a": "abc"})"));
  EXPECT_FALSE(
      Matches(R"({"a": {"$in": [{"$regularExpression": {"pattern": "^ab", "options": ""}}]}})",
              R"({"a": "cab"})"));
  EXPECT_TRUE(
      Matches(R"({"a": {"$in": [{"$regularExpression": {"pattern": "^ab", "options": ""}}, 5]}})",
              R"({"a": 5})"));
}

TEST(MatcherTest, InWithNullMatchesMissingField) {
  EXPECT_TRUE(Matches(R"({"a": {"$in": [null, 1]}})", R"({"b": 1})"));
  EXPECT_FALSE(Matches(R"({"a": {"$in": [1]}})", R"({"b": 1})"));
}

TEST(MatcherTest, NinExcludesArraysContainingAnyValue) {
  EXPECT_FALSE(Matches(R"({"a": {"$nin": [2, 7]}})", R"({"a": [1, 2]})"));
  EXPECT_TRUE(Matches(R"({"a": {"$nin": [3, 7]}})", R"({"a": [1, 2]})"));
  EXPECT_TRUE(Matches(R"({"a": {"$nin": [3]}})", R"({"b": 1})"));
}

TEST(MatcherTest, InNeedsAnArray) {
  Status status = ParseError(R"({"a": {"$in": 5}})");
  EXPECT_EQ(status.code(), ErrorCode::kBadValue);
  EXPECT_EQ(status.reason(), "$in needs an array");
  EXPECT_EQ(ParseError(R"({"a": {"$nin": {}}})").reason(), "$nin needs an array");
}

TEST(MatcherTest, InRejectsOperatorObjects) {
  EXPECT_EQ(ParseError(R"({"a": {"$in": [{"$gt": 1}]}})").reason(), "cannot nest $ under $in");
}

// --- Logical operators ---

TEST(MatcherTest, AndRequiresEveryClause) {
  EXPECT_TRUE(Matches(R"({"$and": [{"a": 1}, {"b": 2}]})", R"({"a": 1, "b": 2})"));
  EXPECT_FALSE(Matches(R"({"$and": [{"a": 1}, {"b": 2}]})", R"({"a": 1, "b": 3})"));
}

TEST(MatcherTest, OrRequiresAnyClause) {
  EXPECT_TRUE(Matches(R"({"$or": [{"a": 1}, {"b": 2}]})", R"({"a": 0, "b": 2})"));
  EXPECT_FALSE(Matches(R"({"$or": [{"a": 1}, {"b": 2}]})", R"({"a": 0, "b": 0})"));
}

TEST(MatcherTest, NorRequiresNoClause) {
  EXPECT_TRUE(Matches(R"({"$nor": [{"a": 1}, {"b": 2}]})", R"({"a": 0, "b": 0})"));
  EXPECT_FALSE(Matches(R"({"$nor": [{"a": 1}, {"b": 2}]})", R"({"a": 1})"));
}

TEST(MatcherTest, LogicalOperatorsNest) {
  EXPECT_TRUE(
      Matches(R"({"$or": [{"$and": [{"a": 1}, {"b": 1}]}, {"c": 1}]})", R"({"a": 1, "b": 1})"));
  EXPECT_FALSE(
      Matches(R"({"$or": [{"$and": [{"a": 1}, {"b": 1}]}, {"c": 1}]})", R"({"a": 1, "b": 2})"));
}

TEST(MatcherTest, LogicalOperatorsNeedNonEmptyArray) {
  EXPECT_EQ(ParseError(R"({"$and": []})").reason(), "$and/$or/$nor must be a nonempty array");
  EXPECT_EQ(ParseError(R"({"$or": {"a": 1}})").reason(), "$and/$or/$nor must be a nonempty array");
  EXPECT_EQ(ParseError(R"({"$nor": [1]})").reason(),
            "$or/$and/$nor entries need to be full objects");
}

TEST(MatcherTest, NotNegatesOperatorsAndMatchesMissingField) {
  EXPECT_TRUE(Matches(R"({"a": {"$not": {"$gt": 5}}})", R"({"a": 3})"));
  EXPECT_FALSE(Matches(R"({"a": {"$not": {"$gt": 5}}})", R"({"a": 6})"));
  EXPECT_TRUE(Matches(R"({"a": {"$not": {"$gt": 5}}})", R"({"b": 6})"));
  EXPECT_TRUE(Matches(R"({"a": {"$not": {"$gt": 5}}})", R"({"a": "x"})"));
}

TEST(MatcherTest, NotAcceptsRegex) {
  EXPECT_FALSE(
      Matches(R"({"a": {"$not": {"$regularExpression": {"pattern": "^x", "options": ""}}}})",
              R"({"a": "xy"})"));
  EXPECT_TRUE(
      Matches(R"({"a": {"$not": {"$regularExpression": {"pattern": "^x", "options": ""}}}})",
              R"({"a": "yx"})"));
}

TEST(MatcherTest, NotNeedsRegexOrDocument) {
  EXPECT_EQ(ParseError(R"({"a": {"$not": 5}})").reason(), "$not needs a regex or a document");
  EXPECT_EQ(ParseError(R"({"a": {"$not": {}}})").reason(), "$not cannot be empty");
}

// --- $exists, $type ---

TEST(MatcherTest, ExistsTrueAndFalse) {
  EXPECT_TRUE(Matches(R"({"a": {"$exists": true}})", R"({"a": null})"));
  EXPECT_FALSE(Matches(R"({"a": {"$exists": true}})", R"({"b": 1})"));
  EXPECT_TRUE(Matches(R"({"a": {"$exists": false}})", R"({"b": 1})"));
  EXPECT_FALSE(Matches(R"({"a": {"$exists": false}})", R"({"a": 1})"));
  EXPECT_TRUE(Matches(R"({"a": {"$exists": 1}})", R"({"a": []})"));
}

TEST(MatcherTest, ExistsOnDottedPathThroughArray) {
  EXPECT_TRUE(Matches(R"({"a.b": {"$exists": true}})", R"({"a": [{"c": 1}, {"b": 1}]})"));
  EXPECT_FALSE(Matches(R"({"a.b": {"$exists": true}})", R"({"a": [{"c": 1}]})"));
  EXPECT_TRUE(Matches(R"({"a.b": {"$exists": false}})", R"({"a": [{"c": 1}]})"));
}

TEST(MatcherTest, TypeByAliasAndNumber) {
  EXPECT_TRUE(Matches(R"({"a": {"%type": "string"}})", R"({"a": "x"})"));
  EXPECT_FALSE(Matches(R"({"a": {"%type": "string"}})", R"({"a": 1})"));
  EXPECT_TRUE(Matches(R"({"a": {"%type": 2}})", R"({"a": "x"})"));
  EXPECT_TRUE(Matches(R"({"a": {"%type": "int"}})", R"({"a": 1})"));
  EXPECT_FALSE(Matches(R"({"a": {"%type": "double"}})", R"({"a": 1})"));
  EXPECT_TRUE(Matches(R"({"a": {"%type": ["double", "string"]}})", R"({"a": "x"})"));
  EXPECT_FALSE(Matches(R"({"a": {"%type": "null"}})", R"({"b": 1})"));
}

TEST(MatcherTest, TypeNumberMatchesEveryNumericType) {
  EXPECT_TRUE(Matches(R"({"a": {"%type": "number"}})", R"({"a": 1})"));
  EXPECT_TRUE(Matches(R"({"a": {"%type": "number"}})", R"({"a": 1.5})"));
  EXPECT_TRUE(Matches(R"({"a": {"%type": "number"}})", R"({"a": {"$numberLong": "1"}})"));
  EXPECT_FALSE(Matches(R"({"a": {"%type": "number"}})", R"({"a": "1"})"));
}

TEST(MatcherTest, TypeArrayMatchesArraysAndElementTypesToo) {
  EXPECT_TRUE(Matches(R"({"a": {"%type": "array"}})", R"({"a": []})"));
  EXPECT_FALSE(Matches(R"({"a": {"%type": "array"}})", R"({"a": 1})"));
  EXPECT_TRUE(Matches(R"({"a": {"%type": "string"}})", R"({"a": [1, "x"]})"));
}

TEST(MatcherTest, TypeRejectsUnknownTypes) {
  EXPECT_EQ(ParseError(R"({"a": {"%type": "foo"}})").reason(), "Unknown type name alias: foo");
  EXPECT_EQ(ParseError(R"({"a": {"%type": 100}})").code(), ErrorCode::kBadValue);
  EXPECT_EQ(ParseError(R"({"a": {"%type": []}})").reason(), "$type must match at least one type");
  EXPECT_EQ(ParseError(R"({"a": {"%type": {}}})").reason(),
            "type must be represented as a number or a string");
}

// --- Regular expressions ---

TEST(MatcherTest, BareRegexMatchesStrings) {
  EXPECT_TRUE(Matches(R"({"a": {"$regularExpression": {"pattern": "b+c", "options": ""}}})",
                      R"({"a": "abbc"})"));
  EXPECT_FALSE(Matches(R"({"a": {"$regularExpression": {"pattern": "^b", "options": ""}}})",
                       R"({"a": "abc"})"));
  EXPECT_FALSE(
      Matches(R"({"a": {"$regularExpression": {"pattern": "1", "options": ""}}})", R"({"a": 1})"));
}

TEST(MatcherTest, RegexOptionsApply) {
  EXPECT_TRUE(Matches(R"({"a": {"$regularExpression": {"pattern": "^ABC$", "options": "i"}}})",
                      R"({"a": "abc"})"));
  EXPECT_TRUE(Matches(R"({"a": {"$regularExpression": {"pattern": "^b", "options": "m"}}})",
                      R"({"a": "a\nb"})"));
  EXPECT_TRUE(Matches(R"({"a": {"$regularExpression": {"pattern": "a.b", "options": "s"}}})",
                      R"({"a": "a\nb"})"));
  EXPECT_TRUE(Matches(R"({"a": {"$regularExpression": {"pattern": "a b # c", "options": "x"}}})",
                      R"({"a": "ab"})"));
}

TEST(MatcherTest, RegexOperatorWithStringAndOptions) {
  bson::Document filter = RegexOperatorFilter("a", "^HEL", "i");
  StatusWith<Matcher> matcher = Matcher::Parse(filter);
  ASSERT_TRUE(matcher.ok()) << matcher.status().ToString();
  EXPECT_TRUE(matcher.value().Matches(Doc(R"({"a": "hello"})")));
  EXPECT_FALSE(matcher.value().Matches(Doc(R"({"a": "shell"})")));
}

TEST(MatcherTest, RegexMatchesArrayElements) {
  EXPECT_TRUE(Matches(R"({"tags": {"$regularExpression": {"pattern": "^red", "options": ""}}})",
                      R"({"tags": ["blue", "reddish"]})"));
}

TEST(MatcherTest, RegexMatchesUnicodeStrings) {
  EXPECT_TRUE(Matches(R"({"a": {"$regularExpression": {"pattern": "^é.$", "options": ""}}})",
                      R"({"a": "éa"})"));
}

TEST(MatcherTest, InvalidRegexFailsWithMongodCode) {
  Status status = ParseError(R"({"a": {"$regularExpression": {"pattern": "(", "options": ""}}})");
  EXPECT_EQ(static_cast<int>(status.code()), 51091);
  EXPECT_EQ(status.reason().rfind("Regular expression is invalid", 0), 0u);
}

TEST(MatcherTest, RegexRejectsUnknownOption) {
  bson::Document filter = RegexOperatorFilter("a", "x", "z");
  EXPECT_EQ(Matcher::Parse(filter).status().reason(), "invalid flag in regex options: z");
}

TEST(MatcherTest, OptionsWithoutRegexFails) {
  EXPECT_EQ(ParseError(R"({"a": {"%options": "i"}})").reason(), "$options needs a $regex");
}

TEST(MatcherTest, RegexOperatorNeedsString) {
  EXPECT_EQ(ParseError(R"({"a": {"%regex": 5}})").reason(), "$regex has to be a string");
}

TEST(MatcherTest, RegexCannotBeArgumentOfGt) {
  EXPECT_EQ(ParseError(R"({"a": {"$gt": {"$regularExpression": {"pattern": "x", "options": ""}}}})")
                .reason(),
            "Can't have RegEx as arg to predicate over field 'a'.");
}

// --- $mod, $all, $size, $elemMatch ---

TEST(MatcherTest, ModMatchesRemainder) {
  EXPECT_TRUE(Matches(R"({"a": {"$mod": [4, 1]}})", R"({"a": 9})"));
  EXPECT_FALSE(Matches(R"({"a": {"$mod": [4, 1]}})", R"({"a": 10})"));
  EXPECT_TRUE(Matches(R"({"a": {"$mod": [4, 1]}})", R"({"a": 9.7})"));
  EXPECT_TRUE(Matches(R"({"a": {"$mod": [4, -1]}})", R"({"a": -9})"));
  EXPECT_FALSE(Matches(R"({"a": {"$mod": [4, 1]}})", R"({"a": "9"})"));
}

TEST(MatcherTest, ModRejectsMalformedArguments) {
  EXPECT_EQ(ParseError(R"({"a": {"$mod": 4}})").reason(), "malformed mod, needs to be an array");
  EXPECT_EQ(ParseError(R"({"a": {"$mod": [4]}})").reason(), "malformed mod, not enough elements");
  EXPECT_EQ(ParseError(R"({"a": {"$mod": [4, 1, 2]}})").reason(),
            "malformed mod, too many elements");
  EXPECT_EQ(ParseError(R"({"a": {"$mod": ["4", 1]}})").reason(),
            "malformed mod, divisor not a number");
  EXPECT_EQ(ParseError(R"({"a": {"$mod": [0, 1]}})").reason(), "divisor cannot be 0");
}

TEST(MatcherTest, AllRequiresEveryValue) {
  EXPECT_TRUE(Matches(R"({"a": {"$all": [1, 3]}})", R"({"a": [1, 2, 3]})"));
  EXPECT_FALSE(Matches(R"({"a": {"$all": [1, 4]}})", R"({"a": [1, 2, 3]})"));
  EXPECT_TRUE(Matches(R"({"a": {"$all": [1]}})", R"({"a": 1})"));
  EXPECT_FALSE(Matches(R"({"a": {"$all": []}})", R"({"a": [1]})"));
}

TEST(MatcherTest, AllWithElemMatchClauses) {
  const char* filter = R"({"a": {"$all": [{"$elemMatch": {"x": 1}}, {"$elemMatch": {"y": 2}}]}})";
  EXPECT_TRUE(Matches(filter, R"({"a": [{"x": 1}, {"y": 2}]})"));
  EXPECT_FALSE(Matches(filter, R"({"a": [{"x": 1}]})"));
  EXPECT_EQ(ParseError(R"({"a": {"$all": [{"$elemMatch": {"x": 1}}, 5]}})").reason(),
            "$all/$elemMatch has to be consistent");
}

TEST(MatcherTest, AllRejectsNonArrayAndOperators) {
  EXPECT_EQ(ParseError(R"({"a": {"$all": 1}})").reason(), "$all needs an array");
  EXPECT_EQ(ParseError(R"({"a": {"$all": [{"$gt": 1}]}})").reason(), "no $ expressions in $all");
}

TEST(MatcherTest, SizeMatchesArrayLength) {
  EXPECT_TRUE(Matches(R"({"a": {"$size": 2}})", R"({"a": [1, 2]})"));
  EXPECT_FALSE(Matches(R"({"a": {"$size": 1}})", R"({"a": [1, 2]})"));
  EXPECT_TRUE(Matches(R"({"a": {"$size": 0}})", R"({"a": []})"));
  EXPECT_FALSE(Matches(R"({"a": {"$size": 0}})", R"({"b": 1})"));
  EXPECT_FALSE(Matches(R"({"a": {"$size": 1}})", R"({"a": "x"})"));
}

TEST(MatcherTest, SizeDoesNotLookInsideNestedArrays) {
  EXPECT_FALSE(Matches(R"({"a": {"$size": 2}})", R"({"a": [[1, 2]]})"));
  EXPECT_TRUE(Matches(R"({"a.b": {"$size": 2}})", R"({"a": [{"b": [1, 2]}]})"));
}

TEST(MatcherTest, SizeRejectsBadArguments) {
  EXPECT_EQ(ParseError(R"({"a": {"$size": "2"}})").reason(), "$size needs a number");
  EXPECT_EQ(ParseError(R"({"a": {"$size": 1.5}})").reason(), "$size must be a whole number");
  EXPECT_EQ(ParseError(R"({"a": {"$size": -1}})").reason(), "$size may not be negative");
}

TEST(MatcherTest, ElemMatchObjectFormNeedsOneElementToSatisfyAll) {
  const char* filter = R"({"a": {"$elemMatch": {"x": 1, "y": 2}}})";
  EXPECT_TRUE(Matches(filter, R"({"a": [{"x": 1, "y": 2}]})"));
  EXPECT_FALSE(Matches(filter, R"({"a": [{"x": 1}, {"y": 2}]})"));
  // Without $elemMatch the conditions may be met by different elements.
  EXPECT_TRUE(Matches(R"({"a.x": 1, "a.y": 2})", R"({"a": [{"x": 1}, {"y": 2}]})"));
}

TEST(MatcherTest, ElemMatchValueFormTestsElementsThemselves) {
  const char* filter = R"({"a": {"$elemMatch": {"$gt": 5, "$lt": 8}}})";
  EXPECT_TRUE(Matches(filter, R"({"a": [1, 6]})"));
  EXPECT_FALSE(Matches(filter, R"({"a": [1, 10]})"));
  EXPECT_FALSE(Matches(filter, R"({"a": 6})"));
}

TEST(MatcherTest, ElemMatchWithLogicalOperatorIsObjectForm) {
  EXPECT_TRUE(
      Matches(R"({"a": {"$elemMatch": {"$or": [{"x": 1}, {"x": 2}]}}})", R"({"a": [{"x": 2}]})"));
}

TEST(MatcherTest, ElemMatchValueFormWithNot) {
  EXPECT_TRUE(Matches(R"({"a": {"$elemMatch": {"$not": {"$gt": 5}}}})", R"({"a": [9, 2]})"));
  EXPECT_FALSE(Matches(R"({"a": {"$elemMatch": {"$not": {"$gt": 5}}}})", R"({"a": [9, 7]})"));
}

TEST(MatcherTest, ElemMatchNeedsObject) {
  EXPECT_EQ(ParseError(R"({"a": {"$elemMatch": 1}})").reason(), "$elemMatch needs an Object");
}

// --- Bit tests ---

TEST(MatcherTest, BitsOperatorsWithNumberMask) {
  // 54 = 0b110110
  EXPECT_TRUE(Matches(R"({"a": {"$bitsAllSet": 6}})", R"({"a": 54})"));
  EXPECT_FALSE(Matches(R"({"a": {"$bitsAllSet": 9}})", R"({"a": 54})"));
  EXPECT_TRUE(Matches(R"({"a": {"$bitsAnySet": 10}})", R"({"a": 54})"));
  EXPECT_TRUE(Matches(R"({"a": {"$bitsAllClear": 9}})", R"({"a": 54})"));
  EXPECT_TRUE(Matches(R"({"a": {"$bitsAnyClear": 7}})", R"({"a": 54})"));
  EXPECT_FALSE(Matches(R"({"a": {"$bitsAnyClear": 6}})", R"({"a": 54})"));
}

TEST(MatcherTest, BitsOperatorsWithPositionsAndBinData) {
  EXPECT_TRUE(Matches(R"({"a": {"$bitsAllSet": [1, 5]}})", R"({"a": 54})"));
  EXPECT_TRUE(Matches(R"({"a": {"$bitsAllSet": [1, 5]}})",
                      R"({"a": {"$binary": {"base64": "Ng==", "subType": "00"}}})"));
  EXPECT_TRUE(Matches(R"({"a": {"$bitsAllSet": {"$binary": {"base64": "Bg==", "subType": "00"}}}})",
                      R"({"a": 54})"));
}

TEST(MatcherTest, BitsOnNegativeNumbersAreSignExtended) {
  EXPECT_TRUE(Matches(R"({"a": {"$bitsAllSet": [0, 100]}})", R"({"a": -1})"));
  EXPECT_FALSE(Matches(R"({"a": {"$bitsAllSet": [100]}})", R"({"a": 1})"));
}

TEST(MatcherTest, BitsIgnoreNonIntegralValues) {
  EXPECT_FALSE(Matches(R"({"a": {"$bitsAnySet": 1}})", R"({"a": 1.5})"));
  EXPECT_FALSE(Matches(R"({"a": {"$bitsAnySet": 1}})", R"({"a": "1"})"));
}

TEST(MatcherTest, BitsRejectBadMasks) {
  EXPECT_EQ(ParseError(R"({"a": {"$bitsAllSet": -1}})").code(), ErrorCode::kBadValue);
  EXPECT_EQ(ParseError(R"({"a": {"$bitsAllSet": [-1]}})").code(), ErrorCode::kBadValue);
  EXPECT_EQ(ParseError(R"({"a": {"$bitsAllSet": "x"}})").code(), ErrorCode::kBadValue);
}

// --- Other top-level operators and errors ---

TEST(MatcherTest, CommentIsIgnored) {
  EXPECT_TRUE(Matches(R"({"$comment": "why", "a": 1})", R"({"a": 1})"));
}

TEST(MatcherTest, AlwaysTrueAndAlwaysFalse) {
  EXPECT_TRUE(Matches(R"({"$alwaysTrue": 1})", R"({"a": 1})"));
  EXPECT_FALSE(Matches(R"({"$alwaysFalse": 1})", R"({"a": 1})"));
}

TEST(MatcherTest, WhereIsRejected) {
  EXPECT_EQ(ParseError(R"({"$where": "this.a == 1"})").reason(), "$where is not supported");
}

TEST(MatcherTest, TextIsKeptForTheTextIndexAndRefusedWhereItCannotBeAnswered) {
  bson::Document filter = Doc(R"({"a": 1, "$and": [{"$text": {"$search": "x y"}}, {"b": 2}]})");
  Matcher matcher = Matcher::Parse(filter).value();
  ASSERT_NE(matcher.text_search(), nullptr);
  EXPECT_EQ(matcher.text_search()->search, "x y");
  // Only the text index answers $text: a document that reaches it fails the query.
  EXPECT_FALSE(matcher.Evaluate(Doc(R"({"a": 1, "b": 2})")).ok());
  Matcher rest = matcher.RestWithoutText().value();
  EXPECT_EQ(rest.text_search(), nullptr);
  EXPECT_TRUE(rest.Evaluate(Doc(R"({"a": 1, "b": 2})")).value());
  EXPECT_FALSE(rest.Evaluate(Doc(R"({"a": 1, "b": 3})")).value());

  EXPECT_EQ(ParseError(R"({"$nor": [{"$text": {"$search": "x"}}]})").reason(),
            "text expression not allowed in nor");
  EXPECT_EQ(ParseError(R"({"a": {"$elemMatch": {"$text": {"$search": "x"}}}})").reason(),
            "$text can only be applied to the top-level document");
  EXPECT_EQ(ParseError(R"({"$or": [{"$text": {"$search": "x"}}, {"a": 1}]})").code(),
            ErrorCode::kNoQueryExecutionPlans);
  EXPECT_EQ(
      ParseError(R"({"$text": {"$search": "x"}, "$and": [{"$text": {"$search": "y"}}]})").reason(),
      "Too many text expressions");
  EXPECT_EQ(ParseError(R"({"$text": {"$search": 1}})").code(), ErrorCode::kTypeMismatch);
}

TEST(MatcherTest, GeoIsRejectedClearly) {
  Status geo = ParseError(R"({"loc": {"$geoWithin": {"$center": [[0, 0], 1]}}})");
  EXPECT_EQ(geo.code(), ErrorCode::kBadValue);
  EXPECT_NE(geo.reason().find("$geoWithin"), std::string_view::npos);
  EXPECT_EQ(ParseError(R"({"loc": {"$near": [0, 0]}})").code(), ErrorCode::kBadValue);
}

TEST(MatcherTest, UnknownOperatorFails) {
  Status status = ParseError(R"({"a": {"$foo": 1}})");
  EXPECT_EQ(status.code(), ErrorCode::kBadValue);
  EXPECT_EQ(status.reason(), "unknown operator: $foo");
  EXPECT_EQ(ParseError(R"({"a": {"$gt": 1, "b": 2}})").reason(), "unknown operator: b");
}

TEST(MatcherTest, UnknownTopLevelOperatorFails) {
  Status status = ParseError(R"({"$foo": 1})");
  EXPECT_EQ(status.code(), ErrorCode::kBadValue);
  EXPECT_EQ(status.reason(), "unknown top level operator: $foo");
}

TEST(MatcherTest, UndefinedCannotBeCompared) {
  EXPECT_EQ(ParseError(R"({"a": {"$undefined": true}})").reason(), "cannot compare to undefined");
}

TEST(MatcherTest, DocumentWhoseFirstKeyIsNotAnOperatorIsALiteral) {
  EXPECT_TRUE(Matches(R"({"a": {"b": 1, "$c": 2}})", R"({"a": {"b": 1, "$c": 2}})"));
}

TEST(MatcherTest, DbRefIsComparedAsALiteral) {
  EXPECT_TRUE(Matches(R"({"r": {"$ref": "c", "$id": 1}})", R"({"r": {"$ref": "c", "$id": 1}})"));
}

// --- $expr ---

TEST(MatcherTest, ExprComparesFieldsOfTheSameDocument) {
  EXPECT_TRUE(Matches(R"({"$expr": {"$gt": ["$a", "$b"]}})", R"({"a": 5, "b": 3})"));
  EXPECT_FALSE(Matches(R"({"$expr": {"$gt": ["$a", "$b"]}})", R"({"a": 1, "b": 3})"));
}

TEST(MatcherTest, ExprCombinesWithOtherConditions) {
  EXPECT_TRUE(
      Matches(R"({"c": 1, "$expr": {"$eq": ["$a", "$b"]}})", R"({"a": 2, "b": 2, "c": 1})"));
  EXPECT_FALSE(
      Matches(R"({"c": 1, "$expr": {"$eq": ["$a", "$b"]}})", R"({"a": 2, "b": 2, "c": 0})"));
  EXPECT_TRUE(Matches(R"({"$or": [{"$expr": {"$eq": ["$a", 1]}}, {"b": 1}]})", R"({"a": 1})"));
}

TEST(MatcherTest, ExprSeesLetVariables) {
  bson::Document filter = Doc(R"({"$expr": {"$eq": ["$_id", "$$id"]}})");
  bson::Document let = Doc(R"({"id": 7})");
  StatusWith<Matcher> matcher = Matcher::Parse(filter, let);
  ASSERT_TRUE(matcher.ok()) << matcher.status().ToString();
  EXPECT_TRUE(matcher.value().Matches(Doc(R"({"_id": 7})")));
  EXPECT_FALSE(matcher.value().Matches(Doc(R"({"_id": 8})")));
}

TEST(MatcherTest, ExprWithUndefinedVariableFails) {
  EXPECT_FALSE(Matcher::Parse(Doc(R"({"$expr": {"$eq": ["$_id", "$$nope"]}})")).ok());
}

TEST(MatcherTest, ExprWithUnknownOperatorFails) {
  EXPECT_EQ(ParseError(R"({"$expr": {"$frobnicate": 1}})").code(),
            ErrorCode::kInvalidPipelineOperator);
}

TEST(MatcherTest, EvaluateFailsWhenExprFails) {
  StatusWith<Matcher> matcher =
      Matcher::Parse(Doc(R"({"$expr": {"$gt": [{"$divide": ["$a", "$b"]}, 1]}})"));
  ASSERT_TRUE(matcher.ok());
  StatusWith<bool> failed = matcher.value().Evaluate(Doc(R"({"a": 1, "b": 0})"));
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().reason().find("divide by zero"), std::string::npos);
  StatusWith<bool> decided = matcher.value().Evaluate(Doc(R"({"a": 4, "b": 2})"));
  ASSERT_TRUE(decided.ok());
  EXPECT_TRUE(decided.value());
}

TEST(MatcherTest, EvaluateFailsOnCatastrophicRegexUnderNot) {
  // Under $not a failed regex would otherwise turn into a match.
  bson::Document filter = Doc(R"({"a": {"$not": {"$regex": "^(a+)+$"}}})");
  StatusWith<Matcher> matcher = Matcher::Parse(filter);
  ASSERT_TRUE(matcher.ok());
  bson::DocumentBuilder b;
  b.AppendString("a", std::string(40, 'a') + "b");
  StatusWith<bool> result = matcher.value().Evaluate(std::move(b).Finish());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(static_cast<int>(result.status().code()), 51156);
}

TEST(MatcherTest, MatchesWithoutSinkTreatsAnUndecidableDocumentAsNoMatch) {
  StatusWith<Matcher> matcher =
      Matcher::Parse(Doc(R"({"$expr": {"$gt": [{"$divide": ["$a", "$b"]}, 1]}})"));
  ASSERT_TRUE(matcher.ok());
  EXPECT_FALSE(matcher.value().Matches(Doc(R"({"a": 1, "b": 0})")));
  // An error does not leak into a later evaluation.
  StatusWith<bool> next = matcher.value().Evaluate(Doc(R"({"a": 4, "b": 2})"));
  ASSERT_TRUE(next.ok());
  EXPECT_TRUE(next.value());
}

// --- Match details, value conditions, upserts ---

bool MatchWithDetails(std::string_view filter, std::string_view doc, MatchDetails* details) {
  bson::Document f = Doc(filter);
  StatusWith<Matcher> matcher = Matcher::Parse(f);
  EXPECT_TRUE(matcher.ok());
  bson::Document d = Doc(doc);
  return matcher.value().Matches(d, details);
}

TEST(MatcherTest, MatchDetailsGiveIndexOfMatchingElement) {
  MatchDetails details;
  ASSERT_TRUE(MatchWithDetails(R"({"a": 3})", R"({"a": [1, 2, 3]})", &details));
  EXPECT_EQ(details.array_index, 2u);
  details = {};
  ASSERT_TRUE(MatchWithDetails(R"({"a.b": 2})", R"({"a": [{"b": 1}, {"b": 2}]})", &details));
  EXPECT_EQ(details.array_index, 1u);
  details = {};
  ASSERT_TRUE(
      MatchWithDetails(R"({"a": {"$elemMatch": {"$gt": 1}}})", R"({"a": [0, 1, 5]})", &details));
  EXPECT_EQ(details.array_index, 2u);
}

TEST(MatcherTest, MatchDetailsUseOutermostArray) {
  MatchDetails details;
  ASSERT_TRUE(MatchWithDetails(R"({"a.b": 4})", R"({"a": [{"b": [1]}, {"b": [3, 4]}]})", &details));
  EXPECT_EQ(details.array_index, 1u);
}

TEST(MatcherTest, MatchDetailsEmptyWithoutArrays) {
  MatchDetails details;
  ASSERT_TRUE(MatchWithDetails(R"({"a": 1})", R"({"a": 1})", &details));
  EXPECT_FALSE(details.array_index.has_value());
}

TEST(MatcherTest, ValueConditionWithOperators) {
  bson::Document holder = Doc(R"({"c": {"$gte": 5}})");
  StatusWith<Matcher> matcher = Matcher::ParseValueCondition(holder.Get("c"));
  ASSERT_TRUE(matcher.ok()) << matcher.status().ToString();
  bson::Document values = Doc(R"({"a": 7, "b": 3, "c": "x"})");
  EXPECT_TRUE(matcher.value().MatchesValue(values.Get("a")));
  EXPECT_FALSE(matcher.value().MatchesValue(values.Get("b")));
  EXPECT_FALSE(matcher.value().MatchesValue(values.Get("c")));
}

TEST(MatcherTest, ValueConditionWithScalarIsEquality) {
  bson::Document holder = Doc(R"({"c": 3})");
  StatusWith<Matcher> matcher = Matcher::ParseValueCondition(holder.Get("c"));
  ASSERT_TRUE(matcher.ok());
  bson::Document values = Doc(R"({"a": 3, "b": 4})");
  EXPECT_TRUE(matcher.value().MatchesValue(values.Get("a")));
  EXPECT_FALSE(matcher.value().MatchesValue(values.Get("b")));
}

TEST(MatcherTest, ParsedFilterMatchesOnlyDocumentValues) {
  StatusWith<Matcher> matcher = Matcher::Parse(Doc(R"({"x": null})"));
  ASSERT_TRUE(matcher.ok());
  bson::Document values = Doc(R"({"a": {"y": 1}, "b": 5})");
  EXPECT_TRUE(matcher.value().MatchesValue(values.Get("a")));
  EXPECT_FALSE(matcher.value().MatchesValue(values.Get("b")));
}

TEST(MatcherTest, MatcherCopiesShareTheParsedFilter) {
  std::optional<Matcher> copy;
  {
    bson::Document filter = Doc(R"({"a": {"$in": [1, 2]}})");
    StatusWith<Matcher> matcher = Matcher::Parse(filter);
    ASSERT_TRUE(matcher.ok());
    copy = matcher.value();
  }
  EXPECT_TRUE(copy->Matches(Doc(R"({"a": 2})")));
  EXPECT_EQ(copy->filter().ToJson(), Doc(R"({"a": {"$in": [1, 2]}})").ToJson());
}

TEST(MatcherTest, UpsertEqualitiesCollectsPlainEqAndAndConditions) {
  StatusWith<Matcher> matcher = Matcher::Parse(Doc(
      R"({"a": 1, "b.c": 2, "$and": [{"d": 3}], "e": {"$eq": 4}, "f": {"$gt": 1}, "g": {"$in": [5]}, "$or": [{"h": 1}]})"));
  ASSERT_TRUE(matcher.ok());
  StatusWith<std::vector<EqualityCondition>> equalities = matcher.value().UpsertEqualities();
  ASSERT_TRUE(equalities.ok());
  std::vector<std::string> rendered;
  for (const EqualityCondition& eq : equalities.value()) {
    rendered.push_back(eq.path + "=" + eq.value.ToJson());
  }
  EXPECT_EQ(rendered, (std::vector<std::string>{"a=1", "b.c=2", "d=3", "e=4", "g=5"}));
}

TEST(MatcherTest, UpsertEqualitiesRejectsSamePathTwice) {
  StatusWith<Matcher> matcher = Matcher::Parse(Doc(R"({"a": 1, "$and": [{"a": 2}]})"));
  ASSERT_TRUE(matcher.ok());
  Status status = matcher.value().UpsertEqualities().status();
  EXPECT_EQ(status.code(), ErrorCode::kNotSingleValueField);
  EXPECT_EQ(status.reason(), "cannot infer query fields to set, path 'a' is matched twice");
}

TEST(MatcherTest, UpsertEqualitiesRejectsPrefixPaths) {
  StatusWith<Matcher> matcher = Matcher::Parse(Doc(R"({"a.b": 1, "a": {"$eq": {"b": 1}}})"));
  ASSERT_TRUE(matcher.ok());
  EXPECT_EQ(matcher.value().UpsertEqualities().status().reason(),
            "cannot infer query fields to set, both paths 'a' and 'a.b' are matched");
}

}  // namespace
}  // namespace quarry::query
