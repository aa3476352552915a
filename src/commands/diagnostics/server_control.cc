// fsync, fsyncUnlock and shutdown: making every write durable, holding writes back while files
// are copied, and stopping the server cleanly.
#include <string>

#include "base/log.h"
#include "bson/builder.h"
#include "commands/command_context.h"
#include "commands/register.h"
#include "commands/request_parser.h"
#include "storage/engine.h"

namespace quarry::commands {
namespace {

// mongod's documentation of the lock, which its replies link to.
constexpr std::string_view kFsyncUrl = "http://dochub.mongodb.org/core/fsynccommand";

// Writes the memtables to SST files and syncs the write-ahead log: everything committed so far
// is on disk when it answers.
Status FlushAll(storage::Engine& engine) {
  QUARRY_RETURN_IF_ERROR(engine.Flush());
  return engine.SyncWal();
}

// With `lock: true`, the flush happens once the writes already running have finished, and
// later writes wait (FsyncLock) until as many fsyncUnlocks as locks. mongod 7.0 reads
// fsyncLockAcquisitionTimeoutMillis only for a sharded cluster's backup; here it changes
// nothing either.
StatusWith<bson::Document> RunFsync(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(bool lock, args.OptionalBool("lock", false));
  args.Ignore({"fsyncLockAcquisitionTimeoutMillis"});
  bson::ValueView async = args.Raw("async");
  QUARRY_RETURN_IF_ERROR(args.Finish());
  if (async.exists() && async.Truthy()) {
    return Status(ErrorCode::kBadValue, "fsync: async is no longer supported");
  }
  storage::Engine& engine = ctx.engine();
  bson::DocumentBuilder b;
  if (!lock) {
    QUARRY_RETURN_IF_ERROR(FlushAll(engine));
    b.AppendInt32("numFiles", 1);
    return std::move(b).Finish();
  }
  QUARRY_ASSIGN_OR_RETURN(
      std::int64_t lock_count,
      ctx.service().fsync_lock.Lock(*ctx.interrupt(), [&engine] { return FlushAll(engine); }));
  log::Write(log::Severity::kInfo, "COMMAND", 20462, "conn" + std::to_string(ctx.connection().id),
             "mongod is locked and no writes are allowed",
             {{"lockCount", lock_count}, {"seeAlso", std::string(kFsyncUrl)}});
  b.AppendString("info", "now locked against writes, use db.fsyncUnlock() to unlock");
  b.AppendInt64("lockCount", lock_count);
  b.AppendString("seeAlso", kFsyncUrl);
  return std::move(b).Finish();
}

// Short by design (it runs on the io thread): it only counts down and wakes the waiting writes.
StatusWith<bson::Document> RunFsyncUnlock(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_ASSIGN_OR_RETURN(std::int64_t lock_count, ctx.service().fsync_lock.Unlock());
  log::Write(log::Severity::kInfo, "COMMAND", 20466, "conn" + std::to_string(ctx.connection().id),
             "fsyncUnlock complete", {{"lockCount", lock_count}});
  bson::DocumentBuilder b;
  b.AppendString("info", "fsyncUnlock completed");
  b.AppendInt64("lockCount", lock_count);
  return std::move(b).Finish();
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
