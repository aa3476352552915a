// hnswlib (Debian's libhnswlib-dev, header-only) behind a small interface, so only this file
// sees it and is built with the CPU's own instruction set, as hnswlib is usually built.
#include "bench/vector/hnswlib_baseline.h"

#include <hnswlib/hnswlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

namespace quarry::bench {
using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct HnswlibBaseline::Index {
  Index(const VectorSet& set, std::size_t max_edges, std::size_t ef_construction)
      : space(set.dimensions), graph(&space, set.size(), max_edges, ef_construction) {}
  hnswlib::InnerProductSpace space;
  hnswlib::HierarchicalNSW<float> graph;
};

HnswlibBaseline::HnswlibBaseline(const VectorSet& set, std::size_t max_edges,
                                 std::size_t ef_construction) {
  const Clock::time_point start = Clock::now();
  index_ = std::make_unique<Index>(set, max_edges, ef_construction);
  for (std::size_t label = 0; label < set.size(); ++label) {
    index_->graph.addPoint(set.Vector(label).data(), label);
  }
  build_seconds_ = SecondsSince(start);
}

HnswlibBaseline::~HnswlibBaseline() = default;

SearchRun RunQueries(std::size_t count, int threads,
                     const std::function<std::vector<std::uint32_t>(std::size_t)>& answer) {
  SearchRun run;
  run.answers.resize(count);
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t query = next++; query < count; query = next++) {
      run.answers[query] = answer(query);
    }
  };
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> workers;
  for (int thread_idx = 0; thread_idx < threads; ++thread_idx) workers.emplace_back(work);
  for (std::thread& worker : workers) worker.join();
  run.seconds = SecondsSince(start);
  return run;
}

SearchRun HnswlibBaseline::Search(const VectorSet& queries, std::size_t k, std::size_t ef,
                                  int threads) {
  index_->graph.setEf(std::max(ef, k));
  return RunQueries(queries.size(), threads, [&](std::size_t query) {
    auto heap = index_->graph.searchKnn(queries.Vector(query).data(), k);
    std::vector<std::uint32_t> answer(heap.size());
    // The heap pops the farthest first.
    for (std::size_t rank = heap.size(); rank-- > 0; heap.pop()) {
      answer[rank] = static_cast<std::uint32_t>(heap.top().second);
    }
    return answer;
  });
}

SearchRun FlatScan(const VectorSet& set, const VectorSet& queries, std::size_t query_count,
                   std::size_t k) {
  SearchRun run;
  const Clock::time_point start = Clock::now();
  for (std::size_t query = 0; query < query_count; ++query) {
    run.answers.push_back(ExactTopK(set, queries.Vector(query), k));
  }
  run.seconds = SecondsSince(start);
  return run;
}

}  // namespace quarry::bench
