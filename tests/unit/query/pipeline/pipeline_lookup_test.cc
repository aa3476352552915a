// Stages that reach other collections through PipelineContext: $lookup, $unionWith, $out,
// $merge (and MergeDocuments).
#include <gtest/gtest.h>

#include <map>

#include "bson/compare.h"
#include "pipeline/pipeline_test_util.h"

namespace quarry::query {
namespace {

using testing::Doc;
using testing::PipelineErrorCode;
using testing::Produces;

// A tiny in-memory "database" for the callbacks.
struct FakeCollections {
  std::map<std::string, std::vector<bson::Document>> colls;

  void Add(const std::string& name, std::string_view docs_json) {
    bson::Document holder = Doc("{\"d\": " + std::string(docs_json) + "}");
    for (const bson::Element& e : holder.Get("d").Document()) {
      colls[name].push_back(bson::Document::Copy(e.value.Document()));
    }
  }

  PipelineContext Context() {
    PipelineContext ctx;
    ctx.db = "test";
    ctx.open_collection =
        [this](const std::string& db,
               const std::string& coll) -> StatusWith<std::unique_ptr<DocumentStream>> {
      std::vector<bson::Document> copy;
      auto it = colls.find(db + "." + coll);
      if (it != colls.end()) copy = it->second;
      return StreamOfDocuments(std::move(copy));
    };
    ctx.write_out = [this](const OutTarget& target, DocumentStream* docs) -> Status {
      std::vector<bson::Document>& out = colls[target.db + "." + target.coll];
      out.clear();
      bson::Document doc;
      while (true) {
        StatusWith<bool> more = docs->Next(&doc);
        if (!more.ok()) return more.status();
        if (!more.value()) return Status::OK();
        out.push_back(std::move(doc));
      }
    };
    ctx.write_merge = [this](const MergeSpec& spec, DocumentStream* docs) -> Status {
      std::vector<bson::Document>& out = colls[spec.into.db + "." + spec.into.coll];
      bson::Document doc;
      while (true) {
        StatusWith<bool> more = docs->Next(&doc);
        if (!more.ok()) return more.status();
        if (!more.value()) return Status::OK();
        bool matched = false;
        for (bson::Document& existing : out) {
          if (bson::ValuesEqual(existing.Get("_id"), doc.Get("_id"))) {
            StatusWith<bson::Document> merged = MergeDocuments(spec, existing, doc);
            if (!merged.ok()) return merged.status();
            existing = std::move(merged).value();
            matched = true;
          }
        }
        if (!matched) out.push_back(doc);
      }
    };
    return ctx;
  }
};

TEST(PipelineLookupTest, EqualityLookupJoinsMatchingDocuments) {
  FakeCollections db;
  db.Add("test.inventory", R"([{"_id": 1, "sku": "a", "n": 10}, {"_id": 2, "sku": "b", "n": 5},
                               {"_id": 3, "sku": "a", "n": 1}, {"_id": 4}])");
  EXPECT_TRUE(Produces(
      R"([{"$lookup": {"from": "inventory", "localField": "item", "foreignField": "sku", "as": "inv"}},
          {"$project": {"_id": 1, "ids": "$inv._id"}}])",
      R"([{"_id": 10, "item": "a"}, {"_id": 11, "item": "z"}, {"_id": 12}])",
      R"([{"_id": 10, "ids": [1, 3]}, {"_id": 11, "ids": []}, {"_id": 12, "ids": [4]}])",
      db.Context()));
}

TEST(PipelineLookupTest, LocalArrayMatchesAnyElement) {
  FakeCollections db;
  db.Add("test.tags", R"([{"_id": "x"}, {"_id": "y"}, {"_id": "z"}])");
  EXPECT_TRUE(Produces(
      R"([{"$lookup": {"from": "tags", "localField": "t", "foreignField": "_id", "as": "found"}}])",
      R"([{"_id": 1, "t": ["x", "z"]}])",
      R"([{"_id": 1, "t": ["x", "z"], "found": [{"_id": "x"}, {"_id": "z"}]}])", db.Context()));
}

TEST(PipelineLookupTest, PipelineLookupWithLetVariables) {
  FakeCollections db;
  db.Add("test.orders", R"([{"_id": 1, "cust": "c1", "amt": 5}, {"_id": 2, "cust": "c1", "amt": 50},
                            {"_id": 3, "cust": "c2", "amt": 7}])");
  EXPECT_TRUE(Produces(
      R"([{"$lookup": {"from": "orders", "let": {"c": "$name", "min": "$min"},
                       "pipeline": [{"$match": {"$expr": {"$and": [{"$eq": ["$cust", "$$c"]},
                                                                   {"$gte": ["$amt", "$$min"]}]}}},
                                    {"$project": {"_id": 1}}],
                       "as": "big"}}])",
      R"([{"_id": "A", "name": "c1", "min": 10}, {"_id": "B", "name": "c2", "min": 0}])",
      R"([{"_id": "A", "name": "c1", "min": 10, "big": [{"_id": 2}]},
          {"_id": "B", "name": "c2", "min": 0, "big": [{"_id": 3}]}])",
      db.Context()));
}

