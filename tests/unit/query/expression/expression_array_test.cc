// Array and object expressions.
#include <gtest/gtest.h>

#include "expression/expression_test_util.h"

namespace quarry::query {
namespace {

using testing::EvalErrorCode;
using testing::Evaluates;

ErrorCode Loc(int code) { return static_cast<ErrorCode>(code); }

TEST(ExpressionArrayTest, SizeCountsElements) {
  EXPECT_TRUE(Evaluates(R"({"$size": "$a"})", R"({"a": [1, 2, 3]})", "3"));
  EXPECT_EQ(EvalErrorCode(R"({"$size": "$nope"})"), Loc(17124));
}

TEST(ExpressionArrayTest, ArrayElemAtCountsFromEitherEnd) {
  EXPECT_TRUE(Evaluates(R"({"$arrayElemAt": [[1, 2, 3], 0]})", "{}", "1"));
  EXPECT_TRUE(Evaluates(R"({"$arrayElemAt": [[1, 2, 3], -1]})", "{}", "3"));
  EXPECT_TRUE(Evaluates(R"({"$arrayElemAt": [[1, 2, 3], 5]})", "{}", "missing"));
  EXPECT_EQ(EvalErrorCode(R"({"$arrayElemAt": ["x", 0]})"), Loc(28689));
}

TEST(ExpressionArrayTest, FirstAndLast) {
  EXPECT_TRUE(Evaluates(R"({"$first": [[4, 5]]})", "{}", "4"));
  EXPECT_TRUE(Evaluates(R"({"$last": "$a"})", R"({"a": [4, 5]})", "5"));
  EXPECT_TRUE(Evaluates(R"({"$first": [[]]})", "{}", "missing"));
}

TEST(ExpressionArrayTest, InTestsMembership) {
  EXPECT_TRUE(Evaluates(R"({"$in": [2, [1, 2.0]]})", "{}", "true"));
  EXPECT_TRUE(Evaluates(R"({"$in": ["x", []]})", "{}", "false"));
  EXPECT_EQ(EvalErrorCode(R"({"$in": [1, "$nope"]})"), Loc(40081));
}

TEST(ExpressionArrayTest, ConcatArraysJoins) {
  EXPECT_TRUE(Evaluates(R"({"$concatArrays": [[1], [2, [3]]]})", "{}", "[1, 2, [3]]"));
  EXPECT_TRUE(Evaluates(R"({"$concatArrays": [[1], null]})", "{}", "null"));
}

TEST(ExpressionArrayTest, SliceFromFrontBackAndPosition) {
  EXPECT_TRUE(Evaluates(R"({"$slice": [[1, 2, 3, 4], 2]})", "{}", "[1, 2]"));
  EXPECT_TRUE(Evaluates(R"({"$slice": [[1, 2, 3, 4], -2]})", "{}", "[3, 4]"));
  EXPECT_TRUE(Evaluates(R"({"$slice": [[1, 2, 3, 4], 1, 2]})", "{}", "[2, 3]"));
  EXPECT_EQ(EvalErrorCode(R"({"$slice": [[1], 0, 0]})"), Loc(28729));
}

TEST(ExpressionArrayTest, FilterKeepsMatchingElements) {
  EXPECT_TRUE(Evaluates(R"({"$filter": {"input": "$a", "as": "n", "cond": {"$gt": ["$$n", 1]}}})",
                        R"({"a": [1, 2, 3]})", "[2, 3]"));
  EXPECT_TRUE(Evaluates(R"({"$filter": {"input": [1, 2, 3], "cond": {"$lt": ["$$this", 3]},
                                        "limit": 1}})",
                        "{}", "[1]"));
  EXPECT_EQ(EvalErrorCode(R"({"$filter": {"input": [1]}})"), Loc(28648));
}

TEST(ExpressionArrayTest, MapTransformsElements) {
  EXPECT_TRUE(Evaluates(R"({"$map": {"input": "$a", "as": "x", "in": {"$multiply": ["$$x", 10]}}})",
                        R"({"a": [1, 2]})", "[10, 20]"));
  EXPECT_TRUE(Evaluates(R"({"$map": {"input": [1], "in": "$$this.nope"}})", "{}", "[null]"));
}

