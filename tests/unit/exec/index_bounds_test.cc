// Index bounds: the intervals of keys an index scan reads for a filter, and their explain form
// (index_bounds_differential_test.cc checks on random data that they never lose a match).
#include "exec/index_bounds.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "exec/index_intervals_internal.h"
#include "index_test_util.h"
#include "storage/key_encoding.h"

namespace quarry::exec {
namespace {

using testing::Doc;
using testing::ExpectWellFormed;
using testing::Filter;
using testing::Index;

// The explain form of the bounds for `filter_json`, or "none".
std::string Explain(const IndexDescriptor& index, std::string_view filter_json) {
  std::optional<IndexBounds> bounds = BoundsFor(index, Filter(filter_json));
  if (!bounds.has_value()) return "none";
  ExpectWellFormed(*bounds);
  return bounds->ToExplain().ToJson();
}

// Whether a key of `doc_json` lies inside the bounds for `filter_json`, with and without an _id
// after it (as non-unique index entries have).
bool Reads(const IndexDescriptor& index, std::string_view filter_json, std::string_view doc_json) {
  std::optional<IndexBounds> bounds = BoundsFor(index, Filter(filter_json));
  EXPECT_TRUE(bounds.has_value()) << filter_json;
  StatusWith<std::vector<IndexKey>> keys = index.KeysOf(Doc(doc_json));
  EXPECT_TRUE(keys.ok()) << doc_json;
  if (!bounds.has_value() || !keys.ok()) return false;
  const std::string id = storage::EncodeIndexKey(Doc(R"({"_id": 12})").Get("_id"));
  bool read = false;
  for (const IndexKey& key : keys.value()) {
    for (const KeyInterval& interval : bounds->intervals) {
      const bool inside = interval.Contains(key.encoded);
      EXPECT_EQ(interval.Contains(key.encoded + id), inside) << doc_json;
      read = read || inside;
    }
  }
  return read;
}

TEST(IndexBoundsTest, EqualityReadsOnePoint) {
  IndexDescriptor index = Index(R"({"a": 1})");
  EXPECT_EQ(Explain(index, R"({"a": 5})"), R"e({ "a" : [ "[5, 5]" ] })e");
  EXPECT_EQ(Explain(index, R"({"a": {"$eq": "x"}})"), R"e({ "a" : [ "[\"x\", \"x\"]" ] })e");
  std::optional<IndexBounds> bounds = BoundsFor(index, Filter(R"({"a": 5})"));
  ASSERT_TRUE(bounds.has_value());
  EXPECT_EQ(bounds->intervals.size(), 1u);
  EXPECT_EQ(bounds->equality_prefix, 1u);
  EXPECT_TRUE(Reads(index, R"({"a": 5})", R"({"a": 5})"));
  EXPECT_TRUE(Reads(index, R"({"a": 5})", R"({"a": 5.0})"));
  EXPECT_TRUE(Reads(index, R"({"a": 5})", R"({"a": [1, 5]})"));
  EXPECT_FALSE(Reads(index, R"({"a": 5})", R"({"a": 6})"));
  EXPECT_FALSE(Reads(index, R"({"a": 5})", R"({"a": "5"})"));
}

// The explain form of the bounds for `filter_json` on an index no document makes multikey.
std::string ExplainSingleKey(const IndexDescriptor& index, std::string_view filter_json) {
  std::optional<IndexBounds> bounds = BoundsFor(index, Filter(filter_json), /*multikey=*/false);
  if (!bounds.has_value()) return "none";
  ExpectWellFormed(*bounds);
  return bounds->ToExplain().ToJson();
}

TEST(IndexBoundsTest, ConditionsOnOneFieldIntersectWhenNoDocumentHasAnArrayThere) {
  const IndexDescriptor index = Index(R"({"a": 1, "b": 1})");
  const std::string_view range = R"({"a": {"$gte": 3, "$lt": 5}})";
  EXPECT_EQ(ExplainSingleKey(index, range),
            R"e({ "a" : [ "[3, 5)" ], "b" : [ "[MinKey, MaxKey]" ] })e");
  EXPECT_EQ(Explain(index, range), R"e({ "a" : [ "[3, inf.0]" ], "b" : [ "[MinKey, MaxKey]" ] })e");
  EXPECT_EQ(ExplainSingleKey(index, R"({"a": {"$in": [1, 4, 9]}, "$and": [{"a": {"$gt": 2}}]})"),
            R"e({ "a" : [ "[4, 4]", "[9, 9]" ], "b" : [ "[MinKey, MaxKey]" ] })e");
  // Points stay points, so the next field is bounded too.
  EXPECT_EQ(ExplainSingleKey(index, R"({"a": {"$in": [1, 4]}, "$and": [{"a": {"$lte": 4}}],
                                        "b": {"$gt": 0, "$lte": 2}})"),
            R"e({ "a" : [ "[1, 1]", "[4, 4]" ], "b" : [ "(0, 2]" ] })e");
  // Ranges of different types meet nowhere: nothing is read.
  std::optional<IndexBounds> none =
      BoundsFor(index, Filter(R"({"a": {"$gt": 1, "$lt": "z"}})"), /*multikey=*/false);
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->intervals.empty());
  EXPECT_EQ(ExplainSingleKey(Index(R"({"a": -1})"), range), R"e({ "a" : [ "(5, 3]" ] })e");
}

