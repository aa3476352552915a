// `quarry copy --from URI --to URI`: copies databases or collections between two
// MongoDB-compatible servers (MongoDB to Quarry is the migration path): each collection's options
// and indexes first, then its documents, several collections at once, a large one in parallel
// _id ranges, each read by one thread and written by another through a bounded queue (a slow
// target slows the reader, memory stays flat). With --follow it then applies the source's changes
// from a change stream opened before the copy began, until stopped, saving its resume token so that
// a restart continues there.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "base/status.h"

namespace quarry::tools::dumping {

struct CopyOptions {
  std::string from;
  std::string to;
  std::string database;    // empty: every database but local and config
  std::string collection;  // with database: only this collection
  std::vector<std::string> exclude_collections;
  bool drop = false;  // drop each target collection first
  bool follow = false;
  std::string resume_token_file;  // --follow: where the position is kept across restarts
  int parallel_collections = 4;
  int ranges_per_collection = 4;  // parallel _id ranges of a large collection (id_ranges.h)
  std::size_t batch_documents = 1000;
  std::size_t queued_batches = 4;  // per collection, between its reader and its writer
};

struct CopyCount {
  std::string ns;
  std::int64_t source = 0;
  std::int64_t target = 0;
};

struct CopyResult {
  bool copied = false;  // false when a resumed --follow skipped the initial copy
  std::uint64_t documents = 0;
  std::uint64_t failed = 0;
  std::int64_t changes_applied = 0;
  std::vector<CopyCount> counts;  // the final report: documents on both sides
};

Status ValidateCopyOptions(const CopyOptions& options);

// Copies, then follows until `stop` turns true (checked between change batches).
StatusWith<CopyResult> RunCopy(const CopyOptions& options, std::FILE* log,
                               const std::atomic<bool>& stop);

}  // namespace quarry::tools::dumping
