// Dispatch through Client::Handle: which requests reach a command, and the shape of the error
// a client gets for those that do not.
#include "server/service.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "server_test_util.h"

namespace quarry::server {
namespace {

using testing::Doc;
using testing::NumberAt;
using testing::WithSession;

class ServiceTest : public testing::ServerFixture {
 protected:
  // What an OP_QUERY `command` on namespace `ns` gets back.
  bson::Document RunOverOpQuery(std::string_view ns, const bson::Document& command) {
    wire::Request request;
    request.op_code = wire::OpCode::kQuery;
    request.full_collection_name = ns;
    request.number_to_return = -1;
    request.body = command.view();
    return client_->Handle(request).body;
  }

  // Every insert fails with ShutdownInProgress, a retriable error.
  void FailInsertsWithShutdownInProgress() {
    bson::Document reply = Run(R"({"configureFailPoint": "failCommand", "mode": "alwaysOn",
                                   "data": {"failCommands": ["insert"], "errorCode": 91},
                                   "$db": "admin"})");
    ASSERT_EQ(NumberAt(reply, "ok"), 1) << reply.ToJson();
  }
};

void ExpectError(const bson::Document& reply, ErrorCode code) {
  EXPECT_EQ(NumberAt(reply, "ok"), 0) << reply.ToJson();
  EXPECT_EQ(NumberAt(reply, "code"), static_cast<std::int64_t>(code)) << reply.ToJson();
  ASSERT_EQ(reply.Get("codeName").type(), bson::Type::kString) << reply.ToJson();
  EXPECT_EQ(reply.Get("codeName").String(), ErrorCodeName(code));
}

TEST_F(ServiceTest, UnknownCommandIsCommandNotFoundAndCountedAsUnknown) {
  const std::int64_t unknown_before = StatusNumber("metrics.commands.<UNKNOWN>");

  bson::Document reply = Run(R"({"frobnicate": 1})");

  ExpectError(reply, ErrorCode::kCommandNotFound);
  ASSERT_EQ(reply.Get("errmsg").type(), bson::Type::kString);
  EXPECT_NE(reply.Get("errmsg").String().find("frobnicate"), std::string_view::npos);
  EXPECT_EQ(StatusNumber("metrics.commands.<UNKNOWN>"), unknown_before + 1);
}

TEST_F(ServiceTest, OpMsgWithoutDbIsRejectedWith40571) {
  wire::Response response = Send(Doc(R"({"ping": 1})"));

  ASSERT_TRUE(response.send);
  EXPECT_EQ(NumberAt(response.body, "ok"), 0) << response.body.ToJson();
  EXPECT_EQ(NumberAt(response.body, "code"), 40571) << response.body.ToJson();
}

TEST_F(ServiceTest, OpMsgWithoutDbIsNotCountedAsAnUnknownCommand) {
  const std::int64_t unknown_before = StatusNumber("metrics.commands.<UNKNOWN>");

  (void)Send(Doc(R"({"ping": 1})"));

  EXPECT_EQ(StatusNumber("metrics.commands.<UNKNOWN>"), unknown_before);
}

TEST_F(ServiceTest, EmptyCommandDocumentIsFailedToParse) {
  ExpectError(Send(Doc("{}")).body, ErrorCode::kFailedToParse);
}

TEST_F(ServiceTest, OpQueryRunsHandshakeCommands) {
  bson::Document reply = RunOverOpQuery("admin.$cmd", Doc(R"({"isMaster": 1})"));

  EXPECT_EQ(NumberAt(reply, "ok"), 1) << reply.ToJson();
  EXPECT_TRUE(reply.Get("ismaster").Truthy()) << reply.ToJson();
}

TEST_F(ServiceTest, OpQueryRefusesCommandsOutsideTheHandshake) {
  bson::Document reply = RunOverOpQuery("db.$cmd", Doc(R"({"insert": "c", "documents": [{}]})"));

  ExpectError(reply, ErrorCode::kUnsupportedOpQueryCommand);
  EXPECT_EQ(CountDocs("c"), 0);
}

TEST_F(ServiceTest, OpQueryOnACollectionNamespaceIsRefused) {
  ExpectError(RunOverOpQuery("db.c", Doc(R"({"isMaster": 1})")),
              ErrorCode::kUnsupportedOpQueryCommand);
}

TEST_F(ServiceTest, AdminOnlyCommandOutsideAdminIsUnauthorized) {
  ExpectError(Run(R"({"listDatabases": 1, "$db": "db"})"), ErrorCode::kUnauthorized);

  EXPECT_EQ(NumberAt(Run(R"({"listDatabases": 1, "$db": "admin"})"), "ok"), 1);
}

TEST_F(ServiceTest, TransactionWritesAppearOnlyAtCommit) {
  bson::Document inserted = Run(WithSession(
      R"({"insert": "c", "documents": [{"_id": 1}], "startTransaction": true,
          "autocommit": false, "$db": "db"})",
      testing::SessionId(1), 1));
  ASSERT_EQ(NumberAt(inserted, "ok"), 1) << inserted.ToJson();
  EXPECT_EQ(CountDocs("c"), 0);

  bson::Document committed =
      Run(WithSession(R"({"commitTransaction": 1, "autocommit": false, "$db": "admin"})",
                      testing::SessionId(1), 1));

  ASSERT_EQ(NumberAt(committed, "ok"), 1) << committed.ToJson();
  EXPECT_EQ(CountDocs("c"), 1);
}