TEST(IndexBoundsTest, InReadsSortedDistinctPoints) {
  EXPECT_EQ(Explain(Index(R"({"a": 1})"), R"({"a": {"$in": [3, "x", 1, 3, 2]}})"),
            R"e({ "a" : [ "[1, 1]", "[2, 2]", "[3, 3]", "[\"x\", \"x\"]" ] })e");
  EXPECT_EQ(Explain(Index(R"({"a": -1})"), R"({"a": {"$in": [3, 1, 2]}})"),
            R"e({ "a" : [ "[3, 3]", "[2, 2]", "[1, 1]" ] })e");
  std::optional<IndexBounds> bounds =
      BoundsFor(Index(R"({"a": 1})"), Filter(R"({"a": {"$in": [3, 1, 3, 2]}})"));
  ASSERT_TRUE(bounds.has_value());
  EXPECT_EQ(bounds->intervals.size(), 3u);
  EXPECT_EQ(bounds->equality_prefix, 1u);
}

TEST(IndexBoundsTest, EmptyInReadsNothing) {
  std::optional<IndexBounds> bounds =
      BoundsFor(Index(R"({"a": 1})"), Filter(R"({"a": {"$in": []}})"));
  ASSERT_TRUE(bounds.has_value());
  EXPECT_TRUE(bounds->intervals.empty());
  EXPECT_EQ(bounds->ToExplain().ToJson(), R"e({ "a" : [  ] })e");
}

TEST(IndexBoundsTest, InWithARegexIsNoCondition) {
  EXPECT_EQ(
      Explain(Index(R"({"a": 1})"),
              R"({"a": {"$in": [1, {"$regularExpression": {"pattern": "x", "options": ""}}]}})"),
      "none");
}

