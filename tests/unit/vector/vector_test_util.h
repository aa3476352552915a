// Random vectors with fixed seeds and a brute-force reference, computed in double precision
// without the library's kernels.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "vector/similarity.h"
#include "vector/vector_index.h"

namespace quarry::vector::testing {

using Vectors = std::vector<std::vector<float>>;

// `count` vectors of `dimensions` values uniform in [-1, 1).
inline Vectors RandomVectors(std::size_t count, std::size_t dimensions, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  Vectors vectors(count, std::vector<float>(dimensions));
  for (auto& vector : vectors) {
    for (float& value : vector) value = uniform(rng);
  }
  return vectors;
}

// Atlas's score of `a` against `b`, straight from the definitions.
inline double ReferenceScore(Similarity similarity, const std::vector<float>& a,
                             const std::vector<float>& b) {
  double dot = 0, norm_a = 0, norm_b = 0, squared = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    dot += double{a[i]} * b[i];
    norm_a += double{a[i]} * a[i];
    norm_b += double{b[i]} * b[i];
    squared += (double{a[i]} - b[i]) * (double{a[i]} - b[i]);
  }
  switch (similarity) {
    case Similarity::kEuclidean:
      return 1.0 / (1.0 + squared);
    case Similarity::kCosine:
      return (1.0 + dot / std::sqrt(norm_a * norm_b)) / 2.0;
    case Similarity::kDotProduct:
      return (1.0 + dot) / 2.0;
  }
  return 0;
}

// The `limit` best labels (vector positions) for `query`, best first.
template <typename Admit>
std::vector<VectorIndex::Hit> BruteForce(Similarity similarity, const Vectors& vectors,
                                         const std::vector<float>& query, std::size_t limit,
                                         Admit admit) {
  std::vector<VectorIndex::Hit> all;
  for (std::size_t label = 0; label < vectors.size(); ++label) {
    if (admit(label)) all.push_back({label, ReferenceScore(similarity, vectors[label], query)});
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.score > b.score; });
  if (all.size() > limit) all.resize(limit);
  return all;
}

// The share of `truth`'s labels that `found` contains.
inline double Recall(const std::vector<VectorIndex::Hit>& found,
                     const std::vector<VectorIndex::Hit>& truth) {
  if (truth.empty()) return 1.0;
  std::size_t matched = 0;
  for (const auto& expected : truth) {
    matched += std::any_of(found.begin(), found.end(),
                           [&](const auto& hit) { return hit.label == expected.label; });
  }
  return static_cast<double>(matched) / static_cast<double>(truth.size());
}

}  // namespace quarry::vector::testing
