// insert, update, delete and findAndModify end to end: what the reply says, what the context's
// write outcome says (getLastError and the opcounters read it), and what is stored.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "commands_test_util.h"

namespace quarry::commands {
namespace {

using testing::Doc;
using testing::DocumentIn;
using testing::StringIn;

class WriteCommandsTest : public testing::CommandFixture {};

TEST_F(WriteCommandsTest, OrderedInsertStopsAtTheFirstDuplicateKey) {
  Insert(Doc(R"({"_id": 1})"));
  bson::Document reply =
      RunOk(R"({"insert": "c", "documents": [{"_id": 0}, {"_id": 1}, {"_id": 2}, {"_id": 1}]})");
  EXPECT_EQ(reply.Get("n").AsInt64(), 1);
  ASSERT_EQ(ErrorIndexes(reply), (std::vector<std::size_t>{1}));
  bson::DocumentView error = DocumentIn(DocumentIn(reply.Get("writeErrors")).Get("0"));
  EXPECT_EQ(error.Get("code").AsInt64(), 11000);
  EXPECT_EQ(StringIn(error.Get("codeName")), "DuplicateKey");
  EXPECT_NE(StringIn(error.Get("errmsg")).find("duplicate key"), std::string_view::npos);
  EXPECT_EQ(DocumentIn(error.Get("keyValue")).ToJson(), Doc(R"({"_id": 1})").ToJson());
  EXPECT_FALSE(Stored(2).has_value());

  EXPECT_TRUE(outcome().present);
  EXPECT_EQ(outcome().statements, 4);
  EXPECT_EQ(outcome().n, 1);
  EXPECT_EQ(ErrorIndexes(outcome()), ErrorIndexes(reply));
}

TEST_F(WriteCommandsTest, UnorderedInsertReportsEveryDuplicateKeyAndInsertsTheRest) {
  Insert(Doc(R"({"_id": 1})"));
  Insert(Doc(R"({"_id": 3})"));
  bson::Document reply = RunOk(R"({"insert": "c", "ordered": false,
      "documents": [{"_id": 0}, {"_id": 1}, {"_id": 2}, {"_id": 3}, {"_id": 4}]})");
  EXPECT_EQ(reply.Get("n").AsInt64(), 3);
  EXPECT_EQ(ErrorIndexes(reply), (std::vector<std::size_t>{1, 3}));
  EXPECT_FALSE(reply.view().Has("nModified"));
  EXPECT_TRUE(Stored(2).has_value());
  EXPECT_TRUE(Stored(4).has_value());
  EXPECT_EQ(outcome().n, 3);
  EXPECT_EQ(ErrorIndexes(outcome()), ErrorIndexes(reply));
  EXPECT_EQ(outcome().first_error()->status.code(), ErrorCode::kDuplicateKey);
}

TEST_F(WriteCommandsTest, InsertGivesADocumentWithoutIdAnObjectIdFirst) {
  bson::Document reply = RunOk(R"({"insert": "c", "documents": [{"a": 1, "b": 2}]})");
  EXPECT_EQ(reply.Get("n").AsInt64(), 1);
  std::vector<bson::Document> stored = StoredDocuments();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].view().FirstKey(), "_id");
  EXPECT_EQ(stored[0].Get("_id").type(), bson::Type::kObjectId);
  EXPECT_EQ(stored[0].Get("b").AsInt64(), 2);
}

TEST_F(WriteCommandsTest, InsertIntoANewCollectionCreatesIt) {
  RunOk(R"({"insert": "fresh", "documents": [{"_id": 1}]})");
  EXPECT_TRUE(exec::LookupCollection(*catalog_, "db", "fresh").has_value());
}