TEST(IndexBoundsTest, NumberRangesReadNumbersOnly) {
  IndexDescriptor index = Index(R"({"a": 1})");
  EXPECT_EQ(Explain(index, R"({"a": {"$gt": 5}})"), R"e({ "a" : [ "(5, inf.0]" ] })e");
  EXPECT_EQ(Explain(index, R"({"a": {"$gte": 5}})"), R"e({ "a" : [ "[5, inf.0]" ] })e");
  EXPECT_EQ(Explain(index, R"({"a": {"$lt": 5.5}})"), R"e({ "a" : [ "[-inf.0, 5.5)" ] })e");
  EXPECT_EQ(Explain(index, R"({"a": {"$lte": {"$numberDouble": "5"}}})"),
            R"e({ "a" : [ "[-inf.0, 5.0]" ] })e");
  EXPECT_EQ(Explain(index, R"({"a": {"$lte": {"$numberLong": "5"}}})"),
            R"e({ "a" : [ "[-inf.0, 5]" ] })e");
  EXPECT_TRUE(Reads(index, R"({"a": {"$gt": 5}})", R"({"a": 5.5})"));
  EXPECT_TRUE(Reads(index, R"({"a": {"$gt": 5}})", R"({"a": {"$numberDouble": "Infinity"}})"));
  EXPECT_FALSE(Reads(index, R"({"a": {"$gt": 5}})", R"({"a": 5})"));
  EXPECT_FALSE(Reads(index, R"({"a": {"$gt": 5}})", R"({"a": "6"})"));
  EXPECT_FALSE(Reads(index, R"({"a": {"$gt": 5}})", R"({"b": 1})"));
  EXPECT_FALSE(Reads(index, R"({"a": {"$lt": 5}})", R"({"a": {"$numberDouble": "NaN"}})"));
  EXPECT_TRUE(Reads(index, R"({"a": {"$lt": 5}})", R"({"a": {"$numberDouble": "-Infinity"}})"));
  // NaN equals only NaN.
  EXPECT_EQ(Explain(index, R"({"a": {"$gte": {"$numberDouble": "NaN"}}})"),
            R"e({ "a" : [ "[nan.0, nan.0]" ] })e");
  EXPECT_EQ(Explain(index, R"({"a": {"$gt": {"$numberDouble": "NaN"}}})"), R"e({ "a" : [  ] })e");
}

TEST(IndexBoundsTest, OtherRangesReadTheirTypesBracket) {
  IndexDescriptor index = Index(R"({"a": 1})");
  EXPECT_EQ(Explain(index, R"({"a": {"$lt": "m"}})"), R"e({ "a" : [ "[\"\", \"m\")" ] })e");
  EXPECT_EQ(Explain(index, R"({"a": {"$gt": "m"}})"), R"e({ "a" : [ "(\"m\", {})" ] })e");
  EXPECT_TRUE(Reads(index, R"({"a": {"$gt": "m"}})", R"({"a": "z"})"));
  EXPECT_FALSE(Reads(index, R"({"a": {"$gt": "m"}})", R"({"a": {}})"));
  EXPECT_FALSE(Reads(index, R"({"a": {"$lt": "m"}})", R"({"a": 1})"));
  EXPECT_EQ(Explain(index, R"({"a": {"$gte": {"b": 1}}})"), R"e({ "a" : [ "[{ b: 1 }, [])" ] })e");
  EXPECT_EQ(Explain(index, R"({"a": {"$gt": {"$date": 0}}})"),
            R"e({ "a" : [ "(new Date(0), new Date(9223372036854775807)]" ] })e");
  EXPECT_EQ(Explain(index, R"({"a": {"$lte": true}})"), R"e({ "a" : [ "[false, true]" ] })e");
  EXPECT_EQ(Explain(index, R"({"a": {"$gt": {"$oid": "00000000000000000000000a"}}})"),
            "{ \"a\" : [ \"(ObjectId('00000000000000000000000a'), "
            "ObjectId('ffffffffffffffffffffffff')]\" ] }");
  EXPECT_TRUE(Reads(index, R"({"a": {"$gt": {"$date": 0}}})", R"({"a": {"$date": 5}})"));
  EXPECT_FALSE(Reads(index, R"({"a": {"$gt": {"$date": 0}}})", R"({"a": 5})"));
}

