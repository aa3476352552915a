// Index bounds of negations, $exists and $elemMatch (index_intervals_logical.cc): mongod's
// explain strings, and the cases where mongod bounds nothing because an array, null or a missing
// field would make the bounds lose a match.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "exec/index_bounds.h"
#include "index_test_util.h"

namespace quarry::exec {
namespace {

using testing::Doc;
using testing::ExpectWellFormed;
using testing::Filter;
using testing::Index;

constexpr bool kMultikey = true;
constexpr bool kNotMultikey = false;

// The explain form of the bounds for `filter_json`, or "none".
std::string Explain(const IndexDescriptor& index, std::string_view filter_json, bool multikey) {
  std::optional<IndexBounds> bounds = BoundsFor(index, Filter(filter_json), multikey);
  if (!bounds.has_value()) return "none";
  ExpectWellFormed(*bounds);
  return bounds->ToExplain().ToJson();
}

// Whether a key of `doc_json` (which the filter must match) lies inside the bounds.
bool Reads(const IndexDescriptor& index, std::string_view filter_json, std::string_view doc_json) {
  EXPECT_TRUE(Filter(filter_json).Matches(Doc(doc_json))) << doc_json;
  std::optional<IndexBounds> bounds = BoundsFor(index, Filter(filter_json), kMultikey);
  EXPECT_TRUE(bounds.has_value()) << filter_json;
  StatusWith<std::vector<IndexKey>> keys = index.KeysOf(Doc(doc_json));
  EXPECT_TRUE(keys.ok()) << doc_json;
  if (!bounds.has_value() || !keys.ok()) return false;
  for (const IndexKey& key : keys.value()) {
    for (const KeyInterval& interval : bounds->intervals) {
      if (interval.Contains(key.encoded)) return true;
    }
  }
  return false;
}

TEST(IndexBoundsLogicalTest, NotEqualReadsEverythingElse) {
  IndexDescriptor index = Index(R"({"a": 1})");
  for (bool multikey : {kMultikey, kNotMultikey}) {
    EXPECT_EQ(Explain(index, R"({"a": {"$ne": 5}})", multikey),
              R"e({ "a" : [ "[MinKey, 5)", "(5, MaxKey]" ] })e");
    EXPECT_EQ(Explain(index, R"({"a": {"$ne": "x"}})", multikey),
              R"e({ "a" : [ "[MinKey, \"x\")", "(\"x\", MaxKey]" ] })e");
    EXPECT_EQ(Explain(index, R"({"a": {"$nin": [3, 1]}})", multikey),
              R"e({ "a" : [ "[MinKey, 1)", "(1, 3)", "(3, MaxKey]" ] })e");
    EXPECT_EQ(Explain(index, R"({"a": {"$not": {"$in": [1]}}})", multikey),
              R"e({ "a" : [ "[MinKey, 1)", "(1, MaxKey]" ] })e");
  }
  EXPECT_TRUE(Reads(index, R"({"a": {"$ne": 5}})", R"({})"));
  EXPECT_TRUE(Reads(index, R"({"a": {"$ne": 5}})", R"({"a": []})"));
  EXPECT_TRUE(Reads(index, R"({"a": {"$ne": 5}})", R"({"a": [[5]]})"));
  EXPECT_TRUE(Reads(index, R"({"a": {"$nin": [1, 3]}})", R"({"a": [2, 4]})"));
}

TEST(IndexBoundsLogicalTest, NotOfARangeReadsItsComplementOverAllTypes) {
  IndexDescriptor index = Index(R"({"a": 1})");
  EXPECT_EQ(Explain(index, R"({"a": {"$not": {"$gt": 5}}})", kMultikey),
            R"e({ "a" : [ "[MinKey, 5]", "(inf.0, MaxKey]" ] })e");
  EXPECT_EQ(Explain(index, R"({"a": {"$not": {"$lte": "m"}}})", kMultikey),
            R"e({ "a" : [ "[MinKey, \"\")", "(\"m\", MaxKey]" ] })e");
  EXPECT_TRUE(Reads(index, R"({"a": {"$not": {"$gt": 5}}})", R"({"a": "z"})"));
  EXPECT_TRUE(Reads(index, R"({"a": {"$not": {"$gt": 5}}})", R"({"a": {"$numberDouble": "NaN"}})"));
}

TEST(IndexBoundsLogicalTest, NonMultikeyIndexesIntersectNegationsWithOtherConditions) {
  IndexDescriptor index = Index(R"({"a": 1})");
  EXPECT_EQ(Explain(index, R"({"a": {"$ne": 5, "$gt": 3}})", kNotMultikey),
            R"e({ "a" : [ "(3, 5)", "(5, inf.0]" ] })e");
  // A multikey index takes the condition that does not read everything.
  EXPECT_EQ(Explain(index, R"({"a": {"$exists": true, "$gt": 3}})", kMultikey),
            R"e({ "a" : [ "(3, inf.0]" ] })e");
}

