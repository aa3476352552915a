// The records retryable writes keep in the meta family: they outlive a restart, only a session's
// latest write keeps them, ending or expiring a session deletes them, and one attempt at a time
// holds a session.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/endian.h"
#include "server/sessions/retryable_writes.h"
#include "server_test_util.h"
#include "storage/write_unit.h"

namespace quarry::server {
namespace {

using testing::NumberAt;
using testing::SessionId;
using testing::WithSession;
using Txns = std::vector<std::int64_t>;

constexpr std::string_view kInsertOne =
    R"({"insert": "c", "documents": [{"_id": 1}], "$db": "db"})";

class RetryableWriteRecordsTest : public testing::ServerFixture {
 protected:
  // Stores, as a previous run would have, a record saying that statement 0 of write
  // `txn_number` of `session_id` executed at `at_ms`: named as today (the number in the value)
  // or, with `numbered_name`, as records were named before (the number in the name).
  void PutRecord(const std::string& session_id, std::int64_t txn_number, std::int64_t at_ms,
                 bool numbered_name = false) {
    std::string name = "session/" + session_id;
    if (numbered_name) AppendBigEndian64(static_cast<std::uint64_t>(txn_number), &name);
    AppendBigEndian(0, 4, &name);
    bson::DocumentBuilder b;
    if (!numbered_name) b.AppendInt64("txn", txn_number);
    b.AppendDate("at", at_ms);
    b.OpenArray("executed").AppendInt64("0", 0).AppendInt64("1", 1).Close();
    b.OpenArray("outcomes").Close();
    storage::WriteUnit unit;
    unit.PutMeta(std::move(name), std::move(b).FinishBytes());
    auto committed = engine_->pipeline().Commit(std::move(unit), {});
    ASSERT_TRUE(committed.ok()) << committed.status().ToString();
    ASSERT_TRUE(committed.value().errors.empty());
  }
};

TEST_F(RetryableWriteRecordsTest, RetryAfterARestartIsAnsweredWithoutApplyingAgain) {
  ASSERT_EQ(NumberAt(Run(R"({"insert": "c", "documents": [{"_id": 1, "n": 0}]})"), "n"), 1);
  constexpr std::string_view kUpdate =
      R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$inc": {"n": 1}}}], "$db": "db"})";
  ASSERT_EQ(NumberAt(Run(WithSession(kUpdate, SessionId(1), 1)), "nModified"), 1);

  Restart();
  bson::Document retried = Run(WithSession(kUpdate, SessionId(1), 1));

  EXPECT_EQ(NumberAt(retried, "n"), 1) << retried.ToJson();
  EXPECT_EQ(NumberAt(retried, "nModified"), 1) << retried.ToJson();
  EXPECT_EQ(NumberAt(FindOne("c", R"({"_id": 1})"), "n"), 1);
}

TEST_F(RetryableWriteRecordsTest, OlderTxnNumberAfterARestartIsTransactionTooOld) {
  ASSERT_EQ(NumberAt(Run(WithSession(kInsertOne, SessionId(1), 3)), "n"), 1);

  Restart();
  bson::Document older = Run(
      WithSession(R"({"insert": "c", "documents": [{"_id": 2}], "$db": "db"})", SessionId(1), 2));

  EXPECT_EQ(NumberAt(older, "code"), static_cast<std::int64_t>(ErrorCode::kTransactionTooOld))
      << older.ToJson();
}

TEST_F(RetryableWriteRecordsTest, ANewerWritesFirstRecordDeletesTheOlderWritesRecords) {
  ASSERT_EQ(NumberAt(Run(WithSession(kInsertOne, SessionId(1), 1)), "n"), 1);
  ASSERT_EQ(RecordedTxns(SessionId(1)), Txns{1});

  ASSERT_EQ(NumberAt(Run(WithSession(R"({"insert": "c", "documents": [{"_id": 2}], "$db": "db"})",
                                     SessionId(1), 2)),
                     "n"),
            1);

  EXPECT_EQ(RecordedTxns(SessionId(1)), Txns{2});
}

TEST_F(RetryableWriteRecordsTest, RecordsOfOtherSessionsAreKept) {
  ASSERT_EQ(NumberAt(Run(WithSession(kInsertOne, SessionId(1), 1)), "n"), 1);

  ASSERT_EQ(NumberAt(Run(WithSession(R"({"insert": "c", "documents": [{"_id": 2}], "$db": "db"})",
                                     SessionId(2), 2)),
                     "n"),
            1);

  EXPECT_EQ(RecordedTxns(SessionId(1)), Txns{1});
  EXPECT_EQ(RecordedTxns(SessionId(2)), Txns{2});
}

TEST_F(RetryableWriteRecordsTest, EndSessionsDeletesTheSessionsRecords) {
  ASSERT_EQ(NumberAt(Run(WithSession(kInsertOne, SessionId(1), 1)), "n"), 1);
  ASSERT_EQ(RecordedTxns(SessionId(1)), Txns{1});

  ASSERT_EQ(NumberAt(Run(testing::SessionsCommand("endSessions", SessionId(1))), "ok"), 1);

  EXPECT_EQ(RecordedTxns(SessionId(1)), Txns{});
  // Nothing remembers the write any more: the same txnNumber runs the insert again.
  bson::Document again = Run(WithSession(kInsertOne, SessionId(1), 1));
  EXPECT_EQ(NumberAt(again, "writeErrors.0.code"),
            static_cast<std::int64_t>(ErrorCode::kDuplicateKey))
      << again.ToJson();
}

TEST_F(RetryableWriteRecordsTest, ForgetDeletesTheRecords) {
  ASSERT_EQ(NumberAt(Run(WithSession(kInsertOne, SessionId(1), 1)), "n"), 1);

  service_->sessions().retryable_writes().Forget(SessionId(1));

  EXPECT_EQ(RecordedTxns(SessionId(1)), Txns{});
}

TEST_F(RetryableWriteRecordsTest, AttachDropsTheRecordsOfSessionsIdlePastTheTimeout) {
  const std::int64_t idle_since =
      NowMillis() - std::chrono::duration_cast<std::chrono::milliseconds>(kSessionTimeout).count() -
      60'000;
  PutRecord(SessionId(1), 1, idle_since);
  PutRecord(SessionId(2), 1, NowMillis() - 60'000);

  Restart();

  EXPECT_EQ(RecordedTxns(SessionId(1)), Txns{});
  EXPECT_EQ(RecordedTxns(SessionId(2)), Txns{1});
  // Session 2's record still answers its retry: statement 0 counts as done and is not applied.
  bson::Document kept = Run(
      WithSession(R"({"insert": "c", "documents": [{"_id": 7}], "$db": "db"})", SessionId(2), 1));
  EXPECT_EQ(NumberAt(kept, "n"), 1) << kept.ToJson();
  EXPECT_EQ(CountDocs("c", R"({"_id": 7})"), 0);
  // Session 1's is gone: the same statement runs.
  bson::Document dropped = Run(
      WithSession(R"({"insert": "c", "documents": [{"_id": 8}], "$db": "db"})", SessionId(1), 1));
  EXPECT_EQ(NumberAt(dropped, "n"), 1) << dropped.ToJson();
  EXPECT_EQ(CountDocs("c", R"({"_id": 8})"), 1);
}

// Names with the write's number in them let records of two writes of a session coexist.
TEST_F(RetryableWriteRecordsTest, AttachDropsTheRecordsOfOlderWrites) {
  PutRecord(SessionId(1), 1, NowMillis(), /*numbered_name=*/true);
  PutRecord(SessionId(1), 2, NowMillis(), /*numbered_name=*/true);

  Restart();

  EXPECT_EQ(RecordedTxns(SessionId(1)), Txns{2});
}

TEST_F(RetryableWriteRecordsTest, AttachRenamesRecordsNamedTheEarlierWayAndTheyStillAnswer) {
  PutRecord(SessionId(1), 4, NowMillis() - 60'000, /*numbered_name=*/true);

  Restart();

  auto stored = engine_->meta().List("session/");
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  ASSERT_EQ(stored.value().size(), 1u);
  EXPECT_EQ(stored.value()[0].first, RecordName(SessionId(1), 0));
  EXPECT_EQ(RecordTxnNumber(stored.value()[0].second), 4);
  // Its statement 0 counts as done: the retry is answered without inserting.
  bson::Document retried = Run(
      WithSession(R"({"insert": "c", "documents": [{"_id": 7}], "$db": "db"})", SessionId(1), 4));
  EXPECT_EQ(NumberAt(retried, "n"), 1) << retried.ToJson();
  EXPECT_EQ(CountDocs("c", R"({"_id": 7})"), 0);
  // And an older number is still too old.
  bson::Document older = Run(WithSession(kInsertOne, SessionId(1), 3));
  EXPECT_EQ(NumberAt(older, "code"), static_cast<std::int64_t>(ErrorCode::kTransactionTooOld));
}

// A write of more statements than one commit chunk holds leaves several records; the session's
// next write replaces the first and deletes the others in its own first commit.
TEST_F(RetryableWriteRecordsTest, ANewerWriteReplacesAllRecordsOfAnOlderOneOfSeveral) {
  PutRecord(SessionId(1), 1, NowMillis());
  storage::WriteUnit more;
  for (std::uint32_t seq = 1; seq < 3; ++seq) {
    bson::DocumentBuilder b;
    b.AppendInt64("txn", 1).AppendDate("at", NowMillis());
    b.OpenArray("executed").AppendInt64("0", seq).AppendInt64("1", seq + 1).Close();
    more.PutMeta(RecordName(SessionId(1), seq), std::move(b).FinishBytes());
  }
  ASSERT_TRUE(engine_->pipeline().Commit(std::move(more), {}).ok());
  Restart();
  ASSERT_EQ(RecordedTxns(SessionId(1)), (Txns{1, 1, 1}));

  ASSERT_EQ(NumberAt(Run(WithSession(kInsertOne, SessionId(1), 2)), "n"), 1);

  EXPECT_EQ(RecordedTxns(SessionId(1)), Txns{2});
}

TEST_F(RetryableWriteRecordsTest, SecondAttemptOfASessionWaitsForTheFirst) {
  RetryableWrites& writes = service_->sessions().retryable_writes();
  auto first = writes.Begin(SessionId(1), 1);
  ASSERT_TRUE(first.ok()) << first.status().ToString();

  std::promise<void> second_began;
  std::future<void> began = second_began.get_future();
  std::thread retry([&] {
    auto second = writes.Begin(SessionId(1), 1);
    EXPECT_TRUE(second.ok()) << second.status().ToString();
    second_began.set_value();
  });

  EXPECT_EQ(began.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout);
  first.value().reset();
  EXPECT_EQ(began.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  retry.join();
}

// endSessions from another connection while a retry waits for the attempt it repeats: the retry
// must look the session up again when it wakes, as Forget may have erased it (a sanitizer build,
// QUARRY_SANITIZE, reports the use after free that holding on to the entry would be).
TEST_F(RetryableWriteRecordsTest, SessionEndedWhileARetryWaitsLetsTheRetryRun) {
  for (int round = 0; round < 50; ++round) {
    RetryableWrites writes;
    auto first = writes.Begin(SessionId(1), 1);
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    std::thread retry([&writes] {
      auto second = writes.Begin(SessionId(1), 1);
      EXPECT_TRUE(second.ok()) << second.status().ToString();
    });
    std::thread end([&writes] { writes.Forget(SessionId(1)); });
    // Gives both threads time to wait for the session; the test holds whichever order they take.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    first.value().reset();
    retry.join();
    end.join();
  }
}

TEST_F(RetryableWriteRecordsTest, AttemptsOfOtherSessionsDoNotWait) {
  RetryableWrites& writes = service_->sessions().retryable_writes();
  auto first = writes.Begin(SessionId(1), 1);
  ASSERT_TRUE(first.ok()) << first.status().ToString();

  auto other = writes.Begin(SessionId(2), 1);

  EXPECT_TRUE(other.ok()) << other.status().ToString();
}

}  // namespace
}  // namespace quarry::server
