// OperationRegistry: what currentOp lists while requests run, and what killOp reaches.
#include "commands/operation_registry.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

#include "commands/service_state.h"
#include "commands_test_util.h"

namespace quarry::commands {
namespace {

using testing::Doc;

class OperationRegistryTest : public ::testing::Test {
 protected:
  OperationRegistry::Listed Begin(std::int64_t connection_id,
                                  std::shared_ptr<Interrupt> interrupt = nullptr) {
    RunningOperation operation;
    operation.connection_id = connection_id;
    operation.db = "db";
    operation.command = command_.view();
    operation.counter = OpCounter::kQuery;
    operation.started = std::chrono::steady_clock::now();
    operation.interrupt = interrupt != nullptr ? interrupt : std::make_shared<Interrupt>();
    return registry_.Begin(std::move(operation));
  }

  // (opid or 0 for an idle connection, connection id or 0) of each visit, in order.
  std::vector<std::pair<std::int32_t, std::int64_t>> Visits(bool idle_connections) {
    std::vector<std::pair<std::int32_t, std::int64_t>> visits;
    registry_.ForEach(idle_connections,
                      [&](const RunningOperation* operation, const ClientConnection* connection) {
                        visits.emplace_back(operation == nullptr ? 0 : operation->opid,
                                            connection == nullptr ? 0 : connection->id);
                      });
    return visits;
  }

