// FieldPath parsing and the query-style traversal the matcher and sort build on.
#include "query/match/field_path.h"

#include <gtest/gtest.h>

#include "query_test_util.h"

namespace quarry::query {
namespace {

using testing::Doc;

// The values TraversePath visits, as JSON ("missing" for absent), with their array index.
std::vector<std::string> Visit(std::string_view doc_json, std::string_view path,
                               bool expand_leaf_arrays = true) {
  bson::Document doc = Doc(doc_json);
  std::vector<std::string> seen;
  TraversePath(bson::ValueView(bson::Type::kDocument, doc.view().data(), doc.size()),
               FieldPath::FromDotted(path), expand_leaf_arrays, [&](const PathValue& reached) {
                 std::string entry = reached.value.ToJson();
                 if (reached.array_index.has_value()) {
                   entry += '@';
                   entry += std::to_string(*reached.array_index);
                 }
                 seen.push_back(entry);
                 return false;
               });
  return seen;
}

std::vector<std::string> Collected(std::string_view doc_json, std::string_view path) {
  bson::Document doc = Doc(doc_json);
  std::vector<std::string> out;
  for (bson::ValueView value : CollectPathValues(doc, FieldPath::FromDotted(path))) {
    out.push_back(value.ToJson());
  }
  return out;
}

using Strings = std::vector<std::string>;

TEST(FieldPathTest, ParseSplitsComponents) {
  StatusWith<FieldPath> path = FieldPath::Parse("a.b.0");
  ASSERT_TRUE(path.ok());
  EXPECT_EQ(path.value().size(), 3u);
  EXPECT_EQ(path.value()[0], "a");
  EXPECT_EQ(path.value()[2], "0");
  EXPECT_EQ(path.value().dotted(), "a.b.0");
  EXPECT_EQ(path.value().Suffix(1), "b.0");
  EXPECT_EQ(path.value().Prefix(2), "a.b");
}

TEST(FieldPathTest, ParseRejectsEmptyComponents) {
  EXPECT_FALSE(FieldPath::Parse("").ok());
  EXPECT_FALSE(FieldPath::Parse("a..b").ok());
  EXPECT_FALSE(FieldPath::Parse(".a").ok());
  EXPECT_FALSE(FieldPath::Parse("a.").ok());
}

TEST(FieldPathTest, FromDottedAcceptsAnything) {
  EXPECT_EQ(FieldPath::FromDotted("").size(), 1u);
  EXPECT_EQ(FieldPath::FromDotted("a..b").size(), 3u);
}

TEST(FieldPathTest, PrefixMeansWholeComponents) {
  EXPECT_TRUE(FieldPath::FromDotted("a").IsPrefixOf(FieldPath::FromDotted("a.b")));
  EXPECT_TRUE(FieldPath::FromDotted("a.b").IsPrefixOf(FieldPath::FromDotted("a.b")));
  EXPECT_FALSE(FieldPath::FromDotted("a").IsPrefixOf(FieldPath::FromDotted("ab")));
  EXPECT_FALSE(FieldPath::FromDotted("a.b").IsPrefixOf(FieldPath::FromDotted("a")));
}

TEST(FieldPathTest, ArrayIndexNeedsPlainDigits) {
  EXPECT_EQ(ArrayIndexOf("0"), 0u);
  EXPECT_EQ(ArrayIndexOf("12"), 12u);
  EXPECT_FALSE(ArrayIndexOf("01").has_value());
  EXPECT_FALSE(ArrayIndexOf("-1").has_value());
  EXPECT_FALSE(ArrayIndexOf("1a").has_value());
  EXPECT_FALSE(ArrayIndexOf("").has_value());
}

TEST(FieldPathTest, TraversalYieldsLeafArrayElementsThenTheArray) {
  EXPECT_EQ(Visit(R"({"a": [1, 2]})", "a"), (Strings{"1@0", "2@1", "[ 1, 2 ]"}));
  EXPECT_EQ(Visit(R"({"a": [1, 2]})", "a", false), (Strings{"[ 1, 2 ]"}));
}

TEST(FieldPathTest, TraversalYieldsMissingForAbsentFields) {
  EXPECT_EQ(Visit(R"({"a": 1})", "b"), (Strings{"missing"}));
  EXPECT_EQ(Visit(R"({"a": 1})", "a.b"), (Strings{"missing"}));
  EXPECT_EQ(Visit(R"({"a": {"c": 1}})", "a.b"), (Strings{"missing"}));
}

TEST(FieldPathTest, TraversalGoesThroughArraysOfDocuments) {
  EXPECT_EQ(Visit(R"({"a": [{"b": 1}, {"c": 2}, 3]})", "a.b"), (Strings{"1@0", "missing@1"}));
}

TEST(FieldPathTest, TraversalUsesNumericComponentsBothWays) {
  EXPECT_EQ(Visit(R"({"a": [{"0": "x"}, "y"]})", "a.0"),
            (Strings{"\"x\"@0", "{ \"0\" : \"x\" }@0"}));
  EXPECT_EQ(Visit(R"({"a": [7, 8]})", "a.1"), (Strings{"8@1"}));
}

TEST(FieldPathTest, TraversalSkipsNestedArraysMidPath) {
  EXPECT_EQ(Visit(R"({"a": [[{"b": 1}]]})", "a.b"), Strings{});
}

TEST(FieldPathTest, TraversalReportsOutermostArrayIndex) {
  EXPECT_EQ(Visit(R"({"a": [{"b": [5]}, {"b": [6, 7]}]})", "a.b"),
            (Strings{"5@0", "[ 5 ]@0", "6@1", "7@1", "[ 6, 7 ]@1"}));
}

TEST(FieldPathTest, CollectGivesSortKeyValues) {
  EXPECT_EQ(Collected(R"({"a": [3, 1]})", "a"), (Strings{"3", "1"}));
  EXPECT_EQ(Collected(R"({"a": []})", "a"), (Strings{"[  ]"}));
  EXPECT_EQ(Collected(R"({"b": 1})", "a"), (Strings{"missing"}));
  EXPECT_EQ(Collected(R"({"a": [{"b": 2}, {"c": 1}]})", "a.b"), (Strings{"2", "missing"}));
  EXPECT_EQ(Collected(R"({"a": [{"b": [4, 5]}]})", "a.b"), (Strings{"4", "5"}));
  EXPECT_EQ(Collected(R"({"a": [10, 20]})", "a.1"), (Strings{"20"}));
}

}  // namespace
}  // namespace quarry::query
