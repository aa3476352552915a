// The count-all shortcut: the pipelines drivers send for countDocuments({}) are answered from the
// collection's record count, with the output the pipeline itself would give; any other pipeline
// is left to run.
#include "exec/count_all.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "exec/pipeline_input.h"
#include "exec_test_util.h"
#include "query/pipeline/pipeline.h"

namespace quarry::exec {
namespace {

using testing::Doc;

std::vector<std::string> Json(const std::vector<bson::Document>& docs) {
  std::vector<std::string> out;
  for (const bson::Document& doc : docs) out.push_back(doc.view().ToCanonicalJson());
  return out;
}

class CountAllTest : public testing::ExecFixture {
 protected:
  bson::DocumentView Stages(std::string_view stages_json) {
    holders_.push_back(Doc("{\"p\": " + std::string(stages_json) + "}"));
    return holders_.back().Get("p").Document();
  }

  std::optional<std::vector<bson::Document>> Shortcut(std::string_view stages_json) {
    return CountAllPipeline(ctx_, collection_, Stages(stages_json));
  }

  // What running the pipeline over the collection outputs.
  std::vector<bson::Document> Run(std::string_view stages_json) {
    StatusWith<query::Pipeline> pipeline =
        query::Pipeline::Parse(Stages(stages_json), query::PipelineContext{});
    EXPECT_TRUE(pipeline.ok()) << pipeline.status().ToString();
    if (!pipeline.ok()) return {};
    StatusWith<std::unique_ptr<query::DocumentStream>> output =
        pipeline.value().Run(StreamOfCollection(ctx_, collection_).value());
    EXPECT_TRUE(output.ok()) << output.status().ToString();
    std::vector<bson::Document> docs;
    bson::Document doc;
    while (output.ok() && output.value()->Next(&doc).value()) docs.push_back(std::move(doc));
    return docs;
  }

  std::deque<bson::Document> holders_;
};

TEST_F(CountAllTest, CountPipelinesAnswerWhatThePipelineWould) {
  InsertNumbered(37);
  for (const char* stages : {
           R"([{"$group": {"_id": 1, "n": {"$sum": 1}}}])",
           R"([{"$match": {}}, {"$group": {"_id": 1, "n": {"$sum": 1}}}])",
           R"([{"$match": {}}, {"$group": {"_id": null, "count": {"$sum": 1}}}])",
           R"([{"$group": {"n": {"$sum": 1}, "_id": 7}}])",
       }) {
    SCOPED_TRACE(stages);
    std::optional<std::vector<bson::Document>> counted = Shortcut(stages);
    ASSERT_TRUE(counted.has_value());
    ASSERT_EQ(counted->size(), 1u);
    EXPECT_EQ(Json(*counted), Json(Run(stages)));
  }
}

TEST_F(CountAllTest, CountFollowsCommits) {
  const char* stages = R"([{"$group": {"_id": 1, "n": {"$sum": 1}}}])";
  InsertNumbered(5);
  DeleteNow(*Stored(2));
  std::optional<std::vector<bson::Document>> counted = Shortcut(stages);
  ASSERT_TRUE(counted.has_value() && counted->size() == 1);
  EXPECT_EQ(counted->front().Get("n").AsInt64(),
            static_cast<std::int64_t>(StoredDocuments().size()));
}

TEST_F(CountAllTest, OtherPipelinesAreLeftToRun) {
  InsertNumbered(5);
  for (const char* stages : {
           R"([{"$group": {"_id": 1, "n": {"$sum": 2}}}])",
           // $sum's output takes the type of what it adds: a double or a long count.
           R"([{"$group": {"_id": 1, "n": {"$sum": 1.0}}}])",
           R"([{"$group": {"_id": 1, "n": {"$sum": {"$numberLong": "1"}}}}])",
           R"([{"$group": {"_id": 1, "n": {"$sum": "$a"}}}])",
           R"([{"$group": {"_id": 1, "n": {"$avg": 1}}}])",
           R"([{"$group": {"_id": "$a", "n": {"$sum": 1}}}])",
           R"([{"$group": {"_id": 1, "n": {"$sum": 1}, "m": {"$sum": 1}}}])",
           R"([{"$group": {"_id": 1}}])",
           R"([{"$match": {"a": 1}}, {"$group": {"_id": 1, "n": {"$sum": 1}}}])",
           R"([{"$match": {}}, {"$match": {}}, {"$group": {"_id": 1, "n": {"$sum": 1}}}])",
           R"([{"$group": {"_id": 1, "n": {"$sum": 1}}}, {"$limit": 1}])",
           R"([{"$limit": 1}, {"$group": {"_id": 1, "n": {"$sum": 1}}}])",
           R"([{"$match": {}, "$limit": 1}, {"$group": {"_id": 1, "n": {"$sum": 1}}}])",
           R"([{"$count": "n"}])",
           R"([])",
       }) {
    SCOPED_TRACE(stages);
    EXPECT_FALSE(Shortcut(stages).has_value());
  }
}

TEST_F(CountAllTest, EmptyOrMissingCollectionOutputsNothing) {
  const char* stages = R"([{"$match": {}}, {"$group": {"_id": 1, "n": {"$sum": 1}}}])";
  std::optional<std::vector<bson::Document>> counted = Shortcut(stages);
  ASSERT_TRUE(counted.has_value());
  EXPECT_TRUE(counted->empty());
  EXPECT_TRUE(Run(stages).empty());  // $group outputs nothing for no input

  counted = CountAllPipeline(ctx_, std::nullopt, Stages(stages));
  ASSERT_TRUE(counted.has_value());
  EXPECT_TRUE(counted->empty());
}

}  // namespace
}  // namespace quarry::exec
