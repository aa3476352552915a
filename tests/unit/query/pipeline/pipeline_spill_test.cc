// $group and $sort past their memory limits under allowDiskUse: they spill to a directory and
// answer exactly as they do in memory (collation included), and leave no file behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "case_insensitive.h"
#include "pipeline/pipeline_test_util.h"
#include "query/spill/spill_stats.h"
#include "temp_dir.h"

namespace quarry::query {
namespace {

using testing::Ci;
using testing::PipelineErrorCode;
using testing::RunPipeline;
using testing::TempDir;

// 600 documents: 37 groups by g, names in mixed case, a field missing now and then.
std::string ManyDocs() {
  static const char* kNames[] = {"ann", "Ann", "bob", "BOB", "cy"};
  std::string docs = "[";
  for (int i = 0; i < 600; ++i) {
    if (i > 0) docs += ", ";
    docs += "{\"_id\": " + std::to_string(i) + ", \"g\": " + std::to_string(i % 37) +
            ", \"v\": " + std::to_string((i * 7919) % 1000) + ", \"s\": \"" + kNames[i % 5] +
            "\", \"o\": {\"f" + std::to_string(i % 3) + "\": " + std::to_string(i) + "}";
    if (i % 4 != 0) docs += ", \"m\": " + std::to_string(i);
    docs += "}";
  }
  return docs + "]";
}

PipelineContext Spilling(const std::string& dir) {
  PipelineContext ctx;
  ctx.allow_disk_use = true;
  ctx.spill_dir = dir;
  ctx.max_group_memory_bytes = 2000;
  ctx.max_memory_bytes = 2000;
  return ctx;
}

// The documents as canonical JSON, sorted: $group's order is not part of its answer.
std::vector<std::string> AsSortedJson(const std::vector<bson::Document>& docs) {
  std::vector<std::string> out;
  for (const bson::Document& doc : docs) out.push_back(doc.view().ToCanonicalJson());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<bson::Document> MustRun(std::string_view pipeline, std::string_view docs,
                                    PipelineContext ctx = {}) {
  StatusWith<std::vector<bson::Document>> out = RunPipeline(pipeline, docs, std::move(ctx));
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? out.value() : std::vector<bson::Document>();
}

constexpr std::string_view kEveryAccumulator = R"([{"$group": {
    "_id": "$g", "sum": {"$sum": "$v"}, "n": {"$count": {}}, "avg": {"$avg": "$v"},
    "min": {"$min": "$s"}, "max": {"$max": "$m"}, "first": {"$first": "$m"},
    "last": {"$last": "$m"}, "all": {"$push": "$v"}, "names": {"$addToSet": "$s"},
    "merged": {"$mergeObjects": "$o"}}}])";

TEST(PipelineSpillTest, SpilledGroupGivesTheInMemoryAnswer) {
  TempDir tmp;
  const std::string docs = ManyDocs();
  const std::vector<bson::Document> in_memory = MustRun(kEveryAccumulator, docs);
  const std::int64_t spills_before = GroupSpillCounters().spills.load();
  const std::vector<bson::Document> spilled =
      MustRun(kEveryAccumulator, docs, Spilling(tmp.Sub("_tmp")));
  EXPECT_GT(GroupSpillCounters().spills.load(), spills_before + 1);
  ASSERT_EQ(in_memory.size(), 37u);
  EXPECT_EQ(AsSortedJson(spilled), AsSortedJson(in_memory));
  EXPECT_TRUE(TempDir::Files(tmp.Sub("_tmp")).empty());
}

TEST(PipelineSpillTest, ManyGroupRunsAreMergedOnTheWay) {
  TempDir tmp;
  const std::string docs = ManyDocs();
  PipelineContext tiny = Spilling(tmp.Sub("_tmp"));
  tiny.max_group_memory_bytes = 300;  // a run every few documents
  const std::int64_t spills_before = GroupSpillCounters().spills.load();
  const std::vector<bson::Document> spilled = MustRun(kEveryAccumulator, docs, std::move(tiny));
  EXPECT_GT(GroupSpillCounters().spills.load(), spills_before + 64);
  EXPECT_EQ(AsSortedJson(spilled), AsSortedJson(MustRun(kEveryAccumulator, docs)));
  EXPECT_TRUE(TempDir::Files(tmp.Sub("_tmp")).empty());
}

