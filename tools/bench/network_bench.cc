// The network benchmark: a single-connection client per compressor, and a separate
// uncompressed client that reads serverStatus between phases.
#include "tools/bench/network_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <set>

#include "tools/bench/bulk_insert.h"
#include "tools/bench/listing_generator.h"

namespace quarry::tools::bench {

using client::BsonPtr;
using client::Cell;
using client::ChartOptions;
using client::CollectionPtr;
using client::DriverError;
using client::IsKnownCompressor;
using client::MongoClient;
using client::NetworkCounters;
using client::ProgressSink;
using client::ResultTable;

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

NetworkCounters AtLeastZero(NetworkCounters c) {
  c.bytes_in = std::max<std::int64_t>(c.bytes_in, 0);
  c.bytes_out = std::max<std::int64_t>(c.bytes_out, 0);
  c.physical_bytes_in = std::max<std::int64_t>(c.physical_bytes_in, 0);
  c.physical_bytes_out = std::max<std::int64_t>(c.physical_bytes_out, 0);
  c.requests = std::max<std::int64_t>(c.requests, 0);
  return c;
}

// Makes sure the server has counted every byte it sent on `client`'s connection. The server
// counts a reply when its socket write completes, which can be just after the client has read
// it and asked for serverStatus on its other connection; a ping on this connection is handled
// only after that count, so afterwards at most the ping's own small reply is still uncounted.
Status FenceCounters(MongoClient& client) {
  bson_t ping = BSON_INITIALIZER;
  BSON_APPEND_INT32(&ping, "ping", 1);
  StatusWith<BsonPtr> pong = client.RunCommand("admin", ping);
  bson_destroy(&ping);
  return pong.status();
}

// Reads every document of `collection` in batches of `batch_size`.
Status ReadAll(mongoc_collection_t* collection, std::size_t batch_size, ProgressSink& progress,
               std::int64_t* records, std::int64_t* bytes) {
  bson_t filter = BSON_INITIALIZER;
  bson_t opts = BSON_INITIALIZER;
  BSON_APPEND_INT64(&opts, "batchSize", static_cast<std::int64_t>(batch_size));
  mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(collection, &filter, &opts, nullptr);
  bson_destroy(&filter);
  bson_destroy(&opts);
  const bson_t* doc;
  while (mongoc_cursor_next(cursor, &doc)) {
    ++*records;
    *bytes += doc->len;
    if ((*records & 63) == 0) progress.Advance(static_cast<double>(*bytes));
  }
  bson_error_t error;
  Status status;
  if (mongoc_cursor_error(cursor, &error)) status = DriverError(error, "find failed");
  mongoc_cursor_destroy(cursor);
  return status;
}

}  // namespace

Status ValidateNetworkBenchOptions(const NetworkBenchOptions& options) {
  if (options.compressors.empty()) return Status(ErrorCode::kBadValue, "no compressor given");
  std::set<std::string> seen;
  for (const std::string& name : options.compressors) {
    if (!IsKnownCompressor(name)) {
      return Status(ErrorCode::kBadValue,
                    "unknown compressor '" + name + "' (choose from none, snappy, zlib, zstd)");
    }
    if (!seen.insert(name).second) {
      return Status(ErrorCode::kBadValue, "compressor '" + name + "' given twice");
    }
  }
  if (!(options.megabytes > 0) || !std::isfinite(options.megabytes)) {
    return Status(ErrorCode::kBadValue, "--megabytes must be above 0");
  }
  if (options.batch_size == 0)
    return Status(ErrorCode::kBadValue, "--batch-size must be at least 1");
  if (options.zlib_level < -1 || options.zlib_level > 9) {
    return Status(ErrorCode::kBadValue, "--zlib-level must be between -1 and 9");
  }
  return Status::OK();
}

