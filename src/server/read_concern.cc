#include "server/read_concern.h"

#include <string>

#include "bson/builder.h"

namespace quarry::server {
namespace {

bool ReadsSnapshotOutsideTransactions(std::string_view command) {
  return command == "find" || command == "aggregate" || command == "distinct";
}

}  // namespace

StatusWith<ReadConcern> ParseReadConcern(const bson::FieldTable& body,
                                         const commands::Command& command, bool in_transaction) {
  ReadConcern parsed;
  bson::ValueView read_concern = body.Get("readConcern");
  if (!read_concern.exists()) return parsed;
  if (read_concern.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'readConcern' is the wrong type '" +
                                                std::string(bson::TypeAlias(read_concern.type())) +
                                                "', expected type 'object'");
  }
  bson::DocumentView spec = read_concern.Document();
  for (const bson::Element& e : spec) {
    // provenance is mongod's record of where a default came from: it changes nothing read.
    if (e.key != "level" && e.key != "afterClusterTime" && e.key != "atClusterTime" &&
        e.key != "provenance") {
      return Status(ErrorCode::kInvalidOptions,
                    "Unrecognized option in readConcern: " + std::string(e.key));
    }
  }
  bson::ValueView level = spec.Get("level");
  if (level.exists()) {
    if (level.type() != bson::Type::kString) {
      return Status(ErrorCode::kTypeMismatch, "BSON field 'readConcern.level' must be a string");
    }
    const std::string_view name = level.String();
    if (name != "local" && name != "majority" && name != "linearizable" && name != "available" &&
        name != "snapshot") {
      return Status(ErrorCode::kFailedToParse,
                    "readConcern level must be one of local, majority, linearizable, available "
                    "or snapshot, not '" +
                        std::string(name) + "'");
    }
    parsed.snapshot = name == "snapshot";
  }
  bson::ValueView at = spec.Get("atClusterTime");
  bson::ValueView after = spec.Get("afterClusterTime");
  if (at.exists()) {
    if (!parsed.snapshot) {
      return Status(ErrorCode::kInvalidOptions,
                    "readConcern atClusterTime is only valid with level snapshot");
    }
    if (after.exists()) {
      return Status(ErrorCode::kInvalidOptions,
                    "readConcern cannot have both atClusterTime and afterClusterTime");
    }
    if (at.type() != bson::Type::kTimestamp) {
      return Status(ErrorCode::kTypeMismatch, "readConcern atClusterTime must be a Timestamp");
    }
    parsed.at_cluster_time = at.Timestamp();
  }
  if (parsed.snapshot && !in_transaction && !ReadsSnapshotOutsideTransactions(command.name)) {
    return Status(ErrorCode::kInvalidOptions,
                  std::string(command.name) +
                      " does not support readConcern level snapshot outside a multi-document "
                      "transaction");
  }
  return parsed;
}

bson::Document WithAtClusterTime(bson::Document reply, storage::Timestamp at) {
  bson::DocumentBuilder b;
  bool in_cursor = false;
  for (const bson::Element& e : reply.view()) {
    if (e.key == "cursor" && e.value.type() == bson::Type::kDocument) {
      b.OpenDocument("cursor");
      for (const bson::Element& c : e.value.Document()) b.Append(c.key, c.value);
      b.AppendTimestamp("atClusterTime", at);
      b.Close();
      in_cursor = true;
      continue;
    }
    b.Append(e.key, e.value);
  }
  if (!in_cursor) b.AppendTimestamp("atClusterTime", at);
  return std::move(b).Finish();
}

}  // namespace quarry::server
