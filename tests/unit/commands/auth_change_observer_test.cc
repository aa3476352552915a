// Direct writes to the users and roles collections make connected users' privileges stale.
#include "commands/auth/auth_change_observer.h"

#include <gtest/gtest.h>

#include <string_view>

#include "commands_test_util.h"

namespace quarry::commands {
namespace {

using testing::Doc;

std::uint64_t GenerationAfter(std::string_view entry_json) {
  AuthState state;
  AuthChangeObserver observer(&state);
  bson::Document entry = Doc(entry_json);
  storage::CommittedBatch batch;
  batch.entries.push_back({.ts = 1, .collection = 0, .entry = entry.view()});
  observer.OnCommit(batch);
  return state.generation.load();
}

TEST(AuthChangeObserverTest, WritesToUsersRolesAndAdminCommandsBumpTheGeneration) {
  const std::uint64_t unchanged = AuthState().generation.load();
  EXPECT_GT(GenerationAfter(R"({"op": "u", "ns": "admin.system.users", "o": {}})"), unchanged);
  EXPECT_GT(GenerationAfter(R"({"op": "d", "ns": "admin.system.roles", "o": {}})"), unchanged);
  EXPECT_GT(GenerationAfter(R"({"op": "c", "ns": "admin.$cmd", "o": {"drop": "x"}})"), unchanged);
}

TEST(AuthChangeObserverTest, OtherWritesLeaveItAlone) {
  const std::uint64_t unchanged = AuthState().generation.load();
  EXPECT_EQ(GenerationAfter(R"({"op": "i", "ns": "shop.system.users", "o": {}})"), unchanged);
  EXPECT_EQ(GenerationAfter(R"({"op": "i", "ns": "admin.items", "o": {}})"), unchanged);
  EXPECT_EQ(GenerationAfter(R"({"op": "c", "ns": "shop.$cmd", "o": {"drop": "x"}})"), unchanged);
}

}  // namespace
}  // namespace quarry::commands
