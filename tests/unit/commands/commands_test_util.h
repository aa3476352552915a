// Helpers for commands/ tests: the CRUD commands registered over a real engine, catalog and
// cursor manager, run one request at a time through a CommandContext; and a retryable write
// whose earlier attempt the test decides.
#pragma once

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../exec/exec_test_util.h"
#include "commands/command.h"
#include "commands/command_context.h"
#include "commands/register.h"
#include "commands/retryable_write.h"
#include "cursors/cursor_manager.h"

namespace quarry::commands::testing {

using exec::testing::Doc;
using exec::testing::DocumentIn;
using exec::testing::StringIn;

// Statements an earlier attempt executed (set by the test), and what the handler records.
class FakeRetryableWrite final : public RetryableWrite {
 public:
  std::optional<bson::Document> Executed(std::size_t stmt) const override {
    auto it = executed.find(stmt);
    if (it == executed.end()) return std::nullopt;
    return it->second;
  }
  void Record(storage::WriteUnit*, std::size_t, std::size_t stmt,
              bson::DocumentView outcome) override {
    recorded.emplace_back(stmt, bson::Document::Copy(outcome));
  }

  std::map<std::size_t, bson::Document> executed;
  std::vector<std::pair<std::size_t, bson::Document>> recorded;
};

// The CRUD commands over the exec fixture's engine and catalog; requests run on database "db",
// whose collection "c" exists and is empty.
class CommandFixture : public exec::testing::ExecFixture {
 protected:
  void SetUp() override {
    ExecFixture::SetUp();
    cursors_ = std::make_unique<cursors::CursorManager>();
    state_.engine = engine_.get();
    state_.catalog = catalog_.get();
    state_.cursors = cursors_.get();
    RegisterCrudCommands(registry_);
    state_.registry = &registry_;
  }

  void TearDown() override {
    ctx_.reset();
    cursors_.reset();  // cursors hold plans over the engine
    ExecFixture::TearDown();
  }

  // Runs command `body` (JSON) on database "db" in a new context, as dispatch makes one per
  // request; ctx() keeps it for the test to inspect.
  StatusWith<bson::Document> Run(std::string_view body, RetryableWrite* retryable = nullptr) {
    ctx_ = std::make_unique<CommandContext>(state_, connection_);
    ctx_->set_retryable_write(retryable);
    bodies_.push_back(Doc(body));
    Request request;
    request.body = bodies_.back();
    request.name = request.body.FirstKey();
    request.db = "db";
    const Command* command = registry_.Find(request.name);
    if (command == nullptr) return Status(ErrorCode::kCommandNotFound, std::string(request.name));
    ctx_->set_command_name(request.name);
    return command->run(*ctx_, request);
  }

  // Runs `body` and expects it to succeed.
  bson::Document RunOk(std::string_view body, RetryableWrite* retryable = nullptr) {
    StatusWith<bson::Document> reply = Run(body, retryable);
    EXPECT_TRUE(reply.ok()) << reply.status().ToString() << " for " << body;
    return reply.ok() ? std::move(reply).value() : bson::Document();
  }

  CommandContext& ctx() { return *ctx_; }
  const WriteOutcome& outcome() const { return ctx_->write_outcome(); }

  // The indexes of a reply's writeErrors, in reply order.
  static std::vector<std::size_t> ErrorIndexes(bson::DocumentView reply) {
    std::vector<std::size_t> indexes;
    bson::ValueView errors = reply.Get("writeErrors");
    if (!errors.exists()) return indexes;
    for (const bson::Element& e : errors.Document()) {
      indexes.push_back(static_cast<std::size_t>(e.value.Document().Get("index").AsInt64()));
    }
    return indexes;
  }

  static std::vector<std::size_t> ErrorIndexes(const WriteOutcome& outcome) {
    std::vector<std::size_t> indexes;
    for (const WriteError& error : outcome.errors) indexes.push_back(error.index);
    return indexes;
  }

  std::unique_ptr<cursors::CursorManager> cursors_;
  ServiceState state_;
  ConnectionState connection_;
  CommandRegistry registry_;
  std::unique_ptr<CommandContext> ctx_;
  std::deque<bson::Document> bodies_;  // requests view their bodies
};

}  // namespace quarry::commands::testing