TEST_F(WriteCommandsTest, UpdateCountsMatchesChangesAndUpserts) {
  InsertNumbered(3);  // {_id: i, a: i}
  bson::Document reply = RunOk(R"({"update": "c", "updates": [
      {"q": {"_id": 1}, "u": {"$set": {"x": 1}}},
      {"q": {"_id": 1}, "u": {"$set": {"x": 1}}},
      {"q": {"_id": 5}, "u": {"$set": {"x": 1}}, "upsert": true},
      {"q": {"a": 42}, "u": {"$set": {"x": 2}}, "upsert": true},
      {"q": {"a": 2}, "u": {"$set": {"x": 3}}}]})");
  // Matched 1, 1 and 2, plus two upserts; the second statement changes nothing.
  EXPECT_EQ(reply.Get("n").AsInt64(), 5);
  EXPECT_EQ(reply.Get("nModified").AsInt64(), 2);
  ASSERT_EQ(reply.Get("upserted").type(), bson::Type::kArray);
  bson::DocumentView upserted = DocumentIn(reply.Get("upserted"));
  ASSERT_EQ(upserted.CountElements(), 2u);
  EXPECT_EQ(DocumentIn(upserted.Get("0")).ToJson(), Doc(R"({"index": 2, "_id": 5})").ToJson());
  EXPECT_EQ(DocumentIn(upserted.Get("1")).Get("index").AsInt64(), 3);
  EXPECT_EQ(DocumentIn(upserted.Get("1")).Get("_id").type(), bson::Type::kObjectId);

  EXPECT_EQ(outcome().n, 5);
  EXPECT_EQ(outcome().modified, 2);
  EXPECT_TRUE(outcome().updated_existing);
  ASSERT_EQ(outcome().upserted.size(), 2u);
  EXPECT_EQ(outcome().upserted[0].index, 2u);
  EXPECT_EQ(outcome().upserted[0].id.ToJson(), Doc(R"({"_id": 5})").ToJson());
  EXPECT_EQ(outcome().upserted[1].index, 3u);
  EXPECT_EQ(Stored(5)->Get("x").AsInt64(), 1);
  EXPECT_EQ(Stored(2)->Get("x").AsInt64(), 3);
}

TEST_F(WriteCommandsTest, MultiUpdateChangesEveryMatch) {
  InsertNumbered(10, 2);
  bson::Document reply = RunOk(R"({"update": "c", "updates": [
      {"q": {"a": 0}, "u": {"$inc": {"x": 1}}, "multi": true}]})");
  EXPECT_EQ(reply.Get("n").AsInt64(), 5);
  EXPECT_EQ(reply.Get("nModified").AsInt64(), 5);
  EXPECT_FALSE(reply.view().Has("upserted"));
  EXPECT_EQ(Stored(8)->Get("x").AsInt64(), 1);
  EXPECT_FALSE(Stored(9)->Get("x").exists());
}

TEST_F(WriteCommandsTest, UpdateThatFindsNothingReportsNoExistingDocument) {
  InsertNumbered(3);
  bson::Document reply =
      RunOk(R"({"update": "c", "updates": [{"q": {"a": 7}, "u": {"$set": {"x": 1}}}]})");
  EXPECT_EQ(reply.Get("n").AsInt64(), 0);
  EXPECT_EQ(reply.Get("nModified").AsInt64(), 0);
  EXPECT_FALSE(outcome().updated_existing);
}

TEST_F(WriteCommandsTest, OrderedUpdateStopsAtAFailingStatement) {
  Insert(Doc(R"({"_id": 1, "s": "text"})"));
  Insert(Doc(R"({"_id": 2})"));
  for (bool ordered : {true, false}) {
    SCOPED_TRACE(ordered ? "ordered" : "unordered");
    std::string body = R"({"update": "c", "ordered": )" + std::string(ordered ? "true" : "false") +
                       R"(, "updates": [{"q": {"_id": 1}, "u": {"$inc": {"s": 1}}},
                          {"q": {"_id": 2}, "u": {"$inc": {"n": 1}}}]})";
    bson::Document reply = RunOk(body);
    EXPECT_EQ(ErrorIndexes(reply), (std::vector<std::size_t>{0}));
    EXPECT_EQ(reply.Get("n").AsInt64(), ordered ? 0 : 1);
    EXPECT_EQ(ErrorIndexes(outcome()), ErrorIndexes(reply));
  }
  EXPECT_EQ(Stored(2)->Get("n").AsInt64(), 1);  // only the unordered run reached it
}

TEST_F(WriteCommandsTest, DeleteWithLimitOneRemovesOneMatchAndLimitZeroEvery) {
  InsertNumbered(10, 2);
  bson::Document one = RunOk(R"({"delete": "c", "deletes": [{"q": {"a": 0}, "limit": 1}]})");
  EXPECT_EQ(one.Get("n").AsInt64(), 1);
  EXPECT_EQ(outcome().n, 1);
  EXPECT_FALSE(Stored(0).has_value());
  EXPECT_TRUE(Stored(2).has_value());

  bson::Document every = RunOk(R"({"delete": "c", "deletes": [{"q": {"a": 0}, "limit": 0}]})");
  EXPECT_EQ(every.Get("n").AsInt64(), 4);
  EXPECT_EQ(outcome().n, 4);
  EXPECT_EQ(StoredDocuments().size(), 5u);
}

