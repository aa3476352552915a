// $vectorSearch's pre-filter check: Atlas's operators on the index's filter fields pass, and
// everything else is refused before the query runs.
#include "commands/search/vector_search_filter.h"

#include <gtest/gtest.h>

#include "bson/json.h"

namespace quarry::commands {
namespace {

vector::SearchIndexDefinition Definition() {
  vector::SearchIndexDefinition def;
  def.vectors.push_back({.path = "embedding", .dimensions = 3, .similarity = "cosine"});
  def.filter_paths = {"genre", "year", "meta.tag", "when", "owner"};
  return def;
}

Status Check(std::string_view json) {
  bson::Document filter = bson::FromJson(json).value();
  return CheckVectorSearchFilter(filter.view(), Definition(), FilterScope::kAll);
}

TEST(VectorSearchFilterTest, AtlasOperatorsOnFilterFieldsPass) {
  for (const char* json : {
           R"({"genre": "drama"})",
           R"({"genre": {"$eq": "drama"}, "year": {"$gte": 1990, "$lt": 2000}})",
           R"({"genre": {"$in": ["a", "b"]}, "year": {"$nin": [1, 2.5]}})",
           R"({"genre": {"$not": {"$eq": "x"}}, "year": {"$ne": 3}})",
           R"({"$or": [{"genre": "a"}, {"$and": [{"year": 1}, {"meta.tag": true}]}]})",
           R"({"$nor": [{"genre": "a"}], "owner": {"$exists": false}})",
           R"({"when": {"$gt": {"$date": "2020-01-01T00:00:00Z"}}})",
           R"({"owner": {"$oid": "507f1f77bcf86cd799439011"}})",
           R"({"genre": ["a", "b"]})",
       }) {
    EXPECT_TRUE(Check(json).ok()) << json << ": " << Check(json).ToString();
  }
}

TEST(VectorSearchFilterTest, AnythingElseIsRefusedWithAReason) {
  struct Case {
    const char* json;
    const char* words;
  };
  for (const Case& c : {
           Case{R"({"title": "x"})", "Path 'title' needs to be indexed as filter"},
           Case{R"({"genre": {"$regex": "^d"}})", "not supported in a $vectorSearch filter"},
           Case{R"({"genre": {"$size": 2}})", "$size"},
           Case{R"({"genre": {"$elemMatch": {"$eq": 1}}})", "$elemMatch"},
           Case{R"({"$expr": {"$eq": [1, 1]}})", "$expr"},
           Case{R"({"genre": null})", "null"},
           Case{R"({"genre": {"$in": "a"}})", "$in needs an array"},
           Case{R"({"genre": {"$in": [{"a": 1}]}})", "value"},
           Case{R"({"year": {"$numberDecimal": "1.5"}})", "value"},
           Case{R"({"$or": []})", "$or needs a non-empty array"},
           Case{R"({"$and": [1]})", "documents"},
           Case{R"({"owner": {"$exists": 1}})", "$exists"},
       }) {
    Status status = Check(c.json);
    EXPECT_EQ(status.code(), ErrorCode::kBadValue) << c.json;
    EXPECT_NE(status.reason().find(c.words), std::string::npos)
        << c.json << ": " << status.reason();
  }
}

}  // namespace
}  // namespace quarry::commands
