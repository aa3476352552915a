// fsync and shutdown: making every write durable, and stopping the server cleanly.
#include <string>

#include "bson/builder.h"
#include "commands/command_context.h"
#include "commands/register.h"
#include "commands/request_parser.h"
#include "storage/engine.h"

namespace quarry::commands {
namespace {

// Writes the memtables to SST files and syncs the write-ahead log: everything committed so far
// is on disk when it answers.
StatusWith<bson::Document> RunFsync(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(bool lock, args.OptionalBool("lock", false));
  args.Ignore({"fsyncLockAcquisitionTimeoutMillis"});
  bson::ValueView async = args.Raw("async");
  QUARRY_RETURN_IF_ERROR(args.Finish());
  if (async.exists() && async.Truthy()) {
    return Status(ErrorCode::kBadValue, "fsync: async is no longer supported");
  }
  if (lock) {
    return Status(ErrorCode::kCommandNotSupported,
                  "fsync with lock: true is not supported: this server cannot hold writes back; "
                  "use a backup that reads a consistent snapshot instead");
  }
  QUARRY_RETURN_IF_ERROR(ctx.engine().Flush());
  QUARRY_RETURN_IF_ERROR(ctx.engine().SyncWal());
  bson::DocumentBuilder b;
  b.AppendInt32("numFiles", 1);
  return std::move(b).Finish();
}

StatusWith<bson::Document> RunFsyncUnlock(CommandContext&, const Request& request) {
  RequestParser args(request);
  QUARRY_RETURN_IF_ERROR(args.Finish());
  return Status(ErrorCode::kIllegalOperation, "fsyncUnlock called when not locked");
}

// The server stops as on SIGTERM: it stops accepting, lets running requests finish, and closes
// the storage engine cleanly. A one-member set has no secondary to wait for, so `force` and
// `timeoutSecs` change nothing.
StatusWith<bson::Document> RunShutdown(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(bool force, args.OptionalBool("force", false));
  bson::ValueView timeout = args.Raw("timeoutSecs");
  QUARRY_RETURN_IF_ERROR(args.Finish());
  (void)force;
  if (timeout.exists() && !timeout.IsNumber()) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field 'shutdown.timeoutSecs' is the wrong type '" +
                      std::string(bson::TypeAlias(timeout.type())) + "', expected type 'long'");
  }
  if (!ctx.service().request_shutdown) {
    return Status(ErrorCode::kIllegalOperation, "this server cannot be shut down by command");
  }
  ctx.service().request_shutdown();
  return bson::Document();
}

}  // namespace

void RegisterServerControlCommands(CommandRegistry& registry) {
  registry.Add({.name = "fsync",
                .flags = kAdminOnly,
                .run = RunFsync,
                .auth = OnCluster({auth::ActionType::kFsync})});
  registry.Add({.name = "fsyncUnlock",
                .flags = kAdminOnly,
                .run = RunFsyncUnlock,
                .auth = OnCluster({auth::ActionType::kUnlock})});
  registry.Add({.name = "shutdown",
                .flags = kAdminOnly,
                .run = RunShutdown,
                .auth = OnCluster({auth::ActionType::kShutdown})});
}

}  // namespace quarry::commands
