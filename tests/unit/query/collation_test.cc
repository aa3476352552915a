// Strings compare under a collation wherever the query language compares values: filters,
// sorts, $group keys, accumulators, expressions and update operators. A case-insensitive ASCII
// comparator stands in for ICU's collators here.
#include <gtest/gtest.h>

#include <memory>

#include "bson/compare.h"
#include "case_insensitive.h"
#include "pipeline/pipeline_test_util.h"
#include "query/match/matcher.h"
#include "query/sort/sort.h"
#include "query/update/update.h"
#include "query_test_util.h"

namespace quarry::query {
namespace {

using testing::CaseInsensitive;
using testing::Ci;
using testing::Doc;

bool Matches(std::string_view filter, std::string_view doc) {
  bson::Document f = Doc(filter);
  StatusWith<Matcher> matcher = Matcher::Parse(f.view(), bson::DocumentView(), Ci());
  EXPECT_TRUE(matcher.ok()) << matcher.status().ToString();
  return matcher.ok() && matcher.value().Matches(Doc(doc).view());
}

TEST(CollationTest, CompareValuesUsesTheComparatorInsideDocumentsAndArrays) {
  CaseInsensitive ci;
  bson::Document a = Doc(R"({"v": {"x": ["ABC", {"y": "Q"}]}})");
  bson::Document b = Doc(R"({"v": {"x": ["abc", {"y": "q"}]}})");
  EXPECT_EQ(bson::CompareValues(a.Get("v"), b.Get("v"), &ci), 0);
  EXPECT_NE(bson::CompareValues(a.Get("v"), b.Get("v")), 0);
  bson::Document keys = Doc(R"({"a": {"X": 1}, "b": {"x": 1}})");
  EXPECT_NE(bson::CompareValues(keys.Get("a"), keys.Get("b"), &ci), 0);  // field names by bytes
}

TEST(CollationTest, FilterComparisonsFollowTheCollation) {
  EXPECT_TRUE(Matches(R"({"w": "APPLE"})", R"({"w": "apple"})"));
  EXPECT_TRUE(Matches(R"({"w": {"%in": ["x", "APPLE"]}})", R"({"w": "apple"})"));
  EXPECT_FALSE(Matches(R"({"w": {"%nin": ["APPLE"]}})", R"({"w": "apple"})"));
  EXPECT_FALSE(Matches(R"({"w": {"%ne": "APPLE"}})", R"({"w": "apple"})"));
  EXPECT_TRUE(Matches(R"({"w": {"%gt": "B", "%lt": "d"}})", R"({"w": "cherry"})"));
  EXPECT_TRUE(Matches(R"({"d": {"x": "ABC"}})", R"({"d": {"x": "abc"}})"));
  EXPECT_TRUE(Matches(R"({"a": ["X", "Y"]})", R"({"a": ["x", "y"]})"));
  EXPECT_TRUE(Matches(R"({"a": "Y"})", R"({"a": ["x", "y"]})"));
  EXPECT_TRUE(Matches(R"({"a": {"%elemMatch": {"%eq": "Y"}}})", R"({"a": ["x", "y"]})"));
  EXPECT_TRUE(Matches(R"({"%expr": {"%eq": ["$w", "APPLE"]}})", R"({"w": "apple"})"));
}

TEST(CollationTest, RegexIgnoresTheCollation) {
  EXPECT_FALSE(Matches(R"({"w": {"%regex": "^A"}})", R"({"w": "apple"})"));
}

TEST(CollationTest, SortOrdersStringsUnderTheCollation) {
  bson::Document spec = Doc(R"({"w": 1})");
  SortSpec sort = SortSpec::Parse(spec.view(), Ci()).value();
  std::vector<bson::Document> docs = {Doc(R"({"w": "b"})"), Doc(R"({"w": "A"})"),
                                      Doc(R"({"w": "a2"})")};
  StableSortDocuments(sort, &docs);
  EXPECT_EQ(docs[0].Get("w").String(), "A");
  EXPECT_EQ(docs[1].Get("w").String(), "a2");
  EXPECT_EQ(docs[2].Get("w").String(), "b");
}

TEST(CollationTest, GroupKeysAndAccumulatorsFollowThePipelinesCollation) {
  PipelineContext ctx;
  ctx.collator = Ci();
  StatusWith<std::vector<bson::Document>> out = testing::RunPipeline(
      R"([{"%group": {"_id": "$w", "n": {"%sum": 1}, "s": {"%addToSet": "$t"},
                      "m": {"%max": "$t"}}}])",
      R"([{"w": "a", "t": "x"}, {"w": "A", "t": "X"}, {"w": "b", "t": "y"}])", ctx);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out.value().size(), 2u);
  EXPECT_EQ(out.value()[0].Get("n").AsInt64(), 2);
  EXPECT_EQ(out.value()[0].Get("s").Document().CountElements(), 1u);
}

TEST(CollationTest, PipelineMatchSortAndExpressionsFollowTheCollation) {
  PipelineContext ctx;
  ctx.collator = Ci();
  StatusWith<std::vector<bson::Document>> out = testing::RunPipeline(
      R"([{"%match": {"w": "A"}}, {"%project": {"_id": 0, "c": {"%cmp": ["$w", "A"]},
                                                "i": {"%in": ["A", ["$w"]]}}}])",
      R"([{"w": "a"}, {"w": "b"}])", ctx);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out.value().size(), 1u);
  EXPECT_EQ(out.value()[0].Get("c").AsInt64(), 0);
  EXPECT_TRUE(out.value()[0].Get("i").Bool());
}

TEST(CollationTest, UpdateSetOperatorsFollowTheStatementsCollation) {
  UpdateOptions options;
  options.collator = Ci();
  bson::Document update = Doc(R"({"%addToSet": {"a": "X"}, "%pull": {"b": "Y"}})");
  UpdateSpec spec = UpdateSpec::Parse(update.view(), options).value();
  bson::Document original = Doc(R"({"a": ["x"], "b": ["y", "z"]})");
  StatusWith<UpdateResult> result = spec.Apply(original.view(), MatchDetails{}, false);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result.value().new_doc.Get("a").Document().CountElements(), 1u);
  EXPECT_EQ(result.value().new_doc.Get("b").Document().CountElements(), 1u);
}

}  // namespace
}  // namespace quarry::query
