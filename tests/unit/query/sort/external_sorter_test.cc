// ExternalSorter: past its memory limit it spills sorted runs and merges them into exactly the
// order of an in-memory stable sort; without a directory it fails with 292; its files are 0600
// in a 0700 directory and go away with it.
#include "query/sort/external_sorter.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "bson/builder.h"
#include "case_insensitive.h"
#include "query/spill/spill_file.h"
#include "query_test_util.h"
#include "temp_dir.h"

namespace quarry::query {
namespace {

using testing::Ci;
using testing::Doc;
using testing::TempDir;

SortSpec Spec(std::string_view json,
              std::shared_ptr<const bson::StringComparator> collator = nullptr) {
  StatusWith<SortSpec> spec = SortSpec::Parse(Doc(json), std::move(collator));
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  return spec.ok() ? spec.value() : SortSpec();
}

// Documents {_id: i, k: <one of few keys>, pad: "..."}: many equal keys, so stability shows.
std::vector<bson::Document> MakeDocs(int count) {
  static const char* kNames[] = {"b", "A", "a", "B", "c"};
  std::vector<bson::Document> docs;
  for (int i = 0; i < count; ++i) {
    bson::DocumentBuilder b;
    b.AppendInt32("_id", i);
    if (i % 7 == 0) {
      b.AppendInt32("k", (i * 31) % 5);
    } else {
      b.AppendString("k", kNames[(i * 17) % 5]);
    }
    b.AppendString("pad", std::string(40, 'x'));
    docs.push_back(std::move(b).Finish());
  }
  return docs;
}

std::vector<int> Ids(const std::vector<bson::Document>& docs) {
  std::vector<int> ids;
  for (const bson::Document& doc : docs) ids.push_back(static_cast<int>(doc.Get("_id").AsInt64()));
  return ids;
}

// The _ids in the sorter's order, each doc's extra checked to have travelled with it.
std::vector<int> Drain(ExternalSorter* sorter) {
  std::vector<int> ids;
  ExternalSorter::Item item;
  while (true) {
    StatusWith<bool> more = sorter->Next(&item);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !more.value()) break;
    EXPECT_EQ(item.extra.Get("id").AsInt64(), item.doc.Get("_id").AsInt64());
    ids.push_back(static_cast<int>(item.doc.Get("_id").AsInt64()));
  }
  return ids;
}

bson::Document ExtraFor(const bson::Document& doc) {
  bson::DocumentBuilder b;
  b.AppendInt64("id", doc.Get("_id").AsInt64());
  return std::move(b).Finish();
}

// The in-memory answer: a stable sort, cut to `limit`.
std::vector<int> Expected(const SortSpec& spec, std::vector<bson::Document> docs,
                          std::size_t limit = 0) {
  StableSortDocuments(spec, &docs);
  if (limit > 0 && docs.size() > limit) docs.resize(limit);
  return Ids(docs);
}

std::vector<int> SortSpilling(const SortSpec& spec, const std::vector<bson::Document>& docs,
                              const std::string& dir, std::size_t limit, SpillStats* stats) {
  SorterOptions options;
  options.max_memory_bytes = 4096;
  options.limit = limit;
  options.spill_dir = dir;
  ExternalSorter sorter(spec, options);
  for (const bson::Document& doc : docs) {
    Status added = sorter.Add(bson::Document::Copy(doc), ExtraFor(doc));
    EXPECT_TRUE(added.ok()) << added.ToString();
  }
  EXPECT_TRUE(sorter.Finish().ok());
  std::vector<int> ids = Drain(&sorter);
  *stats = sorter.spill_stats();
  return ids;
}

TEST(ExternalSorterTest, SpilledSortGivesTheInMemoryStableOrder) {
  TempDir tmp;
  const std::vector<bson::Document> docs = MakeDocs(2000);
  for (const char* pattern : {R"({"k": 1})", R"({"k": -1, "_id": -1})", R"({"k": -1})"}) {
    const SortSpec spec = Spec(pattern);
    SpillStats stats;
    EXPECT_EQ(SortSpilling(spec, docs, tmp.Sub("_tmp"), 0, &stats), Expected(spec, docs))
        << pattern;
    EXPECT_GT(stats.spills, 1);
    EXPECT_TRUE(stats.used_disk());
    EXPECT_GT(stats.spilled_bytes, 0);
    EXPECT_TRUE(TempDir::Files(tmp.Sub("_tmp")).empty());
  }
}

TEST(ExternalSorterTest, SpilledSortComparesUnderTheCollation) {
  TempDir tmp;
  const std::vector<bson::Document> docs = MakeDocs(1500);
  const SortSpec spec = Spec(R"({"k": 1})", Ci());
  SpillStats stats;
  const std::vector<int> spilled = SortSpilling(spec, docs, tmp.Sub("_tmp"), 0, &stats);
  EXPECT_EQ(spilled, Expected(spec, docs));
  EXPECT_GT(stats.spills, 1);
  // "A" and "a" are one key under it, so they keep their input order: not the simple order.
  EXPECT_NE(spilled, Expected(Spec(R"({"k": 1})"), docs));
}

TEST(ExternalSorterTest, TopKThatOutgrowsMemorySpillsAndKeepsTheFirstK) {
  TempDir tmp;
  const std::vector<bson::Document> docs = MakeDocs(3000);
  const SortSpec spec = Spec(R"({"k": 1})");
  SpillStats stats;
  EXPECT_EQ(SortSpilling(spec, docs, tmp.Sub("_tmp"), 200, &stats), Expected(spec, docs, 200));
  EXPECT_GT(stats.spills, 0);
}

TEST(ExternalSorterTest, ManyRunsAreMergedBeforeTheyExhaustFiles) {
  TempDir tmp;
  const std::vector<bson::Document> docs = MakeDocs(6000);  // about 100 runs of 4 KB
  const SortSpec spec = Spec(R"({"k": 1, "pad": 1})");
  SpillStats stats;
  EXPECT_EQ(SortSpilling(spec, docs, tmp.Sub("_tmp"), 0, &stats), Expected(spec, docs));
  EXPECT_GT(stats.spills, 64);
  EXPECT_TRUE(TempDir::Files(tmp.Sub("_tmp")).empty());
}

TEST(ExternalSorterTest, WithoutADirectoryThePastLimitFailsWith292) {
  SorterOptions options;
  options.max_memory_bytes = 1000;
  ExternalSorter sorter(Spec(R"({"k": 1})"), options);
  Status last = Status::OK();
  for (const bson::Document& doc : MakeDocs(100)) {
    last = sorter.Add(bson::Document::Copy(doc));
    if (!last.ok()) break;
  }
  EXPECT_EQ(last.code(), ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed);
}

TEST(ExternalSorterTest, RunsArePrivateAndGoWithTheSorter) {
  TempDir tmp;
  const std::string dir = tmp.Sub("_tmp");
  {
    SorterOptions options;
    options.max_memory_bytes = 2048;
    options.spill_dir = dir;
    ExternalSorter sorter(Spec(R"({"k": 1})"), options);
    for (const bson::Document& doc : MakeDocs(500)) {
      ASSERT_TRUE(sorter.Add(bson::Document::Copy(doc), ExtraFor(doc)).ok());
    }
    ASSERT_TRUE(sorter.Finish().ok());
    ExternalSorter::Item item;
    ASSERT_TRUE(sorter.Next(&item).value());  // a cursor that read one batch and was killed
    struct stat info {};
    ASSERT_EQ(::stat(dir.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0700u);
    const std::vector<std::string> files = TempDir::Files(dir);
    ASSERT_FALSE(files.empty());
    for (const std::string& file : files) {
      ASSERT_EQ(::stat(file.c_str(), &info), 0);
      EXPECT_EQ(info.st_mode & 0777, 0600u) << file;
    }
  }
  EXPECT_TRUE(TempDir::Files(dir).empty());
}

TEST(SpillFileTest, PrepareSpillDirectoryRemovesStaleRuns) {
  TempDir tmp;
  const std::string dir = tmp.Sub("_tmp");
  StatusWith<SpillWriter> writer = SpillWriter::Create(dir);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(writer.value().Append(Doc(R"({"a": 1})").view()).ok());
  StatusWith<SpillRun> run = std::move(writer.value()).Finish();
  ASSERT_TRUE(run.ok());
  // A crash leaves the file: the next start-up finds it.
  const std::string stale = run.value().path() + ".left";
  ASSERT_EQ(::rename(run.value().path().c_str(), stale.c_str()), 0);
  ASSERT_EQ(TempDir::Files(dir).size(), 1u);
  ASSERT_TRUE(PrepareSpillDirectory(dir).ok());
  EXPECT_TRUE(TempDir::Files(dir).empty());
}

TEST(SpillFileTest, ReaderReturnsTheDocumentsWritten) {
  TempDir tmp;
  StatusWith<SpillWriter> writer = SpillWriter::Create(tmp.Sub("_tmp"));
  ASSERT_TRUE(writer.ok());
  std::vector<bson::Document> written = MakeDocs(30000);  // past one write buffer
  for (const bson::Document& doc : written) ASSERT_TRUE(writer.value().Append(doc.view()).ok());
  StatusWith<SpillRun> run = std::move(writer.value()).Finish();
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run.value().documents(), written.size());
  StatusWith<SpillReader> reader = SpillReader::Open(run.value());
  ASSERT_TRUE(reader.ok());
  bson::Document doc;
  std::size_t read = 0;
  while (reader.value().Next(&doc).value()) {
    ASSERT_LT(read, written.size());
    EXPECT_EQ(doc.bytes(), written[read].bytes());
    ++read;
  }
  EXPECT_EQ(read, written.size());
}

}  // namespace
}  // namespace quarry::query
