// A capped collection's natural order: positions in commit order that outlive a restart,
// evictions of the oldest records past the limits, and validate's check of both indexes.
#include "exec/capped.h"

#include <gtest/gtest.h>

#include "exec/plan_executor.h"
#include "exec_test_util.h"

namespace quarry::exec {
namespace {

using testing::Doc;

class CappedTest : public testing::ExecFixture {
 protected:
  void SetUp() override {
    ExecFixture::SetUp();
    CreateLog();
  }

  void CreateLog() {
    auto created = catalog_->CreateCollection("db", "log",
                                              Doc(R"({"capped": true, "size": 100000, "max": 3})"));
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }

  Collection Log() const { return *LookupCollection(*catalog_, "db", "log"); }

  void InsertLog(int id) {
    storage::WriteUnit unit;
    bson::DocumentBuilder b;
    b.AppendInt32("_id", id);
    const Collection log = Log();
    unit.Insert(log.ref(), std::move(b).Finish());
    auto result = CommitNow(std::move(unit));
    ASSERT_TRUE(result.ok() && result.value().errors.empty());
  }

  void DeleteLog(int id) {
    const Collection log = Log();
    bson::DocumentBuilder b;
    b.AppendInt32("_id", id);
    const bson::Document key = std::move(b).Finish();
    auto stored = engine_->records().FindById(log.id, key.Get("_id"));
    ASSERT_TRUE(stored.ok() && stored.value().has_value());
    storage::WriteUnit unit;
    unit.Delete(log.ref(), *stored.value());
    auto result = CommitNow(std::move(unit));
    ASSERT_TRUE(result.ok() && result.value().errors.empty());
  }

  // The _ids of db.log in natural order, as a find without a sort reads them.
  std::vector<int> NaturalIds() {
    std::vector<int> ids;
    StatusWith<std::unique_ptr<PlanStage>> plan = PlanQuery(ctx_, Log(), QuerySpec());
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    if (!plan.ok()) return ids;
    Status done =
        ForEachResult(*plan.value(), [&](bson::DocumentView doc, const query::MatchDetails&) {
          ids.push_back(doc.Get("_id").Int32());
          return true;
        });
    EXPECT_TRUE(done.ok()) << done.ToString();
    return ids;
  }

  NaturalOrderCheck Check() {
    StatusWith<NaturalOrderCheck> check = CheckNaturalOrder(*engine_, *Log().info, 1 << 20);
    EXPECT_TRUE(check.ok()) << check.status().ToString();
    return check.ok() ? check.value() : NaturalOrderCheck{};
  }
};

TEST_F(CappedTest, InsertsKeepTheirCommitOrderAcrossARestart) {
  for (int id : {5, 1}) InsertLog(id);
  catalog_.reset();
  ASSERT_TRUE(engine_->Close().ok());
  engine_.reset();
  OpenEngine();
  InsertLog(3);
  EXPECT_EQ(NaturalIds(), (std::vector<int>{5, 1, 3}));
}

TEST_F(CappedTest, AWritePastMaxEvictsTheOldestAndTheirPositions) {
  for (int id : {9, 4, 7, 2, 8}) InsertLog(id);
  EXPECT_EQ(NaturalIds(), (std::vector<int>{7, 2, 8}));
  const NaturalOrderCheck check = Check();
  EXPECT_EQ(check.positions, 3);
  EXPECT_EQ(check.missing + check.extra + check.mismatched, 0);
}

TEST_F(CappedTest, ADeleteGivesItsPositionUp) {
  for (int id : {1, 2, 3}) InsertLog(id);
  DeleteLog(2);
  InsertLog(4);
  EXPECT_EQ(NaturalIds(), (std::vector<int>{1, 3, 4}));
  EXPECT_EQ(Check().positions, 3);
}

TEST_F(CappedTest, TheCheckFindsARecordWrittenWithoutAPosition) {
  InsertLog(1);
  // Committed past the index upkeep, as a bug would: the record has no place in the order.
  storage::WriteUnit unit;
  unit.Insert(Log().ref(), Doc(R"({"_id": 2})"));
  auto result = engine_->pipeline().Commit(std::move(unit), {});
  ASSERT_TRUE(result.ok() && result.value().errors.empty());
  const NaturalOrderCheck check = Check();
  EXPECT_EQ(check.missing, 1);
  EXPECT_EQ(check.extra, 0);
}

TEST_F(CappedTest, WritesInATransactionAreRefused) {
  InsertLog(1);
  std::unique_ptr<storage::Transaction> txn = engine_->pipeline().BeginTransaction({}, 1);
  storage::WriteUnit unit;
  unit.Insert(Log().ref(), Doc(R"({"_id": 2})"));
  auto staged = StageMaintainingIndexes(*catalog_, *txn, std::move(unit), true);
  ASSERT_TRUE(staged.ok()) << staged.status().ToString();
  ASSERT_EQ(staged.value().errors.size(), 1u);
  EXPECT_EQ(staged.value().errors.front().status.code(),
            ErrorCode::kOperationNotSupportedInTransaction);
}

}  // namespace
}  // namespace quarry::exec
