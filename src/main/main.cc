// quarryd: parse options, open the storage engine and catalog, serve until SIGINT/SIGTERM,
// then stop accepting, finish in-flight requests and close RocksDB cleanly.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

#include "base/allocator.h"
#include "base/log.h"
#include "bson/builder.h"
#include "catalog/catalog.h"
#include "changestream/change_notifier.h"
#include "changestream/oplog_retention.h"
#include "commands/auth/auth_change_observer.h"
#include "commands/search/synonym_cache.h"
#include "commands/service_state.h"
#include "cursors/cursor_manager.h"
#include "exec/index_build.h"
#include "exec/index_maintenance.h"
#include "exec/ttl.h"
#include "http/endpoints.h"
#include "main/cache_budget.h"
#include "main/descriptor_budget.h"
#include "main/options.h"
#include "net/server.h"
#include "query/spill/spill_file.h"
#include "server/service.h"
#include "storage/engine.h"
#include "storage/oplog.h"
#include "vector/search_index_registry.h"
#include "wire/compression.h"

namespace quarry::main {
namespace {

constexpr std::chrono::seconds kCursorReapInterval{30};
constexpr std::chrono::seconds kOplogTrimInterval{5};
// Search-index snapshots bound the oplog a restart redoes into the vector indexes (commits wait
// while a changed index is copied out).
constexpr std::chrono::minutes kSearchIndexSnapshotInterval{5};
// The change notifier's worker builds every change-stream batch. Under a full CPU it yields to
// the threads that serve writes, so open watchers cost writers little; with a CPU to spare it
// runs at once and latency is unchanged (bench/changestream_latency measures both).
constexpr int kNotifierNice = 19;

std::vector<std::string> SplitComma(const std::string& list) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    std::string part =
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!part.empty()) parts.push_back(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parts;
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "localhost";
  return name;
}

// getCmdLineOpts' "parsed", in mongod.conf's shape.
bson::Document ParsedOptions(const Options& options) {
  bson::DocumentBuilder b;
  if (!options.config_path.empty()) b.AppendString("config", options.config_path);
  b.OpenDocument("net")
      .AppendInt32("port", options.port)
      .AppendString("bindIp", options.bind_ip)
      .OpenDocument("compression")
      .AppendString("compressors", options.compressors)
      .Close();
  if (options.http_port != 0) {
    b.OpenDocument("http")
        .AppendInt32("port", options.http_port)
        .AppendString("bindIp", options.http_bind_ip)
        .Close();
  }
  if (options.max_conns > 0) b.AppendInt64("maxIncomingConnections", options.max_conns);
  if (options.tls_mode != "disabled") {
    b.OpenDocument("tls").AppendString("mode", options.tls_mode);
    if (!options.tls_certificate_key_file.empty()) {
      b.AppendString("certificateKeyFile", options.tls_certificate_key_file);
    }
    if (!options.tls_ca_file.empty()) b.AppendString("CAFile", options.tls_ca_file);
    if (options.tls_allow_connections_without_certificates) {
      b.AppendBool("allowConnectionsWithoutCertificates", true);
    }
    if (!options.tls_disabled_protocols.empty()) {
      b.AppendString("disabledProtocols", options.tls_disabled_protocols);
    }
    b.Close();
  }
  b.Close();
  if (!options.repl_set.empty()) {
    b.OpenDocument("replication").AppendString("replSetName", options.repl_set).Close();
  }
  b.OpenDocument("storage").AppendString("dbPath", options.dbpath);
  if (options.cache_size_gb > 0) {
    b.OpenDocument("wiredTiger")
        .OpenDocument("engineConfig")
        .AppendDouble("cacheSizeGB", options.cache_size_gb)
        .Close()
        .Close();
  }
  b.Close();
  if (options.auth) b.OpenDocument("security").AppendString("authorization", "enabled").Close();
  if (!options.logpath.empty()) {
    b.OpenDocument("systemLog")
        .AppendString("destination", "file")
        .AppendString("path", options.logpath)
        .Close();
  }
  return std::move(b).Finish();
}

// Runs `task` every `interval` on its own thread until destroyed.
class PeriodicTask {
 public:
  PeriodicTask(std::chrono::milliseconds interval, std::function<void()> task)
      : PeriodicTask([interval] { return interval; }, std::move(task)) {}
  // `interval` is read again before each wait, so that a runtime parameter can change it.
  PeriodicTask(std::function<std::chrono::milliseconds()> interval, std::function<void()> task)
      : thread_([this, interval = std::move(interval), task = std::move(task)] {
          std::unique_lock lock(mu_);
          while (!cv_.wait_for(lock, interval(), [this] { return stop_; })) {
            lock.unlock();
            task();
            lock.lock();
          }
        }) {}
  ~PeriodicTask() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

// Retention deletes from the oplog through storage's range delete.
class EngineOplogTrimmer : public changestream::OplogTrimmer {
 public:
  explicit EngineOplogTrimmer(storage::Oplog* oplog) : oplog_(oplog) {}
  Status TrimBefore(storage::Timestamp first_kept) override {
    return oplog_->TrimBefore(first_kept);
  }

