// `quarry bench large-docs`: the large-document experiment repeated in one run. JSON documents of
// 1, 5 and 10 MB go into Redis (started here on a free loopback port) with each client-side
// codec of the original experiment, and into the server as BSON with each wire compressor;
// each is written and read back by key / _id, several times. Columns: upload and download ms
// (medians), bytes on the wire each way, CPU ms of the client and of each server.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "tools/client/progress.h"
#include "tools/client/result_table.h"
#include "tools/client/svg_chart.h"

namespace quarry::tools::bench {

struct LargeDocsOptions {
  std::string uri;
  std::vector<double> sizes_mb = {1, 5, 10};
  std::vector<std::string> compressors = {"none", "snappy", "zstd"};
  int repeat = 5;
  double gridfs_mb = 100;  // a GridFS file uploaded and downloaded (0: none)
  int server_pid = 0;      // the server's, when local: its CPU time (0: not shown)
  std::string redis_server = "redis-server";
  // A running Redis ("host:port") to measure instead of starting one, e.g. across a shaped
  // link (bench/network-limited.sh --large-docs); its PID when local, for its CPU time.
  std::string redis_address;
  int redis_pid = 0;
  std::uint64_t seed = 7;
  std::string database = "quarry_bench";
  std::string collection = "large_docs";
};

Status ValidateLargeDocsOptions(const LargeDocsOptions& options);

// Starts Redis, runs every size x (codec | compressor), stops Redis.
StatusWith<client::ResultTable> RunLargeDocsBench(const LargeDocsOptions& options,
                                                  client::ProgressSink& progress);

// Upload and download ms, labelled by size, system and codec.
client::ChartOptions LargeDocsChart(const client::ResultTable& table);

}  // namespace quarry::tools::bench
