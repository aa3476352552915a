// Where an aggregation reads from: a leading $match taken into the plan (with the results the
// pipeline would have given), and plan streams that read in chunks without losing or repeating
// documents.
#include "exec/pipeline_input.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "exec/plan_stream.h"
#include "exec/planner.h"
#include "exec_test_util.h"

namespace quarry::exec {
namespace {

using testing::Doc;
using testing::Filter;

std::vector<bson::Document> Drain(query::DocumentStream& stream) {
  std::vector<bson::Document> docs;
  bson::Document doc;
  while (true) {
    StatusWith<bool> more = stream.Next(&doc);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !more.value()) break;
    docs.push_back(std::move(doc));
  }
  return docs;
}

std::vector<std::string> Json(const std::vector<bson::Document>& docs) {
  std::vector<std::string> out;
  for (const bson::Document& doc : docs) out.push_back(doc.ToJson());
  return out;
}

std::vector<int> Ids(const std::vector<bson::Document>& docs) {
  std::vector<int> ids;
  for (const bson::Document& doc : docs) ids.push_back(static_cast<int>(doc.Get("_id").AsInt64()));
  return ids;
}

class PipelineInputTest : public testing::ExecFixture {
 protected:
  query::Pipeline Parse(std::string_view stages_json) {
    holders_.push_back(Doc("{\"p\": " + std::string(stages_json) + "}"));
    StatusWith<query::Pipeline> pipeline =
        query::Pipeline::Parse(holders_.back().Get("p").Document(), query::PipelineContext{});
    EXPECT_TRUE(pipeline.ok()) << pipeline.status().ToString();
    return std::move(pipeline).value();
  }

  // The pipeline's output when it reads its input through OpenPipelineInput.
  std::vector<bson::Document> RunOverInput(query::Pipeline* pipeline) {
    std::unique_ptr<query::DocumentStream> input =
        OpenPipelineInput(ctx_, collection_, pipeline).value();
    StatusWith<std::unique_ptr<query::DocumentStream>> output = pipeline->Run(std::move(input));
    EXPECT_TRUE(output.ok()) << output.status().ToString();
    return output.ok() ? Drain(*output.value()) : std::vector<bson::Document>();
  }

  // The pipeline's output when every stage, $match included, runs over the whole collection.
  std::vector<bson::Document> RunOverCollection(const query::Pipeline& pipeline) {
    StatusWith<std::unique_ptr<query::DocumentStream>> output =
        pipeline.Run(StreamOfCollection(ctx_, collection_).value());
    EXPECT_TRUE(output.ok()) << output.status().ToString();
    return output.ok() ? Drain(*output.value()) : std::vector<bson::Document>();
  }

