// The fail points as drivers' specification tests use them, through configureFailPoint and
// dispatch: what a client sees of a command a fail point hits.
#include "server/testing/fail_points.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "server_test_util.h"

namespace quarry::server {
namespace {

using testing::Doc;
using testing::NumberAt;
using testing::SessionId;
using testing::WithSession;

constexpr std::string_view kInsertOne =
    R"({"insert": "c", "documents": [{"_id": 1}], "$db": "db"})";

class FailPointsTest : public testing::ServerFixture {
 protected:
  // configureFailPoint `name` with `mode_and_data` ({"mode": ..., "data": ...} as JSON).
  bson::Document ConfigureFailPoint(std::string_view name, std::string_view mode_and_data) {
    bson::DocumentBuilder b;
    b.AppendString("configureFailPoint", name);
    b.AppendElements(Doc(mode_and_data));
    b.AppendString("$db", "admin");
    return Run(std::move(b).Finish());
  }
  void Configure(std::string_view name, std::string_view mode_and_data) {
    bson::Document reply = ConfigureFailPoint(name, mode_and_data);
    ASSERT_EQ(NumberAt(reply, "ok"), 1) << reply.ToJson();
  }
};

TEST_F(FailPointsTest, ConfigureFailPointRefusesUnknownNames) {
  bson::Document reply = ConfigureFailPoint("noSuchFailPoint", R"({"mode": "alwaysOn"})");

  EXPECT_EQ(NumberAt(reply, "code"), static_cast<std::int64_t>(ErrorCode::kBadValue))
      << reply.ToJson();
}

TEST_F(FailPointsTest, ConfigureFailPointIsUnknownWithoutTestCommands) {
  Close();
  enable_test_commands_ = false;
  Open();

  bson::Document reply = ConfigureFailPoint(
      "failCommand", R"({"mode": "alwaysOn", "data": {"failCommands": ["ping"]}})");

  EXPECT_EQ(NumberAt(reply, "code"), static_cast<std::int64_t>(ErrorCode::kCommandNotFound))
      << reply.ToJson();
  EXPECT_EQ(NumberAt(Run(R"({"ping": 1})"), "ok"), 1);
}

TEST_F(FailPointsTest, FailCommandFailsTheNamedCommandWithItsErrorCodeBeforeItRuns) {
  Configure("failCommand",
            R"({"mode": "alwaysOn", "data": {"failCommands": ["insert"], "errorCode": 2}})");

  bson::Document reply = Run(kInsertOne);

  EXPECT_EQ(NumberAt(reply, "ok"), 0) << reply.ToJson();
  EXPECT_EQ(NumberAt(reply, "code"), static_cast<std::int64_t>(ErrorCode::kBadValue));
  EXPECT_EQ(NumberAt(Run(R"({"ping": 1})"), "ok"), 1);
  EXPECT_EQ(CountDocs("c"), 0);
}

TEST_F(FailPointsTest, FailCommandNeverHitsConfigureFailPoint) {
  Configure("failCommand", R"({"mode": "alwaysOn",
                               "data": {"failCommands": ["configureFailPoint"], "errorCode": 2}})");

  bson::Document off = ConfigureFailPoint("failCommand", R"({"mode": "off"})");

  EXPECT_EQ(NumberAt(off, "ok"), 1) << off.ToJson();
}

TEST_F(FailPointsTest, FailCommandTimesFailsThatManyCommands) {
  Configure("failCommand",
            R"({"mode": {"times": 1}, "data": {"failCommands": ["insert"], "errorCode": 2}})");

  EXPECT_EQ(NumberAt(Run(kInsertOne), "ok"), 0);
  EXPECT_EQ(NumberAt(Run(kInsertOne), "n"), 1);
}

TEST_F(FailPointsTest, FailCommandWithAnAppNameHitsOnlyThatClient) {
  Configure("failCommand", R"({"mode": "alwaysOn", "data": {"failCommands": ["insert"],
                               "errorCode": 2, "appName": "tested"}})");
  std::unique_ptr<wire::ConnectionHandler> tested = service_->NewClient(2, "127.0.0.1:50002");
  ASSERT_EQ(NumberAt(Run(*tested, Doc(R"({"hello": 1, "client": {"application": {"name": "tested"}},
                                          "$db": "admin"})")),
                     "ok"),
            1);

  EXPECT_EQ(NumberAt(Run(*tested, Doc(kInsertOne)), "ok"), 0);
  EXPECT_EQ(NumberAt(Run(kInsertOne), "n"), 1);
}

TEST_F(FailPointsTest, CloseConnectionSendsNoReplyAndClosesWithoutRunning) {
  Configure(
      "failCommand",
      R"({"mode": "alwaysOn", "data": {"failCommands": ["insert"], "closeConnection": true}})");

  wire::Response response = Send(Doc(kInsertOne));

  EXPECT_FALSE(response.send);
  EXPECT_TRUE(response.close_after);
  EXPECT_EQ(CountDocs("c"), 0);
}

