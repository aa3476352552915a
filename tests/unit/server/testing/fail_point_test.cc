// FailPoint: which commands a configured fail point hits, how often, and what it does to them.
#include "server/testing/fail_point.h"

#include <gtest/gtest.h>

#include <string>

#include "server_test_util.h"

namespace quarry::server {
namespace {

using testing::Doc;

class FailPointTest : public ::testing::Test {
 protected:
  // Configures the point from {mode: ..., data: ...} given as JSON.
  StatusWith<std::int64_t> Configure(std::string_view json, bool needs_command_list = true) {
    bson::Document args = Doc(json);
    bson::ValueView data = args.Get("data");
    return point_.Configure(
        args.Get("mode"),
        data.type() == bson::Type::kDocument ? data.Document() : bson::DocumentView(),
        needs_command_list);
  }

  // Configures the point with `mode` (JSON) for inserts, with no other data.
  void ConfigureForInserts(std::string_view mode) {
    bson::DocumentBuilder b;
    b.AppendElements(Doc(std::string(R"({"mode": )") + std::string(mode) + "}"));
    b.OpenDocument("data").OpenArray("failCommands").AppendString("0", "insert").Close().Close();
    bson::Document args = std::move(b).Finish();
    StatusWith<std::int64_t> configured =
        point_.Configure(args.Get("mode"), args.Get("data").Document());
    ASSERT_TRUE(configured.ok()) << configured.status().ToString();
  }

  // How many of `calls` checks of `command` from `app_name` the point hits.
  int Hits(int calls, std::string_view command = "insert", std::string_view app_name = "") {
    int hits = 0;
    for (int i = 0; i < calls; ++i) hits += point_.Check(command, app_name).has_value() ? 1 : 0;
    return hits;
  }

  FailPoint point_;
};

TEST_F(FailPointTest, UnconfiguredPointHitsNothing) { EXPECT_EQ(Hits(3), 0); }

TEST_F(FailPointTest, AlwaysOnHitsEveryCall) {
  ConfigureForInserts(R"("alwaysOn")");
  EXPECT_EQ(Hits(5), 5);
}

TEST_F(FailPointTest, TimesHitsThatManyCallsThenTurnsOff) {
  ConfigureForInserts(R"({"times": 2})");
  EXPECT_EQ(Hits(2), 2);
  EXPECT_EQ(Hits(3), 0);
}

TEST_F(FailPointTest, TimesZeroHitsNothing) {
  ConfigureForInserts(R"({"times": 0})");
  EXPECT_EQ(Hits(3), 0);
}

TEST_F(FailPointTest, SkipLetsThatManyCallsThroughThenHitsEveryCall) {
  ConfigureForInserts(R"({"skip": 2})");
  EXPECT_EQ(Hits(2), 0);
  EXPECT_EQ(Hits(3), 3);
}

TEST_F(FailPointTest, OffStopsHittingAndReportsTheHitsSoFar) {
  ConfigureForInserts(R"("alwaysOn")");
  ASSERT_EQ(Hits(3), 3);

  StatusWith<std::int64_t> off = Configure(R"({"mode": "off"})");

  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off.value(), 3);
  EXPECT_EQ(Hits(3), 0);
}

TEST_F(FailPointTest, ReconfiguringReportsTheHitsOfThePreviousConfiguration) {
  ConfigureForInserts(R"("alwaysOn")");
  ASSERT_EQ(Hits(2), 2);

  StatusWith<std::int64_t> again =
      Configure(R"({"mode": {"times": 1}, "data": {"failCommands": ["insert"]}})");

  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value(), 2);
}

TEST_F(FailPointTest, HitsOnlyTheListedCommands) {
  ASSERT_TRUE(
      Configure(R"({"mode": "alwaysOn", "data": {"failCommands": ["insert", "find"]}})").ok());
  EXPECT_EQ(Hits(1, "insert"), 1);
  EXPECT_EQ(Hits(1, "find"), 1);
  EXPECT_EQ(Hits(1, "update"), 0);
}

