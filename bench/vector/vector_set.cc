// Generation by mt19937_64 and a Box-Muller transform written here rather than
// std::normal_distribution, whose output differs between standard libraries.
#include "bench/vector/vector_set.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <unordered_set>

#include "vector/distance_kernels.h"

namespace quarry::bench {
namespace {

class Gaussian {
 public:
  explicit Gaussian(std::uint64_t seed) : random_(seed) {}

  double Next() {
    // Uniform in (0, 1]: the logarithm below must not see 0.
    const double u1 = (static_cast<double>(random_() >> 11) + 1.0) / 9007199254740992.0;
    const double u2 = static_cast<double>(random_() >> 11) / 9007199254740992.0;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }
  std::uint64_t Raw() { return random_(); }

 private:
  std::mt19937_64 random_;
};

std::vector<double> MakeCentres(std::size_t dimensions, const Clustering& clustering) {
  Gaussian gaussian(clustering.seed);
  std::vector<double> centres(clustering.clusters * dimensions);
  for (double& value : centres) value = gaussian.Next();
  return centres;
}

}  // namespace

VectorSet MakeClusteredVectors(std::size_t count, std::size_t dimensions,
                               const Clustering& clustering, std::uint64_t stream) {
  const std::vector<double> centres = MakeCentres(dimensions, clustering);
  // Far from the centres' seed, so no stream repeats the centres' numbers.
  Gaussian gaussian(clustering.seed ^ (0x9e3779b97f4a7c15ULL * (stream + 1)));
  VectorSet set;
  set.dimensions = dimensions;
  set.values.resize(count * dimensions);
  set.buckets.resize(count);
  std::vector<double> point(dimensions);
  for (std::size_t vector_idx = 0; vector_idx < count; ++vector_idx) {
    const std::size_t cluster = gaussian.Raw() % clustering.clusters;
    set.buckets[vector_idx] = static_cast<int>(gaussian.Raw() % kBuckets);
    double norm = 0;
    for (std::size_t dim = 0; dim < dimensions; ++dim) {
      point[dim] = centres[cluster * dimensions + dim] + clustering.spread * gaussian.Next();
      norm += point[dim] * point[dim];
    }
    norm = std::sqrt(norm);
    for (std::size_t dim = 0; dim < dimensions; ++dim) {
      set.values[vector_idx * dimensions + dim] = static_cast<float>(point[dim] / norm);
    }
  }
  return set;
}

std::vector<std::uint32_t> ExactTopK(const VectorSet& set, std::span<const float> query,
                                     std::size_t k, BucketFilter filter) {
  std::vector<std::pair<float, std::uint32_t>> scored;
  scored.reserve(set.size());
  for (std::size_t index = 0; index < set.size(); ++index) {
    if (!filter.Admits(set.buckets[index])) continue;
    scored.emplace_back(vector::DotProduct(query, set.Vector(index)),
                        static_cast<std::uint32_t>(index));
  }
  const std::size_t keep = std::min(k, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(keep),
                    scored.end(), [](const auto& a, const auto& b) {
                      return a.first != b.first ? a.first > b.first : a.second < b.second;
                    });
  std::vector<std::uint32_t> top(keep);
  for (std::size_t rank = 0; rank < keep; ++rank) top[rank] = scored[rank].second;
  return top;
}

double RecallAt(std::span<const std::uint32_t> found, std::span<const std::uint32_t> truth) {
  if (truth.empty()) return 1.0;
  std::unordered_set<std::uint32_t> wanted(truth.begin(), truth.end());
  std::size_t hits = 0;
  for (std::size_t rank = 0; rank < std::min(found.size(), truth.size()); ++rank) {
    hits += wanted.erase(found[rank]);  // a repeated answer counts once
  }
  return static_cast<double>(hits) / static_cast<double>(truth.size());
}

double MeanRecall(const std::vector<std::vector<std::uint32_t>>& found,
                  const std::vector<std::vector<std::uint32_t>>& truth) {
  if (truth.empty()) return 1.0;
  double sum = 0;
  for (std::size_t query_idx = 0; query_idx < truth.size(); ++query_idx) {
    sum += RecallAt(found[query_idx], truth[query_idx]);
  }
  return sum / static_cast<double>(truth.size());
}

}  // namespace quarry::bench
