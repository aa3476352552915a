// Pipeline parsing and the document-at-a-time stages: $match $project $addFields $set $unset
// $replaceRoot $replaceWith $limit $skip $count $sort $unwind $documents $sample.
#include <gtest/gtest.h>

#include "pipeline/pipeline_test_util.h"

namespace quarry::query {
namespace {

using testing::PipelineErrorCode;
using testing::Produces;

ErrorCode Loc(int code) { return static_cast<ErrorCode>(code); }

const char* kDocs = R"([{"_id": 1, "a": 1, "b": "x"}, {"_id": 2, "a": 5, "b": "y"},
                        {"_id": 3, "a": 3, "b": "x"}])";

TEST(PipelineTest, EmptyPipelinePassesDocumentsThrough) {
  EXPECT_TRUE(Produces("[]", R"([{"_id": 1}])", R"([{"_id": 1}])"));
}

TEST(PipelineTest, MatchFiltersDocuments) {
  EXPECT_TRUE(Produces(R"([{"$match": {"a": {"$gt": 2}}}])", kDocs,
                       R"([{"_id": 2, "a": 5, "b": "y"}, {"_id": 3, "a": 3, "b": "x"}])"));
}

TEST(PipelineTest, MatchWithExprComparesFields) {
  EXPECT_TRUE(Produces(R"([{"$match": {"$expr": {"$gt": ["$a", "$_id"]}}}])", kDocs,
                       R"([{"_id": 2, "a": 5, "b": "y"}])"));
}

TEST(PipelineTest, MatchWithExprSeesLetVariables) {
  PipelineContext ctx;
  ctx.let = testing::Doc(R"({"id": 3})");
  EXPECT_TRUE(Produces(R"([{"$match": {"$expr": {"$eq": ["$_id", "$$id"]}}},
                           {"$project": {"_id": 0, "x": "$$id"}}])",
                       kDocs, R"([{"x": 3}])", std::move(ctx)));
}

TEST(PipelineTest, ProjectInclusionKeepsIdAndDocumentOrder) {
  EXPECT_TRUE(Produces(R"([{"$project": {"b": 1, "a": 1}}])",
                       R"([{"a": 1, "_id": 7, "b": 2, "c": 3}])",
                       R"([{"a": 1, "_id": 7, "b": 2}])"));
}

TEST(PipelineTest, ProjectComputedFieldsComeAfterIncludedOnes) {
  EXPECT_TRUE(Produces(R"([{"$project": {"_id": 0, "sum": {"$add": ["$a", 1]}, "a": 1}}])",
                       R"([{"_id": 1, "a": 1}])", R"([{"a": 1, "sum": 2}])"));
}

TEST(PipelineTest, ProjectExclusionRemovesFields) {
  EXPECT_TRUE(Produces(R"([{"$project": {"b": 0, "c.d": 0}}])",
                       R"([{"_id": 1, "b": 2, "c": {"d": 1, "e": 2}}])",
                       R"([{"_id": 1, "c": {"e": 2}}])"));
}

TEST(PipelineTest, ProjectNestedInclusionOverArrays) {
  EXPECT_TRUE(Produces(R"([{"$project": {"a.b": 1, "_id": 0}}])",
                       R"([{"_id": 1, "a": [{"b": 1, "c": 2}, 3, {"c": 4}]}])",
                       R"([{"a": [{"b": 1}, {}]}])"));
}

TEST(PipelineTest, ProjectComputedDottedPathCreatesDocument) {
  EXPECT_TRUE(Produces(R"([{"$project": {"_id": 0, "a.b": {"$literal": 1}}}])",
                       R"([{"_id": 1, "a": 5}])", R"([{"a": {"b": 1}}])"));
}

TEST(PipelineTest, ProjectLiteralStringsAreValues) {
  EXPECT_TRUE(Produces(R"([{"$project": {"_id": 0, "s": "hello", "f": "$a"}}])",
                       R"([{"_id": 1, "a": 2}])", R"([{"s": "hello", "f": 2}])"));
}

TEST(PipelineTest, ProjectMixingInclusionAndExclusionFails) {
  EXPECT_EQ(PipelineErrorCode(R"([{"$project": {"a": 1, "b": 0}}])", "[]"), Loc(31254));
  EXPECT_EQ(PipelineErrorCode(R"([{"$project": {"a": 0, "b": 1}}])", "[]"), Loc(31253));
  EXPECT_EQ(PipelineErrorCode(R"([{"$project": {}}])", "[]"), Loc(51272));
  EXPECT_EQ(PipelineErrorCode(R"([{"$project": {"a": 1, "a.b": 1}}])", "[]"), Loc(31250));
}

