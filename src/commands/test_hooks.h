// Where --enableTestCommands' fail points reach into commands (drivers' specification tests
// rely on them). server/ implements it; production servers have none.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"
#include "bson/value.h"

namespace quarry::commands {

class CommandContext;

class TestHooks {
 public:
  virtual ~TestHooks() = default;
  // failGetMoreAfterCursorCheckout: an error for a getMore that has checked out its cursor.
  virtual Status AfterCursorCheckout(CommandContext& ctx) = 0;
  // onPrimaryTransactionalWrite: before a retryable write commits a change. May fail the write,
  // or let it commit and ask, on `ctx`, that the connection close instead of replying.
  virtual Status BeforeRetryableCommit(CommandContext& ctx) = 0;
  // configureFailPoint: sets fail point `name`'s mode and data; returns how many times it was
  // hit before. Unknown names fail with BadValue.
  virtual StatusWith<std::int64_t> Configure(std::string_view name, bson::ValueView mode,
                                             bson::DocumentView data) = 0;
};

}  // namespace quarry::commands
