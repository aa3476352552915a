// Part 5: the memory and recall of each quantization, each index built on the loaded collection
// and dropped before the next.
#include <malloc.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "bench/clients/process_memory.h"
#include "bench/clients/search_index.h"
#include "bench/clients/verdict.h"
#include "bench/vector/parts.h"

namespace quarry::bench {
namespace {

namespace tc = tools::client;
using Clock = std::chrono::steady_clock;

struct Memory {
  std::int64_t rss = -1;
  std::int64_t anonymous = -1;
};

Memory MemoryOf(int pid) { return {ResidentBytes(pid), AnonymousResidentBytes(pid)}; }

std::int64_t Growth(std::int64_t before, std::int64_t after) {
  return before >= 0 && after >= 0 ? after - before : -1;
}

// What one index of a quantization measured: build time, memory, and search at the smallest
// numCandidates tried that reaches kMinRecall (or the largest).
struct Measured {
  double build_seconds = 0;
  Memory before, after;
  tc::Cell reached, recall, rate;
};

// Runs `search(candidates)` at each numCandidates in turn until one reaches kMinRecall.
template <typename Search>
Status SearchUntilRecall(const VectorBenchSettings& settings, const BenchData& data, Search search,
                         Measured* measured) {
  for (std::size_t candidates : settings.candidates) {
    QUARRY_ASSIGN_OR_RETURN(SearchRun run, search(candidates));
    const double recall = MeanRecall(run.answers, data.truth);
    measured->recall = recall;
    measured->rate = run.QueriesPerSecond();
    if (recall >= kMinRecall) {
      measured->reached = static_cast<std::int64_t>(candidates);
      break;
    }
  }
  return Status::OK();
}

StatusWith<Measured> MeasureServer(tc::MongoClient& client, const VectorBenchSettings& settings,
                                   const BenchData& data, const std::string& quantization) {
  VectorIndexSpec spec = IndexSpecOf(settings);
  spec.name = "quantized_" + quantization;
  spec.quantization = quantization;
  Measured measured;
  measured.before = MemoryOf(settings.server_pid);
  const Clock::time_point start = Clock::now();
  QUARRY_RETURN_IF_ERROR(CreateVectorIndex(client, settings.db, settings.collection, spec));
  QUARRY_RETURN_IF_ERROR(
      WaitUntilReady(client, settings.db, settings.collection, spec.name, settings.ready_timeout));
  measured.build_seconds = SecondsSince(start);
  measured.after = MemoryOf(settings.server_pid);
  const ServerTarget target{.uri = settings.uri,
                            .db = settings.db,
                            .collection = settings.collection,
                            .index = spec.name};
  QUARRY_RETURN_IF_ERROR(SearchUntilRecall(
      settings, data,
      [&](std::size_t candidates) {
        return ServerSearch(target, data.queries, data.queries.size(),
                            {.limit = settings.k, .num_candidates = candidates}, 1);
      },
      &measured));
  QUARRY_RETURN_IF_ERROR(
      DropSearchIndex(client, settings.db, settings.collection, spec.name, settings.ready_timeout));
  return measured;
}

StatusWith<Measured> MeasureInProcess(const VectorBenchSettings& settings, const BenchData& data,
                                      const std::string& quantization) {
  // What earlier indexes freed goes back to the system first, so that it is not reused here.
  ::malloc_trim(0);
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("vector_bench_vectors_" + std::to_string(::getpid())))
                              .string();
  Measured measured;
  measured.before = MemoryOf(::getpid());
  InProcessIndex index(data.vectors, settings.max_edges, settings.ef_construction, quantization,
                       dir);
  measured.after = MemoryOf(::getpid());
  measured.build_seconds = index.build_seconds();
  QUARRY_RETURN_IF_ERROR(SearchUntilRecall(
      settings, data,
      [&](std::size_t candidates) {
        return StatusWith<SearchRun>(index.Search(data.queries, settings.k, candidates, 1));
      },
      &measured));
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  return measured;
}

}  // namespace

StatusWith<tc::ResultTable> QuantizationPart(tc::MongoClient& client,
                                             const VectorBenchSettings& settings,
                                             const BenchData& data) {
  tc::ResultTable table;
  table.benchmark = "vector_quantization";
  table.title = "search index memory and recall by quantization (rescored at full precision)";
  table.parameters = {
      {"vectors", static_cast<std::int64_t>(settings.vectors)},
      {"dimensions", static_cast<std::int64_t>(settings.dimensions)},
      {"queries", static_cast<std::int64_t>(data.queries.size())},
      {"raw float32 bytes per vector", static_cast<std::int64_t>(4 * settings.dimensions)}};
  table.columns = {{"measured in", "engine"},
                   {"quantization", "quantization"},
                   {"build seconds", "build_seconds", 2},
                   {"bytes/vector RSS growth", "rss_bytes_per_vector", 0},
                   {"bytes/vector RssAnon growth", "anon_bytes_per_vector", 0},
                   {"RSS / raw 4 x d", "rss_to_raw", 2},
                   {"numCandidates for recall@10 >= 0.95", "num_candidates"},
                   {"recall@10 there", "recall", 4},
                   {"queries/s there", "queries_per_second", 0}};
  const double raw = static_cast<double>(4 * settings.dimensions);
  auto add_row = [&](const std::string& where, const std::string& quantization, const Measured& m) {
    const tc::Cell rss = BytesPerVector(Growth(m.before.rss, m.after.rss), settings.vectors);
    table.rows.push_back(
        {where, quantization, m.build_seconds, rss,
         BytesPerVector(Growth(m.before.anonymous, m.after.anonymous), settings.vectors),
         std::holds_alternative<double>(rss) ? tc::Cell(std::get<double>(rss) / raw) : tc::Cell(),
         m.reached, m.recall, m.rate});
  };
  // Smallest first: an allocator keeps some of what a dropped index freed, and a larger index
  // after a smaller one reuses less of it.
  for (const std::string quantization : {"binary", "scalar", "none"}) {
    QUARRY_ASSIGN_OR_RETURN(Measured in_process, MeasureInProcess(settings, data, quantization));
    add_row("VectorIndex in-process", quantization, in_process);
  }
  for (const std::string quantization : {"binary", "scalar", "none"}) {
    QUARRY_ASSIGN_OR_RETURN(Measured server, MeasureServer(client, settings, data, quantization));
    add_row("server", quantization, server);
  }
  table.notes.push_back(
      "In-process: Quarry's VectorIndex built in this process (after malloc_trim), its RSS "
      "growth. Server: an index created on the loaded collection, measured once READY, then "
      "dropped; the server's allocator may reuse what earlier indexes freed, so these rows can "
      "read low. Each is searched (one thread) at each numCandidates tried until recall@10 "
      "reaches " +
      Fixed(kMinRecall, 2) +
      " (the last one tried otherwise). A quantized index keeps its full-precision vectors, for "
      "rescoring, in a file mapping: page cache, not RssAnon; the RSS column counts both.");
  if (settings.server_pid <= 0) {
    table.notes.push_back("server memory not measured: pass --server-pid (run.sh does)");
  }
  return table;
}

}  // namespace quarry::bench
