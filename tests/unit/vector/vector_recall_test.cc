// Approximate search quality on 20,000 random 64-dimensional vectors (uniform in [-1, 1),
// euclidean, M = 16, efConstruction = 100): recall@10 against exact search without and with
// filters of 1%, 10% and 50% selectivity, plus the latency each case measures.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <string>

#include "vector/vector_index.h"
#include "vector_test_util.h"

namespace quarry::vector {
namespace {

using testing::RandomVectors;
using testing::Recall;
using testing::Vectors;

constexpr std::size_t kCount = 20000;
constexpr std::size_t kDims = 64;
constexpr std::size_t kQueries = 100;
constexpr std::size_t kLimit = 10;
constexpr std::size_t kNumCandidates = 200;

// Built once for every test here: the build is what costs (about 2 s).
struct Fixture {
  VectorIndex index{{.dimensions = kDims, .similarity = Similarity::kEuclidean}};
  Vectors queries = RandomVectors(kQueries, kDims, 8);

  Fixture() {
    Vectors vectors = RandomVectors(kCount, kDims, 7);
    auto start = std::chrono::steady_clock::now();
    for (std::size_t label = 0; label < kCount; ++label) index.Upsert(label, vectors[label]);
    std::cout << "[ build    ] " << kCount << " vectors in "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
              << " s\n";
  }
};

const Fixture& Shared() {
  static const Fixture* fixture = new Fixture();
  return *fixture;
}

struct Measured {
  double recall;
  double micros_per_query;
};

// Mean recall@10 of approximate search against exact search with the same filter; every
// approximate hit must pass the filter and the answer must be as long as the exact one.
Measured Measure(const VectorIndex::Filter* filter) {
  const Fixture& fixture = Shared();
  double recall_sum = 0;
  std::chrono::duration<double, std::micro> elapsed{0};
  for (const auto& query : fixture.queries) {
    auto start = std::chrono::steady_clock::now();
    auto approximate = fixture.index.Search(query, kLimit, kNumCandidates, filter, false);
    elapsed += std::chrono::steady_clock::now() - start;
    auto exact = fixture.index.Search(query, kLimit, kNumCandidates, filter, true);
    EXPECT_TRUE(approximate.ok() && exact.ok());
    EXPECT_EQ(approximate.value().size(), exact.value().size());
    for (const auto& hit : approximate.value()) {
      EXPECT_TRUE(filter == nullptr || (*filter)(hit.label)) << hit.label;
    }
    recall_sum += Recall(approximate.value(), exact.value());
  }
  Measured measured{recall_sum / kQueries, elapsed.count() / kQueries};
  std::cout << "[ measured ] " << (filter ? "filtered" : "unfiltered") << ": recall@10 "
            << measured.recall << ", " << measured.micros_per_query << " us/query\n";
  return measured;
}

TEST(VectorRecallTest, UnfilteredRecallAt10IsAtLeast90Percent) {
  EXPECT_GE(Measure(nullptr).recall, 0.9);
}

// A filter admitting one label in `GetParam()`: 1%, 10% and 50% of them. At 1% the index scans;
// at 10% the graph search gives up for a scan once it costs more; at 50% the graph answers.
class VectorFilteredRecallTest : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(VectorFilteredRecallTest, ReturnsOnlyMatchesWithRecallAt10OfAtLeast95Percent) {
  std::uint64_t one_in = GetParam();
  VectorIndex::Filter filter = [one_in](std::uint64_t label) { return label % one_in == 1; };
  EXPECT_GE(Measure(&filter).recall, 0.95);
}

INSTANTIATE_TEST_SUITE_P(Selectivities, VectorFilteredRecallTest, ::testing::Values(100, 10, 2),
                         [](const auto& info) { return "OneIn" + std::to_string(info.param); });

}  // namespace
}  // namespace quarry::vector
