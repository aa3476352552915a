// Plans of finds run through PlanExecutor: batches, re-seeks between batches, skip/limit, sort,
// projection, and the errors of a plan.
#include "exec/plan_executor.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "exec/planner.h"
#include "exec_test_util.h"
#include "storage/record_store.h"

namespace quarry::exec {
namespace {

using testing::Doc;

std::vector<int> Ids(const query::Batch& batch) {
  std::vector<int> ids;
  for (const bson::Document& doc : batch.documents) {
    ids.push_back(static_cast<int>(doc.Get("_id").AsInt64()));
  }
  return ids;
}

std::vector<int> Range(int begin, int end) {
  std::vector<int> out;
  for (int i = begin; i < end; ++i) out.push_back(i);
  return out;
}

// Every _id the executor returns, batch by batch, with `docs_per_batch`.
std::vector<int> Drain(PlanExecutor* executor, std::size_t docs_per_batch,
                       std::size_t* batches = nullptr) {
  std::vector<int> ids;
  std::size_t count = 0;
  while (!executor->exhausted() && count < 10000) {
    StatusWith<query::Batch> batch = executor->NextBatch(docs_per_batch, 16 * 1024 * 1024);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok()) break;
    for (int id : Ids(batch.value())) ids.push_back(id);
    ++count;
  }
  if (batches != nullptr) *batches = count;
  return ids;
}

class PlanExecutorTest : public testing::ExecFixture {
 protected:
  QuerySpec Spec(std::string_view filter = "{}", std::string_view projection = "{}",
                 std::string_view sort = "{}", std::int64_t skip = 0, std::int64_t limit = 0) {
    StatusWith<QuerySpec> spec =
        QuerySpec::Parse(Doc(filter), {}, Doc(projection), Doc(sort), skip, limit);
    EXPECT_TRUE(spec.ok()) << spec.status().ToString();
    return std::move(spec).value();
  }