TEST_F(ServiceTest, AbortedTransactionWritesNothing) {
  (void)Run(WithSession(
      R"({"insert": "c", "documents": [{"_id": 1}], "startTransaction": true,
          "autocommit": false, "$db": "db"})",
      testing::SessionId(1), 1));

  bson::Document aborted = Run(WithSession(
      R"({"abortTransaction": 1, "autocommit": false, "$db": "admin"})", testing::SessionId(1), 1));
  bson::Document commit_after =
      Run(WithSession(R"({"commitTransaction": 1, "autocommit": false, "$db": "admin"})",
                      testing::SessionId(1), 1));

  EXPECT_EQ(NumberAt(aborted, "ok"), 1) << aborted.ToJson();
  ExpectError(commit_after, ErrorCode::kNoSuchTransaction);
  EXPECT_EQ(CountDocs("c"), 0);
}

TEST_F(ServiceTest, AutocommitWithoutTxnNumberIsInvalidOptions) {
  ExpectError(Run(R"({"find": "c", "autocommit": false, "$db": "db"})"),
              ErrorCode::kInvalidOptions);
}

TEST_F(ServiceTest, ErrorReplyHasExactlyMongodsErrorFields) {
  bson::Document reply = Run(R"({"insert": "c", "documents": "not an array"})");

  ExpectError(reply, ErrorCode::kTypeMismatch);
  EXPECT_EQ(reply.Get("ok").type(), bson::Type::kDouble);
  EXPECT_EQ(reply.Get("code").type(), bson::Type::kInt32);
  EXPECT_EQ(reply.Get("errmsg").type(), bson::Type::kString);
  std::set<std::string> fields;
  for (const bson::Element& e : reply.view()) fields.emplace(e.key);
  EXPECT_EQ(fields, (std::set<std::string>{"ok", "errmsg", "code", "codeName"}));
}

TEST_F(ServiceTest, RetriableErrorOfARetryableWriteIsLabelledRetryableWriteError) {
  FailInsertsWithShutdownInProgress();

  bson::Document reply = Run(
      WithSession(R"({"insert": "c", "documents": [{}], "$db": "db"})", testing::SessionId(1), 1));

  ExpectError(reply, ErrorCode::kShutdownInProgress);
  EXPECT_EQ(testing::Strings(reply, "errorLabels"), std::vector<std::string>{"RetryableWriteError"})
      << reply.ToJson();
}

TEST_F(ServiceTest, ErrorOutsideARetryableWriteHasNoLabels) {
  FailInsertsWithShutdownInProgress();

  bson::Document reply = Run(R"({"insert": "c", "documents": [{}]})");

  ExpectError(reply, ErrorCode::kShutdownInProgress);
  EXPECT_FALSE(reply.view().Has("errorLabels")) << reply.ToJson();
}

TEST_F(ServiceTest, NonRetriableErrorOfARetryableWriteHasNoLabels) {
  bson::Document reply = Run(
      WithSession(R"({"insert": "c", "documents": "x", "$db": "db"})", testing::SessionId(1), 1));

  ExpectError(reply, ErrorCode::kTypeMismatch);
  EXPECT_FALSE(reply.view().Has("errorLabels")) << reply.ToJson();
}

TEST_F(ServiceTest, SuccessfulReplyHasOkOne) {
  bson::Document reply = Run(R"({"ping": 1})");

  EXPECT_EQ(reply.Get("ok").type(), bson::Type::kDouble);
  EXPECT_EQ(NumberAt(reply, "ok"), 1);
}

}  // namespace
}  // namespace quarry::server
