// Retryable writes through dispatch: a driver's retry (same lsid, same txnNumber) gets the
// answer of the attempt it repeats, and no statement applies twice.
#include "server/sessions/retryable_writes.h"

#include <gtest/gtest.h>

#include <string>

#include "server_test_util.h"

namespace quarry::server {
namespace {

using testing::NumberAt;
using testing::SessionId;
using testing::WithSession;

class RetryableWritesTest : public testing::ServerFixture {
 protected:
  // `command` (JSON, on db) as a retryable write of session SessionId(1).
  bson::Document RunRetryable(std::string_view command, std::int64_t txn_number) {
    return Run(WithSession(command, SessionId(1), txn_number));
  }
};

TEST_F(RetryableWritesTest, RetriedInsertCountsEveryDocumentAndInsertsNoneTwice) {
  constexpr std::string_view kInsert =
      R"({"insert": "c", "documents": [{"_id": 1}, {"_id": 2}, {"_id": 3}], "$db": "db"})";
  ASSERT_EQ(NumberAt(RunRetryable(kInsert, 1), "n"), 3);

  bson::Document retried = RunRetryable(kInsert, 1);

  EXPECT_EQ(NumberAt(retried, "ok"), 1) << retried.ToJson();
  EXPECT_EQ(NumberAt(retried, "n"), 3) << retried.ToJson();
  EXPECT_FALSE(retried.view().Has("writeErrors")) << retried.ToJson();
  EXPECT_EQ(CountDocs("c"), 3);
}

TEST_F(RetryableWritesTest, SameInsertWithANewTxnNumberRunsAgain) {
  constexpr std::string_view kInsert = R"({"insert": "c", "documents": [{"_id": 1}], "$db": "db"})";
  ASSERT_EQ(NumberAt(RunRetryable(kInsert, 1), "n"), 1);

  bson::Document next = RunRetryable(kInsert, 2);

  EXPECT_EQ(NumberAt(next, "n"), 0) << next.ToJson();
  EXPECT_EQ(NumberAt(next, "writeErrors.0.code"),
            static_cast<std::int64_t>(ErrorCode::kDuplicateKey));
}

TEST_F(RetryableWritesTest, RetriedOrderedBatchSkipsWhatRanAndFailsAgainWhereItStopped) {
  ASSERT_EQ(NumberAt(Run(R"({"insert": "c", "documents": [{"_id": 2}]})"), "n"), 1);
  constexpr std::string_view kInsert =
      R"({"insert": "c", "documents": [{"_id": 1}, {"_id": 2}, {"_id": 3}], "$db": "db"})";
  bson::Document first = RunRetryable(kInsert, 1);
  ASSERT_EQ(NumberAt(first, "n"), 1) << first.ToJson();
  ASSERT_EQ(NumberAt(first, "writeErrors.0.index"), 1) << first.ToJson();

  bson::Document retried = RunRetryable(kInsert, 1);

  EXPECT_EQ(NumberAt(retried, "n"), 1) << retried.ToJson();
  // Statement 0 is not inserted again (that would be a duplicate at index 0).
  EXPECT_EQ(NumberAt(retried, "writeErrors.0.index"), 1) << retried.ToJson();
  EXPECT_EQ(NumberAt(retried, "writeErrors.0.code"),
            static_cast<std::int64_t>(ErrorCode::kDuplicateKey));
  EXPECT_FALSE(bson::GetPath(retried, "writeErrors.1").exists()) << retried.ToJson();
  EXPECT_EQ(CountDocs("c", R"({"_id": 3})"), 0);
}

TEST_F(RetryableWritesTest, RetryCompletesAPartiallyExecutedBatch) {
  ASSERT_EQ(NumberAt(Run(R"({"insert": "c", "documents": [{"_id": 2}]})"), "n"), 1);
  constexpr std::string_view kInsert =
      R"({"insert": "c", "documents": [{"_id": 1}, {"_id": 2}, {"_id": 3}], "$db": "db"})";
  ASSERT_EQ(NumberAt(RunRetryable(kInsert, 1), "n"), 1);
  ASSERT_EQ(NumberAt(Run(R"({"delete": "c", "deletes": [{"q": {"_id": 2}, "limit": 1}]})"), "n"),
            1);

  bson::Document retried = RunRetryable(kInsert, 1);

  EXPECT_EQ(NumberAt(retried, "n"), 3) << retried.ToJson();
  EXPECT_FALSE(retried.view().Has("writeErrors")) << retried.ToJson();
  EXPECT_EQ(CountDocs("c"), 3);
}

TEST_F(RetryableWritesTest, OlderTxnNumberIsTransactionTooOld) {
  ASSERT_EQ(
      NumberAt(RunRetryable(R"({"insert": "c", "documents": [{"_id": 1}], "$db": "db"})", 5), "n"),
      1);

  bson::Document older =
      RunRetryable(R"({"insert": "c", "documents": [{"_id": 2}], "$db": "db"})", 4);

  EXPECT_EQ(NumberAt(older, "ok"), 0) << older.ToJson();
  EXPECT_EQ(NumberAt(older, "code"), static_cast<std::int64_t>(ErrorCode::kTransactionTooOld));
  EXPECT_EQ(CountDocs("c", R"({"_id": 2})"), 0);
}

TEST_F(RetryableWritesTest, TxnNumbersOfOtherSessionsAreIndependent) {
  ASSERT_EQ(
      NumberAt(RunRetryable(R"({"insert": "c", "documents": [{"_id": 1}], "$db": "db"})", 5), "n"),
      1);

  bson::Document other = Run(
      WithSession(R"({"insert": "c", "documents": [{"_id": 2}], "$db": "db"})", SessionId(2), 1));

  EXPECT_EQ(NumberAt(other, "n"), 1) << other.ToJson();
}

TEST_F(RetryableWritesTest, RetriedUpdateAppliesItsIncrementOnce) {
  ASSERT_EQ(NumberAt(Run(R"({"insert": "c", "documents": [{"_id": 1, "n": 0}]})"), "n"), 1);
  constexpr std::string_view kUpdate =
      R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$inc": {"n": 1}}}], "$db": "db"})";
  ASSERT_EQ(NumberAt(RunRetryable(kUpdate, 1), "nModified"), 1);

  bson::Document retried = RunRetryable(kUpdate, 1);

  EXPECT_EQ(NumberAt(retried, "n"), 1) << retried.ToJson();
  EXPECT_EQ(NumberAt(retried, "nModified"), 1) << retried.ToJson();
  EXPECT_EQ(NumberAt(FindOne("c", R"({"_id": 1})"), "n"), 1);
}

TEST_F(RetryableWritesTest, RetriedUpsertReportsTheSameUpsertedId) {
  // The filter has no _id, so the upsert generates one: the retry must report that one.
  constexpr std::string_view kUpsert = R"({"update": "c", "updates": [
      {"q": {"name": "a"}, "u": {"$inc": {"n": 1}}, "upsert": true}], "$db": "db"})";
  bson::Document first = RunRetryable(kUpsert, 1);
  bson::ValueView first_id = bson::GetPath(first, "upserted.0._id");
  ASSERT_EQ(first_id.type(), bson::Type::kObjectId) << first.ToJson();

  bson::Document retried = RunRetryable(kUpsert, 1);

  EXPECT_EQ(NumberAt(retried, "n"), 1) << retried.ToJson();
  EXPECT_EQ(NumberAt(retried, "upserted.0.index"), 0) << retried.ToJson();
  bson::ValueView retried_id = bson::GetPath(retried, "upserted.0._id");
  ASSERT_EQ(retried_id.type(), bson::Type::kObjectId) << retried.ToJson();
  EXPECT_EQ(retried_id.Oid(), first_id.Oid());
  EXPECT_EQ(CountDocs("c", R"({"name": "a"})"), 1);
  EXPECT_EQ(NumberAt(FindOne("c", R"({"name": "a"})"), "n"), 1);
}

