// IdBatch: single-document writes by _id committed together, reported in statement order, with
// the statements whose change did not commit run again on their own.
#include "exec/id_batch.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "exec_test_util.h"

namespace quarry::exec {
namespace {

using testing::Bumped;
using testing::With;

// A statement: bump the document with this _id.
struct BumpStatement {
  int id = 0;
};

// What a statement reports: the id it bumped, plus kAloneOffset when it ran alone.
constexpr int kAloneOffset = 100;

using Batch = IdBatch<BumpStatement, int>;

std::string KeyOf(int id) {
  bson::DocumentBuilder b;
  b.AppendInt32("_id", id);
  return storage::EncodeIdKey(std::move(b).Finish().Get("_id"));
}

std::int64_t BumpsOf(const std::optional<bson::Document>& doc) {
  if (!doc.has_value() || !doc->Get("bumps").exists()) return 0;
  return doc->Get("bumps").AsInt64();
}

class IdBatchTest : public testing::ExecFixture {
 protected:
  void SetUp() override {
    ExecFixture::SetUp();
    InsertNumbered(5);
  }

  Batch MakeBatch(bool ordered) {
    Committer commit = Commit();
    return Batch(
        [this, commit](storage::WriteUnit unit, bool ordered_commit) {
          commit_sizes_.push_back(unit.size());
          return commit(std::move(unit), ordered_commit);
        },
        ordered, [this](const BumpStatement& statement) { return RunAlone(statement); });
  }

  // Runs a statement by itself, as a command would: reads the document again and bumps it.
  StatusWith<int> RunAlone(const BumpStatement& statement) {
    std::optional<bson::Document> doc = Stored(statement.id);
    alone_.push_back({statement.id, BumpsOf(doc)});
    storage::WriteUnit unit;
    unit.Update(collection_.ref(), *doc, Bumped(*doc), storage::UpdateKind::kModify);
    StatusWith<storage::CommitResult> result = Commit()(std::move(unit), true);
    if (!result.ok()) return result.status();
    if (!result.value().errors.empty()) return result.value().errors.front().status;
    return statement.id + kAloneOffset;
  }

  // Reads document `id` and queues its bump as statement `index`.
  void QueueBump(Batch& batch, std::size_t index, int id) {
    std::optional<bson::Document> doc = Stored(id);
    ASSERT_TRUE(doc.has_value());
    const std::size_t mutation =
        batch.unit().Update(collection_.ref(), *doc, Bumped(*doc), storage::UpdateKind::kModify);
    batch.Queue(index, BumpStatement{id}, id, mutation, KeyOf(id));
  }

  // Another client changes document `id` after the batch read it.
  void ChangeBehindTheBatch(int id) { ReplaceNow(*Stored(id), With(*Stored(id), "other", 1)); }

  Batch::Report Record(std::size_t stop_at = SIZE_MAX) {
    return [this, stop_at](std::size_t index, StatusWith<int> outcome) {
      reports_.push_back({index, outcome.ok() ? outcome.value() : -1});
      return index != stop_at;
    };
  }

