// `quarry dump`: a server's databases, or one database or collection, written as mongodump writes
// them: a directory of <db>/<collection>.bson (documents back to back) and
// <collection>.metadata.json, or one archive (tools/dump/archive.h); gzip-compressed on request.
// Collections are dumped in parallel, each streamed from its cursor.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace quarry::tools::dumping {

struct DumpOptions {
  std::string uri = "mongodb://localhost:27017";
  std::string database;    // empty: every database but local and config
  std::string collection;  // with database: only this collection
  std::string query;       // Extended JSON filter; needs collection
  std::string out = "dump";
  bool archive = false;  // write one archive to archive_path ("-": stdout) instead of `out`
  std::string archive_path = "-";
  bool gzip = false;
  int parallel_collections = 4;
  std::vector<std::string> exclude_collections;
  // Point in time: also write the changes committed while the dump runs (oplog.bson, or the
  // archive's oplog), for restore --oplogReplay. Whole-server dumps only, as mongodump.
  bool oplog = false;
};

struct DumpResult {
  std::vector<std::pair<std::string, std::int64_t>> dumped;  // "db.collection", documents
  std::int64_t oplog_entries = 0;
};

// Checks options that need no server (kBadValue).
Status ValidateDumpOptions(const DumpOptions& options);

// Writes the dump, logging "writing ..." and "done dumping db.c (N documents)" lines to `log`.
StatusWith<DumpResult> RunDump(const DumpOptions& options, std::FILE* log);

// The file name mongodump gives a collection: '/' and other characters a file system refuses are
// percent-escaped, as are '%' themselves.
std::string EscapeFileName(const std::string& name);
std::string UnescapeFileName(const std::string& name);

}  // namespace quarry::tools::dumping
