// An index scan whose every interval pins every field of a unique index reads each interval's one
// entry with a point lookup: the same records as a collection scan, nothing repeated or lost
// across a save and restore, and explain's counts as a range scan would give them. A filter
// whose equalities pin one key is read by EXPRESS_IXSCAN outside explain, with the same results.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "exec/operation_work.h"
#include "exec/planner.h"
#include "exec_test_util.h"

namespace quarry::exec {
namespace {

using testing::Doc;
using testing::DocumentIn;
using testing::ExplainOf;
using testing::StringIn;

class UniquePointScanTest : public testing::ExecFixture {
 protected:
  void SetUp() override {
    ExecFixture::SetUp();
    for (int i = 0; i < 40; ++i) {
      const std::string n = std::to_string(i);
      Insert(Doc("{\"_id\": " + n + ", \"k\": \"key" + n + "\", \"a\": " + std::to_string(i % 4) +
                 ", \"b\": " + std::to_string(i / 4) + ", \"tags\": [" + n + ", " +
                 std::to_string(i + 100) + "]}"));
    }
    AddIndexSpec(R"({"v": 2, "key": {"k": 1}, "name": "k_1", "unique": true})");
    AddIndexSpec(R"({"v": 2, "key": {"a": 1, "b": -1}, "name": "a_1_b_-1", "unique": true})");
    AddIndexSpec(R"({"v": 2, "key": {"tags": 1}, "name": "tags_1", "unique": true})");
  }

  // The plan for explain: FETCH over IXSCAN, whatever runs outside explain.
  std::unique_ptr<PlanStage> PlanFindForExplain(std::string_view filter) {
    ctx_.for_explain = true;
    std::unique_ptr<PlanStage> plan = PlanFind(filter);
    ctx_.for_explain = false;
    return plan;
  }

  // The ids `plan` returns (saved and restored between results), sorted.
  static std::vector<std::string> IdsAcrossSaves(PlanStage& plan) {
    std::vector<std::string> ids;
    testing::ForEachAcrossSaves(
        plan, [&ids](const PlanResult& result) { ids.push_back(result.doc.Get("_id").ToJson()); });
    return Sorted(std::move(ids));
  }

