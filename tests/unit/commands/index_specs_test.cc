// Index specs as createIndexes stores them: the collation fully specified, inherited from the
// collection's default, or left out for the simple collation.
#include "commands/indexes/index_specs.h"

#include <gtest/gtest.h>

#include <string>

#include "bson/json.h"

namespace quarry::commands {
namespace {

bson::Document Json(std::string_view json) {
  StatusWith<bson::Document> doc = bson::FromJson(json);
  EXPECT_TRUE(doc.ok()) << doc.status().ToString() << " in " << json;
  return doc.ok() ? std::move(doc).value() : bson::Document();
}

// The collation ResolveIndexCollation stores for `spec_json` on a collection with `options_json`;
// "none" when it stores none.
std::string StoredCollation(std::string_view spec_json, std::string_view options_json = "{}") {
  StatusWith<bson::Document> spec = ResolveIndexCollation(Json(spec_json), Json(options_json));
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  if (!spec.ok()) return "error";
  bson::ValueView collation = spec.value().Get("collation");
  if (!collation.exists()) return "none";
  return std::string(collation.Document().Get("locale").String()) + "/" +
         std::to_string(collation.Document().Get("strength").AsInt64());
}

TEST(IndexSpecsTest, NamedCollationIsStoredFullySpecified) {
  StatusWith<bson::Document> spec = ResolveIndexCollation(
      Json(R"({"v": 2, "key": {"a": 1}, "name": "a_1", "collation": {"locale": "fr"},
               "unique": true})"),
      Json("{}"));
  ASSERT_TRUE(spec.ok());
  bson::DocumentView collation = spec.value().Get("collation").Document();
  EXPECT_EQ(collation.CountElements(), 10);
  EXPECT_EQ(collation.Get("strength").AsInt64(), 3);
  EXPECT_TRUE(spec.value().Get("unique").Truthy());
}

TEST(IndexSpecsTest, IndexWithoutCollationInheritsTheCollectionDefault) {
  const char* kDefault = R"({"collation": {"locale": "de", "strength": 1}})";
  EXPECT_EQ(StoredCollation(R"({"v": 2, "key": {"a": 1}, "name": "a_1"})", kDefault), "de/1");
  EXPECT_EQ(StoredCollation(R"({"v": 2, "key": {"a": 1}, "name": "a_1"})"), "none");
}

TEST(IndexSpecsTest, SimpleCollationIsStoredAsNone) {
  const char* kDefault = R"({"collation": {"locale": "de", "strength": 1}})";
  EXPECT_EQ(
      StoredCollation(
          R"({"v": 2, "key": {"a": 1}, "name": "a", "collation": {"locale": "simple"}})", kDefault),
      "none");
  EXPECT_EQ(
      StoredCollation(R"({"v": 2, "key": {"a": 1}, "name": "a", "collation": {"locale": "en"}})",
                      kDefault),
      "en/3");
}

TEST(IndexSpecsTest, BadCollationFailsAsInMongod) {
  StatusWith<bson::Document> spec = ResolveIndexCollation(
      Json(R"({"v": 2, "key": {"a": 1}, "name": "a", "collation": {"locale": "en", "x": 1}})"),
      Json("{}"));
  EXPECT_EQ(spec.status().code(), ErrorCode::kLocation40415);
}

}  // namespace
}  // namespace quarry::commands
