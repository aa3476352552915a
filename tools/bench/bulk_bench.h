// `quarry bench bulk`: the same documents inserted with each write pattern an application
// chooses between (one by one, bulk, unacknowledged, unacknowledged then getLastError,
// journaled), each checked by a read right after.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "tools/client/progress.h"
#include "tools/client/result_table.h"
#include "tools/client/svg_chart.h"

namespace quarry::tools::bench {

enum class BulkRound {
  kAcknowledgedOneByOne,  // insert_one per document, w:1
  // The bulk rounds send all documents as one bulk write would (InsertInMessages: the driver's
  // own split into messages of at most 100,000 documents and 48 MB).
  kAcknowledgedBulk,       // w:1
  kUnacknowledgedBulk,     // w:0
  kUnacknowledgedBulkGle,  // w:0, then getLastError on the same connection
  kJournaledBulk,          // w:1, j:true
};

// The name --rounds takes ("one-by-one", "bulk", "unack", "unack-gle", "journaled") and the
// table's description of a round.
std::string_view BulkRoundName(BulkRound round);
std::string_view BulkRoundDescription(BulkRound round);
// Parses a name from BulkRoundName. Fails with kBadValue listing the valid names.
StatusWith<BulkRound> ParseBulkRound(std::string_view name);
const std::vector<BulkRound>& AllBulkRounds();

enum class DocumentShape {
  kRecord,   // flat, as bench/storage_insert makes them (record_generator.h)
  kListing,  // nested listings (listing_generator.h), sized to document_bytes
};

struct BulkBenchOptions {
  std::string uri;
  std::size_t documents = 200'000;
  std::size_t document_bytes = 1'000;
  DocumentShape shape = DocumentShape::kRecord;
  std::uint64_t seed = 42;
  std::vector<BulkRound> rounds = AllBulkRounds();
  // The one-by-one round sends a request per document, so at the ~12k round trips/s of one
  // connection it inserts at most this many (0: all `documents`).
  std::size_t one_by_one_documents = 20'000;
  bool driver_validation = true;  // the driver's per-document key and UTF-8 checks
  std::string database = "quarry_bench";
  std::string collection = "bulk";
};

struct BulkRoundResult {
  BulkRound round;
  std::int64_t documents = 0;
  std::int64_t bytes = 0;
  double seconds = 0;     // from the first request to the driver's return (or the GLE reply)
  std::int64_t seen = 0;  // countDocuments right after, on the same connection
  std::string note;       // e.g. why getLastError failed
};

struct BulkBenchResult {
  std::vector<BulkRoundResult> rounds;
};

// Fails with kBadValue for 0 documents, no rounds, or a round given twice.
Status ValidateBulkBenchOptions(const BulkBenchOptions& options);

// Generates the documents, then per round: drops the collection, inserts, counts. Fails with
// the first failing insert; a failing getLastError only fills that round's note.
StatusWith<BulkBenchResult> RunBulkBench(const BulkBenchOptions& options,
                                         client::ProgressSink& progress);

// Columns round, write concern, documents, seconds, documents/s, MB/s, seen after, all seen,
// "time/doc vs w:1 bulk" (a round's time per document over the acknowledged bulk round's),
// note.
client::ResultTable BulkBenchTable(const BulkBenchOptions& options, const BulkBenchResult& result);
// documents/s per round.
client::ChartOptions BulkBenchChart(const client::ResultTable& table);

}  // namespace quarry::tools::bench