  std::vector<std::size_t> commit_sizes_;
  std::vector<std::pair<int, std::int64_t>> alone_;  // id, its bumps when the run began
  std::vector<std::pair<std::size_t, int>> reports_;
};

TEST_F(IdBatchTest, QueuedStatementsCommitInOneUnitAndReportInOrder) {
  Batch batch = MakeBatch(/*ordered=*/true);
  for (int id = 0; id < 3; ++id) QueueBump(batch, id, id);
  StatusWith<bool> flushed = batch.Flush(Record());
  ASSERT_TRUE(flushed.ok()) << flushed.status().ToString();
  EXPECT_TRUE(flushed.value());
  EXPECT_EQ(commit_sizes_, (std::vector<std::size_t>{3}));
  EXPECT_EQ(reports_, (std::vector<std::pair<std::size_t, int>>{{0, 0}, {1, 1}, {2, 2}}));
  EXPECT_TRUE(alone_.empty());
  for (int id = 0; id < 3; ++id) EXPECT_EQ(BumpsOf(Stored(id)), 1) << id;
}

TEST_F(IdBatchTest, UnorderedStatementWhoseChangeConflictsRunsAloneOnTheLatestVersion) {
  Batch batch = MakeBatch(/*ordered=*/false);
  for (int id = 0; id < 3; ++id) QueueBump(batch, id, id);
  ChangeBehindTheBatch(1);
  StatusWith<bool> flushed = batch.Flush(Record());
  ASSERT_TRUE(flushed.ok()) << flushed.status().ToString();
  EXPECT_EQ(reports_,
            (std::vector<std::pair<std::size_t, int>>{{0, 0}, {1, 1 + kAloneOffset}, {2, 2}}));
  EXPECT_EQ(alone_, (std::vector<std::pair<int, std::int64_t>>{{1, 0}}));
  EXPECT_EQ(Stored(1)->Get("other").AsInt64(), 1);
  for (int id = 0; id < 3; ++id) EXPECT_EQ(BumpsOf(Stored(id)), 1) << id;
}

TEST_F(IdBatchTest, OrderedBatchRunsEverythingFromTheFailureOnAgainInOrder) {
  Batch batch = MakeBatch(/*ordered=*/true);
  for (int id = 0; id < 4; ++id) QueueBump(batch, id, id);
  ChangeBehindTheBatch(1);
  StatusWith<bool> flushed = batch.Flush(Record());
  ASSERT_TRUE(flushed.ok()) << flushed.status().ToString();
  EXPECT_EQ(reports_,
            (std::vector<std::pair<std::size_t, int>>{
                {0, 0}, {1, 1 + kAloneOffset}, {2, 2 + kAloneOffset}, {3, 3 + kAloneOffset}}));
  // The ordered commit stopped at statement 1: 2 and 3 were not applied before their own runs.
  EXPECT_EQ(alone_, (std::vector<std::pair<int, std::int64_t>>{{1, 0}, {2, 0}, {3, 0}}));
  for (int id = 0; id < 4; ++id) EXPECT_EQ(BumpsOf(Stored(id)), 1) << id;
}

TEST_F(IdBatchTest, StatementWithoutAChangeReportsItsOutcomeUnlessAnOrderedFailurePrecedesIt) {
  for (bool ordered : {false, true}) {
    SCOPED_TRACE(ordered ? "ordered" : "unordered");
    reports_.clear();
    alone_.clear();
    const int conflicting = ordered ? 0 : 1;
    const int unchanged = ordered ? 3 : 4;
    Batch batch = MakeBatch(ordered);
    QueueBump(batch, 0, conflicting);
    batch.Queue(1, BumpStatement{unchanged}, unchanged, std::nullopt, std::nullopt);
    ChangeBehindTheBatch(conflicting);
    ASSERT_TRUE(batch.Flush(Record()).ok());
    ASSERT_EQ(reports_.size(), 2u);
    EXPECT_EQ(reports_[1].second, ordered ? unchanged + kAloneOffset : unchanged);
  }
}

TEST_F(IdBatchTest, ReportAskingToStopEndsTheFlush) {
  Batch batch = MakeBatch(/*ordered=*/true);
  for (int id = 0; id < 3; ++id) QueueBump(batch, id, id);
  StatusWith<bool> flushed = batch.Flush(Record(/*stop_at=*/1));
  ASSERT_TRUE(flushed.ok());
  EXPECT_FALSE(flushed.value());
  EXPECT_EQ(reports_.size(), 2u);

  QueueBump(batch, 3, 3);
  bool stop = false;
  ASSERT_TRUE(batch.Flush(Record(/*stop_at=*/3), &stop).ok());
  EXPECT_TRUE(stop);
}

TEST_F(IdBatchTest, QueuedRecordKeysAreKnownUntilTheFlush) {
  Batch batch = MakeBatch(/*ordered=*/true);
  QueueBump(batch, 0, 2);
  EXPECT_TRUE(batch.Changes(KeyOf(2)));
  EXPECT_FALSE(batch.Changes(KeyOf(3)));
  ASSERT_TRUE(batch.Flush(Record()).ok());
  EXPECT_FALSE(batch.Changes(KeyOf(2)));
}

TEST_F(IdBatchTest, BatchIsFullAtAThousandStatements) {
  Batch batch = MakeBatch(/*ordered=*/true);
  for (std::size_t i = 0; i + 1 < Batch::kQueuedPerCommit; ++i) {
    batch.Queue(i, BumpStatement{0}, 0, std::nullopt, std::nullopt);
  }
  EXPECT_FALSE(batch.full());
  batch.Queue(Batch::kQueuedPerCommit - 1, BumpStatement{0}, 0, std::nullopt, std::nullopt);
  EXPECT_TRUE(batch.full());
  ASSERT_TRUE(batch.Flush(Record()).ok());
  EXPECT_FALSE(batch.full());
  EXPECT_EQ(reports_.size(), Batch::kQueuedPerCommit);
  EXPECT_TRUE(commit_sizes_.empty());  // nothing changed, so nothing to commit
}

TEST_F(IdBatchTest, EmptyFlushCommitsAndReportsNothing) {
  Batch batch = MakeBatch(/*ordered=*/true);
  StatusWith<bool> flushed = batch.Flush(Record());
  ASSERT_TRUE(flushed.ok());
  EXPECT_TRUE(flushed.value());
  EXPECT_TRUE(commit_sizes_.empty());
  EXPECT_TRUE(reports_.empty());
}

TEST_F(IdBatchTest, FailedCommitFailsTheFlush) {
  Batch batch(
      [](storage::WriteUnit, bool) -> StatusWith<storage::CommitResult> {
        return Status(ErrorCode::kInternalError, "disk on fire");
      },
      /*ordered=*/true, [this](const BumpStatement& statement) { return RunAlone(statement); });
  QueueBump(batch, 0, 0);
  EXPECT_EQ(batch.Flush(Record()).status().code(), ErrorCode::kInternalError);
  EXPECT_TRUE(reports_.empty());
}

}  // namespace
}  // namespace quarry::exec