TEST_F(WriteCommandsTest, DeleteByIdStatementsCountEachDeletedDocument) {
  InsertNumbered(5);
  bson::Document reply = RunOk(R"({"delete": "c", "deletes": [
      {"q": {"_id": 1}, "limit": 1}, {"q": {"_id": 1}, "limit": 1},
      {"q": {"_id": 3}, "limit": 1}, {"q": {"_id": 9}, "limit": 1}]})");
  EXPECT_EQ(reply.Get("n").AsInt64(), 2);
  EXPECT_FALSE(Stored(1).has_value());
  EXPECT_FALSE(Stored(3).has_value());
  EXPECT_EQ(StoredDocuments().size(), 3u);
}

TEST_F(WriteCommandsTest, DeleteFromAMissingCollectionDeletesNothing) {
  bson::Document reply = RunOk(R"({"delete": "nothing", "deletes": [{"q": {}, "limit": 0}]})");
  EXPECT_EQ(reply.Get("n").AsInt64(), 0);
  EXPECT_FALSE(reply.view().Has("writeErrors"));
}

TEST_F(WriteCommandsTest, FindAndModifyReturnsTheDocumentBeforeTheUpdate) {
  InsertNumbered(3);
  bson::Document reply =
      RunOk(R"({"findAndModify": "c", "query": {"a": {"$gte": 1}}, "update": {"$set": {"x": 1}}})");
  EXPECT_EQ(DocumentIn(reply.Get("lastErrorObject")).ToJson(),
            Doc(R"({"n": 1, "updatedExisting": true})").ToJson());
  EXPECT_EQ(DocumentIn(reply.Get("value")).ToJson(), Doc(R"({"_id": 1, "a": 1})").ToJson());
  EXPECT_EQ(Stored(1)->Get("x").AsInt64(), 1);
  EXPECT_EQ(outcome().n, 1);
  EXPECT_TRUE(outcome().updated_existing);
  EXPECT_TRUE(outcome().upserted.empty());
}

TEST_F(WriteCommandsTest, FindAndModifyUpsertReportsTheNewId) {
  bson::Document reply = RunOk(R"({"findAndModify": "c", "query": {"_id": 7},
      "update": {"$set": {"x": 1}}, "upsert": true, "new": true})");
  EXPECT_EQ(DocumentIn(reply.Get("lastErrorObject")).ToJson(),
            Doc(R"({"n": 1, "updatedExisting": false, "upserted": 7})").ToJson());
  EXPECT_EQ(DocumentIn(reply.Get("value")).ToJson(), Doc(R"({"_id": 7, "x": 1})").ToJson());
  EXPECT_EQ(outcome().n, 1);
  EXPECT_FALSE(outcome().updated_existing);
  ASSERT_EQ(outcome().upserted.size(), 1u);
  EXPECT_EQ(outcome().upserted[0].id.ToJson(), Doc(R"({"_id": 7})").ToJson());
}

TEST_F(WriteCommandsTest, FindAndModifyRemovesTheFirstInSortOrder) {
  InsertNumbered(5);
  bson::Document reply =
      RunOk(R"({"findAndModify": "c", "query": {}, "sort": {"a": -1}, "remove": true})");
  EXPECT_EQ(DocumentIn(reply.Get("lastErrorObject")).ToJson(), Doc(R"({"n": 1})").ToJson());
  EXPECT_EQ(DocumentIn(reply.Get("value")).ToJson(), Doc(R"({"_id": 4, "a": 4})").ToJson());
  EXPECT_FALSE(Stored(4).has_value());
  EXPECT_EQ(outcome().n, 1);
}

TEST_F(WriteCommandsTest, FindAndModifyOfNothingReturnsNull) {
  bson::Document reply =
      RunOk(R"({"findAndModify": "c", "query": {"_id": 1}, "update": {"$set": {"x": 1}}})");
  EXPECT_EQ(DocumentIn(reply.Get("lastErrorObject")).Get("n").AsInt64(), 0);
  EXPECT_EQ(reply.Get("value").type(), bson::Type::kNull);
  EXPECT_EQ(outcome().n, 0);
  EXPECT_FALSE(Stored(1).has_value());
}

}  // namespace
}  // namespace quarry::commands
