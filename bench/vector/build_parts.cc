// Part 4: loading, the index build to READY, an insert with the index in place, and the
// server's memory per vector, each against its baseline; options not implemented are shown.
#include <chrono>
#include <cstdio>

#include "bench/clients/process_memory.h"
#include "bench/clients/search_index.h"
#include "bench/clients/verdict.h"
#include "bench/vector/parts.h"
#include "tools/bench/bulk_insert.h"
#include "tools/client/progress.h"

namespace quarry::bench {
namespace {

namespace tb = tools::bench;
namespace tc = tools::client;
using Clock = std::chrono::steady_clock;

// Inserts every document into an existing `handle` in w:1 batches and checks the count.
StatusWith<double> TimedInsert(mongoc_collection_t* handle, const VectorBenchSettings& settings,
                               const BenchData& data) {
  tc::NoProgress progress;
  const Clock::time_point start = Clock::now();
  QUARRY_RETURN_IF_ERROR(tb::InsertInBatches(handle, data.documents, settings.batch,
                                             {.mode = tb::WriteMode::kAcknowledged}, progress));
  const double seconds = SecondsSince(start);
  QUARRY_ASSIGN_OR_RETURN(std::int64_t count, tb::CountDocuments(handle));
  if (count != static_cast<std::int64_t>(data.documents.size())) {
    return Status(ErrorCode::kOperationFailed, "the collection holds " + std::to_string(count) +
                                                   " of " + std::to_string(data.documents.size()) +
                                                   " documents");
  }
  return seconds;
}

tc::Cell Ratio(const tc::Cell& a, const tc::Cell& b) {
  if (!std::holds_alternative<double>(a) || !std::holds_alternative<double>(b)) return {};
  return std::get<double>(a) / std::get<double>(b);
}

}  // namespace

VectorIndexSpec IndexSpecOf(const VectorBenchSettings& settings) {
  return {.dimensions = settings.dimensions,
          .max_edges = settings.max_edges,
          .num_edge_candidates = settings.ef_construction};
}

tc::Cell BytesPerVector(std::int64_t growth, std::size_t vectors) {
  if (growth < 0) return tc::Cell();
  return static_cast<double>(growth) / static_cast<double>(vectors);
}

StatusWith<LoadResult> LoadAndIndex(tc::MongoClient& client, const VectorBenchSettings& settings,
                                    const BenchData& data) {
  bson_t drop = BSON_INITIALIZER;
  BSON_APPEND_INT32(&drop, "dropDatabase", 1);
  StatusWith<tc::BsonPtr> dropped = client.RunCommand(settings.db, drop);
  bson_destroy(&drop);
  QUARRY_RETURN_IF_ERROR(dropped.status());
  tc::CollectionPtr handle = client.Collection(settings.db, settings.collection);
  LoadResult load;
  QUARRY_ASSIGN_OR_RETURN(load.insert_seconds, TimedInsert(handle.get(), settings, data));
  load.rss_before = ResidentBytes(settings.server_pid);
  const Clock::time_point start = Clock::now();
  QUARRY_RETURN_IF_ERROR(
      CreateVectorIndex(client, settings.db, settings.collection, IndexSpecOf(settings)));
  QUARRY_RETURN_IF_ERROR(WaitUntilReady(client, settings.db, settings.collection, "vector_index",
                                        settings.ready_timeout));
  load.ready_seconds = SecondsSince(start);
  load.rss_after = ResidentBytes(settings.server_pid);
  return load;
}

StatusWith<tc::ResultTable> BuildPart(tc::MongoClient& client, const VectorBenchSettings& settings,
                                      const BenchData& data, const LoadResult& load,
                                      const BaselineBuild& baseline,
                                      const BaselineBuild& in_process) {
  tc::CollectionPtr handle = client.Collection(settings.db, settings.insert_collection);
  QUARRY_RETURN_IF_ERROR(tb::DropCollection(handle.get()));
  QUARRY_RETURN_IF_ERROR(CreateCollection(client, settings.db, settings.insert_collection));
  QUARRY_RETURN_IF_ERROR(
      CreateVectorIndex(client, settings.db, settings.insert_collection, IndexSpecOf(settings)));
  QUARRY_RETURN_IF_ERROR(WaitUntilReady(client, settings.db, settings.insert_collection,
                                        "vector_index", settings.ready_timeout));
  const Clock::time_point start = Clock::now();
  QUARRY_ASSIGN_OR_RETURN(double insert_seconds, TimedInsert(handle.get(), settings, data));
  QUARRY_RETURN_IF_ERROR(WaitUntilReady(client, settings.db, settings.insert_collection,
                                        "vector_index", settings.ready_timeout));
  const double searchable_seconds = SecondsSince(start);
  QUARRY_RETURN_IF_ERROR(tb::DropCollection(handle.get()));

  tc::ResultTable table;
  table.benchmark = "vector_build";
  table.title = "search index build, inserts and memory vs hnswlib in-process and no index";
  table.parameters = {{"vectors", static_cast<std::int64_t>(settings.vectors)},
                      {"dimensions", static_cast<std::int64_t>(settings.dimensions)},
                      {"BSON bytes", static_cast<std::int64_t>(data.documents.bytes())},
                      {"batch", static_cast<std::int64_t>(settings.batch)}};
  table.columns = {{"measure", "measure"},
                   {"Quarry", "quarry", 2},
                   {"baseline", "baseline", 2},
                   {"baseline is", "baseline_is"},
                   {"Quarry / baseline", "ratio", 2},
                   {"note", "note"}};
  const double vectors = static_cast<double>(settings.vectors);
  auto row = [&](std::string measure, tc::Cell quarry, tc::Cell base, std::string base_is,
                 std::string note) {
    table.rows.push_back({std::move(measure), quarry, base, std::move(base_is), Ratio(quarry, base),
                          std::move(note)});
  };
  row("build seconds", load.ready_seconds, baseline.seconds, "hnswlib addPoint, 1 thread",
      "createSearchIndexes to READY on the loaded collection");
  row("build seconds, Quarry VectorIndex in-process", in_process.seconds, baseline.seconds,
      "hnswlib addPoint, 1 thread", "Upsert of every vector, 1 thread, no wire and no documents");
  row("insert vectors/s, index in place", vectors / insert_seconds, vectors / load.insert_seconds,
      "insert, no index",
      "w:1 insert_many; READY " + Fixed(searchable_seconds - insert_seconds, 3) +
          " s after the last insert");
  const tc::Cell server_bytes = BytesPerVector(
      load.rss_before >= 0 && load.rss_after >= 0 ? load.rss_after - load.rss_before : -1,
      settings.vectors);
  row("bytes per vector (RSS growth)", server_bytes,
      BytesPerVector(baseline.rss_growth, settings.vectors), "hnswlib, this process's RSS growth",
      "server VmRSS after READY minus before the index");
  row("bytes per vector (RSS growth)", server_bytes, static_cast<double>(4 * settings.dimensions),
      "raw float32, 4 x d", "");
  row("bytes per vector, Quarry VectorIndex in-process (RSS growth)",
      BytesPerVector(in_process.rss_growth, settings.vectors),
      BytesPerVector(baseline.rss_growth, settings.vectors), "hnswlib, this process's RSS growth",
      "this process's growth across the VectorIndex build");
  // Memory the allocator keeps after the drop is not counted, so this is a lower bound.
  const std::int64_t rss_indexed = ResidentBytes(settings.server_pid);
  QUARRY_RETURN_IF_ERROR(DropSearchIndex(client, settings.db, settings.collection, "vector_index",
                                         settings.ready_timeout));
  const std::int64_t rss_dropped = ResidentBytes(settings.server_pid);
  row("bytes per vector (RSS freed by drop)",
      BytesPerVector(rss_indexed >= 0 && rss_dropped >= 0 ? rss_indexed - rss_dropped : -1,
                     settings.vectors),
      static_cast<double>(4 * settings.dimensions), "raw float32, 4 x d",
      "VmRSS before dropSearchIndex minus after it is gone: the index alone");
  row("quantization: scalar and binary", tc::Cell(), tc::Cell(), "",
      "measured in the vector_quantization table");
  row("start-up from a snapshot", tc::Cell(), tc::Cell(), "",
      "measured in the vector_startup table");
  if (settings.server_pid <= 0) {
    table.notes.push_back("server memory not measured: pass --server-pid (run.sh does)");
  }
  table.notes.push_back(
      "RSS growth includes whatever else the server allocated meanwhile (RocksDB's block cache "
      "reading the documents for the build); the hnswlib row is this process's growth across "
      "its build.");
  return table;
}

}  // namespace quarry::bench
