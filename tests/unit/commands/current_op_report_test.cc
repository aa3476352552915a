// currentOp's documents and $currentOp's options, in mongod's shape.
#include "commands/diagnostics/current_op_report.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "commands_test_util.h"

namespace quarry::commands {
namespace {

using testing::Doc;

class CurrentOpReportTest : public ::testing::Test {
 protected:
  CurrentOpReportTest() {
    state_.host_name = "box";
    state_.config.port = 27017;
  }

  OperationRegistry::Listed Begin(const bson::Document& command, OpCounter counter,
                                  std::string_view db = "db",
                                  std::optional<UserName> user = std::nullopt,
                                  std::int64_t connection_id = 4) {
    RunningOperation operation;
    operation.connection_id = connection_id;
    operation.user = std::move(user);
    operation.db = db;
    operation.command = command.view();
    operation.counter = counter;
    operation.started = std::chrono::steady_clock::now();
    operation.interrupt = std::make_shared<Interrupt>();
    return state_.operations.Begin(std::move(operation));
  }

  ServiceState state_;
};

TEST_F(CurrentOpReportTest, AnOperationOnAConnectionHasMongodsFields) {
  state_.operations.Connect(4, "127.0.0.1:5555");
  state_.operations.SetClientMetadata(4, Doc(R"({"application": {"name": "app"}})"));
  bson::Document find = Doc(R"({"find": "c", "filter": {"a": 1}, "$db": "db"})");
  OperationRegistry::Listed listed = Begin(find, OpCounter::kQuery);
  std::vector<bson::Document> docs = CurrentOpDocuments(state_, {});
  ASSERT_EQ(docs.size(), 1u);
  bson::DocumentView op = docs[0].view();
  EXPECT_EQ(op.Get("type").String(), "op");
  EXPECT_EQ(op.Get("host").String(), "box:27017");
  EXPECT_EQ(op.Get("desc").String(), "conn4");
  EXPECT_EQ(op.Get("connectionId").AsInt64(), 4);
  EXPECT_EQ(op.Get("client").String(), "127.0.0.1:5555");
  EXPECT_EQ(op.Get("appName").String(), "app");
  EXPECT_EQ(op.Get("clientMetadata").type(), bson::Type::kDocument);
  EXPECT_TRUE(op.Get("active").Bool());
  EXPECT_EQ(op.Get("currentOpTime").type(), bson::Type::kString);
  EXPECT_EQ(op.Get("opid").type(), bson::Type::kInt32);
  EXPECT_EQ(op.Get("opid").AsInt64(), listed.opid());
  EXPECT_EQ(op.Get("secs_running").type(), bson::Type::kInt64);
  EXPECT_EQ(op.Get("microsecs_running").type(), bson::Type::kInt64);
  EXPECT_EQ(op.Get("op").String(), "query");
  EXPECT_EQ(op.Get("ns").String(), "db.c");
  EXPECT_EQ(op.Get("command").Document().ToJson(), find.ToJson());
  EXPECT_EQ(op.Get("numYields").AsInt64(), 0);
  EXPECT_TRUE(op.Get("locks").Document().empty());
  EXPECT_FALSE(op.Get("waitingForLock").Bool());
  EXPECT_FALSE(op.Has("killPending"));
  EXPECT_FALSE(op.Has("msg"));
}

TEST_F(CurrentOpReportTest, NamespacesFollowTheCommand) {
  bson::Document get_more = Doc(R"({"getMore": {"$numberLong": "5"}, "collection": "c"})");
  bson::Document aggregate = Doc(R"({"aggregate": 1, "pipeline": []})");
  bson::Document hello = Doc(R"({"hello": 1})");
  OperationRegistry::Listed a = Begin(get_more, OpCounter::kGetMore);
  OperationRegistry::Listed b = Begin(aggregate, OpCounter::kCommand, "admin");
  OperationRegistry::Listed c = Begin(hello, OpCounter::kCommand, "admin");
  std::vector<bson::Document> docs = CurrentOpDocuments(state_, {});
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_EQ(docs[0].Get("ns").String(), "db.c");
  EXPECT_EQ(docs[0].Get("op").String(), "getmore");
  EXPECT_EQ(docs[1].Get("ns").String(), "admin.$cmd.aggregate");
  EXPECT_EQ(docs[2].Get("ns").String(), "admin.$cmd");
  EXPECT_FALSE(docs[0].view().Has("desc"));  // no connection known
}

TEST_F(CurrentOpReportTest, ProgressShowsAsMongodsMeter) {
  bson::Document create = Doc(R"({"createIndexes": "c"})");
  OperationRegistry::Listed listed = Begin(create, OpCounter::kCommand);
  state_.operations.SetProgress(
      listed.opid(), {.message = "Index Build: scanning collection", .done = 250, .total = 1000});
  std::vector<bson::Document> docs = CurrentOpDocuments(state_, {});
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0].Get("msg").String(),
            "Index Build: scanning collection Index Build: scanning collection: 250/1000 25%");
  EXPECT_EQ(docs[0].Get("progress").Document().Get("done").AsInt64(), 250);
  EXPECT_EQ(docs[0].Get("progress").Document().Get("total").AsInt64(), 1000);
}

