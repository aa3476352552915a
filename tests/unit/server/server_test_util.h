// Helpers for server/ tests: a Service over a real engine in a temporary directory that can be
// closed and reopened as a restart does, requests sent through a Client as a connection sends
// them, and readers for what a test checks afterwards (serverStatus, stored documents, the
// retryable-write records in the meta family).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../storage/storage_test_util.h"
#include "base/endian.h"
#include "bson/builder.h"
#include "bson/json.h"
#include "bson/path.h"
#include "catalog/catalog.h"
#include "commands/service_state.h"
#include "cursors/cursor_manager.h"
#include "server/service.h"
#include "server/sessions/retryable_writes.h"
#include "storage/engine.h"
#include "wire/request.h"
#include "wire/request_handler.h"

namespace quarry::server::testing {

inline bson::Document Doc(std::string_view json) {
  StatusWith<bson::Document> doc = bson::FromJson(json);
  EXPECT_TRUE(doc.ok()) << doc.status().ToString() << " in " << json;
  return doc.ok() ? std::move(doc).value() : bson::Document();
}

// A 16-byte session id (an lsid's UUID), different for each `n`.
inline std::string SessionId(int n) {
  std::string id(16, '\x5a');
  id[0] = static_cast<char>(n);
  id[1] = static_cast<char>(n >> 8);
  return id;
}

// `command` with the generic arguments a driver adds for a session and, when given, the
// txnNumber of a retryable write.
inline bson::Document WithSession(std::string_view command, const std::string& session_id,
                                  std::optional<std::int64_t> txn_number = std::nullopt) {
  bson::DocumentBuilder b;
  b.AppendElements(Doc(command));
  b.OpenDocument("lsid").AppendBinary("id", 4, session_id).Close();
  if (txn_number.has_value()) b.AppendInt64("txnNumber", *txn_number);
  return std::move(b).Finish();
}

// {`command`: [{id: <session_id>}], $db: "admin"}: endSessions, killSessions, refreshSessions.
inline bson::Document SessionsCommand(std::string_view command, const std::string& session_id) {
  bson::DocumentBuilder b;
  b.OpenArray(command).OpenDocument("0").AppendBinary("id", 4, session_id).Close().Close();
  b.AppendString("$db", "admin");
  return std::move(b).Finish();
}

// An OP_MSG request whose body is `body` (which must outlive the request).
inline wire::Request MsgRequest(const bson::Document& body, std::uint32_t flag_bits = 0) {
  wire::Request request;
  request.op_code = wire::OpCode::kMsg;
  request.flag_bits = flag_bits;
  request.body = body.view();
  return request;
}

// A number of a reply, whatever its BSON type; -1 when the path is absent or not a number.
inline std::int64_t NumberAt(bson::DocumentView doc, std::string_view path) {
  bson::ValueView value = bson::GetPath(doc, path);
  return value.IsNumber() ? value.AsInt64() : -1;
}

// The strings of the array at `field` of `doc` (errorLabels), empty when it is absent.
inline std::vector<std::string> Strings(bson::DocumentView doc, std::string_view field) {
  std::vector<std::string> strings;
  bson::ValueView array = doc.Get(field);
  if (array.type() != bson::Type::kArray) return strings;
  for (const bson::Element& e : array.Document()) {
    strings.emplace_back(e.value.type() == bson::Type::kString ? e.value.String()
                                                               : "<not a string>");
  }
  return strings;
}

// The txnNumbers the retryable-write records of `session_id` hold, one per record ("session/" +
// lsid + sequence number; the number is the record's `txn`).
inline std::vector<std::int64_t> RecordedTxnNumbers(const storage::Engine& engine,
                                                    const std::string& session_id) {
  std::vector<std::int64_t> txns;
  auto stored = engine.meta().List("session/" + session_id);
  EXPECT_TRUE(stored.ok()) << stored.status().ToString();
  if (!stored.ok()) return txns;
  for (const auto& [name, value] : stored.value()) txns.push_back(RecordTxnNumber(value));
  return txns;
}

// A Service over an engine in a fresh directory (removed at the end), with test commands
// enabled unless a test turns them off before reopening, and one connected client. Restart()
// closes everything and reopens the same directory with a new Service, as a restart does.
class ServerFixture : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }
  void TearDown() override { Close(); }

  void Open() {
    engine_ = storage::testing::OpenEngine(dir_.path());
    ASSERT_NE(engine_, nullptr);
    auto catalog = catalog::Catalog::Load(engine_.get());
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    catalog_ = std::move(catalog).value();
    cursors_ = std::make_unique<cursors::CursorManager>();
    state_ = std::make_unique<commands::ServiceState>();
    state_->config.enable_test_commands = enable_test_commands_;
    state_->engine = engine_.get();
    state_->catalog = catalog_.get();
    state_->cursors = cursors_.get();
    service_ = std::make_unique<Service>(*state_);
    Status attached = service_->Attach(engine_.get());
    ASSERT_TRUE(attached.ok()) << attached.ToString();
    client_ = service_->NewClient(1, "127.0.0.1:50001");
  }

  void Close() {
    client_.reset();
    service_.reset();
    state_.reset();
    cursors_.reset();
    catalog_.reset();
    if (engine_ != nullptr) {
      Status closed = engine_->Close();
      EXPECT_TRUE(closed.ok()) << closed.ToString();
    }
    engine_.reset();
  }

  void Restart() {
    Close();
    Open();
  }

  // What `client` answers to `body` sent in an OP_MSG with `flag_bits`.
  static wire::Response Send(wire::ConnectionHandler& client, const bson::Document& body,
                             std::uint32_t flag_bits = 0) {
    return client.Handle(MsgRequest(body, flag_bits));
  }
  wire::Response Send(const bson::Document& body, std::uint32_t flag_bits = 0) {
    return Send(*client_, body, flag_bits);
  }

  // The reply to `command` on the fixture's client; `command` gets $db "db" unless it names one.
  bson::Document Run(const bson::Document& command) { return Run(*client_, command); }
  bson::Document Run(std::string_view json) { return Run(Doc(json)); }
  static bson::Document Run(wire::ConnectionHandler& client, const bson::Document& command) {
    bson::Document body = command;
    if (!command.view().Has("$db")) {
      bson::DocumentBuilder b;
      b.AppendElements(command);
      b.AppendString("$db", "db");
      body = std::move(b).Finish();
    }
    wire::Response response = Send(client, body);
    EXPECT_TRUE(response.send) << "no reply to " << body.ToJson();
    return std::move(response.body);
  }

  // serverStatus' number at `path` ("opcounters.insert").
  std::int64_t StatusNumber(std::string_view path) {
    return NumberAt(Run(R"({"serverStatus": 1, "$db": "admin"})"), path);
  }

  // How many documents of db.`coll` match `filter` (JSON).
  std::int64_t CountDocs(std::string_view coll, std::string_view filter = "{}") {
    bson::DocumentBuilder b;
    b.AppendString("count", coll);
    b.AppendDocument("query", Doc(filter));
    bson::Document reply = Run(std::move(b).Finish());
    EXPECT_EQ(NumberAt(reply, "ok"), 1) << reply.ToJson();
    return NumberAt(reply, "n");
  }

  // The first document of db.`coll` matching `filter`, or {} when none does.
  bson::Document FindOne(std::string_view coll, std::string_view filter) {
    bson::DocumentBuilder b;
    b.AppendString("find", coll);
    b.AppendDocument("filter", Doc(filter));
    bson::Document reply = Run(std::move(b).Finish());
    bson::ValueView first = bson::GetPath(reply, "cursor.firstBatch.0");
    return first.type() == bson::Type::kDocument ? bson::Document::Copy(first.Document())
                                                 : bson::Document();
  }

  std::vector<std::int64_t> RecordedTxns(const std::string& session_id) const {
    return RecordedTxnNumbers(*engine_, session_id);
  }

  storage::testing::TempDir dir_;
  bool enable_test_commands_ = true;  // read by Open()
  std::unique_ptr<storage::Engine> engine_;
  std::unique_ptr<catalog::Catalog> catalog_;
  std::unique_ptr<cursors::CursorManager> cursors_;
  std::unique_ptr<commands::ServiceState> state_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<wire::ConnectionHandler> client_;
};

}  // namespace quarry::server::testing
