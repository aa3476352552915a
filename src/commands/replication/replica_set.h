// The one-member replica set Quarry presents itself as: its configuration and status documents,
// in mongod's shapes, built from the running server (replSetGetConfig, replSetGetStatus and
// local.system.replset read them).
#pragma once

#include <cstdint>

#include "base/status.h"
#include "bson/value.h"
#include "commands/service_state.h"

namespace quarry::commands {

// The term of the set's only election: constant, since its one member is always primary.
inline constexpr std::int64_t kReplicaSetTerm = 1;

// Fails with NoReplicationEnabled (76) `message` when the server runs as a standalone.
Status RequireReplicaSet(const ServiceState& service, std::string_view message);

// The set's configuration, as replSetGetConfig's `config` and local.system.replset's one
// document: {_id, version, term, members: [{_id: 0, host, ...}], protocolVersion, settings}.
// REQUIRES: a replica set name is configured.
bson::Document ReplicaSetConfig(const ServiceState& service);

// replSetGetStatus' reply body for the one PRIMARY member. REQUIRES: as ReplicaSetConfig.
bson::Document ReplicaSetStatus(const ServiceState& service);

}  // namespace quarry::commands
