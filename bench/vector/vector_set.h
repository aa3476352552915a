// The benchmark's data: clustered unit vectors with a `bucket` filter field of known
// distribution, query vectors drawn like them, and the exact answers computed by brute force.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace quarry::bench {

// Buckets are uniform over [0, kBuckets), so {bucket: {$lt: n}} admits n% of the vectors.
inline constexpr int kBuckets = 100;

struct VectorSet {
  std::size_t dimensions = 0;
  std::vector<float> values;  // vector i is values[i * dimensions, (i + 1) * dimensions)
  std::vector<int> buckets;   // one per vector

  std::size_t size() const { return buckets.size(); }
  std::span<const float> Vector(std::size_t index) const {
    return {values.data() + index * dimensions, dimensions};
  }
};

struct Clustering {
  std::size_t clusters = 100;
  double spread = 0.5;  // per-coordinate standard deviation around a centre, before normalising
  std::uint64_t seed = 42;
};

// `count` vectors of `dimensions`: each a random one of `clusters` Gaussian centres plus
// Gaussian noise, normalised to length 1. The same arguments give the same vectors on any
// machine. `stream` picks an independent sequence over the same centres, so queries (another
// stream) fall where the data is.
VectorSet MakeClusteredVectors(std::size_t count, std::size_t dimensions,
                               const Clustering& clustering, std::uint64_t stream);

// Admits the vectors whose bucket is below `max_bucket`; kBuckets admits all.
struct BucketFilter {
  int max_bucket = kBuckets;
  bool Admits(int bucket) const { return bucket < max_bucket; }
};

// The indexes of the `k` vectors of `set` with the highest dot product with `query` among
// those `filter` admits, best first (ties by lower index). For unit vectors that is cosine
// order.
std::vector<std::uint32_t> ExactTopK(const VectorSet& set, std::span<const float> query,
                                     std::size_t k, BucketFilter filter = {});

// |found ∩ truth| / |truth|, found cut to truth's size; 1 when truth is empty.
double RecallAt(std::span<const std::uint32_t> found, std::span<const std::uint32_t> truth);

// The mean of RecallAt over the queries; `found` and `truth` are parallel.
double MeanRecall(const std::vector<std::vector<std::uint32_t>>& found,
                  const std::vector<std::vector<std::uint32_t>>& truth);

}  // namespace quarry::bench
