// quarryd's options: mongod's flag spellings, and a YAML config file with mongod.conf's keys.
// Flags given on the command line win over the file, as with mongod.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "net/tls_options.h"

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
  bool auth = false;                       // --auth / security.authorization: enabled
  std::int64_t oplog_size_mb = 1024;       // the oplog window, by size (0: unlimited)
  std::int64_t oplog_retention_hours = 0;  // and by age (0: unlimited)
  double cache_size_gb = 0;  // the block cache (--wiredTigerCacheSizeGB); 0: mongod's default
  std::int64_t ttl_monitor_sleep_secs = 60;  // --setParameter ttlMonitorSleepSecs=N
  bool ttl_monitor_enabled = true;           // --setParameter ttlMonitorEnabled=false
  // --setParameter internalQueryMaxBlockingSortMemoryUsageBytes=N and
  // internalDocumentSourceGroupMaxMemoryBytes=N: the blocking stages' memory limits.
  std::size_t max_blocking_sort_bytes = 100 * 1024 * 1024;
  std::size_t max_group_bytes = 100 * 1024 * 1024;
  // --setParameter rocksdbLogLevel: what RocksDB writes to its LOG file under the data
  // directory (debug, info, warn, error), for tracing its flushes and compactions.
  std::string rocksdb_log_level = "warn";
  // --setParameter minSnapshotHistoryWindowInSeconds: how far back reads at a past cluster time
  // reach, and so how long what a write deletes (a dropped collection's files too) stays.
  std::int64_t snapshot_history_seconds = 300;
  int http_port = 0;                       // /metrics and /healthz; 0: no HTTP listener
  std::string http_bind_ip = "127.0.0.1";  // comma-separated, as bind_ip
  // --maxConns / net.maxIncomingConnections; 0: derived from the descriptor limit, as mongod.
  std::int64_t max_conns = 0;
  // net.tls: mongod's --tls* options, validated by ParseOptions.
  std::string tls_mode = "disabled";
  std::string tls_certificate_key_file;
  std::string tls_ca_file;
  bool tls_allow_connections_without_certificates = false;
  std::string tls_disabled_protocols;  // empty: mongod's default (TLS1_0)
  // --setParameter incomingMessageTimeoutMillis: a message that stops arriving this long
  // closes its connection.
  std::int64_t incoming_message_timeout_ms = 30000;
  // --setParameter incomingMessageMemoryLimitMB: memory every partly received message may
  // hold together.
  std::int64_t incoming_message_memory_limit_mb = 1024;
  // --setParameter shutdownTimeoutMillisForSignaledShutdown: how long SIGTERM (or `shutdown`)
  // lets running operations finish before it interrupts them.
  std::int64_t shutdown_timeout_ms = 10000;
  // How long an io thread may poll for its next event before it sleeps; 0: never.
  std::int64_t io_thread_poll_micros = 100;
  std::string config_path;
  std::vector<std::string> argv;
};

enum class ParseOutcome { kRun, kExitSuccess, kExitFailure };

// Parses argv (and the --config file it names). --help and --version print and return
// kExitSuccess; errors print one clear line to stderr and return kExitFailure.
ParseOutcome ParseOptions(int argc, char** argv, Options* options);

// The net.tls options as net/ takes them, validated (mode, protocols, a certificate for any
// TLS mode, readable files).
StatusWith<net::TlsOptions> TlsSettings(const Options& options);

// The enabled compressor names, validated ("snappy", "zlib", "zstd").
StatusWith<std::vector<std::string>> CompressorList(const std::string& spec);

}  // namespace quarry::main
