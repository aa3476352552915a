// commitTransaction and abortTransaction. server/ has already resolved the session's
// transaction (and refused what mongod refuses: a transaction not in progress, an aborted one);
// these commit or drop its writes.
#include "bson/builder.h"
#include "commands/command_context.h"
#include "commands/execution.h"
#include "commands/register.h"
#include "commands/request_parser.h"
#include "exec/index_maintenance.h"
#include "storage/engine.h"
#include "storage/transaction.h"

namespace quarry::commands {
namespace {

// mongod parses both strictly, and answers CommandFailed when no transaction is named.
Status CheckNamesATransaction(const Request& request) {
  QUARRY_RETURN_IF_ERROR(RequestParser(request).Finish());
  if (request.Field("txnNumber").exists()) return Status::OK();
  return Status(ErrorCode::kCommandFailed,
                std::string(request.name) + " must be run within a transaction");
}

StatusWith<bson::Document> RunCommitTransaction(CommandContext& ctx, const Request& request) {
  QUARRY_RETURN_IF_ERROR(CheckNamesATransaction(request));
  storage::Transaction* txn = ctx.transaction();
  if (txn == nullptr) return bson::Document();  // committed before: a retry succeeds again
  if (!txn->has_writes()) return bson::Document();
  storage::CommitOptions options = CommitOptionsFor(ctx, /*ordered=*/true);
  QUARRY_ASSIGN_OR_RETURN(
      storage::CommitResult result,
      exec::CommitTransaction(ctx.catalog(), ctx.engine().pipeline(), *txn, options));
  if (!result.errors.empty()) return result.errors.front().status;
  QUARRY_RETURN_IF_ERROR(result.sync_status);
  return bson::Document();
}

StatusWith<bson::Document> RunAbortTransaction(CommandContext& ctx, const Request& request) {
  QUARRY_RETURN_IF_ERROR(CheckNamesATransaction(request));
  if (ctx.transaction() != nullptr) ctx.transaction()->End(/*committed=*/false);
  return bson::Document();
}

}  // namespace

void RegisterTransactionCommands(CommandRegistry& registry) {
  // mongod requires no privilege: the transaction's commands were checked as they ran.
  registry.Add({.name = "commitTransaction",
                .flags = kAdminOnly | kWritesData | kAllowedInTransaction,
                .run = RunCommitTransaction,
                .auth = AnyUser()});
  registry.Add({.name = "abortTransaction",
                .flags = kAdminOnly | kWritesData | kAllowedInTransaction,
                .run = RunAbortTransaction,
                .auth = AnyUser()});
}

}  // namespace quarry::commands
