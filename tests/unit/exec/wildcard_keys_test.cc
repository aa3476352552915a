// Wildcard indexes: their specs, the keys a document makes (mongod's WildcardKeyGenerator rules:
// one key per leaf path, arrays element-wise, _id and projected-out paths left out), the paths
// they cover, and the scans the planner reads them with.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exec/index_descriptor.h"
#include "exec/wildcard_bounds.h"
#include "exec/wildcard_keys_internal.h"
#include "exec/wildcard_projection.h"
#include "index_test_util.h"
#include "storage/key_encoding.h"

namespace quarry::exec {
namespace {

using testing::Doc;
using testing::Index;
using Strings = std::vector<std::string>;

// The keys of `doc_json`, each as {$_path, <path>: value} in JSON, in key order. Checks that
// each key's bytes are its path's encoding then its value's, and that keys are sorted and
// distinct.
Strings Keys(const IndexDescriptor& index, std::string_view doc_json) {
  StatusWith<std::vector<IndexKey>> keys = index.KeysOf(Doc(doc_json), /*with_values=*/true);
  EXPECT_TRUE(keys.ok()) << keys.status().ToString();
  if (!keys.ok()) return {};
  Strings out;
  for (std::size_t key_idx = 0; key_idx < keys.value().size(); ++key_idx) {
    const IndexKey& key = keys.value()[key_idx];
    const std::string path(key.values.Get("$_path").String());
    std::string expected = EncodeWildcardPath(path);
    storage::AppendIndexKey(key.values.Get(path), index.fields().front().descending, &expected);
    EXPECT_EQ(key.encoded, expected) << key.values.ToJson();
    if (key_idx > 0) {
      EXPECT_LT(keys.value()[key_idx - 1].encoded, key.encoded);
    }
    out.push_back(key.values.ToJson());
  }
  return out;
}

bool Multikey(const IndexDescriptor& index, std::string_view doc_json) {
  StatusWith<bool> multikey = index.IsMultikeyFor(Doc(doc_json));
  EXPECT_TRUE(multikey.ok());
  return multikey.ok() && multikey.value();
}

Status ParseError(std::string_view key_json, std::string_view options_json = "{}") {
  bson::DocumentBuilder spec;
  spec.AppendDocument("key", Doc(key_json));
  spec.AppendString("name", "w");
  spec.AppendElements(Doc(options_json));
  StatusWith<IndexDescriptor> index = IndexDescriptor::Parse(std::move(spec).Finish(), 1);
  return index.ok() ? Status::OK() : index.status();
}

TEST(WildcardKeysTest, EveryLeafMakesOneKeyByPathAndValue) {
  IndexDescriptor index = Index(R"({"$**": 1})");
  EXPECT_EQ(
      Keys(index, R"({"_id": 1, "b": "x", "a": {"c": 2, "d": {"e": true}}})"),
      (Strings{R"({ "$_path" : "a.c", "a.c" : 2 })", R"({ "$_path" : "a.d.e", "a.d.e" : true })",
               R"({ "$_path" : "b", "b" : "x" })"}));
  EXPECT_FALSE(Multikey(index, R"({"a": {"b": 1}})"));
}

TEST(WildcardKeysTest, ArraysAreExpandedUnderTheirOwnPathAndMakeTheIndexMultikey) {
  IndexDescriptor index = Index(R"({"$**": 1})");
  EXPECT_EQ(Keys(index, R"({"a": [1, {"b": 2}, [3, 4], 1.0]})"),
            (Strings{R"({ "$_path" : "a", "a" : 1 })", R"({ "$_path" : "a", "a" : [ 3, 4 ] })",
                     R"({ "$_path" : "a.b", "a.b" : 2 })"}));
  EXPECT_TRUE(Multikey(index, R"({"x": {"a": [1]}})"));
  EXPECT_TRUE(Multikey(index, R"({"a": []})"));
}

TEST(WildcardKeysTest, MultikeyPathsAreThoseOfArraysAndRepeatedNames) {
  IndexDescriptor index = Index(R"({"$**": 1})");
  StatusWith<DocumentKeys> keys = index.KeysAndMultikeyOf(
      Doc(R"({"a": [{"b": [1]}, {"b": 2}], "c": 1, "d": {"e": []}, "f": [[1]]})"));
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(keys.value().multikey_paths, (Strings{"a", "a.b", "d.e", "f"}));
  bson::DocumentBuilder repeated;
  repeated.AppendInt32("x", 1).AppendInt32("x", 2);
  keys = index.KeysAndMultikeyOf(std::move(repeated).Finish());
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(keys.value().multikey_paths, (Strings{"x"}));
  keys = index.KeysAndMultikeyOf(Doc(R"({"a": {"b": 1}})"));
  ASSERT_TRUE(keys.ok());
  EXPECT_TRUE(keys.value().multikey_paths.empty());
  EXPECT_FALSE(keys.value().multikey);
}

TEST(WildcardKeysTest, ARepeatedFieldNameMakesTheIndexMultikey) {
  IndexDescriptor index = Index(R"({"$**": 1})");
  bson::DocumentBuilder doc;
  doc.AppendInt32("a", 1).AppendInt32("b", 2).AppendInt32("a", 3);
  StatusWith<bool> multikey = index.IsMultikeyFor(std::move(doc).Finish());
  ASSERT_TRUE(multikey.ok());
  EXPECT_TRUE(multikey.value());
}

TEST(WildcardKeysTest, EmptyArraysAreUndefinedAndEmptyDocumentsThemselves) {
  IndexDescriptor index = Index(R"({"$**": 1})");
  EXPECT_EQ(Keys(index, R"({"a": [], "b": {}})"),
            (Strings{R"({ "$_path" : "a", "a" : { "$undefined" : true } })",
                     R"({ "$_path" : "b", "b" : {  } })"}));
}

TEST(WildcardKeysTest, IdAndDottedFieldNamesAreLeftOut) {
  IndexDescriptor index = Index(R"({"$**": 1})");
  EXPECT_EQ(Keys(index, R"({"_id": {"x": 1}, "a.b": 1, "c": {"d.e": 2, "f": 3}})"),
            (Strings{R"({ "$_path" : "c.f", "c.f" : 3 })"}));
  EXPECT_TRUE(Keys(index, R"({"_id": 5})").empty());
}

TEST(WildcardKeysTest, SubtreeIndexHoldsOnlyItsSubtree) {
  IndexDescriptor index = Index(R"({"a.b.$**": 1})");
  EXPECT_EQ(Keys(index, R"({"a": {"b": {"c": 1}, "x": 2}, "b": 3})"),
            (Strings{R"({ "$_path" : "a.b.c", "a.b.c" : 1 })"}));
  EXPECT_EQ(Keys(index, R"({"a": {"b": 7}})"), (Strings{R"({ "$_path" : "a.b", "a.b" : 7 })"}));
  EXPECT_TRUE(Keys(index, R"({"a": 7})").empty());
}

TEST(WildcardKeysTest, ProjectionIncludesOrExcludesPaths) {
  IndexDescriptor included = Index(R"({"$**": 1})", R"({"wildcardProjection": {"a": 1, "c": 1}})");
  EXPECT_EQ(Keys(included, R"({"_id": 0, "a": {"x": 1}, "b": 2, "c": 3})"),
            (Strings{R"({ "$_path" : "a.x", "a.x" : 1 })", R"({ "$_path" : "c", "c" : 3 })"}));
  IndexDescriptor excluded = Index(R"({"$**": 1})", R"({"wildcardProjection": {"a.x": 0}})");
  EXPECT_EQ(Keys(excluded, R"({"_id": 0, "a": {"x": 1, "y": 2}, "b": 2})"),
            (Strings{R"({ "$_path" : "a.y", "a.y" : 2 })", R"({ "$_path" : "b", "b" : 2 })"}));
  IndexDescriptor with_id = Index(R"({"$**": 1})", R"({"wildcardProjection": {"_id": 1, "a": 1}})");
  EXPECT_EQ(Keys(with_id, R"({"_id": 9, "a": 1, "b": 2})"),
            (Strings{R"({ "$_path" : "_id", "_id" : 9 })", R"({ "$_path" : "a", "a" : 1 })"}));
}

TEST(WildcardKeysTest, DescendingValuesInvertOnlyTheValue) {
  IndexDescriptor index = Index(R"({"$**": -1})");
  EXPECT_EQ(Keys(index, R"({"a": [1, 2]})"),
            (Strings{R"({ "$_path" : "a", "a" : 2 })", R"({ "$_path" : "a", "a" : 1 })"}));
}

TEST(WildcardKeysTest, PartialFilterSkipsDocuments) {
  IndexDescriptor index = Index(R"({"$**": 1})", R"({"partialFilterExpression": {"k": 1}})");
  EXPECT_TRUE(Keys(index, R"({"k": 2, "a": 1})").empty());
  EXPECT_EQ(Keys(index, R"({"k": 1})").size(), 1u);
}

TEST(WildcardKeysTest, SpecErrorsAreMongods) {
  EXPECT_EQ(ParseError(R"({"$**": 1})", R"({"unique": true})").reason(),
            "Index type 'wildcard' does not support the unique option");
  EXPECT_EQ(ParseError(R"({"$**": 1})", R"({"sparse": true})").code(),
            ErrorCode::kCannotCreateIndex);
  EXPECT_EQ(ParseError(R"({"$**": 1})", R"({"expireAfterSeconds": 1})").reason(),
            "Index type 'wildcard' cannot be a TTL index");
  EXPECT_EQ(ParseError(R"({"a": 1})", R"({"wildcardProjection": {"a": 1}})").code(),
            ErrorCode::kBadValue);
  EXPECT_EQ(ParseError(R"({"a.$**": 1})", R"({"wildcardProjection": {"a": 1}})").code(),
            ErrorCode::kFailedToParse);
  EXPECT_EQ(ParseError(R"({"$**": 1})", R"({"wildcardProjection": {}})").code(),
            ErrorCode::kFailedToParse);
  EXPECT_EQ(ParseError(R"({"$**": 1})", R"({"wildcardProjection": 1})").code(),
            ErrorCode::kTypeMismatch);
  EXPECT_EQ(static_cast<int>(
                ParseError(R"({"$**": 1})", R"({"wildcardProjection": {"a": 1, "b": 0}})").code()),
            31254);
  EXPECT_EQ(ParseError(R"({"$**": 1})", R"({"wildcardProjection": {"a": "$b"}})").code(),
            ErrorCode::kBadValue);
  EXPECT_EQ(ParseError(R"({"a.$**.b": 1})").code(), ErrorCode::kCannotCreateIndex);
  EXPECT_EQ(ParseError(R"({"$**": 1, "a": 1})").code(), ErrorCode::kCannotCreateIndex);
  EXPECT_TRUE(ParseError(R"({"a.$**": -1})").ok());
}

TEST(WildcardProjectionTest, CoversPathsUnderTheIndexedSubtreeOnly) {
  auto covers = [](std::string_view key, std::string_view projection_json, std::string_view path) {
    bson::Document projection = Doc(projection_json);
    StatusWith<WildcardProjection> parsed = WildcardProjection::Parse(
        key, projection.view().empty() ? bson::ValueView() : projection.Get("p"));
    EXPECT_TRUE(parsed.ok());
    return parsed.ok() && parsed.value().Covers(path);
  };
  EXPECT_TRUE(covers("$**", "{}", "a.b"));
  EXPECT_FALSE(covers("$**", "{}", "_id"));
  EXPECT_FALSE(covers("$**", "{}", "_id.x"));
  EXPECT_TRUE(covers("a.$**", "{}", "a"));
  EXPECT_TRUE(covers("a.$**", "{}", "a.b"));
  EXPECT_FALSE(covers("a.$**", "{}", "ab"));
  EXPECT_FALSE(covers("a.$**", "{}", "b"));
  EXPECT_TRUE(covers("$**", R"({"p": {"a.b": 0}})", "a"));
  EXPECT_FALSE(covers("$**", R"({"p": {"a.b": 0}})", "a.b.c"));
  EXPECT_FALSE(covers("$**", R"({"p": {"a": 1}})", "b"));
  EXPECT_TRUE(covers("$**", R"({"p": {"a": {"b": true}}})", "a.b"));
  EXPECT_FALSE(covers("$**", R"({"p": {"a": {"b": true}}})", "a"));
  EXPECT_TRUE(covers("$**", R"({"p": {"_id": 1}})", "_id"));
  EXPECT_TRUE(covers("$**", R"({"p": {"_id": 1, "a": 0}})", "b"));
}

// The scan's bounds as explain shows them, or "none".
std::string ScanOf(const IndexDescriptor& index, std::string_view filter_json) {
  StatusWith<query::Matcher> filter = query::Matcher::Parse(Doc(filter_json));
  EXPECT_TRUE(filter.ok());
  if (!filter.ok()) return "";
  std::optional<WildcardScan> scan = WildcardScanFor(index, filter.value());
  if (!scan.has_value()) return "none";
  testing::ExpectWellFormed(scan->bounds);
  return scan->key_pattern.ToJson() + " " + scan->bounds.ToExplain().ToJson();
}

TEST(WildcardBoundsTest, ScansOnePathLikeASingleFieldIndex) {
  IndexDescriptor index = Index(R"({"$**": 1})");
  EXPECT_EQ(
      ScanOf(index, R"({"a.b": 5})"),
      R"({ "$_path" : 1, "a.b" : 1 } { "$_path" : [ "[\"a.b\", \"a.b\"]" ], "a.b" : [ "[5, 5]" ] })");
  EXPECT_EQ(
      ScanOf(index, R"({"a": {"$gt": 1}, "b": {"$in": [1, 2]}})"),
      R"({ "$_path" : 1, "b" : 1 } { "$_path" : [ "[\"b\", \"b\"]" ], "b" : [ "[1, 1]", "[2, 2]" ] })");
  EXPECT_EQ(
      ScanOf(index, R"({"a": {"$gte": 1}})"),
      R"({ "$_path" : 1, "a" : 1 } { "$_path" : [ "[\"a\", \"a\"]" ], "a" : [ "[1, inf.0]" ] })");
  EXPECT_EQ(
      ScanOf(Index(R"({"$**": -1})"), R"({"a": {"$lt": 3}})"),
      R"({ "$_path" : 1, "a" : -1 } { "$_path" : [ "[\"a\", \"a\"]" ], "a" : [ "(3, -inf.0]" ] })");
}

