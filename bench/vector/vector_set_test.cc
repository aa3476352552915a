// The benchmark's own arithmetic: generated data, exact answers, recall and the /proc reader.
#include "bench/vector/vector_set.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "bench/clients/process_cpu.h"
#include "bench/clients/process_memory.h"
#include "bench/vector/cpu_time.h"
#include "bench/vector/server_vectors.h"

namespace quarry::bench {
namespace {

TEST(VectorSetTest, SameArgumentsGiveSameVectorsAndStreamsDiffer) {
  const VectorSet a = MakeClusteredVectors(50, 16, {}, 0);
  const VectorSet b = MakeClusteredVectors(50, 16, {}, 0);
  const VectorSet other = MakeClusteredVectors(50, 16, {}, 1);
  EXPECT_EQ(a.values, b.values);
  EXPECT_EQ(a.buckets, b.buckets);
  EXPECT_NE(a.values, other.values);
}

TEST(VectorSetTest, VectorsAreUnitLengthAndBucketsCoverTheRange) {
  const VectorSet set = MakeClusteredVectors(5000, 8, {}, 0);
  ASSERT_EQ(set.size(), 5000u);
  for (std::size_t index = 0; index < set.size(); ++index) {
    std::span<const float> v = set.Vector(index);
    const double norm = std::sqrt(std::inner_product(v.begin(), v.end(), v.begin(), 0.0));
    ASSERT_NEAR(norm, 1.0, 1e-5);
  }
  const auto below_ten =
      std::count_if(set.buckets.begin(), set.buckets.end(), [](int bucket) { return bucket < 10; });
  EXPECT_NEAR(static_cast<double>(below_ten) / 5000, 0.10, 0.02);
  EXPECT_EQ(*std::min_element(set.buckets.begin(), set.buckets.end()), 0);
  EXPECT_EQ(*std::max_element(set.buckets.begin(), set.buckets.end()), kBuckets - 1);
}

TEST(VectorSetTest, VectorsOfAClusterAreCloserThanVectorsOfDifferentClusters) {
  // One cluster: every pair is close. Many clusters: the typical pair is far apart.
  const VectorSet one = MakeClusteredVectors(20, 64, {.clusters = 1}, 0);
  const VectorSet many = MakeClusteredVectors(20, 64, {.clusters = 1000}, 0);
  auto mean_dot = [](const VectorSet& set) {
    double sum = 0;
    for (std::size_t i = 1; i < set.size(); ++i) {
      std::span<const float> a = set.Vector(0), b = set.Vector(i);
      sum += std::inner_product(a.begin(), a.end(), b.begin(), 0.0);
    }
    return sum / static_cast<double>(set.size() - 1);
  };
  EXPECT_GT(mean_dot(one), 0.7);
  EXPECT_LT(mean_dot(many), 0.3);
}

TEST(VectorSetTest, ExactTopKMatchesASortOfAllScoresAndHonoursTheFilter) {
  const VectorSet set = MakeClusteredVectors(400, 12, {.clusters = 5}, 0);
  const VectorSet queries = MakeClusteredVectors(3, 12, {.clusters = 5}, 1);
  for (std::size_t query = 0; query < queries.size(); ++query) {
    for (int max_bucket : {kBuckets, 30, 2}) {
      std::vector<std::pair<double, std::uint32_t>> all;
      for (std::uint32_t index = 0; index < set.size(); ++index) {
        if (set.buckets[index] >= max_bucket) continue;
        std::span<const float> q = queries.Vector(query), v = set.Vector(index);
        all.emplace_back(-std::inner_product(q.begin(), q.end(), v.begin(), 0.0), index);
      }
      std::sort(all.begin(), all.end());
      const std::vector<std::uint32_t> top =
          ExactTopK(set, queries.Vector(query), 10, {.max_bucket = max_bucket});
      ASSERT_EQ(top.size(), std::min<std::size_t>(10, all.size()));
      for (std::size_t rank = 0; rank < top.size(); ++rank) {
        EXPECT_EQ(top[rank], all[rank].second) << "rank " << rank << " bucket < " << max_bucket;
      }
    }
  }
}

TEST(VectorSetTest, RecallCountsSharedAnswersOnceAndIgnoresExtras) {
  const std::vector<std::uint32_t> truth = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(RecallAt(std::vector<std::uint32_t>{4, 3, 2, 1}, truth), 1.0);
  EXPECT_DOUBLE_EQ(RecallAt(std::vector<std::uint32_t>{1, 9, 2, 8}, truth), 0.5);
  EXPECT_DOUBLE_EQ(RecallAt(std::vector<std::uint32_t>{1, 1, 1, 1}, truth), 0.25);
  EXPECT_DOUBLE_EQ(RecallAt(std::vector<std::uint32_t>{9, 9, 9, 9, 1, 2}, truth), 0.0);
  EXPECT_DOUBLE_EQ(RecallAt(std::vector<std::uint32_t>{}, truth), 0.0);
  EXPECT_DOUBLE_EQ(MeanRecall({{1, 2, 3, 4}, {}}, {truth, truth}), 0.5);
}

TEST(ResidentBytesTest, ReadsThisProcessAndRefusesNoProcess) {
  EXPECT_GT(ResidentBytes(getpid()), 1 << 20);
  EXPECT_EQ(ResidentBytes(0), -1);
}

TEST(CpuTimeTest, MetersThisProcessAndRefusesNoProcess) {
  EXPECT_EQ(ProcessCpuSeconds(0), -1);
  const CpuMeter meter(getpid());
  volatile double sink = 0;
  const double start = OwnCpuSeconds();
  while (OwnCpuSeconds() - start < 0.1) sink = sink + 1;
  const CpuMeter::Used used = meter.Stop();
  EXPECT_GE(used.own_seconds, 0.1);
  EXPECT_LT(used.own_seconds, 5.0);
  // /proc counts in clock ticks (10 ms): most of the 0.1 s shows.
  EXPECT_GE(used.pid_seconds, 0.05);
}

}  // namespace
}  // namespace quarry::bench