TEST_F(CurrentOpReportTest, AKilledOperationIsKillPending) {
  bson::Document find = Doc(R"({"find": "c"})");
  OperationRegistry::Listed listed = Begin(find, OpCounter::kQuery);
  ASSERT_TRUE(state_.operations.Kill(listed.opid()));
  std::vector<bson::Document> docs = CurrentOpDocuments(state_, {});
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_TRUE(docs[0].Get("killPending").Bool());
}

TEST_F(CurrentOpReportTest, LongCommandsAreTruncatedOnlyWhenAsked) {
  bson::Document big = Doc(R"({"find": "c", "filter": {"s": ")" + std::string(2000, 'x') +
                           R"("}, "comment": "hi"})");
  OperationRegistry::Listed listed = Begin(big, OpCounter::kQuery);
  std::vector<bson::Document> whole = CurrentOpDocuments(state_, {});
  EXPECT_EQ(whole[0].Get("command").Document().ToJson(), big.ToJson());
  std::vector<bson::Document> cut = CurrentOpDocuments(state_, {.truncate_ops = true});
  bson::DocumentView command = cut[0].Get("command").Document();
  EXPECT_EQ(command.Get("$truncated").String().size(), 1000u);
  EXPECT_TRUE(command.Get("$truncated").String().ends_with("..."));
  EXPECT_EQ(command.Get("comment").String(), "hi");
}

TEST_F(CurrentOpReportTest, IdleConnectionsAreInactive) {
  state_.operations.Connect(9, "10.0.0.1:1");
  EXPECT_TRUE(CurrentOpDocuments(state_, {}).empty());
  std::vector<bson::Document> docs = CurrentOpDocuments(state_, {.idle_connections = true});
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_FALSE(docs[0].Get("active").Bool());
  EXPECT_EQ(docs[0].Get("desc").String(), "conn9");
  EXPECT_FALSE(docs[0].view().Has("opid"));
}

TEST_F(CurrentOpReportTest, OnlyTheUsersOwnOperationsAndConnectionsWhenAsked) {
  const UserName ann{"ann", "admin"};
  const UserName bob{"bob", "shop"};
  state_.operations.Connect(4, "127.0.0.1:1");
  state_.operations.SetUser(4, ann);
  state_.operations.Connect(5, "127.0.0.1:2");
  state_.operations.SetUser(5, bob);
  state_.operations.Connect(6, "127.0.0.1:3");
  state_.operations.SetUser(6, ann);  // idle
  bson::Document find = Doc(R"({"find": "c"})");
  OperationRegistry::Listed anns = Begin(find, OpCounter::kQuery, "db", ann, 4);
  OperationRegistry::Listed bobs = Begin(find, OpCounter::kQuery, "db", bob, 5);
  EXPECT_EQ(CurrentOpDocuments(state_, {.idle_connections = true}).size(), 3u);
  std::vector<bson::Document> own =
      CurrentOpDocuments(state_, {.idle_connections = true, .only_user = ann});
  ASSERT_EQ(own.size(), 2u);
  for (const bson::Document& op : own) {
    EXPECT_EQ(op.view().Get("effectiveUsers").ToJson(),
              R"([ { "user" : "ann", "db" : "admin" } ])");
  }
  EXPECT_EQ(own[0].Get("opid").AsInt64(), anns.opid());
  EXPECT_FALSE(own[1].Get("active").Bool());
  EXPECT_TRUE(state_.operations.StartedBy(anns.opid(), ann));
  EXPECT_FALSE(state_.operations.StartedBy(bobs.opid(), ann));
}

TEST_F(CurrentOpReportTest, StageOptionsParseAsMongods) {
  StatusWith<CurrentOpOptions> parsed =
      ParseCurrentOpStage(Doc(R"({"s": {"allUsers": true, "idleConnections": true,
                                        "localOps": false, "truncateOps": true}})")
                              .Get("s"));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_TRUE(parsed.value().idle_connections);
  EXPECT_TRUE(parsed.value().truncate_ops);
  EXPECT_TRUE(parsed.value().all_users);

  auto code_of = [](std::string_view json) {
    bson::Document doc = Doc(json);
    return ParseCurrentOpStage(doc.Get("s")).status().code();
  };
  EXPECT_EQ(code_of(R"({"s": 1})"), ErrorCode::kTypeMismatch);
  EXPECT_EQ(code_of(R"({"s": {"allUsers": 1}})"), ErrorCode::kTypeMismatch);
  EXPECT_EQ(code_of(R"({"s": {"idleConnections": 1}})"), ErrorCode::kFailedToParse);
  EXPECT_EQ(code_of(R"({"s": {"bogus": true}})"), ErrorCode::kFailedToParse);
  bson::Document bogus = Doc(R"({"s": {"bogus": true}})");
  EXPECT_EQ(ParseCurrentOpStage(bogus.Get("s")).status().reason(),
            "Unrecognized option 'bogus' in $currentOp stage.");
}

}  // namespace
}  // namespace quarry::commands