TEST(PipelineTest, ProjectIdOnlyExclusion) {
  EXPECT_TRUE(
      Produces(R"([{"$project": {"_id": 0}}])", R"([{"_id": 1, "a": 2}])", R"([{"a": 2}])"));
}

TEST(PipelineTest, AddFieldsReplacesInPlaceAndAppendsNew) {
  EXPECT_TRUE(Produces(R"([{"$addFields": {"z": 1, "a": {"$multiply": ["$a", 10]}}}])",
                       R"([{"_id": 1, "a": 2, "b": 3}])",
                       R"([{"_id": 1, "a": 20, "b": 3, "z": 1}])"));
}

TEST(PipelineTest, SetMergesIntoEmbeddedDocuments) {
  EXPECT_TRUE(Produces(R"([{"$set": {"a": {"c": 2}, "d.e": "$a.b"}}])",
                       R"([{"_id": 1, "a": {"b": 1}}])",
                       R"([{"_id": 1, "a": {"b": 1, "c": 2}, "d": {"e": 1}}])"));
}

TEST(PipelineTest, SetToRemoveDeletesField) {
  EXPECT_TRUE(Produces(R"([{"$set": {"a": "$$REMOVE"}}])", R"([{"_id": 1, "a": 1, "b": 2}])",
                       R"([{"_id": 1, "b": 2}])"));
}

TEST(PipelineTest, UnsetRemovesPaths) {
  EXPECT_TRUE(Produces(R"([{"$unset": ["a", "c.d"]}])",
                       R"([{"_id": 1, "a": 1, "c": {"d": 1, "e": 2}}])",
                       R"([{"_id": 1, "c": {"e": 2}}])"));
  EXPECT_TRUE(Produces(R"([{"$unset": "a"}])", R"([{"_id": 1, "a": 1}])", R"([{"_id": 1}])"));
  EXPECT_EQ(PipelineErrorCode(R"([{"$unset": 1}])", "[]"), Loc(31002));
}

TEST(PipelineTest, ReplaceRootAndReplaceWith) {
  EXPECT_TRUE(Produces(R"([{"$replaceRoot": {"newRoot": "$t"}}])", R"([{"_id": 1, "t": {"x": 1}}])",
                       R"([{"x": 1}])"));
  EXPECT_TRUE(Produces(R"([{"$replaceWith": {"$mergeObjects": [{"k": 0}, "$t"]}}])",
                       R"([{"_id": 1, "t": {"x": 1}}])", R"([{"k": 0, "x": 1}])"));
  EXPECT_EQ(PipelineErrorCode(R"([{"$replaceRoot": {"newRoot": "$nope"}}])", R"([{"_id": 1}])"),
            Loc(40228));
  EXPECT_EQ(PipelineErrorCode(R"([{"$replaceRoot": {}}])", "[]"), Loc(40231));
}

TEST(PipelineTest, SkipAndLimit) {
  EXPECT_TRUE(
      Produces(R"([{"$skip": 1}, {"$limit": 1}])", kDocs, R"([{"_id": 2, "a": 5, "b": "y"}])"));
  EXPECT_EQ(PipelineErrorCode(R"([{"$limit": 0}])", "[]"), Loc(15958));
  EXPECT_EQ(PipelineErrorCode(R"([{"$limit": "x"}])", "[]"), Loc(15957));
  EXPECT_EQ(PipelineErrorCode(R"([{"$skip": -1}])", "[]"), Loc(15956));
}

TEST(PipelineTest, CountCountsDocuments) {
  EXPECT_TRUE(Produces(R"([{"$count": "n"}])", kDocs, R"([{"n": 3}])"));
  EXPECT_TRUE(Produces(R"([{"$count": "n"}])", "[]", "[]"));
  EXPECT_EQ(PipelineErrorCode(R"([{"$count": "$n"}])", "[]"), Loc(40158));
}

TEST(PipelineTest, SortIsStableAndTypeOrdered) {
  EXPECT_TRUE(Produces(R"([{"$sort": {"b": 1}}])", kDocs,
                       R"([{"_id": 1, "a": 1, "b": "x"}, {"_id": 3, "a": 3, "b": "x"},
                           {"_id": 2, "a": 5, "b": "y"}])"));
  EXPECT_TRUE(Produces(R"([{"$sort": {"a": -1}}, {"$limit": 2}])", kDocs,
                       R"([{"_id": 2, "a": 5, "b": "y"}, {"_id": 3, "a": 3, "b": "x"}])"));
}

TEST(PipelineTest, SortOverMemoryLimitFailsWith292) {
  PipelineContext ctx;
  ctx.max_memory_bytes = 50;
  EXPECT_EQ(PipelineErrorCode(R"([{"$sort": {"a": 1}}])", kDocs, std::move(ctx)),
            ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed);
}