TEST(IndexBoundsTest, MinKeyAndMaxKeyBoundEveryType) {
  IndexDescriptor index = Index(R"({"a": 1})");
  // A whole array is below MaxKey, so {$lt: MaxKey} reads MaxKey keys too ([MaxKey] matches).
  EXPECT_EQ(Explain(index, R"({"a": {"$lt": {"$maxKey": 1}}})"),
            R"e({ "a" : [ "[MinKey, MaxKey]" ] })e");
  ASSERT_TRUE(
      Filter(R"({"a": {"$lt": {"$maxKey": 1}}})").Matches(Doc(R"({"a": [{"$maxKey": 1}]})")));
  EXPECT_TRUE(Reads(index, R"({"a": {"$lt": {"$maxKey": 1}}})", R"({"a": [{"$maxKey": 1}]})"));
  EXPECT_EQ(Explain(index, R"({"a": {"$gt": {"$minKey": 1}}})"),
            R"e({ "a" : [ "[MinKey, MaxKey]" ] })e");
  EXPECT_EQ(Explain(index, R"({"a": {"$gte": {"$minKey": 1}}})"),
            R"e({ "a" : [ "[MinKey, MaxKey]" ] })e");
  EXPECT_EQ(Explain(index, R"({"a": {"$lte": {"$minKey": 1}}})"),
            R"e({ "a" : [ "[MinKey, MinKey]" ] })e");
  EXPECT_TRUE(Reads(index, R"({"a": {"$lt": {"$maxKey": 1}}})", R"({"b": 1})"));
}

TEST(IndexBoundsTest, NullAlsoReadsUndefinedAndMissingFields) {
  IndexDescriptor index = Index(R"({"a": 1})");
  const char* kNullAndUndefined = R"e({ "a" : [ "[undefined, undefined]", "[null, null]" ] })e";
  EXPECT_EQ(Explain(index, R"({"a": null})"), kNullAndUndefined);
  EXPECT_EQ(Explain(index, R"({"a": {"$gte": null}})"), kNullAndUndefined);
  EXPECT_EQ(Explain(index, R"({"a": {"$in": [null, 1]}})"),
            R"e({ "a" : [ "[undefined, undefined]", "[null, null]", "[1, 1]" ] })e");
  EXPECT_EQ(Explain(index, R"({"a": {"$lt": null}})"), R"e({ "a" : [  ] })e");
  EXPECT_TRUE(Reads(index, R"({"a": null})", R"({"b": 1})"));
  EXPECT_TRUE(Reads(index, R"({"a": null})", R"({"a": {"$undefined": true}})"));
}

TEST(IndexBoundsTest, EqualityToAnArrayAlsoReadsItsFirstElement) {
  IndexDescriptor index = Index(R"({"a": 1})");
  EXPECT_EQ(Explain(index, R"({"a": [2, 1]})"),
            R"e({ "a" : [ "[2, 2]", "[[ 2, 1 ], [ 2, 1 ]]" ] })e");
  EXPECT_EQ(Explain(index, R"({"a": []})"),
            R"e({ "a" : [ "[undefined, undefined]", "[[], []]" ] })e");
  EXPECT_TRUE(Reads(index, R"({"a": [2, 1]})", R"({"a": [2, 1]})"));
  EXPECT_TRUE(Reads(index, R"({"a": [2, 1]})", R"({"a": [[2, 1]]})"));
  EXPECT_TRUE(Reads(index, R"({"a": []})", R"({"a": []})"));
  EXPECT_TRUE(Reads(index, R"({"a": []})", R"({"a": [[]]})"));
}

TEST(IndexBoundsTest, RangeOverAnArrayIsNoCondition) {
  EXPECT_EQ(Explain(Index(R"({"a": 1})"), R"({"a": {"$gt": [1]}})"), "none");
}

TEST(IndexBoundsTest, NoConditionOnTheFirstFieldGivesNoBounds) {
  IndexDescriptor index = Index(R"({"a": 1, "b": 1})");
  EXPECT_EQ(Explain(index, R"({"b": 1})"), "none");
  EXPECT_EQ(Explain(index, R"({})"), "none");
  EXPECT_EQ(Explain(index, R"({"$or": [{"a": 1}, {"a": 2}]})"), "none");
  EXPECT_EQ(Explain(index, R"({"a": {"$type": "string"}})"), "none");
  EXPECT_EQ(
      Explain(index, R"({"a": {"$not": {"$regularExpression": {"pattern": "x", "options": ""}}}})"),
      "none");
}

