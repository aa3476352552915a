// `quarry restore`: a dump directory or archive (as mongodump and `quarry dump` write them) back
// into a server: each collection created with its options, its documents inserted in batches,
// then its indexes built, as mongorestore does.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "base/status.h"

namespace quarry::tools::dumping {

struct RestoreOptions {
  std::string uri = "mongodb://localhost:27017";
  std::string dir = "dump";
  bool archive = false;  // read one archive from archive_path ("-": stdin) instead of `dir`
  std::string archive_path = "-";
  bool gzip = false;  // directory files end in .gz (archives and .gz files are detected anyway)
  bool drop = false;
  std::vector<std::string> ns_include;  // patterns such as "shop.*"; empty: everything
  std::vector<std::string> ns_exclude;
  bool no_index_restore = false;
  bool stop_on_error = false;
  // Replay the dump's oplog (oplog.bson, or the archive's) after its collections.
  bool oplog_replay = false;
  int parallel_collections = 4;
  std::size_t batch_documents = 1000;
};

struct RestoreResult {
  std::uint64_t restored = 0;
  std::uint64_t failed = 0;
  std::int64_t oplog_entries = 0;
  Status error = Status::OK();  // what ended the restore early (the counts stand)
};

// Restores, logging "restoring db.c from ..." and per-document failures to `log`. Fails before
// writing for a missing dump or an unreachable server.
StatusWith<RestoreResult> RunRestore(const RestoreOptions& options, std::FILE* log);

}  // namespace quarry::tools::dumping
