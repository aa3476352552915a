#include "text/search_sort.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "bson/json.h"

namespace quarry::text {
namespace {

class SearchSortTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mapping_.root.dynamic = true;
    mapping_.root.fields["name"].value_kinds = kTokenValues;
    Put(0, R"({"year": 1999, "name": "b"})");
    Put(1, R"({"year": [1980, 2010], "name": "a"})");
    Put(2, R"({"name": "c"})");
    Put(3, R"({"year": 2000.5, "name": "a"})");
  }

  void Put(std::uint32_t label, std::string_view json) {
    bson::Document document = bson::FromJson(json).value();
    index_.Set(label, mapping_, document.view());
  }

  // The labels in `json`'s order, each scored as `scores` says.
  std::vector<std::uint32_t> Sorted(std::string_view json,
                                    std::vector<double> scores = {0, 0, 0, 0}) {
    bson::Document spec = bson::FromJson(json).value();
    StatusWith<SearchSort> sort = ParseSearchSort(bson::ValueView(spec.view().Get("s")));
    EXPECT_TRUE(sort.ok()) << sort.status().ToString();
    std::vector<bson::Document> keys;
    std::vector<std::uint32_t> labels = {0, 1, 2, 3};
    for (std::uint32_t label : labels) keys.push_back(SortKeyOf(sort.value(), index_, label));
    std::stable_sort(labels.begin(), labels.end(), [&](std::uint32_t a, std::uint32_t b) {
      return CompareSortKeys(sort.value(), keys[a].view(), scores[a], keys[b].view(), scores[b]) <
             0;
    });
    return labels;
  }

  FullTextMapping mapping_;
  InvertedIndex index_;
};

TEST_F(SearchSortTest, OrdersByHeldValuesWithArraysAndMissingValues) {
  // Ascending: no value first, then an array by its least element.
  EXPECT_EQ(Sorted(R"({"s": {"year": 1}})"), (std::vector<std::uint32_t>{2, 1, 0, 3}));
  // Descending: an array by its greatest element, no value last.
  EXPECT_EQ(Sorted(R"({"s": {"year": -1}})"), (std::vector<std::uint32_t>{1, 3, 0, 2}));
  EXPECT_EQ(Sorted(R"({"s": {"year": {"order": 1, "noData": "highest"}}})"),
            (std::vector<std::uint32_t>{1, 0, 3, 2}));
  EXPECT_EQ(Sorted(R"({"s": {"year": {"order": -1, "noData": "highest"}}})"),
            (std::vector<std::uint32_t>{2, 1, 3, 0}));
}

TEST_F(SearchSortTest, LaterFieldsAndTheScoreBreakTies) {
  // Both "a": the greatest year of the array, 2010, comes first.
  EXPECT_EQ(Sorted(R"({"s": {"name": 1, "year": -1}})"), (std::vector<std::uint32_t>{1, 3, 0, 2}));
  EXPECT_EQ(Sorted(R"({"s": {"name": 1, "score": {"$meta": "searchScore"}}})", {0, 1, 0, 2}),
            (std::vector<std::uint32_t>{3, 1, 0, 2}));
  EXPECT_EQ(Sorted(R"({"s": {"score": {"$meta": "searchScore", "order": 1}}})", {3, 1, 2, 0}),
            (std::vector<std::uint32_t>{3, 1, 2, 0}));
  EXPECT_EQ(Sorted(R"({"s": {"score": {"$meta": "searchScore"}}})", {3, 1, 2, 0}),
            (std::vector<std::uint32_t>{0, 2, 1, 3}));
}

TEST(SearchSortParseTest, RefusesMalformedSorts) {
  auto code = [](std::string_view json) {
    bson::Document spec = bson::FromJson(json).value();
    return ParseSearchSort(bson::ValueView(spec.view().Get("s"))).status().code();
  };
  EXPECT_EQ(code(R"({"s": 1})"), ErrorCode::kTypeMismatch);
  EXPECT_EQ(code(R"({"s": {}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"s": {"a": 2}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"s": {"a": "asc"}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"s": {"a": {"noData": "lowest"}}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"s": {"a": {"order": 1, "noData": "middle"}}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"s": {"a": {"$meta": "textScore"}}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"s": {"a": {"order": 1, "extra": 1}}})"), ErrorCode::kBadValue);
}

}  // namespace
}  // namespace quarry::text
