// Accumulators' partial states: an accumulator fed the first part of a group, merged with the
// partial state of one fed the rest, answers as one accumulator fed it all. $group relies on it
// when it spills.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "case_insensitive.h"
#include "query/pipeline/accumulator.h"
#include "query_test_util.h"

namespace quarry::query {
namespace {

using testing::Ci;
using testing::Doc;

// The values of a JSON array under "v"; an element {"missing": true} stands for a missing value.
std::vector<Value> Values(std::string_view json) {
  bson::Document holder = Doc(json);
  std::vector<Value> values;
  for (const bson::Element& e : holder.Get("v").Document()) {
    if (e.value.type() == bson::Type::kDocument && e.value.Document().Get("missing").exists()) {
      values.emplace_back();
    } else {
      values.push_back(Value::Copy(e.value));
    }
  }
  return values;
}

// Feeds `values` split into parts at `cuts` to one accumulator per part, merges their partial
// states in order, and returns the result next to that of one accumulator fed them all.
std::pair<Value, Value> SplitAndWhole(std::string_view op, const std::vector<Value>& values,
                                      const std::vector<std::size_t>& cuts,
                                      const bson::StringComparator* collator = nullptr) {
  std::unique_ptr<Accumulator> whole = MakeAccumulator(op, collator);
  for (const Value& v : values) EXPECT_TRUE(whole->Process(v).ok());
  std::unique_ptr<Accumulator> merged = MakeAccumulator(op, collator);
  EXPECT_TRUE(merged->mergeable()) << op;
  std::size_t begin = 0;
  for (std::size_t part_idx = 0; part_idx <= cuts.size(); ++part_idx) {
    const std::size_t end = part_idx < cuts.size() ? cuts[part_idx] : values.size();
    std::unique_ptr<Accumulator> part = MakeAccumulator(op, collator);
    for (std::size_t i = begin; i < end; ++i) EXPECT_TRUE(part->Process(values[i]).ok());
    // Through BSON, as a run on disk holds it.
    bson::DocumentBuilder b;
    part->PartialState().AppendTo("s", &b);
    bson::Document stored = std::move(b).Finish();
    EXPECT_TRUE(merged->MergePartialState(Value::Copy(stored.Get("s"))).ok());
    begin = end;
  }
  return {merged->Finish(), whole->Finish()};
}

void ExpectSame(std::string_view op, std::string_view json,
                const bson::StringComparator* collator = nullptr) {
  const std::vector<Value> values = Values(json);
  const std::vector<std::vector<std::size_t>> splits = {
      {}, {0}, {values.size()}, {values.size() / 2}, {1, values.size() - 1}, {2, 2, 4}};
  for (const std::vector<std::size_t>& cuts : splits) {
    auto [merged, whole] = SplitAndWhole(op, values, cuts, collator);
    EXPECT_TRUE(BinaryEqual(merged.view(), whole.view()))
        << op << " " << json << ": merged " << merged.ToJson() << ", whole " << whole.ToJson();
  }
}

constexpr std::string_view kNumbers =
    R"({"v": [3, 2147483647, {"missing": true}, 5, null, -1, "x", 4]})";
constexpr std::string_view kMixed =
    R"({"v": [{"missing": true}, "b", 1, "B", {"a": 1}, null, [1, 2], "a", {"missing": true}]})";

TEST(AccumulatorMergeTest, EveryAccumulatorMergesToTheWholeAnswer) {
  for (const char* op :
       {"$sum", "$count", "$avg", "$min", "$max", "$first", "$last", "$push", "$addToSet"}) {
    ExpectSame(op, kNumbers);
    ExpectSame(op, kMixed);
  }
  ExpectSame("$avg", R"({"v": [1.5, {"$numberDecimal": "2.25"}, 3]})");
  ExpectSame("$mergeObjects", R"({"v": [{"a": 1, "b": 2}, null, {"c": 3, "a": 4}, {"b": 5},
                                        {"missing": true}, {"d": {"e": 1}}]})");
}

TEST(AccumulatorMergeTest, CollatedAccumulatorsKeepTheFirstOfEqualStrings) {
  const auto collator = Ci();
  for (const char* op : {"$min", "$max", "$addToSet"}) {
    ExpectSame(op, R"({"v": ["b", "A", "B", "a", "c", "C"]})", collator.get());
  }
}

TEST(AccumulatorMergeTest, StdDevMergesWithinRounding) {
  const std::vector<Value> values = Values(R"({"v": [1, 2.5, 4, 100, -3, 7, 7, 0.125]})");
  for (const char* op : {"$stdDevPop", "$stdDevSamp"}) {
    for (const std::vector<std::size_t>& cuts :
         std::vector<std::vector<std::size_t>>{{}, {1}, {3, 5}, {7}}) {
      auto [merged, whole] = SplitAndWhole(op, values, cuts);
      EXPECT_NEAR(merged.view().AsDouble(), whole.view().AsDouble(), 1e-12) << op;
    }
  }
}

}  // namespace
}  // namespace quarry::query
