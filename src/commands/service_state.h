// What every command may read about the running server: its configuration, its counters and
// the subsystems it owns. server/ builds one per process and hands it to each CommandContext.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bson/value.h"
#include "commands/auth/auth_state.h"
#include "commands/fsync_lock.h"
#include "commands/namespace_usage.h"
#include "commands/operation_registry.h"

namespace quarry::storage {
class Engine;
}
namespace quarry::catalog {
class Catalog;
}
namespace quarry::cursors {
class CursorManager;
}
namespace quarry::changestream {
class ChangeNotifier;
}
namespace quarry::vector {
class SearchIndexRegistry;
}

namespace quarry::commands {

class CommandRegistry;
class SessionControl;
class SynonymCache;
class TestHooks;

// Mirrors mongod's version so drivers and shells enable the features Quarry implements.
inline constexpr const char* kMongoVersion = "7.0.0";
inline constexpr int kMaxWireVersion = 21;

struct ServerConfig {
  int port = 27017;
  std::vector<std::string> bind_ips;
  std::string dbpath;
  std::string repl_set = "rs0";          // empty: present as a standalone
  std::string advertise_host;            // host:port in hello's hosts/me; default localhost:<port>
  std::vector<std::string> compressors;  // enabled network compressors, by name
  std::vector<std::string> argv;
  bson::Document parsed_options;  // getCmdLineOpts' "parsed"
  bool enable_test_commands = false;
  // The blocking stages' memory limits, as mongod's parameters: sorts' ($sort, find's SORT;
  // internalQueryMaxBlockingSortMemoryUsageBytes) and $group's
  // (internalDocumentSourceGroupMaxMemoryBytes).
  std::size_t max_blocking_sort_bytes = 100 * 1024 * 1024;
  std::size_t max_group_bytes = 100 * 1024 * 1024;
  std::int64_t snapshot_history_seconds = 300;  // minSnapshotHistoryWindowInSeconds
  // Where they spill past them under allowDiskUse: <dbpath>/_tmp, emptied at start-up. Empty:
  // nowhere (they fail past their limits).
  std::string spill_dir;
  bool auth_enabled = false;  // --auth / security.authorization: enabled
};

// mongod's serverStatus().opcounters.
struct OpCounters {
  std::atomic<std::int64_t> insert{0};
  std::atomic<std::int64_t> query{0};
  std::atomic<std::int64_t> update{0};
  std::atomic<std::int64_t> remove{0};
  std::atomic<std::int64_t> getmore{0};
  std::atomic<std::int64_t> command{0};
  std::atomic<std::int64_t> w0_write_errors{0};   // errors nobody was told about (w:0)
  std::atomic<std::int64_t> unknown_commands{0};  // metrics.commands.<UNKNOWN>
};

// serverStatus' opLatencies (time and count of reads, writes and other commands) and
// metrics.document, .queryExecutor and .operation, counted by dispatch.
struct LatencyCounter {
  std::atomic<std::int64_t> micros{0};
  std::atomic<std::int64_t> ops{0};
};
struct OperationMetrics {
  LatencyCounter reads;     // find, getMore, aggregate, count, distinct
  LatencyCounter writes;    // insert, update, delete, findAndModify
  LatencyCounter commands;  // everything else
  std::atomic<std::int64_t> documents_inserted{0};
  std::atomic<std::int64_t> documents_updated{0};
  std::atomic<std::int64_t> documents_deleted{0};
  std::atomic<std::int64_t> documents_returned{0};  // by find, getMore and aggregate
  // metrics.queryExecutor: index keys and documents the plans examined.
  std::atomic<std::int64_t> keys_scanned{0};
  std::atomic<std::int64_t> docs_scanned{0};
  // metrics.operation: operations that sorted in memory, write conflicts met (and retried),
  // operations that ran out of maxTimeMS.
  std::atomic<std::int64_t> scan_and_order{0};
  std::atomic<std::int64_t> write_conflicts{0};
  std::atomic<std::int64_t> killed_max_time_ms{0};
};

// The server parameters that may change while the server runs: setParameter and profile write
// them, getParameter and the subsystems they tune read them.
struct RuntimeParameters {
  std::atomic<std::int64_t> ttl_monitor_sleep_secs{60};
  std::atomic<bool> ttl_monitor_enabled{true};
  // profile's slowms: operations slower than this are logged as "Slow query".
  std::atomic<std::int64_t> slow_ms{100};
  // A multi-document transaction open longer is aborted.
  std::atomic<std::int64_t> transaction_lifetime_limit_seconds{60};
};

// serverStatus' transactions: retryable write commands that met statements an earlier attempt
// executed, and those statements; multi-document transactions started, committed and aborted
// since start-up, and those open now (active: a command of it runs). server/ counts them.
struct TransactionMetrics {
  std::atomic<std::int64_t> retried_commands{0};
  std::atomic<std::int64_t> retried_statements{0};
  std::atomic<std::int64_t> total_started{0};
  std::atomic<std::int64_t> total_committed{0};
  std::atomic<std::int64_t> total_aborted{0};
  std::atomic<std::int64_t> current_open{0};
  std::atomic<std::int64_t> current_active{0};
};

// Which of mongod's opcounters a command counts under.
enum class OpCounter : std::uint8_t { kCommand, kQuery, kGetMore, kInsert, kUpdate, kDelete };

struct ServiceState {
  ServerConfig config;
  OpCounters opcounters;
  OperationMetrics metrics;
  RuntimeParameters parameters;
  TransactionMetrics transactions;
  std::chrono::steady_clock::time_point start_time = std::chrono::steady_clock::now();
  std::string host_name;       // this machine's name, for serverStatus().host
  bson::ObjectId election_id;  // constant across restarts, see hello
  storage::Engine* engine = nullptr;
  catalog::Catalog* catalog = nullptr;
  cursors::CursorManager* cursors = nullptr;
  changestream::ChangeNotifier* notifier = nullptr;       // wakes change-stream getMores
  vector::SearchIndexRegistry* search_indexes = nullptr;  // createSearchIndexes' indexes
  SynonymCache* synonyms = nullptr;                       // search indexes' synonym mappings
  const CommandRegistry* registry = nullptr;
  SessionControl* sessions = nullptr;
  TestHooks* test_hooks = nullptr;  // only with --enableTestCommands
  OperationRegistry operations;     // what currentOp lists and killOp interrupts
  NamespaceUsage usage;             // what top reports
  AuthState auth;                   // users' generation, auth counters, failure delays
  FsyncLock fsync_lock;             // fsync {lock: true}: writes wait until fsyncUnlock
  // Oplog entries below this timestamp may have been trimmed (ChangeStreamHistoryLost).
  std::function<std::uint64_t()> oplog_trimmed_before;
  // The latest oplog timestamp (seconds << 32 | increment), for $clusterTime/operationTime.
  std::function<std::uint64_t()> cluster_time;
  // The oplog's size in bytes and entries as retention tracks them, and the size it is trimmed
  // to (0: no limit), for local.oplog.rs' statistics.
  std::function<std::uint64_t()> oplog_bytes;
  std::function<std::uint64_t()> oplog_entries;  // how many entries it holds
  std::uint64_t oplog_max_bytes = 0;
  // Asks the server for a graceful stop (the shutdown command); returns at once.
  std::function<void()> request_shutdown;

  // The "host:port" clients should use to reach this server.
  std::string AdvertisedAddress() const;
  // Whether open transactions hold records, or create collections, that a plain write or
  // creation may have to wait for.
  bool TransactionsMayBlockWrites() const;
};

}  // namespace quarry::commands
