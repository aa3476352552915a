#include "server/testing/fail_points.h"

#include "commands/command_context.h"

namespace quarry::server {

std::optional<FailCommandAction> FailPoints::FailCommand(std::string_view command,
                                                         std::string_view app_name) {
  return fail_command_.Check(command, app_name);
}

Status FailPoints::AfterCursorCheckout(commands::CommandContext& ctx) {
  std::optional<FailCommandAction> fail =
      fail_get_more_.Check("getMore", ctx.connection().app_name);
  if (!fail.has_value() || !fail->error_code.has_value()) return Status::OK();
  return Status(static_cast<ErrorCode>(*fail->error_code),
                "Failing getMore via 'failGetMoreAfterCursorCheckout' failpoint");
}

// As mongod's: it acts on a write that really executes (a statement an earlier attempt
// executed never reaches a commit), and closes the connection unless told not to. With
// failBeforeCommitExceptionCode the write fails before it commits; otherwise it commits and
// only the reply is lost, so the driver's retry finds the statements executed.
Status FailPoints::BeforeRetryableCommit(commands::CommandContext& ctx) {
  std::optional<FailCommandAction> fail =
      fail_primary_write_.Check(ctx.command_name(), ctx.connection().app_name);
  if (!fail.has_value()) return Status::OK();
  if (!fail->close_connection_given || fail->close_connection) {
    ctx.CloseConnectionInsteadOfReplying();
  }
  if (fail->fail_before_commit_code.has_value()) {
    return Status(static_cast<ErrorCode>(*fail->fail_before_commit_code),
                  "Failing the write via the 'onPrimaryTransactionalWrite' fail point");
  }
  return Status::OK();
}

StatusWith<std::int64_t> FailPoints::Configure(std::string_view name, bson::ValueView mode,
                                               bson::DocumentView data) {
  if (name == "failCommand")
    return fail_command_.Configure(mode, data, /*needs_command_list=*/true);
  if (name == "failGetMoreAfterCursorCheckout") return fail_get_more_.Configure(mode, data, false);
  if (name == "onPrimaryTransactionalWrite")
    return fail_primary_write_.Configure(mode, data, false);
  return Status(ErrorCode::kBadValue,
                "Unknown fail point: " + std::string(name) +
                    " (Quarry has failCommand, failGetMoreAfterCursorCheckout and "
                    "onPrimaryTransactionalWrite)");
}

}  // namespace quarry::server