TEST_F(FailPointTest, CommandsOtherThanTheListedOnesDoNotUseUpTimes) {
  ConfigureForInserts(R"({"times": 1})");
  ASSERT_EQ(Hits(2, "find"), 0);
  EXPECT_EQ(Hits(1, "insert"), 1);
}

TEST_F(FailPointTest, AppNameLimitsThePointToThatClient) {
  ASSERT_TRUE(Configure(R"({"mode": "alwaysOn",
                            "data": {"failCommands": ["insert"], "appName": "mine"}})")
                  .ok());
  EXPECT_EQ(Hits(1, "insert", "theirs"), 0);
  EXPECT_EQ(Hits(1, "insert", ""), 0);
  EXPECT_EQ(Hits(1, "insert", "mine"), 1);
}

TEST_F(FailPointTest, PointWithoutACommandListHitsEveryCommand) {
  ASSERT_TRUE(Configure(R"({"mode": "alwaysOn", "data": {"errorCode": 2}})",
                        /*needs_command_list=*/false)
                  .ok());
  EXPECT_EQ(Hits(1, "getMore"), 1);
  EXPECT_EQ(Hits(1, "insert"), 1);
}

TEST_F(FailPointTest, FailCommandWithoutACommandListIsBadValue) {
  StatusWith<std::int64_t> configured = Configure(R"({"mode": "alwaysOn", "data": {}})");
  ASSERT_FALSE(configured.ok());
  EXPECT_EQ(configured.status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(Hits(1), 0);
}

TEST_F(FailPointTest, UnknownModeIsBadValue) {
  for (std::string_view json : {R"({"mode": "sometimes", "data": {"failCommands": ["insert"]}})",
                                R"({"mode": {"often": 1}, "data": {"failCommands": ["insert"]}})",
                                R"({"data": {"failCommands": ["insert"]}})"}) {
    StatusWith<std::int64_t> configured = Configure(json);
    ASSERT_FALSE(configured.ok()) << json;
    EXPECT_EQ(configured.status().code(), ErrorCode::kBadValue) << json;
  }
}

TEST_F(FailPointTest, HitCarriesWhatTheDataAsksFor) {
  ASSERT_TRUE(Configure(R"({"mode": "alwaysOn", "data": {
      "failCommands": ["insert"], "errorCode": 91, "closeConnection": true,
      "blockConnection": true, "blockTimeMS": 25,
      "writeConcernError": {"code": 64, "errmsg": "waiting for replication timed out"},
      "errorLabels": ["A", "B"], "failBeforeCommitExceptionCode": 11602}})")
                  .ok());

  std::optional<FailCommandAction> action = point_.Check("insert", "");

  ASSERT_TRUE(action.has_value());
  EXPECT_EQ(action->error_code, 91);
  EXPECT_TRUE(action->close_connection);
  EXPECT_TRUE(action->close_connection_given);
  EXPECT_EQ(action->block_ms, 25);
  ASSERT_TRUE(action->write_concern_error.has_value());
  EXPECT_EQ(testing::NumberAt(*action->write_concern_error, "code"), 64);
  ASSERT_TRUE(action->error_labels.has_value());
  EXPECT_EQ(action->error_labels->view().CountElements(), 2u);
  EXPECT_EQ(action->fail_before_commit_code, 11602);
}

TEST_F(FailPointTest, BlockTimeMSWaitsOnlyWithBlockConnection) {
  ASSERT_TRUE(Configure(R"({"mode": "alwaysOn",
                            "data": {"failCommands": ["insert"], "blockTimeMS": 25}})")
                  .ok());

  std::optional<FailCommandAction> action = point_.Check("insert", "");

  ASSERT_TRUE(action.has_value());
  EXPECT_EQ(action->block_ms, 0);
  EXPECT_FALSE(action->close_connection_given);
}

}  // namespace
}  // namespace quarry::server
