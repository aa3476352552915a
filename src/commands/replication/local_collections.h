// The collections a server serves from its own state rather than stores: local.oplog.rs and
// local.system.replset (the oplog and the set's configuration, while a replica set member) and
// each database's system.profile (the profiler's documents).
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "commands/command.h"
#include "commands/service_state.h"
#include "query/pipeline/pipeline.h"

namespace quarry::commands {

class CommandContext;

// True for local.oplog.rs and local.system.replset while the server runs as a replica set.
bool IsReplicationCollection(const ServiceState& service, std::string_view db,
                             std::string_view coll);
bool IsOplogCollection(const ServiceState& service, std::string_view db, std::string_view coll);

// Fails as mongod does for a client's write to a replication collection: InvalidNamespace (73)
// "cannot write to local.oplog.rs". OK for every other namespace.
Status CheckUserWrite(const ServiceState& service, std::string_view db, std::string_view coll);
// drop or dropDatabase of one: IllegalOperation (20), as mongod refuses to drop the live oplog.
Status CheckDrop(const ServiceState& service, std::string_view db, std::string_view coll);

// CommandNotSupported for a read command these collections do not answer (count, distinct):
// they would otherwise read as empty. OK for every other namespace.
Status CheckReadableBy(const ServiceState& service, std::string_view command, std::string_view db,
                       std::string_view coll);

// find on a replication collection (filter, projection, sort by $natural, skip, limit,
// batchSize, singleBatch, and tailable and awaitData cursors on the oplog).
// REQUIRES: IsReplicationCollection.
StatusWith<bson::Document> FindReplicationCollection(CommandContext& ctx, const Request& request,
                                                     std::string_view coll);

// <db>.system.profile, the profiler's documents (commands/diagnostics/profiler.h): read-only,
// like the replication collections.
bool IsProfileCollection(std::string_view coll);
// find on db's system.profile, as on the replication collections (not tailable).
StatusWith<bson::Document> FindProfileCollection(CommandContext& ctx, const Request& request);
// An aggregation's input from db's system.profile.
std::unique_ptr<query::DocumentStream> ProfileCollectionStream(std::string_view db);
// Its listCollections entry, when db has one.
std::optional<bson::Document> ProfileCollectionEntry(std::string_view db, bool name_only);

// An aggregation's input from a replication collection. REQUIRES: IsReplicationCollection.
std::unique_ptr<query::DocumentStream> ReplicationCollectionStream(CommandContext& ctx,
                                                                   std::string_view coll);

// The listCollections entries of the replication collections, for the `local` database.
std::vector<bson::Document> ReplicationCollectionEntries(const ServiceState& service,
                                                         bool name_only);

// collStats' fields for a replication collection (the oplog: capped, with its maxSize), each
// size divided by `scale`. REQUIRES: IsReplicationCollection.
bson::Document ReplicationCollectionStats(CommandContext& ctx, std::string_view coll, double scale);

}  // namespace quarry::commands
