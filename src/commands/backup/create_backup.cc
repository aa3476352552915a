// createBackup: a hot backup of the running server into a directory on its machine, shaped as
// Percona Server for MongoDB's command ({createBackup: 1, backupDir: "/abs/path"} on admin),
// which backup tools already send. The directory is a dbpath: `quarryd --dbpath <it>` starts on
// the data as of the backup's moment, with its oplog.
#include <algorithm>
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>

#include "base/log.h"
#include "bson/builder.h"
#include "commands/command_context.h"
#include "commands/register.h"
#include "commands/request_parser.h"
#include "storage/engine.h"
#include "vector/search_index_registry.h"

namespace quarry::commands {
namespace {

namespace fs = std::filesystem;

// The checkpoint goes here first (RocksDB wants a directory that does not exist yet), then its
// files move up into backupDir: renames within one directory, whatever backupDir is.
constexpr const char* kCheckpointSubdir = ".checkpoint";

Status InvalidPath(const std::string& message) { return Status(ErrorCode::kInvalidPath, message); }

bool IsInside(const fs::path& path, const fs::path& dir) {
  std::error_code ignored;
  const fs::path a = fs::weakly_canonical(path, ignored);
  const fs::path b = fs::weakly_canonical(dir, ignored);
  auto mismatch = std::mismatch(b.begin(), b.end(), a.begin(), a.end());
  return mismatch.first == b.end();
}

// backupDir must be absolute (as in Percona's command: the server's working directory is no
// place a client can reason about), outside the dbpath, and an empty or creatable directory.
Status PrepareBackupDir(const std::string& backup_dir, const std::string& dbpath) {
  const fs::path dir(backup_dir);
  if (backup_dir.empty() || !dir.is_absolute()) {
    return InvalidPath("Destination path must be absolute");
  }
  if (!dbpath.empty() && (IsInside(dir, dbpath) || IsInside(dbpath, dir))) {
    return InvalidPath("Destination path must not be inside the dbpath or contain it: " +
                       backup_dir);
  }
  std::error_code error;
  const fs::file_status status = fs::status(dir, error);
  if (fs::exists(status)) {
    if (!fs::is_directory(status)) {
      return InvalidPath("Destination path exists and is not a directory: " + backup_dir);
    }
    if (!fs::is_empty(dir, error) || error) {
      return InvalidPath("Destination directory must be empty: " + backup_dir);
    }
  } else {
    fs::create_directories(dir, error);
    if (error) {
      return InvalidPath("cannot create the destination directory " + backup_dir + ": " +
                         error.message());
    }
  }
  fs::permissions(dir, fs::perms::owner_all, error);
  if (error) {
    return InvalidPath("cannot set the permissions of " + backup_dir + ": " + error.message());
  }
  return Status::OK();
}

// Moves the checkpoint's files up into `dir`, each 0600 as mongod's data files are. SST files
// are hard links to the live ones, so this tightens those too, which is as mongod keeps them.
Status MoveUp(const fs::path& checkpoint, const fs::path& dir) {
  std::error_code error;
  for (const fs::directory_entry& file : fs::directory_iterator(checkpoint, error)) {
    const fs::path target = dir / file.path().filename();
    fs::rename(file.path(), target, error);
    if (!error) fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write, error);
    if (error) return InvalidPath("cannot move " + file.path().string() + ": " + error.message());
  }
  if (!error) fs::remove(checkpoint, error);
  if (error)
    return InvalidPath("cannot move the checkpoint into " + dir.string() + ": " + error.message());
  return Status::OK();
}

StatusWith<bson::Document> RunCreateBackup(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  for (std::string_view unsupported : {"archive", "s3"}) {
    if (args.Raw(unsupported).exists()) {
      return Status(ErrorCode::kInvalidOptions,
                    "createBackup's '" + std::string(unsupported) +
                        "' destination is not supported; give backupDir, a directory on the "
                        "server's machine");
    }
  }
  QUARRY_ASSIGN_OR_RETURN(std::string backup_dir, args.RequiredString("backupDir"));
  QUARRY_RETURN_IF_ERROR(args.Finish());
  ServiceState& state = ctx.service();
  if (state.engine == nullptr) {
    return Status(ErrorCode::kIllegalOperation, "createBackup needs the storage engine");
  }
  // One backup at a time: two into one directory would otherwise clean up each other's files.
  static std::mutex one_at_a_time;
  std::lock_guard lock(one_at_a_time);
  QUARRY_RETURN_IF_ERROR(PrepareBackupDir(backup_dir, state.config.dbpath));
  const fs::path dir(backup_dir);
  const fs::path checkpoint = dir / kCheckpointSubdir;
  Status created = state.engine->CreateCheckpoint(checkpoint.string());
  if (!created.ok()) {
    std::error_code ignored;  // what a failed checkpoint left behind; the error says why
    fs::remove_all(checkpoint, ignored);
    fs::remove_all(checkpoint.string() + ".tmp", ignored);
    return created;
  }
  QUARRY_RETURN_IF_ERROR(MoveUp(checkpoint, dir));
  // After the checkpoint: a snapshot that stands after the backup's last oplog entry is not
  // used by the restored server, one before it spares a rebuild of its vector index.
  if (state.search_indexes != nullptr) {
    QUARRY_RETURN_IF_ERROR(
        state.search_indexes->CopySnapshotsTo((dir / "search_indexes").string()));
  }
  log::Write(log::Severity::kInfo, "STORAGE", 29011, "conn", "Backup created",
             {{"backupDir", backup_dir}});
  bson::DocumentBuilder b;
  return std::move(b).Finish();
}

}  // namespace

void RegisterBackupCommands(CommandRegistry& registry) {
  // A consistent copy of the whole server, as fsync's lock serves one: fsync on the cluster
  // (hostManager, clusterAdmin, root).
  registry.Add({.name = "createBackup",
                .flags = kAdminOnly,
                .run = RunCreateBackup,
                .auth = OnCluster({auth::ActionType::kFsync})});
}

}  // namespace quarry::commands