TEST_F(RetryableWritesTest, RetriedDeleteDoesNotDeleteAnotherDocument) {
  ASSERT_EQ(
      NumberAt(Run(R"({"insert": "c", "documents": [{"_id": 1, "x": 1}, {"_id": 2, "x": 1}]})"),
               "n"),
      2);
  constexpr std::string_view kDelete =
      R"({"delete": "c", "deletes": [{"q": {"x": 1}, "limit": 1}], "$db": "db"})";
  ASSERT_EQ(NumberAt(RunRetryable(kDelete, 1), "n"), 1);

  bson::Document retried = RunRetryable(kDelete, 1);

  EXPECT_EQ(NumberAt(retried, "n"), 1) << retried.ToJson();
  EXPECT_EQ(CountDocs("c"), 1);
}

TEST_F(RetryableWritesTest, RetriedFindAndModifyReturnsTheFirstReplysValue) {
  ASSERT_EQ(NumberAt(Run(R"({"insert": "c", "documents": [{"_id": 1, "n": 0}]})"), "n"), 1);
  constexpr std::string_view kFindAndModify = R"({"findAndModify": "c", "query": {"_id": 1},
      "update": {"$inc": {"n": 1}}, "new": true, "$db": "db"})";
  bson::Document first = RunRetryable(kFindAndModify, 1);
  ASSERT_EQ(NumberAt(first, "value.n"), 1) << first.ToJson();

  bson::Document retried = RunRetryable(kFindAndModify, 1);

  EXPECT_EQ(NumberAt(retried, "ok"), 1) << retried.ToJson();
  ASSERT_EQ(retried.Get("value").type(), bson::Type::kDocument) << retried.ToJson();
  EXPECT_EQ(retried.Get("value").Document().bytes(), first.Get("value").Document().bytes());
  EXPECT_EQ(NumberAt(retried, "lastErrorObject.n"), NumberAt(first, "lastErrorObject.n"));
  EXPECT_EQ(NumberAt(FindOne("c", R"({"_id": 1})"), "n"), 1);
}

TEST_F(RetryableWritesTest, WriteWithoutLsidIsNotRetryable) {
  constexpr std::string_view kUpdate = R"({"update": "c", "txnNumber": {"$numberLong": "1"},
      "updates": [{"q": {"_id": 1}, "u": {"$inc": {"n": 1}}, "upsert": true}]})";
  ASSERT_EQ(NumberAt(Run(kUpdate), "ok"), 1);

  ASSERT_EQ(NumberAt(Run(kUpdate), "ok"), 1);

  EXPECT_EQ(NumberAt(FindOne("c", R"({"_id": 1})"), "n"), 2);
}

}  // namespace
}  // namespace quarry::server
