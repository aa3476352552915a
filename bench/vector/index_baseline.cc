// VectorIndex in-process: the same Upsert and Search the server's registry calls.
#include "bench/vector/index_baseline.h"

#include <chrono>
#include <vector>

#include "vector/vector_index.h"

namespace quarry::bench {
InProcessIndex::InProcessIndex(const VectorSet& set, std::size_t max_edges,
                               std::size_t ef_construction, const std::string& quantization,
                               const std::string& vector_file_dir) {
  const auto start = std::chrono::steady_clock::now();
  index_ = std::make_unique<vector::VectorIndex>(vector::VectorIndex::Options{
      .dimensions = set.dimensions,
      .similarity = vector::Similarity::kCosine,
      .max_edges = max_edges,
      .num_edge_candidates = ef_construction,
      .quantization = vector::ParseQuantization(quantization).value_or(vector::Quantization::kNone),
      .vector_file_dir = vector_file_dir});
  for (std::size_t label = 0; label < set.size(); ++label) {
    (void)index_->Upsert(label, set.Vector(label));
  }
  build_seconds_ = SecondsSince(start);
}

InProcessIndex::~InProcessIndex() = default;

SearchRun InProcessIndex::Search(const VectorSet& queries, std::size_t k, std::size_t ef,
                                 int threads, double min_seconds) const {
  return RunQueries(
      queries.size(), threads,
      [&](std::size_t query) {
        std::vector<std::uint32_t> answer;
        StatusWith<std::vector<vector::VectorIndex::Hit>> hits =
            index_->Search(queries.Vector(query), k, ef, nullptr, /*exact=*/false);
        if (!hits.ok()) return answer;  // the vectors are valid: no error is expected
        for (const vector::VectorIndex::Hit& hit : hits.value()) {
          answer.push_back(static_cast<std::uint32_t>(hit.label));
        }
        return answer;
      },
      min_seconds);
}

}  // namespace quarry::bench
