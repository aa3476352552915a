// find's returnKey: each result becomes the key of the entry that led the plan to it, in the
// scan's direction for multikey documents, the finding branch's under an OR, _id for reads by
// _id, and {} after a collection scan.
#include "exec/stages/return_key.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exec/plan_executor.h"
#include "exec/planner.h"
#include "exec_test_util.h"

namespace quarry::exec {
namespace {

using testing::Doc;

class ReturnKeyTest : public testing::ExecFixture {
 protected:
  void SetUp() override {
    ExecFixture::SetUp();
    Insert(Doc(R"({"_id": 1, "a": 1, "t": [3, 8]})"));
    Insert(Doc(R"({"_id": 2, "a": 2, "t": [9, 4]})"));
    Insert(Doc(R"({"_id": 3, "t": 5})"));
    AddIndexSpec(R"({"v": 2, "key": {"a": -1}, "name": "a_-1"})");
    AddIndexSpec(R"({"v": 2, "key": {"t": 1}, "name": "t_1"})");
  }

  std::vector<std::string> Keys(std::string_view filter, std::string_view sort = "{}",
                                std::string_view hint = "") {
    filter_ = Doc(filter);
    sort_ = Doc(sort);
    hint_ = Doc(hint.empty() ? "{}" : "{\"h\": \"" + std::string(hint) + "\"}");
    StatusWith<QuerySpec> spec = QuerySpec::Parse(filter_, {}, {}, sort_, 0, 0);
    EXPECT_TRUE(spec.ok()) << spec.status().ToString();
    spec.value().return_key = true;
    spec.value().hint = hint_.Get("h");
    StatusWith<std::unique_ptr<PlanStage>> plan =
        PlanQuery(ctx_, collection_, std::move(spec).value());
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    std::vector<std::string> keys;
    Status done =
        ForEachResult(*plan.value(), [&](bson::DocumentView doc, const query::MatchDetails&) {
          keys.push_back(doc.ToJson());
          return true;
        });
    EXPECT_TRUE(done.ok()) << done.ToString();
    return keys;
  }

  bson::Document filter_;
  bson::Document sort_;
  bson::Document hint_;
};

TEST_F(ReturnKeyTest, AnIndexScanGivesEachDocumentsKeyInTheIndexsOrder) {
  EXPECT_EQ(Keys(R"({"a": {"$gte": 1}})"),
            (std::vector<std::string>{R"({ "a" : 2 })", R"({ "a" : 1 })"}));
}

TEST_F(ReturnKeyTest, AMultikeyDocumentGivesTheFirstKeyTheScanMet) {
  EXPECT_EQ(Keys(R"({"t": {"$gt": 3}})"),
            (std::vector<std::string>{R"({ "t" : 4 })", R"({ "t" : 5 })", R"({ "t" : 8 })"}));
  // A multikey index gives no order: SORT reorders what a forward scan met.
  EXPECT_EQ(Keys(R"({"t": {"$gt": 3}})", R"({ "t" : -1 })", "t_1"),
            (std::vector<std::string>{R"({ "t" : 4 })", R"({ "t" : 8 })", R"({ "t" : 5 })"}));
}

TEST_F(ReturnKeyTest, UnderAnOrEachDocumentGetsTheKeyOfTheBranchThatFoundIt) {
  EXPECT_EQ(Keys(R"({"$or": [{"t": 8}, {"a": {"$gte": 1}}]})"),
            (std::vector<std::string>{R"({ "t" : 8 })", R"({ "a" : 2 })"}));
}

TEST_F(ReturnKeyTest, ReadsByIdGiveIdAndACollectionScanGivesNothing) {
  EXPECT_EQ(Keys(R"({"_id": 2})"), (std::vector<std::string>{R"({ "_id" : 2 })"}));
  EXPECT_EQ(Keys(R"({"_id": {"$gt": 2}})", "{}", "_id_"),
            (std::vector<std::string>{R"({ "_id" : 3 })"}));
  EXPECT_EQ(Keys(R"({"b": {"$exists": false}, "_id": {"$lt": 2}})"),
            (std::vector<std::string>{"{ }"}));
}

}  // namespace
}  // namespace quarry::exec
