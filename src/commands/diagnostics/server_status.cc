// serverStatus: the sections tools read, in mongod's shape, with the network counters that
// prove what wire compression saves.
#include "commands/diagnostics/server_status.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <string>

#include "base/clock.h"
#include "bson/builder.h"
#include "commands/auth/auth_status.h"
#include "commands/command_context.h"
#include "commands/register.h"
#include "cursors/cursor_manager.h"
#include "exec/ttl.h"
#include "query/spill/spill_stats.h"
#include "storage/engine.h"
#include "wire/network_counters.h"

namespace quarry::commands {
namespace {

void AppendCompressor(bson::DocumentBuilder* b, std::string_view name,
                      const wire::CompressorCounters& c) {
  b->OpenDocument(name);
  b->OpenDocument("compressor")
      .AppendInt64("bytesIn", c.compressor_bytes_in)
      .AppendInt64("bytesOut", c.compressor_bytes_out)
      .Close();
  b->OpenDocument("decompressor")
      .AppendInt64("bytesIn", c.decompressor_bytes_in)
      .AppendInt64("bytesOut", c.decompressor_bytes_out)
      .Close();
  b->Close();
}

bool Enabled(const ServiceState& state, std::string_view name) {
  for (const std::string& c : state.config.compressors) {
    if (c == name) return true;
  }
  return false;
}

// Resident and virtual memory in MiB, from /proc/self/statm.
std::pair<std::int64_t, std::int64_t> MemoryMiB() {
  std::ifstream statm("/proc/self/statm");
  std::int64_t virtual_pages = 0;
  std::int64_t resident_pages = 0;
  statm >> virtual_pages >> resident_pages;
  std::int64_t page = sysconf(_SC_PAGE_SIZE);
  return {resident_pages * page / (1024 * 1024), virtual_pages * page / (1024 * 1024)};
}

// metrics.commands: per command, {failed, total} as mongod shows them, plus the time spent in
// it (totalMicros), and <UNKNOWN> for names that are no command.
void AppendCommandMetrics(const ServiceState& state, bson::DocumentBuilder* b) {
  b->OpenDocument("commands");
  b->AppendInt64("<UNKNOWN>", state.opcounters.unknown_commands.load());
  if (state.registry != nullptr) {
    for (const Command* command : state.registry->All()) {
      const CommandCounters& counters = state.registry->counters(command);
      b->OpenDocument(command->name)
          .AppendInt64("failed", counters.failed.load())
          .AppendInt64("total", counters.total.load())
          .AppendInt64("totalMicros", counters.micros.load())
          .Close();
    }
  }
  b->Close();
}

void AppendLatency(std::string_view name, const LatencyCounter& counter, bson::DocumentBuilder* b) {
  b->OpenDocument(name)
      .AppendInt64("latency", counter.micros.load())
      .AppendInt64("ops", counter.ops.load())
      .Close();
}

// RocksDB's own figures, summed over the column families, under the names of its properties.
void AppendRocksDb(const storage::EngineFigures& figures, bson::DocumentBuilder* b) {
  std::uint64_t live_data = 0;
  std::uint64_t sst = 0;
  std::uint64_t keys = 0;
  std::uint64_t memtables = 0;
  for (const storage::FamilyFigures& family : figures.families) {
    live_data += family.live_data_bytes;
    sst += family.live_sst_bytes;
    keys += family.estimated_keys;
    memtables += family.memtable_bytes;
  }
  auto i64 = [](std::uint64_t v) { return static_cast<std::int64_t>(v); };
  b->OpenDocument("rocksdb")
      .AppendInt64("estimate-live-data-size", i64(live_data))
      .AppendInt64("live-sst-files-size", i64(sst))
      .AppendInt64("estimate-num-keys", i64(keys))
      .AppendInt64("cur-size-all-mem-tables", i64(memtables))
      .AppendInt64("block-cache-usage", i64(figures.block_cache_usage_bytes))
      .AppendInt64("block-cache-capacity", i64(figures.block_cache_capacity_bytes))
      .AppendInt64("estimate-pending-compaction-bytes", i64(figures.pending_compaction_bytes))
      .AppendInt64("compaction-pending", i64(figures.compaction_pending))
      .AppendInt64("num-running-compactions", i64(figures.running_compactions))
      .AppendInt64("num-running-flushes", i64(figures.running_flushes))
      .Close();
}

// mongod's transactions section: retryable writes and multi-document transactions. A single
// replica set prepares none (prepare is two-phase commit across shards), so the prepared counts
// stay 0. transactionsCollectionWriteCount is left out: there is no config.transactions.
void AppendTransactions(const TransactionMetrics& metrics, bson::DocumentBuilder* b) {
  const std::int64_t open = metrics.current_open.load();
  const std::int64_t active = metrics.current_active.load();
  b->OpenDocument("transactions")
      .AppendInt64("retriedCommandsCount", metrics.retried_commands.load())
      .AppendInt64("retriedStatementsCount", metrics.retried_statements.load())
      .AppendInt64("currentActive", active)
      .AppendInt64("currentInactive", open > active ? open - active : 0)
      .AppendInt64("currentOpen", open)
      .AppendInt64("totalAborted", metrics.total_aborted.load())
      .AppendInt64("totalCommitted", metrics.total_committed.load())
      .AppendInt64("totalStarted", metrics.total_started.load())
      .AppendInt64("totalPrepared", 0)
      .AppendInt64("totalPreparedThenCommitted", 0)
      .AppendInt64("totalPreparedThenAborted", 0)
      .AppendInt64("currentPrepared", 0)
      .Close();
}

}  // namespace

bson::Document ServerStatusDocument(ServiceState& state) {
  wire::NetworkCountersSnapshot net = wire::GlobalNetworkCounters().Snapshot();
  auto uptime = std::chrono::steady_clock::now() - state.start_time;
  std::int64_t uptime_ms = std::chrono::duration_cast<std::chrono::milliseconds>(uptime).count();

  bson::DocumentBuilder b;
  b.AppendString("host", state.host_name + ":" + std::to_string(state.config.port));
  b.AppendString("version", kMongoVersion);
  b.AppendString("process", "quarryd");
  b.AppendInt64("pid", getpid());
  b.AppendDouble("uptime", std::floor(static_cast<double>(uptime_ms) / 1000));  // whole seconds
  b.AppendInt64("uptimeMillis", uptime_ms);
  b.AppendInt64("uptimeEstimate", uptime_ms / 1000);
  b.AppendDate("localTime", NowMillis());
  b.OpenDocument("asserts")
      .AppendInt32("regular", 0)
      .AppendInt32("warning", 0)
      .AppendInt32("msg", 0)
      .AppendInt32("user", 0)
      .AppendInt32("rollovers", 0)
      .Close();
  b.OpenDocument("connections")
      .AppendInt32("current", static_cast<std::int32_t>(net.connections_current))
      .AppendInt32(
          "available",  // mongod's limit when none is set (maxConns' maximum)
          static_cast<std::int32_t>((net.connections_limit > 0 ? net.connections_limit : 1000000) -
                                    net.connections_current))
      .AppendInt32("totalCreated", static_cast<std::int32_t>(net.connections_total_created))
      .AppendInt32("rejected", static_cast<std::int32_t>(net.connections_rejected))
      .AppendInt32("active", 1)
      .Close();

  b.OpenDocument("network");
  b.AppendInt64("bytesIn", net.bytes_in);
  b.AppendInt64("bytesOut", net.bytes_out);
  b.AppendInt64("physicalBytesIn", net.physical_bytes_in);
  b.AppendInt64("physicalBytesOut", net.physical_bytes_out);
  b.AppendInt64("numSlowDNSOperations", 0);
  b.AppendInt64("numSlowSSLOperations", 0);
  b.AppendInt64("numRequests", net.num_requests);
  if (!state.config.compressors.empty()) {
    b.OpenDocument("compression");
    if (Enabled(state, "snappy")) AppendCompressor(&b, "snappy", net.snappy);
    if (Enabled(state, "zstd")) AppendCompressor(&b, "zstd", net.zstd);
    if (Enabled(state, "zlib")) AppendCompressor(&b, "zlib", net.zlib);
    b.Close();
  }
  b.Close();

  AppendSecuritySection(state.auth, &b);

  const OpCounters& ops = state.opcounters;
  b.OpenDocument("opcounters")
      .AppendInt64("insert", ops.insert.load())
      .AppendInt64("query", ops.query.load())
      .AppendInt64("update", ops.update.load())
      .AppendInt64("delete", ops.remove.load())
      .AppendInt64("getmore", ops.getmore.load())
      .AppendInt64("command", ops.command.load())
      .Close();
  b.OpenDocument("opcountersRepl")
      .AppendInt64("insert", 0)
      .AppendInt64("query", 0)
      .AppendInt64("update", 0)
      .AppendInt64("delete", 0)
      .AppendInt64("getmore", 0)
      .AppendInt64("command", 0)
      .Close();
  auto [resident, virt] = MemoryMiB();
  b.OpenDocument("mem")
      .AppendInt32("bits", 64)
      .AppendInt64("resident", resident)
      .AppendInt64("virtual", virt)
      .AppendBool("supported", true)
      .Close();
  if (!state.config.repl_set.empty()) {
    std::string address = state.AdvertisedAddress();
    b.OpenDocument("repl")
        .AppendString("setName", state.config.repl_set)
        .AppendBool("ismaster", true)
        .AppendBool("isWritablePrimary", true)
        .AppendBool("secondary", false)
        .OpenArray("hosts")
        .AppendString("0", address)
        .Close()
        .AppendString("me", address)
        .Close();
  }
  b.OpenDocument("storageEngine")
      .AppendString("name", "rocksdb")
      .AppendBool("supportsCommittedReads", true)
      .AppendBool("persistent", true)
      .Close();
  if (state.engine != nullptr) AppendRocksDb(state.engine->Figures(), &b);
  AppendTransactions(state.transactions, &b);
  b.OpenDocument("opLatencies");
  AppendLatency("reads", state.metrics.reads, &b);
  AppendLatency("writes", state.metrics.writes, &b);
  AppendLatency("commands", state.metrics.commands, &b);
  b.Close();
  b.OpenDocument("metrics");
  AppendCommandMetrics(state, &b);
  if (state.cursors != nullptr) {
    const cursors::CursorManager::Counts cursors = state.cursors->counts();
    b.OpenDocument("cursor")
        .AppendInt64("timedOut", static_cast<std::int64_t>(cursors.timed_out))
        .OpenDocument("open")
        .AppendInt64("noTimeout", static_cast<std::int64_t>(cursors.open_no_timeout))
        .AppendInt64("pinned", static_cast<std::int64_t>(cursors.open_pinned))
        .AppendInt64("total", static_cast<std::int64_t>(cursors.open))
        .Close()
        .Close();
  }
  b.OpenDocument("document")
      .AppendInt64("deleted", state.metrics.documents_deleted.load())
      .AppendInt64("inserted", state.metrics.documents_inserted.load())
      .AppendInt64("returned", state.metrics.documents_returned.load())
      .AppendInt64("updated", state.metrics.documents_updated.load())
      .Close();
  b.OpenDocument("operation")
      .AppendInt64("killedDueToMaxTimeMSExpired", state.metrics.killed_max_time_ms.load())
      .AppendInt64("scanAndOrder", state.metrics.scan_and_order.load())
      .AppendInt64("writeConflicts", state.metrics.write_conflicts.load())
      .Close();
  b.OpenDocument("queryExecutor")
      .AppendInt64("scanned", state.metrics.keys_scanned.load())
      .AppendInt64("scannedObjects", state.metrics.docs_scanned.load())
      .Close();
  const exec::TtlCounters& ttl = exec::GlobalTtlCounters();
  b.OpenDocument("ttl")
      .AppendInt64("deletedDocuments", ttl.deleted_documents.load())
      .AppendInt64("passes", ttl.passes.load())
      .Close();
  // mongod's spill counters of blocking stages.
  const query::SpillCounters& sorts = query::SortSpillCounters();
  const query::SpillCounters& groups = query::GroupSpillCounters();
  b.OpenDocument("query")
      .OpenDocument("sort")
      .AppendInt64("spillToDisk", sorts.spills.load())
      .AppendInt64("spilledDataStorageSize", sorts.spilled_bytes.load())
      .Close()
      .OpenDocument("group")
      .AppendInt64("spills", groups.spills.load())
      .AppendInt64("spilledDataStorageSize", groups.spilled_bytes.load())
      .AppendInt64("spilledRecords", groups.spilled_records.load())
      .Close()
      .Close();
  b.OpenDocument("quarry")
      .AppendInt64("unacknowledgedWriteErrors", ops.w0_write_errors.load())
      .Close();
  b.Close();
  return std::move(b).Finish();
}

namespace {

// serverStatus leaves the oplog section out unless asked ({oplog: 1}), as mongod does: its
// newest and oldest entries' timestamps.
StatusWith<bson::Document> RunServerStatus(CommandContext& ctx, const Request& request) {
  bson::Document status = ServerStatusDocument(ctx.service());
  const ServiceState& service = ctx.service();
  if (!request.body.Get("oplog").Truthy() || service.config.repl_set.empty() ||
      service.engine == nullptr) {
    return status;
  }
  QUARRY_ASSIGN_OR_RETURN(storage::Timestamp earliest, ctx.engine().oplog().OldestTimestamp());
  bson::DocumentBuilder b;
  for (const bson::Element& e : status.view()) b.Append(e.key, e.value);
  b.OpenDocument("oplog")
      .AppendTimestamp("latestOptime", ctx.engine().oplog().LatestTimestamp())
      .AppendTimestamp("earliestOptime", earliest)
      .Close();
  return std::move(b).Finish();
}

}  // namespace

void RegisterServerStatusCommand(CommandRegistry& registry) {
  registry.Add({.name = "serverStatus",
                .run = RunServerStatus,
                .auth = OnCluster({auth::ActionType::kServerStatus})});
}

}  // namespace quarry::commands
