// Inserting generated documents through the driver, the ways the benchmarks compare: one
// insert command per document, one bulk write, or bulk writes of a fixed batch size, each with
// a chosen write concern.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "tools/bench/document_set.h"
#include "tools/client/mongo_client.h"
#include "tools/client/progress.h"

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

// Inserts the first `count` documents as the driver would send one bulk write of all of them:
// as consecutive bulk writes of at most kMaxWriteBatchDocuments documents and
// kMessageDocumentBytes of BSON, each one insert message, reporting documents done after each.
// The same messages as one big bulk write, but with progress between them.
inline constexpr std::size_t kMaxWriteBatchDocuments = 100'000;   // hello's maxWriteBatchSize
inline constexpr std::size_t kMessageDocumentBytes = 46'000'000;  // under maxMessageSizeBytes
Status InsertInMessages(mongoc_collection_t* collection, const DocumentSet& docs, std::size_t count,
                        const InsertOptions& options, client::ProgressSink& progress);

// The [begin, end) ranges InsertInMessages sends: consecutive, covering [0, count), each within
// both limits (a single document larger than `max_bytes` gets a range of its own).
std::vector<std::pair<std::size_t, std::size_t>> MessageSlices(
    const DocumentSet& docs, std::size_t count, std::size_t max_documents = kMaxWriteBatchDocuments,
    std::size_t max_bytes = kMessageDocumentBytes);

// Inserts the first `count` documents with one insert command each, reporting the number done.
Status InsertOneByOne(mongoc_collection_t* collection, const DocumentSet& docs, std::size_t count,
                      const InsertOptions& options, client::ProgressSink& progress);

// Inserts all of `docs` in bulk writes of `batch_size` documents, reporting documents done.
Status InsertInBatches(mongoc_collection_t* collection, const DocumentSet& docs,
                       std::size_t batch_size, const InsertOptions& options,
                       client::ProgressSink& progress);

// countDocuments({}) through the driver (an aggregate with $group).
StatusWith<std::int64_t> CountDocuments(mongoc_collection_t* collection);

// Drops the collection; a collection that does not exist is not an error.
Status DropCollection(mongoc_collection_t* collection);

}  // namespace quarry::tools::bench