  static std::vector<std::string> Sorted(std::vector<std::string> ids) {
    std::sort(ids.begin(), ids.end());
    return ids;
  }
};

TEST_F(UniquePointScanTest, PointsOnEveryKeyFieldReturnWhatAScanFinds) {
  for (const char* filter : {
           R"({"k": "key7"})",
           R"({"k": {"$in": ["key3", "key30", "nothing", "key3"]}})",
           R"({"k": "nothing"})",
           R"({"a": 2, "b": 5})",
           R"({"a": {"$in": [1, 3]}, "b": {"$in": [0, 9, 20]}})",
           R"({"tags": {"$in": [5, 105, 6]}})",  // two keys of one document: handed up once
           R"({"k": {"$in": ["key1", "key2"]}, "a": 2})",
       }) {
    SCOPED_TRACE(filter);
    std::unique_ptr<PlanStage> plan = PlanFind(filter);
    ASSERT_NE(plan, nullptr);
    EXPECT_EQ(IdsAcrossSaves(*plan), Sorted(ReferenceIds(filter)));
  }
}

TEST_F(UniquePointScanTest, ExplainCountsOneKeyPerPointFound) {
  std::unique_ptr<PlanStage> plan = PlanFind(R"({"k": {"$in": ["key3", "nothing", "key9"]}})");
  ASSERT_NE(plan, nullptr);
  EXPECT_EQ(IdsAcrossSaves(*plan).size(), 2u);
  bson::Document explain = ExplainOf(*plan);
  EXPECT_EQ(StringIn(explain.Get("stage")), "FETCH");
  bson::DocumentView scan = DocumentIn(explain.Get("inputStage"));
  EXPECT_EQ(StringIn(scan.Get("stage")), "IXSCAN");
  EXPECT_EQ(StringIn(scan.Get("indexName")), "k_1");
  EXPECT_EQ(scan.Get("keysExamined").AsInt64(), 2);
  EXPECT_EQ(explain.Get("docsExamined").AsInt64(), 2);
}

TEST_F(UniquePointScanTest, ARangeOnAUniqueIndexStillScans) {
  // Only the first field is pinned: a range of keys, which a point lookup would miss.
  const char* filter = R"({"a": 1, "b": {"$gte": 3}})";
  std::unique_ptr<PlanStage> plan = PlanFind(filter);
  ASSERT_NE(plan, nullptr);
  EXPECT_EQ(IdsAcrossSaves(*plan), Sorted(ReferenceIds(filter)));
  EXPECT_FALSE(ReferenceIds(filter).empty());
}

TEST_F(UniquePointScanTest, EqualitiesPinningOneKeyAreReadByTheExpressStage) {
  for (const char* filter : {
           R"({"k": "key7"})", R"({"k": "nothing"})", R"({"a": 2, "b": 5})",
           R"({"b": 5, "a": 2.0})",              // numbers equal to the key's match it
           R"({"tags": 105})",                   // one element of a multikey document's array
           R"({"k": "key7", "a": 2})",           // the rest of the filter still applies: none
           R"({"k": "key7", "b": {"$lt": 5}})",  // and here it holds
       }) {
    SCOPED_TRACE(filter);
    std::unique_ptr<PlanStage> plan = PlanFind(filter);
    ASSERT_NE(plan, nullptr);
    EXPECT_EQ(plan->name(), "EXPRESS_IXSCAN");
    EXPECT_EQ(IdsAcrossSaves(*plan), Sorted(ReferenceIds(filter)));
  }
  EXPECT_EQ(ReferenceIds(R"({"tags": 105})").size(), 1u);
  EXPECT_EQ(ReferenceIds(R"({"k": "key7", "b": {"$lt": 5}})").size(), 1u);
}

TEST_F(UniquePointScanTest, TheExpressStageReportsWhatTheScanItReplacesWould) {
  ThisThreadWork() = OperationWork();
  std::unique_ptr<PlanStage> plan = PlanFind(R"({"k": "key9"})");
  ASSERT_NE(plan, nullptr);
  ASSERT_EQ(IdsAcrossSaves(*plan).size(), 1u);
  EXPECT_EQ(PlanSummary(*plan), "IXSCAN { k: 1 }");
  EXPECT_EQ(ThisThreadWork().keys_examined, 1);
  EXPECT_EQ(ThisThreadWork().docs_examined, 1);

  std::unique_ptr<PlanStage> shown = PlanFindForExplain(R"({"k": "key9"})");
  ASSERT_NE(shown, nullptr);
  ASSERT_EQ(IdsAcrossSaves(*shown).size(), 1u);
  bson::Document explain = ExplainOf(*shown);
  EXPECT_EQ(StringIn(explain.Get("stage")), "FETCH");
  EXPECT_EQ(StringIn(DocumentIn(explain.Get("inputStage")).Get("stage")), "IXSCAN");
}

TEST_F(UniquePointScanTest, FieldsOneArrayMayHoldAreScannedNotLookedUp) {
  // {"x.p": 1, "x.q": 2} matches through two different elements, so the document has no key
  // (1, 2): a lookup of that key would miss it.
  // Sparse, as the fixture's other documents lack both fields.
  Insert(Doc(R"({"_id": 100, "k": "x", "a": 100, "b": 0, "tags": [],
                 "x": [{"p": 1, "q": 5}, {"p": 7, "q": 2}]})"));
  Insert(Doc(R"({"_id": 101, "k": "y", "a": 101, "b": 0, "tags": 1000, "y": [10, 11]})"));
  AddIndexSpec(
      R"({"v": 2, "key": {"x.p": 1, "x.q": 1}, "name": "xp_xq", "unique": true, "sparse": true})");
  AddIndexSpec(R"({"v": 2, "key": {"y.1": 1}, "name": "y1", "unique": true, "sparse": true})");
  for (const char* filter : {R"({"x.p": 1, "x.q": 2})", R"({"y.1": 11})"}) {
    SCOPED_TRACE(filter);
    std::unique_ptr<PlanStage> plan = PlanFind(filter);
    ASSERT_NE(plan, nullptr);
    EXPECT_NE(plan->name(), "EXPRESS_IXSCAN");
    EXPECT_EQ(IdsAcrossSaves(*plan), Sorted(ReferenceIds(filter)));
    EXPECT_EQ(ReferenceIds(filter).size(), 1u);
  }
}

}  // namespace
}  // namespace quarry::exec
