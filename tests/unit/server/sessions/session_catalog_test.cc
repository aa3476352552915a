// SessionCatalog: killSessions reaches a session's running operations and cursors and no other
// session's; sessions idle past the timeout expire; an ended session goes once its operations
// are done.
#include "server/sessions/session_catalog.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cursors/cursor_manager.h"
#include "server_test_util.h"

namespace quarry::server {
namespace {

using testing::NumberAt;
using testing::SessionId;
using testing::WithSession;

// A cursor source that never ends.
class EndlessSource : public query::CursorSource {
 public:
  StatusWith<query::Batch> NextBatch(std::size_t, std::size_t) override { return query::Batch{}; }
  bool exhausted() const override { return false; }
};

class SessionCatalogTest : public testing::ServerFixture {
 protected:
  SessionCatalog& catalog() { return service_->sessions(); }

  cursors::CursorId OpenCursor(const std::string& session_id) {
    cursors::CursorOptions options;
    options.session_id = session_id;
    return cursors_->Register("db.c", std::make_unique<EndlessSource>(), std::move(options));
  }
  bool CursorIsOpen(cursors::CursorId id) { return cursors_->Pin(id, "db.c").ok(); }

  // The last use of session `id` as List() reports it, or nullopt when it is not listed.
  std::optional<std::int64_t> LastUse(const std::string& id) const {
    for (const commands::LocalSession& session : service_->sessions().List()) {
      if (session.key == id) return session.last_use_ms;
    }
    return std::nullopt;
  }

