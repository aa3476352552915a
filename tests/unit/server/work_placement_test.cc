#include "server/work_placement.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "commands/command.h"
#include "server_test_util.h"

namespace quarry::server {
namespace {

class WorkPlacementTest : public ::testing::Test {
 protected:
  // Whether `json`, a command body, runs on the io thread; a command named like its first key.
  bool OnIoThread(std::string_view json, const std::vector<bson::DocumentView>* sequence = nullptr,
                  std::string_view sequence_name = "") {
    body_ = testing::Doc(json);
    commands::Request request;
    request.body = body_;
    request.name = body_.view().FirstKey();
    if (sequence != nullptr) request.sequences.push_back({sequence_name, sequence});
    commands::Command command{.name = request.name};
    return RunsOnIoThread(command, request);
  }

  bson::Document body_;
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
  EXPECT_FALSE(OnIoThread(R"({"find": "c", "filter": {"a": 1}})"));
  EXPECT_FALSE(OnIoThread(R"({"find": "c"})"));
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

  std::vector<bson::Document> owned;
  std::vector<bson::DocumentView> many;
  for (int i = 0; i < 17; ++i) owned.push_back(testing::Doc(R"({"a": 1})"));
  for (const bson::Document& document : owned) many.push_back(document);
  EXPECT_FALSE(OnIoThread(R"({"insert": "c"})", &many, "documents"));
  many.pop_back();
  EXPECT_TRUE(OnIoThread(R"({"insert": "c"})", &many, "documents"));
}

TEST_F(WorkPlacementTest, AnApproximateVectorSearchStaysAndAnExactOneGoes) {
  EXPECT_TRUE(OnIoThread(
      R"({"aggregate": "c", "pipeline": [{"$vectorSearch": {"index": "i", "limit": 3}}]})"));
  EXPECT_FALSE(OnIoThread(
      R"({"aggregate": "c", "pipeline": [{"$vectorSearch": {"index": "i", "exact": true}}]})"));
}

}  // namespace
}  // namespace quarry::server
