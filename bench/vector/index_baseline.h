// Quarry's VectorIndex called in this process on the benchmark's vectors, with the same
// parameters as the server's index: the index's own cost, next to hnswlib's, without the wire.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "bench/vector/hnswlib_baseline.h"
#include "bench/vector/vector_set.h"

namespace quarry::vector {
class VectorIndex;
}

namespace quarry::bench {

class InProcessIndex {
 public:
  // Builds the index from every vector of `set` (cosine, label = position) on one thread.
  // `quantization` "none", "scalar" or "binary"; a quantized index maps its full-precision
  // vectors from a file in `vector_file_dir` (empty: memory), as the server does.
  InProcessIndex(const VectorSet& set, std::size_t max_edges, std::size_t ef_construction,
                 const std::string& quantization = "none", const std::string& vector_file_dir = "");
  ~InProcessIndex();
  InProcessIndex(const InProcessIndex&) = delete;
  InProcessIndex& operator=(const InProcessIndex&) = delete;

  double build_seconds() const { return build_seconds_; }

  // The `k` best of each query with numCandidates `ef`, queries shared out over `threads` and
  // cycled until `min_seconds` have passed.
  SearchRun Search(const VectorSet& queries, std::size_t k, std::size_t ef, int threads,
                   double min_seconds = 0) const;

 private:
  std::unique_ptr<vector::VectorIndex> index_;
  double build_seconds_ = 0;
};

}  // namespace quarry::bench
