// Every operator, update modifier and stage fed odd arguments: any outcome is fine except a
// crash (run under ASan/UBSan to catch memory errors).
#include <gtest/gtest.h>

#include "expression/expression_test_util.h"
#include "pipeline/pipeline_test_util.h"
#include "update/update_test_util.h"

namespace quarry::query {
namespace {

const char* const kOddArguments[] = {
    "null",
    "1",
    "-1",
    "0",
    "1.5",
    "-0.0",
    "\"s\"",
    "\"\"",
    "[]",
    "[1]",
    "[1, 2, 3]",
    "{}",
    R"({"a": 1})",
    R"("$a")",
    R"("$arr")",
    "[null, null]",
    R"(["$a", "$b"])",
    "[[1, 2], -1]",
    R"([{"$numberLong": "9223372036854775807"}, -1])",
    R"([{"$numberLong": "-9223372036854775808"}, -1])",
    R"([{"$date": {"$numberLong": "9223372036854775807"}}, 1])",
    R"([1e308, 1e308])",
    R"(["héllo", 1, 1])",
    R"([[1, 2], 2147483647, 2147483647])",
    R"({"input": "$arr", "cond": true})",
    R"({"input": [1], "in": "$$this", "as": "x"})",
    R"({"date": "$d", "timezone": "+99:99"})",
    R"([{"$numberDecimal": "1E+6000"}, {"$numberDecimal": "-1E-6000"}])",
    R"([-1, 9223372036854775807])",
    R"([2, 62])",
    R"(["a", "b", "c", "d", "e"])",
    R"([1.5, -20])",
    R"([1.5, 100])"};

const char* const kOperators[] = {"$add",
                                  "$subtract",
                                  "$multiply",
                                  "$divide",
                                  "$mod",
                                  "$abs",
                                  "$ceil",
                                  "$floor",
                                  "$round",
                                  "$trunc",
                                  "$sqrt",
                                  "$pow",
                                  "$exp",
                                  "$ln",
                                  "$log",
                                  "$log10",
                                  "$eq",
                                  "$ne",
                                  "$gt",
                                  "$gte",
                                  "$lt",
                                  "$lte",
                                  "$cmp",
                                  "$and",
                                  "$or",
                                  "$not",
                                  "$cond",
                                  "$ifNull",
                                  "$switch",
                                  "$concat",
                                  "$substr",
                                  "$substrBytes",
                                  "$substrCP",
                                  "$toLower",
                                  "$toUpper",
                                  "$strLenBytes",
                                  "$strLenCP",
                                  "$split",
                                  "$trim",
                                  "$ltrim",
                                  "$rtrim",
                                  "$indexOfBytes",
                                  "$indexOfCP",
                                  "$strcasecmp",
                                  "$regexMatch",
                                  "$replaceOne",
                                  "$replaceAll",
                                  "$size",
                                  "$arrayElemAt",
                                  "$first",
                                  "$last",
                                  "$in",
                                  "$concatArrays",
                                  "$slice",
                                  "$filter",
                                  "$map",
                                  "$reduce",
                                  "$range",
                                  "$reverseArray",
                                  "$isArray",
                                  "$indexOfArray",
                                  "$allElementsTrue",
                                  "$anyElementTrue",
                                  "$setUnion",
                                  "$setIntersection",
                                  "$setDifference",
                                  "$setEquals",
                                  "$setIsSubset",
                                  "%type",
                                  "$isNumber",
                                  "$convert",
                                  "$toString",
                                  "$toInt",
                                  "$toLong",
                                  "$toDouble",
                                  "$toDecimal",
                                  "$toBool",
                                  "$toObjectId",
                                  "$toDate",
                                  "$year",
                                  "$month",
                                  "$dayOfMonth",
                                  "$hour",
                                  "$minute",
                                  "$second",
                                  "$millisecond",
                                  "$dayOfWeek",
                                  "$dayOfYear",
                                  "$week",
                                  "$isoWeek",
                                  "$isoWeekYear",
                                  "$isoDayOfWeek",
                                  "$dateToString",
                                  "$mergeObjects",
                                  "$objectToArray",
                                  "$arrayToObject",
                                  "$getField",
                                  "$setField",
                                  "$unsetField",
                                  "$let",
                                  "$literal",
                                  "$rand",
                                  "$meta",
                                  "$sum",
                                  "$avg",
                                  "$min",
                                  "$max",
                                  "$stdDevPop",
                                  "$stdDevSamp"};

const char* kDoc =
    R"({"a": 1, "b": "x", "arr": [1, {"a": 2}, [3]], "d": {"$date": "2020-01-01T00:00:00Z"}})";

TEST(ExpressionRobustnessTest, EveryOperatorSurvivesOddArguments) {
  std::size_t evaluated = 0;
  for (const char* op : kOperators) {
    for (const char* arg : kOddArguments) {
      std::string expr = std::string("{\"") + op + "\": " + arg + "}";
      StatusWith<Value> v = testing::TryEval(expr, kDoc);
      if (v.ok()) ++evaluated;
    }
  }
  EXPECT_GT(evaluated, 100u);
}

const char* const kUpdateOps[] = {"$set", "$unset",       "$inc",         "$mul",   "$min",
                                  "$max", "$currentDate", "$setOnInsert", "$push",  "$addToSet",
                                  "$pop", "$pull",        "$pullAll",     "$rename"};
const char* const kPaths[] = {"a",       "a.b",   "arr.0", "arr.5",     "arr.$[]",
                              "arr.1.a", "n.m.o", "_id",   "arr.$[].x", "b.c"};
const char* const kUpdateArgs[] = {
    "1",           "-1",   "\"z\"",    "[1, 2]", R"({"$each": [1], "$slice": -1})", R"({"$gt": 0})",
    R"({"a": 2})", "null", R"("arr")", "true"};

TEST(UpdateRobustnessTest, EveryModifierSurvivesOddPathsAndArguments) {
  const char* doc = R"({"_id": 1, "a": 1, "b": "x", "arr": [1, {"a": 2}, [3]]})";
  std::size_t applied = 0;
  for (const char* op : kUpdateOps) {
    for (const char* path : kPaths) {
      for (const char* arg : kUpdateArgs) {
        std::string update = std::string("{\"") + op + "\": {\"" + path + "\": " + arg + "}}";
        if (testing::RunUpdate(update, doc).status.ok()) ++applied;
      }
    }
  }
  EXPECT_GT(applied, 100u);
}

const char* const kStages[] = {
    "$match",       "$project",     "$addFields", "$set",   "$unset",       "$sort",
    "$limit",       "$skip",        "$count",     "$group", "$sortByCount", "$unwind",
    "$replaceRoot", "$replaceWith", "$sample",    "$facet", "$documents"};

TEST(PipelineRobustnessTest, EveryStageSurvivesOddSpecifications) {
  const char* docs = R"([{"_id": 1, "a": [1, 2], "b": {"c": 1}}, {"_id": 2}])";
  for (const char* stage : kStages) {
    for (const char* arg : kOddArguments) {
      std::string pipeline = std::string("[{\"") + stage + "\": " + arg + "}]";
      (void)testing::RunPipeline(pipeline, docs);
    }
  }
  SUCCEED();
}

}  // namespace
}  // namespace quarry::query
