// What dispatch counts once a command ran, as serverStatus and getLastError show it to a client:
// opcounters, metrics.commands, the last write of a connection, and w:0 errors.
#include "server/accounting.h"

#include <gtest/gtest.h>

#include <string>

#include "server_test_util.h"
#include "wire/request.h"

namespace quarry::server {
namespace {

using testing::Doc;
using testing::NumberAt;

class AccountingTest : public testing::ServerFixture {
 protected:
  bson::Document ServerStatus() { return Run(R"({"serverStatus": 1, "$db": "admin"})"); }
};

TEST_F(AccountingTest, CommandCountersMoveForTheCommandThatRanOnly) {
  bson::Document before = ServerStatus();

  ASSERT_EQ(NumberAt(Run(R"({"insert": "c", "documents": [{"_id": 1}]})"), "ok"), 1);
  ASSERT_EQ(NumberAt(Run(R"({"insert": "c", "documents": "not an array"})"), "ok"), 0);

  bson::Document after = ServerStatus();
  EXPECT_EQ(NumberAt(after, "metrics.commands.insert.total"),
            NumberAt(before, "metrics.commands.insert.total") + 2);
  EXPECT_EQ(NumberAt(after, "metrics.commands.insert.failed"),
            NumberAt(before, "metrics.commands.insert.failed") + 1);
  EXPECT_EQ(NumberAt(after, "metrics.commands.find.total"),
            NumberAt(before, "metrics.commands.find.total"));
  EXPECT_EQ(NumberAt(after, "metrics.commands.delete.failed"),
            NumberAt(before, "metrics.commands.delete.failed"));
}

TEST_F(AccountingTest, WriteErrorsInAnOkReplyDoNotCountAsAFailedCommand) {
  ASSERT_EQ(NumberAt(Run(R"({"insert": "c", "documents": [{"_id": 1}]})"), "ok"), 1);
  const std::int64_t failed_before = StatusNumber("metrics.commands.insert.failed");

  bson::Document reply = Run(R"({"insert": "c", "documents": [{"_id": 1}]})");

  ASSERT_TRUE(reply.view().Has("writeErrors")) << reply.ToJson();
  EXPECT_EQ(StatusNumber("metrics.commands.insert.failed"), failed_before);
}

TEST_F(AccountingTest, InsertOpcounterCountsTheDocumentsInserted) {
  ASSERT_EQ(NumberAt(Run(R"({"insert": "c", "documents": [{"_id": 1}]})"), "ok"), 1);
  const std::int64_t before = StatusNumber("opcounters.insert");

  bson::Document reply = Run(R"({"insert": "c", "ordered": false,
                                 "documents": [{"_id": 1}, {"_id": 2}, {"_id": 3}]})");

  ASSERT_EQ(NumberAt(reply, "n"), 2) << reply.ToJson();
  EXPECT_EQ(StatusNumber("opcounters.insert"), before + 2);
}

TEST_F(AccountingTest, UpdateOpcounterCountsStatements) {
  ASSERT_EQ(NumberAt(Run(R"({"insert": "c", "documents": [{"_id": 1}]})"), "ok"), 1);
  const std::int64_t before = StatusNumber("opcounters.update");

  // One statement matches, one matches nothing: both are statements.
  bson::Document reply = Run(R"({"update": "c", "updates": [
      {"q": {"_id": 1}, "u": {"$set": {"a": 1}}},
      {"q": {"_id": 99}, "u": {"$set": {"a": 1}}}]})");

  ASSERT_EQ(NumberAt(reply, "n"), 1) << reply.ToJson();
  EXPECT_EQ(StatusNumber("opcounters.update"), before + 2);
}

TEST_F(AccountingTest, DeleteOpcounterCountsStatements) {
  ASSERT_EQ(NumberAt(Run(R"({"insert": "c", "documents": [{"_id": 1}, {"_id": 2}]})"), "ok"), 1);
  const std::int64_t before = StatusNumber("opcounters.delete");

  bson::Document reply = Run(R"({"delete": "c", "deletes": [
      {"q": {"_id": 1}, "limit": 1}, {"q": {"_id": 2}, "limit": 1},
      {"q": {"_id": 3}, "limit": 1}]})");

  ASSERT_EQ(NumberAt(reply, "n"), 2) << reply.ToJson();
  EXPECT_EQ(StatusNumber("opcounters.delete"), before + 3);
}

TEST_F(AccountingTest, FindCountsAsQueryGetMoreAsGetmoreOthersAsCommand) {
  ASSERT_EQ(
      NumberAt(Run(R"({"insert": "c", "documents": [{"_id": 1}, {"_id": 2}, {"_id": 3}]})"), "ok"),
      1);
  bson::Document before = ServerStatus();

  bson::Document found = Run(R"({"find": "c", "batchSize": 1})");
  const std::int64_t cursor_id = NumberAt(found, "cursor.id");
  ASSERT_GT(cursor_id, 0) << found.ToJson();
  bson::DocumentBuilder get_more;
  get_more.AppendInt64("getMore", cursor_id).AppendString("collection", "c");
  ASSERT_EQ(NumberAt(Run(std::move(get_more).Finish()), "ok"), 1);
  ASSERT_EQ(NumberAt(Run(R"({"ping": 1})"), "ok"), 1);
  ASSERT_EQ(NumberAt(Run(R"({"count": "c"})"), "ok"), 1);

  bson::Document after = ServerStatus();
  EXPECT_EQ(NumberAt(after, "opcounters.query"), NumberAt(before, "opcounters.query") + 1);
  EXPECT_EQ(NumberAt(after, "opcounters.getmore"), NumberAt(before, "opcounters.getmore") + 1);
  // ping, count, and the serverStatus that read `before`.
  EXPECT_EQ(NumberAt(after, "opcounters.command"), NumberAt(before, "opcounters.command") + 3);
}