TEST(IndexBoundsTest, CompoundBoundsAreEqualitiesThenOneRangeThenWholeFields) {
  IndexDescriptor index = Index(R"({"a": 1, "b": 1, "c": 1})");
  EXPECT_EQ(Explain(index, R"({"a": 1, "b": {"$gt": 2}, "c": 3})"),
            R"e({ "a" : [ "[1, 1]" ], "b" : [ "(2, inf.0]" ], "c" : [ "[MinKey, MaxKey]" ] })e");
  std::optional<IndexBounds> bounds = BoundsFor(index, Filter(R"({"a": 1, "b": {"$gt": 2}})"));
  ASSERT_TRUE(bounds.has_value());
  EXPECT_EQ(bounds->equality_prefix, 1u);
  EXPECT_TRUE(Reads(index, R"({"a": 1, "b": {"$gt": 2}})", R"({"a": 1, "b": 3, "c": "z"})"));
  EXPECT_FALSE(Reads(index, R"({"a": 1, "b": {"$gt": 2}})", R"({"a": 1, "b": 2, "c": 9})"));
  EXPECT_FALSE(Reads(index, R"({"a": 1, "b": {"$gt": 2}})", R"({"a": 2, "b": 3})"));
  // A field without a condition ends the bounded prefix.
  EXPECT_EQ(
      Explain(index, R"({"a": 1, "c": 3})"),
      R"e({ "a" : [ "[1, 1]" ], "b" : [ "[MinKey, MaxKey]" ], "c" : [ "[MinKey, MaxKey]" ] })e");
  // Every combination of equalities, in key order.
  bounds = BoundsFor(index, Filter(R"({"b": {"$in": [6, 5]}, "a": {"$in": [2, 1]}, "c": 0})"));
  ASSERT_TRUE(bounds.has_value());
  EXPECT_EQ(bounds->intervals.size(), 4u);
  EXPECT_EQ(bounds->equality_prefix, 3u);
  ExpectWellFormed(*bounds);
  EXPECT_TRUE(
      Reads(index, R"({"b": {"$in": [6, 5]}, "a": {"$in": [2, 1]}})", R"({"a": 2, "b": 5})"));
  EXPECT_FALSE(
      Reads(index, R"({"b": {"$in": [6, 5]}, "a": {"$in": [2, 1]}})", R"({"a": 2, "b": 7})"));
}

TEST(IndexBoundsTest, DescendingFieldsReverseTheirIntervals) {
  IndexDescriptor index = Index(R"({"a": -1})");
  EXPECT_EQ(Explain(index, R"({"a": {"$gt": 5}})"), R"e({ "a" : [ "[inf.0, 5)" ] })e");
  EXPECT_TRUE(Reads(index, R"({"a": {"$gt": 5}})", R"({"a": 6})"));
  EXPECT_FALSE(Reads(index, R"({"a": {"$gt": 5}})", R"({"a": 5})"));
  EXPECT_FALSE(Reads(index, R"({"a": {"$gt": 5}})", R"({"a": "x"})"));
  IndexDescriptor compound = Index(R"({"a": 1, "b": -1})");
  EXPECT_EQ(Explain(compound, R"({"a": 1, "b": {"$lt": 3}})"),
            R"e({ "a" : [ "[1, 1]" ], "b" : [ "(3, -inf.0]" ] })e");
  EXPECT_TRUE(Reads(compound, R"({"a": 1, "b": {"$lt": 3}})", R"({"a": 1, "b": 2})"));
  EXPECT_FALSE(Reads(compound, R"({"a": 1, "b": {"$lt": 3}})", R"({"a": 1, "b": 3})"));
  EXPECT_EQ(Explain(Index(R"({"a": -1, "b": 1})"), R"({"a": {"$lt": "m"}})"),
            R"e({ "a" : [ "(\"m\", \"\"]" ], "b" : [ "[MinKey, MaxKey]" ] })e");
}

