// The parts of the vector-search benchmark, each measured against its in-process baseline in
// the same run and returned as a table: approximate search vs hnswlib, filtered search vs a
// filtered brute force, exact search vs a flat scan, index build, inserts and memory, and
// start-up from a snapshot vs a rebuild.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "bench/vector/hnswlib_baseline.h"
#include "bench/vector/index_baseline.h"
#include "bench/vector/server_vectors.h"
#include "bench/vector/vector_set.h"
#include "tools/bench/document_set.h"
#include "tools/client/mongo_client.h"
#include "tools/client/result_table.h"

namespace quarry::bench {

struct VectorBenchSettings {
  std::string uri;
  std::string db = "quarry_vector_bench";
  std::string collection = "vectors";                 // loaded, indexed, then queried
  std::string insert_collection = "vectors_inserts";  // the insert with the index in place
  std::size_t vectors = 50'000;
  std::size_t dimensions = 384;
  std::size_t queries = 1'000;
  std::size_t exact_queries = 200;  // exact scans cost a pass over every vector each
  std::size_t k = 10;
  std::size_t max_edges = 16;                                 // M
  std::size_t ef_construction = 100;                          // efConstruction
  std::vector<std::size_t> candidates = {50, 100, 200, 400};  // numCandidates = ef, tried in order
  std::size_t batch = 1'000;                                  // documents per insert_many
  int threads = 4;                                            // the multi-threaded rows
  int repeat = 3;                // runs of each unfiltered row; the median time is shown
  double min_seconds = 2;        // each unfiltered approximate row cycles its queries this long
  int server_pid = 0;            // for VmRSS; 0: memory not measured
  double ready_timeout = 1'800;  // seconds to wait for READY
};

// Targets.
inline constexpr double kMinShareOfHnswlib = 0.5;  // of hnswlib's queries/s
inline constexpr double kMinRecall = 0.95;         // recall@10

// Generated data with its exact answers, made once before anything is timed.
struct BenchData {
  VectorSet vectors;
  VectorSet queries;
  std::vector<std::vector<std::uint32_t>> truth;  // unfiltered, per query
  tools::bench::DocumentSet documents;
};
BenchData MakeBenchData(const VectorBenchSettings& settings);

// What loading and indexing the queried collection measured (part 4's server half).
struct LoadResult {
  double insert_seconds = 0;  // w:1 insert_many, no search index yet
  double ready_seconds = 0;   // createSearchIndexes until READY
  std::int64_t rss_before = -1;
  std::int64_t rss_after = -1;
};

// The search index the benchmark creates: its dimensions, M and efConstruction.
VectorIndexSpec IndexSpecOf(const VectorBenchSettings& settings);
// `growth` bytes over `vectors`; an empty cell when the growth could not be measured (< 0).
tools::client::Cell BytesPerVector(std::int64_t growth, std::size_t vectors);

// Drops the database, inserts every document into settings.collection, then creates the
// search index and waits until it is READY.
StatusWith<LoadResult> LoadAndIndex(tools::client::MongoClient& client,
                                    const VectorBenchSettings& settings, const BenchData& data);

// Part 1: the server and Quarry's VectorIndex in-process at each numCandidates vs hnswlib at
// the same ef, one thread; then all three with settings.threads at the smallest numCandidates
// reaching kMinRecall (or the largest). Sets *chosen to that numCandidates.
StatusWith<tools::client::ResultTable> SearchPart(const VectorBenchSettings& settings,
                                                  const BenchData& data, HnswlibBaseline& hnswlib,
                                                  const InProcessIndex& in_process,
                                                  std::size_t* chosen);

// Part 2: {bucket: {$lt: n}} for 1%, 10% and 50% of the vectors, at `num_candidates`.
StatusWith<tools::client::ResultTable> FilteredPart(const VectorBenchSettings& settings,
                                                    const BenchData& data,
                                                    std::size_t num_candidates);

// Part 3: exact: true through the server vs a flat scan in this process.
StatusWith<tools::client::ResultTable> ExactPart(const VectorBenchSettings& settings,
                                                 const BenchData& data);

// What an in-process build (hnswlib's, or Quarry's VectorIndex) cost this process.
struct BaselineBuild {
  double seconds = 0;
  std::int64_t rss_growth = -1;
};

// Part 4: the index build and memory against hnswlib's, and an insert with the index in place
// against the load without one (this inserts into settings.insert_collection, then drops it),
// and Quarry's VectorIndex built in-process (`in_process`) against hnswlib. Drops the queried
// collection's search index last, to see the memory it frees.
StatusWith<tools::client::ResultTable> BuildPart(tools::client::MongoClient& client,
                                                 const VectorBenchSettings& settings,
                                                 const BenchData& data, const LoadResult& load,
                                                 const BaselineBuild& baseline,
                                                 const BaselineBuild& in_process);

// Part 5: an index of each quantization (binary, scalar, none) built on the loaded collection in
// turn: its memory per vector (RSS and RssAnon growth) against the raw 4 x d, and the smallest
// numCandidates that reaches kMinRecall. REQUIRES: the part-4 index dropped.
StatusWith<tools::client::ResultTable> QuantizationPart(tools::client::MongoClient& client,
                                                        const VectorBenchSettings& settings,
                                                        const BenchData& data);

// Part 6: the server's start-up with the queried collection's search index, timed from the
// process's start until it listens and until the index is READY: from the snapshot a clean
// shutdown writes, then with the snapshots removed (a rebuild). Stops the server at
// settings.server_pid, starts it again from its own command line twice and stops it again, so
// it runs last. A table with a note instead of rows without --server-pid.
StatusWith<tools::client::ResultTable> StartupPart(tools::client::MongoClient& client,
                                                   const VectorBenchSettings& settings);

}  // namespace quarry::bench
