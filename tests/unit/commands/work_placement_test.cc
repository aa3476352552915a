#include "commands/work_placement.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "commands_test_util.h"

namespace quarry::commands {
namespace {

using testing::Doc;

// Requests on database "db", whose collection "c" exists.
class WorkPlacementTest : public testing::CommandFixture {
 protected:
  // Whether `json`, a command body, runs on the io thread; a command named like its first key.
  bool OnIoThread(std::string_view json, const std::vector<bson::DocumentView>* sequence = nullptr,
                  std::string_view sequence_name = "") {
    bodies_.push_back(Doc(json));
    Request request;
    request.body = bodies_.back();
    request.name = request.body.FirstKey();
    request.db = "db";
    if (sequence != nullptr) request.sequences.push_back({sequence_name, sequence});
    Command command{.name = request.name};
    return RunsOnIoThread(state_, command, request);
  }
};

TEST_F(WorkPlacementTest, HandshakeAndDiagnosticCommandsStayOnTheIoThread) {
  EXPECT_TRUE(OnIoThread(R"({"hello": 1})"));
  EXPECT_TRUE(OnIoThread(R"({"ping": 1})"));
  EXPECT_TRUE(OnIoThread(R"({"serverStatus": 1})"));
  EXPECT_TRUE(OnIoThread(R"({"killCursors": "c", "cursors": []})"));
}

TEST_F(WorkPlacementTest, CommandsThatScanGoToAWorker) {
  EXPECT_FALSE(OnIoThread(R"({"aggregate": "c", "pipeline": [{"$group": {"_id": "$k"}}]})"));
  EXPECT_FALSE(OnIoThread(R"({"count": "c"})"));
  EXPECT_FALSE(OnIoThread(R"({"distinct": "c", "key": "k"})"));
  EXPECT_FALSE(OnIoThread(R"({"getMore": 5, "collection": "c"})"));
  EXPECT_FALSE(OnIoThread(R"({"createIndexes": "c", "indexes": []})"));
  EXPECT_FALSE(OnIoThread(R"({"someFutureCommand": 1})"));
}

TEST_F(WorkPlacementTest, AFindByIdStaysAndAnyOtherFindGoes) {
  EXPECT_TRUE(OnIoThread(R"({"find": "c", "filter": {"_id": 7}})"));
  EXPECT_TRUE(OnIoThread(R"({"find": "c", "filter": {"_id": "x", "a": 1}})"));
  EXPECT_FALSE(OnIoThread(R"({"find": "c", "filter": {"_id": {"$gt": 7}}})"));
  EXPECT_FALSE(OnIoThread(R"({"find": "c", "filter": {"_id": [1, 2]}})"));
  EXPECT_FALSE(OnIoThread(R"({"find": "c", "filter": {"_id": null}})"));
  EXPECT_FALSE(OnIoThread(R"({"find": "c", "filter": {"a": 1}})"));
  EXPECT_FALSE(OnIoThread(R"({"find": "c"})"));
  // A hint may force a collection scan.
  EXPECT_FALSE(OnIoThread(R"({"find": "c", "filter": {"_id": 7}, "hint": {"$natural": 1}})"));
}

TEST_F(WorkPlacementTest, AFindByEveryFieldOfAUniqueIndexStays) {
  AddIndexSpec(R"({"key": {"u": 1}, "name": "u_1", "unique": true})");
  AddIndexSpec(R"({"key": {"a": 1, "b": -1}, "name": "a_1_b_-1", "unique": true})");
  AddIndexSpec(R"({"key": {"n": 1}, "name": "n_1"})");
  AddIndexSpec(R"({"key": {"s": 1}, "name": "s_1", "unique": true, "sparse": true})");
  AddIndexSpec(R"({"key": {"p": 1}, "name": "p_1", "unique": true,
                   "partialFilterExpression": {"p": {"$gt": 0}}})");
  EXPECT_TRUE(OnIoThread(R"({"find": "c", "filter": {"u": "x"}})"));
  EXPECT_TRUE(OnIoThread(R"({"find": "c", "filter": {"a": 1, "b": 2, "z": 3}})"));
  EXPECT_TRUE(OnIoThread(R"({"findAndModify": "c", "query": {"u": 5}, "remove": true})"));
  EXPECT_TRUE(
      OnIoThread(R"({"update": "c", "updates": [{"q": {"u": 1}, "u": {"$set": {"k": 1}}}]})"));
  EXPECT_FALSE(OnIoThread(R"({"find": "c", "filter": {"a": 1}})"));
  EXPECT_FALSE(OnIoThread(R"({"find": "c", "filter": {"n": 1}})"));
  EXPECT_FALSE(OnIoThread(R"({"find": "c", "filter": {"s": 1}})"));
  EXPECT_FALSE(OnIoThread(R"({"find": "c", "filter": {"p": 1}})"));
  EXPECT_FALSE(OnIoThread(R"({"find": "c", "filter": {"u": {"$in": [1, 2]}}})"));
  EXPECT_FALSE(OnIoThread(R"({"find": "c", "filter": {"u": 1}, "collation": {"locale": "fr"}})"));
  EXPECT_FALSE(OnIoThread(R"({"find": "other", "filter": {"u": 1}})"));
}

TEST_F(WorkPlacementTest, SmallWritesByIdStayAndBulkWritesGo) {
  EXPECT_TRUE(OnIoThread(R"({"insert": "c", "documents": [{"_id": 1}, {"_id": 2}]})"));
  EXPECT_TRUE(
      OnIoThread(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a": 1}}}]})"));
  EXPECT_TRUE(OnIoThread(R"({"delete": "c", "deletes": [{"q": {"_id": 1}, "limit": 1}]})"));
  EXPECT_TRUE(OnIoThread(R"({"findAndModify": "c", "query": {"_id": 1}, "remove": true})"));
  EXPECT_FALSE(
      OnIoThread(R"({"update": "c", "updates": [{"q": {"a": 1}, "u": {"$set": {"a": 2}}}]})"));
  EXPECT_FALSE(OnIoThread(R"({"delete": "c", "deletes": [{"q": {}, "limit": 0}]})"));
  EXPECT_FALSE(OnIoThread(R"({"findAndModify": "c", "query": {"a": 1}, "remove": true})"));
  // Waiting for the journal's sync would hold the io thread.
  EXPECT_FALSE(OnIoThread(R"({"insert": "c", "documents": [{}], "writeConcern": {"j": true}})"));
  EXPECT_FALSE(
      OnIoThread(R"({"insert": "c", "documents": [{}], "writeConcern": {"w": "majority"}})"));
  EXPECT_TRUE(OnIoThread(R"({"insert": "c", "documents": [{}], "writeConcern": {"w": 1}})"));
  EXPECT_FALSE(OnIoThread(
      R"({"findAndModify": "c", "query": {"_id": 1}, "remove": true, "writeConcern": {"j": 1}})"));

  std::vector<bson::Document> owned;
  std::vector<bson::DocumentView> many;
  for (int i = 0; i < 17; ++i) owned.push_back(Doc(R"({"a": 1})"));
  for (const bson::Document& document : owned) many.push_back(document);
  EXPECT_FALSE(OnIoThread(R"({"insert": "c"})", &many, "documents"));
  many.pop_back();
  EXPECT_TRUE(OnIoThread(R"({"insert": "c"})", &many, "documents"));
}

TEST_F(WorkPlacementTest, AGetMoreStaysOnlyOnACursorThatAwaitsData) {
  class Empty final : public query::CursorSource {
   public:
    StatusWith<query::Batch> NextBatch(std::size_t, std::size_t) override { return query::Batch(); }
    bool exhausted() const override { return false; }
  };
  cursors::CursorOptions awaiting;
  awaiting.tailable = true;
  awaiting.await_data = true;
  const cursors::CursorId waiting = cursors_->Register("db.c", std::make_unique<Empty>(), awaiting);
  const cursors::CursorId plain = cursors_->Register("db.c", std::make_unique<Empty>());
  EXPECT_TRUE(OnIoThread(R"({"getMore": )" + std::to_string(waiting) + R"(, "collection": "c"})"));
  EXPECT_FALSE(OnIoThread(R"({"getMore": )" + std::to_string(plain) + R"(, "collection": "c"})"));
}

TEST_F(WorkPlacementTest, AnApproximateVectorSearchStaysAndAnExactOneGoes) {
  EXPECT_TRUE(OnIoThread(
      R"({"aggregate": "c", "pipeline": [{"$vectorSearch": {"index": "i", "limit": 3}}]})"));
  EXPECT_FALSE(OnIoThread(
      R"({"aggregate": "c", "pipeline": [{"$vectorSearch": {"index": "i", "exact": true}}]})"));
}

}  // namespace
}  // namespace quarry::commands