TEST(IndexBoundsTest, TwoRangesOnOneFieldAreNotIntersected) {
  IndexDescriptor index = Index(R"({"a": 1})");
  EXPECT_EQ(Explain(index, R"({"a": {"$gt": 3, "$lt": 1}})"), R"e({ "a" : [ "(3, inf.0]" ] })e");
  ASSERT_TRUE(Filter(R"({"a": {"$gt": 3, "$lt": 1}})").Matches(Doc(R"({"a": [0, 5]})")));
  EXPECT_TRUE(Reads(index, R"({"a": {"$gt": 3, "$lt": 1}})", R"({"a": [0, 5]})"));
}

TEST(IndexBoundsTest, AnEqualityIsPreferredToARange) {
  EXPECT_EQ(Explain(Index(R"({"a": 1})"), R"({"$and": [{"a": {"$gt": 1}}, {"a": 5}]})"),
            R"e({ "a" : [ "[5, 5]" ] })e");
}

TEST(IndexBoundsTest, RegexReadsItsPrefixAndEqualRegexes) {
  IndexDescriptor index = Index(R"({"a": 1})");
  const char* kAnchored = R"({"a": {"$regularExpression": {"pattern": "^abc", "options": ""}}})";
  EXPECT_EQ(Explain(index, kAnchored),
            R"e({ "a" : [ "[\"abc\", \"abd\")", "[/^abc/, /^abc/]" ] })e");
  EXPECT_TRUE(Reads(index, kAnchored, R"({"a": "abcd"})"));
  EXPECT_TRUE(Reads(index, kAnchored, R"({"a": "abc"})"));
  EXPECT_FALSE(Reads(index, kAnchored, R"({"a": "abd"})"));
  EXPECT_FALSE(Reads(index, kAnchored, R"({"a": "ab"})"));
  EXPECT_TRUE(Reads(index, kAnchored,
                    R"({"a": {"$regularExpression": {"pattern": "^abc", "options": ""}}})"));
  EXPECT_EQ(Explain(index, R"({"a": {"$regularExpression": {"pattern": "abc", "options": ""}}})"),
            R"e({ "a" : [ "[\"\", {})", "[/abc/, /abc/]" ] })e");
  EXPECT_EQ(Explain(index, R"({"a": {"$regularExpression": {"pattern": "^abc", "options": "i"}}})"),
            R"e({ "a" : [ "[\"\", {})", "[/^abc/i, /^abc/i]" ] })e");
}

TEST(IndexBoundsTest, CollatedIndexBoundsStringsByTheCollation) {
  IndexDescriptor index = Index(R"({"a": 1})", R"({"collation": {"locale": "en", "strength": 2}})");
  EXPECT_TRUE(Reads(index, R"({"a": "ALICE"})", R"({"a": "alice"})"));
  EXPECT_TRUE(Reads(index, R"({"a": {"$in": ["x", "BOB"]}})", R"({"a": ["q", "bob"]})"));
  EXPECT_FALSE(Reads(index, R"({"a": "ALICE"})", R"({"a": "alicia"})"));
  EXPECT_TRUE(Reads(index, R"({"a": {"$gt": "B"}})", R"({"a": "c"})"));
  EXPECT_FALSE(Reads(index, R"({"a": {"$gt": "B"}})", R"({"a": "b"})"));
  EXPECT_TRUE(Reads(index, R"({"a": {"first": "ANN"}})", R"({"a": {"first": "ann"}})"));
}

