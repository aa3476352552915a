// Transactions as serverStatus and currentOp see them: transactions started, committed and
// aborted (each once, whatever ends it), those open and those with a command running, and each
// open one's time split into active and idle.
#include "server/sessions/transactions.h"

#include <gtest/gtest.h>

#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "server_test_util.h"

namespace quarry::server {
namespace {

using testing::Doc;
using testing::SessionId;

class TransactionsTest : public testing::ServerFixture {
 protected:
  Transactions& transactions() { return service_->sessions().transactions(); }
  const commands::TransactionMetrics& metrics() const { return state_->transactions; }

  static std::string Key(int session) { return SessionId(session) + std::string(32, 'u'); }

  // A command of transaction `txn_number` of session `session`.
  TransactionRequest Request(int session, std::int64_t txn_number, std::string_view command,
                             bool start = false) {
    bson::DocumentBuilder lsid;
    lsid.AppendBinary("id", 4, SessionId(session));
    lsids_.push_back(std::move(lsid).Finish());
    TransactionRequest request;
    request.session_id = Key(session);
    request.lsid = lsids_.back().view();
    request.txn_number = txn_number;
    request.start = start;
    request.command = command;
    request.commit = command == "commitTransaction";
    request.abort = command == "abortTransaction";
    request.read_concern = Doc(R"({"level": "snapshot", "provenance": "clientSupplied"})");
    request.reads_snapshot = true;
    request.client.id = 7;
    request.client.remote = "127.0.0.1:40000";
    return request;
  }

  // Runs one command of a transaction to its end with `status`.
  void Run(const TransactionRequest& request, const Status& status = Status::OK()) {
    auto statement = transactions().Enter(request, nullptr);
    ASSERT_TRUE(statement.ok()) << statement.status().ToString();
    statement.value()->Finish(status);
  }

  void ExpectCounts(std::int64_t started, std::int64_t committed, std::int64_t aborted,
                    std::int64_t open, std::int64_t active) {
    EXPECT_EQ(metrics().total_started.load(), started);
    EXPECT_EQ(metrics().total_committed.load(), committed);
    EXPECT_EQ(metrics().total_aborted.load(), aborted);
    EXPECT_EQ(metrics().current_open.load(), open);
    EXPECT_EQ(metrics().current_active.load(), active);
  }

  std::deque<bson::Document> lsids_;  // the lsids the requests view
};

TEST_F(TransactionsTest, CountsEachTransactionOnceWhateverEndsIt) {
  // A statement running counts the transaction active, and open once it is idle.
  auto first = transactions().Enter(Request(1, 1, "insert", /*start=*/true), nullptr);
  ASSERT_TRUE(first.ok());
  ExpectCounts(1, 0, 0, 1, 1);
  first.value()->Finish(Status::OK());
  ExpectCounts(1, 0, 0, 1, 0);

  // A commit, and the same commit retried.
  Run(Request(1, 1, "commitTransaction"));
  ExpectCounts(1, 1, 0, 0, 0);
  Run(Request(1, 1, "commitTransaction"));
  ExpectCounts(1, 1, 0, 0, 0);

  // A failed statement aborts its transaction.
  Run(Request(2, 1, "insert", true), Status(ErrorCode::kDuplicateKey, "E11000"));
  ExpectCounts(2, 1, 1, 0, 0);

  // A newer transaction of the session aborts the open one; abortTransaction ends it.
  Run(Request(3, 1, "insert", true));
  Run(Request(3, 2, "insert", true));
  ExpectCounts(4, 1, 2, 1, 0);
  Run(Request(3, 2, "abortTransaction"));
  ExpectCounts(4, 1, 3, 0, 0);

  // killSessions, endSessions and expiry abort it from outside.
  Run(Request(4, 1, "insert", true));
  transactions().Abort(Key(4));
  ExpectCounts(5, 1, 4, 0, 0);
  transactions().Abort(Key(4));
  ExpectCounts(5, 1, 4, 0, 0);
}

TEST_F(TransactionsTest, ListsOpenTransactionsWithTheirActiveAndIdleTime) {
  auto running = transactions().Enter(Request(1, 5, "insert", /*start=*/true), nullptr);
  ASSERT_TRUE(running.ok());
  std::vector<commands::OpenTransaction> open = transactions().List();
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].session_key, Key(1));
  EXPECT_EQ(open[0].txn_number, 5);
  EXPECT_TRUE(open[0].active);
  EXPECT_EQ(open[0].read_concern.view().ToJson(),
            Doc(R"({"level": "snapshot", "provenance": "clientSupplied"})").view().ToJson());
  EXPECT_EQ(open[0].last_client.id, 7);
  EXPECT_EQ(open[0].last_client.remote, "127.0.0.1:40000");
  EXPECT_EQ(open[0].expiry_wall_ms - open[0].start_wall_ms, 60 * 1000);
  EXPECT_LE(open[0].active_micros, open[0].open_micros);
  running.value()->Finish(Status::OK());

  // Idle, its open time grows and its active time does not.
  const commands::OpenTransaction idle = transactions().List().at(0);
  EXPECT_FALSE(idle.active);
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const commands::OpenTransaction later = transactions().List().at(0);
  EXPECT_EQ(later.active_micros, idle.active_micros);
  EXPECT_GT(later.open_micros, idle.open_micros);
  EXPECT_EQ(later.start_wall_ms, idle.start_wall_ms);

  Run(Request(1, 5, "commitTransaction"));
  EXPECT_TRUE(transactions().List().empty());
}

TEST_F(TransactionsTest, ForgettingASessionAbortsItsTransactionAndDropsItsNumbers) {
  Run(Request(1, 5, "insert", /*start=*/true));
  transactions().Forget(Key(1));
  ExpectCounts(1, 0, 1, 0, 0);
  EXPECT_EQ(transactions().LatestNumber(Key(1)), -1);

  // A session with a command running is kept; a command waiting for that one finds the
  // session whether or not it was forgotten in between.
  auto running = transactions().Enter(Request(2, 1, "insert", /*start=*/true), nullptr);
  ASSERT_TRUE(running.ok());
  transactions().Forget(Key(2));
  EXPECT_EQ(transactions().LatestNumber(Key(2)), 1);
  std::thread waiter([&] { Run(Request(2, 2, "insert", /*start=*/true)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  running.value()->Finish(Status::OK());
  transactions().Forget(Key(2));
  waiter.join();
  const std::int64_t latest = transactions().LatestNumber(Key(2));
  EXPECT_TRUE(latest == -1 || latest == 2) << latest;
}

}  // namespace
}  // namespace quarry::server