  std::unique_ptr<PlanExecutor> Execute(QuerySpec spec) {
    auto plan = PlanQuery(ctx_, collection_, std::move(spec));
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    return std::make_unique<PlanExecutor>(std::move(plan).value());
  }
};

TEST_F(PlanExecutorTest, ReturnsAllDocumentsInIdOrder) {
  InsertNumbered(10);
  EXPECT_EQ(Drain(Execute(Spec()).get(), 101), Range(0, 10));
}

TEST_F(PlanExecutorTest, FirstBatchThatHoldsEverythingExhaustsTheCursor) {
  InsertNumbered(5);
  auto executor = Execute(Spec());
  StatusWith<query::Batch> batch = executor->NextBatch(101, 1 << 24);
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(batch.value().documents.size(), 5u);
  EXPECT_TRUE(executor->exhausted());
}

TEST_F(PlanExecutorTest, FullBatchWithNothingLeftStillExhausts) {
  InsertNumbered(5);
  auto executor = Execute(Spec());
  StatusWith<query::Batch> batch = executor->NextBatch(5, 1 << 24);
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(batch.value().documents.size(), 5u);
  EXPECT_TRUE(executor->exhausted());
}

TEST_F(PlanExecutorTest, BatchesCoverEveryDocumentOnce) {
  InsertNumbered(10);
  std::size_t batches = 0;
  EXPECT_EQ(Drain(Execute(Spec()).get(), 3, &batches), Range(0, 10));
  EXPECT_EQ(batches, 4u);
}

// The plan re-seeks after the last document it read rather than keeping a storage iterator
// (and its snapshot) between batches: changes made in between are seen.
TEST_F(PlanExecutorTest, ResumesAfterTheLastDocumentEvenWhenLaterDocumentsChange) {
  InsertNumbered(6);
  auto executor = Execute(Spec());
  ASSERT_EQ(Ids(executor->NextBatch(2, 1 << 24).value()), (std::vector<int>{0, 1}));
  // The executor holds document 2 read ahead; 3 is deleted and 100 inserted meanwhile.
  storage::WriteUnit unit;
  unit.Delete(collection_.ref(), Doc(R"({"_id": 3, "a": 3})"));
  unit.Insert(collection_.ref(), Doc(R"({"_id": 100})"));
  ASSERT_TRUE(engine_->pipeline().Commit(std::move(unit), {}).value().errors.empty());
  EXPECT_EQ(Drain(executor.get(), 10), (std::vector<int>{2, 4, 5, 100}));
}

TEST_F(PlanExecutorTest, FilterSelectsDocuments) {
  InsertNumbered(20, 4);
  EXPECT_EQ(Drain(Execute(Spec(R"({"a": 1})")).get(), 2), (std::vector<int>{1, 5, 9, 13, 17}));
}

TEST_F(PlanExecutorTest, BatchSizeZeroReturnsEmptyBatchAndStaysOpen) {
  InsertNumbered(3);
  auto executor = Execute(Spec());
  StatusWith<query::Batch> batch = executor->NextBatch(0, 1 << 24);
  ASSERT_TRUE(batch.ok());
  EXPECT_TRUE(batch.value().documents.empty());
  EXPECT_FALSE(executor->exhausted());
  EXPECT_EQ(Drain(executor.get(), 10), Range(0, 3));
}

TEST_F(PlanExecutorTest, ByteLimitEndsBatchButOneDocumentAlwaysFits) {
  InsertNumbered(4);
  bson::DocumentBuilder first_doc;
  first_doc.AppendInt32("_id", 0).AppendInt32("a", 0);
  const std::size_t doc_size = std::move(first_doc).Finish().size();
  auto executor = Execute(Spec());
  StatusWith<query::Batch> first = executor->NextBatch(101, 1);  // smaller than any document
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(Ids(first.value()), (std::vector<int>{0}));
  StatusWith<query::Batch> second = executor->NextBatch(
      101, 2 * doc_size + query::BatchElementOverhead(0) + query::BatchElementOverhead(1));
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(Ids(second.value()), (std::vector<int>{1, 2}));
  EXPECT_EQ(second.value().bytes, 2 * doc_size);
  EXPECT_EQ(Drain(executor.get(), 101), (std::vector<int>{3}));
}

TEST_F(PlanExecutorTest, ElementOverheadGrowsWithIndexDigits) {
  EXPECT_EQ(query::BatchElementOverhead(0), 3u);
  EXPECT_EQ(query::BatchElementOverhead(9), 3u);
  EXPECT_EQ(query::BatchElementOverhead(10), 4u);
  EXPECT_EQ(query::BatchElementOverhead(123456), 8u);
}

TEST_F(PlanExecutorTest, SkipAndLimitWhileStreaming) {
  InsertNumbered(20);
  EXPECT_EQ(Drain(Execute(Spec("{}", "{}", "{}", 5, 7)).get(), 3), Range(5, 12));
}

TEST_F(PlanExecutorTest, SkipAppliesToMatchesOnly) {
  InsertNumbered(20, 2);
  EXPECT_EQ(Drain(Execute(Spec(R"({"a": 0})", "{}", "{}", 2, 3)).get(), 2),
            (std::vector<int>{4, 6, 8}));
}

TEST_F(PlanExecutorTest, LimitReachedExhaustsTheCursor) {
  InsertNumbered(10);
  auto executor = Execute(Spec("{}", "{}", "{}", 0, 2));
  StatusWith<query::Batch> batch = executor->NextBatch(101, 1 << 24);
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(Ids(batch.value()), (std::vector<int>{0, 1}));
  EXPECT_TRUE(executor->exhausted());
}

TEST_F(PlanExecutorTest, SortOrdersAllMatchesAcrossBatches) {
  InsertNumbered(10);
  EXPECT_EQ(Drain(Execute(Spec("{}", "{}", R"({"_id": -1})")).get(), 3),
            (std::vector<int>{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
}

TEST_F(PlanExecutorTest, SortIsStableForEqualKeys) {
  InsertNumbered(9, 3);
  EXPECT_EQ(Drain(Execute(Spec("{}", "{}", R"({"a": 1})")).get(), 4),
            (std::vector<int>{0, 3, 6, 1, 4, 7, 2, 5, 8}));
}

TEST_F(PlanExecutorTest, SortWithSkipAndLimit) {
  InsertNumbered(100, 10);
  EXPECT_EQ(Drain(Execute(Spec("{}", "{}", R"({"a": -1, "_id": 1})", 3, 4)).get(), 2),
            (std::vector<int>{39, 49, 59, 69}));
}

TEST_F(PlanExecutorTest, TopKSortKeepsOrderAcrossPruning) {
  InsertNumbered(500, 7);
  EXPECT_EQ(Drain(Execute(Spec("{}", "{}", R"({"a": 1})", 0, 5)).get(), 101),
            (std::vector<int>{0, 7, 14, 21, 28}));
}

TEST_F(PlanExecutorTest, SortPastMemoryLimitFails) {
  InsertNumbered(100);
  QuerySpec spec = Spec("{}", "{}", R"({"a": 1})");
  spec.sort_memory.max_bytes = 1000;
  auto executor = Execute(std::move(spec));
  StatusWith<query::Batch> batch = executor->NextBatch(101, 1 << 24);
  EXPECT_EQ(batch.status().code(), ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed);
  EXPECT_TRUE(executor->exhausted());
}

TEST_F(PlanExecutorTest, SortPastMemoryLimitSpillsWithADirectory) {
  InsertNumbered(300, 7);
  char base[] = "/tmp/quarry-sort-spill-XXXXXX";
  ASSERT_NE(::mkdtemp(base), nullptr);
  const std::string dir = std::string(base) + "/_tmp";
  QuerySpec spec = Spec("{}", "{}", R"({"a": 1})");
  spec.sort_memory.max_bytes = 1000;
  spec.sort_memory.spill_dir = dir;
  auto executor = Execute(std::move(spec));
  const std::vector<int> spilled = Drain(executor.get(), 50);
  EXPECT_EQ(spilled, Drain(Execute(Spec("{}", "{}", R"({"a": 1})")).get(), 101));
  EXPECT_EQ(spilled.size(), 300u);
  EXPECT_TRUE(std::filesystem::is_empty(dir));  // the runs went with the last result
  std::filesystem::remove_all(base);
}

TEST_F(PlanExecutorTest, NaturalReverseReturnsStorageOrderBackwards) {
  InsertNumbered(5);
  EXPECT_EQ(Drain(Execute(Spec("{}", "{}", R"({"$natural": -1})")).get(), 2),
            (std::vector<int>{4, 3, 2, 1, 0}));
}

TEST_F(PlanExecutorTest, NaturalReverseWithSkipAndLimitReadsFromTheEnd) {
  InsertNumbered(100);
  EXPECT_EQ(Drain(Execute(Spec("{}", "{}", R"({"$natural": -1})", 1, 3)).get(), 2),
            (std::vector<int>{98, 97, 96}));
}

TEST_F(PlanExecutorTest, ProjectionShapesReturnedDocuments) {
  InsertNumbered(2);
  auto executor = Execute(Spec("{}", R"({"a": 0})"));
  StatusWith<query::Batch> batch = executor->NextBatch(10, 1 << 24);
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(batch.value().documents.size(), 2u);
  EXPECT_EQ(batch.value().documents[1].ToJson(), Doc(R"({"_id": 1})").ToJson());
}

TEST_F(PlanExecutorTest, PositionalProjectionUsesTheFilterMatch) {
  Insert(Doc(R"({"_id": 1, "a": [1, 5, 9]})"));
  auto executor = Execute(Spec(R"({"a": {"$gt": 4}})", R"({"a.$": 1})", R"({"_id": 1})"));
  StatusWith<query::Batch> batch = executor->NextBatch(10, 1 << 24);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ASSERT_EQ(batch.value().documents.size(), 1u);
  EXPECT_EQ(batch.value().documents[0].ToJson(), Doc(R"({"_id": 1, "a": [5]})").ToJson());
}

// A stage that fails, standing in for a storage error.
class FailingStage final : public PlanStage {
 public:
  std::string_view name() const override { return "FAILING"; }

 private:
  StatusWith<WorkState> DoWork(PlanResult*) override {
    return Status(ErrorCode::kInternalError, "disk on fire");
  }
};

TEST_F(PlanExecutorTest, AnErrorFailsTheBatchAndExhaustsTheCursor) {
  PlanExecutor executor(std::make_unique<FailingStage>());
  StatusWith<query::Batch> batch = executor.NextBatch(10, 1 << 24);
  EXPECT_EQ(batch.status().code(), ErrorCode::kInternalError);
  EXPECT_TRUE(executor.exhausted());
}

TEST_F(PlanExecutorTest, EmptyCollectionExhaustsAtOnce) {
  auto executor = Execute(Spec());
  StatusWith<query::Batch> batch = executor->NextBatch(101, 1 << 24);
  ASSERT_TRUE(batch.ok());
  EXPECT_TRUE(batch.value().documents.empty());
  EXPECT_TRUE(executor->exhausted());
}

TEST_F(PlanExecutorTest, AKilledInterruptStopsAScan) {
  InsertNumbered(2000);
  auto interrupt = std::make_shared<Interrupt>();
  ctx_.interrupt = interrupt;
  auto executor = Execute(Spec(R"({"a": -1})"));  // matches nothing: one long scan
  interrupt->Kill();
  StatusWith<query::Batch> batch = executor->NextBatch(101, 1 << 24);
  EXPECT_EQ(batch.status().code(), ErrorCode::kInterrupted);
}

TEST(QuerySpecTest, RejectsNegativeSkipAndLimit) {
  EXPECT_EQ(QuerySpec::Parse({}, {}, {}, {}, -1, 0).status().code(), static_cast<ErrorCode>(51024));
  EXPECT_EQ(QuerySpec::Parse({}, {}, {}, {}, 0, -1).status().code(), static_cast<ErrorCode>(51024));
}

TEST(QuerySpecTest, ReportsFilterProjectionAndSortErrors) {
  EXPECT_EQ(QuerySpec::Parse(Doc(R"({"$foo": 1})"), {}, {}, {}, 0, 0).status().code(),
            ErrorCode::kBadValue);
  EXPECT_EQ(QuerySpec::Parse({}, {}, Doc(R"({"a": 1, "b": 0})"), {}, 0, 0).status().code(),
            static_cast<ErrorCode>(31254));
  EXPECT_EQ(QuerySpec::Parse({}, {}, {}, Doc(R"({"a": 5})"), 0, 0).status().code(),
            ErrorCode::kBadValue);
}

}  // namespace
}  // namespace quarry::exec