TEST(IndexBoundsTest, RegexOnACollatedIndexReadsEveryString) {
  IndexDescriptor index = Index(R"({"a": 1})", R"({"collation": {"locale": "en", "strength": 2}})");
  const char* kAnchored = R"({"a": {"$regularExpression": {"pattern": "^abc", "options": ""}}})";
  EXPECT_EQ(Explain(index, kAnchored), R"e({ "a" : [ "[\"\", {})", "[/^abc/, /^abc/]" ] })e");
  EXPECT_TRUE(Reads(index, kAnchored, R"({"a": "abcd"})"));
  EXPECT_TRUE(Reads(index, kAnchored, R"({"a": "ABCD"})"));
}

TEST(IndexBoundsTest, RegexPrefixIsTheLiteralTextAfterTheAnchor) {
  EXPECT_EQ(RegexPrefix("^abc", ""), "abc");
  EXPECT_EQ(RegexPrefix("abc", ""), "");
  EXPECT_EQ(RegexPrefix("^abc", "m"), "");
  EXPECT_EQ(RegexPrefix("\\Aabc", "m"), "abc");
  EXPECT_EQ(RegexPrefix("^abc", "s"), "abc");
  EXPECT_EQ(RegexPrefix("^abc", "i"), "");
  EXPECT_EQ(RegexPrefix("^a|b", ""), "");
  EXPECT_EQ(RegexPrefix("^ab*", ""), "a");
  EXPECT_EQ(RegexPrefix("^ab?c", ""), "a");
  EXPECT_EQ(RegexPrefix("^ab{0,2}", ""), "a");
  EXPECT_EQ(RegexPrefix("^ab+", ""), "ab");
  EXPECT_EQ(RegexPrefix("^a.c", ""), "a");
  EXPECT_EQ(RegexPrefix("^a\\.c", ""), "a.c");
  EXPECT_EQ(RegexPrefix("^a\\dc", ""), "a");
  EXPECT_EQ(RegexPrefix("^\\Qa.b\\Ec", ""), "a.bc");
  EXPECT_EQ(RegexPrefix("^a b # c", "x"), "ab");
  EXPECT_EQ(RegexPrefix("^a(b)", ""), "a");
  EXPECT_EQ(RegexPrefix("^x\xC3\xA9*", ""), "x");
}

TEST(IndexBoundsTest, SparseIndexesDoNotUseConditionsThatMatchMissingFields) {
  IndexDescriptor index = Index(R"({"a": 1})", R"({"sparse": true})");
  EXPECT_EQ(Explain(index, R"({"a": null})"), "none");
  EXPECT_EQ(Explain(index, R"({"a": {"$in": [1, null]}})"), "none");
  EXPECT_EQ(Explain(index, R"({"a": 1})"), R"e({ "a" : [ "[1, 1]" ] })e");
  IndexDescriptor compound = Index(R"({"a": 1, "b": 1})", R"({"sparse": true})");
  EXPECT_EQ(Explain(compound, R"({"a": 1, "b": null})"),
            R"e({ "a" : [ "[1, 1]" ], "b" : [ "[MinKey, MaxKey]" ] })e");
}

TEST(IndexBoundsTest, PositionalPathsDoNotUseConditionsThatMatchMissingFields) {
  IndexDescriptor index = Index(R"({"a.0.b": 1})");
  // The filter sees a missing "0" in {b: 1}, where the keys hold only a[0].b.
  ASSERT_TRUE(Filter(R"({"a.0.b": null})").Matches(Doc(R"({"a": [{"b": 1}]})")));
  EXPECT_EQ(Explain(index, R"({"a.0.b": null})"), "none");
  EXPECT_EQ(Explain(index, R"({"a.0.b": 1})"), R"e({ "a.0.b" : [ "[1, 1]" ] })e");
}

TEST(IndexBoundsTest, FieldsThatMayShareAnArrayAreNotBothBounded) {
  IndexDescriptor index = Index(R"({"x.a": 1, "x.b": 1})");
  const char* kFilter = R"({"x.a": 1, "x.b": 4})";
  EXPECT_EQ(Explain(index, kFilter),
            R"e({ "x.a" : [ "[1, 1]" ], "x.b" : [ "[MinKey, MaxKey]" ] })e");
  ASSERT_TRUE(Filter(kFilter).Matches(Doc(R"({"x": [{"a": 1, "b": 2}, {"a": 3, "b": 4}]})")));
  EXPECT_TRUE(Reads(index, kFilter, R"({"x": [{"a": 1, "b": 2}, {"a": 3, "b": 4}]})"));
}

