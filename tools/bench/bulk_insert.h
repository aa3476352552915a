// Inserting generated documents through the driver, the ways the benchmarks compare: one
// insert command per document, one bulk write, or bulk writes of a fixed batch size, each with
// a chosen write concern.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/status.h"
#include "tools/bench/document_set.h"
#include "tools/bench/mongo_client.h"
#include "tools/bench/progress.h"

namespace quarry::tools::bench {

enum class WriteMode {
  kUnacknowledged,  // w:0: OP_MSG moreToCome, no reply
  kAcknowledged,    // w:1
  kJournaled,       // w:1, j:true: the reply waits for the journal
};

std::string_view WriteModeName(WriteMode mode);  // "w:0", "w:1", "j:true"

struct InsertOptions {
  WriteMode mode = WriteMode::kAcknowledged;
  bool ordered = true;
  // The driver checks every key and string of an inserted document unless told not to; the
  // benchmarks' documents are known to be valid, but leaving it on measures what apps pay.
  bool driver_validation = true;
};

// Inserts documents [begin, end) of `docs` as one bulk write; the driver splits it into
// messages of at most maxWriteBatchSize documents and maxMessageSizeBytes. With kUnacknowledged
// it returns once the last message is written to the socket. Fails with the first write error.
Status BulkInsert(mongoc_collection_t* collection, const DocumentSet& docs, std::size_t begin,
                  std::size_t end, const InsertOptions& options);

// Inserts the first `count` documents with one insert command each, reporting the number done.
Status InsertOneByOne(mongoc_collection_t* collection, const DocumentSet& docs, std::size_t count,
                      const InsertOptions& options, ProgressSink& progress);

// Inserts all of `docs` in bulk writes of `batch_size` documents, reporting documents done.
Status InsertInBatches(mongoc_collection_t* collection, const DocumentSet& docs,
                       std::size_t batch_size, const InsertOptions& options,
                       ProgressSink& progress);

// countDocuments({}) through the driver (an aggregate with $group).
StatusWith<std::int64_t> CountDocuments(mongoc_collection_t* collection);

// Drops the collection; a collection that does not exist is not an error.
Status DropCollection(mongoc_collection_t* collection);

}  // namespace quarry::tools::bench
