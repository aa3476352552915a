// SORT_MERGE: the merge keys it orders index entries by, and the plans that merge one index
// scan per $in value (or per $or branch) into the sort's order, through the same Work protocol
// as any plan: the order a sort of the matches gives, each record once, across saves.
#include "exec/stages/sort_merge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/interrupt.h"
#include "exec/planner.h"
#include "exec_test_util.h"
#include "index_test_util.h"

namespace quarry::exec {
namespace {

using testing::Doc;
using testing::ExplainOf;
using testing::Filter;
using testing::Index;

// The first key `index` makes for `doc_json`.
std::string KeyOf(const IndexDescriptor& index, std::string_view doc_json) {
  StatusWith<std::vector<IndexKey>> keys = index.KeysOf(Doc(doc_json));
  EXPECT_TRUE(keys.ok() && !keys.value().empty()) << doc_json;
  return keys.ok() ? keys.value().front().encoded : std::string();
}

TEST(MergeKeyTest, OrdersEntriesOfDifferentIndexesBySortFields) {
  // {b: -1} on an index {a: 1, b: -1} and on an index {c: 1, b: 1, d: 1}.
  const IndexDescriptor stored_descending = Index(R"({"a": 1, "b": -1})");
  const IndexDescriptor stored_ascending = Index(R"({"c": 1, "b": 1, "d": 1})");
  const MergeKeyLayout first{.stored_descending = {false, true},
                             .sort_fields = {{.position = 1, .descending = true}}};
  const MergeKeyLayout second{.stored_descending = {false, false},
                              .sort_fields = {{.position = 1, .descending = true}}};
  const MergeKey high = MergeKeyOf(first, KeyOf(stored_descending, R"({"a": 9, "b": 7})"));
  const MergeKey low = MergeKeyOf(second, KeyOf(stored_ascending, R"({"c": 0, "b": 2.5, "d": 1})"));
  const MergeKey middle = MergeKeyOf(second, KeyOf(stored_ascending, R"({"c": 5, "b": "x"})"));
  ASSERT_FALSE(high.sort.empty());
  // Descending: the string (which sorts after numbers) first, then 7, then 2.5.
  EXPECT_LT(middle.sort, high.sort);
  EXPECT_LT(high.sort, low.sort);
  EXPECT_EQ(MergeKeyOf(second, KeyOf(stored_ascending, R"({"c": 1, "b": 7})")).sort, high.sort);
}

TEST(MergeKeyTest, TheRestOfTheKeyStartsAfterTheLastSortField) {
  const IndexDescriptor index = Index(R"({"a": 1, "b": 1, "d": -1})");
  const MergeKeyLayout layout{.stored_descending = {false, false},
                              .sort_fields = {{.position = 1, .descending = false}}};
  const std::string key = KeyOf(index, R"({"a": "p", "b": 3, "d": 4})");
  const MergeKey merge = MergeKeyOf(layout, key);
  EXPECT_EQ(key.substr(0, merge.rest_offset),
            KeyOf(Index(R"({"a": 1, "b": 1})"), R"({"a": "p", "b": 3})"));
  EXPECT_TRUE(MergeKeyOf(layout, key.substr(0, 2)).sort.empty());  // cut short
}

class SortMergeTest : public testing::ExecFixture {
 protected:
  void SetUp() override {
    ExecFixture::SetUp();
    // b ties between documents (i % 9); x is an array in none, so no index is multikey.
    for (int i = 0; i < 60; ++i) {
      Insert(Doc("{\"_id\": " + std::to_string(i) + ", \"a\": " + std::to_string(i % 4) +
                 ", \"c\": " + std::to_string(i % 5) + ", \"b\": " + std::to_string(i % 9) + "}"));
    }
    AddIndexSpec(R"({"v": 2, "key": {"a": 1, "b": 1}, "name": "a_1_b_1"})");
    AddIndexSpec(R"({"v": 2, "key": {"c": 1, "b": -1}, "name": "c_1_b_-1"})");
  }

  std::unique_ptr<PlanStage> Plan(std::string_view filter, std::string_view sort,
                                  std::int64_t limit = 0) {
    return PlanFind(filter, sort, limit);
  }

  // The plan's results as (b, _id), saving and restoring it between any two, as a cursor
  // between batches.
  static std::vector<std::pair<int, int>> Results(PlanStage& plan) {
    std::vector<std::pair<int, int>> out;
    testing::ForEachAcrossSaves(plan, [&out](const PlanResult& result) {
      out.emplace_back(result.doc.Get("b").Int32(), result.doc.Get("_id").Int32());
    });
    return out;
  }