TEST(IndexBoundsLogicalTest, DescendingFieldsPrintTheComplementReversed) {
  EXPECT_EQ(Explain(Index(R"({"a": -1})"), R"({"a": {"$ne": 5}})", kMultikey),
            R"e({ "a" : [ "[MaxKey, 5)", "(5, MinKey]" ] })e");
  EXPECT_EQ(Explain(Index(R"({"a": -1})"), R"({"a": {"$ne": null}})", kNotMultikey),
            R"e({ "a" : [ "[MaxKey, null)", "(undefined, MinKey]" ] })e");
}

TEST(IndexBoundsLogicalTest, NotEqualNullOnlyWithoutArrays) {
  IndexDescriptor index = Index(R"({"a": 1})");
  EXPECT_EQ(Explain(index, R"({"a": {"$ne": null}})", kNotMultikey),
            R"e({ "a" : [ "[MinKey, undefined)", "(null, MaxKey]" ] })e");
  EXPECT_EQ(Explain(index, R"({"a": {"$nin": [null, []]}})", kNotMultikey),
            R"e({ "a" : [ "[MinKey, undefined)", "(null, [])", "([], MaxKey]" ] })e");
  // {a: []} meets {$ne: null} with the key undefined.
  ASSERT_TRUE(Filter(R"({"a": {"$ne": null}})").Matches(Doc(R"({"a": []})")));
  EXPECT_EQ(Explain(index, R"({"a": {"$ne": null}})", kMultikey), "none");
  EXPECT_EQ(Explain(index, R"({"a": {"$nin": [1, null]}})", kMultikey), "none");
  EXPECT_EQ(Explain(index, R"({"a": {"$not": {"$gte": null}}})", kMultikey), "none");
}

TEST(IndexBoundsLogicalTest, NegationsMongodDoesNotInvertReadNothing) {
  IndexDescriptor index = Index(R"({"a": 1})");
  for (const char* filter : {
           R"({"a": {"$ne": [1, 2]}})",
           R"({"a": {"$nin": [1, [2]]}})",
           R"({"a": {"$not": {"$gt": [1]}}})",
           R"({"a": {"$not": {"$lt": {"$maxKey": 1}}}})",
           R"({"a": {"$not": {"$gt": {"$minKey": 1}}}})",
           R"({"a": {"$not": {"$gt": 1, "$lt": 5}}})",
           R"({"a": {"$not": {"$regularExpression": {"pattern": "^x", "options": ""}}}})",
       }) {
    EXPECT_EQ(Explain(index, filter, kNotMultikey), "none") << filter;
  }
}

TEST(IndexBoundsLogicalTest, ExistsReadsEveryKeyAndNotExistsTheNullKey) {
  IndexDescriptor index = Index(R"({"a.b": 1})");
  EXPECT_EQ(Explain(index, R"({"a.b": {"$exists": true}})", kMultikey),
            R"e({ "a.b" : [ "[MinKey, MaxKey]" ] })e");
  EXPECT_EQ(Explain(index, R"({"a.b": {"$exists": false}})", kMultikey),
            R"e({ "a.b" : [ "[null, null]" ] })e");
  for (const char* doc : {R"({})", R"({"a": []})", R"({"a": [1, [2]]})", R"({"a": [{"c": 1}]})",
                          R"({"a": {"c": 1}})"}) {
    EXPECT_TRUE(Reads(index, R"({"a.b": {"$exists": false}})", doc)) << doc;
  }
}

TEST(IndexBoundsLogicalTest, SparseIndexesBoundExistsAndNotEqualNullOnly) {
  IndexDescriptor index = Index(R"({"a": 1})", R"({"sparse": true})");
  EXPECT_EQ(Explain(index, R"({"a": {"$exists": true}})", kMultikey),
            R"e({ "a" : [ "[MinKey, MaxKey]" ] })e");
  EXPECT_EQ(Explain(index, R"({"a": {"$ne": null}})", kNotMultikey),
            R"e({ "a" : [ "[MinKey, undefined)", "(null, MaxKey]" ] })e");
  EXPECT_EQ(Explain(index, R"({"a": {"$exists": false}})", kNotMultikey), "none");
  EXPECT_EQ(Explain(index, R"({"a": {"$ne": 5}})", kNotMultikey), "none");
  EXPECT_EQ(Explain(index, R"({"a": {"$nin": [5, null]}})", kNotMultikey), "none");
}

