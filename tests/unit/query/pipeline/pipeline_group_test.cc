// $group, its accumulators, and $sortByCount.
#include <gtest/gtest.h>

#include "pipeline/pipeline_test_util.h"

namespace quarry::query {
namespace {

using testing::PipelineErrorCode;
using testing::Produces;

ErrorCode Loc(int code) { return static_cast<ErrorCode>(code); }

const char* kSales = R"([{"_id": 1, "item": "a", "qty": 2, "price": 10},
                         {"_id": 2, "item": "b", "qty": 1, "price": 20},
                         {"_id": 3, "item": "a", "qty": 5, "price": 10.5},
                         {"_id": 4, "item": "c"}])";

TEST(PipelineTest, GroupSumCountsDocuments) {
  EXPECT_TRUE(
      Produces(R"([{"$group": {"_id": 1, "n": {"$sum": 1}}}])", kSales, R"([{"_id": 1, "n": 4}])"));
}

TEST(PipelineTest, CountDocumentsShapeWorks) {
  EXPECT_TRUE(Produces(R"([{"$match": {"item": "a"}}, {"$skip": 0}, {"$limit": 10},
                           {"$group": {"_id": 1, "n": {"$sum": 1}}}])",
                       kSales, R"([{"_id": 1, "n": 2}])"));
  EXPECT_TRUE(Produces(R"([{"$match": {"item": "z"}}, {"$group": {"_id": 1, "n": {"$sum": 1}}}])",
                       kSales, "[]"));
}

TEST(PipelineTest, GroupByFieldInFirstSeenOrder) {
  EXPECT_TRUE(Produces(R"([{"$group": {"_id": "$item", "total": {"$sum": "$qty"},
                                       "avg": {"$avg": "$price"}, "n": {"$count": {}}}}])",
                       kSales,
                       R"([{"_id": "a", "total": 7, "avg": 10.25, "n": 2},
                           {"_id": "b", "total": 1, "avg": 20.0, "n": 1},
                           {"_id": "c", "total": 0, "avg": null, "n": 1}])"));
}

TEST(PipelineTest, GroupMissingKeyIsNull) {
  EXPECT_TRUE(Produces(R"([{"$group": {"_id": "$nope", "n": {"$sum": 1}}}])", kSales,
                       R"([{"_id": null, "n": 4}])"));
}

TEST(PipelineTest, GroupTreatsEqualNumbersAsOneKey) {
  EXPECT_TRUE(Produces(R"([{"$group": {"_id": "$k", "n": {"$sum": 1}}}])",
                       R"([{"k": 1}, {"k": 1.0}, {"k": {"$numberLong": "1"}}, {"k": 2}])",
                       R"([{"_id": 1, "n": 3}, {"_id": 2, "n": 1}])"));
}

TEST(PipelineTest, GroupByCompoundKey) {
  EXPECT_TRUE(
      Produces(R"([{"$group": {"_id": {"i": "$item", "p": "$price"}, "q": {"$max": "$qty"}}}])",
               R"([{"item": "a", "price": 1, "qty": 1}, {"item": "a", "price": 1, "qty": 4}])",
               R"([{"_id": {"i": "a", "p": 1}, "q": 4}])"));
}

TEST(PipelineTest, GroupAccumulatorsMinMaxFirstLastPushAddToSet) {
  EXPECT_TRUE(Produces(R"([{"$group": {"_id": null, "mn": {"$min": "$qty"}, "mx": {"$max": "$qty"},
                                       "f": {"$first": "$item"}, "l": {"$last": "$qty"},
                                       "p": {"$push": "$item"}, "s": {"$addToSet": "$item"}}}])",
                       kSales,
                       R"([{"_id": null, "mn": 1, "mx": 5, "f": "a", "l": null,
                            "p": ["a", "b", "a", "c"], "s": ["a", "b", "c"]}])"));
}

TEST(PipelineTest, GroupSumPromotesToLongAndDouble) {
  EXPECT_TRUE(Produces(R"([{"$group": {"_id": null, "s": {"$sum": "$v"}}}])",
                       R"([{"v": 2147483647}, {"v": 1}])",
                       R"([{"_id": null, "s": {"$numberLong": "2147483648"}}])"));
  EXPECT_TRUE(Produces(R"([{"$group": {"_id": null, "s": {"$sum": "$v"}}}])",
                       R"([{"v": 1}, {"v": 0.5}, {"v": "x"}])", R"([{"_id": null, "s": 1.5}])"));
}

TEST(PipelineTest, GroupMergeObjectsAndStdDev) {
  EXPECT_TRUE(Produces(R"([{"$group": {"_id": null, "m": {"$mergeObjects": "$o"},
                                       "sd": {"$stdDevPop": "$v"}}}])",
                       R"([{"o": {"a": 1}, "v": 1}, {"o": {"b": 2}, "v": 3}])",
                       R"([{"_id": null, "m": {"a": 1, "b": 2}, "sd": 1.0}])"));
}

TEST(PipelineTest, GroupErrors) {
  EXPECT_EQ(PipelineErrorCode(R"([{"$group": {"n": {"$sum": 1}}}])", "[]"), Loc(15955));
  EXPECT_EQ(PipelineErrorCode(R"([{"$group": {"_id": 1, "n": {"$foo": 1}}}])", "[]"), Loc(15952));
  EXPECT_EQ(PipelineErrorCode(R"([{"$group": {"_id": 1, "n": 1}}])", "[]"), Loc(40234));
  EXPECT_EQ(PipelineErrorCode(R"([{"$group": {"_id": 1, "a.b": {"$sum": 1}}}])", "[]"), Loc(40235));
  EXPECT_EQ(PipelineErrorCode(R"([{"$group": {"_id": 1, "n": {"$sum": [1, 2]}}}])", "[]"),
            Loc(40237));
}

TEST(PipelineTest, GroupOverMemoryLimitFailsWith292) {
  PipelineContext ctx;
  ctx.max_group_memory_bytes = 100;
  EXPECT_EQ(PipelineErrorCode(R"([{"$group": {"_id": "$_id", "all": {"$push": "$$ROOT"}}}])",
                              kSales, std::move(ctx)),
            ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed);
}

TEST(PipelineTest, SortByCountGroupsAndSortsDescending) {
  EXPECT_TRUE(Produces(R"([{"$sortByCount": "$item"}])", kSales,
                       R"([{"_id": "a", "count": 2}, {"_id": "b", "count": 1},
                           {"_id": "c", "count": 1}])"));
  EXPECT_EQ(PipelineErrorCode(R"([{"$sortByCount": "item"}])", "[]"), Loc(40147));
}

}  // namespace
}  // namespace quarry::query