TEST(PipelineTest, TopKSortKeepsBestDocuments) {
  std::string docs = "[";
  for (int i = 0; i < 200; ++i) {
    if (i > 0) docs += ",";
    docs += "{\"_id\": " + std::to_string(i) + ", \"k\": " + std::to_string((i * 37) % 200) + "}";
  }
  docs += "]";
  EXPECT_TRUE(Produces(R"([{"$sort": {"k": 1}}, {"$limit": 3}, {"$project": {"_id": 0}}])", docs,
                       R"([{"k": 0}, {"k": 1}, {"k": 2}])"));
}

TEST(PipelineTest, UnwindEmitsOneDocumentPerElement) {
  EXPECT_TRUE(
      Produces(R"([{"$unwind": "$a"}])",
               R"([{"_id": 1, "a": [1, 2]}, {"_id": 2, "a": []}, {"_id": 3}, {"_id": 4, "a": 5}])",
               R"([{"_id": 1, "a": 1}, {"_id": 1, "a": 2}, {"_id": 4, "a": 5}])"));
}

TEST(PipelineTest, UnwindWithIndexAndPreserve) {
  EXPECT_TRUE(Produces(
      R"([{"$unwind": {"path": "$a", "includeArrayIndex": "i", "preserveNullAndEmptyArrays": true}}])",
      R"([{"_id": 1, "a": ["x", "y"]}, {"_id": 2, "a": []}, {"_id": 3}])",
      R"([{"_id": 1, "a": "x", "i": {"$numberLong": "0"}}, {"_id": 1, "a": "y", "i": {"$numberLong": "1"}},
          {"_id": 2, "a": [], "i": null}, {"_id": 3, "i": null}])"));
}

TEST(PipelineTest, UnwindNestedPath) {
  EXPECT_TRUE(
      Produces(R"([{"$unwind": "$a.b"}])", R"([{"_id": 1, "a": {"b": [1, 2], "c": 0}}])",
               R"([{"_id": 1, "a": {"b": 1, "c": 0}}, {"_id": 1, "a": {"b": 2, "c": 0}}])"));
}

TEST(PipelineTest, UnwindErrors) {
  EXPECT_EQ(PipelineErrorCode(R"([{"$unwind": "a"}])", "[]"), Loc(28818));
  EXPECT_EQ(PipelineErrorCode(R"([{"$unwind": {}}])", "[]"), Loc(28812));
  EXPECT_EQ(PipelineErrorCode(R"([{"$unwind": {"path": "$a", "x": 1}}])", "[]"), Loc(28811));
}

TEST(PipelineTest, DocumentsStageProducesItsOwnInput) {
  EXPECT_TRUE(Produces(R"([{"$documents": [{"x": 1}, {"x": 2}]}, {"$match": {"x": 2}}])", "[]",
                       R"([{"x": 2}])"));
  EXPECT_EQ(PipelineErrorCode(R"([{"$match": {}}, {"$documents": []}])", "[]"), Loc(40602));
}

TEST(PipelineTest, SampleReturnsAtMostSize) {
  StatusWith<std::vector<bson::Document>> out =
      testing::RunPipeline(R"([{"$sample": {"size": 2}}])", kDocs);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out.value().size(), 2u);
}

TEST(PipelineTest, UnknownStageFailsWith40324) {
  StatusWith<std::vector<bson::Document>> out = testing::RunPipeline(R"([{"$foo": 1}])", "[]");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Loc(40324));
  EXPECT_EQ(out.status().reason(), "Unrecognized pipeline stage name: '$foo'");
}

TEST(PipelineTest, StageWithTwoFieldsFailsWith40323) {
  StatusWith<std::vector<bson::Document>> out =
      testing::RunPipeline(R"([{"$match": {}, "$limit": 1}])", "[]");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Loc(40323));
  EXPECT_EQ(out.status().reason(),
            "A pipeline stage specification object must contain exactly one field.");
}

TEST(PipelineTest, ExternalStageParserSuppliesUnknownStages) {
  PipelineContext ctx;
  ctx.parse_external_stage = [](std::string_view name,
                                bson::ValueView) -> StatusWith<std::shared_ptr<const Stage>> {
    if (name != "$nothing") return std::shared_ptr<const Stage>();
    StatusWith<Pipeline> p = Pipeline::Parse(
        testing::Doc(R"({"p": [{"$match": {"_id": -1}}]})").Get("p").Document(), PipelineContext{});
    return p.value().stages().front();
  };
  EXPECT_TRUE(Produces(R"([{"$nothing": {}}])", kDocs, "[]", std::move(ctx)));
}