  bson::Document command_ = Doc(R"({"find": "c", "filter": {"a": 1}})");
  OperationRegistry registry_;
};

TEST_F(OperationRegistryTest, AnOperationIsListedUntilItsHandleGoes) {
  registry_.Connect(7, "127.0.0.1:5000");
  {
    OperationRegistry::Listed listed = Begin(7);
    EXPECT_GT(listed.opid(), 0);
    EXPECT_EQ(registry_.size(), 1u);
    EXPECT_EQ(Visits(false),
              (std::vector<std::pair<std::int32_t, std::int64_t>>{{listed.opid(), 7}}));
  }
  EXPECT_EQ(registry_.size(), 0u);
  EXPECT_TRUE(Visits(false).empty());
}

TEST_F(OperationRegistryTest, OpidsAreUniqueAndGrow) {
  std::set<std::int32_t> seen;
  std::int32_t last = 0;
  for (int i = 0; i < 100; ++i) {
    OperationRegistry::Listed listed = Begin(0);
    EXPECT_GT(listed.opid(), last);
    last = listed.opid();
    EXPECT_TRUE(seen.insert(listed.opid()).second);
  }
}

TEST_F(OperationRegistryTest, IdleConnectionsAreVisitedOnlyWhenAsked) {
  registry_.Connect(1, "a:1");
  registry_.Connect(2, "b:2");
  OperationRegistry::Listed listed = Begin(2);
  EXPECT_EQ(Visits(false),
            (std::vector<std::pair<std::int32_t, std::int64_t>>{{listed.opid(), 2}}));
  EXPECT_EQ(Visits(true),
            (std::vector<std::pair<std::int32_t, std::int64_t>>{{listed.opid(), 2}, {0, 1}}));
  listed.Reset();
  EXPECT_EQ(Visits(true), (std::vector<std::pair<std::int32_t, std::int64_t>>{{0, 1}, {0, 2}}));
  registry_.Disconnect(1);
  EXPECT_EQ(Visits(true), (std::vector<std::pair<std::int32_t, std::int64_t>>{{0, 2}}));
}

TEST_F(OperationRegistryTest, KillInterruptsTheOperationWithInterrupted) {
  auto interrupt = std::make_shared<Interrupt>();
  OperationRegistry::Listed listed = Begin(0, interrupt);
  EXPECT_TRUE(registry_.Kill(listed.opid()));
  Status checked = interrupt->Check();
  EXPECT_EQ(checked.code(), ErrorCode::kInterrupted);
  EXPECT_EQ(checked.reason(), "operation was interrupted");
}

TEST_F(OperationRegistryTest, KillOfAnUnknownOrFinishedOpidFindsNothing) {
  EXPECT_FALSE(registry_.Kill(12345));
  auto interrupt = std::make_shared<Interrupt>();
  std::int32_t opid = 0;
  {
    OperationRegistry::Listed listed = Begin(0, interrupt);
    opid = listed.opid();
  }
  EXPECT_FALSE(registry_.Kill(opid));
  EXPECT_TRUE(interrupt->Check().ok());
}

TEST_F(OperationRegistryTest, KillReachesTheInterruptSetLater) {
  auto cursor_interrupt = std::make_shared<Interrupt>();
  OperationRegistry::Listed listed = Begin(0);
  registry_.SetInterrupt(listed.opid(), cursor_interrupt);
  EXPECT_TRUE(registry_.Kill(listed.opid()));
  EXPECT_EQ(cursor_interrupt->Check().code(), ErrorCode::kInterrupted);
}

TEST_F(OperationRegistryTest, ShutdownKillsTheRunningAndEveryLaterOperation) {
  auto running = std::make_shared<Interrupt>();
  OperationRegistry::Listed first = Begin(0, running);
  OperationRegistry::Listed second = Begin(0);
  EXPECT_EQ(registry_.KillAllForShutdown(), 2u);
  Status checked = running->Check();
  EXPECT_EQ(checked.code(), ErrorCode::kInterruptedAtShutdown);
  EXPECT_EQ(checked.reason(), "interrupted at shutdown");
  // One that starts afterwards, and a cursor's Interrupt swapped in afterwards, are killed too.
  auto later = std::make_shared<Interrupt>();
  OperationRegistry::Listed third = Begin(0, later);
  EXPECT_EQ(later->Check().code(), ErrorCode::kInterruptedAtShutdown);
  auto cursor_interrupt = std::make_shared<Interrupt>();
  registry_.SetInterrupt(second.opid(), cursor_interrupt);
  EXPECT_EQ(cursor_interrupt->Check().code(), ErrorCode::kInterruptedAtShutdown);
}

TEST_F(OperationRegistryTest, ProgressAndMetadataAreReported) {
  registry_.Connect(3, "c:3");
  registry_.SetClientMetadata(3, Doc(R"({"application": {"name": "app"}})"));
  OperationRegistry::Listed listed = Begin(3);
  registry_.SetProgress(listed.opid(), {.message = "m", .done = 5, .total = 10});
  int visits = 0;
  registry_.ForEach(false,
                    [&](const RunningOperation* operation, const ClientConnection* connection) {
                      ++visits;
                      ASSERT_NE(operation, nullptr);
                      ASSERT_TRUE(operation->progress.has_value());
                      EXPECT_EQ(operation->progress->done, 5u);
                      EXPECT_EQ(operation->progress->total, 10u);
                      ASSERT_NE(connection, nullptr);
                      ASSERT_NE(connection->metadata, nullptr);
                      EXPECT_EQ(connection->remote, "c:3");
                      EXPECT_EQ(connection->metadata->view().ToJson(),
                                Doc(R"({"application": {"name": "app"}})").ToJson());
                    });
  EXPECT_EQ(visits, 1);
}

TEST_F(OperationRegistryTest, MovedHandlesUnlistOnce) {
  OperationRegistry::Listed first = Begin(0);
  OperationRegistry::Listed second = Begin(0);
  const std::int32_t second_opid = second.opid();
  first = std::move(second);  // unlists the first, keeps the second
  EXPECT_EQ(registry_.size(), 1u);
  EXPECT_EQ(first.opid(), second_opid);
  first.Reset();
  first.Reset();
  EXPECT_EQ(registry_.size(), 0u);
}

TEST_F(OperationRegistryTest, ConcurrentRequestsEachGetTheirOwnOpid) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 2000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this] {
      for (int i = 0; i < kPerThread; ++i) {
        OperationRegistry::Listed listed = Begin(0);
        (void)registry_.Kill(listed.opid());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(registry_.size(), 0u);
}

}  // namespace
}  // namespace quarry::commands