 private:
  storage::Oplog* oplog_;
};

// One TTL monitor pass: deletes what TTL indexes say expired, logging what it did.
void RunTtlPass(storage::Engine* engine, catalog::Catalog* catalog) {
  const exec::ExecContext ctx{.engine = engine, .catalog = catalog, .interrupt = nullptr};
  const exec::Committer commit = [engine, catalog](storage::WriteUnit unit, bool ordered) {
    return exec::CommitMaintainingIndexes(*catalog, engine->pipeline(), std::move(unit),
                                          storage::CommitOptions{.ordered = ordered});
  };
  StatusWith<std::int64_t> deleted =
      exec::DeleteExpiredDocuments(ctx, commit, std::chrono::system_clock::now());
  if (!deleted.ok()) {
    log::Write(log::Severity::kWarning, "INDEX", 22542, "TTLMonitor", "TTL pass failed",
               {{"error", deleted.status().ToString()}});
  } else if (deleted.value() > 0) {
    log::Write(log::Severity::kInfo, "INDEX", 5479200, "TTLMonitor", "Deleted expired documents",
               {{"numDeleted", deleted.value()}});
  }
}

// Hands every collection's search-index definitions to the registry, which builds them.
void DefineSearchIndexes(const catalog::Catalog& catalog, vector::SearchIndexRegistry& registry) {
  for (const std::string& db : catalog.DatabaseNames()) {
    for (const auto& info : catalog.ListCollections(db)) {
      for (const catalog::SearchIndexInfo& index : info->search_indexes) {
        StatusWith<vector::SearchIndexDefinition> definition =
            vector::ParseSearchIndexDefinition(index.type, index.definition);
        if (!definition.ok()) {
          log::Write(log::Severity::kWarning, "QUERY", 7828400, "initandlisten",
                     "Skipping a search index whose definition no longer parses",
                     {{"ns", info->ns()},
                      {"index", index.name},
                      {"error", definition.status().ToString()}});
          continue;
        }
        registry.Define(info->id, info->uuid.view(), index.id, index.version,
                        std::move(definition).value());
      }
    }
  }
}

int Fatal(std::string_view message, const Status& status) {
  log::Write(log::Severity::kFatal, "CONTROL", 20574, "initandlisten", message,
             {{"error", status.ToString()}});
  std::cerr << "quarryd: " << message << ": " << status.reason() << "\n";
  return 1;
}

int Run(int argc, char** argv) {
  TuneAllocator(argv);
  Options options;
  switch (ParseOptions(argc, argv, &options)) {
    case ParseOutcome::kExitSuccess:
      return 0;
    case ParseOutcome::kExitFailure:
      return 2;
    case ParseOutcome::kRun:
      break;
  }
  // As mongod does, whatever the umask it was started with: the data directory, the WAL, the
  // logs and the backups Quarry writes are readable by their owner alone (0700 directories,
  // 0600 files).
  umask(S_IRWXG | S_IRWXO);
  log::Configure({.path = options.logpath, .quiet = options.quiet, .append = options.log_append});
  log::Write(log::Severity::kInfo, "CONTROL", 4615611, "initandlisten", "quarryd starting",
             {{"pid", static_cast<std::int64_t>(getpid())},
              {"port", options.port},
              {"dbPath", options.dbpath},
              {"version", commands::kMongoVersion}});

  std::error_code ec;
  std::filesystem::create_directories(options.dbpath, ec);
  if (ec) {
    return Fatal("cannot create the data directory",
                 Status(ErrorCode::kIllegalOperation, options.dbpath + ": " + ec.message()));
  }
  const DescriptorBudget descriptors = PlanDescriptors(options.max_conns);
  if (!descriptors.warning.empty()) {
    log::Write(log::Severity::kWarning, "NETWORK", 22184, "initandlisten", descriptors.warning,
               {{"maxConns", descriptors.max_connections}});
  }
  log::Write(log::Severity::kInfo, "CONTROL", 23113, "initandlisten", "Descriptor budget",
             {{"limit", static_cast<std::int64_t>(descriptors.limit)},
              {"maxConns", descriptors.max_connections},
              {"storageOpenFiles", descriptors.storage_open_files}});
  const std::size_t cache_bytes = BlockCacheBytes(options.cache_size_gb);
  log::Write(log::Severity::kInfo, "STORAGE", 22300, "initandlisten", "Block cache",
             {{"bytes", static_cast<std::int64_t>(cache_bytes)}});
  StatusWith<std::unique_ptr<storage::Engine>> engine = storage::Engine::Open(
      {.dbpath = options.dbpath,
       .block_cache_bytes = cache_bytes,
       .max_open_files = descriptors.storage_open_files,
       .rocksdb_log_level = options.rocksdb_log_level,
       .snapshot_history_window = std::chrono::seconds(options.snapshot_history_seconds)});
  if (!engine.ok()) return Fatal("cannot open the data directory", engine.status());
  StatusWith<std::unique_ptr<catalog::Catalog>> catalog =
      catalog::Catalog::Load(engine.value().get());
  if (!catalog.ok()) return Fatal("cannot load the catalog", catalog.status());
  // Under the engine's lock, so no other server's spilling query can be using these files.
  const std::string spill_dir = engine.value()->temp_dir();
  Status spill_ready = query::PrepareSpillDirectory(spill_dir);
  if (!spill_ready.ok()) return Fatal("cannot prepare the spill directory", spill_ready);
  Status indexes = exec::FinishIndexBuilds(exec::ExecContext{
      .engine = engine.value().get(), .catalog = catalog.value().get(), .interrupt = nullptr});
  if (!indexes.ok()) return Fatal("cannot finish the index builds in progress", indexes);
  cursors::CursorManager cursors;
  changestream::ChangeNotifier notifier(engine.value()->oplog().LatestTimestamp(), kNotifierNice);
  engine.value()->pipeline().AddObserver(&notifier);
  EngineOplogTrimmer trimmer(&engine.value()->oplog());
  changestream::OplogRetention retention(
      {.max_bytes = static_cast<std::uint64_t>(options.oplog_size_mb) << 20,
       .max_age = std::chrono::hours(options.oplog_retention_hours)},
      &trimmer, engine.value()->oplog().TrimmedBefore());
  engine.value()->pipeline().AddObserver(&retention);
  Status loaded = retention.Load(engine.value()->oplog());
  if (!loaded.ok()) return Fatal("cannot read the oplog", loaded);
  // Search indexes live in memory: each is built again in the background, from its snapshot
  // and the oplog after it, or from its collection.
  vector::SearchIndexRegistry search_indexes(&engine.value()->records(), &engine.value()->oplog(),
                                             options.dbpath + "/search_indexes");
  engine.value()->pipeline().AddObserver(&search_indexes);
  DefineSearchIndexes(*catalog.value(), search_indexes);
  commands::SynonymCache synonyms;
  engine.value()->pipeline().AddObserver(&synonyms);

  commands::ServiceState state;
  state.config.port = options.port;
  state.config.bind_ips = SplitComma(options.bind_ip);
  state.config.dbpath = options.dbpath;
  state.config.repl_set = options.repl_set;
  state.config.advertise_host = options.advertise_host;
  state.config.compressors = CompressorList(options.compressors).value();
  state.config.argv = options.argv;
  state.config.parsed_options = ParsedOptions(options);
  state.config.enable_test_commands = options.enable_test_commands;
  state.config.spill_dir = spill_dir;
  state.config.max_blocking_sort_bytes = options.max_blocking_sort_bytes;
  state.config.max_group_bytes = options.max_group_bytes;
  state.config.snapshot_history_seconds = options.snapshot_history_seconds;
  state.config.auth_enabled = options.auth;
  state.host_name = HostName();
  // A fixed electionId: drivers remember the highest they saw, so it must never go down
  // across restarts (the Server Discovery and Monitoring specification).
  bson::ObjectId::FromHex("7fffffff0000000000000001", &state.election_id);
  state.engine = engine.value().get();
  state.catalog = catalog.value().get();
  state.cursors = &cursors;
  state.notifier = &notifier;
  state.search_indexes = &search_indexes;
  state.synonyms = &synonyms;
  storage::Oplog* oplog = &engine.value()->oplog();
  state.cluster_time = [oplog] { return oplog->LatestTimestamp(); };
  state.oplog_trimmed_before = [&retention] { return retention.TrimmedBefore(); };
  state.oplog_bytes = [&retention] { return retention.bytes(); };
  state.oplog_entries = [&retention] { return retention.entries(); };
  state.oplog_max_bytes = static_cast<std::uint64_t>(options.oplog_size_mb) << 20;
  // Direct writes to admin.system.users and admin.system.roles change privileges too.
  commands::AuthChangeObserver auth_changes(&state.auth);
  engine.value()->pipeline().AddObserver(&auth_changes);

  server::Service service(state);
  // A command that does not say what it needs would be open to every user: refuse to start.
  Status declared = service.registry().CheckDeclarations();
  if (!declared.ok()) return Fatal("a command declares no authorization requirement", declared);
  Status sessions = service.Attach(state.engine);
  if (!sessions.ok()) return Fatal("cannot load the sessions' retryable-write records", sessions);
  net::ServerOptions net_options;
  net_options.bind_addresses = state.config.bind_ips;
  net_options.port = static_cast<std::uint16_t>(options.port);
  net_options.compressors.clear();
  for (const std::string& name : state.config.compressors) {
    net_options.compressors.push_back(*wire::CompressorFromName(name));
  }
  net_options.stop_on_signals = true;
  if (options.http_port != 0) {
    net_options.http.port = static_cast<std::uint16_t>(options.http_port);
    net_options.http.bind_addresses = SplitComma(options.http_bind_ip);
    net_options.http.handler = [&state](const net::HttpRequest& request) {
      http::Response answer =
          http::Serve(request.method, request.target, request.server_stopping, state);
      net::HttpResponse response;
      response.status = answer.status;
      response.content_type = std::move(answer.content_type);
      response.body = std::move(answer.body);
      if (!answer.allow.empty()) response.headers.emplace_back("Allow", std::move(answer.allow));
      return response;
    };
  }
  net_options.max_connections = descriptors.max_connections;
  net_options.tls = TlsSettings(options).value();  // validated by ParseOptions
  net_options.partial_message_timeout =
      std::chrono::milliseconds(options.incoming_message_timeout_ms);
  net_options.drain_timeout = std::chrono::milliseconds(options.shutdown_timeout_ms);
  net_options.io_poll_limit = std::chrono::microseconds(options.io_thread_poll_micros);
  net_options.incoming_message_memory_limit =
      static_cast<std::size_t>(options.incoming_message_memory_limit_mb) << 20;
  net::Server server(net_options, service);
  state.request_shutdown = [&server] { server.RequestStop(); };
  Status started = server.Start();
  if (!started.ok()) return Fatal("cannot listen", started);

  log::MarkStartupComplete();

  int signal = 0;
  {
    PeriodicTask reaper(kCursorReapInterval, [&cursors, &service] {
      cursors.ReapIdle(std::chrono::steady_clock::now());
      service.sessions().ReapExpired(std::chrono::system_clock::now());
    });
    // While fsync's lock holds writes, the background tasks that change stored data or files
    // (oplog trims, vector snapshots, TTL deletes) skip their turn, as mongod's TTL monitor does.
    PeriodicTask trim(kOplogTrimInterval, [&retention, &state] {
      commands::FsyncLock::Pass pass = state.fsync_lock.TryEnter();
      if (!pass) return;
      StatusWith<storage::Timestamp> trimmed = retention.TrimOnce(std::chrono::system_clock::now());
      if (!trimmed.ok()) {
        log::Write(log::Severity::kWarning, "STORAGE", 22430, "OplogTruncation",
                   "Oplog trim failed", {{"error", trimmed.status().ToString()}});
      }
    });
    PeriodicTask search_index_snapshots(kSearchIndexSnapshotInterval, [&search_indexes, &state] {
      commands::FsyncLock::Pass pass = state.fsync_lock.TryEnter();
      if (pass) search_indexes.SaveSnapshots();
    });
    // setParameter may change both while the server runs, as in mongod.
    state.parameters.ttl_monitor_sleep_secs = options.ttl_monitor_sleep_secs;
    state.parameters.ttl_monitor_enabled = options.ttl_monitor_enabled;
    PeriodicTask ttl(
        [&state] {
          return std::chrono::milliseconds(std::chrono::seconds(
              std::max<std::int64_t>(1, state.parameters.ttl_monitor_sleep_secs)));
        },
        [&] {
          commands::FsyncLock::Pass pass = state.fsync_lock.TryEnter();
          if (pass && state.parameters.ttl_monitor_enabled) RunTtlPass(state.engine, state.catalog);
        });
    signal = server.Run();
  }
  log::Write(log::Severity::kInfo, "CONTROL", 23377, "signalProcessingThread",
             "Received signal; shutting down", {{"signal", signal}});
  // Parked change-stream getMores are answered (empty) before the storage engine closes.
  engine.value()->pipeline().RemoveObserver(&notifier);
  engine.value()->pipeline().RemoveObserver(&retention);
  engine.value()->pipeline().RemoveObserver(&search_indexes);
  engine.value()->pipeline().RemoveObserver(&synonyms);
  engine.value()->pipeline().RemoveObserver(&auth_changes);
  search_indexes.Shutdown();
  search_indexes.SaveSnapshots();  // after the last commit it saw: start-up redoes nothing
  notifier.Shutdown();
  state.auth.delayed.Shutdown();  // held-back failed authentications are answered now
  cursors.KillAll();
  service.sessions().transactions().AbortAll();  // their snapshots go before the engine
  Status closed = engine.value()->Close();
  if (!closed.ok()) return Fatal("error while closing the storage engine", closed);
  log::Write(log::Severity::kInfo, "CONTROL", 20565, "signalProcessingThread", "Now exiting",
             {{"code", 0}});
  return 0;
}

}  // namespace
}  // namespace quarry::main

int main(int argc, char** argv) { return quarry::main::Run(argc, argv); }
