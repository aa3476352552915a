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
#include "commands/command_context.h"
#include "commands/register.h"
#include "exec/ttl.h"
#include "query/spill/spill_stats.h"
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
      .AppendInt32("available", 1000000 - static_cast<std::int32_t>(net.connections_current))
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
  b.OpenDocument("metrics");
  AppendCommandMetrics(state, &b);
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

StatusWith<bson::Document> RunServerStatus(CommandContext& ctx, const Request&) {
  return ServerStatusDocument(ctx.service());
}

}  // namespace

void RegisterServerStatusCommand(CommandRegistry& registry) {
  registry.Add({.name = "serverStatus", .run = RunServerStatus});
}

}  // namespace quarry::commands
