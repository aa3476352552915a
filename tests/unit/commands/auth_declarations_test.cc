#include <gtest/gtest.h>

#include "commands/auth/failure_throttle.h"
#include "commands/command.h"
#include "commands/register.h"

namespace quarry::commands {
namespace {

StatusWith<bson::Document> RunNothing(CommandContext&, const Request&) { return bson::Document(); }

TEST(AuthDeclarationsTest, EveryRegisteredCommandDeclaresWhatItNeeds) {
  CommandRegistry registry;
  RegisterAllCommands(registry);
  RegisterTestCommands(registry);
  Status declared = registry.CheckDeclarations();
  EXPECT_TRUE(declared.ok()) << declared.ToString();
}

TEST(AuthDeclarationsTest, ACommandWithoutADeclarationIsRefused) {
  CommandRegistry registry;
  registry.Add({.name = "open", .run = RunNothing, .auth = OpenToAll()});
  registry.Add({.name = "undeclared", .run = RunNothing});
  registry.Add({.name = "noActions", .run = RunNothing, .auth = OnNamespace({})});
  Status declared = registry.CheckDeclarations();
  EXPECT_EQ(declared.code(), ErrorCode::kInternalError);
  EXPECT_NE(declared.reason().find("undeclared"), std::string::npos);
  EXPECT_NE(declared.reason().find("noActions"), std::string::npos);
  EXPECT_EQ(declared.reason().find("open"), std::string::npos);
}

TEST(FailureThrottleTest, DelaysGrowWithRecentFailuresOfOneAddressOnly) {
  FailureThrottle throttle;
  const auto now = FailureThrottle::Clock::now();
  EXPECT_EQ(throttle.RecordFailure("10.0.0.1", now).count(), 0);
  EXPECT_EQ(throttle.RecordFailure("10.0.0.1", now).count(), 100);
  EXPECT_EQ(throttle.RecordFailure("10.0.0.1", now).count(), 200);
  EXPECT_EQ(throttle.RecordFailure("10.0.0.2", now).count(), 0);
  for (int i = 0; i < 20; ++i) throttle.RecordFailure("10.0.0.1", now);
  EXPECT_EQ(throttle.RecordFailure("10.0.0.1", now), FailureThrottle::kMaxDelay);
  // Failures a window apart do not add up; a success forgets them.
  EXPECT_EQ(throttle.RecordFailure("10.0.0.1", now + std::chrono::minutes(2)).count(), 0);
  throttle.RecordFailure("10.0.0.2", now);
  throttle.RecordSuccess("10.0.0.2");
  EXPECT_EQ(throttle.RecordFailure("10.0.0.2", now).count(), 0);
}

TEST(FailureThrottleTest, AddressOfDropsThePort) {
  EXPECT_EQ(AddressOf("127.0.0.1:5000"), "127.0.0.1");
  EXPECT_EQ(AddressOf("[::1]:5000"), "::1");
  EXPECT_EQ(AddressOf("::1"), "::1");
}

}  // namespace
}  // namespace quarry::commands
