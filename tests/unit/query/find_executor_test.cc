// FindExecutor over an in-memory collection: batches, re-seeks, skip/limit, sort, projection.
#include "query/find_executor.h"

#include <gtest/gtest.h>

#include <map>

#include "bson/builder.h"
#include "query_test_util.h"

namespace quarry::query {
namespace {

using testing::Doc;

// A collection in storage-key order, readable through RecordSource.
class MemoryCollection {
 public:
  void Add(std::string key, bson::Document doc) { records_[std::move(key)] = std::move(doc); }
  // Documents {_id: i, a: i % mod} under keys "k0000", "k0001", ...
  static MemoryCollection Numbered(int count, int mod = 1000000) {
    MemoryCollection collection;
    for (int i = 0; i < count; ++i) {
      bson::DocumentBuilder b;
      b.AppendInt32("_id", i).AppendInt32("a", i % mod);
      char key[16];
      std::snprintf(key, sizeof(key), "k%04d", i);
      collection.Add(key, std::move(b).Finish());
    }
    return collection;
  }

  RecordSourceFactory Factory() {
    return [this](std::string_view start_after) -> std::unique_ptr<RecordSource> {
      opens.emplace_back(start_after);
      return std::make_unique<Source>(this, start_after);
    };
  }

  std::map<std::string, bson::Document, std::less<>> records_;
  std::vector<std::string> opens;  // the start_after key of each open
  bool fail_reads = false;

 private:
  class Source : public RecordSource {
   public:
    Source(MemoryCollection* collection, std::string_view start_after)
        : collection_(collection),
          it_(start_after.empty() ? collection->records_.begin()
                                  : collection->records_.upper_bound(start_after)) {}
    bool Valid() const override {
      return !collection_->fail_reads && it_ != collection_->records_.end();
    }
    void Next() override { ++it_; }
    std::string_view key() const override { return it_->first; }
    bson::DocumentView document() const override { return it_->second.view(); }
    Status status() const override {
      if (collection_->fail_reads) return Status(ErrorCode::kInternalError, "disk on fire");
      return Status::OK();
    }

