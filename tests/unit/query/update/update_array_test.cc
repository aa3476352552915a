// Array update operators, positional $, $[] and $[<id>] with arrayFilters.
#include <gtest/gtest.h>

#include "update/update_test_util.h"

namespace quarry::query {
namespace {

using testing::RunUpdate;
using testing::UpdateErrorCode;
using testing::Updates;

TEST(UpdateArrayTest, PushAppendsAndCreatesArray) {
  EXPECT_TRUE(Updates(R"({"$push": {"a": 3}})", R"({"_id": 1, "a": [1, 2]})",
                      R"({"_id": 1, "a": [1, 2, 3]})"));
  EXPECT_TRUE(Updates(R"({"$push": {"a": [3]}})", R"({"_id": 1})", R"({"_id": 1, "a": [[3]]})"));
}

TEST(UpdateArrayTest, PushToNonArrayFails) {
  EXPECT_EQ(UpdateErrorCode(R"({"$push": {"a": 3}})", R"({"_id": 1, "a": 1})"),
            ErrorCode::kBadValue);
}

TEST(UpdateArrayTest, PushEachWithPositionSortAndSlice) {
  EXPECT_TRUE(Updates(R"({"$push": {"a": {"$each": [5, 6], "$position": 0}}})",
                      R"({"_id": 1, "a": [1]})", R"({"_id": 1, "a": [5, 6, 1]})"));
  EXPECT_TRUE(Updates(R"({"$push": {"a": {"$each": [5, 0], "$sort": 1, "$slice": 3}}})",
                      R"({"_id": 1, "a": [3, 1]})", R"({"_id": 1, "a": [0, 1, 3]})"));
  EXPECT_TRUE(Updates(R"({"$push": {"a": {"$each": [4], "$slice": -2}}})",
                      R"({"_id": 1, "a": [1, 2, 3]})", R"({"_id": 1, "a": [3, 4]})"));
  EXPECT_TRUE(Updates(R"({"$push": {"a": {"$each": [{"s": 1}], "$sort": {"s": -1}}}})",
                      R"({"_id": 1, "a": [{"s": 2}, {"s": 3}]})",
                      R"({"_id": 1, "a": [{"s": 3}, {"s": 2}, {"s": 1}]})"));
}

TEST(UpdateArrayTest, PushDocumentWithoutEachIsAValue) {
  EXPECT_TRUE(Updates(R"({"$push": {"a": {"$slice": 1}}})", R"({"_id": 1, "a": []})",
                      R"({"_id": 1, "a": [{"$slice": 1}]})"));
}

TEST(UpdateArrayTest, PushModifierErrors) {
  EXPECT_EQ(UpdateErrorCode(R"({"$push": {"a": {"$each": 1}}})", R"({"_id": 1})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(UpdateErrorCode(R"({"$push": {"a": {"$each": [], "$bad": 1}}})", R"({"_id": 1})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(UpdateErrorCode(R"({"$push": {"a": {"$each": [], "$slice": 1.5}}})", R"({"_id": 1})"),
            ErrorCode::kBadValue);
}

TEST(UpdateArrayTest, AddToSetSkipsEqualValues) {
  EXPECT_TRUE(Updates(R"({"$addToSet": {"a": 2.0}})", R"({"_id": 1, "a": [1, 2]})",
                      R"({"_id": 1, "a": [1, 2]})"));
  EXPECT_TRUE(Updates(R"({"$addToSet": {"a": {"$each": [2, 3, 3]}}})", R"({"_id": 1, "a": [1, 2]})",
                      R"({"_id": 1, "a": [1, 2, 3]})"));
  EXPECT_TRUE(Updates(R"({"$addToSet": {"a": 1}})", R"({"_id": 1})", R"({"_id": 1, "a": [1]})"));
  EXPECT_EQ(UpdateErrorCode(R"({"$addToSet": {"a": 1}})", R"({"_id": 1, "a": 1})"),
            ErrorCode::kBadValue);
}

TEST(UpdateArrayTest, PopRemovesFirstOrLast) {
  EXPECT_TRUE(Updates(R"({"$pop": {"a": 1}})", R"({"_id": 1, "a": [1, 2, 3]})",
                      R"({"_id": 1, "a": [1, 2]})"));
  EXPECT_TRUE(Updates(R"({"$pop": {"a": -1}})", R"({"_id": 1, "a": [1, 2, 3]})",
                      R"({"_id": 1, "a": [2, 3]})"));
  EXPECT_EQ(UpdateErrorCode(R"({"$pop": {"a": 2}})", R"({"_id": 1})"), ErrorCode::kFailedToParse);
  EXPECT_EQ(UpdateErrorCode(R"({"$pop": {"a": 1}})", R"({"_id": 1, "a": 5})"),
            ErrorCode::kTypeMismatch);
}

TEST(UpdateArrayTest, PullRemovesEqualOrMatchingElements) {
  EXPECT_TRUE(Updates(R"({"$pull": {"a": 2}})", R"({"_id": 1, "a": [1, 2, 3, 2]})",
                      R"({"_id": 1, "a": [1, 3]})"));
  EXPECT_TRUE(Updates(R"({"$pull": {"a": {"$gte": 2}}})", R"({"_id": 1, "a": [1, 2, 3]})",
                      R"({"_id": 1, "a": [1]})"));
  EXPECT_TRUE(Updates(R"({"$pull": {"a": {"x": 1}}})",
                      R"({"_id": 1, "a": [{"x": 1, "y": 1}, {"x": 2}, 1]})",
                      R"({"_id": 1, "a": [{"x": 2}, 1]})"));
  EXPECT_TRUE(Updates(R"({"$pull": {"a": 1}})", R"({"_id": 1, "a": [[1], 1]})",
                      R"({"_id": 1, "a": [[1]]})"));
}

TEST(UpdateArrayTest, PullAllRemovesListedValues) {
  EXPECT_TRUE(Updates(R"({"$pullAll": {"a": [1, 3]}})", R"({"_id": 1, "a": [1, 2, 3, 1]})",
                      R"({"_id": 1, "a": [2]})"));
  EXPECT_EQ(UpdateErrorCode(R"({"$pullAll": {"a": 1}})", R"({"_id": 1})"), ErrorCode::kBadValue);
}

TEST(UpdateArrayTest, PositionalOperatorUsesMatchedIndex) {
  MatchDetails details;
  details.array_index = 1;
  testing::UpdateRun run = RunUpdate(R"({"$set": {"a.$.b": 9}})",
                                     R"({"_id": 1, "a": [{"b": 1}, {"b": 2}]})", {}, details);
  ASSERT_TRUE(run.status.ok()) << run.status.ToString();
  EXPECT_TRUE(testing::SameDoc(run.doc, R"({"_id": 1, "a": [{"b": 1}, {"b": 9}]})"));
}

TEST(UpdateArrayTest, PositionalOperatorWithoutMatchFails) {
  EXPECT_EQ(UpdateErrorCode(R"({"$set": {"a.$": 9}})", R"({"_id": 1, "a": [1]})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(UpdateErrorCode(R"({"$set": {"a.$.b.$": 9}})", R"({"_id": 1})"), ErrorCode::kBadValue);
}

TEST(UpdateArrayTest, AllPositionalUpdatesEveryElement) {
  EXPECT_TRUE(Updates(R"({"$inc": {"a.$[]": 10}})", R"({"_id": 1, "a": [1, 2]})",
                      R"({"_id": 1, "a": [11, 12]})"));
  EXPECT_TRUE(Updates(R"({"$set": {"a.$[].b": 0}})", R"({"_id": 1, "a": [{"b": 1}, {}]})",
                      R"({"_id": 1, "a": [{"b": 0}, {"b": 0}]})"));
  EXPECT_EQ(UpdateErrorCode(R"({"$set": {"a.$[]": 1}})", R"({"_id": 1})"), ErrorCode::kBadValue);
  EXPECT_EQ(UpdateErrorCode(R"({"$set": {"a.$[]": 1}})", R"({"_id": 1, "a": 5})"),
            ErrorCode::kBadValue);
}

TEST(UpdateArrayTest, ArrayFiltersSelectElements) {
  EXPECT_TRUE(Updates(R"({"$set": {"y.$[i].b": 2}})", R"({"_id": 1, "y": [{"b": 3}, {"b": 1}]})",
                      R"({"_id": 1, "y": [{"b": 2}, {"b": 1}]})", {R"({"i.b": 3})"}));
  testing::UpdateRun run = RunUpdate(R"({"$set": {"y.$[i].b": 2}})",
                                     R"({"_id": 1, "y": [{"b": 3}, {"b": 1}]})", {R"({"i.b": 4})"});
  ASSERT_TRUE(run.status.ok());
  EXPECT_FALSE(run.modified);
}

TEST(UpdateArrayTest, NestedArrayFilters) {
  EXPECT_TRUE(Updates(R"({"$set": {"y.$[i].c.$[j].d": 0}})",
                      R"({"_id": 3, "y": [{"b": 5, "c": [{"d": 2}, {"d": 1}]}]})",
                      R"({"_id": 3, "y": [{"b": 5, "c": [{"d": 2}, {"d": 0}]}]})",
                      {R"({"i.b": 5})", R"({"j.d": 1})"}));
}

TEST(UpdateArrayTest, ArrayFilterOnScalarElements) {
  EXPECT_TRUE(Updates(R"({"$set": {"a.$[x]": 0}})", R"({"_id": 1, "a": [1, 5, 9]})",
                      R"({"_id": 1, "a": [1, 0, 0]})", {R"({"x": {"$gt": 4}})"}));
}

TEST(UpdateArrayTest, ArrayFilterErrors) {
  EXPECT_EQ(UpdateErrorCode(R"({"$set": {"a.$[i]": 1}})", R"({"_id": 1})"), ErrorCode::kBadValue);
  EXPECT_EQ(UpdateErrorCode(R"({"$set": {"a.$[i]": 1}})", R"({"_id": 1})",
                            {R"({"i": 1})", R"({"j": 1})"}),
            ErrorCode::kFailedToParse);
  EXPECT_EQ(UpdateErrorCode(R"({"$set": {"a.$[i]": 1}})", R"({"_id": 1})",
                            {R"({"i": 1})", R"({"i": 2})"}),
            ErrorCode::kFailedToParse);
  EXPECT_EQ(UpdateErrorCode(R"({"$set": {"a.$[I]": 1}})", R"({"_id": 1})", {R"({"I": 1})"}),
            ErrorCode::kBadValue);
  EXPECT_EQ(UpdateErrorCode(R"({"$set": {"a.$[i]": 1}})", R"({"_id": 1})", {R"({"i": 1, "j": 2})"}),
            ErrorCode::kFailedToParse);
}

}  // namespace
}  // namespace quarry::query
