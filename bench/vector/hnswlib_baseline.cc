// hnswlib (Debian's libhnswlib-dev, header-only) behind a small interface, so only this file
// sees it and is built with the CPU's own instruction set, as hnswlib is usually built.
#include "bench/vector/hnswlib_baseline.h"

#include <hnswlib/hnswlib.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>

#include "bench/vector/cpu_time.h"
#include "bench/vector/query_cycle.h"

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
                     const std::function<std::vector<std::uint32_t>(std::size_t)>& answer,
                     double min_seconds) {
  SearchRun run;
  run.answers.resize(count);
  QueryCycle cycle(count, min_seconds);
  auto work = [&] {
    for (std::optional<QueryCycle::Turn> turn = cycle.Next(); turn; turn = cycle.Next()) {
      std::vector<std::uint32_t> found = answer(turn->query);
      if (turn->first_pass) run.answers[turn->query] = std::move(found);
    }
  };
  const CpuMeter cpu(/*pid=*/0);
  cycle.Start();
  std::vector<std::thread> workers;
  for (int thread_idx = 0; thread_idx < threads; ++thread_idx) workers.emplace_back(work);
  for (std::thread& worker : workers) worker.join();
  run.seconds = cycle.SecondsSinceStart();
  run.own_cpu_seconds = cpu.Stop().own_seconds;
  run.queries = cycle.handed_out();
  return run;
}

SearchRun HnswlibBaseline::Search(const VectorSet& queries, std::size_t k, std::size_t ef,
                                  int threads, double min_seconds) {
  index_->graph.setEf(std::max(ef, k));
  return RunQueries(
      queries.size(), threads,
      [&](std::size_t query) {
        auto heap = index_->graph.searchKnn(queries.Vector(query).data(), k);
        std::vector<std::uint32_t> answer(heap.size());
        // The heap pops the farthest first.
        for (std::size_t rank = heap.size(); rank-- > 0; heap.pop()) {
          answer[rank] = static_cast<std::uint32_t>(heap.top().second);
        }
        return answer;
      },
      min_seconds);
}

SearchRun FlatScan(const VectorSet& set, const VectorSet& queries, std::size_t query_count,
                   std::size_t k) {
  SearchRun run;
  const Clock::time_point start = Clock::now();
  for (std::size_t query = 0; query < query_count; ++query) {
    run.answers.push_back(ExactTopK(set, queries.Vector(query), k));
  }
  run.seconds = SecondsSince(start);
  run.queries = query_count;
  return run;
}

}  // namespace quarry::bench
