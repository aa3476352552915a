// The fail points Quarry has, behind the one test hook dispatch and commands call: failCommand
// (at dispatch), failGetMoreAfterCursorCheckout and onPrimaryTransactionalWrite (commands/'s
// TestHooks). Drivers' specification tests configure them with configureFailPoint.
#pragma once

#include <optional>
#include <string_view>

#include "commands/test_hooks.h"
#include "server/testing/fail_point.h"

namespace quarry::server {

class FailPoints final : public commands::TestHooks {
 public:
  // failCommand: what happens to `command` from a client named `app_name`, if it is hit.
  std::optional<FailCommandAction> FailCommand(std::string_view command, std::string_view app_name);

  Status AfterCursorCheckout(commands::CommandContext& ctx) override;
  Status BeforeRetryableCommit(commands::CommandContext& ctx) override;
  StatusWith<std::int64_t> Configure(std::string_view name, bson::ValueView mode,
                                     bson::DocumentView data) override;

 private:
  FailPoint fail_command_;
  FailPoint fail_get_more_;       // failGetMoreAfterCursorCheckout
  FailPoint fail_primary_write_;  // onPrimaryTransactionalWrite
};

}  // namespace quarry::server
