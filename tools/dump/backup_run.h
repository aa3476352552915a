// `quarry backup`: a hot physical backup of a running Quarry (or Percona Server for MongoDB)
// through its createBackup command. The server writes the backup, so the directory is a path on
// the server's machine; a backup is a dbpath that `quarryd --dbpath DIR` starts on.
#pragma once

#include <string>

#include "base/status.h"

namespace quarry::tools::dumping {

struct BackupOptions {
  std::string uri = "mongodb://localhost:27017";
  std::string out;  // absolute path on the server's machine; empty or missing
};

// Checks options that need no server: --out is required and absolute (kBadValue).
Status ValidateBackupOptions(const BackupOptions& options);

// Runs createBackup on the server and waits for it; fails with the server's error.
Status RunBackup(const BackupOptions& options);

}  // namespace quarry::tools::dumping
