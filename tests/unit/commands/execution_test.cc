// How a request reaches the execution layer: commit options from its write concern, cursor
// options from its session, and commits that pass the retryable-write fail point.
#include "commands/execution.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "bson/builder.h"
#include "commands/test_hooks.h"
#include "commands_test_util.h"

namespace quarry::commands {
namespace {

using testing::Doc;
using testing::FakeRetryableWrite;

// Fail points that refuse every retryable commit and count how often they were asked.
class RefusingHooks final : public TestHooks {
 public:
  Status AfterCursorCheckout(CommandContext&) override { return Status::OK(); }
  Status BeforeRetryableCommit(CommandContext&) override {
    ++retryable_commits;
    return Status(ErrorCode::kInternalError, "fail point");
  }
  StatusWith<std::int64_t> Configure(std::string_view, bson::ValueView,
                                     bson::DocumentView) override {
    return std::int64_t{0};
  }
  int retryable_commits = 0;
};

class ExecutionTest : public testing::CommandFixture {
 protected:
  storage::WriteUnit InsertOf(int id) {
    storage::WriteUnit unit;
    bson::DocumentBuilder b;
    b.AppendInt32("_id", id);
    unit.Insert(collection_.ref(), std::move(b).Finish());
    return unit;
  }
};

TEST_F(ExecutionTest, JournaledWriteConcernSyncsCommitsAndDdl) {
  CommandContext ctx(state_, connection_);
  EXPECT_EQ(CommitOptionsFor(ctx, true).durability, storage::Durability::kNone);
  EXPECT_EQ(DdlOptionsFor(ctx).durability, storage::Durability::kNone);
  ctx.set_write_concern({.unacknowledged = false, .journal = true, .explicitly_set = true});
  EXPECT_EQ(CommitOptionsFor(ctx, true).durability, storage::Durability::kJournal);
  EXPECT_EQ(DdlOptionsFor(ctx).durability, storage::Durability::kJournal);
  EXPECT_TRUE(CommitOptionsFor(ctx, true).ordered);
  EXPECT_FALSE(CommitOptionsFor(ctx, false).ordered);
}

TEST_F(ExecutionTest, CursorsBelongToTheSessionAndStopWithTheRequest) {
  CommandContext ctx(state_, connection_);
  // A cursor belongs to the session with its user (the key), not to the lsid's id alone.
  ctx.set_session(std::string(16, 's'), std::string(16, 's') + std::string(32, 'u'));
  cursors::CursorOptions options = CursorOptionsFor(ctx);
  EXPECT_EQ(options.session_id, std::string(16, 's') + std::string(32, 'u'));
  ASSERT_NE(options.interrupt, nullptr);
  EXPECT_EQ(options.interrupt, ctx.interrupt());
  EXPECT_EQ(ExecContextOf(ctx).interrupt, ctx.interrupt());
  EXPECT_EQ(ExecContextOf(ctx).engine, engine_.get());
}

TEST_F(ExecutionTest, RetryableCommitsPassTheFailPointFirst) {
  RefusingHooks hooks;
  state_.test_hooks = &hooks;
  FakeRetryableWrite retry;
  CommandContext ctx(state_, connection_);
  ctx.set_retryable_write(&retry);
  StatusWith<storage::CommitResult> refused =
      CommitForRequest(ctx, InsertOf(1), CommitOptionsFor(ctx, true));
  EXPECT_EQ(refused.status().code(), ErrorCode::kInternalError);
  EXPECT_EQ(CommitterOf(ctx)(InsertOf(1), true).status().code(), ErrorCode::kInternalError);
  EXPECT_EQ(hooks.retryable_commits, 2);
  EXPECT_FALSE(Stored(1).has_value());
  state_.test_hooks = nullptr;
}

TEST_F(ExecutionTest, OtherCommitsDoNotConsultTheFailPoint) {
  RefusingHooks hooks;
  state_.test_hooks = &hooks;
  CommandContext ctx(state_, connection_);
  StatusWith<storage::CommitResult> committed =
      CommitForRequest(ctx, InsertOf(1), CommitOptionsFor(ctx, true));
  ASSERT_TRUE(committed.ok()) << committed.status().ToString();
  EXPECT_EQ(committed.value().applied, 1u);
  EXPECT_EQ(hooks.retryable_commits, 0);
  EXPECT_TRUE(Stored(1).has_value());
  state_.test_hooks = nullptr;
}

TEST_F(ExecutionTest, CommitterOutsideARetryableWriteOutlivesItsRequest) {
  exec::Committer commit;
  {
    CommandContext ctx(state_, connection_);
    commit = CommitterOf(ctx);
  }
  StatusWith<storage::CommitResult> committed = commit(InsertOf(2), false);
  ASSERT_TRUE(committed.ok()) << committed.status().ToString();
  EXPECT_TRUE(committed.value().errors.empty());
  EXPECT_TRUE(Stored(2).has_value());
}

TEST_F(ExecutionTest, EnsureCollectionCreatesAMissingOne) {
  CommandContext ctx(state_, connection_);
  EXPECT_FALSE(LookupCollection(ctx, "db", "other").value().has_value());
  StatusWith<exec::Collection> created = EnsureCollection(ctx, "db", "other");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created.value().ns, "db.other");
  EXPECT_TRUE(LookupCollection(ctx, "db", "other").value().has_value());
}

TEST_F(ExecutionTest, AViewIsNeitherLookedUpNorEnsuredAsACollection) {
  CommandContext ctx(state_, connection_);
  bson::DocumentBuilder options;
  options.AppendString("viewOn", "other");
  options.AppendArray("pipeline", bson::ArrayBuilder().Finish());
  ASSERT_TRUE(ctx.catalog().CreateCollection("db", "view", std::move(options).Finish()).ok());
  StatusWith<std::optional<exec::Collection>> looked_up = LookupCollection(ctx, "db", "view");
  EXPECT_EQ(looked_up.status().code(), ErrorCode::kCommandNotSupportedOnView);
  StatusWith<exec::Collection> ensured = EnsureCollection(ctx, "db", "view");
  EXPECT_EQ(ensured.status().code(), ErrorCode::kCommandNotSupportedOnView);
  EXPECT_EQ(ensured.status().reason(), "Namespace db.view is a view, not a collection");
}

}  // namespace
}  // namespace quarry::commands