TEST(IndexBoundsLogicalTest, PositionalPathsBoundNoNegationNorElemMatch) {
  IndexDescriptor index = Index(R"({"a.0": 1})");
  EXPECT_EQ(Explain(index, R"({"a.0": {"$ne": null}})", kNotMultikey), "none");
  EXPECT_EQ(Explain(index, R"({"a.0": {"$elemMatch": {"$gt": 1}}})", kMultikey), "none");
}

TEST(IndexBoundsLogicalTest, ElemMatchOnValuesIntersectsItsConditionsEvenWhenMultikey) {
  IndexDescriptor index = Index(R"({"a": 1})");
  const char* kRange = R"({"a": {"$elemMatch": {"$gte": 3, "$lt": 5}}})";
  EXPECT_EQ(Explain(index, kRange, kMultikey), R"e({ "a" : [ "[3, 5)" ] })e");
  EXPECT_TRUE(Reads(index, kRange, R"({"a": [1, 4, 9]})"));
  EXPECT_EQ(Explain(index, R"({"a": {"$elemMatch": {"$ne": null}}})", kMultikey),
            R"e({ "a" : [ "[MinKey, undefined)", "(null, MaxKey]" ] })e");
  EXPECT_EQ(Explain(index, R"({"a": {"$elemMatch": {"$gt": 1, "$type": "int"}}})", kMultikey),
            R"e({ "a" : [ "(1, inf.0]" ] })e");
  EXPECT_EQ(Explain(index, R"({"a": {"$elemMatch": {"$type": "int"}}})", kMultikey), "none");
}

TEST(IndexBoundsLogicalTest, ElemMatchOnDocumentsBoundsThePathsBelowIt) {
  const char* kFilter = R"({"a": {"$elemMatch": {"b": 1, "c": {"$gt": 2}}}})";
  EXPECT_EQ(Explain(Index(R"({"a.b": 1})"), kFilter, kMultikey), R"e({ "a.b" : [ "[1, 1]" ] })e");
  EXPECT_EQ(Explain(Index(R"({"a.c": 1})"), kFilter, kMultikey),
            R"e({ "a.c" : [ "(2, inf.0]" ] })e");
  EXPECT_TRUE(Reads(Index(R"({"a.b": 1})"), kFilter, R"({"a": [{"b": 0}, {"b": [1], "c": 3}]})"));
  EXPECT_EQ(
      Explain(Index(R"({"a.b": 1})"), R"({"a": {"$elemMatch": {"b": {"$ne": 1}}}})", kMultikey),
      "none");
}

TEST(IndexBoundsLogicalTest, OneElemMatchBoundsCompoundFieldsThatPartBelowIt) {
  IndexDescriptor index = Index(R"({"a.b": 1, "a.c": 1})");
  const char* kFilter = R"({"a": {"$elemMatch": {"b": 1, "c": {"$gte": 2}}}})";
  EXPECT_EQ(Explain(index, kFilter, kMultikey),
            R"e({ "a.b" : [ "[1, 1]" ], "a.c" : [ "[2, inf.0]" ] })e");
  EXPECT_TRUE(Reads(index, kFilter, R"({"a": [{"b": 3, "c": 2}, {"b": [0, 1], "c": 5}]})"));
  // Without one $elemMatch, two elements may meet the two conditions.
  for (const char* filter : {R"({"a.b": 1, "a.c": 2})",
                             R"({"$and": [{"a": {"$elemMatch": {"b": 1}}},
                                          {"a": {"$elemMatch": {"c": 2}}}]})",
                             R"({"a.b": 1, "a": {"$elemMatch": {"c": 2}}})"}) {
    EXPECT_EQ(Explain(index, filter, kMultikey),
              R"e({ "a.b" : [ "[1, 1]" ], "a.c" : [ "[MinKey, MaxKey]" ] })e")
        << filter;
  }
  // Paths that share an array below the $elemMatch ("x") are not both bounded.
  EXPECT_EQ(Explain(Index(R"({"a.x.b": 1, "a.x.c": 1})"),
                    R"({"a": {"$elemMatch": {"x.b": 1, "x.c": 2}}})", kMultikey),
            R"e({ "a.x.b" : [ "[1, 1]" ], "a.x.c" : [ "[MinKey, MaxKey]" ] })e");
  EXPECT_TRUE(Reads(Index(R"({"a.x.b": 1, "a.x.c": 1})"),
                    R"({"a": {"$elemMatch": {"x.b": 1, "x.c": 2}}})",
                    R"({"a": [{"x": [{"b": 1, "c": 5}, {"b": 3, "c": 2}]}]})"));
}

}  // namespace
}  // namespace quarry::exec
