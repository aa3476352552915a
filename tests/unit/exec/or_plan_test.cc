// A top-level $or whose every branch an index bounds is read as an OR of index scans under one
// FETCH: each matching record once, the same records a collection scan finds, and the plan's
// shape and counts as explain shows them.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "exec/plan_executor.h"
#include "exec/planner.h"
#include "exec_test_util.h"

namespace quarry::exec {
namespace {

using testing::Doc;
using testing::ExplainOf;

class OrPlanTest : public testing::ExecFixture {
 protected:
  void SetUp() override {
    ExecFixture::SetUp();
    for (int i = 0; i < 30; ++i) {
      Insert(Doc("{\"_id\": " + std::to_string(i) + ", \"a\": " + std::to_string(i % 5) +
                 ", \"b\": " + std::to_string(i % 7) + ", \"t\": [" + std::to_string(i % 3) + ", " +
                 std::to_string(i % 4) + "]}"));
    }
    AddIndexSpec(R"({"v": 2, "key": {"a": 1}, "name": "a_1"})");
    AddIndexSpec(R"({"v": 2, "key": {"b": 1}, "name": "b_1"})");
    AddIndexSpec(R"({"v": 2, "key": {"t": 1}, "name": "t_1"})");
  }

  std::unique_ptr<PlanStage> Plan(std::string_view filter, std::string_view sort = "{}") {
    return PlanFind(filter, sort);
  }

  static std::vector<std::string> Ids(PlanStage& root) {
    std::vector<std::string> ids;
    Status done = ForEachResult(root, [&](bson::DocumentView doc, const query::MatchDetails&) {
      ids.push_back(doc.Get("_id").ToJson());
      return true;
    });
    EXPECT_TRUE(done.ok()) << done.ToString();
    return ids;
  }

  static std::vector<std::string> Sorted(std::vector<std::string> ids) {
    std::sort(ids.begin(), ids.end());
    return ids;
  }
};

TEST_F(OrPlanTest, EveryBranchIndexedIsAnOrOfIndexScansUnderFetch) {
  std::unique_ptr<PlanStage> plan = Plan(R"({"$or": [{"a": 1}, {"b": {"$gte": 5}}]})");
  bson::Document explained = ExplainOf(*plan);
  EXPECT_EQ(explained.Get("stage").String(), "FETCH");
  bson::DocumentView or_stage = explained.Get("inputStage").Document();
  EXPECT_EQ(or_stage.Get("stage").String(), "OR");
  bson::DocumentView scans = or_stage.Get("inputStages").Document();
  EXPECT_EQ(scans.Get("0").Document().Get("indexName").String(), "a_1");
  EXPECT_EQ(scans.Get("1").Document().Get("indexName").String(), "b_1");
}

TEST_F(OrPlanTest, RecordsMatchingSeveralBranchesAreReturnedOnce) {
  const char* filter = R"({"$or": [{"a": {"$lte": 2}}, {"b": {"$in": [0, 1, 2]}}]})";
  std::unique_ptr<PlanStage> plan = Plan(filter);
  EXPECT_EQ(Sorted(Ids(*plan)), Sorted(ReferenceIds(filter)));
  bson::Document explained = ExplainOf(*plan);
  bson::DocumentView or_stage = explained.Get("inputStage").Document();
  EXPECT_GT(or_stage.Get("dupsDropped").AsInt64(), 0);
  EXPECT_EQ(or_stage.Get("nReturned").AsInt64(),
            static_cast<std::int64_t>(ReferenceIds(filter).size()));
}

TEST_F(OrPlanTest, MultikeyBranchesAndConditionsOutsideTheOrKeepTheScansResults) {
  for (const char* filter : {
           R"({"$or": [{"t": 1}, {"t": 2}, {"a": 4}]})",
           R"({"x": {"$ne": 4}, "$or": [{"t": {"$gt": 2}}, {"a": 0}]})",
           R"({"$or": [{"a": 1, "b": 1}, {"b": 3, "t": 0}]})",
       }) {
    std::unique_ptr<PlanStage> plan = Plan(filter);
    EXPECT_EQ(ExplainOf(*plan).Get("inputStage").Document().Get("stage").String(), "OR") << filter;
    EXPECT_EQ(Sorted(Ids(*plan)), Sorted(ReferenceIds(filter))) << filter;
  }
}

TEST_F(OrPlanTest, ABranchNoIndexBoundsIsACollectionScan) {
  const char* filter = R"({"$or": [{"a": 1}, {"c": 1}]})";
  std::unique_ptr<PlanStage> plan = Plan(filter);
  EXPECT_EQ(ExplainOf(*plan).Get("stage").String(), "COLLSCAN");
  EXPECT_EQ(Ids(*plan), ReferenceIds(filter));
}

TEST_F(OrPlanTest, AnIndexBoundingTheWholeFilterWinsOverTheOr) {
  std::unique_ptr<PlanStage> plan = Plan(R"({"a": 2, "$or": [{"b": 1}, {"t": 1}]})");
  bson::Document explained = ExplainOf(*plan);
  EXPECT_EQ(explained.Get("inputStage").Document().Get("stage").String(), "IXSCAN");
  EXPECT_EQ(explained.Get("inputStage").Document().Get("indexName").String(), "a_1");
}

TEST_F(OrPlanTest, ASortedOrSortsWhatTheScansReturn) {
  const char* filter = R"({"$or": [{"a": 1}, {"b": 2}]})";
  std::unique_ptr<PlanStage> plan = Plan(filter, R"({"_id": -1})");
  EXPECT_EQ(ExplainOf(*plan).Get("stage").String(), "SORT");
  std::vector<std::string> expected = ReferenceIds(filter);
  std::sort(expected.begin(), expected.end(),
            [](const std::string& x, const std::string& y) { return std::stoi(x) > std::stoi(y); });
  EXPECT_EQ(Ids(*plan), expected);
}

TEST_F(OrPlanTest, SavingAndRestoringBetweenResultsLosesAndRepeatsNothing) {
  const char* filter = R"({"$or": [{"a": {"$in": [0, 3]}}, {"b": {"$lte": 1}}]})";
  std::unique_ptr<PlanStage> plan = Plan(filter);
  std::vector<std::string> ids;
  testing::ForEachAcrossSaves(
      *plan, [&ids](const PlanResult& result) { ids.push_back(result.doc.Get("_id").ToJson()); });
  EXPECT_EQ(Sorted(ids), Sorted(ReferenceIds(filter)));
}

}  // namespace
}  // namespace quarry::exec
