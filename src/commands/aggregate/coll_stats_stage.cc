#include "commands/aggregate/coll_stats_stage.h"

#include <cstdint>
#include <optional>

#include "base/clock.h"
#include "bson/builder.h"
#include "commands/execution.h"
#include "commands/latency_histogram.h"
#include "commands/namespace_usage.h"
#include "commands/replication/local_collections.h"
#include "commands/service_state.h"
#include "exec/storage_stats.h"
#include "storage/engine.h"
#include "storage/record_store.h"

namespace quarry::commands {
namespace {

struct CollStatsSpec {
  bool latency_stats = false;
  bool histograms = false;
  bool storage_stats = false;
  std::int64_t scale = 1;
  bool count = false;
  bool query_exec_stats = false;
};

Status UnknownField(std::string_view path) {
  return Status(ErrorCode::kLocation40415,
                "BSON field '" + std::string(path) + "' is an unknown field.");
}

Status NotAnObject(std::string_view path, bson::ValueView value) {
  return Status(ErrorCode::kTypeMismatch,
                "BSON field '" + std::string(path) + "' is the wrong type '" +
                    std::string(bson::TypeAlias(value.type())) + "', expected type 'object'");
}

Status NotABool(std::string_view path, bson::ValueView value) {
  return Status(ErrorCode::kTypeMismatch,
                "BSON field '" + std::string(path) + "' is the wrong type '" +
                    std::string(bson::TypeAlias(value.type())) + "', expected type 'bool'");
}

// A section that takes no options: {} and nothing else.
Status CheckEmptyObject(std::string_view path, bson::ValueView value) {
  if (value.type() != bson::Type::kDocument) return NotAnObject(path, value);
  if (!value.Document().empty()) {
    return UnknownField(std::string(path) + "." + std::string(value.Document().FirstKey()));
  }
  return Status::OK();
}

StatusWith<std::int64_t> ParseStorageStats(bson::DocumentView storage) {
  std::int64_t scale = 1;
  for (const bson::Element& e : storage) {
    const std::string path = "$collStats.storageStats." + std::string(e.key);
    if (e.key == "scale") {
      if (!e.value.IsNumber()) {
        return Status(ErrorCode::kTypeMismatch,
                      "BSON field '" + path + "' is the wrong type '" +
                          std::string(bson::TypeAlias(e.value.type())) +
                          "', expected types '[long, int, decimal, double]'");
      }
      scale = e.value.AsInt64();
      if (scale < 1) {
        return Status(
            static_cast<ErrorCode>(51024),
            "BSON field 'scale' value must be >= 1, actual value '" + std::to_string(scale) + "'");
      }
    } else if (e.key == "verbose" || e.key == "waitForLock" || e.key == "numericOnly") {
      // verbose and numericOnly add or drop WiredTiger's own figures, which Quarry has none of;
      // nothing here waits for a lock.
      if (e.value.type() != bson::Type::kBool) return NotABool(path, e.value);
    } else {
      return UnknownField(path);
    }
  }
  return scale;
}

StatusWith<CollStatsSpec> ParseSpec(bson::ValueView argument) {
  if (argument.type() != bson::Type::kDocument) {
    return Status(static_cast<ErrorCode>(5447000),
                  "$collStats must take a nested object but found: " + argument.ToJson());
  }
  CollStatsSpec spec;
  for (const bson::Element& e : argument.Document()) {
    const std::string path = "$collStats." + std::string(e.key);
    if (e.key == "latencyStats") {
      if (e.value.type() != bson::Type::kDocument) return NotAnObject(path, e.value);
      for (const bson::Element& option : e.value.Document()) {
        if (option.key != "histograms") return UnknownField(path + "." + std::string(option.key));
        if (option.value.type() != bson::Type::kBool) {
          return NotABool(path + ".histograms", option.value);
        }
        spec.histograms = option.value.Bool();
      }
      spec.latency_stats = true;
    } else if (e.key == "queryExecStats") {
      QUARRY_RETURN_IF_ERROR(CheckEmptyObject(path, e.value));
      spec.query_exec_stats = true;
    } else if (e.key == "storageStats") {
      if (e.value.type() != bson::Type::kDocument) return NotAnObject(path, e.value);
      QUARRY_ASSIGN_OR_RETURN(spec.scale, ParseStorageStats(e.value.Document()));
      spec.storage_stats = true;
    } else if (e.key == "count") {
      QUARRY_RETURN_IF_ERROR(CheckEmptyObject(path, e.value));
      spec.count = true;
    } else {
      return UnknownField(path);
    }
  }
  return spec;
}

Status NotFound(std::string_view what, const std::string& ns) {
  return Status(ErrorCode::kNamespaceNotFound, "Unable to retrieve " + std::string(what) +
                                                   " in $collStats stage :: caused by :: "
                                                   "Collection [" +
                                                   ns + "] not found.");
}

}  // namespace

StatusWith<std::vector<bson::Document>> CollStatsDocuments(CommandContext& ctx,
                                                           const std::string& db,
                                                           const std::string& coll,
                                                           bson::ValueView argument) {
  QUARRY_ASSIGN_OR_RETURN(CollStatsSpec spec, ParseSpec(argument));
  const std::string ns = db + "." + coll;
  bson::DocumentBuilder b;
  b.AppendString("ns", ns);
  b.AppendString("host", ctx.service().host_name + ":" + std::to_string(ctx.service().config.port));
  b.AppendDate("localTime", NowMillis());
  const NamespaceUsage::QueryFigures usage = ctx.service().usage.Query(ns);
  if (spec.latency_stats) {
    b.OpenDocument("latencyStats");
    AppendLatency("reads", usage.latency[NamespaceUsage::kReads], spec.histograms, true, &b);
    AppendLatency("writes", usage.latency[NamespaceUsage::kWrites], spec.histograms, true, &b);
    AppendLatency("commands", usage.latency[NamespaceUsage::kOtherCommands], spec.histograms, false,
                  &b);
    // Per collection mongod counts no transaction latency either.
    AppendLatency("transactions", LatencyHistogram::Figures(), spec.histograms, false, &b);
    b.Close();
  }
  if (IsReplicationCollection(ctx.service(), db, coll)) {
    const bson::Document stats =
        ReplicationCollectionStats(ctx, coll, static_cast<double>(spec.scale));
    if (spec.storage_stats) b.AppendDocument("storageStats", stats);
    if (spec.count) b.AppendNumber("count", stats.view().Get("count").AsInt64());
  } else if (spec.storage_stats || spec.count) {
    QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> collection,
                            LookupCollection(ctx, db, coll));
    if (!collection.has_value()) return NotFound(spec.storage_stats ? "storageStats" : "count", ns);
    if (spec.storage_stats) {
      b.AppendDocument("storageStats",
                       exec::StorageStats(ExecContextOf(ctx), *collection, spec.scale));
    }
    if (spec.count) b.AppendNumber("count", ctx.engine().records().Stats(collection->id).count);
  }
  if (spec.query_exec_stats) {
    QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> collection,
                            LookupCollection(ctx, db, coll));
    if (!collection.has_value()) return NotFound("queryExecStats", ns);
    b.OpenDocument("queryExecStats")
        .OpenDocument("collectionScans")
        .AppendInt64("total", usage.collection_scans)
        .AppendInt64("nonTailable", usage.non_tailable_collection_scans)
        .Close()
        .Close();
  }
  std::vector<bson::Document> docs;
  docs.push_back(std::move(b).Finish());
  return docs;
}

}  // namespace quarry::commands
