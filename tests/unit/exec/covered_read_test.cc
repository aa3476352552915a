// Covered reads: which projections, filters and indexes qualify, and the key values an index
// entry keeps for them (exec/key_values.h).
#include "exec/covered_read.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "exec/key_values.h"
#include "index_test_util.h"

namespace quarry::exec {
namespace {

using testing::Doc;
using testing::Index;
using Paths = std::optional<std::vector<std::string>>;

TEST(CoveredReadTest, OnlyPlainInclusionProjectionsQualify) {
  EXPECT_EQ(InclusionPaths(Doc(R"({"a": 1, "b.c": true})")), Paths({"a", "b.c", "_id"}));
  EXPECT_EQ(InclusionPaths(Doc(R"({"a": 1, "_id": 0})")), Paths({"a"}));
  EXPECT_EQ(InclusionPaths(Doc(R"({"_id": 1})")), Paths({"_id"}));
  EXPECT_EQ(InclusionPaths(Doc(R"({"_id": 0})")), std::nullopt);  // an exclusion
  EXPECT_EQ(InclusionPaths(Doc(R"({"a": 0})")), std::nullopt);
  EXPECT_EQ(InclusionPaths(Doc(R"({"a": {"$slice": 1}})")), std::nullopt);
  EXPECT_EQ(InclusionPaths(Doc(R"({"a.$": 1})")), std::nullopt);
  EXPECT_EQ(InclusionPaths(Doc(R"({"a": "$b"})")), std::nullopt);
}

TEST(CoveredReadTest, FiltersThatReadWholeDocumentsDoNotQualify) {
  EXPECT_EQ(FilterPaths(Doc(R"({"a": 1, "$or": [{"b": 2}, {"c.d": {"$gt": 1}}],
                                "$comment": "x"})")),
            Paths({"a", "b", "c.d"}));
  EXPECT_EQ(FilterPaths(Doc(R"({"$expr": {"$eq": ["$a", 1]}})")), std::nullopt);
  EXPECT_EQ(FilterPaths(Doc(R"({"$where": "true"})")), std::nullopt);
  EXPECT_EQ(FilterPaths(Doc(R"({"$nor": [{"$text": {"$search": "x"}}]})")), std::nullopt);
}

TEST(CoveredReadTest, AnIndexCoversPathsAtOrBelowItsFields) {
  const IndexDescriptor index = Index(R"({"a": 1, "b.c": -1})");
  EXPECT_TRUE(IndexCoversPaths(index, false, {"a", "b.c", "a.x"}));
  EXPECT_FALSE(IndexCoversPaths(index, false, {"b"}));
  EXPECT_FALSE(IndexCoversPaths(index, false, {"ab"}));
  EXPECT_FALSE(IndexCoversPaths(index, true, {"a"}));  // multikey
  EXPECT_FALSE(IndexCoversPaths(Index(R"({"a": 1, "a.b": 1})"), false, {"a"}));
}

std::string ValuesOf(const IndexDescriptor& index, std::string_view doc_json) {
  const bson::Document doc = Doc(doc_json);
  return index.KeysAndMultikeyOf(doc).value().key_values;
}

TEST(CoveredReadTest, KeyValuesRebuildTheDocumentsKeyFields) {
  const IndexDescriptor index = Index(R"({"a": 1, "b.c": 1, "b.d": 1})");
  const std::string values =
      ValuesOf(index, R"({"_id": 1, "a": {"$numberLong": "5"}, "b": {"d": 2.5, "c": "x"}})");
  ASSERT_FALSE(values.empty());
  EXPECT_EQ(KeyDocument(index, values)->ToJson(),
            Doc(R"({"a": {"$numberLong": "5"}, "b": {"c": "x", "d": 2.5}})").ToJson());
  // A missing top-level field is left out.
  EXPECT_EQ(KeyDocument(index, ValuesOf(index, R"({"b": {"c": 1, "d": 2}})"))->ToJson(),
            Doc(R"({"b": {"c": 1, "d": 2}})").ToJson());
  EXPECT_EQ(KeyDocument(index, ""), std::nullopt);
}

TEST(CoveredReadTest, ValuesTheKeyCannotStandForAreNotKept) {
  const IndexDescriptor index = Index(R"({"a": 1, "b.c": 1})");
  EXPECT_EQ(ValuesOf(index, R"({"a": [1, 2]})"), "");      // multikey
  EXPECT_EQ(ValuesOf(index, R"({"a": 1, "b": {}})"), "");  // missing below "b"
  EXPECT_EQ(ValuesOf(index, R"({"a": 1, "b": 5})"), "");   // a path through a scalar
  EXPECT_EQ(ValuesOf(index, R"({"a": 1, "b": [{"c": 1}]})"), "");
  EXPECT_EQ(ValuesOf(index, R"({"a": [1], "b": {"c": 1}})"), "");  // one key, but multikey
  EXPECT_EQ(ValuesOf(index, R"({"a": 1, "b": {"c": []}})"), "");   // an empty array
  EXPECT_EQ(ValuesOf(Index(R"({"a": 1})", R"({"sparse": true})"), R"({"b": 1})"), "");  // no key
  EXPECT_EQ(ValuesOf(Index(R"({"a.$**": 1})"), R"({"a": {"b": 1}})"), "");              // wildcard
  EXPECT_EQ(ValuesOf(index, R"({"a": ")" + std::string(300, 'x') + R"("})"), "");       // too large
  EXPECT_NE(ValuesOf(index, R"({"a": 1})"), "");
}

}  // namespace
}  // namespace quarry::exec
