#include "tools/dump/backup_run.h"

#include <bson/bson.h>

#include "tools/client/mongo_client.h"

namespace quarry::tools::dumping {

Status ValidateBackupOptions(const BackupOptions& options) {
  if (options.out.empty()) return Status(ErrorCode::kBadValue, "--out DIR is required");
  // The server resolves the path, not this machine: a relative one would name a directory
  // under the server's working directory, which is never what is meant.
  if (options.out.front() != '/') {
    return Status(ErrorCode::kBadValue,
                  "--out must be an absolute path (a directory on the server's machine)");
  }
  return Status::OK();
}

Status RunBackup(const BackupOptions& options) {
  QUARRY_RETURN_IF_ERROR(ValidateBackupOptions(options));
  QUARRY_ASSIGN_OR_RETURN(
      std::unique_ptr<client::MongoClient> connection,
      client::MongoClient::Connect({.uri = options.uri, .app_name = "quarry-backup"}));
  bson_t command = BSON_INITIALIZER;
  BSON_APPEND_INT32(&command, "createBackup", 1);
  BSON_APPEND_UTF8(&command, "backupDir", options.out.c_str());
  StatusWith<client::BsonPtr> reply = connection->RunCommand("admin", command);
  bson_destroy(&command);
  return reply.status();
}

}  // namespace quarry::tools::dumping
