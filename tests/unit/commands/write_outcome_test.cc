// WriteOutcome: the fields of a write reply (n, nModified, upserted, writeErrors) as mongod
// shapes them, and the batch-size limit of write commands.
#include "commands/write_outcome.h"

#include <gtest/gtest.h>

#include <string>

#include "commands_test_util.h"

namespace quarry::commands {
namespace {

using testing::Doc;

bson::Document ReplyOf(const WriteOutcome& outcome) {
  bson::DocumentBuilder b;
  outcome.AppendTo(&b);
  return std::move(b).Finish();
}

TEST(WriteOutcomeTest, InsertOrDeleteReplyHoldsOnlyN) {
  WriteOutcome outcome;
  outcome.n = 3;
  EXPECT_EQ(ReplyOf(outcome).ToJson(), Doc(R"({"n": 3})").ToJson());
}

TEST(WriteOutcomeTest, UpdateReplyHoldsNModifiedEvenWhenZero) {
  WriteOutcome outcome;
  outcome.n = 2;
  outcome.modified = 0;
  EXPECT_EQ(ReplyOf(outcome).ToJson(), Doc(R"({"n": 2, "nModified": 0})").ToJson());
}

TEST(WriteOutcomeTest, UpsertsAreListedWithTheirStatementIndexAndId) {
  WriteOutcome outcome;
  outcome.n = 2;
  outcome.modified = 0;
  outcome.upserted.push_back({1, Doc(R"({"_id": "a"})")});
  outcome.upserted.push_back({4, Doc(R"({"_id": 7})")});
  EXPECT_EQ(ReplyOf(outcome).ToJson(), Doc(R"({"n": 2, "nModified": 0,
                    "upserted": [{"index": 1, "_id": "a"}, {"index": 4, "_id": 7}]})")
                                           .ToJson());
}

TEST(WriteOutcomeTest, WriteErrorsAreInStatementOrderWithTheirCodeNameAndDetails) {
  WriteOutcome outcome;
  outcome.n = 1;
  bson::Document key = Doc(R"({"keyPattern": {"_id": 1}, "keyValue": {"_id": 1}})");
  outcome.errors.push_back({5, Status(ErrorCode::kBadValue, "bad")});
  outcome.errors.push_back(
      {2, Status(ErrorCode::kDuplicateKey, "E11000 duplicate key").WithExtraInfo(key.bytes())});
  outcome.SortErrors();
  ASSERT_NE(outcome.first_error(), nullptr);
  EXPECT_EQ(outcome.first_error()->index, 2u);
  EXPECT_EQ(ReplyOf(outcome).ToJson(), Doc(R"({"n": 1, "writeErrors": [
                  {"index": 2, "code": 11000, "codeName": "DuplicateKey",
                   "errmsg": "E11000 duplicate key", "keyPattern": {"_id": 1},
                   "keyValue": {"_id": 1}},
                  {"index": 5, "code": 2, "codeName": "BadValue", "errmsg": "bad"}]})")
                                           .ToJson());
}

TEST(WriteOutcomeTest, SortingKeepsTheOrderOfErrorsOfOneStatement) {
  WriteOutcome outcome;
  outcome.errors.push_back({3, Status(ErrorCode::kBadValue, "first")});
  outcome.errors.push_back({1, Status(ErrorCode::kBadValue, "other")});
  outcome.errors.push_back({3, Status(ErrorCode::kBadValue, "second")});
  outcome.SortErrors();
  ASSERT_EQ(outcome.errors.size(), 3u);
  EXPECT_EQ(outcome.errors[1].status.reason(), "first");
  EXPECT_EQ(outcome.errors[2].status.reason(), "second");
}

TEST(WriteOutcomeTest, NoErrorMeansNoFirstError) {
  EXPECT_EQ(WriteOutcome().first_error(), nullptr);
}

TEST(WriteOutcomeTest, BatchesHoldOneToOneHundredThousandStatements) {
  EXPECT_TRUE(CheckBatchSize(1).ok());
  EXPECT_TRUE(CheckBatchSize(100000).ok());
  for (std::size_t size : {std::size_t{0}, std::size_t{100001}}) {
    Status checked = CheckBatchSize(size);
    EXPECT_EQ(checked.code(), ErrorCode::kInvalidLength) << size;
    EXPECT_EQ(checked.reason(), "Write batch sizes must be between 1 and 100000. Got " +
                                    std::to_string(size) + " operations.");
  }
}

}  // namespace
}  // namespace quarry::commands
