// Inserting documents straight into the storage layer through the commit pipeline, as the
// insert command does, without the network and wire layers: the storage half of the insert
// benchmark.
#pragma once

#include <cstddef>
#include <string>

#include "base/status.h"
#include "storage/commit_pipeline.h"

namespace quarry::bench {

struct StorageInsertBenchOptions {
  std::string dbpath;  // empty: a fresh temporary directory, removed afterwards
  std::size_t documents = 200'000;
  std::size_t batch_size = 1'000;    // documents per WriteUnit (one insert command's batch)
  std::size_t document_bytes = 200;  // approximate BSON size of each document
  storage::Durability durability = storage::Durability::kNone;
};

struct StorageInsertBenchResult {
  std::size_t documents = 0;
  double seconds = 0;         // building documents and oplog entries, and committing
  double commit_seconds = 0;  // inside CommitPipeline::Commit only
  double documents_per_second = 0;
  std::size_t bson_bytes = 0;  // of the documents inserted
};

// Opens an engine and catalog at options.dbpath, creates bench.storage_insert, and inserts
// options.documents documents with ObjectId _ids in batches. Fails if any insert fails.
StatusWith<StorageInsertBenchResult> RunStorageInsertBench(
    const StorageInsertBenchOptions& options);

}  // namespace quarry::bench
