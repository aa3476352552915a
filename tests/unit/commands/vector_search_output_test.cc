// Which pipelines after $vectorSearch are answered from the index alone: those whose next
// stage keeps nothing of a match but its _id and score.
#include <gtest/gtest.h>

#include "bson/json.h"
#include "commands/search/search_indexes.h"

namespace quarry::commands {
namespace {

bool Enough(std::string_view later_stages_json) {
  const bson::Document stages = bson::FromJson(later_stages_json).value();
  return IdsAreEnough(stages.view());
}

TEST(VectorSearchOutputTest, AProjectionOfIdAndScoreNeedsNoDocument) {
  for (const char* json : {
           R"({"0": {"$project": {"_id": 1}}})",
           R"({"0": {"$project": {"_id": true, "s": {"$meta": "vectorSearchScore"}}}})",
           R"({"0": {"$project": {"s": {"$meta": "vectorSearchScore"}}}})",
           R"({"0": {"$project": {"_id": 0, "s": {"$meta": "vectorSearchScore"}}}})",
           R"({"0": {"$project": {"_id.a": 1}}, "1": {"$limit": 3}})",
       }) {
    EXPECT_TRUE(Enough(json)) << json;
  }
}

TEST(VectorSearchOutputTest, AnythingThatMayReadOtherFieldsNeedsTheDocuments) {
  for (const char* json : {
           R"({})",  // the documents are the output
           R"({"0": {"$limit": 3}, "1": {"$project": {"_id": 1}}})",  // not next
           R"({"0": {"$project": {"_id": 1, "title": 1}}})",
           R"({"0": {"$project": {"_id": 0}}})",  // an exclusion keeps every other field
           R"({"0": {"$project": {"embedding": 0}}})",
           R"({"0": {"$project": {"_id.a": 0, "s": {"$meta": "vectorSearchScore"}}}})",
           R"({"0": {"$project": {"t": "$title"}}})",
           R"({"0": {"$project": {"s": {"$meta": "searchScore"}}}})",
           R"({"0": {"$project": {"s": {"$meta": "vectorSearchScore", "x": 1}}}})",
           R"({"0": {"$project": {}}})",
           R"({"0": {"$set": {"s": {"$meta": "vectorSearchScore"}}}})",
       }) {
    EXPECT_FALSE(Enough(json)) << json;
  }
}

}  // namespace
}  // namespace quarry::commands
