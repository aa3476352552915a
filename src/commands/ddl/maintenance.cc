// compact: rewrites a collection's records and index keys without what deletes and updates left
// behind, and answers the bytes the files shrank by. reIndex: refused as on any mongod that is a
// replica set member, which every quarryd is.
#include <cstdint>
#include <string>
#include <vector>

#include "bson/builder.h"
#include "commands/command_context.h"
#include "commands/execution.h"
#include "commands/register.h"
#include "commands/replication/local_collections.h"
#include "commands/request_parser.h"

namespace quarry::commands {
namespace {

StatusWith<bson::Document> RunCompact(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  // mongod reads `force` by truthiness.
  const bool force = args.Raw("force").Truthy();
  for (std::string_view option : {"freeSpaceTargetMB", "dryRun"}) {
    if (args.Raw(option).exists()) {
      return Status(ErrorCode::kNotImplemented,
                    "compact's '" + std::string(option) +
                        "' is not supported by Quarry: compact rewrites the whole collection");
    }
  }
  QUARRY_RETURN_IF_ERROR(args.Finish());
  // quarryd is always its replica set's primary.
  if (!force) {
    return Status(ErrorCode::kIllegalOperation,
                  "will not run compact on an active replica set primary as this is a slow "
                  "blocking operation. use force:true to force");
  }
  if (coll.starts_with("system.")) {
    return Status(ErrorCode::kInvalidNamespace, "can't compact a system namespace");
  }
  if (IsOplogCollection(ctx.service(), request.db, coll)) {
    return Status(ErrorCode::kNotImplemented,
                  "compact is not supported on the oplog by Quarry: retention trims its entries");
  }
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> collection,
                          LookupCollection(ctx, request.db, coll));
  if (!collection.has_value()) {
    return Status(ErrorCode::kNamespaceNotFound, "collection does not exist");
  }
  std::vector<storage::IndexId> indexes;
  for (const catalog::IndexInfo& index : collection->info->indexes) indexes.push_back(index.id);
  QUARRY_ASSIGN_OR_RETURN(std::uint64_t freed,
                          ctx.engine().CompactCollection(collection->id, indexes));
  bson::DocumentBuilder reply;
  reply.AppendNumber("bytesFreed", static_cast<std::int64_t>(freed));
  return std::move(reply).Finish();
}

StatusWith<bson::Document> RunReIndex(CommandContext&, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  return Status(ErrorCode::kIllegalOperation,
                "reIndex is only allowed on a standalone mongod instance. Cannot reIndex '" +
                    request.db + "." + coll + "' while replication is active");
}

}  // namespace

void RegisterMaintenanceCommands(CommandRegistry& registry) {
  registry.Add({.name = "compact",
                .flags = kChangesStoredData,
                .run = RunCompact,
                .auth = OnNamespace({auth::ActionType::kCompact})});
  registry.Add(
      {.name = "reIndex", .run = RunReIndex, .auth = OnNamespace({auth::ActionType::kReIndex})});
}

}  // namespace quarry::commands