  static std::chrono::system_clock::time_point At(std::int64_t millis) {
    return std::chrono::system_clock::time_point(std::chrono::milliseconds(millis));
  }
};

TEST_F(SessionCatalogTest, KillInterruptsTheSessionsRunningOperationsOnly) {
  auto mine = std::make_shared<Interrupt>();
  auto theirs = std::make_shared<Interrupt>();
  SessionCatalog::Running running_mine = catalog().Start(SessionId(1), mine);
  SessionCatalog::Running running_theirs = catalog().Start(SessionId(2), theirs);

  catalog().Kill(SessionId(1));

  EXPECT_EQ(mine->Check().code(), ErrorCode::kInterrupted);
  EXPECT_TRUE(theirs->Check().ok());
}

TEST_F(SessionCatalogTest, FinishedOperationIsNoLongerInterruptedByKill) {
  auto interrupt = std::make_shared<Interrupt>();
  { SessionCatalog::Running running = catalog().Start(SessionId(1), interrupt); }

  catalog().Kill(SessionId(1));

  EXPECT_TRUE(interrupt->Check().ok());
}

TEST_F(SessionCatalogTest, KillKillsTheSessionsCursorsOnly) {
  const cursors::CursorId mine = OpenCursor(SessionId(1));
  const cursors::CursorId theirs = OpenCursor(SessionId(2));
  const cursors::CursorId sessionless = OpenCursor("");

  catalog().Kill(SessionId(1));

  EXPECT_FALSE(CursorIsOpen(mine));
  EXPECT_TRUE(CursorIsOpen(theirs));
  EXPECT_TRUE(CursorIsOpen(sessionless));
}

TEST_F(SessionCatalogTest, KillAllInterruptsEverySessionAndKillsTheirCursors) {
  auto first = std::make_shared<Interrupt>();
  auto second = std::make_shared<Interrupt>();
  SessionCatalog::Running running_first = catalog().Start(SessionId(1), first);
  SessionCatalog::Running running_second = catalog().Start(SessionId(2), second);
  const cursors::CursorId cursor_first = OpenCursor(SessionId(1));
  const cursors::CursorId cursor_second = OpenCursor(SessionId(2));

  catalog().KillAll();

  EXPECT_FALSE(first->Check().ok());
  EXPECT_FALSE(second->Check().ok());
  EXPECT_FALSE(CursorIsOpen(cursor_first));
  EXPECT_FALSE(CursorIsOpen(cursor_second));
}

TEST_F(SessionCatalogTest, ListShowsEverySessionInUse) {
  {
    SessionCatalog::Running running = catalog().Start(SessionId(1), std::make_shared<Interrupt>());
  }
  catalog().Refresh(SessionId(2));

  EXPECT_TRUE(LastUse(SessionId(1)).has_value());
  EXPECT_TRUE(LastUse(SessionId(2)).has_value());
  EXPECT_FALSE(LastUse(SessionId(3)).has_value());
}

TEST_F(SessionCatalogTest, RefreshCountsAsAUse) {
  {
    SessionCatalog::Running running = catalog().Start(SessionId(1), std::make_shared<Interrupt>());
  }
  const std::optional<std::int64_t> started = LastUse(SessionId(1));
  ASSERT_TRUE(started.has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(5));

  catalog().Refresh(SessionId(1));

  ASSERT_TRUE(LastUse(SessionId(1)).has_value());
  EXPECT_GT(*LastUse(SessionId(1)), *started);
}

TEST_F(SessionCatalogTest, ReapExpiredEndsSessionsIdlePastTheTimeoutOnly) {
  catalog().Refresh(SessionId(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  catalog().Refresh(SessionId(2));
  const cursors::CursorId idle_cursor = OpenCursor(SessionId(1));
  const cursors::CursorId live_cursor = OpenCursor(SessionId(2));
  ASSERT_TRUE(LastUse(SessionId(2)).has_value());
  // The moment session 2's last use becomes the oldest one still kept.
  const auto now = At(*LastUse(SessionId(2))) + kSessionTimeout;

  EXPECT_EQ(catalog().ReapExpired(now), 1u);

  EXPECT_FALSE(LastUse(SessionId(1)).has_value());
  EXPECT_TRUE(LastUse(SessionId(2)).has_value());
  EXPECT_FALSE(CursorIsOpen(idle_cursor));
  EXPECT_TRUE(CursorIsOpen(live_cursor));
}

TEST_F(SessionCatalogTest, ReapExpiredKeepsASessionWhileItsOperationRuns) {
  SessionCatalog::Running running = catalog().Start(SessionId(1), std::make_shared<Interrupt>());

  EXPECT_EQ(catalog().ReapExpired(std::chrono::system_clock::now() + 2 * kSessionTimeout), 0u);

  EXPECT_TRUE(LastUse(SessionId(1)).has_value());
}

TEST_F(SessionCatalogTest, ReapExpiredForgetsTheSessionsRetryableWrites) {
  ASSERT_EQ(NumberAt(Run(WithSession(R"({"insert": "c", "documents": [{"_id": 1}], "$db": "db"})",
                                     SessionId(1), 1)),
                     "n"),
            1);
  ASSERT_EQ(RecordedTxns(SessionId(1)), std::vector<std::int64_t>{1});

  EXPECT_EQ(catalog().ReapExpired(std::chrono::system_clock::now() + 2 * kSessionTimeout), 1u);

  EXPECT_TRUE(RecordedTxns(SessionId(1)).empty());
}

TEST_F(SessionCatalogTest, EndedSessionIsForgottenAtOnce) {
  catalog().Refresh(SessionId(1));

  catalog().End(SessionId(1));

  EXPECT_FALSE(LastUse(SessionId(1)).has_value());
}

TEST_F(SessionCatalogTest, SessionEndedWhileAnOperationRunsIsForgottenWhenItIsDone) {
  auto interrupt = std::make_shared<Interrupt>();
  std::optional<SessionCatalog::Running> running = catalog().Start(SessionId(1), interrupt);

  catalog().End(SessionId(1));
  EXPECT_TRUE(LastUse(SessionId(1)).has_value());
  catalog().Kill(SessionId(1));
  EXPECT_FALSE(interrupt->Check().ok()) << "a running operation of an ended session can be killed";

  running.reset();
  EXPECT_FALSE(LastUse(SessionId(1)).has_value());
}

TEST_F(SessionCatalogTest, SessionUsedAgainAfterEndSessionsLivesOn) {
  std::optional<SessionCatalog::Running> running =
      catalog().Start(SessionId(1), std::make_shared<Interrupt>());
  catalog().End(SessionId(1));

  catalog().Refresh(SessionId(1));
  running.reset();

  EXPECT_TRUE(LastUse(SessionId(1)).has_value());
}

TEST_F(SessionCatalogTest, KillSessionsCommandKillsTheSessionsCursor) {
  ASSERT_EQ(
      NumberAt(Run(R"({"insert": "c", "documents": [{"_id": 1}, {"_id": 2}, {"_id": 3}]})"), "n"),
      3);
  bson::Document found =
      Run(WithSession(R"({"find": "c", "batchSize": 1, "$db": "db"})", SessionId(1)));
  const std::int64_t cursor_id = NumberAt(found, "cursor.id");
  ASSERT_GT(cursor_id, 0) << found.ToJson();

  ASSERT_EQ(NumberAt(Run(testing::SessionsCommand("killSessions", SessionId(1))), "ok"), 1);

  bson::DocumentBuilder get_more;
  get_more.AppendInt64("getMore", cursor_id).AppendString("collection", "c");
  bson::Document reply = Run(std::move(get_more).Finish());
  EXPECT_EQ(NumberAt(reply, "code"), static_cast<std::int64_t>(ErrorCode::kCursorNotFound))
      << reply.ToJson();
}

}  // namespace
}  // namespace quarry::server