TEST(ExpressionArrayTest, ReduceFolds) {
  EXPECT_TRUE(Evaluates(
      R"({"$reduce": {"input": [1, 2, 3], "initialValue": 0, "in": {"$add": ["$$value", "$$this"]}}})",
      "{}", "6"));
}

TEST(ExpressionArrayTest, RangeReverseIsArrayIndexOf) {
  EXPECT_TRUE(Evaluates(R"({"$range": [0, 10, 3]})", "{}", "[0, 3, 6, 9]"));
  EXPECT_TRUE(Evaluates(R"({"$range": [3, 0, -1]})", "{}", "[3, 2, 1]"));
  EXPECT_EQ(EvalErrorCode(R"({"$range": [0, 1, 0]})"), Loc(34449));
  EXPECT_TRUE(Evaluates(R"({"$reverseArray": [[1, 2]]})", "{}", "[2, 1]"));
  EXPECT_TRUE(Evaluates(R"({"$isArray": [[1]]})", "{}", "true"));
  EXPECT_TRUE(Evaluates(R"({"$isArray": "x"})", "{}", "false"));
  EXPECT_TRUE(Evaluates(R"({"$indexOfArray": [[1, 2, 3, 2], 2, 2]})", "{}", "3"));
}

TEST(ExpressionArrayTest, SetOperators) {
  EXPECT_TRUE(Evaluates(R"({"$setUnion": [[1, 2], [2, 3]]})", "{}", "[1, 2, 3]"));
  EXPECT_TRUE(Evaluates(R"({"$setIntersection": [[1, 2], [2, 3]]})", "{}", "[2]"));
  EXPECT_TRUE(Evaluates(R"({"$setDifference": [[1, 2], [2, 3]]})", "{}", "[1]"));
  EXPECT_TRUE(Evaluates(R"({"$setEquals": [[1, 2], [2, 1, 1]]})", "{}", "true"));
  EXPECT_TRUE(Evaluates(R"({"$setIsSubset": [[1], [2, 1]]})", "{}", "true"));
}

TEST(ExpressionObjectTest, MergeObjectsLaterWins) {
  EXPECT_TRUE(Evaluates(R"({"$mergeObjects": [{"a": 1, "b": 2}, null, {"a": 3, "c": 4}]})", "{}",
                        R"({"a": 3, "b": 2, "c": 4})"));
  EXPECT_EQ(EvalErrorCode(R"({"$mergeObjects": [1]})"), Loc(40400));
}

TEST(ExpressionObjectTest, ObjectToArrayAndBack) {
  EXPECT_TRUE(Evaluates(R"({"$objectToArray": {"a": 1}})", "{}", R"([{"k": "a", "v": 1}])"));
  EXPECT_TRUE(
      Evaluates(R"({"$arrayToObject": [[["a", 1], ["b", 2]]]})", "{}", R"({"a": 1, "b": 2})"));
  EXPECT_TRUE(Evaluates(R"({"$arrayToObject": [[{"k": "a", "v": 1}]]})", "{}", R"({"a": 1})"));
  EXPECT_EQ(EvalErrorCode(R"({"$arrayToObject": [[[1, 2]]]})"), Loc(40395));
}

TEST(ExpressionObjectTest, GetFieldReadsDottedNamesLiterally) {
  EXPECT_TRUE(Evaluates(R"({"$getField": "a.b"})", R"({"a.b": 1, "a": {"b": 2}})", "1"));
  EXPECT_TRUE(Evaluates(R"({"$getField": {"field": "x", "input": {"x": 5}}})", "{}", "5"));
}

TEST(ExpressionObjectTest, SetFieldAddsDollarNames) {
  EXPECT_TRUE(
      Evaluates(R"({"$setField": {"field": {"$literal": "$a"}, "value": 1, "input": "$$ROOT"}})",
                R"({"_id": 1})", R"({"_id": 1, "$a": 1})"));
  EXPECT_TRUE(Evaluates(R"({"$unsetField": {"field": "x", "input": {"x": 1, "y": 2}}})", "{}",
                        R"({"y": 2})"));
}

}  // namespace
}  // namespace quarry::query
