// A request's readConcern, checked as mongod checks it. Every level reads committed data on a
// one-member replica set (local, majority, available and linearizable read the latest commit);
// `snapshot` outside a transaction reads one snapshot of the database, now or at
// `atClusterTime`, through a read-only storage view (storage::CommitPipeline::
// BeginSnapshotRead).
#pragma once

#include <optional>

#include "base/status.h"
#include "bson/value.h"
#include "commands/command.h"
#include "storage/types.h"

namespace quarry::server {

struct ReadConcern {
  bool snapshot = false;
  std::optional<storage::Timestamp> at_cluster_time;
};

// FailedToParse (9) for an unknown level, InvalidOptions (72) for atClusterTime without
// `snapshot`, with afterClusterTime, or for `snapshot` outside a transaction on a command that
// does not read one (only find, aggregate and distinct do).
StatusWith<ReadConcern> ParseReadConcern(const bson::FieldTable& body,
                                         const commands::Command& command, bool in_transaction);

// The reply of a snapshot read tells the time it read at, as mongod's does: in `cursor` for
// find and aggregate, at the top for distinct.
bson::Document WithAtClusterTime(bson::Document reply, storage::Timestamp at);

}  // namespace quarry::server