  std::deque<bson::Document> holders_;  // stable addresses: pipelines may view them
};

TEST_F(PipelineInputTest, LeadingMatchMovesIntoThePlanWithTheSameResults) {
  InsertNumbered(50, 4);
  const char* stages = R"([{"$match": {"a": {"$gte": 2}}}, {"$addFields": {"b": 1}}])";
  query::Pipeline pushed = Parse(stages);
  std::vector<bson::Document> results = RunOverInput(&pushed);
  ASSERT_EQ(pushed.stages().size(), 1u);
  EXPECT_EQ(pushed.stages().front()->name(), "$addFields");
  std::vector<bson::Document> reference = RunOverCollection(Parse(stages));
  EXPECT_FALSE(results.empty());
  EXPECT_EQ(Json(results), Json(reference));
}

TEST_F(PipelineInputTest, MatchThatNeedsExprStaysInThePipeline) {
  InsertNumbered(20, 4);
  for (const char* stages : {R"([{"$match": {"$expr": {"$eq": ["$a", 1]}}}])",
                             R"([{"$match": {"a": 1, "$expr": {"$gt": ["$_id", 3]}}}])"}) {
    SCOPED_TRACE(stages);
    query::Pipeline pipeline = Parse(stages);
    std::unique_ptr<query::DocumentStream> input =
        OpenPipelineInput(ctx_, collection_, &pipeline).value();
    ASSERT_EQ(pipeline.stages().size(), 1u);
    EXPECT_EQ(pipeline.stages().front()->name(), "$match");
    EXPECT_EQ(Drain(*input).size(), 20u);  // the input is the whole collection
    EXPECT_EQ(Json(RunOverInput(&pipeline)), Json(RunOverCollection(Parse(stages))));
  }
}

TEST_F(PipelineInputTest, OnlyALeadingMatchMovesIntoThePlan) {
  InsertNumbered(20, 4);
  const char* stages = R"([{"$limit": 5}, {"$match": {"a": 1}}])";
  query::Pipeline pipeline = Parse(stages);
  std::unique_ptr<query::DocumentStream> input =
      OpenPipelineInput(ctx_, collection_, &pipeline).value();
  EXPECT_EQ(pipeline.stages().size(), 2u);
  EXPECT_EQ(Drain(*input).size(), 20u);
  EXPECT_EQ(Json(RunOverInput(&pipeline)), Json(RunOverCollection(Parse(stages))));
}

TEST_F(PipelineInputTest, ASortAnIndexOrTheRecordsGiveLeavesThePipelineAndOneTheyCannotStays) {
  InsertNumbered(30, 7);
  AddIndexSpec(R"({"v": 2, "key": {"a": -1}, "name": "a_-1"})");
  const char* sorted = R"([{"$match": {"_id": {"$gte": 4}}}, {"$sort": {"a": 1}}, {"$limit": 9}])";
  query::Pipeline pipeline = Parse(sorted);
  std::vector<bson::Document> results = RunOverInput(&pipeline);
  ASSERT_EQ(pipeline.stages().size(), 1u);
  EXPECT_EQ(pipeline.stages().front()->name(), "$limit");
  ASSERT_EQ(results.size(), 9u);
  for (std::size_t doc_idx = 1; doc_idx < results.size(); ++doc_idx) {
    EXPECT_LE(results[doc_idx - 1].Get("a").AsInt64(), results[doc_idx].Get("a").AsInt64());
  }

  // Records are clustered by _id: their own order gives a sort on _id alone.
  pipeline = Parse(R"([{"$sort": {"_id": -1}}, {"$limit": 3}])");
  results = RunOverInput(&pipeline);
  ASSERT_EQ(pipeline.stages().size(), 1u);
  EXPECT_EQ(pipeline.stages().front()->name(), "$limit");
  EXPECT_EQ(Ids(results), (std::vector<int>{29, 28, 27}));

  const char* unsorted = R"([{"$sort": {"b": 1, "_id": -1}}, {"$limit": 3}])";
  pipeline = Parse(unsorted);
  results = RunOverInput(&pipeline);
  EXPECT_EQ(pipeline.stages().size(), 2u);
  EXPECT_EQ(Ids(results), (std::vector<int>{29, 28, 27}));
}

TEST_F(PipelineInputTest, MatchPinningIdReadsThatDocumentByPointLookup) {
  InsertNumbered(20);
  const char* stages = R"([{"$match": {"_id": 5}}])";
  query::Pipeline pipeline = Parse(stages);
  const query::Matcher* filter = pipeline.stages().front()->pushdown_filter();
  ASSERT_NE(filter, nullptr);
  EXPECT_EQ(PlanFilter(ctx_, collection_, *filter).value().root->name(), "IDHACK");
  std::vector<bson::Document> results = RunOverInput(&pipeline);
  EXPECT_TRUE(pipeline.stages().empty());
  EXPECT_EQ(Ids(results), (std::vector<int>{5}));
}

TEST_F(PipelineInputTest, CollectionStreamCrossesChunksWithoutLosingOrRepeating) {
  const int total = 2500;  // chunks hold 1,000
  InsertNumbered(total);
  std::vector<int> expected;
  for (int id = 0; id < total; ++id) expected.push_back(id);
  EXPECT_EQ(Ids(Drain(*StreamOfCollection(ctx_, collection_).value())), expected);
}

TEST_F(PipelineInputTest, FilteredStreamCountsChunksInMatches) {
  InsertNumbered(2500, 2);
  std::vector<int> expected;
  for (int id = 0; id < 2500; id += 2) expected.push_back(id);
  EXPECT_EQ(
      Ids(Drain(*StreamOfPlan(PlanFilter(ctx_, collection_, Filter(R"({"a": 0})")).value().root))),
      expected);
}

TEST_F(PipelineInputTest, StreamResumesAfterItsLastDocumentWhenDocumentsChangeBetweenChunks) {
  const int total = 2500;
  InsertNumbered(total);
  std::unique_ptr<query::DocumentStream> stream = StreamOfCollection(ctx_, collection_).value();
  std::vector<int> ids;
  bson::Document doc;
  while (ids.size() < 1000) {
    ASSERT_TRUE(stream->Next(&doc).value());
    ids.push_back(static_cast<int>(doc.Get("_id").AsInt64()));
  }
  // The first chunk is used up: the next read starts after _id 999, which is gone by then.
  for (int id : {999, 1000, 1500}) DeleteNow(*Stored(id));
  Insert(Doc(R"({"_id": 5000})"));
  for (const bson::Document& rest : Drain(*stream)) {
    ids.push_back(static_cast<int>(rest.Get("_id").AsInt64()));
  }
  std::vector<int> expected;
  for (int id = 0; id < total; ++id) {
    if (id != 1000 && id != 1500) expected.push_back(id);
  }
  expected.push_back(5000);
  EXPECT_EQ(ids, expected);
}

TEST_F(PipelineInputTest, EmptyCollectionStreamsNothing) {
  EXPECT_TRUE(Drain(*StreamOfCollection(ctx_, collection_).value()).empty());
}

}  // namespace
}  // namespace quarry::exec