TEST(PipelineSpillTest, SpilledGroupKeysFollowTheCollation) {
  TempDir tmp;
  const std::string docs = ManyDocs();
  constexpr std::string_view kByName =
      R"([{"$group": {"_id": "$s", "n": {"$sum": 1}, "ids": {"$push": "$_id"}}}])";
  PipelineContext simple;
  simple.collator = Ci();
  PipelineContext spilling = Spilling(tmp.Sub("_tmp"));
  spilling.collator = Ci();
  const std::vector<bson::Document> in_memory = MustRun(kByName, docs, simple);
  ASSERT_EQ(in_memory.size(), 3u);  // ann, bob, cy
  const std::int64_t spills_before = GroupSpillCounters().spills.load();
  EXPECT_EQ(AsSortedJson(MustRun(kByName, docs, spilling)), AsSortedJson(in_memory));
  EXPECT_GT(GroupSpillCounters().spills.load(), spills_before + 1);
}

TEST(PipelineSpillTest, SpilledStdDevMatchesWithinRounding) {
  TempDir tmp;
  const std::string docs = ManyDocs();
  constexpr std::string_view kStdDev = R"([{"$group": {"_id": "$g",
      "pop": {"$stdDevPop": "$v"}, "samp": {"$stdDevSamp": "$m"}}}])";
  std::vector<bson::Document> in_memory = MustRun(kStdDev, docs);
  std::vector<bson::Document> spilled = MustRun(kStdDev, docs, Spilling(tmp.Sub("_tmp")));
  ASSERT_EQ(spilled.size(), in_memory.size());
  auto by_id = [](const bson::Document& a, const bson::Document& b) {
    return a.Get("_id").AsInt64() < b.Get("_id").AsInt64();
  };
  std::sort(in_memory.begin(), in_memory.end(), by_id);
  std::sort(spilled.begin(), spilled.end(), by_id);
  for (std::size_t i = 0; i < spilled.size(); ++i) {
    for (const char* field : {"pop", "samp"}) {
      EXPECT_NEAR(spilled[i].Get(field).AsDouble(), in_memory[i].Get(field).AsDouble(), 1e-9);
    }
  }
}

TEST(PipelineSpillTest, GroupWithoutASpillDirectoryFailsClearly) {
  PipelineContext ctx = Spilling("");
  EXPECT_EQ(PipelineErrorCode(kEveryAccumulator, ManyDocs(), std::move(ctx)),
            ErrorCode::kExceededMemoryLimit);
}

TEST(PipelineSpillTest, SpilledSortGivesTheInMemoryStableOrder) {
  TempDir tmp;
  const std::string docs = ManyDocs();
  for (std::string_view pipeline :
       {R"([{"$sort": {"s": 1}}])", R"([{"$sort": {"g": -1}}, {"$limit": 50}])"}) {
    EXPECT_EQ(testing::CanonDocs(MustRun(pipeline, docs, Spilling(tmp.Sub("_tmp")))),
              testing::CanonDocs(MustRun(pipeline, docs)))
        << pipeline;
  }
  PipelineContext collated = Spilling(tmp.Sub("_tmp"));
  collated.collator = Ci();
  PipelineContext in_memory;
  in_memory.collator = Ci();
  EXPECT_EQ(testing::CanonDocs(MustRun(R"([{"$sort": {"s": -1}}])", docs, collated)),
            testing::CanonDocs(MustRun(R"([{"$sort": {"s": -1}}])", docs, in_memory)));
  EXPECT_TRUE(TempDir::Files(tmp.Sub("_tmp")).empty());
}

TEST(PipelineSpillTest, SortStreamReportsItsSpills) {
  TempDir tmp;
  bson::Document stages = testing::Doc(R"({"p": [{"$sort": {"v": 1}}]})");
  StatusWith<Pipeline> pipeline =
      Pipeline::Parse(stages.Get("p").Document(), Spilling(tmp.Sub("_tmp")));
  ASSERT_TRUE(pipeline.ok());
  std::vector<bson::Document> input = MustRun("[]", ManyDocs());
  StatusWith<std::unique_ptr<DocumentStream>> stream =
      pipeline.value().Run(StreamOfDocuments(std::move(input)));
  ASSERT_TRUE(stream.ok());
  bson::Document doc;
  ASSERT_TRUE(stream.value()->Next(&doc).value());
  bson::DocumentBuilder stats;
  stream.value()->AppendExecutionStats(&stats);
  bson::Document shown = std::move(stats).Finish();
  EXPECT_TRUE(shown.Get("usedDisk").Bool());
  EXPECT_GT(shown.Get("spills").AsInt64(), 1);
  EXPECT_GT(shown.Get("spilledDataStorageSize").AsInt64(), 0);
  EXPECT_FALSE(TempDir::Files(tmp.Sub("_tmp")).empty());  // read one of many: runs still open
  stream.value().reset();
  EXPECT_TRUE(TempDir::Files(tmp.Sub("_tmp")).empty());
}

}  // namespace
}  // namespace quarry::query
