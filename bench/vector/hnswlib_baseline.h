// The in-process baselines: hnswlib's HNSW over the same vectors, with the same M,
// efConstruction and ef as the server's index, on inner product (cosine on unit vectors), and
// a flat scan.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "bench/vector/vector_set.h"

namespace quarry::bench {

struct SearchRun {
  double seconds = 0;                               // wall time for all queries answered
  std::size_t queries = 0;                          // answered: the set once or cycled (QueryCycle)
  std::vector<std::vector<std::uint32_t>> answers;  // per query of the set, best first
  double own_cpu_seconds = 0;      // this process's CPU meanwhile: the engine's, or the clients'
  double server_cpu_seconds = -1;  // the server's CPU meanwhile; -1 when not measured

  double QueriesPerSecond() const { return static_cast<double>(queries) / seconds; }
};

// Seconds on the steady clock since `start`.
double SecondsSince(std::chrono::steady_clock::time_point start);

// Answers queries 0..count-1 with `answer` (the labels found, best first), shared out over
// `threads` threads, and times the whole; cycles through them again until `min_seconds` have
// passed.
SearchRun RunQueries(std::size_t count, int threads,
                     const std::function<std::vector<std::uint32_t>(std::size_t)>& answer,
                     double min_seconds = 0);

class HnswlibBaseline {
 public:
  // Builds the graph from every vector of `set` on one thread, as the server builds its index.
  HnswlibBaseline(const VectorSet& set, std::size_t max_edges, std::size_t ef_construction);
  ~HnswlibBaseline();
  HnswlibBaseline(const HnswlibBaseline&) = delete;
  HnswlibBaseline& operator=(const HnswlibBaseline&) = delete;

  double build_seconds() const { return build_seconds_; }

  // The `k` nearest of each query with a beam of `ef`, queries shared out over `threads`.
  SearchRun Search(const VectorSet& queries, std::size_t k, std::size_t ef, int threads,
                   double min_seconds = 0);

 private:
  struct Index;
  std::unique_ptr<Index> index_;
  double build_seconds_ = 0;
};

// A flat scan in this process: ExactTopK over every vector for each query, one thread.
SearchRun FlatScan(const VectorSet& set, const VectorSet& queries, std::size_t query_count,
                   std::size_t k);

}  // namespace quarry::bench