   private:
    MemoryCollection* collection_;
    std::map<std::string, bson::Document, std::less<>>::const_iterator it_;
  };
};

FindSpec Spec(std::string_view filter = "{}", std::string_view projection = "{}",
              std::string_view sort = "{}", std::int64_t skip = 0, std::int64_t limit = 0) {
  StatusWith<FindSpec> spec = FindSpec::Parse(Doc(filter), Doc(projection), Doc(sort), skip, limit);
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  return std::move(spec).value();
}

std::vector<int> Ids(const Batch& batch) {
  std::vector<int> ids;
  for (const bson::Document& doc : batch.documents) {
    ids.push_back(static_cast<int>(doc.Get("_id").AsInt64()));
  }
  return ids;
}

// Every _id the executor returns, batch by batch, with `docs_per_batch`.
std::vector<int> Drain(FindExecutor* executor, std::size_t docs_per_batch,
                       std::size_t* batches = nullptr) {
  std::vector<int> ids;
  std::size_t count = 0;
  while (!executor->exhausted()) {
    StatusWith<Batch> batch = executor->NextBatch(docs_per_batch, 16 * 1024 * 1024);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok()) break;
    for (int id : Ids(batch.value())) ids.push_back(id);
    ++count;
    if (count > 10000) break;
  }
  if (batches != nullptr) *batches = count;
  return ids;
}

std::vector<int> Range(int begin, int end) {
  std::vector<int> out;
  for (int i = begin; i < end; ++i) out.push_back(i);
  return out;
}

TEST(FindExecutorTest, ReturnsAllDocumentsInStorageOrder) {
  MemoryCollection collection = MemoryCollection::Numbered(10);
  FindExecutor executor(Spec(), collection.Factory());
  EXPECT_EQ(Drain(&executor, 101), Range(0, 10));
}

TEST(FindExecutorTest, FirstBatchThatHoldsEverythingExhaustsTheCursor) {
  MemoryCollection collection = MemoryCollection::Numbered(5);
  FindExecutor executor(Spec(), collection.Factory());
  StatusWith<Batch> batch = executor.NextBatch(101, 1 << 24);
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(batch.value().documents.size(), 5u);
  EXPECT_TRUE(executor.exhausted());
}

TEST(FindExecutorTest, FullBatchWithNothingLeftStillExhausts) {
  MemoryCollection collection = MemoryCollection::Numbered(5);
  FindExecutor executor(Spec(), collection.Factory());
  StatusWith<Batch> batch = executor.NextBatch(5, 1 << 24);
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(batch.value().documents.size(), 5u);
  EXPECT_TRUE(executor.exhausted());
}

TEST(FindExecutorTest, BatchesReopenTheSourceAfterTheLastKey) {
  MemoryCollection collection = MemoryCollection::Numbered(10);
  FindExecutor executor(Spec(), collection.Factory());
  std::size_t batches = 0;
  EXPECT_EQ(Drain(&executor, 3, &batches), Range(0, 10));
  EXPECT_EQ(batches, 4u);
  EXPECT_EQ(collection.opens, (std::vector<std::string>{"", "k0002", "k0005", "k0008"}));
}

TEST(FindExecutorTest, ResumesAfterLastConsumedKeyEvenWhenLaterDocumentsChange) {
  MemoryCollection collection = MemoryCollection::Numbered(6);
  FindExecutor executor(Spec(), collection.Factory());
  ASSERT_EQ(Ids(executor.NextBatch(2, 1 << 24).value()), (std::vector<int>{0, 1}));
  collection.records_.erase("k0002");                // deleted between getMores: never returned
  collection.Add("k0001x", Doc(R"({"_id": 100})"));  // inserted after the position: returned
  EXPECT_EQ(Drain(&executor, 10), (std::vector<int>{100, 3, 4, 5}));
}

TEST(FindExecutorTest, FilterSelectsDocuments) {
  MemoryCollection collection = MemoryCollection::Numbered(20, 4);
  FindExecutor executor(Spec(R"({"a": 1})"), collection.Factory());
  EXPECT_EQ(Drain(&executor, 2), (std::vector<int>{1, 5, 9, 13, 17}));
}

TEST(FindExecutorTest, BatchSizeZeroReturnsEmptyBatchAndStaysOpen) {
  MemoryCollection collection = MemoryCollection::Numbered(3);
  FindExecutor executor(Spec(), collection.Factory());
  StatusWith<Batch> batch = executor.NextBatch(0, 1 << 24);
  ASSERT_TRUE(batch.ok());
  EXPECT_TRUE(batch.value().documents.empty());
  EXPECT_FALSE(executor.exhausted());
  EXPECT_EQ(Drain(&executor, 10), Range(0, 3));
}

TEST(FindExecutorTest, ByteLimitEndsBatchButOneDocumentAlwaysFits) {
  MemoryCollection collection = MemoryCollection::Numbered(4);
  const std::size_t doc_size = collection.records_.begin()->second.size();
  FindExecutor executor(Spec(), collection.Factory());
  StatusWith<Batch> first = executor.NextBatch(101, 1);  // smaller than any document
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(Ids(first.value()), (std::vector<int>{0}));
  StatusWith<Batch> second =
      executor.NextBatch(101, 2 * doc_size + BatchElementOverhead(0) + BatchElementOverhead(1));
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(Ids(second.value()), (std::vector<int>{1, 2}));
  EXPECT_EQ(second.value().bytes, 2 * doc_size);
  EXPECT_EQ(Drain(&executor, 101), (std::vector<int>{3}));
}

TEST(FindExecutorTest, ByteLimitCountsArrayKeysOfTheReply) {
  MemoryCollection collection = MemoryCollection::Numbered(4);
  const std::size_t doc_size = collection.records_.begin()->second.size();
  FindExecutor executor(Spec(), collection.Factory());
  StatusWith<Batch> batch = executor.NextBatch(101, 2 * doc_size + 1);
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(Ids(batch.value()), (std::vector<int>{0}));
}

TEST(FindExecutorTest, ElementOverheadGrowsWithIndexDigits) {
  EXPECT_EQ(BatchElementOverhead(0), 3u);
  EXPECT_EQ(BatchElementOverhead(9), 3u);
  EXPECT_EQ(BatchElementOverhead(10), 4u);
  EXPECT_EQ(BatchElementOverhead(123456), 8u);
}

TEST(FindExecutorTest, SkipAndLimitWhileStreaming) {
  MemoryCollection collection = MemoryCollection::Numbered(20);
  FindExecutor executor(Spec("{}", "{}", "{}", 5, 7), collection.Factory());
  EXPECT_EQ(Drain(&executor, 3), Range(5, 12));
  EXPECT_EQ(executor.returned(), 7);
}

TEST(FindExecutorTest, SkipAppliesToMatchesOnly) {
  MemoryCollection collection = MemoryCollection::Numbered(20, 2);
  FindExecutor executor(Spec(R"({"a": 0})", "{}", "{}", 2, 3), collection.Factory());
  EXPECT_EQ(Drain(&executor, 2), (std::vector<int>{4, 6, 8}));
}

TEST(FindExecutorTest, LimitReachedExhaustsWithoutReadingFurther) {
  MemoryCollection collection = MemoryCollection::Numbered(10);
  FindExecutor executor(Spec("{}", "{}", "{}", 0, 2), collection.Factory());
  StatusWith<Batch> batch = executor.NextBatch(101, 1 << 24);
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(Ids(batch.value()), (std::vector<int>{0, 1}));
  EXPECT_TRUE(executor.exhausted());
}

TEST(FindExecutorTest, SortOrdersAllMatchesAcrossBatches) {
  MemoryCollection collection = MemoryCollection::Numbered(10);
  FindExecutor executor(Spec("{}", "{}", R"({"_id": -1})"), collection.Factory());
  EXPECT_EQ(Drain(&executor, 3), (std::vector<int>{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(collection.opens.size(), 1u);
}

TEST(FindExecutorTest, SortIsStableForEqualKeys) {
  MemoryCollection collection = MemoryCollection::Numbered(9, 3);
  FindExecutor executor(Spec("{}", "{}", R"({"a": 1})"), collection.Factory());
  EXPECT_EQ(Drain(&executor, 4), (std::vector<int>{0, 3, 6, 1, 4, 7, 2, 5, 8}));
}

TEST(FindExecutorTest, SortWithSkipAndLimit) {
  MemoryCollection collection = MemoryCollection::Numbered(100, 10);
  FindExecutor executor(Spec("{}", "{}", R"({"a": -1, "_id": 1})", 3, 4), collection.Factory());
  EXPECT_EQ(Drain(&executor, 2), (std::vector<int>{39, 49, 59, 69}));
}

TEST(FindExecutorTest, TopKSortKeepsOrderAcrossPruning) {
  MemoryCollection collection = MemoryCollection::Numbered(500, 7);
  FindExecutor executor(Spec("{}", "{}", R"({"a": 1})", 0, 5), collection.Factory());
  EXPECT_EQ(Drain(&executor, 101), (std::vector<int>{0, 7, 14, 21, 28}));
}

TEST(FindExecutorTest, SortPastMemoryLimitFails) {
  MemoryCollection collection = MemoryCollection::Numbered(100);
  FindSpec spec = Spec("{}", "{}", R"({"a": 1})");
  spec.max_sort_bytes = 1000;
  FindExecutor executor(std::move(spec), collection.Factory());
  StatusWith<Batch> batch = executor.NextBatch(101, 1 << 24);
  EXPECT_EQ(batch.status().code(), ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed);
  EXPECT_TRUE(executor.exhausted());
}

TEST(FindExecutorTest, NaturalReverseReturnsStorageOrderBackwards) {
  MemoryCollection collection = MemoryCollection::Numbered(5);
  FindExecutor executor(Spec("{}", "{}", R"({"$natural": -1})"), collection.Factory());
  EXPECT_EQ(Drain(&executor, 2), (std::vector<int>{4, 3, 2, 1, 0}));
}

TEST(FindExecutorTest, NaturalReverseWithLimitKeepsTheLastDocuments) {
  MemoryCollection collection = MemoryCollection::Numbered(100);
  FindExecutor executor(Spec("{}", "{}", R"({"$natural": -1})", 1, 3), collection.Factory());
  EXPECT_EQ(Drain(&executor, 2), (std::vector<int>{98, 97, 96}));
}

TEST(FindExecutorTest, NaturalForwardStreams) {
  MemoryCollection collection = MemoryCollection::Numbered(5);
  FindExecutor executor(Spec("{}", "{}", R"({"$natural": 1})"), collection.Factory());
  EXPECT_EQ(Drain(&executor, 2), Range(0, 5));
  EXPECT_EQ(collection.opens.size(), 3u);
}

TEST(FindExecutorTest, ProjectionShapesReturnedDocuments) {
  MemoryCollection collection = MemoryCollection::Numbered(2);
  FindExecutor executor(Spec("{}", R"({"a": 0})"), collection.Factory());
  StatusWith<Batch> batch = executor.NextBatch(10, 1 << 24);
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(batch.value().documents.size(), 2u);
  EXPECT_EQ(batch.value().documents[1].ToJson(), Doc(R"({"_id": 1})").ToJson());
}

TEST(FindExecutorTest, PositionalProjectionUsesTheFilterMatch) {
  MemoryCollection collection;
  collection.Add("k1", Doc(R"({"_id": 1, "a": [1, 5, 9]})"));
  FindExecutor executor(Spec(R"({"a": {"$gt": 4}})", R"({"a.$": 1})", R"({"_id": 1})"),
                        collection.Factory());
  StatusWith<Batch> batch = executor.NextBatch(10, 1 << 24);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ASSERT_EQ(batch.value().documents.size(), 1u);
  EXPECT_EQ(batch.value().documents[0].ToJson(), Doc(R"({"_id": 1, "a": [5]})").ToJson());
}

TEST(FindExecutorTest, StorageErrorFailsTheBatch) {
  MemoryCollection collection = MemoryCollection::Numbered(3);
  collection.fail_reads = true;
  FindExecutor executor(Spec(), collection.Factory());
  StatusWith<Batch> batch = executor.NextBatch(10, 1 << 24);
  EXPECT_EQ(batch.status().code(), ErrorCode::kInternalError);
  EXPECT_TRUE(executor.exhausted());
}

TEST(FindExecutorTest, EmptyCollectionExhaustsAtOnce) {
  MemoryCollection collection;
  FindExecutor executor(Spec(), collection.Factory());
  StatusWith<Batch> batch = executor.NextBatch(101, 1 << 24);
  ASSERT_TRUE(batch.ok());
  EXPECT_TRUE(batch.value().documents.empty());
  EXPECT_TRUE(executor.exhausted());
}

TEST(FindExecutorTest, SpecRejectsNegativeSkipAndLimit) {
  EXPECT_EQ(FindSpec::Parse(Doc("{}"), Doc("{}"), Doc("{}"), -1, 0).status().code(),
            static_cast<ErrorCode>(51024));
  EXPECT_EQ(FindSpec::Parse(Doc("{}"), Doc("{}"), Doc("{}"), 0, -1).status().code(),
            static_cast<ErrorCode>(51024));
}

TEST(FindExecutorTest, SpecReportsFilterProjectionAndSortErrors) {
  EXPECT_EQ(FindSpec::Parse(Doc(R"({"$foo": 1})"), Doc("{}"), Doc("{}"), 0, 0).status().code(),
            ErrorCode::kBadValue);
  EXPECT_EQ(FindSpec::Parse(Doc("{}"), Doc(R"({"a": 1, "b": 0})"), Doc("{}"), 0, 0).status().code(),
            static_cast<ErrorCode>(31254));
  EXPECT_EQ(FindSpec::Parse(Doc("{}"), Doc("{}"), Doc(R"({"a": 5})"), 0, 0).status().code(),
            ErrorCode::kBadValue);
}

}  // namespace
}  // namespace quarry::query