StatusWith<NetworkBenchResult> RunNetworkBench(const NetworkBenchOptions& options,
                                               ProgressSink& progress) {
  QUARRY_RETURN_IF_ERROR(ValidateNetworkBenchOptions(options));
  QUARRY_ASSIGN_OR_RETURN(
      std::unique_ptr<MongoClient> stats,
      MongoClient::Connect({.uri = options.uri, .app_name = "quarry-bench-stats"}));
  QUARRY_RETURN_IF_ERROR(stats->ReadNetworkCounters());
  std::vector<std::unique_ptr<MongoClient>> clients;
  for (const std::string& compressor : options.compressors) {
    QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<MongoClient> client,
                            MongoClient::Connect({.uri = options.uri,
                                                  .compressor = compressor,
                                                  .zlib_level = options.zlib_level,
                                                  .app_name = "quarry-bench"}));
    clients.push_back(std::move(client));
  }

  ListingGenerator generator({.seed = options.seed});
  DocumentSet docs =
      GenerateBytes(generator, static_cast<std::size_t>(std::llround(options.megabytes * 1e6)));
  NetworkBenchResult result;
  result.documents = static_cast<std::int64_t>(docs.size());
  result.bytes = static_cast<std::int64_t>(docs.bytes());

  // What one serverStatus call adds to the counters (its request in, its reply out), to take
  // off each phase's delta.
  QUARRY_ASSIGN_OR_RETURN(NetworkCounters first, stats->ReadNetworkCounters());
  QUARRY_ASSIGN_OR_RETURN(NetworkCounters second, stats->ReadNetworkCounters());
  const NetworkCounters overhead = second - first;

  CollectionPtr admin_view = stats->Collection(options.database, options.collection);
  const InsertOptions write{.mode = WriteMode::kAcknowledged};
  for (std::size_t i = 0; i < clients.size(); ++i) {
    const std::string& compressor = options.compressors[i];
    CollectionPtr collection = clients[i]->Collection(options.database, options.collection);
    QUARRY_RETURN_IF_ERROR(DropCollection(admin_view.get()));

    NetworkPhase written;
    written.compressor = compressor;
    written.phase = "write";
    QUARRY_ASSIGN_OR_RETURN(NetworkCounters before_write, stats->ReadNetworkCounters());
    progress.Begin(compressor + " write", static_cast<double>(docs.size()));
    Clock::time_point start = Clock::now();
    Status wrote = InsertInBatches(collection.get(), docs, options.batch_size, write, progress);
    written.seconds = SecondsSince(start);
    progress.End();
    QUARRY_RETURN_IF_ERROR(wrote.WithContext(compressor));
    QUARRY_RETURN_IF_ERROR(FenceCounters(*clients[i]));
    QUARRY_ASSIGN_OR_RETURN(NetworkCounters after_write, stats->ReadNetworkCounters());
    written.records = result.documents;
    written.bytes = result.bytes;
    written.server = AtLeastZero(after_write - before_write - overhead);

    NetworkPhase read;
    read.compressor = compressor;
    read.phase = "read";
    progress.Begin(compressor + " read", static_cast<double>(docs.bytes()));
    start = Clock::now();
    Status got =
        ReadAll(collection.get(), options.batch_size, progress, &read.records, &read.bytes);
    read.seconds = SecondsSince(start);
    progress.End();
    QUARRY_RETURN_IF_ERROR(got.WithContext(compressor));
    QUARRY_RETURN_IF_ERROR(FenceCounters(*clients[i]));
    QUARRY_ASSIGN_OR_RETURN(NetworkCounters after_read, stats->ReadNetworkCounters());
    read.server = AtLeastZero(after_read - after_write - overhead);
    if (read.records != result.documents) {
      return Status(ErrorCode::kOperationFailed,
                    compressor + ": read " + std::to_string(read.records) + " documents of the " +
                        std::to_string(result.documents) + " written");
    }
    result.phases.push_back(std::move(written));
    result.phases.push_back(std::move(read));
  }
  QUARRY_RETURN_IF_ERROR(DropCollection(admin_view.get()));
  return result;
}

ResultTable NetworkBenchTable(const NetworkBenchOptions& options,
                              const NetworkBenchResult& result) {
  ResultTable table;
  table.benchmark = "network";
  table.title = "quarry bench network: the same listings written and read with each compressor";
  table.parameters = {{"uri", options.uri},
                      {"documents", result.documents},
                      {"MB", static_cast<double>(result.bytes) / 1e6},
                      {"batch size", static_cast<std::int64_t>(options.batch_size)},
                      {"seed", static_cast<std::int64_t>(options.seed)}};
  if (options.zlib_level != -1) {
    table.parameters.emplace_back("zlib level", static_cast<std::int64_t>(options.zlib_level));
  }
  table.columns = {{"compressor", "compressor"},
                   {"phase", "phase"},
                   {"records", "records"},
                   {"seconds", "seconds", 3},
                   {"records/s", "records_per_second", 0},
                   {"MB/s", "megabytes_per_second", 1},
                   {"physicalBytesIn", "physical_bytes_in"},
                   {"physicalBytesOut", "physical_bytes_out"},
                   {"saving %", "saving_percent", 1}};
  auto physical = [](const NetworkPhase& p) {
    return p.phase == "write" ? p.server.physical_bytes_in : p.server.physical_bytes_out;
  };
  for (const NetworkPhase& p : result.phases) {
    const NetworkPhase* none = nullptr;
    for (const NetworkPhase& q : result.phases) {
      if (q.compressor == "none" && q.phase == p.phase) none = &q;
    }
    Cell saving;
    if (none != nullptr && physical(*none) > 0) {
      saving =
          100.0 * (1.0 - static_cast<double>(physical(p)) / static_cast<double>(physical(*none)));
    }
    double seconds = std::max(p.seconds, 1e-9);
    table.rows.push_back({p.compressor, p.phase, p.records, p.seconds,
                          static_cast<double>(p.records) / seconds,
                          static_cast<double>(p.bytes) / 1e6 / seconds, p.server.physical_bytes_in,
                          p.server.physical_bytes_out, saving});
  }
  table.notes = {
      "MB = 10^6 bytes of BSON documents. physicalBytesIn/Out: the server's serverStatus "
      "network counters over the phase.",
      "saving %: physical bytes in the data's direction (in for write, out for read) below "
      "compressor none's."};
  return table;
}

ChartOptions NetworkBenchChart(const ResultTable& table) {
  return {.label_columns = {table.ColumnIndex("compressor"), table.ColumnIndex("phase")},
          .value_columns = {table.ColumnIndex("megabytes_per_second"),
                            table.ColumnIndex("saving_percent")}};
}

}  // namespace quarry::tools::bench
