// Writes one collection of a restore or copy over one connection: creates it with its options
// (or keeps an existing one), inserts its documents in batches, and builds its indexes; counts
// and reports the documents the server refuses. admin.system.users and admin.system.roles are
// merged instead, as mongorestore merges them: each user or role replaces the target's of the
// same _id or is added, and with `drop` the target's others are removed at the end.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "tools/client/mongo_client.h"
#include "tools/dump/collection_metadata.h"

namespace quarry::tools::dumping {

// Lines from parallel writers, one at a time.
class LineLog {
 public:
  explicit LineLog(std::FILE* stream) : stream_(stream) {}
  void Line(const std::string& text);

 private:
  std::FILE* stream_;
  std::mutex mutex_;
};

struct WriteCounters {
  std::atomic<std::uint64_t> restored{0};
  std::atomic<std::uint64_t> failed{0};
  std::int64_t oplog_entries = 0;
};

struct WriterOptions {
  bool drop = false;           // drop the collection first
  bool stop_on_error = false;  // ordered inserts; the first refused document ends the writer
  bool build_indexes = true;   // at Finish (a copy builds them before the documents instead)
  std::size_t batch_documents = 1000;
};

class CollectionWriter {
 public:
  CollectionWriter(client::MongoClient* client, WriterOptions options, std::string db,
                   CollectionMetadata metadata, LineLog* log, WriteCounters* counters);

  // Drops (when asked) and creates the collection or view with its options.
  Status Prepare();
  // Builds the metadata's indexes but _id's.
  Status BuildIndexes();
  Status Add(const bson_t* document);
  // Writes what is batched, then builds the indexes when the options say so.
  Status Finish();

  const std::string& ns() const { return ns_; }
  std::uint64_t written() const { return restored_; }

 private:
  Status Flush();
  // The users' and roles' merge: replace-or-insert by _id; with `drop`, remove the rest.
  void AddWrite(mongoc_bulk_operation_t* bulk, const bson_t* document, bson_error_t* error);
  Status RemoveOthers();

  client::MongoClient* client_;
  const WriterOptions options_;
  const std::string db_;
  CollectionMetadata metadata_;
  const std::string ns_;
  LineLog* log_;
  WriteCounters* counters_;
  client::CollectionPtr collection_;
  std::vector<client::BsonPtr> batch_;
  std::size_t batch_bytes_ = 0;
  std::uint64_t restored_ = 0;
  std::uint64_t failed_ = 0;
  const bool merge_;                         // admin.system.users or admin.system.roles
  std::vector<client::BsonPtr> merged_ids_;  // with merge_: {_id} of every document written
};

}  // namespace quarry::tools::dumping
