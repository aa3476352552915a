// currentOp's documents and $currentOp's options, in mongod's shape.
#include "commands/diagnostics/current_op_report.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "auth/user_digest.h"
#include "bson/path.h"
#include "commands/session_control.h"
#include "commands_test_util.h"

namespace quarry::commands {
namespace {

using testing::Doc;

// The server's open transactions, as the session catalog lists them.
class ListedTransactions final : public SessionControl {
 public:
  void End(const std::string&) override {}
  void Refresh(const std::string&) override {}
  void Kill(const std::string&) override {}
  void KillOfUser(const std::string&) override {}
  void KillAll() override {}
  std::vector<LocalSession> List() const override { return {}; }
  std::vector<OpenTransaction> OpenTransactions() const override { return open; }

  std::vector<OpenTransaction> open;
};

class CurrentOpReportTest : public ::testing::Test {
 protected:
  CurrentOpReportTest() {
    state_.host_name = "box";
    state_.config.port = 27017;
    state_.sessions = &sessions_;
  }

  static std::string Key(const std::string& uid) { return std::string(16, '\x11') + uid; }

  // Transaction 3 of session Key(uid), opened 5 ms ago at 2023-11-14T22:13:20Z, active 2 ms.
  static OpenTransaction Transaction(const std::string& uid, bool active) {
    OpenTransaction txn;
    txn.session_key = Key(uid);
    txn.txn_number = 3;
    txn.read_concern = Doc(R"({"level": "snapshot", "provenance": "clientSupplied"})");
    txn.read_timestamp = (std::uint64_t{1700000000} << 32) | 7;
    txn.start_wall_ms = 1700000000000;
    txn.expiry_wall_ms = 1700000060000;
    txn.open_micros = 5000;
    txn.active_micros = 2000;
    txn.active = active;
    txn.last_client.id = 12;
    txn.last_client.remote = "127.0.0.1:7777";
    return txn;
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

  ListedTransactions sessions_;
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

TEST_F(CurrentOpReportTest, ACommandOfATransactionShowsItsLsidAndTransaction) {
  const std::string uid = auth::NoUserDigest();
  sessions_.open.push_back(Transaction(uid, /*active=*/true));
  bson::Document insert =
      Doc(R"({"insert": "c", "txnNumber": {"$numberLong": "3"}, "autocommit": false})");
  OperationRegistry::Listed listed = Begin(insert, OpCounter::kInsert);
  state_.operations.SetSession(listed.opid(), Key(uid));
  std::vector<bson::Document> docs = CurrentOpDocuments(state_, {});
  ASSERT_EQ(docs.size(), 1u);  // a transaction with a command running is no idle session
  bson::DocumentView op = docs[0].view();
  bson::DocumentView lsid = op.Get("lsid").Document();
  EXPECT_EQ(lsid.Get("id").Binary().subtype, 4);
  EXPECT_EQ(lsid.Get("id").Binary().data, std::string(16, '\x11'));
  EXPECT_EQ(lsid.Get("uid").Binary().data, uid);
  EXPECT_EQ(op.Get("transaction").ToJson(),
            Doc(R"({"t": {"parameters": {"txnNumber": {"$numberLong": "3"}, "txnRetryCounter": 0,
                                         "autocommit": false,
                                         "readConcern": {"level": "snapshot",
                                                         "provenance": "clientSupplied"}},
                          "readTimestamp": {"$timestamp": {"t": 1700000000, "i": 7}},
                          "startWallClockTime": "2023-11-14T22:13:20.000+00:00",
                          "timeOpenMicros": {"$numberLong": "5000"},
                          "timeActiveMicros": {"$numberLong": "2000"},
                          "timeInactiveMicros": {"$numberLong": "3000"},
                          "expiryTime": "2023-11-14T22:14:20.000+00:00"}})")
                .Get("t")
                .ToJson());
  // JSON shows numbers alike; mongod's types are these.
  for (std::string_view path : {"transaction.parameters.txnNumber", "transaction.timeOpenMicros",
                                "transaction.timeActiveMicros", "transaction.timeInactiveMicros"}) {
    EXPECT_EQ(bson::GetPath(op, path).type(), bson::Type::kInt64) << path;
  }
  EXPECT_EQ(bson::GetPath(op, "transaction.parameters.txnRetryCounter").type(), bson::Type::kInt32);
  EXPECT_EQ(bson::GetPath(op, "transaction.readTimestamp").type(), bson::Type::kTimestamp);
}

TEST_F(CurrentOpReportTest, ARetryableWriteShowsItsNumberAndAPlainCommandNone) {
  bson::Document update = Doc(R"({"update": "c", "txnNumber": {"$numberLong": "8"}})");
  bson::Document find = Doc(R"({"find": "c"})");
  OperationRegistry::Listed write = Begin(update, OpCounter::kUpdate);
  OperationRegistry::Listed read = Begin(find, OpCounter::kQuery);
  state_.operations.SetSession(write.opid(), Key(auth::NoUserDigest()));
  state_.operations.SetSession(read.opid(), Key(auth::NoUserDigest()));
  std::vector<bson::Document> docs = CurrentOpDocuments(state_, {});
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(docs[0].view().Get("transaction").ToJson(),
            R"({ "parameters" : { "txnNumber" : 8 } })");
  EXPECT_EQ(bson::GetPath(docs[0].view(), "transaction.parameters.txnNumber").type(),
            bson::Type::kInt64);
  EXPECT_TRUE(docs[1].view().Has("lsid"));
  EXPECT_FALSE(docs[1].view().Has("transaction"));
}

TEST_F(CurrentOpReportTest, AnOpenTransactionNoCommandRunsInIsAnIdleSession) {
  const std::string anns = auth::UserDigest("ann", "admin");
  sessions_.open.push_back(Transaction(anns, /*active=*/false));
  std::vector<bson::Document> docs = CurrentOpDocuments(state_, {});
  ASSERT_EQ(docs.size(), 1u);
  bson::DocumentView idle = docs[0].view();
  EXPECT_EQ(idle.Get("type").String(), "idleSession");
  EXPECT_EQ(idle.Get("host").String(), "box:27017");
  EXPECT_EQ(idle.Get("desc").String(), "inactive transaction");
  EXPECT_EQ(idle.Get("client").String(), "127.0.0.1:7777");
  EXPECT_EQ(idle.Get("connectionId").type(), bson::Type::kInt64);
  EXPECT_EQ(idle.Get("connectionId").AsInt64(), 12);
  EXPECT_EQ(idle.Get("appName").String(), "");
  EXPECT_TRUE(idle.Get("clientMetadata").Document().empty());
  EXPECT_EQ(idle.Get("lsid").Document().Get("uid").Binary().data, anns);
  EXPECT_EQ(bson::GetPath(idle, "transaction.timeInactiveMicros").AsInt64(), 3000);
  EXPECT_FALSE(idle.Get("waitingForLock").Bool());
  EXPECT_FALSE(idle.Get("active").Bool());
  EXPECT_FALSE(idle.Has("opid"));

  EXPECT_TRUE(CurrentOpDocuments(state_, {.idle_sessions = false}).empty());
  // Without allUsers under --auth: the caller's own sessions only.
  EXPECT_EQ(CurrentOpDocuments(state_, {.only_user = UserName{"ann", "admin"}}).size(), 1u);
  EXPECT_TRUE(CurrentOpDocuments(state_, {.only_user = UserName{"bob", "admin"}}).empty());
}

TEST_F(CurrentOpReportTest, TheStageListsIdleSessionsUnlessAskedNotTo) {
  bson::Document spec = Doc(R"({"none": {}, "off": {"idleSessions": false}})");
  StatusWith<CurrentOpOptions> none = ParseCurrentOpStage(spec.Get("none"));
  StatusWith<CurrentOpOptions> off = ParseCurrentOpStage(spec.Get("off"));
  ASSERT_TRUE(none.ok() && off.ok());
  EXPECT_TRUE(none.value().idle_sessions);
  EXPECT_FALSE(off.value().idle_sessions);
}

}  // namespace
}  // namespace quarry::commands