  // The matches of `filter` as (b, _id), ordered by b in `direction`, ties by _id in it too.
  std::vector<std::pair<int, int>> Reference(std::string_view filter, int direction) const {
    query::Matcher matcher = Filter(filter);
    std::vector<std::pair<int, int>> out;
    for (const bson::Document& doc : StoredDocuments()) {
      if (matcher.Matches(doc)) out.emplace_back(doc.Get("b").Int32(), doc.Get("_id").Int32());
    }
    std::sort(out.begin(), out.end());
    if (direction < 0) std::reverse(out.begin(), out.end());
    return out;
  }
};

TEST_F(SortMergeTest, AnInMergesOneScanPerValueInTheSortsOrder) {
  for (const int direction : {1, -1}) {
    const char* filter = R"({"a": {"$in": [0, 2, 3]}})";
    std::unique_ptr<PlanStage> plan = Plan(filter, direction > 0 ? R"({"b": 1})" : R"({"b": -1})");
    const bson::Document explain = ExplainOf(*plan);
    EXPECT_EQ(explain.Get("stage").String(), "FETCH");
    const bson::DocumentView merge = testing::DocumentIn(explain.Get("inputStage"));
    EXPECT_EQ(merge.Get("stage").String(), "SORT_MERGE");
    std::size_t scans = 0;
    for (const bson::Element& scan : merge.Get("inputStages").Document()) {
      EXPECT_EQ(testing::DocumentIn(scan.value).Get("stage").String(), "IXSCAN");
      ++scans;
    }
    EXPECT_EQ(scans, 3u);
    // Ties come out as one scan of the index in the sort's direction gives them: by _id.
    EXPECT_EQ(Results(*plan), Reference(filter, direction));
  }
}

TEST_F(SortMergeTest, AnOrOfBranchesThatGiveTheSortHandsUpEachRecordOnce) {
  // i % 4 == 1 and i % 5 == 2 overlap (_id 17, 37, 57); c_1_b_-1 is read backward for {b: 1}.
  const char* filter = R"({"$or": [{"a": 1}, {"c": 2}]})";
  std::unique_ptr<PlanStage> plan = Plan(filter, R"({"b": 1})");
  const std::vector<std::pair<int, int>> results = Results(*plan);
  const std::vector<std::pair<int, int>> expected = Reference(filter, 1);
  ASSERT_EQ(results.size(), expected.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].first, expected[i].first) << i;  // ties may pair differently
  }
  std::vector<std::pair<int, int>> sorted = results;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, Reference(filter, 1));
  const bson::Document explain = ExplainOf(*plan);
  const bson::DocumentView merge = testing::DocumentIn(explain.Get("inputStage"));
  EXPECT_EQ(merge.Get("stage").String(), "SORT_MERGE");
  EXPECT_EQ(merge.Get("dupsDropped").Int32(), 3);
  EXPECT_EQ(merge.Get("dupsTested").Int32(), static_cast<int>(results.size()) + 3);
}

TEST_F(SortMergeTest, ALimitStopsTheScansEarly) {
  std::unique_ptr<PlanStage> plan = Plan(R"({"a": {"$in": [0, 1, 2, 3]}})", R"({"b": -1})", 3);
  const std::vector<std::pair<int, int>> first_three{{8, 53}, {8, 44}, {8, 35}};
  EXPECT_EQ(Results(*plan), first_three);
  std::int64_t keys = 0;
  std::vector<const PlanStage*> stack{plan.get()};
  while (!stack.empty()) {
    const PlanStage* stage = stack.back();
    stack.pop_back();
    keys += stage->stats().keys_examined;
    for (const auto& child : stage->children()) stack.push_back(child.get());
  }
  EXPECT_LE(keys, 3 + 4);
}

TEST_F(SortMergeTest, AKilledOperationStopsAMergeOfManyShortScans) {
  // 200 scans of a few keys each: no scan reads enough keys to check the interrupt itself.
  storage::WriteUnit unit;
  for (int i = 100; i < 700; ++i) {
    unit.Insert(collection_.ref(), Doc("{\"_id\": " + std::to_string(i) +
                                       ", \"a\": " + std::to_string(i % 200) + ", \"b\": 1}"));
  }
  ASSERT_TRUE(CommitNow(std::move(unit)).ok());
  std::string values;
  for (int i = 0; i < 200; ++i) values += (i > 0 ? ", " : "") + std::to_string(i);
  auto interrupt = std::make_shared<Interrupt>();
  ctx_.interrupt = interrupt;
  std::unique_ptr<PlanStage> plan = Plan(R"({"a": {"$in": [)" + values + "]}}", R"({"b": 1})");
  ASSERT_EQ(ExplainOf(*plan).Get("inputStage").Document().Get("stage").String(), "SORT_MERGE");
  interrupt->Kill();
  PlanResult result;
  StatusWith<bool> more = true;
  while (more.ok() && more.value()) more = plan->Next(&result);
  ASSERT_FALSE(more.ok());
  EXPECT_EQ(more.status().code(), ErrorCode::kInterrupted);
}

}  // namespace
}  // namespace quarry::exec