TEST(PipelineTest, LeadingStagesAreVisibleForPushdown) {
  StatusWith<Pipeline> p = Pipeline::Parse(
      testing::Doc(R"({"p": [{"$match": {"a": 1}}, {"$sort": {"a": 1}}, {"$limit": 5}]})")
          .Get("p")
          .Document(),
      PipelineContext{});
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p.value().stages().size(), 3u);
  EXPECT_EQ(p.value().stages()[0]->name(), "$match");
  EXPECT_TRUE(testing::SameValue(Value::Copy(p.value().stages()[0]->spec()), R"({"a": 1})"));
  EXPECT_EQ(p.value().stages()[1]->name(), "$sort");
  p.value().RemoveFirstStages(1);
  EXPECT_EQ(p.value().stages()[0]->name(), "$sort");
}

TEST(PipelineTest, CursorOverStreamBatchesAndReportsExhaustion) {
  std::vector<bson::Document> docs;
  for (int i = 0; i < 5; ++i) docs.push_back(testing::Doc("{\"_id\": " + std::to_string(i) + "}"));
  std::unique_ptr<CursorSource> cursor = CursorOverStream(StreamOfDocuments(std::move(docs)));
  StatusWith<Batch> first = cursor->NextBatch(2, 1 << 20);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first.value().documents.size(), 2u);
  EXPECT_FALSE(cursor->exhausted());
  StatusWith<Batch> rest = cursor->NextBatch(10, 1 << 20);
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(rest.value().documents.size(), 3u);
  EXPECT_TRUE(cursor->exhausted());
}

}  // namespace
}  // namespace quarry::query

namespace quarry::query {
namespace {

TEST(PipelineTest, FacetRunsEachSubPipelineOverTheSameInput) {
  EXPECT_TRUE(testing::Produces(
      R"([{"$facet": {"total": [{"$count": "n"}],
                      "page": [{"$sort": {"a": -1}}, {"$limit": 1}, {"$project": {"_id": 1}}]}}])",
      kDocs, R"([{"total": [{"n": 3}], "page": [{"_id": 2}]}])"));
}

TEST(PipelineTest, FacetRejectsOutAndNonArrays) {
  EXPECT_EQ(testing::PipelineErrorCode(R"([{"$facet": {"a": 1}}])", "[]"),
            static_cast<ErrorCode>(40170));
  EXPECT_EQ(testing::PipelineErrorCode(R"([{"$facet": {"a": [{"$out": "x"}]}}])", "[]"),
            static_cast<ErrorCode>(40600));
}

}  // namespace
}  // namespace quarry::query

namespace quarry::query {
namespace {

// A stream that attaches a score to each document, as $vectorSearch will.
class ScoredStream final : public DocumentStream {
 public:
  explicit ScoredStream(std::vector<bson::Document> docs) : docs_(std::move(docs)) {}
  StatusWith<bool> Next(bson::Document* out) override {
    if (next_ >= docs_.size()) return false;
    meta_.values["vectorSearchScore"] = Value::Double(1.0 / static_cast<double>(next_ + 1));
    *out = std::move(docs_[next_++]);
    return true;
  }
  const DocumentMetadata& metadata() const override { return meta_; }

 private:
  std::vector<bson::Document> docs_;
  std::size_t next_ = 0;
  DocumentMetadata meta_;
};

TEST(PipelineTest, MetaReadsScoresThroughSortAndSet) {
  StatusWith<Pipeline> p = Pipeline::Parse(
      testing::Doc(
          R"({"p": [{"$sort": {"_id": -1}}, {"$set": {"score": {"$meta": "vectorSearchScore"}}},
                            {"$project": {"emb": 0}}]})")
          .Get("p")
          .Document(),
      PipelineContext{});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  std::vector<bson::Document> docs;
  docs.push_back(testing::Doc(R"({"_id": 1, "emb": [1, 2]})"));
  docs.push_back(testing::Doc(R"({"_id": 2, "emb": [3, 4]})"));
  StatusWith<std::unique_ptr<DocumentStream>> out =
      p.value().Run(std::make_unique<ScoredStream>(std::move(docs)));
  ASSERT_TRUE(out.ok());
  std::vector<bson::Document> results;
  bson::Document doc;
  while (out.value()->Next(&doc).value()) results.push_back(doc);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(testing::SameDoc(results[0], R"({"_id": 2, "score": 0.5})"));
  EXPECT_TRUE(testing::SameDoc(results[1], R"({"_id": 1, "score": 1.0})"));
}

TEST(PipelineTest, MetaWithUnknownNameFails) {
  EXPECT_EQ(testing::PipelineErrorCode(R"([{"$set": {"s": {"$meta": "bogus"}}}])", "[]"),
            static_cast<ErrorCode>(17308));
}

}  // namespace
}  // namespace quarry::query
