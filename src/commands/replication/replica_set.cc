// The documents of the one-member replica set, after mongod 7.0's replSetGetConfig and
// replSetGetStatus for a primary with no other members.
#include "commands/replication/replica_set.h"

#include <chrono>
#include <memory>
#include <string>

#include "base/clock.h"
#include "bson/builder.h"
#include "storage/engine.h"
#include "storage/oplog.h"

namespace quarry::commands {
namespace {

// The newest oplog entry's time: every member's optime, since the one member applied and
// journaled everything it committed.
struct OpTime {
  std::uint64_t ts = 0;
  std::int64_t wall_ms = 0;
};

OpTime LatestOpTime(const ServiceState& service) {
  OpTime optime;
  if (service.engine == nullptr) return optime;
  storage::Oplog& oplog = service.engine->oplog();
  optime.ts = oplog.LatestTimestamp();
  std::unique_ptr<storage::OplogCursor> cursor = oplog.Scan(optime.ts);
  if (optime.ts != 0 && cursor->Valid()) {
    bson::ValueView wall = cursor->entry().Get("wall");
    if (wall.type() == bson::Type::kDate) optime.wall_ms = wall.Date();
  }
  if (optime.wall_ms == 0) optime.wall_ms = static_cast<std::int64_t>(optime.ts >> 32) * 1000;
  return optime;
}

void AppendOpTime(bson::DocumentBuilder* b, std::string_view field, const OpTime& optime) {
  b->OpenDocument(field).AppendTimestamp("ts", optime.ts).AppendInt64("t", kReplicaSetTerm).Close();
}

std::int64_t UptimeSeconds(const ServiceState& service) {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() -
                                                          service.start_time)
      .count();
}

}  // namespace

Status RequireReplicaSet(const ServiceState& service, std::string_view message) {
  if (!service.config.repl_set.empty()) return Status::OK();
  return Status(ErrorCode::kNoReplicationEnabled, std::string(message));
}

bson::Document ReplicaSetConfig(const ServiceState& service) {
  bson::DocumentBuilder b;
  b.AppendString("_id", service.config.repl_set);
  b.AppendInt32("version", 1);
  b.AppendInt32("term", static_cast<std::int32_t>(kReplicaSetTerm));
  b.OpenArray("members")
      .OpenDocument("0")
      .AppendInt32("_id", 0)
      .AppendString("host", service.AdvertisedAddress())
      .AppendBool("arbiterOnly", false)
      .AppendBool("buildIndexes", true)
      .AppendBool("hidden", false)
      .AppendDouble("priority", 1)
      .OpenDocument("tags")
      .Close()
      .AppendInt64("secondaryDelaySecs", 0)
      .AppendInt32("votes", 1)
      .Close()
      .Close();
  b.AppendInt64("protocolVersion", 1);
  b.AppendBool("writeConcernMajorityJournalDefault", true);
  b.OpenDocument("settings")
      .AppendBool("chainingAllowed", true)
      .AppendInt32("heartbeatIntervalMillis", 2000)
      .AppendInt32("heartbeatTimeoutSecs", 10)
      .AppendInt32("electionTimeoutMillis", 10000)
      .AppendInt32("catchUpTimeoutMillis", -1)
      .AppendInt32("catchUpTakeoverDelayMillis", 30000)
      .OpenDocument("getLastErrorModes")
      .Close()
      .OpenDocument("getLastErrorDefaults")
      .AppendInt32("w", 1)
      .AppendInt32("wtimeout", 0)
      .Close()
      .AppendObjectId("replicaSetId", service.election_id)
      .Close();
  return std::move(b).Finish();
}

bson::Document ReplicaSetStatus(const ServiceState& service) {
  const OpTime optime = LatestOpTime(service);
  const std::int64_t now_ms = NowMillis();
  const std::int64_t uptime = UptimeSeconds(service);
  // The member became primary when the server started.
  const std::int64_t elected_ms = now_ms - uptime * 1000;
  const std::uint64_t election_ts = static_cast<std::uint64_t>(elected_ms / 1000) << 32 | 1;

  bson::DocumentBuilder b;
  b.AppendString("set", service.config.repl_set);
  b.AppendDate("date", now_ms);
  b.AppendInt32("myState", 1);
  b.AppendInt64("term", kReplicaSetTerm);
  b.AppendString("syncSourceHost", "");
  b.AppendInt32("syncSourceId", -1);
  b.AppendInt64("heartbeatIntervalMillis", 2000);
  b.AppendInt32("majorityVoteCount", 1);
  b.AppendInt32("writeMajorityCount", 1);
  b.AppendInt32("votingMembersCount", 1);
  b.AppendInt32("writableVotingMembersCount", 1);
  b.OpenDocument("optimes");
  AppendOpTime(&b, "lastCommittedOpTime", optime);
  b.AppendDate("lastCommittedWallTime", optime.wall_ms);
  AppendOpTime(&b, "readConcernMajorityOpTime", optime);
  AppendOpTime(&b, "appliedOpTime", optime);
  AppendOpTime(&b, "durableOpTime", optime);
  b.AppendDate("lastAppliedWallTime", optime.wall_ms);
  b.AppendDate("lastDurableWallTime", optime.wall_ms);
  b.Close();
  b.AppendTimestamp("lastStableRecoveryTimestamp", optime.ts);
  b.OpenArray("members").OpenDocument("0");
  b.AppendInt32("_id", 0);
  b.AppendString("name", service.AdvertisedAddress());
  b.AppendDouble("health", 1);
  b.AppendInt32("state", 1);
  b.AppendString("stateStr", "PRIMARY");
  b.AppendInt64("uptime", uptime);
  AppendOpTime(&b, "optime", optime);
  b.AppendDate("optimeDate", static_cast<std::int64_t>(optime.ts >> 32) * 1000);
  b.AppendDate("lastAppliedWallTime", optime.wall_ms);
  b.AppendDate("lastDurableWallTime", optime.wall_ms);
  b.AppendString("syncSourceHost", "");
  b.AppendInt32("syncSourceId", -1);
  b.AppendString("infoMessage", "");
  b.AppendTimestamp("electionTime", election_ts);
  b.AppendDate("electionDate", elected_ms / 1000 * 1000);
  b.AppendInt32("configVersion", 1);
  b.AppendInt32("configTerm", static_cast<std::int32_t>(kReplicaSetTerm));
  b.AppendBool("self", true);
  b.AppendString("lastHeartbeatMessage", "");
  b.Close().Close();
  return std::move(b).Finish();
}

}  // namespace quarry::commands