TEST(IndexBoundsTest, FullBoundsReadEveryKey) {
  IndexDescriptor index = Index(R"({"a": 1, "b": -1})");
  IndexBounds bounds = FullBounds(index);
  EXPECT_EQ(bounds.ToExplain().ToJson(),
            R"e({ "a" : [ "[MinKey, MaxKey]" ], "b" : [ "[MaxKey, MinKey]" ] })e");
  EXPECT_EQ(bounds.equality_prefix, 0u);
  ASSERT_EQ(bounds.intervals.size(), 1u);
  for (const char* doc : {R"({})", R"({"a": {"$minKey": 1}, "b": {"$maxKey": 1}})",
                          R"({"a": {"$maxKey": 1}, "b": {"$minKey": 1}})", R"({"a": [1, "x"]})"}) {
    StatusWith<std::vector<IndexKey>> keys = index.KeysOf(Doc(doc));
    ASSERT_TRUE(keys.ok());
    for (const IndexKey& key : keys.value()) EXPECT_TRUE(bounds.intervals[0].Contains(key.encoded));
  }
  EXPECT_EQ(FullBounds(Index(R"({"a": -1})")).intervals.size(), 1u);
}

TEST(IndexBoundsTest, SplitOnEqualityPrefixGivesOneBoundsPerCombination) {
  const IndexDescriptor index = Index(R"({"a": 1, "c": -1, "b": 1})");
  std::optional<IndexBounds> bounds = BoundsFor(
      index, Filter(R"({"a": {"$in": [2, 1]}, "c": {"$in": [5, 6, 7]}, "b": {"$gt": 0}})"));
  ASSERT_TRUE(bounds.has_value());
  ASSERT_EQ(bounds->equality_prefix, 2u);
  std::optional<std::vector<IndexBounds>> split = SplitOnEqualityPrefix(*bounds);
  ASSERT_TRUE(split.has_value());
  ASSERT_EQ(split->size(), 6u);
  std::vector<KeyInterval> joined;
  for (const IndexBounds& part : *split) {
    ExpectWellFormed(part);
    EXPECT_EQ(part.equality_prefix, 2u);
    ASSERT_EQ(part.intervals.size(), 1u);
    joined.push_back(part.intervals.front());
  }
  // In index order: a ascending, then c descending; b as in the whole bounds.
  EXPECT_EQ((*split)[0].ToExplain().ToJson(),
            R"({ "a" : [ "[1, 1]" ], "c" : [ "[7, 7]" ], "b" : [ "(0, inf.0]" ] })");
  EXPECT_EQ((*split)[5].ToExplain().ToJson(),
            R"({ "a" : [ "[2, 2]" ], "c" : [ "[5, 5]" ], "b" : [ "(0, inf.0]" ] })");
  ASSERT_EQ(joined.size(), bounds->intervals.size());
  for (std::size_t i = 0; i < joined.size(); ++i) {
    EXPECT_EQ(joined[i].start, bounds->intervals[i].start) << i;
    EXPECT_EQ(joined[i].end, bounds->intervals[i].end) << i;
  }
}

TEST(IndexBoundsTest, BoundsWithoutAnEqualityPrefixDoNotSplit) {
  const IndexDescriptor index = Index(R"({"a": 1, "b": 1})");
  std::optional<IndexBounds> bounds = BoundsFor(index, Filter(R"({"a": {"$gt": 3}})"));
  ASSERT_TRUE(bounds.has_value());
  EXPECT_FALSE(SplitOnEqualityPrefix(*bounds).has_value());
}

}  // namespace
}  // namespace quarry::exec