TEST_F(AccountingTest, GetLastErrorReportsTheFirstErrorAndN) {
  bson::Document inserted = Run(R"({"insert": "c", "ordered": false, "documents": [
      {"_id": 1}, {"_id": 1}, {"_id": 2}, {"_id": 2}]})");
  ASSERT_EQ(NumberAt(inserted, "n"), 2) << inserted.ToJson();
  bson::ValueView first_error = bson::GetPath(inserted, "writeErrors.0.errmsg");
  ASSERT_EQ(first_error.type(), bson::Type::kString) << inserted.ToJson();
  ASSERT_NE(bson::GetPath(inserted, "writeErrors.1.errmsg").String(), first_error.String());

  bson::Document last = Run(R"({"getLastError": 1})");

  ASSERT_EQ(last.Get("err").type(), bson::Type::kString) << last.ToJson();
  EXPECT_EQ(last.Get("err").String(), first_error.String());
  EXPECT_EQ(NumberAt(last, "code"), static_cast<std::int64_t>(ErrorCode::kDuplicateKey));
  EXPECT_EQ(NumberAt(last, "n"), 2);
}

TEST_F(AccountingTest, GetLastErrorAfterASuccessfulWriteHasNoError) {
  ASSERT_EQ(NumberAt(Run(R"({"insert": "c", "documents": [{"_id": 1}, {"_id": 2}]})"), "ok"), 1);

  bson::Document last = Run(R"({"getLastError": 1})");

  EXPECT_EQ(last.Get("err").type(), bson::Type::kNull) << last.ToJson();
  EXPECT_EQ(NumberAt(last, "n"), 2);
}

TEST_F(AccountingTest, GetLastErrorReportsAnUpsertedId) {
  ASSERT_EQ(NumberAt(Run(R"({"update": "c", "updates": [
                             {"q": {"_id": 7}, "u": {"$set": {"a": 1}}, "upsert": true}]})"),
                     "ok"),
            1);

  bson::Document last = Run(R"({"getLastError": 1})");

  EXPECT_EQ(NumberAt(last, "upserted"), 7) << last.ToJson();
  EXPECT_EQ(NumberAt(last, "n"), 1);
  EXPECT_FALSE(last.Get("updatedExisting").Truthy()) << last.ToJson();
}

TEST_F(AccountingTest, GetLastErrorIsPerConnection) {
  ASSERT_EQ(NumberAt(Run(R"({"insert": "c", "documents": [{"_id": 1}, {"_id": 1}]})"), "ok"), 1);
  std::unique_ptr<wire::ConnectionHandler> other = service_->NewClient(2, "127.0.0.1:50002");

  bson::Document last = Run(*other, Doc(R"({"getLastError": 1, "$db": "db"})"));

  EXPECT_EQ(last.Get("err").type(), bson::Type::kNull) << last.ToJson();
  EXPECT_EQ(NumberAt(last, "n"), 0);
}

TEST_F(AccountingTest, UnacknowledgedWriteWithErrorsSendsNoReplyAndCountsThem) {
  ASSERT_EQ(NumberAt(Run(R"({"insert": "c", "documents": [{"_id": 1}, {"_id": 2}]})"), "ok"), 1);
  const std::int64_t before = StatusNumber("metrics.quarry.unacknowledgedWriteErrors");

  wire::Response response =
      Send(Doc(R"({"insert": "c", "ordered": false, "writeConcern": {"w": 0}, "$db": "db",
              "documents": [{"_id": 1}, {"_id": 2}, {"_id": 3}]})"),
           wire::kMoreToCome);

  EXPECT_FALSE(response.send);
  EXPECT_EQ(StatusNumber("metrics.quarry.unacknowledgedWriteErrors"), before + 2);
  EXPECT_EQ(CountDocs("c"), 3);
  // getLastError is how a w:0 client learns what went wrong.
  bson::Document last = Run(R"({"getLastError": 1})");
  EXPECT_EQ(NumberAt(last, "code"), static_cast<std::int64_t>(ErrorCode::kDuplicateKey))
      << last.ToJson();
}

TEST_F(AccountingTest, UnacknowledgedCommandFailureIsCounted) {
  const std::int64_t before = StatusNumber("metrics.quarry.unacknowledgedWriteErrors");

  wire::Response response =
      Send(Doc(R"({"insert": "c", "documents": "x", "writeConcern": {"w": 0}, "$db": "db"})"),
           wire::kMoreToCome);

  EXPECT_FALSE(response.send);
  EXPECT_EQ(StatusNumber("metrics.quarry.unacknowledgedWriteErrors"), before + 1);
}

TEST_F(AccountingTest, UnacknowledgedWriteWithoutErrorsCountsNothing) {
  const std::int64_t before = StatusNumber("metrics.quarry.unacknowledgedWriteErrors");

  wire::Response response = Send(
      Doc(R"({"insert": "c", "documents": [{"_id": 1}], "writeConcern": {"w": 0}, "$db": "db"})"),
      wire::kMoreToCome);

  EXPECT_FALSE(response.send);
  EXPECT_EQ(StatusNumber("metrics.quarry.unacknowledgedWriteErrors"), before);
  EXPECT_EQ(CountDocs("c"), 1);
}

}  // namespace
}  // namespace quarry::server
