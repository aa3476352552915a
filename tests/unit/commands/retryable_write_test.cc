// Write commands as statements of a retryable write: statements an earlier attempt executed are
// not run again but still counted, every statement that runs records its outcome, and writes
// that a retry could not repeat exactly are refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "commands_test_util.h"

namespace quarry::commands {
namespace {

using testing::Doc;
using testing::DocumentIn;
using testing::FakeRetryableWrite;

class RetryableWriteTest : public testing::CommandFixture {
 protected:
  // The statements recorded, as "stmt: outcome".
  std::vector<std::string> Recorded() const {
    std::vector<std::string> out;
    for (const auto& [stmt, outcome] : retry_.recorded) {
      out.push_back(std::to_string(stmt) + ": " + outcome.ToJson());
    }
    return out;
  }

  static std::string Entry(std::size_t stmt, std::string_view outcome_json) {
    return std::to_string(stmt) + ": " + Doc(outcome_json).ToJson();
  }

  FakeRetryableWrite retry_;
};

TEST_F(RetryableWriteTest, InsertSkipsExecutedStatementsButCountsThem) {
  retry_.executed[1] = bson::Document();
  bson::Document reply =
      RunOk(R"({"insert": "c", "documents": [{"_id": 0}, {"_id": 1}, {"_id": 2}]})", &retry_);
  EXPECT_EQ(reply.Get("n").AsInt64(), 3);
  EXPECT_EQ(outcome().n, 3);
  EXPECT_FALSE(Stored(1).has_value());  // not inserted again
  EXPECT_TRUE(Stored(2).has_value());
  EXPECT_EQ(Recorded(), (std::vector<std::string>{Entry(0, "{}"), Entry(2, "{}")}));
}

TEST_F(RetryableWriteTest, UpdateRecordsChangesAndUpsertsWithTheirIds) {
  InsertNumbered(3);
  bson::Document reply = RunOk(R"({"update": "c", "updates": [
      {"q": {"_id": 1}, "u": {"$set": {"x": 1}}},
      {"q": {"_id": 9}, "u": {"$set": {"x": 1}}, "upsert": true},
      {"q": {"a": 2}, "u": {"$set": {"x": 2}}},
      {"q": {"a": 42}, "u": {"$set": {"x": 3}}, "upsert": true}]})",
                               &retry_);
  EXPECT_EQ(reply.Get("n").AsInt64(), 4);
  ASSERT_EQ(reply.Get("upserted").type(), bson::Type::kArray);
  bson::ValueView generated = DocumentIn(DocumentIn(reply.Get("upserted")).Get("1")).Get("_id");
  ASSERT_EQ(generated.type(), bson::Type::kObjectId);
  bson::DocumentBuilder last;
  last.Append("upserted", generated);
  EXPECT_EQ(Recorded(),
            (std::vector<std::string>{Entry(0, "{}"), Entry(1, R"({"upserted": 9})"),
                                      Entry(2, "{}"), "3: " + std::move(last).Finish().ToJson()}));
}

TEST_F(RetryableWriteTest, UpdateReportsExecutedStatementsFromTheirRecords) {
  InsertNumbered(3);
  retry_.executed[0] = Doc(R"({"upserted": 7})");
  retry_.executed[1] = bson::Document();
  bson::Document reply = RunOk(R"({"update": "c", "updates": [
      {"q": {"_id": 7}, "u": {"$set": {"x": 1}}, "upsert": true},
      {"q": {"_id": 1}, "u": {"$set": {"x": 1}}},
      {"q": {"_id": 2}, "u": {"$set": {"x": 1}}}]})",
                               &retry_);
  EXPECT_EQ(reply.Get("n").AsInt64(), 3);
  EXPECT_EQ(reply.Get("nModified").AsInt64(), 2);
  ASSERT_EQ(reply.Get("upserted").type(), bson::Type::kArray);
  EXPECT_EQ(DocumentIn(DocumentIn(reply.Get("upserted")).Get("0")).ToJson(),
            Doc(R"({"index": 0, "_id": 7})").ToJson());
  EXPECT_FALSE(Stored(7).has_value());  // not upserted again
  EXPECT_FALSE(Stored(1)->Get("x").exists());
  EXPECT_EQ(Stored(2)->Get("x").AsInt64(), 1);
  EXPECT_EQ(Recorded(), (std::vector<std::string>{Entry(2, "{}")}));
}

