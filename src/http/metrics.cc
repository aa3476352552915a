#include "http/metrics.h"

#include <optional>
#include <string_view>

#include "http/prometheus_text.h"

namespace quarry::http {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// The number at a dotted path of serverStatus, if there is one.
std::optional<double> At(bson::DocumentView doc, std::string_view path) {
  bson::ValueView value;
  while (true) {
    const std::size_t dot = path.find('.');
    value = doc.Get(path.substr(0, dot));
    if (dot == std::string_view::npos) break;
    if (value.type() != bson::Type::kDocument) return std::nullopt;
    doc = value.Document();
    path.remove_prefix(dot + 1);
  }
  if (!value.IsNumber()) return std::nullopt;
  return value.AsDouble();
}

// A family of one sample from one serverStatus field; left out when the field is.
void One(PrometheusText* out, bson::DocumentView status, std::string_view path,
         std::string_view name, std::string_view type, std::string_view help, double scale = 1) {
  if (std::optional<double> v = At(status, path)) {
    out->Family(name, type, help);
    out->Sample(*v * scale);
  }
}

// A family with one sample per field of a serverStatus section, labelled by the field's name.
void PerField(PrometheusText* out, bson::DocumentView status, std::string_view section,
              std::string_view label, std::string_view name, std::string_view type,
              std::string_view help) {
  bson::ValueView v = status.Get(section);
  if (v.type() != bson::Type::kDocument) return;
  out->Family(name, type, help);
  for (const bson::Element& e : v.Document()) {
    if (e.value.IsNumber())
      out->Sample({{std::string(label), std::string(e.key)}}, e.value.AsDouble());
  }
}

void Compression(PrometheusText* out, bson::DocumentView status) {
  bson::ValueView section = status.Get("network").type() == bson::Type::kDocument
                                ? status.Get("network").Document().Get("compression")
                                : bson::ValueView();
  if (section.type() != bson::Type::kDocument) return;
  out->Family("quarry_network_compression_bytes_total", "counter",
              "Bytes into and out of each wire compressor and decompressor");
  for (const bson::Element& codec : section.Document()) {
    if (codec.value.type() != bson::Type::kDocument) continue;
    for (std::string_view direction : {"compressor", "decompressor"}) {
      for (std::string_view side : {"bytesIn", "bytesOut"}) {
        std::optional<double> v =
            At(codec.value.Document(), std::string(direction) + "." + std::string(side));
        if (!v) continue;
        out->Sample({{"compressor", std::string(codec.key)},
                     {"direction", std::string(direction)},
                     {"side", side == "bytesIn" ? "in" : "out"}},
                    *v);
      }
    }
  }
  // The saving: what compression kept off the network, both ways.
  out->Family("quarry_network_compression_saved_bytes", "gauge",
              "Bytes wire compression kept off the network (uncompressed minus compressed)");
  for (const bson::Element& codec : section.Document()) {
    if (codec.value.type() != bson::Type::kDocument) continue;
    const bson::DocumentView c = codec.value.Document();
    const double sent =
        At(c, "compressor.bytesIn").value_or(0) - At(c, "compressor.bytesOut").value_or(0);
    const double received =
        At(c, "decompressor.bytesOut").value_or(0) - At(c, "decompressor.bytesIn").value_or(0);
    out->Sample({{"compressor", std::string(codec.key)}, {"direction", "out"}}, sent);
    out->Sample({{"compressor", std::string(codec.key)}, {"direction", "in"}}, received);
  }
}

void Commands(PrometheusText* out, bson::DocumentView status) {
  bson::ValueView metrics = status.Get("metrics");
  if (metrics.type() != bson::Type::kDocument) return;
  bson::ValueView commands = metrics.Document().Get("commands");
  if (commands.type() != bson::Type::kDocument) return;
  struct Field {
    std::string_view key, name, help;
    double scale;
  };
  const Field fields[] = {
      {"total", "quarry_commands_total", "Commands run, by name", 1},
      {"failed", "quarry_commands_failed_total", "Commands that failed, by name", 1},
      {"totalMicros", "quarry_commands_seconds_total", "Time spent running commands, by name",
       1e-6}};
  for (const Field& field : fields) {
    out->Family(field.name, "counter", field.help);
    for (const bson::Element& e : commands.Document()) {
      if (e.value.type() != bson::Type::kDocument) continue;
      if (std::optional<double> v = At(e.value.Document(), field.key)) {
        out->Sample({{"command", std::string(e.key)}}, *v * field.scale);
      }
    }
  }
  One(out, status, "metrics.commands.<UNKNOWN>", "quarry_commands_unknown_total", "counter",
      "Requests naming no known command");
}

void Rocks(PrometheusText* out, const storage::EngineFigures& figures) {
  struct PerFamily {
    std::string_view name, help;
    std::uint64_t storage::FamilyFigures::*field;
  };
  const PerFamily per_family[] = {
      {"quarry_rocksdb_live_sst_bytes", "Bytes of the SST files each column family uses",
       &storage::FamilyFigures::live_sst_bytes},
      {"quarry_rocksdb_memtable_bytes", "Bytes in each column family's memtables",
       &storage::FamilyFigures::memtable_bytes},
      {"quarry_rocksdb_estimated_keys", "RocksDB's estimate of the keys in each column family",
       &storage::FamilyFigures::estimated_keys}};
  for (const PerFamily& metric : per_family) {
    out->Family(metric.name, "gauge", metric.help);
    for (const storage::FamilyFigures& family : figures.families) {
      out->Sample({{"family", family.name}}, static_cast<double>(family.*metric.field));
    }
  }
  for (const storage::FamilyFigures& family : figures.families) {
    if (family.name != "oplog") continue;
    out->Family("quarry_oplog_size_bytes", "gauge",
                "Bytes the oplog takes in RocksDB (SST files and memtables)");
    out->Sample(static_cast<double>(family.live_sst_bytes + family.memtable_bytes));
  }
  const std::pair<std::string_view, std::string_view> names[] = {
      {"quarry_rocksdb_block_cache_usage_bytes", "Bytes held in the shared block cache"},
      {"quarry_rocksdb_block_cache_capacity_bytes", "Capacity of the shared block cache"},
      {"quarry_rocksdb_pending_compaction_bytes",
       "Bytes RocksDB estimates compaction must rewrite"},
      {"quarry_rocksdb_running_flushes", "Memtable flushes running now"},
      {"quarry_rocksdb_running_compactions", "Compactions running now"}};
  const std::uint64_t values[] = {
      figures.block_cache_usage_bytes, figures.block_cache_capacity_bytes,
      figures.pending_compaction_bytes, figures.running_flushes, figures.running_compactions};
  for (std::size_t i = 0; i < std::size(names); ++i) {
    out->Family(names[i].first, "gauge", names[i].second);
    out->Sample(static_cast<double>(values[i]));
  }
}

// Single-sample metrics, each from one serverStatus field, in the order /metrics lists them.
struct SingleMetric {
  std::string_view path, name, type, help;
  double scale = 1;
};

constexpr SingleMetric kUptimeAndConnections[] = {
    {"uptimeMillis", "quarry_uptime_seconds", "gauge", "Seconds since the server started", 1e-3},
    {"connections.current", "quarry_connections", "gauge", "Open client connections"},
    {"connections.available", "quarry_connections_available", "gauge",
     "Connections that may still be opened"},
    {"connections.totalCreated", "quarry_connections_created_total", "counter",
     "Client connections accepted since start"},
    {"connections.rejected", "quarry_connections_rejected_total", "counter",
     "Client connections refused (connection limit)"},
    {"network.bytesIn", "quarry_network_bytes_in_total", "counter",
     "Bytes of messages received, before decompression"},
    {"network.bytesOut", "quarry_network_bytes_out_total", "counter",
     "Bytes of messages sent, before compression"},
    {"network.physicalBytesIn", "quarry_network_physical_bytes_in_total", "counter",
     "Bytes received on client sockets"},
    {"network.physicalBytesOut", "quarry_network_physical_bytes_out_total", "counter",
     "Bytes sent on client sockets"},
    {"network.numRequests", "quarry_network_requests_total", "counter", "Requests received"},
};

constexpr SingleMetric kMemory[] = {
    {"mem.resident", "quarry_memory_resident_bytes", "gauge", "Resident memory", kMiB},
    {"mem.virtual", "quarry_memory_virtual_bytes", "gauge", "Virtual memory", kMiB},
};

constexpr SingleMetric kBackgroundWork[] = {
    {"metrics.ttl.deletedDocuments", "quarry_ttl_deleted_documents_total", "counter",
     "Documents the TTL monitor deleted"},
    {"metrics.ttl.passes", "quarry_ttl_passes_total", "counter", "Passes of the TTL monitor"},
    {"metrics.quarry.unacknowledgedWriteErrors", "quarry_unacknowledged_write_errors_total",
     "counter", "Errors of w:0 writes, which no client was told about"},
};

template <std::size_t N>
void Singles(PrometheusText* out, bson::DocumentView status, const SingleMetric (&metrics)[N]) {
  for (const SingleMetric& m : metrics) One(out, status, m.path, m.name, m.type, m.help, m.scale);
}

}  // namespace

std::string RenderMetrics(bson::DocumentView status, const storage::EngineFigures* figures) {
  PrometheusText out;
  Singles(&out, status, kUptimeAndConnections);
  Compression(&out, status);
  PerField(&out, status, "opcounters", "type", "quarry_opcounters_total", "counter",
           "Operations by type, as serverStatus opcounters counts them");
  if (bson::ValueView metrics = status.Get("metrics"); metrics.type() == bson::Type::kDocument) {
    PerField(&out, metrics.Document(), "document", "op", "quarry_document_total", "counter",
             "Documents inserted, updated, deleted and returned");
  }
  Singles(&out, status, kMemory);
  Commands(&out, status);
  Singles(&out, status, kBackgroundWork);
  if (figures != nullptr) Rocks(&out, *figures);
  return out.text();
}

}  // namespace quarry::http