TEST(WildcardBoundsTest, ExistsReadsThePathAndItsSubpathsAfterOtherConditions) {
  IndexDescriptor index = Index(R"({"$**": 1})");
  EXPECT_EQ(
      ScanOf(index, R"({"a.b": {"$exists": true}})"),
      R"x({ "$_path" : 1, "a.b" : 1 } { "$_path" : [ "[\"a.b\", \"a.b\"]", "[\"a.b.\", \"a.b/\")" ], "a.b" : [ "[MinKey, MaxKey]" ] })x");
  EXPECT_EQ(
      ScanOf(index, R"({"$and": [{"x": {"$exists": true}}, {"y": {"$gt": 1}}]})"),
      R"({ "$_path" : 1, "y" : 1 } { "$_path" : [ "[\"y\", \"y\"]" ], "y" : [ "(1, inf.0]" ] })");
  EXPECT_EQ(ScanOf(index, R"({"a": {"$exists": false}})"), "none");
  EXPECT_EQ(ScanOf(index, R"({"_id": {"$exists": true}})"), "none");
}

TEST(WildcardBoundsTest, ConditionsKeysCannotShowAreNotUsed) {
  IndexDescriptor index = Index(R"({"$**": 1})");
  for (const char* filter :
       {R"({"a": null})", R"({"a": {"$in": [1, null]}})", R"({"a": [1, 2]})", R"({"a": {"b": 1}})",
        R"({"a": {"$gt": {}}})", R"({"a": {"$lt": {"$maxKey": 1}}})", R"({"a.0": 1})",
        R"({"_id": 1})", R"({"a": {"$ne": 1}})", "{}"}) {
    EXPECT_EQ(ScanOf(index, filter), "none") << filter;
  }
  EXPECT_NE(ScanOf(index, R"({"a": {}})"), "none");
  EXPECT_EQ(ScanOf(Index(R"({"a.$**": 1})"), R"({"b": 1})"), "none");
}

}  // namespace
}  // namespace quarry::exec