TEST_F(RetryableWriteTest, DeleteCountsExecutedStatements) {
  InsertNumbered(3);
  retry_.executed[0] = bson::Document();
  bson::Document reply = RunOk(R"({"delete": "c", "deletes": [
      {"q": {"_id": 1}, "limit": 1}, {"q": {"_id": 2}, "limit": 1},
      {"q": {"a": 0}, "limit": 1}]})",
                               &retry_);
  EXPECT_EQ(reply.Get("n").AsInt64(), 3);
  EXPECT_EQ(outcome().n, 3);
  EXPECT_TRUE(Stored(1).has_value());  // not deleted again
  EXPECT_FALSE(Stored(2).has_value());
  EXPECT_FALSE(Stored(0).has_value());
  EXPECT_EQ(Recorded(), (std::vector<std::string>{Entry(1, "{}"), Entry(2, "{}")}));
}

TEST_F(RetryableWriteTest, FindAndModifyRecordsItsReply) {
  InsertNumbered(2);
  bson::Document reply = RunOk(R"({"findAndModify": "c", "query": {"_id": 1},
      "update": {"$set": {"x": 1}}, "new": true})",
                               &retry_);
  ASSERT_EQ(retry_.recorded.size(), 1u);
  EXPECT_EQ(retry_.recorded[0].first, 0u);
  EXPECT_EQ(retry_.recorded[0].second.ToJson(), reply.ToJson());
}

TEST_F(RetryableWriteTest, FindAndModifyAnswersAnExecutedStatementWithItsRecordedReply) {
  InsertNumbered(2);
  retry_.executed[0] =
      Doc(R"({"lastErrorObject": {"n": 1, "updatedExisting": true}, "value": {"_id": 1, "x": 5}})");
  bson::Document reply = RunOk(R"({"findAndModify": "c", "query": {"_id": 1},
      "update": {"$set": {"x": 6}}, "new": true})",
                               &retry_);
  EXPECT_EQ(reply.ToJson(), retry_.executed[0].ToJson());
  EXPECT_FALSE(Stored(1)->Get("x").exists());  // not applied again
  EXPECT_TRUE(retry_.recorded.empty());
  EXPECT_EQ(outcome().n, 1);
  EXPECT_TRUE(outcome().updated_existing);
}

TEST_F(RetryableWriteTest, FindAndModifyRemoveRecordsTheRemovedDocument) {
  InsertNumbered(2);
  bson::Document reply =
      RunOk(R"({"findAndModify": "c", "query": {"_id": 1}, "remove": true})", &retry_);
  ASSERT_EQ(retry_.recorded.size(), 1u);
  EXPECT_EQ(retry_.recorded[0].second.ToJson(), reply.ToJson());
  EXPECT_EQ(DocumentIn(reply.Get("value")).ToJson(), Doc(R"({"_id": 1, "a": 1})").ToJson());
}

TEST_F(RetryableWriteTest, MultiDocumentStatementsAreRefusedOneByOne) {
  InsertNumbered(3);
  bson::Document updated = RunOk(R"({"update": "c", "ordered": false, "updates": [
      {"q": {}, "u": {"$set": {"x": 1}}, "multi": true},
      {"q": {"_id": 1}, "u": {"$set": {"y": 1}}}]})",
                                 &retry_);
  ASSERT_EQ(ErrorIndexes(updated), (std::vector<std::size_t>{0}));
  EXPECT_EQ(DocumentIn(DocumentIn(updated.Get("writeErrors")).Get("0")).Get("code").AsInt64(), 72);
  EXPECT_EQ(updated.Get("n").AsInt64(), 1);
  EXPECT_FALSE(Stored(0)->Get("x").exists());
  EXPECT_EQ(Stored(1)->Get("y").AsInt64(), 1);

  bson::Document deleted = RunOk(R"({"delete": "c", "ordered": false, "deletes": [
      {"q": {}, "limit": 0}, {"q": {"_id": 2}, "limit": 1}]})",
                                 &retry_);
  ASSERT_EQ(ErrorIndexes(deleted), (std::vector<std::size_t>{0}));
  EXPECT_EQ(DocumentIn(DocumentIn(deleted.Get("writeErrors")).Get("0")).Get("code").AsInt64(), 72);
  EXPECT_EQ(deleted.Get("n").AsInt64(), 1);
  EXPECT_EQ(StoredDocuments().size(), 2u);
}

TEST_F(RetryableWriteTest, MultiDocumentStatementsRunOutsideARetryableWrite) {
  InsertNumbered(3);
  bson::Document updated =
      RunOk(R"({"update": "c", "updates": [{"q": {}, "u": {"$set": {"x": 1}}, "multi": true}]})");
  EXPECT_FALSE(updated.view().Has("writeErrors"));
  EXPECT_EQ(updated.Get("nModified").AsInt64(), 3);
}

}  // namespace
}  // namespace quarry::commands
