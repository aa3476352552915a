// find's min and max as one range of a hinted index's keys: in the index's order (descending
// fields reversed), empty sides open to the index's ends, and mongod's errors.
#include "exec/min_max_bounds.h"

#include <gtest/gtest.h>

#include "index_test_util.h"
#include "storage/key_encoding.h"

namespace quarry::exec {
namespace {

using testing::Doc;
using testing::Index;

std::string KeyOf(const IndexDescriptor& index, std::string_view doc_json) {
  bson::Document doc = Doc(doc_json);
  std::string key;
  std::size_t field_idx = 0;
  for (const bson::Element& e : doc.view()) {
    // Fields past the key pattern's (an entry's _id) are ascending.
    const bool descending =
        field_idx < index.fields().size() && index.fields()[field_idx].descending;
    ++field_idx;
    storage::AppendIndexKey(e.value, descending, &key);
  }
  return key;
}

TEST(MinMaxBoundsTest, MinIsIncludedAndMaxIsNot) {
  IndexDescriptor index = Index(R"({"a": 1, "b": -1})");
  StatusWith<IndexBounds> bounds =
      MinMaxBounds(index, Doc(R"({"a": 1, "b": 5})"), Doc(R"({"a": 3, "b": 0})"));
  ASSERT_TRUE(bounds.ok()) << bounds.status().ToString();
  ASSERT_EQ(bounds.value().intervals.size(), 1u);
  const KeyInterval& range = bounds.value().intervals.front();
  EXPECT_TRUE(range.Contains(KeyOf(index, R"({"a": 1, "b": 5})")));
  EXPECT_TRUE(range.Contains(KeyOf(index, R"({"a": 1, "b": 4})")));  // b descends
  EXPECT_FALSE(range.Contains(KeyOf(index, R"({"a": 1, "b": 6})")));
  EXPECT_TRUE(range.Contains(KeyOf(index, R"({"a": 2, "b": "x"})")));
  EXPECT_TRUE(range.Contains(KeyOf(index, R"({"a": 3, "b": 1})")));
  EXPECT_FALSE(range.Contains(KeyOf(index, R"({"a": 3, "b": 0})")));
  // A non-unique entry is its key and then the record's _id: the max key's entries stay out.
  EXPECT_FALSE(range.Contains(KeyOf(index, R"({"a": 3, "b": 0, "_id": 1})")));
  EXPECT_TRUE(range.Contains(KeyOf(index, R"({"a": 1, "b": 5, "_id": 1})")));
}

TEST(MinMaxBoundsTest, AnEmptySideReachesTheEndOfTheIndex) {
  IndexDescriptor index = Index(R"({"a": -1})");
  StatusWith<IndexBounds> bounds = MinMaxBounds(index, Doc("{}"), Doc(R"({"a": 0})"));
  ASSERT_TRUE(bounds.ok()) << bounds.status().ToString();
  const KeyInterval& range = bounds.value().intervals.front();
  EXPECT_TRUE(range.Contains(KeyOf(index, R"({"a": {"$maxKey": 1}})")));
  EXPECT_TRUE(range.Contains(KeyOf(index, R"({"a": "z"})")));
  EXPECT_TRUE(range.Contains(KeyOf(index, R"({"a": 1})")));
  EXPECT_FALSE(range.Contains(KeyOf(index, R"({"a": null})")));
}

TEST(MinMaxBoundsTest, BoundsMustNameTheKeyFieldsAndMinMustComeFirst) {
  IndexDescriptor index = Index(R"({"a": 1, "b": 1})");
  EXPECT_EQ(static_cast<int>(MinMaxBounds(index, Doc(R"({"a": 1})"), Doc("{}")).status().code()),
            51174);
  EXPECT_EQ(
      static_cast<int>(MinMaxBounds(index, Doc("{}"), Doc(R"({"b": 1, "a": 1})")).status().code()),
      51174);
  EXPECT_EQ(
      static_cast<int>(MinMaxBounds(index, Doc(R"({"a": 1, "b": 1})"), Doc(R"({"a": 1, "b": 1})"))
                           .status()
                           .code()),
      51175);
  EXPECT_EQ(static_cast<int>(
                MinMaxBounds(index, Doc(R"({"a": {"$maxKey": 1}, "b": {"$maxKey": 1}})"), Doc("{}"))
                    .status()
                    .code()),
            51175);
}

}  // namespace
}  // namespace quarry::exec
