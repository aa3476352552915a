// `quarry bench network`: moves the same generated listings to and from a server once per wire
// compressor, and compares time and the server's physical byte counters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "tools/client/mongo_client.h"
#include "tools/client/progress.h"
#include "tools/client/result_table.h"
#include "tools/client/svg_chart.h"

namespace quarry::tools::bench {

struct NetworkBenchOptions {
  std::string uri;
  std::vector<std::string> compressors = {"none", "snappy", "zlib", "zstd"};
  int zlib_level = -1;           // the client's zlibCompressionLevel; -1: driver default
  double megabytes = 10;         // of BSON documents (1 MB = 10^6 bytes), written then read
  std::size_t batch_size = 100;  // documents per insert command and per find/getMore batch
  std::uint64_t seed = 1;        // of the listing generator
  std::string database = "quarry_bench";
  std::string collection = "network";
};

// One compressor's write (insert in batches, w:1) or read (find everything) of the data set.
struct NetworkPhase {
  std::string compressor;
  std::string phase;  // "write" or "read"
  std::int64_t records = 0;
  std::int64_t bytes = 0;  // BSON bytes of the documents moved
  double seconds = 0;
  // serverStatus deltas over the phase, less the serverStatus calls'.
  client::NetworkCounters server;
};

struct NetworkBenchResult {
  std::int64_t documents = 0;  // in the data set
  std::int64_t bytes = 0;
  std::vector<NetworkPhase> phases;  // write then read, per compressor in the order asked
};

// Fails with kBadValue for an empty, unknown or repeated compressor, megabytes <= 0, a batch
// size of 0 or a zlib level outside -1..9.
Status ValidateNetworkBenchOptions(const NetworkBenchOptions& options);

// Checks every compressor against the server before moving any data (so a refused compressor
// fails the run at once), generates the data, then per compressor: drops the collection,
// writes, reads. The collection is dropped again at the end.
StatusWith<NetworkBenchResult> RunNetworkBench(const NetworkBenchOptions& options,
                                               client::ProgressSink& progress);

// Columns compressor, phase, records, seconds, records/s, MB/s, physicalBytesIn,
// physicalBytesOut, saving: the percentage by which this row's physical bytes in the
// direction of the data (in for a write, out for a read) fall below compressor "none"'s;
// no value when "none" was not run.
client::ResultTable NetworkBenchTable(const NetworkBenchOptions& options,
                                      const NetworkBenchResult& result);
// MB/s and saving, labelled by compressor and phase.
client::ChartOptions NetworkBenchChart(const client::ResultTable& table);

}  // namespace quarry::tools::bench
