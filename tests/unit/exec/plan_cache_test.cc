// The plan cache's entry states as mongod's: inactive first, activated by a trial that needed no
// more work, its works doubled otherwise; cleared by shape or whole, and by index changes.
#include "exec/plan_cache.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "exec_test_util.h"

namespace quarry::exec {
namespace {

class PlanCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto info = std::make_shared<catalog::CollectionInfo>();
    catalog::IndexInfo index;
    index.spec = testing::Doc(R"({"v": 2, "key": {"a": 1}, "name": "a_1"})");
    index.id = 7;
    info->indexes.push_back(std::move(index));
    collection_.info = info;
    collection_.ns = "db.c";
    // Each test its own collection: the cache is the process's.
    collection_.uuid = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }

  void Record(const std::string& key, std::int64_t works, const std::string& plan = "a_1",
              const std::string& hash = "HASH") {
    PlanCacheEntry entry;
    entry.plan_cache_key = key;
    entry.query_hash = hash;
    entry.plan_id = plan;
    entry.works = works;
    RecordPlanChoice(collection_, std::move(entry));
  }

  Collection collection_;
};

TEST_F(PlanCacheTest, ANewShapeIsCachedInactive) {
  EXPECT_FALSE(FindCachedPlan(collection_, "K").has_value());
  Record("K", 20);
  std::optional<CachedChoice> found = FindCachedPlan(collection_, "K");
  ASSERT_TRUE(found.has_value());
  EXPECT_FALSE(found->active);
  EXPECT_EQ(found->works, 20);
}

TEST_F(PlanCacheTest, ATrialThatNeededNoMoreWorkActivatesIt) {
  Record("K", 20, "a_1");
  Record("K", 15, "b_1");
  std::optional<CachedChoice> found = FindCachedPlan(collection_, "K");
  ASSERT_TRUE(found.has_value());
  EXPECT_TRUE(found->active);
  EXPECT_EQ(found->works, 15);
  EXPECT_EQ(found->plan_id, "b_1");
}

TEST_F(PlanCacheTest, ATrialThatNeededMoreWorkDoublesTheEntrysWorks) {
  Record("K", 20);
  Record("K", 30);
  EXPECT_FALSE(FindCachedPlan(collection_, "K")->active);
  EXPECT_EQ(FindCachedPlan(collection_, "K")->works, 40);
  Record("K", 35);  // now within the grown works
  EXPECT_TRUE(FindCachedPlan(collection_, "K")->active);
}

TEST_F(PlanCacheTest, ClearingByQueryHashLeavesOtherShapes) {
  Record("K1", 5, "a_1", "H1");
  Record("K2", 5, "a_1", "H2");
  ClearPlanCache(collection_, std::string("H1"));
  EXPECT_FALSE(FindCachedPlan(collection_, "K1").has_value());
  EXPECT_TRUE(FindCachedPlan(collection_, "K2").has_value());
  ClearPlanCache(collection_);
  EXPECT_TRUE(CachedPlans(collection_).empty());
}

TEST_F(PlanCacheTest, AnotherIndexSetEmptiesTheCache) {
  Record("K", 5);
  auto info = std::make_shared<catalog::CollectionInfo>(*collection_.info);
  info->indexes.front().spec = testing::Doc(R"({"v": 2, "key": {"a": 1}, "name": "a_1",
                                                "hidden": true})");
  collection_.info = info;
  EXPECT_FALSE(FindCachedPlan(collection_, "K").has_value());
}

TEST_F(PlanCacheTest, RemovingAnEntryDropsOnlyIt) {
  Record("K1", 5);
  Record("K2", 5);
  RemoveCachedPlan(collection_, "K1");
  ASSERT_EQ(CachedPlans(collection_).size(), 1u);
  EXPECT_EQ(CachedPlans(collection_).front().plan_cache_key, "K2");
}

}  // namespace
}  // namespace quarry::exec