TEST(PipelineLookupTest, AKilledOperationStopsAtTheNextLocalDocument) {
  // The foreign side is held in memory, so no scan checks the operation while each local
  // document is matched against all of it: the stage checks once per document.
  FakeCollections db;
  db.Add("test.inventory", R"([{"_id": 1, "sku": "a"}])");
  PipelineContext ctx = db.Context();
  auto interrupt = std::make_shared<Interrupt>();
  ctx.interrupt = interrupt;
  const std::string lookup =
      R"([{"$lookup": {"from": "inventory", "localField": "item", "foreignField": "sku", "as": "inv"}}])";
  EXPECT_EQ(PipelineErrorCode(lookup, R"([{"_id": 10, "item": "a"}])", ctx), ErrorCode::kOk);
  interrupt->Kill(ErrorCode::kInterruptedAtShutdown);
  EXPECT_EQ(PipelineErrorCode(lookup, R"([{"_id": 10, "item": "a"}])", ctx),
            ErrorCode::kInterruptedAtShutdown);
}

TEST(PipelineLookupTest, LookupErrors) {
  FakeCollections db;
  EXPECT_EQ(
      PipelineErrorCode(R"([{"$lookup": {"from": "x", "localField": "a", "foreignField": "b"}}])",
                        "[]", db.Context()),
      ErrorCode::kFailedToParse);
  EXPECT_EQ(PipelineErrorCode(R"([{"$lookup": {"from": "x", "as": "y"}}])", "[]", db.Context()),
            ErrorCode::kFailedToParse);
  EXPECT_EQ(PipelineErrorCode(R"([{"$lookup": {"from": "x", "as": "y", "bogus": 1}}])", "[]",
                              db.Context()),
            ErrorCode::kFailedToParse);
}

TEST(PipelineLookupTest, UnionWithAppendsOtherCollection) {
  FakeCollections db;
  db.Add("test.more", R"([{"_id": 9, "v": 1}, {"_id": 10, "v": 2}])");
  EXPECT_TRUE(Produces(R"([{"$unionWith": {"coll": "more", "pipeline": [{"$match": {"v": 2}}]}}])",
                       R"([{"_id": 1}])", R"([{"_id": 1}, {"_id": 10, "v": 2}])", db.Context()));
}

TEST(PipelineLookupTest, OutWritesEverythingAndReturnsNothing) {
  FakeCollections db;
  EXPECT_TRUE(Produces(R"([{"$match": {"_id": {"$gt": 1}}}, {"$out": "copy"}])",
                       R"([{"_id": 1}, {"_id": 2}, {"_id": 3}])", "[]", db.Context()));
  ASSERT_EQ(db.colls["test.copy"].size(), 2u);
  EXPECT_TRUE(testing::SameDoc(db.colls["test.copy"][0], R"({"_id": 2})"));
}

TEST(PipelineLookupTest, OutMustBeLast) {
  FakeCollections db;
  EXPECT_EQ(PipelineErrorCode(R"([{"$out": "copy"}, {"$match": {}}])", "[]", db.Context()),
            static_cast<ErrorCode>(40601));
}

TEST(PipelineLookupTest, MergeDefaultsToMergingMatchedDocuments) {
  FakeCollections db;
  db.Add("test.target", R"([{"_id": 1, "a": 1, "keep": true}])");
  EXPECT_TRUE(Produces(R"([{"$merge": {"into": "target"}}])", R"([{"_id": 1, "a": 2}, {"_id": 5}])",
                       "[]", db.Context()));
  ASSERT_EQ(db.colls["test.target"].size(), 2u);
  EXPECT_TRUE(testing::SameDoc(db.colls["test.target"][0], R"({"_id": 1, "a": 2, "keep": true})"));
}

TEST(PipelineLookupTest, MergeDocumentsModes) {
  bson::Document existing = Doc(R"({"_id": 1, "a": 1, "b": 1})");
  bson::Document incoming = Doc(R"({"_id": 1, "a": 5})");
  MergeSpec spec;
  spec.when_matched = MergeSpec::WhenMatched::kReplace;
  EXPECT_TRUE(
      testing::SameDoc(MergeDocuments(spec, existing, incoming).value(), R"({"_id": 1, "a": 5})"));
  spec.when_matched = MergeSpec::WhenMatched::kKeepExisting;
  EXPECT_TRUE(testing::SameDoc(MergeDocuments(spec, existing, incoming).value(),
                               R"({"_id": 1, "a": 1, "b": 1})"));
  spec.when_matched = MergeSpec::WhenMatched::kPipeline;
  bson::Document pipeline = Doc(R"({"p": [{"$set": {"a": {"$add": ["$a", "$$new.a"]}}}]})");
  spec.when_matched_pipeline = bson::Document::Copy(pipeline.Get("p").Document());
  StatusWith<bson::Document> merged = MergeDocuments(spec, existing, incoming);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_TRUE(testing::SameDoc(merged.value(), R"({"_id": 1, "a": 6, "b": 1})"));
}

TEST(PipelineLookupTest, MergeSpecErrors) {
  FakeCollections db;
  EXPECT_EQ(PipelineErrorCode(R"([{"$merge": {"into": "t", "whenMatched": "nope"}}])", "[]",
                              db.Context()),
            ErrorCode::kBadValue);
  EXPECT_EQ(PipelineErrorCode(R"([{"$merge": {"into": "t", "bogus": 1}}])", "[]", db.Context()),
            ErrorCode::kLocation40415);
  EXPECT_EQ(PipelineErrorCode(R"([{"$merge": {"on": "_id"}}])", "[]", db.Context()),
            ErrorCode::kLocation40414);
}

}  // namespace
}  // namespace quarry::query