TEST_F(FailPointsTest, WriteConcernErrorIsReportedAfterTheWriteApplies) {
  Configure("failCommand", R"({"mode": "alwaysOn", "data": {"failCommands": ["insert"],
      "writeConcernError": {"code": 91, "codeName": "ShutdownInProgress",
                            "errmsg": "stopping"}}})");

  bson::Document reply = Run(WithSession(kInsertOne, SessionId(1), 1));

  EXPECT_EQ(NumberAt(reply, "ok"), 1) << reply.ToJson();
  EXPECT_EQ(NumberAt(reply, "n"), 1);
  EXPECT_EQ(NumberAt(reply, "writeConcernError.code"), 91);
  EXPECT_EQ(testing::Strings(reply, "errorLabels"),
            std::vector<std::string>{"RetryableWriteError"});
  EXPECT_EQ(CountDocs("c"), 1);
}

TEST_F(FailPointsTest, ErrorLabelsReplaceTheLabelsDispatchWouldAdd) {
  Configure("failCommand", R"({"mode": "alwaysOn", "data": {"failCommands": ["insert"],
                               "errorCode": 91, "errorLabels": ["Custom"]}})");

  bson::Document reply = Run(WithSession(kInsertOne, SessionId(1), 1));

  EXPECT_EQ(NumberAt(reply, "code"), 91) << reply.ToJson();
  EXPECT_EQ(testing::Strings(reply, "errorLabels"), std::vector<std::string>{"Custom"});
}

TEST_F(FailPointsTest, BlockConnectionDelaysTheCommand) {
  Configure("failCommand", R"({"mode": {"times": 1}, "data": {"failCommands": ["ping"],
                               "blockConnection": true, "blockTimeMS": 60}})");

  const auto started = std::chrono::steady_clock::now();
  bson::Document reply = Run(R"({"ping": 1})");
  const auto elapsed = std::chrono::steady_clock::now() - started;

  EXPECT_EQ(NumberAt(reply, "ok"), 1) << reply.ToJson();
  EXPECT_GE(elapsed, std::chrono::milliseconds(60));
}

TEST_F(FailPointsTest, OnPrimaryTransactionalWriteClosesAfterTheWriteCommits) {
  Configure("onPrimaryTransactionalWrite", R"({"mode": {"times": 1}})");

  wire::Response response = Send(WithSession(kInsertOne, SessionId(1), 1));

  EXPECT_FALSE(response.send);
  EXPECT_TRUE(response.close_after);
  EXPECT_EQ(CountDocs("c"), 1);
  // The driver's retry finds the statement executed.
  bson::Document retried = Run(WithSession(kInsertOne, SessionId(1), 1));
  EXPECT_EQ(NumberAt(retried, "n"), 1) << retried.ToJson();
  EXPECT_FALSE(retried.view().Has("writeErrors")) << retried.ToJson();
}

TEST_F(FailPointsTest, OnPrimaryTransactionalWriteFailsBeforeCommitWithTheGivenCode) {
  Configure("onPrimaryTransactionalWrite",
            R"({"mode": {"times": 1}, "data": {"failBeforeCommitExceptionCode": 91}})");

  wire::Response response = Send(WithSession(kInsertOne, SessionId(1), 1));

  EXPECT_FALSE(response.send);
  EXPECT_TRUE(response.close_after);
  EXPECT_EQ(CountDocs("c"), 0);
  // Nothing executed: the retry inserts the document.
  EXPECT_EQ(NumberAt(Run(WithSession(kInsertOne, SessionId(1), 1)), "n"), 1);
  EXPECT_EQ(CountDocs("c"), 1);
}

TEST_F(FailPointsTest, OnPrimaryTransactionalWriteWithoutCloseConnectionRepliesWithTheError) {
  Configure("onPrimaryTransactionalWrite", R"({"mode": {"times": 1},
      "data": {"failBeforeCommitExceptionCode": 91, "closeConnection": false}})");

  wire::Response response = Send(WithSession(kInsertOne, SessionId(1), 1));

  ASSERT_TRUE(response.send);
  EXPECT_FALSE(response.close_after);
  EXPECT_EQ(NumberAt(response.body, "code"), 91) << response.body.ToJson();
  EXPECT_EQ(testing::Strings(response.body, "errorLabels"),
            std::vector<std::string>{"RetryableWriteError"});
  EXPECT_EQ(CountDocs("c"), 0);
}

TEST_F(FailPointsTest, OnPrimaryTransactionalWriteIgnoresWritesThatAreNotRetryable) {
  Configure("onPrimaryTransactionalWrite", R"({"mode": "alwaysOn"})");

  bson::Document reply = Run(kInsertOne);

  EXPECT_EQ(NumberAt(reply, "n"), 1) << reply.ToJson();
}

TEST_F(FailPointsTest, FailGetMoreAfterCursorCheckoutFailsTheGetMore) {
  ASSERT_EQ(NumberAt(Run(R"({"insert": "c", "documents": [{"_id": 1}, {"_id": 2}]})"), "n"), 2);
  bson::Document found = Run(R"({"find": "c", "batchSize": 1})");
  const std::int64_t cursor_id = NumberAt(found, "cursor.id");
  ASSERT_GT(cursor_id, 0) << found.ToJson();
  Configure("failGetMoreAfterCursorCheckout",
            R"({"mode": {"times": 1}, "data": {"errorCode": 237}})");

  bson::DocumentBuilder get_more;
  get_more.AppendInt64("getMore", cursor_id).AppendString("collection", "c");
  bson::Document reply = Run(std::move(get_more).Finish());

  EXPECT_EQ(NumberAt(reply, "ok"), 0) << reply.ToJson();
  EXPECT_EQ(NumberAt(reply, "code"), 237);
}

}  // namespace
}  // namespace quarry::server
