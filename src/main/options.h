// quarryd's options: mongod's flag spellings, and a YAML config file with mongod.conf's keys.
// Flags given on the command line win over the file, as with mongod.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace quarry::main {

struct Options {
  int port = 27017;
  std::string bind_ip = "localhost";  // comma-separated; "localhost" = 127.0.0.1 and ::1
  std::string dbpath = "./data";
  std::string repl_set = "rs0";
  std::string advertise_host;
  std::string compressors = "snappy,zstd,zlib";  // "disabled" or "" for none
  std::string logpath;
  bool log_append = false;
  bool quiet = false;
  bool enable_test_commands = false;
  bool auth = false;                         // --auth / security.authorization: enabled
  std::int64_t oplog_size_mb = 1024;         // the oplog window, by size (0: unlimited)
  std::int64_t oplog_retention_hours = 0;    // and by age (0: unlimited)
  std::int64_t ttl_monitor_sleep_secs = 60;  // --setParameter ttlMonitorSleepSecs=N
  bool ttl_monitor_enabled = true;           // --setParameter ttlMonitorEnabled=false
  // --setParameter internalQueryMaxBlockingSortMemoryUsageBytes=N and
  // internalDocumentSourceGroupMaxMemoryBytes=N: the blocking stages' memory limits.
  std::size_t max_blocking_sort_bytes = 100 * 1024 * 1024;
  std::size_t max_group_bytes = 100 * 1024 * 1024;
  int http_port = 0;                       // /metrics and /healthz; 0: no HTTP listener
  std::string http_bind_ip = "127.0.0.1";  // comma-separated, as bind_ip
  std::string config_path;
  std::vector<std::string> argv;
};

enum class ParseOutcome { kRun, kExitSuccess, kExitFailure };

// Parses argv (and the --config file it names). --help and --version print and return
// kExitSuccess; errors print one clear line to stderr and return kExitFailure.
ParseOutcome ParseOptions(int argc, char** argv, Options* options);

// The enabled compressor names, validated ("snappy", "zlib", "zstd").
StatusWith<std::vector<std::string>> CompressorList(const std::string& spec);

}  // namespace quarry::main
