// replSetGetStatus, replSetGetConfig, replSetInitiate, replSetReconfig, replSetStepDown: what a
// single-member replica set's primary answers.
#include <cstdio>
#include <ctime>
#include <string>

#include "base/clock.h"
#include "bson/builder.h"
#include "commands/command_context.h"
#include "commands/register.h"
#include "commands/replication/replica_set.h"
#include "commands/request_parser.h"

namespace quarry::commands {
namespace {

// mongod's dateToISOStringLocal, in UTC: "2026-12-03T14:05:09.123+00:00".
std::string IsoDate(std::int64_t millis) {
  std::time_t seconds = static_cast<std::time_t>(millis / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(text + n, sizeof text - n, ".%03d+00:00", static_cast<int>(millis % 1000));
  return text;
}

StatusWith<bson::Document> RunReplSetGetStatus(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  args.Ignore({"initialSync"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_RETURN_IF_ERROR(RequireReplicaSet(ctx.service(), "not running with --replSet"));
  return ReplicaSetStatus(ctx.service());
}

StatusWith<bson::Document> RunReplSetGetConfig(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(bool commitment_status, args.OptionalBool("commitmentStatus", false));
  args.Ignore({"includeNewlyAdded"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_RETURN_IF_ERROR(RequireReplicaSet(ctx.service(), "not running with --replSet"));
  bson::DocumentBuilder b;
  b.AppendDocument("config", ReplicaSetConfig(ctx.service()));
  // The one member always holds the configuration, so it is always committed.
  if (commitment_status) b.AppendBool("commitmentStatus", true);
  return std::move(b).Finish();
}

StatusWith<bson::Document> RunReplSetInitiate(CommandContext& ctx, const Request&) {
  QUARRY_RETURN_IF_ERROR(
      RequireReplicaSet(ctx.service(), "This node was not started with replication enabled."));
  return Status(ErrorCode::kAlreadyInitialized, "already initialized");
}

// The set's membership is fixed by the server's options: a configuration that changes anything
// but the version cannot be applied, and mongod's checks run first so that errors match.
StatusWith<bson::Document> RunReplSetReconfig(CommandContext& ctx, const Request& request) {
  QUARRY_RETURN_IF_ERROR(
      RequireReplicaSet(ctx.service(), "This node was not started with replication enabled."));
  bson::ValueView config = request.body.Get(request.name);
  if (config.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch,
                  "Expected replSetReconfig argument to be a Object, but found " +
                      std::string(bson::TypeAlias(config.type())));
  }
  bson::ValueView id = config.Document().Get("_id");
  if (id.type() == bson::Type::kString && id.String() != ctx.service().config.repl_set) {
    return Status(ErrorCode::kNewReplicaSetConfigurationIncompatible,
                  "New and old configurations differ in replica set name; old was " +
                      ctx.service().config.repl_set + ", and new is " + std::string(id.String()));
  }
  return Status(ErrorCode::kCommandNotSupported,
                "replSetReconfig is not supported: this server's replica set is its one member, "
                "configured by its --replSet and --advertise-host options");
}

StatusWith<bson::Document> RunReplSetStepDown(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(bool force, args.OptionalBool("force", false));
  bson::ValueView catch_up = args.Raw("secondaryCatchUpPeriodSecs");
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_RETURN_IF_ERROR(RequireReplicaSet(ctx.service(), "not running with --replSet"));
  bson::ValueView period = request.body.Get(request.name);
  std::int64_t step_down_secs = period.IsNumber() ? period.AsInt64() : 60;
  std::int64_t catch_up_secs = catch_up.IsNumber() ? catch_up.AsInt64() : 10;
  if (catch_up.exists() && !catch_up.IsNumber()) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field 'replSetStepDown.secondaryCatchUpPeriodSecs' is the wrong type '" +
                      std::string(bson::TypeAlias(catch_up.type())) + "', expected type 'long'");
  }
  if (step_down_secs < 0) {
    return Status(ErrorCode::kBadValue, "stepdown period must be a positive integer");
  }
  if (catch_up_secs < 0) {
    return Status(ErrorCode::kBadValue,
                  "secondaryCatchUpPeriodSecs period must be a positive or absent");
  }
  if (step_down_secs < catch_up_secs) {
    return Status(ErrorCode::kBadValue,
                  "stepdown period must be longer than secondaryCatchUpPeriodSecs");
  }
  if (force) {
    return Status(ErrorCode::kCommandNotSupported,
                  "replSetStepDown with force: true is not supported: this server is its "
                  "replica set's only member and stays primary");
  }
  // mongod waits secondaryCatchUpPeriodSecs for a secondary to catch up; a one-member set has
  // none to wait for, so the answer is known at once.
  return Status(ErrorCode::kExceededTimeLimit,
                "No electable secondaries caught up as of " + IsoDate(NowMillis()) +
                    ". Please use the replSetStepDown command with the argument {force: true} "
                    "to force node to step down.");
}

}  // namespace

void RegisterReplicationCommands(CommandRegistry& registry) {
  registry.Add({.name = "replSetGetStatus",
                .flags = kAdminOnly,
                .run = RunReplSetGetStatus,
                .auth = OnCluster({auth::ActionType::kReplSetGetStatus})});
  registry.Add({.name = "replSetGetConfig",
                .flags = kAdminOnly,
                .run = RunReplSetGetConfig,
                .auth = OnCluster({auth::ActionType::kReplSetGetConfig})});
  registry.Add({.name = "replSetInitiate",
                .flags = kAdminOnly,
                .run = RunReplSetInitiate,
                .auth = OnCluster({auth::ActionType::kReplSetConfigure})});
  registry.Add({.name = "replSetReconfig",
                .flags = kAdminOnly,
                .run = RunReplSetReconfig,
                .auth = OnCluster({auth::ActionType::kReplSetConfigure})});
  registry.Add({.name = "replSetStepDown",
                .flags = kAdminOnly,
                .run = RunReplSetStepDown,
                .auth = OnCluster({auth::ActionType::kReplSetStateChange})});
}

}  // namespace quarry::commands
